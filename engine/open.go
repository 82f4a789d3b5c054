package engine

import (
	"context"
	"math"
	"runtime"
	"sync/atomic"
	"time"

	"kurabe/hist"
	"kurabe/result"
)

// LateAfter is how far behind its scheduled start an operation may begin
// before the open loop counts it as late. Sleeping on this kind of machine
// overshoots by up to a millisecond when a vCPU has to wake, so a tighter
// bound would count the clock, not the store.
const LateAfter = 2 * time.Millisecond

// schedule is the open loop's timetable: when operation number seq should
// start, as time since the phase's start. The warm-up runs at the starting
// rate; the measured part runs at Rate, or ramps linearly from Rate to
// RampTo over Duration.
type schedule struct {
	next    atomic.Int64 // the next operation number to hand out
	r0, r1  float64      // ops/s at the start and end of the measured part
	warmup  time.Duration
	dur     time.Duration // measured duration, 0 when count-bound
	count   int64         // measured operations, 0 when time-bound
	warmOps int64
}

func newSchedule(cfg Config) *schedule {
	s := &schedule{r0: cfg.Rate, r1: cfg.RampTo, warmup: cfg.Warmup, dur: cfg.Duration, count: cfg.Count}
	if s.r1 == 0 {
		s.r1 = s.r0
	}
	s.warmOps = int64(s.r0 * cfg.Warmup.Seconds())
	return s
}

// at returns when operation seq is due, and false when seq lies beyond the
// end of the phase.
func (s *schedule) at(seq int64) (time.Duration, bool) {
	if seq < s.warmOps {
		return time.Duration(float64(seq) / s.r0 * 1e9), true
	}
	j := float64(seq - s.warmOps)
	if s.count > 0 && seq-s.warmOps >= s.count {
		return 0, false
	}
	var tau float64 // seconds into the measured part
	a := 0.0
	if s.dur > 0 {
		a = (s.r1 - s.r0) / s.dur.Seconds() // ops/s per second
	}
	if math.Abs(a) < 1e-12 {
		tau = j / s.r0
	} else {
		// Solve r0*t + a*t²/2 = j for t: operations due by time t.
		disc := s.r0*s.r0 + 2*a*j
		if disc < 0 {
			return 0, false
		}
		tau = (-s.r0 + math.Sqrt(disc)) / a
	}
	if s.dur > 0 && tau >= s.dur.Seconds() {
		return 0, false
	}
	return s.warmup + time.Duration(tau*1e9), true
}

// runOpen is one client's loop in the open model: take the next operation
// from the shared timetable, wait for its time, run it. Latency is measured
// from the scheduled start, so time spent waiting for a free client counts
// (no coordinated omission); the service time and the lag behind the
// schedule are recorded apart.
func (w *worker) runOpen(ctx context.Context, stop *atomic.Bool, s *schedule) {
	for !stop.Load() && !w.gone {
		due, ok := s.at(s.next.Add(1) - 1)
		if !ok {
			// A timed phase lasts -d even when its last operation is due
			// before the end (-R 0.5 -d 3s: two operations, three
			// seconds), or the rate achieved would be over too short a
			// time.
			for end := s.warmup + s.dur; s.dur > 0 && !stop.Load(); {
				left := end - time.Since(w.epoch)
				if left <= 0 {
					break
				}
				time.Sleep(min(left, 50*time.Millisecond))
			}
			break
		}
		now := time.Since(w.epoch)
		waited := due > now
		if waited {
			time.Sleep(due - now)
		} else if s.dur > 0 && now >= s.warmup+s.dur && now-due > LateAfter {
			// The phase is over: what is due but not started by now is
			// counted as not run, not run late, or a rate the store
			// cannot keep would stretch the phase without end.
			break
		}
		measure := due >= s.warmup
		k := w.pick()
		if w.ct != nil {
			w.ct.ConnectTime() // connecting done outside operations is not theirs
		}
		t0 := time.Since(w.epoch)
		if w.lagger != nil {
			w.lagger.Lag(t0 - due)
		}
		if measure {
			w.lastOpen = t0
		}
		d, err := w.client.Do(ctx, k)
		t1 := time.Since(w.epoch)
		ks := &w.kinds[k]
		ks.rows += d.Rows
		if err != nil {
			w.fail(k, d, cutOff(ctx, err), measure)
			if w.reopener != nil && ctx.Err() == nil && w.reopener.Lost() {
				// Operations due meanwhile are taken by the other
				// clients, or counted as not started.
				w.reopen(ctx)
			}
			continue
		}
		ks.acks++
		if !measure {
			w.warm.Record(int64(t1 - due))
			w.warmOps++
			continue
		}
		w.rec[k].Record(int64(t1 - due))
		w.svcRec.Record(int64(t1 - t0))
		if w.ct != nil {
			// As in the closed loop: the connect, and the service time
			// without it.
			c := w.ct.ConnectTime()
			w.connRec.Record(int64(c))
			w.exclRec.Record(int64(t1 - t0 - c))
		}
		w.lagRec.Record(int64(t0 - due))
		if t0-due > LateAfter {
			w.late++
			if !waited {
				// The client came straight from its previous operation
				// and found this one overdue: when it was due, this
				// client was busy, and so was every other, or one of
				// them would have taken it (a free client always takes
				// the next operation and sleeps until it is due).
				w.busyLate++
			}
		}
		ks.read += d.Read
		ks.written += d.Written
	}
	w.finish = max(time.Since(w.epoch)-s.warmup, 0)
}

// openLoopResult gathers the open loop's own figures and judges whether the
// rate was kept, and if not, whether kurabe's own CPU was the reason.
func openLoopResult(cfg Config, s *schedule, workers []*worker, res *result.Phase) *result.OpenLoop {
	var svc, lag hist.Snapshot
	o := &result.OpenLoop{Rate: cfg.Rate, RampTo: cfg.RampTo, LateAfterUs: float64(LateAfter.Microseconds())}
	var lastOpen time.Duration
	for _, w := range workers {
		w.svcRec.AddTo(&svc)
		w.lagRec.AddTo(&lag)
		o.Late += w.late
		o.AllBusy += w.busyLate
		lastOpen = max(lastOpen, w.lastOpen-s.warmup)
	}
	o.Service = result.Summarize(&svc)
	o.Lag = result.Summarize(&lag)
	o.Scheduled = min(s.next.Load(), s.warmOps+s.count) - s.warmOps
	if cfg.Count == 0 {
		// An interrupted phase is judged on the part that ran.
		end := s.warmup + cfg.Duration
		if res.Interrupted {
			end = s.warmup + time.Duration(res.Elapsed*1e9)
		}
		o.Scheduled = s.measuredUntil(end)
	}
	o.ScheduledRate = o.MeanRate()
	started := float64(res.Ops + res.Errors)
	// The rate achieved is the operations started per second of the
	// timetable, as the rate asked for is, not per second of the phase,
	// which runs on until the last response: a second's timetable (-d
	// 1s) whose last operation took 40 ms came out at 96/s of 100/s
	// started on time.
	var span float64
	if cfg.Count > 0 {
		// A count-bound phase's timetable gives its operations n/Rate
		// seconds (the last is due 1/Rate before the end of its slot);
		// when they started later than that (a store that fell behind),
		// the time until the end of the slot the last one started in. A
		// count-bound phase has one rate: a ramp needs -d.
		span = max(started, 1) / cfg.Rate
		if started > 0 {
			span = max(span, lastOpen.Seconds()+1/cfg.Rate)
		}
	} else {
		// A timed phase's timetable is -d; an interrupted one's, the part
		// that ran.
		span = cfg.Duration.Seconds()
		if res.Interrupted {
			span = min(span, res.Elapsed)
		}
	}
	if span > 0 {
		o.Achieved = started / span
	}
	o.NotStarted = max(o.Scheduled-res.Ops-res.Errors, 0)
	// An operation no client had started by the end was due while every
	// client was busy, as a late one that its client found overdue.
	o.AllBusy += o.NotStarted
	if behind(o.Scheduled, o.NotStarted, o.Late) {
		o.Behind = true
		o.Note = behindWhy(o, res.ProcessCPU, runtime.NumCPU())
	}
	return o
}

// behindWhy says why an open loop that fell behind did (OpenLoop.Note),
// from its figures and kurabe's own CPU (in cores, of cpus).
func behindWhy(o *result.OpenLoop, processCPU float64, cpus int) string {
	switch {
	case processCPU >= 0.9*float64(cpus):
		return result.BehindClient
	case 2*o.AllBusy >= o.Late+o.NotStarted:
		// Most of the shortfall waited for a client: too few clients
		// for the rate at this latency (-c below rate × latency).
		// Whether the store could serve more in parallel is not known
		// from here; the report says how many clients the rate needs
		// at the latency measured.
		return result.BehindBusy
	case o.Service.Count > 0 && o.Service.P99 < float64(LateAfter.Microseconds()):
		// The store answered in less than the lateness bound almost
		// every time, and the clients were free: the late starts are
		// the clients' waking, not the store's doing.
		return result.BehindTimer
	}
	return result.BehindStore
}

// behind judges an open-loop phase: more than 1 % of the scheduled
// operations did not start before the phase ended, or more than 5 %
// started late. A few of either are the clock's, not the store's, on a
// machine whose vCPUs sleep: one operation due at the very end, five late
// starts.
func behind(scheduled, notStarted, late int64) bool {
	if scheduled <= 0 {
		return false
	}
	want := float64(scheduled)
	return late > 5 && float64(late)/want > 0.05 ||
		notStarted > 1 && float64(notStarted)/want > 0.01
}

// measuredUntil counts the operations the timetable holds in the measured
// part of a time-bound phase that are due before end (from the phase's
// start, warm-up included).
func (s *schedule) measuredUntil(end time.Duration) int64 {
	due := func(seq int64) bool {
		t, ok := s.at(seq)
		return ok && t < end
	}
	// The timetable is monotonic: search for the first operation past the end.
	lo, hi := s.warmOps, s.warmOps+1
	for due(hi) {
		hi *= 2
	}
	for lo < hi {
		mid := (lo + hi) / 2
		if due(mid) {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo - s.warmOps
}
