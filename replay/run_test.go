package replay

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kurabe/result"
	"kurabe/store"
)

// fakeStore is an SQL store that runs nothing: each statement takes the
// time delay gives it, and is recorded with the session that ran it.
type fakeStore struct {
	dialect string
	delay   func(sql string) time.Duration
	noSQL   bool
	// failAfter > 0 injects a fault: opens after the first failAfter fail.
	failAfter int

	mu       sync.Mutex
	sessions int
	ran      []ran
}

type ran struct {
	session int
	sql     string
	args    []any
}

func (f *fakeStore) Setup(context.Context, []*store.Table) error        { return nil }
func (f *fakeStore) Count(context.Context, *store.Table) (int64, error) { return 0, nil }
func (f *fakeStore) Info(context.Context) store.Info                    { return store.Info{Driver: "fake"} }
func (f *fakeStore) Close() error                                       { return nil }
func (f *fakeStore) Open(ctx context.Context) (store.Session, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sessions++
	if f.failAfter > 0 && f.sessions > f.failAfter {
		return nil, errors.New("too many connections")
	}
	s := &fakeSession{f: f, id: f.sessions}
	if f.noSQL {
		return noSQLSession{s}, nil
	}
	return s, nil
}

type fakeSession struct {
	f  *fakeStore
	id int
}

// noSQLSession hides the SQL methods, as a file store's session has none.
type noSQLSession struct{ s *fakeSession }

func (n noSQLSession) Insert(ctx context.Context, t *store.Table, row store.Row) error {
	return n.s.Insert(ctx, t, row)
}
func (n noSQLSession) Scan(ctx context.Context, t *store.Table, q store.Query, fn func(store.Row) error) (int, error) {
	return n.s.Scan(ctx, t, q, fn)
}
func (n noSQLSession) Close() error { return nil }

func (s *fakeSession) Insert(context.Context, *store.Table, store.Row) error { return errors.New("no") }
func (s *fakeSession) Scan(context.Context, *store.Table, store.Query, func(store.Row) error) (int, error) {
	return 0, errors.New("no")
}
func (s *fakeSession) Close() error    { return nil }
func (s *fakeSession) Dialect() string { return s.f.dialect }

func (s *fakeSession) run(sql string, args []any) error {
	if s.f.delay != nil {
		time.Sleep(s.f.delay(sql))
	}
	s.f.mu.Lock()
	s.f.ran = append(s.f.ran, ran{s.id, sql, args})
	s.f.mu.Unlock()
	if strings.Contains(sql, "nosuch") {
		return &store.ClassError{Class: "pg:42P01", Err: errors.New(`relation "nosuch" does not exist`)}
	}
	return nil
}

func (s *fakeSession) Exec(ctx context.Context, sql string, args ...any) (int64, error) {
	return 0, s.run(sql, args)
}
func (s *fakeSession) Query(ctx context.Context, sql string, args []any, fn func(int64)) (int, int64, error) {
	return 1, 8, s.run(sql, args)
}
func (s *fakeSession) Begin(context.Context) error    { return s.run("BEGIN", nil) }
func (s *fakeSession) Commit(context.Context) error   { return s.run("COMMIT", nil) }
func (s *fakeSession) Rollback(context.Context) error { return s.run("ROLLBACK", nil) }

// events is a Parser over events made in a test.
type events struct {
	evs   []Event
	skips Skips
}

func (e *events) Next() (Event, bool) {
	if len(e.evs) == 0 {
		return Event{}, false
	}
	ev := e.evs[0]
	e.evs = e.evs[1:]
	return ev, true
}
func (e *events) Err() error      { return nil }
func (e *events) Skipped() *Skips { return &e.skips }
func (e *events) Lines() int      { return 0 }

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func stmt(session string, at time.Duration, sql string, params ...string) Event {
	e := Event{Kind: Statement, Session: session, Time: t0.Add(at), SQL: sql}
	for _, p := range params {
		e.Params = append(e.Params, Param{Value: p})
	}
	return e
}

func load(t *testing.T, evs ...Event) *Log {
	t.Helper()
	lg, err := Load(&events{evs: evs}, Postgres)
	if err != nil {
		t.Fatal(err)
	}
	return lg
}

func phase(t *testing.T, ps []result.Phase, prefix string) result.Phase {
	t.Helper()
	for _, p := range ps {
		if p.Replay != nil && strings.HasPrefix(p.Replay.Text, prefix) {
			return p
		}
	}
	t.Fatalf("no phase for %q", prefix)
	return result.Phase{}
}

// spread is two sessions of five statements, one a second, over 4 s.
func spread() []Event {
	var evs []Event
	for i := range 5 {
		at := time.Duration(i) * time.Second
		evs = append(evs, stmt("a", at, fmt.Sprintf("select %d", i)), stmt("b", at+100*time.Millisecond, "update t set v = $1 where id = $2", "x", fmt.Sprint(i)))
	}
	evs[len(evs)-1].Time = t0.Add(4 * time.Second)
	return evs
}

// TestPace replays a log of 4 s at --speed 1 in 4 s ± 5 %, keeping its
// pace, and at --speed 4 in a quarter of that. The machine is shared: a
// run that misses is tried again, up to five times, each try logged, so that
// a load spike elsewhere does not fail the test while a replay that
// cannot keep time still does.
func TestPace(t *testing.T) {
	lg := load(t, spread()...)
	for _, tc := range []struct {
		speed float64
		want  time.Duration
	}{{1, 4 * time.Second}, {4, time.Second}} {
		var problems []string
		for try := 1; try <= 5; try++ {
			st := &fakeStore{dialect: Postgres, delay: func(string) time.Duration { return time.Millisecond }}
			start := time.Now()
			ps, err := Run(context.Background(), Config{Speed: tc.speed}, st, lg)
			took := time.Since(start)
			if err != nil {
				t.Fatal(err)
			}
			r := ps[0].Replay
			t.Logf("speed %v, try %d: took %v (replay wall %.3f s), lag p99 %.0f µs, max %.0f µs", tc.speed, try, took, r.Wall, r.Lag.P99, r.Lag.Max)
			problems = nil
			if lo, hi := tc.want*95/100, tc.want*105/100; took < lo || took > hi {
				problems = append(problems, fmt.Sprintf("took %v, want %v ± 5 %%", took, tc.want))
			}
			if r.Behind || r.Scheduled != tc.want.Seconds() {
				problems = append(problems, fmt.Sprintf("behind %v (%s), scheduled %v s", r.Behind, r.Note, r.Scheduled))
			}
			if ps[0].Ops != 10 || ps[0].Errors != 0 {
				t.Fatalf("speed %v: %d ops, %d errors; want 10, 0", tc.speed, ps[0].Ops, ps[0].Errors)
			}
			if len(problems) == 0 {
				break
			}
		}
		if len(problems) > 0 {
			t.Errorf("speed %v, five tries: %s", tc.speed, strings.Join(problems, "; "))
		}
	}
}

// TestLag: a store slower than the log makes the replay late, and it says
// so instead of stretching the schedule in silence.
func TestLag(t *testing.T) {
	var evs []Event
	for i := range 10 {
		evs = append(evs, stmt("a", time.Duration(i)*50*time.Millisecond, "select pg_sleep(0.15)"))
	}
	lg := load(t, evs...)
	st := &fakeStore{dialect: Postgres, delay: func(string) time.Duration { return 150 * time.Millisecond }}
	ps, err := Run(context.Background(), Config{Speed: 1}, st, lg)
	if err != nil {
		t.Fatal(err)
	}
	r := ps[0].Replay
	t.Logf("scheduled %.3f s, took %.3f s, lag p50 %.0f µs max %.0f µs, %d late: %s", r.Scheduled, r.Wall, r.Lag.P50, r.Lag.Max, r.Late, r.Note)
	if !r.Behind || !strings.Contains(r.Note, "could not keep the log's pace") {
		t.Errorf("a slow store: behind %v, note %q", r.Behind, r.Note)
	}
	if r.Late < 8 || r.Lag.Max < 900_000 {
		t.Errorf("a slow store: %d late, lag max %.0f µs; want 8 or more late and about 1 s", r.Late, r.Lag.Max)
	}
}

// TestFingerprints: statements that differ in their values share a
// fingerprint; counts, errors and their first message are per
// fingerprint; a simple query of several statements is split.
func TestFingerprints(t *testing.T) {
	lg := load(t,
		stmt("a", 0, "insert into t values (1, 'a'), (2, 'b')"),
		stmt("a", 0, "INSERT INTO t VALUES (3, 'c')"),
		stmt("a", 0, "BEGIN; select * from t where id = 1; COMMIT"),
		stmt("b", 0, "select * from t where id = $1", "2"),
		stmt("b", 0, "select * from nosuch"),
		stmt("b", 0, "COPY t (id, v) FROM STDIN"), // its data is not in the log
	)
	if lg.Copies != 1 {
		t.Errorf("%d COPY statements left out, want 1", lg.Copies)
	}
	if lg.Statements != 7 || len(lg.Fingerprints) != 5 {
		t.Fatalf("%d statements, %d fingerprints; want 7, 5: %+v", lg.Statements, len(lg.Fingerprints), lg.Fingerprints)
	}
	st := &fakeStore{dialect: Postgres}
	ps, err := Run(context.Background(), Config{}, st, lg)
	if err != nil {
		t.Fatal(err)
	}
	for prefix, want := range map[string]int64{"insert into t values (...)": 2, "select * from t where id = ?": 2, "begin": 1, "commit": 1} {
		p := phase(t, ps, prefix)
		if p.Ops != want || p.Replay.InLog != want {
			t.Errorf("%s: %d ops, %d in the log; want %d", prefix, p.Ops, p.Replay.InLog, want)
		}
	}
	bad := phase(t, ps, "select * from nosuch")
	if bad.Errors != 1 || len(bad.ErrorClasses) != 1 || bad.ErrorClasses[0].Class != "pg:42P01" {
		t.Errorf("the failing statement: %d errors, classes %+v", bad.Errors, bad.ErrorClasses)
	}
	if ps[0].Ops != 6 || ps[0].Errors != 1 {
		t.Errorf("all: %d ops, %d errors; want 6, 1", ps[0].Ops, ps[0].Errors)
	}
	// One of a thing is counted in the singular.
	if note := "1 COPY statement from or to the client was left out: the data it moved is not in the log"; !slices.Contains(ps[0].Replay.Notes, note) {
		t.Errorf("notes %q; want %q", ps[0].Replay.Notes, note)
	}
	// BEGIN and COMMIT went through Begin and Commit; the parameter as
	// an argument.
	for _, r := range st.ran {
		if r.sql == "select * from t where id = $1" && (len(r.args) != 1 || r.args[0] != "2") {
			t.Errorf("arguments %v, want [2]", r.args)
		}
	}
}

// TestClients: with --clients, a transaction runs on one connection
// without another's statements in it, and a session's statements keep
// their order.
func TestClients(t *testing.T) {
	var evs []Event
	for s := range 6 {
		id := fmt.Sprint("s", s)
		for k := range 3 {
			at := time.Duration(s*3+k) * time.Millisecond
			evs = append(evs, stmt(id, at, "BEGIN"), stmt(id, at, fmt.Sprintf("insert into t values (%d, %d)", s, k)), stmt(id, at, "COMMIT"),
				stmt(id, at, fmt.Sprintf("select %d from t where s = %d", k, s)))
		}
	}
	lg := load(t, evs...)
	st := &fakeStore{dialect: Postgres, delay: func(string) time.Duration { return 200 * time.Microsecond }}
	ps, err := Run(context.Background(), Config{Clients: 2}, st, lg)
	if err != nil {
		t.Fatal(err)
	}
	if ps[0].Clients != 2 || ps[0].Ops != 72 || ps[0].Replay.Mode != "clients" {
		t.Fatalf("%d clients, %d ops, mode %s; want 2, 72, clients", ps[0].Clients, ps[0].Ops, ps[0].Replay.Mode)
	}
	if st.sessions != 3 { // the check's and two clients'
		t.Errorf("%d store sessions opened, want 3", st.sessions)
	}
	bySession := map[int][]string{}
	for _, r := range st.ran {
		bySession[r.session] = append(bySession[r.session], r.sql)
	}
	for _, sqls := range bySession {
		for i, q := range sqls {
			if q == "BEGIN" && (i+2 >= len(sqls) || !strings.HasPrefix(sqls[i+1], "insert") || sqls[i+2] != "COMMIT") {
				t.Fatalf("a transaction broken up on one connection: %q", sqls[i:min(i+3, len(sqls))])
			}
		}
	}
	// A log session's units may run on different connections, one after
	// another: its order holds in the order statements started (st.ran),
	// not within one connection.
	last := map[int]int{} // log session → last k seen
	for _, r := range st.ran {
		var s, k int
		if n, _ := fmt.Sscanf(r.sql, "insert into t values (%d, %d)", &s, &k); n == 2 {
			if prev, ok := last[s]; ok && prev >= k {
				t.Errorf("session %d: insert %d after %d", s, k, prev)
			}
			last[s] = k
		}
	}
}

// TestSessionsWaitForEarlierOnes: at --speed max, a session starts only
// once the sessions that had ended when it started in the log have ended,
// so the replay never runs more at once than the log did.
func TestSessionsWaitForEarlierOnes(t *testing.T) {
	var evs []Event
	for s := range 4 {
		id := fmt.Sprint("s", s)
		at := time.Duration(s) * time.Second
		evs = append(evs, Event{Kind: Connect, Session: id, Time: t0.Add(at)}, stmt(id, at, fmt.Sprintf("select %d", s*10)),
			stmt(id, at+1500*time.Millisecond, fmt.Sprintf("select %d", s*10+1)), Event{Kind: Disconnect, Session: id, Time: t0.Add(at + 1500*time.Millisecond)})
	}
	lg := load(t, evs...)
	st := &fakeStore{dialect: Postgres, delay: func(string) time.Duration { return 20 * time.Millisecond }}
	start := time.Now()
	ps, err := Run(context.Background(), Config{}, st, lg)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 3*time.Second || ps[0].Clients > 2 || ps[0].Ops != 8 {
		t.Errorf("speed max: took %v with %d clients, %d ops; want at once, 2 clients at most, 8 ops", took, ps[0].Clients, ps[0].Ops)
	}
	at := map[string]int{}
	for i, r := range st.ran {
		at[r.sql] = i
	}
	for s := 2; s < 4; s++ {
		if first, lastBefore := at[fmt.Sprintf("select %d", s*10)], at[fmt.Sprintf("select %d", (s-2)*10+1)]; first < lastBefore {
			t.Errorf("session s%d began before session s%d, which had ended in the log, ended", s, s-2)
		}
	}
}

// TestSessionWaitsForStatementsLoggedBefore: a server logs a session's
// end when its process exits, which may come after the next program has
// connected (psql ran a script, then pgbench connected before psql's
// backend logged its disconnection). At --speed max the second session
// still starts only after the first one's statements, all logged before
// it connected, have run.
func TestSessionWaitsForStatementsLoggedBefore(t *testing.T) {
	lg := load(t,
		Event{Kind: Connect, Session: "psql", Time: t0},
		stmt("psql", 0, "create table counters (id int)"),
		stmt("psql", 10*time.Millisecond, "insert into counters values (1)"),
		Event{Kind: Connect, Session: "pgbench", Time: t0.Add(20 * time.Millisecond)},
		stmt("pgbench", 20*time.Millisecond, "update counters set id = 2"),
		Event{Kind: Disconnect, Session: "psql", Time: t0.Add(25 * time.Millisecond)},
		Event{Kind: Disconnect, Session: "pgbench", Time: t0.Add(30 * time.Millisecond)},
	)
	st := &fakeStore{dialect: Postgres, delay: func(sql string) time.Duration {
		if strings.HasPrefix(sql, "create") {
			return 50 * time.Millisecond
		}
		return 0
	}}
	if _, err := Run(context.Background(), Config{}, st, lg); err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, r := range st.ran {
		order = append(order, strings.Fields(r.sql)[0])
	}
	if !slices.Equal(order, []string{"create", "insert", "update"}) {
		t.Errorf("ran %q; want the update after psql's create and insert", order)
	}
}

// TestStoreChecks: a store without SQL, or of another dialect, fails in
// one line before anything runs.
func TestStoreChecks(t *testing.T) {
	lg := load(t, stmt("a", 0, "select 1"))
	_, err := Run(context.Background(), Config{}, &fakeStore{dialect: Postgres, noSQL: true}, lg)
	if err == nil || !strings.Contains(err.Error(), "runs no SQL") {
		t.Errorf("a store without SQL: %v", err)
	}
	_, err = Run(context.Background(), Config{}, &fakeStore{dialect: MySQL}, lg)
	if err == nil || !strings.Contains(err.Error(), "does not translate") || strings.Contains(err.Error(), "\n") {
		t.Errorf("another dialect: %v", err)
	}
}

// TestWarmup: statements in the warm-up run but are not counted.
func TestWarmup(t *testing.T) {
	lg := load(t, stmt("a", 0, "select 1"), stmt("a", 700*time.Millisecond, "select 2"))
	st := &fakeStore{dialect: Postgres}
	ps, err := Run(context.Background(), Config{Speed: 1, Warmup: 500 * time.Millisecond}, st, lg)
	if err != nil {
		t.Fatal(err)
	}
	if ps[0].Ops != 1 || ps[0].WarmupOps != 1 || len(st.ran) != 2 {
		t.Errorf("%d measured, %d warm-up, %d run; want 1, 1, 2", ps[0].Ops, ps[0].WarmupOps, len(st.ran))
	}
	// The fingerprint's warm-up is counted, so its figures add up to the
	// log's count.
	if fp := phase(t, ps, "select ?"); fp.Ops != 1 || fp.WarmupOps != 1 || fp.Replay.InLog != 2 {
		t.Errorf("the fingerprint: %d measured, %d warm-up, %d in the log; want 1, 1, 2", fp.Ops, fp.WarmupOps, fp.Replay.InLog)
	}
}

// TestInterrupt: an interrupt stops the replay at once, in the middle of
// the log's pauses, and the phase says it was interrupted.
func TestInterrupt(t *testing.T) {
	lg := load(t, stmt("a", 0, "select 1"), stmt("a", 10*time.Second, "select 2"), stmt("b", 5*time.Second, "select 3"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The interrupt comes 200 ms after the first statement ran, while both
	// sessions wait for their next: a deadline counted from before Run
	// could pass before anything ran on a slow machine.
	st := &fakeStore{dialect: Postgres, delay: func(sql string) time.Duration {
		if sql == "select 1" {
			time.AfterFunc(200*time.Millisecond, cancel)
		}
		return 0
	}}
	start := time.Now()
	ps, err := Run(ctx, Config{Speed: 1}, st, lg)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 3*time.Second || !ps[0].Interrupted || ps[0].Ops != 1 {
		t.Errorf("took %v, interrupted %v, %d ops; want at once, true, 1", took, ps[0].Interrupted, ps[0].Ops)
	}
}

// TestSessionCouldNotConnect: a session whose connection fails has its
// statements counted as errors, and the note says so of one session in
// the singular.
func TestSessionCouldNotConnect(t *testing.T) {
	lg := load(t, stmt("a", 0, "select 1"), stmt("a", 0, "select 2"))
	st := &fakeStore{dialect: Postgres, failAfter: 1} // the check's session only
	ps, err := Run(context.Background(), Config{}, st, lg)
	if err != nil {
		t.Fatal(err)
	}
	if note := "1 session could not connect, and its statements count as errors: too many connections"; ps[0].Errors != 2 || !slices.Contains(ps[0].Replay.Notes, note) {
		t.Errorf("%d errors, notes %q; want 2 and %q", ps[0].Errors, ps[0].Replay.Notes, note)
	}
}

// TestOneOtherFingerprint: a log of one fingerprint more than get
// histograms of their own names the one left over in the singular.
func TestOneOtherFingerprint(t *testing.T) {
	var evs []Event
	for i := range MaxFingerprints + 1 {
		evs = append(evs, stmt("a", 0, fmt.Sprintf("select * from t%d", i)))
	}
	ps, err := Run(context.Background(), Config{}, &fakeStore{dialect: Postgres}, load(t, evs...))
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(ps, func(p result.Phase) bool { return p.Op == "other fingerprints" })
	if i < 0 || ps[i].Replay.Text != "the least frequent fingerprint" {
		t.Fatalf("no phase of other fingerprints, or not of the one least frequent: %d", i)
	}
}

// TestInterruptGivesNoVerdict: a replay stopped before the log's end
// ended when it was stopped, not when the log did, so it is never judged
// behind (nor, by the caller, on time), however late its statements were.
func TestInterruptGivesNoVerdict(t *testing.T) {
	var evs []Event
	for i := range 40 {
		evs = append(evs, stmt("a", time.Duration(i)*50*time.Millisecond, "select pg_sleep(0.15)"))
	}
	lg := load(t, evs...)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Interrupted as the 10th statement starts, by then 9 × 100 ms late.
	var started atomic.Int32
	st := &fakeStore{dialect: Postgres, delay: func(string) time.Duration {
		if started.Add(1) == 10 {
			cancel()
		}
		return 150 * time.Millisecond
	}}
	ps, err := Run(ctx, Config{Speed: 1}, st, lg)
	if err != nil {
		t.Fatal(err)
	}
	r := ps[0].Replay
	t.Logf("ran %d, scheduled %.3f s, took %.3f s, %d late, behind %v %q", ps[0].Ops, r.Scheduled, r.Wall, r.Late, r.Behind, r.Note)
	if !ps[0].Interrupted || ps[0].Ops >= 40 {
		t.Fatalf("interrupted %v after %d statements; want an interrupt before the log's end", ps[0].Interrupted, ps[0].Ops)
	}
	if r.Late <= 5 {
		t.Fatalf("only %d statements late; the test needs a replay that would be judged behind", r.Late)
	}
	if r.Behind || r.Note != "" {
		t.Errorf("an interrupted replay was judged: behind %v, %q", r.Behind, r.Note)
	}
}

// BenchmarkReplay measures the replayer's own cost per statement: one
// session, back to back, on a store that does nothing.
func BenchmarkReplay(b *testing.B) {
	evs := make([]Event, b.N)
	for i := range evs {
		evs[i] = stmt("a", 0, "update t set v = $1 where id = $2", "x", "1")
	}
	lg, err := Load(&events{evs: evs}, Postgres)
	if err != nil {
		b.Fatal(err)
	}
	st := &nopStore{}
	b.ReportAllocs()
	b.ResetTimer()
	if _, err := Run(context.Background(), Config{}, st, lg); err != nil {
		b.Fatal(err)
	}
}

// nopStore's sessions run nothing and keep nothing.
type nopStore struct{ fakeStore }

func (n *nopStore) Open(context.Context) (store.Session, error) { return &nopSession{}, nil }

type nopSession struct{ fakeSession }

func (nopSession) Dialect() string                                     { return Postgres }
func (nopSession) Exec(context.Context, string, ...any) (int64, error) { return 1, nil }
func (nopSession) Query(context.Context, string, []any, func(int64)) (int, int64, error) {
	return 0, 0, nil
}

// TestWholeSeconds: a log whose times are whole seconds (MariaDB's
// general log) cannot tell when in its second a statement came. Its
// statements are spread evenly over their second, in the log's order,
// and one counts as late only when it starts after the end of its second
// (before, 200 statements logged in one second were all due at its start
// and the replay was judged BEHIND). Finer times are kept as they are.
func TestWholeSeconds(t *testing.T) {
	var evs []Event
	for i := range 200 {
		evs = append(evs, stmt([]string{"a", "b"}[i%2], 0, fmt.Sprintf("insert into t values (%d)", i)))
	}
	evs = append(evs, stmt("a", time.Second, "select 1"))
	lg := load(t, evs...)
	if lg.Resolution != time.Second {
		t.Fatalf("resolution %v, want 1s", lg.Resolution)
	}
	for _, s := range lg.Sessions {
		for j, st := range s.Stmts[:100] {
			k := 2*j + map[string]int{"a": 0, "b": 1}[s.Key]
			if want := time.Second * time.Duration(k) / 200; st.At != want || st.Latest != time.Second {
				t.Fatalf("session %s statement %d: due %v, latest %v; want %v, 1s", s.Key, j, st.At, st.Latest, want)
			}
		}
	}
	if last := lg.Sessions[0].Stmts[100]; last.At != time.Second || lg.Span != time.Second {
		t.Errorf("the next second's statement is due at %v, the span %v; want 1s, 1s", last.At, lg.Span)
	}
	st := &fakeStore{dialect: Postgres, delay: func(string) time.Duration { return time.Millisecond }}
	ps, err := Run(context.Background(), Config{Speed: 1}, st, lg)
	if err != nil {
		t.Fatal(err)
	}
	r := ps[0].Replay
	t.Logf("took %.3f s of %.3f s, lag max %.0f µs, %d late: %s %v", r.Wall, r.Scheduled, r.Lag.Max, r.Late, r.Note, r.Notes)
	if r.Behind || r.Late != 0 || !strings.Contains(strings.Join(r.Notes, "\n"), "the log's times are whole seconds") {
		t.Errorf("200 statements of one whole second: behind %v (%s), %d late, notes %q", r.Behind, r.Note, r.Late, r.Notes)
	}

	// Milliseconds: kept as logged, and nothing said of seconds.
	fine := load(t, stmt("a", 0, "select 1"), stmt("a", 0, "select 2"), stmt("a", 1500*time.Millisecond, "select 3"))
	if fine.Resolution != 0 || fine.Sessions[0].Stmts[1].At != 0 || fine.Sessions[0].Stmts[1].Latest != 0 {
		t.Errorf("a log in milliseconds: resolution %v, second statement due %v", fine.Resolution, fine.Sessions[0].Stmts[1].At)
	}
}

// TestDelayInSchedule: --delay is a pause on top of the log's own, so it
// moves the schedule rather than making the store late. A session of
// statements 100 ms apart with --delay 150ms, and a session that began
// after it ended, keep the pace on a fast store (before: "BEHIND: the
// store could not keep the log's pace … (--delay adds to the log's own
// pauses)"); the schedule's length counts the pauses.
func TestDelayInSchedule(t *testing.T) {
	var evs []Event
	for i := range 8 {
		evs = append(evs, stmt("a", time.Duration(i)*100*time.Millisecond, fmt.Sprintf("select %d", i)))
	}
	evs = append(evs, Event{Kind: Disconnect, Session: "a", Time: t0.Add(700 * time.Millisecond)})
	for i := range 3 {
		evs = append(evs, stmt("b", 800*time.Millisecond+time.Duration(i)*100*time.Millisecond, fmt.Sprintf("select %d", i)))
	}
	lg := load(t, evs...)
	st := &fakeStore{dialect: Postgres, delay: func(string) time.Duration { return time.Millisecond }}
	ps, err := Run(context.Background(), Config{Speed: 1, DelayMin: 150 * time.Millisecond, DelayMax: 150 * time.Millisecond}, st, lg)
	if err != nil {
		t.Fatal(err)
	}
	r := ps[0].Replay
	t.Logf("took %.3f s of %.3f s, lag max %.0f µs, %d late: %s %v", r.Wall, r.Scheduled, r.Lag.Max, r.Late, r.Note, r.Notes)
	// a: 0.7 s and 7 pauses; b, which waited for a: 7 pauses, then 1.0 s
	// and 2 pauses of its own.
	if want := 1.0 + 9*0.15; r.Scheduled != want {
		t.Errorf("scheduled %.3f s, want %.3f", r.Scheduled, want)
	}
	if r.Behind || r.Late != 0 || !strings.Contains(strings.Join(r.Notes, "\n"), "the schedule includes the --delay pauses") {
		t.Errorf("a fast store with --delay: behind %v (%s), %d late, notes %q", r.Behind, r.Note, r.Late, r.Notes)
	}
}
