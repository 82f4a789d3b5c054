// Package crud is the page-size study's sequence of single and batch
// operations on fixed-size records, as phases:
//
//	insert        N single-row INSERTs
//	read          N reads of a random row
//	batch-read    N random rows read in calls of 300 keys
//	update        N single-row UPDATEs of a random row
//	delete        the oldest M rows deleted one by one
//	batch-delete  the rest deleted oldest first, 25,000 rows per call
//
// Rows are the records data set's (808-byte payloads by default) in table
// crud, whose keys the store assigns in insertion order (AutoKey), so the
// oldest rows have the smallest keys, and any number of clients can insert
// at once on every store.
//
// Each phase starts by reading the table's smallest and largest key
// (while the engine opens the clients' sessions, outside the measurement),
// so a phase works on whatever the phases before it left, whichever ran.
// Random rows are drawn from that key range; deletions claim the oldest
// keys from a counter shared by the phase's clients, so two clients never
// delete the same row.
//
// Which path each operation takes:
//
//   - insert and read go through store.Session (Insert; Scan from a key
//     with a limit of one), so they run on every store. A read must return
//     a row at or after its key (exactly its key on SQL stores, whose keys
//     have no gaps; the file store's keys are byte offsets).
//   - batch-read is one SELECT ... WHERE id IN (300 keys) on stores whose
//     sessions speak SQL (store.SQLSession), and 300 Scans elsewhere (the
//     file store; SQLite with connect=per-op). It must return one row per
//     distinct key asked.
//   - update, delete and batch-delete need SQL: UPDATE ... WHERE id = ?,
//     DELETE ... WHERE id = ?, and DELETE ... WHERE id BETWEEN ? AND ?, one
//     statement per call. Each must change exactly the rows it names. On a
//     store without SQL they are not faked: every operation fails at once
//     with an error of class skipped that says why.
//
// Op counts. The engine runs every phase -n times, but the study's phases
// differ: batch-read makes N/300 calls, batch-delete (N-M)/25,000. PhaseCount
// gives each phase its own count from -n; a run that does not ask for it
// runs -n of each, and batch-delete then fails with class empty once the
// table is empty.
package crud

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"kurabe/dataset/records"
	"kurabe/store"
	"kurabe/workload"
)

// The kinds of operation, in Kinds order; each phase is one kind.
const (
	kInsert = iota
	kRead
	kBatchRead
	kUpdate
	kDelete
	kBatchDelete
)

var kindNames = []string{"insert", "read", "batch-read", "update", "delete", "batch-delete"}

// Table is crud's table: a key the store assigns and a payload.
func Table() *store.Table {
	return &store.Table{Name: "crud", AutoKey: true, Columns: []store.Column{
		{Name: "id", Kind: store.Int},
		{Name: "payload", Kind: store.Text},
	}}
}

// Config holds the workload's settings.
type Config struct {
	BatchRead   int   // keys per batch-read call
	BatchDelete int   // rows per batch-delete call
	Deletes     int64 // rows the delete phase removes; 0: half of -n
	Data        records.Config
}

// DefaultConfig is the page-size study's: 300 keys per batch read, 25,000
// rows per batch delete.
func DefaultConfig() Config {
	return Config{BatchRead: 300, BatchDelete: 25_000, Data: records.DefaultConfig()}
}

// Definition registers the workload's flags.
type Definition struct{ cfg Config }

// New returns the definition with default settings.
func New() workload.Definition { return &Definition{cfg: DefaultConfig()} }

func (d *Definition) Summary() string {
	return "the page-size study's sequence: insert, read, batch read, update, delete one by one, batch delete"
}

func (d *Definition) Ops() (all, defaults []string) { return kindNames, kindNames }

func (d *Definition) Flags(fs *flag.FlagSet) {
	fs.IntVar(&d.cfg.BatchRead, "batch-read", d.cfg.BatchRead, "crud: keys per batch-read call (one IN (...) query on SQL stores)")
	fs.IntVar(&d.cfg.BatchDelete, "batch-delete", d.cfg.BatchDelete, "crud: rows per batch-delete call (one DELETE statement)")
	fs.Var((*records.RowCount)(&d.cfg.Deletes), "deletes", "crud: rows the delete phase removes one by one, oldest first (default: half of -n); batch-delete removes the rest")
	d.cfg.Data.Flags(fs, "crud", false)
}

func (d *Definition) Build(ops []string) (workload.Workload, error) {
	c := d.cfg
	c.Data.Dataset = "records"
	switch {
	case c.BatchRead < 1 || c.BatchRead > 30_000:
		return nil, fmt.Errorf("--batch-read %d: want 1 to 30000 keys per call (SQLite takes at most 32,766 statement arguments)", c.BatchRead)
	case c.BatchDelete < 1:
		return nil, fmt.Errorf("--batch-delete %d: want 1 or more rows per call", c.BatchDelete)
	case c.Deletes < 0:
		return nil, fmt.Errorf("--deletes %d: want 0 (half of -n) or more", c.Deletes)
	}
	if err := c.Data.Validate(); err != nil {
		return nil, err
	}
	w := &crud{cfg: c, table: Table(), gen: records.NewGenerator(c.Data.Seed, c.Data.Size)}
	for _, op := range ops {
		i := slices.Index(kindNames, op)
		if i < 0 {
			return nil, workload.Blame("ops", fmt.Errorf("crud has no operation %q; choose from %s", op, strings.Join(kindNames, ", ")))
		}
		ph := workload.Phase{Name: op, Weights: make([]int, len(kindNames))}
		ph.Weights[i] = 1
		w.phases = append(w.phases, ph)
		w.order = append(w.order, i)
	}
	return w, nil
}

type crud struct {
	cfg    Config
	table  *store.Table
	gen    *records.Generator
	phases []workload.Phase
	order  []int // each phase's kind

	mu    sync.Mutex
	run   *phaseRun        // the phase now running, or the last one
	notes workload.NoteSet // how the current store ran the phases, for Notes
}

func (w *crud) Name() string             { return "crud" }
func (w *crud) Tables() []*store.Table   { return []*store.Table{w.table} }
func (w *crud) Phases() []workload.Phase { return w.phases }

func (w *crud) Kinds() []workload.Kind {
	ks := make([]workload.Kind, len(kindNames))
	for i, n := range kindNames {
		ks[i].Name = n
	}
	ks[kInsert].Writes = w.table // every insert adds exactly one row
	return ks
}

// Params are the settings, in no language, of the operations that run:
// the records' size and seed when rows are written (insert, update),
// batch_read with batch-read, deletes with delete (n/2, its default, is a
// formula that reads the same in every language), batch_delete with
// batch-delete. A setting no phase uses is left out, so the header does
// not show batch_delete=25000 for a run of insert and read.
func (w *crud) Params() map[string]string {
	p := map[string]string{}
	if w.runs(kInsert) || w.runs(kUpdate) {
		p["record_size"] = strconv.Itoa(w.cfg.Data.Size)
		p["records_seed"] = strconv.FormatUint(w.cfg.Data.Seed, 10)
	}
	if w.runs(kBatchRead) {
		p["batch_read"] = strconv.Itoa(w.cfg.BatchRead)
	}
	if w.runs(kDelete) {
		p["deletes"] = "n/2"
		if w.cfg.Deletes > 0 {
			p["deletes"] = strconv.FormatInt(w.cfg.Deletes, 10)
		}
	}
	if w.runs(kBatchDelete) {
		p["batch_delete"] = strconv.Itoa(w.cfg.BatchDelete)
	}
	return p
}

// runs says whether a phase of the kind runs.
func (w *crud) runs(kind int) bool { return slices.Contains(w.order, kind) }

// Stateful: every phase but the reads changes the table the phases after
// it work on (workload.Stateful), so with several client levels each
// level runs the whole sequence on a fresh table; a level that started
// where the one before left off would find its rows deleted.
func (w *crud) Stateful() bool {
	return slices.ContainsFunc(w.order, func(k int) bool { return k != kRead && k != kBatchRead })
}

// PhaseCount is the number of operations phase runs when the run's count
// is n: n for insert, read and update; n/300 calls for batch-read (the
// same n rows, 300 per call); M for delete; and for batch-delete the calls
// that delete what the phases before it left, 25,000 rows per call (at
// least one, which fails as empty when nothing is left). Row counts follow
// the phases in the order given.
func (w *crud) PhaseCount(phase int, n int64) int64 {
	return max(w.phaseCount(phase, n, w.deletes(n)), 1)
}

// ClientPhaseCounts gives, with isolated clients, each client's count for
// phase: client i's table runs the sequence of a run of its share of n,
// deleting its share of the delete phase's rows, so every table goes
// through the whole sequence (each table's batch delete empties it) and
// the inserts and reads still add up to n (workload.ClientPhaseCounter).
func (w *crud) ClientPhaseCounts(phase int, n int64, clients int) []int64 {
	out := make([]int64, clients)
	m := w.deletes(n)
	var total int64
	for i := range out {
		// A client whose share is nothing runs nothing: its table is
		// empty, or its rows all go in the batch delete.
		out[i] = w.phaseCount(phase, workload.Share(n, i, clients), workload.Share(m, i, clients))
		total += out[i]
	}
	if total == 0 {
		out[0] = 1 // as PhaseCount: one call, which fails as empty
	}
	return out
}

// phaseCount is phase's count in a run of n whose delete phase removes m
// rows: 0 when there is nothing to do.
func (w *crud) phaseCount(phase int, n, m int64) int64 {
	if phase < 0 || phase >= len(w.order) {
		return n
	}
	rows := w.rowsBefore(n, m)[phase]
	var count int64
	switch w.order[phase] {
	case kInsert, kRead, kUpdate:
		count = n
	case kBatchRead:
		count = ceilDiv(n, int64(w.cfg.BatchRead))
	case kDelete:
		count = min(m, rows)
	case kBatchDelete:
		count = ceilDiv(rows, int64(w.cfg.BatchDelete))
	}
	return count
}

// deletes is how many rows delete removes in a run of n: --deletes, or
// half of n.
func (w *crud) deletes(n int64) int64 {
	if w.cfg.Deletes == 0 {
		return n / 2
	}
	return w.cfg.Deletes
}

// rowsBefore returns, per phase in the order given, the rows the table
// holds when the phase starts in a run of n whose delete phase removes m:
// insert adds n, delete removes m (at most what is there), batch-delete
// the rest.
func (w *crud) rowsBefore(n, m int64) []int64 {
	out := make([]int64, len(w.order))
	var rows int64
	for i, k := range w.order {
		out[i] = rows
		switch k {
		case kInsert:
			rows += n
		case kDelete:
			rows -= min(m, rows)
		case kBatchDelete:
			rows = 0
		}
	}
	return out
}

// CheckRun refuses what does not fit the phases whose sizes follow from
// -n: delete removes --deletes rows (half of -n by default) and
// batch-delete the rest of what the inserts added, so with them a duration
// or a warm-up (which would insert or delete rows the counts do not
// include, and run the deletes out of rows) is refused; insert, read,
// batch-read and update run for any duration. --deletes that leave delete
// fewer rows than asked, or batch-delete none, are refused too
// (workload.RunChecker).
func (w *crud) CheckRun(r workload.RunSettings) error {
	if i := slices.IndexFunc(w.order, func(k int) bool { return k == kDelete || k == kBatchDelete }); i >= 0 {
		counted := kindNames[w.order[i]]
		why := "delete removes --deletes rows (default half of -n) and batch-delete the rest of the -n inserted, so their sizes follow from -n"
		switch {
		case r.Duration > 0:
			return workload.Unfit("d", fmt.Errorf("-d %v does not fit -w crud with %s: %s; give -n, or drop delete and batch-delete from --ops", r.Duration, counted, why))
		case r.Rate > 0 && r.Isolated:
			return workload.Unfit("R", fmt.Errorf("-R %g with --isolate does not fit -w crud with %s: each client's table deletes its own share of the rows it was given, and the timetable hands each operation to whichever client is free; leave -R out, leave --isolate out, or drop delete and batch-delete from --ops", r.Rate, counted))
		case r.Warmup > 0:
			return workload.Unfit("warmup", fmt.Errorf("--warmup %v does not fit -w crud with %s: %s, and a warm-up would insert or delete rows they do not count; leave --warmup out, or drop delete and batch-delete from --ops", r.Warmup, counted, why))
		}
	}
	m := w.cfg.Deletes
	if m == 0 || r.Count == 0 {
		return nil
	}
	before := w.rowsBefore(r.Count, m)
	for i, k := range w.order {
		if k != kDelete {
			continue
		}
		rows := before[i]
		if m > rows {
			return workload.Blame("deletes", fmt.Errorf("--deletes %d: the phases before delete leave %d rows (-n %d); give --deletes of at most %d, or a larger -n", m, rows, r.Count, rows))
		}
		if m == rows && slices.Contains(w.order[i+1:], kBatchDelete) {
			return workload.Blame("deletes", fmt.Errorf("--deletes %d: delete would remove all %d rows (-n %d) and leave batch-delete none; give --deletes below %d, or drop batch-delete from --ops", m, rows, r.Count, rows))
		}
	}
	return nil
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

// phaseRun is what one run of a phase shares among its clients: the key
// range found when it started and the deletion counter.
type phaseRun struct {
	started atomic.Bool // a client has begun operating: the next NewClient starts a new run
	lo, hi  int64       // smallest and largest key when the run started; hi < lo when empty
	oldest  atomic.Int64
	err     error
}

// NewClient is called for every client of a phase before any of them
// operates, and again for the next phase. The first call after a phase has
// operated starts a new run: it reads the table's key range through its
// session, outside the measurement, while the engine opens sessions.
func (w *crud) NewClient(s store.Session, rng *rand.Rand) workload.Client {
	c := &client{w: w, s: s, rng: rng, row: make(store.Row, 2)}
	c.onRow = c.take
	if ss, ok := s.(store.SQLSession); ok {
		if err := records.CheckDialect(ss); err != nil {
			c.err = fmt.Errorf("crud: %w", err)
		} else {
			c.sql = ss
			c.q = w.statements(ss)
		}
	}
	w.mu.Lock()
	if w.run == nil || w.run.started.Load() {
		w.run = w.startRun(s)
	}
	c.run = w.run
	if slices.Contains(w.order, kBatchRead) {
		if c.sql != nil {
			w.notes.Add(fmt.Sprintf("crud batch-read: one SELECT ... WHERE id IN (%d keys) per call", w.cfg.BatchRead))
		} else {
			w.notes.Add(fmt.Sprintf("crud batch-read: %d Scans per call, one per key (the store's sessions do not speak SQL)", w.cfg.BatchRead))
		}
	}
	w.mu.Unlock()
	c.keys = make([]int64, w.cfg.BatchRead)
	c.keyArgs = make([]any, len(c.keys))
	for i := range c.keys {
		c.keyArgs[i] = &c.keys[i]
	}
	c.args = [2]any{&c.ints[0], &c.ints[1]}
	c.upd[1] = &c.ints[1]
	c.onID = c.checkID
	return c
}

// Notes returns how the store just run took the phases whose path depends
// on the store (batch-read: one IN query or a Scan per key), and forgets
// them for the next store.
func (w *crud) Notes() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.run = nil
	return w.notes.Take()
}

func (w *crud) startRun(s store.Session) *phaseRun {
	r := &phaseRun{lo: 1, hi: 0}
	ctx := context.Background()
	var lo, hi int64
	var found bool
	_, err := s.Scan(ctx, w.table, store.Query{Limit: 1}, func(row store.Row) error { lo, found = row[0].Int, true; return nil })
	if err == nil && found {
		_, err = s.Scan(ctx, w.table, store.Query{Desc: true, Limit: 1}, func(row store.Row) error { hi = row[0].Int; return nil })
		r.lo, r.hi = lo, hi
	}
	if err != nil {
		r.err = fmt.Errorf("crud: reading the table's key range before the phase: %w", err)
	}
	r.oldest.Store(r.lo)
	return r
}

// queries are the statements in one session's dialect.
type queries struct {
	readIn, update, delete, deleteRange string
}

func (w *crud) statements(s store.SQLSession) *queries {
	d := s.Dialect()
	t := records.TableName(s, w.table)
	p := func(i int) string { return records.Placeholder(d, i) }
	return &queries{
		readIn:      "SELECT id, payload FROM " + t + " WHERE id IN (" + records.Placeholders(d, 1, w.cfg.BatchRead) + ")",
		update:      "UPDATE " + t + " SET payload = " + p(1) + " WHERE id = " + p(2),
		delete:      "DELETE FROM " + t + " WHERE id = " + p(1),
		deleteRange: "DELETE FROM " + t + " WHERE id BETWEEN " + p(1) + " AND " + p(2),
	}
}

type client struct {
	w     *crud
	s     store.Session
	sql   store.SQLSession // nil when the session does not speak SQL
	q     *queries
	run   *phaseRun
	began bool
	err   error
	rng   *rand.Rand
	row   store.Row
	seq   uint64 // versions of payloads this client wrote

	keys []int64 // scratch: a batch's keys, sorted
	// Statement arguments point at keys and ints, so an operation sets
	// the integers and passes the pointers without allocating.
	keyArgs []any
	ints    [2]int64
	args    [2]any
	upd     [2]any // update's: the payload, then &ints[1]
	found   bool
	got     int64
	bytes   int64
	stray   bool // a batch-read returned a key it did not ask for
	onRow   func(store.Row) error
	onID    func(int64) // c.checkID, bound once so queries do not allocate
}

func (c *client) checkID(id int64) {
	if _, ok := slices.BinarySearch(c.keys, id); !ok {
		c.stray = true
	}
}

func (c *client) take(r store.Row) error {
	c.got, c.found = r[0].Int, true
	c.bytes += 8 + int64(len(r[1].Text))
	return nil
}

// Do performs one operation. Reads report the bytes they fetched as
// read; insert, update and the deletes report what they sent as written
// (the row, the new payload and its key, the keys deleted).
func (c *client) Do(ctx context.Context, kind int) (workload.Done, error) {
	if !c.began {
		c.began = true
		c.run.started.Store(true)
	}
	if c.err != nil {
		return workload.Done{}, c.err
	}
	if c.run.err != nil {
		return workload.Done{}, c.run.err
	}
	switch kind {
	case kInsert:
		return c.insert(ctx)
	case kRead:
		n, err := c.read(ctx)
		return workload.Done{Read: n}, err
	case kBatchRead:
		var n int64
		var err error
		if c.sql != nil {
			n, err = c.batchReadSQL(ctx)
		} else {
			n, err = c.batchReadScans(ctx)
		}
		return workload.Done{Read: n}, err
	}
	if c.sql == nil {
		return workload.Done{}, &store.ClassError{Class: "skipped", Err: fmt.Errorf("crud %s needs SQL, and this store's sessions do not speak it (the file store; SQLite with connect=per-op); the phase is skipped, not faked", kindNames[kind])}
	}
	var n int64
	var err error
	switch kind {
	case kUpdate:
		n, err = c.update(ctx)
	case kDelete:
		n, err = c.delete(ctx)
	case kBatchDelete:
		n, err = c.batchDelete(ctx)
	default:
		return workload.Done{}, fmt.Errorf("crud: no operation kind %d", kind)
	}
	return workload.Done{Written: n}, err
}

func (c *client) insert(ctx context.Context) (workload.Done, error) {
	c.row[1].Text = c.w.gen.Payload(int64(c.rng.Uint64()>>1), 0)
	if err := c.s.Insert(ctx, c.w.table, c.row); err != nil {
		return workload.Done{}, err
	}
	return workload.Done{Written: 8 + int64(len(c.row[1].Text)), Rows: 1}, nil
}

func (c *client) empty(what string) error {
	return &store.ClassError{Class: "empty", Err: fmt.Errorf("crud %s: the table is empty; run insert first (--ops insert,%s)", what, what)}
}

// randomKey draws a key from the range the phase started with.
func (c *client) randomKey() int64 { return c.run.lo + c.rng.Int64N(c.run.hi-c.run.lo+1) }

// readOne reads the row at or after k, which must exist.
func (c *client) readOne(ctx context.Context, k int64) error {
	c.found = false
	if _, err := c.s.Scan(ctx, c.w.table, store.Query{HasFrom: true, From: k, Limit: 1}, c.onRow); err != nil {
		return err
	}
	if !c.found || c.got < k || c.got > c.run.hi || (c.sql != nil && c.got != k) {
		return &store.ClassError{Class: "missing", Err: fmt.Errorf("crud read: key %d of %d..%d not found; the store lost rows, or the table was changed outside this run", k, c.run.lo, c.run.hi)}
	}
	return nil
}

func (c *client) read(ctx context.Context) (int64, error) {
	if c.run.hi < c.run.lo {
		return 0, c.empty("read")
	}
	c.bytes = 0
	err := c.readOne(ctx, c.randomKey())
	return c.bytes, err
}

// batchKeys draws a batch's keys and returns how many are distinct.
func (c *client) batchKeys() int {
	for i := range c.keys {
		c.keys[i] = c.randomKey()
	}
	slices.Sort(c.keys)
	return distinct(c.keys)
}

func distinct(sorted []int64) int {
	n := 0
	for i, k := range sorted {
		if i == 0 || k != sorted[i-1] {
			n++
		}
	}
	return n
}

func (c *client) batchReadSQL(ctx context.Context) (int64, error) {
	if c.run.hi < c.run.lo {
		return 0, c.empty("batch-read")
	}
	want := c.batchKeys()
	c.stray = false
	n, bytes, err := c.sql.Query(ctx, c.q.readIn, c.keyArgs, c.onID)
	if err != nil {
		return bytes, err
	}
	if n != want || c.stray {
		return bytes, &store.ClassError{Class: "missing", Err: fmt.Errorf("crud batch-read: %d rows for %d distinct keys of %d..%d (rows not asked for: %v)", n, want, c.run.lo, c.run.hi, c.stray)}
	}
	return bytes, nil
}

func (c *client) batchReadScans(ctx context.Context) (int64, error) {
	if c.run.hi < c.run.lo {
		return 0, c.empty("batch-read")
	}
	c.bytes = 0
	for range c.keys {
		if err := c.readOne(ctx, c.randomKey()); err != nil {
			return c.bytes, err
		}
	}
	return c.bytes, nil
}

func (c *client) update(ctx context.Context) (int64, error) {
	if c.run.hi < c.run.lo {
		return 0, c.empty("update")
	}
	k := c.randomKey()
	c.seq++
	payload := c.w.gen.Payload(k, c.seq)
	// Putting the payload in an interface is the one allocation left.
	c.upd[0], c.ints[1] = payload, k
	n, err := c.sql.Exec(ctx, c.q.update, c.upd[:]...)
	c.upd[0] = nil
	if err == nil && n != 1 {
		err = &store.ClassError{Class: "missing", Err: fmt.Errorf("crud update: key %d of %d..%d changed %d rows, want 1", k, c.run.lo, c.run.hi, n)}
	}
	return 8 + int64(len(payload)), err
}

func (c *client) delete(ctx context.Context) (int64, error) {
	k := c.run.oldest.Add(1) - 1
	if k > c.run.hi {
		return 0, c.empty("delete")
	}
	c.ints[0] = k
	n, err := c.sql.Exec(ctx, c.q.delete, c.args[:1]...)
	if err == nil && n != 1 {
		err = &store.ClassError{Class: "missing", Err: fmt.Errorf("crud delete: key %d, the oldest left, deleted %d rows, want 1", k, n)}
	}
	return 8, err
}

// batchDelete deletes the oldest rows left, up to BatchDelete of them, in
// one statement: the keys from the shared counter, which no other client
// claims.
func (c *client) batchDelete(ctx context.Context) (int64, error) {
	b := int64(c.w.cfg.BatchDelete)
	from := c.run.oldest.Add(b) - b
	if from > c.run.hi {
		return 0, c.empty("batch-delete")
	}
	to := min(from+b-1, c.run.hi)
	c.ints = [2]int64{from, to}
	n, err := c.sql.Exec(ctx, c.q.deleteRange, c.args[:]...)
	if err == nil && n != to-from+1 {
		err = &store.ClassError{Class: "missing", Err: fmt.Errorf("crud batch-delete: keys %d..%d deleted %d rows, want %d", from, to, n, to-from+1)}
	}
	return 16, err
}
