package report

import (
	"math"
	"strconv"

	"kurabe/result"
)

// Fit is a least-squares line through one store's mean latency against a
// swept quantity: latency = Intercept + Slope × value. The intercept is the
// fixed cost of a request, the slope the cost of each unit (record).
type Fit struct {
	Store     string
	Clients   int
	Sweep     string
	Intercept float64 // µs
	Slope     float64 // µs per unit
	R2        float64
	Points    int
}

// Crossing is where two stores' fitted lines meet.
type Crossing struct {
	A, B    string
	Sweep   string
	At      float64 // the swept value
	Below   string  // the store that is faster below At
	Clients int     // the client level both lines were measured at
}

// Fits fits a line per store (and client level) over the phases that carry
// a sweep value, repeats pooled.
func Fits(d *result.Document) []Fit {
	var out []Fit
	for _, s := range d.Stores {
		type key struct {
			sweep   string
			clients int
		}
		xs, ys := map[key][]float64{}, map[key][]float64{}
		var order []key
		for _, p := range s.Phases {
			if p.Sweep == "" || p.Latency.Count == 0 {
				continue
			}
			k := key{p.Sweep, p.Clients}
			if _, ok := xs[k]; !ok {
				order = append(order, k)
			}
			xs[k] = append(xs[k], p.SweepValue)
			ys[k] = append(ys[k], p.Latency.Mean)
		}
		for _, k := range order {
			a, b, r2, ok := leastSquares(xs[k], ys[k])
			if !ok {
				continue
			}
			out = append(out, Fit{Store: s.Label, Clients: k.clients, Sweep: k.sweep, Intercept: a, Slope: b, R2: r2, Points: len(xs[k])})
		}
	}
	return out
}

// leastSquares fits y = a + b·x; ok is false with fewer than two distinct x.
func leastSquares(x, y []float64) (a, b, r2 float64, ok bool) {
	n := float64(len(x))
	if len(x) < 2 {
		return 0, 0, 0, false
	}
	var sx, sy float64
	for i := range x {
		sx += x[i]
		sy += y[i]
	}
	mx, my := sx/n, sy/n
	var sxx, sxy, syy float64
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxx += dx * dx
		sxy += dx * dy
		syy += dy * dy
	}
	if sxx == 0 {
		return 0, 0, 0, false
	}
	b = sxy / sxx
	a = my - b*mx
	r2 = 1.0
	if syy > 0 {
		r2 = sxy * sxy / (sxx * syy)
	}
	return a, b, r2, true
}

// Crossings returns where the lines of stores with the same sweep and
// client level cross at a positive value.
func Crossings(fits []Fit) []Crossing {
	var out []Crossing
	for i := range fits {
		for j := i + 1; j < len(fits); j++ {
			f, g := fits[i], fits[j]
			if f.Sweep != g.Sweep || f.Clients != g.Clients || f.Slope == g.Slope {
				continue
			}
			at := (g.Intercept - f.Intercept) / (f.Slope - g.Slope)
			if at <= 0 || math.IsInf(at, 0) || math.IsNaN(at) {
				continue
			}
			below := f.Store // f is faster below at when its intercept is lower
			if g.Intercept < f.Intercept {
				below = g.Store
			}
			out = append(out, Crossing{A: f.Store, B: g.Store, Sweep: f.Sweep, At: at, Below: below, Clients: f.Clients})
		}
	}
	return out
}

// fitNotes renders the fits and crossings as lines under the table.
func fitNotes(d *result.Document, l tr) []string {
	fits := Fits(d)
	var out []string
	for _, f := range fits {
		who := f.Store
		if len(d.Run.Levels) > 1 {
			who += " c=" + strconv.Itoa(f.Clients)
		}
		sign, slope := "+", f.Slope
		if slope < 0 {
			sign, slope = "-", -slope
		}
		out = append(out, l.f("note.fit", who, dur(f.Intercept), sign, dur(slope), singular(f.Sweep), f.R2, f.Points))
	}
	for _, c := range Crossings(fits) {
		b := c.B
		if len(d.Run.Levels) > 1 {
			b += " (c=" + strconv.Itoa(c.Clients) + ")"
		}
		out = append(out, l.f("note.cross", c.A, b, num(c.At), c.Sweep, c.Below))
	}
	return out
}

func singular(s string) string {
	if len(s) > 1 && s[len(s)-1] == 's' {
		return s[:len(s)-1]
	}
	return s
}

// viaNotes compares each store run through kurabe serve (--via-http) with
// its direct run, operation by operation: the cost of the HTTP layer.
func viaNotes(d *result.Document, l tr) []string {
	var out []string
	for _, v := range d.Stores {
		if v.Via == "" {
			continue
		}
		for _, s := range d.Stores {
			if s.Label != v.Of {
				continue
			}
			for _, vp := range v.Phases {
				for _, sp := range s.Phases {
					if sp.Op != vp.Op || sp.Clients != vp.Clients || sp.Repeat != vp.Repeat || sp.OpsPerSec == 0 {
						continue
					}
					cost := l.f("note.via.adds", v.Via, dur(vp.Latency.Mean-sp.Latency.Mean))
					if vp.Latency.Mean < sp.Latency.Mean {
						// Fewer concurrent writers reach the store through the
						// service's session pool, so it can wait less.
						cost = l.f("note.via.less", dur(sp.Latency.Mean-vp.Latency.Mean), v.Via)
					}
					out = append(out, l.f("note.via", s.Label, sp.Op, v.Via, num(vp.OpsPerSec), num(sp.OpsPerSec), pct((vp.OpsPerSec/sp.OpsPerSec-1)*100, 0, true),
						dur(vp.Latency.Mean), dur(sp.Latency.Mean), cost))
				}
			}
		}
	}
	return out
}
