package httpstore

import (
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"kurabe/store"
)

// decoder reads the API's JSON without reflection: an array of objects
// with the fields id, category, text and created, in any order, other
// fields skipped. It parses the response body in place: strings without
// escapes point into the body, and escaped strings are unescaped over
// their own bytes (an escape never decodes to more bytes than it takes),
// so reading N posts allocates nothing once the session's buffers have
// grown. Measured against encoding/json into a slice of structs
// (BenchmarkDecode): see the package comment.
//
// It is lenient where services differ and strict where a mistake would
// hide lost data: numbers may come as strings ("id":"12", as PHP's PDO
// returns them) or as null; unknown fields are skipped; but anything that
// is not an array of objects is an error.
type decoder struct {
	vals []store.Value // four per post: id, category, text, created
}

// syntaxError says where a response stopped being the API's JSON.
type syntaxError struct {
	off  int
	msg  string
	near []byte
}

func (e *syntaxError) Error() string {
	return fmt.Sprintf("response is not the API's JSON at byte %d: %s (near %q)", e.off, e.msg, e.near)
}

type scanner struct {
	b []byte
	i int
}

func (s *scanner) fail(msg string) error {
	lo, hi := max(0, s.i-16), min(len(s.b), s.i+16)
	return &syntaxError{off: s.i, msg: msg, near: s.b[lo:hi]}
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// next skips white space and returns the next byte, or 0 at the end.
func (s *scanner) next() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// posts parses a JSON array of posts from b (modifying b) into d.vals and
// returns how many there are.
func (d *decoder) posts(b []byte) (int, error) {
	s := scanner{b: b}
	d.vals = d.vals[:0]
	if s.next() != '[' {
		return 0, s.fail("want an array of posts")
	}
	s.i++
	if s.next() == ']' {
		s.i++
		return 0, s.end()
	}
	for {
		if s.next() != '{' {
			return 0, s.fail("want a post object")
		}
		s.i++
		n := len(d.vals)
		d.vals = append(d.vals, store.Value{}, store.Value{}, store.Value{}, store.Value{})
		row := d.vals[n : n+4]
		if s.next() == '}' {
			s.i++
		} else {
			for {
				if s.next() != '"' {
					return 0, s.fail("want a field name")
				}
				key, err := s.str()
				if err != nil {
					return 0, err
				}
				if s.next() != ':' {
					return 0, s.fail("want ':'")
				}
				s.i++
				s.ws()
				switch string(key) {
				case "id":
					row[0].Int, err = s.int()
				case "category":
					row[1].Text, err = s.text()
				case "text":
					row[2].Text, err = s.text()
				case "created":
					row[3].Int, err = s.int()
				default:
					err = s.skip(0)
				}
				if err != nil {
					return 0, err
				}
				c := s.next()
				s.i++
				if c == '}' {
					break
				}
				if c != ',' {
					s.i--
					return 0, s.fail("want ',' or '}' after a field")
				}
			}
		}
		c := s.next()
		s.i++
		if c == ']' {
			return len(d.vals) / 4, s.end()
		}
		if c != ',' {
			s.i--
			return 0, s.fail("want ',' or ']' after a post")
		}
	}
}

// count parses {"count": n} (other fields skipped) or a bare number.
func count(b []byte) (int64, error) {
	s := scanner{b: b}
	if c := s.next(); c != '{' {
		if c == '"' || c == '-' || c >= '0' && c <= '9' {
			n, err := s.int()
			if err == nil {
				err = s.end()
			}
			return n, err
		}
		return 0, s.fail(`want {"count": N}`)
	}
	s.i++
	found := false
	var n int64
	for s.next() != '}' {
		if s.next() != '"' {
			return 0, s.fail("want a field name")
		}
		key, err := s.str()
		if err != nil {
			return 0, err
		}
		if s.next() != ':' {
			return 0, s.fail("want ':'")
		}
		s.i++
		s.ws()
		if string(key) == "count" {
			n, err = s.int()
			found = true
		} else {
			err = s.skip(0)
		}
		if err != nil {
			return 0, err
		}
		switch s.next() {
		case ',':
			s.i++
			if s.next() == '}' {
				return 0, s.fail("want a field name after ','")
			}
		case '}':
		default:
			return 0, s.fail("want ',' or '}'")
		}
	}
	s.i++
	if !found {
		return 0, s.fail(`no "count" field`)
	}
	return n, s.end()
}

func (s *scanner) end() error {
	if s.next() != 0 {
		return s.fail("trailing data after the JSON value")
	}
	return nil
}

// text reads a string or null.
func (s *scanner) text() ([]byte, error) {
	if s.i < len(s.b) && s.b[s.i] == 'n' {
		return nil, s.lit("null")
	}
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, s.fail("want a string")
	}
	return s.str()
}

// int reads an integer, an integer in a string, a number with a fraction
// or exponent (truncated), or null (0).
func (s *scanner) int() (int64, error) {
	if s.i >= len(s.b) {
		return 0, s.fail("want a number")
	}
	switch c := s.b[s.i]; {
	case c == 'n':
		return 0, s.lit("null")
	case c == '"':
		at := s.i
		v, err := s.str()
		if err != nil {
			return 0, err
		}
		n, ok := parseInt(v)
		if !ok {
			s.i = at
			return 0, s.fail("want a number in the string")
		}
		return n, nil
	case c == '-' || c >= '0' && c <= '9':
		start := s.i
		s.i++
		float := false
		for s.i < len(s.b) {
			c := s.b[s.i]
			if c >= '0' && c <= '9' {
				s.i++
				continue
			}
			if c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-' {
				float = true
				s.i++
				continue
			}
			break
		}
		num := s.b[start:s.i]
		if !float {
			if n, ok := parseInt(num); ok {
				return n, nil
			}
		}
		f, err := strconv.ParseFloat(string(num), 64)
		if err != nil || f >= 1<<63 || f < -(1<<63) {
			s.i = start
			return 0, s.fail("want an integer")
		}
		return int64(f), nil
	}
	return 0, s.fail("want a number")
}

// parseInt parses a decimal integer without allocating.
func parseInt(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var n uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	if neg {
		if n > 1<<63 {
			return 0, false
		}
		return -int64(n), true
	}
	if n > 1<<63-1 {
		return 0, false
	}
	return int64(n), true
}

func (s *scanner) lit(word string) error {
	if len(s.b)-s.i < len(word) || string(s.b[s.i:s.i+len(word)]) != word {
		return s.fail("want " + word)
	}
	s.i += len(word)
	return nil
}

// str reads the string starting at s.i (a '"'), unescaping it in place,
// and returns its bytes.
func (s *scanner) str() ([]byte, error) {
	b := s.b
	start := s.i + 1
	j := start
	for j < len(b) && b[j] != '"' && b[j] != '\\' {
		j++
	}
	if j < len(b) && b[j] == '"' {
		s.i = j + 1
		return b[start:j], nil
	}
	w := j // where unescaped bytes go; never ahead of j
	for j < len(b) {
		c := b[j]
		if c == '"' {
			s.i = j + 1
			return b[start:w], nil
		}
		if c != '\\' {
			b[w] = c
			w++
			j++
			continue
		}
		if j+1 >= len(b) {
			break
		}
		j++
		switch e := b[j]; e {
		case '"', '\\', '/':
			b[w] = e
		case 'b':
			b[w] = '\b'
		case 'f':
			b[w] = '\f'
		case 'n':
			b[w] = '\n'
		case 'r':
			b[w] = '\r'
		case 't':
			b[w] = '\t'
		case 'u':
			r, ok := hex4(b[j+1:])
			if !ok {
				s.i = j
				return nil, s.fail(`bad \u escape`)
			}
			j += 4
			if utf16.IsSurrogate(r) {
				r2, ok := rune(0), false
				if j+2 < len(b) && b[j+1] == '\\' && b[j+2] == 'u' {
					r2, ok = hex4(b[j+3:])
				}
				if dec := utf16.DecodeRune(r, r2); ok && dec != utf8.RuneError {
					r = dec
					j += 6
				} else {
					r = utf8.RuneError
				}
			}
			w += utf8.EncodeRune(b[w:], r)
			j++
			continue
		default:
			s.i = j
			return nil, s.fail("bad escape")
		}
		w++
		j++
	}
	s.i = len(b)
	return nil, s.fail("unterminated string")
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// skip skips one value of any kind.
func (s *scanner) skip(depth int) error {
	if depth > 64 {
		return s.fail("nested too deeply")
	}
	switch s.next() {
	case '"':
		_, err := s.str()
		return err
	case 'n':
		return s.lit("null")
	case 't':
		return s.lit("true")
	case 'f':
		return s.lit("false")
	case '{', '[':
		closer := byte('}')
		if s.b[s.i] == '[' {
			closer = ']'
		}
		s.i++
		if s.next() == closer {
			s.i++
			return nil
		}
		for {
			if closer == '}' {
				if s.next() != '"' {
					return s.fail("want a field name")
				}
				if _, err := s.str(); err != nil {
					return err
				}
				if s.next() != ':' {
					return s.fail("want ':'")
				}
				s.i++
			}
			if err := s.skip(depth + 1); err != nil {
				return err
			}
			c := s.next()
			s.i++
			if c == closer {
				return nil
			}
			if c != ',' {
				s.i--
				return s.fail("want ',' or a closing bracket")
			}
		}
	case 0:
		return s.fail("want a value")
	default:
		start := s.i
		for s.i < len(s.b) && (s.b[s.i] >= '0' && s.b[s.i] <= '9' || s.b[s.i] == '-' || s.b[s.i] == '+' || s.b[s.i] == '.' || s.b[s.i] == 'e' || s.b[s.i] == 'E') {
			s.i++
		}
		if s.i == start {
			return s.fail("want a value")
		}
		return nil
	}
}
