// Package rangeread is the range workload: read N consecutive records
// starting at a random position in key order, for a sweep of N, over the
// postal data set (120,720 records of Japan Post's KEN_ALL.CSV). It
// reproduces the study that fetched 1 to 5,000 postal records from a random
// offset and drew latency against records fetched, one line per store.
//
// Each N is a phase of its own; the report fits a least-squares line per
// store (intercept: the fixed cost of a request; slope: the cost of each
// record) and says where two stores' lines cross.
//
// --by key reads WHERE id >= start ORDER BY id LIMIT N; --by offset reads
// ORDER BY id LIMIT N OFFSET start, the way many applications page, which
// most stores answer by walking past the skipped rows.
package rangeread

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"kurabe/dataset/postal"
	"kurabe/dataset/records"
	"kurabe/numfmt"
	"kurabe/store"
	"kurabe/workload"
)

// Config holds the workload's settings.
type Config struct {
	Records string // the sweep of N, comma-separated
	By      string // key or offset
	Rows    int    // load only this many records of the data set (0: all)
	File    string // a KEN_ALL file instead of the shipped data set
}

// DefaultConfig is the sweep of the study.
func DefaultConfig() Config {
	return Config{Records: "1,100,200,500,1000,2000,5000", By: "key"}
}

// Definition registers the workload's flags.
type Definition struct {
	cfg    Config
	src    *records.Source // decoded by Build, for srcKey
	srcKey srcKey
}

type srcKey struct {
	file string
	rows int
}

// New returns the definition with default settings.
func New() workload.Definition { return &Definition{cfg: DefaultConfig()} }

func (d *Definition) Summary() string {
	return "read N records from a random position of the postal data set, for a sweep of N, with a fitted line per store"
}

// Ops are the phases: one per N of the sweep, named "range N".
func (d *Definition) Ops() (all, defaults []string) {
	ns, _ := parseRecords(d.cfg.Records)
	for _, n := range ns {
		all = append(all, "range "+strconv.Itoa(n))
	}
	return all, all
}

// DefaultCount is the repetitions per N of the study.
func (d *Definition) DefaultCount() int64 { return 100 }

func (d *Definition) Flags(fs *flag.FlagSet) {
	fs.StringVar(&d.cfg.Records, "records", d.cfg.Records, "range: records read per request, a comma-separated sweep; each N is a phase of its own")
	fs.StringVar(&d.cfg.By, "by", d.cfg.By, "range: position the read by key (WHERE id >= start) or by offset (LIMIT/OFFSET)")
	fs.IntVar(&d.cfg.Rows, "rows", d.cfg.Rows, "range: load only this many records of the data set (0: all 120,720)")
	records.FileFlag(fs, "range", &d.cfg.File)
}

func parseRecords(s string) ([]int, error) {
	var ns []int
	for _, part := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("--records %q: want record counts of 1 or more, comma-separated, e.g. 1,100,1000", s)
		}
		if !slices.Contains(ns, n) {
			ns = append(ns, n)
		}
	}
	return ns, nil
}

func (d *Definition) Build(ops []string) (workload.Workload, error) {
	c := d.cfg
	ns, err := parseRecords(c.Records)
	if err != nil {
		return nil, err
	}
	if c.By != "key" && c.By != "offset" {
		return nil, fmt.Errorf("--by %q: want key or offset", c.By)
	}
	if c.Rows < 0 {
		return nil, fmt.Errorf("--rows %d: want 0 (all) or more", c.Rows)
	}
	all, _ := d.Ops()
	var phases []workload.Phase
	for _, op := range ops {
		i := slices.Index(all, op)
		if i < 0 {
			// "range 100" may be given as "100".
			i = slices.Index(all, "range "+strings.TrimSpace(op))
		}
		if i < 0 {
			return nil, workload.Blame("ops", fmt.Errorf("range has no operation %q; its operations follow --records: %s", op, strings.Join(all, ", ")))
		}
		ph := workload.Phase{Name: all[i], Weights: make([]int, len(ns)), Sweep: "records", SweepValue: float64(ns[i])}
		ph.Weights[i] = 1
		phases = append(phases, ph)
	}
	src, err := d.source()
	if err != nil {
		return nil, err
	}
	total := func() (int64, error) {
		all := records.DefaultConfig()
		all.File = c.File
		src, err := records.Open(all)
		if err != nil {
			return 0, err
		}
		return src.Rows(), nil
	}
	if err := fits(c, src.Rows(), phases, total); err != nil {
		return nil, err
	}
	w := &ranges{cfg: c, src: records.Sources{Base: src}, table: postal.Table(), phases: phases}
	for _, n := range ns {
		w.kinds = append(w.kinds, workload.Kind{Name: "range " + strconv.Itoa(n)})
		w.ns = append(w.ns, n)
	}
	return w, nil
}

// source decodes the data set once, before any store is opened, so a
// missing or damaged file is refused up front and the rows a phase can
// read are known. Builds with the same file and --rows (--isolate builds
// one workload per client) share it: a Source is read-only.
func (d *Definition) source() (*records.Source, error) {
	key := srcKey{d.cfg.File, d.cfg.Rows}
	if d.src != nil && d.srcKey == key {
		return d.src, nil
	}
	c := records.DefaultConfig()
	c.File, c.Rows = d.cfg.File, int64(d.cfg.Rows)
	src, err := records.Open(c)
	if err != nil {
		return nil, err
	}
	d.src, d.srcKey = src, key
	return src, nil
}

// fits says what to change when a phase would read more rows than the
// data set loads. When --rows is what limits, total says how many records
// the data set holds in all (it is decoded again, on this error path only),
// so that raising --rows is advised only when the data set has the records.
func fits(c Config, rows int64, phases []workload.Phase, total func() (int64, error)) error {
	what := "the shipped postal data set"
	if c.File != "" {
		what = c.File
	}
	for _, ph := range phases {
		n := int64(ph.SweepValue)
		if n <= rows {
			continue
		}
		over := fmt.Sprintf("--records %s: %s reads %s consecutive records, more than the %s", c.Records, ph.Name, numfmt.Group(n), numfmt.Group(rows))
		if c.Rows == 0 || rows < int64(c.Rows) {
			return fmt.Errorf("%s that %s holds; lower --records to %d or less", over, what, rows)
		}
		all, err := total()
		switch {
		case err != nil:
			return err
		case all >= n:
			return fmt.Errorf("%s that --rows %d loads; raise --rows to %d or more, or lower --records", over, c.Rows, n)
		case all == rows:
			return fmt.Errorf("%s that --rows %d loads, and %s holds only %s; lower --records to %d or less", over, c.Rows, what, numfmt.Group(all), rows)
		default:
			return fmt.Errorf("%s that --rows %d loads, and %s holds only %s; lower --records to %d or less, or to %d or less with --rows 0 (all)", over, c.Rows, what, numfmt.Group(all), rows, all)
		}
	}
	return nil
}

type ranges struct {
	cfg    Config
	src    records.Sources // the data set, and the one chosen for the store run
	notes  workload.NoteSet
	table  *store.Table
	kinds  []workload.Kind
	ns     []int
	phases []workload.Phase
	rows   int64 // loaded by Prepare
}

func (w *ranges) Name() string             { return "range" }
func (w *ranges) Tables() []*store.Table   { return []*store.Table{w.table} }
func (w *ranges) Kinds() []workload.Kind   { return w.kinds }
func (w *ranges) Phases() []workload.Phase { return w.phases }

// Params records the rows the data set loads, which --rows may ask more
// of than a file holds, and the file read, told apart from another of the
// same name by its size and SHA-256.
func (w *ranges) Params() map[string]string {
	p := w.src.Params()
	p["records"], p["by"] = w.cfg.Records, w.cfg.By
	return p
}

// ChooseData uses the records kurabe dataset import put in the store's
// postal table, when it holds them and no file was given
// (workload.DataChooser), and checks that every phase's read fits them.
func (w *ranges) ChooseData(ctx context.Context, st store.Store) error {
	note, err := w.src.Choose(ctx, st, w.table, true, "range")
	if note != "" {
		w.notes.Add(note)
	}
	if err != nil {
		return err
	}
	src := w.src.Current()
	imp := src.Imported()
	if imp == nil {
		return nil
	}
	c := w.cfg
	c.File = "the import of " + imp.Path + " in " + store.TableName(st, postal.Table())
	return fits(c, src.Rows(), w.phases, func() (int64, error) { return imp.Records, nil })
}

// Notes says which data set the store had, when it was not the one asked
// for (workload.Noter).
func (w *ranges) Notes() []string { return w.notes.Take() }

// Prepare loads the postal data set, decoded by Build, into the store:
// through its bulk path when it has one, in batches of 1000 otherwise.
// The table is this workload's own (--isolate renames it), the source
// shared.
func (w *ranges) Prepare(ctx context.Context, st store.Store) (int64, error) {
	n, err := w.src.Current().LoadTable(ctx, st, w.table, 1000)
	w.rows = n
	return n, err
}

func (w *ranges) NewClient(s store.Session, rng *rand.Rand) workload.Client {
	c := &client{s: s, w: w, rng: rng}
	c.onRow = c.count
	return c
}

type client struct {
	s     store.Session
	w     *ranges
	rng   *rand.Rand
	read  int64
	n     int
	next  int64 // key the next row must have, to check order and gaps
	bad   bool
	onRow func(store.Row) error
}

func (c *client) count(r store.Row) error {
	if r[0].Int != c.next {
		c.bad = true
	}
	c.next++
	c.n++
	for _, v := range r[1:] {
		c.read += int64(len(v.Text)) + 8
	}
	return nil
}

// Do reads N records from a random start; fewer rows than asked, or rows
// out of key order, are an error of class "short-read". Its bytes are
// read.
func (c *client) Do(ctx context.Context, kind int) (workload.Done, error) {
	n, err := c.fetch(ctx, kind)
	return workload.Done{Read: n}, err
}

func (c *client) fetch(ctx context.Context, kind int) (int64, error) {
	n := c.w.ns[kind]
	rows := c.w.rows
	if rows < int64(n) {
		// Build refuses this before any store is opened; kept so that a
		// client used without Prepare fails instead of drawing from
		// nothing.
		return 0, &store.ClassError{Class: "too-few-rows", Err: fmt.Errorf("range %d: only %d rows were loaded", n, rows)}
	}
	start := c.rng.Int64N(rows - int64(n) + 1) // 0-based position of the first row
	q := store.Query{Limit: n}
	if c.w.cfg.By == "key" {
		q.HasFrom, q.From = true, start+1
	} else {
		q.Offset = int(start)
	}
	c.read, c.n, c.next, c.bad = 0, 0, start+1, false
	if _, err := c.s.Scan(ctx, c.w.table, q, c.onRow); err != nil {
		return c.read, err
	}
	if c.n != n || c.bad {
		return c.read, &store.ClassError{Class: "short-read", Err: fmt.Errorf("range %d from row %d: got %d rows, in order: %v", n, start+1, c.n, !c.bad)}
	}
	return c.read, nil
}
