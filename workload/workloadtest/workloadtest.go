// Package workloadtest holds what the workloads' tests share: building a
// workload from its flags as kurabe run does. (Stopping the servers the
// tests started is recordstest.Main.)
package workloadtest

import (
	"flag"
	"slices"
	"testing"

	"kurabe/result"
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

// CheckBytes checks that a phase counted its bytes by direction: every
// kind that ran and is named in read has bytes read, every one named in
// written bytes written, and none has bytes in a direction it is not
// named in (a load or an update reads nothing; a lookup writes nothing).
// The phase's totals must be its kinds' sums.
func CheckBytes(t testing.TB, p result.Phase, read, written []string) {
	t.Helper()
	var r, w int64
	for _, k := range p.Kinds {
		r, w = r+k.BytesRead, w+k.BytesWritten
		if k.Ops == 0 {
			continue
		}
		if got, want := k.BytesRead > 0, slices.Contains(read, k.Name); got != want {
			t.Errorf("%s %s: %d bytes read, want some: %v", p.Op, k.Name, k.BytesRead, want)
		}
		if got, want := k.BytesWritten > 0, slices.Contains(written, k.Name); got != want {
			t.Errorf("%s %s: %d bytes written, want some: %v", p.Op, k.Name, k.BytesWritten, want)
		}
	}
	if r != p.BytesRead || w != p.BytesWritten {
		t.Errorf("%s: %d bytes read and %d written, its kinds' sum %d and %d", p.Op, p.BytesRead, p.BytesWritten, r, w)
	}
}
