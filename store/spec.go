package store

import (
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Spec is a parsed --store argument: "driver:target?opt=value&...".
// Target is a path for file stores, empty for a temporary one, and a URL
// for servers ("postgres://user@host/db" keeps its "//").
type Spec struct {
	Driver  string
	Target  string
	Options url.Values
	Raw     string
}

// ParseSpec parses a --store argument.
func ParseSpec(s string) (Spec, error) {
	driver, rest, ok := strings.Cut(s, ":")
	if !ok || driver == "" {
		return Spec{}, fmt.Errorf("store %q: want DRIVER:[TARGET][?OPTION=VALUE&...], e.g. sqlite:/tmp/bbs.db?journal_mode=wal or file:", s)
	}
	// Several unencoded @ make an address that parsers read differently
	// (Go's net/url splits the user part at the last @, pgx connected to a
	// host named by the password's tail): refused before anything reads it.
	if strings.HasPrefix(rest, "//") && strings.Count(rest, "@") > 1 {
		return Spec{}, fmt.Errorf("store %s: the address holds %d unencoded @ where only one, the one that ends USER:PASSWORD, may stand: write an @ in a password (or a user or database name) %%-encoded, as %%40 (and a /, ?, #, %% or space as %%2F, %%3F, %%23, %%25, %%20)",
			RedactSpec(s), strings.Count(rest, "@"))
	}
	target, query, _ := strings.Cut(rest, "?")
	// A ? in a URL's password (//u:pa?ss@host): the options begin after
	// the @, not in the password, which would be shown as an option name.
	if u, _, _ := strings.Cut(strings.TrimPrefix(target, "//"), "/"); strings.HasPrefix(rest, "//") && strings.Contains(u, ":") && !strings.Contains(u, "@") {
		if at := strings.LastIndex(rest, "@"); at > len(target) {
			target, query, _ = strings.Cut(rest[at:], "?")
			target = rest[:at] + target
		}
	}
	opts, err := url.ParseQuery(query)
	if err != nil {
		// The options may be a password's tail (a ? in it), and url's
		// message quotes them: neither is shown.
		return Spec{}, fmt.Errorf("store %s: cannot read the options after the ?; write them as NAME=VALUE&NAME=VALUE, a %% as %%25 (a ? or %% in a password %%-encoded as %%3F, %%25)", RedactSpec(s))
	}
	for k, v := range opts {
		if len(v) > 1 {
			return Spec{}, fmt.Errorf("store %q: option %s given %d times; give it once", s, k, len(v))
		}
	}
	return Spec{Driver: strings.ToLower(driver), Target: target, Options: opts, Raw: s}, nil
}

// Throwaway reports whether the spec names a store kurabe makes for the
// run and removes: no path, or a server kurabe starts itself (managed).
func (s Spec) Throwaway() bool { return s.Target == "" || s.Target == "managed" }

// String returns the spec with any password in a URL target, and the
// value of any option named like one (password=, a likely mistake for
// the URL's user:password), replaced by "xxxxx", safe to print and record.
func (s Spec) String() string {
	out := s.Driver + ":" + RedactTarget(s.Target)
	if len(s.Options) > 0 {
		opts := url.Values{}
		for k, v := range s.Options {
			if secretOption(k) {
				v = []string{"xxxxx"}
			}
			opts[k] = v
		}
		out += "?" + opts.Encode()
	}
	return out
}

// secretOption says whether an option's name says its value is a secret:
// password and its short forms, or a name ending in one. Narrower than
// kurabe http's rule for headers, since server settings such as
// password_encryption or idle_session_timeout are options too and are
// varied and read back in the open.
func secretOption(name string) bool {
	n := strings.ToLower(name)
	switch n {
	case "password", "passwd", "pwd", "pass", "secret", "token":
		return true
	}
	return strings.HasSuffix(n, "_password") || strings.HasSuffix(n, "_secret")
}

// RedactTarget hides the password in a target: a URL's, whether or not it
// parses, a Go driver DSN's (user:password@tcp(…)), and a key=value form's
// secret-named values.
func RedactTarget(target string) string {
	// A key=value form (libpq's "host=h password=p"): secret-named values.
	target = keyValue.ReplaceAllStringFunc(target, func(m string) string {
		k, _, _ := strings.Cut(m, "=")
		if secretOption(k) {
			return k + "=xxxxx"
		}
		return m
	})
	// All from the first colon of the user part to the last @ may be
	// password, whether or not the whole parses as a URL: an unencoded /,
	// ? or @ in a password makes a URL that parses as something else
	// (//u:12/34@h is host u, port 12). A Go driver's DSN (user:pass@tcp(…))
	// has the same shape without the //.
	start := 0
	if strings.HasPrefix(target, "//") {
		start = 2
	}
	if at := strings.LastIndex(target, "@"); at >= start {
		user := target[start:at]
		if c := strings.Index(user, ":"); c >= 0 {
			return target[:start] + user[:c] + ":xxxxx" + target[at:]
		}
		return target
	}
	if start == 2 {
		if _, err := url.Parse("x:" + target); err != nil {
			// No @, so no user part, unless the host was left out
			// (//user:password): what follows a colon stays hidden.
			if c := strings.Index(target, ":"); c >= 0 {
				return target[:c] + ":xxxxx"
			}
		}
	}
	return target
}

// RedactSpec is a --store argument safe to print when it may not parse:
// for a URL (driver://…@…), all from the // to the last @ is hidden, user
// included, since an unencoded @, /, ? or # in a password leaves no way to
// tell where the password ends; any option named as a secret is hidden too.
func RedactSpec(raw string) string {
	driver, rest, ok := strings.Cut(raw, ":")
	if !ok || !strings.HasPrefix(rest, "//") {
		return HideSecrets(raw)
	}
	if at := strings.LastIndex(rest, "@"); at >= 0 {
		rest = "//" + Mask + rest[at:]
	} else if _, err := url.Parse("x:" + rest); err != nil {
		// No @: what follows a colon may be a password whose host
		// was left out (//user:password).
		if c := strings.Index(rest, ":"); c >= 0 {
			rest = rest[:c] + ":" + Mask
		}
	}
	return HideSecrets(driver + ":" + rest)
}

// Mask stands for a hidden password, as url.URL.Redacted writes it.
const Mask = "xxxxx"

// AddressProblem says what is wrong with a URL-shaped target that does not
// parse, without quoting its password: the port, or a / in the password.
// It is "" when it cannot tell.
func AddressProblem(target string) string {
	at := strings.LastIndex(target, "@")
	hostport := target[at+1:]
	if at < 0 {
		hostport = strings.TrimPrefix(target, "//")
	}
	hostport, _, _ = strings.Cut(hostport, "/")
	if c := strings.LastIndex(hostport, ":"); c >= 0 && c > strings.LastIndex(hostport, "]") {
		port := hostport[c+1:]
		if _, err := strconv.ParseUint(port, 10, 16); err != nil {
			if at < 0 {
				// No @: what looks like a port may be a password
				// whose host was left out (//user:password).
				return "what follows the last : before the path is not a port, a number from 0 to 65535"
			}
			return fmt.Sprintf("its port %q is not a number from 0 to 65535", port)
		}
	}
	if at >= 0 && strings.ContainsAny(target[2:at], "/?#") {
		return "the part before the @ holds a /, ? or #: write them %-encoded in a password (%2F, %3F, %23)"
	}
	return ""
}

// Options is a helper for drivers reading their options: it records which
// ones were used, so unknown ones can be reported.
type Options struct {
	driver string
	vals   url.Values
	known  []string
}

// NewOptions wraps a spec's options for a driver.
func NewOptions(s Spec) *Options { return &Options{driver: s.Driver, vals: s.Options} }

// Get returns the option's value, or def when not given.
func (o *Options) Get(name, def string) string {
	o.known = append(o.known, name)
	if v, ok := o.vals[name]; ok {
		return v[0]
	}
	return def
}

// Check returns an error naming the first option the driver did not ask for.
func (o *Options) Check() error {
	for k := range o.vals {
		found := false
		for _, n := range o.known {
			found = found || n == k
		}
		if !found {
			return &OptionError{Driver: o.driver, Name: k, Want: strings.Join(o.known, ", ")}
		}
	}
	return nil
}

// urlPassword finds the password of a URL written in text
// (scheme://user:password@), secretParam an option named as a secret, and
// keyValue a key=value word (a libpq connection string's).
var (
	keyValue    = regexp.MustCompile(`\b[A-Za-z_][A-Za-z0-9_]*=\S+`)
	urlPassword = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://[^\s/@:'"]*):[^\s/@'"]*@`)
	secretParam = regexp.MustCompile(`([?&]([A-Za-z0-9_]+)=)([^&\s'"]*)`)
)

// HideSecrets hides in a message every password of a URL and every value
// of an option named as a secret (as Spec.String does for one spec), for
// text that may quote a store spec given in the wrong place.
func HideSecrets(s string) string {
	if !strings.Contains(s, "://") && !strings.Contains(s, "=") {
		return s
	}
	s = urlPassword.ReplaceAllString(s, "$1:xxxxx@")
	return secretParam.ReplaceAllStringFunc(s, func(m string) string {
		sub := secretParam.FindStringSubmatch(m)
		if !secretOption(sub[2]) {
			return m
		}
		// Punctuation that ends a "spec: message" is not the value's.
		v := sub[3]
		return sub[1] + "xxxxx" + v[len(strings.TrimRight(v, ":,;.)]")):]
	})
}

// NearOption returns the one of options that name is a likely misspelling
// of (one or two letters off; the nearest, the first of equals), or "". A
// managed server takes every other option as a server setting, so a
// misspelt kurabe option would reach the server and fail it with the
// server's own message.
func NearOption(name string, options []string) string {
	n := strings.ToLower(name)
	best, bestD := "", 3
	if len(n) <= 3 {
		return ""
	}
	for _, o := range options {
		if d := editDistance(n, o); n != o && d < bestD {
			best, bestD = o, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, sub)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// LowerSettings returns the spec of a managed server with the names of
// its server settings in lower case, as the servers take them in any case
// (PostgreSQL's Shared_Buffers is shared_buffers, MariaDB's
// Max_Connections max_connections), so that every check, the store line
// and the result see one name. own are the driver's own options, whose
// names are taken as given (a Connect is not connect, and stays as it is
// for the driver to refuse). A setting given twice under two spellings is
// an error.
func LowerSettings(s Spec, own []string) (Spec, error) {
	var rename []string
	for k := range s.Options {
		if lower := strings.ToLower(k); lower != k && !slices.Contains(own, lower) {
			rename = append(rename, k)
		}
	}
	if len(rename) == 0 {
		return s, nil
	}
	slices.Sort(rename)
	out := s
	out.Options = url.Values{}
	for k, v := range s.Options {
		out.Options[k] = v
	}
	for _, k := range rename {
		lower := strings.ToLower(k)
		if _, twice := out.Options[lower]; twice {
			return s, fmt.Errorf("%s: server setting %s is given twice, as %s (setting names are the same in any case); give it once", s.Driver, lower, strings.Join(spellings(s.Options, lower), " and as "))
		}
		out.Options[lower] = out.Options[k]
		delete(out.Options, k)
	}
	return out, nil
}

// spellings are the names under which options holds lower, in order.
func spellings(options url.Values, lower string) []string {
	var out []string
	for _, n := range slices.Sorted(maps.Keys(options)) {
		if strings.ToLower(n) == lower {
			out = append(out, n)
		}
	}
	return out
}
