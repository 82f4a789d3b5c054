package engine

import (
	"errors"
	"iter"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"

	"kurabe/store"
	"kurabe/store/muxsock"
)

// Clients that wait on their sockets themselves: when every client's
// session can hand its socket waits over (store.Multiplexed: the
// PostgreSQL and MariaDB wire drivers), the sessions' sockets leave Go's
// network poller for the phase, and the clients wait for replies in one
// of two ways (ClientIO). A client still runs its operations one after
// another and is timed around each, exactly as in a goroutine of its own;
// what goes is the runtime's parking and waking of a goroutine per reply,
// with a round of its thread wake-ups each time, which cost more client
// CPU per query than the rest of the query's work.
//
// IOThreads: each client blocks in poll(2) on its socket in a thread of
// its own, as pgbench -j C and sysbench do. A reply wakes its client's
// thread at once, and the next request is usually in before the server's
// process looks for it: measured on PostgreSQL, a backend went to sleep
// waiting on about 1 query in 10, against most queries on the loop.
//
// IOLoop: the clients' loops run as coroutines of one goroutine, and one
// epoll instance wakes whichever clients' replies are in, the way one
// pgbench thread serves all its connections. With many clients per core
// it takes the replies in batches where threads would queue for the
// cores behind the server's processes.

// threadWaiter blocks the calling thread in poll(2) until fd is ready.
// The call bypasses the runtime's system-call bookkeeping, so the
// goroutine keeps its processor (runThreads provides one per client)
// and wakes with no handover; a signal (the runtime's preemption, a
// stop for the collector) ends the wait with EINTR, and the goroutine
// yields before it waits again. Without those signals (rawWait false)
// the wait goes through the bookkeeping instead, which lets a stop of
// the world go on while a client waits.
//
// The wait wakes every cutEvery to see whether the phase cut its
// operations off (cut), which contexts cannot tell a raw poll(2).
type threadWaiter struct{ cut *atomic.Bool }

// cutEvery is how often a client blocked on its socket looks whether it
// was cut off; a reply wakes it at once.
var cutEvery = syscall.Timespec{Nsec: 200e6}

func (t threadWaiter) Wait(fd int, write bool) error {
	for {
		every := cutEvery
		switch n, e := muxsock.Poll(fd, write, rawWait, &every); e {
		case 0:
			if n > 0 {
				return nil
			}
		case syscall.EINTR:
			// The runtime's preemption signals end a long wait every
			// few milliseconds, before it times out.
			runtime.Gosched()
		default:
			return e
		}
		if t.cut.Load() {
			return ErrCutOff
		}
	}
}

// rawWait says whether the runtime preempts with signals: not with
// GODEBUG=asyncpreemptoff=1 (the last setting of it counts).
var rawWait = !asyncPreemptOff(os.Getenv("GODEBUG"))

func asyncPreemptOff(godebug string) bool {
	off := false
	for _, kv := range strings.Split(godebug, ",") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(kv), "asyncpreemptoff="); ok {
			off = v == "1"
		}
	}
	return off
}

// runThreads runs body(i) for every client i in a goroutine of its own,
// with a processor for each on top of the ones there were, since a
// client blocked in threadWaiter holds its processor; the count goes back
// when all have returned.
func runThreads(n int, body func(i int)) {
	threadProcs.add(n)
	defer threadProcs.add(-n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { body(i) })
	}
	wg.Wait()
}

// threadProcs keeps GOMAXPROCS at what it was plus the clients of every
// phase running on threads, so that phases run at once (by a program
// using the engine) do not take each other's processors away.
var threadProcs procCount

type procCount struct {
	mu          sync.Mutex
	base, extra int
}

// cores is GOMAXPROCS without the processors added for clients on
// threads.
func (p *procCount) cores() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.extra > 0 {
		return p.base
	}
	return runtime.GOMAXPROCS(0)
}

func baseProcs() int { return threadProcs.cores() }

func (p *procCount) add(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.extra == 0 {
		p.base = runtime.GOMAXPROCS(0)
	}
	p.extra += n
	runtime.GOMAXPROCS(p.base + p.extra)
}

// muxClient is one client's coroutine and its registration.
type muxClient struct {
	yield   func(muxWait) bool
	next    func() (muxWait, bool)
	stop    func()
	id      int32  // its index, epoll's data for its descriptor
	fd      int    // the descriptor registered for it, -1 none
	events  uint32 // the events registered
	waiting bool
	waited  bool // it waited since its last pass
	cut     bool // the phase cut its operations off: waits fail
}

type muxWait struct {
	fd    int
	write bool
}

var errLoopStopped = errors.New("the clients' event loop stopped")

// Wait parks the client until fd is ready (store.Waiter). It runs inside
// the client's coroutine.
func (c *muxClient) Wait(fd int, write bool) error {
	c.waited = true
	if c.cut {
		return ErrCutOff
	}
	if !c.yield(muxWait{fd, write}) {
		return errLoopStopped
	}
	if c.cut {
		return ErrCutOff
	}
	return nil
}

// pass runs between a client's operations. An operation that never
// waited (a broken connection fails at once, without touching its
// socket) would otherwise let the client run on and on while the others
// starve: such a client gives the thread back and runs again after them.
func (c *muxClient) pass() {
	if c.waited {
		c.waited = false
		return
	}
	c.yield(muxWait{fd: -1})
}

// newMuxClients makes the loop's n clients.
func newMuxClients(n int) []*muxClient {
	cs := make([]*muxClient, n)
	for i := range cs {
		cs[i] = &muxClient{id: int32(i), fd: -1}
	}
	return cs
}

// multiplex hands worker i's session waits to waiter(i), or, when one
// session cannot, leaves all of them as they were and returns false.
func multiplex(workers []*worker, waiter func(i int) store.Waiter) bool {
	for i, wk := range workers {
		m, ok := wk.sess.(store.Multiplexed)
		if !ok || !m.Multiplex(waiter(i)) {
			unmultiplex(workers[:i])
			return false
		}
		wk.waiter = waiter(i) // for a reopened session's new connection
	}
	return true
}

// unmultiplex returns the sessions to Go's network poller.
func unmultiplex(workers []*worker) {
	for _, wk := range workers {
		wk.sess.(store.Multiplexed).Multiplex(nil)
		wk.waiter = nil
	}
}

// await runs f in a goroutine of its own while the client waits, as for
// a reply, on a pipe f's end writes to: the loop runs the other clients
// meanwhile (a reopen of a lost session, the backoff between attempts).
// Off the hot path; without a pipe, f runs in the coroutine.
func (c *muxClient) await(f func()) {
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC|syscall.O_NONBLOCK); err != nil {
		f()
		return
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer syscall.Write(p[1], []byte{1})
		f()
	}()
	c.Wait(p[0], false) // when the loop stops, the wait ends at once
	<-done              // and f's effects are the coroutine's to see
	syscall.Close(p[0])
	syscall.Close(p[1])
	c.forget()
}

// forget makes the loop register the client's next descriptor anew: the
// one it watched was closed (leaving the epoll set), and a new one may
// have its number.
func (c *muxClient) forget() { c.fd, c.events = -1, 0 }

// runMux runs body(i) for every client i as a coroutine and serves their
// waits until all have returned. On an error of epoll itself it sets stop,
// so that each client ends after its operation, and returns the error.
func runMux(cs []*muxClient, stop, cut *atomic.Bool, body func(i int)) error {
	ep, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return err
	}
	defer syscall.Close(ep)
	// One thread for the loop and its coroutines (which must be made
	// under the lock they run under).
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for i, c := range cs {
		c.next, c.stop = iter.Pull(func(yield func(muxWait) bool) {
			c.yield = yield
			body(i)
		})
	}
	// A panic in a client comes out of its next(): stop the others first
	// (each ends after its operation), then let the panic go on.
	defer func() {
		p := recover()
		if p != nil {
			stop.Store(true)
		}
		for _, c := range cs {
			func() {
				defer func() {
					if q := recover(); q != nil && p == nil {
						p = q
					}
				}()
				c.stop()
			}()
		}
		if p != nil {
			panic(p)
		}
	}()
	fail := func(err error) error {
		stop.Store(true)
		return err
	}
	live := len(cs)
	// runq: the clients to resume now; again: those that passed, to
	// resume after the others. A client is in one of them or waiting.
	runq := make([]*muxClient, len(cs))
	copy(runq, cs)
	again := make([]*muxClient, 0, len(cs))
	events := make([]syscall.EpollEvent, len(cs))
	for live > 0 {
		for _, c := range runq {
			w, ok := c.next()
			switch {
			case !ok:
				live--
				c.unregister(ep)
			case w.fd < 0:
				// It passed without waiting: its socket may be dead
				// and readable for ever, so epoll stops watching it
				// until it waits again.
				c.unregister(ep)
				again = append(again, c)
			default:
				if err := c.register(ep, w); err != nil {
					return fail(err)
				}
				c.waiting = true
			}
		}
		runq, again = again, runq[:0]
		if live == 0 {
			break
		}
		// Ask first without the runtime's system-call bookkeeping, which
		// would wake another thread to take the processor; block only
		// when no reply is in and no client is ready to run.
		if cut.Load() {
			// The phase cut its operations off: every waiting client
			// wakes to find its wait failed.
			for _, c := range cs {
				c.cut = true
				if c.waiting {
					c.waiting = false
					runq = append(runq, c)
				}
			}
		}
		k, err := epollNow(ep, events)
		if err == nil && k == 0 && len(runq) == 0 {
			k, err = syscall.EpollWait(ep, events, 200)
		}
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return fail(err)
		}
		for _, ev := range events[:k] {
			if c := cs[ev.Fd]; c.waiting {
				c.waiting = false
				runq = append(runq, c)
			}
		}
	}
	return nil
}

// unregister stops watching the client's descriptor.
func (c *muxClient) unregister(ep int) {
	if c.fd >= 0 {
		syscall.EpollCtl(ep, syscall.EPOLL_CTL_DEL, c.fd, nil)
		c.fd, c.events = -1, 0
	}
}

// register makes epoll watch w's descriptor for w's event, on behalf of
// the client. A client keeps one descriptor (its session's socket);
// a new one (a reconnection) is added, and the closed one left the epoll
// set when it was closed.
func (c *muxClient) register(ep int, w muxWait) error {
	want := uint32(syscall.EPOLLIN)
	if w.write {
		want = syscall.EPOLLOUT
	}
	ev := syscall.EpollEvent{Events: want, Fd: c.id}
	switch {
	case w.fd != c.fd:
		err := syscall.EpollCtl(ep, syscall.EPOLL_CTL_ADD, w.fd, &ev)
		if err == syscall.EEXIST {
			err = syscall.EpollCtl(ep, syscall.EPOLL_CTL_MOD, w.fd, &ev)
		}
		if err != nil {
			return err
		}
	case c.events != want:
		if err := syscall.EpollCtl(ep, syscall.EPOLL_CTL_MOD, w.fd, &ev); err != nil {
			return err
		}
	}
	c.fd, c.events = w.fd, want
	return nil
}

// epollNow polls without waiting and without entering the scheduler's
// system-call state.
func epollNow(ep int, events []syscall.EpollEvent) (int, error) {
	r, _, e := syscall.RawSyscall6(syscall.SYS_EPOLL_PWAIT, uintptr(ep), uintptr(unsafe.Pointer(&events[0])), uintptr(len(events)), 0, 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}
