// Package service is kurabe's reference message-board service: the bbs
// workload's operations as a small HTTP API over any kurabe store, so a
// user can compare their own web stack (PHP, Perl, Node) with a known one,
// and run the same workload through HTTP with `kurabe run --store http://`.
//
// The API (docs/serve.md) is the bbs table posts(id, category, text,
// created µs): POST /posts, GET /posts, GET /posts?limit=N, GET
// /posts/count. A write is answered 201 only after the store's Insert
// returned, so "acknowledged" means stored as the store's durability
// settings define, and kurabe's verification through HTTP stays exact.
//
// Two modes, standing in for the two kinds of web stack:
//
//   - persistent: one process and a pool of store sessions reused across
//     requests, as an application server with a connection pool;
//   - CGI: a new process for every request, speaking RFC 3875 through
//     net/http/cgi; the child opens the store, does one operation and
//     exits, as a CGI script or a PHP page without persistent connections.
//
// Trade-offs: this is the service being measured, not kurabe's measurement
// path. It uses net/http and a channel of sessions; it encodes JSON by
// appending into a buffer that travels with the pooled session instead of
// through reflection, which keeps the service's own cost per row small and
// steady, so the store's cost is what differs between runs.
package service

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"sync"
	"time"

	"kurabe/store"
	"kurabe/workload/bbs"
)

// Config holds the service's settings; the zero value is usable.
type Config struct {
	// Sessions is the size of the session pool in persistent mode; 0 means
	// 2×GOMAXPROCS. Sessions are opened on first use and reused.
	Sessions int
	// Version is reported in the Server header and by GET /.
	Version string
	// MaxBody is the largest request body accepted; 0 means 64 MiB.
	MaxBody int64
	// ShutdownTimeout is how long Serve waits for requests in flight once
	// its context is cancelled; 0 means 10 s.
	ShutdownTimeout time.Duration
	// CGI, when set, runs every request in a new process (see CGI).
	CGI *CGI
	// Postal, when set, serves the postal data set's XML find and token
	// API (postal.go); the table is filled by LoadPostal.
	Postal *Postal
	// Log receives the HTTP server's and the CGI host's errors; nil
	// discards them.
	Log *log.Logger
}

// DefaultSessions is the pool size used when Config.Sessions is 0.
func DefaultSessions() int { return 2 * runtime.GOMAXPROCS(0) }

// Service is the message-board service over one store.
type Service struct {
	st      store.Store
	cfg     Config
	posts   *store.Table
	mux     *http.ServeMux
	handler http.Handler // mux, or the CGI host
	pool    *pool
	mode    string     // "persistent" or "cgi", for GET /
	postal  *postalAPI // nil when the postal APIs are off

	server []string // Server header, shared by every response
	pid    []string // X-Kurabe-Pid header

	infoOnce sync.Once
	info     store.Info
}

// New returns the service over st, which is already open. It creates no
// table: call CreateTables for that. The caller closes st after Close.
func New(st store.Store, cfg Config) (*Service, error) {
	if cfg.Sessions < 0 {
		return nil, fmt.Errorf("service: %d sessions; want 1 or more, or 0 for the default", cfg.Sessions)
	}
	if cfg.Sessions == 0 {
		cfg.Sessions = DefaultSessions()
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = 64 << 20
	}
	if cfg.ShutdownTimeout <= 0 {
		cfg.ShutdownTimeout = 10 * time.Second
	}
	if cfg.Log == nil {
		cfg.Log = log.New(io.Discard, "", 0)
	}
	if cfg.Version == "" {
		cfg.Version = "dev"
	}
	posts := bbs.Posts()
	posts.ID = 0
	s := &Service{
		st: st, cfg: cfg, posts: posts, mode: "persistent",
		pool:   newPool(st, cfg.Sessions),
		server: []string{"kurabe/" + cfg.Version},
		pid:    []string{strconv.Itoa(os.Getpid())},
	}
	if cfg.CGI != nil {
		s.mode = "cgi"
	}
	if cfg.Postal != nil {
		p, err := newPostalAPI(*cfg.Postal)
		if err != nil {
			return nil, err
		}
		s.postal = p
	}
	s.mux = http.NewServeMux()
	s.routes(s.mux)
	s.handler = s.mux
	if cfg.CGI != nil {
		h, err := s.cgiHost()
		if err != nil {
			return nil, err
		}
		s.handler = h
	}
	return s, nil
}

// Tables returns the tables the service writes: the board's. The postal
// table, which it only reads, is LoadPostal's.
func (s *Service) Tables() []*store.Table { return []*store.Table{s.posts} }

// CreateTables sets the board's table up in the store, empty. The
// service never does this on its own: a store the user pointed it at may
// hold data they want to keep serving.
func (s *Service) CreateTables(ctx context.Context) error {
	return s.st.Setup(ctx, s.Tables())
}

// routes registers every API the service offers on mux. This is the
// extension point for further APIs over the same pool: each handler takes
// a session with s.pool.get and gives it back with s.pool.put. The postal
// data set's XML find and token API (postal.go) are registered here.
func (s *Service) routes(mux *http.ServeMux) {
	mux.HandleFunc("/posts", s.handlePosts)
	mux.HandleFunc("/posts/count", s.handleCount)
	s.postalRoutes(mux)
	mux.HandleFunc("/", s.handleRoot)
}

// Handler returns the service as an http.Handler: the API itself in
// persistent mode, and a CGI host that starts a process per request in CGI
// mode.
func (s *Service) Handler() http.Handler { return s.handler }

// Serve answers requests on ln until ctx is cancelled, then stops taking
// new ones and waits up to Config.ShutdownTimeout for those in flight, as
// on SIGTERM. It closes the pooled sessions before returning, but not the
// store.
func (s *Service) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          s.cfg.Log,
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		s.Close()
		return fmt.Errorf("service: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
	defer cancel()
	err := srv.Shutdown(sctx)
	if err != nil {
		srv.Close()
		err = fmt.Errorf("service: requests still running %v after shutdown began were cut off", s.cfg.ShutdownTimeout)
	}
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = fmt.Errorf("service: %w", serr)
	}
	s.Close()
	return err
}

// Close closes the pooled sessions; sessions still in use are closed when
// they are given back.
func (s *Service) Close() error { return s.pool.close() }

// pool hands out store sessions, each with the scratch buffers of one
// request. Slots start empty and are filled with a session on first use,
// so a CGI child that only counts never opens one. A session that failed
// (other than being busy) is closed and replaced on the next use, since its
// connection may be broken.
type pool struct {
	st   store.Store
	free chan *slot

	mu     sync.Mutex
	closed bool
}

type slot struct {
	sess store.Session
	buf  []byte    // the response being built
	row  store.Row // the row being inserted
}

func newPool(st store.Store, n int) *pool {
	p := &pool{st: st, free: make(chan *slot, n)}
	for range n {
		p.free <- &slot{row: make(store.Row, 4)}
	}
	return p
}

// get waits for a free slot and makes sure it holds an open session.
func (p *pool) get(ctx context.Context) (*slot, error) {
	var sl *slot
	select {
	case sl = <-p.free:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if sl.sess == nil {
		sess, err := p.st.Open(ctx)
		if err != nil {
			p.put(sl, nil)
			return nil, err
		}
		sl.sess = sess
	}
	return sl, nil
}

// put gives a slot back after a request that ended with err.
func (p *pool) put(sl *slot, err error) {
	if err != nil && sl.sess != nil && store.Classify(err) != "busy" {
		sl.sess.Close()
		sl.sess = nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed && sl.sess != nil {
		sl.sess.Close()
		sl.sess = nil
	}
	p.free <- sl // never blocks: the channel holds every slot
}

func (p *pool) close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	var idle []*slot
drain:
	for {
		select {
		case sl := <-p.free:
			idle = append(idle, sl)
		default:
			break drain
		}
	}
	var first error
	for _, sl := range idle {
		if sl.sess != nil {
			if err := sl.sess.Close(); err != nil && first == nil {
				first = err
			}
			sl.sess = nil
		}
		p.free <- sl
	}
	return first
}
