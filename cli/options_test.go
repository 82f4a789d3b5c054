package cli

import (
	"context"
	"errors"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kurabe/result"
	"kurabe/store"
)

// plan checks run's arguments as kurabe run does before anything runs.
func plan(t *testing.T, args ...string) (*runPlan, error) {
	t.Helper()
	return testApp().planRun(args, io.Discard)
}

// An option of another workload is refused before anything runs: it would
// be ignored, and the run would measure something other than what was
// asked. Options that several workloads share, and run's own, stay allowed.
func TestOptionsOfOtherWorkloadsAreRefused(t *testing.T) {
	refused := []struct {
		args []string
		want string
	}{
		// range reads the postal data set only: --dataset is load's and point's.
		{[]string{"-w", "range", "--dataset", "records"}, "--dataset does not apply to -w range, only to load, point (range's options: --by, --dataset-file, --records, --rows)"},
		// range sizes its data set with --rows, not --dataset-rows.
		{[]string{"-w", "range", "--dataset-rows", "100"}, "--dataset-rows does not apply to -w range"},
		// --records is range's; ycsb's is --recordcount.
		{[]string{"-w", "ycsb", "--records", "10"}, "--records does not apply to -w ycsb, only to range"},
		// crud always uses generated records.
		{[]string{"-w", "crud", "--dataset", "postal"}, "--dataset does not apply to -w crud"},
		{[]string{"-w", "point", "--scale", "2"}, "--scale does not apply to -w point, only to select-only, tpcb"},
		{[]string{"-w", "bbs", "--hit", "0.1"}, "--hit does not apply to -w bbs, only to point"},
		{[]string{"-w", "tpcb", "--prefill", "10"}, "--prefill does not apply to -w tpcb, only to bbs (tpcb's options: --scale)"},
		{[]string{"-w", "bbs", "--by", "offset"}, "--by does not apply to -w bbs, only to range"},
		{[]string{"--workload", "select-only", "--batch", "5"}, "--batch does not apply to -w select-only, only to load"},
		{[]string{"-w", "load", "--ycsb", "A"}, "--ycsb does not apply to -w load"},
	}
	for _, c := range refused {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			_, err := plan(t, c.args...)
			var ee *ExitError
			if !errors.As(err, &ee) || ee.Code != ExitUsage || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want a usage error with %q", err, c.want)
			}
		})
	}
	allowed := [][]string{
		// Options several workloads share reach each of them.
		{"-w", "point", "--dataset", "records", "--dataset-rows", "100", "--record-size", "10"},
		{"-w", "load", "--dataset", "records", "--dataset-rows", "100", "--records-seed", "3"},
		{"-w", "crud", "--record-size", "100", "--records-seed", "3"},
		{"-w", "range", "--records", "1,2", "--rows", "100", "--by", "offset"},
		{"-w", "select-only", "--scale", "2"},
		{"-w", "tpcb", "--scale", "2"},
		{"-w", "ycsb", "--recordcount", "100", "--ycsb", "B"},
		// run's own flags apply to every workload.
		{"-w", "ycsb", "-c", "1,2", "-d", "1s", "--ops", "A,B", "--think", "1ms", "--seed", "3", "--repeat", "2", "--mux", "loop"},
		{"-w", "bbs", "--latest", "5", "--prefill", "10", "-R", "100", "--warmup", "1s", "--isolate"},
		{"-w", "bbs", "--via-http", "--format", "markdown", "--dir", t.TempDir(), "--keep"},
	}
	for _, args := range allowed {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			if _, err := plan(t, args...); err != nil {
				t.Fatal(err)
			}
		})
	}
	// Without --store, an SQL workload runs on the default stores that
	// take SQL, not on the append-only file.
	for w, want := range map[string]int{"tpcb": 1, "select-only": 1, "bbs": 2} {
		p, err := plan(t, "-w", w)
		if err != nil {
			t.Errorf("-w %s without --store: %v", w, err)
		} else if len(p.specs) != want {
			t.Errorf("-w %s without --store: stores %v; want %d", w, p.specs, want)
		}
	}
}

// Every flag a workload takes reaches it through run's flag set: a value
// set there changes what the workload builds, as its Params show. Several
// workloads share some flags (records.Config's), and a flag another
// package registered first under the same name would take the value
// instead of the workload, which would then run with its default.
func TestEveryWorkloadTakesItsOwnFlags(t *testing.T) {
	sample := "../dataset/postal/testdata/ken_all_sample.csv"
	// A value other than the default for every flag a workload takes.
	values := map[string]string{
		"category": "other", "latest": "7", "mix": "write=30,read-all=70", "prefill": "10", "text-size": "16",
		"batch-delete": "1000", "batch-read": "40", "deletes": "10", "record-size": "100", "records-seed": "3",
		"batch": "50", "dataset": "records", "dataset-file": sample, "dataset-rows": "50", "load-chunk": "10",
		"hit": "0.5", "by": "offset", "records": "1,2", "rows": "50", "scale": "2",
		"distribution": "uniform", "field-size": "10", "fields": "3", "insert-order": "ordered", "recordcount": "100", "scan-max": "5", "ycsb": "B",
	}
	// Set before both builds: small data sets, and records (or ycsb's E,
	// which scans) where a flag only shows with them.
	context := map[string]string{"dataset-rows": "100", "rows": "100", "records": "1"}
	withRecords := map[string]bool{"record-size": true, "records-seed": true}
	build := func(name string, set map[string]string) map[string]string {
		t.Helper()
		var f runFlags
		rs := testApp().runFlagSet(&f, io.Discard)
		for fl, v := range set {
			if err := rs.fs.Set(fl, v); err != nil {
				t.Fatalf("%s: --%s %s: %v", name, fl, v, err)
			}
		}
		_, ops := rs.defs[name].Ops()
		w, err := rs.defs[name].Build(ops)
		if err != nil {
			t.Fatalf("%s %v: %v", name, set, err)
		}
		return w.Params()
	}
	var f runFlags
	rs := testApp().runFlagSet(&f, io.Discard)
	for name, flags := range rs.takes {
		for _, fl := range flags {
			if rs.generic[fl] {
				t.Errorf("%s's --%s has the name of one of run's own flags", name, fl)
				continue
			}
			v, ok := values[fl]
			if !ok {
				t.Errorf("%s takes --%s: give it a value here to check that the value reaches it", name, fl)
				continue
			}
			base := maps.Clone(context)
			if withRecords[fl] {
				base["dataset"] = "records"
			}
			if fl == "scan-max" {
				base["ycsb"] = "E" // the letter that scans
			}
			set := maps.Clone(base)
			set[fl] = v
			if before, after := build(name, base), build(name, set); maps.Equal(before, after) {
				t.Errorf("%s takes --%s, but --%s %s does not reach it: its settings stay %v", name, fl, fl, v, before)
			}
		}
	}
}

// What does not fit a workload's way of running is refused before
// anything runs, saying what to give instead.
func TestRunSettingsAWorkloadCannotTake(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name string
		args []string
		want string
	}{
		// A load ends when its data set does: no duration, no warm-up, and
		// no count but its chunks'.
		{"load for a duration", []string{"-w", "load", "--dataset-rows", "3000", "-d", "2s"}, "-d 2s does not fit -w load: a phase loads the data set once (3,000 rows, in one operation) and ends; size it with --dataset-rows"},
		{"load with a count", []string{"-w", "load", "-n", "5"}, "-n 5 does not fit -w load"},
		{"load in chunks with a count", []string{"-w", "load", "--dataset-rows", "3000", "--load-chunk", "1000", "-n", "4"}, "3 operations of 1,000 rows"},
		{"load with a warm-up", []string{"-w", "load", "--warmup", "1s"}, "--warmup 1s does not fit -w load"},
		{"load at a rate", []string{"-w", "load", "-R", "10"}, "-R 10 does not fit -w load"},
		{"several ycsb letters", []string{"-w", "ycsb", "--ycsb", "A,B"}, "give them as phases: --ops A,B,F"},
		// crud's delete and batch-delete follow from -n.
		{"crud for a duration", []string{"-w", "crud", "-d", "1s", "-c", "2"}, "-d 1s does not fit -w crud with delete"},
		{"crud with a warm-up", []string{"-w", "crud", "--warmup", "1s"}, "--warmup 1s does not fit -w crud with delete"},
		{"crud deletes more than it inserts", []string{"-w", "crud", "--deletes", "5000", "-n", "100"}, "--deletes 5000: the phases before delete leave 100 rows"},
		{"crud deletes leave batch-delete nothing", []string{"-w", "crud", "--deletes", "100", "-n", "100"}, "leave batch-delete none"},
		// Duplicates would make two rows with the same label.
		{"same level twice", []string{"-c", "2,2"}, "-c 2,2: 2 is given twice"},
		{"same op twice", []string{"--ops", "write,write"}, "--ops write,write: write is given twice"},
		// Output paths are checked before the run, not after it.
		{"json is a directory", []string{"--json", dir}, "--json " + dir + ": is a directory"},
		{"json in a missing directory", []string{"--json", filepath.Join(dir, "no", "x.json")}, "does not exist"},
		{"html in /proc", []string{"--html", "/proc/x.html"}, "does not take new files"},
		{"json and html the same file", []string{"--json", filepath.Join(dir, "r.json"), "--html", dir + "/./r.json"}, "name the same file"},
		{"dir under a file", []string{"--dir", filepath.Join(writeFile(t, dir), "sub")}, "is not a directory"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := plan(t, c.args...)
			var ee *ExitError
			if !errors.As(err, &ee) || ee.Code != ExitUsage || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want a usage error with %q", err, c.want)
			}
		})
	}
	for _, ok := range [][]string{
		{"-w", "load", "--dataset-rows", "3000", "--load-chunk", "1000", "-n", "3", "--store", "sqlite:"}, // the chunks' count
		// The file store takes a load from several clients when one
		// client runs the one chunk, or each has a file of its own.
		{"-w", "load", "--store", "file:", "-c", "4", "--dataset-rows", "300"},
		{"-w", "load", "--store", "file:", "-c", "2", "--dataset-rows", "300", "--load-chunk", "100", "--isolate"},
		{"-w", "load", "--store", "file:", "-c", "1", "--dataset-rows", "300", "--load-chunk", "100"},
		{"-w", "ycsb", "--ops", "D,E", "--store", "file:", "--insert-order", "ordered", "-c", "1"},
		{"-w", "crud", "--deletes", "99", "-n", "100"},
		{"-w", "crud", "--ops", "insert,delete", "--deletes", "100", "-n", "100"}, // no batch-delete after it
		{"-w", "crud", "--ops", "insert,read", "-n", "100"},
		// Without delete and batch-delete, crud runs for a duration.
		{"-w", "crud", "--ops", "insert,read,update", "-d", "1s", "--warmup", "500ms", "--store", "sqlite:", "-c", "2"},
	} {
		if _, err := plan(t, ok...); err != nil {
			t.Errorf("%v: %v", ok, err)
		}
	}
}

func writeFile(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "a-file")
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A scenario file may come after flags; they override it as flags after
// it do.
func TestScenarioAfterFlags(t *testing.T) {
	p := writeScenario(t, "run:\n  store: \"file:\"\n  n: 100\n")
	app := testApp()
	for _, args := range [][]string{
		{p, "-n", "5", "-q"},
		{"-n", "5", p, "-q"},
		{"-q", "-n", "5", p},
	} {
		path, rest, ok := app.findScenario(args)
		if !ok || path != p {
			t.Fatalf("%v: no scenario found", args)
		}
		sc, err := app.loadScenario(path)
		if err != nil {
			t.Fatal(err)
		}
		pl, err := app.planRun(sc.Steps[0].with(rest, nil, position{}).args, io.Discard)
		if err != nil || pl.cfg.Count != 5 {
			t.Fatalf("%v: count %v, err %v", args, pl, err)
		}
	}
}

// Flags given with a scenario replace the file's settings that contradict
// them: -d the file's n, -n its d, -R its think; a step's settings do the
// same to the common ones.
func TestScenarioOverridesContradictingSettings(t *testing.T) {
	cases := []struct {
		name, body string
		extra      []string
		check      func(*runPlan) bool
	}{
		{"d replaces n", "run:\n  n: 100\n", []string{"-d", "1s"}, func(p *runPlan) bool { return p.cfg.Duration == time.Second && p.cfg.Count == 0 }},
		{"n replaces d", "run:\n  d: 1s\n", []string{"-n", "7"}, func(p *runPlan) bool { return p.cfg.Duration == 0 && p.cfg.Count == 7 }},
		{"R replaces think", "run:\n  think: 1ms\n", []string{"-R", "50"}, func(p *runPlan) bool { return p.cfg.Rate == 50 && p.cfg.ThinkMax == 0 }},
		{"think replaces R", "run:\n  R: 50\n", []string{"--think", "1ms"}, func(p *runPlan) bool { return p.cfg.Rate == 0 && p.cfg.ThinkMax == time.Millisecond }},
		{"w replaces workload", "run:\n  workload: point\n", []string{"-w", "bbs"}, func(p *runPlan) bool { return p.f.workload == "bbs" }},
		{"a step's d replaces the common n", "run:\n  n: 100\nsteps:\n  - {d: 1s}\n", nil, func(p *runPlan) bool { return p.cfg.Duration == time.Second && p.cfg.Count == 0 }},
		{"a step's stores replace the common ones", "run:\n  store: [\"file:\", \"sqlite:\"]\nsteps:\n  - {store: \"sqlite:\"}\n", nil, func(p *runPlan) bool { return len(p.specs) == 1 }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			app := testApp()
			sc, err := app.loadScenario(writeScenario(t, c.body))
			if err != nil {
				t.Fatal(err)
			}
			p, err := app.planRun(sc.Steps[0].with(c.extra, nil, position{}).args, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if !c.check(p) {
				t.Fatalf("settings not overridden: %+v", p.cfg)
			}
		})
	}
}

// Every step is checked before any runs, and a bad setting in any step is
// reported at its line and column.
func TestScenarioStepsCheckedBeforeAnyRuns(t *testing.T) {
	cases := []struct {
		name, body, want string
	}{
		{"bad store option in step 2", "run:\n  n: 10\nsteps:\n  - {store: \"file:\"}\n  - {store: \"sqlite:?jurnal_mode=wal\"}\n", ":5:13: step 2: store sqlite:?jurnal_mode=wal: sqlite: unknown option \"jurnal_mode\""},
		{"zero clients in step 2", "run:\n  store: \"file:\"\n  n: 10\nsteps:\n  - {c: 1}\n  - {c: 0}\n", ":6:9: step 2: -c 0"},
		{"an option of another workload", "run:\n  store: \"file:\"\n  workload: range\n  dataset: records\n", ":4:12: --dataset does not apply to -w range"},
		{"an option the step's workload does not take", "run:\n  store: \"file:\"\n  prefill: 10\nsteps:\n  - {n: 5}\n  - {workload: point}\n", ":3:12: step 2: --prefill does not apply to -w point"},
		{"a workload's own check", "run:\n  store: \"sqlite:\"\n  workload: load\n  dataset-rows: 100\n  d: 1s\n", ":5:6: -d 1s does not fit -w load"},
		{"json into a directory", "run:\n  store: \"file:\"\n  json: /tmp\n", ":3:9: --json /tmp: is a directory"},
		{"json into a directory with steps", "run:\n  store: \"file:\"\n  n: 5\n  json: /tmp/\nsteps:\n  - {c: 1}\n  - {c: 2}\n", ":4:9: step 1: --json /tmp/: is a directory"},
		{"duplicate key", "run:\n  n: 10\n  c: 2\n  n: 20\n", ":4:3: n is given twice"},
		{"duplicate top key", "run:\n  n: 10\nrun:\n  n: 20\n", ":3:1: run is given twice"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := writeScenario(t, c.body)
			out, errs, code := runCLI(t, testApp(), "run", p, "-q")
			if code != ExitUsage || !strings.Contains(errs, p+c.want) {
				t.Fatalf("exit %d, stderr %q, want %q", code, errs, c.want)
			}
			if out != "" {
				t.Fatalf("a step ran before the bad one was found:\n%s", out)
			}
		})
	}
}

// A workload's or the engine's refusal that names no flag in its first
// word still points at the setting to blame, not at the mapping: an
// operation at ops, a ramp at R, a common vary that a step's store does
// not take at vary.
func TestScenarioErrorsBlameTheSetting(t *testing.T) {
	cases := []struct {
		name, body string
		extra      []string
		want       string
	}{
		{"an operation the workload lacks", "title: t\nabout: a\nrun:\n  store: \"file:\"\n  n: 5\n  ops: write\n", []string{"-w", "point"}, ":6:8: point has no operation \"write\""},
		{"an operation in a step", "run:\n  store: \"file:\"\n  n: 5\n  ops: write\nsteps:\n  - {c: 1}\n  - {workload: crud}\n", nil, ":4:8: step 2: crud has no operation \"write\""},
		{"a ramp without a duration", "run:\n  store: \"file:\"\n  n: 5\n  R: \"10:100\"\n", nil, ":4:6: -R 10:100: a ramp needs a duration"},
		{"think time with a rate", "run:\n  store: \"file:\"\n  d: 1s\n  R: 10\n  think: 1ms\n", nil, ":5:10: --think 1ms with -R 10"},
		// A step's store replaces the common ones, and the common vary
		// applies to it: file: has no journal_mode.
		{"a common vary a step's store lacks", "run:\n  n: 5\n  vary: journal_mode=wal,delete\nsteps:\n  - {store: \"sqlite:\"}\n  - {store: \"file:\"}\n", nil, ":3:9: step 2: store file:?journal_mode=wal: file: unknown option \"journal_mode\""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := writeScenario(t, c.body)
			out, errs, code := runCLI(t, testApp(), append([]string{"run", p, "-q"}, c.extra...)...)
			if code != ExitUsage || !strings.Contains(errs, p+c.want) || out != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q, want %q", code, out, errs, c.want)
			}
		})
	}
}

func TestHelpTopics(t *testing.T) {
	for topic, want := range map[string]string{
		"run": "Usage: kurabe run", "report": "Usage: kurabe report", "compare": "Usage: kurabe compare",
		"serve": "Usage: kurabe serve", "probe": "Usage: kurabe probe", "dataset": "kurabe dataset",
		"version": "Usage: kurabe version", "help": "kurabe compares data stores",
	} {
		out, errs, code := runCLI(t, testApp(), "help", topic)
		if code != 0 || !strings.Contains(out, want) || errs != "" {
			t.Errorf("help %s: exit %d, stdout %.60q, stderr %q; want %q", topic, code, out, errs, want)
		}
	}
	out, _, code := runCLI(t, testApp(), "help", "dataset", "import")
	if code != 0 || !strings.Contains(out, "Usage: kurabe dataset import") {
		t.Errorf("help dataset import: exit %d, %.60q", code, out)
	}
	for _, args := range [][]string{{"help", "dataset", "list"}, {"dataset", "list", "-h"}} {
		out, errs, code := runCLI(t, testApp(), args...)
		if code != 0 || !strings.Contains(out, "kurabe dataset [list]") || !strings.Contains(out, "--max-errors") {
			t.Errorf("%v: exit %d, stdout %.60q, stderr %q", args, code, out, errs)
		}
	}
	out, errs, code := runCLI(t, testApp(), "help", "bogus")
	if code != ExitUsage || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, `no help on "bogus"`) {
		t.Errorf("help bogus: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	// The language's default is said once, not "(default from ...)
	// (default "en")".
	out, _, _ = runCLI(t, testApp(), "help", "run")
	if strings.Count(out[strings.Index(out, "-lang"):strings.Index(out, "-latest")], "default") != 1 {
		t.Errorf("help run: --lang's default:\n%s", out[strings.Index(out, "-lang"):strings.Index(out, "-latest")])
	}
	// -q says all it turns off: the progress line and, outside a
	// terminal, the lines about a slow start (before: only the first).
	if q := out[strings.Index(out, "\n  -q"):strings.Index(out, "\n  -record-size")]; !strings.Contains(q, "progress line") || !strings.Contains(q, "slow start") {
		t.Errorf("help run: -q:%s", q)
	}
	// kurabe probe's --dir: its default said once (before: "(default:
	// the temporary directory, …) (default "/tmp")").
	out, _, _ = runCLI(t, testApp(), "help", "probe")
	if dir := out[strings.Index(out, "\n  -dir"):strings.Index(out, "\n  -duration")]; strings.Count(dir, "default") != 1 {
		t.Errorf("help probe: --dir's default:\n%s", dir)
	}
}

// failingInserts is a fake: a real SQLite store whose sessions fail every
// insert after the first after, to make a load fail part way.
type failingInserts struct {
	store.Store
	after int
}

func (f *failingInserts) Open(ctx context.Context) (store.Session, error) {
	s, err := f.Store.Open(ctx)
	return &failingSession{Session: s, left: f.after}, err
}

type failingSession struct {
	store.Session
	left int
}

func (s *failingSession) Insert(ctx context.Context, t *store.Table, row store.Row) error {
	if s.left == 0 {
		return errors.New("fake: insert refused")
	}
	s.left--
	return s.Session.Insert(ctx, t, row)
}

// A load that failed part way is not reported as loaded.
func TestFailedLoadIsNotReportedLoaded(t *testing.T) {
	app := faultApp("failing", func(st store.Store) store.Store { return &failingInserts{Store: st, after: 1500} })
	js := filepath.Join(t.TempDir(), "r.json")
	out, errs, code := runCLI(t, app, "run", "-q", "--store", "failing:", "--prefill", "5000", "-n", "10", "--json", js)
	if code != ExitFailed {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if strings.Contains(out, "loaded") || !strings.Contains(out, "loading the data set (failed after 1,000 rows): fake: insert refused") {
		t.Fatalf("output:\n%s", out)
	}
	doc, err := result.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Stores[0].Prepared) != 0 {
		t.Fatalf("result records a load: %+v", doc.Stores[0].Prepared)
	}
}

// interruptedStart is a fake: a real SQLite store whose Setup is where
// Ctrl-C arrives, as it would while a managed server's installer runs, and
// which then fails as the killed installer does.
type interruptedStart struct {
	store.Store
	interrupt func()
}

func (s *interruptedStart) Setup(ctx context.Context, tables []*store.Table) error {
	s.interrupt()
	<-ctx.Done()
	return errors.New("fake: mariadb-install-db failed: signal: killed")
}

// Ctrl-C while a store starts is no failure of that store, and the stores
// whose turn never came say they did not start, instead of an empty line.
func TestInterruptWhileAStoreStarts(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	app := faultApp("starting", func(st store.Store) store.Store { return &interruptedStart{Store: st, interrupt: cancel} })
	var out, errb strings.Builder
	err := app.Run(ctx, []string{"run", "-q", "--store", "starting:", "--store", "sqlite:", "-n", "10"}, &out, &errb)
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != ExitInterrupted {
		t.Fatalf("got %v, want exit %d", err, ExitInterrupted)
	}
	for _, want := range []string{"store starting: not started: interrupted", "store sqlite: not started: interrupted"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "FAILED") || strings.Contains(out.String(), "signal: killed") {
		t.Errorf("an interrupted start reported as a failure:\n%s", out.String())
	}
}

// interruptedLoad is a fake: a real SQLite store on which Ctrl-C arrives
// while the data set loads (its sessions' first insert), and whose Close
// fails, which a real store does not on demand.
type interruptedLoad struct {
	store.Store
	interrupt func()
}

func (s *interruptedLoad) Open(ctx context.Context) (store.Session, error) {
	sess, err := s.Store.Open(ctx)
	return &interruptingSession{Session: sess, interrupt: s.interrupt}, err
}

func (s *interruptedLoad) Close() error {
	s.Store.Close()
	return errors.New("fake: close failed")
}

type interruptingSession struct {
	store.Session
	interrupt func()
}

func (s *interruptingSession) Insert(ctx context.Context, t *store.Table, row store.Row) error {
	s.interrupt()
	<-ctx.Done()
	return ctx.Err()
}

// Ctrl-C while a started store loads its data set leaves it started: its
// description and its failure to close are kept, and only the stores whose
// turn never came say they did not start.
func TestInterruptWhileAStoreLoads(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	app := faultApp("loading", func(st store.Store) store.Store { return &interruptedLoad{Store: st, interrupt: cancel} })
	js := filepath.Join(t.TempDir(), "r.json")
	var out, errb strings.Builder
	err := app.Run(ctx, []string{"run", "-q", "--store", "loading:", "--store", "sqlite:", "--prefill", "10", "-n", "10", "--json", js}, &out, &errb)
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != ExitInterrupted {
		t.Fatalf("got %v, want exit %d", err, ExitInterrupted)
	}
	doc, err := result.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	if got := doc.Stores[0]; got.Info.Target == notStarted(store.Spec{}).Target || got.Info.Version == "" || got.Error != "closing: fake: close failed" {
		t.Errorf("the store that loaded: info %+v, error %q", got.Info, got.Error)
	}
	if got := doc.Stores[1]; got.Info.Target != notStarted(store.Spec{}).Target {
		t.Errorf("the store whose turn never came: %+v", got.Info)
	}
}

// tpcb on a store whose sessions cannot hold a transaction is refused
// before any server starts (it failed after starting PostgreSQL, at the
// load); select-only runs there.
func TestTPCBWithoutTransactionsIsRefusedUpFront(t *testing.T) {
	out, errs, code := runCLI(t, testApp(), "run", "-q", "-w", "tpcb", "--store", "postgres:managed?connect=per-op", "-n", "10")
	if code != ExitUsage || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "opens a connection per operation") {
		t.Fatalf("exit %d, output %q, errors %q; want exit 2 and one line before any store starts", code, out, errs)
	}
}

// The progress line says what a workload prepares, and nothing for a
// board that starts empty (it said "loading the data set").
func TestProgressSaysWhatIsPrepared(t *testing.T) {
	app := testApp()
	app.Terminal = func(io.Writer) bool { return true }
	for _, c := range []struct {
		args     []string
		want, no string
	}{
		{[]string{"--ops", "write"}, "", "on the board"},
		{[]string{"--ops", "write", "--prefill", "10"}, "putting 10 posts on the board (--prefill)", "putting 0"},
	} {
		_, errs, code := runCLI(t, app, append([]string{"run", "--store", "file:", "-n", "5", "-c", "1"}, c.args...)...)
		if code != 0 || !strings.Contains(errs, c.want) || strings.Contains(errs, c.no) || strings.Contains(errs, "loading") {
			t.Errorf("%v: exit %d, progress %q; want %q, not %q", c.args, code, errs, c.want, c.no)
		}
	}
}

// The header shows every workload setting as it is, in either language:
// values are numbers, names and flag values, never English words. Before,
// --lang ja showed crud's deletes=half of n, ycsb's distribution=per
// workload and bbs's text=(20 generated bytes).
func TestWorkloadSettingsSpeakNoLanguage(t *testing.T) {
	for _, tc := range []struct {
		workload string
		ops      []string // nil: the defaults
		args     []string
		want     map[string]string // settings to check; "" must be absent
	}{
		{"crud", nil, nil, map[string]string{"deletes": "n/2"}},
		{"crud", nil, []string{"--deletes", "7"}, map[string]string{"deletes": "7"}},
		{"ycsb", []string{"A", "D"}, nil, map[string]string{"distribution": "A:zipfian,D:latest"}},
		{"ycsb", []string{"A", "B"}, nil, map[string]string{"distribution": "zipfian"}},
		{"ycsb", []string{"A", "D"}, []string{"--distribution", "uniform"}, map[string]string{"distribution": "uniform"}},
		{"bbs", nil, nil, map[string]string{"text": "hogehoge", "text_size": "8"}},
		{"bbs", nil, []string{"--text-size", "20"}, map[string]string{"text": "", "text_size": "20"}},
	} {
		var f runFlags
		rs := testApp().runFlagSet(&f, io.Discard)
		if err := rs.fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		ops := tc.ops
		if ops == nil {
			_, ops = rs.defs[tc.workload].Ops()
		}
		w, err := rs.defs[tc.workload].Build(ops)
		if err != nil {
			t.Fatal(err)
		}
		p := w.Params()
		for k, v := range p {
			if strings.ContainsAny(v, " \t") {
				t.Errorf("%s %v: %s=%q reads as words, not a value", tc.workload, tc.args, k, v)
			}
		}
		for k, v := range tc.want {
			if got, ok := p[k]; got != v || ok != (v != "") {
				t.Errorf("%s %v: %s=%q (set %v), want %q", tc.workload, tc.args, k, got, ok, v)
			}
		}
	}
	// The header in Japanese carries crud's settings as they are.
	out, errs, code := runCLI(t, testApp(), "run", "-w", "crud", "--store", "sqlite:", "-n", "20", "-c", "1", "--record-size", "16", "--lang", "ja")
	if code != 0 || !strings.Contains(out, "deletes=n/2") || strings.Contains(out, "half") {
		t.Errorf("exit %d, %s:\n%s", code, errs, out)
	}
}

// The header shows only the settings of the operations that ran, as bbs
// did already. Before, crud's insert,read showed batch_delete=25000
// batch_read=300 deletes=n/2, ycsb's A scan_max=100 and load's
// autocommit batch=1000, settings no phase of theirs used.
func TestHeaderShowsSettingsOfTheOpsRunOnly(t *testing.T) {
	for _, c := range []struct {
		args     []string
		want, no []string
	}{
		{[]string{"-w", "crud", "--ops", "insert,read", "-n", "20"}, []string{"record_size=808"}, []string{"batch_delete=", "batch_read=", "deletes="}},
		{[]string{"-w", "crud", "--ops", "insert,batch-read", "-n", "20"}, []string{"batch_read=300"}, []string{"batch_delete=", "deletes="}},
		{[]string{"-w", "crud", "-n", "20"}, []string{"batch_delete=25000", "batch_read=300", "deletes=n/2", "record_size=808"}, nil},
		{[]string{"-w", "ycsb", "--ycsb", "A", "--recordcount", "50", "-n", "20"}, []string{"distribution=zipfian"}, []string{"scan_max="}},
		{[]string{"-w", "ycsb", "--ycsb", "E", "--recordcount", "50", "-n", "20"}, []string{"scan_max=100"}, nil},
		{[]string{"-w", "load", "--ops", "autocommit", "--dataset", "records", "--dataset-rows", "20"}, []string{"chunk_rows=20"}, []string{"batch="}},
		{[]string{"-w", "load", "--ops", "bulk", "--dataset", "records", "--dataset-rows", "20"}, []string{"batch=1000"}, nil},
	} {
		out, errs, code := runCLI(t, testApp(), append([]string{"run", "--store", "sqlite:", "-c", "1"}, c.args...)...)
		head, _, _ := strings.Cut(out, "\n")
		if code != 0 {
			t.Errorf("%v: exit %d, %s", c.args, code, errs)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(head, " "+w) {
				t.Errorf("%v: header %q lacks %s", c.args, head, w)
			}
		}
		for _, n := range c.no {
			if strings.Contains(head, " "+n) {
				t.Errorf("%v: header %q shows %s, a setting of an operation that did not run", c.args, head, n)
			}
		}
	}
}

// TestCommandLineMistakesSayWhatToDo: each mistake a new user made is
// refused before anything runs, exit 2, with one line that names what was
// wrong and what to do. Before, these printed the flag package's "parse
// error", blamed a scenario file for a flag of the command line, ran the
// full default set for an empty --ops, failed a run against an unwritable
// store path after it began, or said only "no such file".
func TestCommandLineMistakesSayWhatToDo(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string // all in the one line
	}{
		// A flag unknown to run, after a scenario: the command line's.
		{[]string{"run", "../scenarios/range-sweep.yaml", "--bogus"}, []string{"unknown flag --bogus; see kurabe help run"}},
		// Numbers and durations say what they take.
		{[]string{"run", "-d", "soon"}, []string{"-d soon: want seconds (30) or a duration such as 500ms or 2m (run each phase for this duration instead of -n operations"}},
		// A bare number is seconds: zero or less is refused as it was
		// with a unit.
		{[]string{"run", "-d", "0"}, []string{"-d 0s: want a positive duration such as 30s"}},
		{[]string{"run", "-d", "-5"}, []string{"-d -5s: want a positive duration such as 30s"}},
		{[]string{"run", "--warmup", "-1"}, []string{"--warmup -1s: want 0 or more"}},
		{[]string{"probe", "--duration", "-1"}, []string{"--duration -1s: want a positive time per measurement"}},
		{[]string{"serve", "--dataset", "postal", "--password", "pw", "--token-ttl", "0"}, []string{"--token-ttl 0s: want a positive duration such as 15m"}},
		{[]string{"run", "--seed", "-1"}, []string{"--seed -1: want a whole number, 0 or more (seed of the clients' random numbers"}},
		{[]string{"run", "-n", "many"}, []string{"-n many: want a whole number"}},
		{[]string{"probe", "--duration", "3x"}, []string{"--duration 3x: want seconds (30) or a duration", "see kurabe help probe"}},
		// A misspelt flag, in every command.
		{[]string{"run", "--stor", "sqlite:"}, []string{"unknown flag --stor (did you mean --store?)"}},
		{[]string{"run", "--png", "charts/"}, []string{"unknown flag --png; charts are kurabe report's", "kurabe report F --png DIR"}},
		{[]string{"report", "--hmtl", "x.html", "a.json"}, []string{"unknown flag --hmtl (did you mean --html?)"}},
		{[]string{"replay", "--speeed", "2"}, []string{"unknown flag --speeed (did you mean --speed?)"}},
		{[]string{"capture", "--sotre", "postgres:managed"}, []string{"unknown flag --sotre (did you mean --store?)"}},
		{[]string{"http", "--concurency", "2", "http://127.0.0.1:1/"}, []string{"unknown flag --concurency"}},
		{[]string{"serve", "--listn", "127.0.0.1:0"}, []string{"unknown flag --listn (did you mean --listen?)"}},
		// Empty lists and empty items.
		{[]string{"run", "--ops", ""}, []string{"--ops is empty; choose from write, read-all"}},
		{[]string{"run", "--ops", "write,,read-all"}, []string{"--ops write,,read-all: an item is empty"}},
		{[]string{"run", "-c", "1,,2"}, []string{"-c 1,,2: want 1 or more clients"}},
		{[]string{"run", "-w", "range", "--records", "1,,2"}, []string{"--records"}},
		{[]string{"run", "--store", "sqlite:", "--vary", "page_size=1024,,4096"}, []string{"a value is empty"}},
		// A store path where no file can be made.
		{[]string{"run", "--store", "file:/proc/posts.txt", "-n", "10", "--ops", "write"}, []string{"store file:/proc/posts.txt: cannot write in /proc"}},
		{[]string{"run", "--store", "sqlite:/proc/kurabe/x.db", "-n", "10"}, []string{"store sqlite:/proc/kurabe/x.db: cannot write in /proc"}},
		// Missing files say what to do.
		{[]string{"run", "--disk-probe", "/nonexistent.json"}, []string{"no such file; measure the disk first with kurabe probe --json /nonexistent.json"}},
		{[]string{"run", "-w", "range", "--dataset-file", "/nonexistent.csv"}, []string{"/nonexistent.csv: no such file; give the path of Japan Post's KEN_ALL.CSV"}},
		{[]string{"run", "../scenarios/nosuch.yaml"}, []string{"no such file; the scenarios in ../scenarios/ are", "range-sweep.yaml"}},
		{[]string{"run", "/nonexistent/nosuch.yaml"}, []string{"scenario /nonexistent/nosuch.yaml: no such file; kurabe's own scenarios are in the scenarios folder of its source (docs/scenarios.md); give the path of one"}},
		// More clients than kurabe can hold the files of.
		{[]string{"run", "--store", "sqlite:", "-c", "100000000", "-n", "10"}, []string{"-c 100000000: the clients of the store sqlite: would hold about", "ulimit -n"}},
		// A service speaking kurabe serve's API has the message board only:
		// another workload is refused before the run, not failed in it.
		{[]string{"run", "-w", "point", "--store", "http://127.0.0.1:1"}, []string{"the store http://127.0.0.1:1 runs the workload bbs only, not point; give --workload bbs"}},
		{[]string{"version", "extra"}, []string{"version takes no arguments"}},
	} {
		_, errs, code := runCLI(t, testApp(), c.args...)
		if code != ExitUsage || strings.Count(errs, "\n") != 1 {
			t.Errorf("%q: exit %d, want %d and one line:\n%s", c.args, code, ExitUsage, errs)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(errs, w) {
				t.Errorf("%q: %s\nwant %q", c.args, errs, w)
			}
		}
		if strings.Contains(errs, "parse error") || strings.Contains(errs, "range-sweep.yaml:") {
			t.Errorf("%q: %s", c.args, errs)
		}
	}
}

// TestUsageLinesUp: kurabe --help's workloads and stores share one column
// however long a name (select-only ran into its summary), and its store
// examples holding ? or & are quoted, as the README says they must be;
// kurabe version --help is usage, not the version.
func TestUsageLinesUp(t *testing.T) {
	out, _, code := runCLI(t, testApp(), "--help")
	if code != 0 {
		t.Fatal(out)
	}
	col := -1
	for _, line := range strings.Split(out, "\n") {
		name, _, _ := strings.Cut(strings.TrimSpace(line), " ")
		known := false
		for _, e := range testApp().Workloads {
			known = known || e.Name == name
		}
		for _, e := range testApp().Stores {
			known = known || e.Driver == name
		}
		if !known || !strings.HasPrefix(line, "  "+name+" ") {
			if strings.Contains(line, "e.g. --store") {
				ex := line[strings.Index(line, "--store ")+len("--store "):]
				if strings.ContainsAny(ex, "?&") && !strings.HasPrefix(ex, "'") {
					t.Errorf("example not quoted: %s", line)
				}
			}
			continue
		}
		at := len(line) - len(strings.TrimLeft(line[2+len(name):], " "))
		if col == -1 {
			col = at
		} else if at != col {
			t.Errorf("%q starts at column %d, the others at %d", line, at, col)
		}
	}
	if col == -1 {
		t.Fatalf("no workload or store lines:\n%s", out)
	}
	out, _, code = runCLI(t, testApp(), "version", "--help")
	if code != 0 || !strings.HasPrefix(out, "Usage: kurabe version") {
		t.Errorf("version --help: exit %d\n%s", code, out)
	}
}
