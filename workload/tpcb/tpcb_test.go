package tpcb

import (
	"context"
	"errors"
	"flag"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"kurabe/engine"
	"kurabe/store"
	"kurabe/store/file"
	"kurabe/store/mysql"
	"kurabe/store/postgres"
	"kurabe/store/sqlite"
	"kurabe/store/storetest"
	"kurabe/workload"
	"kurabe/workload/workloadtest"
)

// build configures a definition from flags, as kurabe run does.
func build(t testing.TB, d workload.Definition, ops []string, args ...string) *bench {
	t.Helper()
	return workloadtest.Build(t, d, ops, args...).(*bench)
}

func openStore(t testing.TB, open store.Opener, spec, dir string) store.Store {
	t.Helper()
	sp, err := store.ParseSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	st, err := open(context.Background(), sp, store.Env{Dir: dir})
	storetest.RequireServer(t, err)
	t.Cleanup(func() { st.Close() })
	return st
}

// serverDir is a data directory a managed server's unprivileged user can
// enter (t.TempDir's parent is private to root).
func serverDir(t *testing.T) string {
	dir, err := os.MkdirTemp("", "kurabe-tpcb-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// setup creates and loads the tables, and returns a session speaking SQL,
// or skips when the store's sessions do not (yet) speak it.
func setup(t *testing.T, w *bench, st store.Store) store.SQLSession {
	t.Helper()
	ctx := context.Background()
	err := st.Setup(ctx, w.Tables())
	storetest.RequireServer(t, err)
	s, err := st.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ss, ok := s.(store.SQLSession)
	if !ok {
		t.Skipf("skipped: %T does not implement store.SQLSession yet", s)
	}
	n, err := w.Prepare(ctx, st)
	nb, nt, na := w.counts()
	if err != nil || n != nb+nt+na {
		t.Fatalf("Prepare loaded %d rows, want %d: %v", n, nb+nt+na, err)
	}
	for _, c := range []struct {
		t    *store.Table
		want int64
	}{{w.branches, nb}, {w.tellers, nt}, {w.accounts, na}, {w.history, 0}} {
		if got, err := st.Count(ctx, c.t); err != nil || got != c.want {
			t.Fatalf("%s holds %d rows, want %d (%v)", c.t.Name, got, c.want, err)
		}
	}
	return ss
}

// sum runs one of the sum statements and returns its first column.
func sum(t *testing.T, s store.SQLSession, q string) int64 {
	t.Helper()
	var v int64
	n, _, err := s.Query(context.Background(), q, nil, func(first int64) { v = first })
	if err != nil || n != 1 {
		t.Fatalf("%s: %d rows, %v", q, n, err)
	}
	return v
}

// checkTPCB runs a few hundred tpcb transactions from several clients
// through the engine and checks the TPC-B invariant: every delta went to
// an account, a teller, a branch and the history, or to none of them, so
// the four sums agree; and the history holds one row per acknowledged
// transaction.
func checkTPCB(t *testing.T, st store.Store, scale string) {
	ctx := context.Background()
	w := build(t, New(), []string{"tpcb", "select-only"}, "--scale", scale)
	s := setup(t, w, st)
	// The servers' sessions (the wire drivers, by default) run their
	// clients on a thread each or on one event loop; on the loop a
	// transaction's several round trips interleave with other clients'
	// on the one thread. Both must keep the invariant; the other stores'
	// clients stay in Go's poller whatever is asked.
	var acked int64
	for _, io := range []engine.ClientIO{engine.IOThreads, engine.IOLoop} {
		cfg := engine.Config{Clients: 6, Count: 200, Seed: 42, IO: io}
		res, err := engine.RunPhase(ctx, cfg, st, w, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, server := st.(store.Networked); (res.ClientIO == string(io)) != server {
			t.Errorf("client_io = %q with %s asked on %s", res.ClientIO, io, st.Info(ctx).Driver)
		}
		if res.Ops+res.Errors != 200 || len(res.Verify) != 1 {
			t.Fatalf("ops %d + errors %d, verify %+v", res.Ops, res.Errors, res.Verify)
		}
		if res.Errors > 0 {
			// Allowed (pgbench's workload can meet serialization failures
			// and deadlocks on some stores), but they must be classified
			// and leave nothing behind, which the sums below check.
			t.Logf("%d errors: %+v", res.Errors, res.ErrorClasses)
			for _, c := range res.ErrorClasses {
				if c.Class == "not-one-row" || c.Class == "error" {
					t.Fatalf("unexpected error class %s: %s", c.Class, c.First)
				}
			}
		}
		// A transaction writes its ten integers and reads the balance
		// it selects back (8 bytes).
		if res.BytesWritten != res.Ops*bytesWritten || res.BytesRead != res.Ops*8 {
			t.Errorf("tpcb: %d bytes written, %d read by %d transactions; want %d and %d", res.BytesWritten, res.BytesRead, res.Ops, res.Ops*bytesWritten, res.Ops*8)
		}
		v := res.Verify[0]
		if v.Table != "pgbench_history" || v.Acked != res.Ops || v.After-v.Before != v.Acked || v.Lost != 0 || v.Extra != 0 {
			t.Fatalf("history: %+v, acknowledged %d", v, res.Ops)
		}
		acked += res.Ops
	}
	a, tl, b, h := sum(t, s, w.sqlFor(s).sumAccounts), sum(t, s, w.sqlFor(s).sumTellers), sum(t, s, w.sqlFor(s).sumBranches), sum(t, s, w.sqlFor(s).sumHistory)
	if a != tl || tl != b || b != h {
		t.Fatalf("TPC-B invariant broken: sum(abalance) %d, sum(tbalance) %d, sum(bbalance) %d, sum(delta) %d", a, tl, b, h)
	}
	if n, err := st.Count(ctx, w.history); err != nil || n != acked {
		t.Fatalf("history holds %d rows, %d transactions acknowledged (%v)", n, acked, err)
	}
	t.Logf("%d transactions, balances sum to %d", acked, a)

	// select-only on the same tables: every read finds exactly one row.
	res, err := engine.RunPhase(ctx, engine.Config{Clients: 3, Count: 300, Seed: 7}, st, w, 1)
	if err != nil {
		t.Fatal(err)
	}
	if res.Ops != 300 || res.Errors != 0 || res.BytesRead != 300*8 || res.BytesWritten != 0 {
		t.Fatalf("select-only: %d ops, %d errors %+v, %d bytes read, %d written", res.Ops, res.Errors, res.ErrorClasses, res.BytesRead, res.BytesWritten)
	}
	checkAllocs(t, st, w)
}

// checkAllocs: the client passes its integer arguments as pointers into
// its own fields, so an operation allocates no more than the session
// does for the same statement given a pointer; given the integer itself,
// the session call allocates once more (an int64 put in an interface),
// which is what the client used to cost.
func checkAllocs(t *testing.T, st store.Store, w *bench) {
	ctx := context.Background()
	s, err := st.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ss := s.(store.SQLSession)
	q := w.sqlFor(ss).selAccount
	aid := int64(1000)
	byPointer, byValue := []any{&aid}, []any{int64(0)}
	session := testing.AllocsPerRun(200, func() {
		aid = 1 + (aid+7919)%100000
		if n, _, err := ss.Query(ctx, q, byPointer, nil); err != nil || n != 1 {
			t.Fatalf("%d rows, %v", n, err)
		}
	})
	boxed := testing.AllocsPerRun(200, func() {
		aid = 1 + (aid+7919)%100000
		byValue[0] = aid + 300 // above the integers Go keeps boxed
		if _, _, err := ss.Query(ctx, q, byValue, nil); err != nil {
			t.Fatal(err)
		}
	})
	c := w.NewClient(s, rand.New(rand.NewPCG(3, 4)))
	client := testing.AllocsPerRun(200, func() {
		if _, err := c.Do(ctx, kSelect); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("allocations per point select: client %.1f, session with a pointer %.1f, with an int64 %.1f", client, session, boxed)
	if client > session {
		t.Errorf("the client's point select allocates %.1f times, the session's own %.1f: the client adds allocations to the measured path", client, session)
	}
	if boxed < session+1 {
		t.Errorf("an int64 argument allocates %.1f times, a pointer %.1f: this check cannot tell them apart", boxed, session)
	}
}

func (w *bench) sqlFor(s store.SQLSession) *queries {
	q, err := w.queriesFor(s)
	if err != nil {
		panic(err)
	}
	return q
}

func TestTPCBInvariantSQLite(t *testing.T) {
	// The default rollback journal with synchronous=full: writers queue
	// for the lock (BEGIN IMMEDIATE), with a busy timeout of 5 s. At scale
	// 2, so that accounts and tellers must land in their own branch.
	st := openStore(t, sqlite.Open, "sqlite:", t.TempDir())
	checkTPCB(t, st, "2")
	s, _ := st.Open(context.Background())
	defer s.Close()
	ss := s.(store.SQLSession)
	for _, c := range []struct {
		q    string
		want int64
	}{
		// Each account's bid is (aid-1)/100000+1, each teller's (tid-1)/10+1.
		{"SELECT COUNT(*) FROM kurabe_pgbench_accounts WHERE bid <> (aid - 1) / 100000 + 1", 0},
		{"SELECT COUNT(*) FROM kurabe_pgbench_tellers WHERE bid <> (tid - 1) / 10 + 1", 0},
		{"SELECT MAX(aid) FROM kurabe_pgbench_accounts", 200000},
		{"SELECT MAX(bid) FROM kurabe_pgbench_accounts", 2},
		{"SELECT MAX(tid) FROM kurabe_pgbench_tellers", 20},
		{"SELECT MIN(length(filler)) FROM kurabe_pgbench_accounts", 84},
	} {
		if got := sum(t, ss, c.q); got != c.want {
			t.Errorf("%s = %d, want %d", c.q, got, c.want)
		}
	}
}

func TestTPCBInvariantPostgres(t *testing.T) {
	checkTPCB(t, openStore(t, postgres.Open, "postgres:managed", serverDir(t)), "1")
}

func TestTPCBInvariantMariaDB(t *testing.T) {
	// In a database of its own, not kurabe's default: the statements
	// must name the store's database.
	checkTPCB(t, openStore(t, mysql.Open, "mariadb:managed?database=bench", serverDir(t)), "1")
}

// MyISAM and Aria ignore BEGIN and COMMIT: tpcb runs, and says under the
// table that its updates were not atomic; InnoDB and select-only say
// nothing.
func TestNonTransactionalEngineNote(t *testing.T) {
	ctx := context.Background()
	st := openStore(t, mysql.Open, "mariadb:managed?engine=MyISAM", serverDir(t))
	for _, c := range []struct {
		d    workload.Definition
		want string
	}{
		{New(), "engine MyISAM does not do transactions"},
		{NewSelectOnly(), ""},
	} {
		w := build(t, c.d, nil)
		if err := st.Setup(ctx, w.Tables()); err != nil {
			storetest.RequireServer(t, err)
			t.Fatal(err)
		}
		if _, err := w.Prepare(ctx, st); err != nil {
			t.Fatal(err)
		}
		notes := strings.Join(w.Notes(), "\n")
		if c.want == "" && notes != "" || !strings.Contains(notes, c.want) {
			t.Errorf("%s: notes %q, want %q", w.Name(), notes, c.want)
		}
	}
	w := build(t, New(), nil)
	inno := openStore(t, mysql.Open, "mariadb:managed", serverDir(t))
	if err := inno.Setup(ctx, w.Tables()); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Prepare(ctx, inno); err != nil {
		t.Fatal(err)
	}
	if n := w.Notes(); len(n) > 0 {
		t.Errorf("InnoDB: notes %q, want none", n)
	}
}

// Behind the command line's refusal of connect=per-op, Prepare still
// fails on a store whose sessions cannot begin a transaction, before
// loading anything.
func TestPrepareWithoutTransactions(t *testing.T) {
	ctx := context.Background()
	st := openStore(t, postgres.Open, "postgres:managed?connect=per-op", serverDir(t))
	w := build(t, New(), nil)
	if err := st.Setup(ctx, w.Tables()); err != nil {
		storetest.RequireServer(t, err)
		t.Fatal(err)
	}
	n, err := w.Prepare(ctx, st)
	if n != 0 || err == nil || !strings.Contains(err.Error(), "tpcb needs transactions") {
		t.Fatalf("Prepare = %d, %v; want 0 rows and an error saying tpcb needs transactions", n, err)
	}
}

// lying wraps a session and reports other row counts than the store did.
type lying struct {
	store.SQLSession
	rows, changed int64
	rolledBack    int
}

func (l *lying) Query(ctx context.Context, q string, args []any, fn func(int64)) (int, int64, error) {
	_, b, err := l.SQLSession.Query(ctx, q, args, fn)
	return int(l.rows), b, err
}

func (l *lying) Exec(ctx context.Context, q string, args ...any) (int64, error) {
	_, err := l.SQLSession.Exec(ctx, q, args...)
	return l.changed, err
}

func (l *lying) Rollback(ctx context.Context) error {
	l.rolledBack++
	return l.SQLSession.Rollback(ctx)
}

// sessionOnly hides every capability but the interface itself.
type sessionOnly struct{ store.SQLSession }

func (sessionOnly) Insert(context.Context, *store.Table, store.Row) error { return nil }
func (sessionOnly) Scan(context.Context, *store.Table, store.Query, func(store.Row) error) (int, error) {
	return 0, nil
}
func (sessionOnly) Close() error { return nil }

func TestNotOneRowIsAnErrorClass(t *testing.T) {
	ctx := context.Background()
	w := build(t, NewSelectOnly(), nil)
	st := openStore(t, sqlite.Open, "sqlite:", t.TempDir())
	// Empty tables do: the wrapper below says how many rows each
	// statement saw.
	if err := st.Setup(ctx, w.Tables()); err != nil {
		t.Fatal(err)
	}
	sess, err := st.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	s := sess.(store.SQLSession)
	for _, c := range []struct {
		name          string
		kind          int
		rows, changed int64
		rollback      int
	}{
		// A point select that finds no account.
		{"select none", kSelect, 0, 1, 0},
		// Or two.
		{"select two", kSelect, 2, 1, 0},
		// An UPDATE that changes no row: the transaction is rolled back.
		{"update none", kTPCB, 1, 0, 1},
		// The SELECT inside the transaction finds none: rolled back too.
		{"tpcb select none", kTPCB, 0, 1, 1},
	} {
		l := &lying{SQLSession: s, rows: c.rows, changed: c.changed}
		cl := w.NewClient(sessionOnly{l}, rand.New(rand.NewPCG(1, 2)))
		_, err := cl.Do(ctx, c.kind)
		if store.Classify(err) != "not-one-row" || l.rolledBack != c.rollback {
			t.Errorf("%s: err %v (class %q), %d rollbacks; want not-one-row, %d", c.name, err, store.Classify(err), l.rolledBack, c.rollback)
		}
	}
	// Nothing of the failed transactions stayed.
	if n, _ := st.Count(ctx, w.history); n != 0 {
		t.Fatalf("history holds %d rows after failed transactions", n)
	}
	if a := sum(t, s, w.sqlFor(s).sumAccounts); a != 0 {
		t.Fatalf("accounts sum to %d after failed transactions", a)
	}
}

func TestStoreWithoutSQL(t *testing.T) {
	// The file store has no SQL: one line naming the stores that can.
	ctx := context.Background()
	w := build(t, New(), nil)
	st := openStore(t, file.Open, "file:", t.TempDir())
	if err := st.Setup(ctx, w.Tables()); err != nil {
		t.Fatal(err)
	}
	_, err := w.Prepare(ctx, st)
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "sqlite, postgres, mariadb, mysql") || !strings.Contains(err.Error(), "file") {
		t.Fatalf("err = %v", err)
	}
	s, _ := st.Open(ctx)
	defer s.Close()
	if _, err := w.NewClient(s, rand.New(rand.NewPCG(1, 2))).Do(ctx, kTPCB); err == nil {
		t.Fatal("a client on the file store ran a transaction")
	}
}

func TestBuild(t *testing.T) {
	// Both definitions in one flag set, as kurabe run registers them: the
	// second binds to the first one's --scale instead of redefining it.
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	tp, so := New(), NewSelectOnly()
	tp.Flags(fs)
	so.Flags(fs)
	if err := fs.Parse([]string{"--scale", "7"}); err != nil {
		t.Fatal(err)
	}
	w, err := so.Build([]string{"select-only"})
	if err != nil {
		t.Fatal(err)
	}
	if w.Name() != "select-only" || w.Params()["accounts"] != "700000" || w.Params()["tellers"] != "70" {
		t.Fatalf("%s %v", w.Name(), w.Params())
	}
	if _, def := tp.Ops(); len(def) != 1 || def[0] != "tpcb" {
		t.Fatalf("tpcb defaults %v", def)
	}
	if _, def := so.Ops(); len(def) != 1 || def[0] != "select-only" {
		t.Fatalf("select-only defaults %v", def)
	}
	b := build(t, New(), []string{"select-only", "tpcb"})
	if k := b.Kinds(); k[kTPCB].Writes != b.history || k[kSelect].Writes != nil {
		t.Fatalf("kinds %+v", k)
	}
	if ph := b.Phases(); ph[0].Weights[kSelect] != 1 || ph[1].Weights[kTPCB] != 1 {
		t.Fatalf("phases %+v", ph)
	}
	var _ workload.Preparer = b
	for _, c := range []struct {
		args []string
		ops  []string
		want string
	}{
		{[]string{"--scale", "0"}, nil, "--scale 0"},
		{[]string{"--scale", "1000001"}, nil, "--scale"},
		{nil, []string{"read"}, `no operation "read"`},
	} {
		d := New()
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		d.Flags(fs)
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		ops := c.ops
		if ops == nil {
			ops = []string{"tpcb"}
		}
		if _, err := d.Build(ops); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v %v: err %v, want %q", c.args, c.ops, err, c.want)
		}
	}
	fs = flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(new(strings.Builder))
	New().Flags(fs)
	if err := fs.Parse([]string{"--scale", "x"}); err == nil {
		t.Error("--scale x accepted")
	}
}

func TestStatements(t *testing.T) {
	// Each dialect's table names and placeholders, as the stores' Setup
	// names the tables.
	w := build(t, New(), nil)
	for _, c := range []struct {
		dialect, want string
	}{
		{"sqlite", "UPDATE kurabe_pgbench_accounts SET abalance = abalance + ? WHERE aid = ?"},
		{"postgres", `UPDATE "kurabe"."pgbench_accounts" SET abalance = abalance + $1 WHERE aid = $2`},
		{"mysql", "UPDATE `kurabe`.`pgbench_accounts` SET abalance = abalance + ? WHERE aid = ?"},
	} {
		q, err := w.queriesFor(fakeDialect(c.dialect))
		if err != nil || q.updAccount != c.want {
			t.Errorf("%s: %q, %v; want %q", c.dialect, q.updAccount, err, c.want)
		}
	}
	if _, err := w.queriesFor(fakeDialect("oracle")); err == nil {
		t.Error("dialect oracle accepted")
	}
	q, _ := w.queriesFor(named{fakeDialect("mysql")})
	if !strings.Contains(q.insHistory, "INSERT INTO `other`.`pgbench_history` (tid, bid, aid, delta, mtime, filler)") {
		t.Errorf("TableNamer not used: %s", q.insHistory)
	}
}

type fakeDialect string

func (f fakeDialect) Dialect() string                                   { return string(f) }
func (fakeDialect) Exec(context.Context, string, ...any) (int64, error) { return 0, errors.New("fake") }
func (fakeDialect) Query(context.Context, string, []any, func(int64)) (int, int64, error) {
	return 0, 0, errors.New("fake")
}
func (fakeDialect) Begin(context.Context) error    { return nil }
func (fakeDialect) Commit(context.Context) error   { return nil }
func (fakeDialect) Rollback(context.Context) error { return nil }

type named struct{ fakeDialect }

func (named) TableName(t *store.Table) string { return "`other`.`" + t.Name + "`" }

// BenchmarkSelectOnly is one point select through the client on SQLite:
// the workload's own cost on top of the driver's.
func BenchmarkSelectOnly(b *testing.B) {
	benchmark(b, kSelect, "sqlite:?journal_mode=wal")
}

// BenchmarkTPCB is one transaction on SQLite with synchronous=off, so
// the figure is CPU, not fsync.
func BenchmarkTPCB(b *testing.B) {
	benchmark(b, kTPCB, "sqlite:?journal_mode=wal&synchronous=off")
}

func benchmark(b *testing.B, kind int, spec string) {
	ctx := context.Background()
	w := build(b, New(), nil)
	st := openStore(b, sqlite.Open, spec, b.TempDir())
	if err := st.Setup(ctx, w.Tables()); err != nil {
		b.Fatal(err)
	}
	if _, err := w.Prepare(ctx, st); err != nil {
		b.Fatal(err)
	}
	s, err := st.Open(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	c := w.NewClient(s, rand.New(rand.NewPCG(1, 2)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := c.Do(ctx, kind); err != nil {
			b.Fatal(err)
		}
	}
}
