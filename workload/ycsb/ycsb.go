// Package ycsb is YCSB's core workloads A to F on kurabe's stores: the
// usertable of recordcount records (1000 by default) of ten 100-byte
// fields, loaded before the phases, then a mix of operations drawn from
// YCSB's proportions and request distributions:
//
//	A  50 % read, 50 % update              zipfian   (update heavy)
//	B  95 % read,  5 % update              zipfian   (read mostly)
//	C 100 % read                           zipfian   (read only)
//	D  95 % read,  5 % insert              latest    (read latest)
//	E  95 % scan,  5 % insert              zipfian   (short ranges, 1..100 records)
//	F  50 % read, 50 % read-modify-write   zipfian
//
// Each letter is a phase (--ycsb picks one, --ops several); the engine
// draws each operation's kind by those weights from the run's seed and
// reports every kind apart (read, update, insert, scan, rmw).
//
// The distributions are YCSB's, written here from their descriptions
// (generator.go): zipfian is the scrambled zipfian (theta 0.99, ranks
// from a zipfian over 10^10 items hashed onto the records with FNV-1a),
// latest a zipfian over the records by recency, so recent inserts are
// read most, and uniform is uniform. Uniform and zipfian draw from the
// records present when the phase starts, latest from every record whose
// insert has returned (keyspace in keys.go); --distribution gives every
// letter another one. YCSB's uniform, too, draws from the loaded records
// only; its zipfian also covers records inserted during the run, over a
// space sized from operationcount, which a run for a duration (-d) does
// not know: here a phase's inserts are reached by the phases after it.
//
// Keys. YCSB's key is the string "user" followed by the decimal digits of
// the record number's FNV-1a hash (its default insertorder=hashed).
// kurabe's tables have integer keys, so the key here is that number
// itself: key ycsb_key = 6284781860667377211 is YCSB's user6284781860667377211.
// Keys then sort as numbers, not as strings, which changes which records
// a scan covers but not how many. --insert-order ordered uses the record
// number as the key (YCSB's insertorder=ordered): inserts then append at
// the end of the key range, which the file store needs (it keeps rows in
// write order and takes keys in increasing order only).
//
// How the operations reach a store:
//
//   - read is store.Session.Scan from the key with a limit of one row, all
//     fields (YCSB's readallfields), and the row's key must be the one
//     asked; scan is a Scan from the key with a limit drawn uniformly from
//     1 to --scan-max, in key order, capped at the end of the table.
//     Both run on every store.
//   - insert is Session.Insert of a new record, numbered from a counter
//     the clients share. The engine checks every acknowledged insert
//     against the store's row count.
//   - update is UPDATE usertable SET fieldN = ? WHERE ycsb_key = ? of one
//     field drawn at random (YCSB's writeallfields=false), which must
//     change exactly one row; rmw is a read, then such an update, timed as
//     one operation. They need store.SQLSession: on a store without SQL
//     they are not faked but fail at once with class skipped.
//
// The load goes through the store's bulk path (store.BulkLoader: COPY,
// LOAD DATA, SQLite's insert in one transaction) or InsertBatch calls of
// 1000 rows, in key order (YCSB inserts in record-number order, which with
// hashed keys is random key order: B-tree pages end up fuller here). Field
// values are base64url text from the records generator, reproducible from
// the key, the field and a version (0 when loaded, the client's count of
// its updates after).
package ycsb

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"

	"kurabe/dataset/records"
	"kurabe/numfmt"
	"kurabe/store"
	"kurabe/workload"
)

// The operations.
const (
	opRead = iota
	opUpdate
	opInsert
	opScan
	opRMW
	numOps
)

var opNames = [numOps]string{"read", "update", "insert", "scan", "rmw"}

// The request distributions.
const (
	distUniform = iota
	distZipfian
	distLatest
	numDists
)

var distNames = [numDists]string{"uniform", "zipfian", "latest"}

// A kind is an operation with the distribution its keys are drawn from:
// kind = op*numDists + dist. The engine knows only kinds, not phases, so
// a read drawn from the latest distribution (D) must be a kind apart from
// one drawn from the zipfian (A). Kinds are named by their operation
// alone; a phase uses one distribution, so its kinds' names are distinct.
func kindOf(op, dist int) int { return op*numDists + dist }

// letter is one of YCSB's core workloads.
type letter struct {
	name    string
	weights [numOps]int // percent of operations
	dist    int         // default request distribution
	about   string
}

var letters = []letter{
	{"A", [numOps]int{opRead: 50, opUpdate: 50}, distZipfian, "update heavy: 50 % read, 50 % update"},
	{"B", [numOps]int{opRead: 95, opUpdate: 5}, distZipfian, "read mostly: 95 % read, 5 % update"},
	{"C", [numOps]int{opRead: 100}, distZipfian, "read only"},
	{"D", [numOps]int{opRead: 95, opInsert: 5}, distLatest, "read latest: 95 % read, 5 % insert, reads favouring recent inserts"},
	{"E", [numOps]int{opScan: 95, opInsert: 5}, distZipfian, "short ranges: 95 % scan, 5 % insert"},
	{"F", [numOps]int{opRead: 50, opRMW: 50}, distZipfian, "read-modify-write: 50 % read, 50 % read then update"},
}

func letterNames() []string {
	var out []string
	for _, l := range letters {
		out = append(out, l.name)
	}
	return out
}

func findLetter(s string) (letter, bool) {
	for _, l := range letters {
		if strings.EqualFold(s, l.name) {
			return l, true
		}
	}
	return letter{}, false
}

// Config holds the workload's settings; the defaults are YCSB's.
type Config struct {
	Workload     string // the letter run when --ops is not given
	Records      int64  // recordcount
	Fields       int    // fieldcount
	FieldSize    int    // fieldlength, bytes
	Distribution string // requestdistribution for every letter; "" for each letter's own
	ScanMax      int    // maxscanlength: scans read 1..ScanMax records
	InsertOrder  string // insertorder: hashed or ordered
}

// DefaultConfig is YCSB's: workload A, 1000 records of ten 100-byte
// fields, scans of up to 100 records, hashed keys.
func DefaultConfig() Config {
	return Config{Workload: "A", Records: 1000, Fields: 10, FieldSize: 100, ScanMax: 100, InsertOrder: "hashed"}
}

// Definition registers the workload's flags.
type Definition struct{ cfg Config }

// New returns the definition with YCSB's default settings.
func New() workload.Definition { return &Definition{cfg: DefaultConfig()} }

func (d *Definition) Summary() string {
	return "YCSB's core workloads A to F on usertable (--ycsb A..F): reads, updates, inserts, scans and read-modify-writes with zipfian, latest or uniform keys"
}

func (d *Definition) Ops() (all, defaults []string) {
	def := strings.ToUpper(d.cfg.Workload)
	return letterNames(), []string{def}
}

// DefaultCount is YCSB's operationcount in its workload files.
func (d *Definition) DefaultCount() int64 { return 1000 }

func (d *Definition) Flags(fs *flag.FlagSet) {
	fs.StringVar(&d.cfg.Workload, "ycsb", d.cfg.Workload, "ycsb: the core workload, A to F: A update heavy, B read mostly, C read only, D read latest, E short ranges, F read-modify-write (--ops A,B,... runs several)")
	fs.Var((*records.RowCount)(&d.cfg.Records), "recordcount", "ycsb: records in usertable, loaded before the phases (YCSB's recordcount); k, M and G suffixes")
	fs.IntVar(&d.cfg.Fields, "fields", d.cfg.Fields, "ycsb: fields of each record, field0 to fieldN-1 (YCSB's fieldcount)")
	fs.IntVar(&d.cfg.FieldSize, "field-size", d.cfg.FieldSize, "ycsb: bytes of each field (YCSB's fieldlength)")
	fs.StringVar(&d.cfg.Distribution, "distribution", "", "ycsb: request distribution for every letter, uniform, zipfian or latest (default: the letter's own, latest for D, zipfian otherwise)")
	fs.IntVar(&d.cfg.ScanMax, "scan-max", d.cfg.ScanMax, "ycsb: a scan reads 1 to this many records, uniformly (YCSB's maxscanlength)")
	fs.StringVar(&d.cfg.InsertOrder, "insert-order", d.cfg.InsertOrder, "ycsb: keys are the record number's FNV hash (hashed, YCSB's default) or the record number (ordered, which the file store needs for inserts)")
}

func (d *Definition) Build(ops []string) (workload.Workload, error) {
	c := d.cfg
	if _, ok := findLetter(c.Workload); !ok {
		return nil, fmt.Errorf("--ycsb %q: want one of YCSB's core workloads %s (to run several, give them as phases: --ops A,B,F)", c.Workload, strings.Join(letterNames(), ", "))
	}
	dist := -1
	if c.Distribution != "" {
		dist = slices.Index(distNames[:], c.Distribution)
		if dist < 0 {
			return nil, fmt.Errorf("--distribution %q: want uniform, zipfian or latest", c.Distribution)
		}
	}
	switch {
	case c.Records < 1:
		return nil, fmt.Errorf("--recordcount %d: want 1 or more records", c.Records)
	case c.Fields < 1 || c.Fields > 1000:
		return nil, fmt.Errorf("--fields %d: want 1 to 1000 fields", c.Fields)
	case c.FieldSize < 1 || c.FieldSize > 1<<20:
		return nil, fmt.Errorf("--field-size %d: want 1 to 1048576 bytes", c.FieldSize)
	case c.ScanMax < 1:
		return nil, fmt.Errorf("--scan-max %d: want 1 or more records per scan", c.ScanMax)
	case c.InsertOrder != "hashed" && c.InsertOrder != "ordered":
		return nil, fmt.Errorf("--insert-order %q: want hashed (keys are FNV hashes of record numbers, YCSB's default) or ordered (keys are record numbers)", c.InsertOrder)
	}
	w := &ycsb{cfg: c, table: Table(c.Fields), gen: records.NewGenerator(records.DefaultSeed, c.FieldSize), keys: &keyspace{}}
	for _, op := range ops {
		l, ok := findLetter(op)
		if !ok {
			return nil, workload.Blame("ops", fmt.Errorf("ycsb has no workload %q; choose from %s (each a mix of operations)", op, strings.Join(letterNames(), ", ")))
		}
		ld := l.dist
		if dist >= 0 {
			ld = dist
		}
		ph := workload.Phase{Name: l.name, Weights: make([]int, numOps*numDists)}
		for o, p := range l.weights {
			ph.Weights[kindOf(o, ld)] = p
		}
		w.phases = append(w.phases, ph)
		w.letters = append(w.letters, l)
		w.latest = w.latest || ld == distLatest
		w.needsSQL = w.needsSQL || l.weights[opUpdate] > 0 || l.weights[opRMW] > 0
	}
	return w, nil
}

// Table is the usertable with fields text fields after the key.
func Table(fields int) *store.Table {
	t := &store.Table{Name: "usertable", Columns: []store.Column{{Name: "ycsb_key", Kind: store.Int}}}
	for i := range fields {
		t.Columns = append(t.Columns, store.Column{Name: "field" + strconv.Itoa(i), Kind: store.Text})
	}
	return t
}

type ycsb struct {
	cfg      Config
	table    *store.Table
	gen      *records.Generator
	phases   []workload.Phase
	letters  []letter
	latest   bool // a phase draws keys from the latest distribution
	needsSQL bool // a phase updates
	keys     *keyspace

	mu    sync.Mutex
	zetaN int64   // the record count zetaV is zeta of, for latest
	zetaV float64 // shared so that each client does not sum it from 1
	notes workload.NoteSet
}

func (w *ycsb) Name() string             { return "ycsb" }
func (w *ycsb) Tables() []*store.Table   { return []*store.Table{w.table} }
func (w *ycsb) Phases() []workload.Phase { return w.phases }

func (w *ycsb) Kinds() []workload.Kind {
	ks := make([]workload.Kind, numOps*numDists)
	for o := range numOps {
		for d := range numDists {
			ks[kindOf(o, d)].Name = opNames[o]
		}
	}
	for d := range numDists {
		ks[kindOf(opInsert, d)].Writes = w.table // every insert adds exactly one row
	}
	return ks
}

// Params are the settings, in no language, of the letters that run:
// distribution is --distribution, or each letter's own (latest for D,
// zipfian for the others), one name when the letters agree,
// A:zipfian,D:latest when they do not; scan_max only when a letter scans
// (E).
func (w *ycsb) Params() map[string]string {
	var names, own []string
	same := true
	for _, l := range w.letters {
		names = append(names, l.name)
		own = append(own, l.name+":"+distNames[l.dist])
		same = same && l.dist == w.letters[0].dist
	}
	dist := w.cfg.Distribution
	switch {
	case dist != "":
	case same && len(w.letters) > 0:
		dist = distNames[w.letters[0].dist]
	default:
		dist = strings.Join(own, ",")
	}
	p := map[string]string{
		"ycsb": strings.Join(names, ","), "recordcount": strconv.FormatInt(w.cfg.Records, 10),
		"fields": strconv.Itoa(w.cfg.Fields), "field_size": strconv.Itoa(w.cfg.FieldSize),
		"distribution": dist, "insert_order": w.cfg.InsertOrder,
	}
	if slices.ContainsFunc(w.letters, func(l letter) bool { return l.weights[opScan] > 0 }) {
		p["scan_max"] = strconv.Itoa(w.cfg.ScanMax)
	}
	return p
}

// Stateful: inserts (D, E) add records that the phases after them read,
// scan and draw latest keys from (workload.Stateful), so with several
// client levels each level runs on usertable loaded anew. Updates only
// change values, and leave the table as the next phase needs it.
func (w *ycsb) Stateful() bool {
	return slices.ContainsFunc(w.letters, func(l letter) bool { return l.weights[opInsert] > 0 })
}

// KeysOutOfOrder says why inserts may come out of key order
// (workload.OwnKeys): D's and E's new records have hashed keys unless
// --insert-order ordered numbers them in turn, and even numbered in turn
// they reach the table in turn only from one client: a client that took
// its number may be preempted before it writes, while another takes and
// writes the next (the file store then refuses the first, now behind).
func (w *ycsb) KeysOutOfOrder(clients int) string {
	switch {
	case !w.Stateful():
		return ""
	case w.cfg.InsertOrder != "ordered":
		return "ycsb's D and E insert records with hashed keys (--insert-order hashed, YCSB's default), in no order; give --insert-order ordered, which numbers them in turn (and -c 1, so that no insert overtakes an earlier one)"
	case clients > 1:
		return fmt.Sprintf("ycsb's D and E number their inserts in turn (--insert-order ordered), but with -c %d a client can write its record after another client wrote a later one, and that insert would fail; give -c 1 for %s (the letters without inserts take any -c)", clients, strings.Join(w.inserting(), " and "))
	}
	return ""
}

// inserting names the letters run whose operations insert.
func (w *ycsb) inserting() []string {
	var out []string
	for _, l := range w.letters {
		if l.weights[opInsert] > 0 {
			out = append(out, l.name)
		}
	}
	return out
}

// SharedTables says why kurabe run --isolate does not give each client a
// usertable of its own: YCSB defines its workloads over one table that
// every client thread reads and writes (workload.SharedTables).
func (w *ycsb) SharedTables() string {
	return "YCSB's workloads are defined over one usertable that all clients share (hot records, scans over others' inserts); run without --isolate"
}

// key is record n's key.
func (w *ycsb) key(n int64) int64 {
	if w.cfg.InsertOrder == "ordered" {
		return n
	}
	return fnv64(uint64(n))
}

// cell is what a field's value is generated from: the key and the field.
func (w *ycsb) cell(key int64, field int) int64 { return key*int64(w.cfg.Fields) + int64(field) }

// value is the value of field of the record with key as loaded (version
// 0), or as written by a client's version-th update.
func (w *ycsb) value(key int64, field int, version uint64) []byte {
	return w.gen.Payload(w.cell(key, field), version)
}

// fill sets row to the loaded record with key.
func (w *ycsb) fill(row store.Row, key int64) {
	row[0] = store.Value{Int: key}
	for f := range w.cfg.Fields {
		row[1+f] = store.Value{Text: w.value(key, f, 0)}
	}
}

// loadKeys returns the keys of records 0..n-1 in increasing order.
func (w *ycsb) loadKeys(n int64) ([]int64, error) {
	keys := make([]int64, n)
	for i := range keys {
		keys[i] = w.key(int64(i))
	}
	slices.Sort(keys)
	for i := 1; i < len(keys); i++ {
		if keys[i] == keys[i-1] {
			return nil, fmt.Errorf("ycsb: two of the %d record numbers hash to key %d; use --insert-order ordered", n, keys[i])
		}
	}
	return keys, nil
}

// Prepare loads recordcount records, in key order, through the store's
// bulk path or in InsertBatch calls of 1000 rows, and starts the run's
// record numbering after them.
func (w *ycsb) Prepare(ctx context.Context, st store.Store) (int64, error) {
	n := w.cfg.Records
	var keys []int64
	if w.cfg.InsertOrder == "hashed" {
		var err error
		if keys, err = w.loadKeys(n); err != nil {
			return 0, err
		}
	}
	keyAt := func(i int64) int64 {
		if keys != nil {
			return keys[i]
		}
		return i
	}
	var loaded int64
	var err error
	var how string
	if b, ok := st.(store.BulkLoader); ok {
		how = "through the store's bulk path"
		row := make(store.Row, len(w.table.Columns))
		var i int64
		loaded, err = b.BulkLoad(ctx, w.table, func() (store.Row, bool) {
			if i >= n {
				return nil, false
			}
			w.fill(row, keyAt(i))
			i++
			return row, true
		})
	} else {
		how = "in InsertBatch calls of 1000 rows (the store has no bulk path)"
		loaded, err = w.insertBatches(ctx, st, n, keyAt)
	}
	if err == nil && loaded != n {
		err = fmt.Errorf("ycsb: the store took %d of %d records", loaded, n)
	}
	if err != nil {
		return loaded, err
	}
	w.keys.reset(n)
	w.mu.Lock()
	w.zetaN, w.zetaV = 0, 0
	w.notes.Add(fmt.Sprintf("ycsb load: %s records of %d fields of %d bytes, %s keys, %s", numfmt.Group(int64(n)), w.cfg.Fields, w.cfg.FieldSize, w.cfg.InsertOrder, how))
	w.mu.Unlock()
	return loaded, nil
}

func (w *ycsb) insertBatches(ctx context.Context, st store.Store, n int64, keyAt func(int64) int64) (int64, error) {
	const batch = 1000
	s, err := st.Open(ctx)
	if err != nil {
		return 0, err
	}
	defer s.Close()
	cols := len(w.table.Columns)
	vals := make([]store.Value, batch*cols)
	rows := make([]store.Row, 0, batch)
	var done int64
	for i := int64(0); i < n; {
		rows = rows[:0]
		for j := 0; j < batch && i < n; j, i = j+1, i+1 {
			r := store.Row(vals[j*cols : (j+1)*cols])
			w.fill(r, keyAt(i))
			rows = append(rows, r)
		}
		if err := store.InsertBatch(ctx, s, w.table, rows); err != nil {
			return done, err
		}
		done += int64(len(rows))
	}
	return done, nil
}

// Notes returns how the store just run took the workload (its load path,
// operations it skipped), and forgets it for the next store.
func (w *ycsb) Notes() []string { return w.notes.Take() }

// latestZeta returns zeta(n, 0.99), extending the one computed for the
// last client; w.mu is held.
func (w *ycsb) latestZeta(n int64) float64 {
	if n < w.zetaN {
		w.zetaN, w.zetaV = 0, 0
	}
	w.zetaV = zeta(w.zetaV, w.zetaN, n, zipfConstant)
	w.zetaN = n
	return w.zetaV
}

// NewClient is called for every client of a phase before any of them
// operates. The records present then are the range uniform and zipfian
// keys are drawn from during the phase.
func (w *ycsb) NewClient(s store.Session, rng *rand.Rand) workload.Client {
	c := &client{w: w, s: s, rng: rng, row: make(store.Row, len(w.table.Columns))}
	c.args[1] = &c.key
	c.onRead, c.onScan = c.takeRead, c.takeScan
	if ss, ok := s.(store.SQLSession); ok {
		if err := records.CheckDialect(ss); err != nil {
			c.err = fmt.Errorf("ycsb: %w", err)
		} else {
			c.sql = ss
			t := records.TableName(ss, w.table)
			key := records.Placeholder(ss.Dialect(), 2)
			for f := range w.cfg.Fields {
				c.update = append(c.update, "UPDATE "+t+" SET field"+strconv.Itoa(f)+" = "+records.Placeholder(ss.Dialect(), 1)+" WHERE ycsb_key = "+key)
			}
		}
	}
	c.space = w.keys.count()
	if c.space > 0 {
		c.zipf = newScrambled(c.space)
	}
	w.mu.Lock()
	if w.latest {
		n := max(c.space, 1) // grown on the first draw when records arrive
		c.lat = newLatest(n, w.latestZeta(n))
	}
	if w.needsSQL && c.sql == nil && c.err == nil {
		w.notes.Add("ycsb update and rmw need SQL, and this store's sessions do not speak it (the file store; SQLite with connect=per-op): they fail as skipped, not faked")
	}
	w.mu.Unlock()
	return c
}

type client struct {
	w      *ycsb
	s      store.Session
	sql    store.SQLSession // nil when the session does not speak SQL
	update []string         // UPDATE of each field, in the session's dialect
	err    error
	rng    *rand.Rand
	space  int64 // records 0..space-1 for uniform and zipfian keys
	zipf   scrambled
	lat    latest
	row    store.Row // an insert's row
	args   [2]any    // an update's: its value, then &key
	key    int64
	seq    uint64 // updates this client made: the version of the values it writes

	// what a read or scan saw
	want   int64 // the key asked for
	found  bool
	first  int64
	prev   int64
	rows   int
	bytes  int64
	order  bool // a scan returned keys out of order
	onRead func(store.Row) error
	onScan func(store.Row) error // bound once so Scan does not allocate
}

func (c *client) takeRead(r store.Row) error {
	c.found, c.first = true, r[0].Int
	c.addBytes(r)
	return nil
}

func (c *client) takeScan(r store.Row) error {
	if !c.found {
		c.found, c.first = true, r[0].Int
	} else if r[0].Int <= c.prev {
		c.order = true
	}
	c.prev = r[0].Int
	c.rows++
	c.addBytes(r)
	return nil
}

func (c *client) addBytes(r store.Row) {
	c.bytes += 8
	for _, v := range r[1:] {
		c.bytes += int64(len(v.Text))
	}
}

// Do performs one operation: reads and scans report the bytes they
// fetched as read, inserts and updates what they sent as written, and a
// read-modify-write both.
func (c *client) Do(ctx context.Context, kind int) (workload.Done, error) {
	if c.err != nil {
		return workload.Done{}, c.err
	}
	op, dist := kind/numDists, kind%numDists
	switch op {
	case opInsert:
		return c.insert(ctx)
	case opUpdate, opRMW:
		if c.sql == nil {
			return workload.Done{}, &store.ClassError{Class: "skipped", Err: fmt.Errorf("ycsb %s needs SQL (an UPDATE), and this store's sessions do not speak it (the file store; SQLite with connect=per-op); skipped, not faked", opNames[op])}
		}
	}
	n, err := c.choose(dist)
	if err != nil {
		return workload.Done{}, err
	}
	key := c.w.key(n)
	switch op {
	case opRead:
		r, err := c.read(ctx, n, key)
		return workload.Done{Read: r}, err
	case opUpdate:
		u, err := c.updateOne(ctx, n, key)
		return workload.Done{Written: u}, err
	case opScan:
		r, err := c.scan(ctx, n, key, 1+c.rng.IntN(c.w.cfg.ScanMax))
		return workload.Done{Read: r}, err
	case opRMW:
		r, err := c.read(ctx, n, key)
		if err != nil {
			return workload.Done{Read: r}, err
		}
		u, err := c.updateOne(ctx, n, key)
		return workload.Done{Read: r, Written: u}, err
	}
	return workload.Done{}, fmt.Errorf("ycsb: no operation kind %d", kind)
}

// choose draws a record number from dist. A record whose insert failed
// is not there to read, so it is drawn again, as YCSB draws again a
// record not yet inserted (its failure was counted when it happened);
// after 100 such draws in a row the last stands, and the operation fails
// with class insert-failed.
func (c *client) choose(dist int) (int64, error) {
	for range 100 {
		n, err := c.draw(dist)
		if err != nil || !c.w.keys.failedInsert(n) {
			return n, err
		}
	}
	return c.draw(dist)
}

func (c *client) draw(dist int) (int64, error) {
	switch dist {
	case distLatest:
		n := c.w.keys.count()
		if n < 1 {
			return 0, c.empty()
		}
		return c.lat.next(c.rng, n), nil
	case distZipfian:
		if c.space < 1 {
			return 0, c.empty()
		}
		return c.zipf.next(c.rng), nil
	}
	if c.space < 1 {
		return 0, c.empty()
	}
	return c.rng.Int64N(c.space), nil
}

func (c *client) empty() error {
	return &store.ClassError{Class: "empty", Err: fmt.Errorf("ycsb: no records were loaded before the phase")}
}

// notFound is the error of a read or scan that did not find record n.
func (c *client) notFound(what string, n, key int64) error {
	if c.w.keys.failedInsert(n) {
		return &store.ClassError{Class: "insert-failed", Err: fmt.Errorf("ycsb %s: record %d (key %d) is missing because its insert failed earlier in this run", what, n, key)}
	}
	got := "no row"
	if c.found {
		got = "key " + strconv.FormatInt(c.first, 10)
	}
	return &store.ClassError{Class: "missing", Err: fmt.Errorf("ycsb %s: record %d (key %d) not found (got %s); the store lost it, or the table was changed outside this run", what, n, key, got)}
}

// read reads every field of the record with key.
func (c *client) read(ctx context.Context, n, key int64) (int64, error) {
	c.found, c.bytes = false, 0
	if _, err := c.s.Scan(ctx, c.w.table, store.Query{HasFrom: true, From: key, Limit: 1}, c.onRead); err != nil {
		return c.bytes, err
	}
	if !c.found || c.first != key {
		return c.bytes, c.notFound("read", n, key)
	}
	return c.bytes, nil
}

// scan reads up to limit records in key order from the record with key,
// which must come first.
func (c *client) scan(ctx context.Context, n, key int64, limit int) (int64, error) {
	c.found, c.bytes, c.rows, c.order = false, 0, 0, false
	got, err := c.s.Scan(ctx, c.w.table, store.Query{HasFrom: true, From: key, Limit: limit}, c.onScan)
	switch {
	case err != nil:
		return c.bytes, err
	case !c.found || c.first != key:
		return c.bytes, c.notFound("scan", n, key)
	case c.order || got != c.rows || c.rows > limit:
		return c.bytes, &store.ClassError{Class: "order", Err: fmt.Errorf("ycsb scan: from key %d, limit %d: %d rows, not in increasing key order or more than asked", key, limit, c.rows)}
	}
	return c.bytes, nil
}

// updateOne writes a new value to one field of the record with key,
// drawn at random, and must change exactly that row.
func (c *client) updateOne(ctx context.Context, n, key int64) (int64, error) {
	f := c.rng.IntN(c.w.cfg.Fields)
	c.seq++
	v := c.w.value(key, f, c.seq)
	// The value in an interface is one allocation; the key, through a
	// pointer, is none.
	c.args[0], c.key = v, key
	changed, err := c.sql.Exec(ctx, c.update[f], c.args[:]...)
	c.args[0] = nil
	if err == nil && changed != 1 {
		if changed == 0 {
			c.found = false
			return 8 + int64(len(v)), c.notFound("update", n, key)
		}
		err = &store.ClassError{Class: "missing", Err: fmt.Errorf("ycsb update: key %d changed %d rows, want 1", key, changed)}
	}
	return 8 + int64(len(v)), err
}

// insert adds the next record.
func (c *client) insert(ctx context.Context) (workload.Done, error) {
	n := c.w.keys.claim()
	c.w.fill(c.row, c.w.key(n))
	err := c.s.Insert(ctx, c.w.table, c.row)
	if err != nil {
		c.w.keys.fail(n)
		return workload.Done{}, err
	}
	c.w.keys.ack(n)
	return workload.Done{Written: 8 + int64(c.w.cfg.Fields*c.w.cfg.FieldSize), Rows: 1}, nil
}
