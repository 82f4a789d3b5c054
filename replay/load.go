package replay

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"time"
)

// Log is a parsed log, ready to replay: its sessions, each with its
// statements at their offsets from the log's first event.
//
// The whole log is held in memory (about the size of its statements'
// text) so that sessions can be scheduled from their start times; a log of
// several gigabytes is best cut into parts first.
type Log struct {
	Dialect      string
	Sessions     []*Session
	Fingerprints []Fingerprint
	Statements   int64
	Span         time.Duration // first event to last, as logged
	Lines        int
	Skips        Skips
	// NoTime is set when the log has no time stamps: every statement is
	// then due at once and only --speed max makes sense.
	NoTime bool
	// Databases lists the databases the sessions connected to.
	Databases []string
	// Copies counts COPY ... FROM STDIN and TO STDOUT statements, left
	// out: the data they moved is not in the log.
	Copies int64
	// Resolution is the clock resolution of the log's time stamps when
	// they are whole seconds (MariaDB's general log, PostgreSQL's %t):
	// the events of each second are then spread evenly over it, in the
	// order the log has them, since the log cannot tell when in the
	// second each came. Zero for finer time stamps.
	Resolution time.Duration
}

// Session is one session of the log.
type Session struct {
	Key        string
	Database   string
	User       string
	Start, End time.Duration // connected and disconnected (or last seen), from the log's start
	Stmts      []Stmt
}

// Stmt is one statement to replay.
type Stmt struct {
	At time.Duration // due, from the log's start
	// Latest is the latest the log allows the statement to have come: At,
	// or the end of its second when the log's times are whole seconds.
	// A statement is late only when it starts later than that.
	Latest time.Duration
	SQL    string
	Args   []any // string or nil, one per parameter
	FP     int32 // index into Log.Fingerprints
	Kind   stmtKind
	Line   int
}

// size is the bytes a statement sends: its text and parameters.
func (s *Stmt) size() int64 {
	n := int64(len(s.SQL))
	for _, a := range s.Args {
		if v, ok := a.(string); ok {
			n += int64(len(v))
		}
	}
	return n
}

// Fingerprint is a statement with its values taken out, and how often the
// log has it.
type Fingerprint struct {
	ID    string // 8 hex digits of a hash of Text: the same text has the same ID in every log
	Text  string
	Count int64
}

// Load reads every event of p into a Log. Statements of several
// statements (a simple-protocol query, a multi-statement MySQL query) are
// split, as they are run one by one; each part keeps its statement's time.
func Load(p Parser, dialect string) (*Log, error) {
	lg := &Log{Dialect: dialect}
	byKey := map[string]int{} // session key → index
	fps := map[string]int32{}
	var first, last time.Time
	// Per session: first and last time seen, and each statement's time;
	// offsets are known once the log's first time is.
	var starts, ends []stamp
	var stmtTimes [][]stamp
	// The events of each whole second, counted in the order they come,
	// to spread them over the second when every time stamp is whole.
	perSecond := map[int64]int32{}
	whole := true
	dbs := map[string]bool{}
	for {
		ev, ok := p.Next()
		if !ok {
			break
		}
		i, ok := byKey[ev.Session]
		if !ok && ev.Kind == Disconnect {
			continue // the end of a session the log does not show
		}
		at := stamp{t: ev.Time}
		if !ev.Time.IsZero() {
			if first.IsZero() || ev.Time.Before(first) {
				first = ev.Time
			}
			if ev.Time.After(last) {
				last = ev.Time
			}
			whole = whole && ev.Time.Nanosecond() == 0
			sec := ev.Time.Unix()
			at.k = perSecond[sec]
			perSecond[sec]++
		}
		if !ok {
			i = len(lg.Sessions)
			byKey[ev.Session] = i
			lg.Sessions = append(lg.Sessions, &Session{Key: ev.Session})
			starts = append(starts, at)
			ends = append(ends, at)
			stmtTimes = append(stmtTimes, nil)
		}
		s := lg.Sessions[i]
		if !ev.Time.IsZero() {
			if starts[i].t.IsZero() || at.before(starts[i]) {
				starts[i] = at
			}
			if ends[i].before(at) {
				ends[i] = at
			}
		}
		switch ev.Kind {
		case Connect:
			if ev.Database != "" {
				s.Database = ev.Database
				dbs[ev.Database] = true
			}
			if ev.User != "" {
				s.User = ev.User
			}
		case Statement:
			if s.Database == "" && ev.Database != "" {
				s.Database = ev.Database
				dbs[ev.Database] = true
			}
			var parts []string
			var args []any
			if len(ev.Params) > 0 {
				parts = []string{ev.SQL}
				args = make([]any, len(ev.Params))
				for j, pa := range ev.Params {
					if !pa.Null {
						args[j] = pa.Value
					}
				}
			} else {
				parts = Split(ev.SQL, dialect)
			}
			for _, sql := range parts {
				if dialect == Postgres && copyStdio(sql) {
					lg.Copies++
					continue
				}
				norm := Normalize(sql, dialect)
				fp, ok := fps[norm]
				if !ok {
					fp = int32(len(lg.Fingerprints))
					fps[norm] = fp
					lg.Fingerprints = append(lg.Fingerprints, Fingerprint{ID: fingerprintID(norm), Text: norm})
				}
				lg.Fingerprints[fp].Count++
				s.Stmts = append(s.Stmts, Stmt{SQL: sql, Args: args, FP: fp, Kind: classify(sql, dialect), Line: ev.Line})
				stmtTimes[i] = append(stmtTimes[i], at)
				lg.Statements++
			}
		}
	}
	if err := p.Err(); err != nil {
		return nil, fmt.Errorf("reading the log: %w", err)
	}
	lg.Lines = p.Lines()
	lg.Skips = *p.Skipped()
	lg.NoTime = first.IsZero()
	if !lg.NoTime {
		lg.Span = last.Sub(first)
	}
	if !lg.NoTime && whole {
		lg.Resolution = time.Second
	}
	off := func(at stamp) time.Duration {
		if at.t.IsZero() || lg.NoTime {
			return 0
		}
		d := at.t.Sub(first)
		if lg.Resolution > 0 {
			d += lg.Resolution * time.Duration(at.k) / time.Duration(perSecond[at.t.Unix()])
		}
		lg.Span = max(lg.Span, d)
		return d
	}
	for i, s := range lg.Sessions {
		s.Start, s.End = off(starts[i]), off(ends[i])
		prev := s.Start
		for j := range s.Stmts {
			at := off(stmtTimes[i][j])
			if stmtTimes[i][j].t.IsZero() {
				at = prev // a line without a time: with the one before
			}
			// A session's statements run in order; a time stamp out of
			// order (a duration subtracted, a clock step) cannot move one
			// before the statement ahead of it.
			at = max(at, prev)
			s.Stmts[j].At, s.Stmts[j].Latest = at, at
			if lg.Resolution > 0 && !stmtTimes[i][j].t.IsZero() {
				// The log says only that it came within its second.
				s.Stmts[j].Latest = max(at, stmtTimes[i][j].t.Sub(first)+lg.Resolution)
			}
			prev = at
		}
		s.End = max(s.End, prev)
	}
	// Sessions start in the order of their start times.
	slices.SortStableFunc(lg.Sessions, func(a, b *Session) int { return compareDur(a.Start, b.Start) })
	for db := range dbs {
		lg.Databases = append(lg.Databases, db)
	}
	slices.Sort(lg.Databases)
	return lg, nil
}

// stamp is an event's time stamp and, for spreading whole seconds, how
// many events of the log had the same second before it.
type stamp struct {
	t time.Time
	k int32
}

func (a stamp) before(b stamp) bool { return a.t.Before(b.t) || a.t.Equal(b.t) && a.k < b.k }

// LastDue is when the log's last statement is due, from its start.
func (lg *Log) LastDue() time.Duration {
	var last time.Duration
	for _, s := range lg.Sessions {
		if n := len(s.Stmts); n > 0 {
			last = max(last, s.Stmts[n-1].At)
		}
	}
	return last
}

func compareDur(a, b time.Duration) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func fingerprintID(norm string) string {
	h := fnv.New32a()
	h.Write([]byte(norm))
	s := strconv.FormatUint(uint64(h.Sum32()), 16)
	for len(s) < 8 {
		s = "0" + s
	}
	return s
}

// copyStdio reports whether a PostgreSQL statement is COPY from the
// client or to it, whose data travels outside the statement.
func copyStdio(sql string) bool {
	w := firstWords(sql, Postgres, 1)
	if len(w) == 0 || w[0] != "copy" {
		return false
	}
	for _, t := range lex(sql, Postgres) {
		if t.kind == tWord {
			switch lower(sql[t.start:t.end]) {
			case "stdin", "stdout":
				return true
			}
		}
	}
	return false
}
