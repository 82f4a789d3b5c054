// Package wire is a lean client of the MariaDB/MySQL binary protocol
// (prepared statements), for the hot path of kurabe's MariaDB/MySQL
// sessions.
//
// It connects through github.com/go-sql-driver/mysql, which handles the
// handshake, authentication (every plugin the driver knows) and the
// collation, and then takes the socket over: the driver dials through a
// function of this package, which keeps the socket and notes the
// capabilities the driver asked for in its handshake response. From there
// a statement's execution is one COM_STMT_EXECUTE packet built into a
// reused buffer and one read of the reply into a reused buffer, walked in
// place: a row's values are slices of that buffer, valid until the next
// read. Nothing is allocated per execution once the buffers have grown to
// the largest reply.
//
// MariaDB's metadata cache (MARIADB_CLIENT_CACHE_METADATA, which the
// driver negotiates when the server offers it) spares an execution the
// column definitions: they come with the prepare, and again only when
// they changed. Without it they are read and checked on every execution,
// as any client must.
//
// What it leaves out, on purpose: TLS and compression (kurabe sets up
// neither; Connect refuses a configuration that asks for them), cursors,
// COM_STMT_SEND_LONG_DATA (a parameter goes in the execute packet, which
// may span several packets up to max_allowed_packet), the text protocol
// but for statements without rows (BEGIN, COMMIT, USE), and decoding of
// values: a row's values are the bytes of the binary protocol, which Int
// reads for the integer and DECIMAL types.
//
// Server errors are *mysql.MySQLError, so callers classify them as they
// do the driver's. Cancelling the context of an exchange in flight sets a
// past deadline on the socket, which ends the blocked read or write; the
// connection is then out of step with the server and unusable, as the
// driver's is after a cancelled query. The server notices the closed
// connection and ends the statement; a caller that must stop it at once
// sends KILL QUERY ID() from another connection.
package wire

import (
	"context"
	"database/sql/driver"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"strconv"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"

	"kurabe/numfmt"
	"kurabe/store/muxsock"
	"kurabe/store/sockwatch"
	"kurabe/store/wirebuf"
)

// Column types of the protocol that this package reads apart.
const (
	TypeDecimal    = 0x00
	TypeTiny       = 0x01
	TypeShort      = 0x02
	TypeLong       = 0x03
	TypeFloat      = 0x04
	TypeDouble     = 0x05
	TypeNull       = 0x06
	TypeTimestamp  = 0x07
	TypeLongLong   = 0x08
	TypeInt24      = 0x09
	TypeDate       = 0x0a
	TypeTime       = 0x0b
	TypeDateTime   = 0x0c
	TypeYear       = 0x0d
	TypeNewDecimal = 0xf6
	TypeString     = 0xfe
)

// FlagUnsigned marks an unsigned integer column.
const FlagUnsigned = 0x20

// Capability flags this package reads.
const (
	capMySQL          = 1 << 0
	capProtocol41     = 1 << 9
	capSSL            = 1 << 11
	capCompress       = 1 << 5
	capDeprecateEOF   = 1 << 24
	extCacheMetadata  = 1 << 4 // MariaDB's, in the extended capabilities
	statusMoreResults = 0x0008
	maxPayload        = 1<<24 - 1
)

// Commands.
const (
	comQuit        = 0x01
	comQuery       = 0x03
	comStmtPrepare = 0x16
	comStmtExecute = 0x17
	comStmtClose   = 0x19
)

// Column is one column of a statement's result.
type Column struct {
	Name     string
	Type     byte
	Flags    uint16
	Decimals byte
}

// Stmt is a statement prepared on one connection.
type Stmt struct {
	id      uint32
	SQL     string
	Params  int
	Columns []Column // nil for a statement that returns no rows
	stale   bool
}

// Stale reports that the statement was closed on the server (the
// connection's statements were dropped); prepare it again.
func (s *Stmt) Stale() bool { return s.stale }

// MaxStatements is how many statements a connection keeps prepared: past
// it (a replayed log of literal statements) every statement is closed on
// the server and prepared again on its next use, which keeps the server
// under max_prepared_stmt_count.
const MaxStatements = 256

// Conn is one connection. It is used by one goroutine, but for the
// cancellation of a context, which may come from any.
type Conn struct {
	dc       driver.Conn // the driver's connection, which did the handshake
	nc       net.Conn
	rw       io.ReadWriter   // nc, or sock in multiplexed mode
	mux      bool            // rw is sock (Multiplex)
	sock     *muxsock.Sock   // the socket while multiplexed (nc is closed then)
	moved    bool            // nc is no longer the driver's: Close says goodbye itself
	raw      syscall.RawConn // nc's descriptor, when it has one
	x        exchangeState
	pending  bool   // wbuf holds a request that fill writes
	id       uint32 // the server's connection (thread) id
	caps     uint32
	ext      uint32
	r        wirebuf.Buf // what was read and not yet parsed
	big      []byte      // a packet of several, joined
	wbuf     []byte
	seq      byte
	stmts    map[string]*Stmt
	broken   error
	busy     bool // an exchange is under way: replies are still to be read
	phase    uint8
	cols     []Column // the columns of the result set being read
	more     []Column // a later result set's (CALL), read each time
	vals     [][]byte
	nparams  int   // parameters appended to the execute being built
	st       *Stmt // the statement of the execution being built
	reading  *Stmt // the statement whose reply is being read
	results  int   // results begun in this exchange
	err      error // the server's error of the exchange under way
	affected uint64
	insertID uint64
	status   uint16

	// ctx is the exchange's context; watch ends a blocked exchange when
	// it ends.
	ctx   context.Context
	watch *sockwatch.Watch
}

// Phases of reading a reply.
const (
	phaseHeader = iota // the next packet starts a result: OK, ERR or a column count
	phaseRows          // the next packet is a row or the end of the rows
	phaseDone
)

// sniffer is the socket while the driver shakes hands: it keeps the first
// packet each way, the server's greeting (with the connection id) and
// the client's handshake response (with the capabilities).
type sniffer struct {
	net.Conn
	in, out []byte
}

func (s *sniffer) Read(p []byte) (int, error) {
	n, err := s.Conn.Read(p)
	if !whole(s.in) {
		s.in = append(s.in, p[:n]...)
	}
	return n, err
}

func (s *sniffer) Write(p []byte) (int, error) {
	if !whole(s.out) {
		s.out = append(s.out, p...)
	}
	return s.Conn.Write(p)
}

// whole reports whether b holds a whole packet.
func whole(b []byte) bool {
	return len(b) >= 4 && len(b)-4 >= int(b[0])|int(b[1])<<8|int(b[2])<<16
}

// Connect connects with the driver's configuration cfg (TCP or a Unix
// socket, no TLS, no compression) and takes the socket over. cfg is
// changed: its dialer is this package's.
func Connect(ctx context.Context, cfg *mysql.Config) (*Conn, error) {
	if cfg.TLS != nil || cfg.TLSConfig != "" && cfg.TLSConfig != "false" {
		return nil, errors.New("mysql wire: TLS is not supported; use driver=sql")
	}
	var sn *sniffer
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		var d net.Dialer
		nc, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		sn = &sniffer{Conn: nc}
		return sn, nil
	}
	// The driver reads max_allowed_packet with a query unless told.
	if cfg.MaxAllowedPacket == 0 {
		cfg.MaxAllowedPacket = 64 << 20
	}
	cn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	dc, err := cn.Connect(ctx)
	if err != nil {
		return nil, err
	}
	c := &Conn{dc: dc, nc: sn.Conn, rw: sn.Conn, watch: sockwatch.New(sn.Conn), r: wirebuf.Buf{B: make([]byte, 8192)}, wbuf: make([]byte, 0, 1024), stmts: map[string]*Stmt{}}
	if !whole(sn.in) || !whole(sn.out) || len(sn.out) < 4+32 {
		c.Close()
		return nil, errors.New("mysql wire: could not follow the driver's handshake")
	}
	// Greeting: protocol version, server version NUL-terminated, id.
	g := sn.in[4:]
	for i := 1; i < len(g); i++ {
		if g[i] == 0 {
			if i+5 <= len(g) {
				c.id = binary.LittleEndian.Uint32(g[i+1:])
			}
			break
		}
	}
	// Handshake response: capabilities, max packet, charset, 19 bytes,
	// MariaDB's extended capabilities.
	r := sn.out[4:]
	c.caps = binary.LittleEndian.Uint32(r)
	if c.caps&capMySQL == 0 {
		c.ext = binary.LittleEndian.Uint32(r[28:])
	}
	if c.caps&(capSSL|capCompress) != 0 || c.caps&capProtocol41 == 0 {
		c.Close()
		return nil, errors.New("mysql wire: the connection uses TLS or compression or an old protocol; use driver=sql")
	}
	sn.in, sn.out = nil, nil
	if sc, ok := c.nc.(syscall.Conn); ok {
		c.raw, _ = sc.SyscallConn()
	}
	c.x.step = c.exchangeStep
	return c, nil
}

// Multiplex moves the connection's socket out of Go's network poller to
// be read and written by its descriptor, with w taking every wait
// (store.Multiplexed); nil gives it back to the poller. It reports false
// when the socket has no descriptor of its own. Contexts do not
// interrupt a multiplexed wait.
func (c *Conn) Multiplex(w muxsock.Waiter) bool {
	if c.dc == nil {
		return false
	}
	if w == nil {
		if c.sock != nil {
			nc, err := c.sock.Release()
			c.sock = nil
			c.mux = false
			c.watch.Stop()
			c.moved = true
			if err != nil {
				c.nc, c.rw, c.raw = nil, nil, nil
				c.broken = fmt.Errorf("mysql: connection lost leaving the event loop: %w", err)
				return false
			}
			c.nc, c.rw, c.watch = nc, nc, sockwatch.New(nc)
			c.raw, _ = nc.(syscall.Conn).SyscallConn()
		}
		return true
	}
	if c.sock != nil {
		return true
	}
	s, ok := muxsock.Take(c.nc, w)
	if ok {
		c.sock, c.rw, c.mux = s, s, true
	}
	return ok
}

// Broken says the connection is out of step with the server or closed:
// every exchange on it fails.
func (c *Conn) Broken() bool { return c.broken != nil }

// ID is the server's id of the connection, for KILL.
func (c *Conn) ID() uint32 { return c.id }

// CachesMetadata reports whether executions skip unchanged column
// definitions (MariaDB's metadata cache).
func (c *Conn) CachesMetadata() bool { return c.ext&extCacheMetadata != 0 }

// Close says goodbye to the server and closes the socket.
func (c *Conn) Close() error {
	if c.sock != nil {
		c.Multiplex(nil)
	}
	c.watch.Stop()
	if c.dc == nil {
		return nil
	}
	var err error
	switch {
	case c.moved:
		// The socket went through the event loop and came back as
		// another net.Conn than the driver's: say COM_QUIT here.
		if c.nc != nil {
			if c.broken == nil && !c.busy {
				c.nc.SetDeadline(time.Now().Add(5 * time.Second))
				_, err = c.nc.Write([]byte{1, 0, 0, 0, comQuit})
			}
			c.nc.Close()
		}
		c.dc.Close() // its socket is closed already; it releases what it holds
	case c.broken == nil && !c.busy:
		// The driver's Close sends COM_QUIT and closes the socket.
		c.nc.SetDeadline(time.Now().Add(5 * time.Second))
		err = c.dc.Close()
	default:
		if c.nc != nil {
			c.nc.Close()
		}
		c.dc.Close() // its write fails; it still releases what it holds
	}
	c.dc = nil
	c.broken = errors.New("mysql: connection closed")
	return err
}

// Statement returns the statement for sql, prepared on first use.
func (c *Conn) Statement(ctx context.Context, sql string) (*Stmt, error) {
	if st, ok := c.stmts[sql]; ok {
		return st, nil
	}
	return c.Prepare(ctx, sql)
}

// Prepare prepares sql and reads its parameter count and columns.
func (c *Conn) Prepare(ctx context.Context, sql string) (*Stmt, error) {
	if err := c.begin(ctx); err != nil {
		return nil, err
	}
	if len(c.stmts) >= MaxStatements {
		c.DropStatements()
	}
	b := append(c.wbuf[:0], 0, 0, 0, 0, comStmtPrepare)
	b = append(b, sql...)
	c.wbuf = b
	if err := c.send(); err != nil {
		return nil, err
	}
	c.busy = false // the reply is read here
	p, err := c.packet()
	if err != nil {
		return nil, err
	}
	if p[0] == 0xff {
		return nil, c.serverError(p)
	}
	if p[0] != 0 || len(p) < 12 {
		return nil, c.fail(fmt.Errorf("unexpected reply to prepare (%d bytes, first %#x)", len(p), p[0]))
	}
	defer c.end()
	st := &Stmt{SQL: sql, id: binary.LittleEndian.Uint32(p[1:])}
	ncols := int(binary.LittleEndian.Uint16(p[5:]))
	st.Params = int(binary.LittleEndian.Uint16(p[7:]))
	if st.Params > 0 {
		if _, err := c.columns(st.Params, nil); err != nil {
			return nil, err
		}
	}
	if ncols > 0 {
		if st.Columns, err = c.columns(ncols, nil); err != nil {
			return nil, err
		}
	}
	c.stmts[sql] = st
	return st, nil
}

// DropStatements closes every statement on the server; each is prepared
// again on its next use (Stale reports it to those who keep one).
func (c *Conn) DropStatements() {
	for _, st := range c.stmts {
		c.CloseStmt(st)
	}
}

// columns reads n column definitions (and the EOF after them on servers
// that send one) into dst, grown as needed.
func (c *Conn) columns(n int, dst []Column) ([]Column, error) {
	if cap(dst) < n {
		dst = make([]Column, n)
	}
	dst = dst[:n]
	for i := range dst {
		p, err := c.packet()
		if err != nil {
			return nil, err
		}
		// catalog, schema, table, org_table, name, org_name, then 0x0c,
		// charset (2), length (4), type, flags (2), decimals.
		pos := 0
		var name []byte
		for f := range 6 {
			v, next, ok := lenencBytes(p, pos)
			if !ok {
				return nil, c.fail(errors.New("malformed column definition"))
			}
			if f == 4 {
				name = v
			}
			pos = next
		}
		_, pos, _ = lenencInt(p, pos)
		if pos+10 > len(p) {
			return nil, c.fail(errors.New("malformed column definition"))
		}
		if dst[i].Name != string(name) { // no allocation when it is the same
			dst[i].Name = string(name)
		}
		dst[i].Type = p[pos+6]
		dst[i].Flags = binary.LittleEndian.Uint16(p[pos+7:])
		dst[i].Decimals = p[pos+9]
	}
	if c.caps&capDeprecateEOF == 0 {
		if _, err := c.packet(); err != nil {
			return nil, err
		}
	}
	return dst, nil
}

// Start begins the execution of st; add its parameters in order with
// Int, Uint, Double, Bytes and Null, then Send it.
func (c *Conn) Start(st *Stmt) {
	c.st = st
	c.nparams = 0
	b := append(c.wbuf[:0], 0, 0, 0, 0, comStmtExecute)
	b = binary.LittleEndian.AppendUint32(b, st.id)
	b = append(b, 0, 1, 0, 0, 0) // no cursor; one iteration
	if st.Params > 0 {
		// NULL bitmap, "types follow", and the types: filled in as the
		// parameters are added.
		n := (st.Params+7)/8 + 1 + 2*st.Params
		for range n {
			b = append(b, 0)
		}
		b[4+10+(st.Params+7)/8] = 1
	}
	c.wbuf = b
}

// param notes parameter c.nparams's type; it reports false when the
// statement has no more parameters.
func (c *Conn) param(typ, flags byte, null bool) bool {
	i := c.nparams
	if i >= c.st.Params {
		c.nparams++
		return false
	}
	c.nparams++
	bitmap := 4 + 10
	types := bitmap + (c.st.Params+7)/8 + 1
	c.wbuf[types+2*i] = typ
	c.wbuf[types+2*i+1] = flags
	if null {
		c.wbuf[bitmap+i/8] |= 1 << (i % 8)
	}
	return true
}

// Int adds an integer parameter.
func (c *Conn) Int(v int64) {
	if c.param(TypeLongLong, 0, false) {
		c.wbuf = binary.LittleEndian.AppendUint64(c.wbuf, uint64(v))
	}
}

// Uint adds an unsigned integer parameter.
func (c *Conn) Uint(v uint64) {
	if c.param(TypeLongLong, 0x80, false) {
		c.wbuf = binary.LittleEndian.AppendUint64(c.wbuf, v)
	}
}

// Double adds a floating-point parameter.
func (c *Conn) Double(v float64) {
	if c.param(TypeDouble, 0, false) {
		c.wbuf = binary.LittleEndian.AppendUint64(c.wbuf, math.Float64bits(v))
	}
}

// Bytes adds a string parameter (text or binary, as the column takes it).
func (c *Conn) Bytes(v []byte) {
	if c.param(TypeString, 0, false) {
		c.wbuf = appendLenenc(c.wbuf, uint64(len(v)))
		c.wbuf = append(c.wbuf, v...)
	}
}

// String adds a string parameter.
func (c *Conn) String(v string) {
	if c.param(TypeString, 0, false) {
		c.wbuf = appendLenenc(c.wbuf, uint64(len(v)))
		c.wbuf = append(c.wbuf, v...)
	}
}

// Null adds a NULL parameter.
func (c *Conn) Null() { c.param(TypeNull, 0, true) }

// Send sends the execution Start began. Read its reply with Next and
// Done.
func (c *Conn) Send(ctx context.Context) error {
	if c.st == nil {
		return errors.New("mysql wire: Send without Start")
	}
	if c.nparams != c.st.Params {
		c.wbuf = c.wbuf[:0]
		return fmt.Errorf("mysql: the statement takes %d arguments, %d given", c.st.Params, c.nparams)
	}
	if err := c.begin(ctx); err != nil {
		c.wbuf = c.wbuf[:0]
		return err
	}
	c.cols = c.st.Columns
	c.reading, c.st = c.st, nil
	return c.send()
}

// Discard drops the execution Start began, unsent.
func (c *Conn) Discard() {
	c.wbuf = c.wbuf[:0]
	c.st = nil
}

// Simple runs one statement that returns no rows (BEGIN, COMMIT, USE) by
// the text protocol.
func (c *Conn) Simple(ctx context.Context, sql string) error {
	if err := c.begin(ctx); err != nil {
		return err
	}
	b := append(c.wbuf[:0], 0, 0, 0, 0, comQuery)
	c.wbuf = append(b, sql...)
	c.reading, c.cols = nil, nil
	if err := c.send(); err != nil {
		return err
	}
	return c.Done()
}

// Next reads up to the next row and reports whether there is one. Its
// values are Values, its columns Columns.
func (c *Conn) Next() bool {
	for c.busy {
		p, err := c.packet()
		if err != nil {
			return false
		}
		switch c.phase {
		case phaseHeader:
			c.header(p)
		case phaseRows:
			switch {
			case p[0] == 0 && c.err == nil:
				if err := c.row(p); err != nil {
					c.fail(err)
					return false
				}
				return true
			case p[0] == 0:
			case p[0] == 0xff:
				c.serverError(p)
				c.end()
			case p[0] == 0xfe:
				if c.caps&capDeprecateEOF != 0 {
					c.ok(p)
				} else if len(p) >= 5 {
					c.status = binary.LittleEndian.Uint16(p[3:])
				}
				c.endResult()
			default:
				c.fail(fmt.Errorf("unexpected packet in rows (first %#x)", p[0]))
				return false
			}
		}
	}
	return false
}

// header reads the first packet of a result.
func (c *Conn) header(p []byte) {
	switch p[0] {
	case 0:
		c.ok(p)
		c.endResult()
		return
	case 0xff:
		c.serverError(p)
		c.end()
		return
	case 0xfb:
		c.fail(errors.New("the server asked for a local file, which this client does not send"))
		return
	}
	n, pos, ok := lenencInt(p, 0)
	if !ok || n > 1<<16 { // a table has at most 4096 columns
		c.fail(errors.New("malformed result header"))
		return
	}
	follows := true
	if c.ext&extCacheMetadata != 0 && pos < len(p) {
		follows = p[pos] == 1
	}
	first := c.reading != nil && c.results == 0
	c.results++
	var err error
	switch {
	case first && follows:
		// The statement's columns changed (or the server always sends
		// them): keep them on the statement.
		c.reading.Columns, err = c.columns(int(n), c.reading.Columns)
		c.cols = c.reading.Columns
	case follows:
		c.more, err = c.columns(int(n), c.more)
		c.cols = c.more
	case !first || int(n) != len(c.cols):
		err = c.fail(errors.New("the server sent no columns for a result it has not described"))
	}
	if err != nil {
		return
	}
	c.phase = phaseRows
}

// ok reads an OK packet's counts and status.
func (c *Conn) ok(p []byte) {
	var pos int
	c.affected, pos, _ = lenencInt(p, 1)
	c.insertID, pos, _ = lenencInt(p, pos)
	if pos+2 <= len(p) {
		c.status = binary.LittleEndian.Uint16(p[pos:])
	}
}

// endResult ends one result; another follows when the server says so.
func (c *Conn) endResult() {
	if c.status&statusMoreResults != 0 {
		c.phase = phaseHeader
		c.cols = nil
		return
	}
	c.end()
}

func (c *Conn) end() {
	c.phase = phaseDone
	c.busy = false
	c.watch.Clear()
}

// row splits a binary row into c.vals by its columns' types.
func (c *Conn) row(p []byte) error {
	n := len(c.cols)
	if cap(c.vals) < n {
		c.vals = make([][]byte, n)
	}
	c.vals = c.vals[:n]
	nulls := p[1:]
	pos := 1 + (n+7+2)/8
	if pos > len(p) {
		return errors.New("short row")
	}
	for i := range n {
		bit := i + 2
		if nulls[bit/8]&(1<<(bit%8)) != 0 {
			c.vals[i] = nil
			continue
		}
		size := 0
		switch c.cols[i].Type {
		case TypeTiny:
			size = 1
		case TypeShort, TypeYear:
			size = 2
		case TypeLong, TypeInt24, TypeFloat:
			size = 4
		case TypeDouble, TypeLongLong:
			size = 8
		case TypeNull:
		case TypeDate, TypeDateTime, TypeTimestamp, TypeTime:
			if pos >= len(p) {
				return errors.New("short row")
			}
			size = int(p[pos])
			pos++
		default:
			l, next, ok := lenencInt(p, pos)
			if !ok || l > uint64(len(p)-next) {
				return errors.New("short row")
			}
			size, pos = int(l), next
		}
		if pos+size > len(p) {
			return errors.New("short row")
		}
		c.vals[i] = p[pos : pos+size : pos+size]
		pos += size
	}
	return nil
}

// Values are the current row's values in place, in the binary protocol's
// form (integers little-endian, strings and decimals as their bytes, dates
// as their packed fields); nil for NULL. Valid until the next Next.
func (c *Conn) Values() [][]byte { return c.vals }

// Columns are the current result's columns.
func (c *Conn) Columns() []Column { return c.cols }

// Done reads the rest of the exchange and returns its first error.
func (c *Conn) Done() error {
	for c.Next() {
	}
	if c.broken != nil && c.err == nil {
		return c.broken
	}
	return c.err
}

// Affected is the last statement's affected (with CLIENT_FOUND_ROWS,
// matched) row count; LastInsertID its AUTO_INCREMENT value.
func (c *Conn) Affected() int64     { return int64(c.affected) }
func (c *Conn) LastInsertID() int64 { return int64(c.insertID) }

// InTx reports whether a transaction is open, by the server's status.
func (c *Conn) InTx() bool { return c.status&0x0001 != 0 }

// Int reads an integer value of column col: the integer types, and a
// DECIMAL without a fraction (or a fraction of zeros).
func Int(col Column, v []byte) (int64, bool) {
	switch {
	case v == nil:
		return 0, false
	case col.Type == TypeLongLong && len(v) == 8:
		u := binary.LittleEndian.Uint64(v)
		if col.Flags&FlagUnsigned != 0 && u >= 1<<63 {
			return 0, false
		}
		return int64(u), true
	case (col.Type == TypeLong || col.Type == TypeInt24) && len(v) == 4:
		u := binary.LittleEndian.Uint32(v)
		if col.Flags&FlagUnsigned != 0 {
			return int64(u), true
		}
		return int64(int32(u)), true
	case (col.Type == TypeShort || col.Type == TypeYear) && len(v) == 2:
		u := binary.LittleEndian.Uint16(v)
		if col.Flags&FlagUnsigned != 0 {
			return int64(u), true
		}
		return int64(int16(u)), true
	case col.Type == TypeTiny && len(v) == 1:
		if col.Flags&FlagUnsigned != 0 {
			return int64(v[0]), true
		}
		return int64(int8(v[0])), true
	case col.Type == TypeNewDecimal || col.Type == TypeDecimal:
		return numfmt.DecimalInt(v)
	}
	return 0, false
}

// Size is what a value counts as in a result's bytes: integers and
// doubles 8, a FLOAT 4, a date as the length of its text, strings and
// decimals their length, NULL 0 (the sizes the driver's values had).
func Size(col Column, v []byte) int64 {
	if v == nil {
		return 0
	}
	switch col.Type {
	case TypeTiny, TypeShort, TypeYear, TypeLong, TypeInt24, TypeLongLong, TypeDouble:
		return 8
	case TypeFloat:
		return 4
	case TypeDate:
		return 10
	case TypeDateTime, TypeTimestamp:
		if col.Decimals > 0 && col.Decimals <= 6 {
			return 20 + int64(col.Decimals)
		}
		return 19
	case TypeTime:
		if col.Decimals > 0 && col.Decimals <= 6 {
			return 9 + int64(col.Decimals)
		}
		return 8
	}
	return int64(len(v))
}

// begin checks the connection and the context before an exchange and
// watches the context during it.
func (c *Conn) begin(ctx context.Context) error {
	if c.broken != nil {
		return c.broken
	}
	if c.busy {
		// The previous exchange's replies were not all read.
		if err := c.Done(); c.broken != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	c.err = nil
	c.affected, c.insertID = 0, 0
	c.phase = phaseHeader
	c.results = 0
	c.ctx = ctx
	c.watch.Follow(ctx)
	return nil
}

// send frames c.wbuf's payload (after its 4 reserved bytes) into packets.
// A request of one packet is left for the first read of its reply to
// write (see exchange); a larger one is written now.
func (c *Conn) send() error {
	b := c.wbuf
	if payload := len(b) - 4; payload < maxPayload && c.raw != nil {
		b[0], b[1], b[2], b[3] = byte(payload), byte(payload>>8), byte(payload>>16), 0
		c.seq = 1
		c.busy, c.pending = true, true
		return nil
	}
	return c.sendNow()
}

// sendNow frames and writes c.wbuf's payload.
func (c *Conn) sendNow() error {
	c.busy = true
	b := c.wbuf
	payload := len(b) - 4
	var err error
	if payload < maxPayload {
		b[0], b[1], b[2], b[3] = byte(payload), byte(payload>>8), byte(payload>>16), 0
		c.seq = 1
		_, err = c.rw.Write(b)
	} else {
		err = c.sendLarge(b[4:])
	}
	c.wbuf = b[:0]
	if err != nil {
		return c.fail(err)
	}
	return nil
}

// sendLarge writes a payload of 16 MiB or more as several packets.
func (c *Conn) sendLarge(p []byte) error {
	var hdr [4]byte
	seq := byte(0)
	for {
		n := min(len(p), maxPayload)
		hdr[0], hdr[1], hdr[2], hdr[3] = byte(n), byte(n>>8), byte(n>>16), seq
		seq++
		if _, err := c.rw.Write(hdr[:]); err != nil {
			return err
		}
		if _, err := c.rw.Write(p[:n]); err != nil {
			return err
		}
		p = p[n:]
		if n < maxPayload {
			break
		}
	}
	c.seq = seq
	return nil
}

// packet returns the next packet's payload, valid until the next read.
func (c *Conn) packet() ([]byte, error) {
	if c.broken != nil {
		return nil, c.broken
	}
	p, err := c.one()
	if err != nil || len(p) < maxPayload {
		if err == nil && len(p) == 0 {
			return nil, c.fail(errors.New("empty packet"))
		}
		return p, err
	}
	c.big = append(c.big[:0], p...)
	for {
		p, err := c.one()
		if err != nil {
			return nil, err
		}
		c.big = append(c.big, p...)
		if len(p) < maxPayload {
			return c.big, nil
		}
	}
}

func (c *Conn) one() ([]byte, error) {
	if err := c.fill(4); err != nil {
		return nil, c.fail(err)
	}
	h := c.r.B[c.r.Pos:]
	n := int(h[0]) | int(h[1])<<8 | int(h[2])<<16
	c.seq = h[3] + 1
	if err := c.fill(4 + n); err != nil {
		return nil, c.fail(err)
	}
	p := c.r.B[c.r.Pos+4 : c.r.Pos+4+n : c.r.Pos+4+n]
	c.r.Pos += 4 + n
	return p, nil
}

// fill makes n unread bytes available in c.r, sending the pending
// request first.
func (c *Conn) fill(n int) error {
	if c.r.End-c.r.Pos >= n {
		return nil
	}
	if c.pending && c.r.Pos == c.r.End {
		c.r.Pos, c.r.End = 0, 0
	}
	c.r.Room(n)
	if c.pending {
		if err := c.exchange(); err != nil {
			return err
		}
	}
	return c.r.Fill(c.rw, n)
}

// exchange writes the pending request and reads the first part of its
// reply. It writes from within the descriptor's read callback, so that
// it can go straight to waiting for the reply: the reply cannot be there
// before the request went, and nothing else is unread on a connection
// between exchanges, so the read a net.Conn would try first, which finds
// nothing and costs a system call per query, is left out. A deadline (a
// cancelled context) ends the wait as it ends a Read.
func (c *Conn) exchange() error {
	if c.mux {
		// The descriptor's Read waits for the reply by itself.
		c.pending = false
		_, err := c.rw.Write(c.wbuf)
		c.wbuf = c.wbuf[:0]
		return err
	}
	c.x.wrote, c.x.n, c.x.werr, c.x.rerr = false, 0, nil, nil
	err := c.raw.Read(c.x.step)
	c.pending = false
	c.wbuf = c.wbuf[:0]
	switch {
	case c.x.werr != nil:
		return c.x.werr
	case err != nil:
		return err
	case c.x.rerr != nil:
		return c.x.rerr
	case c.x.n <= 0:
		return io.EOF
	}
	c.r.End += c.x.n
	return nil
}

// exchangeState is what exchangeStep keeps between its calls; step is
// the method value, made once per connection, so that an exchange
// allocates no closure.
type exchangeState struct {
	step       func(fd uintptr) bool
	wrote      bool
	n          int
	werr, rerr error
}

// exchangeStep is exchange's callback for the descriptor: the first call
// writes the request, the next ones read the reply's first part.
func (c *Conn) exchangeStep(fd uintptr) bool {
	if !c.x.wrote {
		c.x.wrote = true
		_, c.x.werr = c.nc.Write(c.wbuf)
		return c.x.werr != nil
	}
	for {
		c.x.n, c.x.rerr = syscall.Read(int(fd), c.r.B[c.r.End:])
		switch c.x.rerr {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		}
		return true
	}
}

// fail marks the connection broken by an I/O or protocol error, which is
// the context's error when a cancellation caused it.
func (c *Conn) fail(err error) error {
	if c.broken != nil {
		return c.broken
	}
	if c.ctx != nil && c.ctx.Err() != nil {
		err = fmt.Errorf("mysql: query interrupted, connection closed: %w", context.Cause(c.ctx))
	} else {
		err = fmt.Errorf("mysql: connection lost: %w: %w", err, mysql.ErrInvalidConn)
	}
	c.broken = err
	c.busy, c.pending = false, false
	c.phase = phaseDone
	if c.sock != nil {
		c.sock.Shutdown()
	} else {
		c.nc.Close()
	}
	return err
}

// serverError keeps the server's error of the exchange, as the driver's
// type, and returns it.
func (c *Conn) serverError(p []byte) error {
	me := &mysql.MySQLError{}
	if len(p) >= 3 {
		me.Number = binary.LittleEndian.Uint16(p[1:])
	}
	pos := 3
	if len(p) >= 9 && p[3] == '#' {
		copy(me.SQLState[:], p[4:9])
		pos = 9
	}
	if pos < len(p) {
		me.Message = string(p[pos:])
	}
	if c.err == nil {
		c.err = me
	}
	// 1243: unknown prepared statement handler. Every statement is
	// prepared again on its next use.
	if me.Number == 1243 {
		for sql, st := range c.stmts {
			st.stale = true
			delete(c.stmts, sql)
		}
	}
	return me
}

// lenencInt reads a length-encoded integer at pos.
func lenencInt(p []byte, pos int) (uint64, int, bool) {
	if pos >= len(p) {
		return 0, pos, false
	}
	switch b := p[pos]; {
	case b < 0xfb:
		return uint64(b), pos + 1, true
	case b == 0xfc && pos+3 <= len(p):
		return uint64(p[pos+1]) | uint64(p[pos+2])<<8, pos + 3, true
	case b == 0xfd && pos+4 <= len(p):
		return uint64(p[pos+1]) | uint64(p[pos+2])<<8 | uint64(p[pos+3])<<16, pos + 4, true
	case b == 0xfe && pos+9 <= len(p):
		return binary.LittleEndian.Uint64(p[pos+1:]), pos + 9, true
	case b == 0xfb:
		return 0, pos + 1, true // NULL
	}
	return 0, pos, false
}

// lenencBytes reads a length-encoded string at pos.
func lenencBytes(p []byte, pos int) ([]byte, int, bool) {
	n, pos, ok := lenencInt(p, pos)
	if !ok || uint64(len(p)-pos) < n {
		return nil, pos, false
	}
	end := pos + int(n)
	return p[pos:end], end, true
}

func appendLenenc(b []byte, n uint64) []byte {
	switch {
	case n < 0xfb:
		return append(b, byte(n))
	case n < 1<<16:
		return append(b, 0xfc, byte(n), byte(n>>8))
	case n < 1<<24:
		return append(b, 0xfd, byte(n), byte(n>>8), byte(n>>16))
	}
	return binary.LittleEndian.AppendUint64(append(b, 0xfe), n)
}

// KillQuery is the statement that stops this connection's statement in
// flight, to send from another connection.
func (c *Conn) KillQuery() string { return "KILL QUERY " + strconv.FormatUint(uint64(c.id), 10) }

// CloseStmt closes one statement on the server.
func (c *Conn) CloseStmt(st *Stmt) {
	if c.stmts[st.SQL] == st {
		delete(c.stmts, st.SQL)
	}
	st.stale = true
	if c.broken == nil && !c.busy {
		b := append(c.wbuf[:0], 0, 0, 0, 0, comStmtClose)
		c.wbuf = binary.LittleEndian.AppendUint32(b, st.id)
		c.sendNow()
		c.busy = false
	}
}
