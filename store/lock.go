package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Locker is implemented by stores whose kurabe namespace outlives one
// kurabe: a file or database at a path, a server kurabe did not start.
// Two kurabes using one namespace at once empty and count each other's
// tables, and each would blame the store for rows the other wrote or
// removed; the command line takes the lock before it uses the store and
// refuses to run when another kurabe holds it.
//
// The lock is the process's, apart from the Store: a run that opens a
// store again (--repeat, --via-http, --vary) keeps one lock for all, which
// is why stores name what their lock covers.
type Locker interface {
	// LockName names the namespace the lock covers, the same for every
	// Store of that namespace (an absolute path, a server and database),
	// or "" when this store needs no lock (a throwaway or managed one).
	LockName() string
	// Lock takes the namespace for this process until the returned
	// Closer is closed, or the process ends (a killed kurabe holds
	// nothing). When another holds it, the error is a *HeldError.
	Lock(ctx context.Context, me Holder) (io.Closer, error)
}

// LockSharer is implemented by stores whose lock is held by a server
// connection (a session's lock, which the server releases with the
// session). The store that took the lock (Locker.Lock) uses that
// connection as its own, for setup, counting and verification, so that
// the lock takes no server connection more than a run without it; given
// the command's lock on its namespace that another of its stores took,
// a store uses it too. The lock is the command's: closing the store
// leaves it.
type LockSharer interface {
	ShareLock(l io.Closer)
}

// Holder says who holds a lock, as far as the lock can tell.
type Holder struct {
	Command string // "kurabe run"
	PID     int
	Host    string
	Since   time.Time
}

// Me returns the Holder for this process running command.
func Me(command string) Holder {
	h, _ := os.Hostname()
	return Holder{Command: command, PID: os.Getpid(), Host: h, Since: time.Now()}
}

// String is how a message names the holder: "pid 1234 on host h, since
// 10:01:02". Parts the lock could not tell are left out.
func (h Holder) String() string {
	var parts []string
	if h.PID > 0 {
		p := "pid " + strconv.Itoa(h.PID)
		if h.Host != "" {
			p += " on host " + h.Host
		}
		parts = append(parts, p)
	}
	if !h.Since.IsZero() {
		parts = append(parts, "since "+h.Since.Local().Format("15:04:05"))
	}
	return strings.Join(parts, ", ")
}

// HeldError is a lock another kurabe holds.
type HeldError struct {
	What   string // "kurabe's tables in appdb on 127.0.0.1:5432"
	Holder Holder // as much as the lock tells; Command "" when unknown
	Detail string // anything else the store could tell (a server's connection)
	Hint   string // what to point the run at instead: "another database"
}

// ErrHeld is wrapped by every HeldError.
var ErrHeld = errors.New("another kurabe is using this store")

func (e *HeldError) Error() string {
	who := e.Holder.Command
	if who == "" {
		who = "kurabe"
	}
	var in []string
	if s := e.Holder.String(); s != "" {
		in = append(in, s)
	}
	if e.Detail != "" {
		in = append(in, e.Detail)
	}
	paren := ""
	if len(in) > 0 {
		paren = " (" + strings.Join(in, "; ") + ")"
	}
	hint := e.Hint
	if hint == "" {
		hint = "another store"
	}
	return fmt.Sprintf("another %s is using %s%s; wait for it to end, or point this one at %s", who, e.What, paren, hint)
}

func (e *HeldError) Unwrap() error { return ErrHeld }

// LockFile takes an exclusive flock on path, made if missing, and writes
// me into it; what and hint are for the HeldError when another process
// holds it. Closing the returned Closer removes the file and releases
// the lock. A file left by a kurabe that was killed holds no lock and is
// taken over. Locks are advisory: only kurabes heed them.
func LockFile(path, what, hint string, me Holder) (io.Closer, error) {
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("cannot make the lock file %s: %v; kurabe locks the store with a file beside it, so its directory must be writable", path, err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			held := readHolder(f)
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, &HeldError{What: what, Holder: held, Hint: hint}
			}
			return nil, fmt.Errorf("cannot lock %s: %v", path, err)
		}
		// The holder before may have removed the file between our open
		// and our lock: then this lock is on a file nobody else sees.
		fi, err1 := f.Stat()
		pi, err2 := os.Stat(path)
		if err1 != nil || err2 != nil || !os.SameFile(fi, pi) {
			f.Close()
			continue
		}
		f.Truncate(0)
		fmt.Fprintf(f, "%s\n%d\n%s\n%s\n", me.Command, me.PID, me.Host, me.Since.UTC().Format(time.RFC3339))
		return &fileLock{f: f, path: path}, nil
	}
}

// readHolder reads what LockFile wrote; a file being written reads as
// an unknown holder.
func readHolder(f *os.File) Holder {
	b, err := io.ReadAll(io.NewSectionReader(f, 0, 4096))
	if err != nil && !errors.Is(err, io.EOF) {
		return Holder{}
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) < 4 {
		return Holder{}
	}
	h := Holder{Command: lines[0], Host: lines[2]}
	h.PID, _ = strconv.Atoi(lines[1])
	h.Since, _ = time.Parse(time.RFC3339, lines[3])
	return h
}

type fileLock struct {
	f    *os.File
	path string
}

// Close removes the file while still holding the lock, so that no other
// kurabe locks a file that is about to go.
func (l *fileLock) Close() error {
	os.Remove(l.path)
	return l.f.Close()
}
