// Package report renders a result document as tables: aligned text for a
// terminal and Markdown for a blog post. Each format is one function that
// writes to an io.Writer; both show the same rows and columns.
package report

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"kurabe/result"
)

// Formats lists the table formats by name.
var Formats = map[string]func(io.Writer, *result.Document) error{
	"text":     Text,
	"markdown": Markdown,
}

// FormatNames returns the format names, sorted.
func FormatNames() []string { return slices.Sorted(maps.Keys(Formats)) }

// Summary returns the lines that say what ran.
func Summary(d *result.Document) []string {
	r := d.Run
	var what []string
	what = append(what, "kurabe "+d.Kurabe, "workload "+r.Workload+" "+strings.Join(r.Ops, ","))
	if p := params(r.Params); p != "" {
		what = append(what, p)
	}
	what = append(what, plural(r.Clients, "client"))
	if r.Count > 0 {
		what = append(what, "n="+strconv.FormatInt(r.Count, 10)+" per op")
	} else {
		what = append(what, "duration "+time.Duration(r.Duration).String()+" per op")
	}
	what = append(what, "warm-up "+time.Duration(r.Warmup).String())
	if r.Think != "" {
		what = append(what, "think "+r.Think)
	}
	if r.Rate != "" {
		what = append(what, "open loop at "+r.Rate+" ops/s (latency from the scheduled start)")
	}
	what = append(what, "seed "+strconv.FormatUint(d.Seed, 10))
	lines := []string{strings.Join(what, " · ")}
	for _, s := range d.Stores {
		line := "store " + s.Label + ": " + s.Info.Target
		if s.Info.Version != "" {
			line += " (" + s.Info.Driver + " " + s.Info.Version + ")"
		}
		if p := params(s.Info.Options); p != "" {
			line += " · " + p
		}
		lines = append(lines, line)
	}
	dir := "data " + r.Dir
	if r.DirKept {
		dir += " (kept)"
	} else {
		dir += " (removed)"
	}
	lines = append(lines, dir)
	if d.Interrupted {
		lines = append(lines, "INTERRUPTED: the figures cover only the part that ran")
	}
	return lines
}

func params(m map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, k+"="+m[k])
	}
	return strings.Join(parts, " ")
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// row is one table row, already formatted.
type row []string

// latency columns, in the table's order.
var latCols = []struct {
	name string
	get  func(result.Latency) float64
}{
	{"mean", func(l result.Latency) float64 { return l.Mean }},
	{"p50", func(l result.Latency) float64 { return l.P50 }},
	{"p90", func(l result.Latency) float64 { return l.P90 }},
	{"p99", func(l result.Latency) float64 { return l.P99 }},
	{"p99.9", func(l result.Latency) float64 { return l.P999 }},
	{"max", func(l result.Latency) float64 { return l.Max }},
}

// dur formats a latency in µs with its own unit and about three
// significant digits: 0.93µs, 298µs, 1.25ms, 1.18s.
func dur(us float64) string {
	switch {
	case us == 0:
		return "0"
	case us < 999.5:
		return num(us) + "µs"
	case us < 999_500:
		return num(us/1e3) + "ms"
	}
	return num(us/1e6) + "s"
}

// num formats with about three significant digits and thousands separators.
func num(v float64) string {
	switch {
	case v == 0:
		return "0"
	case v >= 999.5:
		return group(strconv.FormatFloat(v, 'f', 0, 64))
	case v >= 99.95:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 9.995:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

func group(s string) string {
	if len(s) <= 3 {
		return s
	}
	var b strings.Builder
	pre := len(s) % 3
	if pre > 0 {
		b.WriteString(s[:pre])
	}
	for i := pre; i < len(s); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s[i : i+3])
	}
	return b.String()
}

// table builds the header and rows: one row per store and operation.
func table(d *result.Document) (row, []row, []bool) {
	if len(d.Run.Vary) > 0 {
		return matrix(d)
	}
	header := row{"store", "op", "ops/s"}
	type pr struct {
		s result.Store
		p result.Phase
	}
	var prs []pr
	for _, s := range d.Stores {
		for _, p := range s.Phases {
			prs = append(prs, pr{s, p})
		}
	}
	for _, c := range latCols {
		header = append(header, c.name)
	}
	header = append(header, "errors", "lost", "last/first")
	var rows []row
	for _, x := range prs {
		r := row{x.s.Label, x.p.Op, num(x.p.OpsPerSec)}
		if d.Run.Repeat > 1 {
			r[1] += " #" + strconv.Itoa(x.p.Repeat+1)
		}
		if x.p.Interrupted {
			r[1] += "*"
		}
		for _, c := range latCols {
			r = append(r, dur(c.get(x.p.Latency)))
		}
		r = append(r, strconv.FormatInt(x.p.Errors, 10), lostCell(x.p), strconv.FormatFloat(x.p.FinishRatio, 'f', 2, 64))
		rows = append(rows, r)
	}
	for _, s := range d.Stores {
		if s.Error != "" {
			r := row{s.Label, "FAILED"}
			for len(r) < len(header) {
				r = append(r, "-")
			}
			rows = append(rows, r)
		}
	}
	numeric := make([]bool, len(header))
	for i := 2; i < len(header); i++ {
		numeric[i] = true
	}
	return header, rows, numeric
}

func lostCell(p result.Phase) string {
	if len(p.Verify) == 0 {
		return "-"
	}
	var lost, extra int64
	for _, v := range p.Verify {
		if v.Error != "" {
			return "?"
		}
		lost += v.Lost
		extra += v.Extra
	}
	switch {
	case lost > 0:
		return "LOST " + strconv.FormatInt(lost, 10)
	case extra > 0:
		return "EXTRA " + strconv.FormatInt(extra, 10)
	}
	return "0"
}

// Notes returns the lines under the table: failures, errors by class,
// verification problems.
func Notes(d *result.Document) []string {
	var out []string
	for _, s := range d.Stores {
		if s.Error != "" {
			out = append(out, fmt.Sprintf("%s: FAILED: %s", s.Label, s.Error))
		}
		for _, p := range s.Phases {
			for _, c := range p.ErrorClasses {
				out = append(out, fmt.Sprintf("%s %s: %d errors of class %s, first: %s", s.Label, p.Op, c.Count, c.Class, c.First))
			}
			for _, v := range p.Verify {
				switch {
				case v.Error != "":
					out = append(out, fmt.Sprintf("%s %s: could not verify %s: %s", s.Label, p.Op, v.Table, v.Error))
				case v.Lost > 0:
					out = append(out, fmt.Sprintf("%s %s: LOST %d writes: %d acknowledged, table %s grew by %d", s.Label, p.Op, v.Lost, v.Acked, v.Table, v.After-v.Before))
				case v.Extra > 0:
					out = append(out, fmt.Sprintf("%s %s: EXTRA %d rows: %d acknowledged, table %s grew by %d", s.Label, p.Op, v.Extra, v.Acked, v.Table, v.After-v.Before))
				}
			}
			if p.Interrupted {
				out = append(out, fmt.Sprintf("%s %s*: interrupted", s.Label, p.Op))
			}
			if o := p.OpenLoop; o != nil {
				line := fmt.Sprintf("%s %s: open loop: %s ops/s achieved of %s scheduled; %d started more than %s late; lag p99 %s; service time (from the actual start) p50 %s, p99 %s",
					s.Label, p.Op, num(o.Achieved), num(float64(o.Scheduled)/max(p.Elapsed, 1e-9)), o.Late, dur(o.LateAfterUs), dur(o.Lag.P99), dur(o.Service.P50), dur(o.Service.P99))
				if o.Behind {
					line += "; BEHIND: " + o.Note
				}
				out = append(out, line)
			}
			if p.Connect != nil && p.LatencyExclConnect != nil {
				out = append(out, fmt.Sprintf("%s %s: a new connection per operation: %s ops/s including connecting, %s excluding; connecting took %s on average, operations %s without it",
					s.Label, p.Op, num(p.OpsPerSec), num(p.OpsPerSecExclConnect), dur(p.Connect.Mean), dur(p.LatencyExclConnect.Mean)))
			}
			if p.Ops > 0 && p.BytesRead == 0 && p.BytesWritten == 0 {
				out = append(out, fmt.Sprintf("%s %s: read nothing: the table was empty (kurabe empties its tables at the start of a run); put a writing operation first, e.g. --ops write,%s", s.Label, p.Op, p.Op))
			}
		}
	}
	return out
}

// Text writes the summary and an aligned table for a terminal.
func Text(w io.Writer, d *result.Document) error {
	header, rows, numeric := table(d)
	width := make([]int, len(header))
	for _, r := range append([]row{header}, rows...) {
		for i, c := range r {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	var b strings.Builder
	for _, l := range Summary(d) {
		b.WriteString(l + "\n")
	}
	b.WriteString("\n")
	for _, r := range append([]row{header}, rows...) {
		for i, c := range r {
			pad := strings.Repeat(" ", width[i]-len([]rune(c)))
			if i > 0 {
				b.WriteString("  ")
			}
			if numeric[i] {
				b.WriteString(pad + c)
			} else if i < len(r)-1 {
				b.WriteString(c + pad)
			} else {
				b.WriteString(c)
			}
		}
		b.WriteString("\n")
	}
	if notes := Notes(d); len(notes) > 0 {
		b.WriteString("\n")
		for _, n := range notes {
			b.WriteString(n + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Markdown writes the summary and a Markdown table.
func Markdown(w io.Writer, d *result.Document) error {
	header, rows, numeric := table(d)
	var b strings.Builder
	for _, l := range Summary(d) {
		b.WriteString(l + "  \n")
	}
	b.WriteString("\n")
	line := func(r row) {
		b.WriteString("|")
		for _, c := range r {
			b.WriteString(" " + strings.ReplaceAll(c, "|", "\\|") + " |")
		}
		b.WriteString("\n")
	}
	line(header)
	b.WriteString("|")
	for i := range header {
		if numeric[i] {
			b.WriteString("---:|")
		} else {
			b.WriteString("---|")
		}
	}
	b.WriteString("\n")
	for _, r := range rows {
		line(r)
	}
	if notes := Notes(d); len(notes) > 0 {
		b.WriteString("\n")
		for _, n := range notes {
			b.WriteString("- " + n + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
