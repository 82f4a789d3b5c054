package result

// Replay is what kurabe replay measured beside the common figures. The
// phase "replay" (every statement of the log) carries the replay's own
// figures; each phase of one statement fingerprint carries Fingerprint,
// Text and InLog only.
//
// Latency in a replay's phases is each statement's service time, from its
// actual start to its end, as pg_stat_statements counts it. How far the
// actual starts fell behind the log's schedule is Lag, apart.
type Replay struct {
	Log    string `json:"log,omitempty"`    // the log's path
	Format string `json:"format,omitempty"` // "pg-log" or "mysql-general-log"
	// Prefix is the log_line_prefix a PostgreSQL log was read with.
	Prefix string `json:"log_line_prefix,omitempty"`
	// Mode is "sessions" (one client per session of the log) or "clients"
	// (--clients N take the log's transactions and statements in turn).
	Mode  string `json:"mode,omitempty"`
	Speed string `json:"speed,omitempty"` // "1", "2", "max"
	Delay string `json:"delay,omitempty"` // --delay, between a client's statements
	// The log: its lines, the ones that could not be read (the first few
	// quoted with their line numbers), sessions, statements and its span
	// from the first event to the last.
	Lines           int64    `json:"lines,omitempty"`
	Unreadable      int64    `json:"unreadable_lines,omitempty"`
	FirstUnreadable []string `json:"first_unreadable,omitempty"`
	Sessions        int      `json:"sessions,omitempty"`
	Statements      int64    `json:"statements,omitempty"`
	LogSpan         float64  `json:"log_span_s,omitempty"`
	// Scheduled is the span at --speed: how long the replay should take;
	// Wall is how long it took, from its start to the end of its last
	// statement.
	Scheduled float64 `json:"scheduled_s,omitempty"`
	Wall      float64 `json:"wall_s,omitempty"`
	// Lag is how far each measured statement started after its time in the
	// schedule (none at --speed max); Late counts those more than
	// LateAfterUs late.
	Lag         *Latency `json:"lag,omitempty"`
	Late        int64    `json:"late,omitempty"`
	LateAfterUs float64  `json:"late_after_us,omitempty"`
	// Behind is set when the replay could not keep the log's pace; Note
	// says why, when kurabe can tell.
	Behind bool     `json:"behind,omitempty"`
	Note   string   `json:"note,omitempty"`
	Notes  []string `json:"notes,omitempty"` // anything else worth knowing
	// A fingerprint's phase: its id (8 hex digits, the same in every log),
	// its text with values taken out, and how often the log has it.
	Fingerprint string `json:"fingerprint,omitempty"`
	Text        string `json:"text,omitempty"`
	InLog       int64  `json:"in_log,omitempty"`
}
