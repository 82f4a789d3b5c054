package outfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

func TestWriteFollowsSymlinks(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name   string
		setup  func(path string) // makes what is at path before the write
		target string            // the file that must hold the text, relative to dir
	}{
		// A new file.
		{"new", func(string) {}, "new"},
		// An existing file is replaced.
		{"old", func(p string) { os.WriteFile(p, []byte("before"), 0o644) }, "old"},
		// A link to an existing file: the file gets the text, the link stays.
		{"link", func(p string) {
			os.WriteFile(filepath.Join(dir, "link-target"), []byte("before"), 0o644)
			os.Symlink("link-target", p)
		}, "link-target"},
		// A link to a file not there yet: the file is created.
		{"dangling", func(p string) { os.Symlink("dangling-target", p) }, "dangling-target"},
		// A link to a link in another directory.
		{"chain", func(p string) {
			os.Mkdir(filepath.Join(dir, "sub"), 0o755)
			os.Symlink("final", filepath.Join(dir, "sub", "mid"))
			os.Symlink(filepath.Join(dir, "sub", "mid"), p)
		}, "sub/final"},
	} {
		path := filepath.Join(dir, tc.name)
		tc.setup(path)
		if err := Check(path); err != nil {
			t.Fatalf("%s: Check: %v", tc.name, err)
		}
		if err := Write(path, writeString("after")); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		b, err := os.ReadFile(filepath.Join(dir, tc.target))
		if err != nil || string(b) != "after" {
			t.Errorf("%s: %s holds %q, %v", tc.name, tc.target, b, err)
		}
		if tc.target != tc.name {
			if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Errorf("%s: the link was replaced: %v, %v", tc.name, fi.Mode(), err)
			}
		}
	}
	if leftovers, _ := filepath.Glob(filepath.Join(dir, ".kurabe-*")); len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

func TestWriteFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	if err := Check(fifo); err != nil {
		t.Fatalf("Check: %v", err)
	}
	got := make(chan string)
	go func() {
		b, _ := os.ReadFile(fifo)
		got <- string(b)
	}()
	if err := Write(fifo, writeString("through the pipe")); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "through the pipe" {
		t.Errorf("read %q", s)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v, %v", fi.Mode(), err)
	}
}

func TestCheckRefuses(t *testing.T) {
	dir := t.TempDir()
	loop := filepath.Join(dir, "loop")
	os.Symlink("loop", loop)
	for _, tc := range []struct{ path, want string }{
		{"-", "/dev/stdout"},                                   // not a file named -
		{dir, "is a directory"},                                // a directory
		{dir + "/", "is a directory"},                          // one with a slash
		{filepath.Join(dir, "newdir") + "/", "ends in /"},      // one not there yet, not made a file
		{loop, "too many levels"},                              // a link to itself
		{filepath.Join(dir, "no", "x.json"), "does not exist"}, // a directory not there
		{"/proc/kurabe-test.json", "does not take new files"},  // a filesystem that makes no files
		{filepath.Join(dir, "sub", "..", "ok.json"), "<nil>"},  // fine
	} {
		err := Check(tc.path)
		msg := "<nil>"
		if err != nil {
			msg = err.Error()
		}
		if !strings.Contains(msg, tc.want) {
			t.Errorf("Check(%s) = %s, want %q", tc.path, msg, tc.want)
		}
	}
}

// TestWriteOwnDescriptor: /proc/self/fd/N (what /dev/stdout is) is written
// through the process's own descriptor, never replaced: stdout redirected
// to a regular file keeps the document and then what else the process
// writes there, in order. Opened again, the file had an offset of its own
// and the later writes overwrote the document; renamed over, the shell's
// file would have been replaced.
func TestWriteOwnDescriptor(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range []string{fmt.Sprintf("/proc/self/fd/%d", f.Fd()), fmt.Sprintf("/dev/fd/%d", f.Fd())} {
		if _, err := os.Lstat(p); err != nil {
			t.Skip("no /proc here:", err)
		}
		if err := Check(p); err != nil {
			t.Fatalf("Check(%s): %v", p, err)
		}
		if err := Write(p, writeString("document\n")); err != nil {
			t.Fatal(err)
		}
		f.WriteString("table\n")
	}
	if b, _ := os.ReadFile(f.Name()); string(b) != "document\ntable\ndocument\ntable\n" {
		t.Errorf("the file holds %q", b)
	}
}

// Writes to a held pipe, each opening and closing it, reach the reader as
// one stream: without Hold the reader's read ends at the first close.
func TestHoldKeepsAPipeOpenBetweenWrites(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	if !Direct(fifo) || Direct(filepath.Join(t.TempDir(), "out.json")) {
		t.Errorf("Direct: a FIFO %v, a new file %v; want true, false", Direct(fifo), Direct(filepath.Join(t.TempDir(), "out.json")))
	}
	release := Hold(fifo)
	got := make(chan string)
	go func() {
		b, _ := os.ReadFile(fifo)
		got <- string(b)
	}()
	for _, s := range []string{"one ", "two ", "three"} {
		if err := Write(fifo, writeString(s)); err != nil {
			t.Fatal(err)
		}
	}
	release()
	if s := <-got; s != "one two three" {
		t.Errorf("read %q, want every write", s)
	}
	// A pipe no reader opened: release does not wait for one.
	Hold(fifo)()
	// Anything else: nothing to hold.
	Hold(filepath.Join(t.TempDir(), "out.json"))()
}
