package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kurabe/result"
)

func TestParseSeconds(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		// Bare numbers are seconds, as ab's -t and kurabe http's -d.
		{"30", 30 * time.Second, true},
		{"1.5", 1500 * time.Millisecond, true},
		{" 2 ", 2 * time.Second, true},
		{"+2", 2 * time.Second, true},
		{".5", 500 * time.Millisecond, true},
		{"5.", 5 * time.Second, true},
		// Exact: a float times a second gave 1.000999999s.
		{"1.001", 1001 * time.Millisecond, true},
		{"0.000000001", time.Nanosecond, true},
		{".", 0, false},
		// Units as before.
		{"30s", 30 * time.Second, true},
		{"500ms", 500 * time.Millisecond, true},
		{"2m", 2 * time.Minute, true},
		{"1h30m", 90 * time.Minute, true},
		// Zero and negative values parse: each flag's own check refuses
		// them with its message.
		{"0", 0, true},
		{"-5", -5 * time.Second, true},
		{"-5s", -5 * time.Second, true},
		// Not a time.
		{"", 0, false},
		{"soon", 0, false},
		{"5x", 0, false},
		{"1.2.3", 0, false},
		{"NaN", 0, false},
		{"Inf", 0, false},
		{"1e3", 0, false},
		{"5-", 0, false},
		{"10000000000", 0, false}, // beyond what a duration holds
	} {
		got, err := parseSeconds(c.in)
		if (err == nil) != c.ok || c.ok && got != c.want {
			t.Errorf("parseSeconds(%q) = %v, %v; want %v (ok %v)", c.in, got, err, c.want, c.ok)
		}
	}
}

func FuzzParseSeconds(f *testing.F) {
	for _, s := range []string{"30", "1.5", "-5", "30s", "500ms", "1h30m", "", "NaN", "1e3", "0.000000001"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := parseSeconds(s)
		if err != nil {
			return
		}
		// What parses as a bare number is that many seconds.
		if bare(s) {
			if d2, err := time.ParseDuration(strings.TrimSpace(s) + "s"); err != nil || d2 != d {
				t.Errorf("%q: %v, and %q with s is %v", s, d, s, d2)
			}
		}
	})
}

func TestThinkWithUnits(t *testing.T) {
	for in, want := range map[string]string{
		"":            "",
		"10ms":        "10ms",     // as typed
		"0.01":        "10ms",     // bare seconds get their unit
		"5ms-20ms":    "5ms-20ms", // as typed
		"0.005-0.02":  "5ms-20ms", // both bare
		"0.005-20ms":  "5ms-20ms", // one bare
		"90s":         "90s",      // a unit kept as typed, not 1m30s
		"soon":        "soon",     // refused by parseThink, left alone
		"1.5":         "1.5s",     // seconds
		"0.001-0.001": "1ms-1ms",  // a range of one value
	} {
		if got := thinkWithUnits(in); got != want {
			t.Errorf("thinkWithUnits(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestRunTakesBareSeconds: kurabe run's -d, --warmup and --think take a
// bare number as seconds, as kurabe http's -d and ab's -t do, on the
// command line and in a scenario file; the result says them with units.
// Before, run refused -d 1 with "want a duration such as 5s or 2m".
func TestRunTakesBareSeconds(t *testing.T) {
	dir := t.TempDir()
	scenario := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(scenario, []byte("run:\n  store: \"sqlite:\"\n  ops: write\n  c: 1\n  d: 0.3\n  warmup: 0.1\n  think: 0.001\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, args := range map[string][]string{
		"flags":    {"run", "--store", "sqlite:", "--ops", "write", "-c", "1", "-d", "0.3", "--warmup", "0.1", "--think", "0.001"},
		"scenario": {"run", scenario},
	} {
		t.Run(name, func(t *testing.T) {
			js := filepath.Join(t.TempDir(), "out.json")
			out, errs, code := runCLI(t, testApp(), append(args, "-q", "--json", js)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			if !strings.Contains(out, "duration 300ms per op · warm-up 100ms · think 1ms") {
				t.Errorf("the line of what ran does not say the times with units:\n%s", out)
			}
			doc, err := result.ReadFile(js)
			if err != nil {
				t.Fatal(err)
			}
			r := doc.Run
			if time.Duration(r.Duration) != 300*time.Millisecond || time.Duration(r.Warmup) != 100*time.Millisecond || r.Think != "1ms" {
				t.Errorf("result: duration %v, warm-up %v, think %q; want 300ms, 100ms, 1ms", time.Duration(r.Duration), time.Duration(r.Warmup), r.Think)
			}
		})
	}
}
