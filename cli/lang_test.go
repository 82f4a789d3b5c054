package cli

import (
	"strings"
	"testing"
)

// TestLangHelpNamesNoDefault: help shows where --lang's default comes
// from, the locale, in every command that has --lang, and no value of
// its own. Before, it read `(default "en")` on the line that says the
// locale chooses: "en" was only what the locale of the shell that asked
// gave.
func TestLangHelpNamesNoDefault(t *testing.T) {
	for _, cmd := range []string{"run", "http", "replay", "report", "compare", "clean"} {
		out, errs, code := runCLI(t, testApp(), "help", cmd)
		if code != ExitOK {
			t.Fatalf("help %s: exit %d: %s", cmd, code, errs)
		}
		_, after, ok := strings.Cut(out, "  -lang ")
		line, _, _ := strings.Cut(strings.TrimLeft(after[strings.Index(after, "\n")+1:], " \t"), "\n")
		if !ok || !strings.Contains(line, "(default: from LC_ALL, LC_MESSAGES or LANG") || strings.Contains(line, `(default "`) {
			t.Errorf("help %s: -lang says %q", cmd, line)
		}
	}
}

// TestLangFromTheLocale: without --lang, a Japanese locale gives Japanese
// in every command that has --lang, as the README says, LC_ALL first,
// then LC_MESSAGES, then LANG.
func TestLangFromTheLocale(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"LANG": "ja_JP.UTF-8"}, "ja"},
		{map[string]string{"LC_MESSAGES": "ja_JP.UTF-8", "LANG": "en_US.UTF-8"}, "ja"},
		{map[string]string{"LC_ALL": "C", "LANG": "ja_JP.UTF-8"}, "en"}, // LC_ALL wins, as in POSIX
		{map[string]string{}, "en"},
	} {
		for _, cmd := range []string{"run", "http", "replay", "report", "compare", "clean"} {
			if got := commandLang([]string{cmd}, func(k string) string { return c.env[k] }); got != c.want {
				t.Errorf("%s with %v: %s, want %s", cmd, c.env, got, c.want)
			}
		}
	}
}
