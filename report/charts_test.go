package report

import (
	"cmp"
	"fmt"
	"image/color"
	"maps"
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

	"kurabe/hist"
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
	paths    []geomPath // every stroke and fill, with its colour
}

// geomPath is a stroked or filled path: its colour and points.
type geomPath struct {
	col  color.Color
	fill bool
	pts  []vg.Point
}

// of returns the paths of colour c, stroked or filled.
func (g *geomCanvas) of(c color.Color, fill bool) []geomPath {
	var out []geomPath
	for _, p := range g.paths {
		if p.fill == fill && colorEq(p.col, c) {
			out = append(out, p)
		}
	}
	return out
}

func colorEq(a, b color.Color) bool {
	if a == nil || b == nil {
		return a == b
	}
	r1, g1, b1, a1 := a.RGBA()
	r2, g2, b2, a2 := b.RGBA()
	return r1 == r2 && g1 == g2 && b1 == b2 && a1 == a2
}

func pathPoints(p vg.Path) []vg.Point {
	var ps []vg.Point
	for _, c := range p {
		if c.Type == vg.MoveComp || c.Type == vg.LineComp {
			ps = append(ps, c.Pos)
		}
	}
	return ps
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
	g.paths = append(g.paths, geomPath{g.col, false, pathPoints(p)})
	if g.col == (color.Gray{0x30}) {
		r := pathBounds(p)
		h := g.width / 2
		g.whiskers = append(g.whiskers, vg.Rectangle{Min: vg.Point{X: r.Min.X - h, Y: r.Min.Y - h}, Max: vg.Point{X: r.Max.X + h, Y: r.Max.Y + h}})
	}
	g.CanvasSizer.Stroke(p)
}

func (g *geomCanvas) Fill(p vg.Path) {
	g.paths = append(g.paths, geomPath{g.col, true, pathPoints(p)})
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

// latencyOf is the latency summary of the given values in µs, as a run
// records it.
func latencyOf(us ...float64) result.Latency {
	r := hist.NewRecorder()
	for _, v := range us {
		r.Record(int64(v * 1e3))
	}
	var s hist.Snapshot
	r.AddTo(&s)
	return result.Summarize(&s)
}

// repeated is n copies of v.
func repeated(n int, v float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// drawGeom draws a chart on a geomCanvas.
func drawGeom(ch *chart) *geomCanvas {
	g := &geomCanvas{CanvasSizer: vgsvg.New(chartW, ch.height())}
	ch.draw(draw.New(g))
	return g
}

// top is the highest point of a colour's strokes and fills (glyphs) in
// the plot, below the legend (y, from the bottom, less than below).
func (g *geomCanvas) top(c color.Color, below vg.Length) vg.Length {
	hi := vg.Length(math.Inf(-1))
	for _, p := range g.paths {
		if !colorEq(p.col, c) {
			continue
		}
		for _, pt := range p.pts {
			if pt.Y < below {
				hi = max(hi, pt.Y)
			}
		}
	}
	return hi
}

// Every latency curve ends at its slowest operation, the max the table
// shows: a curve of n operations once stopped at quantile 1 - 1/n, the
// second slowest (500 operations: 472µs drawn, 601µs the max), or at
// p99.99 with more than 10,000. Each case draws two stores: "a", whose
// slowest operation alone is 601µs, and "ref", half of whose operations
// are, so that its curve is at 601µs for most of its length; a's highest
// point must be as high as ref's.
func TestLatencyCurvesReachTheMax(t *testing.T) {
	for _, c := range []struct {
		name string
		a    []float64
	}{
		{"500 operations", append(append(repeated(498, 100), 472), 601)},
		{"two operations", []float64{100, 601}},
		{"20,000 operations, beyond p99.99", append(append(repeated(19997, 100), 300, 472), 601)},
	} {
		t.Run(c.name, func(t *testing.T) {
			ref := append(repeated(50, 100), repeated(50, 601)...)
			d := &result.Document{Schema: result.Schema, Run: result.RunConfig{Workload: "bbs", Ops: []string{"write"}, Clients: 1}}
			for _, s := range []struct {
				label string
				us    []float64
			}{{"a", c.a}, {"ref", ref}} {
				d.Stores = append(d.Stores, result.Store{Label: s.label, Phases: []result.Phase{{Op: "write", Clients: 1, Ops: int64(len(s.us)), Latency: latencyOf(s.us...)}}})
			}
			if got := d.Stores[0].Phases[0].Latency.Max; got != 601 {
				t.Fatalf("the table's max is %vµs, want 601µs", got)
			}
			st := newChartStyle(English, nil, []*result.Document{d})
			chs := latencyCharts(st, d)
			if len(chs) != 1 {
				t.Fatalf("%d charts", len(chs))
			}
			g := drawGeom(chs[0])
			below := g.legendBottom(chs[0])
			a, r := g.top(st.color("a"), below), g.top(st.color("ref"), below)
			// 601µs against the bucket's midpoint near it: well within a
			// point, where 472µs is some 10 points lower.
			if math.Abs(float64(a-r)) > 1 {
				t.Errorf("a's curve tops out at y=%.1f, ref's (601µs) at y=%.1f: a does not reach its max", a, r)
			}
		})
	}
}

// legendBottom is the y (from the bottom) of a chart's legend's lowest
// text: the plot is below it.
func (g *geomCanvas) legendBottom(ch *chart) vg.Length {
	lo := vg.Length(math.Inf(1))
	for _, x := range g.texts {
		if slices.ContainsFunc(ch.legend, func(e legendEntry) bool { return e.label == x.s }) {
			lo = min(lo, x.r.Min.Y)
		}
	}
	return lo
}

// A phase of one operation (the load workload's, crud's batch-read at a
// small -n) is drawn as a dot at p50 per store, its latency, with a legend
// that says so; before, its chart was empty axes under a legend.
func TestLatencyOfOneOperationIsADot(t *testing.T) {
	d := &result.Document{Schema: result.Schema, Run: result.RunConfig{Workload: "load", Ops: []string{"autocommit"}, Clients: 1}}
	for _, s := range []struct {
		label string
		us    float64
	}{{"sqlite", 5.2e6}, {"file", 33e3}} {
		d.Stores = append(d.Stores, result.Store{Label: s.label, Phases: []result.Phase{{Op: "autocommit", Clients: 1, Ops: 1, Latency: latencyOf(s.us)}}})
	}
	st := newChartStyle(English, nil, []*result.Document{d})
	chs := latencyCharts(st, d)
	if len(chs) != 1 {
		t.Fatalf("%d charts, want the latency chart", len(chs))
	}
	var labels []string
	for _, e := range chs[0].legend {
		labels = append(labels, e.label)
	}
	if want := []string{"sqlite (1 operation)", "file (1 operation)"}; !slices.Equal(labels, want) {
		t.Errorf("legend %q, want %q", labels, want)
	}
	g := drawGeom(chs[0])
	below := g.legendBottom(chs[0])
	dotY := map[string]vg.Length{}
	for _, label := range []string{"sqlite", "file"} {
		var dots []vg.Length
		for _, p := range g.of(st.color(label), true) {
			if p.pts[0].Y < below {
				dots = append(dots, p.pts[0].Y)
			}
		}
		if len(dots) != 1 {
			t.Fatalf("%s: %d dots drawn in the plot, want 1", label, len(dots))
		}
		dotY[label] = dots[0]
	}
	if dotY["sqlite"] <= dotY["file"] {
		t.Errorf("sqlite's dot (5.2s) at y=%.1f is not above file's (33ms) at y=%.1f", dotY["sqlite"], dotY["file"])
	}
	// The x axis fits the dots: before, it ran on to p99.99 as for a
	// curve, the dots pressed against its left end with nothing past them.
	x0, x1 := g.xAxis()
	for _, label := range []string{"sqlite", "file"} {
		for _, p := range g.of(st.color(label), true) {
			if p.pts[0].Y >= below {
				continue // the legend's dot
			}
			var cx vg.Length
			for _, pt := range p.pts {
				cx += pt.X
			}
			cx /= vg.Length(len(p.pts))
			if at := float64((cx - x0) / (x1 - x0)); at < 0.3 || at > 0.7 {
				t.Errorf("%s's dot is %.0f%% along the x axis (%.1f to %.1f pt), want it near the middle: the axis runs past the data", label, 100*at, x0, x1)
			}
		}
	}
	for _, x := range g.texts {
		if x.s == "p90" || x.s == "p99.99" {
			t.Errorf("tick %q drawn, past the dots at p50", x.s)
		}
	}
}

// xAxis is the left and right end of the x axis's line, the longest
// horizontal stroke in the axes' grey.
func (g *geomCanvas) xAxis() (x0, x1 vg.Length) {
	for _, p := range g.paths {
		if p.fill || !colorEq(p.col, color.Gray{0x80}) || len(p.pts) != 2 || p.pts[0].Y != p.pts[1].Y {
			continue
		}
		a, b := min(p.pts[0].X, p.pts[1].X), max(p.pts[0].X, p.pts[1].X)
		if b-a > x1-x0 {
			x0, x1 = a, b
		}
	}
	return x0, x1
}

// A phase the workload skipped on a store (crud's update on the file
// store) is left out of its timeline: before, it was a point at 0 ops/s,
// t=0, that read as measured, and an entry in the legend.
func TestTimelineLeavesSkippedPhasesOut(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	skipped := result.Phase{Op: "update", Clients: 1, Errors: 20, ErrorClasses: []result.ErrorClass{{Class: "skipped", Count: 20, First: "crud update needs SQL"}},
		Series: []result.Second{{T: 0, Errors: 20}}}
	d := &result.Document{Schema: result.Schema, Run: result.RunConfig{Workload: "crud", Ops: []string{"update"}, Clients: 1, Count: 20},
		Stores: []result.Store{
			{Label: "sqlite", Phases: []result.Phase{{Op: "update", Clients: 1, Ops: 20, OpsPerSec: 900, Latency: latencies(rng, 20, 1e6), Series: series(rng, 0, 2, 900, 5000, 0)}}},
			{Label: "file", Phases: []result.Phase{skipped}},
		}}
	st := newChartStyle(English, nil, []*result.Document{d})
	chs := timelineCharts(st, d)
	if len(chs) != 1 {
		t.Fatalf("%d charts", len(chs))
	}
	for _, e := range chs[0].legend {
		if strings.HasPrefix(e.label, "file") {
			t.Errorf("legend names the skipped store: %q", e.label)
		}
	}
	g := drawGeom(chs[0])
	if n := len(g.of(st.color("file"), true)) + len(g.of(st.color("file"), false)); n != 0 {
		t.Errorf("%d paths drawn in file's colour; its phase was skipped", n)
	}
	if len(g.of(st.color("sqlite"), false)) == 0 {
		t.Error("sqlite's measured line is not drawn")
	}
	// With every store skipping it, the phase has no timeline.
	d.Stores = d.Stores[1:]
	if chs := timelineCharts(st, d); len(chs) != 0 {
		t.Errorf("%d timelines of a phase every store skipped", len(chs))
	}
}

// A log axis spanning less than a decade (a timeline's p99 panel, whose
// latencies barely move) has at least three labelled ticks, each inside
// the axis and written as the table writes durations; before, it had one
// or none (1.6ms to 3.9ms: only 2ms).
func TestShortLogAxesHaveThreeLabels(t *testing.T) {
	for _, c := range []struct{ lo, hi float64 }{
		{1540 / 1.3, 3900 * 1.3}, // tpcb at -c 1,2: 1.5ms to 3.9ms
		{1180, 1600},             // a steady p99: less than a third of a decade
		{3000 / 1.3, 12000 * 1.3},
		{2.3, 3.1},
		{800, 5000},
		{40e3, 55e3},
	} {
		ticks := durTicks{}.Ticks(c.lo, c.hi)
		var labels []string
		for _, tk := range ticks {
			if tk.Label == "" {
				continue
			}
			labels = append(labels, tk.Label)
			if tk.Value < c.lo || tk.Value > c.hi {
				t.Errorf("%v..%vµs: tick %s at %v is outside the axis", c.lo, c.hi, tk.Label, tk.Value)
			}
			if tk.Label != durLabel(tk.Value) {
				t.Errorf("%v..%vµs: tick at %v labelled %q, want %q", c.lo, c.hi, tk.Value, tk.Label, durLabel(tk.Value))
			}
		}
		if len(labels) < 3 || len(slices.Compact(slices.Clone(labels))) != len(labels) {
			t.Errorf("%v..%vµs: labels %q, want 3 or more, all different", c.lo, c.hi, labels)
		}
	}
	// The timeline of a run whose p99 stays between 1.5 and 1.6ms.
	d := &result.Document{Schema: result.Schema, Run: result.RunConfig{Workload: "tpcb", Ops: []string{"tpcb"}, Clients: 1},
		Stores: []result.Store{{Label: "sqlite", Phases: []result.Phase{{Op: "tpcb", Clients: 1, Ops: 2300, Series: []result.Second{
			{T: 1, Ops: 1140, OpsPerSec: 1140, P99: 1630}, {T: 2, Ops: 1160, OpsPerSec: 1160, P99: 1520}}}}}}}
	chs := timelineCharts(newChartStyle(English, nil, []*result.Document{d}), d)
	if len(chs) != 1 {
		t.Fatalf("%d charts", len(chs))
	}
	y := chs[0].plots[1].Y
	n := 0
	for _, tk := range y.Tick.Marker.Ticks(y.Min, y.Max) {
		if tk.Label != "" {
			n++
		}
	}
	if n < 3 {
		t.Errorf("the p99 panel, %.0f to %.0fµs, has %d labelled ticks, want 3 or more", y.Min, y.Max, n)
	}
}

// A Y axis's title, turned upright, keeps 3 pt from its widest tick label
// in every language: with Japanese text (Noto Sans CJK, whose ascent is
// larger than its size) it was 1.3 pt, "ops/s" against "200,000".
func TestYAxisTitleClearsTickLabels(t *testing.T) {
	d := crowdedDoc(2) // ops/s in the hundred thousands
	rng := rand.New(rand.NewPCG(4, 4))
	for i := range d.Stores {
		for j := range d.Stores[i].Phases {
			d.Stores[i].Phases[j].Latency = latencies(rng, 1000, 2e6)
		}
	}
	for _, lang := range []string{English, Japanese} {
		cjk := cjkFont(lang)
		if lang == Japanese && cjk == nil {
			t.Log("no Japanese font installed: Japanese charts are drawn in English")
			continue
		}
		st := newChartStyle(lang, cjk, []*result.Document{d})
		for _, ch := range append(throughputChart(st, d), latencyCharts(st, d)...) {
			g := drawGeom(ch)
			p := ch.plots[0]
			var ticks []string
			for _, tk := range p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max) {
				if tk.Label != "" {
					ticks = append(ticks, tk.Label)
				}
			}
			var title *geomText
			for i, x := range g.texts {
				if x.turned && x.s == p.Y.Label.Text {
					title = &g.texts[i]
				}
			}
			if title == nil {
				t.Fatalf("%s %s: no upright title %q", lang, ch.Name, p.Y.Label.Text)
			}
			gap, n := vg.Length(math.Inf(1)), 0
			for _, x := range g.texts {
				if !x.turned && slices.Contains(ticks, x.s) && x.r.Min.X < title.r.Max.X+60 {
					gap = min(gap, x.r.Min.X-title.r.Max.X)
					n++
				}
			}
			if n == 0 {
				t.Fatalf("%s %s: no tick labels %q found", lang, ch.Name, ticks)
			}
			if gap < yLabelGap-0.01 {
				t.Errorf("%s %s: %q is %.2f pt from its tick labels, want %v", lang, ch.Name, title.s, float64(gap), yLabelGap)
			}
		}
	}
}

// loadDoc is a load run on sqlite and file of 5,000 rows, each way one
// operation; file skips the transaction way.
func loadDoc() *result.Document {
	d := &result.Document{Schema: result.Schema, Run: result.RunConfig{Workload: "load", Ops: []string{"autocommit", "transaction", "batch"}, Clients: 1, Count: 1,
		Params: map[string]string{"rows": "5000", "chunk_rows": "5000"}}}
	for _, s := range []struct {
		label   string
		seconds []float64 // per way; 0: skipped
	}{{"sqlite", []float64{5.3, 0.048, 0.043}}, {"file", []float64{0.034, 0, 0.0197}}} {
		st := result.Store{Label: s.label}
		for i, op := range d.Run.Ops {
			p := result.Phase{Op: op, Clients: 1}
			if sec := s.seconds[i]; sec > 0 {
				p.Ops, p.Elapsed, p.OpsPerSec, p.Latency = 1, sec, 1/sec, latencyOf(sec*1e6)
				p.Verify = []result.Verify{{Table: "records", Acked: 5000, After: 5000}}
			} else {
				p.Errors, p.ErrorClasses = 1, []result.ErrorClass{{Class: "skipped", Count: 1, First: "load transaction needs BEGIN and COMMIT"}}
			}
			st.Phases = append(st.Phases, p)
		}
		d.Stores = append(d.Stores, st)
	}
	return d
}

// The load workload's bars are its rows/s, which the notes give, on an
// axis that says so, not ops/s (one operation being the whole data set:
// sqlite autocommit 0.19 ops/s); a way a store skipped says so where its
// bar would stand, in the report's language.
func TestLoadChartsRowsPerSecond(t *testing.T) {
	d := loadDoc()
	for _, c := range []struct {
		lang, axis, skipped string
	}{{English, "rows/s", "skipped"}, {Japanese, "行/秒", "スキップ"}} {
		st := newChartStyle(c.lang, cjkFont(c.lang), []*result.Document{d})
		if string(st.l) != c.lang {
			t.Logf("no Japanese font installed: %s charts not checked", c.lang)
			continue
		}
		chs := throughputChart(st, d)
		if len(chs) != 1 {
			t.Fatalf("%d charts", len(chs))
		}
		if got := chs[0].plots[0].Y.Label.Text; got != c.axis {
			t.Errorf("%s: y axis %q, want %q", c.lang, got, c.axis)
		}
		g := drawGeom(chs[0])
		drawn := map[string]int{}
		for _, x := range g.texts {
			drawn[x.s]++
		}
		for _, want := range []string{"943", "104,167", "116,279", "147,059", "253,807"} {
			if drawn[want] != 1 {
				t.Errorf("%s: the bar value %s drawn %d times, want once (texts %v)", c.lang, want, drawn[want], drawn)
			}
		}
		if drawn[c.skipped] != 1 {
			t.Errorf("%s: %q drawn %d times, want once, for file's transaction", c.lang, c.skipped, drawn[c.skipped])
		}
	}
}

// Every store of a --vary run (every variant) has one colour in every
// chart of the report: the ops/s bars are coloured and named as the
// latency and timeline lines are (before, one blue "sqlite:" for every
// bar against a colour per variant on the lines).
func TestVaryChartsColourVariantsAlike(t *testing.T) {
	d := varyDoc()
	st := newChartStyle(English, nil, []*result.Document{d})
	legend := func(ch *chart) map[string]color.Color {
		m := map[string]color.Color{}
		for _, e := range ch.legend {
			m[e.label] = e.color
		}
		return m
	}
	bars := matrixCharts(st, d)
	if len(bars) != 1 {
		t.Fatalf("%d vary charts", len(bars))
	}
	want := legend(bars[0])
	if len(want) != len(d.Stores) {
		t.Fatalf("vary chart's legend %v, want one entry per variant (%d)", want, len(d.Stores))
	}
	for _, ch := range append(latencyCharts(st, d), timelineCharts(st, d)...) {
		got := legend(ch)
		for label, c := range want {
			if !colorEq(got[label], c) {
				t.Errorf("%s: %q is %v, on the vary chart %v", ch.Name, label, got[label], c)
			}
		}
	}
	// Each variant's bar is filled in its colour.
	g := drawGeom(bars[0])
	for _, s := range d.Stores {
		if n := len(g.of(st.color(s.Label), true)); n < 2 { // its bar and its legend's swatch
			t.Errorf("%s: %d fills in its colour, want its bar and its swatch", s.Label, n)
		}
	}
}

// A legend of more than one row is in columns: the entries of every row
// start at the same x, column by column (before, a wrapped row started
// its second entry wherever the first row's first entry ended).
func TestLegendRowsLineUp(t *testing.T) {
	d := varyDoc() // four long names: two rows
	st := newChartStyle(English, nil, []*result.Document{d})
	for _, ch := range append(latencyCharts(st, d), matrixCharts(st, d)...) {
		g := drawGeom(ch)
		rows := map[vg.Length][]vg.Length{} // y -> xs
		for _, x := range g.texts {
			if slices.ContainsFunc(ch.legend, func(e legendEntry) bool { return e.label == x.s }) {
				rows[x.r.Min.Y] = append(rows[x.r.Min.Y], x.r.Min.X)
			}
		}
		if len(rows) < 2 {
			t.Fatalf("%s: legend in %d row(s), want 2 or more for this test", ch.Name, len(rows))
		}
		var first []vg.Length
		for _, xs := range rows {
			slices.Sort(xs)
			if first == nil {
				first = xs
			}
			for i := range min(len(xs), len(first)) {
				if math.Abs(float64(xs[i]-first[i])) > 0.01 {
					t.Errorf("%s: entry %d of a row at x=%.1f, of another at x=%.1f", ch.Name, i+1, xs[i], first[i])
				}
			}
		}
	}
}

// matrixDoc16 is a --vary run of one store over 4 × 2 × 2 settings, 16
// variants, as --vary commonly makes.
func matrixDoc16() *result.Document {
	rng := rand.New(rand.NewPCG(16, 16))
	sizes := []string{"4k", "8k", "16k", "32k"}
	d := &result.Document{Schema: result.Schema, Kurabe: "0.0.0-test", Run: result.RunConfig{Workload: "bbs", Ops: []string{"write"}, Clients: 2, Count: 2000,
		Vary: []result.Axis{{Name: "innodb_page_size", Values: sizes}, {Name: "page_compressed", Values: []string{"0", "1"}}, {Name: "encrypted", Values: []string{"0", "1"}}}}}
	for _, ps := range sizes {
		for _, pc := range []string{"0", "1"} {
			for _, enc := range []string{"0", "1"} {
				ops := 9000 + 100*float64(len(d.Stores))
				q := "encrypted=" + enc + "&innodb_page_size=" + ps + "&page_compressed=" + pc
				d.Stores = append(d.Stores, result.Store{Label: "mariadb?" + q, Spec: "mariadb:managed?" + q,
					Variant: []result.Setting{{Name: "innodb_page_size", Value: ps}, {Name: "page_compressed", Value: pc}, {Name: "encrypted", Value: enc}},
					Phases:  []result.Phase{{Op: "write", Clients: 2, Ops: 2000, OpsPerSec: ops, Latency: latencies(rng, 2000, 2e9/ops)}}})
			}
		}
	}
	return d
}

// hatchOf says how the filled rectangle r is hatched: the directions of
// the lines stroked within it over its fill (| - / \), sorted.
func (g *geomCanvas) hatchOf(r vg.Rectangle) string {
	const eps = 0.01
	in := func(p vg.Point) bool {
		return p.X >= r.Min.X-eps && p.X <= r.Max.X+eps && p.Y >= r.Min.Y-eps && p.Y <= r.Max.Y+eps
	}
	dirs := map[string]bool{}
	for _, p := range g.paths {
		if p.fill || len(p.pts) != 2 || !in(p.pts[0]) || !in(p.pts[1]) || !(colorEq(p.col, color.White) || colorEq(p.col, color.Gray{0x30})) {
			continue
		}
		dx, dy := p.pts[1].X-p.pts[0].X, p.pts[1].Y-p.pts[0].Y
		switch {
		case dx == 0:
			dirs["|"] = true
		case dy == 0:
			dirs["-"] = true
		case dx*dy > 0:
			dirs["/"] = true
		default:
			dirs[`\`] = true
		}
	}
	return strings.Join(slices.Sorted(maps.Keys(dirs)), "")
}

// A --vary matrix of 16 variants: every variant's bar has a fill of its
// own, its colour the one its line has in the latency chart, and its
// legend swatch is filled as its bar is. Before, bars had the 8 colours
// alone, and the 9th to 16th variants' bars looked like the 1st to 8th.
func TestManyBarsFilledApart(t *testing.T) {
	d := matrixDoc16()
	st := newChartStyle(English, nil, []*result.Document{d})
	chs := matrixCharts(st, d)
	if len(chs) != 1 {
		t.Fatalf("%d charts", len(chs))
	}
	g := drawGeom(chs[0])
	lat := drawGeom(latencyCharts(st, d)[0])
	below := g.legendBottom(chs[0])
	// The bars, left to right, are the variants in order (one store); the
	// legend's swatches are each just left of their label.
	var bars []geomPath
	for _, p := range g.paths {
		if r := bounds(p.pts); p.fill && r.Max.Y < below && r.Size().X < 100 && r.Size().Y > 1 && !colorEq(p.col, color.White) {
			bars = append(bars, p)
		}
	}
	if len(bars) != len(d.Stores) {
		t.Fatalf("%d bars for %d variants", len(bars), len(d.Stores))
	}
	slices.SortFunc(bars, func(a, b geomPath) int { return cmp.Compare(bounds(a.pts).Min.X, bounds(b.pts).Min.X) })
	swatchOf := func(label string) (geomPath, bool) {
		for _, x := range g.texts {
			if x.s != label {
				continue
			}
			for _, p := range g.paths {
				r := bounds(p.pts)
				if p.fill && r.Min.Y >= below-10 && math.Abs(float64((r.Min.Y+r.Max.Y)/2-(x.r.Min.Y+x.r.Max.Y)/2)) < 3 && x.r.Min.X-r.Max.X > 0 && x.r.Min.X-r.Max.X < 8 {
					return p, true
				}
			}
		}
		return geomPath{}, false
	}
	seen := map[string]string{}
	for i, s := range d.Stores {
		c := st.color(s.Label)
		if !colorEq(bars[i].col, c) {
			t.Errorf("%s: bar in %v, not its colour in the other charts %v", s.Label, bars[i].col, c)
		}
		bar := g.hatchOf(bounds(bars[i].pts))
		sw, ok := swatchOf(seriesLabel(d, s.Label))
		if !ok {
			t.Errorf("%s: no legend swatch", s.Label)
		} else if swatch := g.hatchOf(bounds(sw.pts)); !colorEq(sw.col, c) || swatch != bar {
			t.Errorf("%s: bar %v hatched %q, its legend swatch %v hatched %q", s.Label, c, bar, sw.col, swatch)
		}
		key := fmt.Sprint(c) + " " + bar
		if other, ok := seen[key]; ok {
			t.Errorf("%s's bar looks like %s's: colour %v, hatch %q", s.Label, other, c, bar)
		}
		seen[key] = s.Label
		if len(lat.of(c, false)) == 0 {
			t.Errorf("%s: no line in its bar's colour %v in the latency chart", s.Label, c)
		}
	}
	// Every fill is used once before any repeats, as many as the line
	// styles.
	fills := map[fill]bool{}
	for i := range len(okabeIto) * len(dashes) {
		f := barFill(i)
		if c, _ := lineStyle(i); f.color != c {
			t.Errorf("bar %d's colour %v is not its line's %v", i, f.color, c)
		}
		if fills[f] {
			t.Errorf("bar %d repeats fill %v", i, f)
		}
		fills[f] = true
	}
}
