package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"kurabe/replay"
	"kurabe/result"
	"kurabe/store"
	"kurabe/store/server"
	"kurabe/store/storetest"
)

type subcommand func(a *App, ctx context.Context, args []string, stdout, stderr *bytes.Buffer) error

func replayCmd(a *App, ctx context.Context, args []string, stdout, stderr *bytes.Buffer) error {
	return a.replay(ctx, args, stdout, stderr)
}

func captureCmd(a *App, ctx context.Context, args []string, stdout, stderr *bytes.Buffer) error {
	return a.capture(ctx, args, stdout, stderr)
}

// call runs a subcommand as Main would and returns what it wrote, its
// error's message and the exit status.
func call(t *testing.T, cmd subcommand, args ...string) (stdout, stderr string, code int, err error) {
	t.Helper()
	var out, errb bytes.Buffer
	err = cmd(testApp(), context.Background(), args, &out, &errb)
	if err != nil {
		code = ExitFailed
		var ee *ExitError
		if errors.As(err, &ee) {
			code = ee.Code
		}
	}
	return out.String(), errb.String(), code, err
}

const tinyPGLog = "2026-11-22 07:22:14.583 UTC [10828] 6b029826.2a4c kurabe@postgres LOG:  statement: select 1\n"

func TestReplayBadInput(t *testing.T) {
	dir := t.TempDir()
	pg := filepath.Join(dir, "pg.log")
	empty := filepath.Join(dir, "empty.log")
	os.WriteFile(pg, []byte(tinyPGLog), 0o644)
	os.WriteFile(empty, []byte("nothing here\n"), 0o644)
	garbage := filepath.Join(dir, "garbage.log")
	os.WriteFile(garbage, []byte(strings.Repeat("nothing here\n", 1200)), 0o644)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--store", "postgres:managed"}, "give the log"},
		{[]string{"--pg-log", pg, "--mysql-general-log", pg, "--store", "postgres:managed"}, "not both"},
		{[]string{"--pg-log", pg}, "--store postgres:managed"},
		{[]string{"--pg-log", pg, "--store", "postgres:managed", "--speed", "fast"}, "--speed"},
		{[]string{"--pg-log", pg, "--store", "postgres:managed", "--speed", "0"}, "--speed"},
		{[]string{"--pg-log", pg, "--store", "postgres:managed", "--delay", "5ms-1ms"}, "--delay"},
		{[]string{"--pg-log", pg, "--store", "postgres:managed", "--clients", "-1"}, "--clients"},
		{[]string{"--pg-log", pg, "--store", "postgres:managed", "--clients", "0"}, "--clients 0: want 1 or more"},
		{[]string{"--pg-log", pg, "--store", "postgres:managed", "--pg-prefix", "%m "}, "%c"},
		{[]string{"--pg-log", pg, "--store", "nosuch:"}, "unknown driver"},
		// A server kurabe does not run needs --yes: the log writes to it.
		{[]string{"--pg-log", pg, "--store", "postgres://app@db.example/app"}, "--yes"},
		{[]string{"--pg-log", filepath.Join(dir, "missing.log"), "--store", "postgres:managed"}, "cannot read the log"},
		{[]string{"--pg-log", empty, "--store", "postgres:managed"}, "no statements to replay"},
		// A directory is bad input, as a missing file is (before: status 1).
		{[]string{"--pg-log", dir, "--store", "postgres:managed"}, "is a directory; give the log file"},
		// Counts are grouped (before: "1,200 lines read, 1200 could not be read").
		{[]string{"--pg-log", garbage, "--store", "postgres:managed"}, "1,200 lines read, 1,200 could not be read"},
		// A warm-up past the log's last statement would measure nothing.
		{[]string{"--pg-log", pg, "--store", "postgres:managed", "--speed", "1", "--warmup", "1s"}, "--warmup 1s covers the whole log"},
	}
	for _, tc := range tests {
		_, _, code, err := call(t, replayCmd, tc.args...)
		if code != ExitUsage || err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: status %d, %v; want %d and one line with %q", tc.args, code, err, ExitUsage, tc.want)
		}
	}
}

// TestReplayNeedsSQL: a store without SQL, or of another dialect, is bad
// input, said in one line before any store starts (a managed MariaDB
// would take seconds to start, and its directory would be left).
//
// The message names the stores that can replay the log, and never
// sqlite, which no log kurabe reads can be replayed on.
func TestReplayNeedsSQL(t *testing.T) {
	pg := filepath.Join(t.TempDir(), "pg.log")
	os.WriteFile(pg, []byte(tinyPGLog), 0o644)
	my := filepath.Join(t.TempDir(), "my.log")
	os.WriteFile(my, []byte(tinyMyLog), 0o644)
	for _, tc := range []struct {
		log, store string
		want       []string
	}{
		{"--pg-log", "file:", []string{"runs no SQL", "replay a PostgreSQL log on a postgres store"}},
		{"--pg-log", "sqlite:", []string{"does not translate", "replay a PostgreSQL log on a postgres store"}},
		{"--pg-log", "mariadb:managed", []string{"does not translate", "on a postgres store"}},
		{"--mysql-general-log", "file:", []string{"runs no SQL", "replay a MySQL/MariaDB log on a mariadb or mysql store"}},
		{"--mysql-general-log", "sqlite:", []string{"does not translate", "on a mariadb or mysql store"}},
		{"--mysql-general-log", "postgres:managed", []string{"does not translate", "on a mariadb or mysql store"}},
	} {
		path := pg
		if tc.log == "--mysql-general-log" {
			path = my
		}
		dir := t.TempDir()
		_, _, code, err := call(t, replayCmd, tc.log, path, "--store", tc.store, "--dir", dir, "-q")
		if code != ExitUsage || err == nil || strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), "sqlite store") {
			t.Errorf("%s on %s: status %d, %v; want %d and one line that offers no sqlite store", tc.log, tc.store, code, err, ExitUsage)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s on %s: %v; want %q", tc.log, tc.store, err, w)
			}
		}
		if left, _ := os.ReadDir(dir); len(left) > 0 {
			t.Errorf("%s: the store was started before the refusal: %s holds %d entries", tc.store, dir, len(left))
		}
	}
}

const tinyMyLog = "/usr/sbin/mariadbd, Version: 10.11.19-MariaDB-0+deb12u1-log (Debian 12). started with:\nTcp port: 3306  Unix socket: /run/mysqld/mysqld.sock\nTime\t\t    Id Command\tArgument\n261122  7:22:14\t    5 Connect\tkurabe@localhost on kurabe using TCP/IP\n\t\t    5 Query\tselect 1\n\t\t    5 Quit\t\n"

func TestCaptureBadInput(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--store", "postgres:managed"}, "give the command"},
		{[]string{"--", "true"}, "--store"},
		{[]string{"--store", "sqlite:", "--", "true"}, "capture starts"},
		{[]string{"--store", "postgres://a@b/c", "--", "true"}, "managed"},
		{[]string{"--store", "postgres:managed", "--", "no-such-program-kurabe"}, "cannot run"},
	}
	for _, tc := range tests {
		_, _, code, err := call(t, captureCmd, tc.args...)
		if code != ExitUsage || err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: status %d, %v; want %d with %q", tc.args, code, err, ExitUsage, tc.want)
		}
	}
}

// TestCaptureRefusedOption: a store option capture refuses, or one the
// driver refuses before its server starts, is bad input (status 2), as it
// is to kurabe run, and the message names the store as it was typed,
// without the logging settings capture adds to it.
func TestCaptureRefusedOption(t *testing.T) {
	tests := []struct {
		spec string
		want string
	}{
		// capture's own logging settings, refused before the driver is asked
		{"postgres:managed?log_statement=none", "capture sets log_statement=all itself"},
		{"mariadb:managed?general_log=0", "capture sets general_log itself"},
		// refused by the driver when the store is opened (asking the
		// server program, which must be installed)
		{"postgres:managed?shared_bufers=1", `unknown option "shared_bufers"`},
		{"mariadb:managed?innodb_page_size=3k", "innodb_page_size"},
	}
	for _, tc := range tests {
		dir := t.TempDir()
		_, _, code, err := call(t, captureCmd, "--store", tc.spec, "--dir", dir, "--log", filepath.Join(dir, "out.log"), "--", "true")
		if errors.Is(err, server.ErrMissing) {
			storetest.RequireServer(t, err)
		}
		if code != ExitUsage || err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: status %d, %v; want %d with %q", tc.spec, code, err, ExitUsage, tc.want)
			continue
		}
		if !strings.Contains(err.Error(), tc.spec+":") || strings.Contains(err.Error(), "log_line_prefix") || strings.Contains(err.Error(), "general_log_file") {
			t.Errorf("%s: %v; want the store named as given, without capture's settings", tc.spec, err)
		}
	}
}

// needPrograms skips (or fails, with KURABE_REQUIRE_SERVERS) when a client
// program a test runs is not installed.
func needPrograms(t *testing.T, pkg string, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			storetest.RequireServer(t, errors.Join(server.ErrMissing, errors.New(n+" not found; install it with: apt-get install "+pkg)))
		}
	}
}

// logScenario is a script run under kurabe capture, what it leaves behind,
// and what a replay must count.
type logScenario struct {
	store   string // the managed store
	command string // run by sh -c, in the test's directory
	files   map[string]string
	// checks are queries whose first column is an integer: the capture's
	// command writes their values, one a line, to want.txt; the replayed
	// database must give the same.
	checks []string
	// counts are statements the log holds per fingerprint (by the start
	// of its text), which the replay must run as many times.
	counts map[string]int64
}

var pgScenario = logScenario{
	store: "postgres:managed",
	files: map[string]string{
		"app.sql": `CREATE TABLE items (
  id integer PRIMARY KEY,
  name text NOT NULL,
  qty integer
);
INSERT INTO items (id, name, qty) VALUES
  (1, 'apple', 3),
  (2, 'it''s a
multi-line name', NULL);
PREPARE add_item (integer, text, integer) AS
  INSERT INTO items (id, name, qty) VALUES ($1, $2, $3);
EXECUTE add_item(3, 'cherry', 7);
EXECUTE add_item(4, 'date', 1);
EXECUTE add_item(5, 'elder', NULL);
BEGIN;
UPDATE items SET qty = qty + 1 WHERE id = 1;
DELETE FROM items WHERE id = 4;
COMMIT;
SELECT count(*) FROM items WHERE qty > 2;
CREATE TABLE counters (id integer PRIMARY KEY, n integer NOT NULL);
INSERT INTO counters VALUES (1, 0), (2, 0);
`,
		// Extended protocol with parameters, named (-M prepared) and
		// unnamed (-M extended), from two sessions at once.
		"bench.sql": "\\set id random(1, 2)\nUPDATE counters SET n = n + 1 WHERE id = :id;\nSELECT n FROM counters WHERE id = :id;\n",
	},
	command: "psql -X -q -v ON_ERROR_STOP=1 -f app.sql && " +
		"pgbench -n -M prepared -f bench.sql -t 5 -c 2 >/dev/null && pgbench -n -M extended -f bench.sql -t 3 -c 1 >/dev/null && " +
		"psql -X -At -v ON_ERROR_STOP=1 -c \"$CHECK1\" -c \"$CHECK2\" -c \"$CHECK3\" > want.txt",
	checks: []string{
		"SELECT (SELECT count(*) FROM items) * 1000 + (SELECT count(*) FROM counters)",
		"SELECT ('x' || substr(md5(string_agg(id || ':' || name || ':' || coalesce(qty::text, '-'), ',' ORDER BY id)), 1, 15))::bit(60)::bigint FROM items",
		"SELECT sum(n * id) FROM counters",
	},
	counts: map[string]int64{
		"create table items":                          1,
		"insert into items(id, name, qty) values":     1,
		"prepare add_item":                            1,
		"execute add_item(?, ?, ?)":                   3,
		"begin":                                       1,
		"update items set qty = qty + ? where id = ?": 1,
		"delete from items":                           1,
		"commit":                                      1,
		"select count(*) from items where qty > ?":    1,
		"update counters set n = n + ? where id = ?":  13,
		"select n from counters where id = ?":         13,
	},
}

var mariadbScenario = logScenario{
	store: "mariadb:managed",
	files: map[string]string{
		"app.sql": `CREATE TABLE items (
  id INT PRIMARY KEY,
  name VARCHAR(100) NOT NULL,
  qty INT
);
INSERT INTO items (id, name, qty) VALUES
  (1, 'apple', 3),
  (2, 'it''s a
multi-line name', NULL);
PREPARE add_item FROM 'INSERT INTO items (id, name, qty) VALUES (?, ?, ?)';
SET @id = 3, @name = 'cherry', @qty = 7;
EXECUTE add_item USING @id, @name, @qty;
SET @id = 4, @name = 'date', @qty = 1;
EXECUTE add_item USING @id, @name, @qty;
SET @id = 5, @name = 'elder', @qty = NULL;
EXECUTE add_item USING @id, @name, @qty;
DEALLOCATE PREPARE add_item;
START TRANSACTION;
UPDATE items SET qty = qty + 1 WHERE id = 1;
DELETE FROM items WHERE id = 4;
COMMIT;
SELECT COUNT(*) FROM items WHERE qty > 2;
`,
		"second.sql": "UPDATE items SET qty = COALESCE(qty, 0) + 10 WHERE id = 2;\nSELECT name FROM items WHERE id = 2;\n",
	},
	command: "mariadb < app.sql && mariadb < second.sql > /dev/null && " +
		"mariadb -N -B -e \"$CHECK1; $CHECK2\" > want.txt",
	checks: []string{
		"SELECT COUNT(*) FROM items",
		"SELECT CAST(CONV(SUBSTR(MD5(GROUP_CONCAT(CONCAT(id, ':', name, ':', COALESCE(qty, '-')) ORDER BY id SEPARATOR ',')), 1, 15), 16, 10) AS SIGNED) FROM items",
	},
	counts: map[string]int64{
		"create table items":                          1,
		"insert into items(id, name, qty) values":     3 + 1, // the script's, and three EXECUTEs as the server ran them
		"set @id = ?, @name = ?, @qty = ?":            3,
		"start transaction":                           1,
		"update items set qty = qty + ? where id = ?": 1,
		"delete from items":                           1,
		"commit":                                      1,
		"select count(*) from items where qty > ?":    1,
		"update items set qty = coalesce(qty, ?) + ?": 1,
	},
}

// TestSessionsOpen: capture waits until kurabe's own sessions have logged
// their end before it marks where the command's log begins.
func TestSessionsOpen(t *testing.T) {
	const (
		auth = "2026-11-22 20:24:21.938 UTC [17380] 6b034f75.43e4 kurabe@postgres LOG:  connection authorized: user=kurabe database=postgres\n"
		stmt = "2026-11-22 20:24:21.939 UTC [17380] 6b034f75.43e4 kurabe@postgres LOG:  statement: select 1\n"
		end  = "2026-11-22 20:24:21.939 UTC [17380] 6b034f75.43e4 kurabe@postgres LOG:  disconnection: session time: 0:00:00.002 user=kurabe\n"

		head    = "/usr/sbin/mariadbd, Version: 10.11.14-MariaDB-0+deb12u2-log (Debian 12). started with:\nTcp port: 0  Unix socket: /tmp/x/mysql.sock\nTime\t\t    Id Command\tArgument\n"
		connect = "261122  7:22:35\t     4 Connect\tapp@127.0.0.1 on kurabe using TCP/IP\n"
		query   = "\t\t     4 Query\tSELECT 'a Quit\t'\n"
		quit    = "\t\t     4 Quit\t\n"
	)
	pg, maria := pgSessionsOpen, mariadbSessionsOpen
	for _, c := range []struct {
		open func([]byte) int
		log  string
		want int
	}{
		{pg, "", 0},
		{pg, auth + stmt, 1},
		{pg, auth + auth + stmt + end, 1},
		{pg, auth + stmt + end, 0},
		{maria, head, 0},
		{maria, head + connect + query, 1},
		{maria, head + connect + query + quit, 0},
		{maria, head + connect + strings.Replace(connect, "4", "5", 1) + quit, 1},
	} {
		if got := c.open([]byte(c.log)); got != c.want {
			t.Errorf("sessions open in %q: %d, want %d", c.log, got, c.want)
		}
	}
}

func TestCaptureReplayPostgres(t *testing.T) {
	needPrograms(t, "postgresql postgresql-contrib", "psql", "pgbench")
	runScenario(t, pgScenario, "--pg-log", replay.Postgres)
}

func TestCaptureReplayMariaDB(t *testing.T) {
	needPrograms(t, "mariadb-client", "mariadb")
	runScenario(t, mariadbScenario, "--mysql-general-log", replay.MySQL)
}

// runScenario captures the logScenario's log from a managed server, replays
// it on a fresh one and checks the replayed database against the
// original, and the statements run per fingerprint against the script;
// then replays it through the command line and reads the result back.
func runScenario(t *testing.T, sc logScenario, logFlag, dialect string) {
	dir := t.TempDir()
	for name, text := range sc.files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wd, _ := os.Getwd()
	os.Chdir(dir) // the command runs in the test's directory
	defer os.Chdir(wd)
	for i, q := range sc.checks {
		t.Setenv("CHECK"+strconv.Itoa(i+1), q)
	}
	logPath := filepath.Join(dir, "captured.log")
	_, errs, code, err := call(t, captureCmd, "--store", sc.store, "--log", logPath, "--", "sh", "-c", sc.command)
	if err != nil {
		storetest.RequireServer(t, err)
		t.Fatalf("capture: status %d: %v\n%s", code, err, errs)
	}
	t.Logf("capture said: %s", errs)
	wantText, err := os.ReadFile(filepath.Join(dir, "want.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Fields(string(wantText))
	if len(want) != len(sc.checks) {
		t.Fatalf("want.txt holds %q, want %d values", want, len(sc.checks))
	}
	captured, _ := os.ReadFile(logPath)
	if strings.Contains(string(captured), "IDENTIFIED BY") {
		t.Errorf("the saved log holds an account's password:\n%s", captured)
	}
	// Only the command's part is kept, not the server's shutdown.
	for _, bad := range []string{"shutdown", "shut down", "Shutdown"} {
		if strings.Contains(string(captured), bad) {
			t.Errorf("the saved log holds the server's shutdown (%q):\n%s", bad, captured)
		}
	}

	// Replay on a fresh server through the package, to read its state.
	format := map[string]string{replay.Postgres: "pg-log", replay.MySQL: "mysql-general-log"}[dialect]
	lg, _, err := readLog(logPath, format, dialect, "")
	if err != nil {
		t.Fatal(err)
	}
	if lg.Skips.Count > 0 {
		t.Errorf("%d lines of the captured log could not be read: %v", lg.Skips.Count, lg.Skips.First)
	}
	sdir, err := os.MkdirTemp("", "kurabe-replay-test-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(sdir, 0o755)
	defer os.RemoveAll(sdir)
	sp, _ := store.ParseSpec(sc.store)
	st, err := testApp().driver(sp.Driver).Open(context.Background(), sp, store.Env{Dir: sdir})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ps, err := replay.Run(context.Background(), replay.Config{Speed: 0}, st, lg)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		for _, c := range p.ErrorClasses {
			t.Errorf("replay: %s: %d errors, first: %s", p.Op, c.Count, c.First)
		}
	}
	checkCounts(t, ps, sc.counts)
	s, err := st.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ss := s.(store.SQLSession)
	if dialect == replay.MySQL {
		if _, err := ss.Exec(context.Background(), "USE kurabe"); err != nil {
			t.Fatal(err)
		}
	}
	for i, q := range sc.checks {
		var got int64
		if _, _, err := ss.Query(context.Background(), q, nil, func(v int64) { got = v }); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if strconv.FormatInt(got, 10) != want[i] {
			t.Errorf("replayed database: %s gives %d, the original %s", q, got, want[i])
		}
	}
	s.Close()
	st.Close()

	// The command line: the result document, and kurabe report on it.
	jsonPath := filepath.Join(dir, "replay.json")
	out, errs, code, err := call(t, replayCmd, logFlag, logPath, "--store", sc.store, "--speed", "max", "--json", jsonPath, "-q")
	if err != nil {
		t.Fatalf("replay: status %d: %v\n%s", code, err, errs)
	}
	t.Logf("replay printed:\n%s", out)
	if !strings.Contains(out, "replay: ") || !strings.Contains(out, "one client per session") {
		t.Errorf("replay printed no summary of the replay:\n%s", out)
	}
	doc, err := result.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	checkCounts(t, doc.Stores[0].Phases, sc.counts)
	if r := doc.Stores[0].Phases[0].Replay; r == nil || r.Log != logPath || r.Statements != lg.Statements {
		t.Errorf("the document's replay figures: %+v", r)
	}
	if dialect == replay.MySQL { // the HTML report takes seconds: once is enough
		htmlPath := filepath.Join(dir, "replay.html")
		rout, rerrs, code := runCLI(t, testApp(), "report", jsonPath, "--html", htmlPath)
		html, err := os.ReadFile(htmlPath)
		if code != ExitOK || err != nil || !strings.Contains(string(html), "update items set qty = qty + ? where id = ?") {
			t.Errorf("kurabe report --html on a replay: status %d, %v\n%s%s", code, err, rout, rerrs)
		}
	}
	cout, cerrs, code := runCLI(t, testApp(), "compare", jsonPath, jsonPath)
	if code != ExitOK || !strings.Contains(cout, "update items set qty = qty + ? where id = ?") {
		t.Errorf("kurabe compare on two replays: status %d\n%s%s", code, cout, cerrs)
	}
}

// checkCounts checks the statements run per fingerprint.
func checkCounts(t *testing.T, ps []result.Phase, counts map[string]int64) {
	t.Helper()
	for prefix, want := range counts {
		var got, inLog int64
		found := false
		for _, p := range ps {
			if p.Replay != nil && p.Op != "replay" && strings.HasPrefix(p.Replay.Text, prefix) {
				got += p.Ops + p.Errors
				inLog += p.Replay.InLog
				found = true
			}
		}
		if !found || got != want || inLog != want {
			var have []string
			for _, p := range ps {
				if p.Replay != nil {
					have = append(have, strconv.FormatInt(p.Ops, 10)+"× "+p.Replay.Text)
				}
			}
			t.Errorf("fingerprint %q: ran %d, %d in the log; want %d. Fingerprints:\n%s", prefix, got, inLog, want, strings.Join(have, "\n"))
		}
	}
}

// TestReplayLagOnPostgres: a log whose statements came every 100 ms,
// replayed at --speed 1 on a server where each takes 250 ms (pg_sleep),
// ends late and says so, with the lag, instead of stretching the log's
// time in silence.
func TestReplayLagOnPostgres(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range 8 {
		fmt.Fprintf(&b, "2026-11-22 07:22:14.%03d UTC [7] 6b029826.7 kurabe@postgres LOG:  statement: select pg_sleep(0.25)\n", 100*i)
	}
	logPath := filepath.Join(dir, "slow.log")
	os.WriteFile(logPath, []byte(b.String()), 0o644)
	jsonPath := filepath.Join(dir, "slow.json")
	out, errs, code, err := call(t, replayCmd, "--pg-log", logPath, "--store", "postgres:managed", "--speed", "1", "--json", jsonPath, "-q")
	if err != nil {
		storetest.RequireServer(t, err)
		t.Fatalf("replay: status %d: %v\n%s", code, err, errs)
	}
	doc, err := result.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	r := doc.Stores[0].Phases[0].Replay
	t.Logf("scheduled %.3f s, took %.3f s, lag max %.0f µs, %d late: %s", r.Scheduled, r.Wall, r.Lag.Max, r.Late, r.Note)
	if !r.Behind || r.Wall < 1.9 || r.Lag.Max < 1_000_000 || !strings.Contains(out, "BEHIND: the store could not keep the log's pace") {
		t.Errorf("a slow store: behind %v after %.3f s of %.3f s scheduled, lag max %.0f µs; printed:\n%s", r.Behind, r.Wall, r.Scheduled, r.Lag.Max, out)
	}
	// kurabe report of the JSON says what the live run said, the verdict
	// on the pace included (before, it left it out).
	again, rerrs, code := runCLI(t, testApp(), "report", jsonPath)
	if code != ExitOK || again != out {
		t.Errorf("kurabe report %s (status %d, %s):\n%s\nthe live run printed:\n%s", jsonPath, code, rerrs, again, out)
	}
}

// TestCaptureSummaryCounts: the line capture prints about the saved log
// counts in the singular where there is one (before: "1 sessions").
func TestCaptureSummaryCounts(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		log, want string
	}{
		{tinyPGLog, "1 session, 1 statement, 0.000 s"},
		{tinyPGLog + strings.Replace(tinyPGLog, "[10828] 6b029826.2a4c", "[10829] 6b029826.2a4d", 1), "2 sessions, 2 statements, 0.000 s"},
		{tinyPGLog + "garbage\n", "1 session, 1 statement, 0.000 s, 1 line unreadable"},
	} {
		path := filepath.Join(dir, "c.log")
		os.WriteFile(path, []byte(tc.log), 0o644)
		got, err := summarizeLog(path, "postgres")
		if err != nil || got != tc.want {
			t.Errorf("%q: %q, %v; want %q", tc.log, got, err, tc.want)
		}
	}
}

// cancelOnWrite is a terminal that interrupts kurabe at the first thing
// written to it once armed: the progress line, drawn once the replay has
// run a second.
type cancelOnWrite struct {
	mu     sync.Mutex
	b      bytes.Buffer
	cancel context.CancelFunc
}

func (w *cancelOnWrite) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if bytes.Contains(p, []byte(" ops")) {
		w.cancel()
	}
	return w.b.Write(p)
}

// TestReplayInterruptedOnPostgres: a replay stopped a second into a 5 s
// log of one session says it was interrupted and how much of the log ran,
// and gives no verdict on the pace (before, "took 1 s against 6 s
// scheduled; kept the log's pace"); its lines count one session, one
// client, in the singular, and the header names the workload once.
func TestReplayInterruptedOnPostgres(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range 12 {
		fmt.Fprintf(&b, "2026-11-22 07:22:%02d.500 UTC [7] 6b029826.7 kurabe@postgres LOG:  statement: select %d\n", 10+i/2, i)
	}
	logPath := filepath.Join(dir, "int.log")
	os.WriteFile(logPath, []byte(b.String()), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	term := &cancelOnWrite{cancel: cancel}
	app := testApp()
	app.Terminal = func(w io.Writer) bool { return w == term }
	var out bytes.Buffer
	err := app.replay(ctx, []string{"--pg-log", logPath, "--store", "postgres:managed", "--speed", "1"}, &out, term)
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != ExitInterrupted {
		storetest.RequireServer(t, err)
		t.Fatalf("got %v, want an interrupt\n%s", err, out.String())
	}
	text := out.String()
	for _, want := range []string{"workload replay ·", "· 1 client ·", "12 statements of 1 session from", "INTERRUPTED after", "of the 5.000 s scheduled, with ", " of the 12 statements run", "no verdict on the pace"} {
		if !strings.Contains(text, want) {
			t.Errorf("the output lacks %q:\n%s", want, text)
		}
	}
	for _, bad := range []string{"replay replay", "1 sessions", "kept the log's pace", "BEHIND", "took "} {
		if strings.Contains(text, bad) {
			t.Errorf("the output says %q:\n%s", bad, text)
		}
	}
}

// TestReplayAllFailed: a replay in which every statement failed (a log
// replayed on a server without its tables) exits 1 and says why, since
// its figures time only errors; one in which some failed is a normal
// replay, with the failures under the table.
func TestReplayAllFailed(t *testing.T) {
	dir := t.TempDir()
	line := "2026-11-22 07:22:14.%03d UTC [7] 6b029826.7 kurabe@postgres LOG:  statement: %s\n"
	for _, tc := range []struct {
		name  string
		stmts []string
		code  int
	}{
		{"all", []string{"select * from kurabe_no_such_table", "insert into kurabe_no_such_table values (1)"}, ExitFailed},
		{"some", []string{"select * from kurabe_no_such_table", "select 1"}, ExitOK},
	} {
		var b strings.Builder
		for i, s := range tc.stmts {
			fmt.Fprintf(&b, line, i, s)
		}
		logPath := filepath.Join(dir, tc.name+".log")
		os.WriteFile(logPath, []byte(b.String()), 0o644)
		out, errs, code, err := call(t, replayCmd, "--pg-log", logPath, "--store", "postgres:managed", "-q")
		if err != nil && !strings.Contains(err.Error(), "every statement failed") {
			storetest.RequireServer(t, err)
		}
		if code != tc.code {
			t.Fatalf("%s failed: status %d (%v), want %d\n%s%s", tc.name, code, err, tc.code, out, errs)
		}
		if !strings.Contains(out, "kurabe_no_such_table") || !strings.Contains(out, "1 error of class pg:42P01") {
			t.Errorf("%s failed: the failures are not under the table:\n%s", tc.name, out)
		}
		if tc.code == ExitFailed && (err == nil || !strings.Contains(err.Error(), "every statement failed on postgres")) {
			t.Errorf("%s failed: %v; want the reason", tc.name, err)
		}
	}
}

func TestReplayAndCaptureHelp(t *testing.T) {
	for _, tc := range []struct {
		cmd  subcommand
		want string
	}{{replayCmd, "Usage: kurabe replay"}, {captureCmd, "Usage: kurabe capture"}} {
		out, _, code, err := call(t, tc.cmd, "-h")
		if err != nil || code != ExitOK || !strings.Contains(out, tc.want) || !strings.Contains(out, "-store") {
			t.Errorf("-h: status %d, %v\n%s", code, err, out)
		}
		// Replay refuses every SQLite store; its help must not offer one.
		if strings.Contains(strings.ToLower(out), "sqlite file") || strings.Contains(out, "stores without a path") {
			t.Errorf("-h offers SQLite, which replay refuses:\n%s", out)
		}
	}
}

// A capture stopped with Ctrl-C while its command runs is an interrupt
// (exit 130), not a failure of the command, which kurabe itself stopped.
func TestCaptureInterrupted(t *testing.T) {
	needPrograms(t, "postgresql", "psql")
	dir := t.TempDir()
	started := filepath.Join(dir, "started")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for range 600 { // a managed server starts within a minute
			if _, err := os.Stat(started); err == nil {
				cancel()
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	}()
	var out, errb bytes.Buffer
	err := testApp().capture(ctx, []string{"--store", "postgres:managed", "--log", filepath.Join(dir, "c.log"), "--", "sh", "-c", "touch " + started + "; sleep 60"}, &out, &errb)
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != ExitInterrupted {
		storetest.RequireServer(t, err)
		t.Fatalf("got %v (%s), want an interrupt", err, errb.String())
	}
}

// TestReplayStartNotice: outside a terminal, a replay's start that takes
// long (the log read, a managed server started) says what it waits for,
// as kurabe run's does, in the replay's language, and nothing with -q.
// Before, a replay on a managed server printed nothing until its table.
// The app says so at once here (StartNotice below 0), so that the test
// does not depend on how long a start takes on a loaded machine.
func TestReplayStartNotice(t *testing.T) {
	dir := t.TempDir()
	pg := filepath.Join(dir, "pg.log")
	if err := os.WriteFile(pg, []byte(tinyPGLog), 0o644); err != nil {
		t.Fatal(err)
	}
	app := testApp()
	app.StartNotice = -1
	args := []string{"replay", "--pg-log", pg, "--store", "postgres:managed", "--speed", "max"}
	for _, tc := range []struct {
		lang string
		want []string
	}{
		{"en", []string{"kurabe: reading the log " + pg + ", 0s so far\n", "kurabe: postgres: starting the store, 0s so far\n"}},
		{"ja", []string{"kurabe: ログ " + pg + " を読み込んでいます、0s 経過\n", "kurabe: postgres: ストアを起動しています、0s 経過\n"}},
	} {
		_, errs, code := runCLI(t, app, append(args, "--lang", tc.lang)...)
		if code != ExitOK {
			t.Fatalf("%s: exit %d: %s", tc.lang, code, errs)
		}
		for _, w := range tc.want {
			if strings.Count(errs, w) != 1 {
				t.Errorf("%s: stderr has %q %d times, want once:\n%s", tc.lang, w, strings.Count(errs, w), errs)
			}
		}
	}
	if _, errs, code := runCLI(t, app, append(args, "-q")...); code != ExitOK || strings.Contains(errs, "so far") {
		t.Errorf("-q: exit %d, stderr %q; want 0 and no line of the start", code, errs)
	}
}

// replayRows replays a log on a fresh managed store through the package
// and returns what each query (one integer) gives on the replayed
// database, and the replay's phases.
func replayRows(t *testing.T, spec, logText, format, dialect string, queries ...string) ([]int64, []result.Phase) {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), "hand.log")
	os.WriteFile(logPath, []byte(logText), 0o644)
	lg, _, err := readLog(logPath, format, dialect, "")
	if err != nil {
		t.Fatal(err)
	}
	if lg.Skips.Count > 0 {
		t.Fatalf("%d lines of the log could not be read: %v", lg.Skips.Count, lg.Skips.First)
	}
	sdir, err := os.MkdirTemp("", "kurabe-replay-test-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(sdir, 0o755)
	defer os.RemoveAll(sdir)
	sp, _ := store.ParseSpec(spec)
	st, err := testApp().driver(sp.Driver).Open(context.Background(), sp, store.Env{Dir: sdir})
	if err != nil {
		storetest.RequireServer(t, err)
		t.Fatal(err)
	}
	defer st.Close()
	ps, err := replay.Run(context.Background(), replay.Config{Speed: 0}, st, lg)
	if err != nil {
		t.Fatal(err)
	}
	s, err := st.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ss := s.(store.SQLSession)
	if dialect == replay.MySQL {
		if _, err := ss.Exec(context.Background(), "USE kurabe"); err != nil {
			t.Fatal(err)
		}
	}
	var got []int64
	for _, q := range queries {
		var v int64
		if _, _, err := ss.Query(context.Background(), q, nil, func(x int64) { v = x }); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		got = append(got, v)
	}
	return got, ps
}

// TestReplayRoutines: a text of several statements that creates a
// routine and calls it is cut into its statements, the routine's body
// kept whole, wherever the routine stands in the text. Before, a text
// starting with CREATE FUNCTION ran as one statement (PostgreSQL: "cannot
// insert multiple commands into a prepared statement"), and MariaDB's
// procedure bodies were cut at their semicolons or not cut from the CALL.
func TestReplayRoutines(t *testing.T) {
	for _, tc := range []struct {
		name, spec, format, dialect, log string
		queries                          []string
		want                             []int64
	}{
		{
			name: "postgres", spec: "postgres:managed", format: "pg-log", dialect: replay.Postgres,
			log: "2026-11-22 07:22:14.100 UTC [7] 6b029826.7 kurabe@postgres LOG:  statement: create table m(a int, b text)\n" +
				"2026-11-22 07:22:14.200 UTC [7] 6b029826.7 kurabe@postgres LOG:  statement: create function f() returns int language plpgsql as $$ begin insert into m values (4,'fn'); insert into m values (5,'fn;2'); return 1; end $$; select f();\n" +
				"2026-11-22 07:22:14.300 UTC [7] 6b029826.7 kurabe@postgres LOG:  statement: create or replace function g() returns int language sql begin atomic insert into m values (case when true then 6 end, 'atomic'); select 1; end; select g(); select f()\n",
			queries: []string{"select count(*) from m", "select sum(a) from m", "select count(*) from m where b = 'fn;2'"},
			want:    []int64{5, 4 + 5 + 6 + 4 + 5, 2},
		},
		{
			name: "mariadb", spec: "mariadb:managed", format: "mysql-general-log", dialect: replay.MySQL,
			log: "261122  7:22:35\t     4 Connect\tapp@127.0.0.1 on kurabe using TCP/IP\n" +
				"\t\t     4 Query\tcreate table t5(a int); create procedure p5() begin insert into t5 values (1); insert into t5 values (2); end; call p5()\n" +
				"\t\t     4 Query\tcreate procedure p6() begin declare i int default 0; lbl: loop set i = i + 1; if i > 2 then leave lbl; end if; insert into t5 values (if(i > 1, 20, 10)); end loop lbl; end; call p6()\n" +
				"\t\t     4 Query\tcreate trigger tr before insert on t5 for each row begin if new.a = 7 then set new.a = 70; end if; end; insert into t5 values (7)\n" +
				"\t\t     4 Quit\t\n",
			queries: []string{"select count(*) from t5", "select sum(a) from t5"},
			want:    []int64{5, 1 + 2 + 10 + 20 + 70},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ps := replayRows(t, tc.spec, tc.log, tc.format, tc.dialect, tc.queries...)
			for _, p := range ps {
				for _, c := range p.ErrorClasses {
					t.Errorf("replay: %s: %d errors, first: %s", p.Op, c.Count, c.First)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("the replayed database gives %v for %q, want %v", got, tc.queries, tc.want)
			}
		})
	}
}

// TestReplayAllWarmup: a replay in which every statement ran in the
// warm-up (at --speed max, which kurabe cannot refuse beforehand) says so
// on its line and exits 1 (before: exit 0, rows of 0 and "-", and "kept
// the log's pace"); with a shorter warm-up, each fingerprint's warm-up
// statements are counted, so ops + errors + warmup_ops = in_log.
func TestReplayAllWarmup(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range 6 {
		fmt.Fprintf(&b, "2026-11-22 07:22:14.%03d UTC [7] 6b029826.7 kurabe@postgres LOG:  statement: select %d\n", 100*i, i)
	}
	logPath := filepath.Join(dir, "w.log")
	os.WriteFile(logPath, []byte(b.String()), 0o644)
	out, errs, code, err := call(t, replayCmd, "--pg-log", logPath, "--store", "postgres:managed", "--speed", "max", "--warmup", "1h", "-q")
	if code == ExitUsage {
		t.Fatalf("status %d: %v\n%s", code, err, errs)
	}
	if err != nil && !strings.Contains(err.Error(), "warm") {
		storetest.RequireServer(t, err)
	}
	if code != ExitFailed || err == nil || !strings.Contains(err.Error(), "every statement ran within the --warmup of 1h0m0s") ||
		!strings.Contains(out, "ALL WARM-UP") || strings.Contains(out, "kept the log's pace") {
		t.Errorf("all in the warm-up: status %d, %v\n%s", code, err, out)
	}

	jsonPath := filepath.Join(dir, "w.json")
	_, errs, code, err = call(t, replayCmd, "--pg-log", logPath, "--store", "postgres:managed", "--speed", "1", "--warmup", "250ms", "--json", jsonPath, "-q")
	if err != nil {
		t.Fatalf("status %d: %v\n%s", code, err, errs)
	}
	doc, err := result.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range doc.Stores[0].Phases[1:] {
		if p.Ops+p.Errors+p.WarmupOps != p.Replay.InLog || p.WarmupOps == 0 {
			t.Errorf("%s: %d ops, %d errors, %d warm-up; %d in the log", p.Op, p.Ops, p.Errors, p.WarmupOps, p.Replay.InLog)
		}
	}
}

// TestReplayEngine: engine= of a MariaDB store shapes the tables the
// log's CREATE TABLE statements make, through the replay sessions'
// default_storage_engine. The log's query fails (error 1242, a subquery
// of two rows) unless its table t is MyISAM, so it fails on InnoDB and
// runs on engine=MyISAM. Before, both stores replayed on InnoDB tables,
// the query failed on both, and the store line said "engine=MyISAM
// (given; not read back)". A table whose CREATE TABLE names its engine
// (t2) keeps it, and a note says so.
func TestReplayEngine(t *testing.T) {
	log := "/usr/sbin/mariadbd, Version: 10.11.19-MariaDB-0+deb12u1-log (Debian 12). started with:\nTcp port: 3306  Unix socket: /run/mysqld/mysqld.sock\nTime\t\t    Id Command\tArgument\n" +
		"261123  3:36:03\t     8 Connect\tcapture@127.0.0.1 on kurabe using TCP/IP\n" +
		"\t\t     8 Query\tcreate table t(id int primary key, v varchar(10))\n" +
		"\t\t     8 Query\tcreate table t2(id int primary key) engine=InnoDB\n" +
		"\t\t     8 Query\tselect case when (select engine from information_schema.tables where table_schema=database() and table_name='t')='MyISAM' then 1 else (select 1 union select 2) end as probe\n" +
		"\t\t     8 Quit\t\n"
	dir := t.TempDir()
	logPath, jsonPath := filepath.Join(dir, "eng.log"), filepath.Join(dir, "eng.json")
	os.WriteFile(logPath, []byte(log), 0o644)
	out, errs, code, err := call(t, replayCmd, "--mysql-general-log", logPath, "--store", "mariadb:managed", "--store", "mariadb:managed?engine=MyISAM", "--speed", "max", "--json", jsonPath, "-q")
	if err != nil {
		storetest.RequireServer(t, err)
	}
	if code != ExitOK {
		t.Fatalf("status %d (%v)\n%s%s", code, err, out, errs)
	}
	doc, err := result.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	probeErrors := func(s result.Store) int64 {
		for _, p := range s.Phases {
			if p.Replay != nil && strings.Contains(p.Replay.Text, "as probe") {
				return p.Errors
			}
		}
		t.Fatalf("%s: no phase of the probe", s.Label)
		return 0
	}
	for i, want := range []struct {
		engine, tables string
		errors         int64
	}{{"InnoDB", "InnoDB", 1}, {"MyISAM", "InnoDB,MyISAM", 0}} {
		s := doc.Stores[i]
		if got := probeErrors(s); got != want.errors {
			t.Errorf("%s: the probe failed %d times, want %d: table t was not %s", s.Label, got, want.errors, want.engine)
		}
		if s.Info.Options["engine"] != want.engine || s.Info.Options["tables.engine"] != want.tables {
			t.Errorf("%s: engine=%q tables.engine=%q, want %q and %q read back", s.Label, s.Info.Options["engine"], s.Info.Options["tables.engine"], want.engine, want.tables)
		}
	}
	if !strings.Contains(out, "engine=MyISAM ") || strings.Contains(out, "not read back") {
		t.Errorf("the store line does not read engine=MyISAM back:\n%s", out)
	}
	if !strings.Contains(out, "mariadb?engine=MyISAM replay: engine=MyISAM: table t2 has engine InnoDB, which the log named") {
		t.Errorf("no note that the log named t2's engine:\n%s", out)
	}
}
