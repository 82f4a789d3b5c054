package bbs

import (
	"context"
	"flag"
	"io"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"kurabe/store"
	"kurabe/store/sqlite"
	"kurabe/workload"
	"kurabe/workload/workloadtest"
)

func TestParseMix(t *testing.T) {
	cases := []struct {
		in   string
		want []int
		err  string
	}{
		{in: "write=50,read-all=50", want: []int{50, 0, 50}[:0]}, // checked below by sum
		{in: "write=20, read-latest=80", want: []int{20, 0, 80}},
		{in: "write=1,write=2", want: []int{3, 0, 0}}, // repeated kinds add up
		{in: "write=0", err: "add up to 0"},           // nothing to do
		{in: "delete=5", err: "want KIND=WEIGHT"},     // unknown kind
		{in: "write=-1", err: "want KIND=WEIGHT"},     // negative
		{in: "write", err: "want KIND=WEIGHT"},        // no weight
	}
	for _, c := range cases {
		got, err := parseMix(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: err = %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if len(c.want) > 0 && (got[0] != c.want[0] || got[1] != c.want[1] || got[2] != c.want[2]) {
			t.Errorf("%q = %v, want %v", c.in, got, c.want)
		}
	}
}

func build(t *testing.T, args ...string) *bbs {
	t.Helper()
	return workloadtest.Build(t, New(), []string{"write", "read-all", "read-latest", "mix"}, args...).(*bbs)
}

func TestClientOnRealStore(t *testing.T) {
	// Posts written by the client read back as the newest N, with the text
	// size asked for, on a real SQLite database.
	w := build(t, "--latest", "25", "--text-size", "40", "--category", "news")
	sp, _ := store.ParseSpec("sqlite:")
	st, err := sqlite.Open(context.Background(), sp, store.Env{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := st.Setup(ctx, w.Tables()); err != nil {
		t.Fatal(err)
	}
	s, err := st.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := w.NewClient(s, rand.New(rand.NewPCG(1, 1)))
	for range 60 {
		// A write writes its post and reads nothing, and adds one row.
		if d, err := c.Do(ctx, kWrite); err != nil || d != (workload.Done{Written: int64(len("news") + 40 + 16), Rows: 1}) {
			t.Fatalf("write: %+v, %v", d, err)
		}
	}
	var rows int
	var last int64 = 1 << 62
	if _, err := s.Scan(ctx, w.posts, store.Query{Desc: true, Limit: 25}, func(r store.Row) error {
		rows++
		if string(r[1].Text) != "news" || len(r[2].Text) != 40 || r[0].Int >= last || r[3].Int == 0 {
			t.Fatalf("row %d: %q %d bytes, id %d after %d", rows, r[1].Text, len(r[2].Text), r[0].Int, last)
		}
		last = r[0].Int
		return nil
	}); err != nil || rows != 25 {
		t.Fatalf("latest: %d rows, %v", rows, err)
	}
	// Reads read and write nothing.
	all, err := c.Do(ctx, kReadAll)
	latest, err2 := c.Do(ctx, kReadLatest)
	if err != nil || err2 != nil || all != (workload.Done{Read: 60 * (4 + 40 + 16)}) || latest != (workload.Done{Read: 25 * (4 + 40 + 16)}) {
		t.Fatalf("bytes: all %+v (%v), latest %+v (%v)", all, err, latest, err2)
	}
}

// --prefill puts exactly N posts on the board, over several batches and a
// last partial one, with the post's category and text and creation times
// that rise with the key, so read-latest sees the newest of them.
func TestPrefillOnRealStore(t *testing.T) {
	for _, tc := range []struct {
		args []string
		n    int64
	}{
		{[]string{"--prefill", "2500"}, 2500},
		{[]string{"--prefill", "3k", "--text-size", "20"}, 3000},
		{nil, 0},
	} {
		w := build(t, tc.args...)
		sp, _ := store.ParseSpec("sqlite:")
		st, err := sqlite.Open(context.Background(), sp, store.Env{Dir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if err := st.Setup(ctx, w.Tables()); err != nil {
			t.Fatal(err)
		}
		got, err := w.Prepare(ctx, st)
		if err != nil || got != tc.n {
			t.Fatalf("%v: Prepare = %d, %v; want %d", tc.args, got, err, tc.n)
		}
		if n, err := st.Count(ctx, w.posts); err != nil || n != tc.n {
			t.Fatalf("%v: count = %d, %v", tc.args, n, err)
		}
		s, _ := st.Open(ctx)
		var prev store.Row
		rows := int64(0)
		_, err = s.Scan(ctx, w.posts, store.Query{}, func(r store.Row) error {
			rows++
			if string(r[1].Text) != w.cfg.Category || len(r[2].Text) != w.cfg.TextSize {
				t.Fatalf("%v: post %d is %q/%q", tc.args, rows, r[1].Text, r[2].Text)
			}
			if prev != nil && (r[0].Int <= prev[0].Int || r[3].Int <= prev[3].Int) {
				t.Fatalf("%v: post %d (id %d, created %d) after id %d, created %d", tc.args, rows, r[0].Int, r[3].Int, prev[0].Int, prev[3].Int)
			}
			prev = store.Row{{Int: r[0].Int}, {}, {}, {Int: r[3].Int}}
			return nil
		})
		s.Close()
		st.Close()
		if err != nil || rows != tc.n {
			t.Fatalf("%v: scanned %d, %v", tc.args, rows, err)
		}
	}
}

func TestPrefillFlagRejectsBadCounts(t *testing.T) {
	for _, v := range []string{"-5", "lots", "1.5x"} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		New().Flags(fs)
		if err := fs.Parse([]string{"--prefill", v}); err == nil {
			t.Errorf("--prefill %s accepted", v)
		}
	}
}

func TestDefaultPostIsTheFormPost(t *testing.T) {
	w := build(t)
	c := w.NewClient(nil, rand.New(rand.NewPCG(1, 1))).(*client)
	if string(c.row[1].Text) != "test" || string(c.row[2].Text) != "hogehoge" {
		t.Fatalf("default post %q/%q, want test/hogehoge", c.row[1].Text, c.row[2].Text)
	}
}

func TestBuildRejects(t *testing.T) {
	cases := []struct {
		args []string
		ops  []string
		want string
	}{
		{nil, []string{"delete"}, "no operation"},
		{[]string{"--latest", "0"}, []string{"read-latest"}, "--latest"},
		{[]string{"--latest", "3000000000"}, []string{"read-latest"}, "--latest"},
		{[]string{"--category", ""}, []string{"write"}, "--category"},
		{[]string{"--category", "\xff"}, []string{"write"}, "--category"},
		{[]string{"--text-size", "-1"}, []string{"write"}, "--text-size"},
	}
	for _, c := range cases {
		d := New()
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		d.Flags(fs)
		fs.Parse(c.args)
		if _, err := d.Build(c.ops); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v %v: err = %v, want %q", c.args, c.ops, err, c.want)
		}
	}
}

// BenchmarkReadLatest is read-latest(100) through the workload's client on
// a real SQLite database in WAL mode: the client adds no allocation of its
// own (what allocations show come from the driver's file checks).
func BenchmarkReadLatest(b *testing.B) {
	d := New()
	wl, _ := d.Build([]string{"write", "read-latest"})
	w := wl.(*bbs)
	sp, _ := store.ParseSpec("sqlite:?journal_mode=wal&synchronous=off")
	st, _ := sqlite.Open(context.Background(), sp, store.Env{Dir: b.TempDir()})
	ctx := context.Background()
	if err := st.Setup(ctx, w.Tables()); err != nil {
		b.Fatal(err)
	}
	s, _ := st.Open(ctx)
	defer s.Close()
	c := w.NewClient(s, rand.New(rand.NewPCG(1, 1)))
	for range 200 {
		c.Do(ctx, kWrite)
	}
	b.ReportAllocs()
	for b.Loop() {
		c.Do(ctx, kReadLatest)
	}
}

func TestParamsAreThoseOfTheOpsRun(t *testing.T) {
	// The result records only the settings the operations run use: no
	// latest without read-latest, no mix without the mix, no post's
	// category and text when no post is written.
	cases := []struct {
		ops  []string
		args []string
		want string
	}{
		{[]string{"write"}, nil, "category=test text=hogehoge text_size=8"},
		{[]string{"read-all"}, nil, ""},
		{[]string{"read-latest"}, []string{"--latest", "7"}, "latest=7"},
		{[]string{"read-all"}, []string{"--prefill", "10"}, "category=test prefill=10 text=hogehoge text_size=8"},
		{[]string{"write"}, []string{"--text-size", "40"}, "category=test text_size=40"},
		{[]string{"mix"}, nil, "category=test mix=write=50,read-all=50 text=hogehoge text_size=8"},
		{[]string{"mix"}, []string{"--mix", "read-all=1,read-latest=3"}, "latest=100 mix=read-all=1,read-latest=3"},
		{[]string{"write", "read-all", "read-latest", "mix"}, nil, "category=test latest=100 mix=write=50,read-all=50 text=hogehoge text_size=8"},
	}
	for _, c := range cases {
		w := workloadtest.Build(t, New(), c.ops, c.args...)
		var got []string
		for _, k := range slices.Sorted(maps.Keys(w.Params())) {
			got = append(got, k+"="+w.Params()[k])
		}
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("%v %v: params %q, want %q", c.ops, c.args, g, c.want)
		}
	}
}
