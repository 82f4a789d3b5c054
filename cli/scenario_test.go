package cli

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kurabe/result"
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
		{"unquoted colon", "run:\n  store: file:\n", "needs quotes"},
		{"bad value", "run:\n  n: many\n", ":2:6: n: \"many\" is not valid"},
		{"unknown top key", "title: x\nruns:\n  n: 1\n", ":2:1: unknown key \"runs\""},
		{"nested value", "run:\n  store: {a: b}\n", ":2:10: store: want a value or a list"},
		{"steps not a list", "run: {n: 1}\nsteps: {n: 2}\n", ":2:8: steps: want a list"},
		{"not a mapping", "- a\n- b\n", ":1:1: a scenario is a mapping"},
		{"bad yaml", "run: [\n", "s.yaml"},
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
	if !strings.Contains(out, "# two steps") || !strings.Contains(out, "step 2 of 2") {
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

func TestShippedScenariosParse(t *testing.T) {
	files, _ := filepath.Glob("../scenarios/*.yaml")
	if len(files) == 0 {
		t.Fatal("no scenarios shipped")
	}
	for _, f := range files {
		sc, err := testApp().loadScenario(f)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if sc.Title == "" || sc.About == "" {
			t.Errorf("%s: needs a title and an about saying how to run it at full size", f)
		}
		// Every step passes run's checks, and the documented -d override
		// replaces each step's n.
		for _, extra := range [][]string{nil, {"-d", "5s"}} {
			for i, st := range sc.Steps {
				if _, err := testApp().planRun(st.with(extra, nil, position{}).args, io.Discard); err != nil && !(len(extra) > 0 && strings.Contains(err.Error(), "does not fit")) {
					t.Errorf("%s step %d %v: %v", f, i+1, extra, err)
				}
			}
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
