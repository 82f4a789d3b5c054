// Package wire is a lean client of PostgreSQL's extended query protocol,
// for the hot path of kurabe's PostgreSQL sessions.
//
// It connects through pgx's pgconn, which handles TLS, authentication and
// the startup parameters, and then takes the socket over
// (pgconn.Hijack). From there a query is one write of pre-built Bind,
// Execute and Sync messages into a reused buffer, and its reply is read
// into a reused buffer and walked in place: a row's values are slices of
// that buffer, valid until the next read. Nothing is allocated per query
// once the buffers have grown to the largest reply.
//
// What it leaves out, on purpose: the simple protocol (but for BEGIN,
// COMMIT and ROLLBACK), COPY, notifications, typed encoding and decoding of
// values (parameters go in the text format, as the caller wrote them;
// rows come back as raw bytes in the format each column was asked for),
// and any finer statement cache eviction than dropping them all: past
// MaxStatements (a replayed log of literal statements) every statement is
// closed on the server and prepared again on its next use.
//
// Server errors are *pgconn.PgError, so callers classify them as they do
// pgx's. Cancelling the context of a query in flight sets a past deadline
// on the socket, which ends the blocked read or write; the connection is
// then out of step with the server and is unusable, as pgx's is after a
// cancelled query.
package wire

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"kurabe/store/muxsock"
	"kurabe/store/sockwatch"
	"kurabe/store/wirebuf"
)

// Field is one column of a statement's result.
type Field struct {
	Name   string
	OID    uint32 // the column's type
	Format int16  // 0 text, 1 binary: the format the rows carry it in
}

// Stmt is a statement prepared on one connection.
type Stmt struct {
	name    string
	SQL     string
	Params  []uint32 // parameter types as the server inferred them
	Fields  []Field  // nil for a statement that returns no rows
	formats []int16  // result formats, as sent in Bind
	stale   bool
}

// Stale reports that the server no longer has the statement as prepared
// (its table changed under it); prepare it again.
func (s *Stmt) Stale() bool { return s.stale }

// MaxStatements is how many statements a connection keeps prepared.
const MaxStatements = 512

// Conn is one connection. It is used by one goroutine, but for the
// cancellation of a context, which may come from any.
type Conn struct {
	nc       net.Conn
	rw       io.ReadWriter // nc, or sock in multiplexed mode
	sock     *muxsock.Sock // the socket while multiplexed (nc is closed then)
	r        wirebuf.Buf   // what was read and not yet parsed
	wbuf     []byte
	vals     [][]byte
	tag      []byte
	err      error // the first server error of the exchange under way
	broken   error // set once the connection is out of step or closed
	busy     bool  // an exchange is under way: replies are still to be read
	txStatus byte

	stmts  map[string]*Stmt
	nextID int

	// ctx is the exchange's context; watch ends a blocked exchange when
	// it ends.
	ctx   context.Context
	watch *sockwatch.Watch
}

// Connect opens a connection with pgconn (cfg must come from
// pgconn.ParseConfig) and takes its socket over.
func Connect(ctx context.Context, cfg *pgconn.Config) (*Conn, error) {
	pc, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := pc.SyncConn(ctx); err != nil {
		pc.Close(ctx)
		return nil, err
	}
	hc, err := pc.Hijack()
	if err != nil {
		pc.Close(ctx)
		return nil, err
	}
	return &Conn{
		nc:       hc.Conn,
		rw:       hc.Conn,
		watch:    sockwatch.New(hc.Conn),
		r:        wirebuf.Buf{B: make([]byte, 8192)},
		wbuf:     make([]byte, 0, 1024),
		txStatus: hc.TxStatus,
		stmts:    map[string]*Stmt{},
	}, nil
}

// Multiplex moves the connection's socket out of Go's network poller to
// be read and written by its descriptor, with w taking every wait
// (store.Multiplexed); nil gives it back to the poller. It reports false
// when the socket has no descriptor of its own (TLS). Contexts do not
// interrupt a multiplexed wait.
func (c *Conn) Multiplex(w muxsock.Waiter) bool {
	if c.nc == nil {
		return false
	}
	if w == nil {
		if c.sock != nil {
			nc, err := c.sock.Release()
			c.sock = nil
			c.watch.Stop()
			if err != nil {
				c.nc, c.rw = nil, nil
				c.broken = fmt.Errorf("postgres: connection lost leaving the event loop: %w", err)
				return false
			}
			c.nc, c.rw, c.watch = nc, nc, sockwatch.New(nc)
		}
		return true
	}
	if c.sock != nil {
		return true
	}
	s, ok := muxsock.Take(c.nc, w)
	if ok {
		c.sock, c.rw = s, s
	}
	return ok
}

// Broken says the connection is out of step with the server or closed:
// every exchange on it fails.
func (c *Conn) Broken() bool { return c.broken != nil }

// TxStatus is the server's transaction status after the last exchange:
// 'I' idle, 'T' in a transaction, 'E' in a failed transaction.
func (c *Conn) TxStatus() byte { return c.txStatus }

// Close says goodbye to the server and closes the socket.
func (c *Conn) Close() error {
	if c.sock != nil {
		c.Multiplex(nil)
	}
	c.watch.Stop()
	nc := c.nc
	c.nc = nil
	if nc == nil {
		return nil
	}
	var err error
	if c.broken == nil {
		nc.SetDeadline(time.Now().Add(5 * time.Second))
		_, err = nc.Write([]byte{'X', 0, 0, 0, 4})
	}
	if cerr := nc.Close(); err == nil {
		err = cerr
	}
	c.broken = errors.New("postgres: connection closed")
	return err
}

// Statement returns the statement for sql, prepared on first use. A stale
// one is prepared again.
func (c *Conn) Statement(ctx context.Context, sql string) (*Stmt, error) {
	if st, ok := c.stmts[sql]; ok && !st.stale {
		return st, nil
	}
	return c.Prepare(ctx, sql)
}

// Prepare parses sql into a named statement and describes it: Parse,
// Describe and Sync in one write. Result columns of types whose binary
// format is fixed and compact come back binary, others as text.
func (c *Conn) Prepare(ctx context.Context, sql string) (*Stmt, error) {
	if err := c.begin(ctx); err != nil {
		return nil, err
	}
	c.nextID++
	st := &Stmt{name: "kurabe_" + strconv.Itoa(c.nextID), SQL: sql}
	b := c.wbuf[:0]
	var at int
	if len(c.stmts) >= MaxStatements {
		for text, old := range c.stmts {
			b, at = start(b, 'C')
			b = append(b, 'S')
			b = append(b, old.name...)
			b = append(b, 0)
			b = finish(b, at)
			old.stale = true
			delete(c.stmts, text)
		}
	}
	b, at = start(b, 'P')
	b = append(b, st.name...)
	b = append(b, 0)
	b = append(b, sql...)
	b = append(b, 0, 0, 0)
	b = finish(b, at)
	b, at = start(b, 'D')
	b = append(b, 'S')
	b = append(b, st.name...)
	b = append(b, 0)
	b = finish(b, at)
	b = append(b, 'S', 0, 0, 0, 4)
	c.wbuf = b
	if err := c.send(); err != nil {
		return nil, err
	}
	for {
		typ, body, err := c.read()
		if err != nil {
			return nil, err
		}
		switch typ {
		case 't':
			n := int(binary.BigEndian.Uint16(body))
			st.Params = make([]uint32, n)
			for i := range n {
				st.Params[i] = binary.BigEndian.Uint32(body[2+4*i:])
			}
		case 'T':
			st.Fields = fields(body)
			st.formats = make([]int16, len(st.Fields))
			for i, f := range st.Fields {
				st.formats[i] = f.Format
			}
		case 'E':
			c.serverError(body)
		case 'Z':
			c.ready(body)
			if c.err != nil {
				return nil, c.err
			}
			c.stmts[sql] = st
			return st, nil
		}
	}
}

// binaryTypes are the types whose results come back binary: those pgx
// decodes in binary too, so that sizes read as they did through pgx.
var binaryTypes = map[uint32]bool{
	16: true, 17: true, 19: true, 20: true, 21: true, 23: true, 25: true, 26: true, // bool bytea name int8 int2 int4 text oid
	700: true, 701: true, 1042: true, 1043: true, 1082: true, 1114: true, 1184: true, // float4 float8 bpchar varchar date timestamp timestamptz
	1700: true, 2950: true, // numeric uuid
}

func fields(body []byte) []Field {
	n := int(binary.BigEndian.Uint16(body))
	out := make([]Field, n)
	p := 2
	for i := range out {
		end := p
		for body[end] != 0 {
			end++
		}
		out[i].Name = string(body[p:end])
		p = end + 1
		// table OID (4), column number (2), type OID (4), size (2),
		// modifier (4), format (2)
		out[i].OID = binary.BigEndian.Uint32(body[p+6:])
		if binaryTypes[out[i].OID] {
			out[i].Format = 1
		}
		p += 18
	}
	return out
}

// Queue appends a Bind and an Execute of st to the pending write: params
// are the parameters' values in the text format, nil for NULL, as the
// server reads them with the statement's parameter types. Send the
// pending messages with Sync.
func (c *Conn) Queue(st *Stmt, params [][]byte) {
	b, at := start(c.wbuf, 'B')
	b = append(b, 0) // the unnamed portal
	b = append(b, st.name...)
	b = append(b, 0, 0, 0) // no parameter formats: all text
	b = binary.BigEndian.AppendUint16(b, uint16(len(params)))
	for _, p := range params {
		if p == nil {
			b = append(b, 0xff, 0xff, 0xff, 0xff)
			continue
		}
		b = binary.BigEndian.AppendUint32(b, uint32(len(p)))
		b = append(b, p...)
	}
	b = binary.BigEndian.AppendUint16(b, uint16(len(st.formats)))
	for _, f := range st.formats {
		b = binary.BigEndian.AppendUint16(b, uint16(f))
	}
	b = finish(b, at)
	b = append(b, 'E', 0, 0, 0, 9, 0, 0, 0, 0, 0) // unnamed portal, all rows
	c.wbuf = b
}

// Sync sends the queued statements with a Sync: they run in one implicit
// transaction unless one is open. Read the replies with Next and Done.
func (c *Conn) Sync(ctx context.Context) error {
	if err := c.begin(ctx); err != nil {
		c.wbuf = c.wbuf[:0]
		return err
	}
	c.wbuf = append(c.wbuf, 'S', 0, 0, 0, 4)
	return c.send()
}

// Next reads up to the next row and reports whether there is one. Its
// values are Values.
func (c *Conn) Next() bool {
	for c.busy {
		typ, body, err := c.read()
		if err != nil {
			return false
		}
		switch typ {
		case 'D':
			n := int(binary.BigEndian.Uint16(body))
			if cap(c.vals) < n {
				c.vals = make([][]byte, n)
			}
			c.vals = c.vals[:n]
			p := 2
			for i := range n {
				l := int(int32(binary.BigEndian.Uint32(body[p:])))
				p += 4
				if l < 0 {
					c.vals[i] = nil
					continue
				}
				c.vals[i] = body[p : p+l : p+l]
				p += l
			}
			if c.err != nil {
				continue // rows after an error are not the caller's
			}
			return true
		case 'C':
			c.tag = append(c.tag[:0], body[:len(body)-1]...)
		case 'E':
			c.serverError(body)
		case 'Z':
			c.ready(body)
		}
	}
	return false
}

// Values are the current row's values in place: nil for NULL, else the
// bytes as received, valid until the next call of Next.
func (c *Conn) Values() [][]byte { return c.vals }

// Done reads the rest of the exchange and returns the last statement's
// command tag (valid until the next exchange) and the first error.
func (c *Conn) Done() ([]byte, error) {
	for c.Next() {
	}
	if c.broken != nil && c.err == nil {
		return nil, c.broken
	}
	return c.tag, c.err
}

// Simple runs one statement without parameters by the simple protocol and
// returns its command tag; for BEGIN, COMMIT and ROLLBACK, which need no
// statement of their own.
func (c *Conn) Simple(ctx context.Context, sql string) ([]byte, error) {
	if err := c.begin(ctx); err != nil {
		return nil, err
	}
	b, at := start(c.wbuf[:0], 'Q')
	b = append(b, sql...)
	b = append(b, 0)
	c.wbuf = finish(b, at)
	if err := c.send(); err != nil {
		return nil, err
	}
	return c.Done()
}

// RowsAffected reads the count at the end of a command tag
// ("INSERT 0 1", "UPDATE 10"); 0 for tags without one.
func RowsAffected(tag []byte) int64 {
	i := len(tag)
	for i > 0 && tag[i-1] >= '0' && tag[i-1] <= '9' {
		i--
	}
	if i == len(tag) || i == 0 || tag[i-1] != ' ' || len(tag)-i > 18 {
		return 0
	}
	var n int64
	for _, d := range tag[i:] {
		n = n*10 + int64(d-'0')
	}
	return n
}

// begin checks the connection and the context before an exchange and
// watches the context during it.
func (c *Conn) begin(ctx context.Context) error {
	if c.broken != nil {
		return c.broken
	}
	if c.busy {
		// The previous exchange's replies were not all read.
		if _, err := c.Done(); c.broken != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	c.err = nil
	c.tag = c.tag[:0]
	c.ctx = ctx
	c.watch.Follow(ctx)
	return nil
}

func (c *Conn) send() error {
	c.busy = true
	_, err := c.rw.Write(c.wbuf)
	c.wbuf = c.wbuf[:0]
	if err != nil {
		return c.fail(err)
	}
	return nil
}

// read returns the next message's type and body, the body valid until
// the next read.
func (c *Conn) read() (byte, []byte, error) {
	if c.broken != nil {
		return 0, nil, c.broken
	}
	if err := c.fill(5); err != nil {
		return 0, nil, c.fail(err)
	}
	typ := c.r.B[c.r.Pos]
	size := int(binary.BigEndian.Uint32(c.r.B[c.r.Pos+1:]))
	if size < 4 {
		return 0, nil, c.fail(fmt.Errorf("message %q of length %d", typ, size))
	}
	if err := c.fill(1 + size); err != nil {
		return 0, nil, c.fail(err)
	}
	body := c.r.B[c.r.Pos+5 : c.r.Pos+1+size]
	c.r.Pos += 1 + size
	return typ, body, nil
}

// fill makes n unread bytes available in c.r.
func (c *Conn) fill(n int) error {
	if c.r.End-c.r.Pos >= n {
		return nil
	}
	c.r.Room(n)
	return c.r.Fill(c.rw, n)
}

// ErrConnLost is wrapped by the error of an exchange whose connection
// broke (EOF, a reset) while it was under way: its request may have
// reached the server, so its outcome is unknown.
var ErrConnLost = errors.New("connection lost")

// fail marks the connection broken by an I/O error, which is the
// context's error when a cancellation caused it.
func (c *Conn) fail(err error) error {
	if c.ctx != nil && c.ctx.Err() != nil {
		err = fmt.Errorf("postgres: query interrupted, connection closed: %w", context.Cause(c.ctx))
	} else {
		err = fmt.Errorf("postgres: %w: %w", ErrConnLost, err)
	}
	c.broken = err
	c.busy = false
	if c.sock != nil {
		c.sock.Shutdown()
	} else if c.nc != nil {
		c.nc.Close()
	}
	return err
}

// ready ends an exchange at ReadyForQuery.
func (c *Conn) ready(body []byte) {
	c.busy = false
	if len(body) > 0 {
		c.txStatus = body[0]
	}
}

// serverError keeps the first error of an exchange. A statement the
// server no longer has as prepared is marked stale.
func (c *Conn) serverError(body []byte) {
	pe := &pgconn.PgError{}
	for len(body) > 1 {
		k := body[0]
		end := 1
		for end < len(body) && body[end] != 0 {
			end++
		}
		v := string(body[1:end])
		body = body[min(end+1, len(body)):]
		switch k {
		case 'S':
			pe.Severity = v
		case 'V':
			pe.SeverityUnlocalized = v
		case 'C':
			pe.Code = v
		case 'M':
			pe.Message = v
		case 'D':
			pe.Detail = v
		case 'H':
			pe.Hint = v
		case 'P':
			n, _ := strconv.Atoi(v)
			pe.Position = int32(n)
		case 'W':
			pe.Where = v
		case 's':
			pe.SchemaName = v
		case 't':
			pe.TableName = v
		case 'c':
			pe.ColumnName = v
		case 'd':
			pe.DataTypeName = v
		case 'n':
			pe.ConstraintName = v
		case 'F':
			pe.File = v
		case 'L':
			n, _ := strconv.Atoi(v)
			pe.Line = int32(n)
		case 'R':
			pe.Routine = v
		}
	}
	// "cached plan must not change result type", "prepared statement
	// does not exist": every statement may be affected, so all are
	// prepared again on their next use.
	if pe.Code == "0A000" || pe.Code == "26000" {
		for sql, st := range c.stmts {
			st.stale = true
			delete(c.stmts, sql)
		}
	}
	if c.err == nil {
		c.err = pe
	}
}

// start appends a message's type and room for its length.
func start(b []byte, typ byte) ([]byte, int) {
	b = append(b, typ, 0, 0, 0, 0)
	return b, len(b) - 4
}

// finish writes the length of the message started at at.
func finish(b []byte, at int) []byte {
	binary.BigEndian.PutUint32(b[at:], uint32(len(b)-at))
	return b
}
