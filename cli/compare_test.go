package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kurabe/store/storetest"
)

// TestCompareReplays: two replays of one log on PostgreSQL, one client per
// session and --clients 1, compare fingerprint by fingerprint (before,
// "no store, operation and client level in common"), by latency and the
// replay's time once, not by each fingerprint's ops/s (which is its count
// over the replay's time, the same change on every row); the settings
// line names the replay's own settings, not -n and -c, and the advice on
// repeats is one a replay can follow. A side in which every statement
// failed is said to have measured nothing, and a long list of
// fingerprints is cut short.
func TestCompareReplays(t *testing.T) {
	dir := t.TempDir()
	line := "2026-11-22 07:22:14.%03d UTC [%d] 6b029826.%d kurabe@postgres LOG:  statement: %s\n"
	writeLog := func(name string, stmts []string) string {
		var b strings.Builder
		for i, s := range stmts {
			pid := 7 + i%2 // two sessions
			fmt.Fprintf(&b, line, 10*i, pid, pid, s)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := writeLog("good.log", []string{"select 1", "select 2 + 2", "select 3 * 3", "select abs(-4)",
		"select lower('x')", "select length('y')", "select 5 - 1", "select 6", "select 7 + 7"})
	bad := writeLog("bad.log", []string{"select * from kurabe_no_such_table", "insert into kurabe_no_such_table values (1)"})
	replayTo := func(log, json string, extra ...string) {
		args := append([]string{"--pg-log", log, "--store", "postgres:managed", "--speed", "max", "--json", json, "-q"}, extra...)
		_, errs, code, err := call(t, replayCmd, args...)
		if err != nil && !strings.Contains(err.Error(), "every statement failed") {
			storetest.RequireServer(t, err)
			t.Fatalf("replay %v: status %d: %v\n%s", args, code, err, errs)
		}
	}
	sessions, one, failed := filepath.Join(dir, "sessions.json"), filepath.Join(dir, "one.json"), filepath.Join(dir, "failed.json")
	replayTo(good, sessions)
	replayTo(good, one, "--clients", "1")
	replayTo(bad, failed)

	out, errs, code := runCLI(t, testApp(), "compare", sessions, one)
	if code != ExitOK {
		t.Fatalf("compare of two replays of one log in two modes: status %d\n%s%s", code, out, errs)
	}
	t.Logf("compare printed:\n%s", out)
	for _, want := range []string{
		"postgres: the replay took",       // the replay's time, once
		"clients one per session (2) → 1", // the modes differ, said in the settings line
		"'old-*.json' 'new-*.json'",       // advice a replay can follow
		"fingerprint",                     // rows are fingerprints
		"select ? + ?",                    // one of them
		"old mean", "old p50", "old p99",  // latency per fingerprint
	} {
		if !strings.Contains(out, want) {
			t.Errorf("compare of two replays does not say %q", want)
		}
	}
	for _, not := range []string{"old ops/s", "--repeat", "-n ", "-c ", "workload replay →"} {
		if strings.Contains(out, not) {
			t.Errorf("compare of two replays says %q, which does not apply to a replay", not)
		}
	}

	_, errs, code = runCLI(t, testApp(), "compare", failed, failed)
	if code != ExitUsage || !strings.Contains(errs, "old: nothing measured") || !strings.Contains(errs, "new: nothing measured") || !strings.Contains(errs, "fingerprint") {
		t.Errorf("compare of two replays in which every statement failed: status %d, %s; want 2 and that neither measured anything", code, errs)
	}
	_, errs, code = runCLI(t, testApp(), "compare", failed, sessions)
	if code != ExitUsage || !strings.Contains(errs, "old: nothing measured") || !strings.Contains(errs, " more)") {
		t.Errorf("compare of a failed replay with one of 8 fingerprints: status %d, %s; want 2, nothing on the old side, the new side's list cut short", code, errs)
	}
}
