package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kurabe/store"
	"kurabe/store/postgres"
	"kurabe/store/sqlite"
	"kurabe/store/storetest"
)

// lockAs takes the lock of the store spec names, as another kurabe
// would, until the test ends or the returned func is called.
func lockAs(t *testing.T, open store.Opener, spec, command string) func() {
	t.Helper()
	sp, err := store.ParseSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	st, err := open(context.Background(), sp, store.Env{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	l, err := st.(store.Locker).Lock(context.Background(), store.Holder{Command: command, PID: 4242, Host: "h"})
	if err != nil {
		t.Fatal(err)
	}
	done := false
	release := func() {
		if !done {
			l.Close()
			done = true
		}
	}
	t.Cleanup(release)
	return release
}

// runBounded runs a command as runCLI does, stopped as by a Ctrl-C should
// it still run after a minute: a kurabe serve that was not refused serves
// until stopped, and the test then fails on its exit status instead of
// hanging.
func runBounded(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out, errb bytes.Buffer
	code = ExitOK
	if err := testApp().Run(ctx, args, &out, &errb); err != nil {
		code = ExitFailed
		var ee *ExitError
		if errors.As(err, &ee) {
			code = ee.Code
		}
		errb.WriteString("kurabe: " + err.Error() + "\n")
	}
	return out.String(), errb.String(), code
}

// The tester's case on an SQLite file: while another kurabe uses kurabe's
// tables in it, every command that would use them is refused before it
// touches them (exit 2), saying who holds them; once it ends, they run.
func TestCommandsRefusedWhileAnotherKurabeHoldsTheStore(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "conc.db")
	spec := "sqlite:" + db + "?journal_mode=wal"
	release := lockAs(t, sqlite.Open, spec, "kurabe run")
	want := "another kurabe run is using kurabe's tables in " + db + " (pid 4242 on host h)"
	commands := [][]string{
		{"run", "--store", spec, "--ops", "write", "-n", "50", "-c", "2", "-q"},
		{"dataset", "import", sampleKenAll, "--store", spec},
		{"serve", "--store", spec, "--listen", "127.0.0.1:0"},
	}
	for _, args := range commands {
		_, errs, code := runBounded(t, args...)
		if code != ExitUsage || !strings.Contains(errs, want) {
			t.Errorf("%v while another holds the store: exit %d, %q; want 2 and %q", args[0], code, errs, want)
		}
	}
	if _, err := os.Stat(db); err == nil {
		t.Errorf("a refused command made %s", db)
	}
	release()
	for _, args := range commands[:2] {
		if _, errs, code := runCLI(t, testApp(), args...); code != ExitOK {
			t.Errorf("%v after the other let go: exit %d, %s", args[0], code, errs)
		}
	}
}

// The same on a PostgreSQL database of a server kurabe did not start
// (here a managed one, reached by its address), for run and clean.
func TestPostgresRefusedWhileAnotherKurabeHoldsTheStore(t *testing.T) {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "kurabe-lock-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	sp, _ := store.ParseSpec("postgres:managed")
	server, err := postgres.Open(ctx, sp, store.Env{Dir: dir})
	storetest.RequireServer(t, err)
	defer server.Close()
	if err := server.Setup(ctx, nil); err != nil {
		storetest.RequireServer(t, err)
	}
	addr := strings.TrimPrefix(server.Info(ctx).Target, "managed ")
	dsn := "postgres://kurabe@" + addr + "/postgres"
	release := lockAs(t, postgres.Open, dsn, "kurabe run")
	want := fmt.Sprintf("another kurabe run is using kurabe's tables in postgres on %s (pid 4242 on host h", addr)
	commands := [][]string{
		{"run", "--store", dsn, "--ops", "write", "-n", "50", "-c", "2", "-q"},
		{"clean", "--store", dsn},
	}
	for _, args := range commands {
		_, errs, code := runCLI(t, testApp(), args...)
		if code != ExitUsage || !strings.Contains(errs, want) {
			t.Errorf("%v while another holds the store: exit %d, %q; want 2 and %q", args[0], code, errs, want)
		}
	}
	release()
	for _, args := range commands {
		if _, errs, code := runCLI(t, testApp(), args...); code != ExitOK {
			t.Errorf("%v after the other let go: exit %d, %s", args[0], code, errs)
		}
	}
}
