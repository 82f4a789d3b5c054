// Package store defines what kurabe asks of a data store.
//
// A Store is one store in one configuration (a file, an SQLite database, a
// server). It creates the tables a workload needs in a namespace kurabe owns
// and opens Sessions: one per simulated client, each owning its connection,
// file handle, prepared statements and buffers, so that clients never share
// state and need no locks. Sessions speak in rows of simple tables, so a
// workload is written once and runs on every store.
//
// Stores never time themselves: the engine wraps every call.
// Optional capabilities (batch insert, truncate) are separate small
// interfaces found by type assertion, each with a fallback in this package.
package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Kind is a column's type.
type Kind uint8

const (
	Int  Kind = iota // a 64-bit integer
	Text             // UTF-8 text
)

// Column is one column of a table.
type Column struct {
	Name string
	Kind Kind
}

// Table describes a table a workload uses. Columns[0] is the key, an Int;
// rows are ordered by it. With AutoKey the store assigns the key on insert
// (in increasing order of insertion) and ignores the value given.
type Table struct {
	ID      int // position in the workload's table list, for per-session caches
	Name    string
	Columns []Column
	AutoKey bool
	// Indexes lists secondary indexes, each by column names, that SQL
	// stores create with the table (stores without indexes ignore them).
	Indexes [][]string
}

// Value is one column value. Int columns use Int, Text columns use Text.
type Value struct {
	Int  int64
	Text []byte
}

// Row is one row: a value per column, in column order.
type Row []Value

// Query selects rows by key order.
type Query struct {
	Desc  bool // newest (highest key) first
	Limit int  // at most this many rows; 0 means all
	// With HasFrom, the scan starts at the first row whose key is >= From
	// (<= From when Desc), as WHERE key >= ? ORDER BY key does.
	From    int64
	HasFrom bool
	// Offset skips this many rows first (after From), as OFFSET does: the
	// way many applications page, and slower on most stores.
	Offset int
}

// Store is one data store in one configuration.
type Store interface {
	// Setup creates the tables in kurabe's namespace, empty. A table of the
	// same name that kurabe did not create is an error, never touched.
	Setup(ctx context.Context, tables []*Table) error
	// Open returns a new session for one client.
	Open(ctx context.Context) (Session, error)
	// Count returns how many rows the table holds, as the store sees them
	// from a fresh connection (for verification).
	Count(ctx context.Context, t *Table) (int64, error)
	// Info describes the store: driver, target and effective options.
	Info(ctx context.Context) Info
	// Close releases the store's own resources. It does not remove data.
	Close() error
}

// ChosenFact ends the name of a fact (Info.Facts) that says a server
// setting was asked as the value that lets the server choose (PostgreSQL's
// -1 for wal_buffers, autovacuum_work_mem and others whose minimum is -1):
// the fact holds what was asked, and Options the value the server chose,
// which is no sign that the setting did not apply.
const ChosenFact = ".chosen_by_server"

// Session is one client's handle on a store. It is used by one goroutine.
type Session interface {
	// Insert adds one row; it returns only once the store has accepted it
	// as its durability settings define.
	Insert(ctx context.Context, t *Table, row Row) error
	// Scan calls fn for each selected row in order. The row and its bytes
	// are valid only during the call. It returns the number of rows seen.
	Scan(ctx context.Context, t *Table, q Query, fn func(Row) error) (int, error)
	Close() error
}

// Info is what a result records about a store.
type Info struct {
	Driver  string            `json:"driver"`
	Target  string            `json:"target"`            // path or address, never credentials
	Version string            `json:"version,omitempty"` // server or library version
	Options map[string]string `json:"options"`           // effective settings, read back where possible
	Facts   map[string]string `json:"facts,omitempty"`   // anything else worth reporting
	// TablesKept says kurabe neither creates nor empties the store's
	// tables: they are someone else's (a service's over HTTP), and a run
	// starts from whatever they hold.
	TablesKept bool `json:"tables_kept,omitempty"`
}

// BatchInserter is implemented by stores that insert many rows in one call
// (one statement or one transaction) rather than one by one.
type BatchInserter interface {
	InsertBatch(ctx context.Context, t *Table, rows []Row) error
}

// InsertBatch inserts rows through the session's batch path when it has one,
// and one by one otherwise. One by one, a failure after some rows went in
// is a *PartialError saying how many did (a batch path stores all or none).
func InsertBatch(ctx context.Context, s Session, t *Table, rows []Row) error {
	if b, ok := s.(BatchInserter); ok {
		return b.InsertBatch(ctx, t, rows)
	}
	for i, r := range rows {
		if err := s.Insert(ctx, t, r); err != nil {
			if i > 0 {
				return &PartialError{Stored: i, Err: err}
			}
			return err
		}
	}
	return nil
}

// PartialError is a batch insert that failed after Stored of its rows were
// stored, so that a caller counting rows for verification counts them.
type PartialError struct {
	Stored int
	Err    error
}

func (e *PartialError) Error() string { return e.Err.Error() }
func (e *PartialError) Unwrap() error { return e.Err }

// ConnectTimer is implemented by sessions that open a new connection for
// every operation (connect=per-op). The engine reads it after each
// operation and reports the operation's latency both with and without the
// connection, like pgbench's tps with and without connection time.
type ConnectTimer interface {
	// ConnectTime returns the time spent connecting since it was last
	// called, and starts counting from zero again: for an operation that
	// connects several times (a load of one statement per row), all of it.
	// The engine asks before each operation, to leave out connecting done
	// outside it, and after.
	ConnectTime() time.Duration
}

// Replayer is implemented by stores with options that shape the tables
// kurabe creates (MariaDB's engine, row_format, page_compressed,
// encrypted). A replay runs the log's own CREATE TABLE statements, never
// kurabe's, so such an option would shape nothing: before the store's
// first session the replay calls ForReplay, and the store carries each
// option to the tables its sessions create (a session setting, or a
// server setting of a server it starts) or refuses it, saying what to use
// instead. Its Info then reads back what the replay's sessions had.
type Replayer interface {
	ForReplay() error
	// ReplayNotes says, after the replay, what of the options the log's
	// tables did not take (a CREATE TABLE that names its own ENGINE).
	ReplayNotes(ctx context.Context) []string
}

// SQLSession is implemented by sessions of SQL stores (sqlite, postgres,
// mysql/mariadb). Statements are text in the store's own dialect, with
// placeholders as the dialect writes them ("?" for sqlite and mysql, "$1"
// for postgres); workloads that speak SQL pick their text by Dialect.
// Statements are prepared on first use and cached per session, so running
// the same text again costs what a prepared statement costs.
//
// Arguments are nil (NULL), integers, floats, bools, strings, []byte,
// time.Time, or *int64, which is read at the call (a nil one is NULL): a
// client that keeps its arguments as pointers into its own integers fills
// them without allocating, where an int64 put in an interface allocates.
type SQLSession interface {
	Dialect() string // "sqlite", "postgres" or "mysql"
	// Exec runs a statement that returns no rows and reports the rows it
	// changed.
	Exec(ctx context.Context, sql string, args ...any) (int64, error)
	// Query runs a statement, reads every row it returns, and reports how
	// many rows and bytes it read. The values are discarded, as pgbench
	// does; fn, when not nil, sees each row's first column as an integer
	// (0 when it is not one), for workloads that check a result.
	Query(ctx context.Context, sql string, args []any, fn func(first int64)) (rows int, bytes int64, err error)
	// Begin, Commit and Rollback delimit a transaction on the session's
	// connection.
	Begin(ctx context.Context) error
	Commit(ctx context.Context) error
	Rollback(ctx context.Context) error
}

// BulkLoader is implemented by stores with a native bulk path faster than
// batched INSERTs: PostgreSQL's COPY, MySQL's LOAD DATA LOCAL INFILE,
// SQLite's prepared insert inside one transaction.
type BulkLoader interface {
	// BulkLoad inserts every row next yields (next returns false when
	// done; the row is valid until the next call) and returns the count.
	BulkLoad(ctx context.Context, t *Table, next func() (Row, bool)) (int64, error)
}

// Counter counts a store's tables, as Store.Count does, on a connection
// it holds until Close.
type Counter interface {
	Count(ctx context.Context, t *Table) (int64, error)
	Close() error
}

// CounterOpener is implemented by stores whose Count takes a connection
// of the server's (up to its max_connections). The engine opens the
// counter before the clients' sessions, so that at the server's limit a
// client is turned away, and the phase runs with the others, rather than
// the count that verifies it.
type CounterOpener interface {
	OpenCounter(ctx context.Context) (Counter, error)
}

// OpenCounter returns st's own counter when it has one (CounterOpener),
// or else one that calls st.Count, which opens what it needs each time.
func OpenCounter(ctx context.Context, st Store) (Counter, error) {
	if o, ok := st.(CounterOpener); ok {
		return o.OpenCounter(ctx)
	}
	return storeCounter{st}, nil
}

type storeCounter struct{ st Store }

func (c storeCounter) Count(ctx context.Context, t *Table) (int64, error) { return c.st.Count(ctx, t) }
func (storeCounter) Close() error                                         { return nil }

// Networked is implemented by stores whose every operation waits on a
// socket (database servers, HTTP services). Such operations take turns
// by themselves, so the engine does not make clients yield between them,
// which would cost the client CPU that a server on the same machine needs.
type Networked interface {
	Networked()
}

// Waiter parks a client until the socket fd is ready to read (or, with
// write, to write). The engine's event loop implements it: a client's
// wait hands the thread to the other clients, as pgbench's one thread
// serves all its connections.
type Waiter interface {
	Wait(fd int, write bool) error
}

// Multiplexed is implemented by sessions that can do their socket I/O by
// the descriptor and hand every wait to a Waiter instead of Go's network
// poller. Multiplex(w) reports whether the session can (not over TLS, for
// one); Multiplex(nil) returns it to the poller. The session is then used
// only from the coroutine that the Waiter serves.
type Multiplexed interface {
	Multiplex(w Waiter) bool
}

// Reopener is implemented by sessions that can lose their connection (a
// server's): the server ended it (pg_terminate_backend, KILL, a restart)
// or it broke, and every operation on it would fail at once. Lost says
// so, after an operation failed; Reopen opens a new connection in the
// session's place, its statements prepared again on their next use (a
// transaction open on the old one died with it). After a failed Reopen
// the session is still lost, and may be reopened again. The engine
// reopens a lost session, with a backoff, rather than let its client fail
// every operation at once.
type Reopener interface {
	Lost() bool
	Reopen(ctx context.Context) error
}

// Truncater is implemented by stores that empty a table faster than
// creating it anew.
type Truncater interface {
	Truncate(ctx context.Context, t *Table) error
}

// Truncate empties t, with the store's own path when it has one and by
// setting the table up again otherwise.
func Truncate(ctx context.Context, st Store, t *Table) error {
	if tr, ok := st.(Truncater); ok {
		return tr.Truncate(ctx, t)
	}
	return st.Setup(ctx, []*Table{t})
}

// ErrNotOwned reports an object kurabe would have to change but did not
// create.
var ErrNotOwned = errors.New("not created by kurabe")

// ErrNoTransactions is wrapped by Begin's error on a session that cannot
// hold a transaction open, since every statement runs on a connection of
// its own: a workload that needs one skips its phase rather than fail it.
var ErrNoTransactions = errors.New("transactions need connect=session or connect=pool: with connect=per-op every statement runs on a connection of its own")

// ClassError gives an error a class for the error breakdown, such as
// "busy" for SQLITE_BUSY or "timeout".
type ClassError struct {
	Class string
	Err   error
}

func (e *ClassError) Error() string { return e.Err.Error() }
func (e *ClassError) Unwrap() error { return e.Err }

// ClassKeyOrder is the class of a write a store that takes keys in
// increasing order only refused for its key's order.
const ClassKeyOrder = "key-order"

// ClassDiskFull is the class of a write a store could not make because
// the file system under it was full (ENOSPC; SQLITE_FULL).
const ClassDiskFull = "disk-full"

// ClassConnLost is the class of an operation whose connection was lost
// after its request may have reached the server: the server ended the
// session (pg_terminate_backend, KILL, a restart) or the connection broke
// (EOF, a reset) mid-operation. Its outcome is unknown: a write may have
// been stored though no answer came. An operation that found no
// connection to send on, whose request never left, is of class connect.
const ClassConnLost = "connection-lost"

// ClassTimeout is the class of an operation that ran out of time: its
// context's deadline passed, or it was cut off (--grace). Its outcome is
// unknown, as ClassConnLost's.
const ClassTimeout = "timeout"

// UnknownOutcome reports whether an operation that failed with class may
// still have done its work: its request may have reached the store, and
// its answer was lost (ClassTimeout, ClassConnLost). Every other class is
// an answer (the server refused or failed the operation: busy, a
// constraint, a full disk, too many connections) or a failure before the
// request left (connect): the operation did nothing.
func UnknownOutcome(class string) bool {
	return class == ClassTimeout || class == ClassConnLost
}

// Classify returns the class of err: the one a store gave it, "timeout" or
// "canceled" for context errors, and "error" otherwise.
func Classify(err error) string {
	var ce *ClassError
	if errors.As(err, &ce) {
		return ce.Class
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return ClassTimeout
	case errors.Is(err, context.Canceled):
		return "canceled"
	}
	return "error"
}

// OptionError reports a bad store option; its message says what is allowed.
type OptionError struct {
	Driver, Name, Value, Want string
}

func (e *OptionError) Error() string {
	if e.Value == "" {
		if near := NearOption(e.Name, strings.Split(e.Want, ", ")); near != "" {
			return fmt.Sprintf("%s: unknown option %q (did you mean %s? known: %s)", e.Driver, e.Name, near, e.Want)
		}
		return fmt.Sprintf("%s: unknown option %q (known: %s)", e.Driver, e.Name, e.Want)
	}
	return fmt.Sprintf("%s: option %s=%q is not valid: want %s", e.Driver, e.Name, e.Value, e.Want)
}

// Env is what kurabe hands a driver when it opens a store.
type Env struct {
	// Dir is a directory the store may use for its data when the spec names
	// no target. kurabe removes it afterwards unless asked to keep it.
	Dir string
	// Keep says that Dir outlives kurabe (--keep, --dir). Only then may a
	// message name a file in it, such as a managed server's log: otherwise
	// the file is gone by the time the message is read, and the message
	// quotes what matters instead.
	Keep bool
}

// Opener opens a store from its spec. It validates the options and fails
// with a message that says what to change.
type Opener func(ctx context.Context, spec Spec, env Env) (Store, error)

// Mortal is implemented by stores that run their server as kurabe's own
// child process (postgres:managed, mariadb:managed): kurabe sees it exit
// the moment it does, where a client would only see its connections
// fail.
type Mortal interface {
	// Died returns a channel that is closed when the server exits
	// without the store having stopped it (killed, crashed); nil when no
	// server of the store's own runs (not started yet, or a server
	// kurabe does not run), which a select never chooses.
	Died() <-chan struct{}
	// Death says how the server ended, once Died is closed; nil before.
	Death() *Death
}

// Death is how a server kurabe ran as its child process ended when it
// was not asked to.
type Death struct {
	Server string // the driver: postgres, mariadb, mysql
	// Signal is the signal that killed it (9, "SIGKILL"), 0 when it
	// exited by itself, with Status.
	Signal     int
	SignalName string
	Status     int
	CoreDumped bool
	// Log is the server's log file when it outlives kurabe (Env.Keep),
	// else empty: a message must not name a file that is gone.
	Log     string
	LogTail []string // the log's last lines
}

// DeathTail is how many of the log's last lines a Death quotes.
const DeathTail = 5

// How says how the server ended: "killed by signal 9 (SIGKILL)", "exit
// status 1".
func (d *Death) How() string {
	if d.Signal == 0 {
		return fmt.Sprintf("exit status %d", d.Status)
	}
	how := fmt.Sprintf("killed by signal %d", d.Signal)
	if d.SignalName != "" {
		how += " (" + d.SignalName + ")"
	}
	if d.CoreDumped {
		how += ", core dumped"
	}
	return how
}

func (d *Death) Error() string {
	how := d.How()
	if d.Signal == 9 {
		how = strings.Replace(how, "(SIGKILL)", "(SIGKILL: kill -9 sends it, and so does the kernel's out-of-memory killer; dmesg says which)", 1)
	}
	msg := fmt.Sprintf("%s: the managed server died: %s", d.Server, how)
	if len(d.LogTail) > 0 {
		if d.Log != "" {
			msg += "; its log (" + d.Log + ") ends:"
		} else {
			msg += "; its log's last lines:"
		}
		msg += "\n  " + strings.Join(d.LogTail, "\n  ")
	} else if d.Log != "" {
		msg += "; its log is " + d.Log
	}
	return msg
}

// DeathOf returns st's server's death when st runs its server as its
// child process (Mortal) and that server died, and nil otherwise.
func DeathOf(st Store) *Death {
	if m, ok := st.(Mortal); ok {
		return m.Death()
	}
	return nil
}
