package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot/font"

	"kurabe/result"
)

// The HTML report is one file: the stylesheet and the charts (SVG) are
// inside it, and it needs no script, font or image from anywhere else, so
// it opens offline, from a mail attachment, years later.
//
// Several documents are shown one section each, in the order given, each
// complete (verification, settings, environment, tables, charts); when
// there are several, a table at the top puts their ops/s side by side, one
// column per run, rows by store and operation. Sections rather than runs
// as columns everywhere because runs often differ in more than their
// figures (stores, options, machine), and each section says exactly what
// ran.

//go:embed assets/report.html.tmpl
var htmlTemplate string

//go:embed assets/report.css
var htmlCSS string

// WriteHTML writes one self-contained HTML page reporting the documents.
// With lang "ja" the words are Japanese; chart text is Japanese when a font
// with Japanese glyphs is installed (see JapaneseFont), English otherwise.
func WriteHTML(w io.Writer, lang string, docs ...*result.Document) error {
	return writeHTML(w, lang, cjkFont(lang), docs)
}

type htmlPage struct {
	Lang, Title, Intro string
	CSS                template.CSS
	SideBySide         *htmlTable
	SideBySideNote     string   // what its figures are
	Settings           []string // stores whose settings differ between the runs
	Runs               []htmlRun
}

type htmlRun struct {
	ID, Heading string
	Summary     string
	Verify      htmlVerify
	What, Env   [][2]string
	Stores      *htmlTable
	Results     *htmlTable
	// A kurabe http result's table per URL or step, under its title.
	Targets      *htmlTable
	TargetsTitle string
	Notes        []string
	Charts       []htmlChart
}

type htmlVerify struct {
	Class string // "ok" or "bad"
	Lines []string
	Table *htmlTable
}

type htmlChart struct {
	ID      string
	SVG     template.HTML
	Caption string
}

type htmlTable struct {
	Header  row
	Numeric []bool
	Rows    [][]htmlCell
}

type htmlCell struct{ Text, Class string }

func writeHTML(w io.Writer, lang string, cjk *font.Face, docs []*result.Document) error {
	if err := CheckLang(lang); err != nil {
		return err
	}
	l := tr(lang)
	tmpl, err := template.New("report").Funcs(template.FuncMap{"t": l.t}).Parse(htmlTemplate)
	if err != nil {
		return err
	}
	page := htmlPage{Lang: lang, Title: l.t("kurabe report"), Intro: l.count(len(docs), "report.intro1", "report.intro"), CSS: template.CSS(htmlCSS)}
	if len(docs) > 1 {
		page.SideBySide = sideBySide(docs, l)
		page.SideBySideNote = l.t("report.sidebyside")
		if slices.ContainsFunc(docs, func(d *result.Document) bool { return ratesOf(d).rowsPerSec() }) {
			page.SideBySideNote = l.t("report.sidebyside.rows")
		}
		page.Settings = settingChanges(docs, l)
	}
	chs := charts(newChartStyle(lang, cjk, docs), docs)
	for i, d := range docs {
		run := htmlRun{
			ID:      "run" + strconv.Itoa(i+1),
			Heading: fmt.Sprintf("%s %d · %s · %s", l.t("run"), i+1, d.Run.Workload, d.Started.UTC().Format("2006-01-02 15:04:05 MST")),
			Summary: summary(d, l)[0],
			Verify:  verification(d, l),
			What:    whatRan(d, l),
			Env:     environment(d, l),
			Stores:  storeTable(d, l),
			Notes:   notes(d, l),
		}
		header, rows, numeric := table(d, l)
		run.Results = cellTable(header, rows, numeric)
		if r, err := httpPhase(d); err == nil {
			// kurabe http's table per URL or flow step, as its text
			// format shows it; its statuses, lengths and passes are
			// among the notes.
			r.l = l
			header, rows := r.targetRows()
			numeric := make([]bool, len(header))
			for i := 1; i < len(header)-1; i++ {
				numeric[i] = true
			}
			trs := make([]row, len(rows))
			for i, r := range rows {
				trs[i] = r
			}
			run.Targets = cellTable(header, trs, numeric)
			run.TargetsTitle = l.t("Per URL")
			if r.h.Mode == "flow" {
				run.TargetsTitle = l.t("Per step")
			}
		}
		for _, ch := range chs[i] {
			svg, err := ch.SVG()
			if err != nil {
				return fmt.Errorf("chart %s: %v", ch.Name, err)
			}
			// Inline SVG starts at its <svg> element: the XML
			// declaration before it has no place inside HTML.
			if j := bytes.Index(svg, []byte("<svg")); j >= 0 {
				svg = svg[j:]
			}
			run.Charts = append(run.Charts, htmlChart{ID: run.ID + "-" + ch.Name, SVG: template.HTML(svg), Caption: ch.Caption})
		}
		page.Runs = append(page.Runs, run)
	}
	var b bytes.Buffer
	if err := tmpl.Execute(&b, page); err != nil {
		return err
	}
	_, err = w.Write(b.Bytes())
	return err
}

// cellTable turns a text table into cells, marking the ones a reader must
// not miss (LOST, EXTRA, FAILED, a setting that did not apply) in red.
func cellTable(header row, rows []row, numeric []bool) *htmlTable {
	t := &htmlTable{Header: header, Numeric: numeric}
	for _, r := range rows {
		var cells []htmlCell
		for i, c := range r {
			cl := ""
			if i < len(numeric) && numeric[i] {
				cl = "num"
			}
			if strings.HasPrefix(c, "LOST") || strings.HasPrefix(c, "EXTRA") || strings.HasPrefix(c, "≠") || c == "FAILED" || c == tr(Japanese).t("FAILED") {
				cl = strings.TrimSpace(cl + " bad")
			}
			cells = append(cells, htmlCell{Text: c, Class: cl})
		}
		t.Rows = append(t.Rows, cells)
	}
	return t
}

// verification says first whether every acknowledged write was found,
// then shows the counts per store, operation and table.
func verification(d *result.Document, l tr) htmlVerify {
	v := htmlVerify{Class: "ok"}
	var acked, lost, extra, unknownWrites, unknownStored int64
	failed := false
	header := row{l.t("store"), l.t("op"), l.t("table"), l.t("acknowledged"), l.t("before"), l.t("after"), l.t("lost"), l.t("extra")}
	var rows []row
	for _, s := range d.Stores {
		for _, p := range s.Phases {
			for _, x := range p.Verify {
				acked += x.Acked
				lost += x.Lost
				extra += x.Extra
				unknownWrites += x.UnknownWrites()
				unknownStored += x.UnknownStored
				op := phaseName(d, p)
				lostCell, extraCell := strconv.FormatInt(x.Lost, 10), strconv.FormatInt(x.Extra, 10)
				if x.Lost > 0 {
					lostCell = "LOST " + lostCell
				}
				if x.Extra > 0 {
					extraCell = "EXTRA " + extraCell
				}
				if x.Error != "" {
					failed = true
					lostCell, extraCell = "?", "?"
				}
				rows = append(rows, row{s.Label, op, x.Table, num0(x.Acked), num0(x.Before), num0(x.After), lostCell, extraCell})
			}
		}
		if s.Error != "" {
			v.Lines = append(v.Lines, s.Label+": "+l.f("report.failed", s.Error))
			v.Class = "bad"
		}
	}
	switch {
	case lost > 0:
		v.Lines = append([]string{l.f("verify.lost", num0(lost))}, v.Lines...)
		v.Class = "bad"
	case extra > 0:
		v.Lines = append([]string{l.f("verify.extra", num0(extra))}, v.Lines...)
		v.Class = "bad"
	case failed:
		v.Lines = append([]string{l.t("verify.error")}, v.Lines...)
		v.Class = "bad"
	case len(rows) == 0 && v.Class == "bad":
		// A store failed before any phase wrote: its failure leads.
		// That nothing was verified is said only of stores that ran.
		if slices.ContainsFunc(d.Stores, func(s result.Store) bool { return s.Error == "" && len(s.Phases) > 0 }) {
			v.Lines = append(v.Lines, l.t("verify.none"))
		}
	case len(rows) == 0:
		v.Lines = append([]string{l.t("verify.none")}, v.Lines...)
	default:
		v.Lines = append([]string{l.f("verify.ok", num0(acked))}, v.Lines...)
	}
	if lost > 0 && extra > 0 {
		v.Lines = append(v.Lines, l.f("verify.extra", num0(extra)))
	}
	if unknownWrites > 0 {
		v.Lines = append(v.Lines, l.f("verify.unknown", num0(unknownWrites), num0(unknownStored)))
	}
	if d.Interrupted {
		v.Lines = append(v.Lines, l.t("INTERRUPTED"))
	}
	// The counts are shown when something is wrong; otherwise the
	// line above says it all.
	if len(rows) > 0 && v.Class == "bad" {
		numeric := []bool{false, false, false, true, true, true, true, true}
		v.Table = cellTable(header, rows, numeric)
	}
	return v
}

// num0 writes a count with thousands separators.
func num0(n int64) string {
	if n < 0 {
		return "-" + group(strconv.FormatInt(-n, 10))
	}
	return group(strconv.FormatInt(n, 10))
}

func whatRan(d *result.Document, l tr) [][2]string {
	r := d.Run
	kv := [][2]string{
		{l.t("workload"), r.Workload + " " + runParams(r.Params)},
		{l.t("op"), strings.Join(r.Ops, ", ")},
		{l.t("clients"), clientLevels(r) + clientsRan(d, l) + isolated(d, l)},
	}
	switch {
	case r.Workload == "replay" && r.Count > 0:
		kv = append(kv, [2]string{"n", l.count64(r.Count, "replay.statement", "replay.statements")})
	case r.Count > 0:
		kv = append(kv, [2]string{"n", l.f("per-op", num0(r.Count))})
	default:
		kv = append(kv, [2]string{l.t("duration"), l.f("per-op", time.Duration(r.Duration).String())})
	}
	kv = append(kv, [2]string{l.t("warm-up"), time.Duration(r.Warmup).String()})
	if r.Think != "" && r.Workload != "replay" { // a replay's is its delay=, with its settings
		kv = append(kv, [2]string{l.t("think"), r.Think})
	}
	if r.Rate != "" {
		kv = append(kv, [2]string{l.t("rate"), r.Rate + " ops/s"})
	}
	if r.Repeat > 1 {
		kv = append(kv, [2]string{l.t("repeats"), strconv.Itoa(r.Repeat)})
	}
	for _, a := range r.Vary {
		kv = append(kv, [2]string{"--vary", a.Name + "=" + strings.Join(a.Values, ",")})
	}
	kv = append(kv, [2]string{l.t("seed"), strconv.FormatUint(d.Seed, 10)})
	if cmd := commandLine(d); cmd != "" {
		kv = append(kv, [2]string{l.t("command"), cmd})
	}
	kv = append(kv,
		[2]string{l.t("started"), d.Started.UTC().Format(time.RFC3339)},
		[2]string{l.t("finished"), d.Finished.UTC().Format(time.RFC3339)},
		[2]string{"kurabe", d.Kurabe})
	if dir := dataDir(d, l); dir != "" {
		kv = append(kv, [2]string{l.t("data"), dir})
	}
	return kv
}

// clientLevels is the clients a run had: its levels with -c 1,2,4 (the
// run's Clients is then only the first), else the one count.
func clientLevels(r result.RunConfig) string {
	if len(r.Levels) > 1 {
		ls := make([]string, len(r.Levels))
		for i, n := range r.Levels {
			ls[i] = strconv.Itoa(n)
		}
		return strings.Join(ls, ",")
	}
	return strconv.Itoa(r.Clients)
}

// commandLine is the command that made d, to paste and run again. Older
// documents recorded it without the command's name (kurabe --store ...,
// which fails); the name is then told from what the document holds.
func commandLine(d *result.Document) string {
	if len(d.Command) == 0 {
		return ""
	}
	args := d.Command
	switch args[0] {
	case "run", "replay", "http":
	default:
		name := "run"
		switch {
		case isHTTPResult(d):
			name = "http"
		case d.Run.Workload == "replay":
			name = "replay"
		}
		args = append([]string{name}, args...)
	}
	return "kurabe " + ShellJoin(args)
}

// ShellJoin joins args into a line a POSIX shell reads back as the same
// words: an argument with anything but letters, digits and -_./:=,@%+ in
// it (a store's ?a=1&b=2, a space) is put in single quotes.
func ShellJoin(args []string) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=,@%+") == "" {
			b.WriteString(a)
			continue
		}
		b.WriteString("'" + strings.ReplaceAll(a, "'", `'\''`) + "'")
	}
	return b.String()
}

func environment(d *result.Document, l tr) [][2]string {
	e := d.Env
	kv := [][2]string{{l.t("OS"), e.OS}}
	add := func(k, v string) {
		if v != "" {
			kv = append(kv, [2]string{l.t(k), v})
		}
	}
	add("kernel", e.Kernel)
	add("CPU", e.CPU)
	if e.Cores > 0 {
		add("cores", strconv.Itoa(e.Cores))
	}
	if e.MemoryBytes > 0 {
		add("memory", strconv.FormatFloat(float64(e.MemoryBytes)/(1<<30), 'f', 1, 64)+" GiB")
	}
	add("Go", e.GoVersion)
	add("host", e.Hostname)
	var fs []string
	for _, dir := range slices.Sorted(maps.Keys(e.Filesystems)) {
		fs = append(fs, dir+": "+e.Filesystems[dir])
	}
	add("filesystems", strings.Join(fs, ", "))
	return kv
}

func storeTable(d *result.Document, l tr) *htmlTable {
	header := row{l.t("store"), l.t("driver"), l.t("version"), l.t("target"), l.t("effective options")}
	var rows []row
	for _, s := range d.Stores {
		rows = append(rows, row{s.Label, s.Info.Driver, storeVersion(s), target(d, s, l), params(readableOptions(s.Info))})
	}
	return cellTable(header, rows, make([]bool, len(header)))
}

// sideBySide puts the runs' ops/s in columns (a load run's rows/s, its
// column named so): one row per store, operation and client level found
// in any run, the median over repeats in each cell. A run of which every operation failed (a URL that always
// answered 500, a flow whose every login got 401) has its row, "0
// (failed)": left out, it read as a run that was never made.
func sideBySide(docs []*result.Document, l tr) *htmlTable {
	header := row{l.t("store"), l.t("op")}
	numeric := []bool{false, false}
	type key struct {
		store string
		phase phaseKey
	}
	var keys []key
	all := phaseKeys(docs...)
	rs := make([]rates, len(docs))
	for i, d := range docs {
		rs[i] = ratesOf(d)
		header = append(header, fmt.Sprintf("%s %d %s", l.t("run"), i+1, l.t(rs[i].unit())))
		numeric = append(numeric, true)
		for _, s := range d.Stores {
			for _, pk := range all {
				k := key{s.Label, pk}
				if (rs[i].at(d, s, pk).n > 0 || allFailedAt(d, s, pk)) && !slices.Contains(keys, k) {
					keys = append(keys, k)
				}
			}
		}
	}
	levels := levelsVary(docs...)
	var rows []row
	for _, k := range keys {
		r := row{k.store, k.phase.name(levels)}
		for i, d := range docs {
			cell := "-"
			for _, s := range d.Stores {
				if s.Label == k.store {
					if v := rs[i].at(d, s, k.phase); v.n > 0 {
						cell = num(v.med)
					} else if allFailedAt(d, s, k.phase) {
						cell = l.t("0 (failed)")
					}
				}
			}
			r = append(r, cell)
		}
		rows = append(rows, r)
	}
	return cellTable(header, rows, numeric)
}
