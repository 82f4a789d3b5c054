// Package storefault holds fakes that inject faults into a real store,
// for tests of what kurabe must catch. They are never registered as
// built-in stores.
package storefault

import (
	"context"
	"sync/atomic"

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
