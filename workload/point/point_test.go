package point

import (
	"context"
	"flag"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"kurabe/dataset/records/recordstest"
	"kurabe/engine"
	"kurabe/store"
	"kurabe/workload"
	"kurabe/workload/workloadtest"
)

func TestMain(m *testing.M) { recordstest.Main(m) }

func build(t *testing.T, args ...string) *points {
	t.Helper()
	return workloadtest.Build(t, New(), []string{"point"}, args...).(*points)
}

func TestHitRatio(t *testing.T) {
	// On every store, with a seed: the share of point-hit operations is
	// the asked ratio within 3 points (the engine draws kinds by weight),
	// and no lookup errs: every hit found its key, no miss found one.
	for _, spec := range recordstest.Specs {
		for _, tc := range []struct {
			name string
			args []string
			hit  float64
		}{
			// The study's ratio, on generated records.
			{"records 0.1", []string{"--dataset", "records", "--dataset-rows", "400", "--record-size", "100", "--hit", "0.1"}, 0.1},
			// Half and half.
			{"records 0.5", []string{"--dataset", "records", "--dataset-rows", "400", "--record-size", "100", "--hit", "0.5"}, 0.5},
			// Every lookup finds its key (the default).
			{"records 1", []string{"--dataset", "records", "--dataset-rows", "400", "--record-size", "100"}, 1},
			// None does.
			{"records 0", []string{"--dataset", "records", "--dataset-rows", "400", "--record-size", "100", "--hit", "0"}, 0},
			// The postal data set, the default, cut to its first 2000 rows.
			{"postal 0.1", []string{"--dataset-rows", "2000", "--hit", "0.1"}, 0.1},
		} {
			t.Run(spec+"/"+tc.name, func(t *testing.T) {
				st := recordstest.Open(t, spec)
				w := build(t, tc.args...)
				ctx := context.Background()
				if err := st.Setup(ctx, w.Tables()); err != nil {
					t.Fatal(err)
				}
				n, err := w.Prepare(ctx, st)
				if err != nil || n != w.src.Current().Rows() {
					t.Fatalf("loaded %d of %d rows: %v", n, w.src.Current().Rows(), err)
				}
				res, err := engine.RunPhase(ctx, engine.Config{Clients: 2, Count: 1000, Seed: 42}, st, w, 0)
				if err != nil {
					t.Fatal(err)
				}
				if res.Errors != 0 {
					t.Fatalf("%d errors: %+v", res.Errors, res.ErrorClasses)
				}
				// Lookups read (a miss reads its key's 8 bytes) and
				// write nothing.
				workloadtest.CheckBytes(t, res, []string{"point-hit", "point-miss"}, nil)
				var hits, all int64
				for _, k := range res.Kinds {
					all += k.Ops
					if k.Name == "point-hit" {
						hits += k.Ops
					}
				}
				ratio := float64(hits) / float64(all)
				if all != 1000 || math.Abs(ratio-tc.hit) > 0.03 {
					t.Errorf("%d operations, hit ratio %.3f; want 1000 and %.2f ± 0.03", all, ratio, tc.hit)
				}
			})
		}
	}
}

func TestTheSameSeedDrawsTheSameKeys(t *testing.T) {
	// Two runs with one seed make the same lookups: the same hit count.
	counts := make([]int64, 2)
	for i := range counts {
		st := recordstest.Open(t, "sqlite:")
		w := build(t, "--dataset", "records", "--dataset-rows", "300", "--record-size", "50", "--hit", "0.3")
		ctx := context.Background()
		st.Setup(ctx, w.Tables())
		w.Prepare(ctx, st)
		res, err := engine.RunPhase(ctx, engine.Config{Clients: 1, Count: 500, Seed: 7}, st, w, 0)
		if err != nil {
			t.Fatal(err)
		}
		counts[i] = res.Kinds[0].Ops
	}
	if counts[0] != counts[1] {
		t.Errorf("hits %d and %d with one seed", counts[0], counts[1])
	}
}

// fakeSession answers every Scan with one row whose key is key(from).
type fakeSession struct {
	store.Session
	key func(from int64) (int64, bool)
}

func (f fakeSession) Scan(ctx context.Context, t *store.Table, q store.Query, fn func(store.Row) error) (int, error) {
	k, ok := f.key(q.From)
	if !ok {
		return 0, nil
	}
	return 1, fn(store.Row{{Int: k}, {Text: []byte("x")}})
}

func TestWrongAnswersAreErrors(t *testing.T) {
	w := build(t, "--dataset", "records", "--dataset-rows", "100", "--record-size", "10")
	w.rows = 100
	for _, tc := range []struct {
		name  string
		kind  int
		key   func(int64) (int64, bool)
		class string
	}{
		// A hit that finds nothing: the store lost the row.
		{"hit finds nothing", kHit, func(int64) (int64, bool) { return 0, false }, "missing"},
		// A hit that finds the next key: the row is gone.
		{"hit finds another key", kHit, func(k int64) (int64, bool) { return k + 1, true }, "missing"},
		// A miss that finds its key: the table has rows it should not.
		{"miss finds its key", kMiss, func(k int64) (int64, bool) { return k, true }, "unexpected-hit"},
		// Correct answers are no error.
		{"hit finds its key", kHit, func(k int64) (int64, bool) { return k, true }, ""},
		{"miss finds nothing", kMiss, func(int64) (int64, bool) { return 0, false }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := w.NewClient(fakeSession{key: tc.key}, rand.New(rand.NewPCG(1, 1)))
			_, err := c.Do(context.Background(), tc.kind)
			if got := classOf(err); got != tc.class {
				t.Errorf("error %v (class %q), want class %q", err, got, tc.class)
			}
		})
	}
}

func classOf(err error) string {
	if err == nil {
		return ""
	}
	return store.Classify(err)
}

func TestBuildRejectsBadSettings(t *testing.T) {
	for _, tc := range []struct {
		args []string
		ops  []string
		want string
	}{
		{[]string{"--hit", "1.5"}, []string{"point"}, "--hit"},
		{[]string{"--hit", "-0.1"}, []string{"point"}, "--hit"},
		{nil, []string{"read"}, "no operation"},
		{[]string{"--dataset", "ken_all"}, []string{"point"}, "--dataset"},
	} {
		d := New()
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		d.Flags(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		if _, err := d.Build(tc.ops); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v %v: got %v, want %q", tc.args, tc.ops, err, tc.want)
		}
	}
}

var _ workload.Preparer = (*points)(nil)

// BenchmarkPoint is one lookup through the client on SQLite (no
// allocation in kurabe's part of it).
func BenchmarkPoint(b *testing.B) {
	for _, hit := range []string{"1", "0"} {
		b.Run("hit="+hit, func(b *testing.B) {
			st := recordstest.Open(b, "sqlite:")
			d := New()
			fs := flag.NewFlagSet("b", flag.ContinueOnError)
			d.Flags(fs)
			fs.Parse([]string{"--dataset", "records", "--dataset-rows", "10000", "--hit", hit})
			w, _ := d.Build([]string{"point"})
			ctx := context.Background()
			st.Setup(ctx, w.Tables())
			w.(*points).Prepare(ctx, st)
			s, _ := st.Open(ctx)
			defer s.Close()
			c := w.NewClient(s, rand.New(rand.NewPCG(1, 1)))
			kind := kHit
			if hit == "0" {
				kind = kMiss
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := c.Do(ctx, kind); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
