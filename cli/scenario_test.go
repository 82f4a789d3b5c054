package cli

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"kurabe/result"
	"kurabe/store"
	"kurabe/workload"
	"kurabe/workload/bbs"
	"kurabe/workloads"
)

func writeScenario(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestScenarioErrorsPointAtTheLine(t *testing.T) {
	cases := []struct {
		name, body, want string
	}{
		{"unknown setting", "run:\n  store: \"file:\"\n  clients: 4\n", ":3:3: unknown setting \"clients\""},
		{"misspelt setting", "run:\n  stores: \"file:\"\n", ":2:3: unknown setting \"stores\" (did you mean store?)"},
		{"misspelt top key", "title: x\nstep:\n  - {n: 1}\n", ":2:1: unknown key \"step\" (did you mean steps?)"},
		{"unquoted colon", "run:\n  store: file:\n", "s.yaml:2: YAML: mapping values are not allowed in this context (a value ending in \":\", such as the store file:, needs quotes"},
		// YAML syntax errors name the line the YAML library does not:
		// it named the line before an unclosed [ (line 2), and none
		// for an error on the first line.
		{"unclosed flow list", "title: x\nrun:\n  store: [sqlite:\n  n: 100\n", "s.yaml:3: YAML: did not find expected ',' or ']'"},
		{"colon on the first line", "store: file:\nn: 1\n", "s.yaml:1: YAML: mapping values"},
		{"colon on line 3", "title: x\nrun:\n  store: file:\n  n: 100\n", "s.yaml:3: YAML: mapping values"},
		{"tab", "title: x\n\trun:\n", "s.yaml:2: YAML: found a tab character"},
		// A bad number, boolean or duration says what the setting takes,
		// as the flag does; before, a bare "parse error".
		{"bad number", "run:\n  n: many\n", ":2:6: n: many: want a whole number (operations per phase"},
		{"fraction for a count", "run:\n  n: 10.0\n", ":2:6: n: 10.0: want a whole number"},
		{"bad duration", "run:\n  d: soon\n", ":2:6: d: soon: want seconds (30) or a duration such as 500ms or 2m"},
		{"bad boolean", "run:\n  isolate: yes\n", ":2:12: isolate: yes: want true or false (give each client tables of its own)"},
		{"negative seed", "run:\n  seed: -1\n", ":2:9: seed: -1: want a whole number, 0 or more"},
		{"out of range", "run:\n  n: 99999999999999999999\n", ":2:6: n: 99999999999999999999: want a whole number"},
		{"bad share", "run:\n  w: point\n  hit: x\n", ":3:8: hit: x: want a number (point: share"},
		// An error in a list points at the item, not at the [.
		{"bad store in a list", "run:\n  store: [\"sqlite:?journal_mode=bogus\", \"sqlite:\"]\n", ":2:11: store sqlite:?journal_mode=bogus"},
		{"bad store later in a list", "run:\n  store: [\"sqlite:\", \"sqlite:?journal_mode=bogus\"]\n", ":2:22: store sqlite:?journal_mode=bogus"},
		{"bad store in a block list", "run:\n  store:\n    - \"nosuch:\"\n    - \"sqlite:\"\n", ":3:7: store nosuch:: unknown driver"},
		{"bad vary in a list", "run:\n  store: \"sqlite:\"\n  vary:\n    - journal_mode=wal\n    - nosuch\n", ":5:7: --vary \"nosuch\""},
		{"unknown top key", "title: x\nruns:\n  n: 1\n", ":2:1: unknown key \"runs\""},
		{"nested value", "run:\n  store: {a: b}\n", ":2:10: store: want a value or a list"},
		{"steps not a list", "run: {n: 1}\nsteps: {n: 2}\n", ":2:8: steps: want a list"},
		{"not a mapping", "- a\n- b\n", ":1:1: a scenario is a mapping"},
		// A title or about of the wrong kind is refused; before, it was
		// dropped without a word.
		{"title a list", "title: [a, b]\nrun: {n: 1}\n", ":1:8: title: want one line of text"},
		{"title a mapping", "title: {a: b}\nrun: {n: 1}\n", ":1:8: title: want one line of text"},
		{"title of two lines", "title: |\n  one\n  two\nrun: {n: 1}\n", ":1:8: title: want one line"},
		// A flag's two names in one mapping are one key given twice;
		// before, the last won without a word.
		{"w and workload", "run:\n  w: bbs\n  workload: point\n", ":3:3: w and workload are one setting, given twice in this mapping"},
		{"about a list", "title: x\nabout:\n  - a\n  - b\nrun: {n: 1}\n", ":3:3: about: want text"},
		{"bad yaml", "run: [\n", "s.yaml"},
		// YAML's mistakes say what to do; before, only what the YAML
		// library found.
		{"tab indents a key", "run:\n\tn: 5\n", "s.yaml:2: YAML: found character that cannot start any token (a tab indents this line, and YAML takes only spaces"},
		{"quote left open", "run:\n  n: 5\n  store: \"sqlite:\n  ops: write\n", "s.yaml:3: YAML: found unexpected end of stream (a quote opened on this line is not closed"},
		{"indented more", "run:\n  n: 5\n   c: 1\n", "s.yaml:3: YAML: mapping values are not allowed in this context (this line is indented more than the line above it, \"n: 5\""},
		{"indented less", "run:\n  n: 5\n c: 1\n", "s.yaml:3: YAML: did not find expected key (this line's indentation matches no mapping above it"},
		{"colon value in a block list", "run:\n  store:\n    - \"sqlite:\"\n    - file:\n", ":4:7: store: YAML read file: as a mapping, since it ends in \":\"; quote it: \"file:\""},
		{"colon value under its key", "run:\n  store:\n    file:\n", ":3:5: store: YAML read file: as a mapping"},
		{"vary split at its comma", "run:\n  store: \"sqlite:\"\n  vary: [synchronous=off,full]\n", ":3:26: vary: \"full\" has no NAME=: in [ ] a comma separates items, so YAML read synchronous=off,full as two; quote a setting with its values: [\"synchronous=off,full\"]"},
		{"steps under run", "run:\n  n: 5\n  steps:\n    - {c: 1}\n", ":3:3: steps is a key of the scenario, not a setting: move it out of this mapping"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := writeScenario(t, c.body)
			_, errs, code := runCLI(t, testApp(), "run", p)
			if code != ExitUsage || !strings.Contains(errs, c.want) {
				t.Fatalf("exit %d, stderr %q, want %q", code, errs, c.want)
			}
		})
	}
}

// The step headings follow --lang.
func TestScenarioHeadingsFollowTheLanguage(t *testing.T) {
	p := writeScenario(t, "run: {store: \"file:\", ops: write, n: 5}\nsteps:\n  - {c: 1}\n  - {c: 2}\n")
	out, errs, code := runCLI(t, testApp(), "run", p, "-q", "--lang", "ja")
	if code != ExitOK || !strings.Contains(out, "## ステップ 2 / 2: kurabe run") || strings.Contains(out, "step 2 of 2") {
		t.Errorf("exit %d, %s\n%s", code, errs, out)
	}
}

// A step's heading is a command line that runs the step, its one-letter
// flags written as everywhere else (-c 1,2, -n 5, -q). Before, they were
// --c=1,2 and --n=5.
func TestScenarioHeadingsWriteShortFlags(t *testing.T) {
	p := writeScenario(t, "run: {store: \"file:\", ops: write, n: 5}\nsteps:\n  - {c: 1}\n  - {c: [1, 2], d: 1s}\n")
	out, errs, code := runCLI(t, testApp(), "run", p, "-q")
	if code != ExitOK {
		t.Fatalf("exit %d, %s\n%s", code, errs, out)
	}
	for _, want := range []string{
		"## step 1 of 2: kurabe run --store=file: --ops=write -n 5 -c 1 -q\n",
		"## step 2 of 2: kurabe run --store=file: --ops=write -c 1,2 -d 1s -q\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("want %q in:\n%s", want, out)
			continue
		}
		// The heading runs as it reads.
		line := strings.TrimSuffix(want[strings.Index(want, "kurabe run ")+len("kurabe run "):], "\n")
		if _, err := testApp().planRun(strings.Fields(line), io.Discard); err != nil {
			t.Errorf("%s: %v", line, err)
		}
	}
}

// Two scenario files are refused as such, not as an argument the first
// file's step does not take.
func TestTwoScenarioFiles(t *testing.T) {
	a := writeScenario(t, "run: {n: 5}\n")
	b := writeScenario(t, "run: {n: 6}\n")
	for _, args := range [][]string{{"run", a, b}, {"run", a, "-n", "3", b}} {
		_, errs, code := runCLI(t, testApp(), args...)
		if code != ExitUsage || !strings.Contains(errs, "one scenario file at a time") {
			t.Errorf("%v: exit %d, %q; want exit 2, one scenario file at a time", args, code, errs)
		}
	}
}

func TestScenarioStepsRunWithOverrides(t *testing.T) {
	dir := t.TempDir()
	p := writeScenario(t, `title: two steps
about: test
run:
  store: [sqlite:, file:]
  ops: [write, read-latest]
  c: 2
steps:
  - {n: 30}
  - {n: 40, latest: 5}
`)
	js := filepath.Join(dir, "out.json")
	// --store on the command line replaces the file's stores.
	out, errs, code := runCLI(t, testApp(), "run", p, "--store", "file:", "--json", js, "-q")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "# two steps\n\ntest\n") || !strings.Contains(out, "step 2 of 2") {
		t.Fatalf("output:\n%s", out)
	}
	for step, n := range map[int]int64{1: 30, 2: 40} {
		doc, err := result.ReadFile(filepath.Join(dir, "out-"+string(rune('0'+step))+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if len(doc.Stores) != 1 || doc.Stores[0].Label != "file" || doc.Stores[0].Phases[0].Ops != n {
			t.Fatalf("step %d: %+v", step, doc.Stores)
		}
	}
}

// A step that fails is said once, as it ends, and the run's verdict names
// the failed steps, after the later steps have still run.
func TestScenarioFailedStepSaidOnce(t *testing.T) {
	p := writeScenario(t, `run:
  store: ["sqlite:"]
  workload: crud
  n: 20
steps:
  - {ops: read}
  - {ops: insert}
`)
	out, errs, code := runCLI(t, testApp(), "run", p, "-q")
	if code != ExitFailed {
		t.Fatalf("exit %d, want 1: %s", code, errs)
	}
	if n := strings.Count(errs, "every operation of sqlite read failed"); n != 1 {
		t.Errorf("the failure said %d times, want once:\n%s", n, errs)
	}
	if !strings.Contains(errs, "1 step of 2 failed (step 1") || !strings.Contains(out, "step 2 of 2") {
		t.Errorf("stderr %q, stdout %q; want step 2 run and a verdict naming step 1", errs, out)
	}
}

// Under --lang ja, what a scenario says on stderr is in Japanese: a flag
// a step leaves out, a step that failed, the verdict, and the run's own
// last line for that step; none of it in English.
func TestScenarioStderrFollowsTheLanguage(t *testing.T) {
	p := writeScenario(t, `run:
  store: ["sqlite:"]
steps:
  - {workload: load, dataset: records, dataset-rows: 50}
  - {workload: crud, n: 20, ops: read}
  - {workload: crud, n: 20, ops: insert}
`)
	out, errs, code := runCLI(t, testApp(), "run", p, "-n", "20", "-q", "--lang", "ja")
	if code != ExitFailed {
		t.Fatalf("exit %d, want 1: %s\n%s", code, errs, out)
	}
	for _, want := range []string{
		"ステップ 1 は -n 20 を使わず、自身の設定で実行します: ",
		"、ステップ 2: sqlite read の操作はすべて失敗したため",
		": 3 ステップ中 1 ステップが失敗しました (ステップ 2、上記のとおり)",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	for _, english := range []string{"leaves out", "keeps its own", ", step 2:", "every operation", "failed (", "see the notes"} {
		if strings.Contains(errs, english) {
			t.Errorf("stderr says %q in English:\n%s", english, errs)
		}
	}
}

// Every shipped scenario plans, stores checked, as the file stands, with
// -d 5s (which docs/scenarios.md shows), and with each override its about
// text tells users to give for the study's full size. The overrides are
// listed here, each must appear in the about text, and every flag the
// about text names must be among them, so the text cannot promise an
// override this test does not try.
func TestShippedScenariosPlan(t *testing.T) {
	probeFile := filepath.Join(t.TempDir(), "disk.json")
	if err := os.WriteFile(probeFile, []byte(`{"write_mb_s": 100, "fsyncs_per_s": 500}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// The overrides each about text names; FILE stands for a file the
	// about says where to get.
	overrides := map[string][]string{
		"bbs-file-sqlite-mariadb.yaml": {"-n 10000"},
		"cgi-vs-persistent.yaml":       {"-n 10000 -c 100"},
		"page-size-matrix.yaml":        {"-n 100000"},
		"postal-insert-select.yaml":    {"--dataset-rows 0", "-n 10000", "--dataset-rows 0 -n 10000", "--disk-probe FILE", "--hit 0.1"},
		"range-sweep.yaml":             {"-n 100", "--by offset"},
	}
	files, _ := filepath.Glob("../scenarios/*.yaml")
	if len(files) != len(overrides) {
		t.Fatalf("%d scenarios shipped, %d listed here; list the overrides each about text names", len(files), len(overrides))
	}
	flagInText := regexp.MustCompile(`(?:^|[\s(])(--?[a-zA-Z][a-z-]*)`)
	for _, f := range files {
		app := testApp()
		sc, err := app.loadScenario(f)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if sc.Title == "" || sc.About == "" {
			t.Errorf("%s: needs a title and an about saying how to run it at full size", f)
		}
		about := strings.Join(strings.Fields(sc.About), " ")
		named := map[string]bool{}
		for _, o := range overrides[filepath.Base(f)] {
			if !strings.Contains(about, strings.TrimSuffix(o, " FILE")) {
				t.Errorf("%s: the about text does not say %q", f, o)
			}
			for _, w := range strings.Fields(o) {
				named[w] = true
			}
		}
		for _, m := range flagInText.FindAllStringSubmatch(about, -1) {
			if !named[m[1]] {
				t.Errorf("%s: the about text names %s, which no override here tries", f, m[1])
			}
		}
		tries := []string{"", "-d 5s"}
		tries = append(tries, overrides[filepath.Base(f)]...)
		for _, o := range tries {
			extra := strings.Fields(strings.ReplaceAll(o, "FILE", probeFile))
			var notes strings.Builder
			steps, _, err := app.planScenario(context.Background(), f, sc, extra, &notes)
			if err != nil || len(steps) != len(sc.Steps) {
				t.Errorf("%s %s: %d steps, %v", f, o, len(steps), err)
			}
		}
	}
}

// heavyDef is a fake workload: the board (bbs) with 64 MiB held by each
// built workload, as a decoded data set is, and the live heap read once
// each run starts its clients.
type heavyDef struct{ peak *uint64 }

const ballast = 64 << 20

func (d heavyDef) Summary() string               { return "fake: bbs holding 64 MiB" }
func (d heavyDef) Ops() (all, defaults []string) { return bbs.New().Ops() }
func (d heavyDef) Flags(fs *flag.FlagSet)        {}
func (d heavyDef) Build(ops []string) (workload.Workload, error) {
	w, err := bbs.New().Build(ops)
	return &heavy{Workload: w, held: make([]byte, ballast), peak: d.peak}, err
}

type heavy struct {
	workload.Workload
	held []byte
	peak *uint64
	read bool
}

func (w *heavy) NewClient(s store.Session, rng *rand.Rand) workload.Client {
	if !w.read {
		w.read = true
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		*w.peak = max(*w.peak, m.HeapAlloc)
	}
	return w.Workload.NewClient(s, rng)
}

// A running step holds its own workload only: the plans that checked the
// other steps, and what their workloads decoded, are let go.
func TestScenarioHoldsOneStepAtATime(t *testing.T) {
	var peak uint64
	app := testApp()
	app.Workloads = append(slices.Clone(app.Workloads), workloads.Entry{Name: "heavy", New: func() workload.Definition { return heavyDef{&peak} }})
	p := writeScenario(t, "run:\n  store: \"file:\"\n  workload: heavy\n  ops: write\n  n: 2\n  c: 1\nsteps:\n  - {}\n  - {}\n  - {}\n  - {}\n")
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	if _, errs, code := runCLI(t, app, "run", p, "-q"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if held := int64(peak) - int64(m.HeapAlloc); held > 2*ballast {
		t.Fatalf("a running step held %d MiB more than before the scenario; one step's workload holds %d", held>>20, ballast>>20)
	}
}

// A flag given on the command line with a scenario applies to the steps
// that take it: a workload's option to the steps running that workload,
// -n and -d to the steps whose workload fits them (a load keeps its own
// size), each step left out said on stderr. A flag no step takes is
// refused.
func TestScenarioFlagsApplyWhereTheyFit(t *testing.T) {
	body := "run:\n  store: \"sqlite:\"\nsteps:\n  - {workload: load, dataset: records, dataset-rows: 100}\n  - {workload: point, dataset: records, dataset-rows: 100, n: 50}\n  - {workload: bbs, d: 1s}\n"
	type got struct {
		count int64
		dur   time.Duration
		param string // point's hit, load's rows
	}
	cases := []struct {
		extra []string
		want  []got  // per step
		left  string // a note on stderr
	}{
		{nil, []got{{1, 0, "100"}, {50, 0, "1"}, {0, time.Second, ""}}, ""},
		// load's -n is its chunks: it keeps 1.
		{[]string{"-n", "7"}, []got{{1, 0, "100"}, {7, 0, "1"}, {7, 0, ""}}, "step 1 leaves out -n 7 and keeps its own settings: -n 7 does not fit -w load"},
		{[]string{"-d", "2s"}, []got{{1, 0, "100"}, {0, 2 * time.Second, "1"}, {0, 2 * time.Second, ""}}, "step 1 leaves out -d 2s"},
		// --hit is point's, --dataset-rows load's and point's.
		{[]string{"--hit=0.5", "--dataset-rows", "40"}, []got{{1, 0, "40"}, {50, 0, "0.5"}, {0, time.Second, ""}}, "step 3 leaves out --dataset-rows 40"},
	}
	p := writeScenario(t, body)
	for _, c := range cases {
		t.Run(strings.Join(c.extra, " "), func(t *testing.T) {
			app := testApp()
			sc, err := app.loadScenario(p)
			if err != nil {
				t.Fatal(err)
			}
			steps, notes, err := app.planScenario(context.Background(), p, sc, c.extra, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			for i, args := range steps {
				pl, err := app.planRun(args, io.Discard)
				if err != nil {
					t.Fatalf("step %d: %v", i+1, err)
				}
				g := got{pl.cfg.Count, pl.cfg.Duration, map[string]string{"load": pl.w.Params()["rows"], "point": pl.w.Params()["hit"]}[pl.f.workload]}
				if g != c.want[i] {
					t.Errorf("step %d: %+v, want %+v", i+1, g, c.want[i])
				}
			}
			if all := strings.Join(notes, "\n"); !strings.Contains(all, c.left) || (c.left == "") != (all == "") {
				t.Errorf("notes %q, want %q", all, c.left)
			}
		})
	}
	// The notes come in step order, whatever the order of the flags.
	app := testApp()
	sc, err := app.loadScenario(p)
	if err != nil {
		t.Fatal(err)
	}
	_, notes, err := app.planScenario(context.Background(), p, sc, []string{"--dataset-rows", "40", "-n", "7"}, io.Discard)
	if err != nil || len(notes) != 2 || !strings.Contains(notes[0], "step 1 leaves out -n 7") || !strings.Contains(notes[1], "step 3 leaves out --dataset-rows 40") {
		t.Errorf("notes %q (%v); want step 1's, then step 3's", notes, err)
	}
	// No step takes --scale; a value refused is refused, not left out.
	for extra, want := range map[string]string{
		"--scale 2":    ": --scale 2 applies to no step of the scenario (step 1: --scale does not apply to -w load",
		"--hit 2":      ": step 2: --hit 2: want a share from 0 to 1",
		"-n 0":         ": step 1: -n 0: want 1 or more",
		"--warmup 1s":  "", // bbs takes it
		"--records 10": ": --records 10 applies to no step",
	} {
		if want == "" {
			app := testApp()
			sc, err := app.loadScenario(p)
			if err == nil {
				_, _, err = app.planScenario(context.Background(), p, sc, strings.Fields(extra), io.Discard)
			}
			if err != nil {
				t.Errorf("%s: %v", extra, err)
			}
			continue
		}
		_, errs, code := runCLI(t, testApp(), append([]string{"run", p, "-q", "--store", "file:"}, strings.Fields(extra)...)...)
		if code != ExitUsage || !strings.Contains(errs, p+want) {
			t.Errorf("%s: exit %d, stderr %q, want %q", extra, code, errs, want)
		}
	}
}

// Checking a scenario's stores creates nothing: a store whose path is in
// a directory that does not exist yet leaves none behind when a later
// step's check fails.
func TestScenarioCheckCreatesNothing(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "new", "sub", "x.db")
	p := writeScenario(t, "run:\n  n: 5\nsteps:\n  - {store: \"sqlite:"+db+"\"}\n  - {store: \"sqlite:?jurnal_mode=wal\"}\n")
	_, errs, code := runCLI(t, testApp(), "run", p, "-q")
	if code != ExitUsage || !strings.Contains(errs, "jurnal_mode") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "new")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the check left %s behind (%v)", filepath.Join(dir, "new"), err)
	}
}

// A scenario's input files are found beside it, wherever kurabe runs, and
// a mistake about one is reported at its own line: before, a relative
// dataset-file was taken from the current directory, and its error (or
// that of range's default --records, more than a small file holds) was
// reported at the first setting, store.
func TestScenarioInputsBesideTheFile(t *testing.T) {
	dir := t.TempDir()
	raw, err := os.ReadFile(sampleKenAll)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ken.csv"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	scenario := func(body string) string {
		p := filepath.Join(dir, "s.yaml")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}

	p := scenario("run:\n  store: \"sqlite:\"\n  workload: point\n  dataset-file: ken.csv\n  n: 20\n  c: 1\n")
	app := testApp()
	sc, err := app.loadScenario(p)
	if err != nil {
		t.Fatal(err)
	}
	steps, _, err := app.planScenario(context.Background(), p, sc, nil, io.Discard)
	if err != nil {
		t.Fatalf("a dataset-file beside the scenario: %v", err)
	}
	pl, err := app.planRun(steps[0], io.Discard)
	if err != nil || filepath.Base(pl.w.Params()["dataset_file"]) != "ken.csv" || pl.w.Params()["rows"] != "1996" {
		t.Fatalf("planned %v (%v); want ken.csv's 1,996 records", pl.w.Params(), err)
	}

	for _, c := range []struct{ name, body, want string }{
		{"missing file", "run:\n  store: \"sqlite:\"\n  workload: point\n  dataset-file: nosuch.csv\n",
			":4:17: postal data set " + filepath.Join(dir, "nosuch.csv") + ": no such file"},
		{"records past a small file", "run:\n  store: \"sqlite:\"\n  workload: range\n  dataset-file: ken.csv\n",
			":4:17: --records 1,100,200,500,1000,2000,5000: range 2000 reads 2,000 consecutive records, more than the 1,996 that " + filepath.Join(dir, "ken.csv") + " holds"},
		{"records given", "run:\n  store: \"sqlite:\"\n  workload: range\n  dataset-file: ken.csv\n  records: 3000\n", ":5:12: --records 3000"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := scenario(c.body)
			_, errs, code := runCLI(t, testApp(), "run", p)
			if code != ExitUsage || !strings.Contains(errs, p+c.want) {
				t.Fatalf("exit %d, stderr %q, want %q", code, errs, p+c.want)
			}
		})
	}
}

// With steps, a device or pipe given to --json (a FIFO, /dev/stdout) gets
// every step's document, in step order, and no files are made beside it.
// Before, the FIFO's steps wrote regular files fifo-1, fifo-2 beside it,
// and its reader waited forever; /dev/stdout made /dev/stdout-1.
func TestScenarioStepsWriteToAPipeInTurn(t *testing.T) {
	p := writeScenario(t, "run: {store: \"file:\", ops: write, c: 1}\nsteps:\n  - {n: 3}\n  - {n: 4}\n")
	dir := t.TempDir()
	// The documents each step wrote, in order.
	decode := func(t *testing.T, r io.Reader) []int64 {
		var ns []int64
		dec := json.NewDecoder(r)
		for {
			var doc result.Document
			if err := dec.Decode(&doc); err != nil {
				if err != io.EOF {
					t.Errorf("reading the documents: %v", err)
				}
				return ns
			}
			ns = append(ns, doc.Stores[0].Phases[0].Ops)
		}
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	// A link to one of the process's open files, as /dev/stdout is.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	fd := filepath.Join(dir, "stdout")
	if err := os.Symlink("/proc/self/fd/"+strconv.Itoa(int(w.Fd())), fd); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, path string }{{"fifo", fifo}, {"own file", fd}} {
		t.Run(c.name, func(t *testing.T) {
			got := make(chan []int64)
			go func() {
				if c.path == fifo {
					f, err := os.Open(fifo)
					if err != nil {
						t.Error(err)
						got <- nil
						return
					}
					defer f.Close()
					got <- decode(t, f)
					return
				}
				got <- decode(t, r)
			}()
			out, errs, code := runCLI(t, testApp(), "run", p, "-q", "--json", c.path)
			if c.path == fd {
				w.Close() // the reader's end of stream
			}
			if extra, _ := filepath.Glob(c.path + "-*"); len(extra) > 0 {
				// The reader never got a document: let it go.
				if c.path == fifo {
					if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
						f.Close()
					}
				}
				<-got
				t.Fatalf("files made beside %s: %v", c.path, extra)
			}
			if code != ExitOK {
				t.Fatalf("exit %d\n%s%s", code, out, errs)
			}
			if ns := <-got; !slices.Equal(ns, []int64{3, 4}) {
				t.Errorf("documents read for steps of n=%v, want [3 4]", ns)
			}
		})
	}
}

// With a format for programs, stdout holds the format alone: the title
// and step headings go to stderr, the CSV has one header with a step
// column, and benchstat's names tell the steps apart. Before, stdout had
// "# title" and "## step" lines and a CSV header per step, and two steps'
// write at 1 client had one benchmark name, which benchstat pooled.
func TestScenarioMachineFormatsParse(t *testing.T) {
	p := writeScenario(t, "title: formats\nabout: two steps alike\nrun: {store: \"file:\", ops: write, c: 1}\nsteps:\n  - {n: 3}\n  - {n: 4}\n")
	out, errs, code := runCLI(t, testApp(), "run", p, "-q", "--format", "csv")
	if code != ExitOK {
		t.Fatalf("csv: exit %d\n%s%s", code, out, errs)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatalf("stdout is no CSV: %v\n%s", err, out)
	}
	if len(recs) != 3 || recs[0][0] != "run" {
		t.Fatalf("want a header and a row per step, got %d records:\n%s", len(recs), out)
	}
	col := slices.Index(recs[0], "step")
	if col < 0 || recs[1][col] != "1" || recs[2][col] != "2" {
		t.Errorf("the step column does not tell the steps apart:\n%s", out)
	}
	if !strings.Contains(errs, "# formats") || !strings.Contains(errs, "## step 2 of 2") {
		t.Errorf("the headings are not on stderr:\n%s", errs)
	}

	out, errs, code = runCLI(t, testApp(), "run", p, "-q", "--format", "benchstat")
	if code != ExitOK {
		t.Fatalf("benchstat: exit %d\n%s%s", code, out, errs)
	}
	names := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		switch name, _, _ := strings.Cut(line, " "); {
		case line == "", strings.HasPrefix(line, "Unit "), regexp.MustCompile(`^[a-z-]+: `).MatchString(line):
		case strings.HasPrefix(line, "Benchmark"):
			if names[name] {
				t.Errorf("two steps' results share the name %s", name)
			}
			names[name] = true
		default:
			t.Errorf("stdout holds a line benchstat does not read: %q", line)
		}
	}
	if len(names) != 2 || strings.Count(out, "Unit ") != 1 {
		t.Errorf("want 2 benchmarks under one Unit line:\n%s", out)
	}
}

// The result records the scenario file, its title and the step.
func TestScenarioRecordedInTheResult(t *testing.T) {
	p := writeScenario(t, "title: recorded\nrun: {store: \"file:\", ops: write, c: 1, n: 3}\nsteps:\n  - {}\n  - {}\n")
	js := filepath.Join(t.TempDir(), "out.json")
	if out, errs, code := runCLI(t, testApp(), "run", p, "-q", "--json", js); code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	doc, err := result.ReadFile(strings.TrimSuffix(js, ".json") + "-2.json")
	if err != nil {
		t.Fatal(err)
	}
	if want := (result.Scenario{File: p, Title: "recorded", Step: 2, Steps: 2}); doc.Scenario == nil || *doc.Scenario != want {
		t.Errorf("scenario recorded as %+v, want %+v", doc.Scenario, want)
	}
}

// Aliases and merge keys are resolved: a step may be an alias of another,
// a value an alias, and a mapping may merge an anchored one, its own keys
// winning. Before, each was refused with a message about something else
// (steps: [*r] "want a mapping of settings", store: *s "want a value or a
// list of values", <<: unknown setting "<<").
func TestScenarioAliasesAndMergeKeys(t *testing.T) {
	p := writeScenario(t, `run: &base
  store: &s ["sqlite:", "file:"]
  ops: write
  c: 1
steps:
  - &r {n: 3}
  - *r
  - {<<: [*r, {n: 9, c: 2}], store: *s}
  - {<<: *base, store: "file:"}
`)
	sc, err := testApp().loadScenario(p)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"--store=sqlite:", "--store=file:", "--ops=write", "--c=1", "--n=3"},
		{"--store=sqlite:", "--store=file:", "--ops=write", "--c=1", "--n=3"},
		// The first merged mapping's n wins; the step's own store wins.
		{"--ops=write", "--store=sqlite:", "--store=file:", "--n=3", "--c=2"},
		{"--store=file:", "--ops=write", "--c=1"},
	}
	if len(sc.Steps) != len(want) {
		t.Fatalf("%d steps, want %d", len(sc.Steps), len(want))
	}
	for i, st := range sc.Steps {
		if !slices.Equal(st.args, want[i]) {
			t.Errorf("step %d: %q, want %q", i+1, st.args, want[i])
		}
	}
	for _, c := range []struct{ name, body, want string }{
		{"alias inside its anchor", "run: &x {n: 3, <<: *x}\n", ":1:20: the alias *x is inside its own anchor &x"},
		{"merge of a value", "run:\n  <<: 5\n", ":2:7: <<: want a mapping to merge"},
		{"a bad value through an alias is said at its anchor", "run: {n: &n ten}\nsteps:\n  - {n: *n}\n", ":1:10: n: ten: want a whole number"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, errs, code := runCLI(t, testApp(), "run", writeScenario(t, c.body))
			if code != ExitUsage || !strings.Contains(errs, c.want) {
				t.Errorf("exit %d, %q; want %q", code, errs, c.want)
			}
		})
	}
}

// An interrupted scenario says which later steps never ran. Before, it
// said "interrupted" alone, as a single run does.
func TestScenarioInterruptedSaysWhatDidNotRun(t *testing.T) {
	p := writeScenario(t, "run: {store: \"file:\", ops: write, c: 1, d: 30s}\nsteps:\n  - {}\n  - {}\n  - {}\n  - {}\n")
	for _, c := range []struct{ lang, want string }{
		{"en", "s.yaml: interrupted in step 1 of 4, so steps 2 to 4 did not run"},
		{"ja", "s.yaml: 4 ステップ中ステップ 1 で中断したため、ステップ 2〜4 は実行されていません"},
	} {
		// Cancelled while the first step, of 30 s, runs.
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		var errb bytes.Buffer
		err := testApp().Run(ctx, []string{"run", p, "--lang", c.lang}, io.Discard, &errb)
		cancel()
		var ee *ExitError
		if !errors.As(err, &ee) || ee.Code != ExitInterrupted || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want exit %d, %q\n%s", c.lang, err, ExitInterrupted, c.want, errb.String())
		}
	}
}
