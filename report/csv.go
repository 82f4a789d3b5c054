package report

import (
	"encoding/csv"
	"io"
	"slices"
	"strconv"
	"strings"

	"kurabe/result"
	"kurabe/workload/load"
)

// csvHeader names the CSV columns. Numbers are written unformatted (no
// thousands separators, no units in the cells: the unit is in the column
// name), latencies in microseconds as in the result document, so a
// spreadsheet or a script reads them without parsing. A cell is empty where
// the figure does not exist, never 0: lost and extra of a phase with
// nothing to verify, the figures of a skipped phase. rows and rows_per_s
// are a load run's (the rows a phase loaded and their rate, the figure to
// read where one operation is a whole data set), empty for other
// workloads; they come last so that the columns before keep their places.
var csvHeader = []string{
	"run", "store", "driver", "variant", "op", "repeat", "clients",
	"ops", "errors", "elapsed_s", "ops_per_s",
	"mean_us", "p50_us", "p90_us", "p95_us", "p99_us", "p99_9_us", "max_us",
	"lost", "extra", "bytes_read", "bytes_written", "finish_ratio", "interrupted", "skipped",
	"step", "rows", "rows_per_s",
}

// verified is a phase's lost and extra rows for the CSV: empty where the
// table shows "-" or "?", as a phase that wrote nothing to verify (a read)
// or whose count failed has no such figure; 0 is a verified phase that
// lost nothing.
func verified(p result.Phase) (lost, extra string) {
	if len(p.Verify) == 0 {
		return "", ""
	}
	var l, e int64
	for _, v := range p.Verify {
		if v.Error != "" {
			return "", ""
		}
		l += v.Lost
		e += v.Extra
	}
	return strconv.FormatInt(l, 10), strconv.FormatInt(e, 10)
}

// CSV writes one row per store × operation × variant × repeat, with a header.
func CSV(w io.Writer, d *result.Document) error { return writeCSV(w, []*result.Document{d}) }

// writeCSV writes the rows of several documents under one header; the run
// column (runIDs: the run's start time, to the nanosecond) tells them apart.
func writeCSV(w io.Writer, docs []*result.Document) error {
	return writeCSVRows(w, docs, true)
}

// writeCSVRows writes the documents' rows, under the header when header
// is true (the first of a stream written document by document).
func writeCSVRows(w io.Writer, docs []*result.Document, header bool) error {
	cw := csv.NewWriter(w)
	if header {
		cw.Write(csvHeader)
	}
	ids := runIDs(docs)
	for i, d := range docs {
		run := ids[i]
		rate := ratesOf(d)
		step := ""
		if sc := d.Scenario; sc != nil && sc.Steps > 1 {
			step = strconv.Itoa(sc.Step)
		}
		for _, s := range d.Stores {
			for _, p := range s.Phases {
				lost, extra := verified(p)
				rows, perSec := "", ""
				if n, ok := load.PhaseRows(d, p); ok {
					rows, perSec = strconv.FormatInt(n, 10), ff(rate.of(s, p))
				}
				l := p.Latency
				ratio := ""
				if ratioMeasured(p) {
					ratio = ff(p.FinishRatio)
				}
				rec := []string{
					run, s.Label, s.Info.Driver, variantString(s.Variant), p.Op,
					strconv.Itoa(p.Repeat + 1), strconv.Itoa(p.Clients),
					strconv.FormatInt(p.Ops, 10), strconv.FormatInt(p.Errors, 10),
					ff(p.Elapsed), ff(p.OpsPerSec),
					lf(l, l.Mean), lf(l, l.P50), lf(l, l.P90), lf(l, l.P95), lf(l, l.P99), lf(l, l.P999), lf(l, l.Max),
					lost, extra,
					strconv.FormatInt(p.BytesRead, 10), strconv.FormatInt(p.BytesWritten, 10),
					ratio, strconv.FormatBool(p.Interrupted), strconv.FormatBool(skippedPhase(p)),
					step, rows, perSec,
				}
				if skippedPhase(p) {
					// Nothing was measured: the figures are empty, as
					// the table's are "-"; ops and errors stay counts.
					for i := slices.Index(csvHeader, "elapsed_s"); i <= slices.Index(csvHeader, "extra"); i++ {
						rec[i] = ""
					}
					rec[slices.Index(csvHeader, "rows")], rec[slices.Index(csvHeader, "rows_per_s")] = "", ""
					rec[slices.Index(csvHeader, "finish_ratio")] = ""
				}
				cw.Write(rec)
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// ff writes a float in plain decimal notation (1143728.5550895922, 0.00004,
// never 1.1437285550895922e+06 or 4e-05) with the fewest digits that read
// back as the same value: spreadsheets and scripts read it as it is.
func ff(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// lf writes a latency figure, or an empty cell when the phase measured no
// latency (no operation succeeded), where a 0 would read as a figure.
func lf(l result.Latency, v float64) string {
	if l.Count == 0 {
		return ""
	}
	return ff(v)
}

// variantString writes a variant's settings as "name=value name=value".
func variantString(v []result.Setting) string {
	parts := make([]string, len(v))
	for i, s := range v {
		parts[i] = s.Name + "=" + s.Value
	}
	return strings.Join(parts, " ")
}
