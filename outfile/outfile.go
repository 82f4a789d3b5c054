// Package outfile writes kurabe's output files (results, reports, charts,
// captured logs), the one place they are written.
//
// A regular file is written atomically: through a temporary file in its
// directory, synced, then renamed over it, so a reader never sees half a
// file and an interrupted write leaves the old one. A path that is a
// symbolic link is followed first, and the file it names is the one
// replaced: renaming over the link itself would turn it into a file and
// leave its target stale. A device, FIFO or terminal (/dev/stdout, a named
// pipe) cannot be renamed over; it is written directly, as a shell's
// redirection would, and a failed write (/dev/full) is an error.
package outfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// target is where writing path goes: the file at the end of its symbolic
// links, and whether it is to be written directly rather than replaced.
type target struct {
	path   string
	direct bool
	fd     int // > 0: one of the process's open files, by number (/dev/stdout)
}

// resolve follows path's symbolic links to the file they name, which may
// not exist yet (a link to a file to create). A link into /proc (what
// /dev/stdout and /dev/fd/N are) names an open file of the process, which
// must be written through, never replaced: a shell that redirected
// kurabe's output to a file still holds it open.
func resolve(path string) (target, error) {
	p := filepath.Clean(path) // "dir/" is dir, not dir/dir
	if strings.HasSuffix(path, "/") {
		// A name ending in / is a directory's, whether or not it is there
		// yet: written as a file, "newdir/" would become a file newdir.
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			return target{}, errors.New("is a directory; give the name of a file to write")
		}
		return target{}, errors.New("ends in /, so it names a directory; give the name of a file to write (a directory of charts is --png DIR or --svg DIR)")
	}
	for range 40 {
		// The directory's own links first: /dev/fd/1 is /proc/self/fd/1.
		if d, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
			p = filepath.Join(d, filepath.Base(p))
		}
		fi, err := os.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return target{path: p}, nil
		case err != nil:
			return target{}, err
		case fi.Mode()&fs.ModeSymlink != 0 && strings.HasPrefix(filepath.Clean(p), "/proc/"):
			return target{path: p, direct: true, fd: ownFD(p)}, nil
		case fi.Mode()&fs.ModeSymlink != 0:
			dest, err := os.Readlink(p)
			if err != nil {
				return target{}, err
			}
			if !filepath.IsAbs(dest) {
				dest = filepath.Join(filepath.Dir(p), dest)
			}
			p = dest
		case fi.Mode().IsRegular():
			return target{path: p}, nil
		case fi.IsDir():
			return target{}, errors.New("is a directory; give the name of a file to write")
		case fi.Mode()&fs.ModeSocket != 0:
			return target{}, errors.New("is a socket, which cannot be opened as a file; give the name of a file to write")
		default: // a device or a FIFO
			return target{path: p, direct: true}, nil
		}
	}
	return target{}, errors.New("too many levels of symbolic links; give the name of a file to write")
}

// ownFD returns N for /proc/self/fd/N (or /proc/PID/fd/N of this
// process), else 0. kurabe writes such a file through its own descriptor:
// opened again, a regular file that stdout was redirected to would get an
// offset of its own, and the table written to stdout after it would
// overwrite it.
func ownFD(p string) int {
	rest, ok := strings.CutPrefix(filepath.Clean(p), "/proc/self/fd/")
	if !ok {
		rest, ok = strings.CutPrefix(filepath.Clean(p), "/proc/"+strconv.Itoa(os.Getpid())+"/fd/")
	}
	if n, err := strconv.Atoi(rest); ok && err == nil && n > 0 {
		return n
	}
	return 0
}

// fdWriter writes to an open file descriptor of the process, which it
// does not own (and must not close, as an *os.File would when collected).
type fdWriter int

func (w fdWriter) Write(b []byte) (int, error) {
	n := 0
	for n < len(b) {
		k, err := syscall.Write(int(w), b[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return n, err
		}
		n += k
	}
	return n, nil
}

// Check says, before a run, whether path can be written when the run
// ends: "-" is refused (the table goes to stdout; write /dev/stdout to
// have a file printed after it), a directory or socket is refused, a
// regular file or a new one needs a directory that exists and takes new
// files, and a device or FIFO must be open to writing. "" is no file.
func Check(path string) error {
	if path == "" {
		return nil
	}
	if path == "-" {
		return errors.New("kurabe does not take - for stdout, where its tables go; give a file name, or /dev/stdout to write there anyway")
	}
	t, err := resolve(path)
	if err != nil {
		return err
	}
	if t.direct {
		// Not opened to try: closing a FIFO would end its reader's input.
		if err := syscall.Access(t.path, 2 /* W_OK */); err != nil {
			return fmt.Errorf("cannot write to it: %v; give the name of a file to write", err)
		}
		return nil
	}
	dir := filepath.Dir(t.path)
	fi, err := os.Stat(dir)
	switch {
	case err != nil && errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("directory %s does not exist; create it or choose another", dir)
	case err != nil:
		return fmt.Errorf("%v; choose a writable directory", err)
	case !fi.IsDir():
		return fmt.Errorf("%s is not a directory", dir)
	}
	if err := WritableDir(dir); err != nil {
		return fmt.Errorf("cannot write in %s: %v; choose a writable directory", dir, err)
	}
	return nil
}

// WritableDir checks that dir takes new files, by making one and removing
// it.
func WritableDir(dir string) error {
	f, err := os.CreateTemp(dir, ".kurabe-probe-*")
	if err != nil {
		if fi, serr := os.Stat(dir); serr == nil && !fi.IsDir() {
			return errors.New("not a directory")
		} else if serr == nil && errors.Is(err, os.ErrNotExist) {
			// The directory is there, but its filesystem makes no
			// files (/proc): the system's "no such file" would mislead.
			return errors.New("its filesystem does not take new files")
		}
		var pe *os.PathError
		if errors.As(err, &pe) {
			return pe.Err
		}
		return err
	}
	f.Close()
	return os.Remove(f.Name())
}

// Write writes path with write: atomically for a regular file (or a new
// one), at the end of its symbolic links; directly for a device or FIFO.
func Write(path string, write func(io.Writer) error) error {
	t, err := resolve(path)
	if err != nil {
		return fmt.Errorf("cannot write %s: %v", path, err)
	}
	if t.fd > 0 {
		if err := write(fdWriter(t.fd)); err != nil {
			return fmt.Errorf("cannot write %s: %v", path, err)
		}
		return nil
	}
	if t.direct {
		f, err := os.OpenFile(t.path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return fmt.Errorf("cannot write %s: %v", path, err)
		}
		err = write(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err // the path is said once
			}
			return fmt.Errorf("cannot write %s: %v", path, err)
		}
		return nil
	}
	f, err := os.CreateTemp(filepath.Dir(t.path), ".kurabe-*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %v; choose a writable directory", path, err)
	}
	err = write(f)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), t.path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("cannot write %s: %v", path, err)
	}
	return nil
}

// Direct reports whether path is written directly (a device, a FIFO, an
// open file of the process such as /dev/stdout) rather than replaced: a
// target that cannot take files beside it, since it is no file in a
// directory of files.
func Direct(path string) bool {
	t, err := resolve(path)
	return err == nil && t.direct
}

// Hold keeps a named pipe open for writing until release is called, so
// that several writes to it, each opening and closing it (a scenario's
// steps, each writing its document), reach its reader as one stream: the
// reader sees the end only when the last is written and release closes the
// pipe. For any other path Hold does nothing.
//
// The pipe is opened in the background, since opening a pipe for writing
// waits for a reader; a writer blocked in that open already counts as one,
// so a write that closes the pipe before the open returns does not end the
// reader's stream. release never waits for a reader that never came: it
// opens the pipe for reading itself, without waiting, to let the open
// return.
func Hold(path string) (release func()) {
	t, err := resolve(path)
	if err != nil || !t.direct || t.fd > 0 {
		return func() {}
	}
	if fi, err := os.Stat(t.path); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		return func() {}
	}
	opened := make(chan *os.File, 1)
	go func() {
		f, _ := os.OpenFile(t.path, os.O_WRONLY, 0) // nil on error
		opened <- f
	}()
	return func() {
		var f *os.File
		select {
		case f = <-opened:
		default:
			// No reader came: be one for a moment, so the open returns.
			r, err := os.OpenFile(t.path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
			if err != nil {
				return // the open waits on; nothing was written to it
			}
			defer r.Close()
			f = <-opened
		}
		if f != nil {
			f.Close()
		}
	}
}
