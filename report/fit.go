package report

import (
	"math"
	"slices"
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
	Values    int     // distinct swept values among the points
	Min, Max  float64 // the smallest and largest swept value measured
}

// MinValues is the fewest distinct swept values a line needs before its
// fit can be judged: a line through two values passes through both
// (R² 1 without repeats, whatever the latency does between them), so it
// says nothing of how well a line describes the store, and no R² or
// crossing is stated for it.
const MinValues = 3

// judged says whether the line's fit can be judged (MinValues).
func (f Fit) judged() bool { return f.Values >= MinValues }

// MinR2 is the least R² both lines need before kurabe says where they
// cross (or that they do not). Below it a line explains less than 80% of
// the variation of its own points: where it meets another says more about
// noise, or about a latency that does not grow with the swept value, than
// about the stores.
const MinR2 = 0.8

// Crossing is where two stores' fitted lines meet, within the range of
// the swept value both measured.
type Crossing struct {
	A, B    string
	Sweep   string
	At      float64 // the swept value
	Below   string  // the store that is faster below At
	Above   string  // the one faster above it
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
			vals := slices.Clone(xs[k])
			slices.Sort(vals)
			out = append(out, Fit{Store: s.Label, Clients: k.clients, Sweep: k.sweep, Intercept: a, Slope: b, R2: r2, Points: len(xs[k]),
				Values: len(slices.Compact(vals)), Min: slices.Min(xs[k]), Max: slices.Max(xs[k])})
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

// verdict is what can be said about two lines of one sweep and client
// level.
type verdict struct {
	f, g   Fit
	lo, hi float64 // the range of the swept value both measured
	few    *Fit    // the first of the two lines through too few values to judge: nothing is said
	poor   *Fit    // the first of the two lines below MinR2: nothing is said
	cross  *Crossing
	faster string // with no crossing in lo..hi: the store faster throughout
}

// verdicts pairs the lines of stores with the same sweep and client level
// that measured a common range of the swept value. A crossing is stated
// only within that range: beyond it a line is an extrapolation, which
// latency rarely follows (caches spill, plans change), so a crossing at
// 30,000 records from a sweep up to 5,000 is not a finding.
func verdicts(fits []Fit) []verdict {
	var out []verdict
	for i := range fits {
		for j := i + 1; j < len(fits); j++ {
			f, g := fits[i], fits[j]
			if f.Sweep != g.Sweep || f.Clients != g.Clients {
				continue
			}
			v := verdict{f: f, g: g, lo: math.Max(f.Min, g.Min), hi: math.Min(f.Max, g.Max)}
			if v.lo >= v.hi {
				continue // no range both measured
			}
			switch {
			case !f.judged():
				v.few = &fits[i]
			case !g.judged():
				v.few = &fits[j]
			case f.R2 < MinR2:
				v.poor = &fits[i]
			case g.R2 < MinR2:
				v.poor = &fits[j]
			}
			if v.few != nil {
				out = append(out, v)
				continue
			}
			at := (g.Intercept - f.Intercept) / (f.Slope - g.Slope)
			if v.poor == nil && f.Slope != g.Slope && at >= v.lo && at <= v.hi {
				// Left of the crossing the steeper line is the lower one.
				below, above := f.Store, g.Store
				if g.Slope > f.Slope {
					below, above = g.Store, f.Store
				}
				v.cross = &Crossing{A: f.Store, B: g.Store, Sweep: f.Sweep, At: at, Below: below, Above: above, Clients: f.Clients}
			} else if v.poor == nil {
				mid := (v.lo + v.hi) / 2
				switch fm, gm := f.Intercept+f.Slope*mid, g.Intercept+g.Slope*mid; {
				case fm < gm:
					v.faster = f.Store
				case gm < fm:
					v.faster = g.Store
				}
			}
			out = append(out, v)
		}
	}
	return out
}

// Crossings returns where the lines of two stores with the same sweep and
// client level cross, for the pairs whose lines both fit their points
// (R² at least MinR2) and cross within the range of the swept value both
// measured.
func Crossings(fits []Fit) []Crossing {
	var out []Crossing
	for _, v := range verdicts(fits) {
		if v.cross != nil {
			out = append(out, *v.cross)
		}
	}
	return out
}

// fitNotes renders the fits and what can be said of each pair of lines:
// where they cross, that they do not within the range both measured, or
// that a line fits its points too poorly to say.
func fitNotes(d *result.Document, l tr) []string {
	fits := Fits(d)
	var out []string
	levels := len(d.Run.Levels) > 1
	for _, f := range fits {
		who := f.Store
		if levels {
			who += " c=" + strconv.Itoa(f.Clients)
		}
		sign, slope := "+", f.Slope
		if slope < 0 {
			sign, slope = "-", -slope
		}
		if !f.judged() {
			out = append(out, l.f("note.fit.few", who, dur(f.Intercept), sign, dur(slope), l.t(singular(f.Sweep)), f.Values, l.t(f.Sweep), MinValues))
			continue
		}
		out = append(out, l.f("note.fit", who, dur(f.Intercept), sign, dur(slope), l.t(singular(f.Sweep)), f.R2, f.Points))
	}
	for _, v := range verdicts(fits) {
		b := v.g.Store
		if levels {
			b += " (c=" + strconv.Itoa(v.g.Clients) + ")"
		}
		switch {
		case v.few != nil:
			out = append(out, l.f("note.cross.few", v.f.Store, b, v.few.Store, v.few.Values, l.t(v.few.Sweep)))
		case v.poor != nil:
			out = append(out, l.f("note.cross.poor", v.f.Store, b, v.poor.Store, v.poor.R2, MinR2))
		case v.cross != nil:
			c := v.cross
			out = append(out, l.f("note.cross", c.A, b, num(c.At), l.t(c.Sweep), c.Below, c.Above))
		case v.faster != "":
			out = append(out, l.f("note.cross.none", v.f.Store, b, sweepValue(v.lo), sweepValue(v.hi), l.t(v.f.Sweep), v.faster))
		}
	}
	return out
}

// sweepValue writes a measured swept value: a whole count as one (1, not
// 1.00), anything else as the table's numbers.
func sweepValue(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return num0(int64(v))
	}
	return num(v)
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
					// A side where nothing succeeded has no latency to
					// compare: its errors are noted on their own.
					if sp.Op != vp.Op || sp.Clients != vp.Clients || sp.Repeat != vp.Repeat || sp.Ops == 0 || vp.Ops == 0 {
						continue
					}
					cost := l.f("note.via.adds", v.Via, dur(vp.Latency.Mean-sp.Latency.Mean))
					if vp.Latency.Mean < sp.Latency.Mean {
						// Fewer concurrent writers reach the store through the
						// service's session pool, so it can wait less.
						cost = l.f("note.via.less", dur(sp.Latency.Mean-vp.Latency.Mean), v.Via)
					}
					out = append(out, l.f("note.via", s.Label, phaseName(d, sp), v.Via, num(vp.OpsPerSec), num(sp.OpsPerSec), pct((vp.OpsPerSec/sp.OpsPerSec-1)*100, 0, true),
						dur(vp.Latency.Mean), dur(sp.Latency.Mean), cost))
				}
			}
		}
	}
	return out
}
