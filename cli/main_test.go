package cli

import (
	"os"
	"os/exec"
	"path/filepath"
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
	const en, ja = "\nkurabe: stopping after the operations under way, then writing the results; press Ctrl-C again to stop at once without writing them\n", "\nkurabe: 実行中の操作の後に停止し、結果を書き出します。書き出さずにすぐ止めるにはもう一度 Ctrl-C を押してください\n"
	for _, c := range []struct {
		args []string
		lang string // LANG
		want string
	}{
		{[]string{"run", "--lang", "ja", "-n", "10"}, "", ja},
		{[]string{"run", "-n", "10", "--lang=ja"}, "", ja},
		{[]string{"run", "-lang", "ja"}, "", ja},
		{[]string{"run", "--lang", "en"}, "ja_JP.UTF-8", en},            // the flag over the locale
		{[]string{"run", "-n", "10"}, "ja_JP.UTF-8", ja},                // the locale, as --lang defaults
		{[]string{"http", "--lang", "ja", "http://127.0.0.1/"}, "", ja}, // every command with --lang
		{[]string{"replay", "--lang", "xx"}, "", en},                    // a bad value is refused later; English meanwhile
		{[]string{"run", "--store", "sqlite:"}, "ja_JP.UTF-8", ja},      // no --lang: the locale
		// probe writes nothing when stopped: it removes its files (before, it said it would write the results).
		{[]string{"probe"}, "ja_JP.UTF-8", "\nkurabe: stopping the probe; its files are removed and nothing is written; press Ctrl-C again to stop at once\n"},
		{nil, "", en},
		{[]string{"dataset", "import", "KEN_ALL.CSV", "--store", "sqlite:/tmp/p.db"}, "", "\nkurabe: stopping the import; what the table holds then is said next; press Ctrl-C again to stop at once\n"}, // no results to write
		// serve writes no results; its lines are English.
		{[]string{"serve", "--store", "sqlite:"}, "ja_JP.UTF-8", "\nkurabe: stopping; press Ctrl-C again to stop at once\n"},
	} {
		env := map[string]string{"LANG": c.lang}
		if got := StoppingLine(c.args, func(k string) string { return env[k] }); got != c.want {
			t.Errorf("%q with LANG=%q: %q, want %q", c.args, c.lang, got, c.want)
		}
	}
}
