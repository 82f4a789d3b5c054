package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Swapper is implemented by stores that can put a table's new rows in
// place of its old ones in one step: the rows are loaded into a staging
// table beside it, and only a load that succeeds is swapped in. An
// interrupted or failed load then leaves the table as it was.
type Swapper interface {
	// Swap puts staged (a table Setup made with t's columns and no
	// indexes, now loaded) in t's place, with t's indexes, in one step
	// that happens whole or not at all: t's earlier rows are gone only
	// once staged's are in. staged is gone after it. A t kurabe did not
	// create is an error, never touched.
	Swap(ctx context.Context, staged, t *Table) error
	// Drop removes a table kurabe created, such as the staging table of
	// a load that failed; one that is not there is no error.
	Drop(ctx context.Context, t *Table) error
}

// Staged is the staging table Replace loads t's new rows into: t's
// columns under t's name and _new, without indexes (made once, at the
// swap, which is quicker than keeping them up to date row by row).
func Staged(t *Table) *Table {
	return &Table{ID: t.ID, Name: t.Name + "_new", Columns: t.Columns, AutoKey: t.AutoKey}
}

// Replace fills t anew with what load puts in the table it is given, and
// reports whether that was done in one step (Swapper): then a load that
// fails or is interrupted leaves t as it was. A store without it has t
// set up empty and loaded in place, so a load that fails leaves t
// incomplete. load's count is returned as it is.
func Replace(ctx context.Context, st Store, t *Table, load func(*Table) (int64, error)) (n int64, atomic bool, err error) {
	sw, ok := st.(Swapper)
	if !ok {
		if err := st.Setup(ctx, []*Table{t}); err != nil {
			return 0, false, err
		}
		n, err := load(t)
		return n, false, err
	}
	staged := Staged(t)
	if err := st.Setup(ctx, []*Table{staged}); err != nil {
		return 0, true, err
	}
	n, err = load(staged)
	if err == nil {
		err = sw.Swap(ctx, staged, t)
	}
	if err != nil {
		// The staging table goes even when ctx is done (an interrupt):
		// it holds a copy of the data nobody asked to keep.
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if derr := sw.Drop(dctx, staged); derr != nil {
			err = errors.Join(err, fmt.Errorf("and the staging table %s was left behind: %w", staged.Name, derr))
		}
	}
	return n, true, err
}

// TableNamer is implemented by stores that give kurabe's tables a name of
// their own (a prefix, a schema): TableName is t's name as a user would
// write it in a query of the store, such as kurabe_postal or kurabe.postal.
type TableNamer interface {
	TableName(t *Table) string
}

// TableName is t's name in st as a user would query it: the store's own
// (TableNamer), or t.Name.
func TableName(st Store, t *Table) string {
	if n, ok := st.(TableNamer); ok {
		return n.TableName(t)
	}
	return t.Name
}
