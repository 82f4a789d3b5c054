package engine

import (
	"context"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"kurabe/store"
	"kurabe/store/mysql"
	"kurabe/store/postgres"
	"kurabe/store/storetest"
)

// managedServer starts a throwaway server of driver (postgres or mariadb)
// with w's tables, stopped when the test ends.
func managedServer(t *testing.T, driver string) store.Store {
	t.Helper()
	dir, err := os.MkdirTemp("", "kurabe-engine-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil { // the server runs as another user
		t.Fatal(err)
	}
	sp, err := store.ParseSpec(driver + ":managed")
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
func TestLostSessionsAreReopened(t *testing.T) {
	for _, driver := range []string{"postgres", "mariadb"} {
		t.Run(driver, func(t *testing.T) {
			st := managedServer(t, driver)
			w := bbsWorkload(t, "write")
			setup(t, st, w)
			for _, io := range []ClientIO{IOThreads, IOLoop, IOPoller} {
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
					if res.Ops == 0 || len(res.Verify) != 1 || res.Verify[0].Lost != 0 || res.Verify[0].Error != "" {
						t.Errorf("ops %d, verify %+v", res.Ops, res.Verify)
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
