package probe

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestRunMeasuresAndRemovesItsFiles(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cached bool
	}{
		// O_DIRECT where the test's filesystem takes it (ext4 and recent
		// tmpfs do); the note says when it did not.
		{"direct", false},
		// Through the page cache, synced, the cache dropped before reading.
		{"cached", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := DefaultConfig()
			cfg.Dir, cfg.Duration, cfg.MaxBytes, cfg.Cached = dir, 100*time.Millisecond, 8<<20, tc.cached
			r, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if r.WriteMBps <= 0 || r.ReadMBps <= 0 || r.WriteBytes <= 0 || r.ReadBytes <= 0 {
				t.Errorf("sequential figures not positive: %+v", r)
			}
			if r.FsyncsPerSec <= 0 || r.Fsyncs <= 0 || r.FsyncP50Us <= 0 || r.FsyncP99Us < r.FsyncP50Us || r.FsyncMaxUs < r.FsyncP99Us {
				t.Errorf("fsync figures: %+v", r)
			}
			if tc.cached && (r.Direct || !strings.Contains(r.Note, "page cache")) {
				t.Errorf("cached run: direct=%v note %q", r.Direct, r.Note)
			}
			if !r.Direct {
				// Every full pass over the 8 MiB file was synced inside the
				// timed write, and the end: written through the cache, a
				// small file rewritten unsynced gave the cache's speed
				// (12,147 MB/s reported as a disk's).
				if passes := int(r.WriteBytes / cfg.MaxBytes); r.WriteSyncs < passes || r.WriteSyncs < 1 {
					t.Errorf("wrote %d bytes (%d passes over the file) with %d syncs in the timed part", r.WriteBytes, passes, r.WriteSyncs)
				}
				// An 8 MiB file fits in memory: the read may be the cache's.
				if !strings.Contains(r.Note, "the read figure may be the page cache's") {
					t.Errorf("read through the cache of a file that fits in memory, and the note does not say its figure may be the cache's: %q", r.Note)
				}
			} else if r.WriteSyncs != 1 {
				t.Errorf("O_DIRECT write: %d syncs, want the one at the end", r.WriteSyncs)
			}
			if !tc.cached && !r.Direct && !strings.Contains(r.Note, "O_DIRECT") {
				t.Errorf("no O_DIRECT and no note saying why: %+v", r)
			}
			// The size limit holds even though the time outlasts it.
			if r.WriteBytes > cfg.MaxBytes && r.WriteSeconds < 0.05 {
				t.Errorf("wrote %d bytes in %.3f s", r.WriteBytes, r.WriteSeconds)
			}
			if left, _ := os.ReadDir(dir); len(left) > 0 || !r.FilesRemoved {
				t.Errorf("left behind: %v (removed %v)", left, r.FilesRemoved)
			}
		})
	}
}

func TestResultRoundTrip(t *testing.T) {
	// A result written as JSON reads back equal, for a run to record it.
	r := Result{Dir: "/d", Filesystem: "ext4", Direct: true, BlockBytes: 1 << 20, WriteMBps: 512, ReadMBps: 900, FsyncsPerSec: 5200, FsyncP50Us: 180, FilesRemoved: true}
	b, err := r.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "p.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(r)
	if string(g) != string(w) {
		t.Errorf("round trip:\n got %s\nwant %s", g, w)
	}
	// A JSON file without figures is not a probe result.
	os.WriteFile(path, []byte(`{"schema":1}`), 0o644)
	if _, err := ReadFile(path); err == nil || !strings.Contains(err.Error(), "not a kurabe probe result") {
		t.Errorf("empty result: %v", err)
	}
}

func TestValidate(t *testing.T) {
	ok := DefaultConfig()
	for _, tc := range []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"default", func(*Config) {}, ""},
		// Without a directory there is nothing to probe.
		{"no dir", func(c *Config) { c.Dir = "" }, "directory"},
		// Each measurement needs some time.
		{"no time", func(c *Config) { c.Duration = 0 }, "positive"},
		// O_DIRECT needs blocks aligned to 4096 bytes.
		{"odd block", func(c *Config) { c.Block = 1000 }, "multiple of 4096"},
		// The file must hold at least one block.
		{"tiny limit", func(c *Config) { c.MaxBytes = 4096 }, "at least one block"},
	} {
		c := ok
		tc.edit(&c)
		err := c.Validate()
		if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestLines(t *testing.T) {
	r := Result{Dir: "/d", Filesystem: "ext4", Direct: true, BlockBytes: 1 << 20, WriteBytes: 1536e6, WriteSeconds: 3, WriteMBps: 512,
		ReadBytes: 2700e6, ReadSeconds: 3, ReadMBps: 900, Fsyncs: 15600, FsyncSeconds: 3, FsyncsPerSec: 5200, FsyncP50Us: 180, FsyncP99Us: 410, FsyncMaxUs: 3200, FilesRemoved: true}
	got := strings.Join(r.Lines(), "\n")
	want := `disk probe of /d (ext4)
sequential write  512 MB/s   1,536 MB in 3.00 s, 1024 KiB blocks, O_DIRECT, synced
sequential read   900 MB/s   2,700 MB in 3.00 s, O_DIRECT
fsync'd 4 KB appends  5,200/s   p50 180µs  p99 410µs  max 3.20ms   15,600 in 3.00 s`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
