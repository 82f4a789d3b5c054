package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"kurabe/probe"
)

func TestProbeWritesFiguresAndCleansUp(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(t.TempDir(), "probe.json")
	var stdout, stderr bytes.Buffer
	err := Default().probe(context.Background(), []string{"--dir", dir, "--duration", "150ms", "--max-mib", "64", "--json", out}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	for _, want := range []string{"disk probe of " + dir, "sequential write", "sequential read", "fsync'd 4 KB appends"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, stdout.String())
		}
	}
	r, err := probe.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if r.WriteMBps <= 0 || r.ReadMBps <= 0 || r.FsyncsPerSec <= 0 || r.FsyncP50Us <= 0 || r.Dir != dir || !r.FilesRemoved {
		t.Errorf("figures: %+v", r)
	}
	// Nothing of the probe's is left in the directory.
	if left, _ := os.ReadDir(dir); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

func TestProbeRejectsBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		// A directory that does not exist cannot be probed.
		{"missing dir", []string{"--dir", "/nonexistent/kurabe"}, "writable directory"},
		// The time per measurement must be positive.
		// The time per measurement must be positive; the error names the flag.
		{"zero duration", []string{"--duration", "0s"}, "--duration 0s: want a positive time"},
		// A directory whose filesystem takes no files (/proc) says so, not
		// "no such file or directory".
		{"proc", []string{"--dir", "/proc"}, "does not take new files"},
		// --json into a directory is found before the probe runs.
		{"json is a directory", []string{"--json", os.TempDir()}, "is a directory"},
		// Directories come with --dir, not as arguments.
		{"argument", []string{"/tmp"}, "--dir"},
		// The sequential file needs room for one block.
		{"tiny size", []string{"--max-mib", "0"}, "--max-mib 0: want 1 or more"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := Default().probe(context.Background(), tc.args, &stdout, &stderr)
			var ee *ExitError
			if !errors.As(err, &ee) || ee.Code != ExitUsage || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want a usage error mentioning %q", err, tc.want)
			}
		})
	}
}

func TestProbeInterrupted(t *testing.T) {
	// Ctrl-C stops the probe with the interrupt status, and its files go.
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	var stdout, stderr bytes.Buffer
	err := Default().probe(ctx, []string{"--dir", dir, "--duration", "5s", "--max-mib", "64"}, &stdout, &stderr)
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != ExitInterrupted {
		t.Fatalf("got %v, want the interrupt status", err)
	}
	if left, _ := os.ReadDir(dir); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

// A second Ctrl-C ends kurabe before the probe removes its files:
// Abandon, which main calls then, removes them and says so, and the line
// before it says that nothing was measured. Before, the probe's files
// (up to --max-mib) were left in the directory, and the line said no
// table, JSON or HTML was written.
func TestProbeSecondInterruptRemovesItsFiles(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		var stdout, stderr bytes.Buffer
		done <- testApp().Run(ctx, []string{"probe", "--dir", dir, "--duration", "5s", "--max-mib", "64"}, &stdout, &stderr)
	}()
	// Once the probe has made a file and told kurabe of it.
	told := func() bool {
		scratch.mu.Lock()
		defer scratch.mu.Unlock()
		return slices.ContainsFunc(scratch.dirs, func(p string) bool { return strings.HasPrefix(p, filepath.Join(dir, ".kurabe-probe-")) })
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		if told() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the probe told kurabe of no file of its own within 10s")
		}
	}
	var said bytes.Buffer
	said.WriteString(StoppedLine())
	Abandon(&said)
	left, _ := os.ReadDir(dir)
	cancel()
	<-done
	if len(left) > 0 || !strings.Contains(said.String(), "kurabe: stopped at once, measuring nothing\n") || !strings.Contains(said.String(), "kurabe: removed "+filepath.Join(dir, ".kurabe-probe-")) {
		t.Errorf("left %v; said:\n%s", left, said.String())
	}
}

// TestDiskProbeOfAnotherFilesystem: a probe of tmpfs (/dev/shm) given to a
// load run whose SQLite store is on the disk draws no conclusion from
// tmpfs's fsync rate (before: "235.2 fsyncs' time per row"); it says the
// probe was of another filesystem and which probe to make. A probe of the
// stores' own directory still draws it.
func TestDiskProbeOfAnotherFilesystem(t *testing.T) {
	if fi, err := os.Stat("/dev/shm"); err != nil || !fi.IsDir() {
		t.Skip("no /dev/shm here")
	}
	shm, err := os.MkdirTemp("/dev/shm", "kurabe-test-")
	if err != nil {
		t.Skip(err)
	}
	defer os.RemoveAll(shm)
	runDir, tmp := t.TempDir(), t.TempDir()
	probeOf := func(dir, name string) string {
		out := filepath.Join(tmp, name)
		var stdout, stderr bytes.Buffer
		if err := Default().probe(context.Background(), []string{"--dir", dir, "--duration", "150ms", "--max-mib", "8", "--json", out}, &stdout, &stderr); err != nil {
			t.Fatalf("probe %s: %v\n%s", dir, err, stderr.String())
		}
		return out
	}
	for _, tc := range []struct {
		name, probe string
		want, not   string
	}{
		{"tmpfs", probeOf(shm, "shm.json"), "another filesystem than the stores' " + runDir, "fsyncs' time per row"},
		{"same disk", probeOf(t.TempDir(), "disk.json"), "fsyncs' time per row", "another filesystem"},
	} {
		out, errs, code := runCLI(t, testApp(), "run", "-w", "load", "--store", "sqlite:", "--dataset-rows", "200", "--dir", runDir, "-q", "--disk-probe", tc.probe)
		if code != ExitOK {
			t.Fatalf("%s: status %d\n%s%s", tc.name, code, out, errs)
		}
		if !strings.Contains(out, tc.want) || strings.Contains(out, tc.not) {
			t.Errorf("%s probe: want %q and not %q in:\n%s", tc.name, tc.want, tc.not, out)
		}
		if tc.name == "tmpfs" && !strings.Contains(out, "kurabe probe --dir "+runDir) {
			t.Errorf("tmpfs probe: does not say which probe to make:\n%s", out)
		}
	}

	// Without --dir the stores live in a temporary directory that the run
	// removes: the probe to make is of a directory that is still there,
	// on the same filesystem (its parent). Before, the note named the
	// removed directory, and following it gave "no such file or directory".
	base := t.TempDir()
	t.Setenv("TMPDIR", base)
	out, errs, code := runCLI(t, testApp(), "run", "-w", "load", "--store", "sqlite:", "--dataset-rows", "200", "-q", "--disk-probe", probeOf(shm, "shm2.json"))
	if code != ExitOK {
		t.Fatalf("temporary directory: status %d\n%s%s", code, out, errs)
	}
	m := regexp.MustCompile(`another filesystem than the stores' (\S+) .*run kurabe probe --dir (\S+) --json`).FindStringSubmatch(out)
	if m == nil || filepath.Dir(m[1]) != base || m[2] != base {
		t.Fatalf("temporary directory: want the stores' directory under %s and a probe of %s; got %q in:\n%s", base, base, m, out)
	}
	if _, err := os.Stat(m[1]); err == nil {
		t.Errorf("the run's temporary directory %s is still there", m[1])
	}
	if fi, err := os.Stat(m[2]); err != nil || !fi.IsDir() {
		t.Errorf("the directory to probe, %s: %v", m[2], err)
	}
}
