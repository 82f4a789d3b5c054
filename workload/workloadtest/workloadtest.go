// Package workloadtest holds what the workloads' tests share: building a
// workload from its flags as kurabe run does. (Stopping the servers the
// tests started is recordstest.Main.)
package workloadtest

import (
	"flag"
	"testing"

	"kurabe/workload"
)

// Build parses args with d's flags and builds d with ops (nil: the
// definition's default operations), numbering the tables as kurabe run
// does. It fails the test on a bad flag or a refused configuration.
func Build(t testing.TB, d workload.Definition, ops []string, args ...string) workload.Workload {
	t.Helper()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	d.Flags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	if ops == nil {
		_, ops = d.Ops()
	}
	w, err := d.Build(ops)
	if err != nil {
		t.Fatal(err)
	}
	for i, tb := range w.Tables() {
		tb.ID = i
	}
	return w
}
