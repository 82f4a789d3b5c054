//go:build linux

package engine

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
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
	release  func() // opens the gate now
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
	g.release = release
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

// TestClientIO: with sessions that can wait on their sockets themselves,
// the clients run on a thread each or on one event loop, and still side
// by side (every client's first request is out before any reply comes),
// each operation counted and verified. Think time, --mux=poller or one
// session that cannot keep a goroutine per client in Go's poller. Auto
// picks threads up to ThreadsPerCPU clients per processor.
func TestClientIO(t *testing.T) {
	perProcs := ThreadsPerCPU * runtime.GOMAXPROCS(0)
	for _, tc := range []struct {
		name    string
		cfg     Config
		clients int
		refuse  int64
		want    ClientIO
	}{
		{"threads", Config{IO: IOThreads}, 8, -1, IOThreads},
		{"loop", Config{IO: IOLoop}, 8, -1, IOLoop},
		{"auto, few clients per processor", Config{}, perProcs, -1, IOThreads},
		{"auto, many clients per processor", Config{}, perProcs + 1, -1, IOLoop},
		{"poller", Config{IO: IOPoller}, 8, -1, ""},
		{"think time", Config{IO: IOThreads, ThinkMin: time.Microsecond, ThinkMax: time.Microsecond}, 8, -1, ""},
		{"threads, one session cannot", Config{IO: IOThreads}, 8, 3, ""},
		{"loop, one session cannot", Config{IO: IOLoop}, 8, 3, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newGateStore(t, int64(tc.clients))
			g.refuse = tc.refuse
			w := bbsWorkload(t, "write")
			cfg := tc.cfg
			count := int64(500 * tc.clients)
			cfg.Clients, cfg.Count, cfg.Seed = tc.clients, count, 1
			procs := runtime.GOMAXPROCS(0)
			res, err := RunPhase(context.Background(), cfg, g, w, 0)
			if err != nil {
				t.Fatal(err)
			}
			if res.ClientIO != string(tc.want) {
				t.Errorf("client_io = %q, want %q", res.ClientIO, tc.want)
			}
			if res.Ops != count || res.Errors != 0 || len(res.ClientFinish) != tc.clients {
				t.Errorf("%d ops, %d errors, %d clients; want %d, 0, %d", res.Ops, res.Errors, len(res.ClientFinish), count, tc.clients)
			}
			if len(res.Verify) != 1 || res.Verify[0].Acked != count || res.Verify[0].Lost != 0 {
				t.Errorf("verify = %+v", res.Verify)
			}
			if got := g.maxIn.Load(); got != int64(tc.clients) {
				t.Errorf("at most %d requests in flight at once, want all %d clients'", got, tc.clients)
			}
			if got := runtime.GOMAXPROCS(0); got != procs {
				t.Errorf("GOMAXPROCS %d after the phase, %d before", got, procs)
			}
		})
	}
}

// TestThreadsLetCollectorRun: a client blocked in poll(2) for a reply
// that does not come must not hold up a stop of the world: the collector
// runs to its end while every reply is still held. The raw wait ends only
// by the signal the stop sends (the client then yields); with the
// runtime's signals off (GODEBUG=asyncpreemptoff=1) the wait must go
// through the system-call bookkeeping instead. A failure is a hang of the
// whole process (nothing runs while the world waits to stop), so each
// case runs in a child process that the test kills after a minute.
func TestThreadsLetCollectorRun(t *testing.T) {
	if os.Getenv("KURABE_TEST_STW_CHILD") != "" {
		collectWhileBlocked(t)
		return
	}
	for _, godebug := range []string{"", "asyncpreemptoff=1"} {
		t.Run("GODEBUG="+godebug, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestThreadsLetCollectorRun$", "-test.count=1", "-test.v")
			cmd.Env = append(os.Environ(), "KURABE_TEST_STW_CHILD=1", "GODEBUG="+godebug)
			out, err := cmd.CombinedOutput()
			switch {
			case ctx.Err() != nil:
				t.Fatalf("hung for a minute: a client blocked in poll held up the stop of the world\n%s", out)
			case err != nil:
				t.Fatalf("%v\n%s", err, out)
			case !strings.Contains(string(out), "--- PASS: TestThreadsLetCollectorRun"):
				t.Fatalf("the child did not run the check:\n%s", out)
			}
		})
	}
}

func collectWhileBlocked(t *testing.T) {
	const clients = 4
	g := newGateStore(t, clients+1) // never opens by itself (10 s)
	w := bbsWorkload(t, "write")
	done := make(chan error, 1)
	go func() {
		_, err := RunPhase(context.Background(), Config{Clients: clients, Count: clients, IO: IOThreads, Seed: 1}, g, w, 0)
		done <- err
	}()
	for g.maxIn.Load() < clients {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond) // the clients are in poll by now
	runtime.GC()
	held := g.acked.Load() == 0
	g.release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !held {
		t.Error("the collector finished only after the replies came: blocked clients held up the stop of the world")
	}
}

func TestAsyncPreemptOff(t *testing.T) {
	for in, want := range map[string]bool{
		"": false, "asyncpreemptoff=1": true, "gctrace=1,asyncpreemptoff=1": true,
		"asyncpreemptoff=1,asyncpreemptoff=0": false, "asyncpreemptoff=0": false,
	} {
		if got := asyncPreemptOff(in); got != want {
			t.Errorf("asyncPreemptOff(%q) = %v", in, got)
		}
	}
}

// TestBrokenClient: a client whose connection broke fails at once
// without waiting on its socket; the other clients must go on running
// (on the loop they starved before clients that did not wait gave the
// thread back).
func TestBrokenClient(t *testing.T) {
	for _, io := range []ClientIO{IOLoop, IOThreads} {
		t.Run(string(io), func(t *testing.T) {
			g := newGateStore(t, 4)
			g.broken, g.brokenAfter = 0, 10
			w := bbsWorkload(t, "write")
			res, err := RunPhase(context.Background(), Config{Clients: 4, Duration: 500 * time.Millisecond, Seed: 1, IO: io}, g, w, 0)
			if err != nil {
				t.Fatal(err)
			}
			if res.ClientIO != string(io) || res.Errors == 0 {
				t.Fatalf("client_io %q, %d errors; want %q and the broken client's failures", res.ClientIO, res.Errors, io)
			}
			// Three healthy clients over 500 ms of loopback round trips:
			// far more than 50 each, however slow the machine; a few when
			// they starve.
			if acked := res.Verify[0].Acked; acked < 10+3*50 {
				t.Errorf("%d writes acknowledged, %d failed: the healthy clients hardly ran", acked, res.Errors)
			}
			if res.Verify[0].Lost != 0 {
				t.Errorf("verify = %+v", res.Verify)
			}
		})
	}
}

// TestThreadProcsOverlap: phases on threads that overlap each keep their
// processors until the last ends, and then the count is what it was.
func TestThreadProcsOverlap(t *testing.T) {
	base := runtime.GOMAXPROCS(0)
	var p procCount
	p.add(8)
	p.add(3)
	if got := runtime.GOMAXPROCS(0); got != base+11 {
		t.Fatalf("two phases of 8 and 3 clients: GOMAXPROCS %d, want %d", got, base+11)
	}
	p.add(-8)
	if got := runtime.GOMAXPROCS(0); got != base+3 {
		t.Fatalf("after the first ended: GOMAXPROCS %d, want %d", got, base+3)
	}
	p.add(-3)
	if got := runtime.GOMAXPROCS(0); got != base {
		t.Fatalf("after both: GOMAXPROCS %d, want %d", got, base)
	}
}
