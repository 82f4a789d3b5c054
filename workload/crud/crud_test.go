package crud

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"kurabe/dataset/records/recordstest"
	"kurabe/engine"
	"kurabe/result"
	"kurabe/store"
	"kurabe/workload"
	"kurabe/workload/workloadtest"
)

func TestMain(m *testing.M) { recordstest.Main(m) }

func build(t *testing.T, ops []string, args ...string) *crud {
	t.Helper()
	return workloadtest.Build(t, New(), ops, args...).(*crud)
}

// runPhases runs every phase as kurabe run would with PhaseCount wired:
// each phase's count from n, at c clients. It returns the phases' results.
func runPhases(t *testing.T, st store.Store, w *crud, n int64, c int) []result.Phase {
	t.Helper()
	ctx := context.Background()
	if err := st.Setup(ctx, w.Tables()); err != nil {
		t.Fatal(err)
	}
	var out []result.Phase
	for i := range w.Phases() {
		res, err := engine.RunPhase(ctx, engine.Config{Clients: c, Count: w.PhaseCount(i, n), Seed: 3}, st, w, i)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, res)
	}
	return out
}

// keyRange returns the table's row count and smallest key.
func keyRange(t *testing.T, st store.Store, tb *store.Table) (count, lo int64) {
	t.Helper()
	ctx := context.Background()
	count, err := st.Count(ctx, tb)
	if err != nil {
		t.Fatal(err)
	}
	s, err := st.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.Scan(ctx, tb, store.Query{Limit: 1}, func(r store.Row) error { lo = r[0].Int; return nil })
	return count, lo
}

func TestBatchDeleteRemovesExactlyTheOldest(t *testing.T) {
	// On every SQL store, with one and with four clients: insert 1000,
	// delete the oldest 100 one by one, then three batch-delete calls of
	// 250 remove exactly the oldest 750 more: 150 rows are left, the
	// smallest key 851.
	for _, spec := range recordstest.Specs {
		if spec == "file:" {
			continue // no DELETE: see TestFileStoreSkipsWhatNeedsSQL
		}
		for _, clients := range []int{1, 4} {
			t.Run(fmt.Sprintf("%s/c=%d", spec, clients), func(t *testing.T) {
				st := recordstest.Open(t, spec)
				w := build(t, []string{"insert", "delete", "batch-delete"}, "--record-size", "64", "--batch-delete", "250")
				ctx := context.Background()
				if err := st.Setup(ctx, w.Tables()); err != nil {
					t.Fatal(err)
				}
				for i, count := range []int64{1000, 100, 3} {
					res, err := engine.RunPhase(ctx, engine.Config{Clients: clients, Count: count, Seed: 5}, st, w, i)
					if err != nil {
						t.Fatal(err)
					}
					if res.Errors != 0 || res.Ops != count {
						t.Fatalf("%s: %d ops, errors %+v", res.Op, res.Ops, res.ErrorClasses)
					}
				}
				count, lo := keyRange(t, st, w.table)
				if count != 150 || lo != 851 {
					t.Errorf("after deleting the oldest 100 and 750: %d rows from key %d; want 150 from 851", count, lo)
				}
			})
		}
	}
}

func TestSequence(t *testing.T) {
	// The whole sequence with its own op counts (n=300, M=120, 40 keys per
	// batch read, 50 rows per batch delete) on every store: every phase
	// without error on SQL stores, each leaving the rows it should; the
	// file store runs what needs no SQL and skips the rest, saying why.
	for _, spec := range recordstest.Specs {
		t.Run(spec, func(t *testing.T) {
			st := recordstest.Open(t, spec)
			w := build(t, nil, "--record-size", "64", "--batch-read", "40", "--batch-delete", "50", "--deletes", "120")
			phases := runPhases(t, st, w, 300, 2)
			want := map[string]int64{"insert": 300, "read": 300, "batch-read": 8, "update": 300, "delete": 120, "batch-delete": 4}
			for _, p := range phases {
				if spec == "file:" && slices.Contains([]string{"update", "delete", "batch-delete"}, p.Op) {
					if p.Ops != 0 || len(p.ErrorClasses) != 1 || p.ErrorClasses[0].Class != "skipped" || !strings.Contains(p.ErrorClasses[0].First, "needs SQL") {
						t.Errorf("%s on file: %d ops, errors %+v; want every one skipped", p.Op, p.Ops, p.ErrorClasses)
					}
					continue
				}
				if p.Errors != 0 || p.Ops != want[p.Op] {
					t.Errorf("%s: %d ops, want %d; errors %+v", p.Op, p.Ops, want[p.Op], p.ErrorClasses)
				}
				for _, v := range p.Verify {
					if v.Lost != 0 || v.Extra != 0 || v.Acked != 300 {
						t.Errorf("%s: verification %+v", p.Op, v)
					}
				}
			}
			count, _ := keyRange(t, st, w.table)
			if spec == "file:" && count != 300 || spec != "file:" && count != 0 {
				t.Errorf("%d rows left", count)
			}
			// The store's batch-read path is noted, once.
			note := "crud batch-read: one SELECT ... WHERE id IN (40 keys) per call"
			if spec == "file:" {
				note = "crud batch-read: 40 Scans per call, one per key (the store's sessions do not speak SQL)"
			}
			if n := w.Notes(); len(n) != 1 || n[0] != note {
				t.Errorf("notes %q, want %q", n, note)
			}
			if n := w.Notes(); len(n) != 0 {
				t.Errorf("notes not forgotten: %q", n)
			}
		})
	}
}

func TestReadsFindWhatUpdateWrote(t *testing.T) {
	// An update changes the row's payload: the fingerprint moves, the
	// count does not.
	st := recordstest.Open(t, "sqlite:")
	w := build(t, []string{"insert", "update"}, "--record-size", "32")
	ctx := context.Background()
	st.Setup(ctx, w.Tables())
	var fps []store.Fingerprint
	for i := range w.Phases() {
		if _, err := engine.RunPhase(ctx, engine.Config{Clients: 1, Count: 200, Seed: 1}, st, w, i); err != nil {
			t.Fatal(err)
		}
		s, _ := st.Open(ctx)
		fp, _ := store.TakeFingerprint(ctx, s, w.table)
		s.Close()
		fps = append(fps, fp)
	}
	if fps[0].Rows != 200 || fps[1].Rows != 200 || fps[0].Hash == fps[1].Hash {
		t.Errorf("before and after the update: %+v, %+v", fps[0], fps[1])
	}
}

func TestEmptyTableIsAnErrorNotAFake(t *testing.T) {
	// Reading or deleting from an empty table fails with class empty.
	for _, op := range []string{"read", "batch-read", "update", "delete", "batch-delete"} {
		st := recordstest.Open(t, "sqlite:")
		w := build(t, []string{op})
		ctx := context.Background()
		st.Setup(ctx, w.Tables())
		res, err := engine.RunPhase(ctx, engine.Config{Clients: 1, Count: 3, Seed: 1}, st, w, 0)
		if err != nil {
			t.Fatal(err)
		}
		if res.Ops != 0 || len(res.ErrorClasses) != 1 || res.ErrorClasses[0].Class != "empty" {
			t.Errorf("%s on an empty table: %d ops, %+v", op, res.Ops, res.ErrorClasses)
		}
	}
}

func TestPhaseCount(t *testing.T) {
	for _, tc := range []struct {
		name string
		ops  []string
		args []string
		n    int64
		want []int64
	}{
		// The study's shape at n=100,000: M = n/2, the rest 50,000 in
		// calls of 25,000.
		{"default", nil, nil, 100_000, []int64{100_000, 100_000, 334, 100_000, 50_000, 2}},
		// An explicit M, and a batch-delete that ends with a short call.
		{"deletes", nil, []string{"--deletes", "30k"}, 100_000, []int64{100_000, 100_000, 334, 100_000, 30_000, 3}},
		// Deleting more than there is stops at the table's size; batch
		// delete then has nothing and gets one call, which fails as empty.
		{"too many deletes", []string{"insert", "delete", "batch-delete"}, []string{"--deletes", "500"}, 100, []int64{100, 100, 1}},
		// A phase alone keeps n (reads) or finds an empty table (deletes).
		{"read alone", []string{"read"}, nil, 2000, []int64{2000}},
	} {
		w := build(t, tc.ops, tc.args...)
		var got []int64
		for i := range w.Phases() {
			got = append(got, w.PhaseCount(i, tc.n))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestBuildRejectsBadSettings(t *testing.T) {
	for _, tc := range []struct {
		args []string
		ops  []string
		want string
	}{
		{[]string{"--batch-read", "0"}, nil, "--batch-read"},
		{[]string{"--batch-read", "40000"}, nil, "--batch-read"},
		{[]string{"--batch-delete", "0"}, nil, "--batch-delete"},
		{[]string{"--record-size", "0"}, nil, "--record-size"},
		{nil, []string{"upsert"}, "no operation"},
	} {
		d := New()
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		d.Flags(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		ops := tc.ops
		if ops == nil {
			ops = kindNames
		}
		if _, err := d.Build(ops); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v %v: got %v, want %q", tc.args, tc.ops, err, tc.want)
		}
	}
}

// Only delete and batch-delete size themselves from -n: with them a
// duration or a warm-up is refused, naming the operation that needs -n;
// the other operations run for any duration.
func TestCheckRunRefusesDurationOnlyForDeletes(t *testing.T) {
	for _, tc := range []struct {
		ops  []string
		r    workload.RunSettings
		want string // "" when the run fits
	}{
		{[]string{"insert", "read", "update"}, workload.RunSettings{Duration: time.Second, Warmup: time.Second / 2}, ""},
		{[]string{"insert", "batch-read"}, workload.RunSettings{Duration: time.Second}, ""},
		{[]string{"read"}, workload.RunSettings{Count: 10, Warmup: time.Second}, ""},
		// The default sequence ends in delete and batch-delete.
		{nil, workload.RunSettings{Duration: time.Second}, "-d 1s does not fit -w crud with delete"},
		{[]string{"insert", "batch-delete"}, workload.RunSettings{Duration: time.Second}, "with batch-delete"},
		{[]string{"insert", "delete"}, workload.RunSettings{Count: 10, Warmup: time.Second}, "--warmup 1s does not fit -w crud with delete"},
	} {
		err := build(t, tc.ops).CheckRun(tc.r)
		var se *workload.SettingError
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%v %+v: %v", tc.ops, tc.r, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !errors.As(err, &se) || !se.Unfit):
			t.Errorf("%v %+v: got %v, want an unfit setting with %q", tc.ops, tc.r, err, tc.want)
		}
	}
}

func TestBytesByDirection(t *testing.T) {
	// Reads count what they fetched as read; insert, update and the
	// deletes what they sent as written (the row, the new payload and its
	// key, the keys), and nothing else: before, every kind but insert
	// counted its bytes as read.
	st := recordstest.Open(t, "sqlite:")
	w := build(t, nil, "--record-size", "64", "--batch-read", "40", "--batch-delete", "50", "--deletes", "40")
	phases := runPhases(t, st, w, 100, 2)
	want := map[string][2]int64{ // read, written; -1: some
		"insert":       {0, 100 * (8 + 64)},
		"read":         {100 * (8 + 64), 0},
		"batch-read":   {-1, 0},
		"update":       {0, 100 * (8 + 64)},
		"delete":       {0, 40 * 8},
		"batch-delete": {0, 2 * 16},
	}
	for _, p := range phases {
		if p.Errors != 0 {
			t.Fatalf("%s: errors %+v", p.Op, p.ErrorClasses)
		}
		w := want[p.Op]
		if w[0] >= 0 && p.BytesRead != w[0] || w[0] < 0 && p.BytesRead <= 0 || p.BytesWritten != w[1] {
			t.Errorf("%s: read %d, written %d; want %d, %d", p.Op, p.BytesRead, p.BytesWritten, w[0], w[1])
		}
		if w[0] != 0 {
			workloadtest.CheckBytes(t, p, []string{p.Op}, nil)
		} else {
			workloadtest.CheckBytes(t, p, nil, []string{p.Op})
		}
	}
}

// With --isolate each client's table runs the sequence on its share of
// -n and of the delete phase's rows: the shares add up to the run's, a
// client whose share is nothing runs nothing, and every table's batch
// deletes take exactly what its deletes left. Before, a client of share
// 0 still ran one operation of every phase (the run's floor of one), so
// -n 10 -c 8 deleted 8 rows where n/2 is 5, and batch deletes failed on
// tables emptied.
func TestClientPhaseCounts(t *testing.T) {
	for _, c := range []struct {
		n, deletes int64
		clients    int
	}{
		{10, 0, 8}, {100, 4, 8}, {3, 0, 4}, {600, 0, 3}, {7, 7, 2}, {1000, 0, 1},
	} {
		args := []string{"--batch-delete", "3", "--batch-read", "2"}
		if c.deletes > 0 {
			args = append(args, "--deletes", fmt.Sprint(c.deletes))
		}
		w := build(t, nil, args...)
		counts := map[string][]int64{}
		for i, p := range w.Phases() {
			counts[p.Name] = w.ClientPhaseCounts(i, c.n, c.clients)
		}
		m := c.deletes
		if m == 0 {
			m = c.n / 2
		}
		var inserted, deleted, batches int64
		want := make([]int64, c.clients) // batch deletes
		for i := range c.clients {
			ins, del := counts["insert"][i], counts["delete"][i]
			inserted += ins
			deleted += del
			want[i] = (ins - del + 2) / 3
			batches += want[i]
			if ins == 0 && (del|counts["read"][i]|counts["update"][i]|counts["batch-read"][i]) != 0 {
				t.Errorf("n=%d c=%d: client %d inserts nothing, yet runs %v", c.n, c.clients, i, counts)
			}
			if del > ins {
				t.Errorf("n=%d c=%d: client %d inserts %d, deletes %d", c.n, c.clients, i, ins, del)
			}
		}
		if batches == 0 {
			want[0] = 1 // as without --isolate: one call, which fails as empty
		}
		if !slices.Equal(counts["batch-delete"], want) {
			t.Errorf("n=%d c=%d deletes=%d: batch deletes of 3 %v, want %v", c.n, c.clients, c.deletes, counts["batch-delete"], want)
		}
		if inserted != c.n || deleted != min(m, c.n) {
			t.Errorf("n=%d c=%d deletes=%d: %d inserted, %d deleted; want %d, %d", c.n, c.clients, c.deletes, inserted, deleted, c.n, min(m, c.n))
		}
	}
}
