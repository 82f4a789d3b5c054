package httpload

import (
	"encoding/base64"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"kurabe/flow"
	"kurabe/redact"
)

// Credentials are kept out of everything kurabe http records or prints:
// the command line in the result, the run's parameters, the targets' URLs
// and the failures' messages. A URL's password and the values of query
// parameters named like secrets become xxxxx (as url.URL.Redacted writes
// a password); header values and flow variables named like secrets are
// replaced in a message wherever they occur when they have 4 characters
// or more, and where they stand as words when shorter (redact.Secrets).
// Messages are scrubbed when
// they are made, which is once per error class and client, never per
// request.

// Redacted replaces a secret in URLs and messages, as store specs hide
// passwords. (The recorded command line and parameters say REDACTED
// instead, where a value is dropped whole; docs/http.md.)
const Redacted = redact.Mask

// secretName matches names of headers, flow variables and query
// parameters whose values are secrets.
var secretName = regexp.MustCompile(`(?i)pass|secret|token|key|auth|session|cookie`)

// SecretName reports whether a header, flow variable or query parameter
// named name holds a secret: its name contains pass, secret, token, key,
// auth, session or cookie (Authorization, Proxy-Authorization, Cookie,
// X-Api-Key, X-Auth-Token, password, api_key, ...).
func SecretName(name string) bool { return secretName.MatchString(name) }

// RedactURL returns u with the password of its user information and the
// values of query parameters named like secrets replaced by xxxxx, the
// rest as written. u is returned as it is when there is nothing to hide.
func RedactURL(u string) string {
	i := strings.Index(u, "://")
	if i < 0 {
		return u
	}
	start := i + 3
	end := len(u)
	if j := strings.IndexAny(u[start:], "/?#"); j >= 0 {
		end = start + j
	}
	out := u
	if at := strings.LastIndexByte(u[start:end], '@'); at >= 0 {
		user := u[start : start+at]
		if c := strings.IndexByte(user, ':'); c >= 0 && c < len(user)-1 {
			out = u[:start+c+1] + Redacted + u[start+at:]
		} else if c < 0 && user != "" && user != Redacted {
			// A user name alone may be a token (https://TOKEN@host/).
			out = u[:start] + Redacted + u[start+at:]
		}
	}
	q := strings.IndexByte(out, '?')
	if q < 0 {
		return out
	}
	query, frag := out[q+1:], ""
	if h := strings.IndexByte(query, '#'); h >= 0 {
		query, frag = query[:h], query[h:]
	}
	changed := false
	parts := strings.Split(query, "&")
	for k, p := range parts {
		name, value, ok := strings.Cut(p, "=")
		if !ok || value == "" || value == Redacted || strings.HasPrefix(value, "{{") && strings.HasSuffix(value, "}}") {
			continue // nothing, or a flow's {{variable}}, not its value
		}
		if n, err := url.QueryUnescape(name); err == nil {
			name = n
		}
		if SecretName(name) {
			parts[k] = p[:len(p)-len(value)] + Redacted
			changed = true
		}
	}
	if !changed {
		return out
	}
	return out[:q+1] + strings.Join(parts, "&") + frag
}

// urlInText finds URLs in a message.
var urlInText = regexp.MustCompile(`(?i)https?://[^\s"'<>` + "`" + `]+`)

// RedactText applies RedactURL to every http:// or https:// URL in s.
func RedactText(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	return urlInText.ReplaceAllStringFunc(s, func(u string) string {
		// Punctuation that ends a sentence or a "URL: message" is not the
		// URL's.
		trimmed := strings.TrimRight(u, ":,;.)]")
		return RedactURL(trimmed) + u[len(trimmed):]
	})
}

// minSecret is the shortest part of a secret generator's text that
// SecretWords scrubs on its own.
const minSecret = 4

// SecretWords returns what to scrub for a secret value given as text that
// may be a generator ({choice: [alice, bob]}): the value, and each of its
// runs of letters and digits long enough to scrub, since a message about
// a bad generator quotes a part of it, not the whole.
func SecretWords(v string) []string {
	out := []string{v}
	for _, w := range strings.FieldsFunc(v, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len(w) >= minSecret && w != v && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// headerSecrets returns what to scrub for a header value: the value, and
// its credentials after a scheme ("Bearer TOKEN", "Basic BASE64"), and for
// basic authentication also user:password and the password decoded, which
// a server's error page may show.
func headerSecrets(dst []string, value string) []string {
	value = strings.TrimSpace(value)
	if value == "" {
		return dst
	}
	dst = append(dst, value)
	if scheme, cred, ok := strings.Cut(value, " "); ok {
		if cred = strings.TrimSpace(cred); cred != "" {
			dst = append(dst, cred)
		}
		if b, err := base64.StdEncoding.DecodeString(cred); err == nil && strings.EqualFold(scheme, "basic") {
			user, pw, _ := strings.Cut(string(b), ":")
			dst = append(dst, string(b))
			if pw != "" {
				dst = append(dst, pw)
			} else {
				dst = append(dst, user)
			}
		}
	}
	return dst
}

// userSecrets returns what to scrub for the user information of a URL
// (see UserSecrets).
func userSecrets(dst []string, rawURL string) []string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return dst
	}
	return UserSecrets(dst, u.User)
}

// UserSecrets returns what to scrub for a URL's user information sent as
// basic authentication (a flow's base http://user:password@host, an http:
// store's URL): the password (or a user name given alone, which may be a
// token), user:password and its base64 as sent.
func UserSecrets(dst []string, u *url.Userinfo) []string {
	if u == nil {
		return dst
	}
	pw, _ := u.Password()
	return headerSecrets(dst, "Basic "+base64.StdEncoding.EncodeToString([]byte(u.Username()+":"+pw)))
}

// Quote quotes s for a message as %q does, clipped to 100 characters
// with an ellipsis, so that a 4 MB line does not fill the screen.
func Quote(s string) string {
	c, cut := clipRunes(s, 100)
	q := strconv.Quote(c)
	if cut {
		q = q[:len(q)-1] + `…"`
	}
	return q
}

// clipText returns s, which may be another error's text, cut to at most
// n runes with "…" when cut, and with control characters escaped as %q
// would; quotes and backslashes stay as they are.
func clipText(s string, n int) string {
	c, cut := clipRunes(s, n)
	if strings.IndexFunc(c, unicode.IsControl) >= 0 {
		var b strings.Builder
		for _, r := range c {
			if unicode.IsControl(r) {
				q := strconv.QuoteRune(r)
				b.WriteString(q[1 : len(q)-1])
			} else {
				b.WriteRune(r)
			}
		}
		c = b.String()
	}
	if cut {
		c += "…"
	}
	return c
}

// clipRunes cuts s to at most n runes and says whether it did.
func clipRunes(s string, n int) (string, bool) {
	if utf8.RuneCountInString(s) <= n {
		return s, false
	}
	i := 0
	for k := range s {
		if i == n {
			return s[:k], true
		}
		i++
	}
	return s, false
}

// flowSecretVars returns the names of f's variables named like secrets:
// drawn, given with --set, or extracted from a response (a token).
func flowSecretVars(f *flow.Flow) []string {
	var out []string
	add := func(n string) {
		if SecretName(n) && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	for _, v := range f.Vars {
		add(v.Name)
	}
	for i := range f.Steps {
		for _, v := range f.Steps[i].Vars {
			add(v.Name)
		}
		for _, e := range f.Steps[i].Extract {
			add(e.Name)
		}
	}
	return out
}

// BodyText returns the start of a response body for a one-line message:
// every run of white space or control characters (a page's newlines, its
// indentation) becomes one space, the text is cut at n characters with
// "…", and a body that is not text (a NUL byte, bytes that are not UTF-8)
// gives "". A server's error page or JSON reason says why a request
// failed; its lines must not break the report's, nor its size fill it.
// The caller scrubs secrets from the result (a page may echo a request's
// Authorization header).
func BodyText(b []byte, n int) string {
	clipped := len(b) > 4*n+4
	if clipped {
		b = b[:4*n+4] // enough for n characters of UTF-8, unless white space takes much of it
	}
	var sb strings.Builder
	chars, space := 0, false
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == 0 || r == utf8.RuneError && size == 1 && len(b) >= utf8.UTFMax {
			return "" // binary, not text (a rune cut by the clip above is fine)
		}
		b = b[size:]
		if r == utf8.RuneError && size == 1 {
			break // the end, cut in the middle of a character
		}
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			space = sb.Len() > 0
			continue
		}
		need := 1
		if space {
			need = 2
		}
		if chars+need > n {
			sb.WriteString("…")
			return sb.String()
		}
		if space {
			sb.WriteByte(' ')
			space = false
		}
		sb.WriteRune(r)
		chars += need
	}
	if clipped && sb.Len() > 0 {
		sb.WriteString("…") // the body goes on past what was read
	}
	return sb.String()
}
