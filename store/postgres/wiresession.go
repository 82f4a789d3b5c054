package postgres

import (
	"context"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"kurabe/store"
	"kurabe/store/postgres/wire"
)

// The session's operations over package wire (driver=wire, the default
// with connect=session and protocol=extended): the same statements as
// through pgx, prepared once per session, each run as one write of Bind,
// Execute and Sync; parameters go in the text format and rows are read in
// place. Statements are kept per table and scan shape, so a call looks
// nothing up; SQLSession's statements are kept by their text.

// wireStmt returns *slot, preparing sql into it when it is not yet
// prepared or has gone stale.
func (s *session) wireStmt(ctx context.Context, slot **wire.Stmt, sql string) (*wire.Stmt, error) {
	if st := *slot; st != nil && !st.Stale() {
		return st, nil
	}
	st, err := s.w.Statement(ctx, sql)
	if err != nil {
		return nil, s.st.fail(err)
	}
	*slot = st
	return st, nil
}

// insertParams returns row's insert parameters in the text format. The
// integers are formatted into s.nbuf, sized beforehand so that it never
// moves under the slices taken of it.
func (s *session) insertParams(t *store.Table, row store.Row) [][]byte {
	if need := 20 * len(t.Columns); cap(s.nbuf) < need {
		s.nbuf = make([]byte, 0, need)
	}
	nb := s.nbuf[:0]
	ps := s.pvals[:0]
	for i, c := range t.Columns {
		switch {
		case i == 0 && t.AutoKey:
		case c.Kind == store.Int:
			n := len(nb)
			nb = strconv.AppendInt(nb, row[i].Int, 10)
			ps = append(ps, nb[n:len(nb):len(nb)])
		default:
			ps = append(ps, row[i].Text)
		}
	}
	s.pvals = ps
	return ps
}

func (s *session) wireInsert(ctx context.Context, t *store.Table, p *statements, row store.Row) error {
	st, err := s.wireStmt(ctx, &p.wInsert, p.insert)
	if err != nil {
		return err
	}
	s.w.Queue(st, s.insertParams(t, row))
	clear(s.pvals)
	if err := s.w.Sync(ctx); err != nil {
		return s.st.fail(err)
	}
	_, err = s.w.Done()
	return s.st.fail(err)
}

// wireInsertBatch sends every row's Bind and Execute before one Sync: one
// write, one round trip, one implicit transaction.
func (s *session) wireInsertBatch(ctx context.Context, t *store.Table, p *statements, rows []store.Row) error {
	st, err := s.wireStmt(ctx, &p.wInsert, p.insert)
	if err != nil {
		return err
	}
	for _, r := range rows {
		s.w.Queue(st, s.insertParams(t, r))
	}
	clear(s.pvals)
	if err := s.w.Sync(ctx); err != nil {
		return s.st.fail(err)
	}
	_, err = s.w.Done()
	return s.st.fail(err)
}

func (s *session) wireScan(ctx context.Context, t *store.Table, p *statements, q store.Query, fn func(store.Row) error) (int, error) {
	sh := shapeOf(q)
	st, err := s.wireStmt(ctx, &p.wScans[sh], p.scan(sh))
	if err != nil {
		return 0, err
	}
	if len(st.Fields) != len(t.Columns) {
		return 0, fmt.Errorf("postgres: %s.%s returned %d columns, want %d; run Setup again", schema, t.Name, len(st.Fields), len(t.Columns))
	}
	// The parameters go in the order scan numbers them.
	if cap(s.nbuf) < 60 {
		s.nbuf = make([]byte, 0, 60)
	}
	nb := s.nbuf[:0]
	ps := s.pvals[:0]
	for _, v := range [...]struct {
		on bool
		v  int64
	}{{q.HasFrom, q.From}, {q.Limit > 0, int64(q.Limit)}, {q.Offset > 0, int64(q.Offset)}} {
		if v.on {
			n := len(nb)
			nb = strconv.AppendInt(nb, v.v, 10)
			ps = append(ps, nb[n:len(nb):len(nb)])
		}
	}
	s.pvals = ps
	s.w.Queue(st, ps)
	if err := s.w.Sync(ctx); err != nil {
		return 0, s.st.fail(err)
	}
	row := s.row[:len(t.Columns)]
	n := 0
	var ferr error
	for ferr == nil && s.w.Next() {
		vals := s.w.Values()
		for i, c := range t.Columns {
			if c.Kind == store.Text {
				row[i] = store.Value{Text: vals[i]}
				continue
			}
			v, ok := decodeInt(vals[i], st.Fields[i].Format)
			if !ok {
				ferr = fmt.Errorf("postgres: %s.%s column %s: %q is not a bigint", schema, t.Name, c.Name, vals[i])
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
	_, err = s.w.Done()
	if ferr != nil {
		return n, ferr
	}
	return n, s.st.fail(err)
}

// wireArgs encodes a statement's arguments in the text format: integers
// (and *int64, read now; nil is NULL), floats and booleans as PostgreSQL
// writes them, strings and []byte as
// they are ([]byte for a bytea parameter in its hex form), times in ISO
// 8601, nil as NULL.
func (s *session) wireArgs(st *wire.Stmt, args []any) ([][]byte, error) {
	if len(args) != len(st.Params) {
		return nil, fmt.Errorf("postgres: the statement takes %d arguments, %d given", len(st.Params), len(args))
	}
	nb := s.abuf[:0]
	ps := s.pvals[:0]
	offs := s.aoff[:0]
	for i, a := range args {
		n := len(nb)
		switch v := a.(type) {
		case nil:
			ps = append(ps, nil)
			continue
		case []byte:
			if v == nil {
				ps = append(ps, nil)
				continue
			}
			if st.Params[i] != pgtype.ByteaOID {
				ps = append(ps, v)
				continue
			}
			nb = append(nb, `\x`...)
			nb = hex.AppendEncode(nb, v)
		case string:
			nb = append(nb, v...)
		case int64:
			nb = strconv.AppendInt(nb, v, 10)
		case *int64:
			if v == nil {
				ps = append(ps, nil)
				continue
			}
			nb = strconv.AppendInt(nb, *v, 10)
		case int:
			nb = strconv.AppendInt(nb, int64(v), 10)
		case int32:
			nb = strconv.AppendInt(nb, int64(v), 10)
		case int16:
			nb = strconv.AppendInt(nb, int64(v), 10)
		case int8:
			nb = strconv.AppendInt(nb, int64(v), 10)
		case uint64:
			nb = strconv.AppendUint(nb, v, 10)
		case uint:
			nb = strconv.AppendUint(nb, uint64(v), 10)
		case uint32:
			nb = strconv.AppendUint(nb, uint64(v), 10)
		case float64:
			nb = appendFloat(nb, v, 64)
		case float32:
			nb = appendFloat(nb, float64(v), 32)
		case bool:
			nb = strconv.AppendBool(nb, v)
		case time.Time:
			nb = v.AppendFormat(nb, "2006-01-02 15:04:05.999999999Z07:00:00")
		default:
			return nil, fmt.Errorf("postgres: argument %d: cannot send a %T; give an integer, *int64, float, bool, string, []byte, time.Time or nil", i+1, a)
		}
		// Slices of nb are taken once it stops growing.
		ps = append(ps, nil)
		offs = append(offs, i, n, len(nb))
	}
	for k := 0; k < len(offs); k += 3 {
		ps[offs[k]] = nb[offs[k+1]:offs[k+2]:offs[k+2]]
	}
	s.abuf, s.pvals, s.aoff = nb, ps, offs
	return ps, nil
}

// appendFloat writes a float as PostgreSQL reads one, infinities included.
func appendFloat(b []byte, v float64, bits int) []byte {
	switch {
	case math.IsInf(v, 1):
		return append(b, "Infinity"...)
	case math.IsInf(v, -1):
		return append(b, "-Infinity"...)
	case math.IsNaN(v):
		return append(b, "NaN"...)
	}
	return strconv.AppendFloat(b, v, 'g', -1, bits)
}

// wireRun prepares sql (once), binds args and sends it.
func (s *session) wireRun(ctx context.Context, sql string, args []any) (*wire.Stmt, error) {
	st, err := s.w.Statement(ctx, sql)
	if err != nil {
		return nil, s.st.fail(err)
	}
	ps, err := s.wireArgs(st, args)
	if err != nil {
		return nil, err
	}
	s.w.Queue(st, ps)
	clear(s.pvals)
	if err := s.w.Sync(ctx); err != nil {
		return nil, s.st.fail(err)
	}
	return st, nil
}

func (s *session) wireExec(ctx context.Context, sql string, args []any) (int64, error) {
	if _, err := s.wireRun(ctx, sql, args); err != nil {
		return 0, err
	}
	tag, err := s.w.Done()
	if err != nil {
		return 0, s.st.fail(err)
	}
	return wire.RowsAffected(tag), nil
}

func (s *session) wireQuery(ctx context.Context, sql string, args []any, fn func(first int64)) (int, int64, error) {
	st, err := s.wireRun(ctx, sql, args)
	if err != nil {
		return 0, 0, err
	}
	var first *pgconn.FieldDescription
	var fd pgconn.FieldDescription
	if len(st.Fields) > 0 {
		fd = pgconn.FieldDescription{DataTypeOID: st.Fields[0].OID, Format: st.Fields[0].Format}
		first = &fd
	}
	n := 0
	var size int64
	for s.w.Next() {
		vals := s.w.Values()
		for _, v := range vals {
			size += int64(len(v))
		}
		if fn != nil && len(vals) > 0 {
			fn(firstInt(vals[0], first))
		}
		n++
	}
	_, err = s.w.Done()
	return n, size, s.st.fail(err)
}

// wireEnd sends COMMIT or ROLLBACK by the simple protocol.
func (s *session) wireEnd(ctx context.Context, verb string) (pgconn.CommandTag, error) {
	tag, err := s.w.Simple(ctx, verb)
	s.inTx = false
	if err != nil {
		return pgconn.CommandTag{}, s.st.fail(err)
	}
	if string(tag) == "ROLLBACK" && strings.EqualFold(verb, "commit") {
		return pgconn.NewCommandTag("ROLLBACK"), nil
	}
	return pgconn.CommandTag{}, nil
}

// Multiplex hands the session's waits to w (store.Multiplexed): only
// sessions on the wire driver can, since pgx reads through Go's poller.
func (s *session) Multiplex(w store.Waiter) bool {
	if s.w == nil {
		return false
	}
	return s.w.Multiplex(w)
}
