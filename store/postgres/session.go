package postgres

import (
	"context"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"kurabe/store"
	"kurabe/store/postgres/wire"
)

// querier is what a session runs statements on: its own connection, the
// shared pool, or a connection made for one operation.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// statements are a table's SQL, built once per session and each scan
// shape on its first use. With the extended protocol pgx prepares each on
// a connection's first use, so a session prepares only the shapes it runs.
type statements struct {
	insert   string
	sel, key string         // SELECT cols FROM t; the quoted key column
	scans    [shapes]string // by shape; "" until first used
	params   int            // insert parameters

	// driver=wire: the statements as prepared on the session's
	// connection, each on first use.
	wInsert *wire.Stmt
	wScans  [shapes]*wire.Stmt
}

// shape is which clauses a scan's SQL has. Each shape is a statement of
// its own, so that a call only picks one and nothing is built per call.
type shape uint8

const (
	shapeDesc   shape = 1 << iota // ORDER BY key DESC, and key <= $from
	shapeFrom                     // WHERE key >= $from
	shapeLimit                    // LIMIT $n
	shapeOffset                   // OFFSET $n
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

// scan returns the SQL of a scan of shape sh. Its parameters are, in
// order, those of the clauses it has: from, limit, offset.
func (p *statements) scan(sh shape) string {
	if p.scans[sh] != "" {
		return p.scans[sh]
	}
	var b strings.Builder
	b.WriteString(p.sel)
	n := 0
	param := func() string {
		n++
		return "$" + strconv.Itoa(n)
	}
	if sh&shapeFrom != 0 {
		op := " >= "
		if sh&shapeDesc != 0 {
			op = " <= "
		}
		b.WriteString(" WHERE " + p.key + op + param())
	}
	b.WriteString(" ORDER BY " + p.key)
	if sh&shapeDesc != 0 {
		b.WriteString(" DESC")
	}
	if sh&shapeLimit != 0 {
		b.WriteString(" LIMIT " + param())
	}
	if sh&shapeOffset != 0 {
		b.WriteString(" OFFSET " + param())
	}
	p.scans[sh] = b.String()
	return p.scans[sh]
}

type session struct {
	st     *Store
	w      *wire.Conn // connect=session with driver=wire
	conn   *pgx.Conn  // connect=session with driver=pgx
	opConn *pgx.Conn  // connect=per-op, during an operation
	tables []*statements
	args   []any
	row    store.Row
	// A scan's parameters: vals holds them and params, made once, point
	// into vals.
	vals   [3]int64
	params [3]any

	connectTime time.Duration

	// SQLSession state: the pooled connection a transaction holds
	// (connect=pool), whether one is open, and scratch for arguments.
	pinned  *pgxpool.Conn
	inTx    bool
	sqlArgs []any

	// driver=wire scratch: parameters in the text format, the bytes of
	// those it formatted, and where each lies in them.
	pvals [][]byte
	nbuf  []byte
	abuf  []byte
	aoff  []int
}

// param is a scan parameter that reaches pgx without allocating. An int64
// put in an interface is boxed (allocated, unless below 256), and pgx
// boxes the target of an *int64 again as it encodes it; a param is a
// pointer in an interface, which pgx encodes through pgtype.Int64Valuer
// (binary, extended protocol) or pgtype.TextValuer (simple protocol).
type param struct{ v *int64 }

func (p param) Int64Value() (pgtype.Int8, error) { return pgtype.Int8{Int64: *p.v, Valid: true}, nil }

func (p param) TextValue() (pgtype.Text, error) {
	return pgtype.Text{String: strconv.FormatInt(*p.v, 10), Valid: true}, nil
}

func newSession(st *Store) *session {
	s := &session{st: st}
	for i := range s.vals {
		s.params[i] = param{&s.vals[i]}
	}
	return s
}

// perOpSession is a session that connects for every operation; only it
// reports connect time, so the engine knows to split its latency.
type perOpSession struct{ *session }

// ConnectTime returns the time spent connecting since it was last called.
func (s perOpSession) ConnectTime() time.Duration {
	c := s.connectTime
	s.connectTime = 0
	return c
}

var _ store.ConnectTimer = perOpSession{}
var _ store.BatchInserter = (*session)(nil)
var _ store.Truncater = (*Store)(nil)

func (s *session) prepared(t *store.Table) *statements {
	for len(s.tables) <= t.ID {
		s.tables = append(s.tables, nil)
	}
	if p := s.tables[t.ID]; p != nil {
		return p
	}
	name := qualified(t.Name)
	var cols, ins, marks []string
	for i, c := range t.Columns {
		col := pgx.Identifier{c.Name}.Sanitize()
		cols = append(cols, col)
		if i == 0 && t.AutoKey {
			continue
		}
		ins = append(ins, col)
		marks = append(marks, "$"+strconv.Itoa(len(marks)+1))
	}
	p := &statements{
		insert: "INSERT INTO " + name + " (" + strings.Join(ins, ", ") + ") VALUES (" + strings.Join(marks, ", ") + ")",
		sel:    "SELECT " + strings.Join(cols, ", ") + " FROM " + name,
		key:    cols[0],
		params: len(marks),
	}
	s.tables[t.ID] = p
	if cap(s.args) < p.params {
		s.args = make([]any, p.params)
	}
	if cap(s.row) < len(t.Columns) {
		s.row = make(store.Row, len(t.Columns))
	}
	return p
}

// db returns what to run the operation on; done must follow.
func (s *session) db(ctx context.Context) (querier, error) {
	switch s.st.connect {
	case connectSession:
		return s.conn, nil
	case connectPool:
		return s.st.pool, nil
	}
	start := time.Now()
	c, err := s.st.connectPgx(ctx)
	s.connectTime += time.Since(start)
	if err != nil {
		return nil, err
	}
	s.opConn = c
	return c, nil
}

func (s *session) done() {
	if s.opConn != nil {
		closeConn(s.opConn)
		s.opConn = nil
	}
}

// appendArgs appends row's insert parameters. The simple protocol quotes
// a []byte as bytea ('\x...'), which a text column would keep literally,
// so there the text goes as a string.
func (s *session) appendArgs(args []any, t *store.Table, row store.Row) []any {
	for i, c := range t.Columns {
		switch {
		case i == 0 && t.AutoKey:
		case c.Kind == store.Int:
			args = append(args, row[i].Int)
		case s.st.simple:
			args = append(args, string(row[i].Text))
		default:
			args = append(args, row[i].Text)
		}
	}
	return args
}

func (s *session) Insert(ctx context.Context, t *store.Table, row store.Row) error {
	p := s.prepared(t)
	if s.w != nil {
		return s.wireInsert(ctx, t, p, row)
	}
	db, err := s.db(ctx)
	if err != nil {
		return err
	}
	defer s.done()
	args := s.appendArgs(s.args[:0], t, row)
	_, err = db.Exec(ctx, p.insert, args...)
	clear(args)
	return s.st.fail(err)
}

// InsertBatch sends every row's INSERT in one pgx.Batch: one round trip
// and one implicit transaction, so the rows are stored all or none.
func (s *session) InsertBatch(ctx context.Context, t *store.Table, rows []store.Row) error {
	if len(rows) == 0 {
		return nil
	}
	p := s.prepared(t)
	if s.w != nil {
		return s.wireInsertBatch(ctx, t, p, rows)
	}
	db, err := s.db(ctx)
	if err != nil {
		return err
	}
	defer s.done()
	// pgx keeps each query's arguments until the batch is sent: one
	// backing array, sliced per row.
	vals := make([]any, 0, len(rows)*p.params)
	b := &pgx.Batch{QueuedQueries: make([]*pgx.QueuedQuery, 0, len(rows))}
	for _, r := range rows {
		n := len(vals)
		vals = s.appendArgs(vals, t, r)
		b.Queue(p.insert, vals[n:len(vals):len(vals)]...)
	}
	br := db.SendBatch(ctx, b)
	for range rows {
		if _, err := br.Exec(); err != nil {
			br.Close()
			return s.st.fail(err)
		}
	}
	return s.st.fail(br.Close())
}

// Scan reads rows in place: integers are decoded from the wire in either
// format and text is the received bytes, so no row allocates. From and
// Offset are the server's to apply (WHERE and OFFSET), so a large offset
// costs what it costs an application: the skipped rows are still read.
func (s *session) Scan(ctx context.Context, t *store.Table, q store.Query, fn func(store.Row) error) (int, error) {
	p := s.prepared(t)
	if s.w != nil {
		return s.wireScan(ctx, t, p, q, fn)
	}
	db, err := s.db(ctx)
	if err != nil {
		return 0, err
	}
	defer s.done()
	// The parameters go in the order scan numbers them.
	args := 0
	if q.HasFrom {
		s.vals[args] = q.From
		args++
	}
	if q.Limit > 0 {
		s.vals[args] = int64(q.Limit)
		args++
	}
	if q.Offset > 0 {
		s.vals[args] = int64(q.Offset)
		args++
	}
	rows, err := db.Query(ctx, p.scan(shapeOf(q)), s.params[:args]...)
	if err != nil {
		return 0, s.st.fail(err)
	}
	defer rows.Close()
	fields := rows.FieldDescriptions()
	if len(fields) != len(t.Columns) {
		return 0, fmt.Errorf("postgres: %s.%s returned %d columns, want %d; run Setup again", schema, t.Name, len(fields), len(t.Columns))
	}
	row := s.row[:len(t.Columns)]
	n := 0
	for rows.Next() {
		vals := rows.RawValues()
		for i, c := range t.Columns {
			if c.Kind == store.Text {
				row[i] = store.Value{Text: vals[i]}
				continue
			}
			v, ok := decodeInt(vals[i], fields[i].Format)
			if !ok {
				return n, fmt.Errorf("postgres: %s.%s column %s: %q is not a bigint", schema, t.Name, c.Name, vals[i])
			}
			row[i] = store.Value{Int: v}
		}
		if err := fn(row); err != nil {
			return n, err
		}
		n++
	}
	clear(row)
	return n, s.st.fail(rows.Err())
}

// decodeInt decodes a bigint in the binary format (8 bytes, big-endian)
// or the text format (decimal), without allocating. NULL reads as 0.
func decodeInt(b []byte, format int16) (int64, bool) {
	if b == nil {
		return 0, true
	}
	if format == pgx.BinaryFormatCode {
		if len(b) != 8 {
			return 0, false
		}
		return int64(binary.BigEndian.Uint64(b)), true
	}
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var u uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		u = u*10 + uint64(c-'0')
	}
	if neg {
		if u > 1<<63 {
			return 0, false
		}
		return -int64(u), true
	}
	if u > 1<<63-1 {
		return 0, false
	}
	return int64(u), true
}

var _ store.Reopener = (*session)(nil)

// Lost says the session's own connection is gone (store.Reopener); a
// pool replaces its broken connections itself, and connect=per-op
// connects anew every time.
func (s *session) Lost() bool {
	switch {
	case s.st.connect != connectSession:
		return false
	case s.st.wire:
		return s.w == nil || s.w.Broken()
	}
	return s.conn == nil || s.conn.IsClosed()
}

// Reopen closes what is left of the session's connection and opens a new
// one (store.Reopener).
func (s *session) Reopen(ctx context.Context) error {
	s.Close()
	s.tables = nil // the wire statements were the old connection's
	return s.connect(ctx)
}

// connect opens the session's own connection (connect=session).
func (s *session) connect(ctx context.Context) error {
	if !s.st.wire {
		c, err := s.st.connectPgx(ctx)
		s.conn = c
		return err
	}
	return s.st.connecting(ctx, func(ctx context.Context) (err error) {
		s.w, err = wire.Connect(ctx, s.st.cfg.Config.Copy())
		return err
	})
}

func (s *session) Close() error {
	s.done()
	// A transaction left open dies with its connection: a pinned pooled
	// one is destroyed by Release, not reused, since it is not idle.
	s.release()
	s.inTx = false
	if s.w != nil {
		err := s.w.Close()
		s.w = nil
		return s.st.fail(err)
	}
	if s.conn == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := s.conn.Close(ctx)
	s.conn = nil
	return s.st.fail(err)
}
