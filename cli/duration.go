package cli

import (
	"errors"
	"flag"
	"strings"
	"time"
)

// parseSeconds reads a time as every command's duration flags take it: a
// bare number of seconds (30, 1.5), as ab's -t and kurabe http's -d take
// it, or a Go duration with its unit (30s, 500ms, 2m). The sign is kept:
// whether a flag takes 0 or less is its own check's to say, with its own
// message.
func parseSeconds(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if bare(s) {
		// As a duration in seconds, which time parses exactly (1.001 is
		// 1.001s, where a float times a second would give 1.000999999s).
		return time.ParseDuration(s + "s")
	}
	return time.ParseDuration(s)
}

// bare says whether s is written as a number without a unit (digits, a
// sign, a point; not 1e3, NaN or Inf), which parseSeconds reads as
// seconds.
func bare(s string) bool {
	s = strings.TrimSpace(s)
	return s != "" && strings.Trim(s, "+-.0123456789") == ""
}

// withUnit writes a time given as a bare number of seconds with its unit
// (1.5 as 1.5s), so that a result and its report say what it was; one
// given with a unit is kept as typed.
func withUnit(s string, d time.Duration) string {
	if bare(s) {
		return d.String()
	}
	return s
}

// durationValue is a duration flag that takes parseSeconds' forms. Its
// Get is a time.Duration, so that a bad value is said as a duration's
// (takes).
type durationValue time.Duration

func (d *durationValue) Set(s string) error {
	v, err := parseSeconds(s)
	if err != nil {
		return errors.New("parse error") // takes says what the flag takes
	}
	*d = durationValue(v)
	return nil
}

func (d *durationValue) String() string { return time.Duration(*d).String() }
func (d *durationValue) Get() any       { return time.Duration(*d) }

// durationVar defines a duration flag that takes a bare number as seconds
// (parseSeconds). Its usage names the value in backquotes (a `duration`),
// as the flag package's own duration flags are shown.
func durationVar(fs *flag.FlagSet, p *time.Duration, name string, value time.Duration, usage string) {
	*p = value
	fs.Var((*durationValue)(p), name, usage)
}
