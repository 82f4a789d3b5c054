package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"kurabe/store"
	"kurabe/store/postgres"
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

// Four replays a side of a log with a statement on a missing table, on a
// real PostgreSQL: the replay's time, said above the tables, had its
// change but no p (the rows have theirs), and the fingerprint that failed
// in every replay of both sides was left out without a word. The time
// line carries its test, and the fingerprint is listed as failed in both.
func TestCompareReplaysTimeTestedAndFailedFingerprintSaid(t *testing.T) {
	dir, err := os.MkdirTemp("", "kurabe-rp-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	sp, _ := store.ParseSpec("postgres:managed")
	srv, err := postgres.Open(ctx, sp, store.Env{Dir: dir})
	storetest.RequireServer(t, err)
	defer srv.Close()
	if err := srv.Setup(ctx, nil); err != nil {
		storetest.RequireServer(t, err)
	}
	addr := strings.TrimPrefix(srv.Info(ctx).Target, "managed ")

	var b strings.Builder
	for i, s := range []string{"select 1", "select * from missing_table", "select 2 + 2", "select 3", "select * from missing_table"} {
		fmt.Fprintf(&b, "2026-11-22 07:22:14.%03d UTC [7] 6b029826.7 kurabe@postgres LOG:  statement: %s\n", 10*i, s)
	}
	log := filepath.Join(dir, "app.log")
	if err := os.WriteFile(log, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, side := range []string{"old", "new"} {
		for i := range 4 {
			js := filepath.Join(dir, fmt.Sprintf("rp-%s-%d.json", side, i))
			_, errs, code, err := call(t, replayCmd, "--pg-log", log, "--store", "postgres://kurabe@"+addr+"/postgres", "--yes", "--speed", "max", "-q", "--json", js)
			if _, statErr := os.Stat(js); statErr != nil {
				t.Fatalf("replay %s: status %d: %v\n%s", js, code, err, errs)
			}
		}
	}
	out, errs, code := runCLI(t, testApp(), "compare", filepath.Join(dir, "rp-old-*.json"), filepath.Join(dir, "rp-new-*.json"))
	if code != ExitOK {
		t.Fatalf("compare: status %d\n%s%s", code, out, errs)
	}
	t.Logf("compare printed:\n%s", out)
	if !regexp.MustCompile(`(?m)^postgres: the replay took [0-9.]+ s → [0-9.]+ s: \S+, p=[01]\.\d{3} n=4\+4$`).MatchString(out) {
		t.Errorf("the replay's time is not tested as the rows are (p=… n=4+4)")
	}
	if !regexp.MustCompile(`(?m)^failed in both runs, no operation succeeded, so nothing to compare: postgres [0-9a-f]{8} select \* from missing_table$`).MatchString(out) {
		t.Errorf("the fingerprint that failed in both runs is not said")
	}
}
