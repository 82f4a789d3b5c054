// Package httpstore is a kurabe store that speaks the message-board API of
// kurabe serve over HTTP (docs/serve.md): POST /posts, GET /posts, GET
// /posts?limit=N, GET /posts/count. With it, `kurabe run --store
// http://127.0.0.1:3001` runs the bbs workload, with the same verification
// of acknowledged writes, against any service that implements the API: a
// user's own PHP, Perl or Node application, or kurabe serve in front of any
// store kurabe has.
//
// The service owns its table. Setup only checks that the service answers
// GET /posts/count and drops nothing; Count asks the service. So the
// workload's verification compares the writes the service acknowledged
// with the rows it reports, and a service that acknowledges and drops a
// write is reported LOST. Only the bbs table posts exists in the API.
//
// Each session owns an http.Transport with at most one connection, kept
// alive between operations as a browser or a load tool would (keepalive=0
// opens a new connection for every request, and the engine reports the
// time spent connecting apart, as for connect=per-op of SQLite). Response
// bodies are read into a buffer the session keeps, and parsed in place
// without reflection: on 100 posts, about 9 times faster than
// encoding/json into structs and without its ~200 allocations (see
// BenchmarkDecode). net/http's client itself allocates about 50 times per
// request; a hand-written HTTP/1.1 client would save that, at the price of
// handling chunked bodies and connection reuse for every service kurabe
// may meet, and is left for when kurabe http has one to share.
package httpstore

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"kurabe/httpload"
	"kurabe/redact"
	"kurabe/store"
	"kurabe/workload/bbs"
)

// Store is a BBS service reached over HTTP.
type Store struct {
	scheme    string // http or https
	base      string // scheme://host[:port][/prefix], without credentials or a trailing slash
	user      *url.Userinfo
	secrets   []string // what messages must not show: the password, and the credentials as sent
	longest   int      // the longest of secrets
	keepAlive bool
	timeout   time.Duration
	tls       *tls.Config

	postsURL, countURL, rootURL string

	mu     sync.Mutex // guards admin and server
	admin  *conn      // for Setup, Count and Info, apart from the clients'
	server string     // the Server header last seen
}

// Open opens an HTTP store from a spec such as
// http://127.0.0.1:3001 or https://user:pass@example.org/bbs?keepalive=0.
// Options: keepalive=1 (default) or 0, and timeout (per request, default
// 30s). Nothing is sent until Setup.
func Open(ctx context.Context, spec store.Spec, env store.Env) (store.Store, error) {
	return open(spec, nil)
}

// open is Open with a TLS configuration, which tests use to trust their
// own certificate.
func open(spec store.Spec, tc *tls.Config) (*Store, error) {
	if spec.Driver != "http" && spec.Driver != "https" {
		return nil, fmt.Errorf("http: driver %q: want http or https", spec.Driver)
	}
	o := store.NewOptions(spec)
	ka := o.Get("keepalive", "1")
	to := o.Get("timeout", "30s")
	if err := o.Check(); err != nil {
		return nil, err
	}
	s := &Store{scheme: spec.Driver, tls: tc}
	switch ka {
	case "1":
		s.keepAlive = true
	case "0":
	default:
		return nil, &store.OptionError{Driver: spec.Driver, Name: "keepalive", Value: ka, Want: "1 (one kept-alive connection per client) or 0 (a new connection for every request)"}
	}
	d, err := time.ParseDuration(to)
	if err != nil || d <= 0 {
		return nil, &store.OptionError{Driver: spec.Driver, Name: "timeout", Value: to, Want: "a positive duration such as 30s"}
	}
	s.timeout = d
	example := spec.Driver + "://127.0.0.1:3001"
	if !strings.HasPrefix(spec.Target, "//") {
		return nil, fmt.Errorf("%s: target %s: want //HOST:PORT[/PREFIX], e.g. %s", spec.Driver, store.RedactTarget(spec.Target), example)
	}
	u, err := url.Parse(spec.Driver + ":" + spec.Target)
	if err != nil || u.Host == "" || u.Fragment != "" {
		// The target is shown without its password, and what is wrong
		// said without quoting it (url's message would).
		what := ""
		if err != nil {
			if w := store.AddressProblem(spec.Target); w != "" {
				what = " (" + w + ")"
			}
		}
		return nil, fmt.Errorf("%s: target %s is not an address such as %s%s", spec.Driver, store.RedactTarget(spec.Target), example, what)
	}
	s.user = u.User
	s.secrets = httpload.UserSecrets(nil, u.User)
	for _, v := range s.secrets {
		s.longest = max(s.longest, len(v))
	}
	s.base = spec.Driver + "://" + u.Host + strings.TrimRight(u.EscapedPath(), "/")
	s.postsURL, s.countURL, s.rootURL = s.base+"/posts", s.base+"/posts/count", s.base+"/"
	s.admin = s.newConn()
	return s, nil
}

// conn is one HTTP client with at most one connection, and the buffers of
// the responses it reads.
type conn struct {
	st      *Store
	hc      *http.Client
	tr      *http.Transport
	body    []byte       // the last response's body
	connect atomic.Int64 // ns spent connecting since ConnectTime last asked
	formCap int          // size of the last form sent, to size the next
}

func (s *Store) newConn() *conn {
	c := &conn{st: s, body: make([]byte, 0, 4096)}
	d := &net.Dialer{Timeout: s.timeout, KeepAlive: 30 * time.Second}
	c.tr = &http.Transport{
		Proxy:               nil, // measure the service, not a proxy the environment names
		DisableKeepAlives:   !s.keepAlive,
		MaxIdleConns:        1,
		MaxIdleConnsPerHost: 1,
		MaxConnsPerHost:     1,
		// Bodies are read as the service sends them, like ab; gzip would
		// cost CPU on both sides and hide the transfer size.
		DisableCompression: true,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			t0 := time.Now()
			nc, err := d.DialContext(ctx, network, addr)
			c.connect.Add(int64(time.Since(t0)))
			return nc, err
		},
	}
	if s.scheme == "https" {
		// The TLS handshake is part of connecting: do it here to time it.
		c.tr.DialTLSContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			t0 := time.Now()
			defer func() { c.connect.Add(int64(time.Since(t0))) }()
			nc, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			cfg := &tls.Config{}
			if s.tls != nil {
				cfg = s.tls.Clone()
			}
			if cfg.ServerName == "" {
				cfg.ServerName, _, _ = net.SplitHostPort(addr)
			}
			tc := tls.Client(nc, cfg)
			if err := tc.HandshakeContext(ctx); err != nil {
				nc.Close()
				return nil, err
			}
			return tc, nil
		}
	}
	c.hc = &http.Client{
		Transport: c.tr,
		Timeout:   s.timeout,
		// A redirect is an answer of its own: following it would add a
		// request to the operation. The API answers 2xx.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return c
}

const formType = "application/x-www-form-urlencoded"

// do sends one request and reads the whole response body into c.body. It
// returns an error for a failed request and for a status other than 2xx.
func (c *conn) do(ctx context.Context, method, u string, form []byte) (http.Header, error) {
	var body io.Reader
	if form != nil {
		body = bytes.NewReader(form)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return nil, fmt.Errorf("http: %s %s: %w", method, u, err)
	}
	if form != nil {
		req.Header["Content-Type"] = formTypeHeader
	}
	if c.st.user != nil {
		pw, _ := c.st.user.Password()
		req.SetBasicAuth(c.st.user.Username(), pw)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, classifyNet(method, u, err)
	}
	c.body, err = readBody(c.body[:0], resp.Body, resp.ContentLength)
	resp.Body.Close()
	if err != nil {
		return resp.Header, classifyNet(method, u, err)
	}
	if resp.StatusCode/100 != 2 {
		return resp.Header, c.st.statusError(method, u, resp.StatusCode, c.body)
	}
	return resp.Header, nil
}

var formTypeHeader = []string{formType}

// readBody appends r to buf, growing it to n first when the length is
// known.
func readBody(buf []byte, r io.Reader, n int64) ([]byte, error) {
	if n > 0 && n < 1<<30 && int64(cap(buf)) < n+1 {
		buf = slices.Grow(buf, int(n)+1)
	}
	for {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, cap(buf)+1)
		}
		k, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+k]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

func (c *conn) close() { c.tr.CloseIdleConnections() }

// statusError is a non-2xx answer, classed "http CODE" so the error
// breakdown counts each status apart. It quotes the start of the body,
// where a service says why, on one line and without the credentials (an
// error page may echo the request's Authorization header).
func (s *Store) statusError(method, u string, code int, body []byte) error {
	msg := fmt.Sprintf("http: %s %s: %d %s", method, u, code, http.StatusText(code))
	// Scrubbed before it is cut, so that the cut cannot leave a piece of
	// a credential; the window holds more than the 200 characters kept.
	window := body[:min(len(body), 1024+s.longest)]
	if text := httpload.BodyText([]byte(s.scrub(string(window))), 200); text != "" {
		msg += ": " + text
	}
	return &store.ClassError{Class: "http " + strconv.Itoa(code), Err: errors.New(msg)}
}

// badResponse is an answer that is not the API's, classed "bad-response",
// with parse's error on body. The message quotes a piece of the body:
// when the body holds a credential (a service that echoes the request),
// it is parsed again with the credentials replaced, so that the piece
// cannot show a part of one.
func (s *Store) badResponse(method, u string, body []byte, err error, parse func([]byte) error) error {
	if len(s.secrets) > 0 { // else nothing to hide, and no copy of a body that may be large
		if clean := s.scrub(string(body)); clean != string(body) {
			if e := parse([]byte(clean)); e != nil {
				err = e
			}
		}
	}
	return &store.ClassError{Class: "bad-response", Err: errors.New(s.scrub(fmt.Sprintf("http: %s %s: %v", method, u, err)))}
}

// scrub replaces the credentials in a message by xxxxx, as httpload does
// for kurabe http's messages (redact.Secrets).
func (s *Store) scrub(msg string) string { return redact.Secrets(msg, s.secrets) }

// classifyNet classes a failed request: "connect" when no connection could
// be made, "timeout" when the request took longer than the timeout option.
func classifyNet(method, u string, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	wrapped := fmt.Errorf("http: %s %s: %w", method, u, err)
	var oe *net.OpError
	switch {
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return wrapped
	case errors.As(err, &oe) && oe.Op == "dial":
		return &store.ClassError{Class: "connect", Err: wrapped}
	case ue != nil && ue.Timeout():
		return &store.ClassError{Class: "timeout", Err: wrapped}
	}
	return wrapped
}

// checkTable accepts only the bbs posts table, the one table of the API.
func checkTable(t *store.Table) error {
	want := bbs.Posts()
	if t.Name == want.Name && t.AutoKey == want.AutoKey && slices.Equal(t.Columns, want.Columns) {
		return nil
	}
	return fmt.Errorf("http: table %q is not part of the BBS API, which has only the bbs table posts (id, category, text, created); run the bbs workload", t.Name)
}

// Setup checks that the service answers GET /posts/count. It creates and
// drops nothing: the service owns its table.
func (s *Store) Setup(ctx context.Context, tables []*store.Table) error {
	for _, t := range tables {
		if err := checkTable(t); err != nil {
			return err
		}
	}
	if _, err := s.count(ctx); err != nil {
		return fmt.Errorf("%w; is a BBS service running at %s? Start one with kurabe serve, or see docs/serve.md for the API", err, s.base)
	}
	return nil
}

// Truncate refuses: the service owns its table, and the API has no way to
// empty it.
func (s *Store) Truncate(ctx context.Context, t *store.Table) error {
	return fmt.Errorf("http: cannot empty %s over HTTP: the service owns its table; restart it on an empty store", t.Name)
}

// Count asks the service how many posts it holds, on a connection of the
// store's own.
func (s *Store) Count(ctx context.Context, t *store.Table) (int64, error) {
	if err := checkTable(t); err != nil {
		return 0, err
	}
	return s.count(ctx)
}

func (s *Store) count(ctx context.Context) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, err := s.admin.do(ctx, http.MethodGet, s.countURL, nil)
	if err != nil {
		return 0, err
	}
	s.server = h.Get("Server")
	n, err := count(s.admin.body)
	if err != nil {
		return 0, s.badResponse(http.MethodGet, s.countURL, s.admin.body, err, func(b []byte) error { _, err := count(b); return err })
	}
	return n, nil
}

// Networked: every operation waits on the server's socket (store.Networked).
func (s *Store) Networked() {}

// Info names the service: its Server header, and what it says about
// itself at GET / when it answers JSON there (kurabe serve reports its
// mode and the store behind it).
func (s *Store) Info(ctx context.Context) store.Info {
	info := store.Info{Driver: s.scheme, Target: s.base, Options: map[string]string{
		"keepalive": map[bool]string{true: "1", false: "0"}[s.keepAlive],
		"timeout":   s.timeout.String(),
	}, Facts: map[string]string{}, TablesKept: true}
	s.mu.Lock()
	defer s.mu.Unlock()
	h, err := s.admin.do(ctx, http.MethodGet, s.rootURL, nil)
	if h != nil {
		s.server = h.Get("Server")
		if p := h.Get("X-Powered-By"); p != "" {
			info.Facts["x-powered-by"] = p
		}
	}
	info.Version = s.server
	if s.server != "" {
		info.Facts["server"] = s.server
	}
	var self struct {
		Service  string      `json:"service"`
		Version  string      `json:"version"`
		Mode     string      `json:"mode"`
		Sessions int         `json:"sessions"`
		Store    *store.Info `json:"store"`
	}
	if err == nil && json.Unmarshal(s.admin.body, &self) == nil && self.Service != "" {
		info.Version = strings.TrimSpace(self.Service + " " + self.Version)
		if self.Mode != "" {
			info.Facts["mode"] = self.Mode
		}
		if self.Sessions > 0 {
			info.Facts["sessions"] = strconv.Itoa(self.Sessions)
		}
		if b := self.Store; b != nil {
			info.Facts["backend"] = strings.Join(strings.Fields(b.Driver+" "+b.Version+" "+b.Target), " ")
			var opts []string
			for k, v := range b.Options {
				opts = append(opts, k+"="+v)
			}
			sort.Strings(opts)
			if len(opts) > 0 {
				info.Facts["backend_options"] = strings.Join(opts, " ")
			}
		}
	}
	if len(info.Facts) == 0 {
		info.Facts = nil
	}
	return info
}

// Close closes the store's own connection.
func (s *Store) Close() error {
	s.admin.close()
	return nil
}

// Open returns a session with its own HTTP client and connection. With
// keepalive=0 the session also reports the time each request spent
// connecting (store.ConnectTimer).
func (s *Store) Open(ctx context.Context) (store.Session, error) {
	ss := &session{c: s.newConn(), st: s}
	if !s.keepAlive {
		return &perRequestSession{ss}, nil
	}
	return ss, nil
}

type session struct {
	st  *Store
	c   *conn
	dec decoder
	ok  *store.Table // the last table that passed checkTable

	latestN   int // the limit latestURL was built for
	latestURL string
}

func (s *session) check(t *store.Table) error {
	if t == s.ok {
		return nil
	}
	if err := checkTable(t); err != nil {
		return err
	}
	s.ok = t
	return nil
}

// Insert posts the row's category and text as a form; the service sets id
// and created itself.
func (s *session) Insert(ctx context.Context, t *store.Table, row store.Row) error {
	if err := s.check(t); err != nil {
		return err
	}
	// A new buffer each time: the transport may still read the body of
	// the last request after answering it (http.RoundTripper's contract).
	b := make([]byte, 0, s.c.formCap)
	b = append(b, "category="...)
	b = appendQuery(b, row[1].Text)
	b = append(b, "&text="...)
	b = appendQuery(b, row[2].Text)
	s.c.formCap = len(b)
	_, err := s.c.do(ctx, http.MethodPost, s.st.postsURL, b)
	return err
}

// Scan asks for the newest N (GET /posts?limit=N, newest first) or for
// every post (GET /posts, oldest first); other queries are answered from
// every post.
func (s *session) Scan(ctx context.Context, t *store.Table, q store.Query, fn func(store.Row) error) (int, error) {
	if err := s.check(t); err != nil {
		return 0, err
	}
	if q.HasFrom || q.Offset > 0 {
		return 0, errors.New("http: the board API reads all posts or the latest N; it has no reads from a key or with an offset")
	}
	u := s.st.postsURL
	latest := q.Desc && q.Limit > 0
	if latest {
		if q.Limit != s.latestN {
			s.latestN, s.latestURL = q.Limit, s.st.postsURL+"?limit="+strconv.Itoa(q.Limit)
		}
		u = s.latestURL
	}
	if _, err := s.c.do(ctx, http.MethodGet, u, nil); err != nil {
		return 0, err
	}
	n, err := s.dec.posts(s.c.body)
	if err != nil {
		return 0, s.st.badResponse(http.MethodGet, u, s.c.body, err, func(b []byte) error { var d decoder; _, err := d.posts(b); return err })
	}
	if latest && n > q.Limit {
		return 0, &store.ClassError{Class: "bad-response", Err: fmt.Errorf("http: GET %s returned %d posts, more than the limit", u, n)}
	}
	vals := s.dec.vals
	if q.Limit > 0 && n > q.Limit {
		n = q.Limit
	}
	for i := range n {
		k := i
		if q.Desc && !latest {
			k = len(vals)/4 - 1 - i
		}
		if err := fn(store.Row(vals[k*4 : k*4+4])); err != nil {
			return i, err
		}
	}
	return n, nil
}

func (s *session) Close() error {
	s.c.close()
	return nil
}

// perRequestSession is a session with keepalive=0, which reports the time
// spent connecting.
type perRequestSession struct{ *session }

func (p *perRequestSession) ConnectTime() time.Duration {
	return time.Duration(p.c.connect.Swap(0))
}

// appendQuery appends v form-encoded, as url.QueryEscape does.
func appendQuery(b, v []byte) []byte {
	const hexDigits = "0123456789ABCDEF"
	for _, c := range v {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_', c == '.', c == '~':
			b = append(b, c)
		case c == ' ':
			b = append(b, '+')
		default:
			b = append(b, '%', hexDigits[c>>4], hexDigits[c&15])
		}
	}
	return b
}
