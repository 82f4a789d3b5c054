package httpload

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"syscall"
	"time"
)

// timing is one client's clock for the phases of its current request. The
// client resets it before each request; the dialer and the connection
// wrapper, which run in the client's goroutine inside fasthttp's Do, fill
// it in. Times are durations since epoch (monotonic clock reads).
type timing struct {
	epoch      time.Time
	connect    time.Duration // dialling within the current request
	tls        time.Duration // TLS handshake within the current request
	handshakes int64
	dials      int64
	// dialTime and tlsTime hold every connection's TCP connect and TLS
	// handshake that succeeded, whatever became of the request it was
	// made for (a request that then timed out made its connection too).
	dialTime, tlsTime moments
	reconnects        int64 // requests sent on a new connection because the kept-alive one was found closed before they went out
	resent            int64 // idempotent requests sent a second time after their kept-alive connection closed unanswered (see leanConn.roundTrip)
	sent              int64 // bytes of the current request written
	// probe asks the connection wrapper to check, before the request's
	// first write, whether the server closed the kept-alive connection
	// while it sat idle; dial clears it (a new connection is not probed).
	probe bool
	// idleClosed: the probe found the connection closed, and nothing of
	// the request was written (a TLS close_notify written as the
	// connection is then closed is not the request's).
	idleClosed bool
	writeStart time.Duration // first Write of the request; -1 before it
	writeEnd   time.Duration // end of the last Write
	firstByte  time.Duration // first Read after the last Write; -1 before it
	awaiting   bool          // a Write happened and no Read returned since
	in, out    int64         // bytes read and written on all connections
}

func (t *timing) since() time.Duration { return time.Since(t.epoch) }

// begin resets the per-request fields.
func (t *timing) begin() {
	t.connect, t.tls = 0, 0
	t.writeStart, t.firstByte, t.awaiting = -1, -1, false
	t.sent, t.idleClosed = 0, false
}

// timedConn stamps the request's writes and, without TLS, the response's
// first byte. It sits under TLS when there is TLS, so it sees the bytes on
// the wire; there the first byte is stamped above TLS (tlsConn), where
// the response's bytes can be told from TLS's own records.
type timedConn struct {
	net.Conn
	t   *timing
	s   *session
	tls bool // tlsConn stamps the first byte
	// rc and peekFn, made once at dial, let the idle peek run without
	// allocating (SyscallConn and a closure per request allocated three
	// times); rc is nil where the connection has no file descriptor.
	rc     syscall.RawConn
	peekFn func(uintptr)
	peeked bool
}

// newTimedConn wraps c for the timing t of the session s.
func newTimedConn(c net.Conn, t *timing, s *session, tls bool) *timedConn {
	tc := &timedConn{Conn: c, t: t, s: s, tls: tls}
	if sc, ok := c.(syscall.Conn); ok {
		if rc, err := sc.SyscallConn(); err == nil {
			tc.rc = rc
			tc.peekFn = tc.onPeek
		}
	}
	return tc
}

func (c *timedConn) Write(b []byte) (int, error) {
	if c.t.probe && c.t.writeStart < 0 {
		// The request's first write on a kept-alive connection that sat
		// idle: if the server has closed it meanwhile, write nothing and
		// let the client send the request on a new connection.
		c.t.probe = false
		if c.idleClosed() {
			c.t.idleClosed = true
			return 0, errIdleClosed
		}
	}
	t0 := c.t.since()
	n, err := c.Conn.Write(b)
	c.t.out += int64(n)
	if c.t.firstByte >= 0 || c.t.idleClosed {
		// A write once the response has begun is not the request's: TLS's
		// close_notify when the connection closes after the response
		// (--close). Taken as the request's, it made the write phase span
		// the server's time and left no wait phase at all. Nor is
		// close_notify written on a connection found closed before the
		// request went out.
		return n, err
	}
	c.t.sent += int64(n)
	if c.t.writeStart < 0 {
		c.t.writeStart = t0
	}
	c.t.writeEnd = c.t.since()
	c.t.awaiting = true
	return n, err
}

func (c *timedConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if n > 0 {
		if c.t.awaiting && !c.tls {
			c.t.firstByte = c.t.since()
			c.t.awaiting = false
		}
		c.t.in += int64(n)
	}
	return n, err
}

// tlsConn stamps the first byte of a response over TLS: the first read
// of decrypted data after the request. Stamped on the wire instead, a
// session ticket that TLS 1.3 sends after the handshake, read with the
// response, made the wait of every connection's first response (all of
// them with --close) about zero. It embeds the *tls.Conn, so fasthttp sees
// its Handshake method and leaves it alone.
type tlsConn struct {
	*tls.Conn
	t *timing
}

func (c *tlsConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if n > 0 && c.t.awaiting {
		c.t.firstByte = c.t.since()
		c.t.awaiting = false
	}
	return n, err
}

// Close closes the connection and forgets it.
func (c *timedConn) Close() error {
	c.s.untrack(c)
	return c.Conn.Close()
}

// errIdleClosed is the write of a request on a kept-alive connection
// that the server closed while it sat idle (found before writing).
var errIdleClosed = fmt.Errorf("the server had closed the kept-alive connection: %w", io.EOF)

// idleClosed reports whether the server has closed the idle connection
// (the end of the stream or a reset is waiting to be read) or sent
// something no request asked for (a 408 before closing, TLS's
// close_notify): either way no request should go out on it.
func (c *timedConn) idleClosed() bool {
	if c.rc == nil {
		return false
	}
	c.peeked = false
	if c.rc.Control(c.peekFn) != nil {
		return false
	}
	return c.peeked
}

// onPeek is the rc.Control callback of the idle check.
func (c *timedConn) onPeek(fd uintptr) { c.peeked = rawPeek(fd) }

// dialError marks a failure to connect, for the error class "connect".
type dialError struct{ err error }

func (e *dialError) Error() string { return "connect: " + e.err.Error() }
func (e *dialError) Unwrap() error { return e.err }

// dial opens a connection for fasthttp, timing the TCP connect and the TLS
// handshake apart. fasthttp leaves a connection that already has a
// Handshake method alone, so TLS is done here, where it can be timed.
func (s *session) dial(o *origin, addr string) (net.Conn, error) {
	t := &s.tm
	t0 := t.since()
	c, err := s.w.dialer.DialTimeout(addr, s.w.cfg.Timeout)
	t1 := t.since()
	t.connect += t1 - t0
	t.probe = false
	if err != nil {
		return nil, &dialError{err}
	}
	t.dials++
	t.dialTime.add(t1 - t0)
	tc := newTimedConn(c, t, s, o.https)
	if !s.track(tc) {
		tc.Close()
		return nil, s.w.timedOut
	}
	if !o.https {
		return tc, nil
	}
	cfg := s.w.tls.Clone()
	cfg.ServerName = o.host
	tl := tls.Client(tc, cfg)
	tl.SetDeadline(time.Now().Add(s.w.cfg.Timeout))
	err = tl.Handshake()
	tl.SetDeadline(time.Time{})
	hs := t.since() - t1
	t.tls += hs
	t.handshakes++
	// The handshake's writes and reads are not the request's.
	t.writeStart, t.firstByte, t.awaiting = -1, -1, false
	if err != nil {
		tc.Close()
		return nil, &dialError{err}
	}
	t.tlsTime.add(hs)
	return &tlsConn{Conn: tl, t: t}, nil
}
