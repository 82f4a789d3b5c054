package engine

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"kurabe/store"
	"kurabe/store/mysql"
	"kurabe/store/postgres"
	"kurabe/store/storetest"
	"kurabe/workload"
)

// managedServer starts a throwaway server of driver (postgres or mariadb),
// stopped when the test ends.
func managedServer(t *testing.T, driver string) store.Store {
	t.Helper()
	return managedSpec(t, driver+":managed")
}

// managedSpec starts the throwaway server of a managed spec
// ("postgres:managed?driver=pgx"), stopped when the test ends.
func managedSpec(t *testing.T, spec string) store.Store {
	t.Helper()
	driver, _, _ := strings.Cut(spec, ":")
	dir, err := os.MkdirTemp("", "kurabe-engine-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil { // the server runs as another user
		t.Fatal(err)
	}
	sp, err := store.ParseSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	open := map[string]store.Opener{"postgres": postgres.Open, "mariadb": mysql.Open}[driver]
	st, err := open(context.Background(), sp, store.Env{Dir: dir})
	storetest.RequireServer(t, err)
	t.Cleanup(func() { st.Close() })
	return st
}

// otherSessions lists the server's ids of the store's other sessions
// (the clients', and kurabe's counting connection), as seen from s.
func otherSessions(t *testing.T, driver string, s store.SQLSession) []int64 {
	q := "SELECT pid FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()"
	if driver == "mariadb" {
		q = "SELECT id FROM information_schema.processlist WHERE user = substring_index(current_user(), '@', 1) AND id <> connection_id()"
	}
	var ids []int64
	if _, _, err := s.Query(context.Background(), q, nil, func(id int64) { ids = append(ids, id) }); err != nil {
		t.Errorf("listing the sessions: %v", err)
	}
	return ids
}

// TestLostSessionsAreReopened: the server ends the clients' connections
// mid-phase (pg_terminate_backend, KILL). Each client counts the one
// operation that found its session lost, reopens it and goes on, rather
// than fail every operation at once on the dead connection; every
// acknowledged write is stored.
//
// Each operation that found its session lost is a write whose answer was
// lost (class connection-lost, on kurabe's wire drivers and on pgx and
// go-sql-driver alike), or one that found no connection to send on
// (connect): the first may have been stored, and rows of them the table
// holds are not EXTRA.
func TestLostSessionsAreReopened(t *testing.T) {
	for _, spec := range []string{"postgres:managed", "postgres:managed?driver=pgx", "mariadb:managed", "mariadb:managed?driver=sql"} {
		driver, _, _ := strings.Cut(spec, ":")
		t.Run(spec, func(t *testing.T) {
			st := managedSpec(t, spec)
			w := bbsWorkload(t, "write")
			setup(t, st, w)
			ios := []ClientIO{IOThreads, IOLoop, IOPoller}
			if strings.Contains(spec, "driver=") {
				ios = []ClientIO{IOPoller} // off the wire drivers, clients are in Go's poller
			}
			for _, io := range ios {
				t.Run(string(io), func(t *testing.T) {
					killer, err := st.Open(context.Background())
					if err != nil {
						t.Fatal(err)
					}
					defer killer.Close()
					ks := killer.(store.SQLSession)
					var once sync.Once
					killed := 0
					tick := func(p Progress) {
						if p.Ops == 0 {
							return
						}
						once.Do(func() {
							for _, id := range otherSessions(t, driver, ks) {
								q := "SELECT pg_terminate_backend($1)"
								args := []any{id}
								if driver == "mariadb" {
									q, args = "KILL ?", []any{id}
								}
								if _, err := ks.Exec(context.Background(), q, args...); err != nil {
									t.Errorf("ending session %d: %v", id, err)
								}
								killed++
							}
						})
					}
					res, err := RunPhase(context.Background(), Config{Clients: 4, Duration: 3 * time.Second, Seed: 1, Tick: tick, IO: io}, st, w, 0)
					if err != nil {
						t.Fatal(err)
					}
					if killed == 0 {
						t.Fatal("no session was ended")
					}
					// The counting connection was ended too: the
					// clients lost at most killed-1 sessions.
					if res.SessionsLost == 0 || res.SessionsLost > int64(killed) || res.SessionsReopened != res.SessionsLost {
						t.Errorf("sessions lost %d, reopened %d, with %d ended; want every client's reopened", res.SessionsLost, res.SessionsReopened, killed)
					}
					// The operation that found the session lost fails
					// (MariaDB may first say the connection was killed).
					if res.Errors == 0 || res.Errors > 2*res.SessionsLost {
						t.Errorf("%d errors for %d sessions lost (%+v): want each lost session's failed operation counted once, not every one tried on the dead connection", res.Errors, res.SessionsLost, res.ErrorClasses)
					}
					if res.Ops == 0 || len(res.Verify) != 1 || res.Verify[0].Lost != 0 || res.Verify[0].Extra != 0 || res.Verify[0].Error != "" {
						t.Fatalf("ops %d, verify %+v", res.Ops, res.Verify)
					}
					var connLost int64
					for _, c := range res.ErrorClasses {
						switch c.Class {
						case store.ClassConnLost:
							connLost = c.Count
						case "connect":
						default:
							t.Errorf("error class %s (%d, first %s): want connection-lost for a write whose session the server ended, or connect for one that found no connection to send on", c.Class, c.Count, c.First)
						}
					}
					v := res.Verify[0]
					t.Logf("errors %+v; verify %+v", res.ErrorClasses, v)
					if connLost == 0 || v.Unknown != connLost || v.UnknownWrites() != connLost || v.UnknownStored > v.Unknown {
						t.Errorf("%d writes of class connection-lost, verify %+v: want each counted as a write whose answer was lost", connLost, v)
					}
				})
			}
		})
	}
}

// TestStoppedServerIsCutOff: the server's processes stop answering
// (SIGSTOP) mid-phase. At the end of a timed phase, or at an interrupt of
// one of a count, the operations in flight get the grace period, are then
// cut off and counted as failed (class timeout), and the phase ends with
// its results instead of waiting for ever.
func TestStoppedServerIsCutOff(t *testing.T) {
	st := managedServer(t, "postgres")
	w := bbsWorkload(t, "write")
	setup(t, st, w)
	defer func(d time.Duration) { CountAfterCutOff = d }(CountAfterCutOff)
	CountAfterCutOff = time.Second
	for _, io := range []ClientIO{IOThreads, IOLoop, IOPoller} {
		for _, timed := range []bool{true, false} {
			name := string(io) + "/-n, interrupted"
			if timed {
				name = string(io) + "/-d"
			}
			t.Run(name, func(t *testing.T) {
				spy, err := st.Open(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				defer spy.Close()
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				var once sync.Once
				var stopped []int
				defer func() {
					for _, pid := range stopped {
						syscall.Kill(pid, syscall.SIGCONT)
					}
				}()
				tick := func(p Progress) {
					if len(stopped) > 0 && !timed {
						// Ctrl-C, a tick after the server stopped
						// answering, when every client waits on it.
						cancel()
					}
					if p.Ops == 0 {
						return
					}
					once.Do(func() {
						for _, pid := range otherSessions(t, "postgres", spy.(store.SQLSession)) {
							if syscall.Kill(int(pid), syscall.SIGSTOP) == nil {
								stopped = append(stopped, int(pid))
							}
						}
					})
				}
				cfg := Config{Clients: 2, Seed: 1, Tick: tick, IO: io, Grace: 500 * time.Millisecond}
				if timed {
					cfg.Duration = 2 * time.Second
				} else {
					cfg.Count = 100_000_000
				}
				res, err := RunPhase(ctx, cfg, st, w, 0)
				if err != nil {
					t.Fatal(err)
				}
				if len(stopped) == 0 {
					t.Fatal("no server process was stopped")
				}
				if res.CutOff != 2 || res.GraceSeconds != 0.5 {
					t.Errorf("cut off %d after %vs, want both clients' operations after 0.5s", res.CutOff, res.GraceSeconds)
				}
				var timeouts int64
				for _, c := range res.ErrorClasses {
					if c.Class == ClassCutOff {
						timeouts = c.Count
					}
				}
				if timeouts != res.CutOff || res.SessionsLost != 0 {
					t.Errorf("error classes %+v, sessions lost %d: want the operations cut off as timeouts, and no reopen after the phase's end", res.ErrorClasses, res.SessionsLost)
				}
			})
		}
	}
}

// syncRepServer is a managed PostgreSQL server (spec) with w's tables
// where, once hold is called, every client's commit is written locally
// and then waits for a synchronous standby that never comes
// (synchronous_standby_names names one): the row is stored, its answer
// not sent. That is where a write's outcome is unknown for real: a session
// ended then (pg_terminate_backend) leaves the row stored, visible once
// its backend exits ("the transaction has already committed locally"),
// and its client without an answer. release lets commits through again.
// admin is a session of the test's own, which never waits (its
// synchronous_commit is local).
type syncRepServer struct {
	st    store.Store
	admin store.SQLSession
}

func newSyncRepServer(t *testing.T, spec string, w workload.Workload) *syncRepServer {
	st := managedSpec(t, spec)
	setup(t, st, w)
	s, err := st.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	admin := s.(store.SQLSession)
	if _, err := admin.Exec(context.Background(), "SET synchronous_commit = local"); err != nil {
		t.Fatal(err)
	}
	return &syncRepServer{st: st, admin: admin}
}

func (s *syncRepServer) exec(t *testing.T, q string) {
	t.Helper()
	if _, err := s.admin.Exec(context.Background(), q); err != nil {
		t.Errorf("%s: %v", q, err)
	}
}

func (s *syncRepServer) ints(t *testing.T, q string) []int64 {
	t.Helper()
	var out []int64
	if _, _, err := s.admin.Query(context.Background(), q, nil, func(v int64) { out = append(out, v) }); err != nil {
		t.Errorf("%s: %v", q, err)
	}
	return out
}

// until polls q, a query of one number, until it reaches at least n, for
// at most a minute.
func (s *syncRepServer) until(t *testing.T, q string, n int64) bool {
	t.Helper()
	for range 600 {
		if v := s.ints(t, q); len(v) == 1 && v[0] >= n {
			return true
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("%s did not reach %d within a minute", q, n)
	return false
}

func (s *syncRepServer) hold(t *testing.T) {
	s.exec(t, "ALTER SYSTEM SET synchronous_standby_names = 'kurabe_nobody'")
	s.exec(t, "SELECT pg_reload_conf()")
}

func (s *syncRepServer) release(t *testing.T) {
	s.exec(t, "ALTER SYSTEM RESET synchronous_standby_names")
	s.exec(t, "SELECT pg_reload_conf()")
}

const (
	countPosts = "SELECT count(*) FROM kurabe.posts"
	waiting    = "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'SyncRep'"
)

// TestUnknownWritesAreNotExtra: the server ends the clients' sessions
// while each one's write is committed but unanswered. Those writes fail
// with class connection-lost, their rows are stored: the rows the table
// gained beyond the acknowledged ones are theirs, not EXTRA, and the
// phase verifies. Rows beyond them (a row written by another session) are
// still EXTRA; acknowledged rows missing (deleted by another session) are
// still LOST, whatever the unknown writes.
func TestUnknownWritesAreNotExtra(t *testing.T) {
	const clients = 2
	for _, spec := range []string{"postgres:managed", "postgres:managed?driver=pgx"} {
		t.Run(spec, func(t *testing.T) {
			w := bbsWorkload(t, "write")
			srv := newSyncRepServer(t, spec, w)
			for _, tc := range []struct {
				name        string
				after       string // what another session does once the clients went on
				extra, lost int64  // rows it adds beyond the writes, or takes
			}{
				{name: "stored"},
				{name: "extra", after: "INSERT INTO kurabe.posts (category, text, created) SELECT 'other', 'not kurabe''s', 0 FROM generate_series(1, 50)", extra: 50},
				{name: "lost", after: "DELETE FROM kurabe.posts WHERE id IN (SELECT id FROM kurabe.posts ORDER BY id LIMIT 60)", lost: 60},
			} {
				t.Run(tc.name, func(t *testing.T) {
					before := srv.ints(t, countPosts)
					if len(before) != 1 {
						t.Fatal("cannot count the posts")
					}
					ctx, cancel := context.WithCancel(context.Background())
					defer cancel()
					var killed int64
					done := make(chan struct{})
					go func() {
						defer close(done)
						defer cancel() // Ctrl-C: the phase ends, and is verified
						// Writes were acknowledged; then every commit waits,
						// stored and unanswered, and the sessions are ended.
						if !srv.until(t, countPosts, before[0]+200) {
							return
						}
						srv.hold(t)
						defer srv.release(t)
						if !srv.until(t, waiting, clients) {
							return
						}
						for _, ok := range srv.ints(t, "SELECT pg_terminate_backend(pid)::int FROM pg_stat_activity WHERE wait_event = 'SyncRep'") {
							killed += ok
						}
						// The clients reopen their sessions and go on.
						srv.release(t)
						n := srv.ints(t, countPosts)
						if len(n) != 1 || !srv.until(t, countPosts, n[0]+200) {
							return
						}
						if tc.after != "" {
							srv.exec(t, tc.after)
						}
					}()
					res, err := RunPhase(ctx, Config{Clients: clients, Count: 1 << 40, Seed: 1}, srv.st, w, 0)
					<-done
					if err != nil {
						t.Fatal(err)
					}
					if killed == 0 || t.Failed() {
						t.Fatalf("no session was ended while its write waited (%d)", killed)
					}
					if len(res.Verify) != 1 || res.Verify[0].Error != "" {
						t.Fatalf("verify %+v", res.Verify)
					}
					v := res.Verify[0]
					var connLost int64
					for _, c := range res.ErrorClasses {
						if c.Class == store.ClassConnLost {
							connLost = c.Count
						}
					}
					if connLost < killed || v.Unknown != connLost || fmt.Sprint(v.UnknownClasses) != fmt.Sprintf("[{%s %d}]", store.ClassConnLost, connLost) {
						t.Errorf("%d sessions ended mid-commit; errors %+v; verify %+v: want each ended write of class connection-lost and counted as unknown", killed, res.ErrorClasses, v)
					}
					t.Logf("%d ended mid-commit; errors %+v; verify %+v", killed, res.ErrorClasses, v)
					gained := v.After - v.Before
					switch {
					case tc.lost > 0:
						// The deleted rows outnumber the stored unknown ones:
						// LOST, not excused by them.
						if v.Lost != tc.lost-killed || v.Extra != 0 || v.UnknownStored != 0 {
							t.Errorf("verify %+v (gained %d, %d ended writes stored, %d deleted): want LOST %d", v, gained, killed, tc.lost, tc.lost-killed)
						}
					default:
						// The ended writes' rows that are stored (each was
						// committed locally before its wait, but under load
						// the server may end a session before its commit is
						// visible: at least one, at most all of them) are
						// explained by them, and only rows beyond them, the
						// other session's, are EXTRA.
						beyond := gained - v.Acked
						if v.Lost != 0 || beyond < 1+tc.extra || beyond > killed+tc.extra ||
							v.UnknownStored != min(beyond, v.Unknown) || v.Extra != beyond-v.UnknownStored {
							t.Errorf("verify %+v (gained %d, %d acknowledged, %d writes ended, %d rows of another session): want the ended writes' stored rows explained, the rest EXTRA", v, gained, v.Acked, killed, tc.extra)
						}
						if tc.extra > 0 && v.Extra == 0 {
							t.Errorf("verify %+v: want the other session's rows EXTRA", v)
						}
					}
				})
			}
		})
	}
}
