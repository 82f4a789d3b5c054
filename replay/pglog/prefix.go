package pglog

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// item is one piece of a log_line_prefix: literal text or an escape.
type item struct {
	lit string
	esc byte // 0 for a literal
}

// Prefix is a compiled log_line_prefix.
type Prefix struct {
	text    string
	items   []item
	q       int  // index of %q in items, or -1
	session byte // the escape that identifies a session: 'c', else 'p'
	hasTime bool
}

// ParsePrefix compiles a log_line_prefix such as "%m [%p] %c ". It must
// identify sessions: with %c (the session id), or %p (the process id,
// which the server reuses: sessions are then told apart by the
// connection and disconnection lines of log_connections and
// log_disconnections when the log has them).
func ParsePrefix(s string) (*Prefix, error) {
	p := &Prefix{text: s, q: -1}
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			p.items = append(p.items, item{lit: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			lit.WriteByte(s[i])
			continue
		}
		i++
		// A padding such as %-10u; values are then padded with spaces,
		// which the matcher trims.
		for i < len(s) && (s[i] == '-' || s[i] >= '0' && s[i] <= '9') {
			i++
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if c == '%' {
			lit.WriteByte('%')
			continue
		}
		flush()
		switch c {
		case 'q':
			p.q = len(p.items)
			continue
		case 'c':
			p.session = 'c'
		case 'p':
			if p.session == 0 {
				p.session = 'p'
			}
		case 'm', 't', 'n':
			p.hasTime = true
		}
		p.items = append(p.items, item{esc: c})
	}
	flush()
	if p.session == 0 {
		return nil, fmt.Errorf("log_line_prefix %q has neither %%c (session id) nor %%p (process id), so sessions cannot be told apart; set log_line_prefix = '%s' on the server (kurabe capture does), or give the prefix the log was written with", s, DefaultPrefix)
	}
	return p, nil
}

// String returns the prefix as given.
func (p *Prefix) String() string { return p.text }

// fields are what a line's prefix says.
type fields struct {
	time    time.Time
	hasTime bool
	pid     string
	session string
	user    string
	db      string
	// anyTime takes any text where the time stands, and badTime is that
	// text when it is no time: to tell a bad time from another prefix.
	anyTime bool
	badTime string
}

// match reads the prefix at the start of line and returns its fields and
// the rest of the line. Lines of processes without a session end their
// prefix at %q.
func (p *Prefix) match(line string) (fields, string, bool) {
	var f fields
	pos, ok := p.matchItems(line, 0, len(p.items), &f)
	if ok && severityOf(line[pos:]) != "" {
		return f, line[pos:], true
	}
	if p.q >= 0 {
		f = fields{}
		pos, ok = p.matchItems(line, 0, p.q, &f)
		if ok && severityOf(line[pos:]) != "" {
			return f, line[pos:], true
		}
	}
	return f, "", false
}

// badTime reports whether line has the prefix but for a time that cannot
// be read (a month 13), and that time.
func (p *Prefix) badTime(line string) (string, bool) {
	var f fields
	f.anyTime = true
	for _, end := range []int{len(p.items), p.q} {
		if end < 0 {
			continue
		}
		f.badTime = ""
		if pos, ok := p.matchItems(line, 0, end, &f); ok && severityOf(line[pos:]) != "" && f.badTime != "" {
			return f.badTime, true
		}
	}
	return "", false
}

func (p *Prefix) matchItems(line string, pos, end int, f *fields) (int, bool) {
	for k := 0; k < end; k++ {
		it := p.items[k]
		if it.esc == 0 {
			if !strings.HasPrefix(line[pos:], it.lit) {
				return pos, false
			}
			pos += len(it.lit)
			continue
		}
		next := ""
		if k+1 < end && p.items[k+1].esc == 0 {
			next = p.items[k+1].lit
		}
		n, ok := fieldEnd(line[pos:], it.esc, next)
		if !ok {
			return pos, false
		}
		v := strings.TrimSpace(line[pos : pos+n])
		pos += n
		switch it.esc {
		case 'm', 't', 'n':
			if t, ok := parseTime(v, it.esc); ok {
				f.time, f.hasTime = t, true
			} else if f.anyTime {
				f.badTime = v
			} else {
				return pos, false
			}
		case 'p':
			f.pid = v
		case 'c':
			f.session = v
		case 'u':
			f.user = v
		case 'd':
			f.db = v
		}
	}
	return pos, true
}

// fieldEnd returns the length of the value of escape c at the start of s;
// next is the literal that follows it in the prefix, if any.
func fieldEnd(s string, c byte, next string) (int, bool) {
	switch c {
	case 'm', 't', 's':
		n := len("2006-01-02 15:04:05")
		if c == 'm' {
			n += len(".000")
		}
		if len(s) < n || s[4] != '-' || s[10] != ' ' || s[13] != ':' {
			return 0, false
		}
		// The time zone's abbreviation or offset follows, after a space.
		if n < len(s) && s[n] == ' ' {
			j := n + 1
			for j < len(s) && s[j] != ' ' && s[j] != '[' && s[j] != ']' {
				j++
			}
			if j > n+1 && (next == "" || strings.HasPrefix(s[j:], next)) {
				return j, true
			}
		}
		return n, true
	case 'n':
		j := 0
		for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.') {
			j++
		}
		return j, j > 0
	case 'p', 'P', 'l':
		j := 0
		for j < len(s) && s[j] == ' ' {
			j++
		}
		k := j
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		return j, j > k || c == 'P'
	case 'c':
		j := 0
		for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] >= 'a' && s[j] <= 'f' || s[j] == '.') {
			j++
		}
		return j, j > 0
	}
	// Free text (user, database, application, host...): up to the literal
	// that follows, or to the next space. Names of users, databases and
	// hosts hold no spaces; an application's name may.
	if next != "" {
		j := strings.Index(s, next)
		if j < 0 || strings.IndexByte("udrh", c) >= 0 && strings.IndexByte(s[:j], ' ') >= 0 {
			return 0, false
		}
		return j, true
	}
	j := strings.IndexByte(s, ' ')
	if j < 0 {
		return 0, false
	}
	return j, true
}

func parseTime(v string, c byte) (time.Time, bool) {
	if c == 'n' {
		sec, frac, _ := strings.Cut(v, ".")
		s, err := strconv.ParseInt(sec, 10, 64)
		if err != nil {
			return time.Time{}, false
		}
		var ns int64
		if frac != "" {
			f, err := strconv.ParseFloat("0."+frac, 64)
			if err != nil {
				return time.Time{}, false
			}
			ns = int64(f * 1e9)
		}
		return time.Unix(s, ns).UTC(), true
	}
	layout := "2006-01-02 15:04:05"
	if c == 'm' {
		layout += ".000"
	}
	if len(v) < len(layout) {
		return time.Time{}, false
	}
	// The zone is left out: offsets within one log are what matter.
	t, err := time.Parse(layout, v[:len(layout)])
	return t, err == nil
}

// severities are the levels the server writes before a message.
var severities = []string{"LOG", "ERROR", "FATAL", "PANIC", "WARNING", "NOTICE", "INFO", "DEBUG",
	"DEBUG1", "DEBUG2", "DEBUG3", "DEBUG4", "DEBUG5", "DETAIL", "HINT", "CONTEXT", "STATEMENT", "QUERY", "LOCATION"}

// severityOf returns the severity that starts rest ("LOG:  ..."), or "".
func severityOf(rest string) string {
	i := strings.Index(rest, ":  ")
	if i <= 0 || i > 9 {
		// A message may be empty: "LOG:  " trimmed to "LOG:".
		if j := strings.IndexByte(rest, ':'); j > 0 && j == len(rest)-1 {
			i = j
		} else {
			return ""
		}
	}
	s := rest[:i]
	for _, v := range severities {
		if v == s {
			return s
		}
	}
	return ""
}
