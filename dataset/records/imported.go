package records

import (
	"context"
	"fmt"
	"path/filepath"

	"kurabe/dataset/postal"
	"kurabe/numfmt"
	"kurabe/store"
)

// ForStore is the source to load into st, before st's tables are set up,
// and what to say of it under the results. A store whose postal table
// holds what kurabe dataset import put there (postal.FindImport) keeps
// it: the data set is then those records, read back from the table, and
// they are what the workload loads (into table, its own: the postal table
// itself, or a client's copy with --isolate), so that the table holds them
// after the run as before it. Otherwise the data set is s.
//
// The data set is s, and the import is not used, when the user chose
// another (--dataset-file, --dataset records) or when use is false (a
// workload that measures loading its own data set: -w load). If table is
// the import's own table, loading s replaces the import: its record is
// dropped and the note says so. A record whose table no longer holds the
// import's count (a load cut short, kurabe serve's load) is dropped too.
func (s *Source) ForStore(ctx context.Context, st store.Store, table *store.Table, use bool, who string) (*Source, string, error) {
	if s.cfg.Dataset != "postal" {
		return s, "", nil
	}
	imp, holds, err := postal.FindImport(ctx, st)
	if err != nil || imp == nil {
		// A record that cannot be read is no reason to fail a run that
		// would load its own data set anyway.
		return s, "", nil
	}
	pt := postal.Table()
	name := store.TableName(st, pt)
	own := table.Name == pt.Name
	what := fmt.Sprintf("the import of %s (%s)", imp.Path, numfmt.Count(imp.Records, "record", "records"))
	switch {
	case !holds:
		if err := postal.ForgetImport(ctx, st); err != nil {
			return nil, "", fmt.Errorf("dropping the record of %s, which %s no longer holds: %w", what, name, err)
		}
		return s, fmt.Sprintf("%s no longer held %s (another load replaced it or was cut short), so %s loaded %s and the import's record was dropped", name, what, who, s.describe()), nil
	case s.cfg.File != "" || !use:
		if !own {
			return s, "", nil // --isolate: the clients' tables are copies; the import's is not touched
		}
		if err := postal.ForgetImport(ctx, st); err != nil {
			return nil, "", fmt.Errorf("dropping the record of %s, which this run replaces: %w", what, err)
		}
		why := "--dataset-file"
		if !use {
			why = who + " loads its own data set"
		}
		return s, fmt.Sprintf("%s held %s; this run loaded %s into it in its place (%s), so the import's record was dropped: run kurabe dataset import again to have it back", name, what, s.describe(), why), nil
	}
	src, err := fromStore(ctx, st, imp, s.cfg)
	if err != nil {
		return nil, "", fmt.Errorf("reading %s back from %s: %w", what, name, err)
	}
	return src, src.describe(), nil
}

// describe names the data set for a note: "data set: imported from
// KEN_ALL.CSV, 1,997 records", or what s read.
func (s *Source) describe() string {
	switch {
	case s.imported != nil:
		n := numfmt.Count(s.rows, "record", "records")
		if s.rows < s.imported.Records {
			n = fmt.Sprintf("the first %s of its %s", numfmt.Group(s.rows), numfmt.Group(s.imported.Records))
		}
		return fmt.Sprintf("data set: imported from %s, %s (kurabe dataset import put them in the store's postal table on %s; SHA-256 %.12s…)", filepath.Base(s.imported.Path), n, s.imported.At.Format("2006-01-02"), s.imported.SHA256)
	case s.file != nil:
		return fmt.Sprintf("%s (%s)", s.file.Path, numfmt.Count(s.rows, "record", "records"))
	}
	return fmt.Sprintf("the shipped postal data set (%s)", numfmt.Count(s.rows, "record", "records"))
}

// Imported is the import the source's rows were read back from, or nil.
func (s *Source) Imported() *postal.Import { return s.imported }

// fromStore reads the postal table's records, in key order, up to c.Rows
// of them when it is set.
func fromStore(ctx context.Context, st store.Store, imp *postal.Import, c Config) (*Source, error) {
	sess, err := st.Open(ctx)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	p := newPostalRows()
	text := make([]string, postalText)
	flags := make([]int, postalFlags)
	t := postal.Table()
	q := store.Query{}
	if c.Rows > 0 {
		q.Limit = int(c.Rows)
	}
	var want int64 = 1
	_, err = sess.Scan(ctx, t, q, func(r store.Row) error {
		if len(r) != len(t.Columns) {
			return fmt.Errorf("a row of %d columns, want %d", len(r), len(t.Columns))
		}
		if r[0].Int != want {
			return fmt.Errorf("key %d where %d was due: the table is not as the import left it", r[0].Int, want)
		}
		want++
		for i := range text {
			text[i] = string(r[1+i].Text)
		}
		for i := range flags {
			flags[i] = int(r[1+postalText+i].Int)
		}
		p.add(text, flags)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if p.n == 0 {
		return nil, fmt.Errorf("the table holds no records")
	}
	p.finish()
	return &Source{cfg: c, table: postal.Table(), rows: int64(p.n), pos: p, imported: imp}, nil
}

// Sources is a workload's data set store by store: Base, as built, and
// the source ForStore chose for each store it ran on, so that the
// workload's parameters name the data set the stores had.
type Sources struct {
	Base *Source
	cur  *Source
	used []*Source
}

// Current is the source for the store being run: Base until Choose.
func (u *Sources) Current() *Source {
	if u.cur == nil {
		return u.Base
	}
	return u.cur
}

// Choose picks the source for st (Base.ForStore) and returns the note.
func (u *Sources) Choose(ctx context.Context, st store.Store, table *store.Table, use bool, who string) (string, error) {
	src, note, err := u.Base.ForStore(ctx, st, table, use, who)
	if err != nil {
		return "", err
	}
	u.cur = src
	u.used = append(u.used, src)
	return note, nil
}

// Params is the data set's parameters: those of the source every store
// had, or, when stores had different ones (one held an import), Base's
// with dataset_varies saying so.
func (u *Sources) Params() map[string]string {
	if len(u.used) == 0 {
		return u.Base.Params()
	}
	first := u.used[0]
	for _, s := range u.used[1:] {
		if s.key() != first.key() {
			p := u.Base.Params()
			p["dataset_varies"] = "some stores held an import of their own; see the notes"
			return p
		}
	}
	return first.Params()
}

// key tells sources of different data apart.
func (s *Source) key() string {
	if s.imported != nil {
		return "import " + s.imported.SHA256 + " " + fmt.Sprint(s.rows)
	}
	return "built"
}
