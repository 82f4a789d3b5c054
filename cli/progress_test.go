package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestStartNotice: outside a terminal, a start that takes long (a store
// set up, a pre-fill, the clients' sessions opening) says what it waits
// for, one line each, in the run's language, and nothing with -q. The
// app says so at once here (StartNotice below 0), so that the test does
// not depend on how long a start takes on a loaded machine.
func TestStartNotice(t *testing.T) {
	app := testApp()
	app.StartNotice = -1
	args := []string{"run", "--store", "sqlite:", "--prefill", "2000", "--ops", "write,read-latest", "-n", "40", "-c", "3"}
	for _, tc := range []struct {
		lang string
		want []string
	}{
		{"en", []string{
			"kurabe: sqlite: starting the store and creating its tables, 0s so far\n",
			"kurabe: sqlite: putting 2k posts on the board (--prefill), 0s so far\n",
			"kurabe: sqlite write: opening 3 sessions, 0s so far\n",
			"kurabe: sqlite read-latest: opening 3 sessions, 0s so far\n",
		}},
		{"ja", []string{
			"kurabe: sqlite: ストアを起動し、テーブルを作成しています、0s 経過\n",
			"kurabe: sqlite: 掲示板に 2k 件の投稿を書き込んでいます (--prefill)、0s 経過\n",
			"kurabe: sqlite write: 3 セッションを開いています、0s 経過\n",
		}},
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
	// -q: nothing on stderr.
	if _, errs, code := runCLI(t, app, append(args, "-q")...); code != ExitOK || errs != "" {
		t.Errorf("-q: exit %d, stderr %q; want 0 and nothing", code, errs)
	}
	// The app as tests build it by default says nothing.
	if _, errs, code := runCLI(t, testApp(), args...); code != ExitOK || strings.Contains(errs, "so far") {
		t.Errorf("no StartNotice: exit %d, stderr %q; want no line", code, errs)
	}
}

// TestStartNoticeAfter: a start still going after the wait gets its line
// from the timer, and done stops it; a start done before gets none.
func TestStartNoticeAfter(t *testing.T) {
	var b bytes.Buffer
	p := &progress{w: &b, lang: "en", after: time.Nanosecond}
	done := p.start("sqlite write: opening 3 sessions")
	read := func() string {
		p.mu.Lock()
		defer p.mu.Unlock()
		return b.String()
	}
	for deadline := time.Now().Add(30 * time.Second); read() == "" && time.Now().Before(deadline); time.Sleep(time.Millisecond) {
	}
	done()
	done() // again: no harm
	if got := read(); !strings.HasPrefix(got, "kurabe: sqlite write: opening 3 sessions, ") || !strings.HasSuffix(got, " so far\n") || strings.Count(got, "\n") != 1 {
		t.Errorf("stderr %q, want one line saying what the start waits for", got)
	}

	b.Reset()
	p.after = time.Hour
	p.start("sqlite: starting the store and creating its tables")()
	if got := read(); got != "" {
		t.Errorf("a start done at once wrote %q", got)
	}
}
