// Package sockwatch ends a blocked read or write on a socket when the
// context of the exchange under way ends, for kurabe's wire drivers
// (store/postgres/wire, store/mysql/wire), which own their sockets.
//
// A connection serves one context after another (kurabe serve's pooled
// sessions take a new request's context each time), and a context often
// ends after its exchange did, while the connection already serves the
// next one. Each watch therefore has a number: a cancellation from a
// context no longer watched leaves the socket alone, and Stop makes sure
// none touches a socket being closed.
package sockwatch

import (
	"context"
	"net"
	"sync"
	"time"
)

// Watch watches one context at a time for a socket. The zero value is
// not usable; use New. Follow, Clear and Stop belong to the connection's
// own goroutine; the cancellation runs in a goroutine of its own.
type Watch struct {
	watched <-chan struct{}
	stop    func() bool

	mu    sync.Mutex // orders a cancellation with resetting the deadline
	conn  net.Conn   // nil once stopped
	fired bool
	gen   uint64
}

// New returns a watch over conn.
func New(conn net.Conn) *Watch { return &Watch{conn: conn} }

// Follow makes ctx the context watched; it does nothing when ctx has the
// same Done channel as the one watched. A watch that fired between
// exchanges left a past deadline on the socket, which is cleared.
func (w *Watch) Follow(ctx context.Context) {
	done := ctx.Done()
	if done == w.watched {
		return
	}
	if w.stop != nil {
		w.stop()
		w.stop = nil
	}
	w.mu.Lock()
	w.gen++
	gen := w.gen
	w.mu.Unlock()
	w.Clear()
	w.watched = done
	if done != nil {
		w.stop = context.AfterFunc(ctx, func() { w.interrupt(gen) })
	}
}

// Clear takes back the past deadline a fired watch left on the socket,
// once nothing is in flight.
func (w *Watch) Clear() {
	w.mu.Lock()
	if w.fired && w.conn != nil {
		w.conn.SetDeadline(time.Time{})
	}
	w.fired = false
	w.mu.Unlock()
}

// Fired says whether the watched context ended the socket's I/O.
func (w *Watch) Fired() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.fired
}

// Stop ends the watching for good, before the socket is closed.
func (w *Watch) Stop() {
	if w.stop != nil {
		w.stop()
		w.stop = nil
	}
	w.mu.Lock()
	w.gen++
	w.conn = nil
	w.mu.Unlock()
}

// interrupt ends any blocked read or write on the socket, when the watch
// that calls it (gen) is still the current one.
func (w *Watch) interrupt(gen uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if gen != w.gen || w.conn == nil {
		return
	}
	w.fired = true
	w.conn.SetDeadline(time.Unix(1, 0))
}
