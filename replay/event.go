package replay

import (
	"fmt"
	"time"
)

// EventKind is what a log line tells about a session.
type EventKind uint8

const (
	Connect    EventKind = iota + 1 // a session began (Database and User when the log says)
	Statement                       // the session sent a statement
	Disconnect                      // the session ended
)

// Event is one thing a server log tells about one session.
type Event struct {
	Kind EventKind
	// Session identifies the session within the log: PostgreSQL's session
	// id (%c) or process id, MySQL's thread id. A session that ends and
	// whose identifier comes back later gets a new one (a suffix #2...).
	Session string
	// Time is when the statement started, as the log tells (the zero time
	// when the log has no time stamps). Parsers take the time zone as
	// fixed over the log.
	Time time.Time
	Line int // where the event begins in the log, from 1
	SQL  string
	// Params are the values of $1, $2, ... of an extended-protocol
	// statement, as text, as the server logged them.
	Params   []Param
	Database string
	User     string
}

// Param is one parameter value of a statement: text, or NULL.
type Param struct {
	Value string
	Null  bool
}

// Parser is a streaming reader of one kind of server log, used as a
// bufio.Scanner is: Next until false, then Err. Lines it cannot read are
// never fatal: they are counted and the first few kept, in Skipped.
type Parser interface {
	Next() (Event, bool)
	Err() error // a read error, never a line that could not be parsed
	Skipped() *Skips
	Lines() int // lines read so far
}

// SyntaxError is a line a parser could not read.
type SyntaxError struct {
	File string
	Line int
	Msg  string
}

func (e *SyntaxError) Error() string {
	if e.File == "" {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// MaxKept is how many unreadable lines Skips keeps.
const MaxKept = 5

// Skips counts lines a parser could not read and keeps the first few.
type Skips struct {
	File  string
	Count int64
	First []*SyntaxError
}

// Add counts an unreadable line.
func (s *Skips) Add(line int, format string, args ...any) {
	s.Count++
	if len(s.First) < MaxKept {
		s.First = append(s.First, &SyntaxError{File: s.File, Line: line, Msg: fmt.Sprintf(format, args...)})
	}
}

// Quote shortens a line for a message.
func Quote(line string) string {
	const max = 80
	if len(line) > max {
		cut := max
		for cut > 0 && line[cut]&0xC0 == 0x80 {
			cut--
		}
		line = line[:cut] + "…"
	}
	return fmt.Sprintf("%q", line)
}
