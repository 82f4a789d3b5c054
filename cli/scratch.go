package cli

import (
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"kurabe/report"
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

// stopLang is the language of the lines a second interrupt prints
// (StoppedLine, Abandon): the command's (commandLang), set by App.Run.
var stopLang atomic.Value

func stopLanguage() string {
	if l, ok := stopLang.Load().(string); ok {
		return l
	}
	return report.English
}

// stoppedAtOnce is what the second interrupt says of each command, in
// lang: what it left undone. dataset import says more as it goes
// (setStopped).
func stoppedAtOnce(command, lang string) string {
	switch command {
	case "report", "compare":
		return report.Sprintf(lang, "stopped.report")
	case "serve":
		return "stopped at once, cutting off the requests in flight"
	case "capture":
		return "stopped at once, saving no log"
	case "probe":
		return "stopped at once, measuring nothing"
	case "dataset":
		return "stopped at once; nothing was loaded"
	case "clean":
		return report.Sprintf(lang, "clean.stopped")
	}
	// run, http, replay: they write their results at the end.
	return report.Sprintf(lang, "stopped.results")
}

// StoppedLine is what kurabe says on stderr when a second interrupt
// stops it at once, before Abandon's lines: what the command leaves (an
// import, that the table holds what it held before; a run, that no
// results were written).
func StoppedLine() string {
	s := report.Sprintf(stopLanguage(), "stopped.results")
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
	lang := stopLanguage()
	if n := server.KillAll(5 * time.Second); n > 0 {
		fmt.Fprintln(w, "kurabe: "+report.Sprintf(lang, "abandon.killed", n))
	}
	scratch.mu.Lock()
	dirs := slices.Clone(scratch.dirs)
	scratch.mu.Unlock()
	for _, d := range dirs {
		if err := os.RemoveAll(d); err != nil {
			fmt.Fprintln(w, "kurabe: "+report.Sprintf(lang, "abandon.unremoved", d, err))
		} else {
			fmt.Fprintln(w, "kurabe: "+report.Sprintf(lang, "abandon.removed", d))
		}
	}
}
