package sqlite

import (
	"context"
	"fmt"

	"github.com/ncruces/go-sqlite3"

	"kurabe/numfmt"
	"kurabe/store"
)

// Dialect names SQLite's SQL.
func (s *session) Dialect() string { return "sqlite" }

// stmt returns the session's prepared statement for q, preparing it once.
func (s *session) stmt(q string) (*sqlite3.Stmt, error) {
	if st, ok := s.sql[q]; ok {
		return st, nil
	}
	st, tail, err := s.c.Prepare(q)
	if err != nil {
		return nil, fmt.Errorf("sqlite: prepare %s: %w", q, s.classify(err))
	}
	if tail != "" {
		st.Close()
		return nil, fmt.Errorf("sqlite: give one statement at a time, not %q", q)
	}
	if s.sql == nil {
		s.sql = map[string]*sqlite3.Stmt{}
	}
	s.sql[q] = st
	return st, nil
}

func bindArgs(st *sqlite3.Stmt, args []any) error {
	for i, a := range args {
		var err error
		switch v := a.(type) {
		case nil:
			err = st.BindNull(i + 1)
		case int:
			err = st.BindInt64(i+1, int64(v))
		case int64:
			err = st.BindInt64(i+1, v)
		case *int64:
			if v == nil {
				err = st.BindNull(i + 1)
			} else {
				err = st.BindInt64(i+1, *v)
			}
		case float64:
			err = st.BindFloat(i+1, v)
		case string:
			err = st.BindText(i+1, v)
		case []byte:
			err = st.BindRawText(i+1, v)
		default:
			return fmt.Errorf("sqlite: cannot bind %T (argument %d)", a, i+1)
		}
		if err != nil {
			return classify(err)
		}
	}
	return nil
}

// Exec runs a statement that returns no rows.
func (s *session) Exec(ctx context.Context, q string, args ...any) (int64, error) {
	st, err := s.stmt(q)
	if err != nil {
		return 0, err
	}
	if err := bindArgs(st, args); err != nil {
		return 0, err
	}
	if err := st.Exec(); err != nil {
		return 0, s.classify(err)
	}
	return s.c.Changes(), nil
}

// Query runs a statement and reads all its rows.
func (s *session) Query(ctx context.Context, q string, args []any, fn func(int64)) (int, int64, error) {
	st, err := s.stmt(q)
	if err != nil {
		return 0, 0, err
	}
	if err := bindArgs(st, args); err != nil {
		return 0, 0, err
	}
	defer st.Reset()
	var rows int
	var bytes int64
	cols := st.ColumnCount()
	for st.Step() {
		rows++
		for i := 0; i < cols; i++ {
			switch st.ColumnType(i) {
			case sqlite3.TEXT, sqlite3.BLOB:
				bytes += int64(len(st.ColumnRawBlob(i)))
			default:
				bytes += 8
			}
		}
		if fn != nil {
			fn(st.ColumnInt64(0))
		}
	}
	return rows, bytes, s.classify(st.Err())
}

// Begin starts a transaction that takes the write lock at once (BEGIN
// IMMEDIATE): workloads begin transactions to write, and a deferred one
// that turns into a writer half way can fail with SQLITE_BUSY whatever the
// busy timeout.
func (s *session) Begin(ctx context.Context) error { return s.classify(s.c.Exec("BEGIN IMMEDIATE")) }

func (s *session) Commit(ctx context.Context) error { return s.classify(s.c.Exec("COMMIT")) }

func (s *session) Rollback(ctx context.Context) error { return s.classify(s.c.Exec("ROLLBACK")) }

// BulkLoad is SQLite's fastest way in: the prepared insert, every row in
// one transaction, on a connection of its own (with connect=per-op too,
// where the one bulk load is the one operation that connects).
//
// The load stops when ctx is done (Ctrl-C): checked between rows, and
// SQLite interrupted within a statement (the COMMIT of a large load takes
// a while too). The transaction is then rolled back, and the error says
// the table holds none of the load.
func (s *Store) BulkLoad(ctx context.Context, t *store.Table, next func() (store.Row, bool)) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	c, err := s.conn(false)
	if err != nil {
		return 0, err
	}
	ss := &session{c: c, path: s.path}
	defer ss.Close()
	p, err := ss.prepared(t)
	if err != nil {
		return 0, err
	}
	if err := ss.c.Exec("BEGIN IMMEDIATE"); err != nil {
		return 0, s.classify(err)
	}
	// Rows go only into the table kurabe made, checked in the load's
	// transaction.
	shape, err := s.metaShape(c)
	if err == nil {
		err = s.mayReplace(c, shape, t)
	}
	if err != nil {
		ss.c.Exec("ROLLBACK")
		return 0, err
	}
	c.SetInterrupt(ctx)
	var n int64
	fail := func(err error) (int64, error) {
		c.SetInterrupt(context.Background()) // so that the rollback runs
		ss.c.Exec("ROLLBACK")
		if ctx.Err() != nil {
			return 0, fmt.Errorf("sqlite: load into %s interrupted after %s and rolled back: the table holds none of them (the load is one transaction): %w", prefix+t.Name, numfmt.Count(n, "row", "rows"), ctx.Err())
		}
		return 0, s.classify(err)
	}
	for {
		if n&1023 == 0 && ctx.Err() != nil {
			return fail(ctx.Err())
		}
		row, more := next()
		if !more {
			break
		}
		if err := bind(p.insert, t, row); err == nil {
			err = p.insert.Exec()
		}
		if err != nil {
			return fail(err)
		}
		n++
	}
	if err := ss.c.Exec("COMMIT"); err != nil {
		return fail(err)
	}
	return n, nil
}
