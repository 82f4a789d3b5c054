// Package httpload is kurabe's HTTP load: a workload whose operation is
// one HTTP request (a URL list, in turn or at random) or one iteration of a
// request flow, driven by the core engine like any other workload. The
// engine times each operation, keeps the histograms, the per-second series,
// the open loop's timetable and the errors by class; this package sends the
// requests and adds what only HTTP has: status codes, body lengths, bytes
// on the wire and each request's phases.
//
// The trade-offs:
//
//   - Requests go through fasthttp (HTTP/1.1 only), measured at 1.74× the
//     requests per second of a tuned net/http at half the CPU per request.
//     Each client owns its connection (a fasthttp.HostClient with one
//     connection per server), its Request and Response and its buffers, so
//     a request in steady state allocates nothing and takes no lock.
//   - fasthttp has no httptrace. The phases come from the connection
//     instead: the dial is timed, and the connection is wrapped so that its
//     Write and Read calls stamp when the request was written and when the
//     first byte of the response arrived. That gives connect, TLS, write,
//     wait (time to first byte) and read for every request at the cost of
//     a few clock reads, with no second client.
//   - The engine picks an operation's kind at random by weight, so a round
//     robin over URLs or the steps of a flow cannot be engine kinds: the
//     engine sees one kind (a request, or a whole flow iteration) and each
//     client records its requests per URL or step itself, into histograms
//     of the same kind (up to MaxDetailed targets; beyond that, count,
//     mean, minimum and maximum only, since a histogram is 76 KiB per
//     client and target).
//   - Non-2xx responses are failures, returned to the engine as
//     store.ClassError with class "http 503", so the engine's error
//     classes break failures down by status code. A retry would hide a
//     failure and send one request more than asked, so there are none,
//     except for a request that finds its kept-alive connection closed by
//     the server before it went out (an idle timeout): it reached no
//     server, and goes out on a new connection, counted as a reconnect;
//     and, as Go's net/http does, an idempotent request written on a
//     connection idle long enough for the server's timeout to have crossed
//     it, counted as resent (leanConn.roundTrip).
package httpload

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"

	"kurabe/flow"
	"kurabe/store"
	"kurabe/workload"
)

// MaxDetailed is the most targets (URLs or steps) that get a latency
// histogram each.
const MaxDetailed = 16

// Target is one request of a URL list.
type Target struct {
	Method      string
	URL         string
	Body        []byte
	ContentType string
	Line        int // in the URL file; 0 when given on the command line
}

// Header is a request header sent with every request.
type Header struct {
	Name, Value string
}

// Config says what to request and how.
type Config struct {
	Targets []Target   // the URL list; or
	Flow    *flow.Flow // a flow
	Random  bool       // pick URLs at random rather than in turn
	Headers []Header   // sent with every request (-H, -C, -A)
	Timeout time.Duration
	// Close asks for a new connection per request (Connection: close), as
	// ab without -k does. The default keeps connections alive.
	Close bool
	// Expect says which responses succeed; a flow step's own expect wins.
	Expect    flow.Expect
	UserAgent string
	// OpenLoop says the engine runs at a rate: the rows per URL or step
	// are then measured from the scheduled start, and even one URL gets a
	// histogram of its own (with one URL in a closed loop, its row is
	// ab's Total).
	OpenLoop bool
}

// DefaultConfig returns the defaults: 30 s timeout (ab's), keep-alive, any
// 2xx response succeeds whatever its length.
func DefaultConfig() Config {
	return Config{Timeout: 30 * time.Second, UserAgent: "kurabe"}
}

// Validate checks the configuration and says what to change.
func (c *Config) Validate() error {
	switch {
	case c.Flow == nil && len(c.Targets) == 0:
		return errors.New("no URL: give one or more URLs, -f URLFILE or --flow FLOW.yaml")
	case c.Flow != nil && len(c.Targets) > 0:
		return errors.New("give a flow or URLs, not both")
	case c.Timeout <= 0:
		return fmt.Errorf("timeout %v: want a positive duration", c.Timeout)
	}
	// What goes on the wire as written (the lean path writes headers as
	// they are) must not break the request: a CR or LF in a value would
	// start a header of its own. Values are not quoted: they may be
	// secrets.
	for _, h := range c.Headers {
		if !flow.ValidToken(h.Name) {
			return errors.New("a header name is not a token (letters, digits and !#$%&'*+-.^_`|~; no space, colon or control character)")
		}
		if !flow.ValidHeaderValue(h.Value) {
			return fmt.Errorf("header %s: the value has a control character (such as CR, LF, NUL or DEL; only a tab is allowed)", h.Name)
		}
	}
	for _, t := range c.Targets {
		if _, err := CheckURL(t.URL, false); err != nil {
			return err
		}
		if t.Method != "" && !flow.ValidToken(t.Method) {
			return fmt.Errorf("method %s is not a token (letters, digits and !#$%%&'*+-.^_`|~; no space)", Quote(t.Method))
		}
		if !flow.ValidHeaderValue(t.ContentType) {
			return fmt.Errorf("Content-Type %s has a control character", Quote(t.ContentType))
		}
	}
	return nil
}

// origin is one server, scheme://host:port.
type origin struct {
	addr  string // host:port
	https bool
	host  string // for TLS server names
}

// target is a Target ready to send.
type target struct {
	Target
	name   string
	origin int
}

// Workload is the HTTP load as a kurabe workload.
type Workload struct {
	cfg      Config
	targets  []target // URL mode
	stepOrig []int    // flow mode: origin of each step
	// ownAuth: flow mode, per step, whether the step (or -H/-A) sets an
	// Authorization header while its URL carries user:password too: the
	// header is sent, not the URL's credentials.
	ownAuth  []bool
	origins  []origin
	detailed bool
	// lean holds each target's request on the lean path (lean.go), nil
	// when requests go through fasthttp for the reason in why.
	lean   []leanRequest
	why    string
	dialer *fasthttp.TCPDialer
	tls    *tls.Config
	epoch  time.Time // clocks of all sessions are read as time since it

	// What messages must not show: the values of secret headers, and in
	// a flow the names of variables named like secrets (whose current
	// values are scrubbed) and whether a step has a secret header.
	secrets       []string
	secretVars    []string
	secretHeaders bool
	timedOut      error // a request the watchdog ended

	mu      sync.Mutex
	clients []*client

	wdMu    sync.Mutex // the timeout watchdog and the sessions it watches
	wd      *watchdog
	watched []*session
}

var _ workload.Workload = (*Workload)(nil)

// New builds the workload.
func New(cfg Config) (*Workload, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	w := &Workload{cfg: cfg, dialer: &fasthttp.TCPDialer{}, epoch: time.Now()}
	// Like ab, wrk and siege, kurabe does not verify certificates: it
	// measures servers, it does not authenticate them.
	w.tls = &tls.Config{InsecureSkipVerify: true, ClientSessionCache: tls.NewLRUClientSessionCache(0)}
	w.timedOut = &timeoutError{cfg.Timeout}
	for _, h := range cfg.Headers {
		if SecretName(h.Name) {
			w.secrets = headerSecrets(w.secrets, h.Value)
		}
		if strings.EqualFold(h.Name, "Connection") && hasToken([]byte(h.Value), "close") {
			// -H "Connection: close" is --close: a connection per request,
			// and the result says so (keep_alive false).
			w.cfg.Close = true
		}
	}
	if f := cfg.Flow; f != nil {
		// A base with user:password is sent as basic authentication.
		w.secrets = userSecrets(w.secrets, f.Base)
		if f.BaseLine > 0 {
			// The file's base, path and all, as a URL on the command line
			// is checked (one given with the command was checked there).
			if _, err := checkURLAs(f.Base, "", true); err != nil {
				return nil, fmt.Errorf("%s:%d: base: %v", f.File, f.BaseLine, err)
			}
		}
		for i := range f.Steps {
			s := &f.Steps[i]
			if _, err := checkURLAs(s.Origin, "", true); err != nil {
				return nil, fmt.Errorf("%s:%d: %s: %v", f.File, s.Line, flow.StepLabel(s.Name), err)
			}
			w.secrets = userSecrets(w.secrets, s.Origin)
			o, err := w.origin(s.Origin)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %s: %v", f.File, s.Line, flow.StepLabel(s.Name), err)
			}
			w.stepOrig = append(w.stepOrig, o)
			w.ownAuth = append(w.ownAuth, strings.Contains(s.Origin, "@") && hasAuth(cfg.Headers, s.Headers))
			for _, h := range s.Headers {
				if SecretName(h.Name) {
					w.secretHeaders = true
				}
			}
		}
		w.secretVars = flowSecretVars(f)
		w.detailed = len(f.Steps) <= MaxDetailed
		w.why = leanWhy(&w.cfg, w.origins)
		return w, nil
	}
	for _, t := range cfg.Targets {
		full, err := CheckURL(t.URL, false)
		if err != nil {
			return nil, err
		}
		t.URL = full
		o, err := w.origin(t.URL)
		if err != nil {
			return nil, err
		}
		if t.Method == "" {
			t.Method = "GET"
		}
		w.targets = append(w.targets, target{Target: t, name: t.Method + " " + RedactURL(t.URL), origin: o})
	}
	// Rows are named by method and URL; a URL listed twice (with two
	// bodies, say) gets its URL file's line, or its place on the command
	// line, so that its rows and messages can be told apart.
	seen := map[string]int{}
	for _, t := range w.targets {
		seen[t.name]++
	}
	for i := range w.targets {
		if t := &w.targets[i]; seen[t.name] > 1 {
			if t.Line > 0 {
				t.name += fmt.Sprintf(" (line %d)", t.Line)
			} else {
				t.name += fmt.Sprintf(" (#%d)", i+1)
			}
		}
	}
	w.detailed = (len(w.targets) > 1 || cfg.OpenLoop) && len(w.targets) <= MaxDetailed
	if w.why = leanWhy(&w.cfg, w.origins); w.why == "" {
		for i := range w.targets {
			r, err := buildLean(&w.cfg, &w.targets[i].Target)
			if err != nil {
				return nil, err
			}
			w.lean = append(w.lean, r)
		}
	}
	return w, nil
}

// hasAuth reports whether the headers of every request or of a step set
// Authorization.
func hasAuth(all []Header, step []flow.Header) bool {
	for _, h := range all {
		if strings.EqualFold(h.Name, "Authorization") {
			return true
		}
	}
	for _, h := range step {
		if strings.EqualFold(h.Name, "Authorization") {
			return true
		}
	}
	return false
}

// Client says which HTTP client sends the requests: "lean" (lean.go) or
// "fasthttp (REASON)".
func (w *Workload) Client() string {
	if w.lean != nil {
		return "lean"
	}
	if w.why == "" {
		return "fasthttp"
	}
	return "fasthttp (" + w.why + ")"
}

// Preflight opens a connection to each server, and closes it, before a
// run. A server where nothing listens refuses at once, and so would every
// request of the run: the run would be thousands of failures a second
// saying only that. Preflight says it in one line instead, as does a host
// name that does not resolve. Other outcomes (a slow or dropped connect)
// are left to the run, which counts them.
func (w *Workload) Preflight(ctx context.Context) error {
	d := net.Dialer{Timeout: min(w.cfg.Timeout, 5*time.Second)}
	for _, o := range w.origins {
		c, err := d.DialContext(ctx, "tcp", o.addr)
		if err == nil {
			c.Close()
			continue
		}
		var dns *net.DNSError
		switch {
		case errors.Is(err, syscall.ECONNREFUSED):
			return fmt.Errorf("nothing listens on %s (connection refused): start the server or check the URL", o.addr)
		case errors.As(err, &dns) && dns.IsNotFound:
			return fmt.Errorf("the host %s was not found (%s): check the URL", clipText(o.host, 100), dns.Err)
		}
	}
	return nil
}

// origin returns the index of u's server, adding it when new.
func (w *Workload) origin(u string) (int, error) {
	p, err := url.Parse(u)
	if err != nil {
		return 0, err
	}
	o := origin{https: p.Scheme == "https", host: p.Hostname(), addr: p.Host}
	if p.Port() == "" {
		port := "80"
		if o.https {
			port = "443"
		}
		o.addr = joinHostPort(p.Hostname(), port)
	}
	for i, x := range w.origins {
		if x == o {
			return i, nil
		}
	}
	w.origins = append(w.origins, o)
	return len(w.origins) - 1, nil
}

func joinHostPort(host, port string) string {
	if strings.Contains(host, ":") {
		return "[" + host + "]:" + port
	}
	return host + ":" + port
}

// Name is the workload's name in results.
func (w *Workload) Name() string { return "http" }

// Tables is empty: the HTTP load writes nothing kurabe could count.
func (w *Workload) Tables() []*store.Table { return nil }

// Kinds is one kind: a request, or an iteration of the flow.
func (w *Workload) Kinds() []workload.Kind { return []workload.Kind{{Name: w.kindName()}} }

func (w *Workload) kindName() string {
	switch {
	case w.cfg.Flow != nil:
		return "flow " + w.cfg.Flow.Name
	case len(w.targets) == 1:
		return w.targets[0].name
	case w.cfg.Random:
		return fmt.Sprintf("%d URLs at random", len(w.targets))
	}
	return fmt.Sprintf("%d URLs in turn", len(w.targets))
}

// Phases is the one phase a run of kurabe http measures.
func (w *Workload) Phases() []workload.Phase {
	return []workload.Phase{{Name: w.kindName(), Weights: []int{1}}}
}

// Params returns the settings, for the result document.
func (w *Workload) Params() map[string]string {
	p := map[string]string{
		"keep_alive": strconv.FormatBool(!w.cfg.Close),
		"timeout":    w.cfg.Timeout.String(),
		"client":     w.Client(),
	}
	if w.cfg.Flow != nil {
		p["flow"] = w.cfg.Flow.File
		p["steps"] = strconv.Itoa(len(w.cfg.Flow.Steps))
	} else {
		p["urls"] = strconv.Itoa(len(w.targets))
		if len(w.targets) > 1 {
			p["order"] = w.order()
		}
	}
	e := w.cfg.Expect
	if len(e.Status) > 0 {
		var s []string
		for _, c := range e.Status {
			s = append(s, strconv.Itoa(c))
		}
		p["expect_status"] = strings.Join(s, ",")
	}
	if e.Body != nil {
		p["expect_body"] = e.Body.String()
	}
	if e.HasLength {
		p["expect_length"] = strconv.FormatInt(e.Length, 10)
	}
	for _, h := range w.cfg.Headers {
		v := h.Value
		if SecretName(h.Name) {
			v = "REDACTED"
		}
		p["header "+h.Name] = v
	}
	return p
}

func (w *Workload) order() string {
	if w.cfg.Random {
		return "random"
	}
	return "round-robin"
}

// NewClient returns one client's state. s must come from the workload's
// own Store.
func (w *Workload) NewClient(s store.Session, rng *rand.Rand) workload.Client {
	sess, ok := s.(*session)
	if !ok {
		sess = w.newSession()
	}
	c := newClient(w, sess, rng)
	w.mu.Lock()
	c.id = len(w.clients)
	if n := len(w.targets); n > 0 {
		c.next = c.id % n
	}
	w.clients = append(w.clients, c)
	w.mu.Unlock()
	return c
}

// Store returns the store the engine drives the workload on: it has no
// tables, and each of its sessions is one client's connections.
func (w *Workload) Store() store.Store { return (*httpStore)(w) }

type httpStore Workload

func (s *httpStore) Setup(context.Context, []*store.Table) error { return nil }
func (s *httpStore) Count(context.Context, *store.Table) (int64, error) {
	return 0, errors.New("the HTTP load has no tables to count")
}
func (s *httpStore) Close() error { return nil }

func (s *httpStore) Open(context.Context) (store.Session, error) {
	return (*Workload)(s).newSession(), nil
}

func (s *httpStore) Info(context.Context) store.Info {
	w := (*Workload)(s)
	var targets []string
	for _, o := range w.origins {
		scheme := "http://"
		if o.https {
			scheme = "https://"
		}
		targets = append(targets, scheme+o.addr)
	}
	opts := map[string]string{"keep_alive": strconv.FormatBool(!w.cfg.Close), "timeout": w.cfg.Timeout.String(), "client": w.Client()}
	version := "fasthttp"
	if w.lean != nil {
		version = "kurabe lean HTTP/1.1"
	}
	return store.Info{Driver: "http", Target: strings.Join(targets, " "), Version: version, Options: opts}
}

// session is one client's connections: a HostClient per server, each
// allowed one connection, dialled through the timing wrapper.
type session struct {
	w     *Workload
	hosts []*fasthttp.HostClient
	tm    timing
	// busy is when the current request started (ns since the workload's
	// epoch) plus one, 0 between requests, or killed (see watchdog.go).
	busy    atomic.Int64
	connsMu sync.Mutex
	conns   []*timedConn
	// lean: a connection per server on the lean path (nil on fasthttp's).
	lean       []*leanConn
	wantServer bool // the lean parser should keep the Server header
	// last is when the last request to each server ended (fasthttp's
	// path), for its connection's idle time.
	last []time.Duration
}

func (w *Workload) newSession() *session {
	s := &session{w: w}
	s.tm.epoch = w.epoch
	w.watch(s)
	if w.lean != nil {
		for i := range w.origins {
			s.lean = append(s.lean, newLeanConn(s, &w.origins[i]))
		}
		return s
	}
	s.last = make([]time.Duration, len(w.origins))
	for i := range w.origins {
		o := &w.origins[i]
		s.hosts = append(s.hosts, &fasthttp.HostClient{
			Addr:                      o.addr,
			IsTLS:                     o.https,
			Name:                      w.cfg.UserAgent,
			MaxConns:                  1,
			MaxIdemponentCallAttempts: 1,
			RetryIf:                   func(*fasthttp.Request) bool { return false },
			ReadBufferSize:            16 << 10,
			DisablePathNormalizing:    true,
			Dial:                      func(addr string) (net.Conn, error) { return s.dial(o, addr) },
		})
	}
	return s
}

func (s *session) Insert(context.Context, *store.Table, store.Row) error {
	return errors.New("the HTTP load has no tables")
}

func (s *session) Scan(context.Context, *store.Table, store.Query, func(store.Row) error) (int, error) {
	return 0, errors.New("the HTTP load has no tables")
}

func (s *session) Close() error {
	s.w.unwatch(s)
	for _, lc := range s.lean {
		lc.close()
	}
	for _, h := range s.hosts {
		h.CloseIdleConnections()
	}
	return nil
}
