package report

import (
	"bytes"
	"encoding/csv"
	"encoding/xml"
	"image/png"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/perf/benchfmt"

	"kurabe/result"
	"kurabe/store"
)

// golden compares got with testdata/name, rewriting it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./report -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("output differs from %s (go test ./report -update rewrites it; review the diff):\n%s", path, firstDiff(got, want))
	}
}

// firstDiff shows the first differing line of two outputs.
func firstDiff(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := range max(len(g), len(w)) {
		var a, b string
		if i < len(g) {
			a = g[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b {
			return "line " + strconv.Itoa(i+1) + ":\n got: " + trunc(a) + "\nwant: " + trunc(b)
		}
	}
	return ""
}

func trunc(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

func TestGoldenReports(t *testing.T) {
	cases := []struct {
		name   string
		render func(w io.Writer) error
	}{
		// The HTML page of two runs, charts inline, in English.
		{"report-en.html", func(w io.Writer) error { return writeHTML(w, English, nil, []*result.Document{richDoc(), varyDoc()}) }},
		// In Japanese with no Japanese font given: page words Japanese,
		// chart words English; numbers identical to the English page.
		{"report-ja.html", func(w io.Writer) error { return writeHTML(w, Japanese, nil, []*result.Document{richDoc()}) }},
		// A run with repeats: one row per repeat (write #1, #2, #3).
		{"repeat.txt", func(w io.Writer) error { return WriteTables(w, "text", English, richDoc()) }},
		// The text table in Japanese, and a --vary matrix in Japanese.
		{"repeat-ja.txt", func(w io.Writer) error { return WriteTables(w, "text", Japanese, richDoc(), varyDoc()) }},
		{"repeat-ja.md", func(w io.Writer) error { return WriteTables(w, "markdown", Japanese, richDoc()) }},
		// CSV and benchstat of two runs in one stream.
		{"two-runs.csv", func(w io.Writer) error { return WriteTables(w, "csv", English, richDoc(), varyDoc()) }},
		{"two-runs.benchstat", func(w io.Writer) error { return WriteTables(w, "benchstat", English, richDoc(), varyDoc()) }},
		// Phases a store skipped (crud's update and load's transaction on
		// the file store): "skipped" and "-", never measured zeros; in
		// the CSV, empty figures and skipped=true.
		{"skipped.txt", func(w io.Writer) error { return WriteTables(w, "text", English, skippedDoc()) }},
		{"skipped-ja.txt", func(w io.Writer) error { return WriteTables(w, "text", Japanese, skippedDoc()) }},
		{"skipped.md", func(w io.Writer) error { return WriteTables(w, "markdown", English, skippedDoc()) }},
		{"skipped.csv", func(w io.Writer) error { return WriteTables(w, "csv", English, skippedDoc()) }},
		// compare: six repeats against six, one store much faster.
		{"compare.txt", func(w io.Writer) error {
			return WriteCompare(w, Compare(repeatDoc(6, 1000, 5000), repeatDoc(6, 2000, 5000)), "text", English)
		}},
		{"compare-ja.md", func(w io.Writer) error {
			return WriteCompare(w, Compare(repeatDoc(3, 1000, 5000), repeatDoc(3, 2000, 5000)), "markdown", Japanese)
		}},
		// compare of runs whose stores' settings differ: said above the
		// tables, a line per store, each setting's old and new value.
		{"compare-settings.txt", func(w io.Writer) error {
			old, new := settingsDocs()
			return WriteCompare(w, Compare(old, new), "text", English)
		}},
		{"compare-settings-ja.md", func(w io.Writer) error {
			old, new := settingsDocs()
			return WriteCompare(w, Compare(old, new), "markdown", Japanese)
		}},
		// compare of an interrupted run against one set up differently:
		// both said above the tables.
		{"compare-run.txt", func(w io.Writer) error {
			old, new := runDocs()
			return WriteCompare(w, Compare(old, new), "text", English)
		}},
		{"compare-run-ja.md", func(w io.Writer) error {
			old, new := runDocs()
			return WriteCompare(w, Compare(old, new), "markdown", Japanese)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := c.render(&b); err != nil {
				t.Fatal(err)
			}
			golden(t, c.name, b.Bytes())
		})
	}
}

// settingsDocs are two runs of the same stores: a's journal_mode and
// synchronous changed (and a setting only the new run reads back
// appeared), b's settings did not.
func settingsDocs() (old, new *result.Document) {
	old, new = repeatDoc(1, 375, 5000), repeatDoc(1, 46951, 5000)
	old.Stores[0].Info.Options = map[string]string{"journal_mode": "delete", "synchronous": "full", "page_size": "4096"}
	new.Stores[0].Info.Options = map[string]string{"journal_mode": "wal", "synchronous": "normal", "page_size": "4096", "cache_size": "-2000"}
	// A MariaDB's sizes, read back in bytes, in MiB as its store line
	// writes them.
	old.Stores[1].Info = store.Info{Driver: "mariadb", Options: map[string]string{"innodb_buffer_pool_size": "67108864", "innodb_page_size": "16384"}}
	new.Stores[1].Info = store.Info{Driver: "mariadb", Options: map[string]string{"innodb_buffer_pool_size": "268435456", "innodb_page_size": "16384"}}
	return old, new
}

// runDocs are two single runs: the old one interrupted in a phase, the
// new one run with other -n, -c levels, warm-up and workload option.
func runDocs() (old, new *result.Document) {
	old, new = repeatDoc(1, 864, 5000), repeatDoc(1, 85825, 5000)
	old.Run.Count, old.Run.Params = 500, map[string]string{"latest": "50"}
	old.Stores[1].Phases[0].Interrupted = true
	new.Run.Count, new.Run.Levels = 400, []int{1, 2, 4}
	new.Run.Warmup = result.Duration(time.Second)
	new.Run.Params = map[string]string{"latest": "100"}
	return old, new
}

func TestCompareSaysInterruptedAndRunSettings(t *testing.T) {
	old, new := runDocs()
	for _, c := range []struct {
		name     string
		old, new *result.Document
		want     []string
		not      []string
	}{
		{"old interrupted, settings differ", old, new,
			[]string{"the old run was interrupted: its figures cover only the part that ran",
				"the runs ran with other settings: -n 500 → 400, -c 2 → 1,2,4, --warmup 0s → 1s, latest 50 → 100"},
			[]string{"the new run was interrupted"}},
		{"new interrupted as a document", repeatDoc(1, 1, 1), func() *result.Document { d := repeatDoc(1, 1, 1); d.Interrupted = true; return d }(),
			[]string{"the new run was interrupted"}, []string{"the old run was interrupted", "other settings"}},
	} {
		var b bytes.Buffer
		if err := WriteCompare(&b, Compare(c.old, c.new), "text", English); err != nil {
			t.Fatal(err)
		}
		head, _, _ := strings.Cut(b.String(), "\n\n")
		for _, w := range c.want {
			if !strings.Contains(head, w) {
				t.Errorf("%s: no %q above the tables:\n%s", c.name, w, b.String())
			}
		}
		for _, w := range c.not {
			if strings.Contains(b.String(), w) {
				t.Errorf("%s: %q said:\n%s", c.name, w, b.String())
			}
		}
	}
}

// TestCompareShowsUntestedChange: with too few samples to test, the delta
// shows the change of the medians, marked untested, not ~.
func TestCompareShowsUntestedChange(t *testing.T) {
	c := Compare(repeatDoc(1, 864, 5000), repeatDoc(1, 85825, 5000))
	ch := c.Rows[0].OpsPerSec
	if ch.Significant || !ch.TooFew {
		t.Fatalf("1 vs 1 judged: %+v", ch)
	}
	want := pct(ch.Delta*100, 2, true)
	for lang, mark := range map[string]string{English: "(untested)", Japanese: "(未検定)"} {
		if got := deltaCell(ch, tr(lang)); got != want+" "+mark {
			t.Errorf("%s: delta %q, want %q", lang, got, want+" "+mark)
		}
	}
}

// TestSideBySideSaysSettingsDiffer checks the HTML report of several runs:
// above the side-by-side table, the stores whose settings differ.
func TestSideBySideSaysSettingsDiffer(t *testing.T) {
	old, new := settingsDocs()
	for lang, want := range map[string]string{
		English:  "<p>a ran with other settings: cache_size - → -2000, journal_mode delete → wal, synchronous full → normal</p>",
		Japanese: "<p>a の設定が異なります: cache_size - → -2000、journal_mode delete → wal、synchronous full → normal</p>",
	} {
		var b bytes.Buffer
		if err := writeHTML(&b, lang, nil, []*result.Document{old, new}); err != nil {
			t.Fatal(err)
		}
		page := b.String()
		if i, j := strings.Index(page, want), strings.Index(page, "<table>"); i < 0 || j < i {
			t.Errorf("%s: no %s above the side-by-side table", lang, want)
		}
		// b, a MariaDB, differs in a size read back in bytes: in MiB.
		if !strings.Contains(page, ": innodb_buffer_pool_size 64MiB → 256MiB</p>") {
			t.Errorf("%s: b's settings not said as innodb_buffer_pool_size 64MiB → 256MiB, alone", lang)
		}
	}
}

// skippedDoc is a run of two stores in which the file store skipped two
// phases: one that writes nothing (update, so nothing to verify) and one
// that writes (transaction, verified: nothing was added, nothing lost).
func skippedDoc() *result.Document {
	d := &result.Document{Schema: result.Schema, Kurabe: "0.0.0-test", Seed: 5,
		Started: time.Date(2026, 11, 4, 0, 0, 0, 0, time.UTC),
		Run:     result.RunConfig{Workload: "crud", Ops: []string{"insert", "update", "transaction"}, Clients: 2, Count: 500}}
	skip := func(op string, n int64, verify []result.Verify) result.Phase {
		return result.Phase{Op: op, Clients: 2, Errors: n, Elapsed: 0.002, FinishRatio: 2.24, Verify: verify,
			ErrorClasses: []result.ErrorClass{{Class: "skipped", Count: n, First: "crud " + op + " needs SQL; the phase is skipped, not faked"}}}
	}
	measured := func(op string, ops float64) result.Phase {
		return result.Phase{Op: op, Clients: 2, Ops: 500, Elapsed: 500 / ops, OpsPerSec: ops, FinishRatio: 1.2,
			Latency:      result.Latency{Count: 500, Mean: 1e6 / ops, P50: 1e6 / ops, P90: 2e6 / ops, P99: 3e6 / ops, P999: 4e6 / ops, Max: 5e6 / ops},
			BytesWritten: 4000, Verify: []result.Verify{{Table: "records", Acked: 500, After: 500}}}
	}
	d.Stores = []result.Store{
		{Label: "file", Info: store.Info{Driver: "file", Target: "/tmp/kurabe-s/1-file"}, Phases: []result.Phase{measured("insert", 300000),
			skip("update", 500, nil), skip("transaction", 1, []result.Verify{{Table: "records", Before: 500, After: 500}})}},
		{Label: "sqlite", Info: store.Info{Driver: "sqlite", Target: "/tmp/kurabe-s/2-sqlite/kurabe.db"}, Phases: []result.Phase{measured("insert", 1100), measured("update", 1250), measured("transaction", 30)}},
	}
	return d
}

// TestSkippedPhasesInHTML checks the HTML results table: a skipped phase's
// row says so and shows no figure, in both languages.
func TestSkippedPhasesInHTML(t *testing.T) {
	for _, lang := range []string{English, Japanese} {
		var b bytes.Buffer
		if err := writeHTML(&b, lang, nil, []*result.Document{skippedDoc()}); err != nil {
			t.Fatal(err)
		}
		word := tr(lang).t("skipped")
		want := `<tr><td>file</td><td>update</td><td class="num">` + word + `</td>` + strings.Repeat(`<td class="num">-</td>`, 9) + `</tr>`
		if !strings.Contains(b.String(), want) {
			t.Errorf("%s: no row %s in\n%s", lang, want, trunc(b.String()[strings.Index(b.String(), "<h3"):]))
		}
	}
}

// repeatDoc is a run of n repeats of two stores' writes: "a" at about
// aOps ops/s and "b" at about bOps, each repeat ±1% (seeded), with p99
// inversely proportional.
func repeatDoc(n int, aOps, bOps float64) *result.Document {
	d := &result.Document{Schema: result.Schema, Kurabe: "0.0.0-test", Started: time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC),
		Run: result.RunConfig{Workload: "bbs", Ops: []string{"write"}, Clients: 2, Count: 1000, Repeat: n}}
	for i, s := range []struct {
		label string
		ops   float64
	}{{"a", aOps}, {"b", bOps}} {
		st := result.Store{Label: s.label}
		for rep := range n {
			// Spread the repeats over ±1% in a fixed, interleaved order.
			f := 1 + 0.01*math.Sin(float64(rep*7+i*3+1))
			ops := s.ops * f
			st.Phases = append(st.Phases, result.Phase{Op: "write", Repeat: rep, Ops: 1000, OpsPerSec: ops,
				Latency: result.Latency{Count: 1000, P99: 2e6 / ops}})
		}
		d.Stores = append(d.Stores, st)
	}
	return d
}

func TestCompareSignificance(t *testing.T) {
	// The same samples on both sides: no difference anywhere.
	same := Compare(repeatDoc(6, 1000, 5000), repeatDoc(6, 1000, 5000))
	var b bytes.Buffer
	if err := WriteCompare(&b, same, "text", English); err != nil {
		t.Fatal(err)
	}
	for _, r := range same.Rows {
		for _, ch := range []Change{r.OpsPerSec, r.P99} {
			if ch.Significant || deltaCell(ch, English) != "~" {
				t.Errorf("%s %s: identical samples called significant: %+v", r.Store, r.Op, ch)
			}
		}
	}
	if got := strings.Count(b.String(), "  ~  "); got != 4 {
		t.Errorf("want ~ in all 4 rows (2 stores × ops/s and p99), got %d:\n%s", got, b.String())
	}

	// 1000±10 against 2000±10 ops/s, six repeats each: significant,
	// p = 2/C(12,6) = 0.0022, and the change is +100%.
	diff := Compare(repeatDoc(6, 1000, 5000), repeatDoc(6, 2000, 5000))
	a := diff.Rows[0]
	if a.Store != "a" || !a.OpsPerSec.Significant || math.Abs(a.OpsPerSec.Delta-1) > 0.03 || math.Abs(a.OpsPerSec.P-0.0022) > 0.0001 {
		t.Errorf("a: %+v", a.OpsPerSec)
	}
	if !a.P99.Significant || a.P99.Delta > -0.45 {
		t.Errorf("a p99: %+v", a.P99)
	}
	if diff.Rows[1].OpsPerSec.Significant {
		t.Errorf("b did not change: %+v", diff.Rows[1].OpsPerSec)
	}
	// Six samples allow a 95% confidence interval of the median.
	if math.IsInf(a.OpsPerSec.Old.Lo, 0) || !strings.Contains(centerCell(a.OpsPerSec.Old, num), "±") {
		t.Errorf("no confidence interval with 6 samples: %+v", a.OpsPerSec.Old)
	}

	// Three repeats cannot show anything at α = 0.05, however large.
	few := Compare(repeatDoc(3, 1000, 5000), repeatDoc(3, 9000, 5000)).Rows[0].OpsPerSec
	if few.Significant || !few.TooFew || !strings.Contains(pCell(few, English), "too few samples") {
		t.Errorf("3 vs 3: %+v", few)
	}
	// A single run each: the same.
	one := Compare(repeatDoc(1, 1000, 5000), repeatDoc(1, 9000, 5000)).Rows[0].OpsPerSec
	if one.Significant || !one.TooFew {
		t.Errorf("1 vs 1: %+v", one)
	}
}

func TestMinUTestP(t *testing.T) {
	cases := []struct {
		n1, n2 int
		want   float64
	}{
		{3, 3, 0.1},                   // 2/20: never below 0.05
		{4, 4, 0.02857142857142857},   // 2/70: the smallest equal sizes that can
		{6, 6, 0.0021645021645021645}, // benchmath's own table agrees
		{1, 39, 0.05},                 // one sample needs 39 on the other side
		{0, 5, 1},
	}
	for _, c := range cases {
		if got := minUTestP(c.n1, c.n2); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("minUTestP(%d, %d) = %v, want %v", c.n1, c.n2, got, c.want)
		}
	}
}

func TestCompareReportsStoresInOneRunOnly(t *testing.T) {
	old, new := repeatDoc(1, 1, 1), repeatDoc(1, 1, 1)
	new.Stores[1].Label = "c"
	c := Compare(old, new)
	if len(c.Rows) != 1 || !slices.Equal(c.OnlyOld, []string{"b write"}) || !slices.Equal(c.OnlyNew, []string{"c write"}) {
		t.Fatalf("rows %d, only old %v, only new %v", len(c.Rows), c.OnlyOld, c.OnlyNew)
	}
}

// TestCSVRoundTrip parses the CSV back and finds every figure unchanged.
func TestCSVRoundTrip(t *testing.T) {
	docs := []*result.Document{richDoc(), varyDoc()}
	var b bytes.Buffer
	if err := writeCSV(&b, docs); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(recs[0], csvHeader) {
		t.Fatalf("header %v", recs[0])
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	i := 1
	for _, d := range docs {
		for _, s := range d.Stores {
			for _, p := range s.Phases {
				r := recs[i]
				i++
				f := func(name string) float64 {
					v, err := strconv.ParseFloat(r[col[name]], 64)
					if err != nil {
						t.Fatalf("row %d %s: %v", i, name, err)
					}
					return v
				}
				if r[col["store"]] != s.Label || r[col["op"]] != p.Op || r[col["variant"]] != variantString(s.Variant) ||
					r[col["run"]] != d.Started.Format(time.RFC3339Nano) || f("repeat") != float64(p.Repeat+1) {
					t.Fatalf("row %d names %v", i, r)
				}
				var lost int64
				for _, v := range p.Verify {
					lost += v.Lost
				}
				want := map[string]float64{
					"ops_per_s": p.OpsPerSec, "ops": float64(p.Ops), "elapsed_s": p.Elapsed, "mean_us": p.Latency.Mean,
					"p50_us": p.Latency.P50, "p99_us": p.Latency.P99, "p99_9_us": p.Latency.P999, "max_us": p.Latency.Max,
					"lost": float64(lost), "bytes_written": float64(p.BytesWritten), "finish_ratio": p.FinishRatio, "clients": float64(p.Clients),
				}
				// A phase with nothing to verify (a read) has no lost
				// figure: the cell is empty, as the table's is "-".
				if len(p.Verify) == 0 {
					delete(want, "lost")
					if r[col["lost"]] != "" || r[col["extra"]] != "" {
						t.Errorf("row %d lost %q, extra %q for a phase with nothing to verify, want empty", i, r[col["lost"]], r[col["extra"]])
					}
				}
				for name, want := range want {
					if got := f(name); got != want {
						t.Errorf("row %d %s = %v, want %v", i, name, got, want)
					}
				}
			}
		}
	}
	if i != len(recs) {
		t.Fatalf("%d rows, want %d", len(recs)-1, i-1)
	}
}

// TestCSVPlainNumbers checks that numbers are written in plain decimal
// notation, as the docs promise, however large or small, and still read
// back exactly.
func TestCSVPlainNumbers(t *testing.T) {
	d := repeatDoc(1, 1, 1)
	cases := []float64{1.1437285550895922e+06, 4e-05, 152345.6, 1e21, 1.5e-9, 0, 123456789.125}
	for _, v := range cases {
		d.Stores[0].Phases[0].OpsPerSec = v
		d.Stores[0].Phases[0].Latency.Mean = v
		var b bytes.Buffer
		if err := CSV(&b, d); err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(&b).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"ops_per_s", "mean_us"} {
			cell := recs[1][slices.Index(csvHeader, name)]
			back, err := strconv.ParseFloat(cell, 64)
			if strings.ContainsAny(cell, "eE") || err != nil || back != v {
				t.Errorf("%v written as %q in %s (reads back as %v, %v)", v, cell, name, back, err)
			}
		}
	}
}

// TestRunsAreToldApart writes three documents into one CSV and one
// benchstat stream: two started 200 ms apart, within one second, and the
// first again. Each must get a run name of its own, or benchstat -col
// kurabe-run pools two configurations.
func TestRunsAreToldApart(t *testing.T) {
	a, b := repeatDoc(1, 1000, 1000), repeatDoc(1, 2000, 2000)
	a.Started = time.Date(2026, 11, 22, 16, 36, 52, 100e6, time.UTC)
	b.Started = a.Started.Add(200 * time.Millisecond)
	docs := []*result.Document{a, b, a}
	want := []string{"2026-11-22T16:36:52.1Z", "2026-11-22T16:36:52.3Z", "2026-11-22T16:36:52.1Z (2)"}

	var c bytes.Buffer
	if err := WriteTables(&c, "csv", English, docs...); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&c).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var runs []string
	for _, r := range recs[1:] {
		if !slices.Contains(runs, r[0]) {
			runs = append(runs, r[0])
		}
	}
	if !slices.Equal(runs, want) {
		t.Fatalf("CSV runs %q, want %q", runs, want)
	}
	if got, err := time.Parse(time.RFC3339Nano, runs[1]); err != nil || !got.Equal(b.Started) {
		t.Errorf("run %q does not read back as the start %v: %v", runs[1], b.Started, err)
	}

	var bs bytes.Buffer
	if err := WriteTables(&bs, "benchstat", English, docs...); err != nil {
		t.Fatal(err)
	}
	r := benchfmt.NewReader(&bs, "all.txt")
	perRun := map[string]int{}
	for r.Scan() {
		if rec, ok := r.Result().(*benchfmt.Result); ok {
			perRun[rec.GetConfig("kurabe-run")]++
		}
	}
	for _, id := range want {
		if perRun[id] != 2 { // two stores, one phase each
			t.Errorf("benchstat run %q has %d results, want 2 (all: %v)", id, perRun[id], perRun)
		}
	}

	var cmp bytes.Buffer
	if err := WriteCompare(&cmp, Compare(a, b), "text", English); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(cmp.String(), "old: kurabe 0.0.0-test · "+want[0]+" ·") || !strings.Contains(cmp.String(), "new: kurabe 0.0.0-test · "+want[1]+" ·") {
		t.Errorf("compare's header does not tell the runs apart:\n%s", cmp.String())
	}
}

// TestBenchstatParses reads the benchmark format back with benchfmt, the
// reader benchstat uses.
func TestBenchstatParses(t *testing.T) {
	d := richDoc()
	var b bytes.Buffer
	if err := Benchstat(&b, d); err != nil {
		t.Fatal(err)
	}
	r := benchfmt.NewReader(&b, "kurabe.txt")
	var n int
	units := map[string]bool{}
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.SyntaxError:
			t.Fatalf("syntax error: %v", rec)
		case *benchfmt.UnitMetadata:
			units[rec.Unit+" "+rec.Key+"="+rec.Value] = true
		case *benchfmt.Result:
			base, parts := rec.Name.Parts()
			if string(base) != "Kurabe" || len(parts) != 3 || !strings.HasPrefix(string(parts[0]), "/store=") || string(parts[2]) != "/clients=4" {
				t.Fatalf("name %s parts %q", rec.Name, parts)
			}
			if rec.GetConfig("workload") != "bbs" || rec.GetConfig("goos") != "linux" {
				t.Errorf("config %v", rec.Config)
			}
			want := []string{"sec/op", "ops/s", "p50-sec", "p99-sec", "p99.9-sec"}
			var got []string
			for _, v := range rec.Values {
				got = append(got, v.Unit)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("units %v, want %v", got, want)
			}
			p := d.Stores[n/6].Phases[n%6]
			// ops/s to two decimals, nanoseconds whole.
			if rec.Iters != int(p.Ops) || math.Abs(rec.Values[1].Value-p.OpsPerSec) > 0.005 || math.Abs(rec.Values[3].Value-p.Latency.P99/1e6) > 0.5e-9 {
				t.Errorf("result %d: %d iters, %v ops/s, p99 %v s; want %d, %v, %v", n, rec.Iters, rec.Values[1].Value, rec.Values[3].Value, p.Ops, p.OpsPerSec, p.Latency.P99/1e6)
			}
			n++
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 12 || !units["ops/s better=higher"] {
		t.Fatalf("%d results (want 12: 2 stores × 2 ops × 3 repeats), units %v", n, units)
	}
}

func TestBenchNameKeepsToBenchfmtRules(t *testing.T) {
	d := varyDoc()
	d.Stores[0].Info.Driver = "sq lite/x"
	name := benchName(d, d.Stores[0], d.Stores[0].Info.Driver, d.Stores[0].Phases[0])
	if name != "BenchmarkKurabe/store=sq_lite_x/journal_mode=delete/synchronous=off/op=write/clients=2" {
		t.Fatalf("name %q", name)
	}
}

func TestWriteCharts(t *testing.T) {
	docs := []*result.Document{richDoc(), varyDoc()}
	for _, format := range []string{"png", "svg"} {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			paths, err := WriteCharts(dir, format, English, docs...)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, p := range paths {
				names = append(names, filepath.Base(p))
			}
			want := []string{"run1-throughput", "run1-latency-write", "run1-latency-read-latest", "run1-timeline-write", "run1-timeline-read-latest",
				"run2-vary-write", "run2-latency-write", "run2-timeline-write"}
			for i := range want {
				want[i] += "." + format
			}
			if !slices.Equal(names, want) {
				t.Fatalf("charts %v, want %v", names, want)
			}
			for _, p := range paths {
				f, err := os.Open(p)
				if err != nil {
					t.Fatal(err)
				}
				if format == "png" {
					img, err := png.Decode(f)
					if err != nil {
						t.Fatalf("%s: %v", p, err)
					}
					// 525 pt wide at 192 dpi.
					if w := img.Bounds().Dx(); w != 1400 {
						t.Errorf("%s: %d px wide", p, w)
					}
				} else {
					dec := xml.NewDecoder(f)
					var elems int
					for {
						tok, err := dec.Token()
						if err == io.EOF {
							break
						}
						if err != nil {
							t.Fatalf("%s: not XML: %v", p, err)
						}
						if _, ok := tok.(xml.StartElement); ok {
							elems++
						}
					}
					if elems < 20 {
						t.Errorf("%s: only %d elements", p, elems)
					}
				}
				f.Close()
			}
		})
	}
	if _, err := WriteCharts(t.TempDir(), "gif", English, docs...); err == nil {
		t.Error("gif accepted")
	}
}

// TestChartColoursFollowStores checks that a store keeps its colour across
// the documents of a report, whatever their order of stores.
func TestChartColoursFollowStores(t *testing.T) {
	a, b := repeatDoc(1, 1, 1), repeatDoc(1, 1, 1)
	b.Stores[0], b.Stores[1] = b.Stores[1], b.Stores[0]
	st := newChartStyle(English, nil, []*result.Document{a, b})
	for _, chs := range charts(st, []*result.Document{a, b}) {
		for _, e := range chs[0].legend {
			if e.color != st.color(e.label) {
				t.Errorf("%s drawn in %v, assigned %v", e.label, e.color, st.color(e.label))
			}
		}
	}
	if st.color("a") == st.color("b") {
		t.Error("two stores share a colour")
	}
}

func TestHTMLIsSelfContained(t *testing.T) {
	var b bytes.Buffer
	if err := writeHTML(&b, English, nil, []*result.Document{richDoc(), varyDoc()}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	// Nothing that a browser would fetch: no scripts, stylesheets,
	// images, fonts or frames from elsewhere. (SVG's xmlns attributes are
	// names, not requests.)
	for _, bad := range []string{"<script", "<link", "<img", "<iframe", "src=", "@import", "url(", "href="} {
		if strings.Contains(page, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
	urls := regexp.MustCompile(`https?://[^"\s]+`).FindAllString(page, -1)
	for _, u := range urls {
		if u != "http://www.w3.org/2000/svg" && u != "http://www.w3.org/1999/xlink" {
			t.Errorf("page names %s", u)
		}
	}
	if n := strings.Count(page, "<svg"); n != 8 {
		t.Errorf("%d inline charts, want 8", n)
	}
	// Verification comes first in each run, and the lost write of the
	// second run is in red.
	run2 := page[strings.Index(page, `<section id="run2"`):]
	if strings.Index(run2, "Verification") > strings.Index(run2, "Results") {
		t.Error("verification is not first")
	}
	if !strings.Contains(run2, `class="verify bad"`) || !strings.Contains(run2, `<td class="num bad">LOST 1</td>`) {
		t.Error("lost write not marked red")
	}
	if strings.Contains(page[:strings.Index(page, `<section id="run2"`)], "verify bad") {
		t.Error("run 1 lost nothing but is marked bad")
	}
}

// TestEveryWordIsTranslated finds each key the reports look up (l.t, l.f,
// {{t ...}}, and say in the load workload's notes) and checks that the table holds it in both languages.
var countKeys = regexp.MustCompile(`\bl\.count(?:64)?\([^,]+, "([^"]+)", "([^"]+)"\)`)

func TestEveryWordIsTranslated(t *testing.T) {
	re := regexp.MustCompile(`(?:\bl\.t|\bl\.f|st\.l\.t|st\.l\.f|\{\{t) ?\(?"([^"]+)"`)
	files, _ := filepath.Glob("*.go")
	files = append(files, "assets/report.html.tmpl")
	keys := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			keys[m[1]] = true
		}
		// l.count(n, "one", "many") takes two keys.
		for _, m := range countKeys.FindAllStringSubmatch(string(b), -1) {
			keys[m[1]], keys[m[2]] = true, true
		}
	}
	// The load workload's notes arrive through a translator it calls say
	// (load.NotesIn), keyed by their English format.
	b, err := os.ReadFile("../workload/load/notes.go")
	if err != nil {
		t.Fatal(err)
	}
	sayKeys := regexp.MustCompile(`\bsay\("([^"]+)"`).FindAllStringSubmatch(string(b), -1)
	if len(sayKeys) < 5 {
		t.Fatalf("found only %d keys in the load notes; is the pattern still right?", len(sayKeys))
	}
	for _, m := range sayKeys {
		keys[m[1]] = true
	}
	if len(keys) < 40 {
		t.Fatalf("found only %d keys; is the pattern still right?", len(keys))
	}
	for k := range keys {
		w, ok := words[k]
		if !ok {
			t.Errorf("%q is not in the table", k)
			continue
		}
		if w[1] == "" {
			t.Errorf("%q has no Japanese", k)
		}
	}
	for k, w := range words {
		en := w[0]
		if en == "" {
			en = k
		}
		if strings.Count(en, "%") != strings.Count(w[1], "%") {
			t.Errorf("%q: the languages take different arguments", k)
		}
	}
}

func TestDefaultLang(t *testing.T) {
	cases := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{}, English},
		{map[string]string{"LANG": "ja_JP.UTF-8"}, Japanese},
		{map[string]string{"LANG": "en_US.UTF-8"}, English},
		{map[string]string{"LC_ALL": "ja_JP.UTF-8", "LANG": "en_US.UTF-8"}, Japanese}, // LC_ALL wins
		{map[string]string{"LC_ALL": "C", "LANG": "ja_JP.UTF-8"}, English},
		{map[string]string{"LC_MESSAGES": "ja_JP", "LANG": "C"}, Japanese},
	}
	for _, c := range cases {
		if got := DefaultLang(func(k string) string { return c.env[k] }); got != c.want {
			t.Errorf("%v: %s, want %s", c.env, got, c.want)
		}
	}
}

// TestNumbersAreTheSameInBothLanguages checks that only words change.
func TestNumbersAreTheSameInBothLanguages(t *testing.T) {
	var en, ja bytes.Buffer
	WriteTables(&en, "text", English, richDoc())
	WriteTables(&ja, "text", Japanese, richDoc())
	digits := regexp.MustCompile(`[0-9][0-9.,]*(µs|ms|s)?`)
	if a, b := digits.FindAllString(en.String(), -1), digits.FindAllString(ja.String(), -1); !slices.Equal(a, b) {
		t.Fatalf("numbers differ:\n%v\n%v", a, b)
	}
}

// TestSparseDocuments renders documents with little in them: no series,
// no environment, a failed store, no stores at all, a phase with no
// successful operation. Nothing may panic, and every format writes.
func TestSparseDocuments(t *testing.T) {
	failed := seeded()
	failed.Stores = append(failed.Stores, result.Store{Label: "broken", Error: "cannot open"})
	failed.Stores[0].Phases[1].Ops, failed.Stores[0].Phases[1].Latency, failed.Stores[0].Phases[1].OpsPerSec = 0, result.Latency{}, 0
	docs := map[string]*result.Document{
		"seeded": seeded(), "failed store": failed,
		"empty": {Schema: result.Schema, Run: result.RunConfig{Workload: "bbs"}},
	}
	for name, d := range docs {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := writeHTML(&b, Japanese, nil, []*result.Document{d}); err != nil {
				t.Fatal(err)
			}
			if _, err := writeCharts(t.TempDir(), "svg", English, nil, []*result.Document{d}); err != nil {
				t.Fatal(err)
			}
			for _, f := range FormatNames() {
				if err := WriteTables(&b, f, English, d); err != nil {
					t.Fatal(f, err)
				}
			}
			if err := WriteCompare(&b, Compare(d, d), "text", English); err != nil {
				t.Fatal(err)
			}
		})
	}
	var b bytes.Buffer
	writeHTML(&b, English, nil, []*result.Document{failed})
	if !strings.Contains(b.String(), "broken: FAILED: cannot open") || !strings.Contains(b.String(), `class="verify bad"`) {
		t.Error("failed store not reported in the verification box")
	}
}

// levelsDoc is a run of sqlite writes at client levels (-c 1,2,4) with
// repeats: ops/s is 1000 × the level, so that merging levels shows.
func levelsDoc(levels []int, repeats int) *result.Document {
	d := &result.Document{Schema: result.Schema, Kurabe: "0.0.0-test", Started: time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC),
		Run: result.RunConfig{Workload: "bbs", Ops: []string{"write"}, Clients: levels[0], Levels: levels, Count: 100, Repeat: repeats}}
	s := result.Store{Label: "sqlite"}
	rng := rand.New(rand.NewPCG(3, 3))
	for rep := range repeats {
		for _, c := range levels {
			ops := 1000 * float64(c) * (1 + 0.01*float64(rep))
			s.Phases = append(s.Phases, result.Phase{Op: "write", Repeat: rep, Clients: c, Ops: 100, OpsPerSec: ops,
				Latency: latencies(rng, 100, 1e9/ops)})
		}
	}
	d.Stores = []result.Store{s}
	return d
}

// TestLevelsAreNotRepeats: compare, the side-by-side table and the charts
// pair phases by client level as well as store and operation; -c 1,2,4
// against -c 1,2,4,8 --repeat 2 gives three rows of 1+2 samples each, c=8
// listed as new only, and no figure mixes levels.
func TestLevelsAreNotRepeats(t *testing.T) {
	old, new := levelsDoc([]int{1, 2, 4}, 1), levelsDoc([]int{1, 2, 4, 8}, 2)
	c := Compare(old, new)
	var got []string
	for _, r := range c.Rows {
		got = append(got, r.Store+" "+r.Op)
		if r.OpsPerSec.Old.N != 1 || r.OpsPerSec.New.N != 2 {
			t.Errorf("%s %s: n=%d+%d, want 1+2", r.Store, r.Op, r.OpsPerSec.Old.N, r.OpsPerSec.New.N)
		}
		// Each level's old figure is 1000 × the level, and so is the new
		// median within 1%.
		if want := 1000 * float64(r.Clients); r.OpsPerSec.Old.Median != want || math.Abs(r.OpsPerSec.New.Median/want-1) > 0.01 {
			t.Errorf("%s %s: old %v new %v, want about %v", r.Store, r.Op, r.OpsPerSec.Old.Median, r.OpsPerSec.New.Median, want)
		}
	}
	if want := []string{"sqlite write c=1", "sqlite write c=2", "sqlite write c=4"}; !slices.Equal(got, want) {
		t.Errorf("rows %q, want %q", got, want)
	}
	if len(c.OnlyOld) != 0 || !slices.Equal(c.OnlyNew, []string{"sqlite write c=8"}) {
		t.Errorf("only old %q, only new %q", c.OnlyOld, c.OnlyNew)
	}
	var b bytes.Buffer
	if err := WriteCompare(&b, c, "text", English); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "only in new: sqlite write c=8") {
		t.Errorf("compare does not list c=8 as new only:\n%s", b.String())
	}

	// One client level on each side, the same: paired, without a level
	// in the name. Different levels on each side: nothing in common.
	if c := Compare(levelsDoc([]int{4}, 1), levelsDoc([]int{4}, 2)); len(c.Rows) != 1 || c.Rows[0].Op != "write" {
		t.Errorf("-c 4 against -c 4: %+v", c)
	}
	if c := Compare(levelsDoc([]int{2}, 1), levelsDoc([]int{4}, 1)); len(c.Rows) != 0 || !slices.Equal(c.OnlyOld, []string{"sqlite write c=2"}) {
		t.Errorf("-c 2 against -c 4: %+v", c)
	}

	// The side-by-side table: a row per level, each the median of its
	// own repeats.
	tbl := sideBySide([]*result.Document{old, new}, English)
	var rows []string
	for _, r := range tbl.Rows {
		rows = append(rows, r[1].Text+" "+r[2].Text+" "+r[3].Text)
	}
	if want := []string{"write c=1 1,000 1,005", "write c=2 2,000 2,010", "write c=4 4,000 4,020", "write c=8 - 8,040"}; !slices.Equal(rows, want) {
		t.Errorf("side by side %q, want %q", rows, want)
	}

	// The throughput chart: a group per level, each bar the median of
	// that level's repeats alone (whiskers within 1%).
	chs := throughputChart(newChartStyle(English, nil, []*result.Document{new}), new)
	if len(chs) != 1 {
		t.Fatalf("%d throughput charts", len(chs))
	}
	// Each bar is labelled with its median.
	svg, err := chs[0].SVG()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{">write c=1<", ">write c=8<", ">1,005<", ">2,010<", ">4,020<", ">8,040<"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("throughput chart lacks %q", want)
		}
	}
	// Latency charts, one per level.
	var names []string
	for _, ch := range latencyCharts(newChartStyle(English, nil, []*result.Document{new}), new) {
		names = append(names, ch.Name)
	}
	if want := []string{"latency-write-c1", "latency-write-c2", "latency-write-c4", "latency-write-c8"}; !slices.Equal(names, want) {
		t.Errorf("latency charts %q, want %q", names, want)
	}
}

// TestWhatRanNamesLevelsAndCommand: the HTML report's "what ran" gives a
// run's client levels (-c 1,2,4), not the first alone, and the command
// line as typed, with its command's name, so that it runs when pasted; a
// document that recorded the line without the name (as kurabe once did)
// gets it from what the document holds.
func TestWhatRanNamesLevelsAndCommand(t *testing.T) {
	get := func(kv [][2]string, key string) string {
		for _, p := range kv {
			if p[0] == key {
				return p[1]
			}
		}
		return ""
	}
	d := levelsDoc([]int{1, 2, 4}, 1)
	d.Command = []string{"run", "--store", "sqlite:", "-c", "1,2,4"}
	kv := whatRan(d, tr(English))
	if got := get(kv, "clients"); got != "1,2,4" {
		t.Errorf("clients %q, want 1,2,4", got)
	}
	if got := get(kv, "command"); got != "kurabe run --store sqlite: -c 1,2,4" {
		t.Errorf("command %q", got)
	}
	if got := get(whatRan(levelsDoc([]int{4}, 1), tr(English)), "clients"); got != "4" {
		t.Errorf("one level: clients %q, want 4", got)
	}
	for _, tc := range []struct {
		workload string
		want     string
	}{
		{"bbs", "kurabe run --store sqlite: -c 1,2,4"},
		{"replay", "kurabe replay --store sqlite: -c 1,2,4"},
	} {
		old := levelsDoc([]int{1, 2, 4}, 1)
		old.Run.Workload = tc.workload
		old.Command = []string{"--store", "sqlite:", "-c", "1,2,4"}
		if got := get(whatRan(old, tr(English)), "command"); got != tc.want {
			t.Errorf("an old %s document: command %q, want %q", tc.workload, got, tc.want)
		}
	}
	var b bytes.Buffer
	if err := WriteHTML(&b, English, d); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "kurabe run --store sqlite: -c 1,2,4") || !strings.Contains(b.String(), "<dd>1,2,4</dd>") {
		t.Errorf("the HTML report lacks the command or the levels")
	}
}

// TestClientChartTakesMedians: the clients-OP chart puts each level at the
// median of its repeats, as the throughput chart and the side-by-side
// table do (it took the first repeat alone, unsaid), and its caption says
// so.
func TestClientChartTakesMedians(t *testing.T) {
	d := levelsDoc([]int{1, 2, 4}, 3) // ops/s 1000 × level × 1.00, 1.01, 1.02
	pts := levelPoints(d.Stores[0], "write")
	var got []float64
	for _, pt := range pts[0] {
		got = append(got, pt.Y)
	}
	if want := []float64{1010, 2020, 4040}; !slices.Equal(got, want) {
		t.Errorf("ops/s at each level %v, want the medians %v", got, want)
	}
	chs := clientCharts(newChartStyle(English, nil, []*result.Document{d}), d)
	if len(chs) != 1 || chs[0].Caption != "each point the median of that level's repeats" {
		t.Fatalf("%d charts, caption %q", len(chs), chs[0].Caption)
	}
	// The ops/s panel reaches 10% above the highest point: 4,040, the
	// median at 4 clients, not 4,000, the first repeat's.
	if y := chs[0].plots[0].Y.Max; math.Abs(y-4040*1.1) > 1e-6 {
		t.Errorf("the ops/s panel tops at %v, want %v", y, 4040*1.1)
	}
	if chs := clientCharts(newChartStyle(English, nil, nil), levelsDoc([]int{1, 2}, 1)); len(chs) != 1 || chs[0].Caption != "" {
		t.Errorf("without repeats: a caption %q", chs[0].Caption)
	}
}

// ShellJoin's line, read back by a shell, gives the same arguments: the
// HTML report's command line is there to paste and run again.
func TestShellJoinRoundTrips(t *testing.T) {
	args := []string{"run", "--store", "sqlite:?journal_mode=wal&synchronous=off", "--category", "a b", "--text", "it's", "-n", "50", "", "$HOME", "`x`", "日本", "--store=postgres://u:xxxxx@db/app"}
	line := ShellJoin(args)
	got, err := exec.Command("sh", "-c", "printf '%s\\0' "+line).Output()
	if err != nil {
		t.Fatalf("sh read %q: %v", line, err)
	}
	words := strings.Split(strings.TrimSuffix(string(got), "\x00"), "\x00")
	if !slices.Equal(words, args) {
		t.Errorf("ShellJoin(%q) = %s, read back as %q", args, line, words)
	}
	if want := "run --store 'sqlite:?journal_mode=wal&synchronous=off' --category 'a b'"; !strings.HasPrefix(line, want) {
		t.Errorf("ShellJoin = %s, want it to begin %s", line, want)
	}
}

// TestNotStartedStoreIsTranslated checks the line of a store an interrupt
// kept from starting: its target, which kurabe wrote, is in the report's
// language.
func TestNotStartedStoreIsTranslated(t *testing.T) {
	d := richDoc()
	d.Stores[1].Info = store.Info{Driver: "sqlite", Target: result.NotStarted}
	for lang, want := range map[string]string{English: "store sqlite: not started: interrupted", Japanese: "ストア sqlite: 未開始: 中断されました"} {
		if got := summary(d, tr(lang)); !slices.Contains(got, want) {
			t.Errorf("%s: %q, want a line %q", lang, got, want)
		}
	}
}

// TestVerificationLeadsWithAFailure checks the HTML report's verification
// of runs in which a store failed before any phase wrote: the failure, with
// the store's error, comes first, and "nothing to verify" is said only
// when some store ran.
func TestVerificationLeadsWithAFailure(t *testing.T) {
	const refused = "postgres: cannot connect to postgres://app@127.0.0.1:1/app: connection refused"
	failed := result.Store{Label: "postgres", Error: refused}
	reads := result.Store{Label: "sqlite", Phases: []result.Phase{{Op: "read-latest", Clients: 1, Ops: 10, OpsPerSec: 100}}}
	for _, c := range []struct {
		name   string
		stores []result.Store
		want   []string
	}{
		{"the only store could not connect", []result.Store{failed}, []string{"postgres: FAILED: " + refused}},
		{"one store failed, one only read", []result.Store{failed, reads}, []string{"postgres: FAILED: " + refused, "No phase wrote, so there was nothing to verify."}},
		{"no store failed, none wrote", []result.Store{reads}, []string{"No phase wrote, so there was nothing to verify."}},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := &result.Document{Run: result.RunConfig{Workload: "bbs", Ops: []string{"read-latest"}, Clients: 1}, Stores: c.stores}
			v := verification(d, tr(English))
			if !slices.Equal(v.Lines, c.want) {
				t.Errorf("lines %q, want %q", v.Lines, c.want)
			}
			if bad := c.stores[0].Error != ""; bad != (v.Class == "bad") {
				t.Errorf("class %q", v.Class)
			}
		})
	}
}
