package httpload

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
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
// message is the first, with a count of the rest, on one line.
type ParseError struct {
	Errs []*SyntaxError
}

func (e *ParseError) Error() string {
	s := e.Errs[0].Error()
	switch n := len(e.Errs) - 1; {
	case n == 1:
		s += " (and 1 more problem)"
	case n > 1:
		s += fmt.Sprintf(" (and %d more problems)", n)
	}
	return s
}

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
		full, err := checkURL(u)
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
				fail(line, "%q after the URL is not a method; want URL [%s [BODY | <FILE]]", m, strings.Join(methods, "|"))
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
					fail(line, "cannot read the body file %s here", file)
					continue
				}
				b, err := opt.ReadFile(file)
				if err != nil {
					var p *os.PathError
					if errors.As(err, &p) {
						err = p.Err
					}
					fail(line, "cannot read the body file %s: %v", file, err)
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
			return "", fmt.Errorf("$(%s) is not defined; define it on a line before, as %s=value, or in the environment", name, name)
		}
		b.WriteString(s[:i])
		b.WriteString(v)
		s = s[i+2+j+1:]
	}
}

// checkURL completes a URL without a scheme with http:// (as siege does)
// and checks that it names an http or https server.
func checkURL(u string) (string, error) {
	if !strings.Contains(u, "://") {
		u = "http://" + u
	}
	p, err := url.Parse(u)
	if err != nil {
		return "", fmt.Errorf("%q is not a URL: %v", u, errors.Unwrap(err))
	}
	if p.Scheme != "http" && p.Scheme != "https" {
		return "", fmt.Errorf("%q: kurabe speaks http:// and https://, not %s://", u, p.Scheme)
	}
	if p.Host == "" || p.Hostname() == "" {
		return "", fmt.Errorf("%q has no host", u)
	}
	if p.User != nil {
		return "", fmt.Errorf("%q: give credentials with -A user:password, not in the URL", u)
	}
	return u, nil
}
