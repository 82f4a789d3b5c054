package report

import (
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// A category axis names bars by their operation and, with client levels,
// the level (write c=4). How the names are written depends on the room
// each category has, known only once the chart is laid out on its canvas
// (the y axis's labels take their share), so the choice is made when the
// chart is drawn, in this order:
//
//  1. each name across, under its bars, when every name fits its slot;
//  2. with client levels, the level under each category (c=4) and the
//     operation once under its group, when those fit;
//  3. each name rotated (30°, 45° or 90°), the steepest angle only when
//     a shallower one would make neighbours touch;
//  4. vertical names on every k-th category, when even vertical names
//     are taller than a slot is wide.
//
// Names therefore never run into each other, whatever the number of
// operations and levels.

// category is one bar group's name: its operation and, with client
// levels, its level ("c=4"); x is where its bars are centred.
type category struct {
	op, level string
	x         float64
}

func (c category) name() string {
	if c.level == "" {
		return c.op
	}
	return c.op + " " + c.level
}

// catGap is the least room between two names on the axis.
const catGap = 6 * vg.Length(1)

// layoutCategories chooses how p's x axis names cats (see above) for the
// plot drawn on c, and sets p's ticks to it.
func layoutCategories(p *plot.Plot, c draw.Canvas, cats []category) {
	if len(cats) == 0 {
		return
	}
	sty := p.X.Tick.Label
	sty.Rotation = 0
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
	// pts is the room, in points, between x positions a and b, with the
	// ticks as they are now set.
	pts := func(a, b float64) vg.Length {
		dc := p.DataCanvas(c)
		return vg.Length(math.Abs(b-a)/(p.X.Max-p.X.Min)) * (dc.Max.X - dc.Min.X)
	}
	fits := func(xs []float64, ws []vg.Length) bool {
		for i := 1; i < len(xs); i++ {
			if (ws[i-1]+ws[i])/2+catGap > pts(xs[i-1], xs[i]) {
				return false
			}
		}
		return true
	}
	set := func(ticks []plot.Tick, rot float64) {
		p.X.Tick.Label = sty
		if rot != 0 {
			p.X.Tick.Label.Rotation = rot
			p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
		}
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
	}
	var flat []plot.Tick
	var xs []float64
	var ws []vg.Length
	for _, k := range cats {
		flat = append(flat, plot.Tick{Value: k.x, Label: k.name()})
		xs = append(xs, k.x)
		ws = append(ws, sty.Width(k.name()))
	}

	// 1. Across.
	set(flat, 0)
	if fits(xs, ws) {
		return
	}

	// 2. Levels under the bars, each operation once under its group: its
	// name on a second line, centred on the group.
	if cats[0].level != "" {
		var ticks []plot.Tick
		var lws, gxs []float64
		var lw, gws []vg.Length
		for i := 0; i < len(cats); {
			j := i
			for j < len(cats) && cats[j].op == cats[i].op {
				ticks = append(ticks, plot.Tick{Value: cats[j].x, Label: cats[j].level})
				lws = append(lws, cats[j].x)
				lw = append(lw, sty.Width(cats[j].level))
				j++
			}
			mid := (cats[i].x + cats[j-1].x) / 2
			ticks = append(ticks, plot.Tick{Value: mid, Label: "\n" + cats[i].op})
			gxs = append(gxs, mid)
			gws = append(gws, sty.Width(cats[i].op))
			i = j
		}
		set(ticks, 0)
		if fits(lws, lw) && fits(gxs, gws) {
			return
		}
	}

	// 3. Rotated: neighbours are parallel strips a slot apart across, so
	// apart by slot·sin(angle) square to the text.
	h := sty.Height("Ag")
	for _, rot := range []float64{math.Pi / 6, math.Pi / 4, math.Pi / 2} {
		set(flat, rot)
		ok := true
		for i := 1; i < len(xs); i++ {
			if h+catGap > pts(xs[i-1], xs[i])*vg.Length(math.Sin(rot)) {
				ok = false
				break
			}
		}
		if ok {
			return
		}
	}

	// 4. Vertical, on every k-th category.
	set(flat, math.Pi/2)
	slot := vg.Length(math.Inf(1))
	for i := 1; i < len(xs); i++ {
		slot = min(slot, pts(xs[i-1], xs[i]))
	}
	every := int(math.Ceil(float64((h + catGap) / slot)))
	var thin []plot.Tick
	for i, t := range flat {
		if i%every == 0 {
			thin = append(thin, t)
		}
	}
	set(thin, math.Pi/2)
}
