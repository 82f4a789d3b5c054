package report

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/image/font/opentype"
	"golang.org/x/image/font/sfnt"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/font/liberation"
	"gonum.org/v1/plot/plotter"
	plottext "gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"kurabe/hist"
	"kurabe/outfile"
	"kurabe/result"
	"kurabe/workload/load"
)

// Chart sizes. 525 pt is 700 px at 96 dpi, a blog's column; PNG files are
// drawn at twice that resolution so they stay sharp on a high-density
// screen, and their text (9 to 12 pt) is 12 to 16 px when shown 700 px wide.
const (
	chartW   = 525 * vg.Length(1)
	chartH   = 320 * vg.Length(1)
	tallH    = 420 * vg.Length(1)
	pngDPI   = 192
	titlePt  = 12
	labelPt  = 10
	tickPt   = 9
	legendPt = 9
)

// chart is one picture: a title, a legend row of its own (never over the
// data) and one or more plots stacked.
type chart struct {
	Name    string // file name without extension: "throughput", "latency-write"
	Title   string
	Caption string // what a reader should know that the picture cannot say
	// Subtitle is drawn under the title: what the picture shows of a run
	// with repeats (their medians, the first of them), which a PNG or
	// SVG shown alone must say itself.
	Subtitle string
	h        vg.Length
	legend   []legendEntry
	plots    []*plot.Plot
	style    *chartStyle
	// layout, when set, fits the plot's text to the canvas it is about
	// to be drawn on (a category axis's names).
	layout func(p *plot.Plot, c draw.Canvas)
}

type legendEntry struct {
	label string
	color color.Color
	hatch int  // a bar's hatch, drawn on its swatch
	line  bool // a line sample rather than a filled box
	dot   bool // a dot, as a chart's single points are drawn
	dash  []vg.Length
}

// chartKinds builds a document's charts, in the order they appear. Each
// returns no chart when the document has nothing for it (no series, no
// --vary). Sweep charts (latency against records fetched with fitted lines,
// time and ops/s against clients) will be one more entry here, reading the
// sweep's phases from the document.
var chartKinds = []func(*chartStyle, *result.Document) []*chart{
	throughputChart,
	matrixCharts,
	sweepCharts,
	clientCharts,
	latencyCharts,
	timelineCharts,
}

// chartStyle holds what every chart of one report shares: the language,
// the fonts, and the colour of each store.
type chartStyle struct {
	l       tr
	handler plottext.Handler
	font    font.Font
	colors  map[string]int // store label (or base store) -> palette index
}

// okabeIto is Okabe and Ito's palette, which stays distinguishable with
// every common kind of colour blindness; yellow comes last, being faint on
// white. Line charts also vary the dash pattern, so lines differ in grey too.
var okabeIto = []color.RGBA{
	{0x00, 0x72, 0xB2, 0xff}, // blue
	{0xD5, 0x5E, 0x00, 0xff}, // vermillion
	{0x00, 0x9E, 0x73, 0xff}, // bluish green
	{0xE6, 0x9F, 0x00, 0xff}, // orange
	{0xCC, 0x79, 0xA7, 0xff}, // reddish purple
	{0x56, 0xB4, 0xE9, 0xff}, // sky blue
	{0x00, 0x00, 0x00, 0xff}, // black
	{0xF0, 0xE4, 0x42, 0xff}, // yellow
}

// dashes are the line charts' dash patterns: solid, dashed, dotted,
// dash-dot, long dash, dash-dot-dot.
var dashes = [][]vg.Length{
	nil,
	{vg.Points(6), vg.Points(3)},
	{vg.Points(2), vg.Points(2)},
	{vg.Points(8), vg.Points(3), vg.Points(2), vg.Points(3)},
	{vg.Points(14), vg.Points(4)},
	{vg.Points(8), vg.Points(2), vg.Points(2), vg.Points(2), vg.Points(2), vg.Points(2)},
}

// lineStyle returns the colour and dash pattern of the i-th line: every
// pair of a colour and a pattern once (8 × 6, 48 lines) before any
// repeats. The first 8 lines have 8 colours; each later round of 8 shifts
// the patterns by one against the colours, so lines next to each other in
// the order differ in both.
func lineStyle(i int) (color.Color, []vg.Length) {
	n := len(okabeIto)
	round := i / n % len(dashes)
	return okabeIto[i%n], dashes[(i%n+round)%len(dashes)]
}

// newChartStyle assigns colours to stores in the order they first appear
// across all documents, so a store keeps its colour in every chart of a
// report. With Japanese, chart text needs a font with Japanese glyphs;
// cjk is one (see cjkFont), or nil, and then chart text stays English.
func newChartStyle(lang string, cjk *font.Face, docs []*result.Document) *chartStyle {
	cache := font.NewCache(liberation.Collection())
	st := &chartStyle{l: tr(lang), font: font.Font{Typeface: "Liberation", Variant: "Sans"}, colors: map[string]int{}}
	if st.l == Japanese {
		if cjk != nil {
			cache.Add(font.Collection{*cjk})
			st.font = cjk.Font
		} else {
			st.l = English
		}
	}
	st.handler = plottext.Plain{Fonts: cache}
	for _, d := range docs {
		for _, s := range d.Stores {
			// Every chart colours a store (a --vary run's variant) by its
			// label, so it has one colour in all of them.
			if _, ok := st.colors[s.Label]; !ok {
				st.colors[s.Label] = len(st.colors)
			}
		}
	}
	return st
}

func (st *chartStyle) color(key string) color.Color {
	c, _ := lineStyle(st.colors[key])
	return c
}

func (st *chartStyle) dash(key string) []vg.Length {
	_, d := lineStyle(st.colors[key])
	return d
}

// hatches are the bars' patterns over their colour, as dashes are the
// lines': none, then diagonal up, diagonal down, horizontal, crossed
// diagonals, and a grid.
const (
	hatchNone = iota
	hatchUp
	hatchDown
	hatchAcross
	hatchCross
	hatchGrid
	hatchKinds
)

// barFill is the fill of the i-th bar series: the colour of the i-th line
// (lineStyle), so a store or variant has one colour in every chart, and a
// hatch for each round of 8 colours: the first 8 plain, as before, the
// next 8 the same colours hatched diagonally, and so on, 8 × 6 = 48 fills
// before any repeats, as many as the line styles (before, bars had the 8
// colours alone, and the 9th variant of a --vary matrix looked like the
// 1st).
func barFill(i int) fill {
	c, _ := lineStyle(i)
	return fill{color: c, hatch: i / len(okabeIto) % hatchKinds}
}

// fill is a bar's or its legend swatch's colour and hatch.
type fill struct {
	color color.Color
	hatch int
}

func (st *chartStyle) fill(key string) fill { return barFill(st.colors[key]) }

// hatchSpacing is the distance between a hatch's lines, measured along
// the canvas's axes.
const hatchSpacing = 4 * vg.Length(1)

// draw fills r with f's colour and strokes its hatch over it, in white
// on a dark colour and dark grey on a light one (yellow, sky blue), so it
// shows on every colour. The lines are placed on the canvas's grid, not
// the rectangle's, so neighbouring bars' hatches line up.
func (f fill) draw(c draw.Canvas, r vg.Rectangle) {
	c.FillPolygon(f.color, []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}})
	if f.hatch == hatchNone || r.Max.X <= r.Min.X || r.Max.Y <= r.Min.Y {
		return
	}
	ls := draw.LineStyle{Color: color.White, Width: vg.Points(1)}
	if light(f.color) {
		ls.Color = color.Gray{0x30}
	}
	x0, y0, x1, y1 := r.Min.X, r.Min.Y, r.Max.X, r.Max.Y
	first := func(lo vg.Length) vg.Length { return vg.Length(math.Ceil(float64(lo/hatchSpacing))) * hatchSpacing }
	diagonal := func(up bool) {
		// Lines x - y = k (up) or x + y = k (down), clipped to r.
		lo, hi := x0-y1, x1-y0
		if !up {
			lo, hi = x0+y0, x1+y1
		}
		for k := first(lo); k <= hi; k += hatchSpacing {
			var a, b vg.Length
			if up {
				a, b = max(x0, y0+k), min(x1, y1+k)
			} else {
				a, b = max(x0, k-y1), min(x1, k-y0)
			}
			if b <= a {
				continue
			}
			if up {
				c.StrokeLine2(ls, a, a-k, b, b-k)
			} else {
				c.StrokeLine2(ls, a, k-a, b, k-b)
			}
		}
	}
	across := func() {
		for y := first(y0); y <= y1; y += hatchSpacing {
			c.StrokeLine2(ls, x0, y, x1, y)
		}
	}
	switch f.hatch {
	case hatchUp:
		diagonal(true)
	case hatchDown:
		diagonal(false)
	case hatchAcross:
		across()
	case hatchCross:
		diagonal(true)
		diagonal(false)
	case hatchGrid:
		across()
		for x := first(x0); x <= x1; x += hatchSpacing {
			c.StrokeLine2(ls, x, y0, x, y1)
		}
	}
}

// light reports whether a colour is light enough that white lines on it
// would hardly show (relative luminance above one half).
func light(c color.Color) bool {
	r, g, b, _ := c.RGBA()
	return 0.2126*float64(r)+0.7152*float64(g)+0.0722*float64(b) > 0.5*0xffff
}

func (st *chartStyle) text(size float64) plottext.Style {
	return plottext.Style{Color: color.Black, Font: font.From(st.font, font.Length(size)), Handler: st.handler,
		XAlign: draw.XLeft, YAlign: draw.YBottom}
}

// newPlot returns a plot with the report's fonts on every text.
func (st *chartStyle) newPlot(xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.TextHandler = st.handler
	p.Legend.TextStyle.Handler = st.handler
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(st.font, labelPt)
		a.Label.TextStyle.Handler = st.handler
		a.Tick.Label.Font = font.From(st.font, tickPt)
		a.Tick.Label.Handler = st.handler
		a.Tick.Color = color.Gray{0x80}
		a.Color = color.Gray{0x80}
	}
	p.X.Label.Text, p.Y.Label.Text = xlabel, ylabel
	p.Y.Label.Padding = yLabelPadding(p.Y.Label.TextStyle)
	return p
}

// yLabelGap is the room between a Y axis's title, turned upright, and its
// widest tick label.
const yLabelGap = 3 * vg.Length(1)

// yLabelPadding is the padding that leaves yLabelGap between a Y axis's
// upright title and its tick labels, whatever the font. gonum/plot keeps
// the title's height and descent beside the tick labels, but draws the
// title's baseline (ascent - size) nearer them: with Liberation Sans,
// whose ascent is about its size, that leaves 3 pt; with Noto Sans CJK,
// whose ascent is 1.16 times its size, 1.3 pt, and "ops/s" touched
// "200,000".
func yLabelPadding(sty plottext.Style) vg.Length {
	e := sty.FontExtents()
	natural := e.Descent + sty.Font.Size - e.Ascent
	return max(0, yLabelGap-natural)
}

// grid adds light horizontal grid lines behind the data.
func grid(p *plot.Plot) {
	g := plotter.NewGrid()
	g.Vertical.Color = nil
	g.Horizontal.Color = color.Gray{0xe0}
	p.Add(g)
}

// draw draws the chart on c.
func (ch *chart) draw(c draw.Canvas) {
	st := ch.style
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	pad := vg.Points(6)
	y := c.Max.Y - pad
	title := st.text(titlePt)
	title.XAlign, title.YAlign = draw.XCenter, draw.YTop
	c.FillText(title, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: y}, ch.Title)
	y -= title.Height(ch.Title) + pad
	if ch.Subtitle != "" {
		sub := st.text(legendPt)
		sub.Color = color.Gray{0x50}
		sub.XAlign, sub.YAlign = draw.XCenter, draw.YTop
		c.FillText(sub, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: y + pad/2}, ch.Subtitle)
		y -= sub.Height(ch.Subtitle)
	}
	l := ch.legendLayout(c.Max.X - c.Min.X)
	lt := st.text(l.size)
	lt.YAlign = draw.YCenter
	swatch := vg.Points(16)
	for i, e := range ch.legend {
		x, ly := c.Min.X+pad+l.at[i].X, y-l.at[i].Y
		switch {
		case e.line:
			c.StrokeLine2(draw.LineStyle{Color: e.color, Width: vg.Points(2), Dashes: e.dash}, x, ly, x+swatch, ly)
		case e.dot:
			c.DrawGlyph(draw.GlyphStyle{Color: e.color, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}, vg.Point{X: x + swatch/2, Y: ly})
		default:
			h := vg.Points(4)
			fill{e.color, e.hatch}.draw(c, vg.Rectangle{Min: vg.Point{X: x, Y: ly - h}, Max: vg.Point{X: x + swatch, Y: ly + h}})
		}
		c.FillText(lt, vg.Point{X: x + swatch + vg.Points(4), Y: ly}, e.label)
	}
	y -= l.h
	body := draw.Crop(c, pad, -pad, pad, y-c.Max.Y-pad)
	if len(ch.plots) == 1 {
		if ch.layout != nil {
			ch.layout(ch.plots[0], body)
		}
		ch.plots[0].Draw(body)
		return
	}
	cols := make([][]*plot.Plot, len(ch.plots))
	for i, p := range ch.plots {
		cols[i] = []*plot.Plot{p}
	}
	tiles := plot.Align(cols, draw.Tiles{Rows: len(ch.plots), Cols: 1, PadY: vg.Points(8)}, body)
	for i, p := range ch.plots {
		p.Draw(tiles[i][0])
	}
}

// legend is where a chart's legend entries go: the centre of each
// entry's swatch's left end, from the legend's top left corner, the
// legend's height, and its text's size in points.
type legend struct {
	at   []vg.Point
	h    vg.Length
	size float64
}

// legendRows is how many rows of legend a chart's height allows for; a
// longer legend makes the chart taller by its other rows, so the plot
// keeps its height.
const legendRows = 2

// legendLayout places the legend on a chart width wide. A legend that
// fits in one row flows left to right; a longer one goes in columns, each
// as wide as its widest entry, filled top to bottom, in as few rows as the
// width allows, so the entries of every row line up to be read down (a
// legend wrapped as a row would start its second row's entries wherever
// the first row's ended). When its entries are too wide for two columns,
// its text is a point smaller if that makes two.
func (ch *chart) legendLayout(width vg.Length) legend {
	if len(ch.legend) == 0 {
		return legend{}
	}
	swatch, pad := vg.Points(16), vg.Points(6)
	avail := width - 2*pad
	l := legend{size: legendPt}
	lt := ch.style.text(l.size)
	rowH := lt.Height("Ag") + vg.Points(4)
	x := vg.Length(0)
	for _, e := range ch.legend {
		l.at = append(l.at, vg.Point{X: x, Y: rowH / 2})
		x += swatch + vg.Points(4) + lt.Width(e.label) + vg.Points(14)
	}
	if x <= avail {
		l.h = rowH
		return l
	}
	// Columns, with a gap between them.
	gap := vg.Points(10)
	at, rows, cols := ch.legendColumns(lt, avail, gap)
	if cols == 1 {
		small := ch.style.text(legendPt - 1)
		if at2, rows2, cols2 := ch.legendColumns(small, avail, gap); cols2 > 1 {
			at, rows, lt, l.size = at2, rows2, small, legendPt-1
		}
	}
	rowH = lt.Height("Ag") + vg.Points(4)
	for i := range at {
		at[i].Y = rowH*at[i].Y + rowH/2
	}
	l.at, l.h = at, rowH*vg.Length(rows)
	return l
}

// legendColumns lays the legend out in columns, filled top to bottom,
// each as wide as its widest entry, in the fewest rows that fit avail (or
// one column): each entry's x, and its row in y; the rows and the columns.
func (ch *chart) legendColumns(lt plottext.Style, avail, gap vg.Length) (at []vg.Point, rows, cols int) {
	swatch := vg.Points(16)
	n := len(ch.legend)
	for rows = 1; rows <= n; rows++ {
		at = at[:0]
		x, colW := vg.Length(0), vg.Length(0)
		for i, e := range ch.legend {
			if i > 0 && i%rows == 0 {
				x += colW + gap
				colW = 0
			}
			at = append(at, vg.Point{X: x, Y: vg.Length(i % rows)})
			colW = max(colW, swatch+vg.Points(4)+lt.Width(e.label))
		}
		if x+colW <= avail {
			break
		}
	}
	rows = min(rows, n)
	return at, rows, (n + rows - 1) / rows
}

// height is the chart's height: its own, and the legend's rows beyond
// legendRows.
func (ch *chart) height() vg.Length {
	l := ch.legendLayout(chartW)
	rowH := ch.style.text(legendPt).Height("Ag") + vg.Points(4)
	h := ch.h + max(0, l.h-rowH*legendRows)
	if ch.Subtitle != "" {
		h += ch.style.text(legendPt).Height(ch.Subtitle)
	}
	return h
}

// SVG returns the chart as an SVG document.
func (ch *chart) SVG() ([]byte, error) {
	c := vgsvg.New(chartW, ch.height())
	ch.draw(draw.New(c))
	var b bytes.Buffer
	_, err := c.WriteTo(&b)
	return b.Bytes(), err
}

// PNG returns the chart as a PNG image.
func (ch *chart) PNG() ([]byte, error) {
	c := vgimg.NewWith(vgimg.UseWH(chartW, ch.height()), vgimg.UseDPI(pngDPI))
	ch.draw(draw.New(c))
	var b bytes.Buffer
	_, err := vgimg.PngCanvas{Canvas: c}.WriteTo(&b)
	return b.Bytes(), err
}

// charts returns every chart of the documents, with file names that are
// unique across them (prefixed run1-, run2-, ... when there are several).
func charts(st *chartStyle, docs []*result.Document) [][]*chart {
	out := make([][]*chart, len(docs))
	for i, d := range docs {
		for _, kind := range chartKinds {
			for _, ch := range kind(st, d) {
				if len(docs) > 1 {
					ch.Name = fmt.Sprintf("run%d-%s", i+1, ch.Name)
				}
				out[i] = append(out[i], ch)
			}
		}
	}
	return out
}

// WriteCharts draws every chart of the documents into dir, as "png" or
// "svg" files, and returns the paths written. With lang "ja" the charts'
// words are Japanese when a font with Japanese glyphs is installed (see
// JapaneseFont), English otherwise.
func WriteCharts(dir, format, lang string, docs ...*result.Document) ([]string, error) {
	return writeCharts(dir, format, lang, cjkFont(lang), docs)
}

func writeCharts(dir, format, lang string, cjk *font.Face, docs []*result.Document) ([]string, error) {
	if format != "png" && format != "svg" {
		return nil, fmt.Errorf("chart format %q: choose png or svg", format)
	}
	if err := CheckLang(lang); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cannot create %s: %v; choose a writable directory", dir, err)
	}
	var paths []string
	for _, chs := range charts(newChartStyle(lang, cjk, docs), docs) {
		for _, ch := range chs {
			var b []byte
			var err error
			if format == "png" {
				b, err = ch.PNG()
			} else {
				b, err = ch.SVG()
			}
			if err != nil {
				return paths, fmt.Errorf("chart %s: %v", ch.Name, err)
			}
			path := filepath.Join(dir, ch.Name+"."+format)
			if err := outfile.Write(path, func(w io.Writer) error { _, err := w.Write(b); return err }); err != nil {
				return paths, err
			}
			paths = append(paths, path)
		}
	}
	return paths, nil
}

// fileName keeps letters, digits, '-', '_' and '.' of an operation's name.
func fileName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9') {
			return r
		}
		return '_'
	}, s)
}

// ops returns the operations of a document in run order, then any others
// its phases hold.
func ops(d *result.Document) []string {
	out := slices.Clone(d.Run.Ops)
	for _, s := range d.Stores {
		for _, p := range s.Phases {
			if !slices.Contains(out, p.Op) {
				out = append(out, p.Op)
			}
		}
	}
	return out
}

// spread is the median, minimum and maximum of one figure over repeats.
type spread struct {
	med, lo, hi float64
	n           int
}

func spreadOf(vs []float64) spread {
	if len(vs) == 0 {
		return spread{}
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return spread{med, s[0], s[len(s)-1], len(s)}
}

func hasRepeats(d *result.Document) bool {
	for _, s := range d.Stores {
		for _, p := range s.Phases {
			if p.Repeat > 0 {
				return true
			}
		}
	}
	return false
}

// throughputChart draws grouped bars: one group per operation (and client
// level), one bar per store, with the value on each bar (a slow store's
// bar may be too short to read against a fast one's on a linear scale).
// With repeats a bar is the median and a whisker spans the lowest to the
// highest repeat. A --vary run gets matrixCharts instead.
func throughputChart(st *chartStyle, d *result.Document) []*chart {
	if len(d.Run.Vary) > 0 {
		return nil
	}
	var stores []result.Store
	for _, s := range d.Stores {
		if len(s.Phases) > 0 {
			stores = append(stores, s)
		}
	}
	// A group per operation, and per client level with -c 1,2,4: levels
	// are different figures, not repeats to take the median of. An
	// operation's levels stand together, a little apart from the next
	// operation's.
	keys := phaseKeys(d)
	levels := levelsVary(d)
	if len(stores) == 0 || len(keys) == 0 {
		return nil
	}
	var cats []category
	x := 0.0
	for i, k := range keys {
		if levels && i > 0 && k.op != keys[i-1].op {
			x += 0.4
		}
		c := category{op: k.op, x: x}
		if levels {
			c.level = "c=" + strconv.Itoa(k.clients)
		}
		cats = append(cats, c)
		x++
	}
	fig := barFigureOf(d)
	ch := &chart{Name: "throughput", Title: st.l.t(fig.title), h: chartH, style: st}
	p := st.newPlot("", st.l.t(fig.axis))
	grid(p)
	b := &bars{style: st, labels: len(stores) <= 4}
	width := 0.8 / float64(len(stores))
	for j, s := range stores {
		for i, k := range keys {
			x := cats[i].x - 0.4 + width*float64(j)
			b.addPhase(d, s, k, fig, x, x+width*0.92, st.fill(s.Label))
		}
		f := st.fill(s.Label)
		ch.legend = append(ch.legend, legendEntry{label: s.Label, color: f.color, hatch: f.hatch})
	}
	p.Add(b)
	p.NominalX(cats[0].name())
	ch.layout = func(p *plot.Plot, c draw.Canvas) { layoutCategories(p, c, cats) }
	p.X.Min, p.X.Max = -0.5, cats[len(cats)-1].x+0.5
	p.Y.Min = 0
	p.Y.Max = math.Max(b.max*1.12, 1)
	p.Y.Tick.Marker = numTicks{}
	ch.plots = []*plot.Plot{p}
	if hasRepeats(d) {
		ch.Caption = st.l.t("chart.repeats")
		ch.Subtitle = ch.Caption
	}
	return []*chart{ch}
}

// matrixCharts draws, for a --vary run, one chart per operation (and
// client level): one group of bars per combination of settings, one bar
// per store, each variant in its colour on the report's other charts.
func matrixCharts(st *chartStyle, d *result.Document) []*chart {
	if len(d.Run.Vary) == 0 {
		return nil
	}
	var variants, bases []string
	for _, s := range d.Stores {
		v := variantValues(s.Variant)
		if !slices.Contains(variants, v) {
			variants = append(variants, v)
		}
		if b := baseStore(s); !slices.Contains(bases, b) {
			bases = append(bases, b)
		}
	}
	var names []string
	for _, a := range d.Run.Vary {
		names = append(names, a.Name)
	}
	var out []*chart
	levels := levelsVary(d)
	fig := barFigureOf(d)
	for _, k := range phaseKeys(d) {
		ch := &chart{Name: "vary-" + k.fileName(levels), Title: st.l.f(fig.matrixTitle, k.name(levels)), h: chartH, style: st}
		p := st.newPlot(strings.Join(names, " · "), st.l.t(fig.axis))
		grid(p)
		b := &bars{style: st, labels: len(variants)*len(bases) <= 12}
		width := 0.8 / float64(len(bases))
		for _, s := range d.Stores {
			i, j := slices.Index(variants, variantValues(s.Variant)), slices.Index(bases, baseStore(s))
			x := float64(i) - 0.4 + width*float64(j)
			// Each variant in its own colour, as on the latency and
			// timeline charts of the report, and named as there.
			f := st.fill(s.Label)
			if b.addPhase(d, s, k, fig, x, x+width*0.92, f) {
				ch.legend = append(ch.legend, legendEntry{label: seriesLabel(d, s.Label), color: f.color, hatch: f.hatch})
			}
		}
		if len(b.items) == 0 {
			continue
		}
		p.Add(b)
		p.NominalX(variants...)
		if len(variants) > 5 {
			p.X.Tick.Label.Rotation = math.Pi / 6
			p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
		}
		p.X.Min, p.X.Max = -0.5, float64(len(variants))-0.5
		p.Y.Min, p.Y.Max = 0, math.Max(b.max*1.12, 1)
		p.Y.Tick.Marker = numTicks{}
		ch.plots = []*plot.Plot{p}
		if hasRepeats(d) {
			ch.Caption = st.l.t("chart.repeats")
			ch.Subtitle = ch.Caption
		}
		out = append(out, ch)
	}
	return out
}

// variantValues names a variant by its values: "wal · off".
func variantValues(v []result.Setting) string {
	var parts []string
	for _, s := range v {
		parts = append(parts, s.Value)
	}
	return strings.Join(parts, " · ")
}

// baseStore is a store's spec without its varied settings, so that every
// variant of one store shares a colour in the matrix charts.
func baseStore(s result.Store) string {
	if len(s.Variant) == 0 {
		return s.Label
	}
	spec, query, _ := strings.Cut(s.Spec, "?")
	var keep []string
	for _, kv := range strings.Split(query, "&") {
		name, _, _ := strings.Cut(kv, "=")
		varied := kv == ""
		for _, v := range s.Variant {
			varied = varied || v.Name == name
		}
		if !varied {
			keep = append(keep, kv)
		}
	}
	if len(keep) > 0 {
		spec += "?" + strings.Join(keep, "&")
	}
	return spec
}

// seriesLabel names a store's line or bars in a chart's legend: its
// label, or for a variant of a --vary run the settings it ran with, as the
// CSV's variant column writes them (journal_mode=wal synchronous=off), so
// variants of one store are told apart by what differs. With several
// stores varied, the store (its spec without the varied settings) comes
// first; a run through kurabe serve says so after.
func seriesLabel(d *result.Document, label string) string {
	i := slices.IndexFunc(d.Stores, func(s result.Store) bool { return s.Label == label })
	if i < 0 || len(d.Stores[i].Variant) == 0 {
		return label
	}
	s := d.Stores[i]
	name := variantString(s.Variant)
	for _, o := range d.Stores {
		if baseStore(o) != baseStore(s) {
			name = baseStore(s) + " " + name
			break
		}
	}
	if s.Via != "" {
		name += " via " + s.Via
	}
	return name
}

// latencyCharts draws, per operation (and client level), each store's
// latency percentiles from p50 on a log scale, from the histogram in the
// document (all repeats merged). A curve ends where its sample does, at its
// slowest operation, the table's max (see percentileCurve), marked with a
// dot. The x axis runs to p99.99, or further when a curve does (more than
// 10,000 operations). A store with one operation has no curve: its
// latency, every percentile of it, is a dot at p50, and its legend entry
// says "1 operation" (before, such a chart was empty axes); a chart of
// such dots alone has an x axis that fits them, around p50. A phase
// skipped on a store measured nothing and is left out.
func latencyCharts(st *chartStyle, d *result.Document) []*chart {
	var out []*chart
	levels := levelsVary(d)
	for _, k := range phaseKeys(d) {
		ch := &chart{Name: "latency-" + k.fileName(levels), Title: st.l.f("chart.latency", k.name(levels)), h: chartH, style: st}
		p := st.newPlot(st.l.t("axis.percentile"), st.l.t("axis.latency"))
		grid(p)
		lo, hi, right := math.Inf(1), 0.0, 4.0
		curves := false // any store with a curve, not a dot
		for _, s := range d.Stores {
			var h hist.Snapshot
			for _, ph := range s.Phases {
				if keyOf(d, ph) == k && ph.Latency.Count > 0 {
					h.Merge(ph.Latency.Histogram())
				}
			}
			if h.Count == 0 {
				continue
			}
			xys := percentileCurve(&h)
			for _, xy := range xys {
				lo, hi, right = math.Min(lo, xy.Y), math.Max(hi, xy.Y), math.Max(right, xy.X)
			}
			c, dash := st.color(s.Label), st.dash(s.Label)
			e := legendEntry{label: seriesLabel(d, s.Label), color: c, line: true, dash: dash}
			if len(xys) == 1 {
				sc, err := plotter.NewScatter(xys)
				if err != nil {
					continue
				}
				sc.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
				p.Add(sc)
				e.label, e.line, e.dot = st.l.f("legend.one-op", e.label), false, true
			} else {
				curves = true
				l, err := plotter.NewLine(xys)
				if err != nil {
					continue
				}
				l.LineStyle = draw.LineStyle{Color: c, Width: vg.Points(2), Dashes: dash}
				p.Add(l)
				// A dot on the end, the maximum: where curves end at
				// the same percentile their rises overlap.
				end, err := plotter.NewScatter(xys[len(xys)-1:])
				if err != nil {
					continue
				}
				end.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
				p.Add(end)
			}
			ch.legend = append(ch.legend, e)
		}
		if len(ch.legend) == 0 {
			continue
		}
		// A little room left of p50 and right of the last curve's end, so
		// that a curve's rise at either (two operations; the maximum) is
		// not drawn on an axis.
		p.X.Min, p.X.Max = math.Log10(2)-0.08, right+0.08
		if !curves {
			// Only dots, every one at p50: the axis fits them, with the
			// same room either side, rather than running on to p99.99
			// with nothing drawn past p50.
			p.X.Max = math.Log10(2) + 0.08
		}
		p.X.Tick.Marker = ninesTicks{}
		logY(p, lo, hi)
		ch.plots = []*plot.Plot{p}
		out = append(out, ch)
	}
	return out
}

// percentileCurve is the latency percentile curve of a histogram, in µs
// against nines (x = -log10(1-q)): from p50 every 0.05 nines up to
// log10(n), where n operations' sample runs out (quantile 1 - 1/n, the
// second slowest operation), then straight up to the slowest, which every
// quantile above 1 - 1/n is. So the curve always reaches the table's max
// (before, it stopped one operation short of it: a curve of 500 operations
// ended at 472µs, the max being 601µs). One operation is one point: its
// latency, at p50.
func percentileCurve(h *hist.Snapshot) plotter.XYs {
	us := func(ns float64) float64 { return math.Max(ns/1e3, 0.001) }
	n := float64(h.Count)
	p50 := math.Log10(2)
	if h.Count < 2 {
		return plotter.XYs{{X: p50, Y: us(float64(h.Max))}}
	}
	top := math.Log10(n)
	var xys plotter.XYs
	for x := p50; x < top-1e-9; x += 0.05 {
		xys = append(xys, plotter.XY{X: x, Y: us(h.Quantile(1 - math.Pow(10, -x)))})
	}
	// The second slowest (rank n-1 of n) and the slowest.
	xys = append(xys, plotter.XY{X: top, Y: us(h.Quantile((n - 1.5) / n))}, plotter.XY{X: top, Y: us(float64(h.Max))})
	return xys
}

// ninesTicks marks a percentile axis in nines: p50, p90, p99, p99.9, ...
type ninesTicks struct{}

func (ninesTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := []plot.Tick{{Value: math.Log10(2), Label: "p50"}}
	for x := 1.0; x <= hi; x++ {
		ticks = append(ticks, plot.Tick{Value: x, Label: "p" + strconv.FormatFloat(100*(1-math.Pow(10, -x)), 'f', max(0, int(x)-2), 64)})
	}
	return ticks
}

// timelineCharts draws, per operation (and client level), each store's
// ops/s and p99 latency second by second (first repeat), with the warm-up shaded: warm-up,
// stalls and slow starts show here and nowhere else. A store that skipped
// the phase is left out.
func timelineCharts(st *chartStyle, d *result.Document) []*chart {
	var out []*chart
	levels := levelsVary(d)
	for _, k := range phaseKeys(d) {
		ch := &chart{Name: "timeline-" + k.fileName(levels), Title: st.l.f("chart.timeline", k.name(levels)), h: tallH, style: st}
		top := st.newPlot("", st.l.t("axis.ops/s"))
		bottom := st.newPlot(st.l.t("axis.time"), st.l.t("axis.p99"))
		grid(top)
		grid(bottom)
		warm, tmax, maxOps := 0.0, 0.0, 0.0
		lo, hi := math.Inf(1), 0.0
		for _, s := range d.Stores {
			var ph *result.Phase
			for i := range s.Phases {
				// A skipped phase measured nothing: drawn, it would be a
				// measured 0 ops/s (as the latency charts, the timelines
				// leave it out; the throughput chart says skipped).
				if keyOf(d, s.Phases[i]) == k && s.Phases[i].Repeat == 0 && len(s.Phases[i].Series) > 0 && !skippedPhase(s.Phases[i]) {
					ph = &s.Phases[i]
					break
				}
			}
			if ph == nil {
				continue
			}
			var opsXY, p99XY plotter.XYs
			for _, sec := range foldSliver(ph.Series) {
				if sec.Warmup {
					warm = math.Max(warm, sec.T)
				}
				tmax = math.Max(tmax, sec.T)
				maxOps = math.Max(maxOps, sec.OpsPerSec)
				opsXY = append(opsXY, plotter.XY{X: sec.T, Y: sec.OpsPerSec})
				if sec.P99 > 0 {
					p99XY = append(p99XY, plotter.XY{X: sec.T, Y: sec.P99})
					lo, hi = math.Min(lo, sec.P99), math.Max(hi, sec.P99)
				}
			}
			ls := draw.LineStyle{Color: st.color(s.Label), Width: vg.Points(1.5), Dashes: st.dash(s.Label)}
			addSeries(top, opsXY, ls)
			addSeries(bottom, p99XY, ls)
			ch.legend = append(ch.legend, legendEntry{label: seriesLabel(d, s.Label), color: st.color(s.Label), line: true, dash: st.dash(s.Label)})
		}
		if len(ch.legend) == 0 {
			continue
		}
		if warm > 0 {
			shade := color.Gray{0xe4}
			top.Add(&band{x0: 0, x1: warm, color: shade})
			bottom.Add(&band{x0: 0, x1: warm, color: shade})
			ch.legend = append(ch.legend, legendEntry{label: st.l.t("legend.warm-up"), color: shade})
		}
		for _, p := range []*plot.Plot{top, bottom} {
			p.X.Min, p.X.Max = 0, math.Max(tmax, 1)
			p.X.Tick.Marker = plot.DefaultTicks{}
		}
		top.Y.Min, top.Y.Max = 0, math.Max(maxOps*1.08, 1)
		top.Y.Tick.Marker = numTicks{}
		if hi > 0 {
			logY(bottom, lo, hi)
		}
		ch.plots = []*plot.Plot{top, bottom}
		if hasRepeats(d) {
			ch.Caption = st.l.t("chart.timeline.repeat1")
			ch.Subtitle = ch.Caption
		}
		out = append(out, ch)
	}
	return out
}

// foldSliver returns a phase's series with a last measured interval of
// less than half a second folded into the one before it, as kurabe now
// records it: documents of earlier versions end a -d phase with the few
// operations that ended after the last tick, over a fraction of a second,
// which would draw as a cliff (3,167 ops/s after 953,392). The folded
// interval's ops/s is over both intervals' time; its max is the larger of
// the two, and its p99 the earlier interval's when the sliver holds at most
// 1% of the operations (which then barely move it), else the larger (the
// operations behind them are not in the document).
func foldSliver(series []result.Second) []result.Second {
	n := len(series)
	if n < 2 || series[n-1].Warmup || series[n-2].Warmup || series[n-1].T-series[n-2].T >= 0.5 {
		return series
	}
	from := 0.0
	if n > 2 {
		from = series[n-3].T
	}
	a, b := series[n-2], series[n-1]
	m := result.Second{T: b.T, Ops: a.Ops + b.Ops, Errors: a.Errors + b.Errors, P50: a.P50, P99: max(a.P99, b.P99), Max: max(a.Max, b.Max)}
	if b.Ops*100 <= m.Ops {
		m.P99 = a.P99
	}
	if b.T > from {
		m.OpsPerSec = math.Round(float64(m.Ops) / (b.T - from))
	}
	return append(slices.Clone(series[:n-2]), m)
}

// addSeries adds a line, with its points marked when there are few.
func addSeries(p *plot.Plot, xys plotter.XYs, ls draw.LineStyle) {
	if len(xys) == 0 {
		return
	}
	l, sc, err := plotter.NewLinePoints(xys)
	if err != nil {
		return
	}
	l.LineStyle = ls
	p.Add(l)
	if len(xys) < 12 {
		sc.GlyphStyle = draw.GlyphStyle{Color: ls.Color, Radius: vg.Points(2), Shape: draw.CircleGlyph{}}
		p.Add(sc)
	}
}

// logY gives p a log-scaled Y axis of latencies in µs covering lo..hi,
// with ticks labelled in their own unit (10µs, 1ms, 1s).
func logY(p *plot.Plot, lo, hi float64) {
	lo, hi = math.Max(lo, 0.001), math.Max(hi, 0.001)
	p.Y.Scale = plot.LogScale{}
	p.Y.Min, p.Y.Max = lo/1.3, hi*1.3
	p.Y.Tick.Marker = durTicks{}
}

// durTicks marks a log axis of microseconds at powers of ten, labelled
// with the table's duration format: an axis spanning two decades or more
// has two labels or more. A shorter one needs at least minLabels to be
// read: 2 and 5 times the powers of ten are labelled too, then 3 times
// them (3ms 5ms 10ms), and on an axis spanning so little that even those
// are too few (1.6ms to 3.9ms, where they were one, 2ms), round values at
// even steps (2ms 2.5ms 3ms 3.5ms), as a linear axis would have them.
// (Every multiple, 6ms 7ms 8ms 9ms, would crowd the top of a short
// decade.)
type durTicks struct{}

const minLabels = 3

func (durTicks) Ticks(lo, hi float64) []plot.Tick {
	if hi/lo >= 100 {
		return decadeTicks(lo, hi, []float64{1})
	}
	var ticks []plot.Tick
	for _, steps := range [][]float64{{1, 2, 5}, {1, 2, 3, 5}} {
		ticks = decadeTicks(lo, hi, steps)
		if labelled(ticks) >= minLabels {
			return ticks
		}
	}
	even := plot.DefaultTicks{}.Ticks(lo, hi)
	if labelled(even) <= labelled(ticks) {
		return ticks
	}
	for i := range even {
		if even[i].Label != "" {
			even[i].Label = durLabel(even[i].Value)
		}
	}
	return even
}

// decadeTicks marks every multiple of a power of ten from lo to hi,
// labelling those whose multiplier is among steps.
func decadeTicks(lo, hi float64, steps []float64) []plot.Tick {
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		for m := 1.0; m < 10; m++ {
			v := m * math.Pow(10, e)
			if v < lo || v > hi {
				continue
			}
			t := plot.Tick{Value: v}
			if slices.Contains(steps, m) {
				t.Label = durLabel(v)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

func labelled(ticks []plot.Tick) int {
	n := 0
	for _, t := range ticks {
		if t.Label != "" {
			n++
		}
	}
	return n
}

// durLabel writes a round latency in µs without trailing zeros: 20µs,
// 1ms, 500ms, 2s.
func durLabel(us float64) string {
	unit, v := "µs", us
	switch {
	case us >= 1e6:
		unit, v = "s", us/1e6
	case us >= 1e3:
		unit, v = "ms", us/1e3
	}
	return fmt.Sprintf("%g%s", math.Round(v*1000)/1000, unit)
}

// numTicks marks a linear axis from zero with the table's number format
// (thousands separated), at round steps.
type numTicks struct{}

func (numTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = group(fmt.Sprintf("%.0f", ticks[i].Value))
			if ticks[i].Value != math.Trunc(ticks[i].Value) {
				ticks[i].Label = fmt.Sprintf("%g", ticks[i].Value)
			}
		}
	}
	return ticks
}

// bars is a bar plotter in data units: each bar spans x0..x1 from zero to
// its median, with a whisker from its lowest to its highest repeat and,
// when there is room, its value above it. A value is written within its
// own bar's width, above the bar's whisker (or its top): across the bar
// when it fits, up along it when only that fits, and not at all when
// neither does, so that it never runs over a neighbour's whisker, bar or
// value. Bars side by side never overlap, so neither do their columns.
type bars struct {
	style  *chartStyle
	labels bool
	items  []bar
	max    float64
}

type bar struct {
	x0, x1 float64
	v      spread
	fill   fill
	note   string // no bar, but this word where it would stand: skipped
}

// labelGap is the room between a whisker's (or a bar's) top and its value.
const labelGap = 3 * vg.Length(1)

func (b *bars) add(x0, x1 float64, v spread, f fill) {
	b.items = append(b.items, bar{x0: x0, x1: x1, v: v, fill: f})
	b.max = math.Max(b.max, v.hi)
}

// addPhase adds store s's bar of phase k, its figure over repeats, at
// x0..x1: or, when every repeat of the phase was skipped, "skipped" where
// the bar would stand, so that it is not read as a store that was not run
// or a bar too short to see. It reports whether it added either.
func (b *bars) addPhase(d *result.Document, s result.Store, k phaseKey, fig barFigure, x0, x1 float64, f fill) bool {
	if v := fig.at(d, s, k); v.n > 0 {
		b.add(x0, x1, v, f)
		return true
	}
	if skippedAt(d, s, k) {
		b.items = append(b.items, bar{x0: x0, x1: x1, fill: f, note: b.style.l.t("skipped")})
		return true
	}
	return false
}

// skippedAt reports whether store s ran phase k and skipped it whole in
// every repeat.
func skippedAt(d *result.Document, s result.Store, k phaseKey) bool {
	ran := false
	for _, p := range s.Phases {
		if keyOf(d, p) == k {
			if !skippedPhase(p) {
				return false
			}
			ran = true
		}
	}
	return ran
}

// barFigure is what the throughput and --vary bars measure: ops/s, or,
// for the load workload, rows/s. One load operation is a whole data set
// (or a chunk of it): its ops/s (sqlite 0.32 against file 79.1) says
// nothing a reader looks for, its rows/s, which the notes give, does.
type barFigure struct {
	title, matrixTitle, axis string
	rows                     map[loadPhase]float64 // rows/s of each load phase
}

type loadPhase struct {
	store, op       string
	clients, repeat int
}

func barFigureOf(d *result.Document) barFigure {
	rates := load.Rates(d)
	if rates == nil {
		return barFigure{title: "chart.throughput", matrixTitle: "chart.matrix", axis: "axis.ops/s"}
	}
	f := barFigure{title: "chart.throughput.rows", matrixTitle: "chart.matrix.rows", axis: "axis.rows/s", rows: map[loadPhase]float64{}}
	for _, r := range rates {
		if r.Rows > 0 {
			f.rows[loadPhase{r.Store, r.Way, r.Clients, r.Repeat}] = r.RowsPerSec
		}
	}
	return f
}

// at is store s's figure of phase k over its repeats.
func (f barFigure) at(d *result.Document, s result.Store, k phaseKey) spread {
	if f.rows == nil {
		return opsPerSecAt(d, s, k)
	}
	var vs []float64
	for _, p := range s.Phases {
		if v, ok := f.rows[loadPhase{s.Label, p.Op, p.Clients, p.Repeat}]; ok && keyOf(d, p) == k {
			vs = append(vs, v)
		}
	}
	return spreadOf(vs)
}

// whiskered reports whether a bar has a whisker: repeats that differ.
func (it bar) whiskered() bool { return it.v.n > 1 && it.v.hi > it.v.lo }

// top is the highest value a bar draws: its whisker's top, or its median.
func (it bar) top() float64 {
	if it.whiskered() {
		return math.Max(it.v.hi, it.v.med)
	}
	return it.v.med
}

func (b *bars) labelStyle() plottext.Style { return b.style.text(8) }

// labelAt places a bar's value: the text style (rotated or not) and the
// point to draw it at, given the bar's left and right edges and its top
// on the canvas; ok is false when the value fits the bar's width neither
// across nor along.
func (b *bars) labelAt(s string, x0, x1, top vg.Length) (lt plottext.Style, at vg.Point, ok bool) {
	lt = b.labelStyle()
	w, h := lt.Width(s), lt.Height(s)
	at = vg.Point{X: (x0 + x1) / 2, Y: top + labelGap}
	switch {
	case w <= x1-x0:
		lt.XAlign, lt.YAlign = draw.XCenter, draw.YBottom
		return lt, at, true
	case h <= x1-x0:
		// Up along the bar: its start at the point, centred across.
		lt.Rotation = math.Pi / 2
		lt.XAlign, lt.YAlign = draw.XLeft, draw.YCenter
		return lt, at, true
	}
	return lt, at, false
}

func (b *bars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, it := range b.items {
		x0, x1, y0, y1 := trX(it.x0), trX(it.x1), trY(0), trY(it.v.med)
		if it.note != "" {
			if lt, at, ok := b.labelAt(it.note, x0, x1, y0+vg.Points(0.5)); ok {
				lt.Color = color.Gray{0x50}
				c.FillText(lt, at, it.note)
			}
			continue
		}
		it.fill.draw(c, vg.Rectangle{Min: vg.Point{X: x0, Y: y0}, Max: vg.Point{X: x1, Y: y1}})
		if it.whiskered() {
			xm := (x0 + x1) / 2
			ls := draw.LineStyle{Color: color.Gray{0x30}, Width: vg.Points(1)}
			yl, yh := trY(it.v.lo), trY(it.v.hi)
			c.StrokeLine2(ls, xm, yl, xm, yh)
			cap := (x1 - x0) / 4
			c.StrokeLine2(ls, xm-cap, yl, xm+cap, yl)
			c.StrokeLine2(ls, xm-cap, yh, xm+cap, yh)
		}
		if !b.labels {
			continue
		}
		// Above the whisker's cap, whose line is 1 pt thick.
		s := num(it.v.med)
		if lt, at, ok := b.labelAt(s, x0, x1, trY(it.top())+vg.Points(0.5)); ok {
			c.FillText(lt, at, s)
		}
	}
}

// GlyphBoxes keeps room above each bar for its value, written across or
// up along the bar (which one is known only when drawn, on the canvas):
// the plot shrinks so that no value runs into the legend or the title.
func (b *bars) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	lt := b.labelStyle()
	var out []plot.GlyphBox
	for _, it := range b.items {
		s := num(it.v.med)
		if it.note != "" {
			s = it.note
		} else if !b.labels {
			continue
		}
		room := labelGap + vg.Points(0.5) + max(lt.Width(s), lt.Height(s))
		out = append(out, plot.GlyphBox{X: p.X.Norm((it.x0 + it.x1) / 2), Y: p.Y.Norm(it.top()),
			Rectangle: vg.Rectangle{Max: vg.Point{Y: room}}})
	}
	return out
}

func (b *bars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = math.Inf(1), math.Inf(-1)
	for _, it := range b.items {
		xmin, xmax = math.Min(xmin, it.x0), math.Max(xmax, it.x1)
	}
	return xmin, xmax, 0, b.max
}

// band shades x0..x1 over the plot's full height (the warm-up).
type band struct {
	x0, x1 float64
	color  color.Color
}

func (b *band) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	x0, x1 := trX(b.x0), trX(b.x1)
	c.FillPolygon(b.color, []vg.Point{{X: x0, Y: c.Min.Y}, {X: x1, Y: c.Min.Y}, {X: x1, Y: c.Max.Y}, {X: x0, Y: c.Max.Y}})
}

// cjkFonts are where Linux distributions install fonts with Japanese
// glyphs (Debian's fonts-noto-cjk first).
var cjkFonts = []string{
	"/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
	"/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc",
	"/usr/share/fonts/google-noto-cjk/NotoSansCJK-Regular.ttc",
	"/usr/share/fonts/opentype/ipafont-gothic/ipag.ttf",
	"/usr/share/fonts/truetype/fonts-japanese-gothic.ttf",
}

// JapaneseFont returns the font file that Japanese chart text is drawn
// with, or "" when none is installed (charts then stay in English).
func JapaneseFont() string {
	for _, p := range cjkFonts {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// cjkFont loads the Japanese font for lang "ja", or returns nil.
func cjkFont(lang string) *font.Face {
	if lang != Japanese {
		return nil
	}
	path := JapaneseFont()
	if path == "" {
		return nil
	}
	f, err := loadFont(path)
	if err != nil {
		return nil
	}
	return f
}

var errNoFace = errors.New("no usable face")

// loadFont reads a TrueType or OpenType font or collection; from a
// collection it takes the Japanese face ("... JP") or else the first.
func loadFont(path string) (*font.Face, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	coll, err := opentype.ParseCollection(b)
	if err != nil {
		return nil, err
	}
	var pick *opentype.Font
	var buf sfnt.Buffer
	for i := range coll.NumFonts() {
		f, err := coll.Font(i)
		if err != nil {
			continue
		}
		if pick == nil {
			pick = f
		}
		if name, err := f.Name(&buf, sfnt.NameIDFamily); err == nil && strings.HasSuffix(name, " JP") {
			pick = f
			break
		}
	}
	if pick == nil {
		return nil, errNoFace
	}
	return &font.Face{Font: font.Font{Typeface: "kurabe-ja"}, Face: pick}, nil
}
