package postgres

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"kurabe/numfmt"
	"kurabe/store"
)

// SQLSession and BulkLoader for PostgreSQL.
//
// Statements run where the session's other operations run: its own
// connection (connect=session), any pooled connection (connect=pool), or a
// connection made for the call (connect=per-op). A transaction needs one
// connection from Begin to its end, so with connect=pool Begin acquires one
// and Commit or Rollback releases it, and connect=per-op has none.
//
// With protocol=extended every statement goes through pgx's statement
// cache: prepared on a connection's first use of its text, then bound and
// executed in one round trip. pgx itself would send a statement without
// arguments as a simple query; Exec sends such a statement as a query
// instead, which pgx prepares, so that it too costs what a prepared one
// costs and text holding two statements is refused whatever its
// arguments. With
// protocol=simple the text goes as pgx's simple protocol sends it, the
// arguments quoted in, and several statements separated by ';' all run, as
// PostgreSQL's simple query runs them.
//
// Query reads the wire values in place (rows.RawValues) and counts their
// lengths: 8 bytes for a bigint in the binary format of the extended
// protocol, its decimal digits in the text format of the simple one.

var (
	_ store.SQLSession = (*session)(nil)
	_ store.BulkLoader = (*Store)(nil)
)

// Dialect names PostgreSQL's SQL, with $1 placeholders.
func (s *session) Dialect() string { return "postgres" }

// sqlDB returns what a statement runs on: the connection a transaction
// holds, or where the session's operations run. done must follow.
func (s *session) sqlDB(ctx context.Context) (querier, error) {
	if s.pinned != nil {
		return s.pinned, nil
	}
	return s.db(ctx)
}

// textArgs returns args ready for the simple protocol: pgx quotes a
// []byte as bytea ('\x...'), which a text column would keep as those
// characters, so text goes as a string instead (the simple protocol
// formats every argument into the statement anyway, so the copy costs
// little more). With the extended protocol args go as they are.
func (s *session) textArgs(args []any) []any {
	if !s.st.simple {
		return args
	}
	converted := false
	for _, a := range args {
		if _, ok := a.([]byte); ok {
			converted = true
			break
		}
	}
	if !converted {
		return args
	}
	out := s.sqlArgs[:0]
	for _, a := range args {
		if b, ok := a.([]byte); ok && b != nil {
			a = string(b)
		}
		out = append(out, a)
	}
	s.sqlArgs = out
	return out
}

// Exec runs a statement and returns the rows it changed, as the server's
// command tag counts them.
func (s *session) Exec(ctx context.Context, sql string, args ...any) (int64, error) {
	if s.w != nil {
		return s.wireExec(ctx, sql, args)
	}
	db, err := s.sqlDB(ctx)
	if err != nil {
		return 0, err
	}
	defer s.done()
	if len(args) == 0 && !s.st.simple {
		// pgx's Exec sends a statement without arguments as a simple
		// query, whatever the mode; its Query goes through the statement
		// cache.
		rows, err := db.Query(ctx, sql)
		if err != nil {
			return 0, s.st.fail(err)
		}
		for rows.Next() {
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return 0, s.st.fail(err)
		}
		return rows.CommandTag().RowsAffected(), nil
	}
	args = s.textArgs(args)
	tag, err := db.Exec(ctx, sql, args...)
	if s.st.simple {
		clear(s.sqlArgs)
	}
	if err != nil {
		return 0, s.st.fail(err)
	}
	return tag.RowsAffected(), nil
}

// Query runs a statement and reads every row in place, counting rows and
// the bytes of their values as received (NULL counts 0).
func (s *session) Query(ctx context.Context, sql string, args []any, fn func(first int64)) (int, int64, error) {
	if s.w != nil {
		return s.wireQuery(ctx, sql, args, fn)
	}
	db, err := s.sqlDB(ctx)
	if err != nil {
		return 0, 0, err
	}
	defer s.done()
	args = s.textArgs(args)
	rows, err := db.Query(ctx, sql, args...)
	if s.st.simple {
		clear(s.sqlArgs)
	}
	if err != nil {
		return 0, 0, s.st.fail(err)
	}
	defer rows.Close()
	var first *pgconn.FieldDescription
	if fields := rows.FieldDescriptions(); len(fields) > 0 {
		first = &fields[0]
	}
	n := 0
	var size int64
	for rows.Next() {
		vals := rows.RawValues()
		for _, v := range vals {
			size += int64(len(v))
		}
		if fn != nil && len(vals) > 0 {
			fn(firstInt(vals[0], first))
		}
		n++
	}
	rows.Close()
	return n, size, s.st.fail(rows.Err())
}

// errPerOpTx is Begin's answer under connect=per-op.
var errPerOpTx = fmt.Errorf("postgres: %w", store.ErrNoTransactions)

// Begin starts a transaction: on the session's connection, or on a pooled
// connection it holds until Commit or Rollback (connect=pool).
func (s *session) Begin(ctx context.Context) error {
	switch {
	case s.st.connect == connectPerOp:
		return errPerOpTx
	case s.inTx:
		return errors.New("postgres: Begin inside a transaction; Commit or Rollback it first")
	case s.w != nil:
		if _, err := s.w.Simple(ctx, "begin"); err != nil {
			return s.st.fail(err)
		}
		s.inTx = true
		return nil
	}
	var db querier = s.conn
	if s.st.connect == connectPool {
		c, err := s.st.pool.Acquire(ctx)
		if err != nil {
			return s.st.fail(fmt.Errorf("postgres: cannot get a pooled connection for the transaction: %w", err))
		}
		s.pinned, db = c, c
	}
	if _, err := db.Exec(ctx, "begin"); err != nil {
		s.release()
		return s.st.fail(err)
	}
	s.inTx = true
	return nil
}

// Commit ends the transaction. A transaction that failed earlier is rolled
// back by COMMIT, which the server reports as success with the tag
// ROLLBACK; Commit reports it as an error, as pgx's Tx.Commit does.
func (s *session) Commit(ctx context.Context) error {
	tag, err := s.end(ctx, "commit")
	if err == nil && tag.String() == "ROLLBACK" {
		return fmt.Errorf("postgres: COMMIT rolled the transaction back, since a statement in it had failed: %w", pgx.ErrTxCommitRollback)
	}
	return err
}

// Rollback ends the transaction, undoing it.
func (s *session) Rollback(ctx context.Context) error {
	_, err := s.end(ctx, "rollback")
	return err
}

func (s *session) end(ctx context.Context, verb string) (pgconn.CommandTag, error) {
	if !s.inTx {
		if s.st.connect == connectPerOp {
			return pgconn.CommandTag{}, errPerOpTx
		}
		return pgconn.CommandTag{}, fmt.Errorf("postgres: %s without a transaction; call Begin first", verb)
	}
	if s.w != nil {
		return s.wireEnd(ctx, verb)
	}
	var db querier = s.conn
	if s.pinned != nil {
		db = s.pinned
	}
	tag, err := db.Exec(ctx, verb)
	// Whatever the outcome, the transaction is over: the server ends it
	// on COMMIT or ROLLBACK even when they fail, and a connection lost on
	// the way ends it too (a pooled one in any other state is destroyed
	// by Release, not reused).
	s.inTx = false
	s.release()
	return tag, s.st.fail(err)
}

// release returns a pinned connection to the pool.
func (s *session) release() {
	if s.pinned != nil {
		s.pinned.Release()
		s.pinned = nil
	}
}

var _ querier = (*pgxpool.Conn)(nil)

// firstInt returns a first column's value as an integer when its type is
// one: smallint, integer, bigint, or a numeric without a fraction (sum of
// a bigint is a numeric), in either format. Anything else gives 0.
func firstInt(v []byte, f *pgconn.FieldDescription) int64 {
	if v == nil || f == nil {
		return 0
	}
	text := f.Format == pgx.TextFormatCode
	switch f.DataTypeOID {
	case pgtype.Int8OID, pgtype.Int4OID, pgtype.Int2OID:
		if text {
			n, _ := numfmt.DecimalInt(v)
			return n
		}
		switch len(v) {
		case 8:
			return int64(binary.BigEndian.Uint64(v))
		case 4:
			return int64(int32(binary.BigEndian.Uint32(v)))
		case 2:
			return int64(int16(binary.BigEndian.Uint16(v)))
		}
	case pgtype.NumericOID:
		var n int64
		if text {
			n, _ = numfmt.DecimalInt(v)
		} else {
			n, _ = numericInt(v)
		}
		return n
	}
	return 0
}

// numericInt decodes a numeric in the binary format when its value is a
// whole number that fits an int64. The format is a header of four int16
// (digit count, weight of the first digit as a power of 10000, sign,
// display scale) and then base-10000 digits, trailing zeros left out.
func numericInt(b []byte) (int64, bool) {
	if len(b) < 8 {
		return 0, false
	}
	ndigits := int(int16(binary.BigEndian.Uint16(b)))
	weight := int(int16(binary.BigEndian.Uint16(b[2:])))
	sign := binary.BigEndian.Uint16(b[4:])
	if sign != 0 && sign != 0x4000 || len(b) != 8+2*ndigits {
		return 0, false // NaN or infinity, or not a numeric
	}
	var u uint64
	for i := range ndigits {
		d := uint64(binary.BigEndian.Uint16(b[8+2*i:]))
		if weight-i < 0 {
			if d != 0 {
				return 0, false // a fraction
			}
			continue
		}
		if u > (1<<63-d)/10000 {
			return 0, false
		}
		u = u*10000 + d
	}
	// Digits left out at the end are zeros.
	for range weight - ndigits + 1 {
		if u > (1<<63)/10000 {
			return 0, false
		}
		u *= 10000
	}
	return numfmt.Signed(u, sign == 0x4000)
}

// BulkLoad copies the rows into one of kurabe's tables with COPY FROM
// STDIN in the binary format (pgx's CopyFrom), on a connection of its own
// whatever the connect mode: one statement, so all rows or none. An
// AutoKey table's key is left to its sequence; other keys are loaded as
// given. pgx calls next on a goroutine of its own, one call at a time and
// all before BulkLoad returns; the rows stream through a buffer of 64 KiB,
// so memory does not grow with their number.
func (s *Store) BulkLoad(ctx context.Context, t *store.Table, next func() (store.Row, bool)) (int64, error) {
	// Never the lock's connection (own): the load kind times this call,
	// and a client that won the kept connection would skip the connect
	// that the others pay; a COPY cut off would take the lock with it.
	if err := s.ready(ctx); err != nil {
		return 0, err
	}
	c, err := s.connectPgx(ctx)
	if err != nil {
		return 0, err
	}
	defer closeConn(c)
	if err := s.checkOwned(ctx, c, t); err != nil {
		return 0, err
	}
	src := newCopySource(t, next)
	if len(src.cols) == 0 {
		return 0, fmt.Errorf("postgres: table %s has no columns to load but its key, which the server assigns", t.Name)
	}
	n, err := c.CopyFrom(ctx, pgx.Identifier{schema, t.Name}, src.cols, src)
	if err != nil {
		return 0, s.fail(fmt.Errorf("postgres: %s: copying into %s: %w", s.target, t.Name, err))
	}
	return n, nil
}

// copySource hands pgx one row at a time. Integers go through params, so
// they are not boxed per row; a text is boxed as its []byte, 24 bytes
// that are garbage by the next row.
type copySource struct {
	t    *store.Table
	next func() (store.Row, bool)
	cols []string
	idx  []int // the row's value for each column in cols
	row  store.Row
	ints []int64
	vals []any
	err  error
}

func newCopySource(t *store.Table, next func() (store.Row, bool)) *copySource {
	c := &copySource{t: t, next: next}
	for i, col := range t.Columns {
		if i == 0 && t.AutoKey {
			continue
		}
		c.cols = append(c.cols, col.Name)
		c.idx = append(c.idx, i)
	}
	c.ints = make([]int64, len(c.cols))
	c.vals = make([]any, len(c.cols))
	for j, i := range c.idx {
		if t.Columns[i].Kind == store.Int {
			c.vals[j] = param{&c.ints[j]}
		}
	}
	return c
}

func (c *copySource) Next() bool {
	row, ok := c.next()
	if !ok {
		return false
	}
	if len(row) < len(c.t.Columns) {
		c.err = fmt.Errorf("postgres: a row for %s has %d values, want %d", c.t.Name, len(row), len(c.t.Columns))
		return false
	}
	c.row = row
	return true
}

func (c *copySource) Values() ([]any, error) {
	for j, i := range c.idx {
		if c.t.Columns[i].Kind == store.Int {
			c.ints[j] = c.row[i].Int
		} else {
			c.vals[j] = c.row[i].Text
		}
	}
	return c.vals, nil
}

func (c *copySource) Err() error { return c.err }

// checkOwned fails unless t is the table kurabe made.
func (s *Store) checkOwned(ctx context.Context, c *pgx.Conn, t *store.Table) error {
	return s.mustOwn(ctx, c, t.Name)
}
