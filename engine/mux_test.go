//go:build linux

package engine

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kurabe/store"
	"kurabe/store/muxsock"
)

// gateStore is a test double for a networked store, over a real server
// on 127.0.0.1: an insert sends one byte and waits for the server's one
// byte back. The server holds its first replies until `gate` requests are
// in flight at once (or 10 s pass), so a loop that served its clients one
// after another could never open the gate. Count is the replies sent.
// Sessions of client index refuse (when refuse >= 0) cannot multiplex.
type gateStore struct {
	addr     string
	acked    atomic.Int64
	maxIn    atomic.Int64
	opened   atomic.Int64
	refuse   int64
	released chan struct{}
	// The session of client index broken fails every operation after
	// its first brokenAfter, at once and without touching its socket,
	// as the wire drivers do once a connection broke.
	broken      int64
	brokenAfter int
}

func newGateStore(t *testing.T, gate int64) *gateStore {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := &gateStore{addr: ln.Addr().String(), refuse: -1, broken: -1, released: make(chan struct{})}
	var in atomic.Int64
	var once sync.Once
	release := func() { once.Do(func() { close(g.released) }) }
	timer := time.AfterFunc(10*time.Second, release)
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); timer.Stop(); release(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				var b [1]byte
				for {
					if _, err := c.Read(b[:]); err != nil {
						return
					}
					n := in.Add(1)
					for m := g.maxIn.Load(); n > m && !g.maxIn.CompareAndSwap(m, n); m = g.maxIn.Load() {
					}
					if n >= gate {
						release()
					}
					<-g.released
					in.Add(-1)
					g.acked.Add(1)
					if _, err := c.Write(b[:]); err != nil {
						return
					}
				}
			}()
		}
	}()
	return g
}

func (g *gateStore) Setup(context.Context, []*store.Table) error { return nil }
func (g *gateStore) Count(context.Context, *store.Table) (int64, error) {
	return g.acked.Load(), nil
}
func (g *gateStore) Info(context.Context) store.Info { return store.Info{Driver: "gate"} }
func (g *gateStore) Close() error                    { return nil }
func (g *gateStore) Networked()                      {}

func (g *gateStore) Open(ctx context.Context) (store.Session, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", g.addr)
	if err != nil {
		return nil, err
	}
	i := g.opened.Add(1) - 1
	s := &gateSession{nc: nc, rw: nc, refuse: i == g.refuse, left: -1}
	if i == g.broken {
		s.left = g.brokenAfter
	}
	return s, nil
}

var errBrokenConn = errors.New("gate: connection lost")

type gateSession struct {
	nc net.Conn
	rw interface {
		Read([]byte) (int, error)
		Write([]byte) (int, error)
	}
	sock   *muxsock.Sock
	refuse bool
	left   int // operations before the connection breaks; -1 never
	buf    [1]byte
}

func (s *gateSession) Insert(context.Context, *store.Table, store.Row) error {
	if s.left == 0 {
		return errBrokenConn
	}
	if s.left > 0 {
		s.left--
	}
	s.buf[0] = 'w'
	if _, err := s.rw.Write(s.buf[:]); err != nil {
		return err
	}
	_, err := s.rw.Read(s.buf[:])
	return err
}

func (s *gateSession) Scan(context.Context, *store.Table, store.Query, func(store.Row) error) (int, error) {
	return 0, nil
}

func (s *gateSession) Multiplex(w store.Waiter) bool {
	if s.refuse {
		return false
	}
	if w == nil {
		if s.sock != nil {
			nc, err := s.sock.Release()
			if err != nil {
				return false
			}
			s.nc, s.rw, s.sock = nc, nc, nil
		}
		return true
	}
	sock, ok := muxsock.Take(s.nc, w)
	if ok {
		s.sock, s.rw = sock, sock
	}
	return ok
}

func (s *gateSession) Close() error {
	s.Multiplex(nil)
	return s.nc.Close()
}

// TestEventLoop: with sessions that can multiplex, the clients share one
// event loop, and still run side by side (every client's first request is
// out before any reply comes), each operation counted and verified. Think
// time, an open loop, NoMux or one session that cannot multiplex keep a
// goroutine per client.
func TestEventLoop(t *testing.T) {
	const clients = 8
	for _, tc := range []struct {
		name    string
		cfg     Config
		refuse  int64
		wantMux bool
	}{
		{"closed loop", Config{}, -1, true},
		{"NoMux", Config{NoMux: true}, -1, false},
		{"think time", Config{ThinkMin: time.Microsecond, ThinkMax: time.Microsecond}, -1, false},
		{"one session cannot", Config{}, 3, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newGateStore(t, clients)
			g.refuse = tc.refuse
			w := bbsWorkload(t, "write")
			cfg := tc.cfg
			cfg.Clients, cfg.Count, cfg.Seed = clients, 4000, 1
			res, err := RunPhase(context.Background(), cfg, g, w, 0)
			if err != nil {
				t.Fatal(err)
			}
			if res.Multiplexed != tc.wantMux {
				t.Errorf("multiplexed = %v, want %v", res.Multiplexed, tc.wantMux)
			}
			if res.Ops != 4000 || res.Errors != 0 || len(res.ClientFinish) != clients {
				t.Errorf("%d ops, %d errors, %d clients; want 4000, 0, %d", res.Ops, res.Errors, len(res.ClientFinish), clients)
			}
			if len(res.Verify) != 1 || res.Verify[0].Acked != 4000 || res.Verify[0].Lost != 0 {
				t.Errorf("verify = %+v", res.Verify)
			}
			if got := g.maxIn.Load(); got != clients {
				t.Errorf("at most %d requests in flight at once, want all %d clients'", got, clients)
			}
		})
	}
}

// TestEventLoopBrokenClient: a client whose connection broke fails at
// once without waiting on its socket; the other clients on the loop must
// go on running (they starved before clients that did not wait gave the
// thread back).
func TestEventLoopBrokenClient(t *testing.T) {
	g := newGateStore(t, 4)
	g.broken, g.brokenAfter = 0, 10
	w := bbsWorkload(t, "write")
	res, err := RunPhase(context.Background(), Config{Clients: 4, Duration: 500 * time.Millisecond, Seed: 1}, g, w, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Multiplexed || res.Errors == 0 {
		t.Fatalf("multiplexed %v, %d errors; want true and the broken client's failures", res.Multiplexed, res.Errors)
	}
	// Three healthy clients over 500 ms of loopback round trips: far more
	// than 50 each, however slow the machine; a few when they starve.
	if acked := res.Verify[0].Acked; acked < 10+3*50 {
		t.Errorf("%d writes acknowledged, %d failed: the healthy clients hardly ran", acked, res.Errors)
	}
	if res.Verify[0].Lost != 0 {
		t.Errorf("verify = %+v", res.Verify)
	}
}
