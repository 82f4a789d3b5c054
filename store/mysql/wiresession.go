package mysql

import (
	"context"
	"fmt"
	"time"

	"kurabe/store"
	"kurabe/store/mysql/wire"
)

// The session's operations over package wire (driver=wire, with
// connect=session): the same statements as through database/sql,
// prepared once per session, each run as one COM_STMT_EXECUTE packet with
// its parameters in the binary protocol, and rows read in place. The
// driver still opens the connection (handshake, authentication,
// utf8mb4), so errors and their classes are the driver's. Statements are
// kept per table and scan shape, so a call looks nothing up; SQLSession's
// statements are kept by their text, in the connection.

// wireStmts are a session's statements of one table on its wire
// connection.
type wireStmts struct {
	insert    *wire.Stmt
	scans     [shapes]*wire.Stmt
	batch     *wire.Stmt
	batchRows int
}

func (s *session) wireTable(t *store.Table) *wireStmts {
	for len(s.wstmts) <= t.ID {
		s.wstmts = append(s.wstmts, nil)
	}
	if s.wstmts[t.ID] == nil {
		s.wstmts[t.ID] = &wireStmts{}
	}
	return s.wstmts[t.ID]
}

// wireStmt returns *slot, preparing text into it when it is not yet
// prepared or was dropped.
func (s *session) wireStmt(ctx context.Context, slot **wire.Stmt, text func() string) (*wire.Stmt, error) {
	if st := *slot; st != nil && !st.Stale() {
		return st, nil
	}
	st, err := s.w.Statement(ctx, text())
	if err != nil {
		return nil, s.fail(err)
	}
	*slot = st
	return st, nil
}

// wireRow adds row's insert parameters.
func (s *session) wireRow(t *store.Table, row store.Row) {
	for i, c := range t.Columns {
		switch {
		case i == 0 && t.AutoKey:
		case c.Kind == store.Int:
			s.w.Int(row[i].Int)
		default:
			s.w.Bytes(row[i].Text) // nil as empty, not NULL
		}
	}
}

func (s *session) wireInsert(ctx context.Context, t *store.Table, row store.Row) error {
	q := s.query(t)
	st, err := s.wireStmt(ctx, &s.wireTable(t).insert, func() string { return q.insert })
	if err != nil {
		return err
	}
	s.w.Start(st)
	s.wireRow(t, row)
	if err := s.w.Send(ctx); err != nil {
		return s.fail(err)
	}
	return s.fail(s.w.Done())
}

// wireInsertBatch inserts the rows with one multi-row INSERT, or, when
// they do not fit in one statement, with several in one transaction.
func (s *session) wireInsertBatch(ctx context.Context, t *store.Table, rows []store.Row) error {
	q := s.query(t)
	n := s.fits(t, rows, q, false)
	if n < len(rows) {
		return s.wireChunks(ctx, t, rows, q)
	}
	p := s.wireTable(t)
	if p.batch == nil || p.batch.Stale() || p.batchRows != n {
		if p.batch != nil {
			s.w.CloseStmt(p.batch)
		}
		p.batch = nil
		st, err := s.w.Prepare(ctx, q.batch(n))
		if err != nil {
			return s.fail(err)
		}
		p.batch, p.batchRows = st, n
	}
	return s.wireExecRows(ctx, p.batch, t, rows)
}

func (s *session) wireExecRows(ctx context.Context, st *wire.Stmt, t *store.Table, rows []store.Row) error {
	s.w.Start(st)
	for _, r := range rows {
		s.wireRow(t, r)
	}
	if err := s.w.Send(ctx); err != nil {
		return s.fail(err)
	}
	return s.fail(s.w.Done())
}

// wireChunks inserts rows too many for one statement in one transaction
// (or in the caller's, when one is open).
func (s *session) wireChunks(ctx context.Context, t *store.Table, rows []store.Row, q *queries) error {
	own := !s.inTx
	if own {
		if err := s.w.Simple(ctx, "BEGIN"); err != nil {
			return s.fail(err)
		}
	}
	for len(rows) > 0 {
		n := s.fits(t, rows, q, false)
		st, err := s.w.Prepare(ctx, q.batch(n))
		if err == nil {
			err = s.wireExecRows(ctx, st, t, rows[:n])
			s.w.CloseStmt(st)
		}
		if err != nil {
			if own {
				s.w.Simple(ctx, "ROLLBACK")
			}
			return s.fail(err)
		}
		rows = rows[n:]
	}
	if own {
		return s.fail(s.w.Simple(ctx, "COMMIT"))
	}
	return nil
}

func (s *session) wireScan(ctx context.Context, t *store.Table, q store.Query, fn func(store.Row) error) (int, error) {
	sh := shapeOf(q)
	qs := s.query(t)
	st, err := s.wireStmt(ctx, &s.wireTable(t).scans[sh], func() string { return qs.scan(sh) })
	if err != nil {
		return 0, err
	}
	// The parameters go in the order scan places them.
	s.w.Start(st)
	if q.HasFrom {
		s.w.Int(q.From)
	}
	if q.Limit > 0 {
		s.w.Int(int64(q.Limit))
	}
	if q.Offset > 0 {
		s.w.Int(int64(q.Offset))
	}
	if err := s.w.Send(ctx); err != nil {
		return 0, s.fail(err)
	}
	cols := len(t.Columns)
	if cap(s.row) < cols {
		s.row = make(store.Row, cols)
	}
	row := s.row[:cols]
	n := 0
	var ferr error
	for ferr == nil && s.w.Next() {
		vals, rcols := s.w.Values(), s.w.Columns()
		if len(vals) != cols {
			ferr = fmt.Errorf("%s: %s returned %d columns, want %d; run Setup again", s.st.driver, s.st.qualified(t.Name), len(vals), cols)
			break
		}
		for i, c := range t.Columns {
			if c.Kind == store.Text {
				row[i] = store.Value{Text: vals[i]}
				continue
			}
			v, ok := wire.Int(rcols[i], vals[i])
			if !ok {
				ferr = fmt.Errorf("%s: %s column %s is not an integer", s.st.driver, s.st.qualified(t.Name), c.Name)
				break
			}
			row[i] = store.Value{Int: v}
		}
		if ferr == nil {
			if ferr = fn(row); ferr == nil {
				n++
			}
		}
	}
	clear(row)
	// The rest of the reply is read whatever fn said, so the connection
	// stays in step.
	err = s.w.Done()
	if ferr != nil {
		return n, ferr
	}
	return n, s.fail(err)
}

// wireRun prepares text (once; the connection keeps it), binds args and
// sends it. Statements may name kurabe's tables unqualified, so USE goes
// first, once.
func (s *session) wireRun(ctx context.Context, text string, args []any) error {
	if !s.usedDB {
		if err := s.w.Simple(ctx, "USE "+quote(s.st.opts.database)); err != nil {
			return s.fail(err)
		}
		s.usedDB = true
	}
	st, err := s.w.Statement(ctx, text)
	if err != nil {
		return s.fail(err)
	}
	if len(args) != st.Params {
		return fmt.Errorf("%s: the statement takes %d arguments, %d given", s.st.driver, st.Params, len(args))
	}
	s.w.Start(st)
	for i, a := range args {
		switch v := a.(type) {
		case nil:
			s.w.Null()
		case int64:
			s.w.Int(v)
		case *int64:
			if v == nil {
				s.w.Null()
			} else {
				s.w.Int(*v)
			}
		case int:
			s.w.Int(int64(v))
		case int32:
			s.w.Int(int64(v))
		case int16:
			s.w.Int(int64(v))
		case int8:
			s.w.Int(int64(v))
		case uint64:
			s.w.Uint(v)
		case uint:
			s.w.Uint(uint64(v))
		case uint32:
			s.w.Uint(uint64(v))
		case uint16:
			s.w.Uint(uint64(v))
		case uint8:
			s.w.Uint(uint64(v))
		case float64:
			s.w.Double(v)
		case float32:
			s.w.Double(float64(v))
		case bool:
			if v {
				s.w.Int(1)
			} else {
				s.w.Int(0)
			}
		case string:
			s.w.String(v)
		case []byte:
			if v == nil {
				s.w.Null()
			} else {
				s.w.Bytes(v)
			}
		case time.Time:
			s.tbuf = v.AppendFormat(s.tbuf[:0], "2006-01-02 15:04:05.999999")
			s.w.Bytes(s.tbuf)
		default:
			s.w.Discard()
			return fmt.Errorf("%s: argument %d: cannot send a %T; give an integer, *int64, float, bool, string, []byte, time.Time or nil", s.st.driver, i+1, a)
		}
	}
	if err := s.w.Send(ctx); err != nil {
		return s.fail(err)
	}
	return nil
}

func (s *session) wireExec(ctx context.Context, text string, args []any) (int64, error) {
	if err := s.wireRun(ctx, text, args); err != nil {
		return 0, err
	}
	if err := s.w.Done(); err != nil {
		return 0, s.fail(err)
	}
	return s.w.Affected(), nil
}

func (s *session) wireQuery(ctx context.Context, text string, args []any, fn func(first int64)) (int, int64, error) {
	if err := s.wireRun(ctx, text, args); err != nil {
		return 0, 0, err
	}
	n := 0
	var size int64
	for s.w.Next() {
		vals, cols := s.w.Values(), s.w.Columns()
		for i, v := range vals {
			size += wire.Size(cols[i], v)
		}
		if fn != nil && len(vals) > 0 {
			first, _ := wire.Int(cols[0], vals[0])
			fn(first)
		}
		n++
	}
	return n, size, s.fail(s.w.Done())
}

// wireBegin and wireEnd send BEGIN, COMMIT and ROLLBACK as text.
func (s *session) wireBegin(ctx context.Context) error {
	if err := s.w.Simple(ctx, "BEGIN"); err != nil {
		return s.fail(err)
	}
	s.inTx = true
	return nil
}

func (s *session) wireEnd(ctx context.Context, verb string) error {
	s.inTx = false
	return s.fail(s.w.Simple(ctx, verb))
}

// Multiplex hands the session's waits to w (store.Multiplexed): only
// sessions on the wire driver can, since database/sql reads through Go's
// poller.
func (s *session) Multiplex(w store.Waiter) bool {
	if s.w == nil {
		return false
	}
	return s.w.Multiplex(w)
}
