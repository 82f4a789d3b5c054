package postal

import (
	"context"
	"fmt"
	"time"

	"kurabe/store"
	"kurabe/store/file"
)

// Import is the record kurabe dataset import keeps beside the postal
// table it loaded: which file, and how many records. A workload run on
// the store reads it to use those records rather than load the shipped
// data set over them, and says so.
//
// The record is a table of kurabe's own (postal_import: kurabe_postal_import
// in SQLite, kurabe.postal_import on PostgreSQL), written through the
// Store interface like any other, so every store with named tables keeps
// one. The file store does not: it names a file path's tables by the
// order they are first used, so reading a record before the workload's
// tables are set up would move the postal table to another file.
type Import struct {
	Fingerprint
	Records int64
	At      time.Time // when the import finished
}

// ImportTable is the table the record is kept in: one row.
func ImportTable() *store.Table {
	return &store.Table{Name: "postal_import", Columns: []store.Column{
		{Name: "id", Kind: store.Int},
		{Name: "file", Kind: store.Text},
		{Name: "size", Kind: store.Int},
		{Name: "sha256", Kind: store.Text},
		{Name: "records", Kind: store.Int},
		{Name: "imported", Kind: store.Int}, // Unix seconds
	}}
}

// Records says whether st can keep an import's record (see Import).
func Records(st store.Store) bool {
	_, isFile := st.(*file.Store)
	return !isFile
}

// SaveImport records that st's postal table holds imp, in place of any
// record before.
func SaveImport(ctx context.Context, st store.Store, imp Import) error {
	if !Records(st) {
		return nil
	}
	t := ImportTable()
	if err := st.Setup(ctx, []*store.Table{t}); err != nil {
		return err
	}
	s, err := st.Open(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	return s.Insert(ctx, t, store.Row{
		{Int: 1}, {Text: []byte(imp.Path)}, {Int: imp.Size}, {Text: []byte(imp.SHA256)},
		{Int: imp.Records}, {Int: imp.At.Unix()},
	})
}

// FindImport returns the import st's postal table was loaded with, and
// whether the table still holds it: as many records as were imported
// (a run's load cut short, or kurabe serve's load of the shipped data set,
// leaves another count). It returns nil when no import is recorded (no
// record table: the store was never imported into, or it cannot keep a
// record).
func FindImport(ctx context.Context, st store.Store) (imp *Import, holds bool, err error) {
	if !Records(st) {
		return nil, false, nil
	}
	t := ImportTable()
	if n, err := st.Count(ctx, t); err != nil || n == 0 {
		// No such table: nothing was imported into this store.
		return nil, false, nil
	}
	s, err := st.Open(ctx)
	if err != nil {
		return nil, false, err
	}
	defer s.Close()
	_, err = s.Scan(ctx, t, store.Query{Limit: 1}, func(r store.Row) error {
		if len(r) < 6 {
			return fmt.Errorf("the record of the import in %s has %d columns, want 6", store.TableName(st, t), len(r))
		}
		imp = &Import{
			Fingerprint: Fingerprint{Path: string(r[1].Text), Size: r[2].Int, SHA256: string(r[3].Text)},
			Records:     r[4].Int,
			At:          time.Unix(r[5].Int, 0).UTC(),
		}
		return nil
	})
	if err != nil || imp == nil {
		return nil, false, err
	}
	n, err := st.Count(ctx, Table())
	return imp, err == nil && n == imp.Records, nil
}

// ForgetImport drops the record of st's import, when its postal table is
// loaded with something else.
func ForgetImport(ctx context.Context, st store.Store) error {
	if !Records(st) {
		return nil
	}
	return store.Truncate(ctx, st, ImportTable())
}
