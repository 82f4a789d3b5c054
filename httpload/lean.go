package httpload

// The lean path: plain HTTP/1.1 for fixed requests (one URL, ab's flags, a
// URL file), with as little work per request as the report allows.
//
// Profiled against nginx on loopback with 50 clients on 2 cores, the
// fasthttp path spent its CPU per request in the kernel's loopback TCP
// (which every client pays), in Go's scheduler and netpoller (parking a
// goroutine, epoll_wait, the system monitor waking every 20 µs because
// processors kept entering system calls), in an extra read per response
// that returns EAGAIN before the goroutine parks, and in fasthttp's header
// parsing into maps. The lean path keeps one goroutine per client (the
// engine's), and removes what it can:
//
//   - The request is built once per URL and written with one send(2).
//   - Inside the connection's syscall.RawConn Read, whose first step arms
//     the netpoller, the callback first writes the request and then reports
//     "not ready": the goroutine parks at once and is woken when the
//     response arrives. No read returns EAGAIN on the common path, and the
//     read and write are raw system calls (non-blocking sockets never
//     block), so the scheduler does not hand the processor off and the
//     system monitor stays asleep.
//   - The response parser reads the status line and only Content-Length,
//     Transfer-Encoding, Connection (and Server once); the body is counted
//     and dropped in the read buffer, and kept only when --expect-body
//     needs it (its start also when the status is not 2xx, to quote in
//     the failure's message).
//   - The phases come from four clock reads: start (which is also the
//     write's start), write done, first byte, end.
//
// TLS, flows and requests with headers the lean path does not build (a
// Transfer-Encoding, a Content-Length or an Expect of their own) go through
// fasthttp, and the result says which path ran (store info and run
// parameters, "client").

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// leanReadBuffer is each lean connection's read buffer. Bodies pass
// through it in pieces; a response head must fit in leanMaxHead.
const (
	leanReadBuffer = 64 << 10
	leanMaxHead    = 1 << 20
)

// leanWhy says why cfg cannot take the lean path, or "" when it can.
func leanWhy(cfg *Config, origins []origin) string {
	switch {
	case !leanSupported:
		return "raw sockets not supported on this system"
	case cfg.Flow != nil:
		return "flow"
	}
	for _, o := range origins {
		if o.https {
			return "TLS"
		}
	}
	for _, h := range cfg.Headers {
		switch strings.ToLower(h.Name) {
		case "content-length", "transfer-encoding", "expect":
			return "header " + h.Name
		}
	}
	return ""
}

// leanRequest is a target's request on the wire, built once.
type leanRequest struct {
	b     []byte // request line, headers and body
	body  int    // bytes of body
	head  bool   // a HEAD request: the response has no body
	close bool   // the request says Connection: close
	// idempotent: the request may be sent again after its connection
	// closed unanswered (leanConn.roundTrip).
	idempotent bool
}

// buildLean writes t's request as fasthttp would: request line, User-Agent,
// Host, Content-Type and Content-Length for methods with a body, the
// headers of -H/-C/-A, Connection: close with --close.
func buildLean(cfg *Config, t *Target) (leanRequest, error) {
	p, err := url.Parse(t.URL)
	if err != nil {
		return leanRequest{}, err
	}
	uri := requestURI(t.URL)
	closing := cfg.Close
	var custom = func(name string) (string, bool) {
		for _, h := range cfg.Headers {
			if strings.EqualFold(h.Name, name) {
				return h.Value, true
			}
		}
		return "", false
	}
	var b []byte
	b = append(b, t.Method...)
	b = append(b, ' ')
	b = append(b, uri...)
	b = append(b, " HTTP/1.1\r\n"...)
	line := func(name, value string) {
		b = append(b, name...)
		b = append(b, ": "...)
		b = append(b, value...)
		b = append(b, "\r\n"...)
	}
	if v, ok := custom("User-Agent"); ok {
		line("User-Agent", v)
	} else if cfg.UserAgent != "" {
		line("User-Agent", cfg.UserAgent)
	}
	if v, ok := custom("Host"); ok {
		line("Host", v)
	} else {
		line("Host", p.Host)
	}
	bodied := t.Method != "GET" && t.Method != "HEAD" || len(t.Body) > 0
	if bodied {
		ct := t.ContentType
		if v, ok := custom("Content-Type"); ok {
			ct = v
		} else if ct == "" {
			ct = "application/octet-stream" // fasthttp's default
		}
		line("Content-Type", ct)
		line("Content-Length", strconv.Itoa(len(t.Body)))
	}
	for _, h := range cfg.Headers {
		switch strings.ToLower(h.Name) {
		case "user-agent", "host", "content-type":
			continue
		case "connection":
			if cfg.Close {
				continue
			}
			closing = closing || hasToken([]byte(h.Value), "close")
		}
		line(h.Name, h.Value)
	}
	if cfg.Close {
		line("Connection", "close")
	}
	b = append(b, "\r\n"...)
	b = append(b, t.Body...)
	_, key := custom("Idempotency-Key")
	_, xkey := custom("X-Idempotency-Key")
	return leanRequest{b: b, body: len(t.Body), head: t.Method == "HEAD", close: closing,
		idempotent: idempotent(t.Method, key || xkey)}, nil
}

// requestURI is the path and query of u as written (fasthttp's
// DisablePathNormalizing), without the fragment: "/" when empty.
func requestURI(u string) string {
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
	}
	i := strings.IndexAny(u, "/?#")
	if i < 0 {
		return "/"
	}
	u = u[i:]
	if j := strings.IndexByte(u, '#'); j >= 0 {
		u = u[:j]
	}
	switch {
	case u == "":
		return "/"
	case u[0] == '?':
		return "/" + u
	}
	return u
}

// leanConn is one client's connection to one server on the lean path,
// with the state of the request in flight. Only the client's goroutine
// uses it, except that the watchdog may close conn (under the session's
// connsMu, which also guards setting and clearing conn).
type leanConn struct {
	s      *session
	addr   string
	conn   *net.TCPConn
	rc     syscall.RawConn
	readFn func(uintptr) bool // rc callbacks, bound once
	sendFn func(uintptr) bool
	peekFn func(uintptr)
	peeked bool          // the idle check found the connection closed
	last   time.Duration // when the last request ended, for its idle time

	out      []byte // request bytes still to write
	wrote    bool   // the request is written
	partial  bool   // send(2) would block: finish with rc.Write
	awaiting bool   // no response byte yet
	tWrote   time.Duration
	tFirst   time.Duration

	buf  []byte // unparsed response bytes are buf[r:w]
	r, w int
	p    respParser
	err  error
}

func newLeanConn(s *session, o *origin) *leanConn {
	lc := &leanConn{s: s, addr: o.addr, buf: make([]byte, leanReadBuffer)}
	lc.readFn = lc.onRead
	lc.sendFn = lc.onWrite
	lc.peekFn = lc.onPeek
	return lc
}

// dial opens the connection, timing it as the request's connect phase.
func (lc *leanConn) dial() error {
	t := &lc.s.tm
	t0 := t.since()
	d := net.Dialer{Timeout: lc.s.w.cfg.Timeout}
	c, err := d.Dial("tcp", lc.addr)
	took := t.since() - t0
	t.connect += took
	if err != nil {
		return &dialError{err}
	}
	tc := c.(*net.TCPConn)
	rc, err := tc.SyscallConn()
	if err != nil {
		tc.Close()
		return &dialError{err}
	}
	t.dials++
	t.dialTime.add(took)
	lc.s.connsMu.Lock()
	if lc.s.busy.Load() == killed {
		// The watchdog ended the request while it dialled (see track).
		lc.s.connsMu.Unlock()
		tc.Close()
		return lc.s.w.timedOut
	}
	lc.conn, lc.rc = tc, rc
	lc.s.connsMu.Unlock()
	lc.r, lc.w = 0, 0
	return nil
}

// close closes the connection; the next request dials again.
func (lc *leanConn) close() {
	lc.s.connsMu.Lock()
	c := lc.conn
	lc.conn, lc.rc = nil, nil
	lc.s.connsMu.Unlock()
	if c != nil {
		c.Close()
	}
}

// roundTrip sends req and reads its response into lc.p. The timing's
// connect, write and first-byte stamps are set; t0 is the request's start.
//
// A kept-alive connection the server has closed meanwhile (an idle
// timeout: Node's and Apache's 5 s) must not lose the next request, nor
// may a request the server might have processed be sent twice unseen
// (a POST handled twice). The methods that may be resent are Go's
// net/http's; the idle conditions (idleProbe, resendIdle) are kurabe's
// own (net/http resends an idempotent request whatever the idle time):
//
//   - Before its first write on a connection that sat idle for idleProbe
//     or more, the request peeks at the socket: the end of the stream, a
//     reset or unasked bytes (a 408) mean the server closed it, and the
//     request goes out on a new connection instead (an unsolicited "408
//     Request Timeout" with Connection: close, which HAProxy and Google's
//     front end send on the idle connection before closing it, is found
//     this way). So does a request of which nothing could be written
//     (EPIPE, ECONNRESET). The server got none of these requests, whatever
//     the method: each is counted as a reconnect and is not a failure.
//     A 408 read after the request was written is the server's answer to
//     it: an "http 408" failure like any other status, never resent (the
//     server may have read a POST before timing it out).
//   - A request written (in full or in part) that then finds the end of
//     the stream or a reset before any byte of its response may have
//     reached the application. It is sent again only when its method is
//     idempotent (GET, HEAD, OPTIONS, TRACE, or an Idempotency-Key header)
//     and the connection had sat idle for resendIdle or more, the one case
//     where the server's idle timeout can have crossed the request on the
//     wire; it is counted as resent. Otherwise (a POST, or a server that
//     drops a request it read) it is a "closed" failure, sent once.
//
// Only on a reused connection: a request that fails on a new one is a
// failure. The latency runs from the request's start, the failed attempt
// and the new connection included: that is how long the request took.
func (lc *leanConn) roundTrip(req *leanRequest, retain bool, t0 time.Duration) error {
	t := &lc.s.tm
	reused := lc.conn != nil
	idle := t0 - lc.last
	if reused && idle >= idleProbe {
		lc.rc.Control(lc.peekFn)
		if lc.peeked {
			lc.close()
			t.reconnects++
			reused = false
		}
	}
	for {
		if lc.conn == nil {
			if err := lc.dial(); err != nil {
				return err
			}
			t0 = t.since()
		}
		err := lc.send(req, retain, t0)
		if err != nil || lc.p.close || req.close {
			lc.close()
		}
		if !reused || lc.s.busy.Load() == killed {
			return err
		}
		unanswered := err != nil && lc.unanswered(err)
		switch {
		case unanswered && len(lc.out) == len(req.b):
			t.reconnects++
		case unanswered && req.idempotent && idle >= resendIdle:
			t.resent++
		default:
			return err
		}
		reused = false
	}
}

// unanswered reports whether the request failed with err before any byte
// of its response arrived, because the connection was closed: the write
// failed (EPIPE, ECONNRESET), or the first read found the end of the
// stream or a reset.
func (lc *leanConn) unanswered(err error) bool {
	if lc.wrote && !lc.awaiting {
		return false
	}
	return err == errLeanClosed || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET)
}

// onPeek is the rc.Control callback of the idle check.
func (lc *leanConn) onPeek(fd uintptr) { lc.peeked = rawPeek(fd) }

// send writes req on the open connection and reads its response.
func (lc *leanConn) send(req *leanRequest, retain bool, t0 time.Duration) error {
	t := &lc.s.tm
	t.writeStart = t0
	lc.out, lc.wrote, lc.partial, lc.awaiting, lc.err = req.b, false, false, false, nil
	lc.p.reset(req.head, retain, lc.s.wantServer)
	err := lc.rc.Read(lc.readFn)
	if err == nil && lc.partial {
		// The request did not fit the socket's buffer: wait until it
		// can be written, then for the response.
		if err = lc.rc.Write(lc.sendFn); err == nil && lc.err == nil {
			err = lc.rc.Read(lc.readFn)
		}
	}
	if err == nil {
		err = lc.err
	}
	if lc.wrote {
		t.writeEnd = lc.tWrote
		if !lc.awaiting {
			t.firstByte = lc.tFirst
		}
	}
	return err
}

// write sends what is left of the request. It reports whether the
// request is written; false with lc.err nil means the socket is full.
func (lc *leanConn) write(fd uintptr) bool {
	for len(lc.out) > 0 {
		n, errno := rawSend(fd, lc.out)
		switch errno {
		case 0:
			lc.out = lc.out[n:]
			lc.s.tm.out += int64(n)
			continue
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		}
		lc.err = errno
		return false
	}
	lc.wrote, lc.awaiting = true, true
	lc.tWrote = lc.s.tm.since()
	return true
}

// onWrite is the rc.Write callback of a request larger than the socket's
// buffer.
func (lc *leanConn) onWrite(fd uintptr) bool {
	return lc.write(fd) || lc.err != nil
}

// onRead is the rc.Read callback. Its first call on a request writes it
// and reports "not ready", so the goroutine parks until the response
// arrives; later calls read and parse. It returns true when the response
// is complete or failed (lc.err).
func (lc *leanConn) onRead(fd uintptr) bool {
	if !lc.wrote && !lc.partial {
		if !lc.write(fd) {
			lc.partial = lc.err == nil
			return true
		}
		return false
	}
	for {
		if lc.r == lc.w {
			lc.r, lc.w = 0, 0
		}
		if lc.w == len(lc.buf) {
			if lc.err = lc.makeRoom(); lc.err != nil {
				return true
			}
		}
		n, errno := rawRead(fd, lc.buf[lc.w:])
		switch errno {
		case 0:
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		default:
			lc.err = errno
			return true
		}
		if n == 0 {
			lc.err = lc.p.eof()
			return true
		}
		if lc.awaiting {
			lc.tFirst = lc.s.tm.since()
			lc.awaiting = false
		}
		lc.s.tm.in += int64(n)
		lc.w += n
		done, err := lc.p.parse(lc)
		if err != nil {
			lc.err = err
			return true
		}
		if done {
			return true
		}
		// Read on until EAGAIN even after a short read: the poller is
		// edge-triggered, and the end of the stream that came with the
		// data read last brings no new edge.
	}
}

// makeRoom moves unparsed bytes to the front of the buffer, or grows it
// when they fill it (a long response head or chunk line).
func (lc *leanConn) makeRoom() error {
	if lc.r > 0 {
		lc.w = copy(lc.buf, lc.buf[lc.r:lc.w])
		lc.r = 0
		return nil
	}
	if len(lc.buf) >= leanMaxHead {
		return fmt.Errorf("malformed response: a header or chunk line longer than %d bytes", leanMaxHead)
	}
	nb := make([]byte, 2*len(lc.buf))
	lc.w = copy(nb, lc.buf[:lc.w])
	lc.buf = nb
	return nil
}

// respParser reads one response from a leanConn's buffer, incrementally.
type respParser struct {
	state      int
	head       bool // the request was HEAD
	retain     bool // keep the body
	snip       bool // keep the start of the body (a failure's, for its message)
	wantServer bool
	code       int
	close      bool  // the connection ends after this response
	left       int64 // body or chunk bytes to come
	n          int64 // body bytes
	started    bool  // a byte of this response arrived
	body       []byte
	server     []byte
}

const (
	stHead = iota
	stLength
	stChunkSize
	stChunkData
	stChunkEnd
	stTrailer
	stUntilClose
	stDone
)

func (p *respParser) reset(head, retain, wantServer bool) {
	p.state, p.head, p.retain, p.wantServer = stHead, head, retain, wantServer
	p.code, p.close, p.left, p.n, p.started = 0, false, 0, 0, false
	p.body = p.body[:0]
}

var (
	errLeanClosed = fmt.Errorf("the server closed the connection before answering: %w", io.EOF)
	errLeanShort  = fmt.Errorf("the server closed the connection in the middle of a response: %w", io.ErrUnexpectedEOF)
)

// eof ends the response at the end of the stream.
func (p *respParser) eof() error {
	switch {
	case p.state == stUntilClose:
		p.state = stDone
		return nil
	case p.state == stHead && !p.started:
		return errLeanClosed
	}
	return errLeanShort
}

// parse consumes what it can of lc.buf[lc.r:lc.w] and reports whether the
// response is complete.
func (p *respParser) parse(lc *leanConn) (bool, error) {
	p.started = true
	for {
		b := lc.buf[lc.r:lc.w]
		switch p.state {
		case stHead:
			end, err := p.header(b)
			if err != nil || end < 0 {
				return false, err
			}
			lc.r += end
		case stLength, stChunkData:
			k := min(p.left, int64(len(b)))
			p.consume(b[:k])
			lc.r += int(k)
			if p.left -= k; p.left > 0 {
				return false, nil
			}
			if p.state == stLength {
				p.state = stDone
			} else {
				p.state = stChunkEnd
			}
		case stUntilClose:
			p.consume(b)
			lc.r = lc.w
			return false, nil
		case stChunkSize, stChunkEnd, stTrailer:
			i := bytes.IndexByte(b, '\n')
			if i < 0 {
				return false, nil
			}
			line := trimCR(b[:i])
			lc.r += i + 1
			switch p.state {
			case stChunkEnd:
				if len(line) > 0 {
					return false, errors.New("malformed response: no CRLF after a chunk")
				}
				p.state = stChunkSize
			case stTrailer:
				if len(line) == 0 {
					p.state = stDone
				}
			default:
				size, err := chunkSize(line)
				if err != nil {
					return false, err
				}
				if size == 0 {
					p.state = stTrailer
				} else {
					p.left, p.state = size, stChunkData
				}
			}
		case stDone:
			return true, nil
		}
	}
}

func (p *respParser) consume(b []byte) {
	p.n += int64(len(b))
	if p.retain {
		p.body = append(p.body, b...)
	} else if p.snip && len(p.body) < snipMax {
		p.body = append(p.body, b[:min(len(b), snipMax-len(p.body))]...)
	}
}

// snipMax is how much of a non-2xx response's body the lean path keeps
// for the failure's message (BodyText quotes less of it).
const snipMax = 2048

// header reads a response head from b: the status line and the headers
// up to the empty line, in one pass over the lines. It returns the bytes
// the head took, or -1 when b does not hold all of it yet. Only
// Content-Length, Transfer-Encoding, Connection and Server are looked at;
// other lines are skipped by their first letter.
func (p *respParser) header(b []byte) (int, error) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return -1, nil
	}
	status := trimCR(b[:i])
	pos := i + 1
	// HTTP/1.x NNN reason
	if len(status) < 12 || string(status[:7]) != "HTTP/1." || status[8] != ' ' ||
		(len(status) > 12 && status[12] != ' ') {
		return 0, fmt.Errorf("malformed response: status line %s", Quote(string(status)))
	}
	code := 0
	for _, c := range status[9:12] {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("malformed response: status line %s", Quote(string(status)))
		}
		code = code*10 + int(c-'0')
	}
	http10 := status[7] == '0'
	close := http10
	length := int64(-1)
	chunked := false
	for {
		i := bytes.IndexByte(b[pos:], '\n')
		if i < 0 {
			return -1, nil
		}
		line := trimCR(b[pos : pos+i])
		pos += i + 1
		if len(line) == 0 {
			break
		}
		switch line[0] | 0x20 {
		case 'c', 't', 's':
		default:
			continue
		}
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 {
			return 0, fmt.Errorf("malformed response: header line %s", Quote(string(line)))
		}
		name, value := line[:colon], trimSpace(line[colon+1:])
		switch len(name) {
		case 14:
			if asciiEqualFold(name, "content-length") {
				if length = parseLength(value); length < 0 {
					return 0, fmt.Errorf("malformed response: Content-Length %s", Quote(string(value)))
				}
			}
		case 17:
			if asciiEqualFold(name, "transfer-encoding") && hasToken(value, "chunked") {
				chunked = true
			}
		case 10:
			if asciiEqualFold(name, "connection") {
				if hasToken(value, "close") {
					close = true
				} else if http10 && hasToken(value, "keep-alive") {
					close = false
				}
			}
		case 6:
			if p.wantServer && asciiEqualFold(name, "server") {
				p.server = append(p.server[:0], value...)
			}
		}
	}
	p.code, p.close = code, close
	// A server says why it refused in the body: kept for the message, and
	// only for such responses, which cost the copy.
	p.snip = code < 200 || code >= 300
	switch {
	case code >= 100 && code < 200 && code != 101:
		// An interim response (100 Continue): the real one follows.
		p.close = false
		p.state = stHead
	case code == 101:
		return 0, errors.New("the server switched protocols (101); kurabe speaks HTTP/1.1 only")
	case p.head || code == 204 || code == 304:
		p.state = stDone
	case chunked:
		p.state = stChunkSize
	case length == 0:
		p.state = stDone
	case length > 0:
		p.state, p.left = stLength, length
	default:
		p.state, p.close = stUntilClose, true
	}
	return pos, nil
}

// parseLength parses a Content-Length, or returns -1.
func parseLength(v []byte) int64 {
	if len(v) == 0 || len(v) > 18 {
		return -1
	}
	var n int64
	for _, c := range v {
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int64(c-'0')
	}
	return n
}

func trimCR(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] == '\r' {
		return b[:len(b)-1]
	}
	return b
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

func chunkSize(line []byte) (int64, error) {
	if i := bytes.IndexByte(line, ';'); i >= 0 {
		line = line[:i]
	}
	line = trimSpace(line)
	if len(line) == 0 || len(line) > 15 {
		return 0, fmt.Errorf("malformed response: chunk size %s", Quote(string(line)))
	}
	var n int64
	for _, c := range line {
		switch {
		case c >= '0' && c <= '9':
			n = n<<4 | int64(c-'0')
		case c >= 'a' && c <= 'f':
			n = n<<4 | int64(c-'a'+10)
		case c >= 'A' && c <= 'F':
			n = n<<4 | int64(c-'A'+10)
		default:
			return 0, fmt.Errorf("malformed response: chunk size %s", Quote(string(line)))
		}
	}
	return n, nil
}

// asciiEqualFold compares b with lower, a lower-case ASCII name.
func asciiEqualFold(b []byte, lower string) bool {
	if len(b) != len(lower) {
		return false
	}
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// hasToken reports whether a comma-separated header value lists tok.
func hasToken(v []byte, tok string) bool {
	for len(v) > 0 {
		var t []byte
		if i := bytes.IndexByte(v, ','); i >= 0 {
			t, v = v[:i], v[i+1:]
		} else {
			t, v = v, nil
		}
		if asciiEqualFold(trimSpace(t), tok) {
			return true
		}
	}
	return false
}
