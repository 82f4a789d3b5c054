package httpload

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"

	"kurabe/flow"
	"kurabe/redact"
	"kurabe/store"
	"kurabe/workload"
)

// client is one simulated user: its connections (the session), its
// Request and Response, reused for every request, its flow variables and
// scratch buffers, and its counts.
type client struct {
	w    *Workload
	sess *session
	rng  *rand.Rand
	id   int
	req  *fasthttp.Request
	resp *fasthttp.Response
	next int // round robin: the next URL
	cur  int // the URL the request is set up for, or -1
	st   *flow.State
	buf  []byte // rendering scratch
	esc  []byte // a rendered URL, percent-encoded where it must be
	errs []cachedErr
	// backoff is the pause after a request that could not connect,
	// doubled on each such request up to maxBackoff, 0 after a response.
	backoff time.Duration
	// lag is how far behind its scheduled start the current operation
	// began, in an open loop (Lag); 0 in a closed loop.
	lag time.Duration
	// took is the time of the last request that got a response, for
	// its row once it has succeeded.
	took time.Duration

	stats clientStats
}

// cachedErr is an error returned before for the same target and outcome.
// The engine keeps only the first message of each class, so a failing
// server costs no allocation per request.
type cachedErr struct {
	target int
	key    int // a status code, or one of the keys below
	err    error
}

const (
	keyExpectStatus = 1000 // + status
	keyExpectBody   = -1
	keyExpectLength = -2
	keyTimeout      = -3
	keyConnect      = -4
	keyClosed       = -5
	keyOther        = -6
	keyExtract      = -100 // - extraction index
)

func newClient(w *Workload, s *session, rng *rand.Rand) *client {
	c := &client{w: w, sess: s, rng: rng, req: &fasthttp.Request{}, resp: &fasthttp.Response{}, cur: -1}
	c.stats = newClientStats(w.numTargets(), w.detailed)
	if w.cfg.Flow != nil {
		c.st = w.cfg.Flow.NewState(rng)
	}
	return c
}

// Do sends one request, or runs one iteration of the flow. The response
// body's bytes are what it read.
func (c *client) Do(context.Context, int) (workload.Done, error) {
	n, err := c.request()
	return workload.Done{Read: n}, err
}

func (c *client) request() (int64, error) {
	if c.st != nil {
		return c.iterate()
	}
	ti := c.next
	if c.w.cfg.Random {
		ti = c.rng.IntN(len(c.w.targets))
	} else if c.next++; c.next == len(c.w.targets) {
		c.next = 0
	}
	if c.w.lean != nil {
		return c.sendLean(ti)
	}
	if ti != c.cur {
		c.prepare(ti)
	}
	t := &c.w.targets[ti]
	return c.send(ti, t.origin, &c.w.cfg.Expect)
}

// Lag is the engine's word, in an open loop, of how late the next
// operation starts behind its timetable: the rows per URL or step add it
// to each request's time, so that they too run from the scheduled start
// (workload.Lagger).
func (c *client) Lag(d time.Duration) { c.lag = max(d, 0) }

// prepare sets the request up for URL ti. With one URL this happens once.
func (c *client) prepare(ti int) {
	t := &c.w.targets[ti]
	r := c.req
	r.Reset()
	r.Header.SetMethod(t.Method)
	r.SetRequestURI(t.URL)
	if t.Body != nil {
		r.SetBodyRaw(t.Body)
		if t.ContentType != "" {
			r.Header.SetContentType(t.ContentType)
		}
	}
	for _, h := range c.w.cfg.Headers {
		r.Header.Set(h.Name, h.Value)
	}
	if c.w.cfg.Close {
		r.SetConnectionClose()
	}
	c.cur = ti
}

// iterate runs the flow's steps in order. A failed step ends the
// iteration, except for steps marked always whose variables are set.
func (c *client) iterate() (int64, error) {
	f := c.w.cfg.Flow
	st := c.st
	st.Begin()
	var n int64
	var first error
	for i := range f.Steps {
		s := &f.Steps[i]
		if first != nil && !s.Always {
			continue
		}
		st.Draw(s.Vars)
		if !st.Ready(s) {
			continue
		}
		c.build(i, s)
		b, err := c.send(i, c.w.stepOrig[i], &s.Expect)
		n += b
		if err == nil && len(s.Extract) > 0 {
			if e := st.Extract(s, c); e != nil {
				c.stats.failed++
				c.stats.targets[i].failed++
				c.stats.failedTotal.Record(int64(c.took))
				err = c.extractErr(i, s, e)
			}
		}
		if err == nil {
			c.succeeded(i)
		}
		if err != nil && first == nil {
			first = err
		}
	}
	return n, first
}

// build renders step i's request into the client's Request.
func (c *client) build(i int, s *flow.Step) {
	r := c.req
	r.Reset()
	r.Header.SetMethod(s.Method)
	c.buf = s.URL.Append(c.buf[:0], c.st)
	r.SetRequestURIBytes(c.escaped(c.buf))
	if c.w.ownAuth[i] {
		// The step's Authorization wins over the base's user:password,
		// which fasthttp would write over it.
		u := r.URI()
		u.SetUsernameBytes(nil)
		u.SetPasswordBytes(nil)
	}
	for _, h := range c.w.cfg.Headers {
		r.Header.Set(h.Name, h.Value)
	}
	for i := range s.Headers {
		h := &s.Headers[i]
		c.buf = h.Value.Append(c.buf[:0], c.st)
		r.Header.SetBytesV(h.Name, c.buf)
	}
	if len(s.Body.String()) > 0 {
		// The body is copied into the request's own buffer.
		c.buf = s.Body.Append(c.buf[:0], c.st)
		r.SetBody(c.buf)
	}
	if c.w.cfg.Close {
		r.SetConnectionClose()
	}
}

// escaped returns the rendered URL u, percent-encoded where a request
// line cannot carry it as it is (a variable's value with a space, drawn
// without |url): one pass over the URL, and a copy only when needed.
func (c *client) escaped(u []byte) []byte {
	start := urlPathStart(u)
	for i := start; i < len(u); i++ {
		if mustEscape(u, i) {
			c.esc = appendEscaped(c.esc[:0], u, start)
			return c.esc
		}
	}
	return u
}

// Body and Header let flow extractions read the response.
func (c *client) Body() []byte { return c.resp.Body() }

func (c *client) Header(name string) []byte { return c.resp.Header.Peek(name) }

// send sends the prepared request, records its phases and checks the
// response. ti is the URL or step.
func (c *client) send(ti, origin int, exp *flow.Expect) (int64, error) {
	tm := &c.sess.tm
	tm.begin()
	t0 := tm.since()
	c.sess.busy.Store(int64(t0) + 1)
	dials, resent := tm.dials, tm.resent
	idle := t0 - c.sess.last[origin]
	tm.probe = idle >= idleProbe
	err := c.sess.hosts[origin].Do(c.req, c.resp)
	if tm.dials == dials && c.sess.busy.Load() != killed {
		// The request went out on a kept-alive connection: send it again
		// on a new one when the server had closed that one (see
		// leanConn.roundTrip for the rule). fasthttp has closed the old
		// connection, so Do dials.
		unanswered := err != nil && tm.firstByte < 0 && unanswered(err)
		again := true
		switch {
		case unanswered && (tm.idleClosed || tm.sent == 0):
			tm.reconnects++
		case unanswered && idle >= resendIdle && c.idempotent():
			tm.resent++
		default:
			again = false
		}
		if again {
			tm.writeStart, tm.firstByte, tm.awaiting, tm.sent, tm.idleClosed = -1, -1, false, 0, false
			err = c.sess.hosts[origin].Do(c.req, c.resp)
		}
	}
	t1 := tm.since()
	c.sess.last[origin] = t1
	if c.sess.busy.Swap(0) == killed {
		err = c.killed(func() { c.sess.hosts[origin].CloseIdleConnections() }, err)
	}
	bodyOut := int64(len(c.req.Body())) * (1 + tm.resent - resent)
	if err != nil {
		return 0, c.failed(ti, bodyOut, err)
	}
	if c.stats.server == nil {
		c.setServer(c.resp.Header.Peek("Server"))
	}
	body := c.resp.Body()
	return c.record(ti, exp, t0, t1, bodyOut, c.resp.StatusCode(), int64(len(body)), body)
}

// sendLean sends URL ti's request on the lean path (lean.go).
func (c *client) sendLean(ti int) (int64, error) {
	t := &c.w.targets[ti]
	req := &c.w.lean[ti]
	exp := &c.w.cfg.Expect
	lc := c.sess.lean[t.origin]
	tm := &c.sess.tm
	tm.begin()
	t0 := tm.since()
	c.sess.busy.Store(int64(t0) + 1)
	c.sess.wantServer = c.stats.server == nil
	resent := tm.resent
	err := lc.roundTrip(req, exp.Body != nil, t0)
	t1 := tm.since()
	lc.last = t1
	if c.sess.busy.Swap(0) == killed {
		err = c.killed(lc.close, err)
	}
	bodyOut := int64(req.body) * (1 + tm.resent - resent)
	if err != nil {
		return 0, c.failed(ti, bodyOut, err)
	}
	p := &lc.p
	if c.stats.server == nil {
		c.setServer(p.server)
	}
	return c.record(ti, exp, t0, t1, bodyOut, p.code, p.n, p.body)
}

func (c *client) setServer(v []byte) {
	c.stats.server = append([]byte{}, v...)
}

// idleProbe and resendIdle are how long a kept-alive connection must
// have sat idle, from the end of its last response to the next request,
// before that request checks whether the server closed it (a peek at the
// socket, one system call, which a busy connection is spared), and before
// a request written on it that then found it closed unanswered may be
// sent again (idempotent methods only): idle timeouts of servers in common
// use are a second or more (Node and Apache 5 s, nginx 75 s), so a close
// on a connection busy within the last 100 ms is a server dropping the
// request, not a timeout crossing it.
const (
	idleProbe  = time.Millisecond
	resendIdle = 100 * time.Millisecond
)

// idempotent reports whether a request of method may be sent twice, as
// Go's net/http decides it: GET, HEAD, OPTIONS and TRACE, or any request
// that carries an Idempotency-Key (or X-Idempotency-Key) header. PUT and
// DELETE are idempotent by the HTTP specification but not always in a
// server's code; net/http does not resend them either.
func idempotent(method string, key bool) bool {
	switch method {
	case "GET", "HEAD", "OPTIONS", "TRACE":
		return true
	}
	return key
}

// idempotent reports whether the client's prepared request may be sent
// twice.
func (c *client) idempotent() bool {
	h := &c.req.Header
	return idempotent(string(h.Method()), h.Peek("Idempotency-Key") != nil || h.Peek("X-Idempotency-Key") != nil)
}

// unanswered reports whether fasthttp failed a request because the
// connection was closed before any byte of the response: fasthttp turns
// any error on the first byte into ErrConnectionClosed; a write to a
// closed connection fails with EPIPE or ECONNRESET.
func unanswered(err error) bool {
	return errors.Is(err, fasthttp.ErrConnectionClosed) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET)
}

// maxBackoff is the longest pause after a failed connect.
const maxBackoff = 100 * time.Millisecond

// failed counts a request that got no response and returns its error.
// After a request that could not connect (nothing listening, a failed TLS
// handshake), the client pauses before its next, from 1 ms doubling to
// 100 ms while connecting keeps failing: without it, a refused connect
// returns at once and each client would spin through tens of thousands
// of failures a second at a full core. Every such request still counts
// as a failure; the pause ends with the next response.
func (c *client) failed(ti int, bodyOut int64, err error) error {
	s := &c.stats
	ts := &s.targets[ti]
	s.requests++
	ts.requests++
	s.bodyOut += bodyOut
	s.failed++
	ts.failed++
	_, refused := errors.AsType[*dialError](err) // a generic As: nothing escapes
	err = c.transportErr(ti, err)
	if refused {
		c.backoff = min(max(2*c.backoff, time.Millisecond), maxBackoff)
		time.Sleep(c.backoff)
	}
	return err
}

// record counts a request that got a response of n body bytes (body
// holds them when an expectation needs them), records its phases from
// the session's timing and checks the response against exp.
func (c *client) record(ti int, exp *flow.Expect, t0, t1 time.Duration, bodyOut int64, code int, n int64, body []byte) (int64, error) {
	tm := &c.sess.tm
	s := &c.stats
	ts := &s.targets[ti]
	c.backoff = 0
	s.requests++
	ts.requests++
	s.bodyOut += bodyOut
	s.responses++
	total := t1 - t0
	if conn := tm.connect + tm.tls; conn > 0 {
		// ab's Connect is the TCP connect and the TLS handshake; the
		// connect phase alone is the dial, the handshake counted apart.
		s.total.Record(int64(total))
		s.connect.Record(int64(conn))
		s.processing.Record(int64(total - conn))
	} else {
		// On a kept-alive connection processing is the total and connect
		// is 0: one histogram and a count instead of three histograms,
		// merged in Stats.
		s.kept.Record(int64(total))
		s.noConnect++
	}
	if tm.writeStart >= 0 {
		s.write.add(tm.writeEnd - tm.writeStart)
		if tm.firstByte >= tm.writeEnd {
			s.waiting.Record(int64(tm.firstByte - tm.writeEnd))
			s.read.add(t1 - tm.firstByte)
		}
	}
	if code >= 100 && code < 600 {
		s.status[code]++
	} else {
		s.status[0]++
	}
	s.bodyIn += n
	s.length.add(n)
	ts.length.add(n)
	ok2xx := code >= 200 && code < 300
	if !ok2xx {
		s.non2xx++
	}
	var key int
	switch {
	case !exp.StatusOK(code) && !ok2xx:
		key = code
	case !exp.StatusOK(code):
		key = keyExpectStatus + code
	case exp.HasLength && n != exp.Length:
		key = keyExpectLength
	case exp.Body != nil && !exp.Body.Match(body):
		key = keyExpectBody
	default:
		c.took = total
		if c.st == nil {
			c.succeeded(ti)
		}
		return n, nil
	}
	s.failed++
	ts.failed++
	s.failedTotal.Record(int64(total))
	return n, c.responseErr(ti, key, code, n, exp, body)
}

// succeeded records the latency of URL or step ti's request that just
// succeeded (in a flow, once its extractions did too) into its row: the
// rows, like the percentiles, hold successful requests only, so a URL
// whose every request failed shows no latency rather than its failures'.
// The row's latency runs from the scheduled start in an open loop: a
// request, or each request of a flow's pass, that waited behind the
// timetable is charged for the wait, as the engine charges the operation.
func (c *client) succeeded(ti int) {
	ts := &c.stats.targets[ti]
	d := c.took + c.lag
	ts.lat.add(d)
	if ts.rec != nil {
		ts.rec.Record(int64(d))
	}
}

// cached returns the error stored for (ti, key), or nil.
func (c *client) cached(ti, key int) error {
	for i := range c.errs {
		if e := &c.errs[i]; e.target == ti && e.key == key {
			return e.err
		}
	}
	return nil
}

// keep makes the error of a class, with its message scrubbed of secrets,
// and caches it for (ti, key).
func (c *client) keep(ti, key int, class, msg string) error {
	if c.w.cfg.Flow != nil {
		class = c.w.cfg.Flow.Steps[ti].Name + ": " + class
	}
	err := &store.ClassError{Class: class, Err: errors.New(c.scrub(ti, msg))}
	c.errs = append(c.errs, cachedErr{target: ti, key: key, err: err})
	return err
}

// scrub hides in a message what must not be recorded or printed (see
// redact.go): URL passwords and secret query parameters, the values of
// secret headers, and in a flow the current values of variables named
// like secrets and of the step's secret headers as rendered. It runs once
// per error class and client, when the message is made.
func (c *client) scrub(ti int, msg string) string {
	msg = redact.Secrets(RedactText(msg), c.w.secrets)
	if c.st == nil {
		return msg
	}
	var vals []string
	for _, name := range c.w.secretVars {
		if v, ok := c.st.Value(name); ok {
			vals = append(vals, v)
		}
	}
	if c.w.secretHeaders {
		s := &c.w.cfg.Flow.Steps[ti]
		for i := range s.Headers {
			if h := &s.Headers[i]; SecretName(h.Name) {
				vals = headerSecrets(vals, string(h.Value.Append(nil, c.st)))
			}
		}
	}
	return redact.Secrets(msg, vals)
}

// bodyQuote is how many characters of a body a message quotes.
const bodyQuote = 200

// what names the request for messages.
func (c *client) what(ti int) string {
	if f := c.w.cfg.Flow; f != nil {
		s := &f.Steps[ti]
		return fmt.Sprintf("%s (%s %s)", flow.StepLabel(s.Name), s.Method, c.req.URI().FullURI())
	}
	return c.w.targets[ti].name
}

// responseErr makes the error of a response that failed. A status's
// quotes the start of the body (body, which may hold only its start),
// where a server says why ("400 Bad Request: {"error": "limit must be
// 1 or more"}"): on one line, cut, and scrubbed before it is cut so that
// the cut cannot leave a piece of a secret.
func (c *client) responseErr(ti, key, code int, n int64, exp *flow.Expect, body []byte) error {
	if err := c.cached(ti, key); err != nil {
		return err
	}
	status := strconv.Itoa(code)
	switch key {
	case keyExpectLength:
		return c.keep(ti, key, "expect-length", fmt.Sprintf("%s: body of %d bytes, want %d (--expect-length)", c.what(ti), n, exp.Length))
	case keyExpectBody:
		// The start of the body says why, often: an empty page
		// ({"total":2000,"offset":5421,"items":[],"count":0}) shows an
		// offset beyond the records served.
		msg := fmt.Sprintf("%s: body does not match %q", c.what(ti), exp.Body.String())
		if text := BodyText([]byte(c.scrub(ti, string(body[:min(len(body), snipMax)]))), bodyQuote); text != "" {
			msg += ": " + text
		}
		return c.keep(ti, key, "expect-body", msg)
	case keyExpectStatus + code:
		return c.keep(ti, key, "expect-status "+status, fmt.Sprintf("%s: status %d %s, want %v", c.what(ti), code, fasthttp.StatusMessage(code), exp.Status))
	}
	msg := fmt.Sprintf("%s: %d %s", c.what(ti), code, fasthttp.StatusMessage(code))
	if text := BodyText([]byte(c.scrub(ti, string(body[:min(len(body), snipMax)]))), bodyQuote); text != "" {
		msg += ": " + text
	}
	return c.keep(ti, key, "http "+status, msg)
}

func (c *client) extractErr(ti int, s *flow.Step, e *flow.Extract) error {
	key := keyExtract
	for i := range s.Extract {
		if &s.Extract[i] == e {
			key -= i
		}
	}
	if err := c.cached(ti, key); err != nil {
		return err
	}
	return c.keep(ti, key, "extract "+e.Name, fmt.Sprintf("%s: found no %s for {{%s}} in the response", c.what(ti), e.Source(), e.Name))
}

// killed handles a request whose connection the watchdog closed. Once
// the watchdog is done (its lock is free), every connection of the
// session is gone, and drop forgets the closed one; a response that was
// complete all the same stands.
func (c *client) killed(drop func(), err error) error {
	c.sess.connsMu.Lock()
	c.sess.connsMu.Unlock()
	drop()
	if err == nil {
		return nil
	}
	return c.w.timedOut
}

// timeoutError is a request the watchdog ended: no complete response
// within the timeout (-s). It is a net.Error whose Timeout is true.
type timeoutError struct{ d time.Duration }

func (e *timeoutError) Error() string {
	return "no response within the timeout of " + e.d.String() + " (-s)"
}
func (e *timeoutError) Timeout() bool   { return true }
func (e *timeoutError) Temporary() bool { return true }

// transportErr classifies a request that got no response.
func (c *client) transportErr(ti int, err error) error {
	var de *dialError
	var ne net.Error
	key, class := keyOther, "error"
	switch {
	case errors.As(err, &de):
		key, class = keyConnect, "connect"
	case errors.Is(err, fasthttp.ErrTimeout) || errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		key, class = keyTimeout, "timeout"
	case errors.Is(err, fasthttp.ErrConnectionClosed):
		// fasthttp's message advises on the server's headers; say what
		// happened, as the lean client does.
		key, class, err = keyClosed, "closed", errLeanClosed
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE):
		key, class = keyClosed, "closed"
	}
	if e := c.cached(ti, key); e != nil {
		return e
	}
	return c.keep(ti, key, class, fmt.Sprintf("%s: %v", c.what(ti), err))
}
