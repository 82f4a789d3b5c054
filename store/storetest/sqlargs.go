package storetest

import (
	"context"
	"testing"

	"kurabe/store"
)

// PointerArgs checks that sq takes a *int64 argument as the integer it
// points at, read at each call (a client sets its integers and passes
// the same arguments again), and a nil one as NULL. table names Table()
// as the store does, holding n = 1 to 1000 at least, once each.
func PointerArgs(t *testing.T, sq store.SQLSession, table string) {
	t.Helper()
	ph := "?"
	if sq.Dialect() == "postgres" {
		ph = "$1"
	}
	ctx := context.Background()
	q := "SELECT count(*) FROM " + table + " WHERE n <= coalesce(" + ph + ", 5)"
	var v int64
	args := []any{&v}
	for _, c := range []struct {
		v    int64
		nil_ bool
		want int64
	}{{v: 10, want: 10}, {v: 300, want: 300}, {v: 20, want: 20}, {nil_: true, want: 5}} {
		v = c.v
		if c.nil_ {
			args[0] = (*int64)(nil)
		}
		var got int64
		n, _, err := sq.Query(ctx, q, args, func(first int64) { got = first })
		if err != nil || n != 1 || got != c.want {
			t.Errorf("%s with *int64 -> %d (nil %v): %d rows, count %d, %v; want 1 row, count %d", q, c.v, c.nil_, n, got, err, c.want)
		}
	}
	// Exec reads it too: an UPDATE of the rows up to *p changes that
	// many (it moves them out of the way and back, since MySQL counts
	// only rows whose values changed).
	v = 7
	if ch, err := sq.Exec(ctx, "UPDATE "+table+" SET n = n + 1000000 WHERE n <= "+ph, &v); err != nil || ch != 7 {
		t.Errorf("UPDATE with a *int64 of 7 changed %d rows (%v), want 7", ch, err)
	}
	if ch, err := sq.Exec(ctx, "UPDATE "+table+" SET n = n - 1000000 WHERE n > "+ph, int64(1000000)); err != nil || ch != 7 {
		t.Errorf("moving the rows back changed %d rows (%v), want 7", ch, err)
	}
}
