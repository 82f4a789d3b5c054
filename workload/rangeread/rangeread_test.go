package rangeread

import (
	"context"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kurabe/store"
	"kurabe/store/file"
	"kurabe/store/sqlite"
	"kurabe/workload"
	"kurabe/workload/workloadtest"
)

func build(t *testing.T, ops []string, args ...string) *ranges {
	t.Helper()
	return workloadtest.Build(t, New(), ops, args...).(*ranges)
}

func TestRangeReadsExactlyNInKeyOrder(t *testing.T) {
	// On real stores, by key and by offset: every read returns exactly N
	// rows, consecutive in key order (the client checks each row's key).
	for _, open := range []struct {
		name string
		fn   store.Opener
		spec string
	}{{"sqlite", sqlite.Open, "sqlite:"}, {"file", file.Open, "file:"}} {
		for _, by := range []string{"key", "offset"} {
			t.Run(open.name+"/"+by, func(t *testing.T) {
				w := build(t, nil, "--records", "1,7,250", "--by", by, "--rows", "3000")
				sp, _ := store.ParseSpec(open.spec)
				st, err := open.fn(context.Background(), sp, store.Env{Dir: t.TempDir()})
				if err != nil {
					t.Fatal(err)
				}
				defer st.Close()
				ctx := context.Background()
				if err := st.Setup(ctx, w.Tables()); err != nil {
					t.Fatal(err)
				}
				n, err := w.Prepare(ctx, st)
				if err != nil || n != 3000 {
					t.Fatalf("loaded %d rows: %v", n, err)
				}
				if c, _ := st.Count(ctx, w.table); c != 3000 {
					t.Fatalf("store holds %d rows", c)
				}
				s, _ := st.Open(ctx)
				defer s.Close()
				c := w.NewClient(s, rand.New(rand.NewPCG(1, 2)))
				for kind, want := range []int{1, 7, 250} {
					for range 30 {
						d, err := c.Do(ctx, kind)
						if err != nil {
							t.Fatalf("range %d: %v", want, err)
						}
						// A range reads its rows and writes nothing.
						if d.Read < int64(want)*8 || d.Written != 0 || d.Rows != 0 {
							t.Fatalf("range %d: %+v; want bytes read only", want, d)
						}
					}
				}
			})
		}
	}
}

// shortStore is a fake session that returns one row fewer than asked, for
// the check that a short read is an error.
type shortSession struct{ store.Session }

func (s shortSession) Scan(ctx context.Context, t *store.Table, q store.Query, fn func(store.Row) error) (int, error) {
	q.Limit--
	return s.Session.Scan(ctx, t, q, fn)
}

func TestShortReadIsAnError(t *testing.T) {
	w := build(t, []string{"range 10"}, "--records", "10", "--rows", "500")
	sp, _ := store.ParseSpec("sqlite:")
	st, _ := sqlite.Open(context.Background(), sp, store.Env{Dir: t.TempDir()})
	defer st.Close()
	ctx := context.Background()
	st.Setup(ctx, w.Tables())
	if _, err := w.Prepare(ctx, st); err != nil {
		t.Fatal(err)
	}
	s, _ := st.Open(ctx)
	defer s.Close()
	c := w.NewClient(shortSession{s}, rand.New(rand.NewPCG(1, 2)))
	_, err := c.Do(ctx, 0)
	if store.Classify(err) != "short-read" {
		t.Fatalf("err = %v (class %q), want short-read", err, store.Classify(err))
	}
}

func TestBuild(t *testing.T) {
	w := build(t, []string{"100", "range 1"}, "--records", "1,100")
	if len(w.Phases()) != 2 || w.Phases()[0].Name != "range 100" || w.Phases()[0].SweepValue != 100 || w.Phases()[1].Weights[0] != 1 {
		t.Fatalf("phases %+v", w.Phases())
	}
	var _ workload.Preparer = w
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--records", "0"}, "--records"},
		{[]string{"--records", "a,b"}, "--records"},
		{[]string{"--by", "page"}, "--by"},
	} {
		d := New()
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		d.Flags(fs)
		fs.Parse(c.args)
		if _, err := d.Build([]string{"range 1"}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err = %v", c.args, err)
		}
	}
}

const sample = "../../dataset/postal/testdata/ken_all_sample.csv" // 1,996 records

func TestBuildChecksTheDataSetUpFront(t *testing.T) {
	// What no phase could do is refused by Build, before kurabe opens a
	// store, with advice that fits: a sweep beyond a file's records is
	// lowered, beyond what --rows loads --rows is raised.
	empty := filepath.Join(t.TempDir(), "empty.csv")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		want []string // all in the message
		not  string   // advice that cannot help here
	}{
		{"sweep beyond the file", []string{"--records", "1000,5000", "--dataset-file", sample}, []string{"range 5000", "1,996", "lower --records to 1996"}, "--rows"},
		{"sweep beyond --rows", []string{"--records", "2000", "--rows", "1000"}, []string{"range 2000", "--rows 1000", "raise --rows to 2000"}, ""},
		// --rows is what limits, but the data set holds no more: raising
		// it cannot help.
		{"--rows as many as the file holds", []string{"--records", "5000", "--rows", "1996", "--dataset-file", sample}, []string{"range 5000", "holds only 1,996", "lower --records to 1996 or less"}, "raise --rows"},
		{"--rows as many as the shipped set holds", []string{"--records", "200000", "--rows", "120720"}, []string{"range 200000", "holds only 120,720", "lower --records to 120720"}, "raise --rows"},
		{"--rows below a file too small", []string{"--records", "2000", "--rows", "1000", "--dataset-file", sample}, []string{"range 2000", "holds only 1,996", "lower --records to 1000 or less, or to 1996 or less with --rows 0"}, "raise --rows"},
		{"--rows beyond the file too", []string{"--records", "5000", "--rows", "3000", "--dataset-file", sample}, []string{"range 5000", "1,996", "lower --records"}, "raise --rows"},
		{"a missing file", []string{"--dataset-file", "/nonexistent/ken_all.csv"}, []string{"/nonexistent/ken_all.csv"}, ""},
		{"an empty file", []string{"--dataset-file", empty}, []string{empty, "holds no records"}, ""},
	} {
		d := New()
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		d.Flags(fs)
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		_, ops := d.Ops()
		_, err := d.Build(ops)
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v; want %q in it", c.name, err, w)
			}
		}
		if c.not != "" && strings.Contains(err.Error(), c.not) {
			t.Errorf("%s: %v; %q cannot help here", c.name, err, c.not)
		}
	}
}

func TestBuildChecksOnlyThePhasesChosen(t *testing.T) {
	// --ops may leave out the reads the data set is too small for.
	w := build(t, []string{"range 100"}, "--records", "100,5000", "--rows", "1000")
	if len(w.Phases()) != 1 || w.Phases()[0].Name != "range 100" {
		t.Fatalf("phases %+v", w.Phases())
	}
}

func TestParamsSayTheRowsLoaded(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--records", "1"}, "120720"},
		{[]string{"--records", "1", "--rows", "1000"}, "1000"},
		{[]string{"--records", "1", "--rows", "200000"}, "120720"}, // more than there are
		{[]string{"--records", "1", "--rows", "200000", "--dataset-file", sample}, "1996"},
	} {
		if got := build(t, nil, c.args...).Params()["rows"]; got != c.want {
			t.Errorf("%v: rows=%s, want %s", c.args, got, c.want)
		}
	}
}
