package report

import (
	"io"
	"strconv"
	"strings"
	"unicode"

	"kurabe/result"
)

// Benchstat writes the document in the Go benchmark format, so that
// `benchstat old.txt new.txt` compares two runs. Each phase, and with
// --repeat each repeat, is one line, so benchstat sees repeats as samples:
//
//	BenchmarkKurabe/store=sqlite/op=write/clients=10  2000  7080000 ns/op  880 ops/s  951000 p50-ns  8730000 p99-ns
//
// The iteration count is the number of successful operations. ns/op is the
// mean latency of one operation as a client saw it; with several clients
// that is not wall time over operations (which is 1e9 / ops/s × clients
// busy at once), so ops/s is given as its own unit, with a Unit line saying
// higher is better. Latency percentiles are in their own units (p50-ns,
// p99-ns, p99.9-ns), which benchstat scales to seconds like ns/op. A load
// run's lines add rows/s, its figure to compare (one of its operations is
// a whole data set), with a Unit line of its own.
//
// Names follow benchfmt's rules: no spaces; "/key=value" parts, which
// benchstat can group by (-col /store); and never a trailing "-digits",
// which would be read as GOMAXPROCS: the last part is clients=N. A store of
// a --vary run is named as in the table, by its driver (or, when stores of
// one driver differ in more, its label without the varied settings), with
// each varied setting as a part of its own (/journal_mode=wal). Configuration lines before the results
// record the machine and the workload (goos, cpu, workload).
func Benchstat(w io.Writer, d *result.Document) error {
	return writeBenchstat(w, []*result.Document{d})
}

func writeBenchstat(w io.Writer, docs []*result.Document) error {
	return writeBenchstatRuns(w, docs, true)
}

// writeBenchstatRuns writes the documents' results, after the Unit line
// when first is true (the first of a stream written document by
// document), and after a blank line otherwise.
func writeBenchstatRuns(w io.Writer, docs []*result.Document, first bool) error {
	var b strings.Builder
	if first {
		b.WriteString("Unit ops/s better=higher\n")
	}
	ids := runIDs(docs)
	for i, d := range docs {
		if i > 0 || !first {
			b.WriteString("\n")
		}
		// benchstat puts results whose configuration differs into
		// separate tables, so only what two comparable runs share is
		// configuration: not the seed or the start time. Several runs in
		// one stream carry kurabe-run to tell them apart (benchstat
		// -table "" -col kurabe-run).
		goos, goarch, _ := strings.Cut(d.Env.OS, "/")
		config := [][2]string{{"goos", goos}, {"goarch", goarch}, {"cpu", d.Env.CPU}, {"kurabe", d.Kurabe}, {"workload", d.Run.Workload}}
		if d.Run.Rate != "" {
			config = append(config, [2]string{"rate", d.Run.Rate})
		}
		if len(docs) > 1 {
			config = append(config, [2]string{"kurabe-run", ids[i]})
		}
		rate := ratesOf(d)
		if rate.rowsPerSec() {
			// A load run's figure to compare is rows/s: one of its
			// operations is a whole data set, so its ops/s follows the
			// data set's size.
			b.WriteString("Unit rows/s better=higher\n")
		}
		for _, c := range config {
			// A key with an empty value would delete the key; write "-".
			v := strings.TrimSpace(c[1])
			if v == "" {
				v = "-"
			}
			b.WriteString(c[0] + ": " + v + "\n")
		}
		names := variantStoreNames(d)
		for i, s := range d.Stores {
			for _, p := range s.Phases {
				if p.Ops == 0 {
					continue // benchstat needs a measurement; the table says why
				}
				b.WriteString(benchName(d, s, names[i], p))
				b.WriteString(" " + strconv.FormatInt(p.Ops, 10))
				l := p.Latency
				// Nanoseconds are whole; ops/s to two decimals, as Go's
				// own benchmark lines give custom units.
				type metric struct {
					val    float64
					digits int
					unit   string
				}
				ms := []metric{{l.Mean * 1e3, 0, "ns/op"}, {p.OpsPerSec, 2, "ops/s"}}
				if rate.rowsPerSec() {
					ms = append(ms, metric{rate.of(s, p), 2, "rows/s"})
				}
				ms = append(ms, metric{l.P50 * 1e3, 0, "p50-ns"}, metric{l.P99 * 1e3, 0, "p99-ns"}, metric{l.P999 * 1e3, 0, "p99.9-ns"})
				for _, v := range ms {
					b.WriteString(" " + strconv.FormatFloat(v.val, 'f', v.digits, 64) + " " + v.unit)
				}
				b.WriteString("\n")
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// benchName names a phase as a benchmark; variant is the store's name in
// a --vary run's table (variantStoreNames).
func benchName(d *result.Document, s result.Store, variant string, p result.Phase) string {
	storeName := s.Label
	if len(s.Variant) > 0 {
		storeName = variant
	}
	name := "BenchmarkKurabe"
	if sc := d.Scenario; sc != nil && sc.Steps > 1 {
		// A scenario's steps may run the same store, operation and
		// clients: benchstat would pool them as samples of one benchmark.
		name += "/step=" + strconv.Itoa(sc.Step)
	}
	name += "/store=" + benchPart(storeName)
	for _, v := range s.Variant {
		name += "/" + benchPart(v.Name) + "=" + benchPart(v.Value)
	}
	clients := p.Clients
	if clients == 0 {
		clients = d.Run.Clients
	}
	return name + "/op=" + benchPart(p.Op) + "/clients=" + strconv.Itoa(clients)
}

// benchPart keeps a name part within benchfmt's rules: no spaces, and no
// slash, which would start a new part.
func benchPart(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || r == '/' {
			return '_'
		}
		return r
	}, s)
}
