package cli

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestViaHTTPOverAnHTTPStore: --via-http with only http:// stores is
// refused, in one line, exit 2: such a store is reached over HTTP
// already, and there is nothing for kurabe serve to stand in front of.
// Before, the run went on and --via-http did nothing. Beside another
// store it is taken: that store runs directly and through kurabe serve,
// the http:// store once, as it is.
//
// With --repeat each repeat puts a kurabe serve of its own (a fresh
// loopback port) in front of its store: the line of the store via http
// says the address is the last repeat's, as the store's own line does.
// Before, it gave the last repeat's address as if it were every repeat's.
func TestViaHTTPOverAnHTTPStore(t *testing.T) {
	base, _, _ := startServe(t, testApp(), "--store", "sqlite:"+filepath.Join(t.TempDir(), "b.db")+"?synchronous=off", "--listen", "127.0.0.1:0")
	for _, args := range [][]string{
		{"--store", base, "--via-http"},
		{"--store", base, "--store", strings.Replace(base, "http://", "https://", 1), "--via-http=persistent,cgi"},
	} {
		out, errs, code := runCLI(t, testApp(), append([]string{"run", "-n", "5", "--ops", "write"}, args...)...)
		if code != ExitUsage || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "--via-http with store "+base) || !strings.Contains(errs, "it is reached over HTTP already") || out != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want one line refusing it, exit %d", args, code, errs, out, ExitUsage)
		}
	}

	out, errs, code := runCLI(t, testApp(), "run", "--store", "sqlite:?synchronous=off", "--store", base, "--via-http",
		"--ops", "write", "-n", "10", "-c", "1", "--repeat", "2")
	if code != ExitOK {
		t.Fatalf("sqlite and an http store with --via-http: exit %d\n%s%s", code, out, errs)
	}
	last := " (the last repeat's; each repeat had its own)"
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^store sqlite: \S+/r2-1-sqlite/kurabe\.db` + regexp.QuoteMeta(last)),
		regexp.MustCompile(`(?m)^store sqlite via http: http://127\.0\.0\.1:\d+` + regexp.QuoteMeta(last)),
		// A server of your own is every repeat's.
		regexp.MustCompile(`(?m)^store http: ` + regexp.QuoteMeta(base) + ` \(`),
		regexp.MustCompile(`(?m)^http +write #2 `),
	} {
		if !want.MatchString(out) {
			t.Errorf("output lacks %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, "http via http") {
		t.Errorf("the http store ran through kurabe serve:\n%s", out)
	}
}
