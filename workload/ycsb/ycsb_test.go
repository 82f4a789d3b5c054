package ycsb

import (
	"context"
	"flag"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"kurabe/dataset/records/recordstest"
	"kurabe/engine"
	"kurabe/result"
	"kurabe/store"
	"kurabe/workload/workloadtest"
)

func TestMain(m *testing.M) { recordstest.Main(m) }

func build(t *testing.T, ops []string, args ...string) *ycsb {
	t.Helper()
	return workloadtest.Build(t, New(), ops, args...).(*ycsb)
}

// prepare sets the workload's table up on st and loads it, as kurabe run
// does before the phases.
func prepare(t *testing.T, st store.Store, w *ycsb) {
	t.Helper()
	ctx := context.Background()
	if err := st.Setup(ctx, w.Tables()); err != nil {
		t.Fatal(err)
	}
	n, err := w.Prepare(ctx, st)
	if err != nil || n != w.cfg.Records {
		t.Fatalf("load: %d of %d records, %v", n, w.cfg.Records, err)
	}
}

func runPhase(t *testing.T, st store.Store, w *ycsb, phase int, clients int, n int64, seed uint64) result.Phase {
	t.Helper()
	res, err := engine.RunPhase(context.Background(), engine.Config{Clients: clients, Count: n, Seed: seed}, st, w, phase)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// kindOps returns each kind's operations and errors in a phase.
func kindOps(p result.Phase) (ops, errs map[string]int64) {
	ops, errs = map[string]int64{}, map[string]int64{}
	for _, k := range p.Kinds {
		ops[k.Name] += k.Ops
		errs[k.Name] += k.Errors
	}
	return ops, errs
}

// rows reads the whole table in key order.
func rows(t *testing.T, st store.Store, tb *store.Table) []store.Row {
	t.Helper()
	ctx := context.Background()
	s, err := st.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var out []store.Row
	_, err = s.Scan(ctx, tb, store.Query{}, func(r store.Row) error {
		c := make(store.Row, len(r))
		for i, v := range r {
			c[i] = store.Value{Int: v.Int, Text: slices.Clone(v.Text)}
		}
		out = append(out, c)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var serverSpecs = []string{"sqlite:", "postgres:managed", "mariadb:managed?database=kurabe_ycsb"}

func TestEveryLetterOnEveryStore(t *testing.T) {
	// Each letter, 2000 operations from 2 clients, on SQLite, PostgreSQL
	// and MariaDB: no errors; each operation kind's share within 5
	// standard deviations of the letter's proportion; every
	// acknowledged insert in the table; scans and reads moved bytes.
	for _, spec := range serverSpecs {
		t.Run(spec, func(t *testing.T) {
			st := recordstest.Open(t, spec)
			for _, l := range letters {
				t.Run(l.name, func(t *testing.T) {
					w := build(t, []string{l.name}, "--recordcount", "500", "--field-size", "20")
					prepare(t, st, w)
					const n = 2000
					p := runPhase(t, st, w, 0, 2, n, 11)
					ops, _ := kindOps(p)
					if p.Errors != 0 || p.Ops != n {
						t.Fatalf("%d ops, errors %+v", p.Ops, p.ErrorClasses)
					}
					for o, pct := range l.weights {
						share := float64(pct) / 100
						if got := float64(ops[opNames[o]]) / n; !within(got, share, n, 5) || (pct == 0) != (ops[opNames[o]] == 0) {
							t.Errorf("%s: %.3f of the operations, want %.2f", opNames[o], got, share)
						}
					}
					if l.weights[opInsert] == 0 {
						if len(p.Verify) != 0 {
							t.Errorf("a letter without inserts verified %+v", p.Verify)
						}
					} else if len(p.Verify) != 1 || p.Verify[0].Lost != 0 || p.Verify[0].Extra != 0 || p.Verify[0].Acked != ops["insert"] {
						t.Errorf("verification %+v, %d inserts", p.Verify, ops["insert"])
					}
					if p.BytesRead == 0 {
						t.Errorf("no bytes read")
					}
				})
			}
		})
	}
}

func TestUpdatesWriteNewValues(t *testing.T) {
	// After A from one client, the table read back holds new values: as
	// many cells changed as updates at most, at least one, each changed
	// cell the value the client's k-th update writes to it for some k, and
	// no row lost or added. With F the same holds for read-modify-writes.
	for _, spec := range serverSpecs {
		for _, letter := range []string{"A", "F"} {
			t.Run(spec+"/"+letter, func(t *testing.T) {
				st := recordstest.Open(t, spec)
				w := build(t, []string{letter}, "--recordcount", "200", "--field-size", "16")
				prepare(t, st, w)
				before := rows(t, st, w.table)
				p := runPhase(t, st, w, 0, 1, 400, 21)
				ops, _ := kindOps(p)
				updates := ops["update"] + ops["rmw"]
				if p.Errors != 0 || updates < 100 {
					t.Fatalf("%d updates, errors %+v", updates, p.ErrorClasses)
				}
				after := rows(t, st, w.table)
				if len(after) != len(before) {
					t.Fatalf("%d rows before, %d after", len(before), len(after))
				}
				changed := 0
				for i, r := range after {
					if r[0].Int != before[i][0].Int {
						t.Fatalf("row %d: key %d, was %d", i, r[0].Int, before[i][0].Int)
					}
					for f := range w.cfg.Fields {
						got := string(r[1+f].Text)
						if got == string(before[i][1+f].Text) {
							continue
						}
						changed++
						if !slices.ContainsFunc(versions(updates), func(v uint64) bool { return got == string(w.value(r[0].Int, f, v)) }) {
							t.Errorf("key %d field%d: %q is no value an update writes", r[0].Int, f, got)
						}
					}
				}
				if changed < 1 || int64(changed) > updates {
					t.Errorf("%d cells changed by %d updates", changed, updates)
				}
			})
		}
	}
}

// versions lists 1..n.
func versions(n int64) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = uint64(i + 1)
	}
	return out
}

func TestScanIsInKeyOrderCappedAtTheEnd(t *testing.T) {
	// A scan from a record's key returns min(limit, records from there to
	// the end) rows, the first the record asked, in increasing key order,
	// with hashed and ordered keys, on every store.
	for _, spec := range recordstest.Specs {
		for _, order := range []string{"hashed", "ordered"} {
			t.Run(spec+"/"+order, func(t *testing.T) {
				st := recordstest.Open(t, spec)
				w := build(t, []string{"E"}, "--recordcount", "60", "--insert-order", order)
				prepare(t, st, w)
				keys, _ := w.loadKeys(60)
				s, err := st.Open(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				c := w.NewClient(s, rand.New(rand.NewPCG(1, 1))).(*client)
				for _, tc := range []struct {
					record int64
					limit  int
				}{
					{0, 1}, {0, 100}, {7, 10}, {30, 30}, {59, 1}, {59, 100}, {50, 20},
				} {
					key := w.key(tc.record)
					at, _ := slices.BinarySearch(keys, key)
					want := min(tc.limit, len(keys)-at)
					if _, err := c.scan(context.Background(), tc.record, key, tc.limit); err != nil {
						t.Errorf("record %d, limit %d: %v", tc.record, tc.limit, err)
						continue
					}
					if c.rows != want || c.first != key || c.order || c.prev != keys[at+want-1] {
						t.Errorf("record %d (position %d), limit %d: %d rows from %d to %d, want %d from %d to %d", tc.record, at, tc.limit, c.rows, c.first, c.prev, want, key, keys[at+want-1])
					}
				}
			})
		}
	}
}

func TestInsertsOfDAreAllPresent(t *testing.T) {
	// D from four clients: every record numbered from the load's end to
	// the last claimed is in the table, and the table holds the loaded
	// records plus the acknowledged inserts; the engine's check agrees.
	for _, spec := range serverSpecs {
		t.Run(spec, func(t *testing.T) {
			st := recordstest.Open(t, spec)
			w := build(t, []string{"D"}, "--recordcount", "300", "--field-size", "8")
			prepare(t, st, w)
			p := runPhase(t, st, w, 0, 4, 3000, 31)
			ops, _ := kindOps(p)
			if p.Errors != 0 || ops["insert"] < 100 {
				t.Fatalf("%d inserts, errors %+v", ops["insert"], p.ErrorClasses)
			}
			v := p.Verify[0]
			if v.Before != 300 || v.After != 300+ops["insert"] || v.Acked != ops["insert"] || v.Lost != 0 || v.Extra != 0 {
				t.Errorf("verification %+v, %d inserts", v, ops["insert"])
			}
			if next := w.keys.next.Load(); next != 300+ops["insert"] || w.keys.count() != next {
				t.Errorf("records numbered to %d, acknowledged to %d; want %d", next, w.keys.count(), 300+ops["insert"])
			}
			got := map[int64]bool{}
			for _, r := range rows(t, st, w.table) {
				got[r[0].Int] = true
			}
			for n := range w.keys.next.Load() {
				if !got[w.key(n)] {
					t.Errorf("record %d (key %d) missing", n, w.key(n))
				}
			}
		})
	}
}

func TestLatestReadsRecentInserts(t *testing.T) {
	// After D has inserted about 100 records into 1000, a client's latest
	// draws fall on the inserted records far more than their 9 % of the
	// table (zeta(100)/zeta(1100), about 60 %), the newest the most often;
	// zipfian and uniform draws stay within the records the phase began
	// with.
	st := recordstest.Open(t, "sqlite:")
	w := build(t, []string{"D"}, "--field-size", "8")
	prepare(t, st, w)
	p := runPhase(t, st, w, 0, 2, 2000, 41)
	inserted := w.keys.count() - 1000
	if p.Errors != 0 || inserted < 50 {
		t.Fatalf("%d inserts, errors %+v", inserted, p.ErrorClasses)
	}
	s, _ := st.Open(context.Background())
	defer s.Close()
	c := w.NewClient(s, rand.New(rand.NewPCG(2, 2))).(*client)
	const draws = 50_000
	n := w.keys.count()
	counts := make([]int, n)
	for range draws {
		k, err := c.choose(distLatest)
		if err != nil {
			t.Fatal(err)
		}
		counts[k]++
	}
	recent := 0
	for _, x := range counts[1000:] {
		recent += x
	}
	want := zeta(0, 0, inserted, zipfConstant) / zeta(0, 0, n, zipfConstant)
	if got := float64(recent) / draws; math.Abs(got-want) > 0.03 || got < 0.4 {
		t.Errorf("%d inserted of %d: %.3f of latest draws on them, want %.3f", inserted, n, got, want)
	}
	if slices.Max(counts) != counts[n-1] {
		t.Errorf("the newest record is not the most drawn")
	}
	// A client of a new phase draws uniform and zipfian keys from every
	// record present when it began, inserted ones included.
	seen := 0
	for range draws {
		for _, d := range []int{distUniform, distZipfian} {
			k, _ := c.choose(d)
			if k >= n {
				t.Fatalf("%s drew record %d of %d", distNames[d], k, n)
			}
			if k >= 1000 {
				seen++
			}
		}
	}
	if seen == 0 {
		t.Errorf("no uniform or zipfian draw of an inserted record")
	}
}

func TestUniformIsFlat(t *testing.T) {
	// --distribution uniform: every record's share within 5 standard
	// deviations of 1/n, and the phase's kinds are the uniform ones.
	w := build(t, []string{"C"}, "--distribution", "uniform", "--recordcount", "100")
	if w.phases[0].Weights[kindOf(opRead, distUniform)] != 100 {
		t.Fatalf("weights %v", w.phases[0].Weights)
	}
	w.keys.reset(100)
	c := w.NewClient(nil, rand.New(rand.NewPCG(3, 3))).(*client)
	const draws = 100_000
	got := share(100, draws, func() int64 { k, _ := c.choose(distUniform); return k })
	for i, s := range got {
		if !within(s, 0.01, draws, 5) {
			t.Errorf("record %d: %.4f of the draws", i, s)
		}
	}
}

func TestFileStoreSkipsUpdatesAndTakesOrderedInserts(t *testing.T) {
	// The file store reads and scans; update and rmw fail as skipped with
	// a note, not faked; with ordered keys and one client its inserts
	// succeed and are verified.
	st := recordstest.Open(t, "file:")
	w := build(t, []string{"A", "F", "D", "E"}, "--recordcount", "200", "--field-size", "8", "--insert-order", "ordered")
	prepare(t, st, w)
	for i, ph := range w.phases {
		p := runPhase(t, st, w, i, 1, 400, 51)
		ops, errs := kindOps(p)
		switch ph.Name {
		case "A", "F":
			skipped := errs["update"] + errs["rmw"]
			if len(p.ErrorClasses) != 1 || p.ErrorClasses[0].Class != "skipped" || p.Errors != skipped || ops["read"] == 0 {
				t.Errorf("%s: %v ops, errors %+v", ph.Name, ops, p.ErrorClasses)
			}
		default:
			if p.Errors != 0 || ops["insert"] == 0 || p.Verify[0].Lost != 0 || p.Verify[0].Extra != 0 {
				t.Errorf("%s: %v ops, errors %+v, verification %+v", ph.Name, ops, p.ErrorClasses, p.Verify)
			}
		}
	}
	notes := w.Notes()
	if len(notes) != 2 || !strings.Contains(notes[0], "InsertBatch") || !strings.Contains(notes[1], "skipped, not faked") {
		t.Errorf("notes %q", notes)
	}
	if len(w.Notes()) != 0 {
		t.Errorf("notes not forgotten")
	}
}

func TestMissingRecordsAreErrors(t *testing.T) {
	// A record deleted behind the workload's back is an error of class
	// missing for a read, a scan and an update; one whose insert failed,
	// of class insert-failed.
	st := recordstest.Open(t, "sqlite:")
	w := build(t, []string{"A"}, "--recordcount", "10", "--insert-order", "ordered")
	prepare(t, st, w)
	ctx := context.Background()
	s, _ := st.Open(ctx)
	defer s.Close()
	ss := s.(store.SQLSession)
	if _, err := ss.Exec(ctx, "DELETE FROM kurabe_usertable WHERE ycsb_key = 3"); err != nil {
		t.Fatal(err)
	}
	c := w.NewClient(s, rand.New(rand.NewPCG(1, 1))).(*client)
	_, rerr := c.read(ctx, 3, 3)
	_, serr := c.scan(ctx, 3, 3, 5)
	_, uerr := c.updateOne(ctx, 3, 3)
	for _, err := range []error{rerr, serr, uerr} {
		if store.Classify(err) != "missing" {
			t.Errorf("got %v (class %s), want class missing", err, store.Classify(err))
		}
	}
	w.keys.fail(3)
	if _, err := c.read(ctx, 3, 3); store.Classify(err) != "insert-failed" {
		t.Errorf("got %v, want class insert-failed", err)
	}
	// A record whose insert failed is not drawn.
	for _, d := range []int{distUniform, distZipfian, distLatest} {
		for range 2000 {
			if n, err := c.choose(d); err != nil || n == 3 {
				t.Fatalf("%s drew %d, %v", distNames[d], n, err)
			}
		}
	}
}

func TestBuild(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		ops  []string
		want string // an error containing this, or "" for none
	}{
		{"defaults run A", nil, nil, ""},
		{"--ycsb picks the letter", []string{"--ycsb", "e"}, nil, ""},
		{"--ops runs several", nil, []string{"a", "B", "F"}, ""},
		{"unknown letter", []string{"--ycsb", "G"}, nil, "--ycsb"},
		{"unknown op", nil, []string{"A", "Z"}, "no workload"},
		{"distribution", []string{"--distribution", "pareto"}, nil, "--distribution"},
		{"no records", []string{"--recordcount", "0"}, nil, "--recordcount"},
		{"no fields", []string{"--fields", "0"}, nil, "--fields"},
		{"field size", []string{"--field-size", "0"}, nil, "--field-size"},
		{"scan length", []string{"--scan-max", "0"}, nil, "--scan-max"},
		{"insert order", []string{"--insert-order", "random"}, nil, "--insert-order"},
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
			_, ops = d.Ops()
		}
		w, err := d.Build(ops)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: got %v, want an error about %s", tc.name, err, tc.want)
		case tc.want == "" && len(w.Phases()) != len(ops):
			t.Errorf("%s: phases %v for %v", tc.name, w.Phases(), ops)
		}
	}
	// Each letter's default distribution, and the kinds' names.
	w := build(t, []string{"A", "D", "E"})
	for i, want := range []int{kindOf(opRead, distZipfian), kindOf(opRead, distLatest), kindOf(opScan, distZipfian)} {
		if w.phases[i].Weights[want] == 0 {
			t.Errorf("%s: weights %v", w.phases[i].Name, w.phases[i].Weights)
		}
	}
	if k := w.Kinds(); k[kindOf(opRMW, distLatest)].Name != "rmw" || k[kindOf(opInsert, distZipfian)].Writes != w.table || k[kindOf(opRead, distUniform)].Writes != nil {
		t.Errorf("kinds %+v", k)
	}
}

func BenchmarkReadAndScan(b *testing.B) {
	// One read and one scan on SQLite through the client: no allocation
	// in the workload's path.
	st := recordstest.Open(b, "sqlite:")
	d := New()
	fs := flag.NewFlagSet("b", flag.ContinueOnError)
	d.Flags(fs)
	fs.Parse([]string{"--ycsb", "E"})
	_, ops := d.Ops()
	wl, _ := d.Build(ops)
	w := wl.(*ycsb)
	ctx := context.Background()
	if err := st.Setup(ctx, w.Tables()); err != nil {
		b.Fatal(err)
	}
	if _, err := w.Prepare(ctx, st); err != nil {
		b.Fatal(err)
	}
	s, _ := st.Open(ctx)
	defer s.Close()
	c := w.NewClient(s, rand.New(rand.NewPCG(1, 1))).(*client)
	for _, op := range []int{opRead, opScan} {
		b.Run(opNames[op], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Do(ctx, kindOf(op, distZipfian)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestBytesByDirection(t *testing.T) {
	// Reads and scans read, updates and inserts write, a
	// read-modify-write does both: before, only inserts counted as
	// written, so A's updates showed nothing written.
	st := recordstest.Open(t, "sqlite:")
	w := build(t, []string{"A", "D", "E", "F"}, "--recordcount", "200", "--field-size", "20")
	prepare(t, st, w)
	for i, tc := range []struct{ read, written []string }{
		{[]string{"read"}, []string{"update"}},
		{[]string{"read"}, []string{"insert"}},
		{[]string{"scan"}, []string{"insert"}},
		{[]string{"read", "rmw"}, []string{"rmw"}},
	} {
		p := runPhase(t, st, w, i, 2, 400, 7)
		if p.Errors != 0 {
			t.Fatalf("%s: errors %+v", p.Op, p.ErrorClasses)
		}
		workloadtest.CheckBytes(t, p, tc.read, tc.written)
		for _, k := range p.Kinds {
			if k.Name == "insert" && k.BytesWritten != k.Ops*(8+10*20) {
				t.Errorf("%s insert: %d bytes written by %d inserts of %d bytes", p.Op, k.BytesWritten, k.Ops, 8+10*20)
			}
		}
	}
}
