package report

import (
	"fmt"
	"image/color"
	"math"
	"slices"
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
	s string
	r vg.Rectangle
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
	corners := []vg.Point{{X: pt.X, Y: pt.Y - e.Descent}, {X: pt.X + f.Width(s), Y: pt.Y + e.Ascent}}
	corners = append(corners, vg.Point{X: corners[0].X, Y: corners[1].Y}, vg.Point{X: corners[1].X, Y: corners[0].Y})
	sin, cos := math.Sincos(g.rot)
	var ps []vg.Point
	for _, c := range corners {
		ps = append(ps, vg.Point{X: c.X*vg.Length(cos) - c.Y*vg.Length(sin), Y: c.X*vg.Length(sin) + c.Y*vg.Length(cos)})
	}
	g.texts = append(g.texts, geomText{s, bounds(ps)})
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
