package cli

import (
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"kurabe/store/server"
)

// scratch holds the temporary directories of the running command: removed
// when the command ends, or by Abandon when the process must end at once.
var scratch struct {
	mu   sync.Mutex
	dirs []string
}

// removeLater records dir as temporary and returns the function that
// removes it (to defer).
func removeLater(dir string) func() {
	scratch.mu.Lock()
	scratch.dirs = append(scratch.dirs, dir)
	scratch.mu.Unlock()
	return func() {
		os.RemoveAll(dir)
		scratch.mu.Lock()
		scratch.dirs = slices.DeleteFunc(scratch.dirs, func(d string) bool { return d == dir })
		scratch.mu.Unlock()
	}
}

// stopped is what a second interrupt says the command leaves, set by the
// command as it goes (setStopped); App.Run sets each command's own first.
var stopped atomic.Pointer[string]

func setStopped(s string) { stopped.Store(&s) }

// resultsUnwritten is what a second interrupt leaves of a command that
// writes its results at the end (run, http, replay).
const resultsUnwritten = "stopped at once, writing no results (no table, JSON or HTML)"

// stoppedAtOnce is what the second interrupt says of each command: what it
// left undone. dataset import says more as it goes (setStopped).
func stoppedAtOnce(command string) string {
	switch command {
	case "report", "compare":
		return "stopped at once; what was not yet written was not written"
	case "serve":
		return "stopped at once, cutting off the requests in flight"
	case "capture":
		return "stopped at once, saving no log"
	case "probe":
		return "stopped at once, measuring nothing"
	case "dataset":
		return "stopped at once; nothing was loaded"
	case "clean":
		return "stopped at once; on PostgreSQL nothing was dropped (a clean is one transaction); on MariaDB/MySQL the tables dropped so far are gone, and kurabe_meta lists the others"
	}
	return resultsUnwritten
}

// StoppedLine is what kurabe says on stderr when a second interrupt
// stops it at once, before Abandon's lines: what the command leaves (an
// import, that the table holds what it held before; a run, that no
// results were written).
func StoppedLine() string {
	s := resultsUnwritten
	if p := stopped.Load(); p != nil {
		s = *p
	}
	return "kurabe: " + s + "\n"
}

// Abandon ends what the command started, for a process that must exit at
// once (a second Ctrl-C): it kills the servers kurabe started, which run
// in process groups of their own and would outlive it, removes its
// temporary directories (the ones --dir or --keep did not ask to keep),
// and says so on w.
func Abandon(w io.Writer) {
	if n := server.KillAll(5 * time.Second); n > 0 {
		fmt.Fprintf(w, "kurabe: killed %d server process group(s) it had started\n", n)
	}
	scratch.mu.Lock()
	dirs := slices.Clone(scratch.dirs)
	scratch.mu.Unlock()
	for _, d := range dirs {
		if err := os.RemoveAll(d); err != nil {
			fmt.Fprintf(w, "kurabe: could not remove %s: %v\n", d, err)
		} else {
			fmt.Fprintf(w, "kurabe: removed %s\n", d)
		}
	}
}
