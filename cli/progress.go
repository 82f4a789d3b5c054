package cli

import (
	"fmt"
	"io"
	"sync"
	"time"

	"kurabe/engine"
)

// progress draws one live line on a terminal, once a second, and nothing
// when the output is not a terminal.
type progress struct {
	w     io.Writer
	on    bool
	mu    sync.Mutex
	drawn bool
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
