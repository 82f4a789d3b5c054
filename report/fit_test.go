package report

import (
	"math"
	"slices"
	"strings"
	"testing"

	"kurabe/result"
)

func sweepDoc(lines map[string][2]float64, xs []float64) *result.Document {
	d := &result.Document{}
	for _, name := range []string{"a", "b"} {
		l := lines[name]
		s := result.Store{Label: name}
		for _, x := range xs {
			s.Phases = append(s.Phases, result.Phase{Op: "range", Sweep: "records", SweepValue: x, Clients: 1,
				Latency: result.Latency{Count: 10, Mean: l[0] + l[1]*x}})
		}
		d.Stores = append(d.Stores, s)
	}
	return d
}

func TestFitsRecoverLinesAndCrossing(t *testing.T) {
	// a: 100 µs + 2 µs/record; b: 400 µs + 0.5 µs/record; they cross at
	// (400-100)/(2-0.5) = 200 records, a faster below.
	d := sweepDoc(map[string][2]float64{"a": {100, 2}, "b": {400, 0.5}}, []float64{1, 100, 500, 1000, 5000})
	fits := Fits(d)
	if len(fits) != 2 {
		t.Fatalf("%d fits", len(fits))
	}
	if f := fits[0]; math.Abs(f.Intercept-100) > 1e-6 || math.Abs(f.Slope-2) > 1e-9 || math.Abs(f.R2-1) > 1e-9 || f.Points != 5 {
		t.Fatalf("fit a = %+v", f)
	}
	cs := Crossings(fits)
	if len(cs) != 1 || math.Abs(cs[0].At-200) > 1e-6 || cs[0].Below != "a" || cs[0].Above != "b" {
		t.Fatalf("crossings %+v", cs)
	}
}

// TestCrossingOnlyWithinTheMeasuredRange: a crossing is stated only where
// both lines fit their points (R² at least MinR2) and within the range of
// the swept value both stores measured; the notes say which it was.
func TestCrossingOnlyWithinTheMeasuredRange(t *testing.T) {
	cases := []struct {
		name  string
		a, b  [2]float64 // intercept, slope
		xs    []float64
		noise float64 // added to b's means, alternately + and -
		cross float64 // 0: none stated
		note  string
	}{
		// The lines meet at 200 records, within 1..1000.
		{"within", [2]float64{100, 2}, [2]float64{400, 0.5}, []float64{1, 100, 1000}, 0, 200, "a and b cross at 200 records: a is faster below, b above"},
		// They would meet at 200, but the sweep stopped at 100: beyond
		// the data, so not stated.
		{"beyond the largest", [2]float64{100, 2}, [2]float64{400, 0.5}, []float64{1, 10, 100}, 0, 0,
			"a and b: the lines do not cross between 1 and 100 records, the range both measured; a is faster throughout"},
		// At the largest value measured, exactly: within.
		{"at the edge", [2]float64{100, 2}, [2]float64{400, 0.5}, []float64{1, 50, 200}, 0, 200, "a and b cross at 200 records"},
		{"parallel", [2]float64{100, 1}, [2]float64{200, 1}, []float64{1, 10, 100}, 0, 0, "do not cross between 1 and 100 records, the range both measured; a is faster throughout"},
		{"below zero", [2]float64{100, 2}, [2]float64{50, 1}, []float64{1, 10, 100}, 0, 0, "b is faster throughout"},
		// b's latency does not follow the records (R² far below 0.8): its
		// line crosses a's at some value, which means nothing.
		{"poor fit", [2]float64{100, 2}, [2]float64{300, 0.01}, []float64{1, 50, 100, 150}, 80, 0,
			"a and b: no crossing stated: b's line fits its points poorly"},
		// Two values: each line passes through both (R² 1), which says
		// nothing of the fit, and they would meet at 200: not stated.
		{"two values", [2]float64{100, 2}, [2]float64{400, 0.5}, []float64{1, 500}, 0, 0,
			"a and b: no crossing stated: a's line rests on 2 values of records, too few to judge"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := sweepDoc(map[string][2]float64{"a": c.a, "b": c.b}, c.xs)
			for i := range d.Stores[1].Phases {
				d.Stores[1].Phases[i].Latency.Mean += c.noise * float64(1-2*(i%2))
			}
			cs := Crossings(Fits(d))
			switch {
			case c.cross == 0 && len(cs) != 0:
				t.Errorf("crossings %+v, want none", cs)
			case c.cross != 0 && (len(cs) != 1 || math.Abs(cs[0].At-c.cross) > 1e-6):
				t.Errorf("crossings %+v, want one at %v", cs, c.cross)
			}
			if notes := strings.Join(fitNotes(d, English), "\n"); !strings.Contains(notes, c.note) {
				t.Errorf("no note says %q:\n%s", c.note, notes)
			}
			// The chart marks what the notes state, and nothing else.
			d.Stores[0].Phases[0].Op = "range"
			chs := sweepCharts(newChartStyle(English, nil, []*result.Document{d}), d)
			if len(chs) != 1 || (chs[0].Caption != "") != (c.cross != 0) {
				t.Errorf("sweep chart caption %q with crossing %v", chs[0].Caption, c.cross)
			}
		})
	}
}

// A line through two values is given without R², saying why.
func TestFitThroughTwoValuesIsNotJudged(t *testing.T) {
	d := sweepDoc(map[string][2]float64{"a": {100, 2}, "b": {400, -0.5}}, []float64{1, 500, 1, 500})
	notes := strings.Join(fitNotes(d, English), "\n")
	for _, want := range []string{
		"a: mean latency = 100µs + 2.00µs per record, a line through 2 values of records only: too few to judge its fit (no R²; 3 or more values needed)",
		"b: mean latency = 400µs - 0.50µs per record, a line through 2 values",
	} {
		if !strings.Contains(notes, want) {
			t.Errorf("no note says %q:\n%s", want, notes)
		}
	}
	if strings.Contains(notes, "R² 1") || strings.Contains(notes, "faster") {
		t.Errorf("a line through two values is judged:\n%s", notes)
	}
	// In Japanese, the count and the swept parameter in their places.
	ja := strings.Join(fitNotes(d, Japanese), "\n")
	for _, want := range []string{"レコードの値 2 個だけを通る直線で", "a の直線はレコードの値が 2 個しかなく"} {
		if !strings.Contains(ja, want) {
			t.Errorf("no Japanese note says %q:\n%s", want, ja)
		}
	}
	if strings.Contains(ja, "%!") {
		t.Errorf("a Japanese note is misformatted:\n%s", ja)
	}
}

func TestFitNeedsTwoValues(t *testing.T) {
	d := sweepDoc(map[string][2]float64{"a": {1, 1}, "b": {2, 2}}, []float64{100})
	if f := Fits(d); len(f) != 0 {
		t.Fatalf("fitted a line through one point: %+v", f)
	}
}

func TestSweepAndClientCharts(t *testing.T) {
	// A sweep whose lines cross at 200 records draws a sweep chart with the
	// crossing noted; a run over client levels draws ops/s against clients.
	d := sweepDoc(map[string][2]float64{"a": {100, 2}, "b": {400, 0.5}}, []float64{1, 100, 500, 1000})
	d.Run.Levels = []int{1, 2}
	for i := range d.Stores {
		d.Stores[i].Phases = append(d.Stores[i].Phases,
			result.Phase{Op: "write", Clients: 1, OpsPerSec: 100}, result.Phase{Op: "write", Clients: 2, OpsPerSec: 180})
	}
	st := newChartStyle("en", nil, []*result.Document{d})
	names := map[string]*chart{}
	for _, ch := range charts(st, []*result.Document{d})[0] {
		names[ch.Name] = ch
	}
	sw, ok := names["sweep-records"]
	if !ok || sw.Caption == "" || len(sw.legend) != 2 {
		t.Fatalf("sweep chart %+v (charts %v)", sw, keys(names))
	}
	if _, ok := names["clients-write"]; !ok {
		t.Fatalf("no clients chart among %v", keys(names))
	}
	png, err := sw.PNG()
	if err != nil || len(png) < 1000 {
		t.Fatalf("sweep PNG: %d bytes, %v", len(png), err)
	}
}

// A sweep at several client levels (-c 1,2) draws a chart per level,
// named and titled by it, each with that level's lines: here they cross
// at c=1 and not at c=2. Before, one chart drew c=1's lines alone, its
// title naming no level.
func TestSweepChartPerLevel(t *testing.T) {
	d := sweepDoc(map[string][2]float64{"a": {100, 2}, "b": {400, 0.5}}, []float64{1, 100, 500, 1000})
	d.Run.Levels = []int{1, 2}
	for i, l := range [][2]float64{{100, 0.1}, {400, 0.5}} {
		for _, x := range []float64{1, 100, 500, 1000} {
			d.Stores[i].Phases = append(d.Stores[i].Phases, result.Phase{Op: "range", Sweep: "records", SweepValue: x, Clients: 2,
				Latency: result.Latency{Count: 10, Mean: l[0] + l[1]*x}})
		}
	}
	for lang, titles := range map[string][2]string{
		// (Japanese words need a Japanese font, which a test does not
		// assume: without one a chart is drawn in English.)
		English: {"mean latency against records at c=1, with a fitted line per store", "mean latency against records at c=2, with a fitted line per store"},
	} {
		chs := sweepCharts(newChartStyle(lang, nil, []*result.Document{d}), d)
		if len(chs) != 2 {
			t.Fatalf("%s: %d sweep charts, want one per level", lang, len(chs))
		}
		for i, want := range []struct {
			name  string
			cross bool
		}{{"sweep-records-c1", true}, {"sweep-records-c2", false}} {
			ch := chs[i]
			if ch.Name != want.name || ch.Title != titles[i] || len(ch.legend) != 2 || (ch.Caption != "") != want.cross {
				t.Errorf("%s chart %d: %q %q, %d lines, caption %q; want %q %q, 2 lines, a crossing %v",
					lang, i, ch.Name, ch.Title, len(ch.legend), ch.Caption, want.name, titles[i], want.cross)
			}
			if _, err := ch.SVG(); err != nil {
				t.Errorf("%s: %v", ch.Name, err)
			}
		}
	}
	// One level keeps its one chart, named and titled as before.
	one := sweepDoc(map[string][2]float64{"a": {100, 2}, "b": {400, 0.5}}, []float64{1, 100, 500, 1000})
	if chs := sweepCharts(newChartStyle(English, nil, []*result.Document{one}), one); len(chs) != 1 || chs[0].Name != "sweep-records" ||
		chs[0].Title != "mean latency against records, with a fitted line per store" {
		t.Errorf("one level: %d charts, first %+v", len(chs), chs[0])
	}
}

func keys(m map[string]*chart) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestClientChartTicksAreTheLevels checks that the charts against clients
// mark the x axis at the client levels that ran, never between them (the
// default ticks put one at 1.5 and 2.5 clients), and that crowded labels
// are left off rather than drawn over each other.
func TestClientChartTicksAreTheLevels(t *testing.T) {
	cases := []struct {
		name   string
		levels []int
		labels []string // the labelled ticks, left to right
	}{
		// -c 1,2,4,8: every level labelled.
		{"1,2,4,8", []int{1, 2, 4, 8}, []string{"1", "2", "4", "8"}},
		// -c 2,3: two close levels on a short axis, both labelled.
		{"2,3", []int{2, 3}, []string{"2", "3"}},
		// -c 1,...,64: 2 and 4 sit too close to 1 on a linear axis to read;
		// they keep their ticks without labels.
		{"1..64", []int{1, 2, 4, 8, 16, 32, 64}, []string{"1", "8", "16", "32", "64"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := &result.Document{Run: result.RunConfig{Ops: []string{"write"}, Levels: c.levels}}
			for _, name := range []string{"a", "b"} {
				s := result.Store{Label: name}
				for _, n := range c.levels {
					s.Phases = append(s.Phases, result.Phase{Op: "write", Clients: n, OpsPerSec: 100 * float64(n), Elapsed: 1, Latency: result.Latency{Count: 1, Mean: 300}})
				}
				d.Stores = append(d.Stores, s)
			}
			chs := clientCharts(newChartStyle(English, nil, []*result.Document{d}), d)
			if len(chs) != 1 || len(chs[0].plots) != 3 {
				t.Fatalf("%d charts", len(chs))
			}
			for i, p := range chs[0].plots {
				var values []float64
				var labels []string
				for _, tk := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
					if tk.Value != math.Trunc(tk.Value) {
						t.Errorf("panel %d: a tick at %v clients", i, tk.Value)
					}
					values = append(values, tk.Value)
					if tk.Label != "" {
						labels = append(labels, tk.Label)
					}
				}
				var want []float64
				for _, n := range c.levels {
					want = append(want, float64(n))
				}
				if !slices.Equal(values, want) || !slices.Equal(labels, c.labels) {
					t.Errorf("panel %d: ticks %v labelled %q, want %v labelled %q", i, values, labels, want, c.labels)
				}
			}
			if _, err := chs[0].SVG(); err != nil {
				t.Fatal(err)
			}
		})
	}
}
