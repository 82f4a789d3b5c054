package store

import (
	"context"
	"errors"
	"testing"
)

// failingAfter is a fake session, for the fault no real store gives on
// demand: its inserts fail from the n-th on.
type failingAfter struct {
	n, stored int
}

var errFull = errors.New("fake: full")

func (f *failingAfter) Insert(context.Context, *Table, Row) error {
	if f.stored == f.n {
		return errFull
	}
	f.stored++
	return nil
}

func (f *failingAfter) Scan(context.Context, *Table, Query, func(Row) error) (int, error) {
	return 0, nil
}

func (f *failingAfter) Close() error { return nil }

// TestInsertBatchOneByOneSaysWhatWentIn: without a batch path, a batch that
// fails part way says how many of its rows were stored, so that a workload
// counting the rows it added for verification does not take them for
// extra rows.
func TestInsertBatchOneByOneSaysWhatWentIn(t *testing.T) {
	rows := make([]Row, 5)
	for _, c := range []struct{ failAt, want int }{{0, 0}, {3, 3}, {5, 5}} {
		s := &failingAfter{n: c.failAt}
		err := InsertBatch(context.Background(), s, &Table{Name: "t"}, rows)
		stored := len(rows)
		if err != nil {
			stored = 0
			if p, ok := errors.AsType[*PartialError](err); ok {
				stored = p.Stored
			}
			if !errors.Is(err, errFull) {
				t.Errorf("fail at %d: %v does not wrap the insert's error", c.failAt, err)
			}
		}
		if stored != c.want || s.stored != c.want {
			t.Errorf("fail at %d: %d rows said stored, %d stored; want %d", c.failAt, stored, s.stored, c.want)
		}
	}
}
