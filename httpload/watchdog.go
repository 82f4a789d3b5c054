package httpload

import "time"

// The request timeout is enforced by a watchdog rather than by deadlines
// on the connection. fasthttp sets a read and a write deadline for every
// request when it has a timeout, and each costs a clock read and a change
// to the runtime's timers: about 4 % of kurabe's CPU per request against
// nginx on loopback. Here a client stamps when its request started (one
// atomic store, and one swap when it ends), and one goroutine looks at the
// stamps a few times per timeout and closes the connections of a request
// that has run too long. A timeout then fires between -s and -s plus one
// tick (a twentieth of -s, at least 1 ms and at most 100 ms).

// killed marks a session whose request the watchdog ended.
const killed = -1

type watchdog struct {
	w    *Workload
	tick time.Duration
	stop chan struct{}
	done chan struct{}
}

// watch registers s with the workload's watchdog, starting it if needed.
func (w *Workload) watch(s *session) {
	w.wdMu.Lock()
	defer w.wdMu.Unlock()
	w.watched = append(w.watched, s)
	if w.wd == nil {
		tick := min(max(w.cfg.Timeout/20, time.Millisecond), 100*time.Millisecond)
		w.wd = &watchdog{w: w, tick: tick, stop: make(chan struct{}), done: make(chan struct{})}
		go w.wd.run()
	}
}

// unwatch removes s, stopping the watchdog when no session is left.
func (w *Workload) unwatch(s *session) {
	w.wdMu.Lock()
	for i, x := range w.watched {
		if x == s {
			w.watched = append(w.watched[:i], w.watched[i+1:]...)
			break
		}
	}
	var wd *watchdog
	if len(w.watched) == 0 {
		wd, w.wd = w.wd, nil
	}
	w.wdMu.Unlock()
	if wd != nil {
		close(wd.stop)
		<-wd.done
	}
}

func (d *watchdog) run() {
	defer close(d.done)
	t := time.NewTicker(d.tick)
	defer t.Stop()
	limit := int64(d.w.cfg.Timeout)
	for {
		select {
		case <-d.stop:
			return
		case <-t.C:
		}
		now := int64(time.Since(d.w.epoch))
		d.w.wdMu.Lock()
		for _, s := range d.w.watched {
			if b := s.busy.Load(); b > 0 && now-(b-1) > limit && s.busy.CompareAndSwap(b, killed) {
				s.closeConns()
			}
		}
		d.w.wdMu.Unlock()
	}
}

// closeConns closes the session's open connections under their lock, so
// that a client that finds its request killed can wait for it (by taking
// the lock) before it reuses anything.
func (s *session) closeConns() {
	s.connsMu.Lock()
	defer s.connsMu.Unlock()
	for _, c := range s.conns {
		c.Conn.Close()
	}
	for _, lc := range s.lean {
		if lc.conn != nil {
			lc.conn.Close()
		}
	}
}

// track and untrack keep the session's list of open connections. track
// reports false, and keeps nothing, when the watchdog has ended the
// request meanwhile: a connection opened after the watchdog closed the
// session's would otherwise serve the rest of the request unwatched (a
// dial that took nearly the timeout, or a reconnect).
func (s *session) track(c *timedConn) bool {
	s.connsMu.Lock()
	defer s.connsMu.Unlock()
	if s.busy.Load() == killed {
		return false
	}
	s.conns = append(s.conns, c)
	return true
}

func (s *session) untrack(c *timedConn) {
	s.connsMu.Lock()
	defer s.connsMu.Unlock()
	for i, x := range s.conns {
		if x == c {
			s.conns = append(s.conns[:i], s.conns[i+1:]...)
			return
		}
	}
}
