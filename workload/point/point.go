// Package point is the point-select workload: read one row by its key, at
// random, from a data set loaded before the phase (the postal data set by
// default, or generated records), with a chosen share of keys that are not
// there. --hit 0.1 reproduces the study whose random numbers mostly
// missed: nine lookups in ten asked for a key the table does not have.
//
// The lookup is store.Session.Scan from the key with a limit of one row
// (WHERE id >= k ORDER BY id LIMIT 1 on SQL stores), and the row's key
// must equal k. That runs on every store, the file store included, where
// it reads the file from the start: the file store has no index.
//
// Hits and misses are two kinds of operation in one phase, point-hit and
// point-miss, drawn by the engine by weight from the run's seed (weights
// in millionths of --hit). The engine keeps ops/s and latency per kind,
// so a result has the two apart, and the realised hit ratio is exactly
// the share of point-hit operations. A hit that finds no row, or another
// key, is an error of class missing; a miss that finds its key is one of
// class unexpected-hit.
//
// Missed keys are drawn uniformly from above the largest key (N+1 to 2N),
// as random numbers from too large a range are. On a B-tree such a lookup
// descends to the rightmost leaf every time, which stays cached, so misses
// cost less than hits there; on the file store a miss reads the whole
// file. Both are what the study measured.
package point

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"kurabe/dataset/records"
	"kurabe/store"
	"kurabe/workload"
)

// The kinds of operation, in Kinds order.
const (
	kHit = iota
	kMiss
)

// weightScale turns the hit ratio into whole weights for the engine.
const weightScale = 1_000_000

// Config holds the workload's settings.
type Config struct {
	Hit  float64 // share of lookups for a key that exists, 0 to 1
	Data records.Config
}

// DefaultConfig looks up existing keys only, in the postal data set.
func DefaultConfig() Config { return Config{Hit: 1, Data: records.DefaultConfig()} }

// Definition registers the workload's flags.
type Definition struct{ cfg Config }

// New returns the definition with default settings.
func New() workload.Definition { return &Definition{cfg: DefaultConfig()} }

func (d *Definition) Summary() string {
	return "read one row by key at random from a loaded data set, with a share of keys that miss (--hit)"
}

func (d *Definition) Ops() (all, defaults []string) { return []string{"point"}, []string{"point"} }

func (d *Definition) Flags(fs *flag.FlagSet) {
	fs.Float64Var(&d.cfg.Hit, "hit", d.cfg.Hit, "point: share of lookups for a key that exists (0 to 1); the others ask for keys above the largest")
	d.cfg.Data.Flags(fs, "point", true)
}

func (d *Definition) Build(ops []string) (workload.Workload, error) {
	c := d.cfg
	if math.IsNaN(c.Hit) || c.Hit < 0 || c.Hit > 1 {
		return nil, fmt.Errorf("--hit %v: want a share from 0 to 1, e.g. 0.1 for one hit in ten", c.Hit)
	}
	for _, op := range ops {
		if op != "point" {
			return nil, workload.Blame("ops", fmt.Errorf("point has no operation %q; its only operation is point", op))
		}
	}
	src, err := records.Open(c.Data)
	if err != nil {
		return nil, err
	}
	w := &points{cfg: c, src: records.Sources{Base: src}, table: src.Table()}
	hit := int(math.Round(c.Hit * weightScale))
	for range ops {
		w.phases = append(w.phases, workload.Phase{Name: "point", Weights: []int{hit, weightScale - hit}})
	}
	return w, nil
}

type points struct {
	cfg    Config
	src    records.Sources // the data set, and the one chosen for the store run
	notes  workload.NoteSet
	table  *store.Table
	phases []workload.Phase
	rows   int64 // loaded by Prepare: keys 1..rows
}

func (w *points) Name() string             { return "point" }
func (w *points) Tables() []*store.Table   { return []*store.Table{w.table} }
func (w *points) Phases() []workload.Phase { return w.phases }

func (w *points) Kinds() []workload.Kind {
	return []workload.Kind{{Name: "point-hit"}, {Name: "point-miss"}}
}

func (w *points) Params() map[string]string {
	p := w.src.Params()
	p["hit"] = strconv.FormatFloat(w.cfg.Hit, 'g', -1, 64)
	return p
}

// ChooseData uses the records kurabe dataset import put in the store's
// postal table, when it holds them and no other data set was asked for
// (workload.DataChooser); Prepare loads them back.
func (w *points) ChooseData(ctx context.Context, st store.Store) error {
	note, err := w.src.Choose(ctx, st, w.table, true, "point")
	if note != "" {
		w.notes.Add(note)
	}
	return err
}

// Notes says which data set the store had, when it was not the one asked
// for (workload.Noter).
func (w *points) Notes() []string { return w.notes.Take() }

// Prepare loads the data set through the store's bulk path (or batches of
// 1000 rows).
func (w *points) Prepare(ctx context.Context, st store.Store) (int64, error) {
	n, err := w.src.Current().LoadTable(ctx, st, w.table, 1000)
	w.rows = n
	return n, err
}

func (w *points) NewClient(s store.Session, rng *rand.Rand) workload.Client {
	c := &client{s: s, w: w, rng: rng}
	c.onRow = c.take
	return c
}

type client struct {
	s     store.Session
	w     *points
	rng   *rand.Rand
	got   int64 // the key of the row found, when found
	found bool
	bytes int64
	onRow func(store.Row) error // c.take, bound once so Scan does not allocate
}

func (c *client) take(r store.Row) error {
	c.got, c.found = r[0].Int, true
	for _, v := range r[1:] {
		c.bytes += int64(len(v.Text)) + 8
	}
	return nil
}

// Do looks up one key: an existing one for point-hit, one above the
// largest for point-miss. It reads and writes nothing.
func (c *client) Do(ctx context.Context, kind int) (workload.Done, error) {
	n, err := c.lookup(ctx, kind)
	return workload.Done{Read: n}, err
}

func (c *client) lookup(ctx context.Context, kind int) (int64, error) {
	n := c.w.rows
	if n < 1 {
		return 0, &store.ClassError{Class: "empty", Err: fmt.Errorf("point: no data set was loaded")}
	}
	k := 1 + c.rng.Int64N(n)
	if kind == kMiss {
		k += n
	}
	c.found, c.got, c.bytes = false, 0, 8
	if _, err := c.s.Scan(ctx, c.w.table, store.Query{HasFrom: true, From: k, Limit: 1}, c.onRow); err != nil {
		return c.bytes, err
	}
	hit := c.found && c.got == k
	switch {
	case kind == kHit && !hit:
		return c.bytes, &store.ClassError{Class: "missing", Err: fmt.Errorf("point: key %d of 1..%d not found (got %s); the table lost rows or was changed outside this run", k, n, c.describe())}
	case kind == kMiss && hit:
		return c.bytes, &store.ClassError{Class: "unexpected-hit", Err: fmt.Errorf("point: key %d is above the data set's %d rows but was found; the table was changed outside this run", k, n)}
	}
	return c.bytes, nil
}

func (c *client) describe() string {
	if !c.found {
		return "no row"
	}
	return "key " + strconv.FormatInt(c.got, 10)
}
