package report

import (
	"bytes"
	"encoding/csv"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"kurabe/result"
	"kurabe/store"
)

func writeCompare(t *testing.T, c *Comparison, lang string) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteCompare(&b, c, "text", lang); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// Whether a Mann–Whitney test can reach p ≤ 0.05 depends on both sample
// counts: 3 against 6 can (2/C(9,3) = 0.024), 3 against 3 cannot (0.1).
// The note said "with fewer than 4 samples per side the test cannot reach
// p<0.05" under every comparison, beside a significant p=0.024; it is said
// only where rows had too few to test, with their counts and the smallest
// p they allow.
func TestCompareTooFewNoteNamesTheCounts(t *testing.T) {
	cases := []struct {
		name         string
		old, new     int  // repeats a side
		untested     bool // rows too few to test, and the note about them
		wantInNote   string
		significance string
	}{
		// 3+6 reaches 0.024: tested, and nothing said about too few.
		{"3+6", 3, 6, false, "", "p=0.024 n=3+6"},
		// 6+3 the same, the other way round.
		{"6+3", 6, 3, false, "", "p=0.024 n=6+3"},
		// 3+3 cannot go below 0.1.
		{"3+3", 3, 3, true, "0.100 with n=3+3", "n=3+3 (too few samples)"},
		// 2+6: 2/C(8,2) = 0.071.
		{"2+6", 2, 6, true, "0.071 with n=2+6", "n=2+6 (too few samples)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := writeCompare(t, Compare(repeatDoc(c.old, 1000, 5000), repeatDoc(c.new, 3000, 5000)), English)
			if !strings.Contains(out, c.significance) {
				t.Errorf("want %q in:\n%s", c.significance, out)
			}
			said := strings.Contains(out, "the smallest p the test can give")
			if said != c.untested || strings.Contains(out, "fewer than 4 samples") {
				t.Errorf("rows too few to test: %v; the note says so: %v:\n%s", c.untested, said, out)
			}
			if c.untested && !strings.Contains(out, c.wantInNote) {
				t.Errorf("the note does not give the smallest p, %q:\n%s", c.wantInNote, out)
			}
			if !c.untested && strings.Contains(out, "(untested)") {
				t.Errorf("a row marked untested though the test can reach 0.05:\n%s", out)
			}
		})
	}
}

// replaySide is a replay result of n replays (pooled as repeats): the
// phase replay, taking secs each, one fingerprint that succeeds, one that
// fails every time, and one that fails in this side when failing is set.
func replaySide(n int, secs float64, failing bool) *result.Document {
	d := &result.Document{Schema: result.Schema, Kurabe: "0.0.0-test",
		Run: result.RunConfig{Workload: "replay", Ops: []string{"replay"}, Clients: 2, Count: 30}}
	st := result.Store{Label: "postgres", Info: store.Info{Driver: "postgres"}}
	for rep := range n {
		f := 1 + 0.01*float64(rep)
		ok := func(op string, us float64) result.Phase {
			return result.Phase{Op: op, Repeat: rep, Clients: 2, Ops: 10, Elapsed: secs * f, OpsPerSec: 10 / (secs * f),
				Latency: result.Latency{Count: 10, Mean: us * f, P50: us * f, P99: 2 * us * f}}
		}
		bad := result.Phase{Op: "select * from missing_table", Repeat: rep, Clients: 2, Errors: 10, Elapsed: secs * f,
			ErrorClasses: []result.ErrorClass{{Class: "other", Count: 10, First: `relation "missing_table" does not exist`}}}
		st.Phases = append(st.Phases, ok("replay", secs*1e6/30), ok("select ?", 100), bad)
		if failing {
			st.Phases = append(st.Phases, result.Phase{Op: "select ? + ?", Repeat: rep, Clients: 2, Errors: 5, Elapsed: secs * f})
		} else {
			st.Phases = append(st.Phases, ok("select ? + ?", 90))
		}
	}
	d.Stores = append(d.Stores, st)
	return d
}

// Two replays a side of four: the replay's time, said above the tables,
// had its change but no test (other rows have p=…); and a fingerprint
// whose every statement failed in both runs vanished without a word. The
// time line carries its p, as the rows do; the failed fingerprint is
// listed as failed in both, and one that failed in one run only is
// listed with that said.
func TestCompareReplayTimeTestedAndFailuresSaid(t *testing.T) {
	for _, lang := range []string{English, Japanese} {
		c := Compare(replaySide(4, 0.025, false), replaySide(4, 0.014, true))
		out := writeCompare(t, c, lang)
		want := map[string][]string{
			English: {
				"postgres: the replay took 0.025 s → 0.014 s: -44.00%, p=0.029 n=4+4",
				"failed in both runs, no operation succeeded, so nothing to compare: postgres select * from missing_table",
				"only in old: postgres select ? + ? (every operation failed in the new run)",
			},
			Japanese: {
				"postgres: リプレイの時間 0.025 s → 0.014 s: -44.00%、p=0.029 n=4+4",
				"両方の実行で失敗しました (成功した操作がなく、比較できません): postgres select * from missing_table",
				"旧のみ: postgres select ? + ? (新の実行ではすべての操作が失敗)",
			},
		}[lang]
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: want %q in:\n%s", lang, w, out)
			}
		}
	}
	// One replay a side: the time line says it could not be tested.
	out := writeCompare(t, Compare(replaySide(1, 0.025, false), replaySide(1, 0.014, false)), English)
	if !strings.Contains(out, "0.025 s → 0.014 s: -44.00% (untested), n=1+1 (too few samples)") {
		t.Errorf("one replay a side:\n%s", out)
	}
}

// An interrupt kept sqlite from starting in the old run (its store line
// says 未開始: 中断されました): compare listed every one of its settings
// as changed from nothing (busy_timeout - → 5000, …). It says sqlite did
// not run in the old run instead.
func TestCompareStoreNotStartedIsNotSettingsChange(t *testing.T) {
	old, new := repeatDoc(1, 1000, 5000), repeatDoc(1, 1000, 5000)
	opts := map[string]string{"busy_timeout": "5000", "cache_size": "-2000", "journal_mode": "delete"}
	old.Interrupted = true
	old.Stores = append(old.Stores, result.Store{Label: "sqlite", Info: store.Info{Driver: "sqlite", Target: result.NotStarted}})
	new.Stores = append(new.Stores, result.Store{Label: "sqlite", Info: store.Info{Driver: "sqlite", Target: "/tmp/k/kurabe.db", Options: opts},
		Phases: []result.Phase{{Op: "write", Ops: 10, OpsPerSec: 100, Latency: result.Latency{Count: 10, P99: 10}}}})
	for lang, want := range map[string]string{
		English:  "sqlite did not run in the old run: it was interrupted before the store started",
		Japanese: "sqlite は旧の実行では動いていません: ストアの開始前に中断されたため",
	} {
		out := writeCompare(t, Compare(old, new), lang)
		if !strings.Contains(out, want) || strings.Contains(out, "busy_timeout") {
			t.Errorf("%s: want %q and no settings listed:\n%s", lang, want, out)
		}
	}
}

// loadRun is a load run of rows rows per data set: each way one operation
// (the whole data set) taking secs[way] seconds, verified, in each store.
func loadRun(rows int64, secs map[string]float64, stores ...string) *result.Document {
	d := &result.Document{Schema: result.Schema, Kurabe: "0.0.0-test",
		Run: result.RunConfig{Workload: "load", Ops: []string{"transaction", "bulk"}, Clients: 1, Count: 1,
			Params: map[string]string{"rows": strconv.FormatInt(rows, 10), "chunk_rows": strconv.FormatInt(rows, 10)}}}
	for _, label := range stores {
		s := result.Store{Label: label, Info: store.Info{Driver: label}}
		for _, way := range []string{"transaction", "bulk"} {
			s.Phases = append(s.Phases, result.Phase{Op: way, Clients: 1, Ops: 1, Elapsed: secs[way], OpsPerSec: 1 / secs[way],
				Latency: result.Latency{Count: 1, Mean: secs[way] * 1e6, P99: secs[way] * 1e6}, BytesWritten: 1,
				Verify: []result.Verify{{Table: "postal", Acked: rows, After: rows}}})
		}
		d.Stores = append(d.Stores, s)
	}
	return d
}

// Two load runs are compared by rows/s, not ops/s: one load operation is a
// whole data set, so its ops/s is about 1/time and moves with the data
// set's size. 3,000 rows in 25ms against 2,000 in 16.8ms is 40 → 59.6
// ops/s, +49%, at 120,000 → 119,048 rows/s, -0.79%.
func TestCompareLoadRunsByRows(t *testing.T) {
	old := loadRun(3000, map[string]float64{"transaction": 0.025, "bulk": 0.025}, "sqlite")
	new := loadRun(2000, map[string]float64{"transaction": 0.0168, "bulk": 0.0168}, "sqlite")
	c := Compare(old, new)
	if !c.RowsPerSec {
		t.Fatal("two load runs are not compared by rows/s")
	}
	for _, r := range c.Rows {
		if got, want := r.OpsPerSec.Old.Median, 120000.0; got != want {
			t.Errorf("%s old: %v, want %v rows/s", r.Op, got, want)
		}
		if got, want := r.OpsPerSec.Delta, 2000/0.0168/120000-1; math.Abs(got-want) > 1e-12 {
			t.Errorf("%s delta: %v, want %v (rows/s)", r.Op, got, want)
		}
	}
	for lang, want := range map[string][]string{
		English:  {"old rows/s", "new rows/s", "sqlite  bulk", "120,000", "119,048", "-0.79% (untested)"},
		Japanese: {"旧 行/秒", "新 行/秒", "-0.79% (未検定)"},
	} {
		out := writeCompare(t, c, lang)
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: no %q in:\n%s", lang, w, out)
			}
		}
		if strings.Contains(out, "ops/s") || strings.Contains(out, "+49") {
			t.Errorf("%s: ops/s compared:\n%s", lang, out)
		}
	}
	// A run of another workload keeps ops/s.
	if c := Compare(repeatDoc(1, 864, 5000), repeatDoc(1, 900, 5000)); c.RowsPerSec || !strings.Contains(writeCompare(t, c, English), "old ops/s") {
		t.Errorf("a bbs run compared by rows/s")
	}
}

// A load run's throughput is tabulated as rows/s wherever runs or
// variants are set side by side: the HTML report's table of several
// runs, the CSV (rows and rows_per_s beside ops_per_s), the benchstat
// lines and a --vary table. Its ops/s (40 against 59.5 here) would follow
// the data set's size.
func TestLoadRunsTabulateRows(t *testing.T) {
	old := loadRun(3000, map[string]float64{"transaction": 0.025, "bulk": 0.025}, "sqlite")
	new := loadRun(2000, map[string]float64{"transaction": 0.0168, "bulk": 0.0168}, "sqlite")
	old.Started, new.Started = time.Date(2026, 11, 23, 6, 12, 0, 0, time.UTC), time.Date(2026, 11, 23, 6, 13, 0, 0, time.UTC)
	bbs := repeatDoc(1, 864, 5000)

	// The side-by-side table: a load run's column is rows/s, another's ops/s.
	tb := sideBySide([]*result.Document{old, new, bbs}, English)
	if want := (row{"store", "op", "run 1 rows/s", "run 2 rows/s", "run 3 ops/s"}); !slices.Equal(tb.Header, want) {
		t.Errorf("side-by-side header %q, want %q", tb.Header, want)
	}
	for _, r := range tb.Rows {
		if r[0].Text == "sqlite" && (r[2].Text != "120,000" || r[3].Text != "119,048") {
			t.Errorf("side by side: %v, want 120,000 and 119,048 rows/s", r)
		}
	}
	var page bytes.Buffer
	if err := writeHTML(&page, Japanese, nil, []*result.Document{old, new}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"実行 1 行/秒", "load の実行は行/秒です", "120,000"} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("the HTML report's side-by-side table says no %q", want)
		}
	}

	// The CSV: rows and rows_per_s for a load run, empty for another.
	var b bytes.Buffer
	if err := writeCSV(&b, []*result.Document{old, bbs}); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	rows, perSec, op := slices.Index(recs[0], "rows"), slices.Index(recs[0], "rows_per_s"), slices.Index(recs[0], "op")
	if rows < 0 || perSec < 0 {
		t.Fatalf("no rows or rows_per_s column: %q", recs[0])
	}
	for _, r := range recs[1:] {
		want := [2]string{"", ""}
		if r[op] == "transaction" || r[op] == "bulk" {
			want = [2]string{"3000", "120000"}
		}
		if got := [2]string{r[rows], r[perSec]}; got != want {
			t.Errorf("CSV %s: rows, rows_per_s %q, want %q", r[op], got, want)
		}
	}

	// benchstat: rows/s beside ops/s, marked higher-is-better.
	b.Reset()
	if err := Benchstat(&b, old); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Unit rows/s better=higher", "/op=bulk/clients=1 1 25000000 ns/op 40.00 ops/s 120000.00 rows/s"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("benchstat: no %q in:\n%s", want, b.String())
		}
	}

	// A --vary table of a load run: a column of rows/s per way.
	vary := loadRun(3000, map[string]float64{"transaction": 0.025, "bulk": 0.05}, "sqlite", "sqlite2")
	vary.Run.Vary = []result.Axis{{Name: "journal_mode", Values: []string{"delete", "wal"}}}
	vary.Stores[0].Variant = []result.Setting{{Name: "journal_mode", Value: "delete"}}
	vary.Stores[1].Variant = []result.Setting{{Name: "journal_mode", Value: "wal"}}
	header, trs, _ := table(vary, English)
	col := slices.Index(header, "bulk rows/s")
	if col < 0 || slices.Contains(header, "bulk ops/s") {
		t.Fatalf("vary table header %q, want a bulk rows/s column", header)
	}
	for _, r := range trs {
		if r[col] != "60,000" {
			t.Errorf("vary row %q: bulk %q, want 60,000 rows/s", r, r[col])
		}
	}
}
