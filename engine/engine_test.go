package engine

import (
	"context"
	"errors"
	"math"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"kurabe/store"
	"kurabe/store/file"
	"kurabe/store/sqlite"
	"kurabe/store/storefault"
	"kurabe/workload"
	"kurabe/workload/bbs"
)

func openStore(t *testing.T, spec string) store.Store {
	t.Helper()
	sp, err := store.ParseSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	open := map[string]store.Opener{"file": file.Open, "sqlite": sqlite.Open}[sp.Driver]
	st, err := open(context.Background(), sp, store.Env{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func bbsWorkload(t *testing.T, ops ...string) workload.Workload {
	t.Helper()
	w, err := bbs.New().Build(ops)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func setup(t *testing.T, st store.Store, w workload.Workload) {
	t.Helper()
	if err := st.Setup(context.Background(), w.Tables()); err != nil {
		t.Fatal(err)
	}
}

func TestExactCountSpreadOverClients(t *testing.T) {
	// -n 10001 -c 100: exactly 10001 operations, none of the remainder
	// dropped, and exactly 10001 rows in the store.
	for _, spec := range []string{"file:", "sqlite:?journal_mode=wal&synchronous=off"} {
		t.Run(spec, func(t *testing.T) {
			st := openStore(t, spec)
			w := bbsWorkload(t, "write")
			setup(t, st, w)
			res, err := RunPhase(context.Background(), Config{Clients: 100, Count: 10001, Seed: 1}, st, w, 0)
			if err != nil {
				t.Fatal(err)
			}
			if res.Ops != 10001 || res.Errors != 0 {
				t.Fatalf("ops = %d, errors = %d; want 10001, 0", res.Ops, res.Errors)
			}
			if len(res.Verify) != 1 || res.Verify[0].After != 10001 || res.Verify[0].Acked != 10001 || res.Verify[0].Lost != 0 {
				t.Fatalf("verify = %+v", res.Verify)
			}
			if len(res.ClientFinish) != 100 || res.Latency.Count != 10001 {
				t.Fatalf("finish times %d, latency count %d", len(res.ClientFinish), res.Latency.Count)
			}
		})
	}
}

func TestIdleClientsLeaveFinishRatioAlone(t *testing.T) {
	// -n 3 -c 10: seven clients have nothing to do and finish at once.
	// last/first compares the three that ran (each one operation of
	// 100 ms, side by side), not them with the idle ones.
	st := &storefault.Stall{Store: openStore(t, "file:"), Every: 1, For: 100 * time.Millisecond}
	w := bbsWorkload(t, "write")
	setup(t, st, w)
	res, err := RunPhase(context.Background(), Config{Clients: 10, Count: 3, Seed: 1}, st, w, 0)
	if err != nil {
		t.Fatal(err)
	}
	if res.Ops != 3 || len(res.ClientFinish) != 10 {
		t.Fatalf("ops %d, finish times %v", res.Ops, res.ClientFinish)
	}
	if res.FinishRatio < 1 || res.FinishRatio > 10 {
		t.Fatalf("last/first %.2f from finish times %v; the idle clients were counted", res.FinishRatio, res.ClientFinish)
	}
}

func TestDroppedWritesAreReportedLost(t *testing.T) {
	st := &storefault.DropWrites{Store: openStore(t, "sqlite:"), Every: 100}
	w := bbsWorkload(t, "write")
	setup(t, st, w)
	res, err := RunPhase(context.Background(), Config{Clients: 4, Count: 1000, Seed: 1}, st, w, 0)
	if err != nil {
		t.Fatal(err)
	}
	if v := res.Verify[0]; v.Lost != 10 || v.Acked != 1000 || v.After != 990 {
		t.Fatalf("verify = %+v, want 10 lost of 1000 acknowledged", v)
	}
}

func TestDurationAndWarmup(t *testing.T) {
	st := openStore(t, "file:")
	w := bbsWorkload(t, "write")
	setup(t, st, w)
	t0 := time.Now()
	res, err := RunPhase(context.Background(), Config{Clients: 2, Duration: 1200 * time.Millisecond, Warmup: 500 * time.Millisecond, Seed: 3}, st, w, 0)
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(t0)
	if took < 1700*time.Millisecond || took > 5*time.Second {
		t.Fatalf("phase took %v, want about 1.7s", took)
	}
	// The measured time starts after the warm-up: it is at least the
	// duration, and the whole phase took at least the warm-up longer. An
	// upper bound on the elapsed time itself would count the machine's
	// stalls (the last operation, under the race detector on a loaded
	// machine), not whether the warm-up was left out.
	if res.Elapsed < 1.2 || took.Seconds()-res.Elapsed < 0.5 {
		t.Fatalf("measured elapsed %.2fs of a phase of %v, want 1.2s or more and the 0.5s warm-up left out", res.Elapsed, took)
	}
	if res.WarmupOps == 0 {
		t.Fatal("no warm-up operations recorded")
	}
	v := res.Verify[0]
	// Warm-up writes are excluded from the figures but are still writes:
	// verification counts them.
	if v.Acked != res.Ops+res.WarmupOps || v.Lost != 0 || v.Extra != 0 {
		t.Fatalf("verify %+v with %d measured and %d warm-up ops", v, res.Ops, res.WarmupOps)
	}
	if len(res.Series) < 2 || !res.Series[0].Warmup {
		t.Fatalf("series %+v: want a first second marked warm-up", res.Series)
	}
}

// TestSeriesAddsUpToThePhase checks the per-second series against the
// phase it samples: the warm-up's intervals add up to the warm-up's
// operations and the measured ones to the phase's ops and errors, whichever
// side of a tick an operation ended on; and the last interval is not a
// sliver of the clients' last operations after the last tick, which the
// timeline would draw as a cliff (3,167 ops/s after 953,392).
func TestSeriesAddsUpToThePhase(t *testing.T) {
	for _, c := range []struct {
		name string
		st   func(t *testing.T) store.Store
		op   string
		cfg  Config
	}{
		{"timed, with a warm-up, a million operations a second", func(t *testing.T) store.Store { return openStore(t, "file:") }, "write",
			Config{Clients: 4, Duration: 2 * time.Second, Warmup: time.Second, Seed: 1}},
		{"counted, with a warm-up of part of a second", func(t *testing.T) store.Store { return openStore(t, "file:") }, "write",
			Config{Clients: 2, Count: 300_000, Warmup: 700 * time.Millisecond, Seed: 2}},
		{"every operation failing", func(t *testing.T) store.Store { return &storefault.RefuseReads{Store: openStore(t, "file:")} }, "read-latest",
			Config{Clients: 2, Duration: 1500 * time.Millisecond, Warmup: 500 * time.Millisecond, Seed: 3}},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := c.st(t)
			w := bbsWorkload(t, c.op)
			setup(t, st, w)
			res, err := RunPhase(context.Background(), c.cfg, st, w, 0)
			if err != nil {
				t.Fatal(err)
			}
			var warmOps, ops, errs int64
			var measured []int
			for i, s := range res.Series {
				if s.Warmup {
					warmOps += s.Ops
					continue
				}
				ops += s.Ops
				errs += s.Errors
				measured = append(measured, i)
			}
			if warmOps != res.WarmupOps || ops != res.Ops || errs != res.Errors {
				t.Errorf("series adds up to %d warm-up ops, %d ops, %d errors; the phase has %d, %d, %d\n%+v",
					warmOps, ops, errs, res.WarmupOps, res.Ops, res.Errors, res.Series)
			}
			if res.Ops+res.Errors == 0 || len(measured) == 0 {
				t.Fatalf("nothing measured: %+v", res)
			}
			if n := len(measured); n > 1 {
				last, before := res.Series[measured[n-1]], res.Series[measured[n-2]]
				if last.T-before.T < 0.5 {
					t.Errorf("the last interval is %.3fs long, after one ending at %.3fs: %+v", last.T-before.T, before.T, res.Series)
				}
			}
		})
	}
}

func TestInterruptStopsCleanlyAndVerifies(t *testing.T) {
	st := openStore(t, "sqlite:?journal_mode=wal")
	w := bbsWorkload(t, "write")
	setup(t, st, w)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Interrupt once the clients have written, as Ctrl-C mid-phase would:
	// a timer started before RunPhase could fire while the sessions are
	// still opening on a slow machine, and then nothing would have run.
	tick := func(p Progress) {
		if p.Ops > 0 {
			cancel()
		}
	}
	res, err := RunPhase(ctx, Config{Clients: 8, Count: 100_000_000, Seed: 1, Tick: tick}, st, w, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted || res.Ops == 0 || res.Ops >= 100_000_000 {
		t.Fatalf("interrupted=%v ops=%d", res.Interrupted, res.Ops)
	}
	if v := res.Verify[0]; v.Lost != 0 || v.Extra != 0 || v.Acked != res.Ops {
		t.Fatalf("verify after interrupt = %+v, ops %d", v, res.Ops)
	}
}

func TestMixFollowsWeights(t *testing.T) {
	st := openStore(t, "file:")
	def := bbs.New()
	w, err := def.Build([]string{"mix"})
	if err != nil {
		t.Fatal(err)
	}
	setup(t, st, w)
	res, err := RunPhase(context.Background(), Config{Clients: 4, Count: 4000, Seed: 9}, st, w, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, k := range res.Kinds {
		got[k.Name] = k.Ops
	}
	if got["write"]+got["read-all"] != 4000 || math.Abs(float64(got["write"])-2000) > 200 {
		t.Fatalf("mix 50/50 gave %v", got)
	}
	if res.Verify[0].Acked != got["write"] || res.Verify[0].Lost != 0 {
		t.Fatalf("verify %+v", res.Verify[0])
	}
}

func TestSeedMakesMixRepeatable(t *testing.T) {
	kinds := func() map[string]int64 {
		st := openStore(t, "file:")
		w, _ := bbs.New().Build([]string{"mix"})
		setup(t, st, w)
		res, err := RunPhase(context.Background(), Config{Clients: 3, Count: 999, Seed: 42}, st, w, 0)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]int64{}
		for _, k := range res.Kinds {
			m[k.Name] = k.Ops
		}
		return m
	}
	a, b := kinds(), kinds()
	if a["write"] != b["write"] || a["read-all"] != b["read-all"] {
		t.Fatalf("same seed, different mix: %v vs %v", a, b)
	}
}

// failingClient is a fake client that fails every third operation, for the
// error accounting.
type failingClient struct{ n int }

var errFake = &store.ClassError{Class: "busy", Err: errors.New("database is locked (fake)")}

func (c *failingClient) Do(ctx context.Context, kind int) (workload.Done, error) {
	c.n++
	if c.n%3 == 0 {
		return workload.Done{Read: 100, Written: 100}, errFake
	}
	return workload.Done{Read: 6, Written: 4}, nil
}

func TestErrorsCountedByClass(t *testing.T) {
	wk := newWorker(1, []int{1})
	wk.histograms([]int{1}, false)
	wk.client = &failingClient{}
	var stop atomic.Bool
	wk.epoch = time.Now()
	wk.run(context.Background(), &stop, 30, 0, 0)
	if wk.kinds[0].errors != 10 || len(wk.kinds[0].classes) != 1 || wk.kinds[0].classes[0].Class != "busy" || wk.kinds[0].classes[0].Count != 10 {
		t.Fatalf("errors %+v", wk.kinds[0])
	}
	// Bytes are kept by direction, and only successful operations'.
	if ks := wk.kinds[0]; wk.rec[0].Count() != 20 || ks.read != 120 || ks.written != 80 {
		t.Fatalf("successes recorded %d, bytes read %d, written %d", wk.rec[0].Count(), ks.read, ks.written)
	}
}

func TestValidate(t *testing.T) {
	cases := []struct {
		name string
		cfg  Config
	}{
		{"no clients", Config{Count: 1}},
		{"neither n nor d", Config{Clients: 1}},
		{"both n and d", Config{Clients: 1, Count: 1, Duration: time.Second}},
		{"think max below min", Config{Clients: 1, Count: 1, ThinkMin: 2, ThinkMax: 1}},
		{"unknown client I/O", Config{Clients: 1, Count: 1, IO: "fibers"}},
	}
	for _, c := range cases {
		if err := c.cfg.Validate(); err == nil {
			t.Errorf("%s: accepted", c.name)
		}
	}
}

type nopClient struct{}

func (nopClient) Do(context.Context, int) (workload.Done, error) {
	return workload.Done{Read: 1, Written: 1, Rows: 1}, nil
}

// BenchmarkMeasure is the cost kurabe adds to every operation: drawing the
// kind, two clock reads and recording into the histogram. Goal: < 200 ns,
// 0 allocations.
func BenchmarkMeasure(b *testing.B) {
	for _, weights := range [][]int{{1}, {50, 50, 0}} {
		name := "single"
		if len(weights) > 1 {
			name = "mix"
		}
		b.Run(name, func(b *testing.B) {
			wk := newWorker(len(weights), weights)
			wk.histograms(weights, false)
			wk.client = nopClient{}
			wk.rng = newRand(1)
			wk.epoch = time.Now()
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				wk.do(ctx, true)
			}
		})
	}
}

func TestMeasureDoesNotAllocate(t *testing.T) {
	// A histogram makes a chunk for a range of latencies the first time
	// it sees one; after that, measuring an operation allocates nothing.
	for _, weights := range [][]int{{1}, {50, 50, 0}} {
		wk := newWorker(len(weights), weights)
		wk.histograms(weights, true)
		wk.client = nopClient{}
		wk.rng = newRand(1)
		wk.epoch = time.Now()
		ctx := context.Background()
		for range 100 {
			wk.do(ctx, true)
			wk.do(ctx, false)
		}
		if a := testing.AllocsPerRun(2000, func() { wk.do(ctx, true); wk.do(ctx, false) }); a != 0 {
			t.Errorf("weights %v: %v allocations per operation", weights, a)
		}
	}
}

func TestPerOpConnectReportedApart(t *testing.T) {
	// SQLite with connect=per-op opens the database for every operation:
	// the phase reports connect time, latency without it, and a higher
	// ops/s without it.
	st := openStore(t, "sqlite:?connect=per-op&journal_mode=wal&synchronous=off")
	w := bbsWorkload(t, "write")
	setup(t, st, w)
	res, err := RunPhase(context.Background(), Config{Clients: 2, Count: 300, Seed: 1}, st, w, 0)
	if err != nil {
		t.Fatal(err)
	}
	if res.Connect == nil || res.LatencyExclConnect == nil || res.Connect.Count != 300 {
		t.Fatalf("connect figures missing: %+v", res.Connect)
	}
	if res.LatencyExclConnect.Mean >= res.Latency.Mean || res.Connect.Mean <= 0 {
		t.Fatalf("mean with connect %.1fµs, without %.1fµs, connect %.1fµs", res.Latency.Mean, res.LatencyExclConnect.Mean, res.Connect.Mean)
	}
	if res.OpsPerSecExclConnect <= res.OpsPerSec {
		t.Fatalf("ops/s without connect %.0f not above %.0f", res.OpsPerSecExclConnect, res.OpsPerSec)
	}
	if res.Verify[0].Lost != 0 || res.Verify[0].After != 300 {
		t.Fatalf("verify %+v", res.Verify[0])
	}
	// The open loop times connects as the closed loop does.
	setup(t, st, w)
	res, err = RunPhase(context.Background(), Config{Clients: 2, Count: 100, Rate: 2000, Seed: 1}, st, w, 0)
	if err != nil {
		t.Fatal(err)
	}
	if res.Connect == nil || res.Connect.Count != 100 || res.Connect.Mean <= 0 || res.LatencyExclConnect == nil || res.LatencyExclConnect.Count != 100 {
		t.Fatalf("open loop: connect %+v, without %+v; want 100 connects timed", res.Connect, res.LatencyExclConnect)
	}
}

func TestClientsOverCapacityAreCountedNotFatal(t *testing.T) {
	st := &storefault.Capacity{Store: openStore(t, "file:"), Max: 4}
	w := bbsWorkload(t, "write")
	setup(t, st, w)
	res, err := RunPhase(context.Background(), Config{Clients: 10, Count: 1000, Seed: 1}, st, w, 0)
	if err != nil {
		t.Fatal(err)
	}
	if res.Clients != 4 || len(res.SessionErrors) != 1 || res.SessionErrors[0].Count != 6 || res.SessionErrors[0].Class != "too-many-connections" {
		t.Fatalf("clients %d, session errors %+v", res.Clients, res.SessionErrors)
	}
	if res.Ops != 1000 || res.Verify[0].After != 1000 {
		t.Fatalf("ops %d, stored %d: the clients that got in must do all the work", res.Ops, res.Verify[0].After)
	}
}

func TestSharesFollowTheClientsThatGotIn(t *testing.T) {
	// Per-client counts (isolated crud tables) belong to their clients:
	// when client 2 of 3 cannot open a session, clients 1 and 3 run their
	// own shares (5 and 20), not the first two shares (5 and 10).
	st := openStore(t, "file:")
	refusing := &storefault.Capacity{Store: st, Max: 0}
	w := bbsWorkload(t, "write")
	setup(t, st, w)
	res, err := RunPhase(context.Background(), Config{Clients: 3, Count: 35, Shares: []int64{5, 10, 20}, Seed: 1,
		PerClientStore: []store.Store{st, refusing, st}}, st, w, 0)
	if err != nil {
		t.Fatal(err)
	}
	if res.Clients != 2 || res.Ops != 25 || res.Verify[0].After-res.Verify[0].Before != 25 {
		t.Fatalf("clients %d, ops %d, verify %+v; want 2 clients running 5 + 20", res.Clients, res.Ops, res.Verify)
	}
}

func TestSessionsOfThePhaseBeforeAreWaitedFor(t *testing.T) {
	// A server at its limit frees the last phase's connections a moment
	// after they closed: the next phase's clients and kurabe's counting
	// connection wait for them instead of running short.
	st := &storefault.Capacity{Store: openStore(t, "file:"), Max: 5, CountConnects: true, Release: 100 * time.Millisecond}
	w := bbsWorkload(t, "write")
	setup(t, st, w)
	for phase := range 2 {
		res, err := RunPhase(context.Background(), Config{Clients: 4, Count: 200, Seed: 1}, st, w, 0)
		if err != nil {
			t.Fatalf("phase %d: %v", phase, err)
		}
		if res.Clients != 4 || len(res.SessionErrors) != 0 || res.Verify[0].Error != "" || res.Verify[0].Lost != 0 {
			t.Fatalf("phase %d: clients %d, session errors %+v, verify %+v", phase, res.Clients, res.SessionErrors, res.Verify)
		}
	}
}

// kurabe's counting connection is opened before the clients' sessions: at
// a server's connection limit a client is turned away and the phase runs
// with the others, verified; a server with no connection free even for
// the count says why.
func TestCountConnectionBeforeTheClients(t *testing.T) {
	st := &storefault.Capacity{Store: openStore(t, "file:"), Max: 4, CountConnects: true}
	w := bbsWorkload(t, "write")
	setup(t, st, w)
	res, err := RunPhase(context.Background(), Config{Clients: 4, Count: 100, Seed: 1}, st, w, 0)
	if err != nil {
		t.Fatal(err)
	}
	if res.Clients != 3 || len(res.SessionErrors) != 1 || res.SessionErrors[0].Count != 1 || res.Ops != 100 || res.Verify[0].Error != "" || res.Verify[0].After != 100 {
		t.Fatalf("clients %d, session errors %+v, ops %d, verify %+v; want 3 clients of 4 running and verified", res.Clients, res.SessionErrors, res.Ops, res.Verify)
	}
	full := &storefault.Capacity{Store: openStore(t, "file:"), Max: 0, CountConnects: true}
	setup(t, full, w)
	_, err = RunPhase(context.Background(), Config{Clients: 4, Count: 100, Seed: 1}, full, w, 0)
	if err == nil || !strings.Contains(err.Error(), "connection of its own") || !strings.Contains(err.Error(), "max_connections") {
		t.Fatalf("RunPhase = %v; want an error saying kurabe's counting connection found no place", err)
	}
}

func TestParseClientIO(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want ClientIO
		bad  bool
	}{
		{"auto", IOAuto, false},
		{"true", IOAuto, false},
		{"threads", IOThreads, false},
		{"loop", IOLoop, false},
		{"poller", IOPoller, false},
		{"false", IOPoller, false},
		{"off", IOPoller, false},
		{"fibers", "", true},
		{"Threads", "", true},
	} {
		got, err := ParseClientIO(tc.in)
		if (err != nil) != tc.bad || got != tc.want {
			t.Errorf("ParseClientIO(%q) = %q, %v; want %q, error %v", tc.in, got, err, tc.want, tc.bad)
		}
	}
}

// TestIdleClientsHoldNoHistograms: with -n below -c, the clients with
// nothing to run get no histograms, and the others one for the kind their
// phase runs only. Each was 76 KiB (now 624 bytes while empty): kurabe
// run -c 100000 -n 10 allocated one per client and kind of the workload,
// some 30 GB, before it ran. The limit below holds the histograms' and the
// file store's sessions' memory per client too.
func TestIdleClientsHoldNoHistograms(t *testing.T) {
	const clients = 2000
	st := openStore(t, "file:")
	w := bbsWorkload(t, "write", "read-all", "read-latest", "mix")
	setup(t, st, w)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res, err := RunPhase(context.Background(), Config{Clients: clients, Count: 10, Seed: 1}, st, w, 0)
	runtime.ReadMemStats(&after)
	if err != nil || res.Ops != 10 {
		t.Fatalf("ops %d, %v", res.Ops, err)
	}
	// A client takes about 2.5 KiB here: its state, its session, a
	// histogram for the one kind, empty but for ten clients. A histogram
	// for every kind took 76 KiB times (kinds + 1) when each was 76 KiB,
	// and the file store's sessions took 64 KiB each for a read buffer
	// they now borrow.
	perClient := (after.TotalAlloc - before.TotalAlloc) / clients
	if limit := uint64(16 << 10); perClient > limit {
		t.Errorf("%d KiB allocated per client, want under %d KiB: idle clients hold histograms", perClient>>10, limit>>10)
	}
}
