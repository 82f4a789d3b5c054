// Package pglog reads PostgreSQL's server log (the stderr format, as
// logging_collector writes it too) into the statements each session sent.
//
// It reads what log_statement = all writes ("statement: ...", and
// "execute NAME: ..." with "DETAIL:  parameters: $1 = '...'" for the
// extended protocol) and what log_min_duration_statement = 0 writes
// ("duration: 1.2 ms  statement: ..."; the start is then the line's time
// less the duration). With both settings on, each statement is taken once.
// parse and bind steps, error reports and other messages are passed over.
// Multi-line messages continue on lines that begin with a tab, as the
// server writes them.
//
// Sessions are told apart by log_line_prefix: %c (the session id) or %p
// (the process id). A process id comes back for a later session, so with
// %p alone "connection received", "connection authorized" and
// "disconnection" lines (log_connections, log_disconnections) end one
// session and begin the next when the log has them.
//
// The parser streams: it holds one message at a time, never the log.
// Lines it cannot read (no prefix, a continuation with nothing to
// continue, parameters it cannot read) are counted and the first few
// kept with their line numbers; they never stop it.
package pglog

import (
	"io"
	"strconv"
	"strings"
	"time"

	"kurabe/replay"
)

// DefaultPrefix is the log_line_prefix kurabe capture sets: time with
// milliseconds, process id, session id, and for sessions user@database.
const DefaultPrefix = "%m [%p] %c %q%u@%d "

// Candidates are the prefixes tried, in order, when none is given: kurabe
// capture's, Debian's default, and pgBadger's usual ones.
var Candidates = []string{
	DefaultPrefix,
	"%m [%p] %q%u@%d ",
	"%m [%p] ",
	"%t [%p]: [%l-1] user=%u,db=%d ",
	"%t [%p]: user=%u,db=%d,app=%a,client=%h ",
	"%m [%p] %c ",
}

// Config says how to read a log.
type Config struct {
	File string // the log's name, for messages
	// Prefix is the server's log_line_prefix. Empty: the one of
	// Candidates that reads most of the log's first lines.
	Prefix string
}

// Parser reads a PostgreSQL log. It implements replay.Parser.
type Parser struct {
	lr     *replay.LineReader
	prefix *Prefix
	skips  replay.Skips
	queue  []replay.Event
	cur    *message
	bad    int // the line of a message that could not be read, whose continuation lines go with it
	sess   map[string]*sessState
	done   bool
}

type sessState struct {
	key    string // the current session's key
	gen    int
	used   bool // the current session has had an event
	closed bool // it ended; the next event begins another
}

// message is one log message being read, with its DETAIL.
type message struct {
	f        fields
	line     int
	severity string
	text     strings.Builder
	detail   strings.Builder
	inDetail bool // continuation lines go to the detail
	other    bool // a detail line other than DETAIL (HINT, CONTEXT...)
}

// New returns a parser of r. The error is a prefix that cannot identify
// sessions.
func New(r io.Reader, cfg Config) (*Parser, error) {
	p := &Parser{lr: replay.NewLineReader(r), sess: map[string]*sessState{}}
	p.skips.File = cfg.File
	if cfg.Prefix != "" {
		pre, err := ParsePrefix(cfg.Prefix)
		if err != nil {
			return nil, err
		}
		p.prefix = pre
		return p, nil
	}
	p.prefix = p.detect()
	return p, nil
}

// detect picks the candidate prefix that reads most of the first lines,
// which it then gives back to be read again.
func (p *Parser) detect() *Prefix {
	var lines []string
	for len(lines) < 500 {
		l, ok := p.lr.Next()
		if !ok {
			break
		}
		lines = append(lines, l)
	}
	p.lr.Unread(lines)
	best, bestN := (*Prefix)(nil), -1
	for _, c := range Candidates {
		pre, err := ParsePrefix(c)
		if err != nil {
			continue
		}
		n := 0
		for _, l := range lines {
			if _, _, ok := pre.match(l); ok {
				n++
			}
		}
		if n > bestN {
			best, bestN = pre, n
		}
	}
	return best
}

// Prefix returns the log_line_prefix the parser reads with.
func (p *Parser) Prefix() string { return p.prefix.String() }

// Skipped returns the lines that could not be read.
func (p *Parser) Skipped() *replay.Skips { return &p.skips }

// Lines returns how many lines were read.
func (p *Parser) Lines() int { return p.lr.Line() }

// Err returns the read error that stopped the parser, if any.
func (p *Parser) Err() error { return p.lr.Err() }

// Next returns the next event.
func (p *Parser) Next() (replay.Event, bool) {
	for len(p.queue) == 0 {
		if p.done {
			return replay.Event{}, false
		}
		line, ok := p.lr.Next()
		if !ok {
			p.flush()
			p.done = true
			continue
		}
		p.line(line)
	}
	ev := p.queue[0]
	p.queue = p.queue[1:]
	if len(p.queue) == 0 {
		p.queue = p.queue[:0:0]
	}
	return ev, true
}

func (p *Parser) line(line string) {
	n := p.lr.Line()
	if strings.HasPrefix(line, "\t") {
		if p.bad > 0 {
			p.skips.Add(n, "continues the message of line %d, which could not be read", p.bad)
			return
		}
		if p.cur == nil {
			p.skips.Add(n, "a continuation line with no message before it: %s", replay.Quote(line))
			return
		}
		if p.cur.inDetail {
			p.cur.detail.WriteString("\n" + line[1:])
		} else if !p.cur.other {
			p.cur.text.WriteString("\n" + line[1:])
		}
		return
	}
	f, rest, ok := p.prefix.match(line)
	if !ok {
		if strings.TrimSpace(line) == "" {
			return
		}
		if stamp, bad := p.prefix.badTime(line); bad {
			p.skips.Add(n, "an unreadable time %q: %s", stamp, replay.Quote(line))
		} else {
			p.skips.Add(n, "no log_line_prefix %q at the start: %s", p.prefix.text, replay.Quote(line))
		}
		p.bad = n
		return
	}
	p.bad = 0
	sev := severityOf(rest)
	body := strings.TrimPrefix(strings.TrimPrefix(rest[len(sev):], ":"), "  ")
	if p.cur != nil && sameSession(p.cur.f, f) {
		switch sev {
		case "DETAIL":
			p.cur.inDetail, p.cur.other = true, false
			p.cur.detail.Reset()
			p.cur.detail.WriteString(body)
			return
		case "HINT", "CONTEXT", "STATEMENT", "QUERY", "LOCATION":
			p.cur.inDetail, p.cur.other = false, true
			return
		}
	}
	p.flush()
	m := &message{f: f, line: n, severity: sev}
	m.text.WriteString(body)
	p.cur = m
}

func sameSession(a, b fields) bool { return a.session == b.session && a.pid == b.pid }

// flush turns the message read so far into events.
func (p *Parser) flush() {
	m := p.cur
	p.cur = nil
	if m == nil || m.severity != "LOG" {
		return
	}
	text := m.text.String()
	raw := m.f.session
	if raw == "" {
		raw = m.f.pid
	}
	ev := replay.Event{Time: m.f.time, Line: m.line, User: m.f.user, Database: m.f.db}
	var dur time.Duration
	if strings.HasPrefix(text, "duration: ") {
		rest := text[len("duration: "):]
		num, after, ok := strings.Cut(rest, " ms")
		if !ok {
			p.skips.Add(m.line, "a duration without \" ms\": %s", replay.Quote(text))
			return
		}
		ms, err := strconv.ParseFloat(num, 64)
		if err != nil || ms < 0 {
			p.skips.Add(m.line, "an unreadable duration %q", num)
			return
		}
		dur = time.Duration(ms * float64(time.Millisecond))
		text = strings.TrimPrefix(after, "  ")
		if text == "" {
			return // the statement was logged already (log_statement)
		}
	}
	switch {
	case strings.HasPrefix(text, "statement: "):
		ev.Kind, ev.SQL = replay.Statement, text[len("statement: "):]
	case strings.HasPrefix(text, "execute "):
		name, sql, ok := strings.Cut(text[len("execute "):], ": ")
		if !ok {
			p.skips.Add(m.line, "an execute message without a statement: %s", replay.Quote(text))
			return
		}
		if strings.HasPrefix(name, "fetch from ") {
			return // more rows of a portal already executed
		}
		ev.Kind, ev.SQL = replay.Statement, sql
		if m.inDetail || m.detail.Len() > 0 {
			d := m.detail.String()
			if strings.HasPrefix(d, "parameters: ") {
				params, err := parseParams(d[len("parameters: "):])
				if err != nil {
					p.skips.Add(m.line, "parameters of this execute: %v", err)
				}
				ev.Params = params
			}
		}
	case strings.HasPrefix(text, "connection received:"):
		p.begin(raw)
		return
	case strings.HasPrefix(text, "connection authorized:"):
		st := p.begin(raw)
		ev.Kind = replay.Connect
		ev.User, ev.Database = field(text, "user="), field(text, "database=")
		ev.Session = st.key
		st.used = true
		p.queue = append(p.queue, ev)
		return
	case strings.HasPrefix(text, "disconnection:"):
		st := p.state(raw)
		ev.Kind, ev.Session = replay.Disconnect, st.key
		st.closed = true
		p.queue = append(p.queue, ev)
		return
	default:
		return // parse, bind and every other message
	}
	if dur > 0 && !ev.Time.IsZero() {
		ev.Time = ev.Time.Add(-dur)
	}
	st := p.state(raw)
	st.used = true
	ev.Session = st.key
	p.queue = append(p.queue, ev)
}

// state returns the session state of a raw key, starting a new session
// when the last one with that key has ended.
func (p *Parser) state(raw string) *sessState {
	st := p.sess[raw]
	if st == nil {
		st = &sessState{key: raw, gen: 1}
		p.sess[raw] = st
		return st
	}
	if st.closed {
		st.gen++
		st.key = raw + "#" + strconv.Itoa(st.gen)
		st.closed, st.used = false, false
	}
	return st
}

// begin marks the start of a session: one already in use under the same
// key (a reused process id without a disconnection line) ends.
func (p *Parser) begin(raw string) *sessState {
	st := p.state(raw)
	if st.used {
		p.queue = append(p.queue, replay.Event{Kind: replay.Disconnect, Session: st.key})
		st.closed = true
		st = p.state(raw)
	}
	return st
}

// field returns the value after name in "user=u database=d ...".
func field(text, name string) string {
	i := strings.Index(text, name)
	if i < 0 {
		return ""
	}
	v := text[i+len(name):]
	if j := strings.IndexByte(v, ' '); j >= 0 {
		v = v[:j]
	}
	return v
}

// parseParams reads "$1 = '...', $2 = NULL". Values are quoted as SQL
// literals (” for a quote) and may span lines.
func parseParams(s string) ([]replay.Param, error) {
	var out []replay.Param
	for i := 1; s != ""; i++ {
		want := "$" + strconv.Itoa(i) + " = "
		if !strings.HasPrefix(s, want) {
			return out, &paramError{i, "want " + strconv.Quote(want)}
		}
		s = s[len(want):]
		switch {
		case strings.HasPrefix(s, "NULL"):
			out = append(out, replay.Param{Null: true})
			s = s[len("NULL"):]
		case strings.HasPrefix(s, "'"):
			var b strings.Builder
			j := 1
			closed := false
			for j < len(s) {
				if s[j] == '\'' {
					if j+1 < len(s) && s[j+1] == '\'' {
						b.WriteByte('\'')
						j += 2
						continue
					}
					closed = true
					j++
					break
				}
				b.WriteByte(s[j])
				j++
			}
			if !closed {
				return out, &paramError{i, "its quote is not closed"}
			}
			out = append(out, replay.Param{Value: b.String()})
			s = s[j:]
		default:
			return out, &paramError{i, "want NULL or a quoted value"}
		}
		if s == "" {
			break
		}
		if !strings.HasPrefix(s, ", ") {
			return out, &paramError{i, "want \", \" after it"}
		}
		s = s[2:]
	}
	return out, nil
}

type paramError struct {
	n   int
	msg string
}

func (e *paramError) Error() string { return "$" + strconv.Itoa(e.n) + ": " + e.msg }
