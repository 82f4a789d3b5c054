// Package recordstest opens real stores for the tests of the workloads
// that load data sets (point, crud, load): SQLite and the file store in a
// test's own directory, and PostgreSQL and MariaDB as throwaway managed
// servers, one per driver per test binary, started on first use and
// stopped by Close (call it from TestMain). A server that is not installed
// skips the test, or fails it when KURABE_REQUIRE_SERVERS is set
// (storetest.RequireServer).
package recordstest

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"

	"kurabe/store"
	"kurabe/store/storetest"
	"kurabe/stores"
)

// Specs are the stores the workload tests run on, servers last. MariaDB
// keeps kurabe's tables in a database named in the spec, not the default
// kurabe: the workloads that write their own SQL must name the store's.
var Specs = []string{"sqlite:", "file:", "postgres:managed", "mariadb:managed?database=kurabe_wl"}

// IsServer says whether spec names a managed server.
func IsServer(spec string) bool {
	sp, err := store.ParseSpec(spec)
	return err == nil && sp.Target == "managed"
}

var servers struct {
	sync.Mutex
	open map[string]*server
}

type server struct {
	once sync.Once
	st   store.Store
	dir  string
	err  error
}

// Open opens spec for t. Files and SQLite databases live in t's temporary
// directory and are closed when t ends; a managed server is shared by the
// whole test binary (each workload's Setup empties its tables).
func Open(t testing.TB, spec string) store.Store {
	t.Helper()
	sp, err := store.ParseSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	var open store.Opener
	for _, e := range stores.Builtin {
		if e.Driver == sp.Driver {
			open = e.Open
		}
	}
	if open == nil {
		t.Fatalf("no driver %q", sp.Driver)
	}
	ctx := context.Background()
	if sp.Target != "managed" {
		st, err := open(ctx, sp, store.Env{Dir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	servers.Lock()
	if servers.open == nil {
		servers.open = map[string]*server{}
	}
	s := servers.open[spec]
	if s == nil {
		s = &server{}
		servers.open[spec] = s
	}
	servers.Unlock()
	s.once.Do(func() {
		// The server runs as an unprivileged user when the tests run as
		// root; it must be able to enter its directory.
		if s.dir, s.err = os.MkdirTemp("", "kurabe-wl-"); s.err != nil {
			return
		}
		if s.err = os.Chmod(s.dir, 0o755); s.err != nil {
			return
		}
		s.st, s.err = open(ctx, sp, store.Env{Dir: s.dir})
	})
	storetest.RequireServer(t, s.err)
	return s.st
}

// Close stops the shared servers and removes their directories.
func Close() error {
	servers.Lock()
	defer servers.Unlock()
	var first error
	for _, s := range servers.open {
		if s.st != nil {
			if err := s.st.Close(); err != nil && first == nil {
				first = err
			}
		}
		if s.dir != "" {
			os.RemoveAll(s.dir)
		}
	}
	servers.open = nil
	return first
}

// Main runs a package's tests, then stops the servers this package
// started for them; use it as the package's TestMain.
func Main(m *testing.M) {
	code := m.Run()
	if err := Close(); err != nil {
		fmt.Fprintln(os.Stderr, "stopping the test servers:", err)
		code = 1
	}
	os.Exit(code)
}
