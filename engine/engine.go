// Package engine runs a workload's phases against a store and measures them.
//
// The load model is a closed loop: C clients, each with its own session,
// RNG and histograms, perform one operation after another (with optional
// think time), either a fixed total of operations spread exactly over the
// clients or for a fixed duration. Timing happens here, in one place that
// wraps every operation; stores and workloads never time themselves.
//
// The hot path is one worker's loop: draw a kind, read the clock, call the
// client, read the clock, record into the worker's own histogram. It takes
// no lock, looks nothing up in a map, formats nothing and allocates nothing.
// A ticker reads all workers' histograms once a second (atomically, without
// stopping them) to build the per-second series and the live progress line.
package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"kurabe/hist"
	"kurabe/result"
	"kurabe/store"
	"kurabe/workload"
)

// Config says how to drive a phase.
type Config struct {
	Clients int
	Count   int64 // total operations per phase, spread over the clients
	// Shares, when set, is each client's own count (Count is then their
	// sum): isolated clients whose tables each need their own number of
	// operations (crud's batch delete empties each client's table).
	// Closed loop only.
	Shares   []int64
	Duration time.Duration // or: run each phase this long (Count must be 0)
	Warmup   time.Duration // run this long first, outside the results
	ThinkMin time.Duration // delay between one client's operations:
	ThinkMax time.Duration // uniform in [ThinkMin, ThinkMax]
	Seed     uint64
	// Rate, when above 0, makes the phase an open loop: operations start
	// on a timetable of Rate per second (ramping linearly to RampTo over
	// Duration when RampTo is set), whether or not earlier ones finished,
	// taken by whichever of the Clients is free.
	Rate   float64
	RampTo float64
	// Tick, if set, is called about once a second with the phase's progress,
	// from a goroutine of its own.
	Tick func(Progress)
	// Opened, if set, is called once every client has opened its session
	// (or failed to), before the clock starts: the end of a start that
	// may take long (thousands of connections to a server).
	Opened func()
	// PerClient, when set, isolates the clients: client i runs
	// PerClient[i], an instance of the same workload built with tables of
	// its own (--isolate), instead of the workload RunPhase is given. It
	// needs at least Clients instances with the same kinds and phases.
	PerClient []workload.Workload
	// PerClientStore, with PerClient, gives client i a store of its own
	// too (a SQLite database file each); nil shares the phase's store.
	PerClientStore []store.Store
	// NoYield keeps clients from yielding the processor between
	// operations when there are more clients than processors. Set it when
	// every operation waits on the network (HTTP load): the wait already
	// makes clients take turns, and the yield would only wake idle threads.
	// Stores that say so (store.Networked) get the same without it.
	NoYield bool
	// Grace is how long operations in flight at the phase's end (or an
	// interrupt) may take before they are cut off through their context,
	// and counted as failed (class timeout); 0 is DefaultGrace.
	Grace time.Duration
	// Gone, when closed, says the store's server is gone (a managed
	// server died: store.Mortal): the phase stops as at its end, its
	// clients' operations on the dead connections failing at once, and
	// no client waits to reopen a session on it.
	Gone <-chan struct{}
	// IO says how clients whose sessions can wait on their sockets
	// themselves (store.Multiplexed) wait for replies in closed-loop
	// phases without think time: IOAuto (the zero value) picks threads or
	// the loop by the number of clients per processor.
	IO ClientIO
}

// ClientIO is how the clients of a phase wait for their sessions' replies.
type ClientIO string

const (
	// IOAuto: IOThreads up to ThreadsPerCPU clients per processor, IOLoop
	// beyond.
	IOAuto ClientIO = ""
	// IOThreads: each client on a thread of its own, blocked in poll(2)
	// on its socket, as pgbench -j C and sysbench run their clients.
	IOThreads ClientIO = "threads"
	// IOLoop: all the clients as coroutines of one thread, woken by one
	// epoll set, as pgbench's single thread serves its connections.
	IOLoop ClientIO = "loop"
	// IOPoller: a goroutine per client, waiting in Go's network poller.
	IOPoller ClientIO = "poller"
)

// ThreadsPerCPU is where IOAuto turns from threads to the loop. Measured
// on 2 cores (PostgreSQL select-only; README, "How it measures"): a thread per client
// did 1.2-2.5x the loop's operations at 2 to 8 clients, about as many at
// 16 and 32, with longer worst cases: past a few clients per core the
// clients' threads queue for the cores behind the server's, while the
// loop takes the replies that came in while it worked in one batch.
const ThreadsPerCPU = 4

// ParseClientIO reads a --mux value; "true" is auto and "false" poller,
// as the flag was once on or off.
func ParseClientIO(s string) (ClientIO, error) {
	switch s {
	case "auto", "true", "":
		return IOAuto, nil
	case "threads", "loop", "poller":
		return ClientIO(s), nil
	case "false", "off":
		return IOPoller, nil
	}
	return "", errors.New("want auto, threads, loop or poller")
}

// Validate checks the configuration and says what to change.
func (c Config) Validate() error {
	switch {
	case c.Clients < 1:
		return fmt.Errorf("clients: %d; want 1 or more", c.Clients)
	case c.IO != IOAuto && c.IO != IOThreads && c.IO != IOLoop && c.IO != IOPoller:
		return fmt.Errorf("client I/O %q: want threads, loop or poller, or empty for auto", c.IO)
	case c.Count < 0 || c.Duration < 0 || c.Warmup < 0 || c.Grace < 0:
		return errors.New("count, duration, warm-up and grace must not be negative")
	case c.Count == 0 && c.Duration == 0:
		return errors.New("give a number of operations (-n) or a duration (-d)")
	case c.Count > 0 && c.Duration > 0:
		return errors.New("give either -n or -d, not both")
	case c.ThinkMin < 0 || c.ThinkMax < c.ThinkMin:
		return fmt.Errorf("think time %v-%v: want 0 <= min <= max", c.ThinkMin, c.ThinkMax)
	case c.Rate < 0 || c.RampTo < 0:
		return errors.New("the rate must not be negative")
	case c.RampTo > 0 && c.Rate == 0:
		return errors.New("a ramp needs a starting rate")
	case c.RampTo > 0 && c.Duration == 0:
		return errors.New("a ramp needs a duration (-d) to ramp over")
	case c.Rate > 0 && c.ThinkMax > 0:
		return errors.New("think time is for the closed loop; with a rate, the timetable sets the pace")
	case c.PerClient != nil && len(c.PerClient) < c.Clients:
		return fmt.Errorf("isolated clients: %d workload instances for %d clients", len(c.PerClient), c.Clients)
	case c.Shares != nil && len(c.Shares) != c.Clients:
		return fmt.Errorf("per-client counts: %d for %d clients", len(c.Shares), c.Clients)
	case c.Shares != nil && sum(c.Shares) != c.Count:
		return fmt.Errorf("per-client counts add up to %d, not the phase's %d", sum(c.Shares), c.Count)
	case c.Shares != nil && c.Rate > 0:
		return errors.New("per-client counts need the closed loop: with a rate, any free client takes the next operation")
	case c.PerClientStore != nil && len(c.PerClientStore) < c.Clients:
		return fmt.Errorf("isolated clients: %d stores for %d clients", len(c.PerClientStore), c.Clients)
	}
	return nil
}

func sum(xs []int64) int64 {
	var t int64
	for _, x := range xs {
		t += x
	}
	return t
}

// Progress is a phase's state, for a live view.
type Progress struct {
	Op        string
	Elapsed   time.Duration // since the phase started, warm-up included
	Warmup    bool
	Ops       int64 // measured successful operations so far
	Target    int64 // Count, or 0 for a timed phase
	Errors    int64
	OpsPerSec float64 // in the last second
	P99       time.Duration
}

// worker is one client's state. Only its own goroutine writes to it until
// the phase ends, except for the atomics read by the ticker.
type worker struct {
	client   workload.Client
	lagger   workload.Lagger // the client, when it wants the open loop's lag
	sess     store.Session
	epoch    time.Time // the phase's start; clocks are read as time since it
	rng      *rand.Rand
	cum      []uint64 // cumulative kind weights
	total    uint64
	only     int // the kind when the phase has one, else -1
	rec      []*hist.Recorder
	warm     *hist.Recorder     // warm-up latencies, for the series only
	ct       store.ConnectTimer // set when the session connects per operation
	connRec  *hist.Recorder     // time spent connecting, per operation
	exclRec  *hist.Recorder     // latency without the connection
	svcRec   *hist.Recorder     // open loop: service time, from the actual start
	lagRec   *hist.Recorder     // open loop: actual start minus scheduled start
	late     int64              // open loop: operations that started late
	busyLate int64              // open loop: late ones due while the client was in its previous operation
	lastOpen time.Duration      // open loop: when the client last started a measured operation
	errs     atomic.Int64       // every failed operation
	warmErrs atomic.Int64       // of them, the warm-up's, for the series
	measErrs atomic.Int64       // and the measured ones
	kinds    []kindStats
	warmOps  int64
	finish   time.Duration
	openTime time.Duration
	thinkMin time.Duration
	thinkMax time.Duration
	yield    bool           // more clients than processors: yield between operations
	pass     func()         // on the event loop: let the others run if the operation did not wait
	writes   []*store.Table // per kind, the table it adds a row to (Kind.Writes)

	// A lost session (store.Reopener) is reopened off the hot path.
	reopener store.Reopener // the session, when it can lose its connection
	waiter   store.Waiter   // the session's waiter while multiplexed
	mc       *muxClient     // on the event loop: the client's coroutine, for awaits
	stop     *atomic.Bool   // the phase is stopping: no new operation, no reopen
	end      time.Duration  // a timed phase's end, warm-up included; 0 with -n
	gone     bool           // its session was lost and not reopened: the client stopped
	lost     int64          // sessions lost
	reopened int64          // and reopened
	tries    int64          // reopen attempts that failed
	tryErr   error          // the first of them
	cutOps   int64          // operations cut off
}

type kindStats struct {
	acks int64 // successful operations, warm-up included
	rows int64 // rows added to the kind's Writes table, warm-up included (Done.Rows)
	// Failed writes whose answer was lost (store.UnknownOutcome), warm-up
	// included: the rows they may have added (unsure), and their count by
	// class.
	unsure   int64
	unknowns []result.ClassCount
	errors   int64
	read     int64 // measured operations' bytes, by direction (Done)
	written  int64
	classes  []result.ErrorClass
}

// idle says whether the client ran no operation at all, warm-up included:
// none succeeded (acks counts warm-up ones too) and none failed (errs
// does).
func (w *worker) idle() bool {
	if w.errs.Load() > 0 {
		return false
	}
	for _, k := range w.kinds {
		if k.acks > 0 {
			return false
		}
	}
	return true
}

// newWorker makes a client's state, without histograms yet (see
// histograms).
func newWorker(kinds int, weights []int) *worker {
	w := &worker{only: -1, kinds: make([]kindStats, kinds), rec: make([]*hist.Recorder, kinds)}
	nonzero := 0
	for i, x := range weights {
		w.total += uint64(max(x, 0))
		w.cum = append(w.cum, w.total)
		if x > 0 {
			nonzero++
			w.only = i
		}
	}
	if nonzero != 1 {
		w.only = -1
	}
	return w
}

// histograms gives the client a histogram for each kind the phase runs
// (weight above 0), and one for the warm-up when there is one. An empty
// histogram is small (624 bytes; it takes 1 KiB more for each range of
// values it records, up to 75 KiB), but with tens of thousands of clients,
// histograms for kinds no operation reaches, or for clients with nothing
// to run, would still cost the ticker time to read every second. A nil
// Recorder reads as empty.
func (w *worker) histograms(weights []int, warmup bool) {
	if warmup {
		w.warm = hist.NewRecorder()
	}
	for i, x := range weights {
		if x > 0 {
			w.rec[i] = hist.NewRecorder()
		}
	}
}

func (w *worker) pick() int {
	if w.only >= 0 {
		return w.only
	}
	x := w.rng.Uint64N(w.total)
	for i, c := range w.cum {
		if x < c {
			return i
		}
	}
	return len(w.cum) - 1
}

// do performs and measures one operation and returns when it ended, as
// time since epoch. time.Since reads only the monotonic clock, half the
// cost of time.Now.
func (w *worker) do(ctx context.Context, measure bool) time.Duration {
	k := w.pick()
	if w.ct != nil {
		w.ct.ConnectTime() // connecting done outside operations is not theirs
	}
	t0 := time.Since(w.epoch)
	d, err := w.client.Do(ctx, k)
	t1 := time.Since(w.epoch)
	ks := &w.kinds[k]
	ks.rows += d.Rows // stored even when the operation then failed
	if err != nil {
		w.fail(k, d, cutOff(ctx, err), measure)
		if w.reopener != nil && ctx.Err() == nil && w.reopener.Lost() {
			w.reopen(ctx)
			return time.Since(w.epoch)
		}
		return t1
	}
	ks.acks++
	if measure {
		w.rec[k].Record(int64(t1 - t0))
		ks.read += d.Read
		ks.written += d.Written
		if w.ct != nil {
			c := w.ct.ConnectTime()
			w.connRec.Record(int64(c))
			w.exclRec.Record(int64(t1 - t0 - c))
		}
	} else {
		w.warm.Record(int64(t1 - t0))
		w.warmOps++
	}
	return t1
}

// ErrCutOff is the cause of the context of an operation cut off: still in
// flight the grace period after its phase's end.
var ErrCutOff = errors.New("cut off: the operation was still in flight at the end of the grace period after the phase's end (--grace); the server stopped answering?")

// DefaultGrace is how long operations in flight at a phase's end (or an
// interrupt) may take to finish before they are cut off (Config.Grace).
const DefaultGrace = 5 * time.Second

// ClassCutOff is the class of an operation cut off.
const ClassCutOff = store.ClassTimeout

// cutOff gives the error of an operation that ctx cut off the class
// timeout, whatever the store made of the cancellation.
func cutOff(ctx context.Context, err error) error {
	if ctx.Err() == nil {
		return err
	}
	return &store.ClassError{Class: ClassCutOff, Err: &cutError{err}}
}

type cutError struct{ err error }

func (e *cutError) Error() string {
	if errors.Is(e.err, ErrCutOff) {
		return e.err.Error() // the store said it was cut off
	}
	return ErrCutOff.Error() + ": " + e.err.Error()
}
func (e *cutError) Unwrap() error { return e.err }

// fail counts an error by class, keeping the first message. A write
// whose answer was lost may have been stored: it counts among the kind's
// unknowns, warm-up ones too, since the count after the phase includes
// what they stored. It is off the hot path: errors may allocate.
func (w *worker) fail(k int, d workload.Done, err error, measure bool) {
	var ce *cutError
	if errors.As(err, &ce) {
		w.cutOps++
	}
	w.errs.Add(1)
	ks := &w.kinds[k]
	class := store.Classify(err)
	if k < len(w.writes) && w.writes[k] != nil && store.UnknownOutcome(class) {
		ks.unsure += max(d.Unsure, 1)
		ks.unknowns = result.AddClassCount(ks.unknowns, class, 1)
	}
	if !measure {
		w.warmErrs.Add(1)
		return
	}
	w.measErrs.Add(1)
	ks.errors++
	for i := range ks.classes {
		if ks.classes[i].Class == class {
			ks.classes[i].Count++
			return
		}
	}
	ks.classes = append(ks.classes, result.ErrorClass{Class: class, Count: 1, First: err.Error()})
}

// think waits between operations. Without think time it still yields the
// processor when there are more clients than processors: Go's scheduler
// would otherwise let one client run many operations back to back until it
// is preempted mid-operation, and the client's wait for kurabe's own CPU
// would show up as store latency. Yielding between operations makes clients
// take turns at operation boundaries, as separate processes would.
func (w *worker) think() {
	if w.thinkMax <= 0 {
		if w.pass != nil {
			w.pass()
		} else if w.yield {
			runtime.Gosched()
		}
		return
	}
	d := w.thinkMin
	if w.thinkMax > w.thinkMin {
		d += time.Duration(w.rng.Int64N(int64(w.thinkMax - w.thinkMin + 1)))
	}
	time.Sleep(d)
}

// RunPhase runs one phase of w against st and returns its measurements.
// Cancelling ctx stops the clients after their current operation (which
// completes, so verification stays exact); the phase is then marked
// interrupted. An error means the phase could not run at all.
func RunPhase(ctx context.Context, cfg Config, st store.Store, w workload.Workload, phase int) (result.Phase, error) {
	if err := cfg.Validate(); err != nil {
		return result.Phase{}, err
	}
	ph := w.Phases()[phase]
	kinds := w.Kinds()
	res := result.Phase{Op: ph.Name, Clients: cfg.Clients, Sweep: ph.Sweep, SweepValue: ph.SweepValue}

	// The workload each client runs: w, or with isolated clients an
	// instance of its own.
	instance := func(i int) workload.Workload {
		if cfg.PerClient != nil {
			return cfg.PerClient[i]
		}
		return w
	}
	storeOf := func(i int) store.Store {
		if cfg.PerClientStore != nil {
			return cfg.PerClientStore[i]
		}
		return st
	}
	// The tables the phase writes are counted before and after it, each
	// on a connection of kurabe's own to its store (store.OpenCounter),
	// opened before the clients' sessions: at a server's connection limit
	// a client is turned away, and the phase runs with the others, rather
	// than the count that verifies them.
	var written []*store.Table
	var writtenIn []store.Store
	for c := range cfg.Clients {
		if c > 0 && cfg.PerClient == nil {
			break
		}
		for i, k := range instance(c).Kinds() {
			if k.Writes != nil && ph.Weights[i] > 0 && !slices.Contains(written, k.Writes) {
				written = append(written, k.Writes)
				writtenIn = append(writtenIn, storeOf(c))
			}
		}
	}
	counters := make([]store.Counter, len(written))
	var own []store.Counter // to close: tables of one store share its counter
	defer func() {
		for _, c := range own {
			c.Close()
		}
	}()
	for i, in := range writtenIn {
		if j := slices.Index(writtenIn[:i], in); j >= 0 {
			counters[i] = counters[j]
			continue
		}
		err := patiently(ctx, func() (err error) {
			counters[i], err = store.OpenCounter(ctx, in)
			return err
		})
		if err != nil {
			hint := ""
			if store.Classify(err) == "too-many-connections" {
				hint = "; kurabe counts and verifies the tables a phase writes on a connection of its own, opened before the clients' sessions, and the server had none free for it: raise its max_connections or close other connections to it"
			}
			return res, fmt.Errorf("connecting to count %s before %s: %w%s", written[i].Name, ph.Name, err, hint)
		}
		own = append(own, counters[i])
	}
	count := func(ctx context.Context, i int) (n int64, err error) {
		err = patiently(ctx, func() (err error) {
			n, err = counters[i].Count(ctx, written[i])
			return err
		})
		if err == nil || ctx.Err() != nil {
			return n, err
		}
		// The connection idled through the phase, and a server may close
		// an idle one (PostgreSQL's idle_session_timeout, MariaDB's
		// wait_timeout, a proxy): count once more on a new one, which the
		// clients' closed sessions have left room for.
		old := counters[i]
		var fresh store.Counter
		if oerr := patiently(ctx, func() (err error) {
			fresh, err = store.OpenCounter(ctx, writtenIn[i])
			return err
		}); oerr != nil {
			return n, err
		}
		old.Close()
		for k := range counters {
			if counters[k] == old {
				counters[k] = fresh
			}
		}
		own[slices.Index(own, old)] = fresh
		err = patiently(ctx, func() (err error) {
			n, err = fresh.Count(ctx, written[i])
			return err
		})
		return n, err
	}

	// Open every client's session, timed, before anyone starts.
	workers := make([]*worker, cfg.Clients)
	sessions := make([]store.Session, cfg.Clients)
	defer func() {
		for _, s := range sessions {
			if s != nil {
				s.Close()
			}
		}
	}()
	openErrs := make([]error, cfg.Clients)
	var wg sync.WaitGroup
	for i := range workers {
		wk := newWorker(len(kinds), ph.Weights)
		wk.rng = rand.New(rand.NewPCG(cfg.Seed, uint64(phase)<<32|uint64(i)))
		wk.thinkMin, wk.thinkMax = cfg.ThinkMin, cfg.ThinkMax
		wk.yield = cfg.Clients > runtime.GOMAXPROCS(0) && !cfg.NoYield && !networked(storeOf(i))
		workers[i] = wk
		wg.Add(1)
		go func() {
			defer wg.Done()
			var s store.Session
			err := patiently(ctx, func() error {
				t0 := time.Now()
				var err error
				s, err = storeOf(i).Open(ctx)
				wk.openTime = time.Since(t0)
				return err
			})
			if err != nil {
				openErrs[i] = err
				return
			}
			sessions[i] = s
			wk.sess = s
			wl := instance(i)
			for _, k := range wl.Kinds() {
				wk.writes = append(wk.writes, k.Writes)
			}
			wk.client = wl.NewClient(s, wk.rng)
			wk.lagger, _ = wk.client.(workload.Lagger)
			wk.reopener, _ = s.(store.Reopener)
			if ct, ok := s.(store.ConnectTimer); ok {
				wk.ct, wk.connRec, wk.exclRec = ct, hist.NewRecorder(), hist.NewRecorder()
			}
		}()
	}
	wg.Wait()
	if cfg.Opened != nil {
		cfg.Opened()
	}
	// A client that could not open its session (too many connections, a
	// refused connection) is a finding, not a crash: it is counted by
	// class, and the phase runs with the clients that got in.
	var opened []*worker
	var shares []int64 // with Shares, those of the clients that got in
	for i, wk := range workers {
		if openErrs[i] == nil {
			opened = append(opened, wk)
			if cfg.Shares != nil {
				shares = append(shares, cfg.Shares[i])
			}
			continue
		}
		res.SessionErrors = mergeClasses(res.SessionErrors, []result.ErrorClass{{Class: store.Classify(openErrs[i]), Count: 1, First: openErrs[i].Error()}})
	}
	if len(opened) == 0 {
		return res, fmt.Errorf("opening %d sessions: %w", cfg.Clients, firstErr(openErrs))
	}
	workers = opened
	cfg.Clients = len(opened)
	if cfg.Shares != nil {
		// Each share is its own client's table's: the clients that got
		// in cannot run a refused one's, so the phase runs fewer.
		cfg.Shares, cfg.Count = shares, sum(shares)
	}
	res.Clients = len(opened)
	// Count what the written tables hold before the phase, once every
	// client has been made: a workload may empty its table as the phase
	// begins (load does, in NewClient).
	var verify []result.Verify
	for i, t := range written {
		n, err := count(ctx, i)
		if err != nil {
			return res, fmt.Errorf("counting %s before %s: %w", t.Name, ph.Name, err)
		}
		verify = append(verify, result.Verify{Table: t.Name, Before: n})
	}

	openRec := hist.NewRecorder()
	for _, wk := range workers {
		openRec.Record(int64(wk.openTime))
	}
	var open hist.Snapshot
	openRec.AddTo(&open)
	res.SessionOpen = result.Summarize(&open)
	res.SessionOpen.Buckets = nil

	// Operations run with a context of their own: an interrupt lets each
	// in-flight operation finish, so every write is either acknowledged
	// or not started. A long operation may ask workload.Stopping between
	// its steps. Only a server that stops answering keeps an operation
	// from finishing: those still in flight the grace period after the
	// phase's end (or the interrupt) are cut off, through their context
	// and, for clients waiting on their sockets themselves, through cut.
	var stop, cut atomic.Bool
	opCtx, cancelOps := context.WithCancelCause(workload.WithStop(context.WithoutCancel(ctx), &stop))
	defer cancelOps(nil)
	grace := cmp.Or(cfg.Grace, DefaultGrace)
	done := make(chan struct{})
	start := time.Now()
	go func() {
		var end <-chan time.Time
		if cfg.Duration > 0 {
			tm := time.NewTimer(time.Until(start.Add(cfg.Warmup + cfg.Duration)))
			defer tm.Stop()
			end = tm.C
		}
		select {
		case <-ctx.Done():
			stop.Store(true)
		case <-cfg.Gone:
			stop.Store(true)
		case <-end:
		case <-done:
			return
		}
		tm := time.NewTimer(grace)
		defer tm.Stop()
		select {
		case <-tm.C:
			stop.Store(true)
			cancelOps(ErrCutOff)
			cut.Store(true)
		case <-done:
		}
	}()

	measureStart := start.Add(cfg.Warmup)
	for _, wk := range workers {
		wk.epoch = start
		wk.stop = &stop
		if cfg.Duration > 0 {
			wk.end = cfg.Warmup + cfg.Duration
		}
	}
	var sched *schedule
	if cfg.Rate > 0 {
		sched = newSchedule(cfg)
		for _, wk := range workers {
			wk.svcRec, wk.lagRec = hist.NewRecorder(), hist.NewRecorder()
		}
	}
	share := func(i int) int64 {
		if cfg.Count == 0 {
			return 0
		}
		if cfg.Shares != nil {
			return cfg.Shares[i]
		}
		n := cfg.Count / int64(cfg.Clients)
		if int64(i) < cfg.Count%int64(cfg.Clients) {
			n++
		}
		return n
	}
	// A client with nothing to run (-n below -c, no warm-up) needs no
	// histograms.
	for i, wk := range workers {
		if sched != nil || cfg.Count == 0 || cfg.Warmup > 0 || share(i) > 0 {
			wk.histograms(ph.Weights, cfg.Warmup > 0)
		}
	}
	var ru0 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	tickDone := make(chan []result.Second)
	go func() { tickDone <- ticker(cfg, ph.Name, workers, start, measureStart, done) }()

	body := func(i int) {
		workers[i].run(opCtx, &stop, share(i), cfg.Warmup, cfg.Warmup+cfg.Duration)
	}
	io := clientIO(cfg, sched, w, phase, len(workers))
	var mcs []*muxClient
	switch io {
	case IOThreads:
		if !multiplex(workers, func(int) store.Waiter { return threadWaiter{&cut} }) {
			io = IOPoller
		}
	case IOLoop:
		mcs = newMuxClients(len(workers))
		if !multiplex(workers, func(i int) store.Waiter { return mcs[i] }) {
			io = IOPoller
		}
	}
	if io != IOPoller {
		res.ClientIO = string(io)
	}
	if io == IOThreads {
		runThreads(len(workers), body)
		unmultiplex(workers)
	} else if io == IOLoop {
		for i, wk := range workers {
			wk.pass = mcs[i].pass
			wk.mc = mcs[i]
		}
		muxErr := runMux(mcs, &stop, &cut, body)
		unmultiplex(workers)
		if muxErr != nil {
			close(done)
			<-tickDone
			return res, fmt.Errorf("the clients' event loop failed: %w; run with --mux=threads or --mux=poller", muxErr)
		}
	} else {
		for i, wk := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if sched != nil {
					wk.runOpen(opCtx, &stop, sched)
					return
				}
				wk.run(opCtx, &stop, share(i), cfg.Warmup, cfg.Warmup+cfg.Duration)
			}()
		}
		wg.Wait()
	}
	end := time.Now()
	close(done)
	res.Series = <-tickDone
	var ru1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	if wall := end.Sub(start).Seconds(); wall > 0 {
		cpu := time.Duration(ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano())
		res.ProcessCPU = math.Round(cpu.Seconds()/wall*100) / 100
	}

	res.Interrupted = ctx.Err() != nil
	res.Elapsed = max(end.Sub(measureStart), 0).Seconds()
	var all hist.Snapshot
	for k, kd := range kinds {
		if ph.Weights[k] <= 0 {
			continue
		}
		var s hist.Snapshot
		kr := result.Kind{Name: kd.Name}
		for _, wk := range workers {
			wk.rec[k].AddTo(&s)
			ks := wk.kinds[k]
			kr.Errors += ks.errors
			kr.BytesRead += ks.read
			kr.BytesWritten += ks.written
			kr.ErrorClasses = mergeClasses(kr.ErrorClasses, ks.classes)
		}
		kr.Ops = int64(s.Count)
		kr.Latency = result.Summarize(&s)
		all.Merge(&s)
		res.Kinds = append(res.Kinds, kr)
		res.Errors += kr.Errors
		res.BytesRead += kr.BytesRead
		res.BytesWritten += kr.BytesWritten
		res.ErrorClasses = mergeClasses(res.ErrorClasses, kr.ErrorClasses)
	}
	res.Ops = int64(all.Count)
	res.Latency = result.Summarize(&all)
	if res.Elapsed > 0 {
		res.OpsPerSec = float64(res.Ops) / res.Elapsed
	}
	if sched != nil {
		res.OpenLoop = openLoopResult(cfg, sched, workers, &res)
	}
	if workers[0].ct != nil {
		var conn, excl hist.Snapshot
		active := 0 // clients that completed an operation
		for _, wk := range workers {
			n := conn.Count
			wk.connRec.AddTo(&conn)
			wk.exclRec.AddTo(&excl)
			if conn.Count > n {
				active++
			}
		}
		// No operation connected through its session (a load's bulk
		// phase, which the store runs on a connection of its own): there
		// is no connecting to take out, and no figure without it.
		if conn.Sum > 0 {
			c, e := result.Summarize(&conn), result.Summarize(&excl)
			res.Connect, res.LatencyExclConnect = &c, &e
			// As pgbench does: the clients' time spent connecting, shared
			// out over the clients, is taken off the elapsed time; over the
			// clients that ran operations, since a load of one operation
			// keeps one client of many busy.
			if busy := res.Elapsed - float64(conn.Sum)/1e9/float64(max(active, 1)); busy > 0 {
				res.OpsPerSecExclConnect = float64(res.Ops) / busy
			}
		}
	}
	for _, wk := range workers {
		res.SessionsLost += wk.lost
		res.SessionsReopened += wk.reopened
		res.ReopenFailures += wk.tries
		res.CutOff += wk.cutOps
		if wk.tryErr != nil && res.ReopenError == "" {
			res.ReopenError = wk.tryErr.Error()
		}
	}
	first, last := time.Duration(-1), time.Duration(0)
	for _, wk := range workers {
		res.ClientFinish = append(res.ClientFinish, wk.finish.Seconds())
		res.WarmupOps += wk.warmOps
		if wk.idle() {
			// A client with no operation to run (-n below -c) finished
			// at once; it says nothing about how clients were served.
			continue
		}
		if first < 0 || wk.finish < first {
			first = wk.finish
		}
		last = max(last, wk.finish)
	}
	if first > 0 {
		res.FinishRatio = float64(last) / float64(first)
	}

	if res.CutOff > 0 {
		res.GraceSeconds = grace.Seconds()
	}

	// Every acknowledged write must be in the store. After operations were
	// cut off the server may not answer the count either: it gets a time
	// of its own.
	vctx := context.WithoutCancel(ctx)
	if cut.Load() {
		var cancel context.CancelFunc
		vctx, cancel = context.WithTimeout(vctx, CountAfterCutOff)
		defer cancel()
	}
	for i := range verify {
		v := &verify[i]
		for _, wk := range workers {
			for k, t := range wk.writes {
				if t == written[i] {
					v.Acked += wk.kinds[k].rows
					v.Unknown += wk.kinds[k].unsure
					for _, c := range wk.kinds[k].unknowns {
						v.UnknownClasses = result.AddClassCount(v.UnknownClasses, c.Class, c.Count)
					}
				}
			}
		}
		n, err := count(vctx, i)
		if err != nil {
			v.Error = err.Error()
			continue
		}
		v.After = n
		v.Judge()
	}
	res.Verify = verify
	return res, nil
}

// Reopening a lost session: the client waits ReopenFirst after its first
// failed attempt, twice as long after each further one, up to ReopenMax,
// so that a server that is down is not hammered. It tries until the
// phase's time is up (-d), it is interrupted, or, in a phase without an
// end (-n), for ReopenPatience; then it gives up and stops, its remaining
// operations not run (and not counted as errors).
var (
	ReopenFirst    = 10 * time.Millisecond
	ReopenMax      = time.Second
	ReopenPatience = 30 * time.Second
)

// reopen opens the client's lost session again. Off the hot path: it runs
// only after a failed operation, and may allocate.
func (w *worker) reopen(ctx context.Context) {
	w.lost++
	since := time.Since(w.epoch)
	wait := ReopenFirst
	for {
		now := time.Since(w.epoch)
		if w.stop.Load() || ctx.Err() != nil || w.end > 0 && now >= w.end || w.end == 0 && now-since >= ReopenPatience {
			w.gone = true
			return
		}
		var err error
		w.await(func() { err = w.reopener.Reopen(ctx) })
		if err == nil {
			if w.waiter != nil && !w.sess.(store.Multiplexed).Multiplex(w.waiter) {
				// The new connection cannot wait as the others do (TLS
				// where there was none): this client stops.
				w.tryErr = cmp.Or(w.tryErr, errors.New("the new connection cannot join the clients' waits (--mux); run with --mux=poller"))
				w.gone = true
				return
			}
			if w.mc != nil {
				w.mc.forget() // the new socket may have the old one's number
			}
			w.reopened++
			return
		}
		w.tries++
		if w.tryErr == nil {
			w.tryErr = err
		}
		d := wait
		if w.end > 0 {
			d = min(d, max(w.end-time.Since(w.epoch), 0))
		}
		w.await(func() { time.Sleep(d) })
		wait = min(2*wait, ReopenMax)
	}
}

// await runs f, which blocks: on the event loop in a goroutine of its
// own while the client waits as for a reply, so that the other clients
// run on; elsewhere in the client's own goroutine.
func (w *worker) await(f func()) {
	if w.mc == nil {
		f()
		return
	}
	w.mc.await(f)
}

// patiently calls f, and again while it fails for too many connections,
// for up to CapacityPatience: a server frees the connections of the phase
// before only a moment after they were closed (a PostgreSQL backend exits
// after its client hung up), so a phase that opens as many sessions as
// the one before at a server's limit would otherwise find some refused.
// A refusal that lasts is the server's capacity, and counted as such.
func patiently(ctx context.Context, f func() error) error {
	deadline := time.Now().Add(CapacityPatience)
	wait := 5 * time.Millisecond
	for {
		err := f()
		if err == nil || store.Classify(err) != "too-many-connections" || time.Now().Add(wait).After(deadline) {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		wait = min(2*wait, 200*time.Millisecond)
	}
}

// CountAfterCutOff bounds the count that verifies a phase whose
// operations were cut off.
var CountAfterCutOff = 10 * time.Second

// CapacityPatience is how long a session, kurabe's own counting
// connection or a count on it refused for too many connections is tried
// again.
var CapacityPatience = 2 * time.Second

// clientIO resolves cfg.IO for the phase: IOPoller unless the phase is a
// closed loop without think time whose operations use only their
// sessions (workload.StoreCaller); whether the sessions can
// (store.Multiplexed) is up to multiplex.
func clientIO(cfg Config, sched *schedule, w workload.Workload, phase, clients int) ClientIO {
	if cfg.IO == IOPoller || sched != nil || cfg.ThinkMax > 0 {
		return IOPoller
	}
	if sc, ok := w.(workload.StoreCaller); ok && sc.CallsStore(phase) {
		return IOPoller
	}
	if cfg.IO != IOAuto {
		return cfg.IO
	}
	if clients <= ThreadsPerCPU*baseProcs() {
		return IOThreads
	}
	return IOLoop
}

// networked says whether st's operations wait on a socket: then clients
// need no yield to take turns (store.Networked).
func networked(st store.Store) bool {
	_, ok := st.(store.Networked)
	return ok
}

func firstErr(errs []error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func mergeClasses(into, from []result.ErrorClass) []result.ErrorClass {
	for _, c := range from {
		found := false
		for i := range into {
			if into[i].Class == c.Class {
				into[i].Count += c.Count
				found = true
			}
		}
		if !found {
			into = append(into, c)
		}
	}
	return into
}

// run is one client's loop: warm-up until measureStart, then n operations
// (or until deadline when n is 0). Times are since the worker's epoch.
func (w *worker) run(ctx context.Context, stop *atomic.Bool, n int64, measureStart, deadline time.Duration) {
	t := time.Since(w.epoch)
	for t < measureStart && !stop.Load() && !w.gone {
		t = w.do(ctx, false)
		w.think()
	}
	if n > 0 {
		for i := int64(0); i < n && !stop.Load() && !w.gone; i++ {
			t = w.do(ctx, true)
			if i+1 < n {
				w.think()
			}
		}
	} else {
		for t < deadline && !stop.Load() && !w.gone {
			t = w.do(ctx, true)
			w.think()
		}
	}
	w.finish = max(time.Since(w.epoch)-measureStart, 0)
}

// ticker builds the per-second series and reports progress until done is
// closed, then adds the last partial interval. Its ticks fall on whole
// seconds from measureStart, so the warm-up forms intervals of its own.
//
// Warm-up and measured operations are counted apart, each from its own
// recorders, so that the warm-up's intervals add up to the phase's warm-up
// operations and the measured ones to its ops, whichever side of a tick
// an operation ended on: a measured operation that ended before the tick
// at the warm-up's end (which fires a little late) is the first measured
// interval's, and a warm-up operation that ended after it is the last
// warm-up interval's. The first measured interval runs from measureStart.
// The last interval ends when the clients did; when that is less than half
// a second after the last tick (the clients' last operations ending just
// after a -d phase's last tick), it is folded into the interval before
// it, so that a few operations over a sliver of time do not show as a
// rate of their own.
func ticker(cfg Config, op string, workers []*worker, start, measureStart time.Time, done <-chan struct{}) []result.Second {
	var series []result.Second
	var warmCur, warmPrev, measCur, measPrev, delta, lastDelta hist.Snapshot
	var warmErrsPrev, measErrsPrev int64
	last := start
	lastWarm, lastWarmSpan := -1, 0.0 // the last warm-up interval
	lastSpan := 0.0                   // the last measured interval's length
	sample := func(now, due time.Time, final bool) {
		warmCur.Reset()
		measCur.Reset()
		var warmErrs, measErrs int64
		for _, w := range workers {
			w.warm.AddTo(&warmCur)
			for _, r := range w.rec {
				r.AddTo(&measCur)
			}
			warmErrs += w.warmErrs.Load()
			measErrs += w.measErrs.Load()
		}
		measured := int64(measCur.Count)
		warm := !due.After(measureStart)
		if final {
			warm = !now.After(measureStart)
		}
		from := last
		if !warm && lastWarm == len(series)-1 && measureStart.Before(last) {
			from = measureStart
		}
		span := now.Sub(from).Seconds()
		if warm {
			delta.Delta(&warmCur, &warmPrev)
		} else {
			// Warm-up operations that ended after the warm-up's last
			// tick belong to its last interval.
			delta.Delta(&warmCur, &warmPrev)
			if lastWarm >= 0 && (delta.Count > 0 || warmErrs > warmErrsPrev) {
				w := &series[lastWarm]
				w.Ops += int64(delta.Count)
				w.Errors += warmErrs - warmErrsPrev
				if lastWarmSpan > 0 {
					w.OpsPerSec = math.Round(float64(w.Ops) / lastWarmSpan)
				}
			}
			warmCur, warmPrev = warmPrev, warmCur
			warmErrsPrev = warmErrs
			delta.Delta(&measCur, &measPrev)
		}
		errs := measErrs - measErrsPrev
		if warm {
			errs = warmErrs - warmErrsPrev
		}
		if final && delta.Count == 0 && errs == 0 {
			return
		}
		sec := result.Second{T: round3(now.Sub(start).Seconds()), Warmup: warm, Ops: int64(delta.Count), Errors: errs}
		if prev := len(series) - 1; final && !warm && span < 0.5 && prev >= 0 && prev != lastWarm {
			lastDelta.Merge(&delta)
			span += lastSpan
			sec.Ops += series[prev].Ops
			sec.Errors += series[prev].Errors
			delta.Reset()
			delta.Merge(&lastDelta)
			series = series[:prev]
		}
		sec.P50 = float64(int64(delta.Quantile(0.5))) / 1e3
		sec.P99 = float64(int64(delta.Quantile(0.99))) / 1e3
		sec.Max = float64(delta.Max) / 1e3
		if span > 0 {
			sec.OpsPerSec = math.Round(float64(sec.Ops) / span)
		}
		series = append(series, sec)
		if warm {
			lastWarm, lastWarmSpan = len(series)-1, span
			warmCur, warmPrev = warmPrev, warmCur
			warmErrsPrev = warmErrs
		} else {
			lastSpan = span
			lastDelta.Reset()
			lastDelta.Merge(&delta)
			measCur, measPrev = measPrev, measCur
			measErrsPrev = measErrs
		}
		last = now
		if cfg.Tick != nil && !final {
			cfg.Tick(Progress{
				Op: op, Elapsed: now.Sub(start), Warmup: warm,
				Ops: measured, Target: cfg.Count, Errors: warmErrs + measErrs,
				OpsPerSec: sec.OpsPerSec, P99: time.Duration(delta.Quantile(0.99)),
			})
		}
	}
	next := start.Add(cfg.Warmup % time.Second)
	if !next.After(start) {
		next = start.Add(time.Second)
	}
	tm := time.NewTimer(time.Until(next))
	defer tm.Stop()
	for {
		select {
		case <-tm.C:
			sample(time.Now(), next, false)
			for !next.After(time.Now()) {
				next = next.Add(time.Second)
			}
			tm.Reset(time.Until(next))
		case <-done:
			now := time.Now()
			sample(now, now, true)
			return series
		}
	}
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0)) }
