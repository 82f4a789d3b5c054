package ycsb_test

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kurabe/cli"
	"kurabe/result"
	"kurabe/stores"
	"kurabe/workload/ycsb"
	"kurabe/workloads"
)

// app is kurabe with ycsb in its table of workloads (added here when the
// table does not list it yet), every other workload's flags beside it.
func app() *cli.App {
	ws := slices.Clone(workloads.Builtin)
	if !slices.ContainsFunc(ws, func(e workloads.Entry) bool { return e.Name == "ycsb" }) {
		ws = append(ws, workloads.Entry{Name: "ycsb", New: ycsb.New})
	}
	return &cli.App{Stores: stores.Builtin, Workloads: ws, Terminal: func(io.Writer) bool { return false }}
}

func TestRunFromTheCommandLine(t *testing.T) {
	// kurabe run -w ycsb on SQLite and the file store: the letters' phases
	// in the table, the settings in the header, every operation kind in
	// the result document, and the file store's updates skipped with a
	// note rather than faked; the run succeeds (nothing lost).
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	var stdout, stderr bytes.Buffer
	err := app().Run(context.Background(), []string{"run", "--store", "sqlite:", "--store", "file:", "-w", "ycsb", "--ops", "B,D",
		"--recordcount", "300", "--field-size", "10", "--insert-order", "ordered", "-c", "1", "-n", "400", "--seed", "9", "--json", out}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s%s", err, stdout.String(), stderr.String())
	}
	text := stdout.String()
	for _, want := range []string{"workload ycsb B,D", "recordcount=300", "insert_order=ordered", "sqlite  B", "file    D",
		"file: ycsb update and rmw need SQL", "sqlite: ycsb load: 300 records of 10 fields of 10 bytes, ordered keys, through the store's bulk path"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	doc, err := result.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range doc.Stores {
		for _, p := range s.Phases {
			var kinds []string
			for _, k := range p.Kinds {
				kinds = append(kinds, k.Name)
			}
			want := map[string][]string{"B": {"read", "update"}, "D": {"read", "insert"}}[p.Op]
			if !slices.Equal(kinds, want) {
				t.Errorf("%s %s: kinds %v, want %v", s.Label, p.Op, kinds, want)
			}
		}
		if len(s.Prepared) != 1 || s.Prepared[0].Rows != 300 {
			t.Errorf("%s: prepared %+v", s.Label, s.Prepared)
		}
	}
}

func TestHelpListsTheFlags(t *testing.T) {
	// Every workload's flags share one set: ycsb's register beside the
	// others' without a clash, and help shows them.
	var stdout, stderr bytes.Buffer
	app().Run(context.Background(), []string{"help", "run"}, &stdout, &stderr)
	help := stdout.String() + stderr.String()
	for _, f := range []string{"-ycsb", "-recordcount", "-fields", "-field-size", "-distribution", "-scan-max", "-insert-order"} {
		if !strings.Contains(help, f+" ") {
			t.Errorf("help run lacks %s", f)
		}
	}
}
