package result

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"kurabe/hist"
)

func sample() *Document {
	r := hist.NewRecorder()
	for i := int64(1); i <= 1000; i++ {
		r.Record(i * 1000)
	}
	var s hist.Snapshot
	r.AddTo(&s)
	return &Document{
		Schema: Schema, Kurabe: "test", Command: []string{"run"}, Seed: 5,
		Started: time.Date(2026, 11, 22, 6, 0, 0, 0, time.UTC), Finished: time.Date(2026, 11, 22, 6, 0, 5, 0, time.UTC),
		Run: RunConfig{Workload: "bbs", Ops: []string{"write"}, Clients: 2, Count: 1000, Warmup: Duration(time.Second)},
		Stores: []Store{{Label: "file", Phases: []Phase{{Op: "write", Ops: 1000, Latency: Summarize(&s),
			Verify: []Verify{{Table: "posts", Acked: 1000, After: 990, Lost: 10}}}}}},
	}
}

func TestWriteReadRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	d := sample()
	if err := WriteFile(path, d); err != nil {
		t.Fatal(err)
	}
	back, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d, back) {
		t.Fatalf("round trip changed the document:\n%+v\n%+v", d, back)
	}
	if lost, _ := back.Lost(); lost != 10 {
		t.Fatalf("Lost = %d", lost)
	}
	// No temporary file is left beside the result.
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("%d files in the directory, want 1", len(entries))
	}
}

func TestReadRejectsOtherFiles(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, body string
		want       string // in the error, beside the file's name
		not        string // never in it
	}{
		// Only a newer schema asks for a newer kurabe.
		{"future.json", `{"schema": 99}`, "has result schema 99, newer than this kurabe reads (1 to 1); upgrade kurabe", ""},
		{"notjson.json", `hello`, "is not a kurabe result", "upgrade"},
		// JSON without a schema is some other document, not an old result.
		{"noschema.json", `{}`, "is not a kurabe result: it has no \"schema\" of 1 or more", "upgrade"},
		{"zero.json", `{"schema": 0, "stores": []}`, "is not a kurabe result", "upgrade"},
		{"negative.json", `{"schema": -1}`, "is not a kurabe result", "upgrade"},
		{"array.json", `[1, 2]`, "is not a kurabe result", "upgrade"},
		{"stringschema.json", `{"schema": "1"}`, "is not a kurabe result", "upgrade"},
	}
	for _, c := range cases {
		p := filepath.Join(dir, c.name)
		os.WriteFile(p, []byte(c.body), 0o644)
		_, err := ReadFile(p)
		if err == nil || !strings.Contains(err.Error(), p+" "+c.want) || (c.not != "" && strings.Contains(err.Error(), c.not)) {
			t.Errorf("%s: err = %v; want %q", c.name, err, c.want)
		}
	}
}

func TestSummarizeMatchesHistogram(t *testing.T) {
	l := sample().Stores[0].Phases[0].Latency
	if l.Count != 1000 || l.Min != 1 || l.Max != 1000 || l.Mean < 500 || l.Mean > 501 {
		t.Fatalf("summary %+v", l)
	}
	if l.P99 < 988 || l.P99 > 992 {
		t.Fatalf("p99 = %f µs, want ~990", l.P99)
	}
}

func TestCollectEnv(t *testing.T) {
	e := CollectEnv(t.TempDir())
	if e.Cores < 1 || e.GoVersion == "" || e.OS == "" || len(e.Filesystems) != 1 {
		t.Fatalf("env %+v", e)
	}
	for _, fs := range e.Filesystems {
		if fs == "" || fs == "unknown" {
			t.Fatalf("filesystem type %q", fs)
		}
	}
}

// TestReadsMultiplexedAsLoop: results written before client_io said
// "multiplexed" for clients on one event loop; they read back as
// client_io "loop", so reports still say how the clients waited.
func TestReadsMultiplexedAsLoop(t *testing.T) {
	p := filepath.Join(t.TempDir(), "old.json")
	body := `{"schema": 1, "stores": [{"label": "postgres", "phases": [{"op": "read", "multiplexed": true}, {"op": "write"}]}]}`
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	ph := d.Stores[0].Phases
	if ph[0].ClientIO != "loop" || ph[0].Multiplexed || ph[1].ClientIO != "" {
		t.Errorf("phases read back as %q (multiplexed %v) and %q; want loop, false and empty", ph[0].ClientIO, ph[0].Multiplexed, ph[1].ClientIO)
	}
}
