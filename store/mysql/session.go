package mysql

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"kurabe/store"
	"kurabe/store/mysql/wire"
)

// queries are a table's statements as text, built once per session and
// each scan shape on its first use.
type queries struct {
	insert   string
	sel, key string         // SELECT cols FROM t; the quoted key column
	scans    [shapes]string // by shape; "" until first used
	head     string         // INSERT INTO t (cols) VALUES
	tuple    string         // (?, ?, ...)
	params   int            // placeholders per row
	// The rows of batchText, for connect=per-op.
	batchRows int
	batchText string
}

func newQueries(s *Store, t *store.Table) *queries {
	var cols, insCols, marks []string
	for i, c := range t.Columns {
		cols = append(cols, quote(c.Name))
		if i == 0 && t.AutoKey {
			continue
		}
		insCols = append(insCols, quote(c.Name))
		marks = append(marks, "?")
	}
	name := s.qualified(t.Name)
	q := &queries{
		head:   "INSERT INTO " + name + " (" + strings.Join(insCols, ", ") + ") VALUES ",
		tuple:  "(" + strings.Join(marks, ", ") + ")",
		params: len(marks),
		sel:    "SELECT " + strings.Join(cols, ", ") + " FROM " + name,
		key:    cols[0],
	}
	q.insert = q.head + q.tuple
	return q
}

// shape is which clauses a scan's SQL has. Each shape is a statement of
// its own, so that a call only picks one and nothing is built per call.
type shape uint8

const (
	shapeDesc   shape = 1 << iota // ORDER BY key DESC, and key <= ? for From
	shapeFrom                     // WHERE key >= ?
	shapeLimit                    // LIMIT ?
	shapeOffset                   // OFFSET ?
)

// shapes is how many shapes there are.
const shapes = int(shapeOffset) << 1

// shapeOf returns q's shape. A limit or offset of 0 or less means none,
// as Limit 0 does.
func shapeOf(q store.Query) shape {
	var sh shape
	if q.Desc {
		sh |= shapeDesc
	}
	if q.HasFrom {
		sh |= shapeFrom
	}
	if q.Limit > 0 {
		sh |= shapeLimit
	}
	if q.Offset > 0 {
		sh |= shapeOffset
	}
	return sh
}

// noLimit stands for "all rows" where MySQL's grammar wants a LIMIT: OFFSET
// comes only after one. It is the largest row count the server takes, the
// value MySQL's manual gives for this.
const noLimit = "18446744073709551615"

// scan returns the text of a scan of shape sh. Its placeholders are, in
// order, those of the clauses it has: from, limit, offset (scanArgs).
func (q *queries) scan(sh shape) string {
	if q.scans[sh] != "" {
		return q.scans[sh]
	}
	var b strings.Builder
	b.WriteString(q.sel)
	if sh&shapeFrom != 0 {
		op := " >= ?"
		if sh&shapeDesc != 0 {
			op = " <= ?"
		}
		b.WriteString(" WHERE " + q.key + op)
	}
	b.WriteString(" ORDER BY " + q.key)
	if sh&shapeDesc != 0 {
		b.WriteString(" DESC")
	}
	switch {
	case sh&shapeLimit != 0:
		b.WriteString(" LIMIT ?")
	case sh&shapeOffset != 0:
		b.WriteString(" LIMIT " + noLimit)
	}
	if sh&shapeOffset != 0 {
		b.WriteString(" OFFSET ?")
	}
	q.scans[sh] = b.String()
	return q.scans[sh]
}

// scanArgs appends q's parameters in the order scan places them.
// database/sql takes them as interfaces, which boxes (allocates) each
// integer of 256 or more: the one cost per call this package cannot avoid.
func scanArgs(args []any, q store.Query) []any {
	if q.HasFrom {
		args = append(args, q.From)
	}
	if q.Limit > 0 {
		args = append(args, int64(q.Limit))
	}
	if q.Offset > 0 {
		args = append(args, int64(q.Offset))
	}
	return args
}

// batch returns the INSERT of n rows.
func (q *queries) batch(n int) string {
	var b strings.Builder
	b.Grow(len(q.head) + n*(len(q.tuple)+2))
	b.WriteString(q.head)
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(q.tuple)
	}
	return b.String()
}

// stmts are a session's prepared statements of one table, each prepared
// on first use: on the session's connection (connect=session), which owns
// them, or shared with every session of the pool (connect=pool), which
// the store owns.
type stmts struct {
	insert    *sql.Stmt
	scans     [shapes]*sql.Stmt // by shape
	batchRows int               // rows of batch, the last batch size prepared
	batch     *sql.Stmt
}

func (p *stmts) close() {
	for _, st := range append([]*sql.Stmt{p.insert, p.batch}, p.scans[:]...) {
		if st != nil {
			st.Close()
		}
	}
}

// stmtKind says which of a table's statements a shared one is.
type stmtKind uint8

const (
	kindInsert stmtKind = iota
	kindScan            // with shape
	kindBatch           // with rows
)

// poolKey names one of the statements connect=pool sessions share.
type poolKey struct {
	table int
	kind  stmtKind
	shape shape
	rows  int
}

// poolStmt returns the shared statement key, preparing text() on the pool
// the first time (database/sql then prepares it on each connection it
// runs on). Sessions keep what it returns, so it is called once per
// session and statement. The store's lock is not held while it waits
// for a pooled connection to prepare on (see sharedSQL).
func (s *Store) poolStmt(ctx context.Context, key poolKey, text func() string) (*sql.Stmt, error) {
	s.mu.Lock()
	st := s.pool[key]
	s.mu.Unlock()
	if st != nil {
		return st, nil
	}
	st, err := s.db.PrepareContext(ctx, text())
	if err != nil {
		return nil, classify(err, false)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if other := s.pool[key]; other != nil { // another session's, meanwhile
		st.Close()
		return other, nil
	}
	if s.pool == nil {
		s.pool = map[poolKey]*sql.Stmt{}
	}
	s.pool[key] = st
	return st, nil
}

// Open returns a session: with its own connection (connect=session), on
// the shared pool (connect=pool), or connecting for every operation
// (connect=per-op).
func (s *Store) Open(ctx context.Context) (store.Session, error) {
	if err := s.ready(ctx); err != nil {
		return nil, scrub(err, s.secret)
	}
	ss := &session{st: s, db: s.db}
	switch s.opts.connect {
	case "per-op":
		return &perOpSession{session: ss}, nil
	case "session":
		if err := ss.connect(ctx); err != nil {
			return nil, err
		}
	}
	return ss, nil
}

// connect opens the session's own connection (connect=session).
func (s *session) connect(ctx context.Context) error {
	st := s.st
	if st.opts.driver == "wire" {
		err := connecting(ctx, st.sessCfg.Timeout, st.sessCfg.Addr, func(ctx context.Context) (err error) {
			s.w, err = wire.Connect(ctx, st.sessCfg.Clone())
			return err
		})
		return scrub(classify(err, true), st.secret)
	}
	c, err := st.db.Conn(ctx)
	if err != nil {
		return scrub(classify(err, true), st.secret)
	}
	s.conn = c
	return nil
}

var _ store.Reopener = (*session)(nil)

// Lost says the session's own connection is gone (store.Reopener); a
// pool replaces its broken connections itself, and connect=per-op
// connects anew every time.
func (s *session) Lost() bool {
	switch {
	case s.st.opts.connect != "session":
		return false
	case s.st.opts.driver == "wire":
		return s.w == nil || s.w.Broken()
	}
	return s.conn == nil || s.lost
}

// Reopen closes what is left of the session's connection and opens a new
// one (store.Reopener).
func (s *session) Reopen(ctx context.Context) error {
	s.Close()
	// The statements were the old connection's, and so was USE.
	s.wstmts, s.stmts, s.usedDB, s.lost = nil, nil, false, false
	return s.connect(ctx)
}

type session struct {
	st      *Store
	conn    *sql.Conn  // connect=session: the session's own connection
	w       *wire.Conn // connect=session with driver=wire: the same, over package wire
	wstmts  []*wireStmts
	tbuf    []byte
	db      *sql.DB    // where connections come from
	queries []*queries // by table ID
	stmts   []*stmts   // by table ID; not for connect=per-op
	// Scratch, reused by every operation.
	args  []any
	dest  []any
	ints  []int64
	texts []sql.RawBytes
	row   store.Row

	// SQLSession: statements by text; a connect=pool transaction's Tx
	// and the connection it holds; whether a transaction is open; and
	// the columns Query scans into.
	sql     map[string]*sqlStmt
	later   []string // texts a pool transaction prepared on itself, for the pool after it
	tx      *sql.Tx
	txConn  *sql.Conn
	inTx    bool
	usedDB  bool // connect=session: USE database sent
	lost    bool // connect=session, driver=sql: the connection broke
	sqlCols []sqlCol
	sqlDest []any
}

// perOpSession connects for every operation and reports the time it took.
type perOpSession struct {
	*session
	connect time.Duration
}

var _ store.ConnectTimer = (*perOpSession)(nil)
var _ store.BatchInserter = (*session)(nil)
var _ store.Truncater = (*Store)(nil)

// ConnectTime returns the time spent connecting since it was last called.
func (p *perOpSession) ConnectTime() time.Duration {
	c := p.connect
	p.connect = 0
	return c
}

func (p *perOpSession) Insert(ctx context.Context, t *store.Table, row store.Row) error {
	c, err := p.open(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	args := bind(p.args[:0], t, row)
	_, err = c.ExecContext(ctx, p.query(t).insert, args...)
	p.args = clearArgs(args)
	return p.fail(err)
}

func (p *perOpSession) InsertBatch(ctx context.Context, t *store.Table, rows []store.Row) error {
	if len(rows) == 0 {
		return nil
	}
	c, err := p.open(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	return p.insertBatch(ctx, c, c, t, rows, true)
}

func (p *perOpSession) Scan(ctx context.Context, t *store.Table, q store.Query, fn func(store.Row) error) (int, error) {
	c, err := p.open(ctx)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	args := scanArgs(p.args[:0], q)
	rows, err := c.QueryContext(ctx, p.query(t).scan(shapeOf(q)), args...)
	p.args = clearArgs(args)
	if err != nil {
		return 0, p.fail(err)
	}
	return p.read(t, rows, fn)
}

// open opens the connection for one operation, timing it.
func (p *perOpSession) open(ctx context.Context) (*sql.Conn, error) {
	start := time.Now()
	c, err := p.db.Conn(ctx)
	p.connect += time.Since(start)
	if err != nil {
		return nil, scrub(classify(err, true), p.st.secret)
	}
	return c, nil
}

func (s *session) fail(err error) error {
	if err == nil {
		return nil
	}
	err = classify(err, false)
	if class := store.Classify(err); s.conn != nil && (class == "connect" || class == store.ClassConnLost) {
		s.lost = true // database/sql's Conn keeps a broken connection
	}
	return scrub(err, s.st.secret)
}

func (s *session) query(t *store.Table) *queries {
	for len(s.queries) <= t.ID {
		s.queries = append(s.queries, nil)
	}
	if s.queries[t.ID] == nil {
		s.queries[t.ID] = newQueries(s.st, t)
	}
	return s.queries[t.ID]
}

// table returns the session's statements of t, none prepared yet at first.
func (s *session) table(t *store.Table) *stmts {
	for len(s.stmts) <= t.ID {
		s.stmts = append(s.stmts, nil)
	}
	if s.stmts[t.ID] == nil {
		s.stmts[t.ID] = &stmts{}
	}
	return s.stmts[t.ID]
}

// prepare prepares a statement on the session's own connection, or gets
// the pool's shared one.
func (s *session) prepare(ctx context.Context, key poolKey, text func() string) (*sql.Stmt, error) {
	var st *sql.Stmt
	var err error
	if s.conn != nil {
		st, err = s.conn.PrepareContext(ctx, text())
		return st, s.fail(err)
	}
	st, err = s.st.poolStmt(ctx, key, text)
	return st, scrub(err, s.st.secret)
}

func (s *session) insertStmt(ctx context.Context, t *store.Table) (*sql.Stmt, error) {
	p := s.table(t)
	if p.insert == nil {
		q := s.query(t)
		st, err := s.prepare(ctx, poolKey{table: t.ID, kind: kindInsert}, func() string { return q.insert })
		if err != nil {
			return nil, err
		}
		p.insert = st
	}
	return p.insert, nil
}

func (s *session) scanStmt(ctx context.Context, t *store.Table, sh shape) (*sql.Stmt, error) {
	p := s.table(t)
	if p.scans[sh] == nil {
		q := s.query(t)
		st, err := s.prepare(ctx, poolKey{table: t.ID, kind: kindScan, shape: sh}, func() string { return q.scan(sh) })
		if err != nil {
			return nil, err
		}
		p.scans[sh] = st
	}
	return p.scans[sh], nil
}

// empty stands for a nil text, which the driver would send as NULL.
var empty = []byte{}

func bind(args []any, t *store.Table, row store.Row) []any {
	for i, c := range t.Columns {
		switch {
		case i == 0 && t.AutoKey:
		case c.Kind == store.Int:
			args = append(args, row[i].Int)
		case row[i].Text == nil:
			args = append(args, empty)
		default:
			args = append(args, row[i].Text)
		}
	}
	return args
}

// clearArgs drops the references to the caller's rows and keeps the space.
func clearArgs(args []any) []any {
	clear(args)
	return args[:0]
}

func (s *session) Insert(ctx context.Context, t *store.Table, row store.Row) error {
	if s.w != nil {
		return s.wireInsert(ctx, t, row)
	}
	st, err := s.insertStmt(ctx, t)
	if err != nil {
		return err
	}
	args := bind(s.args[:0], t, row)
	_, err = st.ExecContext(ctx, args...)
	s.args = clearArgs(args)
	return s.fail(err)
}

// InsertBatch inserts the rows with one multi-row INSERT, or, when they do
// not fit in one statement, with several in one transaction.
func (s *session) InsertBatch(ctx context.Context, t *store.Table, rows []store.Row) error {
	if len(rows) == 0 {
		return nil
	}
	if s.w != nil {
		return s.wireInsertBatch(ctx, t, rows)
	}
	if s.conn != nil {
		return s.insertBatch(ctx, s.conn, s.conn, t, rows, false)
	}
	return s.insertBatch(ctx, s.db, s.db, t, rows, false)
}

type beginner interface {
	BeginTx(ctx context.Context, opts *sql.TxOptions) (*sql.Tx, error)
}

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

func (s *session) insertBatch(ctx context.Context, on execer, tx beginner, t *store.Table, rows []store.Row, text bool) error {
	q := s.query(t)
	n := s.fits(t, rows, q, text)
	if n < len(rows) {
		return s.insertChunks(ctx, tx, t, rows, q, text)
	}
	args := s.args[:0]
	for _, r := range rows {
		args = bind(args, t, r)
	}
	var err error
	switch {
	case text:
		if q.batchRows != n {
			q.batchRows, q.batchText = n, q.batch(n)
		}
		_, err = on.ExecContext(ctx, q.batchText, args...)
	default:
		var st *sql.Stmt
		if st, err = s.batchStmt(ctx, t, q, n); err == nil {
			_, err = st.ExecContext(ctx, args...)
		}
	}
	s.args = clearArgs(args)
	return s.fail(err)
}

// batchStmt returns the prepared INSERT of n rows, kept while batches keep
// their size: the session's own, or the pool's (which keeps every size).
func (s *session) batchStmt(ctx context.Context, t *store.Table, q *queries, n int) (*sql.Stmt, error) {
	p := s.table(t)
	if p.batch != nil && p.batchRows == n {
		return p.batch, nil
	}
	if p.batch != nil && s.conn != nil {
		p.batch.Close()
	}
	p.batch = nil
	st, err := s.prepare(ctx, poolKey{table: t.ID, kind: kindBatch, rows: n}, func() string { return q.batch(n) })
	if err != nil {
		return nil, err
	}
	p.batch, p.batchRows = st, n
	return st, nil
}

// insertChunks inserts rows too many for one statement in one transaction.
func (s *session) insertChunks(ctx context.Context, on beginner, t *store.Table, rows []store.Row, q *queries, text bool) error {
	tx, err := on.BeginTx(ctx, nil)
	if err != nil {
		return s.fail(err)
	}
	for len(rows) > 0 {
		n := s.fits(t, rows, q, text)
		args := s.args[:0]
		for _, r := range rows[:n] {
			args = bind(args, t, r)
		}
		_, err := tx.ExecContext(ctx, q.batch(n), args...)
		s.args = clearArgs(args)
		if err != nil {
			tx.Rollback()
			return s.fail(err)
		}
		rows = rows[n:]
	}
	return s.fail(tx.Commit())
}

// fits returns how many rows, from the first, one INSERT can carry: within
// the placeholder limit of prepared statements and, by a conservative
// estimate of its size (sent as text when text is set, as a binary execute
// packet otherwise), within max_allowed_packet. A single row too large is
// left for the server to refuse.
func (s *session) fits(t *store.Table, rows []store.Row, q *queries, text bool) int {
	budget := s.st.maxPacket - 4096 - len(q.head)
	maxRows := len(rows)
	if q.params > 0 {
		maxRows = min(maxRows, maxPlaceholders/q.params)
	}
	size := 0
	for i, r := range rows {
		if i == maxRows {
			return i
		}
		n := len(q.tuple) + 2
		for j, c := range t.Columns {
			switch {
			case j == 0 && t.AutoKey:
			case c.Kind == store.Int && text:
				n += 20
			case c.Kind == store.Int:
				n += 2 + 8
			case text:
				n += 2*len(r[j].Text) + 12 // escaped, _binary'...'
			default:
				n += 2 + 9 + len(r[j].Text)
			}
		}
		if i > 0 && size+n > budget {
			return i
		}
		size += n
	}
	return len(rows)
}

// Scan runs the prepared statement of q's shape. From and Offset are the
// server's to apply (WHERE and OFFSET), so skipped rows cost what they
// cost any application.
func (s *session) Scan(ctx context.Context, t *store.Table, q store.Query, fn func(store.Row) error) (int, error) {
	if s.w != nil {
		return s.wireScan(ctx, t, q, fn)
	}
	st, err := s.scanStmt(ctx, t, shapeOf(q))
	if err != nil {
		return 0, err
	}
	args := scanArgs(s.args[:0], q)
	rows, err := st.QueryContext(ctx, args...)
	s.args = clearArgs(args)
	if err != nil {
		return 0, s.fail(err)
	}
	return s.read(t, rows, fn)
}

// read hands each row to fn in the session's buffers: integers in ints,
// texts as sql.RawBytes pointing into the driver's buffer, valid until the
// next row, as fn's contract allows.
func (s *session) read(t *store.Table, rows *sql.Rows, fn func(store.Row) error) (int, error) {
	defer rows.Close()
	cols := len(t.Columns)
	if cap(s.row) < cols {
		s.row = make(store.Row, cols)
		s.dest = make([]any, cols)
		s.ints = make([]int64, cols)
		s.texts = make([]sql.RawBytes, cols)
	}
	row, dest := s.row[:cols], s.dest[:cols]
	for i, c := range t.Columns {
		if c.Kind == store.Int {
			dest[i] = &s.ints[i]
		} else {
			dest[i] = &s.texts[i]
		}
	}
	n := 0
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return n, s.fail(err)
		}
		for i, c := range t.Columns {
			if c.Kind == store.Int {
				row[i] = store.Value{Int: s.ints[i]}
			} else {
				row[i] = store.Value{Text: s.texts[i]}
			}
		}
		if err := fn(row); err != nil {
			return n, err
		}
		n++
	}
	return n, s.fail(rows.Err())
}

// Close closes the session's statements and connection (for
// connect=pool, the pool's stay for other sessions).
func (s *session) Close() error {
	s.closeSQL()
	if s.w != nil {
		err := s.w.Close()
		s.w = nil
		return err
	}
	if s.conn == nil {
		return nil
	}
	for _, p := range s.stmts {
		if p != nil {
			p.close()
		}
	}
	err := s.conn.Close()
	s.conn = nil
	return err
}
