package httpload

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"

	"kurabe/flow"
)

// URLFileOptions are what parsing a URL file needs from outside it.
type URLFileOptions struct {
	// ReadFile reads the body file of a "URL POST <file" line, by the name
	// as written. Nil: such lines are an error.
	ReadFile func(name string) ([]byte, error)
	// Getenv looks up a $(NAME) the file does not define. Nil: none.
	Getenv func(name string) (string, bool)
	// ContentType is sent with bodies; empty means
	// application/x-www-form-urlencoded, as siege sends.
	ContentType string
}

// SyntaxError is a problem at one line of a URL file.
type SyntaxError struct {
	File string
	Line int
	Msg  string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// ParseError holds every problem found in a file, in line order; its
// message lists them one per line, as a flow's does.
type ParseError struct {
	Errs []*SyntaxError
}

func (e *ParseError) Error() string { return flow.ListProblems(e.Errs) }

// methods a URL file line may name after its URL.
var methods = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}

// ParseURLFile reads a URL file in siege's format, one request per line:
//
//	# a comment
//	HOST=127.0.0.1:3001                       a variable, used as $(HOST) or ${HOST}
//	http://$(HOST)/read_file                  GET
//	$(HOST)/write POST category=test&text=x   POST with this body (no scheme: http://)
//	http://$(HOST)/write PUT <post.txt        PUT with the body read from a file
//
// Every problem is reported with its line; the targets come back only when
// there is none.
func ParseURLFile(name string, data []byte, opt URLFileOptions) ([]Target, error) {
	vars := map[string]string{}
	var out []Target
	pe := &ParseError{}
	fail := func(line int, format string, args ...any) {
		pe.Errs = append(pe.Errs, &SyntaxError{File: name, Line: line, Msg: fmt.Sprintf(format, args...)})
	}
	ctype := opt.ContentType
	if ctype == "" {
		ctype = "application/x-www-form-urlencoded"
	}
	for i, raw := range strings.Split(string(data), "\n") {
		line := i + 1
		s := strings.TrimSpace(raw)
		if s == "" || s[0] == '#' {
			continue
		}
		if k, v, ok := strings.Cut(s, "="); ok && validVarName(k) {
			v, err := expand(strings.TrimSpace(v), vars, opt.Getenv)
			if err != nil {
				fail(line, "%v", err)
				continue
			}
			vars[k] = strings.Trim(v, `"'`)
			continue
		}
		written := s
		s, err := expand(s, vars, opt.Getenv)
		if err != nil {
			fail(line, "%v", err)
			continue
		}
		u, rest, _ := strings.Cut(s, " ")
		if i := strings.IndexAny(u, "\t"); i >= 0 {
			u, rest = u[:i], u[i+1:]+" "+rest
		}
		rest = strings.TrimSpace(rest)
		// Messages quote the URL as written: a $(NAME) may come from the
		// environment and hold a secret.
		shown := ""
		if written != s {
			shown, _, _ = strings.Cut(written, " ")
			if i := strings.IndexByte(shown, '\t'); i >= 0 {
				shown = shown[:i]
			}
		}
		full, err := checkURLAs(u, shown, false)
		if err != nil {
			fail(line, "%v", err)
			continue
		}
		t := Target{Method: "GET", URL: full, Line: line}
		if rest != "" {
			m, body, _ := strings.Cut(rest, " ")
			if j := strings.IndexByte(m, '\t'); j >= 0 {
				m, body = m[:j], m[j+1:]+" "+body
			}
			m = strings.ToUpper(m)
			if !contains(methods, m) {
				fail(line, "%s after the URL is not a method; want URL [%s [BODY | <FILE]]", Quote(m), strings.Join(methods, "|"))
				continue
			}
			t.Method = m
			body = strings.TrimSpace(body)
			if strings.HasPrefix(body, "<") {
				file := strings.TrimSpace(body[1:])
				if file == "" {
					fail(line, "%s <: name the file that holds the body", m)
					continue
				}
				if opt.ReadFile == nil {
					fail(line, "cannot read the body file %s here", Quote(file))
					continue
				}
				b, err := opt.ReadFile(file)
				if err != nil {
					var p *os.PathError
					if errors.As(err, &p) {
						err = p.Err
					}
					fail(line, "cannot read the body file %s: %v", Quote(file), err)
					continue
				}
				t.Body = b
			} else if body != "" {
				t.Body = []byte(body)
			}
			if t.Body != nil {
				t.ContentType = ctype
			}
		}
		out = append(out, t)
	}
	if len(pe.Errs) > 0 {
		return nil, pe
	}
	if len(out) == 0 {
		return nil, &ParseError{Errs: []*SyntaxError{{File: name, Line: 1, Msg: "no URLs in the file; give one per line: URL [POST BODY | POST <FILE]"}}}
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func validVarName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		switch {
		case c == '_', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// expand replaces $(NAME) and ${NAME} by their values.
func expand(s string, vars map[string]string, getenv func(string) (string, bool)) (string, error) {
	if !strings.Contains(s, "$") {
		return s, nil
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "$")
		if i < 0 || i+1 >= len(s) || (s[i+1] != '(' && s[i+1] != '{') {
			if i < 0 || i+1 >= len(s) {
				b.WriteString(s)
				return b.String(), nil
			}
			b.WriteString(s[:i+1])
			s = s[i+1:]
			continue
		}
		closer := ")"
		if s[i+1] == '{' {
			closer = "}"
		}
		j := strings.Index(s[i+2:], closer)
		if j < 0 {
			return "", fmt.Errorf("%s without a closing %s", s[i:i+2], closer)
		}
		name := s[i+2 : i+2+j]
		v, ok := vars[name]
		if !ok && getenv != nil {
			v, ok = getenv(name)
		}
		if !ok {
			name = clipText(name, 40)
			return "", fmt.Errorf("$(%s) is not defined; define it on a line before, as %s=value, or in the environment", name, name)
		}
		b.WriteString(s[:i])
		b.WriteString(v)
		s = s[i+2+j+1:]
	}
}

// CheckURL completes a URL without a scheme with http:// (as siege does)
// and checks that it can be sent: an http or https scheme, a host, a port
// from 1 to 65535, no control characters, and user information only when
// credentials is true. What cannot be sent as written but means one thing
// is percent-encoded: spaces, non-ASCII bytes, the characters a request
// line may not carry ("<>\^`{|}). A % that starts no escape is refused:
// it is as likely a typo as a literal %. It returns the URL to send.
// Messages quote the URL with its password hidden, clipped.
func CheckURL(u string, credentials bool) (string, error) {
	return checkURLAs(u, "", credentials)
}

// checkURLAs is CheckURL, with messages quoting shown instead of u when
// shown is not empty (the line of a URL file as written, before its
// variables were expanded, since they may come from the environment).
func checkURLAs(u, shown string, credentials bool) (string, error) {
	if !strings.Contains(u, "://") {
		u = "http://" + u
	}
	if shown == "" {
		shown = u
	}
	show := Quote(RedactURL(shown))
	for i := 0; i < len(u); i++ {
		if c := u[i]; c < 0x20 || c == 0x7f {
			return "", fmt.Errorf("%s has a control character (byte 0x%02x), which a request cannot carry; percent-encode it as %%%02X", show, c, c)
		}
	}
	for i := urlPathStart(u); i < len(u); i++ {
		if u[i] == '%' && (i+2 >= len(u) || !isHex(u[i+1]) || !isHex(u[i+2])) {
			return "", fmt.Errorf("%s is not a URL: %s starts no escape; write a %% itself as %%25", show, Quote(u[i:min(i+3, len(u))]))
		}
	}
	esc := escapeURL(u)
	p, err := url.Parse(esc)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return "", fmt.Errorf("%s is not a URL: %s", show, clipText(err.Error(), 120))
	}
	if p.Scheme != "http" && p.Scheme != "https" {
		return "", fmt.Errorf("%s: kurabe speaks http:// and https://, not %s://", show, clipText(p.Scheme, 20))
	}
	if p.Host == "" || p.Hostname() == "" {
		return "", fmt.Errorf("%s has no host", show)
	}
	if port := p.Port(); port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return "", fmt.Errorf("%s: port %s is out of range; ports go from 1 to 65535", show, clipText(port, 20))
		}
	}
	if p.User != nil && !credentials {
		return "", fmt.Errorf("%s: give credentials with -A user:password, not in the URL", show)
	}
	return esc, nil
}

// escapeURL percent-encodes what follows the host of u where a request
// line cannot carry it as written (see CheckURL); u is returned as it is
// when nothing needs encoding.
func escapeURL(u string) string {
	start := urlPathStart(u)
	i := start
	for i < len(u) && !mustEscape(u, i) {
		i++
	}
	if i == len(u) {
		return u
	}
	return string(appendEscaped(make([]byte, 0, len(u)+16), u, start))
}

// urlPathStart is the index of what follows scheme://host[:port] in u.
func urlPathStart[S string | []byte](u S) int {
	i := 0
	for ; i+2 < len(u); i++ {
		if u[i] == ':' && u[i+1] == '/' && u[i+2] == '/' {
			break
		}
	}
	if i+2 >= len(u) {
		return 0
	}
	for i += 3; i < len(u); i++ {
		if c := u[i]; c == '/' || c == '?' || c == '#' {
			break
		}
	}
	return i
}

// mustEscape reports whether u[i] cannot go into a request line as it is.
func mustEscape[S string | []byte](u S, i int) bool {
	switch c := u[i]; {
	case c <= ' ' || c >= 0x7f:
		return true
	default:
		return strings.IndexByte(`"<>\^`+"`"+`{|}`, c) >= 0
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// appendEscaped appends u to dst, percent-encoding from index start on
// what mustEscape reports.
func appendEscaped[S string | []byte](dst []byte, u S, start int) []byte {
	const hex = "0123456789ABCDEF"
	dst = append(dst, u[:start]...)
	for i := start; i < len(u); i++ {
		if mustEscape(u, i) {
			c := u[i]
			dst = append(dst, '%', hex[c>>4], hex[c&15])
			continue
		}
		dst = append(dst, u[i])
	}
	return dst
}
