package replay

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"

	"kurabe/engine"
	"kurabe/hist"
	"kurabe/result"
	"kurabe/store"
)

// Config says how to replay a log.
type Config struct {
	// Speed scales the log's time: 1 replays at the logged pace, 2 twice
	// as fast; 0 runs each client's statements back to back (--speed max).
	Speed float64
	// Clients 0 gives each session of the log a client of its own, opened
	// when the session connected and closed when it left. Clients N has N
	// clients take the log's transactions and lone statements in the
	// order of their times, whichever client is free.
	Clients int
	// Warmup: statements that start within this time of the replay's
	// start run but are left out of the figures.
	Warmup time.Duration
	// DelayMin and DelayMax: a random delay, uniform in [DelayMin,
	// DelayMax], after each statement before a client's next one.
	DelayMin, DelayMax time.Duration
	Seed               uint64
	// Tick, if set, is called about once a second with the progress.
	Tick func(engine.Progress)
}

// Validate checks the configuration and says what to change.
func (c Config) Validate() error {
	switch {
	case c.Speed < 0 || math.IsNaN(c.Speed) || math.IsInf(c.Speed, 0):
		return fmt.Errorf("speed %v: want a factor above 0 (1 = as logged) or max", c.Speed)
	case c.Clients < 0:
		return fmt.Errorf("clients %d: want 1 or more, or none for one client per session", c.Clients)
	case c.Warmup < 0:
		return errors.New("the warm-up must not be negative")
	case c.DelayMin < 0 || c.DelayMax < c.DelayMin:
		return fmt.Errorf("delay %v-%v: want 0 <= min <= max", c.DelayMin, c.DelayMax)
	}
	return nil
}

// LateAfter is how far behind its time a statement may start before it
// counts as late. A sleep on a machine whose vCPUs doze overshoots by a
// millisecond or more, and a client connecting for its session takes a few
// on a real server, so a tighter bound would count the clock and the
// connection rather than the store.
const LateAfter = 10 * time.Millisecond

// MaxFingerprints is how many fingerprints get a histogram of their own;
// the rest, the least frequent in the log, share one. A histogram takes
// up to 75 KiB, so this bounds the replay's memory whatever the log holds.
const MaxFingerprints = 1000

// batchSize is how many statements a client measures before it hands
// their figures to the aggregator: one channel send per batch, none per
// statement.
const batchSize = 256

// sample is one measured statement, for the figures per fingerprint.
type sample struct {
	fp   int32
	ns   int64
	read int64 // bytes of the rows it returned
	sent int64 // bytes of its text and parameters
	err  error
	warm bool // run in the warm-up: counted, not measured
}

// runner is one replay in progress.
type runner struct {
	cfg     Config
	lg      *Log
	st      store.Store
	epoch   time.Time
	warmEnd time.Duration
	opCtx   context.Context // never cancelled: a statement once started completes
	ctx     context.Context
	rng     atomic.Uint64 // seeds for clients

	mu      sync.Mutex
	clients []*client // every client made, for the ticker
	free    []*client // per-session mode: clients between sessions
	opens   []time.Duration
	openErr []error
	notes   []string
	// schedEnd is when the schedule ends with the pauses of --delay in
	// it: the latest end of a session (or unit) shifted by its delays.
	schedEnd time.Duration

	samples chan []sample
	batches chan []sample // spent batches for reuse
}

// client is one simulated client: its own histograms, random numbers and
// batch of samples; a store session while it runs a session or units.
type client struct {
	r       *runner
	sess    store.SQLSession
	closer  store.Session
	rng     *rand.Rand
	timer   *time.Timer
	rec     *hist.Recorder // measured statements
	warm    *hist.Recorder // warm-up statements, for the series
	lag     *hist.Recorder // actual start less scheduled start
	errs    atomic.Int64   // every failed statement, for the live view
	late    int64
	warmOps int64
	batch   []sample
	inTx    bool
	db      string // MySQL: the database in use
	started bool   // a statement has run since the session opened
	// shift is how far --delay has moved the client's schedule: the
	// pauses it took, on top of the log's, and those of the sessions (or
	// units) it had to wait for.
	shift time.Duration
}

// Run replays lg against st and returns the phases: "replay" with every
// statement, then one per fingerprint, the ones that took most time
// first. An error means the replay could not start (the store has no SQL
// sessions, or speaks another dialect); statements that fail are counted.
func Run(ctx context.Context, cfg Config, st store.Store, lg *Log) ([]result.Phase, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := check(ctx, st, lg); err != nil {
		return nil, err
	}
	r := &runner{cfg: cfg, lg: lg, st: st, warmEnd: cfg.Warmup, ctx: ctx, opCtx: context.WithoutCancel(ctx),
		samples: make(chan []sample, 64), batches: make(chan []sample, 64)}
	r.rng.Store(cfg.Seed)
	agg := newAggregator(lg)
	aggDone := make(chan struct{})
	go func() {
		agg.run(r.samples, r.batches)
		close(aggDone)
	}()

	var ru0 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	r.epoch = time.Now()
	tickStop := make(chan struct{})
	tickDone := make(chan []result.Second)
	go func() { tickDone <- r.ticker(tickStop) }()
	if cfg.Clients > 0 {
		r.runClients()
	} else {
		r.runSessions()
	}
	wall := time.Since(r.epoch)
	close(tickStop)
	series := <-tickDone
	var ru1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	for _, c := range r.clients {
		c.flush()
	}
	close(r.samples)
	<-aggDone

	all := result.Phase{Op: "replay", Clients: len(r.clients), Interrupted: ctx.Err() != nil, Series: series}
	all.Elapsed = max(wall-r.warmEnd, 0).Seconds()
	if w := wall.Seconds(); w > 0 {
		cpu := time.Duration(ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano())
		all.ProcessCPU = math.Round(cpu.Seconds()/w*100) / 100
	}
	var lat, lag, open hist.Snapshot
	var late int64
	for _, c := range r.clients {
		c.rec.AddTo(&lat)
		c.lag.AddTo(&lag)
		late += c.late
		all.WarmupOps += c.warmOps
	}
	openRec := hist.NewRecorder()
	for _, d := range r.opens {
		openRec.Record(int64(d))
	}
	openRec.AddTo(&open)
	all.SessionOpen = result.Summarize(&open)
	all.SessionOpen.Buckets = nil
	all.Ops = int64(lat.Count)
	all.Latency = result.Summarize(&lat)
	if all.Elapsed > 0 {
		all.OpsPerSec = float64(all.Ops) / all.Elapsed
	}
	fpPhases := agg.phases(lg, all)
	for _, p := range fpPhases {
		all.Errors += p.Errors
		all.BytesRead += p.BytesRead
		all.BytesWritten += p.BytesWritten
	}
	all.Replay = r.stats(wall, &lag, late, all)
	return append([]result.Phase{all}, fpPhases...), nil
}

// check opens one session to see that the store runs SQL in the log's
// dialect, before the clock starts (a managed server starts here).
func check(ctx context.Context, st store.Store, lg *Log) error {
	s, err := st.Open(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	d := ""
	if ss, ok := s.(store.SQLSession); ok {
		d = ss.Dialect()
	}
	return CheckDialect(st.Info(ctx).Driver, d, lg.Dialect)
}

// CheckDialect says whether the store named, whose sessions take SQL of
// dialect (empty: none), can replay a log of the log's dialect. Only
// PostgreSQL and MySQL/MariaDB write logs kurabe reads, so an SQLite
// store never can, and the message names only the stores that can.
func CheckDialect(name, dialect, logDialect string) error {
	if dialect == "" {
		return fmt.Errorf("the store %s runs no SQL; replay a %s log on a %s store", name, dialectName(logDialect), storesFor(logDialect))
	}
	if dialect != logDialect {
		return fmt.Errorf("the log is %s's and the store %s speaks %s; kurabe does not translate between dialects: replay a %s log on a %s store", dialectName(logDialect), name, dialectName(dialect), dialectName(logDialect), storesFor(logDialect))
	}
	return nil
}

// storesFor names the store drivers that replay a log of the dialect.
func storesFor(logDialect string) string {
	if logDialect == MySQL {
		return "mariadb or mysql"
	}
	return logDialect
}

func dialectName(d string) string {
	switch d {
	case Postgres:
		return "PostgreSQL"
	case MySQL:
		return "MySQL/MariaDB"
	case SQLite:
		return "SQLite"
	}
	return d
}

// due returns when a time of the log falls in the replay.
func (r *runner) due(at time.Duration) time.Duration {
	if r.cfg.Speed == 0 {
		return 0
	}
	return time.Duration(float64(at) / r.cfg.Speed)
}

func (r *runner) stopped() bool { return r.ctx.Err() != nil }

func (r *runner) newClient() *client {
	seed := r.rng.Add(1)
	c := &client{r: r, rng: rand.New(rand.NewPCG(r.cfg.Seed, seed)), timer: time.NewTimer(time.Hour),
		rec: hist.NewRecorder(), warm: hist.NewRecorder(), lag: hist.NewRecorder()}
	c.timer.Stop()
	r.mu.Lock()
	r.clients = append(r.clients, c)
	r.mu.Unlock()
	return c
}

// sleepUntil waits until due (time since the epoch) or the interrupt.
func (c *client) sleepUntil(due time.Duration) {
	d := due - time.Since(c.r.epoch)
	if d <= 0 {
		return
	}
	c.timer.Reset(d)
	select {
	case <-c.timer.C:
	case <-c.r.ctx.Done():
		c.timer.Stop() // since Go 1.23, no stale tick is left to drain
	}
}

// open opens the client's store session, timed.
func (c *client) open() error {
	t0 := time.Now()
	s, err := c.r.st.Open(c.r.opCtx)
	d := time.Since(t0)
	c.r.mu.Lock()
	if err == nil {
		c.r.opens = append(c.r.opens, d)
	} else if len(c.r.openErr) < 1000 {
		c.r.openErr = append(c.r.openErr, err)
	}
	c.r.mu.Unlock()
	if err != nil {
		return err
	}
	c.closer, c.sess = s, s.(store.SQLSession)
	c.inTx, c.db, c.started = false, "", false
	return nil
}

func (c *client) close() {
	if c.closer == nil {
		return
	}
	if c.inTx {
		c.sess.Rollback(c.r.opCtx)
		c.inTx = false
	}
	c.closer.Close()
	c.closer, c.sess = nil, nil
}

// use makes db the session's database (MySQL), as the logged session's
// connection did. Its failure is noted once, not counted: it is not a
// statement of the log.
func (c *client) use(db string) {
	if c.r.lg.Dialect != MySQL || db == "" || db == c.db {
		return
	}
	c.db = db
	if _, err := c.sess.Exec(c.r.opCtx, "USE `"+strings.ReplaceAll(db, "`", "``")+"`"); err != nil {
		c.r.note("USE `" + db + "` (the database the log's sessions connected to) failed: " + err.Error())
	}
}

func (r *runner) note(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !slices.Contains(r.notes, s) && len(r.notes) < 20 {
		r.notes = append(r.notes, s)
	}
}

// run runs one statement at its time and measures it.
//
// A --delay is a pause on top of the log's own: at a speed it moves the
// rest of the client's schedule (the statement is due its pause later),
// so that lag and lateness measure the store, not the pauses asked for;
// at --speed max it is a sleep before the statement.
func (c *client) run(s *Stmt) {
	r := c.r
	if c.started && r.cfg.DelayMax > 0 {
		d := r.cfg.DelayMin
		if r.cfg.DelayMax > d {
			d += time.Duration(c.rng.Int64N(int64(r.cfg.DelayMax - d + 1)))
		}
		if r.cfg.Speed > 0 {
			c.shift += d
		} else {
			c.sleepUntil(time.Since(r.epoch) + d)
		}
	}
	c.started = true
	due := r.due(s.At) + c.shift
	if r.cfg.Speed > 0 {
		c.sleepUntil(due)
	}
	if r.stopped() {
		return // interrupted while waiting: the statement never started
	}
	t0 := time.Since(r.epoch)
	n, err := c.exec(s)
	t1 := time.Since(r.epoch)
	if err != nil {
		c.errs.Add(1)
	}
	if t0 < r.warmEnd {
		if err == nil {
			c.warm.Record(int64(t1 - t0))
		}
		c.warmOps++
		c.add(sample{fp: s.FP, warm: true})
		return
	}
	if err == nil {
		c.rec.Record(int64(t1 - t0))
	}
	if r.cfg.Speed > 0 {
		c.lag.Record(int64(t0 - due))
		if t0-r.due(s.Latest)-c.shift > LateAfter {
			c.late++
		}
	}
	c.add(sample{fp: s.FP, ns: int64(t1 - t0), read: n, sent: s.size(), err: err})
}

// exec runs a statement on the session: bare transaction statements
// through Begin, Commit and Rollback (MySQL cannot prepare them), rows
// through Query.
func (c *client) exec(s *Stmt) (int64, error) {
	ctx := c.r.opCtx
	switch s.Kind {
	case kBegin:
		if !c.inTx {
			err := c.sess.Begin(ctx)
			c.inTx = err == nil
			return 0, err
		}
	case kCommit:
		if c.inTx {
			c.inTx = false
			return 0, c.sess.Commit(ctx)
		}
	case kRollback:
		if c.inTx {
			c.inTx = false
			return 0, c.sess.Rollback(ctx)
		}
	case kQuery:
		_, n, err := c.sess.Query(ctx, s.SQL, s.Args, nil)
		return n, err
	}
	_, err := c.sess.Exec(ctx, s.SQL, s.Args...)
	return 0, err
}

// fail counts the statements a client could not run because its
// session did not open, each as an error of its fingerprint.
func (c *client) fail(stmts []Stmt, err error) {
	for i := range stmts {
		c.errs.Add(1)
		c.add(sample{fp: stmts[i].FP, err: err})
	}
}

func (c *client) add(s sample) {
	if c.batch == nil {
		select {
		case b := <-c.r.batches:
			c.batch = b[:0]
		default:
			c.batch = make([]sample, 0, batchSize)
		}
	}
	c.batch = append(c.batch, s)
	if len(c.batch) == batchSize {
		c.flush()
	}
}

func (c *client) flush() {
	if len(c.batch) > 0 {
		c.r.samples <- c.batch
	}
	c.batch = nil
}

// runSessions gives each session of the log a client. A session starts
// at its logged time (at --speed max, at once), but never before the
// sessions that had ended when it started in the log have ended in the
// replay, nor before those whose every statement was logged before it
// started have run them: a script's second connection finds the tables
// its first one made. (The second test matters because a server logs a
// session's end when its process exits, which may come after the next
// program has already connected.) So the replay never runs more sessions
// at once than the log did, and a session held up by a slow one before it
// starts late, which counts as lag.
func (r *runner) runSessions() {
	ss := r.lg.Sessions
	done := make([]chan struct{}, len(ss))  // the session ended
	ran := make([]chan struct{}, len(ss))   // its statements have run
	shift := make([]time.Duration, len(ss)) // its --delay shift, set before ran closes
	var running []int                       // started, not yet seen to end
	var wg sync.WaitGroup
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	wait := func(ch chan struct{}) {
		select {
		case <-ch:
		case <-r.ctx.Done():
		}
	}
	for i, s := range ss {
		kept := running[:0]
		var inherit time.Duration // the shift of the sessions waited for
		for _, j := range running {
			if ss[j].End <= s.Start {
				wait(done[j])
				inherit = max(inherit, shift[j])
				continue
			}
			if lastAt(ss[j]) <= s.Start {
				wait(ran[j])
				inherit = max(inherit, shift[j])
			}
			select {
			case <-done[j]:
			default:
				kept = append(kept, j)
			}
		}
		running = kept
		if r.stopped() {
			break
		}
		if d := r.due(s.Start) + inherit - time.Since(r.epoch); d > 0 {
			timer.Reset(d)
			select {
			case <-timer.C:
			case <-r.ctx.Done():
				timer.Stop()
				continue
			}
		}
		done[i], ran[i] = make(chan struct{}), make(chan struct{})
		running = append(running, i)
		c := r.take()
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(done[i])
			c.shift = inherit
			c.session(s, ran[i], &shift[i])
			r.put(c)
		}()
	}
	wg.Wait()
}

func (r *runner) take() *client {
	r.mu.Lock()
	if n := len(r.free); n > 0 {
		c := r.free[n-1]
		r.free = r.free[:n-1]
		r.mu.Unlock()
		return c
	}
	r.mu.Unlock()
	return r.newClient()
}

func (r *runner) put(c *client) {
	r.mu.Lock()
	r.free = append(r.free, c)
	r.mu.Unlock()
}

// session replays one session of the log: connect, its statements at
// their times, and disconnect when it did. Its --delay shift goes to
// shift before ran closes.
func (c *client) session(s *Session, ran chan struct{}, shift *time.Duration) {
	ranOnce := sync.OnceFunc(func() {
		*shift = c.shift
		close(ran)
	})
	defer ranOnce()
	if err := c.open(); err != nil {
		c.fail(s.Stmts, err)
		return
	}
	defer c.close()
	c.use(s.Database)
	for i := range s.Stmts {
		if c.r.stopped() {
			return
		}
		c.run(&s.Stmts[i])
	}
	ranOnce()
	if c.r.cfg.Speed > 0 {
		c.r.scheduled(c.r.due(s.End) + c.shift)
		c.sleepUntil(c.r.due(s.End) + c.shift)
	}
}

// scheduled notes where a client's schedule ends, --delay included.
func (r *runner) scheduled(end time.Duration) {
	r.mu.Lock()
	r.schedEnd = max(r.schedEnd, end)
	r.mu.Unlock()
}

// lastAt is when the session's last statement was logged (its start when
// it has none).
func lastAt(s *Session) time.Duration {
	if n := len(s.Stmts); n > 0 {
		return s.Stmts[n-1].At
	}
	return s.Start
}

// unit is what one client runs at a time with --clients: a transaction
// of one session, or a statement outside one. A session's units run in
// order: a unit waits until the one before it has finished.
type unit struct {
	sess     *Session
	from, to int
	prev     *unit
	done     chan struct{}
	shift    time.Duration // the --delay shift it ended with, set before done closes
}

// units cuts every session into units, in the order of their times.
func units(lg *Log) []*unit {
	var out []*unit
	for _, s := range lg.Sessions {
		var prev *unit
		for i := 0; i < len(s.Stmts); {
			j := i + 1
			if opensTx(&s.Stmts[i], lg.Dialect) {
				for j < len(s.Stmts) && !closesTx(&s.Stmts[j-1], lg.Dialect) {
					j++
				}
			}
			u := &unit{sess: s, from: i, to: j, prev: prev, done: make(chan struct{})}
			out = append(out, u)
			prev = u
			i = j
		}
	}
	slices.SortStableFunc(out, func(a, b *unit) int {
		return compareDur(a.sess.Stmts[a.from].At, b.sess.Stmts[b.from].At)
	})
	return out
}

// runClients has N clients take the units in turn.
func (r *runner) runClients() {
	us := units(r.lg)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range r.cfg.Clients {
		c := r.newClient()
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := c.open()
			if err == nil {
				defer c.close()
			}
			for !r.stopped() {
				i := next.Add(1) - 1
				if i >= int64(len(us)) {
					return
				}
				u := us[i]
				c.unit(u, err)
			}
		}()
	}
	wg.Wait()
}

func (c *client) unit(u *unit, openErr error) {
	c.shift = 0
	defer func() {
		u.shift = c.shift
		close(u.done)
	}()
	if u.prev != nil {
		select {
		case <-u.prev.done:
			c.shift = u.prev.shift
		case <-c.r.ctx.Done():
			return
		}
	}
	stmts := u.sess.Stmts[u.from:u.to]
	if openErr != nil {
		c.fail(stmts, openErr)
		return
	}
	c.use(u.sess.Database)
	c.started = false
	for i := range stmts {
		if c.r.stopped() {
			break
		}
		c.run(&stmts[i])
	}
	if c.r.cfg.Speed > 0 && len(stmts) > 0 {
		c.r.scheduled(c.r.due(stmts[len(stmts)-1].At) + c.shift)
	}
	if c.inTx {
		// The session ended its transaction in a later unit that never
		// came (the log ended): leave the connection clean for the next.
		c.sess.Rollback(c.r.opCtx)
		c.inTx = false
	}
}

func opensTx(s *Stmt, dialect string) bool {
	if s.Kind == kBegin {
		return true
	}
	w := firstWords(s.SQL, dialect, 2)
	return len(w) > 0 && (w[0] == "begin" || len(w) > 1 && w[0] == "start" && w[1] == "transaction")
}

func closesTx(s *Stmt, dialect string) bool {
	if s.Kind == kCommit || s.Kind == kRollback {
		return true
	}
	w := firstWords(s.SQL, dialect, 2)
	if len(w) == 0 {
		return false
	}
	switch w[0] {
	case "commit", "end", "abort":
		return true
	case "rollback":
		return len(w) < 2 || w[1] != "to"
	}
	return false
}

func firstWords(sql, dialect string, n int) []string {
	var out []string
	for _, t := range lex(sql, dialect) {
		if len(out) == n || t.kind != tWord {
			break
		}
		out = append(out, lower(sql[t.start:t.end]))
	}
	return out
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// ticker builds the per-second series and reports progress until stop is
// closed, then adds the last partial second.
func (r *runner) ticker(stop <-chan struct{}) []result.Second {
	var series []result.Second
	var cur, prev, delta hist.Snapshot
	var prevErrs int64
	last := r.epoch
	sample := func(now time.Time, final bool) {
		r.mu.Lock()
		cs := slices.Clone(r.clients)
		r.mu.Unlock()
		cur.Reset()
		var errs, measured int64
		for _, c := range cs {
			c.warm.AddTo(&cur)
			c.rec.AddTo(&cur)
			measured += int64(c.rec.Count())
			errs += c.errs.Load()
		}
		delta.Delta(&cur, &prev)
		if final && delta.Count == 0 && errs == prevErrs {
			return
		}
		t := now.Sub(r.epoch)
		sec := result.Second{T: math.Round(t.Seconds()*1000) / 1000, Warmup: t <= r.warmEnd,
			Ops: int64(delta.Count), Errors: errs - prevErrs,
			P50: float64(int64(delta.Quantile(0.5))) / 1e3, P99: float64(int64(delta.Quantile(0.99))) / 1e3,
			Max: float64(delta.Max) / 1e3}
		if span := now.Sub(last).Seconds(); span > 0 {
			sec.OpsPerSec = math.Round(float64(delta.Count) / span)
		}
		series = append(series, sec)
		cur, prev = prev, cur
		prevErrs, last = errs, now
		if r.cfg.Tick != nil && !final {
			r.cfg.Tick(engine.Progress{Op: "replay", Elapsed: t, Warmup: sec.Warmup, Ops: measured,
				Target: r.lg.Statements, Errors: errs, OpsPerSec: sec.OpsPerSec, P99: time.Duration(delta.Quantile(0.99))})
		}
	}
	tk := time.NewTicker(time.Second)
	defer tk.Stop()
	for {
		select {
		case now := <-tk.C:
			sample(now, false)
		case <-stop:
			sample(time.Now(), true)
			return series
		}
	}
}

// stats gathers the replay's own figures and judges whether it kept the
// log's pace.
func (r *runner) stats(wall time.Duration, lag *hist.Snapshot, late int64, all result.Phase) *result.Replay {
	lg := r.lg
	st := &result.Replay{
		Mode: "sessions", Speed: "max", Lines: int64(lg.Lines), Unreadable: lg.Skips.Count,
		Sessions: len(lg.Sessions), Statements: lg.Statements, LogSpan: round3(lg.Span.Seconds()),
		Wall: round3(wall.Seconds()), Notes: r.notes,
	}
	for _, e := range lg.Skips.First {
		st.FirstUnreadable = append(st.FirstUnreadable, e.Error())
	}
	if r.cfg.Clients > 0 {
		st.Mode = "clients"
	}
	if r.cfg.DelayMax > 0 {
		st.Delay = r.cfg.DelayMin.String()
		if r.cfg.DelayMax != r.cfg.DelayMin {
			st.Delay += "-" + r.cfg.DelayMax.String()
		}
	}
	if len(r.openErr) > 0 {
		if len(r.openErr) == 1 {
			st.Notes = append(st.Notes, fmt.Sprintf("1 session could not connect, and its statements count as errors: %v", r.openErr[0]))
		} else {
			st.Notes = append(st.Notes, fmt.Sprintf("%d sessions could not connect, and their statements count as errors; the first: %v", len(r.openErr), r.openErr[0]))
		}
	}
	if lg.Dialect == Postgres && len(lg.Databases) > 1 {
		st.Notes = append(st.Notes, fmt.Sprintf("the log's sessions used %d databases (%v); every session ran in the store's one", len(lg.Databases), lg.Databases))
	}
	if lg.Copies > 0 {
		if lg.Copies == 1 {
			st.Notes = append(st.Notes, "1 COPY statement from or to the client was left out: the data it moved is not in the log")
		} else {
			st.Notes = append(st.Notes, fmt.Sprintf("%d COPY statements from or to the client were left out: the data they moved is not in the log", lg.Copies))
		}
	}
	if all.Ops+all.Errors == 0 && all.WarmupOps > 0 && !all.Interrupted {
		st.Notes = append(st.Notes, fmt.Sprintf("every statement ran within the --warmup of %v, so nothing was measured: give a warm-up shorter than the replay (%.3f s)", r.cfg.Warmup, wall.Seconds()))
	}
	if lg.NoTime {
		st.Notes = append(st.Notes, "the log has no time stamps, so every statement was due at once; its pace cannot be kept or judged")
	}
	if r.cfg.Speed == 0 {
		return st
	}
	if lg.Resolution > 0 {
		st.Notes = append(st.Notes, fmt.Sprintf("the log's times are whole seconds: the statements of each second were scheduled evenly over it, in the log's order, and a statement counts as late only when it started more than %v after the end of its second", LateAfter))
	}
	st.Speed = strconv.FormatFloat(r.cfg.Speed, 'g', -1, 64)
	st.Scheduled = round3(max(r.due(lg.Span), r.schedEnd).Seconds())
	if r.cfg.DelayMax > 0 {
		st.Notes = append(st.Notes, fmt.Sprintf("the schedule includes the --delay pauses, on top of the log's own: %.3f s as logged at speed %s, %.3f s with them", r.due(lg.Span).Seconds(), strconv.FormatFloat(r.cfg.Speed, 'g', -1, 64), st.Scheduled))
	}
	l := result.Summarize(lag)
	l.Buckets = nil
	st.Lag = &l
	st.Late = late
	st.LateAfterUs = float64(LateAfter.Microseconds())
	n := float64(lag.Count)
	over := wall.Seconds() - st.Scheduled
	// Behind: more than 5 % of the statements (and more than a handful,
	// which a busy machine's scheduler can make late) started late, or the
	// replay ended more than 5 % (and 0.1 s) after the schedule did. An
	// interrupted replay gets no verdict: it ended when it was stopped,
	// not when the log did, so its time says nothing of the pace.
	if lg.NoTime || n == 0 || all.Interrupted {
		return st
	}
	if float64(late)/n > 0.05 && late > 5 || over > max(0.05*st.Scheduled, 0.1) {
		st.Behind = true
		switch {
		case all.ProcessCPU >= 0.9*float64(runtime.NumCPU()):
			st.Note = "kurabe could not keep the log's pace: its own process used nearly every core"
		case r.cfg.Clients > 0:
			st.Note = fmt.Sprintf("the replay could not keep the log's pace: statements started up to %s late and it ended %.2f s after the schedule; too few --clients for the log's concurrency, or a store slower than the logged one", fmtDur(l.Max), over)
		default:
			st.Note = fmt.Sprintf("the store could not keep the log's pace: statements started up to %s late and the replay ended %.2f s after the schedule", fmtDur(l.Max), over)
		}
	}
	return st
}

func fmtDur(us float64) string {
	return time.Duration(us * 1e3).Round(10 * time.Microsecond).String()
}

// otherText describes the shared phase of the n least frequent
// fingerprints.
func otherText(n int) string {
	if n == 1 {
		return "the least frequent fingerprint"
	}
	return fmt.Sprintf("the %d least frequent fingerprints", n)
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

// aggregator keeps the figures per fingerprint. Only its own goroutine
// writes them, from the clients' batches.
type aggregator struct {
	slot    []int32 // fingerprint → histogram slot; the last slot is the shared one
	recs    []*hist.Recorder
	ops     []int64
	errs    []int64
	warm    []int64 // warm-up statements, run and not measured
	read    []int64
	sent    []int64
	classes [][]result.ErrorClass
}

func newAggregator(lg *Log) *aggregator {
	n := len(lg.Fingerprints)
	a := &aggregator{slot: make([]int32, n)}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int {
		return int(lg.Fingerprints[y].Count - lg.Fingerprints[x].Count)
	})
	slots := min(n, MaxFingerprints)
	for rank, fp := range order {
		a.slot[fp] = int32(min(rank, slots))
	}
	if n > MaxFingerprints {
		slots++ // the shared one
	}
	a.recs = make([]*hist.Recorder, slots)
	for i := range a.recs {
		a.recs[i] = hist.NewRecorder()
	}
	a.ops = make([]int64, slots)
	a.errs = make([]int64, slots)
	a.warm = make([]int64, slots)
	a.read = make([]int64, slots)
	a.sent = make([]int64, slots)
	a.classes = make([][]result.ErrorClass, slots)
	return a
}

func (a *aggregator) run(in <-chan []sample, spent chan<- []sample) {
	for b := range in {
		for _, s := range b {
			i := a.slot[s.fp]
			if s.warm {
				a.warm[i]++
				continue
			}
			if s.err != nil {
				a.errs[i]++
				a.classes[i] = addClass(a.classes[i], s.err)
				continue
			}
			a.recs[i].Record(s.ns)
			a.ops[i]++
			a.read[i] += s.read
			a.sent[i] += s.sent
		}
		select {
		case spent <- b:
		default:
		}
	}
}

func addClass(cs []result.ErrorClass, err error) []result.ErrorClass {
	class := store.Classify(err)
	for i := range cs {
		if cs[i].Class == class {
			cs[i].Count++
			return cs
		}
	}
	return append(cs, result.ErrorClass{Class: class, Count: 1, First: err.Error()})
}

// phases returns a phase per fingerprint (and one for the fingerprints
// that share a histogram), the ones that took most time first.
func (a *aggregator) phases(lg *Log, all result.Phase) []result.Phase {
	var out []result.Phase
	shared := len(lg.Fingerprints) > MaxFingerprints
	byslot := make([]int, len(a.recs))
	for fp, s := range a.slot {
		byslot[s] = fp
	}
	for i, rec := range a.recs {
		var s hist.Snapshot
		rec.AddTo(&s)
		p := result.Phase{Clients: all.Clients, Elapsed: all.Elapsed, Interrupted: all.Interrupted,
			Ops: a.ops[i], Errors: a.errs[i], WarmupOps: a.warm[i], ErrorClasses: a.classes[i], BytesRead: a.read[i], BytesWritten: a.sent[i],
			Latency: result.Summarize(&s)}
		if p.Elapsed > 0 {
			p.OpsPerSec = float64(p.Ops) / p.Elapsed
		}
		if shared && i == len(a.recs)-1 {
			var inLog int64
			for fp, sl := range a.slot {
				if int(sl) == i {
					inLog += lg.Fingerprints[fp].Count
				}
			}
			p.Op = "other fingerprints"
			p.Replay = &result.Replay{Fingerprint: "other", Text: otherText(len(lg.Fingerprints) - MaxFingerprints), InLog: inLog}
		} else {
			f := lg.Fingerprints[byslot[i]]
			p.Op = Label(f)
			p.Replay = &result.Replay{Fingerprint: f.ID, Text: f.Text, InLog: f.Count}
		}
		out = append(out, p)
	}
	slices.SortStableFunc(out, func(x, y result.Phase) int {
		tx, ty := x.Latency.SumNs, y.Latency.SumNs
		switch {
		case tx > ty:
			return -1
		case tx < ty:
			return 1
		}
		return 0
	})
	return out
}

// LabelWidth is how much of a fingerprint's text its phase's name shows.
const LabelWidth = 60

// Label names a fingerprint's phase: its id and the start of its text.
func Label(f Fingerprint) string {
	t := f.Text
	if utf8.RuneCountInString(t) > LabelWidth {
		r := []rune(t)
		t = string(r[:LabelWidth-1]) + "…"
	}
	return f.ID + " " + t
}
