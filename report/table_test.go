package report

import (
	"bytes"
	"flag"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
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
		// Spellings of one value that real runs read back.
		{"1000ms", "1s", true}, {"300s", "5min", true}, {"60s", "1min", true}, {"1.0", "1", true},
		{"utf8", "utf8mb3", true}, {"8kB", "8192", true},
		// A number asked, a name read back: not told apart, so not called
		// different (SQLite's synchronous=1 is normal).
		{"1", "normal", true}, {"on", "pglz", true},
		// Different values of one kind still are.
		{"1e2", "100000000", false}, {"Compressed", "Page", false}, {"1s", "2s", false},
	}
	for _, c := range cases {
		if sameSetting(c.asked, c.got) != c.same {
			t.Errorf("sameSetting(%q, %q) != %v", c.asked, c.got, c.same)
		}
	}
}

// A variant whose store failed before any phase ran shows FAILED and no
// error or lost count: nothing ran to count or verify.
func TestMatrixFailedVariantCountsNothing(t *testing.T) {
	d := &result.Document{Run: result.RunConfig{Ops: []string{"write"}, Vary: []result.Axis{{Name: "row_format", Values: []string{"DYNAMIC", "PAGE"}}}},
		Stores: []result.Store{
			{Label: "a", Variant: []result.Setting{{Name: "row_format", Value: "DYNAMIC"}}, Info: store.Info{Driver: "mariadb"},
				Phases: []result.Phase{{Op: "write", OpsPerSec: 100, Verify: []result.Verify{{Table: "posts", Acked: 5, After: 5}}}}},
			{Label: "b", Variant: []result.Setting{{Name: "row_format", Value: "PAGE"}}, Info: store.Info{Driver: "mariadb"}, Error: "cannot create table"},
		}}
	header, rows, _ := table(d, English)
	last := len(header) - 1
	if rows[0][last-1] != "0" || rows[0][last] != "0" {
		t.Errorf("the variant that ran: errors %q, lost %q", rows[0][last-1], rows[0][last])
	}
	if !slices.Contains(rows[1], "FAILED") || rows[1][last-1] != "-" || rows[1][last] != "-" {
		t.Errorf("the failed variant: %q", rows[1])
	}
}

// A variant's lost cell keeps an earlier phase's LOST when a later phase
// only had writes whose answer was lost: the unknown cell of the later
// phase had replaced it, and the table said 0 where the notes said LOST.
func TestMatrixLostOutranksUnknown(t *testing.T) {
	d := &result.Document{Run: result.RunConfig{Ops: []string{"write", "mix"}, Vary: []result.Axis{{Name: "journal_mode", Values: []string{"wal"}}}},
		Stores: []result.Store{
			{Label: "a", Variant: []result.Setting{{Name: "journal_mode", Value: "wal"}}, Info: store.Info{Driver: "sqlite"},
				Phases: []result.Phase{
					{Op: "write", OpsPerSec: 100, Verify: []result.Verify{{Table: "posts", Acked: 5, After: 2, Lost: 3}}},
					{Op: "mix", OpsPerSec: 100, Verify: []result.Verify{{Table: "posts", Acked: 5, After: 6, Unknown: 2, UnknownStored: 1}}},
				}},
		}}
	header, rows, _ := table(d, English)
	if got := rows[0][len(header)-1]; got != "LOST 3" {
		t.Errorf("lost cell %q, want LOST 3", got)
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

// TestStoreLinesDoNotPretend: the data directory is named only when a store
// lived in it; with --repeat a path in it is said to be the last repeat's;
// a kurabe http result shows the server's version, not kurabe's client.
func TestStoreLinesDoNotPretend(t *testing.T) {
	base := func(specs ...string) *result.Document {
		d := &result.Document{Run: result.RunConfig{Ops: []string{"write"}, Clients: 1, Dir: "/tmp/kurabe-d"}}
		for i, sp := range specs {
			target := strings.TrimPrefix(sp[strings.Index(sp, ":")+1:], "//")
			if target == "" {
				target = "/tmp/kurabe-d/" + strconv.Itoa(i+1) + "-sqlite/kurabe.db"
			}
			d.Stores = append(d.Stores, result.Store{Label: sp, Spec: sp, Info: store.Info{Driver: sp[:strings.Index(sp, ":")], Target: target}})
		}
		return d
	}
	cases := []struct {
		name string
		d    *result.Document
		want []string // lines of the summary, after the first
	}{
		// Every store had a path of its own: the data directory held nothing.
		{"paths", base("sqlite:/srv/a.db", "file:/srv/b"), []string{"store sqlite:/srv/a.db: /srv/a.db", "store file:/srv/b: /srv/b"}},
		// --isolate with paths: the clients' databases went beside them.
		{"isolate with paths", func() *result.Document {
			d := base("sqlite:/srv/a.db", "file:/srv/b/")
			d.Run.Isolate, d.Run.Clients = true, 2
			return d
		}(),
			[]string{"store sqlite:/srv/a.db: /srv/a.db (--isolate: the clients' databases beside it: a_c1.db … a_c2.db)", "store file:/srv/b/: /srv/b/"}},
		// --isolate without a path: the clients' databases went beside
		// the store's in its directory, and the line says so.
		{"isolate without a path", func() *result.Document {
			d := base("sqlite:")
			d.Run.Isolate, d.Run.Clients, d.Run.Levels = true, 1, []int{1, 3}
			return d
		}(), []string{"store sqlite:: /tmp/kurabe-d/1-sqlite/kurabe.db (--isolate: the clients' databases beside it: kurabe_c1.db … kurabe_c3.db)", "data /tmp/kurabe-d (removed)"}},
		// One store lived in it.
		{"one without a path", base("sqlite:/srv/a.db", "sqlite:"),
			[]string{"store sqlite:/srv/a.db: /srv/a.db", "store sqlite:: /tmp/kurabe-d/2-sqlite/kurabe.db", "data /tmp/kurabe-d (removed)"}},
		// A managed server's data directory is inside it.
		{"managed", base("postgres:managed"), []string{"store postgres:managed: managed", "data /tmp/kurabe-d (removed)"}},
		// A result without store specs (an older one): named, to be safe.
		{"no spec", func() *result.Document { d := base("sqlite:/srv/a.db"); d.Stores[0].Spec = ""; return d }(),
			[]string{"store sqlite:/srv/a.db: /srv/a.db", "data /tmp/kurabe-d (removed)"}},
		// --repeat: the path in the data directory is the last repeat's;
		// a path of its own is every repeat's.
		{"repeats", func() *result.Document { d := base("sqlite:", "sqlite:/srv/a.db"); d.Run.Repeat = 3; return d }(),
			[]string{"store sqlite:: /tmp/kurabe-d/1-sqlite/kurabe.db (the last repeat's; each repeat had its own)", "store sqlite:/srv/a.db: /srv/a.db", "data /tmp/kurabe-d (removed)"}},
		// --repeat: a managed server's address is the last repeat's, each
		// repeat having started a server of its own; a server of your
		// own is every repeat's.
		{"repeats of managed servers", func() *result.Document {
			d := base("postgres:managed", "mariadb:managed", "postgres://u@h:5432/db")
			d.Stores[0].Info.Target, d.Stores[1].Info.Target = "managed 127.0.0.1:41234", "managed 127.0.0.1:41235"
			d.Run.Repeat = 2
			return d
		}(), []string{"store postgres:managed: managed 127.0.0.1:41234 (the last repeat's; each repeat had its own)",
			"store mariadb:managed: managed 127.0.0.1:41235 (the last repeat's; each repeat had its own)",
			"store postgres://u@h:5432/db: u@h:5432/db", "data /tmp/kurabe-d (removed)"}},
		// --repeat --via-http: each repeat put a kurabe serve of its own,
		// on a loopback port of its own, in front of its store.
		{"repeats via http", func() *result.Document {
			d := base("sqlite:", "sqlite:")
			d.Stores[1].Label, d.Stores[1].Via, d.Stores[1].Info.Driver, d.Stores[1].Info.Target = "sqlite via http", "http", "http", "http://127.0.0.1:41236"
			d.Run.Repeat = 2
			return d
		}(), []string{"store sqlite:: /tmp/kurabe-d/1-sqlite/kurabe.db (the last repeat's; each repeat had its own)",
			"store sqlite via http: http://127.0.0.1:41236 (the last repeat's; each repeat had its own)", "data /tmp/kurabe-d (removed)"}},
		// MariaDB's sizes read back in bytes are shown in MiB or GiB;
		// its page size and SQLite's sizes stay as they are.
		{"sizes", func() *result.Document {
			d := base("mariadb://u@h:3306/db", "sqlite:/srv/a.db")
			d.Stores[0].Info.Options = map[string]string{"innodb_buffer_pool_size": "134217728", "innodb_log_file_size": "1610612736", "innodb_page_size": "16384", "max_allowed_packet": "1000"}
			d.Stores[1].Info.Options = map[string]string{"page_size": "4194304"}
			return d
		}(), []string{"store mariadb://u@h:3306/db: u@h:3306/db · innodb_buffer_pool_size=128MiB innodb_log_file_size=1.5GiB innodb_page_size=16384 max_allowed_packet=1000", "store sqlite:/srv/a.db: /srv/a.db · page_size=4194304"}},
		// kurabe http: no data directory at all, and the server's version.
		{"kurabe http", func() *result.Document {
			d := httpURLs()
			d.Stores[0].Info.Version = "kurabe lean HTTP/1.1"
			d.Stores[0].Info.Options = map[string]string{"client": "lean"}
			return d
		}(), []string{"store http: http://127.0.0.1:3001 (http nginx/1.22.1) · client=lean"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Summary(c.d)[1:]
			if !slices.Equal(got, c.want) {
				t.Errorf("summary\n%q\nwant\n%q", got, c.want)
			}
		})
	}
}

// TestReportOfKurabeHTTP: kurabe report prints a kurabe http result as
// kurabe http did (a table per URL), not as a store's phases; CSV and
// benchstat keep their one row per phase.
func TestReportOfKurabeHTTP(t *testing.T) {
	d := httpURLs()
	d.Stores[0].Info.Version = "kurabe lean HTTP/1.1"
	for _, c := range []struct {
		format string
		own    func(io.Writer, string, *result.Document) error
	}{{"text", HTTPText}, {"markdown", HTTPMarkdown}} {
		for _, lang := range Langs {
			var got, want bytes.Buffer
			if err := WriteTables(&got, c.format, lang, d); err != nil {
				t.Fatal(err)
			}
			if err := c.own(&want, lang, d); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Errorf("%s %s:\n%s\nwant\n%s", c.format, lang, got.String(), want.String())
			}
		}
	}
	var b bytes.Buffer
	if err := writeHTML(&b, English, nil, []*result.Document{d}); err != nil {
		t.Fatal(err)
	}
	if page := b.String(); strings.Contains(page, "kurabe lean") || strings.Contains(page, "(removed)") || !strings.Contains(page, "<td>nginx/1.22.1</td>") {
		t.Error("the HTML report shows kurabe's client as the server's version, or a data directory")
	}
}

// TestHeaderSaysClientsThatRan: where a store refused some clients a
// session (a server's max_connections), the line that says what ran gives
// how many ran beside the number asked for, in both languages; with
// client levels, at the level that lost them.
func TestHeaderSaysClientsThatRan(t *testing.T) {
	doc := func(levels []int, ran map[string]int) *result.Document {
		d := &result.Document{Schema: result.Schema, Kurabe: "0.0.0-test", Seed: 1,
			Run: result.RunConfig{Workload: "bbs", Ops: []string{"write"}, Clients: levels[0], Count: 100}}
		if len(levels) > 1 {
			d.Run.Levels = levels
		}
		for _, label := range []string{"sqlite", "mariadb"} {
			s := result.Store{Label: label}
			for _, c := range levels {
				p := result.Phase{Op: "write", Clients: c, Ops: 100, OpsPerSec: 1000, FinishRatio: 1}
				if n, ok := ran[label+" "+strconv.Itoa(c)]; ok {
					p.Clients = n
					p.SessionErrors = []result.ErrorClass{{Class: "too-many-connections", Count: int64(c - n), First: "Too many connections"}}
				}
				s.Phases = append(s.Phases, p)
			}
			d.Stores = append(d.Stores, s)
		}
		return d
	}
	for _, c := range []struct {
		name   string
		d      *result.Document
		en, ja string // in the line that says what ran
		html   string // the HTML report's clients, in English
	}{
		{"every client ran", doc([]int{8}, nil), " · 8 clients · ", " · 8 クライアント · ", "8"},
		{"both stores ran 6 of 8", doc([]int{8}, map[string]int{"sqlite 8": 6, "mariadb 8": 6}), " · 8 clients (6 ran) · ", " · 8 クライアント (実行 6) · ", "8 (6 ran)"},
		{"one store ran 6 of 8", doc([]int{8}, map[string]int{"mariadb 8": 6}), " · 8 clients (as few as 6 ran) · ", " · 8 クライアント (実行は最少 6) · ", "8 (as few as 6 ran)"},
		{"levels: 6 of 8 ran", doc([]int{1, 8}, map[string]int{"sqlite 8": 6, "mariadb 8": 6}), " · clients 1,8 (c=8: 6 ran) · ", " · クライアント 1,8 (c=8: 実行 6) · ", "1,8 (c=8: 6 ran)"},
		{"levels: two short", doc([]int{1, 4, 8}, map[string]int{"mariadb 4": 3, "mariadb 8": 5, "sqlite 8": 5}),
			" · clients 1,4,8 (c=4: as few as 3 ran; c=8: 5 ran) · ", " · クライアント 1,4,8 (c=4: 実行は最少 3; c=8: 実行 5) · ", "1,4,8 (c=4: as few as 3 ran; c=8: 5 ran)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			for lang, want := range map[string]string{English: c.en, Japanese: c.ja} {
				if got := summary(c.d, tr(lang))[0]; !strings.Contains(got, want) {
					t.Errorf("%s: %q, want %q in it", lang, got, want)
				}
			}
			if got := whatRan(c.d, tr(English))[2]; got != [2]string{"clients", c.html} {
				t.Errorf("HTML: %q, want clients %q", got, c.html)
			}
		})
	}
}

// TestSummaryNamesTheOperations checks how the summary line names a
// workload's operations: listed; a sweep by its values; one operation of
// the workload's own name said as such, except a replay's.
func TestSummaryNamesTheOperations(t *testing.T) {
	sweep := func(ops ...string) []result.Store {
		var ps []result.Phase
		for _, op := range ops {
			ps = append(ps, result.Phase{Op: op, Sweep: "records"})
		}
		return []result.Store{{Label: "sqlite", Phases: ps}}
	}
	for _, c := range []struct {
		name string
		run  result.RunConfig
		st   []result.Store
		lang string
		want string
	}{
		{"several operations", result.RunConfig{Workload: "bbs", Ops: []string{"write", "read-all"}}, nil, English, "workload bbs write,read-all · "},
		{"one of the workload's name", result.RunConfig{Workload: "point", Ops: []string{"point"}}, nil, English, "workload point · op point · "},
		{"one of the workload's name, Japanese", result.RunConfig{Workload: "point", Ops: []string{"point"}}, nil, Japanese, "ワークロード point · 操作 point · "},
		{"a replay", result.RunConfig{Workload: "replay", Ops: []string{"replay"}}, nil, English, "workload replay · "},
		{"a sweep", result.RunConfig{Workload: "range", Ops: []string{"range 1", "range 100"}}, sweep("range 1", "range 100"), English, "workload range · records 1,100 · "},
		{"a sweep, Japanese", result.RunConfig{Workload: "range", Ops: []string{"range 1", "range 100"}}, sweep("range 1", "range 100"), Japanese, "ワークロード range · レコード 1,100 · "},
		{"a sweep's values not again as a setting", result.RunConfig{Workload: "range", Ops: []string{"range 1", "range 100"}, Params: map[string]string{"records": "1,100", "by": "key"}}, sweep("range 1", "range 100"), English, "workload range · records 1,100 · by=key · 1 client"},
		{"a setting of the sweep's name without a sweep", result.RunConfig{Workload: "crud", Ops: []string{"read"}, Params: map[string]string{"records": "10"}}, nil, English, "workload crud read · records=10 · "},
		{"the count, Japanese", result.RunConfig{Workload: "bbs", Ops: []string{"write"}, Count: 300}, nil, Japanese, " · 各操作 n=300 · "},
		{"the duration, Japanese", result.RunConfig{Workload: "bbs", Ops: []string{"write"}, Duration: result.Duration(2 * time.Second)}, nil, Japanese, " · 各操作 時間 2s · "},
		// A value with spaces is quoted, so the next setting is told
		// apart (before: "log_line_prefix=%m [%p] %c %q%u@%d  speed=1").
		{"a value with spaces quoted", result.RunConfig{Workload: "replay", Ops: []string{"replay"}, Params: map[string]string{"log_line_prefix": "%m [%p] %c %q%u@%d ", "speed": "1", "log": "it's.log"}}, nil, English, "log='it''s.log' log_line_prefix='%m [%p] %c %q%u@%d ' speed=1 · "},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.run.Clients = 1
			d := &result.Document{Kurabe: "0.0.0-test", Run: c.run, Stores: c.st}
			if got := summary(d, tr(c.lang))[0]; !strings.Contains(got, c.want) {
				t.Errorf("%q, want it to hold %q", got, c.want)
			}
		})
	}
}

// TestMatrixSaysSkipped checks a --vary table with a phase the store
// skipped: its ops/s column says skipped, and its skips are not the row's
// errors.
func TestMatrixSaysSkipped(t *testing.T) {
	d := varyDoc()
	d.Run.Ops = []string{"write", "update"}
	for i := range d.Stores {
		d.Stores[i].Phases = append(d.Stores[i].Phases, result.Phase{Op: "update", Clients: 2, Errors: 500,
			ErrorClasses: []result.ErrorClass{{Class: "skipped", Count: 500, First: "needs SQL"}}})
	}
	header, rows, _ := table(d, English)
	col := slices.Index(header, "update ops/s")
	errs := slices.Index(header, "errors")
	for _, r := range rows {
		if r[col] != "skipped" || r[errs] != "0" {
			t.Errorf("row %q: update %q, errors %q; want skipped, 0", r, r[col], r[errs])
		}
	}
}

// TestErrorsLeaveOutSkips checks a phase some of whose operations were
// skipped (ycsb A's updates on the file store): the errors column counts
// the failures only and says the skips after them, in the table and in a
// --vary table's row.
func TestErrorsLeaveOutSkips(t *testing.T) {
	skipped := result.ErrorClass{Class: "skipped", Count: 493, First: "ycsb update needs SQL"}
	missing := result.ErrorClass{Class: "missing", Count: 2, First: "no record"}
	for _, c := range []struct {
		name    string
		classes []result.ErrorClass
		lang    string
		want    string
	}{
		{"skips only", []result.ErrorClass{skipped}, English, "0 (+493 skipped)"},
		{"skips only, Japanese", []result.ErrorClass{skipped}, Japanese, "0 (+493 スキップ)"},
		{"skips and failures", []result.ErrorClass{skipped, missing}, English, "2 (+493 skipped)"},
		{"failures only", []result.ErrorClass{missing}, English, "2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var errs int64
			for _, e := range c.classes {
				errs += e.Count
			}
			p := result.Phase{Op: "A", Clients: 2, Ops: 507, Errors: errs, ErrorClasses: c.classes,
				Latency: result.Latency{Count: 507, Mean: 290}}
			d := &result.Document{Kurabe: "0.0.0-test", Run: result.RunConfig{Workload: "ycsb", Ops: []string{"A"}, Clients: 2},
				Stores: []result.Store{{Label: "file", Phases: []result.Phase{p}}}}
			header, rows, _ := table(d, tr(c.lang))
			if got := rows[0][slices.Index(header, tr(c.lang).t("errors"))]; got != c.want {
				t.Errorf("table: errors %q, want %q", got, c.want)
			}
			v := varyDoc()
			v.Run.Ops = []string{"A"}
			for i := range v.Stores {
				v.Stores[i].Phases = []result.Phase{p}
			}
			header, rows, _ = table(v, tr(c.lang))
			if got := rows[0][slices.Index(header, tr(c.lang).t("errors"))]; got != c.want {
				t.Errorf("--vary table: errors %q, want %q", got, c.want)
			}
		})
	}
}
