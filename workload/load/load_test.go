package load

import (
	"context"
	"flag"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"kurabe/dataset/records/recordstest"
	"kurabe/engine"
	"kurabe/result"
	"kurabe/store"
	"kurabe/store/storefault"
	"kurabe/workload/workloadtest"
)

func TestMain(m *testing.M) { recordstest.Main(m) }

func build(t *testing.T, args ...string) (*loader, *Definition) {
	t.Helper()
	d := New().(*Definition)
	return workloadtest.Build(t, d, kindNames, args...).(*loader), d
}

func TestEveryWayLoadsTheSameTable(t *testing.T) {
	// Each way leaves exactly the data set: the row count, and one
	// fingerprint across the four ways (and across stores, for the same
	// data set). Whole-data-set operations with one client, and chunks
	// loaded by three clients in parallel.
	for _, tc := range []struct {
		name    string
		args    []string
		clients int
	}{
		{"records whole", []string{"--dataset", "records", "--dataset-rows", "1500", "--record-size", "120"}, 1},
		{"records chunks", []string{"--dataset", "records", "--dataset-rows", "1500", "--record-size", "120", "--load-chunk", "200", "--batch", "64"}, 3},
		{"postal whole", []string{"--dataset-rows", "1200"}, 1},
	} {
		fps := map[store.Fingerprint][]string{}
		for _, spec := range recordstest.Specs {
			t.Run(tc.name+"/"+spec, func(t *testing.T) {
				st := recordstest.Open(t, spec)
				w, d := build(t, tc.args...)
				ctx := context.Background()
				if err := st.Setup(ctx, w.Tables()); err != nil {
					t.Fatal(err)
				}
				if _, err := w.Prepare(ctx, st); err != nil {
					t.Fatal(err)
				}
				clients := tc.clients
				if spec == "file:" {
					clients = 1 // a file takes keys in increasing order only: chunks one after another
				}
				for i, way := range kindNames {
					res, err := engine.RunPhase(ctx, engine.Config{Clients: clients, Count: d.DefaultCount(), Seed: 9}, st, w, i)
					if err != nil {
						t.Fatal(err)
					}
					if spec == "file:" && way == "transaction" {
						if res.Ops != 0 || len(res.ErrorClasses) != 1 || res.ErrorClasses[0].Class != "skipped" {
							t.Errorf("transaction on file: %d ops, %+v; want skipped", res.Ops, res.ErrorClasses)
						}
						continue
					}
					if res.Errors != 0 || res.Ops != w.chunks {
						t.Fatalf("%s: %d of %d operations, errors %+v", way, res.Ops, w.chunks, res.ErrorClasses)
					}
					// Through the servers' sessions the clients wait on
					// their sockets themselves (a thread each or one
					// event loop), except in bulk, which loads through the
					// store and must not hold the other clients up.
					if want := recordstest.IsServer(spec) && way != "bulk"; (res.ClientIO != "") != want {
						t.Errorf("%s: client_io = %q, want it set: %v", way, res.ClientIO, want)
					}
					// A load writes the data set's bytes and reads none.
					if want := w.src.Bytes(0, w.src.Rows()); res.BytesWritten != want || res.BytesRead != 0 {
						t.Errorf("%s: %d bytes written, %d read; the data set has %d", way, res.BytesWritten, res.BytesRead, want)
					}
					// The engine verified the load: every row acknowledged
					// is in the table, emptied before the phase.
					if want := (result.Verify{Table: w.table.Name, After: w.src.Rows(), Acked: w.src.Rows()}); len(res.Verify) != 1 || !reflect.DeepEqual(res.Verify[0], want) {
						t.Errorf("%s: verify %+v, want %+v", way, res.Verify, want)
					}
					s, _ := st.Open(ctx)
					fp, err := store.TakeFingerprint(ctx, s, w.table)
					s.Close()
					if err != nil {
						t.Fatal(err)
					}
					if fp.Rows != w.src.Rows() {
						t.Errorf("%s left %d rows of %d", way, fp.Rows, w.src.Rows())
					}
					fps[fp] = append(fps[fp], spec+" "+way)
				}
				// The file store's fallbacks are noted; the SQL stores take
				// their own paths.
				notes := strings.Join(w.Notes(), "\n")
				if spec == "file:" {
					if !strings.Contains(notes, "no bulk path") || !strings.Contains(notes, "Session.Insert") {
						t.Errorf("file notes: %q", notes)
					}
				} else if notes != "" {
					t.Errorf("%s notes: %q", spec, notes)
				}
			})
		}
		if len(fps) > 1 {
			t.Errorf("%s: the ways left different tables: %v", tc.name, fps)
		}
	}
}

// TestPerOpConnections: with a connection per statement (connect=per-op),
// an autocommit load operation connects once per row, and all of those
// connects are its connect time, so the rate without connecting is the
// rate of the statements alone; the transaction way, which cannot hold a
// transaction across connections, is skipped on every store alike; the
// bulk way, on the store's own connection, times no connecting.
func TestPerOpConnections(t *testing.T) {
	const rows = 200
	for _, spec := range []string{"sqlite:?connect=per-op", "postgres:managed?connect=per-op", "mariadb:managed?connect=per-op"} {
		t.Run(spec, func(t *testing.T) {
			st := recordstest.Open(t, spec)
			w, d := build(t, "--dataset", "records", "--dataset-rows", fmt.Sprint(rows), "--record-size", "100")
			ctx := context.Background()
			probe := &store.Table{ID: len(w.Tables()), Name: "probe", Columns: []store.Column{{Name: "id", Kind: store.Int}}}
			if err := st.Setup(ctx, append(w.Tables(), probe)); err != nil {
				t.Fatal(err)
			}
			if _, err := w.Prepare(ctx, st); err != nil {
				t.Fatal(err)
			}
			// One connect, as a single insert makes it, five times.
			var one []time.Duration
			s, err := st.Open(ctx)
			if err != nil {
				t.Fatal(err)
			}
			ct := s.(store.ConnectTimer)
			for i := range 5 {
				ct.ConnectTime()
				if err := s.Insert(ctx, probe, store.Row{{Int: int64(i + 1)}}); err != nil {
					t.Fatal(err)
				}
				one = append(one, ct.ConnectTime())
			}
			s.Close()
			slices.Sort(one)
			for i, way := range kindNames {
				// Three clients for the one operation: two have nothing to do.
				res, err := engine.RunPhase(ctx, engine.Config{Clients: 3, Count: d.DefaultCount(), Seed: 3}, st, w, i)
				if err != nil {
					t.Fatal(err)
				}
				switch way {
				case "transaction":
					if res.Ops != 0 || len(res.ErrorClasses) != 1 || res.ErrorClasses[0].Class != "skipped" {
						t.Errorf("transaction: %d ops, %+v; want skipped", res.Ops, res.ErrorClasses)
					}
				case "bulk":
					// The store's bulk path loads on a connection of its
					// own, not the session's: nothing was timed as
					// connecting, and no figure without it is given
					// (before, "connecting took 0 on average").
					if res.Ops != 1 || res.Errors != 0 || res.Connect != nil || res.LatencyExclConnect != nil || res.OpsPerSecExclConnect != 0 {
						t.Errorf("bulk: %d ops, %+v, connect %+v, %v ops/s without connecting; want no connecting figures", res.Ops, res.ErrorClasses, res.Connect, res.OpsPerSecExclConnect)
					}
				case "autocommit":
					if res.Ops != 1 || res.Errors != 0 || res.Connect == nil {
						t.Fatalf("autocommit: %d ops, %+v, connect %v", res.Ops, res.ErrorClasses, res.Connect)
					}
					// 200 connects against the median of one: a tenth of
					// what it should be still tells all from the last.
					if got, min := time.Duration(res.Connect.Mean*1e3), rows/10*one[2]; got < min {
						t.Errorf("autocommit's connect time %v for %d rows; one connect takes %v, so want at least %v", got, rows, one[2], min)
					}
					// The rate without connecting is the one operation's
					// time without it, not the phase's less a third of it.
					if r := res.OpsPerSecExclConnect * res.LatencyExclConnect.Mean / 1e6; r < 0.8 || r > 1.25 {
						t.Errorf("autocommit: %.3g ops/s without connecting, where the operation took %.0fµs without it", res.OpsPerSecExclConnect, res.LatencyExclConnect.Mean)
					}
				}
			}
		})
	}
}

func TestDefaultCountIsTheChunks(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want int64
	}{
		{[]string{"--dataset", "records"}, 1},                                                   // the whole data set in one operation
		{[]string{"--dataset", "records", "--load-chunk", "10k"}, 10},                           // 100k rows in chunks of 10,000
		{[]string{"--dataset", "records", "--dataset-rows", "1001", "--load-chunk", "100"}, 11}, // a short last chunk
		{[]string{"--dataset-rows", "5000", "--load-chunk", "1M"}, 1},                           // a chunk larger than the data set
	} {
		_, d := build(t, tc.args...)
		if got := d.DefaultCount(); got != tc.want {
			t.Errorf("%v: %d chunks, want %d", tc.args, got, tc.want)
		}
	}
}

func TestMoreOperationsThanChunksAreErrors(t *testing.T) {
	// -n above the chunks: the extra operations load nothing and say so;
	// the table still holds the data set once.
	st := recordstest.Open(t, "sqlite:")
	w, _ := build(t, "--dataset", "records", "--dataset-rows", "300", "--load-chunk", "100", "--record-size", "16")
	ctx := context.Background()
	st.Setup(ctx, w.Tables())
	w.Prepare(ctx, st)
	res, err := engine.RunPhase(ctx, engine.Config{Clients: 1, Count: 5, Seed: 1}, st, w, kBatch)
	if err != nil {
		t.Fatal(err)
	}
	if res.Ops != 3 || res.Errors != 2 || res.ErrorClasses[0].Class != "exhausted" || !strings.Contains(res.ErrorClasses[0].First, "leave -n") {
		t.Errorf("%d ops, %+v", res.Ops, res.ErrorClasses)
	}
	if n, _ := st.Count(ctx, w.table); n != 300 {
		t.Errorf("%d rows", n)
	}
}

// lossyStore drops the last row of every bulk load, for the check that
// the load counts the table.
type lossyStore struct{ store.Store }

func (l lossyStore) BulkLoad(ctx context.Context, t *store.Table, next func() (store.Row, bool)) (int64, error) {
	s, err := l.Open(ctx)
	if err != nil {
		return 0, err
	}
	defer s.Close()
	var rows []store.Row
	for r, ok := next(); ok; r, ok = next() {
		rows = append(rows, append(store.Row(nil), r...))
	}
	return int64(len(rows)), store.InsertBatch(ctx, s, t, rows[:len(rows)-1])
}

func TestALostRowIsReported(t *testing.T) {
	// A store that acknowledges a bulk load and keeps one row fewer: the
	// engine's verification finds the row lost, as for any workload's
	// inserts.
	st := lossyStore{recordstest.Open(t, "sqlite:")}
	w, _ := build(t, "--dataset", "records", "--dataset-rows", "50", "--record-size", "16")
	ctx := context.Background()
	st.Setup(ctx, w.Tables())
	w.Prepare(ctx, st)
	res, err := engine.RunPhase(ctx, engine.Config{Clients: 1, Count: 1, Seed: 1}, st, w, kBulk)
	if err != nil {
		t.Fatal(err)
	}
	if want := (result.Verify{Table: w.table.Name, After: 49, Acked: 50, Lost: 1}); res.Errors != 0 || len(res.Verify) != 1 || !reflect.DeepEqual(res.Verify[0], want) {
		t.Errorf("errors %+v, verify %+v; want %+v", res.ErrorClasses, res.Verify, want)
	}
}

func TestBuildRejectsBadSettings(t *testing.T) {
	for _, tc := range []struct {
		args []string
		ops  []string
		want string
	}{
		{[]string{"--batch", "0"}, kindNames, "--batch"},
		{[]string{"--load-chunk", "-1"}, kindNames, "row count"},
		{[]string{"--dataset", "csv"}, kindNames, "--dataset"},
		{nil, []string{"copy"}, "no operation"},
	} {
		d := New()
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		d.Flags(fs)
		err := fs.Parse(tc.args)
		if err == nil {
			_, err = d.Build(tc.ops)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v %v: got %v, want %q", tc.args, tc.ops, err, tc.want)
		}
	}
}

func TestNotes(t *testing.T) {
	// Rows/s per store and way from a result, and the autocommit rates
	// held against the disk's fsync rate.
	d := &result.Document{Run: result.RunConfig{Workload: "load", Params: map[string]string{"rows": "120720", "chunk_rows": "120720"}}}
	phase := func(op string, secs float64, ops, errs int64) result.Phase {
		return result.Phase{Op: op, Clients: 1, Elapsed: secs, Ops: ops, Errors: errs}
	}
	d.Stores = []result.Store{
		{Label: "sqlite", Info: store.Info{Driver: "sqlite", Options: map[string]string{"journal_mode": "delete", "synchronous": "full"}},
			Phases: []result.Phase{phase("autocommit", 109.7, 1, 0), phase("transaction", 0.65, 1, 0), phase("bulk", 0.60, 1, 0)}},
		{Label: "mariadb", Info: store.Info{Driver: "mariadb"}, Phases: []result.Phase{phase("autocommit", 24.1, 1, 0), phase("transaction", 3.0, 0, 1)}},
	}
	got := strings.Join(Notes(d, 5200), "\n")
	want := `sqlite load, rows/s: autocommit 1,100 · transaction 185,723 · bulk 201,200
mariadb load, rows/s: autocommit 5,009 · transaction -
sqlite autocommit: 1,100 rows/s against the disk's 5,200 fsync'd appends/s (kurabe probe): 4.7 fsyncs' time per row: several syncs per commit (SQLite's rollback journal, journal_mode=delete, syncs the journal, then the database)
mariadb autocommit: 5,009 rows/s against the disk's 5,200 fsync'd appends/s (kurabe probe): 1.0 fsyncs' time per row: about one sync per commit`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// An interrupted phase counts the rows its check found acknowledged,
	// the committed ones of the chunk cut short included, not only the
	// chunks that ended (11 of 500 rows here, 5,500).
	cut := result.Document{Run: result.RunConfig{Workload: "load", Params: map[string]string{"rows": "120720", "chunk_rows": "500"}},
		Stores: []result.Store{{Label: "sqlite", Phases: []result.Phase{{Op: "autocommit", Clients: 2, Elapsed: 5, Ops: 11, Errors: 2, Interrupted: true,
			Verify: []result.Verify{{Table: "postal", After: 5755, Acked: 5755}}}}}}}
	if r := Rates(&cut); len(r) != 1 || r[0].Rows != 5755 || r[0].RowsPerSec != 1151 || r[0].Complete {
		t.Errorf("interrupted load: %+v, want 5,755 rows, 1,151 rows/s, incomplete", r)
	}
	if n := Notes(d, 0); len(n) != 3 || !strings.Contains(n[2], "kurabe probe") {
		t.Errorf("without a probe: %q", n)
	}
	// Faster than the disk with two clients: group commit on a server,
	// not on SQLite, which syncs its commits one after another.
	for i := range d.Stores {
		d.Stores[i].Phases = []result.Phase{{Op: "autocommit", Clients: 2, Elapsed: 2, Ops: 1}}
	}
	n := Notes(d, 5200)
	if s, m := n[2], n[3]; strings.Contains(s, "group commit") || !strings.Contains(s, "faster than one fsync per row") || !strings.Contains(m, "group commit") {
		t.Errorf("two clients, faster than the disk:\n%s\n%s", s, m)
	}
	// Faster than the probe's figure with one client: what that means
	// follows the settings read back. Synced commits make the probe's
	// figure the one to doubt, not the syncing; settings that do not sync
	// are named.
	d.Stores = []result.Store{
		{Label: "postgres", Info: store.Info{Driver: "postgres", Options: map[string]string{"fsync": "on", "synchronous_commit": "on"}}},
		{Label: "mariadb", Info: store.Info{Driver: "mariadb", Options: map[string]string{"engine": "InnoDB", "innodb_flush_log_at_trx_commit": "1"}}},
		{Label: "sqlite", Info: store.Info{Driver: "sqlite", Options: map[string]string{"synchronous": "off"}}},
		{Label: "file", Info: store.Info{Driver: "file"}},
	}
	for i := range d.Stores {
		d.Stores[i].Phases = []result.Phase{{Op: "autocommit", Clients: 1, Elapsed: 2, Ops: 1}}
	}
	n = Notes(d, 782)
	for i, want := range []string{
		"the settings read back say each commit is synced (fsync=on synchronous_commit=on): the probe's figure may be low",
		"the settings read back say each commit is synced (engine=InnoDB innodb_flush_log_at_trx_commit=1)",
		"commits are not synced (synchronous=off)",
		"commits are not synced (or the disk's cache absorbs them)",
	} {
		if got := n[len(d.Stores)+i]; !strings.Contains(got, want) || (i < 2 && strings.Contains(got, "not synced")) {
			t.Errorf("%s: %q, want %q", d.Stores[i].Label, got, want)
		}
	}
	d.Run.Workload = "bbs"
	if n := Notes(d, 5200); n != nil {
		t.Errorf("bbs run: %q", n)
	}
}

// An autocommit row that took the time of several fsyncs is explained by
// what the store's commit syncs, as its settings read back say: a
// rollback journal's two syncs are SQLite's, not PostgreSQL's or
// InnoDB's, which flush one log per commit; where the settings do not
// tell, the note says only what was measured.
func TestSlowCommitFollowsTheStore(t *testing.T) {
	for _, c := range []struct {
		name   string
		info   store.Info
		want   string
		unwant string
	}{
		{"sqlite rollback journal", store.Info{Driver: "sqlite", Options: map[string]string{"journal_mode": "truncate", "synchronous": "full"}},
			"several syncs per commit (SQLite's rollback journal, journal_mode=truncate, syncs the journal, then the database)", ""},
		{"sqlite WAL", store.Info{Driver: "sqlite", Options: map[string]string{"journal_mode": "wal", "synchronous": "full"}},
			"in WAL mode (journal_mode=wal, synchronous=full) SQLite syncs the WAL at most once per commit", "rollback"},
		{"postgres", store.Info{Driver: "postgres", Options: map[string]string{"fsync": "on", "synchronous_commit": "on", "full_page_writes": "on"}},
			"PostgreSQL flushes its WAL once per commit; the rest is the statement's own work, or WAL larger than the probe's 4 KB appends (full_page_writes=on", "rollback"},
		{"postgres without full-page writes", store.Info{Driver: "postgres", Options: map[string]string{"fsync": "on", "synchronous_commit": "on", "full_page_writes": "off"}},
			"PostgreSQL flushes its WAL once per commit; the rest is the statement's own work", "full_page_writes"},
		{"mariadb", store.Info{Driver: "mariadb", Options: map[string]string{"engine": "InnoDB", "innodb_flush_log_at_trx_commit": "1", "sync_binlog": "0"}},
			"InnoDB flushes its redo log once per commit (innodb_flush_log_at_trx_commit=1); the rest is the statement's own work", "rollback"},
		{"mysql with sync_binlog=1", store.Info{Driver: "mysql", Options: map[string]string{"engine": "InnoDB", "innodb_flush_log_at_trx_commit": "1", "sync_binlog": "1"}},
			"InnoDB flushes its redo log once per commit (innodb_flush_log_at_trx_commit=1), and with the binary log on, sync_binlog=1 syncs it too", "rollback"},
		{"file sync=write", store.Info{Driver: "file", Options: map[string]string{"sync": "write"}},
			"the file store syncs the file once per write (sync=write)", "rollback"},
		// settings that say nothing of the journal: only what was measured
		{"sqlite, journal not read back", store.Info{Driver: "sqlite"},
			": more than one sync's time per row: the commit's syncs and the statement's own work, which this run does not tell apart", "rollback"},
		{"a store of another kind", store.Info{Driver: "other"},
			": more than one sync's time per row: the commit's syncs and the statement's own work, which this run does not tell apart", "rollback"},
		// as slow as syncs, though nothing is synced: no syncs counted
		{"postgres synchronous_commit=off", store.Info{Driver: "postgres", Options: map[string]string{"fsync": "on", "synchronous_commit": "off"}},
			", though the settings read back say commits are not synced (fsync=on synchronous_commit=off): the time is the statement's own work, not syncing", "per commit"},
	} {
		d := &result.Document{Run: result.RunConfig{Workload: "load", Params: map[string]string{"rows": "1000", "chunk_rows": "1000"}},
			Stores: []result.Store{{Label: "s", Info: c.info, Phases: []result.Phase{{Op: "autocommit", Clients: 1, Elapsed: 1, Ops: 1}}}}}
		// 1,000 rows/s against 3,000 fsyncs/s: 3 fsyncs' time per row
		n := Notes(d, 3000)
		got := n[len(n)-1]
		if !strings.Contains(got, "3.0 fsyncs' time per row") || !strings.Contains(got, c.want) || (c.unwant != "" && strings.Contains(got, c.unwant)) {
			t.Errorf("%s: %q\nwant it to say %q (and not %q)", c.name, got, c.want, c.unwant)
		}
	}
}

// An interrupt ends the one-statement-per-row way between rows rather
// than after the whole data set: here every insert stalls 1 ms, so the
// 120,720 rows would take two minutes or more.
func TestInterruptEndsAutocommitBetweenRows(t *testing.T) {
	st := &storefault.Stall{Store: recordstest.Open(t, "file:"), Every: 1, For: time.Millisecond}
	w, d := build(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := st.Setup(ctx, w.Tables()); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Prepare(ctx, st); err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(300 * time.Millisecond)
		cancel()
	}()
	res, err := engine.RunPhase(ctx, engine.Config{Clients: 1, Count: d.DefaultCount(), Seed: 9}, st, w, kAutocommit)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted || res.Errors != 1 || len(res.ErrorClasses) != 1 || res.ErrorClasses[0].Class != "interrupted" {
		t.Fatalf("interrupted %v, errors %d %+v", res.Interrupted, res.Errors, res.ErrorClasses)
	}
	// The rows inserted before the interrupt were acknowledged one by
	// one, and are stored: neither lost nor extra.
	if v := res.Verify; len(v) != 1 || v[0].Acked == 0 || v[0].Acked != v[0].After-v[0].Before || v[0].Lost != 0 || v[0].Extra != 0 {
		t.Errorf("verify %+v: want the rows inserted before the interrupt, all stored", v)
	}
}
