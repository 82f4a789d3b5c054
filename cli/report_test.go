package cli

import (
	"bytes"
	"encoding/csv"
	"encoding/xml"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"kurabe/result"
)

// realRuns runs kurabe twice with the same small configuration, file and
// SQLite, two repeats, and returns the two result documents' paths.
func realRuns(t *testing.T) (string, string) {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for _, name := range []string{"a.json", "b.json"} {
		js := filepath.Join(dir, name)
		_, errs, code := runCLI(t, testApp(), "run", "--store", "file:", "--store", "sqlite:", "--ops", "write,read-latest",
			"-n", "120", "-c", "2", "--repeat", "2", "--seed", "3", "--json", js)
		if code != 0 {
			t.Fatalf("kurabe run: exit %d: %s", code, errs)
		}
		paths = append(paths, js)
	}
	return paths[0], paths[1]
}

func TestReportOnRealRuns(t *testing.T) {
	a, b := realRuns(t)
	dir := t.TempDir()
	html := filepath.Join(dir, "report.html")
	pngs, svgs := filepath.Join(dir, "png"), filepath.Join(dir, "svg")

	// Tables on stdout, text by default.
	out, errs, code := runCLI(t, testApp(), "report", a)
	if code != 0 || !strings.Contains(out, "write #2") || !strings.Contains(out, "sqlite") {
		t.Fatalf("report: exit %d\n%s%s", code, out, errs)
	}

	// Files, with flags after the documents; --format as well prints CSV.
	out, errs, code = runCLI(t, testApp(), "report", a, b, "--html", html, "--png", pngs, "--svg", svgs, "--format", "csv", "--lang", "en")
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, errs)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(recs) != 1+2*2*2*2 { // header + 2 runs × 2 stores × 2 ops × 2 repeats
		t.Fatalf("csv: %v, %d records\n%s", err, len(recs), out)
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "Verified", `id="run2"`, "Runs side by side", "sqlite"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	for _, d := range []string{pngs, svgs} {
		files, _ := filepath.Glob(filepath.Join(d, "*"))
		if len(files) != 2*5 { // per run: throughput, 2 latency, 2 timeline
			t.Errorf("%s: %d charts: %v", d, len(files), files)
		}
		for _, f := range files {
			if !strings.Contains(errs, "wrote "+f) {
				t.Errorf("%s not listed on stderr", f)
			}
			b, err := os.ReadFile(f)
			if err != nil || len(b) == 0 {
				t.Fatalf("%s: %v, %d bytes", f, err, len(b))
			}
			if strings.HasSuffix(f, ".png") {
				if _, err := png.Decode(bytes.NewReader(b)); err != nil {
					t.Errorf("%s: %v", f, err)
				}
			} else if err := xml.Unmarshal(b, new(struct{})); err != nil {
				t.Errorf("%s: not XML: %v", f, err)
			}
		}
	}

	// benchstat and Markdown, in Japanese.
	out, _, code = runCLI(t, testApp(), "report", "--format", "benchstat", a)
	if code != 0 || !strings.Contains(out, "BenchmarkKurabe/store=sqlite/op=write/clients=2 120 ") {
		t.Errorf("benchstat: exit %d\n%s", code, out)
	}
	out, _, code = runCLI(t, testApp(), "report", "--format", "markdown", "--lang", "ja", a)
	if code != 0 || !strings.Contains(out, "| ストア | 操作 | ops/s |") {
		t.Errorf("markdown ja: exit %d\n%s", code, out)
	}
}

func TestCompareOnRealRuns(t *testing.T) {
	a, b := realRuns(t)
	out, errs, code := runCLI(t, testApp(), "compare", a, b, "--lang", "en")
	if code != 0 {
		t.Fatalf("compare: exit %d: %s", code, errs)
	}
	// Two repeats per side: too few to call anything significant, so
	// the change of the medians is shown marked untested, never ~.
	rows := 0
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "file ") || strings.HasPrefix(line, "sqlite ") {
			rows++
			if !strings.Contains(line, "% (untested)  n=2+2 (too few samples)") {
				t.Errorf("row not marked untested with too few samples: %s", line)
			}
		}
	}
	if rows != 8 { // 2 stores × 2 ops × (ops/s, p99)
		t.Errorf("%d rows, want 8:\n%s", rows, out)
	}
	// The same command twice: nothing said about interrupts or settings.
	for _, not := range []string{"interrupted", "the runs ran with other settings"} {
		if strings.Contains(out, not) {
			t.Errorf("runs alike, yet %q said:\n%s", not, out)
		}
	}

	// A run cut short (as kurabe run records a Ctrl-C) and set up
	// differently: both said above the tables.
	c := filepath.Join(t.TempDir(), "c.json")
	if _, errs, code := runCLI(t, testApp(), "run", "--store", "sqlite:", "--ops", "write,read-latest",
		"-n", "60", "-c", "2", "--repeat", "2", "--seed", "3", "--json", c); code != 0 {
		t.Fatalf("kurabe run: exit %d: %s", code, errs)
	}
	js, err := os.ReadFile(c)
	if err != nil {
		t.Fatal(err)
	}
	js = bytes.Replace(js, []byte(`"interrupted": false`), []byte(`"interrupted": true`), 1)
	if !bytes.Contains(js, []byte(`"interrupted": true`)) {
		t.Fatalf("no interrupted field to set in %s", c)
	}
	if err := os.WriteFile(c, js, 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, code = runCLI(t, testApp(), "compare", a, c, "--lang", "en")
	if code != 0 {
		t.Fatalf("compare: exit %d: %s", code, errs)
	}
	for _, want := range []string{"the new run was interrupted: its figures cover only the part that ran\n",
		"the runs ran with other settings: -n 120 → 60\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q:\n%s", want, out)
		}
	}
	out, _, code = runCLI(t, testApp(), "compare", "--format", "markdown", a, b)
	if code != 0 || !strings.Contains(out, "|---|---|---:|---:|---:|---|") {
		t.Errorf("markdown: exit %d\n%s", code, out)
	}
}

// TestCompareFindsSynchronousFull runs SQLite's writes with synchronous=OFF
// and FULL (an fsync per commit), four repeats each, and expects compare
// to call the difference significant, as the issue asks.
func TestCompareFindsSynchronousFull(t *testing.T) {
	if testing.Short() {
		t.Skip("runs SQLite with fsync")
	}
	dir := t.TempDir()
	// synchronous=full differs from off by its fsyncs. Where an fsync costs
	// next to nothing (tmpfs, a virtual disk that ignores flushes) the two
	// run alike, and compare rightly finds no difference: there is nothing
	// here for the test to find.
	if d := fsyncTime(t, dir); d < 50*time.Microsecond {
		t.Skipf("an fsync in %s takes %v: synchronous=full costs nothing measurable here", dir, d)
	}
	var paths []string
	for _, sync := range []string{"off", "full"} {
		js := filepath.Join(dir, sync+".json")
		// One store per run: labelled "sqlite" in both, so compare pairs them.
		_, errs, code := runCLI(t, testApp(), "run", "--store", "sqlite:?journal_mode=delete&synchronous="+sync, "--ops", "write",
			"-n", "150", "-c", "1", "--repeat", "4", "--dir", filepath.Join(dir, sync), "--json", js)
		if code != 0 {
			t.Fatalf("run synchronous=%s: exit %d: %s", sync, code, errs)
		}
		paths = append(paths, js)
	}
	out, errs, code := runCLI(t, testApp(), "compare", paths[0], paths[1], "--lang", "en")
	if code != 0 {
		t.Fatalf("compare: exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "\nsqlite ran with other settings: synchronous off → full\n") {
		t.Errorf("compare does not say the setting changed:\n%s", out)
	}
	var line string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "sqlite ") && strings.Contains(l, " write ") {
			line = l
			break
		}
	}
	if line == "" || strings.Contains(line, " ~ ") || !strings.Contains(line, "%") {
		t.Fatalf("synchronous=off vs full not significant:\n%s", out)
	}
}

// fsyncTime returns the median time of an fsync'd 4 KB append in dir.
func fsyncTime(t *testing.T, dir string) time.Duration {
	t.Helper()
	f, err := os.CreateTemp(dir, "fsync-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	block := make([]byte, 4096)
	times := make([]time.Duration, 21)
	for i := range times {
		start := time.Now()
		if _, err := f.Write(block); err != nil {
			t.Fatal(err)
		}
		if err := f.Sync(); err != nil {
			t.Fatal(err)
		}
		times[i] = time.Since(start)
	}
	slices.Sort(times)
	return times[len(times)/2]
}

func TestReportAndCompareBadInputIsOneLineExit2(t *testing.T) {
	dir := t.TempDir()
	notJSON := filepath.Join(dir, "x.json")
	os.WriteFile(notJSON, []byte("hello"), 0o644)
	good := filepath.Join(dir, "good.json")
	if _, errs, code := runCLI(t, testApp(), "run", "--store", "file:", "--ops", "write", "-n", "10", "-c", "1", "--json", good); code != 0 {
		t.Fatal(errs)
	}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no file", []string{"report"}, "no result given"},
		{"missing file", []string{"report", filepath.Join(dir, "nope.json")}, "no such file"},
		{"not a result", []string{"report", notJSON}, "not a kurabe result"},
		{"bad format", []string{"report", good, "--format", "pdf"}, "--format"},
		{"bad lang", []string{"report", good, "--lang", "fr"}, "--lang"},
		{"html in a missing dir", []string{"report", good, "--html", filepath.Join(dir, "no", "such", "r.html")}, "does not exist"},
		{"png dir is a file", []string{"report", good, "--png", notJSON}, "--png"},
		{"unknown flag", []string{"report", good, "--pdf", "x"}, "unknown flag --pdf; see kurabe help report"},
		{"compare one file", []string{"compare", good}, "two results"},
		{"compare bad format", []string{"compare", good, good, "--format", "csv"}, "--format"},
		{"compare not a result", []string{"compare", good, notJSON}, "not a kurabe result"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, errs, code := runCLI(t, testApp(), c.args...)
			if code != ExitUsage {
				t.Fatalf("exit %d, want 2; stderr %s", code, errs)
			}
			last := strings.TrimSpace(errs[strings.LastIndex(strings.TrimSuffix(errs, "\n"), "\n")+1:])
			if !strings.Contains(last, c.want) {
				t.Fatalf("error line %q lacks %q", last, c.want)
			}
			if out != "" {
				t.Fatalf("printed on bad input: %s", out)
			}
		})
	}
}

// TestResultRecordsTheCommand: the result document holds the command line
// after "kurabe" with its command's name first, so the report's "kurabe
// run --store ..." runs when pasted (it was "kurabe --store ..."), and a
// password in a store's URL stays hidden.
func TestResultRecordsTheCommand(t *testing.T) {
	js := filepath.Join(t.TempDir(), "r.json")
	args := []string{"run", "--store", "file:", "--ops", "write", "-n", "5", "-c", "1,2", "-q", "--json", js}
	if out, errs, code := runCLI(t, testApp(), args...); code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	doc, err := result.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(doc.Command, args) {
		t.Errorf("command %q, want %q", doc.Command, args)
	}
	if got := redactArgs([]string{"--store", "postgres://app:s3cret@db/app"}); strings.Contains(strings.Join(got, " "), "s3cret") {
		t.Errorf("a password shows: %q", got)
	}
}

// TestCompareSaysAStoreFailed: a store that failed in the new run (an
// SQLite path that is not a database) is said to have failed, with its
// error, under the tables and in the exit (status 1, as run's for a
// failed store); before, compare listed its operations as "only in old"
// and exited 0. With no other store to compare, it is still the failure
// that is reported (1), not bad input (2).
func TestCompareSaysAStoreFailed(t *testing.T) {
	dir := t.TempDir()
	// SQLite's header, then garbage: Open takes it (the header is
	// there), and the store fails when SQLite reads it.
	notDB := filepath.Join(dir, "notdb")
	if err := os.WriteFile(notDB, append([]byte("SQLite format 3\x00"), bytes.Repeat([]byte{0xff}, 200)...), 0o644); err != nil {
		t.Fatal(err)
	}
	good, failed, alone := filepath.Join(dir, "good.json"), filepath.Join(dir, "failed.json"), filepath.Join(dir, "alone.json")
	for _, r := range []struct {
		json   string
		stores []string
	}{
		{good, []string{"sqlite:", "file:"}},
		{failed, []string{"sqlite:" + notDB, "file:"}},
		{alone, []string{"sqlite:" + notDB}},
	} {
		args := []string{"run", "--ops", "write", "-n", "10", "-c", "1", "-q", "--dir", t.TempDir(), "--json", r.json}
		for _, s := range r.stores {
			args = append(args, "--store", s)
		}
		if _, errs, code := runCLI(t, testApp(), args...); code == ExitUsage {
			t.Fatalf("%v: exit %d\n%s", args, code, errs)
		}
	}
	out, errs, code := runCLI(t, testApp(), "compare", good, failed)
	if code != ExitFailed || !strings.Contains(out, "sqlite FAILED in the new run, so its figures there are missing: ") || !strings.Contains(out, "file is not a database") {
		t.Errorf("exit %d; want 1 and the failure under the tables:\n%s%s", code, out, errs)
	}
	if !strings.Contains(errs, "store sqlite failed in the new run ("+failed+"), so it was not compared") {
		t.Errorf("the exit does not name the failure: %s", errs)
	}
	if !strings.Contains(out, "file   write") {
		t.Errorf("the store that ran in both is not compared:\n%s", out)
	}
	if strings.Contains(out, "only in old") {
		t.Errorf("the failed store's phases are listed as only in the old run:\n%s", out)
	}
	out, errs, code = runCLI(t, testApp(), "compare", failed, good)
	if code != ExitFailed || !strings.Contains(out, "sqlite FAILED in the old run") {
		t.Errorf("a failure in the old run: exit %d\n%s%s", code, out, errs)
	}
	_, errs, code = runCLI(t, testApp(), "compare", good, alone)
	if code != ExitFailed || !strings.Contains(errs, "store sqlite failed in the new run") {
		t.Errorf("nothing in common but a failed store: exit %d, %s", code, errs)
	}
}

// TestOutputsWriteThroughLinksAndPipes: an output path that is a symbolic
// link writes the file it names, and a FIFO is written, not replaced by a
// regular file (before, the temporary file was renamed over the link or
// the FIFO, and over /dev/full as root). "-" is refused rather than taken
// for a file named "-".
func TestOutputsWriteThroughLinksAndPipes(t *testing.T) {
	dir := t.TempDir()
	js, fifo := filepath.Join(dir, "run.json"), filepath.Join(dir, "pipe.html")
	if err := os.Symlink("results/run.json", js); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(dir, "results"), 0o755)
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	read := make(chan []byte)
	go func() {
		b, _ := os.ReadFile(fifo)
		read <- b
	}()
	_, errs, code := runCLI(t, testApp(), "run", "--store", "file:", "--ops", "write", "-n", "20", "-c", "1", "--json", js, "--html", fifo)
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, errs)
	}
	select {
	case page := <-read:
		if !bytes.Contains(page, []byte("</html>")) {
			t.Errorf("the FIFO's reader got %d bytes, no whole page", len(page))
		}
	case <-time.After(10 * time.Second):
		t.Error("nothing was written to the FIFO") // its reader waits on
	}
	for _, p := range []string{js, fifo} {
		if fi, err := os.Lstat(p); err != nil || fi.Mode().IsRegular() {
			t.Errorf("%s was replaced by a regular file: %v, %v", p, fi.Mode(), err)
		}
	}
	if _, err := result.ReadFile(filepath.Join(dir, "results", "run.json")); err != nil {
		t.Fatalf("the link's target: %v", err)
	}

	// kurabe report --html through a link to an existing file.
	html, target := filepath.Join(dir, "link.html"), filepath.Join(dir, "target.html")
	os.WriteFile(target, []byte("old"), 0o644)
	os.Symlink("target.html", html)
	if _, errs, code := runCLI(t, testApp(), "report", js, "--html", html); code != 0 {
		t.Fatalf("report: exit %d: %s", code, errs)
	}
	if b, _ := os.ReadFile(target); !bytes.Contains(b, []byte("</html>")) {
		t.Errorf("target.html not rewritten: %.40q", b)
	}
	if fi, err := os.Lstat(html); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("link.html is no longer a link: %v, %v", fi.Mode(), err)
	}

	for _, args := range [][]string{
		{"run", "--json", "-", "-n", "1"},
		{"report", js, "--html", "-"},
		{"probe", "--json", "-"},
	} {
		_, errs, code := runCLI(t, testApp(), args...)
		if code != ExitUsage || !strings.Contains(errs, "/dev/stdout") || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, want %d and one line that suggests /dev/stdout:\n%s", args, code, ExitUsage, errs)
		}
	}
	if _, err := os.Lstat("-"); err == nil {
		t.Error(`a file named "-" was written`)
	}
}

// TestCompareSaysSkipped: a phase the workload skipped on a store (crud's
// update on SQLite with connect=per-op, which speaks no SQL across
// operations) measured nothing, so compare shows it as skipped on the
// side where it was, with no change, rather than leaving it out or
// calling it a phase of one run only. A phase that skipped some of its
// operations (ycsb A's updates on the file store) is compared, with a
// note that its figures are of the operations that ran.
func TestCompareSaysSkipped(t *testing.T) {
	dir := t.TempDir()
	runs := map[string][]string{
		"session": {"-w", "crud", "--store", "sqlite:", "--ops", "insert,update"},
		"per-op":  {"-w", "crud", "--store", "sqlite:?connect=per-op", "--ops", "insert,update"},
		"ycsb":    {"-w", "ycsb", "--store", "file:", "--ops", "A", "--recordcount", "50"},
	}
	for name, args := range runs {
		args = append(args, "-n", "40", "-c", "2", "-q", "--json", filepath.Join(dir, name+".json"))
		if _, errs, code := runCLI(t, testApp(), append([]string{"run"}, args...)...); code != 0 {
			t.Fatalf("kurabe run %v: exit %d: %s", args, code, errs)
		}
	}
	doc := func(name string) string { return filepath.Join(dir, name+".json") }
	rowOf := func(out, prefix string) []string {
		var rows []string
		for _, line := range strings.Split(out, "\n") {
			if line = strings.Join(strings.Fields(line), " "); strings.HasPrefix(line, prefix+" ") {
				rows = append(rows, line)
			}
		}
		return rows
	}
	for _, tc := range []struct {
		old, new string
		lang     string
		want     *regexp.Regexp // each update row (ops/s, then p99)
	}{
		// skipped in the new run only: the old figure, then skipped
		{"session", "per-op", "en", regexp.MustCompile(`^sqlite update [0-9.,]+(µs|ms|s)? skipped - -$`)},
		// skipped in the old run only
		{"per-op", "session", "en", regexp.MustCompile(`^sqlite update skipped [0-9.,]+(µs|ms|s)? - -$`)},
		// skipped in both, in Japanese
		{"per-op", "per-op", "ja", regexp.MustCompile(`^sqlite update スキップ スキップ - -$`)},
	} {
		out, errs, code := runCLI(t, testApp(), "compare", doc(tc.old), doc(tc.new), "--lang", tc.lang)
		if code != 0 {
			t.Errorf("%s → %s: exit %d: %s", tc.old, tc.new, code, errs)
			continue
		}
		rows := rowOf(out, "sqlite update")
		if len(rows) != 2 {
			t.Errorf("%s → %s: %d update rows, want 2 (ops/s, p99):\n%s", tc.old, tc.new, len(rows), out)
		}
		for _, r := range rows {
			if !tc.want.MatchString(r) {
				t.Errorf("%s → %s: update row %q, want %s", tc.old, tc.new, r, tc.want)
			}
		}
		if strings.Contains(out, "only in") || strings.Contains(out, "のみ") {
			t.Errorf("%s → %s: a skipped phase listed as in one run only:\n%s", tc.old, tc.new, out)
		}
	}

	out, errs, code := runCLI(t, testApp(), "compare", doc("ycsb"), doc("ycsb"), "--lang", "en")
	if code != 0 {
		t.Fatalf("ycsb: exit %d: %s", code, errs)
	}
	var rows []string
	for _, r := range rowOf(out, "file A") {
		if strings.Contains(r, " n=1+1 ") { // a table's row, not a note
			rows = append(rows, r)
		}
	}
	if len(rows) != 2 || strings.Contains(strings.Join(rows, "\n"), "skipped") {
		t.Errorf("ycsb A on the file store: rows %q, want 2 compared rows:\n%s", rows, out)
	}
	for _, side := range []string{"old", "new"} {
		if !regexp.MustCompile(`file A skipped [0-9,]+ operations in the ` + side + ` run .*: its ` + side + ` figures are of the others`).MatchString(out) {
			t.Errorf("no note of the %s run's skipped operations:\n%s", side, out)
		}
	}
}
