package report

import (
	"bytes"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"kurabe/hist"
	"kurabe/result"
	"kurabe/store"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// seeded builds a document from seeded random latencies: two stores, a
// failed verification, an error class and an interrupted phase.
func seeded() *result.Document {
	rng := rand.New(rand.NewPCG(1, 1))
	lat := func(scale float64) result.Latency {
		r := hist.NewRecorder()
		for range 5000 {
			r.Record(int64(rng.ExpFloat64() * scale))
		}
		var s hist.Snapshot
		r.AddTo(&s)
		return result.Summarize(&s)
	}
	return &result.Document{
		Schema: result.Schema, Kurabe: "0.0.0-test", Seed: 42,
		Run: result.RunConfig{Workload: "bbs", Ops: []string{"write", "read-latest"}, Clients: 4, Count: 5000,
			Warmup: result.Duration(2 * time.Second), Params: map[string]string{"latest": "100"}, Dir: "/tmp/kurabe-x"},
		Stores: []result.Store{
			{Label: "file", Info: store.Info{Driver: "file", Target: "/tmp/kurabe-x/1-file", Options: map[string]string{"sync": "none"}},
				Phases: []result.Phase{
					{Op: "write", OpsPerSec: 152345.6, Latency: lat(3000), FinishRatio: 1.04, Verify: []result.Verify{{Table: "posts", Acked: 5000, After: 5000}}},
					{Op: "read-latest", OpsPerSec: 48123, Latency: lat(40000), FinishRatio: 1.5},
				}},
			{Label: "sqlite", Info: store.Info{Driver: "sqlite", Version: "3.53.4", Target: "/tmp/kurabe-x/2-sqlite/kurabe.db", Options: map[string]string{"journal_mode": "wal"}},
				Phases: []result.Phase{
					{Op: "write", OpsPerSec: 950.25, Latency: lat(4e6), Errors: 3, FinishRatio: 7.25,
						ErrorClasses: []result.ErrorClass{{Class: "busy", Count: 3, First: "database is locked"}},
						Verify:       []result.Verify{{Table: "posts", Acked: 4997, Before: 0, After: 4990, Lost: 7}}},
					{Op: "read-latest", Interrupted: true, OpsPerSec: 12000, Latency: lat(2e5), FinishRatio: 1.1},
				}},
		},
		Interrupted: true,
	}
}

func TestGolden(t *testing.T) {
	for name, render := range Formats {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := render(&b, seeded()); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", name+".golden")
			if *update {
				os.WriteFile(path, b.Bytes(), 0o644)
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./report -update to create it)", err)
			}
			if !bytes.Equal(b.Bytes(), want) {
				t.Fatalf("%s output differs from %s:\n%s", name, path, b.String())
			}
		})
	}
}

func TestDurAndNum(t *testing.T) {
	cases := []struct {
		us   float64
		want string
	}{
		{0, "0"},
		{0.93, "0.93µs"},
		{12.345, "12.3µs"},
		{298, "298µs"},
		{1250, "1.25ms"},
		{99_999, "100ms"},  // rounds up into the next digit, not "100.0"
		{999_999, "1.00s"}, // and into the next unit
		{1_180_000, "1.18s"},
		{12_345_678, "12.3s"},
	}
	for _, c := range cases {
		if got := dur(c.us); got != c.want {
			t.Errorf("dur(%v) = %q, want %q", c.us, got, c.want)
		}
	}
	if got := num(1234567.8); got != "1,234,568" {
		t.Errorf("num = %q", got)
	}
}

func TestMatrixMarksSettingsThatDidNotApply(t *testing.T) {
	d := &result.Document{Run: result.RunConfig{Ops: []string{"write"}, Vary: []result.Axis{{Name: "innodb_page_size", Values: []string{"4k", "16k"}}}},
		Stores: []result.Store{
			{Label: "a", Variant: []result.Setting{{Name: "innodb_page_size", Value: "4k"}}, Info: store.Info{Driver: "mariadb", Options: map[string]string{"innodb_page_size": "4096"}},
				Phases: []result.Phase{{Op: "write", OpsPerSec: 100}}},
			{Label: "b", Variant: []result.Setting{{Name: "innodb_page_size", Value: "16k"}}, Info: store.Info{Driver: "mariadb", Options: map[string]string{"innodb_page_size": "4096"}},
				Phases: []result.Phase{{Op: "write", OpsPerSec: 90}}},
		}}
	_, rows, _ := table(d, English)
	if rows[0][3] != "4096" || rows[1][3] != "≠ 4096" {
		t.Fatalf("read-back cells %q and %q", rows[0][3], rows[1][3])
	}
	cases := []struct {
		asked, got string
		same       bool
	}{
		{"4k", "4096", true}, {"ON", "1", true}, {"wal", "WAL", true}, {"128M", "134217728", true},
		{"16k", "4096", false}, {"off", "1", false},
	}
	for _, c := range cases {
		if sameSetting(c.asked, c.got) != c.same {
			t.Errorf("sameSetting(%q, %q) != %v", c.asked, c.got, c.same)
		}
	}
}

// TestMatrixKeepsRepeatsAndLevels: a --vary run with -c 1,4 and --repeat 2
// shows a column per client level and a row per variant and repeat, each
// cell its own phase's figure (it showed the last level and repeat only),
// and the errors of exactly the phases in the row.
func TestMatrixKeepsRepeatsAndLevels(t *testing.T) {
	d := &result.Document{Run: result.RunConfig{Ops: []string{"write"}, Clients: 1, Levels: []int{1, 4}, Repeat: 2,
		Vary: []result.Axis{{Name: "sync", Values: []string{"none", "write"}}}}}
	for _, sync := range []string{"none", "write"} {
		s := result.Store{Label: "file?sync=" + sync, Variant: []result.Setting{{Name: "sync", Value: sync}},
			Info: store.Info{Driver: "file", Options: map[string]string{"sync": sync}}}
		for rep := range 2 {
			for _, c := range []int{1, 4} {
				// ops/s: 1000 for none, 10 for write; × the level; + the repeat.
				base := map[string]float64{"none": 1000, "write": 10}[sync]
				p := result.Phase{Op: "write", Clients: c, Repeat: rep, Ops: 100, OpsPerSec: base*float64(c) + float64(rep),
					Errors: int64(100*rep + c)}
				s.Phases = append(s.Phases, p)
			}
		}
		d.Stores = append(d.Stores, s)
	}
	header, rows, _ := table(d, English)
	want := [][]string{
		{"store", "sync", "write c=1 ops/s", "write c=4 ops/s", "sync (read back)", "errors", "lost"},
		{"file #1", "none", "1,000", "4,000", "none", "5", "0"},
		{"file #2", "none", "1,001", "4,001", "none", "205", "0"},
		{"file #1", "write", "10.0", "40.0", "write", "5", "0"},
		{"file #2", "write", "11.0", "41.0", "write", "205", "0"},
	}
	got := [][]string{header}
	for _, r := range rows {
		got = append(got, r)
	}
	if len(got) != len(want) {
		t.Fatalf("table\n%q\nwant\n%q", got, want)
	}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("row %d: %q, want %q", i, got[i], want[i])
		}
	}
	// One level, one repeat: the table as before, one row per variant.
	d.Run.Levels, d.Run.Repeat = nil, 0
	for i := range d.Stores {
		d.Stores[i].Phases = d.Stores[i].Phases[:1]
	}
	header, rows, _ = table(d, English)
	if header[2] != "write ops/s" || len(rows) != 2 || rows[0][0] != "file" || rows[0][2] != "1,000" || rows[0][4] != "1" {
		t.Errorf("one level, one repeat: %q %q", header, rows)
	}
}
