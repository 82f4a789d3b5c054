package records

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"kurabe/dataset/postal"
	"kurabe/numfmt"
	"kurabe/store"
	"kurabe/workload"
)

// Config chooses a data set.
type Config struct {
	Dataset string // "postal" or "records"
	// Rows is the records to generate, or the postal records to take from
	// the start of the file; 0 means the default (DefaultRows, or all
	// 120,720 postal records).
	Rows int64
	Size int    // records: payload bytes
	Seed uint64 // records: the generator's seed
	// File is a KEN_ALL file to read instead of the shipped postal data
	// set (postal only); "" is the shipped one.
	File string
}

// DefaultConfig is the shipped postal data set, whole, and records of the
// page-size study's size when records are chosen.
func DefaultConfig() Config {
	return Config{Dataset: "postal", Size: DefaultSize, Seed: DefaultSeed}
}

// Validate says what to change in a bad configuration.
func (c Config) Validate() error {
	switch {
	case c.Dataset != "postal" && c.Dataset != "records":
		return fmt.Errorf("--dataset %q: want postal (Japan Post's 120,720 postal codes, shipped) or records (generated fixed-size rows)", c.Dataset)
	case c.Rows < 0:
		return fmt.Errorf("--dataset-rows %d: want 0 (the default) or more", c.Rows)
	case c.File != "" && c.Dataset != "postal":
		return fmt.Errorf("--dataset-file %s: a KEN_ALL file is the postal data set; add --dataset postal, or drop --dataset-file", c.File)
	case c.Size < 1 || c.Size > 1<<20:
		return fmt.Errorf("--record-size %d: want 1 to 1048576 bytes", c.Size)
	}
	return nil
}

// Params describes the data set for the result document.
func (c Config) Params(rows int64) map[string]string {
	p := map[string]string{"dataset": c.Dataset, "rows": strconv.FormatInt(rows, 10)}
	if c.Dataset == "records" {
		p["record_size"] = strconv.Itoa(c.Size)
		p["records_seed"] = strconv.FormatUint(c.Seed, 10)
	}
	if c.File != "" {
		p["dataset_file"] = c.File
	}
	return p
}

// Params describes the data set the source read for the result document:
// the configuration's, and for a file its size and SHA-256, since Japan
// Post's file has the same name every month and two runs on two months'
// files must tell them apart (kurabe compare shows the change).
func (s *Source) Params() map[string]string {
	p := s.cfg.Params(s.rows)
	if imp := s.imported; imp != nil {
		p["dataset_import"] = imp.Path
		p["dataset_file_bytes"] = strconv.FormatInt(imp.Size, 10)
		p["dataset_file_sha256"] = imp.SHA256
	}
	if fp := s.file; fp != nil {
		p["dataset_file_bytes"] = strconv.FormatInt(fp.Size, 10)
		p["dataset_file_sha256"] = fp.SHA256
	}
	return p
}

// Flags binds --dataset, --dataset-rows, --record-size and --records-seed
// into c. kurabe registers every workload's flags in one flag set, so a
// flag another workload registered first is shared: setting it sets it
// for every workload bound to it. who names the workload in the help.
// With withDataset false only the records flags are bound (for a workload
// that always uses records).
func (c *Config) Flags(fs *flag.FlagSet, who string, withDataset bool) {
	if withDataset {
		shared(fs, who, "dataset", "the data set: postal (Japan Post's 120,720 postal codes, shipped with kurabe) or records (generated fixed-size rows)", (*stringVal)(&c.Dataset))
		FileFlag(fs, who, &c.File)
		shared(fs, who, "dataset-rows", "rows of the data set: records to generate (default 100k), or the first N postal records (default all); k, M and G suffixes, e.g. 10M", (*RowCount)(&c.Rows))
	}
	shared(fs, who, "record-size", "payload bytes of each generated record (808 as in the page-size study)", (*intVal)(&c.Size))
	shared(fs, who, "records-seed", "seed of the generated records: the same seed makes the same rows on every store and run", (*uint64Val)(&c.Seed))
}

// FileFlag binds --dataset-file into file, shared with every other
// workload that binds it.
func FileFlag(fs *flag.FlagSet, who string, file *string) {
	shared(fs, who, "dataset-file", "read the postal data set from this KEN_ALL.CSV (Japan Post's file as published, CP932 or UTF-8, plain or .gz) instead of the copy shipped with kurabe; check it first with kurabe dataset import FILE", (*stringVal)(file))
}

// fanout is a flag bound to several workloads' settings.
type fanout struct {
	whos    []string
	usage   string
	targets []flag.Value
}

func (f *fanout) String() string {
	if f == nil || len(f.targets) == 0 {
		return ""
	}
	return f.targets[0].String()
}

func (f *fanout) Set(s string) error {
	for _, t := range f.targets {
		if err := t.Set(s); err != nil {
			return err
		}
	}
	return nil
}

func shared(fs *flag.FlagSet, who, name, usage string, v flag.Value) {
	if fl := fs.Lookup(name); fl != nil {
		if fo, ok := fl.Value.(*fanout); ok {
			fo.targets = append(fo.targets, v)
			fo.whos = append(fo.whos, who)
			fl.Usage = strings.Join(fo.whos, ", ") + ": " + fo.usage
			return
		}
		// Another package owns a flag of this name: leave it, and this
		// workload keeps its default. Tests of the flag set catch it.
		return
	}
	fs.Var(&fanout{whos: []string{who}, usage: usage, targets: []flag.Value{v}}, name, who+": "+usage)
}

type stringVal string

func (s *stringVal) String() string     { return string(*s) }
func (s *stringVal) Set(v string) error { *s = stringVal(v); return nil }

// RowCount is a flag.Value for a row count as ParseCount reads it (10M,
// 500k), for workloads' flags.
type RowCount int64

// String is empty for 0, which every flag of this type takes as "the
// default" (a whole data set, none, the flag's own default): help then
// shows the default its usage names, not "(default 0)".
func (c *RowCount) String() string {
	if c == nil || *c == 0 {
		return ""
	}
	return FormatCount(int64(*c))
}

func (c *RowCount) Set(v string) error {
	n, err := ParseCount(v)
	if err != nil {
		return err
	}
	*c = RowCount(n)
	return nil
}

type intVal int

func (i *intVal) String() string { return strconv.Itoa(int(*i)) }
func (i *intVal) Set(v string) error {
	n, err := strconv.Atoi(v)
	if err != nil {
		return fmt.Errorf("%q is not a whole number", v)
	}
	*i = intVal(n)
	return nil
}

type uint64Val uint64

func (u *uint64Val) String() string { return strconv.FormatUint(uint64(*u), 10) }
func (u *uint64Val) Set(v string) error {
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return fmt.Errorf("%q is not a whole number of 0 or more", v)
	}
	*u = uint64Val(n)
	return nil
}

// Source is a chosen data set with its rows at hand by position: row i
// (from 0) has key i+1. Generated records cost nothing to keep; the postal
// records are decoded once, when the source is opened, into one arena
// (about 25 MB for the whole file), so that a measured load times the
// store and not kurabe's CSV and CP932 decoding.
//
// A Source is read-only once opened; any number of goroutines may fill
// rows from it at once.
type Source struct {
	cfg   Config
	table *store.Table
	rows  int64
	gen   *Generator
	pos   *postalRows
	file  *postal.Fingerprint // the file read (--dataset-file), nil for the shipped data set
	// imported is the import the rows were read back from, when they are
	// a store's (ForStore), nil otherwise.
	imported *postal.Import
}

// Open opens the data set c names.
func Open(c Config) (*Source, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	s := &Source{cfg: c}
	if c.Dataset == "records" {
		s.table = Table()
		s.rows = c.Rows
		if s.rows == 0 {
			s.rows = DefaultRows
		}
		s.gen = NewGenerator(c.Seed, c.Size)
		return s, nil
	}
	s.table = postal.Table()
	p, fp, err := readPostal(c.File, c.Rows)
	if err != nil && c.File != "" {
		// The file is to blame, so a scenario file's error points at its
		// dataset-file line.
		return nil, workload.Blame("dataset-file", err)
	}
	if err != nil {
		return nil, err
	}
	s.pos, s.rows, s.file = p, int64(p.n), fp
	return s, nil
}

// Table is the table the data set loads into.
func (s *Source) Table() *store.Table { return s.table }

// Rows is the number of rows.
func (s *Source) Rows() int64 { return s.rows }

// Config is the configuration the source was opened with.
func (s *Source) Config() Config { return s.cfg }

// NewRow returns a row of the table's shape, for Fill.
func (s *Source) NewRow() store.Row { return make(store.Row, len(s.table.Columns)) }

// Fill sets row to the data set's row i (0-based; its key is i+1). Text
// values point into the source's memory and must not be changed.
func (s *Source) Fill(row store.Row, i int64) {
	if s.gen != nil {
		s.gen.Fill(row, i+1)
		return
	}
	s.pos.fill(row, int(i))
}

// Bytes is what rows from..to-1 weigh as kurabe counts bytes moved: 8
// per integer and the length of each text.
func (s *Source) Bytes(from, to int64) int64 {
	if s.gen != nil {
		return (to - from) * int64(8+s.gen.Size())
	}
	return s.pos.sum[to] - s.pos.sum[from]
}

// Iter returns a function yielding rows from..to-1 in order, as
// store.BulkLoader's next wants them; the row is reused.
func (s *Source) Iter(from, to int64) func() (store.Row, bool) {
	row := s.NewRow()
	i := from
	return func() (store.Row, bool) {
		if i >= to {
			return nil, false
		}
		s.Fill(row, i)
		i++
		return row, true
	}
}

// LoadTable fills t, a table of the source's shape under a name of its
// own (one source may fill the tables of several workloads), with every
// row: through the store's bulk path when it has one (COPY, LOAD DATA,
// SQLite's insert in one transaction), in batches of batch rows
// otherwise. It returns the rows loaded. It is for preparing a workload's
// data, not for measuring a load (that is the load workload's job).
func (s *Source) LoadTable(ctx context.Context, st store.Store, t *store.Table, batch int) (int64, error) {
	if b, ok := st.(store.BulkLoader); ok {
		n, err := b.BulkLoad(ctx, t, s.Iter(0, s.rows))
		if err == nil && n != s.rows {
			err = fmt.Errorf("the store's bulk load took %d of %d rows", n, s.rows)
		}
		return n, err
	}
	sess, err := st.Open(ctx)
	if err != nil {
		return 0, err
	}
	defer sess.Close()
	return s.insertRange(ctx, sess, t, 0, s.rows, batch)
}

// InsertRange inserts rows from..to-1 through sess in batches of batch
// rows with store.InsertBatch, and returns the rows inserted.
func (s *Source) InsertRange(ctx context.Context, sess store.Session, from, to int64, batch int) (int64, error) {
	return s.insertRange(ctx, sess, s.table, from, to, batch)
}

func (s *Source) insertRange(ctx context.Context, sess store.Session, t *store.Table, from, to int64, batch int) (int64, error) {
	rows := make([]store.Row, 0, batch)
	vals := make([]store.Value, batch*len(t.Columns))
	var done int64
	for i := from; i < to; {
		rows = rows[:0]
		for j := 0; j < batch && i < to; j, i = j+1, i+1 {
			r := store.Row(vals[j*len(t.Columns) : (j+1)*len(t.Columns)])
			s.Fill(r, i)
			rows = append(rows, r)
		}
		if err := store.InsertBatch(ctx, sess, t, rows); err != nil {
			if p, ok := errors.AsType[*store.PartialError](err); ok {
				done += int64(p.Stored)
			}
			return done, err
		}
		done += int64(len(rows))
	}
	return done, nil
}

// postalRows are the postal records decoded: the text columns in one
// arena, with offsets, and the flag columns as small integers.
type postalRows struct {
	n     int
	text  []byte
	off   []uint32 // textCols+1 offsets per row, the last shared with the next row's first
	flags []uint8  // the reader takes single digits only, so a byte holds each
	sum   []int64  // sum[i]: bytes of rows 0..i-1
}

const (
	postalText  = 9 // text columns after the key
	postalFlags = 6 // integer columns after them
)

func readPostal(file string, limit int64) (*postalRows, *postal.Fingerprint, error) {
	r, closer, err := postal.OpenFile(file)
	if err != nil {
		if _, serr := os.Stat(file); errors.Is(serr, fs.ErrNotExist) {
			err = fmt.Errorf("%w, or leave out --dataset-file for the shipped data set", err)
		}
		return nil, nil, err
	}
	defer closer.Close()
	p := newPostalRows()
	for (limit == 0 || int64(p.n) < limit) && r.Next() {
		p.add(r.Record().Fields[:postalText], r.Record().Flags[:])
	}
	if err := r.Err(); err != nil {
		if _, ok := errors.AsType[*postal.SyntaxError](err); ok && r.Rows() > 0 {
			return nil, nil, fmt.Errorf("reading the postal data set: %w; kurabe dataset import FILE lists every bad row", err)
		}
		// A file refused before its first row (an archive, a database)
		// or one that cannot be read through: the error says it all.
		return nil, nil, fmt.Errorf("reading the postal data set: %w", err)
	}
	if p.n == 0 {
		return nil, nil, fmt.Errorf("--dataset-file %s holds no records (%s rows read); give Japan Post's KEN_ALL.CSV, checked with kurabe dataset import FILE", r.File(), numfmt.Group(int64(r.Rows())))
	}
	fp, ok, err := r.Fingerprint()
	if err != nil {
		return nil, nil, fmt.Errorf("reading the postal data set: %w", err)
	}
	p.finish()
	if !ok {
		return p, nil, nil
	}
	return p, &fp, nil
}

func newPostalRows() *postalRows {
	return &postalRows{text: make([]byte, 0, 24<<20), off: []uint32{0}}
}

// add appends one record: its text columns and its flags.
func (p *postalRows) add(text []string, flags []int) {
	for _, f := range text {
		p.text = append(p.text, f...)
		p.off = append(p.off, uint32(len(p.text)))
	}
	for _, f := range flags {
		p.flags = append(p.flags, uint8(f))
	}
	p.n++
}

// finish sums the rows' sizes, once every row is added.
func (p *postalRows) finish() {
	p.sum = make([]int64, p.n+1)
	for i := range p.n {
		text := p.off[(i+1)*postalText] - p.off[i*postalText]
		p.sum[i+1] = p.sum[i] + int64(text) + 8*(1+postalFlags)
	}
}

func (p *postalRows) fill(row store.Row, i int) {
	row[0] = store.Value{Int: int64(i) + 1}
	o := p.off[i*postalText : (i+1)*postalText+1]
	for j := 0; j < postalText; j++ {
		row[1+j] = store.Value{Text: p.text[o[j]:o[j+1]:o[j+1]]}
	}
	for j, f := range p.flags[i*postalFlags : (i+1)*postalFlags] {
		row[1+postalText+j] = store.Value{Int: int64(f)}
	}
}
