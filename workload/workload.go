// Package workload defines what the engine asks of a workload: the tables
// it needs, the kinds of operation it performs, the phases a run measures,
// and a per-client object that performs one operation at a time.
//
// A workload speaks to stores only through store.Session, so it runs on
// every store without knowing which one it is.
package workload

import (
	"context"
	"flag"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"kurabe/store"
)

// Kind is one kind of operation, such as "write" or "read-latest".
type Kind struct {
	Name string
	// Writes is the table operations of this kind add rows to, or nil for
	// operations that add none. The engine sums the rows they report as
	// added (Done.Rows) and checks the sum against the table's count
	// before and after the phase.
	Writes *store.Table
}

// Done is what one operation did, as its client reports it. Bytes are
// counted apart by direction, so that a result says what a phase wrote
// and what it read: an insert or update writes, a lookup reads, and a
// read-modify-write or a transaction that reads a balance back does both.
type Done struct {
	Read    int64 // bytes the store returned: rows and values fetched
	Written int64 // bytes sent to be stored: rows inserted, values updated, keys deleted
	// Rows is how many rows the store acknowledged adding to the kind's
	// Writes table: 1 for a successful insert, a chunk's rows for a load.
	// It counts even when the operation then failed (an autocommit load
	// that stopped at its 300th row committed 299), since those rows are
	// stored and the count after the phase includes them.
	Rows int64
	// Unsure is, for a failed operation, how many rows beyond Rows it
	// may have stored: those of a statement, transaction or bulk call
	// that was sent and whose answer never came (a load's chunk in one
	// transaction, its rows). The engine counts them as possibly stored
	// when the failure's class says the outcome is unknown
	// (store.UnknownOutcome); 0 counts as one for a kind that writes.
	Unsure int64
}

// Phase is one measured step of a run: one kind of operation, or a mix.
type Phase struct {
	Name    string
	Weights []int // per kind, in Kinds order; an operation's kind is drawn by weight
	// Sweep names the quantity a sweep of phases varies ("records"), and
	// SweepValue its value in this phase; reports fit lines over them.
	Sweep      string
	SweepValue float64
}

// Workload is a configured workload.
type Workload interface {
	Name() string
	Tables() []*store.Table
	Kinds() []Kind
	Phases() []Phase
	// Params returns the workload's settings, for the result document.
	Params() map[string]string
	// NewClient returns the state of one client. rng is the client's own,
	// seeded from the run's seed.
	NewClient(s store.Session, rng *rand.Rand) Client
}

// Client performs operations for one simulated client. It is used by one
// goroutine and must not allocate per operation.
type Client interface {
	// Do performs one operation of the given kind (an index into Kinds)
	// and returns what it read, wrote and added.
	Do(ctx context.Context, kind int) (Done, error)
}

// Lagger is implemented by clients that keep figures of their own per
// operation beside the engine's (kurabe http's rows per URL or flow step).
// In an open loop the engine calls Lag right before each Do with how far
// behind its scheduled start the operation begins, so that those figures,
// too, can be measured from the scheduled start; it never calls it in a
// closed loop.
type Lagger interface {
	Lag(d time.Duration)
}

// Preparer is implemented by workloads that fill their tables before the
// measured phases (a data set to read); it returns the rows loaded. The
// load is timed and reported, apart from the phases.
type Preparer interface {
	Prepare(ctx context.Context, st store.Store) (rows int64, err error)
}

// DataChooser is implemented by workloads whose data set a store may hold
// already: the postal records kurabe dataset import put in it. Before a
// store's tables are set up, the runner calls ChooseData with the store,
// for each of the workload's instances (--isolate), and the workload picks
// what it loads into that store, saying so through Noter. An error keeps
// the workload from running on that store.
type DataChooser interface {
	ChooseData(ctx context.Context, st store.Store) error
}

// PrepareLabeler is implemented by Preparers that say what Prepare is
// about to do, for the progress line ("loading the data set"); "" when it
// does nothing (a board that starts empty). The label is a format in
// English with its arguments, so that the command line can say it in the
// run's language: the format is its key in report's table of words.
type PrepareLabeler interface {
	PrepareLabel() (format string, args []any)
}

// Counter is implemented by definitions whose phases want another number
// of operations than the engine's default when -n is not given.
type Counter interface {
	DefaultCount() int64
}

// Definition is a workload before it is configured: it registers its own
// flags and builds the workload from them.
type Definition interface {
	Summary() string
	// Ops lists the phase names the workload knows, defaults first.
	Ops() (all, defaults []string)
	Flags(fs *flag.FlagSet)
	Build(ops []string) (Workload, error)
}

// RunSettings is how a run is to drive the phases, for RunChecker.
type RunSettings struct {
	Count      int64 // operations per phase (-n, or DefaultCount); 0 with a Duration
	CountGiven bool  // -n was given on the command line or in a scenario
	Duration   time.Duration
	Warmup     time.Duration
	Rate       float64 // -R: operations per second, 0 for the closed loop
	Isolated   bool    // --isolate: each client has tables of its own
}

// RunChecker is implemented by workloads that do not fit every way of
// driving phases (a load that ends when its data set does cannot run for a
// duration). CheckRun is asked once the workload is built, before anything
// runs, and says in its error which flag does not fit and what to give
// instead: a *SettingError naming it, Unfit when the workload does not
// take the flag at all in this configuration.
type RunChecker interface {
	CheckRun(r RunSettings) error
}

// SQLOnly is implemented by workloads that run only on stores whose
// sessions take SQL (store.SQLSession), so that the command line refuses
// another store before any starts.
type SQLOnly interface {
	SQLOnly()
}

// Transactional is implemented by workloads whose operations may run in
// a transaction, which needs one connection from BEGIN to COMMIT, so that
// the command line refuses a store that connects per operation before any
// starts. Transactional says whether the chosen operations do.
type Transactional interface {
	Transactional() bool
}

// OwnKeys is implemented by workloads that insert rows with keys of their
// own choosing (a data set's row numbers, YCSB's hashed record numbers).
// KeysOutOfOrder says why, with the given number of clients writing to
// one table, those keys may reach it out of increasing order, or "" when
// they cannot. A store that takes keys in increasing order only (the file
// store, which appends) would fail such inserts, one by one, as errors
// that do not fail the run; the command line refuses the store before
// anything starts instead, with the reason, which says what to change.
type OwnKeys interface {
	KeysOutOfOrder(clients int) string
}

// SettingError is bad input that one of the run's settings is to blame
// for: an operation the workload does not have (Setting "ops"), a value
// that does not fit (Setting "deletes"). Unfit marks a setting the
// workload does not take at all as configured (a duration for a load, whose
// phases end with its data set), rather than a wrong value: a scenario
// applies a setting given on the command line only to the steps that take
// it, and a scenario file's error points at the line of Setting.
type SettingError struct {
	Setting string // the flag's name, without dashes: "ops", "d", "n", "warmup"
	Unfit   bool
	Err     error
}

func (e *SettingError) Error() string { return e.Err.Error() }
func (e *SettingError) Unwrap() error { return e.Err }

// Blame returns err as a SettingError of setting.
func Blame(setting string, err error) error { return &SettingError{Setting: setting, Err: err} }

// Unfit returns err as a SettingError of a setting the workload does not
// take as configured.
func Unfit(setting string, err error) error {
	return &SettingError{Setting: setting, Unfit: true, Err: err}
}

// PhaseCounter is implemented by workloads whose phases need their own
// number of operations: given the run's count n (-n, or the definition's
// DefaultCount), it returns the count for one phase. It is not asked when
// the phases run for a duration (-d).
type PhaseCounter interface {
	PhaseCount(phase int, n int64) int64
}

// ClientPhaseCounter is implemented by PhaseCounters whose phases, with
// isolated clients (--isolate), must each run a count of their own on
// their client's table: given the run's count n and the clients, it
// returns each client's count for phase (crud: each table runs the
// sequence of its share of n, so its batch delete empties it). Without
// it, isolated clients share the phase's count as any clients do.
type ClientPhaseCounter interface {
	ClientPhaseCounts(phase int, n int64, clients int) []int64
}

// Share is client i's share of n operations spread exactly over clients,
// as the engine spreads a phase's count: the first n%clients clients run
// one more.
func Share(n int64, i, clients int) int64 {
	s := n / int64(clients)
	if int64(i) < n%int64(clients) {
		s++
	}
	return s
}

// Stateful is implemented by workloads whose phases change the tables
// for the phases after them: crud's deletes take what its insert added, a
// board's reads read what its writes posted. Stateful says whether the
// phases as configured do. With several client levels (-c 1,2,4) the
// runner then runs the whole sequence of phases at one level after
// another, each level on tables set up anew with the data set loaded
// again, so that every level starts from the same state; otherwise each
// phase runs at every level before the next phase.
type Stateful interface {
	Stateful() bool
}

// Noter is implemented by workloads with something to say about how a
// store ran them (a path taken, a fallback). The runner calls Notes after
// each store's phases; a call forgets what it returned.
type Noter interface {
	Notes() []string
}

// StoreCaller is implemented by workloads some of whose operations call
// the store itself (a bulk load, a count) beside their session. Such a
// call waits in Go's network poller, which would hold up every other
// client of a shared event loop, so the engine keeps a goroutine per
// client for the phases where CallsStore is true.
type StoreCaller interface {
	CallsStore(phase int) bool
}

// SharedTables is implemented by workloads whose clients must share their
// tables (pgbench's fixed table names, a benchmark defined over one data
// set), so --isolate cannot give each client tables of its own. The
// reason is shown to the user.
type SharedTables interface {
	SharedTables() string
}

// NoteSet collects what a workload has to say about how the current store
// ran it (for Noter), each sentence once. Clients add to it concurrently.
type NoteSet struct {
	mu    sync.Mutex
	notes []string
}

// Add records s unless it is recorded already.
func (n *NoteSet) Add(s string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !slices.Contains(n.notes, s) {
		n.notes = append(n.notes, s)
	}
}

// Take returns the notes and forgets them, for the next store.
func (n *NoteSet) Take() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := n.notes
	n.notes = nil
	return out
}

// An operation's context is never cancelled, so that an interrupt lets it
// finish and every write is acknowledged or not started. An operation
// that runs for long (a load of the whole data set in one) asks Stopping
// between its steps instead, and ends early, with an error, when the run
// is being interrupted.
type stopKey struct{}

// WithStop returns ctx carrying the flag the engine sets on an interrupt.
func WithStop(ctx context.Context, stop *atomic.Bool) context.Context {
	return context.WithValue(ctx, stopKey{}, stop)
}

// Stopping reports whether the run that ctx's operation belongs to is
// being interrupted.
func Stopping(ctx context.Context) bool {
	s, _ := ctx.Value(stopKey{}).(*atomic.Bool)
	return s != nil && s.Load()
}
