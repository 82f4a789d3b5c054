package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The kurabe binary, built once for the tests that run it as a user would
// (signals, CGI processes that start the program again).
var (
	binOnce sync.Once
	binDir  string
	binPath string
	binErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// kurabeBinary builds kurabe once per test run and returns its path.
func kurabeBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	binOnce.Do(func() {
		if binDir, binErr = os.MkdirTemp("", "kurabe-cli-test-"); binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "kurabe")
		if out, err := exec.Command("go", "build", "-o", binPath, "..").CombinedOutput(); err != nil {
			binErr = &buildError{err: err, out: string(out)}
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return "build: " + e.err.Error() + "\n" + e.out }

// TestStoppingLineSpeaksTheCommandsLanguage checks the line on stderr at
// the first Ctrl-C: in the language of the command's output (its --lang,
// else the locale) for the commands that take --lang, English for others.
func TestStoppingLineSpeaksTheCommandsLanguage(t *testing.T) {
	const en, ja = "\nkurabe: stopping after the operations under way (those a server does not answer within --grace, 5s by default, are cut off), then writing the results; press Ctrl-C again to stop at once without writing them\n", "\nkurabe: 実行中の操作の後に停止し (サーバーが --grace の時間 (既定 5 秒) 内に応答しない操作は打ち切ります)、結果を書き出します。書き出さずにすぐ止めるにはもう一度 Ctrl-C を押してください\n"
	for _, c := range []struct {
		args []string
		lang string // LANG
		want string
	}{
		{[]string{"run", "--lang", "ja", "-n", "10"}, "", ja},
		{[]string{"run", "-n", "10", "--lang=ja"}, "", ja},
		{[]string{"run", "-lang", "ja"}, "", ja},
		{[]string{"run", "--lang", "en"}, "ja_JP.UTF-8", en}, // the flag over the locale
		{[]string{"run", "-n", "10"}, "ja_JP.UTF-8", ja},     // the locale, as --lang defaults
		{[]string{"compare", "--lang", "ja", "a.json", "b.json"}, "", "\nkurabe: レポートを書き終えてから停止します。残りを書き出さずにすぐ止めるにはもう一度 Ctrl-C を押してください\n"}, // every command with --lang
		// kurabe http and replay have no --grace: each line names what
		// bounds it. Before, both named run's --grace.
		{[]string{"http", "-n", "10", "http://127.0.0.1/"}, "", "\nkurabe: stopping after the requests under way (a server that does not answer holds each up to the -s timeout, 30 s by default), then writing the report; press Ctrl-C again to stop at once without writing it\n"},
		{[]string{"http", "--lang", "ja", "http://127.0.0.1/"}, "", "\nkurabe: 実行中のリクエストの後に停止し (応答しないサーバーは各リクエストを -s のタイムアウト (既定 30 秒) まで待たせます)、レポートを書き出します。書き出さずにすぐ止めるにはもう一度 Ctrl-C を押してください\n"},
		{[]string{"http", "--flow", "f.yaml", "http://127.0.0.1/"}, "", "\nkurabe: stopping after the passes under way have run their remaining steps (a server that does not answer holds each request up to the -s timeout, 30 s by default), then writing the report; press Ctrl-C again to stop at once without writing it\n"},
		{[]string{"replay", "--pg-log", "pg.log", "--store", "postgres:managed"}, "", "\nkurabe: stopping after the statements under way, which are never cut off (a store that does not finish one holds this up), then writing the results; press Ctrl-C again to stop at once without writing them\n"},
		{[]string{"replay", "--lang", "xx"}, "ja_JP.UTF-8", "\nkurabe: 実行中の文の後に停止し (文は打ち切らないため、ストアが終えない文があるとその間待ちます)、結果を書き出します。書き出さずにすぐ止めるにはもう一度 Ctrl-C を押してください\n"}, // a bad value is refused later; the locale meanwhile
		// kurabe clean speaks its --lang, or the locale, as its output
		// does. Before, its line was English under a Japanese locale.
		{[]string{"clean", "--store", "postgres://u@h/db"}, "ja_JP.UTF-8", "\nkurabe: 削除を中止します。すぐに止めるにはもう一度 Ctrl-C を押してください\n"},
		{[]string{"clean", "--store", "postgres://u@h/db", "--lang", "en"}, "ja_JP.UTF-8", "\nkurabe: stopping the clean; press Ctrl-C again to stop at once\n"},
		{[]string{"version"}, "ja_JP.UTF-8", en}, // no --lang: its lines are English
		{nil, "", en},
		{[]string{"dataset", "import", "KEN_ALL.CSV", "--store", "sqlite:/tmp/p.db"}, "", "\nkurabe: stopping the import; what the table holds then is said next; press Ctrl-C again to stop at once\n"}, // no results to write
		{[]string{"dataset", "import", "KEN_ALL.CSV", "--store=sqlite:/tmp/p.db"}, "", "\nkurabe: stopping the import; what the table holds then is said next; press Ctrl-C again to stop at once\n"},
		// The commands that write no results say what they do instead.
		// Before, each said it was writing the results.
		{[]string{"dataset", "import", "KEN_ALL.CSV"}, "", "\nkurabe: stopping the check of the file; press Ctrl-C again to stop at once\n"}, // no table
		{[]string{"serve", "--store", "sqlite:/tmp/b.db"}, "", "\nkurabe: stopping: no new connections; the requests in flight finish (for up to 10 s), then the store is closed; press Ctrl-C again to stop at once\n"},
		{[]string{"probe"}, "", "\nkurabe: stopping the probe; it measures nothing and removes its files; press Ctrl-C again to stop at once\n"},
		{[]string{"capture", "--store", "postgres:managed", "--", "psql"}, "", "\nkurabe: stopping: the command gets the interrupt, then the server stops and the log of what ran is saved; press Ctrl-C again to stop at once without saving it\n"},
		{[]string{"report", "r.json", "--html", "r.html"}, "", "\nkurabe: finishing the report, then stopping; press Ctrl-C again to stop at once without writing the rest\n"},
	} {
		env := map[string]string{"LANG": c.lang}
		got := StoppingLine(c.args, func(k string) string { return env[k] })
		if got != c.want {
			t.Errorf("%q with LANG=%q: %q, want %q", c.args, c.lang, got, c.want)
		}
		// A line names only flags its command has.
		if c.args != nil && c.args[0] != "run" && c.args[0] != "version" && strings.Contains(got, "--grace") {
			t.Errorf("%q: names --grace, a flag of kurabe run only: %q", c.args, got)
		}
	}
}
