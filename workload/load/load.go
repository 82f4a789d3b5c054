// Package load is the bulk-load workload: put a whole data set (the postal
// data set by default, or generated records) into a store four ways, one
// phase each, every phase starting from an empty table:
//
//	autocommit   one INSERT per row, each its own transaction
//	transaction  the same INSERTs between one BEGIN and one COMMIT
//	batch        store.InsertBatch of --batch rows per call
//	bulk         the store's native bulk path (store.BulkLoader): COPY,
//	             LOAD DATA LOCAL INFILE, SQLite's insert in one transaction
//
// It reproduces the study that loaded 122k postal rows into several stores
// and found SQLite in rollback-journal mode 5× slower than MySQL: in
// autocommit, each row costs what the store's commit costs the disk
// (SQLite's DELETE journal with synchronous=FULL syncs 4 to 5 times per
// commit; InnoDB's redo log once), so the autocommit rate is best read
// against the disk's fsync rate from kurabe probe (Notes does).
//
// How a bulk load fits the engine, which times operations: an operation
// loads one chunk of rows, the phase's way, and a phase runs until the
// data set is exhausted. By default a chunk is the whole data set and -n
// defaults to 1, so each phase is exactly one operation: one transaction,
// one COPY, the study's load, measured as a whole; its latency is the
// load's time and rows/s is rows over the phase's elapsed time.
// --load-chunk R splits the data set into chunks of R rows, -n defaulting
// to their number: then the engine shows progress, and several clients
// (-c) load chunks in parallel; each chunk is then its own transaction or
// bulk call, so the per-commit cost is spread over R rows instead of all.
//
// Each phase empties the table first (store.Truncate, while the engine
// opens sessions, outside the measurement). Every operation reports the
// rows the store acknowledged (workload.Done.Rows: a chunk's, or an
// autocommit chunk's rows before it failed), and the engine checks their
// sum against the table's count before and after the phase, outside the
// measurement, as it checks any workload's inserts: the phase's lost
// column shows 0, or LOST n when the table holds fewer. Postal rows are
// decoded before the phases and records are windows of a pool made once,
// so making a row inside the measurement costs next to nothing.
//
// On stores without SQL sessions (the file store) autocommit uses
// Session.Insert and the transaction phase is skipped (each operation
// fails with class skipped); on stores without a bulk path, bulk falls
// back to InsertBatch in batches of --batch rows, as the batch phase does,
// and Notes says so.
package load

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"kurabe/dataset/records"
	"kurabe/numfmt"
	"kurabe/store"
	"kurabe/workload"
)

// The kinds of operation, in Kinds order; each phase is one kind.
const (
	kAutocommit = iota
	kTransaction
	kBatch
	kBulk
)

var kindNames = []string{"autocommit", "transaction", "batch", "bulk"}

// Config holds the workload's settings.
type Config struct {
	Batch int   // rows per InsertBatch call
	Chunk int64 // rows per operation; 0: the whole data set
	Data  records.Config
}

// DefaultConfig loads the postal data set whole, batches of 1000.
func DefaultConfig() Config { return Config{Batch: 1000, Data: records.DefaultConfig()} }

// Definition registers the workload's flags.
type Definition struct {
	cfg   Config
	built *loader
}

// New returns the definition with default settings.
func New() workload.Definition { return &Definition{cfg: DefaultConfig()} }

func (d *Definition) Summary() string {
	return "bulk-load a data set four ways: autocommit, one transaction, batches, the store's bulk path (rows/s each)"
}

func (d *Definition) Ops() (all, defaults []string) { return kindNames, kindNames }

func (d *Definition) Flags(fs *flag.FlagSet) {
	fs.IntVar(&d.cfg.Batch, "batch", d.cfg.Batch, "load: rows per InsertBatch call in the batch phase (and in bulk on stores without a bulk path)")
	fs.Var((*records.RowCount)(&d.cfg.Chunk), "load-chunk", "load: rows per operation (0: the whole data set in one); -n defaults to the number of chunks")
	d.cfg.Data.Flags(fs, "load", true)
}

// DefaultCount is the number of chunks: one operation per chunk loads the
// data set exactly once.
func (d *Definition) DefaultCount() int64 {
	if d.built != nil {
		return d.built.chunks
	}
	return 1
}

func (d *Definition) Build(ops []string) (workload.Workload, error) {
	c := d.cfg
	switch {
	case c.Batch < 1:
		return nil, fmt.Errorf("--batch %d: want 1 or more rows per call", c.Batch)
	case c.Chunk < 0:
		return nil, fmt.Errorf("--load-chunk %d: want 0 (the whole data set) or more rows", c.Chunk)
	}
	src, err := records.Open(c.Data)
	if err != nil {
		return nil, err
	}
	if src.Rows() < 1 {
		return nil, fmt.Errorf("--dataset-rows: load needs at least one row")
	}
	w := &loader{cfg: c, src: src, table: src.Table(), chunk: c.Chunk}
	if w.chunk == 0 || w.chunk > src.Rows() {
		w.chunk = src.Rows()
	}
	w.chunks = (src.Rows() + w.chunk - 1) / w.chunk
	for _, op := range ops {
		i := slices.Index(kindNames, op)
		if i < 0 {
			return nil, workload.Blame("ops", fmt.Errorf("load has no operation %q; choose from %s", op, strings.Join(kindNames, ", ")))
		}
		ph := workload.Phase{Name: op, Weights: make([]int, len(kindNames))}
		ph.Weights[i] = 1
		w.phases = append(w.phases, ph)
	}
	d.built = w
	return w, nil
}

type loader struct {
	cfg    Config
	src    *records.Source
	table  *store.Table
	chunk  int64 // rows per operation
	chunks int64
	phases []workload.Phase

	mu    sync.Mutex
	st    store.Store // the store being loaded, from Prepare
	run   *phaseRun
	notes workload.NoteSet // how the current store took the phases, for Notes
}

func (w *loader) Name() string             { return "load" }
func (w *loader) Tables() []*store.Table   { return []*store.Table{w.table} }
func (w *loader) Phases() []workload.Phase { return w.phases }

// CallsStore: the bulk phase loads through the store (store.BulkLoader),
// not the client's session (workload.StoreCaller).
func (w *loader) CallsStore(phase int) bool { return w.phases[phase].Name == "bulk" }

// Kinds: every way writes the data set's table, each operation adding
// the rows of its chunk (workload.Done.Rows), which the engine checks
// against the table's count after the phase.
func (w *loader) Kinds() []workload.Kind {
	ks := make([]workload.Kind, len(kindNames))
	for i, n := range kindNames {
		ks[i] = workload.Kind{Name: n, Writes: w.table}
	}
	return ks
}

// Params are the data set's settings and the chunk's, and batch when a
// phase may insert in batches: batch, and bulk (on a store without a bulk
// path, bulk takes batches of --batch rows).
func (w *loader) Params() map[string]string {
	p := w.src.Params()
	if slices.ContainsFunc(w.phases, func(ph workload.Phase) bool { return ph.Weights[kBatch] > 0 || ph.Weights[kBulk] > 0 }) {
		p["batch"] = strconv.Itoa(w.cfg.Batch)
	}
	p["chunk_rows"] = strconv.FormatInt(w.chunk, 10)
	return p
}

// CheckRun refuses what does not fit a load that ends when its data set
// does: a duration, a warm-up, and a count other than the chunks, which
// would leave the data set incomplete or fail the operations past its end
// (workload.RunChecker).
func (w *loader) CheckRun(r workload.RunSettings) error {
	size := fmt.Sprintf("a phase loads the data set once (%s rows, %s)", numfmt.Group(w.src.Rows()), w.chunking())
	switch {
	case r.Duration > 0:
		return workload.Unfit("d", fmt.Errorf("-d %v does not fit -w load: %s and ends; size it with --dataset-rows and --load-chunk instead", r.Duration, size))
	case r.Warmup > 0:
		return workload.Unfit("warmup", fmt.Errorf("--warmup %v does not fit -w load: %s, and a warm-up would load part of it unmeasured; leave --warmup out", r.Warmup, size))
	case r.Rate > 0:
		return workload.Unfit("R", fmt.Errorf("-R %v does not fit -w load: %s, as fast as the store takes it; leave -R out", r.Rate, size))
	case r.CountGiven && r.Count != w.chunks:
		return workload.Unfit("n", fmt.Errorf("-n %d does not fit -w load: %s; size it with --dataset-rows and --load-chunk, and leave -n out", r.Count, size))
	}
	return nil
}

// KeysOutOfOrder says why the rows' keys may reach a table out of order
// (workload.OwnKeys): with several clients and several chunks, chunks
// load side by side. One chunk is one operation, which one client runs
// alone.
func (w *loader) KeysOutOfOrder(clients int) string {
	if clients < 2 || w.chunks < 2 {
		return ""
	}
	return fmt.Sprintf("-w load with -c %d loads its %d chunks (--load-chunk %s) side by side, so rows come out of key order; give -c 1, or --isolate for a table (a file) per client", clients, w.chunks, numfmt.Group(w.chunk))
}

// chunking says how an operation takes the data set.
func (w *loader) chunking() string {
	if w.chunks == 1 {
		return "in one operation"
	}
	return fmt.Sprintf("%d operations of %s rows (--load-chunk)", w.chunks, numfmt.Group(w.chunk))
}

// ChooseData: a load measures loading its own data set (the shipped one,
// or --dataset-file's) into the postal table, so a store whose table
// holds what kurabe dataset import put there has it replaced; the note
// says so, and the import's record is dropped (workload.DataChooser).
func (w *loader) ChooseData(ctx context.Context, st store.Store) error {
	_, note, err := w.src.ForStore(ctx, st, w.table, false, "-w load")
	if note != "" {
		w.notes.Add(note)
	}
	return err
}

// PrepareLabel is empty: Prepare loads nothing, each phase loads the data
// set itself (workload.PrepareLabeler).
func (w *loader) PrepareLabel() (string, []any) { return "", nil }

// Prepare loads nothing: it notes the store whose table each phase
// empties and fills, and returns 0 rows.
func (w *loader) Prepare(ctx context.Context, st store.Store) (int64, error) {
	w.mu.Lock()
	w.st, w.run = st, nil
	w.mu.Unlock()
	return 0, nil
}

// phaseRun is what one run of a phase shares among its clients.
type phaseRun struct {
	started atomic.Bool  // a client has operated: the next NewClient starts a new run
	next    atomic.Int64 // the next chunk to load
	st      store.Store
	err     error
}

// NewClient is called for every client of a phase before any operates.
// The first call after a phase has operated starts a new run: it empties
// the table, outside the measurement.
func (w *loader) NewClient(s store.Session, rng *rand.Rand) workload.Client {
	w.mu.Lock()
	if w.run == nil || w.run.started.Load() {
		r := &phaseRun{st: w.st}
		if w.st == nil {
			r.err = fmt.Errorf("load: no store to load (Prepare was not called)")
		} else if err := store.Truncate(context.Background(), w.st, w.table); err != nil {
			r.err = fmt.Errorf("load: emptying %s before the phase: %w", w.table.Name, err)
		}
		w.run = r
	}
	c := &client{w: w, s: s, run: w.run, row: w.src.NewRow()}
	if ss, ok := s.(store.SQLSession); ok {
		if err := records.CheckDialect(ss); err == nil {
			c.sql, c.insert = ss, records.InsertSQL(ss, w.table)
		}
	}
	if c.sql == nil && slices.ContainsFunc(w.phases, func(p workload.Phase) bool { return p.Name == "autocommit" }) {
		w.notes.Add("load autocommit: Session.Insert, the store's sessions not speaking SQL")
	}
	if _, ok := w.st.(store.BulkLoader); !ok && slices.ContainsFunc(w.phases, func(p workload.Phase) bool { return p.Name == "bulk" }) {
		w.notes.Add(fmt.Sprintf("load bulk: the store has no bulk path; it took InsertBatch calls of %d rows, as in the batch phase", w.cfg.Batch))
	}
	w.mu.Unlock()
	return c
}

// Notes returns how the store just run took the phases whose path depends
// on the store (a bulk path or its fallback; Session.Insert when there is
// no SQL), and forgets them for the next store.
func (w *loader) Notes() []string { return w.notes.Take() }

type client struct {
	w      *loader
	s      store.Session
	sql    store.SQLSession // nil when the session does not speak SQL
	insert string
	run    *phaseRun
	began  bool
	row    store.Row
	args   []any
}

// Do loads the next chunk, the phase's way. Its bytes are written, none
// read; its rows are those the store acknowledged, which the engine
// checks against the table's count once the phase ends.
func (c *client) Do(ctx context.Context, kind int) (workload.Done, error) {
	if !c.began {
		c.began = true
		c.run.started.Store(true)
	}
	if c.run.err != nil {
		return workload.Done{}, c.run.err
	}
	if kind == kTransaction && c.sql == nil {
		return workload.Done{}, &store.ClassError{Class: "skipped", Err: fmt.Errorf("load transaction needs BEGIN and COMMIT, and this store's sessions do not speak SQL (the file store; SQLite with connect=per-op); the phase is skipped, not faked")}
	}
	w := c.w
	i := c.run.next.Add(1) - 1
	if i >= w.chunks {
		return workload.Done{}, &store.ClassError{Class: "exhausted", Err: fmt.Errorf("load %s: the data set's %d rows were loaded by the first %d operations; leave -n at its default (one per chunk), and use neither -d nor --warmup with load", kindNames[kind], w.src.Rows(), w.chunks)}
	}
	from := i * w.chunk
	to := min(from+w.chunk, w.src.Rows())
	var rows int64
	var err error
	switch kind {
	case kAutocommit:
		rows, err = c.singles(ctx, from, to)
	case kTransaction:
		rows, err = c.transaction(ctx, from, to)
	case kBatch:
		rows, err = w.src.InsertRange(ctx, c.s, from, to, w.cfg.Batch)
	case kBulk:
		rows, err = c.bulk(ctx, from, to)
	}
	d := workload.Done{Written: w.src.Bytes(from, to), Rows: rows}
	if err != nil {
		d.Unsure = unsure(kind, to-from-rows, w.cfg.Batch, c.run.st)
	}
	return d, err
}

// unsure is how many of a failed chunk's rest rows may be stored should
// its answer have been lost (workload.Done.Unsure): the one statement of
// autocommit that failed; in batches, the batch that failed; in one
// transaction or bulk call, all of them.
func unsure(kind int, rest int64, batch int, st store.Store) int64 {
	switch kind {
	case kAutocommit:
		return min(rest, 1)
	case kBatch:
		return min(rest, int64(batch))
	case kBulk:
		if _, ok := st.(store.BulkLoader); !ok {
			return min(rest, int64(batch))
		}
	}
	return rest
}

// singles inserts rows from..to-1 one statement each: the SQL session's
// INSERT where there is one (the statement the transaction phase runs),
// Session.Insert otherwise. It returns the rows inserted before any
// error.
func (c *client) singles(ctx context.Context, from, to int64) (int64, error) {
	for i := from; i < to; i++ {
		// One statement per row is the slow way (a sync per row in
		// autocommit): an interrupt ends it between rows, not after the
		// whole data set.
		if (i-from)%256 == 255 && workload.Stopping(ctx) {
			return i - from, &store.ClassError{Class: "interrupted", Err: fmt.Errorf("load: interrupted after %d of the operation's %d rows", i-from, to-from)}
		}
		c.w.src.Fill(c.row, i)
		var err error
		if c.sql != nil {
			c.args = records.Args(c.args, c.w.table, c.row)
			_, err = c.sql.Exec(ctx, c.insert, c.args...)
			clear(c.args)
		} else {
			err = c.s.Insert(ctx, c.w.table, c.row)
		}
		if err != nil {
			return i - from, fmt.Errorf("row %d: %w", i+1, err)
		}
	}
	return to - from, nil
}

// transaction inserts rows from..to-1 between one BEGIN and one COMMIT:
// all of them are stored, or none.
func (c *client) transaction(ctx context.Context, from, to int64) (int64, error) {
	if err := c.sql.Begin(ctx); err != nil {
		if errors.Is(err, store.ErrNoTransactions) {
			return 0, &store.ClassError{Class: "skipped", Err: fmt.Errorf("load transaction needs BEGIN and COMMIT on one connection (%w); the phase is skipped, not faked", err)}
		}
		return 0, err
	}
	_, err := c.singles(ctx, from, to)
	if err == nil {
		if err := c.sql.Commit(ctx); err != nil {
			return 0, err
		}
		return to - from, nil
	}
	if rerr := c.sql.Rollback(ctx); rerr != nil {
		return 0, fmt.Errorf("%w (rolling back: %v)", err, rerr)
	}
	return 0, err
}

// bulk loads rows from..to-1 through the store's bulk path, one
// transaction or COPY that stores all of them or none, or InsertBatch
// calls where the store has none.
func (c *client) bulk(ctx context.Context, from, to int64) (int64, error) {
	b, ok := c.run.st.(store.BulkLoader)
	if !ok {
		return c.w.src.InsertRange(ctx, c.s, from, to, c.w.cfg.Batch)
	}
	n, err := b.BulkLoad(ctx, c.w.table, c.w.src.Iter(from, to))
	if err != nil {
		return 0, err
	}
	if n != to-from {
		// The engine's count after the phase finds the rows missing
		// too; the error says which operation the store cut short.
		return n, &store.ClassError{Class: "lost", Err: fmt.Errorf("load bulk: the store took %d of %d rows", n, to-from)}
	}
	return n, nil
}
