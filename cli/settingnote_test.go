package cli

import (
	"regexp"
	"strings"
	"testing"
)

// A setting's note says what the store runs in the store line's units,
// and a PostgreSQL setting asked as -1 ("choose for me", where its minimum
// is -1) is noted as the server's choice, with its unit, not as a setting
// that did not apply.
var chosen = regexp.MustCompile(`chose (\d+[kMG]B)\n`)

func TestSettingNotesInUnits(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL and MariaDB")
	}
	for _, c := range []struct {
		spec      string
		want, not []string
	}{
		// wal_buffers=-1 is 1/32 of shared_buffers (pg_settings gives it
		// in pages of 8kB, with no unit); the note and the store line say
		// it as SHOW does.
		{"postgres:managed?wal_buffers=-1", []string{"postgres: wal_buffers=-1 lets the server choose, and it chose "}, []string{"did not apply"}},
		// MariaDB runs at least 4MiB of log; the store line says 4MiB.
		{"mariadb:managed?innodb_log_file_size=1M", []string{"innodb_log_file_size asked 1M, the store runs 4MiB", "innodb_log_file_size=4MiB"}, []string{"4194304"}},
	} {
		out, errs, code := runCLI(t, testApp(), "run", "--store", c.spec, "-n", "20", "-c", "1", "--ops", "write")
		if code != ExitOK {
			t.Fatalf("%s: exit %d\n%s%s", c.spec, code, out, errs)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: output lacks %q:\n%s", c.spec, w, out)
			}
		}
		for _, n := range c.not {
			if strings.Contains(out, n) {
				t.Errorf("%s: output says %q:\n%s", c.spec, n, out)
			}
		}
		if m := chosen.FindStringSubmatch(out); strings.HasPrefix(c.spec, "postgres") && (m == nil || !strings.Contains(out, "wal_buffers="+m[1]+" ")) {
			t.Errorf("%s: no value with a unit chosen, or not the store line's:\n%s", c.spec, out)
		}
	}
}
