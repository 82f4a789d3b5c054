package report

import (
	"fmt"
	"image/color"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"kurabe/result"
)

// geomCanvas is a canvas that notes where things are drawn: the box of
// each text (rotation included), each whisker segment (the dark grey
// strokes of bars.Plot, as wide as their line) and each filled polygon's
// bounds, in the chart's points. It draws on a real SVG canvas too, so the
// fonts and their metrics are the charts' own.
type geomCanvas struct {
	vg.CanvasSizer
	col      color.Color
	width    vg.Length
	rot      float64
	stack    []float64
	texts    []geomText
	whiskers []vg.Rectangle
	fills    []vg.Rectangle
}

type geomText struct {
	s      string
	r      vg.Rectangle
	turned bool        // drawn rotated
	quad   [4]vg.Point // its corners, in order round it
}

func (g *geomCanvas) SetColor(c color.Color)   { g.col = c; g.CanvasSizer.SetColor(c) }
func (g *geomCanvas) SetLineWidth(w vg.Length) { g.width = w; g.CanvasSizer.SetLineWidth(w) }
func (g *geomCanvas) Rotate(a float64)         { g.rot += a; g.CanvasSizer.Rotate(a) }
func (g *geomCanvas) Push()                    { g.stack = append(g.stack, g.rot); g.CanvasSizer.Push() }
func (g *geomCanvas) Pop() {
	g.rot, g.stack = g.stack[len(g.stack)-1], g.stack[:len(g.stack)-1]
	g.CanvasSizer.Pop()
}

func (g *geomCanvas) Translate(pt vg.Point) {
	panic("geomCanvas: Translate is not followed; the charts do not use it")
}

func (g *geomCanvas) Stroke(p vg.Path) {
	if g.col == (color.Gray{0x30}) {
		r := pathBounds(p)
		h := g.width / 2
		g.whiskers = append(g.whiskers, vg.Rectangle{Min: vg.Point{X: r.Min.X - h, Y: r.Min.Y - h}, Max: vg.Point{X: r.Max.X + h, Y: r.Max.Y + h}})
	}
	g.CanvasSizer.Stroke(p)
}

func (g *geomCanvas) Fill(p vg.Path) {
	if r := pathBounds(p); r.Size().X < 500 { // not the background
		g.fills = append(g.fills, r)
	}
	g.CanvasSizer.Fill(p)
}

// FillString draws at pt in the rotated frame, pt being the left end of
// the baseline.
func (g *geomCanvas) FillString(f font.Face, pt vg.Point, s string) {
	e := f.Extents()
	x0, y0, x1, y1 := pt.X, pt.Y-e.Descent, pt.X+f.Width(s), pt.Y+e.Ascent
	corners := []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}
	sin, cos := math.Sincos(g.rot)
	var ps []vg.Point
	for _, c := range corners {
		ps = append(ps, vg.Point{X: c.X*vg.Length(cos) - c.Y*vg.Length(sin), Y: c.X*vg.Length(sin) + c.Y*vg.Length(cos)})
	}
	g.texts = append(g.texts, geomText{s, bounds(ps), g.rot != 0, [4]vg.Point(ps)})
	g.CanvasSizer.FillString(f, pt, s)
}

func pathBounds(p vg.Path) vg.Rectangle {
	var ps []vg.Point
	for _, c := range p {
		if c.Type == vg.MoveComp || c.Type == vg.LineComp {
			ps = append(ps, c.Pos)
		}
	}
	return bounds(ps)
}

func bounds(ps []vg.Point) vg.Rectangle {
	r := vg.Rectangle{Min: ps[0], Max: ps[0]}
	for _, p := range ps[1:] {
		r.Min.X, r.Min.Y = min(r.Min.X, p.X), min(r.Min.Y, p.Y)
		r.Max.X, r.Max.Y = max(r.Max.X, p.X), max(r.Max.Y, p.Y)
	}
	return r
}

func overlap(a, b vg.Rectangle) bool {
	return a.Min.X < b.Max.X && b.Min.X < a.Max.X && a.Min.Y < b.Max.Y && b.Min.Y < a.Max.Y
}

// quadsOverlap reports whether two convex quadrilaterals (texts, rotated
// or not) share any area: they do not when some edge's normal separates
// their projections. Texts turned alike lie in parallel strips whose
// bounding boxes overlap although the texts do not.
func quadsOverlap(a, b [4]vg.Point) bool {
	for _, q := range [][4]vg.Point{a, b} {
		for i := range q {
			e := q[(i+1)%4].Sub(q[i])
			n := vg.Point{X: -e.Y, Y: e.X}
			lo := func(q [4]vg.Point) (vg.Length, vg.Length) {
				mn, mx := vg.Length(math.Inf(1)), vg.Length(math.Inf(-1))
				for _, p := range q {
					d := p.X*n.X + p.Y*n.Y
					mn, mx = min(mn, d), max(mx, d)
				}
				return mn, mx
			}
			amin, amax := lo(a)
			bmin, bmax := lo(b)
			if amax <= bmin || bmax <= amin {
				return false
			}
		}
	}
	return true
}

// crowdedDoc is a run of n operations on four stores, three repeats each,
// at ops/s in the hundred thousands (labels wider than the bars), with
// each store's spread wide enough that its whisker rises above its
// neighbours' labels.
func crowdedDoc(n int) *result.Document {
	d := &result.Document{Schema: result.Schema, Kurabe: "0.0.0-test", Run: result.RunConfig{Workload: "bbs", Clients: 2, Count: 1000, Repeat: 3}}
	for i := range n {
		d.Run.Ops = append(d.Run.Ops, fmt.Sprintf("op%d", i))
	}
	for j, label := range []string{"a", "b", "c", "d"} {
		s := result.Store{Label: label}
		base := 100000 + 20000*float64(j%2) + 1111*float64(j)
		for i, op := range d.Run.Ops {
			for rep, f := range []float64{0.8, 1, 1.4} {
				s.Phases = append(s.Phases, result.Phase{Op: op, Repeat: rep, Clients: 2, Ops: 1000, OpsPerSec: base*f + float64(i)})
			}
		}
		d.Stores = append(d.Stores, s)
	}
	return d
}

// TestBarLabelsClearWhiskers draws throughput charts with whiskers, roomy
// and crowded, and checks where the value labels landed: above their own
// whisker, and over no whisker, bar or other label, inside the chart.
func TestBarLabelsClearWhiskers(t *testing.T) {
	for _, c := range []struct {
		name   string
		d      *result.Document
		labels bool // a value on every bar, or on none
	}{
		{"two stores, one operation: values across the bars", repeatDoc(5, 1000, 5000), true},
		{"four stores, six operations: values wider than the bars, up along them", crowdedDoc(6), true},
		{"four stores, twelve operations: bars narrower than a line of text, no values", crowdedDoc(12), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := newChartStyle(English, nil, []*result.Document{c.d})
			chs := throughputChart(st, c.d)
			if len(chs) != 1 {
				t.Fatalf("%d charts", len(chs))
			}
			ch := chs[0]
			g := &geomCanvas{CanvasSizer: vgsvg.New(chartW, ch.h)}
			ch.draw(draw.New(g))
			var values []string
			bars := 0
			for _, s := range c.d.Stores {
				for _, k := range phaseKeys(c.d) {
					values = append(values, num(opsPerSecAt(c.d, s, k).med))
					bars++
				}
			}
			if len(g.whiskers) != 3*bars {
				t.Fatalf("%d whisker segments drawn, want 3 for each of %d bars", len(g.whiskers), bars)
			}
			var labels []geomText
			for _, x := range g.texts {
				if slices.Contains(values, x.s) {
					labels = append(labels, x)
				}
			}
			if c.labels && len(labels) != bars || !c.labels && len(labels) != 0 {
				t.Fatalf("%d value labels drawn on %d bars", len(labels), bars)
			}
			w, h := g.Size()
			for i, x := range labels {
				if x.r.Min.X < 0 || x.r.Min.Y < 0 || x.r.Max.X > w || x.r.Max.Y > h {
					t.Errorf("label %s at %v leaves the %v×%v chart", x.s, x.r, w, h)
				}
				for _, y := range labels[i+1:] {
					if overlap(x.r, y.r) {
						t.Errorf("labels %s at %v and %s at %v overlap", x.s, x.r, y.s, y.r)
					}
				}
			}
			// Every text of the chart (labels, ticks, legend, title) clears
			// every whisker and bar.
			for _, x := range g.texts {
				for _, wh := range g.whiskers {
					if overlap(x.r, wh) {
						t.Errorf("text %q at %v is over a whisker at %v", x.s, x.r, wh)
					}
				}
				for _, f := range g.fills {
					if overlap(x.r, f) {
						t.Errorf("text %q at %v is over a bar at %v", x.s, x.r, f)
					}
				}
			}
		})
	}
}

// TestVaryChartsNameVariants checks that the lines of a --vary run's
// charts are named by their settings, as the table and the CSV name them,
// not by the store they all share; with two stores varied, each name
// starts with its store.
func TestVaryChartsNameVariants(t *testing.T) {
	one := varyDoc()
	two := varyDoc()
	for i := range two.Stores[:2] {
		s := &two.Stores[i]
		s.Spec = "sqlite:?cache_size=-4000&journal_mode=" + s.Variant[0].Value + "&synchronous=" + s.Variant[1].Value
		s.Label += "&cache_size=-4000"
	}
	for _, c := range []struct {
		name string
		d    *result.Document
		want []string
	}{
		{"one store", one, []string{"journal_mode=delete synchronous=off", "journal_mode=delete synchronous=full",
			"journal_mode=wal synchronous=off", "journal_mode=wal synchronous=full"}},
		{"two stores", two, []string{"sqlite:?cache_size=-4000 journal_mode=delete synchronous=off", "sqlite:?cache_size=-4000 journal_mode=delete synchronous=full",
			"sqlite: journal_mode=wal synchronous=off", "sqlite: journal_mode=wal synchronous=full"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := newChartStyle(English, nil, []*result.Document{c.d})
			for _, ch := range append(latencyCharts(st, c.d), timelineCharts(st, c.d)...) {
				var got []string
				for _, e := range ch.legend {
					got = append(got, e.label)
				}
				if !slices.Equal(got, c.want) {
					t.Errorf("%s: legend %q, want %q", ch.Name, got, c.want)
				}
			}
		})
	}
}

// categoriesDoc is a run of ops at client levels on the stores, one repeat,
// ops/s in the hundred thousands.
func categoriesDoc(ops []string, levels []int, stores ...string) *result.Document {
	d := &result.Document{Schema: result.Schema, Kurabe: "0.0.0-test", Run: result.RunConfig{Workload: "bbs", Ops: ops, Clients: levels[0], Levels: levels, Count: 300}}
	for j, label := range stores {
		s := result.Store{Label: label}
		for i, op := range ops {
			for _, c := range levels {
				s.Phases = append(s.Phases, result.Phase{Op: op, Clients: c, Ops: 300, OpsPerSec: 123456 + float64(1000*i+10*c+j)})
			}
		}
		d.Stores = append(d.Stores, s)
	}
	return d
}

// TestCategoryNamesNeverOverlap draws throughput charts with few and many
// categories, short and long names, and checks where every text landed:
// inside the chart, and over no other text, so the names under the bars
// never run together (write c=1write c=2…). It checks too that each
// category is named, in the layout the room allows.
func TestCategoryNamesNeverOverlap(t *testing.T) {
	bbs := []string{"write", "read-all", "read-latest", "mix"}
	var many []string
	for i := range 40 {
		many = append(many, fmt.Sprintf("op%d", i))
	}
	for _, c := range []struct {
		name string
		d    *result.Document
		want string // across: every name as it is; grouped: each level, each op once; rotated: every name; some: names on some
	}{
		{"bbs at one level: names across", categoriesDoc(bbs, []int{4}, "file", "sqlite"), "across"},
		{"bbs at -c 1,2,4 (the report's case): levels under the bars, operations under their groups", categoriesDoc(bbs, []int{1, 2, 4}, "file", "sqlite"), "grouped"},
		{"crud at -c 1,2,4,8: rotated", categoriesDoc([]string{"insert", "read", "batch-read", "update", "delete", "batch-delete"}, []int{1, 2, 4, 8}, "file", "sqlite"), "rotated"},
		{"a range sweep's ten names at one level: rotated", categoriesDoc([]string{"range 1", "range 10", "range 50", "range 100", "range 500", "range 1000", "range 5000", "range 10000", "range 50000", "range 100000"}, []int{1}, "sqlite", "postgres", "mariadb"), "rotated"},
		{"forty operations at three levels: names on some", categoriesDoc(many, []int{1, 2, 4}, "a"), "some"},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := newChartStyle(English, nil, []*result.Document{c.d})
			chs := throughputChart(st, c.d)
			if len(chs) != 1 {
				t.Fatalf("%d charts", len(chs))
			}
			g := &geomCanvas{CanvasSizer: vgsvg.New(chartW, chs[0].h)}
			chs[0].draw(draw.New(g))
			var texts []geomText
			drawn := map[string]int{}
			for _, x := range g.texts {
				if x.s != "" {
					texts = append(texts, x)
					drawn[x.s]++
				}
			}
			w, h := g.Size()
			for i, x := range texts {
				if x.r.Min.X < 0 || x.r.Min.Y < 0 || x.r.Max.X > w || x.r.Max.Y > h {
					t.Errorf("text %q at %v leaves the %v×%v chart", x.s, x.r, w, h)
				}
				for _, y := range texts[i+1:] {
					if quadsOverlap(x.quad, y.quad) {
						t.Errorf("texts %q at %v and %q at %v overlap", x.s, x.r, y.s, y.r)
					}
				}
			}
			levels := levelsVary(c.d)
			keys := phaseKeys(c.d)
			named, turned := 0, 0
			for _, k := range keys {
				if drawn[k.name(levels)] > 0 {
					named++
				}
			}
			for _, x := range texts {
				if x.turned && slices.ContainsFunc(keys, func(k phaseKey) bool { return k.name(levels) == x.s }) {
					turned++
				}
			}
			switch c.want {
			case "across", "rotated":
				if named != len(keys) {
					t.Errorf("%d of %d categories named", named, len(keys))
				}
				rotated := turned > 0
				if rotated != (c.want == "rotated") {
					t.Errorf("names rotated: %v, want %s", rotated, c.want)
				}
			case "grouped":
				for _, op := range c.d.Run.Ops {
					if drawn[op] != 1 {
						t.Errorf("operation %s named %d times, want once under its group", op, drawn[op])
					}
				}
				for _, lv := range c.d.Run.Levels {
					if n := drawn[fmt.Sprintf("c=%d", lv)]; n != len(c.d.Run.Ops) {
						t.Errorf("level c=%d named %d times, want once per operation", lv, n)
					}
				}
			case "some":
				if named == 0 || named == len(keys) {
					t.Errorf("%d of %d categories named, want some", named, len(keys))
				}
			}
		})
	}
}

// TestTimelineFoldsALastSliver draws the series of a -d 2s --warmup 1s
// phase written by an earlier kurabe, which ends with the one operation
// that finished 0.3 ms after the last tick: the chart's last point is
// the last second's rate, not 3,167 ops/s, and no operation is dropped.
func TestTimelineFoldsALastSliver(t *testing.T) {
	series := []result.Second{
		{T: 1, Warmup: true, Ops: 886676, OpsPerSec: 886656, P99: 4.471},
		{T: 2, Ops: 959037, OpsPerSec: 959050, P99: 4.359},
		{T: 3, Ops: 953392, OpsPerSec: 953383, P99: 4.091},
		{T: 3.0003, Ops: 1, OpsPerSec: 3167, P99: 857.087},
	}
	got := foldSliver(series)
	if len(got) != 3 {
		t.Fatalf("%d points, want 3: %+v", len(got), got)
	}
	last := got[2]
	if last.Ops != 953393 || last.OpsPerSec < 900000 || last.P99 != 4.091 || last.T != 3.0003 {
		t.Errorf("last point %+v, want 953,393 operations at about 953,000 ops/s, p99 4.091µs", last)
	}
	d := &result.Document{Schema: result.Schema, Run: result.RunConfig{Workload: "bbs", Ops: []string{"write"}, Clients: 4},
		Stores: []result.Store{{Label: "file", Phases: []result.Phase{{Op: "write", Clients: 4, Ops: 1912430, Series: series}}}}}
	chs := timelineCharts(newChartStyle(English, nil, []*result.Document{d}), d)
	if len(chs) != 1 {
		t.Fatalf("%d charts", len(chs))
	}
	if top := chs[0].plots[0].Y; top.Max > 959050*1.1 || chs[0].plots[1].Y.Max > 10 {
		t.Errorf("axes up to %v ops/s and %v µs: the sliver is drawn", top.Max, chs[0].plots[1].Y.Max)
	}
}

// matrixDoc is a --vary run of one store over 3 × 2 × 2 settings, 12
// variants, each with latencies and a timeline.
func matrixDoc() *result.Document {
	rng := rand.New(rand.NewPCG(12, 12))
	d := &result.Document{Schema: result.Schema, Kurabe: "0.0.0-test", Run: result.RunConfig{Workload: "bbs", Ops: []string{"write"}, Clients: 2, Count: 2000,
		Vary: []result.Axis{{Name: "innodb_page_size", Values: []string{"4k", "8k", "16k"}}, {Name: "page_compressed", Values: []string{"0", "1"}}, {Name: "encrypted", Values: []string{"0", "1"}}}}}
	for _, ps := range []string{"4k", "8k", "16k"} {
		for _, pc := range []string{"0", "1"} {
			for _, enc := range []string{"0", "1"} {
				ops := 9000 + 100*float64(len(d.Stores))
				q := "encrypted=" + enc + "&innodb_page_size=" + ps + "&page_compressed=" + pc
				d.Stores = append(d.Stores, result.Store{Label: "mariadb?" + q, Spec: "mariadb:managed?" + q,
					Variant: []result.Setting{{Name: "innodb_page_size", Value: ps}, {Name: "page_compressed", Value: pc}, {Name: "encrypted", Value: enc}},
					Phases:  []result.Phase{{Op: "write", Clients: 2, Ops: 2000, OpsPerSec: ops, Latency: latencies(rng, 2000, 2e9/ops), Series: series(rng, 0, 3, ops, 4.6e6/ops, 0)}}})
			}
		}
	}
	return d
}

// svgStroke is a stroked path of an SVG chart: its colour and dashes.
var svgStroke = regexp.MustCompile(`style="fill:none;stroke:(#[0-9A-Fa-f]{6});stroke-width:(?:2|1\.5)(?:;stroke-dasharray:([0-9.,]+))?"`)

// svgHeight is an SVG chart's height.
var svgHeight = regexp.MustCompile(`<svg width="[0-9.]+pt" height="([0-9.]+)pt"`)

// svgText is a text of an SVG chart and where it is drawn.
var svgText = regexp.MustCompile(`<text x="([-0-9.e]+)" y="([-0-9.e]+)"[^>]*>([^<]*)</text>`)

// The latency and timeline charts of a 12-variant matrix, as SVG: every
// variant's line has a colour and dash pattern of its own (before, the
// ninth repeated the first), and the legend, in columns, leaves the plot
// most of the chart's height (before, 12 rows took three quarters of it).
func TestManyLinesStyledApartAndLegendInColumns(t *testing.T) {
	d := matrixDoc()
	st := newChartStyle(English, nil, []*result.Document{d})
	for _, ch := range append(latencyCharts(st, d), timelineCharts(st, d)...) {
		b, err := ch.SVG()
		if err != nil {
			t.Fatal(err)
		}
		svg := string(b)
		// Each style is drawn as a line and as its legend's swatch (twice
		// more for the timeline's second plot).
		styles := map[string]int{}
		for _, m := range svgStroke.FindAllStringSubmatch(svg, -1) {
			styles[m[1]+" "+m[2]]++
		}
		if len(styles) != len(d.Stores) {
			t.Errorf("%s: %d line styles for %d variants: %v", ch.Name, len(styles), len(d.Stores), styles)
		}
		// Where the legend's labels are, and where the plot's axis labels.
		size := svgHeight.FindStringSubmatch(svg)
		if size == nil {
			t.Fatalf("%s: no height in %.200s", ch.Name, svg)
		}
		height, _ := strconv.ParseFloat(size[1], 64)
		legendBottom, xs := 0.0, map[string]bool{} // from the top
		for _, m := range svgText.FindAllStringSubmatch(svg, -1) {
			// The text's y is flipped: -y from the bottom, height+y from
			// the top.
			y, _ := strconv.ParseFloat(m[2], 64)
			if strings.HasPrefix(m[3], "innodb_page_size=") {
				legendBottom = max(legendBottom, height+y)
				x, _ := strconv.ParseFloat(m[1], 64)
				xs[strconv.FormatFloat(x, 'f', 0, 64)] = true
			}
		}
		if len(xs) < 2 {
			t.Errorf("%s: legend in %d column(s), want at least 2", ch.Name, len(xs))
		}
		if legendBottom == 0 || legendBottom > height/3 {
			t.Errorf("%s: the legend reaches %.0f of %.0f points; want it in the top third", ch.Name, legendBottom, height)
		}
	}
	// Every pair of colour and dash pattern is used once before any
	// repeats.
	seen := map[string]bool{}
	for i := range len(okabeIto) * len(dashes) {
		c, dash := lineStyle(i)
		k := fmt.Sprint(c, dash)
		if seen[k] {
			t.Fatalf("line %d repeats the style %s", i, k)
		}
		seen[k] = true
	}
}

// A run with repeats: its throughput chart's bars are the repeats'
// medians and its timelines the first repeat; the SVG files say so under
// their titles, as the HTML report's captions do (before, only they did).
func TestRepeatChartsSaySoInThePicture(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	doc := func(repeats int) *result.Document {
		d := &result.Document{Schema: result.Schema, Kurabe: "0.0.0-test", Run: result.RunConfig{Workload: "bbs", Ops: []string{"write"}, Clients: 2, Count: 2000, Repeat: repeats}}
		for _, label := range []string{"file", "sqlite"} {
			s := result.Store{Label: label}
			for rep := range repeats {
				ops := 5000 + 100*float64(rep)
				s.Phases = append(s.Phases, result.Phase{Op: "write", Repeat: rep, Clients: 2, Ops: 2000, OpsPerSec: ops, Latency: latencies(rng, 2000, 2e9/ops), Series: series(rng, 0, 3, ops, 4.6e6/ops, 0)})
			}
			d.Stores = append(d.Stores, s)
		}
		return d
	}
	for _, c := range []struct {
		lang       string
		repeats    int
		throughput string // what the throughput chart says under its title, if anything
		timeline   string
	}{
		{English, 3, "median of repeats, whiskers min–max", "first repeat"},
		{English, 1, "", ""},
	} {
		dir := t.TempDir()
		if _, err := WriteCharts(dir, "svg", c.lang, doc(c.repeats)); err != nil {
			t.Fatal(err)
		}
		for file, want := range map[string]string{"throughput.svg": c.throughput, "timeline-write.svg": c.timeline} {
			b, err := os.ReadFile(filepath.Join(dir, file))
			if err != nil {
				t.Fatal(err)
			}
			var texts []string
			for _, m := range svgText.FindAllStringSubmatch(string(b), -1) {
				texts = append(texts, m[3])
			}
			// The title, then the subtitle.
			if want != "" && (len(texts) < 2 || texts[1] != want) {
				t.Errorf("%d repeats: %s's texts begin %q, want the title then %q", c.repeats, file, texts[:min(3, len(texts))], want)
			}
			for _, not := range []string{"median of repeats", "first repeat"} {
				if want == "" && strings.Contains(string(b), not) {
					t.Errorf("%d repeat: %s says %q", c.repeats, file, not)
				}
			}
		}
	}
}
