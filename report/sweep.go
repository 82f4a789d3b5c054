package report

import (
	"cmp"
	"image/color"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"kurabe/result"
)

// sweepCharts draws, for a sweep (range's records per read), each store's
// mean latency at every swept value with its least-squares line, and marks
// where two stores' lines cross: the picture of the study that compared
// latency against records fetched. A sweep run at several client levels
// (-c 1,2,4,8) has a chart per level (sweep-records-c2, titled so), as the
// notes give a line per level: one chart of a store's lines at four levels
// would be 12 lines for three stores, and a chart of one level, unnamed,
// passed the others over in silence. The charts of one sweep share their
// axes, so that the levels compare at a glance.
func sweepCharts(st *chartStyle, d *result.Document) []*chart {
	fits := Fits(d)
	type level struct {
		sweep   string
		clients int
	}
	var keys []level
	for _, f := range fits {
		if k := (level{f.Sweep, f.Clients}); !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	slices.SortStableFunc(keys, func(a, b level) int { return cmp.Compare(a.clients, b.clients) })
	levels := map[string]int{}
	for _, k := range keys {
		levels[k.sweep]++
	}
	// Each sweep's range, over its levels: the charts of one sweep share
	// their axes.
	xmax, ymax := map[string]float64{}, map[string]float64{}
	for _, s := range d.Stores {
		for _, ph := range s.Phases {
			if ph.Sweep != "" && ph.Latency.Count > 0 {
				xmax[ph.Sweep] = math.Max(xmax[ph.Sweep], ph.SweepValue)
				ymax[ph.Sweep] = math.Max(ymax[ph.Sweep], ph.Latency.Mean)
			}
		}
	}
	var out []*chart
	for _, k := range keys {
		sweep, clients := k.sweep, k.clients
		ch := &chart{Name: "sweep-" + fileName(sweep), Title: st.l.f("chart.sweep", sweep), h: chartH, style: st}
		if levels[sweep] > 1 {
			ch.Name += "-c" + strconv.Itoa(clients)
			ch.Title = st.l.f("chart.sweep.level", sweep, clients)
		}
		p := st.newPlot(sweep, st.l.t("axis.mean"))
		grid(p)
		for _, f := range fits {
			if f.Sweep != sweep || f.Clients != clients {
				continue
			}
			var pts plotter.XYs
			for _, s := range d.Stores {
				if s.Label != f.Store {
					continue
				}
				for _, ph := range s.Phases {
					if ph.Sweep == sweep && ph.Clients == clients && ph.Latency.Count > 0 {
						pts = append(pts, plotter.XY{X: ph.SweepValue, Y: ph.Latency.Mean})
					}
				}
			}
			c := st.color(f.Store)
			if sc, err := plotter.NewScatter(pts); err == nil {
				sc.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
				p.Add(sc)
			}
			fit := f
			line := plotter.NewFunction(func(x float64) float64 { return fit.Intercept + fit.Slope*x })
			line.LineStyle = draw.LineStyle{Color: c, Width: vg.Points(1.5), Dashes: st.dash(f.Store)}
			p.Add(line)
			ch.legend = append(ch.legend, legendEntry{label: seriesLabel(d, f.Store), color: c, line: true, dash: st.dash(f.Store)})
		}
		// The notes' rule: a crossing only where both lines fit and
		// within the range both stores measured, so the mark never
		// widens the chart.
		for _, c := range Crossings(fits) {
			if c.Sweep != sweep || c.Clients != clients {
				continue
			}
			p.Add(&band{x0: c.At - xmax[sweep]/400, x1: c.At + xmax[sweep]/400, color: color.Gray{0x80}})
			ch.Caption = st.l.t("chart.sweep.cross")
		}
		p.X.Min, p.X.Max = 0, math.Max(xmax[sweep]*1.05, 1)
		p.Y.Min, p.Y.Max = 0, math.Max(ymax[sweep]*1.15, 1)
		p.X.Tick.Marker = numTicks{}
		p.Y.Tick.Marker = linearDurTicks{}
		ch.plots = []*plot.Plot{p}
		out = append(out, ch)
	}
	return out
}

// clientCharts draws, against the client levels of -c 1,2,4,8, one chart
// per operation with three panels: ops/s, the phase's total time, and the
// time per operation (mean latency); a line per store. With --repeat each
// point is the median of that level's repeats, as the throughput chart's
// bars and the side-by-side table are (a level's repeats are samples of
// one figure; levels never are).
func clientCharts(st *chartStyle, d *result.Document) []*chart {
	if len(d.Run.Levels) < 2 {
		return nil
	}
	var out []*chart
	for _, op := range ops(d) {
		ch := &chart{Name: "clients-" + fileName(op), Title: st.l.f("chart.clients", op), h: tallH * 3 / 2, style: st}
		rate := st.newPlot("", st.l.t("axis.ops/s"))
		total := st.newPlot("", st.l.t("axis.total"))
		per := st.newPlot(st.l.t("axis.clients"), st.l.t("axis.mean"))
		panels := []*plot.Plot{rate, total, per}
		maxY := make([]float64, 3)
		xmax := 0.0
		var levels levelTicks
		for _, p := range panels {
			grid(p)
		}
		for _, s := range d.Stores {
			pts := levelPoints(s, op)
			for i := range pts {
				for _, pt := range pts[i] {
					maxY[i] = math.Max(maxY[i], pt.Y)
					xmax = math.Max(xmax, pt.X)
					if !slices.Contains(levels, pt.X) {
						levels = append(levels, pt.X)
					}
				}
			}
			if len(pts[0]) < 2 {
				continue
			}
			ls := draw.LineStyle{Color: st.color(s.Label), Width: vg.Points(1.5), Dashes: st.dash(s.Label)}
			for i, p := range panels {
				addSeries(p, pts[i], ls)
			}
			ch.legend = append(ch.legend, legendEntry{label: seriesLabel(d, s.Label), color: st.color(s.Label), line: true, dash: st.dash(s.Label)})
		}
		if len(ch.legend) == 0 {
			continue
		}
		slices.Sort(levels)
		for i, p := range panels {
			p.X.Min, p.X.Max = 0, xmax+1
			p.Y.Min, p.Y.Max = 0, math.Max(maxY[i]*1.1, 1e-9)
			p.X.Tick.Marker = levels
		}
		rate.Y.Tick.Marker = numTicks{}
		per.Y.Tick.Marker = linearDurTicks{}
		ch.plots = panels
		if hasRepeats(d) {
			ch.Caption = st.l.t("chart.clients.repeats")
			ch.Subtitle = ch.Caption
		}
		out = append(out, ch)
	}
	return out
}

// levelPoints returns a store's ops/s, total time and mean latency of op
// at each client level, in order of level: the median of the level's
// repeats.
func levelPoints(s result.Store, op string) [3]plotter.XYs {
	figs := map[int]*[3][]float64{}
	var at []int
	for _, ph := range s.Phases {
		if ph.Op != op {
			continue
		}
		f := figs[ph.Clients]
		if f == nil {
			f = &[3][]float64{}
			figs[ph.Clients] = f
			at = append(at, ph.Clients)
		}
		for i, y := range []float64{ph.OpsPerSec, ph.Elapsed, ph.Latency.Mean} {
			f[i] = append(f[i], y)
		}
	}
	slices.Sort(at)
	var pts [3]plotter.XYs
	for _, c := range at {
		for i := range pts {
			pts[i] = append(pts[i], plotter.XY{X: float64(c), Y: spreadOf(figs[c][i]).med})
		}
	}
	return pts
}

// levelTicks marks the x axis at exactly the client levels that ran, so
// no tick falls between two levels (1.5 clients). Levels are whole and
// sorted. A label that would crowd the one before it (2 and 4 beside 64
// on a linear axis) is left off, its tick kept.
type levelTicks []float64

func (ls levelTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	last := math.Inf(-1)
	for _, v := range ls {
		if v < lo || v > hi {
			continue
		}
		t := plot.Tick{Value: v}
		if v-last >= (hi-lo)/20 {
			t.Label = num0(int64(v))
			last = v
		}
		out = append(out, t)
	}
	return out
}

// linearDurTicks labels a linear axis of microseconds in the table's
// duration format.
type linearDurTicks struct{}

func (linearDurTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = dur(ts[i].Value)
		}
	}
	return ts
}
