package cli

import (
	"fmt"
	"io"
	"sync"
	"time"

	"kurabe/engine"
	"kurabe/report"
)

// progress draws one live line on a terminal, once a second. Outside a
// terminal it says only what a start that takes long waits for (after),
// a line at a time, so that a log shows why nothing else came yet.
type progress struct {
	w     io.Writer
	on    bool
	mu    sync.Mutex
	drawn bool
	// lang is the language of the lines.
	lang string
	// after is how long a start runs, outside a terminal, before a line
	// says what it waits for: 0 never (-q), below 0 at once (tests).
	after time.Duration
}

// startRepeat is how often a line says a start still goes on, once it
// has said so the first time.
const startRepeat = time.Minute

// start says that a start (a store set up, a data set loaded, sessions
// opened) begins, with what (in p.lang). On a terminal it is the live
// line at once, until clear or the phase's first tick replaces it.
// Outside a terminal, a start that is still going after p.after gets a
// line on stderr, "kurabe: sqlite write: opening 1,000 sessions, 2s so
// far"), and another each startRepeat. done, safe to call more than once,
// ends it (and waits for a line being written).
func (p *progress) start(what string) (done func()) {
	if p.on {
		p.note(what)
		return func() {}
	}
	if p.after == 0 {
		return func() {}
	}
	t0 := time.Now()
	say := func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		fmt.Fprintln(p.w, "kurabe: "+report.Sprintf(p.lang, "progress.waiting", what, time.Since(t0).Round(time.Second)))
	}
	if p.after < 0 {
		say()
		return func() {}
	}
	stop, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTimer(p.after)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				say()
				t.Reset(startRepeat)
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() { close(stop); <-finished })
	}
}

func (p *progress) tick(label string) func(engine.Progress) {
	if !p.on {
		return nil
	}
	return func(g engine.Progress) {
		state := ""
		if g.Warmup {
			state = " warm-up"
		}
		done := fmt.Sprintf("%d ops", g.Ops)
		if g.Target > 0 {
			done = fmt.Sprintf("%d/%d ops", g.Ops, g.Target)
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		fmt.Fprintf(p.w, "\r\x1b[K%s %s%s  %s  %s  %.0f ops/s  p99 %s  errors %d",
			label, g.Op, state, g.Elapsed.Truncate(time.Second), done, g.OpsPerSec, g.P99.Round(time.Microsecond), g.Errors)
		p.drawn = true
	}
}

func (p *progress) clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.drawn = false
	}
}

// say writes a line on stderr that stays, prefixed "kurabe: ", whether or
// not progress is shown (-q): what went wrong as it happens.
func (p *progress) say(line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.drawn = false
	}
	fmt.Fprintln(p.w, "kurabe: "+line)
}

// note shows a line of what is happening between phases.
func (p *progress) note(msg string) {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprint(p.w, "\r\x1b[K"+msg)
	p.drawn = true
}
