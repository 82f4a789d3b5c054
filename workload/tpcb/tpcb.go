// Package tpcb holds pgbench's two built-in workloads, on every SQL store
// kurabe has (SQLite, PostgreSQL, MariaDB/MySQL):
//
//   - tpcb is pgbench's default transaction, "TPC-B (sort of)": in one
//     transaction, add a random delta to a random account, read the
//     account's balance back, add the delta to a random teller and a
//     random branch, and record the change in the history table.
//   - select-only is pgbench -S: read one random account's balance.
//
// Both use pgbench's four tables with pgbench's row counts per scale factor
// (1 branch, 10 tellers, 100,000 accounts per unit of --scale) and load
// them before the measured phases, through the store's bulk path when it
// has one. The two workloads share tables, load and operations and differ
// only in the operation they run by default, so `-w tpcb --ops
// select-only,tpcb` measures both on one load.
//
// Trade-offs, each chosen to keep figures comparable with pgbench's:
//
//   - The statements are pgbench's, sent one by one as prepared statements
//     (pgbench -M prepared), not folded into one round trip: a transaction
//     is seven round trips (BEGIN, five statements, COMMIT), as pgbench's.
//   - Random numbers are drawn as pgbench draws them: aid, bid and tid
//     uniform and independent (the account's branch is not the teller's),
//     delta uniform in [-5000, 5000].
//   - An error is not retried (pgbench does not by default): the
//     transaction is rolled back and the error counted in the class the
//     store gave it (serialization, deadlock, busy, ...); the client goes on
//     with the next transaction, where pgbench would stop the client.
//   - Every UPDATE must change exactly one row and the SELECT must return
//     exactly one; anything else is an error of class not-one-row, which
//     pgbench does not check. It costs nothing: the stores report the
//     counts anyway.
//   - Columns are the stores' 64-bit integers and text (kurabe's table
//     model has no int4 or char(n)); fillers are pgbench's width only for
//     accounts (84 spaces, as char(84) stores pgbench's empty filler), empty
//     elsewhere as pgbench leaves them NULL. mtime is microseconds since
//     the Unix epoch, taken by the server in the INSERT as pgbench's
//     CURRENT_TIMESTAMP is.
//   - The history table has no natural key; kurabe's tables need one, so it
//     gets an auto-assigned id column first (pgbench's has none).
//   - Statement arguments are boxed into interfaces, as store.SQLSession's
//     ...any asks: an integer outside 0..255 costs an allocation, so a
//     transaction allocates a few small values besides what the driver
//     allocates. That is the price of one SQL interface for three drivers.
package tpcb

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"kurabe/store"
	"kurabe/workload"
)

// The kinds of operation, in Kinds order.
const (
	kTPCB = iota
	kSelect
)

var kindNames = []string{"tpcb", "select-only"}

// Rows per unit of scale, as pgbench -i makes them.
const (
	branchesPerScale = 1
	tellersPerScale  = 10
	accountsPerScale = 100000
	maxScale         = 100000 // 10^10 accounts: beyond any machine kurabe runs on
)

// Tables returns pgbench's four tables, in the order pgbench loads them:
// branches, tellers, accounts, history.
func Tables() (branches, tellers, accounts, history *store.Table) {
	branches = &store.Table{Name: "pgbench_branches", Columns: []store.Column{
		{Name: "bid", Kind: store.Int}, {Name: "bbalance", Kind: store.Int}, {Name: "filler", Kind: store.Text},
	}}
	tellers = &store.Table{Name: "pgbench_tellers", Columns: []store.Column{
		{Name: "tid", Kind: store.Int}, {Name: "bid", Kind: store.Int}, {Name: "tbalance", Kind: store.Int}, {Name: "filler", Kind: store.Text},
	}}
	accounts = &store.Table{Name: "pgbench_accounts", Columns: []store.Column{
		{Name: "aid", Kind: store.Int}, {Name: "bid", Kind: store.Int}, {Name: "abalance", Kind: store.Int}, {Name: "filler", Kind: store.Text},
	}}
	// pgbench's history has no key; id is kurabe's, assigned by the store.
	history = &store.Table{Name: "pgbench_history", AutoKey: true, Columns: []store.Column{
		{Name: "id", Kind: store.Int},
		{Name: "tid", Kind: store.Int}, {Name: "bid", Kind: store.Int}, {Name: "aid", Kind: store.Int},
		{Name: "delta", Kind: store.Int}, {Name: "mtime", Kind: store.Int}, {Name: "filler", Kind: store.Text},
	}}
	return
}

// Config holds the workloads' settings.
type Config struct {
	Scale int // pgbench's scale factor
}

// DefaultConfig is pgbench -i's default, scale 1.
func DefaultConfig() Config { return Config{Scale: 1} }

// scaleFlag is --scale. Both workloads of this package take it; the
// definition that registers second binds to the first one's value, since
// kurabe registers every workload's flags in one flag set.
type scaleFlag int

func (s *scaleFlag) String() string { return strconv.Itoa(int(*s)) }

func (s *scaleFlag) Set(v string) error {
	n, err := strconv.Atoi(v)
	if err != nil {
		return errors.New("want a whole number")
	}
	*s = scaleFlag(n)
	return nil
}

// Definition is one of the two workloads before it is configured.
type Definition struct {
	name  string // "tpcb" or "select-only": the default operation
	scale *scaleFlag
}

// New returns pgbench's TPC-B (sort of), with default settings.
func New() workload.Definition { return newDefinition("tpcb") }

// NewSelectOnly returns pgbench -S, with default settings.
func NewSelectOnly() workload.Definition { return newDefinition("select-only") }

func newDefinition(name string) *Definition {
	s := scaleFlag(DefaultConfig().Scale)
	return &Definition{name: name, scale: &s}
}

func (d *Definition) Summary() string {
	if d.name == "tpcb" {
		return "pgbench's TPC-B (sort of): update an account, a teller and a branch and log to history, in one transaction (SQL stores)"
	}
	return "pgbench -S: read one random account's balance by key (SQL stores)"
}

// Ops lists both operations, this workload's own first; the default is
// its own.
func (d *Definition) Ops() (all, defaults []string) {
	if d.name == "tpcb" {
		return []string{"tpcb", "select-only"}, []string{"tpcb"}
	}
	return []string{"select-only", "tpcb"}, []string{"select-only"}
}

func (d *Definition) Flags(fs *flag.FlagSet) {
	if f := fs.Lookup("scale"); f != nil {
		if s, ok := f.Value.(*scaleFlag); ok {
			d.scale = s
			return
		}
	}
	fs.Var(d.scale, "scale", "tpcb, select-only: pgbench's scale factor: 1 branch, 10 tellers and 100,000 accounts per unit")
}

// Config returns the settings the flags gave.
func (d *Definition) Config() Config { return Config{Scale: int(*d.scale)} }

func (d *Definition) Build(ops []string) (workload.Workload, error) {
	c := d.Config()
	if c.Scale < 1 || c.Scale > maxScale {
		return nil, fmt.Errorf("--scale %d: want 1 to %d (pgbench's scale factor; 1 is 100,000 accounts)", c.Scale, maxScale)
	}
	w := &bench{name: d.name, cfg: c}
	w.branches, w.tellers, w.accounts, w.history = Tables()
	all, _ := d.Ops()
	for _, op := range ops {
		i := slices.Index(kindNames, op)
		if i < 0 {
			return nil, workload.Blame("ops", fmt.Errorf("%s has no operation %q; choose from %s", d.name, op, strings.Join(all, ", ")))
		}
		ph := workload.Phase{Name: op, Weights: make([]int, len(kindNames))}
		ph.Weights[i] = 1
		w.phases = append(w.phases, ph)
	}
	for i, dialect := range dialects {
		w.sql[i] = statements(dialect, defaultName(dialect), w)
	}
	return w, nil
}

type bench struct {
	name                                 string
	cfg                                  Config
	branches, tellers, accounts, history *store.Table
	phases                               []workload.Phase
	sql                                  [3]queries // by dialect, with the stores' default table names
	notes                                workload.NoteSet
}

// Transactional: tpcb runs each operation in a transaction; select-only
// runs none.
func (w *bench) Transactional() bool {
	return slices.ContainsFunc(w.phases, func(p workload.Phase) bool { return p.Weights[kTPCB] > 0 })
}

// Notes says what Prepare found about the current store: an engine that
// runs tpcb without transactions.
func (w *bench) Notes() []string { return w.notes.Take() }

func (w *bench) Name() string { return w.name }

// SQLOnly: the transaction is SQL (workload.SQLOnly).
func (w *bench) SQLOnly() {}

// SharedTables: pgbench's clients share its four tables by design (the
// contention on branches and tellers is part of the benchmark).
func (w *bench) SharedTables() string {
	return w.name + " runs on pgbench's four shared tables (its contention on branches and tellers is part of the benchmark); run it without --isolate"
}
func (w *bench) Phases() []workload.Phase { return w.phases }

func (w *bench) Tables() []*store.Table {
	return []*store.Table{w.branches, w.tellers, w.accounts, w.history}
}

// Kinds: a tpcb transaction adds exactly one history row, which the engine
// checks against the store after the phase.
func (w *bench) Kinds() []workload.Kind {
	return []workload.Kind{{Name: "tpcb", Writes: w.history}, {Name: "select-only"}}
}

func (w *bench) Params() map[string]string {
	s := int64(w.cfg.Scale)
	return map[string]string{
		"scale":    strconv.FormatInt(s, 10),
		"branches": strconv.FormatInt(s*branchesPerScale, 10),
		"tellers":  strconv.FormatInt(s*tellersPerScale, 10),
		"accounts": strconv.FormatInt(s*accountsPerScale, 10),
	}
}

func (w *bench) counts() (branches, tellers, accounts int64) {
	s := int64(w.cfg.Scale)
	return s * branchesPerScale, s * tellersPerScale, s * accountsPerScale
}

// --- SQL -------------------------------------------------------------------

var dialects = [3]string{"sqlite", "postgres", "mysql"}

// queries are one dialect's statements, with its table names and
// placeholders.
type queries struct {
	updAccount, selAccount, updTeller, updBranch, insHistory string
	sumAccounts, sumTellers, sumBranches, sumHistory         string
}

// TableNamer may be implemented by an SQL session to give the name, quoted
// and qualified as its store's Setup made it, under which a table is
// reached. Without it the names are those of each store's default
// namespace: SQLite kurabe_<name>, PostgreSQL "kurabe"."<name>", MySQL
// `kurabe`.`<name>` (the mysql store's database option, default kurabe).
type TableNamer interface {
	TableName(t *store.Table) string
}

func defaultName(dialect string) func(t *store.Table) string {
	switch dialect {
	case "postgres":
		return func(t *store.Table) string { return `"kurabe"."` + t.Name + `"` }
	case "mysql":
		return func(t *store.Table) string { return "`kurabe`.`" + t.Name + "`" }
	}
	return func(t *store.Table) string { return "kurabe_" + t.Name }
}

// statements writes pgbench's statements in a dialect. The SQL is the same
// in all three but for placeholders, table names and how the server's
// clock becomes microseconds.
func statements(dialect string, name func(*store.Table) string, w *bench) queries {
	p := func(i int) string { return "?" }
	// mtime is the server's clock at the statement (PostgreSQL and MySQL:
	// the transaction's), as pgbench's CURRENT_TIMESTAMP, in microseconds.
	now := "CAST(unixepoch('subsec') * 1000000 AS INTEGER)"
	// pgbench leaves the history filler NULL; kurabe's MySQL text columns
	// are NOT NULL, so there it is empty.
	filler := "NULL"
	switch dialect {
	case "postgres":
		p = func(i int) string { return "$" + strconv.Itoa(i) }
		now = "CAST(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP) * 1000000 AS bigint)"
	case "mysql":
		now = "CAST(UNIX_TIMESTAMP(CURRENT_TIMESTAMP(6)) * 1000000 AS SIGNED)"
		filler = "''"
	}
	a, t, b, h := name(w.accounts), name(w.tellers), name(w.branches), name(w.history)
	return queries{
		updAccount:  "UPDATE " + a + " SET abalance = abalance + " + p(1) + " WHERE aid = " + p(2),
		selAccount:  "SELECT abalance FROM " + a + " WHERE aid = " + p(1),
		updTeller:   "UPDATE " + t + " SET tbalance = tbalance + " + p(1) + " WHERE tid = " + p(2),
		updBranch:   "UPDATE " + b + " SET bbalance = bbalance + " + p(1) + " WHERE bid = " + p(2),
		insHistory:  "INSERT INTO " + h + " (tid, bid, aid, delta, mtime, filler) VALUES (" + p(1) + ", " + p(2) + ", " + p(3) + ", " + p(4) + ", " + now + ", " + filler + ")",
		sumAccounts: "SELECT COALESCE(SUM(abalance), 0), COUNT(*) FROM " + a,
		sumTellers:  "SELECT COALESCE(SUM(tbalance), 0), COUNT(*) FROM " + t,
		sumBranches: "SELECT COALESCE(SUM(bbalance), 0), COUNT(*) FROM " + b,
		sumHistory:  "SELECT COALESCE(SUM(delta), 0), COUNT(*) FROM " + h,
	}
}

// queriesFor returns the statements for a session.
func (w *bench) queriesFor(s store.SQLSession) (*queries, error) {
	i := slices.Index(dialects[:], s.Dialect())
	if i < 0 {
		return nil, fmt.Errorf("%s: no SQL written for dialect %q; it knows %s", w.name, s.Dialect(), strings.Join(dialects[:], ", "))
	}
	if n, ok := s.(TableNamer); ok {
		q := statements(dialects[i], n.TableName, w)
		return &q, nil
	}
	return &w.sql[i], nil
}

// errNoSQL says which stores can run the workload.
func (w *bench) errNoSQL(driver string) error {
	return fmt.Errorf("%s runs on SQL stores only (sqlite, postgres, mariadb, mysql, with connect=session or pool); %s has no SQL session", w.name, driver)
}

// --- client ----------------------------------------------------------------

func (w *bench) NewClient(s store.Session, rng *rand.Rand) workload.Client {
	c := &client{w: w, rng: rng}
	for i := range c.args {
		c.args[i] = &c.ints[i]
	}
	c.branches, c.tellers, c.accounts = w.counts()
	ss, ok := s.(store.SQLSession)
	if !ok {
		c.err = w.errNoSQL(fmt.Sprintf("%T", s))
		return c
	}
	c.s = ss
	c.q, c.err = w.queriesFor(ss)
	return c
}

type client struct {
	w                           *bench
	s                           store.SQLSession
	q                           *queries
	err                         error // set when the session cannot run the workload
	rng                         *rand.Rand
	branches, tellers, accounts int64
	// The statements' arguments: args[i] points at ints[i], so an
	// operation sets ints and passes args without allocating.
	ints [4]int64
	args [4]any
}

// bytesWritten is what a tpcb transaction reports as written: the ten
// integers of its UPDATEs and INSERT, 8 bytes each.
const bytesWritten = 10 * 8

// Do runs one transaction or select. A tpcb transaction writes its
// UPDATEs' and INSERT's integers, reads the balance it selects back and
// adds a row to the history once committed; select-only reads the
// balance.
func (c *client) Do(ctx context.Context, kind int) (workload.Done, error) {
	if c.err != nil {
		return workload.Done{}, c.err
	}
	switch kind {
	case kTPCB:
		read, err := c.tpcb(ctx)
		if err != nil {
			return workload.Done{}, err // rolled back: no history row
		}
		return workload.Done{Read: read, Written: bytesWritten, Rows: 1}, nil
	case kSelect:
		aid := 1 + c.rng.Int64N(c.accounts)
		read, err := c.selectAccount(ctx, aid)
		return workload.Done{Read: read}, err
	}
	return workload.Done{}, fmt.Errorf("%s: no operation kind %d", c.w.name, kind)
}

// selectAccount is pgbench -S's statement, outside a transaction block.
func (c *client) selectAccount(ctx context.Context, aid int64) (int64, error) {
	c.ints[0] = aid
	n, bytes, err := c.s.Query(ctx, c.q.selAccount, c.args[:1], nil)
	if err != nil {
		return bytes, err
	}
	if n != 1 {
		return bytes, notOne("SELECT abalance FROM pgbench_accounts", "aid", aid, int64(n), "returned")
	}
	return bytes, nil
}

// tpcb is pgbench's tpcb-like script: BEGIN; five statements; END. It
// returns the bytes its SELECT read.
func (c *client) tpcb(ctx context.Context) (read int64, err error) {
	aid := 1 + c.rng.Int64N(c.accounts)
	bid := 1 + c.rng.Int64N(c.branches)
	tid := 1 + c.rng.Int64N(c.tellers)
	delta := c.rng.Int64N(10001) - 5000
	if err := c.s.Begin(ctx); err != nil {
		return 0, err
	}
	err = c.update(ctx, c.q.updAccount, "UPDATE pgbench_accounts", "aid", aid, delta)
	if err == nil {
		read, err = c.selectAccount(ctx, aid)
	}
	if err == nil {
		err = c.update(ctx, c.q.updTeller, "UPDATE pgbench_tellers", "tid", tid, delta)
	}
	if err == nil {
		err = c.update(ctx, c.q.updBranch, "UPDATE pgbench_branches", "bid", bid, delta)
	}
	if err == nil {
		c.ints = [4]int64{tid, bid, aid, delta}
		_, err = c.s.Exec(ctx, c.q.insHistory, c.args[:4]...)
	}
	if err == nil {
		return read, c.s.Commit(ctx)
	}
	if rerr := c.s.Rollback(ctx); rerr != nil {
		return read, fmt.Errorf("%w (rolling back: %v)", err, rerr)
	}
	return read, err
}

// update runs one of the UPDATEs, which must change exactly one row. A
// delta of 0 changes nothing, and MySQL then reports 0 rows affected.
func (c *client) update(ctx context.Context, q, what, key string, id, delta int64) error {
	c.ints[0], c.ints[1] = delta, id
	n, err := c.s.Exec(ctx, q, c.args[:2]...)
	if err != nil {
		return err
	}
	if n != 1 && !(n == 0 && delta == 0) {
		return notOne(what, key, id, n, "changed")
	}
	return nil
}

func notOne(what, key string, id, n int64, verb string) error {
	return &store.ClassError{Class: "not-one-row", Err: fmt.Errorf("%s for %s %d %s %d rows, want 1; the tables were changed outside this run, or the store lost rows", what, key, id, verb, n)}
}

// --- load ------------------------------------------------------------------

// loadBatch is the rows per InsertBatch call when the store has no bulk
// loader.
const loadBatch = 1000

// accountFiller is what pgbench's accounts hold: its empty filler, padded
// to char(84).
var accountFiller = []byte(strings.Repeat(" ", 84))

// Prepare fills branches, tellers and accounts as pgbench -i does (every
// balance 0, each teller and account in its branch), through the store's
// bulk loader when it has one and in batches otherwise. On PostgreSQL it
// then runs VACUUM ANALYZE, as pgbench -i does, so both start from tables
// in the same state.
func (w *bench) Prepare(ctx context.Context, st store.Store) (int64, error) {
	s, err := st.Open(ctx)
	if err != nil {
		return 0, err
	}
	defer s.Close()
	ss, ok := s.(store.SQLSession)
	if !ok {
		info := st.Info(ctx)
		what := info.Driver
		if c := info.Options["connect"]; c != "" {
			what += " with connect=" + c
		}
		return 0, w.errNoSQL(what)
	}
	q, err := w.queriesFor(ss)
	if err != nil {
		return 0, err
	}
	// A store that cannot hold a transaction open (postgres with
	// connect=per-op) would fail every tpcb operation: say so once, before
	// loading the tables.
	if w.Transactional() {
		// MyISAM and Aria take BEGIN and COMMIT and do nothing with them:
		// the figures are of statements one by one, not of transactions.
		if e := st.Info(ctx).Options["engine"]; ss.Dialect() == "mysql" && !strings.EqualFold(e, "InnoDB") && e != "" {
			w.notes.Add(fmt.Sprintf("engine %s does not do transactions: tpcb's BEGIN and COMMIT do nothing, so its updates are not atomic and its tps does not compare with InnoDB's or PostgreSQL's", e))
		}
		if err := ss.Begin(ctx); err != nil {
			return 0, fmt.Errorf("tpcb needs transactions, and this store's sessions cannot begin one: %w", err)
		}
		if err := ss.Rollback(ctx); err != nil {
			return 0, err
		}
	}
	nb, nt, na := w.counts()
	var total int64
	for _, l := range []struct {
		t    *store.Table
		n    int64
		fill func(r store.Row, i int64)
	}{
		{w.branches, nb, func(r store.Row, i int64) { r[0].Int = i }},
		{w.tellers, nt, func(r store.Row, i int64) { r[0].Int, r[1].Int = i, (i-1)/tellersPerScale+1 }},
		{w.accounts, na, func(r store.Row, i int64) {
			r[0].Int, r[1].Int, r[3].Text = i, (i-1)/accountsPerScale+1, accountFiller
		}},
	} {
		n, err := load(ctx, st, s, l.t, l.n, l.fill)
		total += n
		if err != nil {
			return total, fmt.Errorf("loading %s: %w", l.t.Name, err)
		}
		if n != l.n {
			return total, fmt.Errorf("loading %s: the store took %d rows of %d", l.t.Name, n, l.n)
		}
	}
	// The statements must reach the tables Setup made: a store whose
	// namespace is not the default one (mysql's database option) fails
	// here, once, rather than on every operation.
	var sum int64
	rows, _, err := ss.Query(ctx, q.sumAccounts, nil, func(first int64) { sum = first })
	if err != nil {
		return total, fmt.Errorf("%s cannot read back the accounts it loaded (%w); its statements name the tables in kurabe's default namespace, which this store does not use", w.name, err)
	}
	if rows != 1 || sum != 0 {
		return total, fmt.Errorf("reading pgbench_accounts back: %d rows, balance sum %d; want 1 row and 0", rows, sum)
	}
	if ss.Dialect() == "postgres" {
		for _, t := range []*store.Table{w.branches, w.tellers, w.accounts, w.history} {
			name := defaultName("postgres")(t)
			if n, ok := ss.(TableNamer); ok {
				name = n.TableName(t)
			}
			if _, err := ss.Exec(ctx, "VACUUM ANALYZE "+name); err != nil {
				return total, fmt.Errorf("VACUUM ANALYZE %s after loading (pgbench -i does it too): %w", name, err)
			}
		}
	}
	return total, nil
}

// load inserts rows 1..n of t, each made by fill from a row whose filler
// is empty.
func load(ctx context.Context, st store.Store, s store.Session, t *store.Table, n int64, fill func(store.Row, int64)) (int64, error) {
	if bl, ok := st.(store.BulkLoader); ok {
		row := make(store.Row, len(t.Columns))
		var i int64
		return bl.BulkLoad(ctx, t, func() (store.Row, bool) {
			if i == n {
				return nil, false
			}
			i++
			fill(row, i)
			return row, true
		})
	}
	batch := make([]store.Row, min(n, loadBatch))
	for i := range batch {
		batch[i] = make(store.Row, len(t.Columns))
	}
	var done int64
	for done < n {
		k := min(n-done, loadBatch)
		batch = batch[:k]
		for j := range batch {
			fill(batch[j], done+int64(j)+1)
		}
		if err := store.InsertBatch(ctx, s, t, batch); err != nil {
			return done, err
		}
		done += k
	}
	return done, nil
}
