// Package storefault holds fakes that inject faults into a real store,
// for tests of what kurabe must catch. They are never registered as
// built-in stores.
package storefault

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"kurabe/store"
)

// DropWrites wraps a real store and silently drops one insert in every
// Every, while reporting success: the acknowledged-but-lost write that
// verification must catch.
type DropWrites struct {
	store.Store
	Every int64
	n     atomic.Int64
}

func (d *DropWrites) Open(ctx context.Context) (store.Session, error) {
	s, err := d.Store.Open(ctx)
	if err != nil {
		return nil, err
	}
	return &dropSession{Session: s, d: d}, nil
}

type dropSession struct {
	store.Session
	d *DropWrites
}

func (s *dropSession) Insert(ctx context.Context, t *store.Table, row store.Row) error {
	if s.d.n.Add(1)%s.d.Every == 0 {
		return nil
	}
	return s.Session.Insert(ctx, t, row)
}

// Stall wraps a real store and makes one operation in Every take For
// longer, as a server that stalls now and then: the open loop must charge
// the wait to the operations queued behind it.
type Stall struct {
	store.Store
	Every int64
	For   time.Duration
	n     atomic.Int64
}

func (s *Stall) Open(ctx context.Context) (store.Session, error) {
	sess, err := s.Store.Open(ctx)
	if err != nil {
		return nil, err
	}
	return &stallSession{Session: sess, s: s}, nil
}

type stallSession struct {
	store.Session
	s *Stall
}

func (ss *stallSession) stall() {
	if ss.s.n.Add(1)%ss.s.Every == 0 {
		time.Sleep(ss.s.For)
	}
}

func (ss *stallSession) Insert(ctx context.Context, t *store.Table, row store.Row) error {
	ss.stall()
	return ss.Session.Insert(ctx, t, row)
}

func (ss *stallSession) Scan(ctx context.Context, t *store.Table, q store.Query, fn func(store.Row) error) (int, error) {
	ss.stall()
	return ss.Session.Scan(ctx, t, q, fn)
}

// Capacity wraps a real store that accepts at most Max sessions open at
// once, refusing more as a server at its connection limit does (class
// "too-many-connections").
type Capacity struct {
	store.Store
	Max int64
	// CountConnects makes Count take a connection of its own, as a
	// server store's does, refused when Max sessions are open.
	CountConnects bool
	// Release is how long a closed session keeps its place, as a
	// server's process for the connection exits a moment after the
	// client hung up.
	Release time.Duration
	open    atomic.Int64
}

func (c *Capacity) Count(ctx context.Context, t *store.Table) (int64, error) {
	if c.CountConnects && c.open.Load() >= c.Max {
		return 0, &store.ClassError{Class: "too-many-connections", Err: errors.New("too many connections (fake limit)")}
	}
	return c.Store.Count(ctx, t)
}

// OpenCounter takes a place as a server store's counter does
// (store.CounterOpener), with CountConnects; without, the store counts
// without a connection and the counter takes none.
func (c *Capacity) OpenCounter(ctx context.Context) (store.Counter, error) {
	if !c.CountConnects {
		return store.OpenCounter(ctx, c.Store)
	}
	if c.open.Add(1) > c.Max {
		c.open.Add(-1)
		return nil, &store.ClassError{Class: "too-many-connections", Err: errors.New("too many connections (fake limit)")}
	}
	return &capCounter{c: c}, nil
}

type capCounter struct{ c *Capacity }

func (k *capCounter) Count(ctx context.Context, t *store.Table) (int64, error) {
	return k.c.Store.Count(ctx, t)
}

func (k *capCounter) Close() error {
	k.c.release()
	return nil
}

func (c *Capacity) Open(ctx context.Context) (store.Session, error) {
	if c.open.Add(1) > c.Max {
		c.open.Add(-1)
		return nil, &store.ClassError{Class: "too-many-connections", Err: errors.New("too many connections (fake limit)")}
	}
	s, err := c.Store.Open(ctx)
	if err != nil {
		c.open.Add(-1)
		return nil, err
	}
	return &capSession{Session: s, c: c}, nil
}

// release gives back a place, after Release.
func (c *Capacity) release() {
	if c.Release > 0 {
		time.AfterFunc(c.Release, func() { c.open.Add(-1) })
	} else {
		c.open.Add(-1)
	}
}

type capSession struct {
	store.Session
	c *Capacity
}

func (s *capSession) Close() error {
	s.c.release()
	return s.Session.Close()
}

// RefuseReads wraps a real store whose every read fails, as a server that
// answers each query with an error (a missing grant, a dropped table):
// a phase whose operations all failed must not pass for a measurement.
type RefuseReads struct {
	store.Store
}

func (r *RefuseReads) Open(ctx context.Context) (store.Session, error) {
	s, err := r.Store.Open(ctx)
	if err != nil {
		return nil, err
	}
	return refuseSession{s}, nil
}

type refuseSession struct{ store.Session }

var errRefused = errors.New("storefault: permission denied for table (injected)")

func (refuseSession) Scan(context.Context, *store.Table, store.Query, func(store.Row) error) (int, error) {
	return 0, errRefused
}

// LoseRows wraps a real store that loses a row now and then after
// acknowledging it: one Scan in Every finds nothing, as a read of a row
// the store no longer has. Nothing written is dropped, so verification
// after the writes passes; the reads must catch it.
type LoseRows struct {
	store.Store
	Every int64
	n     atomic.Int64
}

func (l *LoseRows) Open(ctx context.Context) (store.Session, error) {
	s, err := l.Store.Open(ctx)
	if err != nil {
		return nil, err
	}
	return &loseSession{Session: s, l: l}, nil
}

type loseSession struct {
	store.Session
	l *LoseRows
}

func (s *loseSession) Scan(ctx context.Context, t *store.Table, q store.Query, fn func(store.Row) error) (int, error) {
	if s.l.n.Add(1)%s.l.Every == 0 {
		return 0, nil
	}
	return s.Session.Scan(ctx, t, q, fn)
}
