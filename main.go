// Command kurabe compares data stores under the same workload.
package main

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"kurabe/cli"
)

// exiting is held by whichever ends the process: main when the command
// returns, or the second signal's clean-up, which the other then waits
// for rather than exiting in the middle of it.
var exiting sync.Mutex

func main() {
	code := cli.Main(interruptible(), os.Args[1:], os.Stdout, os.Stderr)
	exiting.Lock()
	if code == cli.ExitInterrupted && terminated.Load() {
		code = 143 // 128 + SIGTERM, as a shell reports it
	}
	os.Exit(code)
}

// terminated says the first signal was a SIGTERM: a command it stopped
// exits 143, not Ctrl-C's 130, so that a script can tell them apart.
var terminated atomic.Bool

// sameSignal is how soon after the first a second Ctrl-C (or SIGTERM)
// counts as the same one: timeout(1) and a terminal can each deliver one
// signal twice (to kurabe and to its process group), within microseconds,
// while a person's second Ctrl-C takes longer. Another signal (SIGTERM
// after Ctrl-C) is a second request whenever it comes.
const sameSignal = 500 * time.Millisecond

// interruptible returns a context that the first Ctrl-C (or SIGTERM)
// cancels, so that the run stops cleanly and writes its result; a second
// one (the same signal at least sameSignal later, or the other signal)
// exits at once, after saying what the command leaves (cli.StoppedLine:
// a run writes no result, an import leaves the table as it was), killing
// the servers kurabe started and removing its temporary directories
// (cli.Abandon). The second is handled here rather than left to the
// signal's default action, which a shell ignores for a job it started in
// the background.
func interruptible() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		s0 := <-sig
		first := time.Now()
		terminated.Store(s0 == syscall.SIGTERM) // before the command can see the cancel and end
		cancel()
		if s0 == syscall.SIGTERM {
			os.Stderr.WriteString(stoppingTerm)
		} else {
			os.Stderr.WriteString(cli.StoppingLine(os.Args[1:], os.Getenv))
		}
		s := <-sig
		for s == s0 && time.Since(first) < sameSignal { // the first one again
			s = <-sig
		}
		code := 130 // 128 + SIGINT, as a shell reports it
		if s == syscall.SIGTERM {
			code = 143
		}
		exiting.Lock()
		os.Stderr.WriteString(cli.StoppedLine())
		cli.Abandon(os.Stderr)
		os.Exit(code)
	}()
	return ctx
}

// stoppingTerm is what kurabe says on a first SIGTERM: it comes from a
// service manager or a script, which the hint of a second Ctrl-C (given
// on a Ctrl-C, in the run's language: cli.StoppingLine) would only puzzle.
const stoppingTerm = "\nkurabe: stopping (SIGTERM)\n"
