package flow

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Path is a compiled JSON path: a chain of object keys and array indexes
// such as $.token, data.items[0].id or $["a.b"][2]. It is looked up by
// scanning the document once, without decoding it into Go values, so an
// extraction allocates nothing.
type Path struct {
	src  string
	segs []seg
}

type seg struct {
	key   string
	index int // -1 for a key
}

// ParsePath compiles a path. A leading $ and the dot after it are optional.
func ParsePath(s string) (Path, error) {
	p := Path{src: s}
	i := 0
	if i < len(s) && s[i] == '$' {
		i++
	}
	first := true
	for i < len(s) {
		switch c := s[i]; {
		case c == '.':
			i++
			fallthrough
		case first && c != '[':
			j := i
			for j < len(s) && s[j] != '.' && s[j] != '[' && s[j] != ']' {
				j++
			}
			if j == i {
				return p, fmt.Errorf("JSON path %q: empty key at offset %d", s, i)
			}
			p.segs = append(p.segs, seg{key: s[i:j], index: -1})
			i = j
		case c == '[':
			j := i + 1
			if j < len(s) && (s[j] == '"' || s[j] == '\'') {
				q := s[j]
				k := j + 1
				for k < len(s) && s[k] != q {
					k++
				}
				if k+1 >= len(s) || s[k+1] != ']' {
					return p, fmt.Errorf("JSON path %q: unclosed [%c at offset %d", s, q, i)
				}
				p.segs = append(p.segs, seg{key: s[j+1 : k], index: -1})
				i = k + 2
				break
			}
			k := j
			for k < len(s) && s[k] >= '0' && s[k] <= '9' {
				k++
			}
			if k == j || k >= len(s) || s[k] != ']' {
				return p, fmt.Errorf("JSON path %q: want [N] or [\"key\"] at offset %d", s, i)
			}
			n, err := strconv.Atoi(s[j:k])
			if err != nil {
				return p, fmt.Errorf("JSON path %q: index %s too large", s, s[j:k])
			}
			p.segs = append(p.segs, seg{index: n})
			i = k + 1
		default:
			return p, fmt.Errorf("JSON path %q: unexpected %q at offset %d", s, c, i)
		}
		first = false
	}
	return p, nil
}

// String returns the path as written.
func (p Path) String() string { return p.src }

// Lookup finds the path's value in doc. A string comes back without its
// quotes and still escaped (isString is true; AppendUnescaped decodes it);
// any other value comes back as its JSON text.
func (p Path) Lookup(doc []byte) (val []byte, isString, ok bool) {
	i := skipWS(doc, 0)
	for _, sg := range p.segs {
		if sg.index >= 0 {
			i, ok = arrayElem(doc, i, sg.index)
		} else {
			i, ok = objectMember(doc, i, sg.key)
		}
		if !ok {
			return nil, false, false
		}
	}
	if i >= len(doc) {
		return nil, false, false
	}
	if doc[i] == '"' {
		end, ok := skipString(doc, i)
		if !ok {
			return nil, false, false
		}
		return doc[i+1 : end-1], true, true
	}
	end, ok := skipValue(doc, i)
	if !ok {
		return nil, false, false
	}
	return doc[i:end], false, true
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string starting at b[i] == '"'.
func skipString(b []byte, i int) (int, bool) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return 0, false
}

// skipValue returns the index just past the value starting at b[i]. It
// checks brackets and strings, not the full grammar: enough to step over
// values on the way to the one asked for.
func skipValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				e, ok := skipString(b, j)
				if !ok {
					return 0, false
				}
				j = e - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, true
				}
			}
		}
		return 0, false
	case '}', ']', ',', ':':
		return 0, false
	}
	j := i
	for j < len(b) {
		switch b[j] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return j, true
		}
		j++
	}
	return j, true
}

// objectMember returns where the value of key starts in the object at b[i].
func objectMember(b []byte, i int, key string) (int, bool) {
	if i >= len(b) || b[i] != '{' {
		return 0, false
	}
	i = skipWS(b, i+1)
	for i < len(b) && b[i] != '}' {
		if b[i] != '"' {
			return 0, false
		}
		end, ok := skipString(b, i)
		if !ok {
			return 0, false
		}
		k := b[i+1 : end-1]
		i = skipWS(b, end)
		if i >= len(b) || b[i] != ':' {
			return 0, false
		}
		i = skipWS(b, i+1)
		if keyEqual(k, key) {
			return i, true
		}
		if i, ok = skipValue(b, i); !ok {
			return 0, false
		}
		i = skipWS(b, i)
		if i < len(b) && b[i] == ',' {
			i = skipWS(b, i+1)
		}
	}
	return 0, false
}

// arrayElem returns where element n starts in the array at b[i].
func arrayElem(b []byte, i, n int) (int, bool) {
	if i >= len(b) || b[i] != '[' {
		return 0, false
	}
	i = skipWS(b, i+1)
	for k := 0; i < len(b) && b[i] != ']'; k++ {
		if k == n {
			return i, true
		}
		var ok bool
		if i, ok = skipValue(b, i); !ok {
			return 0, false
		}
		i = skipWS(b, i)
		if i < len(b) && b[i] == ',' {
			i = skipWS(b, i+1)
		}
	}
	return 0, false
}

// keyEqual compares a raw (escaped) JSON key with key.
func keyEqual(raw []byte, key string) bool {
	for _, c := range raw {
		if c == '\\' {
			var buf [128]byte
			u, err := AppendUnescaped(buf[:0], raw)
			return err == nil && string(u) == key
		}
	}
	return string(raw) == key
}

var errBadEscape = errors.New("bad escape in JSON string")

// AppendUnescaped decodes the inside of a JSON string onto dst.
func AppendUnescaped(dst, s []byte) ([]byte, error) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			dst = append(dst, c)
			continue
		}
		i++
		if i >= len(s) {
			return dst, errBadEscape
		}
		switch s[i] {
		case '"', '\\', '/':
			dst = append(dst, s[i])
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, ok := hex4(s, i+1)
			if !ok {
				return dst, errBadEscape
			}
			i += 4
			if utf16.IsSurrogate(r) {
				if r2, ok := hex4(s, i+3); ok && i+2 < len(s) && s[i+1] == '\\' && s[i+2] == 'u' {
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						r = d
						i += 6
					}
				}
			}
			dst = utf8.AppendRune(dst, r)
		default:
			return dst, errBadEscape
		}
	}
	return dst, nil
}

func hex4(s []byte, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range s[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
