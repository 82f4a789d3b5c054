package engine

import (
	"context"
	"os"
	"sync"
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
