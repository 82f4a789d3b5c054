package mysql

import (
	"context"
	"database/sql"
	"math"
	"strings"
	"time"

	"kurabe/store"
)

// queries are a table's statements as text, built once per session.
type queries struct {
	insert, asc, desc string
	head              string // INSERT INTO t (cols) VALUES
	tuple             string // (?, ?, ...)
	params            int    // placeholders per row
	batchRows         int    // the rows of batchText, for connect=per-op
	batchText         string
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
	name, list := s.qualified(t.Name), strings.Join(cols, ", ")
	q := &queries{
		head:   "INSERT INTO " + name + " (" + strings.Join(insCols, ", ") + ") VALUES ",
		tuple:  "(" + strings.Join(marks, ", ") + ")",
		params: len(marks),
		asc:    "SELECT " + list + " FROM " + name + " ORDER BY " + cols[0] + " LIMIT ?",
		desc:   "SELECT " + list + " FROM " + name + " ORDER BY " + cols[0] + " DESC LIMIT ?",
	}
	q.insert = q.head + q.tuple
	return q
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

// stmts are a table's prepared statements.
type stmts struct {
	insert, asc, desc *sql.Stmt
	batchRows         int // rows of batch, the last batch size prepared
	batch             *sql.Stmt
}

type preparer interface {
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
}

func prepare(ctx context.Context, on preparer, q *queries) (*stmts, error) {
	p := &stmts{}
	for _, x := range []struct {
		dst **sql.Stmt
		sql string
	}{{&p.insert, q.insert}, {&p.asc, q.asc}, {&p.desc, q.desc}} {
		st, err := on.PrepareContext(ctx, x.sql)
		if err != nil {
			p.close()
			return nil, classify(err, false)
		}
		*x.dst = st
	}
	return p, nil
}

func (p *stmts) close() {
	for _, st := range []*sql.Stmt{p.insert, p.asc, p.desc, p.batch} {
		if st != nil {
			st.Close()
		}
	}
}

// poolPrepared returns the statements connect=pool sessions share.
func (s *Store) poolPrepared(ctx context.Context, t *store.Table, q *queries) (*stmts, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.pool.tables) <= t.ID {
		s.pool.tables = append(s.pool.tables, nil)
	}
	if p := s.pool.tables[t.ID]; p != nil {
		return p, nil
	}
	p, err := prepare(ctx, s.db, q)
	if err != nil {
		return nil, err
	}
	s.pool.tables[t.ID] = p
	return p, nil
}

// poolBatch returns the shared statement inserting n rows.
func (s *Store) poolBatch(ctx context.Context, t *store.Table, q *queries, n int) (*sql.Stmt, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := [2]int{t.ID, n}
	if st := s.pool.batch[key]; st != nil {
		return st, nil
	}
	st, err := s.db.PrepareContext(ctx, q.batch(n))
	if err != nil {
		return nil, classify(err, false)
	}
	if s.pool.batch == nil {
		s.pool.batch = map[[2]int]*sql.Stmt{}
	}
	s.pool.batch[key] = st
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
		c, err := s.db.Conn(ctx)
		if err != nil {
			return nil, scrub(classify(err, true), s.secret)
		}
		ss.conn = c
	}
	return ss, nil
}

type session struct {
	st      *Store
	conn    *sql.Conn  // connect=session: the session's own connection
	db      *sql.DB    // where connections come from
	queries []*queries // by table ID
	stmts   []*stmts   // by table ID; not for connect=per-op
	// Scratch, reused by every operation.
	args  []any
	dest  []any
	ints  []int64
	texts []sql.RawBytes
	row   store.Row
}

// perOpSession connects for every operation and reports the time it took.
type perOpSession struct {
	*session
	connect time.Duration
}

var _ store.ConnectTimer = (*perOpSession)(nil)
var _ store.BatchInserter = (*session)(nil)
var _ store.Truncater = (*Store)(nil)

// ConnectTime is the time the last operation spent connecting.
func (p *perOpSession) ConnectTime() time.Duration { return p.connect }

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
	sqlText := p.query(t).asc
	if q.Desc {
		sqlText = p.query(t).desc
	}
	rows, err := c.QueryContext(ctx, sqlText, limit(q))
	if err != nil {
		return 0, p.fail(err)
	}
	return p.read(t, rows, fn)
}

// open opens the connection for one operation, timing it.
func (p *perOpSession) open(ctx context.Context) (*sql.Conn, error) {
	start := time.Now()
	c, err := p.db.Conn(ctx)
	p.connect = time.Since(start)
	if err != nil {
		return nil, scrub(classify(err, true), p.st.secret)
	}
	return c, nil
}

func (s *session) fail(err error) error {
	return scrub(classify(err, false), s.st.secret)
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

func (s *session) prepared(ctx context.Context, t *store.Table) (*stmts, error) {
	if t.ID < len(s.stmts) && s.stmts[t.ID] != nil {
		return s.stmts[t.ID], nil
	}
	var p *stmts
	var err error
	if s.conn != nil {
		p, err = prepare(ctx, s.conn, s.query(t))
	} else {
		p, err = s.st.poolPrepared(ctx, t, s.query(t))
	}
	if err != nil {
		return nil, scrub(err, s.st.secret)
	}
	for len(s.stmts) <= t.ID {
		s.stmts = append(s.stmts, nil)
	}
	s.stmts[t.ID] = p
	return p, nil
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

func limit(q store.Query) int64 {
	if q.Limit > 0 {
		return int64(q.Limit)
	}
	return math.MaxInt64
}

func (s *session) Insert(ctx context.Context, t *store.Table, row store.Row) error {
	p, err := s.prepared(ctx, t)
	if err != nil {
		return err
	}
	args := bind(s.args[:0], t, row)
	_, err = p.insert.ExecContext(ctx, args...)
	s.args = clearArgs(args)
	return s.fail(err)
}

// InsertBatch inserts the rows with one multi-row INSERT, or, when they do
// not fit in one statement, with several in one transaction.
func (s *session) InsertBatch(ctx context.Context, t *store.Table, rows []store.Row) error {
	if len(rows) == 0 {
		return nil
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

// batchStmt returns the prepared INSERT of n rows: the session's own, kept
// while batches keep their size, or the pool's.
func (s *session) batchStmt(ctx context.Context, t *store.Table, q *queries, n int) (*sql.Stmt, error) {
	if s.conn == nil {
		return s.st.poolBatch(ctx, t, q, n)
	}
	p, err := s.prepared(ctx, t)
	if err != nil {
		return nil, err
	}
	if p.batch != nil && p.batchRows == n {
		return p.batch, nil
	}
	if p.batch != nil {
		p.batch.Close()
		p.batch = nil
	}
	st, err := s.conn.PrepareContext(ctx, q.batch(n))
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

func (s *session) Scan(ctx context.Context, t *store.Table, q store.Query, fn func(store.Row) error) (int, error) {
	p, err := s.prepared(ctx, t)
	if err != nil {
		return 0, err
	}
	st := p.asc
	if q.Desc {
		st = p.desc
	}
	rows, err := st.QueryContext(ctx, limit(q))
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
