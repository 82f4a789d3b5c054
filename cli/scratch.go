package cli

import (
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
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
