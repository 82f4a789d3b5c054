package flow

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Template is text with {{name}} placeholders, split once at parse time
// into literal parts and variable references, so rendering only appends
// bytes to a buffer the caller reuses.
//
// A reference may carry one filter: {{name|url}} percent-encodes the value
// for a query string or form body, {{name|json}} escapes it for the inside
// of a JSON string. Without a filter the value is inserted as it is.
type Template struct {
	src     string
	parts   []part
	pending []ref // references until every variable has an index
}

type part struct {
	lit    string
	v      int // variable index, or -1 for a literal
	filter filter
}

type filter uint8

const (
	raw filter = iota
	urlEscape
	jsonEscape
)

// ref is a variable reference found while parsing, before names are
// resolved to indexes.
type ref struct {
	name   string
	filter filter
}

// parseTemplate splits s into literals and references. Names are resolved
// later by resolve, once every variable of the flow is known.
func parseTemplate(s string) (Template, []ref, error) {
	t := Template{src: s}
	var refs []ref
	rest := s
	for {
		i := strings.Index(rest, "{{")
		if i < 0 {
			if rest != "" {
				t.parts = append(t.parts, part{lit: rest, v: -1})
			}
			return t, refs, nil
		}
		if i > 0 {
			t.parts = append(t.parts, part{lit: rest[:i], v: -1})
		}
		j := strings.Index(rest[i+2:], "}}")
		if j < 0 {
			return t, nil, fmt.Errorf("%q: {{ without a closing }}", s)
		}
		inner := strings.TrimSpace(rest[i+2 : i+2+j])
		name, filt, hasFilter := strings.Cut(inner, "|")
		name, filt = strings.TrimSpace(name), strings.TrimSpace(filt)
		if !validName(name) {
			return t, nil, fmt.Errorf("%q: {{%s}} is not a variable name (letters, digits and _, not starting with a digit)", s, inner)
		}
		f := raw
		if hasFilter {
			switch filt {
			case "url":
				f = urlEscape
			case "json":
				f = jsonEscape
			default:
				return t, nil, fmt.Errorf("%q: unknown filter %q in {{%s}}; filters are url and json", s, filt, inner)
			}
		}
		refs = append(refs, ref{name: name, filter: f})
		t.parts = append(t.parts, part{v: len(refs) - 1, filter: f}) // index into refs until resolved
		rest = rest[i+2+j+2:]
	}
}

// resolve replaces reference numbers by variable indexes.
func (t *Template) resolve(refs []ref, index map[string]int) {
	for i := range t.parts {
		if p := &t.parts[i]; p.v >= 0 {
			p.v = index[refs[p.v].name]
		}
	}
}

func validName(s string) bool {
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

// String returns the template as written.
func (t Template) String() string { return t.src }

// literal is a template of text alone, taken as it is ({{ included}}).
func literal(s string) Template {
	return Template{src: s, parts: []part{{lit: s, v: -1}}}
}

// Static reports whether the template has no references.
func (t Template) Static() bool {
	for _, p := range t.parts {
		if p.v >= 0 {
			return false
		}
	}
	return true
}

// Append renders the template with the state's values onto dst.
func (t Template) Append(dst []byte, s *State) []byte {
	for _, p := range t.parts {
		if p.v < 0 {
			dst = append(dst, p.lit...)
			continue
		}
		v := s.vals[p.v]
		switch p.filter {
		case urlEscape:
			dst = appendQueryEscape(dst, v)
		case jsonEscape:
			dst = appendJSONEscape(dst, v)
		default:
			dst = append(dst, v...)
		}
	}
	return dst
}

const hexDigits = "0123456789ABCDEF"

// appendQueryEscape percent-encodes v as net/url.QueryEscape does (space
// becomes +), without allocating.
func appendQueryEscape(dst, v []byte) []byte {
	for _, c := range v {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_', c == '.', c == '~':
			dst = append(dst, c)
		case c == ' ':
			dst = append(dst, '+')
		default:
			dst = append(dst, '%', hexDigits[c>>4], hexDigits[c&15])
		}
	}
	return dst
}

// appendJSONEscape escapes v for the inside of a JSON string.
func appendJSONEscape(dst, v []byte) []byte {
	for i := 0; i < len(v); {
		c := v[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				dst = append(dst, '\\', c)
			case c == '\n':
				dst = append(dst, '\\', 'n')
			case c == '\r':
				dst = append(dst, '\\', 'r')
			case c == '\t':
				dst = append(dst, '\\', 't')
			case c < 0x20:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(v[i:])
		if r == utf8.RuneError && n == 1 {
			dst = append(dst, `\ufffd`...)
		} else {
			dst = append(dst, v[i:i+n]...)
		}
		i += n
	}
	return dst
}
