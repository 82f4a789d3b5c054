// Package bbs is the message-board workload: clients post short form
// messages (category and text) and read them back, all of them or the
// latest N, the way a small bulletin board or guest book does.
package bbs

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"kurabe/dataset/records"
	"kurabe/store"
	"kurabe/workload"
)

// The kinds of operation, in Kinds order.
const (
	kWrite = iota
	kReadAll
	kReadLatest
)

var kindNames = []string{"write", "read-all", "read-latest"}

// MaxLatest is the most posts read-latest may ask for, as kurabe serve's
// GET /posts?limit=N takes: more than any board holds, and small enough for
// a store to size buffers from.
const MaxLatest = 1<<31 - 1

// Posts is the table of posts: id, category, text, created time (µs since
// the Unix epoch).
func Posts() *store.Table {
	return &store.Table{Name: "posts", AutoKey: true, Columns: []store.Column{
		{Name: "id", Kind: store.Int},
		{Name: "category", Kind: store.Text},
		{Name: "text", Kind: store.Text},
		{Name: "created", Kind: store.Int},
	}}
}

// Config holds the workload's settings.
type Config struct {
	Category string
	Text     string // the text of every post; empty means TextSize bytes
	TextSize int
	Latest   int
	Mix      string // weights, e.g. "write=50,read-all=50"
	// Prefill is the posts put on the board before the measured phases,
	// so reads start from a board of a known size; 0 starts empty.
	Prefill int64
}

// DefaultConfig is the form post of the studies kurabe reproduces:
// category=test&text=hogehoge.
func DefaultConfig() Config {
	return Config{Category: "test", Text: "hogehoge", TextSize: 8, Latest: 100, Mix: "write=50,read-all=50"}
}

// Definition registers the workload's flags.
type Definition struct{ cfg Config }

// New returns the definition with default settings.
func New() workload.Definition { return &Definition{cfg: DefaultConfig()} }

func (d *Definition) Summary() string {
	return "message board: write posts, read all, read the latest N, or a mix"
}

func (d *Definition) Ops() (all, defaults []string) {
	all = []string{"write", "read-all", "read-latest", "mix"}
	return all, all
}

func (d *Definition) Flags(fs *flag.FlagSet) {
	fs.StringVar(&d.cfg.Category, "category", d.cfg.Category, "bbs: category of each post")
	fs.IntVar(&d.cfg.TextSize, "text-size", d.cfg.TextSize, "bbs: bytes of text per post (the default 8 posts \"hogehoge\"; other sizes post generated text)")
	fs.IntVar(&d.cfg.Latest, "latest", d.cfg.Latest, "bbs: posts fetched by read-latest")
	fs.StringVar(&d.cfg.Mix, "mix", d.cfg.Mix, "bbs: weights of the mix operation, e.g. write=20,read-latest=80")
	fs.Var((*records.RowCount)(&d.cfg.Prefill), "prefill", "bbs: posts put on the board before the measured phases, in batches (k and M suffixes, e.g. 100k); the board starts empty by default")
}

func (d *Definition) Build(ops []string) (workload.Workload, error) {
	c := d.cfg
	if c.TextSize < 0 || c.TextSize > 16<<20 {
		return nil, fmt.Errorf("--text-size %d: want 0 to 16777216 bytes", c.TextSize)
	}
	if c.TextSize != 8 || c.Text != "hogehoge" {
		c.Text = ""
	}
	// The service's API (kurabe serve, docs/serve.md) takes the same:
	// a run through it must not fail every operation on a value the
	// direct run takes.
	if c.Latest < 1 || c.Latest > MaxLatest {
		return nil, fmt.Errorf("--latest %d: want 1 to %d posts", c.Latest, MaxLatest)
	}
	if c.Category == "" || !utf8.ValidString(c.Category) {
		return nil, fmt.Errorf("--category %q: want one or more characters of UTF-8 text", c.Category)
	}
	if c.Prefill < 0 {
		return nil, fmt.Errorf("--prefill %d: want 0 or more posts", c.Prefill)
	}
	mix, err := parseMix(c.Mix)
	if err != nil {
		return nil, err
	}
	w := &bbs{cfg: c, posts: Posts()}
	all, _ := d.Ops()
	for _, op := range ops {
		ph := workload.Phase{Name: op, Weights: make([]int, len(kindNames))}
		switch i := slices.Index(kindNames, op); {
		case i >= 0:
			ph.Weights[i] = 1
		case op == "mix":
			ph.Weights = mix
		default:
			return nil, workload.Blame("ops", fmt.Errorf("bbs has no operation %q; choose from %s", op, strings.Join(all, ", ")))
		}
		w.phases = append(w.phases, ph)
	}
	return w, nil
}

func parseMix(s string) ([]int, error) {
	w := make([]int, len(kindNames))
	total := 0
	for _, part := range strings.Split(s, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		i := slices.Index(kindNames, name)
		n, err := strconv.Atoi(val)
		if !ok || i < 0 || err != nil || n < 0 {
			return nil, fmt.Errorf("--mix %q: want KIND=WEIGHT,... with kinds %s and whole weights, e.g. write=50,read-all=50", s, strings.Join(kindNames, ", "))
		}
		w[i] += n
		total += n
	}
	if total == 0 {
		return nil, fmt.Errorf("--mix %q: the weights add up to 0; give at least one positive weight", s)
	}
	return w, nil
}

type bbs struct {
	cfg    Config
	posts  *store.Table
	phases []workload.Phase
}

func (w *bbs) Name() string             { return "bbs" }
func (w *bbs) Tables() []*store.Table   { return []*store.Table{w.posts} }
func (w *bbs) Phases() []workload.Phase { return w.phases }

func (w *bbs) Kinds() []workload.Kind {
	return []workload.Kind{{Name: "write", Writes: w.posts}, {Name: "read-all"}, {Name: "read-latest"}}
}

// Params are the settings as given, in no language, of the operations
// that run: category, text and text_size when posts are written (a write
// or a mix with writes, or the pre-fill), latest when read-latest runs
// (alone or in the mix), and mix when the mix does. text is the post's
// text when every post has the same (the form post's hogehoge), and left
// out when each client generates its own text of text_size bytes.
func (w *bbs) Params() map[string]string {
	p := map[string]string{}
	if w.cfg.Prefill > 0 || w.runs(kWrite) {
		p["category"] = w.cfg.Category
		p["text_size"] = strconv.Itoa(w.cfg.TextSize)
		if w.cfg.Text != "" {
			p["text"] = w.cfg.Text
		}
	}
	if w.runs(kReadLatest) {
		p["latest"] = strconv.Itoa(w.cfg.Latest)
	}
	if slices.ContainsFunc(w.phases, func(ph workload.Phase) bool { return ph.Name == "mix" }) {
		p["mix"] = w.cfg.Mix
	}
	if w.cfg.Prefill > 0 {
		p["prefill"] = strconv.FormatInt(w.cfg.Prefill, 10)
	}
	return p
}

// runs says whether some phase performs operations of the kind.
func (w *bbs) runs(kind int) bool {
	return slices.ContainsFunc(w.phases, func(p workload.Phase) bool { return p.Weights[kind] > 0 })
}

// Stateful: posts written by one phase are read by the phases after it
// (workload.Stateful), so with several client levels each level starts
// from a fresh board (the pre-fill put on again) rather than from every
// post the levels before it wrote.
func (w *bbs) Stateful() bool {
	return w.runs(kWrite)
}

// PrepareLabel says what Prepare does, for the progress line: nothing
// without a pre-fill (workload.PrepareLabeler).
func (w *bbs) PrepareLabel() (string, []any) {
	if w.cfg.Prefill == 0 {
		return "", nil
	}
	return "putting %s posts on the board (--prefill)", []any{records.FormatCount(w.cfg.Prefill)}
}

// prefillBatch is the posts per batch of the pre-fill.
const prefillBatch = 1000

// Prepare puts --prefill posts on the board, in batches through the
// store's batch path, with creation times one microsecond apart ending
// now. It does nothing when the pre-fill is 0. The engine counts the
// table before each phase, so the pre-filled posts are not taken for
// writes of the phases.
func (w *bbs) Prepare(ctx context.Context, st store.Store) (int64, error) {
	if w.cfg.Prefill == 0 {
		return 0, nil
	}
	s, err := st.Open(ctx)
	if err != nil {
		return 0, err
	}
	defer s.Close()
	rng := rand.New(rand.NewPCG(uint64(w.cfg.Prefill), 1))
	tmpl := w.NewClient(s, rng).(*client).row
	rows := make([]store.Row, 0, prefillBatch)
	vals := make([]store.Value, prefillBatch*len(tmpl))
	created := time.Now().UnixMicro() - w.cfg.Prefill
	var done int64
	for done < w.cfg.Prefill {
		rows = rows[:0]
		for i := 0; i < prefillBatch && done+int64(len(rows)) < w.cfg.Prefill; i++ {
			r := store.Row(vals[i*len(tmpl) : (i+1)*len(tmpl) : (i+1)*len(tmpl)])
			copy(r, tmpl)
			created++
			r[3].Int = created
			rows = append(rows, r)
		}
		if err := store.InsertBatch(ctx, s, w.posts, rows); err != nil {
			return done, err
		}
		done += int64(len(rows))
	}
	return done, nil
}

const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 "

func (w *bbs) NewClient(s store.Session, rng *rand.Rand) workload.Client {
	text := []byte(w.cfg.Text)
	if w.cfg.Text == "" {
		text = make([]byte, w.cfg.TextSize)
		for i := range text {
			text[i] = letters[rng.IntN(len(letters))]
		}
	}
	c := &client{s: s, w: w, row: store.Row{{}, {Text: []byte(w.cfg.Category)}, {Text: text}, {}}}
	c.onRow = c.count
	return c
}

type client struct {
	s     store.Session
	w     *bbs
	row   store.Row
	read  int64
	onRow func(store.Row) error // c.count, bound once so Scan calls do not allocate
}

func (c *client) count(r store.Row) error {
	c.read += int64(len(r[1].Text)+len(r[2].Text)) + 16
	return nil
}

func (c *client) Do(ctx context.Context, kind int) (workload.Done, error) {
	switch kind {
	case kWrite:
		c.row[3].Int = time.Now().UnixMicro()
		if err := c.s.Insert(ctx, c.w.posts, c.row); err != nil {
			return workload.Done{}, err
		}
		return workload.Done{Written: int64(len(c.row[1].Text)+len(c.row[2].Text)) + 16, Rows: 1}, nil
	case kReadAll:
		c.read = 0
		_, err := c.s.Scan(ctx, c.w.posts, store.Query{}, c.onRow)
		return workload.Done{Read: c.read}, err
	case kReadLatest:
		c.read = 0
		_, err := c.s.Scan(ctx, c.w.posts, store.Query{Desc: true, Limit: c.w.cfg.Latest}, c.onRow)
		return workload.Done{Read: c.read}, err
	}
	return workload.Done{}, fmt.Errorf("bbs: no operation kind %d", kind)
}
