// Package mylog reads the general query log of MariaDB and MySQL (the
// file log_output=FILE writes) into the statements each connection sent.
//
// Both layouts are read: MariaDB's (and MySQL 5.5's), where a time stamp
// "YYMMDD HH:MM:SS" starts only the first entry of each second and the
// others start with tabs, and MySQL 5.7 and 8's, where every entry starts
// with an RFC 3339 time stamp in microseconds. An entry is the time, the
// thread id, the command and its argument; a query of several lines goes
// on, unmarked, on the lines that follow, so a line that does not start an
// entry continues the one before. Entries without a time stamp take the
// last one seen: in MariaDB's layout, times are whole seconds.
//
// Connect begins a session (thread), Quit ends it. Query and Execute (a
// statement of the binary protocol, logged with its values in place) are
// statements; Init DB (the client's USE) becomes USE `db`. An SQL-level
// EXECUTE becomes the Execute entry the server logs for it (see flush).
// Other commands (Ping, Field List, Close stmt, Statistics...) are passed
// over.
//
// The parser streams: it holds one entry at a time.
package mylog

import (
	"io"
	"strconv"
	"strings"
	"time"

	"kurabe/replay"
)

// commands are the commands the server writes, longest first where one
// starts another.
var commands = []string{
	"Connect Out", "Connect", "Query", "Quit", "Init DB", "Execute", "Prepare", "Close stmt", "Reset stmt",
	"Field List", "Statistics", "Ping", "Change user", "Binlog Dump", "Sleep", "Long Data", "Fetch",
	"Set option", "Refresh", "Shutdown", "Processlist", "Kill", "Debug", "Time", "Delayed insert",
	"Register Slave", "Table Dump", "Daemon", "Error", "Create DB", "Drop DB", "Bulk_execute", "Slave_worker",
	"Slave_IO", "Slave_SQL", "Com_multi", "Reset connection",
}

// isHeader reports whether a line is one of those the server writes when
// it opens the log.
func isHeader(line string) bool {
	switch {
	case strings.HasSuffix(line, " started with:") && strings.Contains(line, ", Version: "):
		return true
	case strings.HasPrefix(line, "Tcp port: "):
		return true
	case strings.HasPrefix(line, "Time"):
		f := strings.Fields(line)
		return len(f) == 4 && f[1] == "Id" && f[2] == "Command" && f[3] == "Argument"
	}
	return false
}

// Config says how to read a log.
type Config struct {
	File string // the log's name, for messages
}

// Parser reads a general query log. It implements replay.Parser.
type Parser struct {
	lr    *replay.LineReader
	skips replay.Skips
	queue []replay.Event
	cur   *entry
	bad   int       // the line of an entry being passed over, whose time could not be read
	last  time.Time // the last time stamp seen
	sess  map[string]*thread
	order []*thread // threads in order of appearance, to release at the end
	done  bool
}

type thread struct {
	key    string
	gen    int
	used   bool
	closed bool
	// held is an SQL-level PREPARE or EXECUTE query, kept until the
	// thread's next entry shows whether the server logged its echo.
	held     *replay.Event
	heldVerb string // "prepare" or "execute"
}

type entry struct {
	time    time.Time
	line    int
	id      string
	command string
	arg     strings.Builder
}

// New returns a parser of r.
func New(r io.Reader, cfg Config) *Parser {
	p := &Parser{lr: replay.NewLineReader(r), sess: map[string]*thread{}}
	p.skips.File = cfg.File
	return p
}

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
			for _, th := range p.order {
				p.release(th)
			}
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
	if isHeader(line) {
		p.flush()
		return
	}
	e, ok := p.parseEntry(line, n)
	switch {
	case ok && e != nil:
		p.flush()
		p.cur, p.bad = e, 0
		return
	case ok:
		// An entry whose time cannot be read (counted in parseEntry): it
		// ends the entry before it, and its own lines go with it, glued
		// onto nothing.
		p.flush()
		p.bad = n
		return
	}
	if p.bad > 0 {
		p.skips.Add(n, "continues the entry of line %d, whose time could not be read", p.bad)
		return
	}
	if p.cur == nil {
		if strings.TrimSpace(line) != "" {
			p.skips.Add(n, "not an entry (time, thread id, command) and no entry to continue: %s", replay.Quote(line))
		}
		return
	}
	p.cur.arg.WriteString("\n" + line)
}

// parseEntry reads a line that starts an entry: an optional time stamp,
// white space, the thread id, a space, a command and its argument after a
// tab or spaces (or nothing). A line shaped as an entry whose time cannot
// be read gives no entry but ok, and is counted as skipped.
func (p *Parser) parseEntry(line string, n int) (*entry, bool) {
	i := 0
	var stamp string
	mariadb := false
	switch {
	case len(line) >= 15 && digits(line[:6]) && line[6] == ' ' && (line[7] == ' ' || isDigit(line[7])) && isDigit(line[8]) &&
		line[9] == ':' && digits(line[10:12]) && line[12] == ':' && digits(line[13:15]):
		stamp, i, mariadb = line[:15], 15, true
	case len(line) >= 19 && digits(line[:4]) && line[4] == '-' && line[10] == 'T':
		j := strings.IndexAny(line, " \t")
		if j < 0 {
			return nil, false
		}
		stamp, i = line[:j], j
	}
	j := i
	for j < len(line) && (line[j] == ' ' || line[j] == '\t') {
		j++
	}
	if j == i {
		return nil, false
	}
	k := j
	for k < len(line) && isDigit(line[k]) {
		k++
	}
	if k == j || k >= len(line) || line[k] != ' ' {
		return nil, false
	}
	id := line[j:k]
	rest := line[k+1:]
	cmd := ""
	for _, c := range commands {
		if strings.HasPrefix(rest, c) {
			after := rest[len(c):]
			if after == "" || after[0] == '\t' || strings.HasPrefix(after, "  ") || after == " " {
				cmd = c
				break
			}
		}
	}
	if cmd == "" {
		return nil, false
	}
	arg := rest[len(cmd):]
	if strings.HasPrefix(arg, "\t") {
		arg = arg[1:]
	} else {
		arg = strings.TrimLeft(arg, " ")
	}
	e := &entry{line: n, id: id, command: cmd}
	if stamp != "" {
		var t time.Time
		var err error
		if mariadb {
			// 240501  9:05:01: the hour padded with a space.
			t, err = time.Parse("060102 15:04:05", strings.Replace(stamp, "  ", " 0", 1))
		} else if t, err = time.Parse(time.RFC3339Nano, stamp); err != nil {
			// Without a zone: local time as written.
			t, err = time.Parse("2006-01-02T15:04:05.999999999", stamp)
		}
		if err != nil {
			p.skips.Add(n, "an unreadable time %q", stamp)
			return nil, true
		}
		p.last = t
	}
	e.time = p.last
	e.arg.WriteString(arg)
	return e, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}

// flush turns the entry read so far into events.
//
// An SQL-level PREPARE, EXECUTE or DEALLOCATE cannot itself be prepared,
// and kurabe's SQL sessions prepare every statement; so EXECUTE is
// replayed as the statement the server ran, which it logs next as an
// Execute entry with the values in place, and PREPARE and DEALLOCATE,
// whose statements the replay never makes, are passed over once the
// server's Prepare entry shows the statement. Where a server logs no such
// entry, the query itself is replayed.
func (p *Parser) flush() {
	e := p.cur
	p.cur = nil
	if e == nil {
		return
	}
	arg := strings.TrimRight(e.arg.String(), " \t\r\n")
	ev := replay.Event{Time: e.time, Line: e.line}
	switch e.command {
	case "Connect":
		if strings.Contains(arg, "Access denied") {
			return // a failed login: no session
		}
		th := p.thread(e.id)
		p.release(th)
		if th.used {
			// A thread id seen again without Quit: the server restarted.
			p.queue = append(p.queue, replay.Event{Kind: replay.Disconnect, Session: th.key})
			th.closed = true
			th = p.thread(e.id)
		}
		th.used = true
		ev.Kind, ev.Session = replay.Connect, th.key
		ev.User, ev.Database = parseConnect(arg)
	case "Quit":
		th := p.thread(e.id)
		p.release(th)
		ev.Kind, ev.Session = replay.Disconnect, th.key
		th.closed = true
	case "Query":
		th := p.thread(e.id)
		p.release(th)
		th.used = true
		ev.Kind, ev.Session, ev.SQL = replay.Statement, th.key, arg
		switch v := sqlLevel(arg); v {
		case "prepare", "execute":
			th.held, th.heldVerb = &ev, v
			return
		case "deallocate":
			return
		}
	case "Execute", "Prepare":
		th := p.thread(e.id)
		verb := strings.ToLower(e.command)
		if th.held != nil && th.heldVerb == verb {
			// The echo of the SQL-level statement held.
			th.held = nil
			if verb == "prepare" {
				return
			}
		} else {
			p.release(th)
			if verb == "prepare" {
				return // the statement comes again, with its values, in each Execute
			}
		}
		th.used = true
		ev.Kind, ev.Session, ev.SQL = replay.Statement, th.key, arg
	case "Init DB":
		th := p.thread(e.id)
		p.release(th)
		th.used = true
		ev.Kind, ev.Session, ev.SQL = replay.Statement, th.key, "USE `"+strings.ReplaceAll(arg, "`", "``")+"`"
	default:
		return
	}
	p.queue = append(p.queue, ev)
}

// release replays a held SQL-level statement whose echo did not come.
func (p *Parser) release(th *thread) {
	if th.held != nil {
		p.queue = append(p.queue, *th.held)
		th.held = nil
	}
}

func (p *Parser) thread(id string) *thread {
	th := p.sess[id]
	if th == nil {
		th = &thread{key: id, gen: 1}
		p.sess[id] = th
		p.order = append(p.order, th)
		return th
	}
	if th.closed {
		th.gen++
		th.key = id + "#" + strconv.Itoa(th.gen)
		th.closed, th.used, th.held = false, false, nil
	}
	return th
}

// sqlLevel returns "prepare", "execute" or "deallocate" for an SQL-level
// prepared-statement query, and "" for any other.
func sqlLevel(q string) string {
	q = strings.TrimLeft(q, " \t\r\n")
	end := strings.IndexAny(q, " \t\r\n")
	if end < 0 {
		return ""
	}
	switch w := strings.ToLower(q[:end]); w {
	case "prepare", "execute", "deallocate":
		return w
	case "drop":
		if rest := strings.TrimLeft(q[end:], " \t\r\n"); len(rest) >= 7 && strings.EqualFold(rest[:7], "prepare") {
			return "deallocate"
		}
	}
	return ""
}

// parseConnect reads "user@host on db using TCP/IP" (db and "using" may
// be missing).
func parseConnect(arg string) (user, db string) {
	who, rest, _ := strings.Cut(arg, " on ")
	if i := strings.LastIndexByte(who, '@'); i >= 0 {
		user = who[:i]
	}
	db, _, _ = strings.Cut(rest, " using ")
	return user, strings.TrimSpace(db)
}
