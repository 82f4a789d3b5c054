package hist

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"
	"unsafe"
)

// flatRecorder is the Recorder as it was before its buckets were put in
// chunks: one flat array of every bucket, 76 KiB whatever it held. The
// tests below hold the chunked Recorder to it.
type flatRecorder struct {
	counts [numBuckets]uint64
	count  uint64
	sum    uint64
	min    int64
	max    int64
}

func newFlatRecorder() *flatRecorder {
	return &flatRecorder{min: math.MaxInt64}
}

func (r *flatRecorder) Record(ns int64) {
	if ns < 0 {
		ns = 0
	}
	r.counts[index(ns)]++
	r.sum += uint64(ns)
	r.min = min(r.min, ns)
	r.max = max(r.max, ns)
	r.count++
}

func (r *flatRecorder) AddTo(s *Snapshot) {
	s.ensure()
	wasEmpty := s.Count == 0
	var n uint64
	for i, c := range r.counts {
		if c != 0 {
			s.Counts[i] += c
			n += c
		}
	}
	s.Count += n
	s.Sum += r.sum
	if n > 0 {
		if wasEmpty || r.min < s.Min {
			s.Min = r.min
		}
		if r.max > s.Max {
			s.Max = r.max
		}
	}
}

// draws are the value distributions the layouts are compared on: a
// client's latencies clustered around one value, a spread from
// nanoseconds to hours, and values beyond the last bucket or below 0.
var draws = map[string]func(*rand.Rand) int64{
	"clustered": func(rng *rand.Rand) int64 { return int64(200_000 * math.Exp(rng.NormFloat64()*0.3)) },
	"wide":      func(rng *rand.Rand) int64 { return int64(math.Exp(rng.Float64() * 30)) },
	"exact":     func(rng *rand.Rand) int64 { return rng.Int64N(1200) },
	"edges": func(rng *rand.Rand) int64 {
		return []int64{-5, 0, 511, 512, 1<<44 - 1, 1 << 44, 1 << 50, math.MaxInt64 / 4}[rng.IntN(8)]
	},
}

func sameSnapshot(a, b *Snapshot) bool {
	return slices.Equal(a.Counts, b.Counts) && a.Count == b.Count && a.Sum == b.Sum && a.Min == b.Min && a.Max == b.Max
}

func TestChunksMatchFlatLayout(t *testing.T) {
	// For the same values, the chunked Recorder gives the very snapshot
	// the flat one did, and so the same merges, deltas, quantiles, mean,
	// standard deviation and stored buckets: several recorders per
	// distribution (clients) merged, read part way (the ticker) and at
	// the end.
	for name, draw := range draws {
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, uint64(len(name))))
			const clients = 5
			var recs [clients]*Recorder
			var flats [clients]*flatRecorder
			for i := range recs {
				recs[i], flats[i] = NewRecorder(), newFlatRecorder()
			}
			read := func() (got, want Snapshot) {
				for i := range recs {
					recs[i].AddTo(&got)
					flats[i].AddTo(&want)
				}
				return got, want
			}
			var prevGot, prevWant Snapshot
			for step := range 4 {
				for range 20000 {
					i, v := rng.IntN(clients), draw(rng)
					recs[i].Record(v)
					flats[i].Record(v)
				}
				got, want := read()
				if !sameSnapshot(&got, &want) {
					t.Fatalf("step %d: snapshot differs from the flat layout's", step)
				}
				var dGot, dWant Snapshot
				dGot.Delta(&got, &prevGot)
				dWant.Delta(&want, &prevWant)
				if !sameSnapshot(&dGot, &dWant) {
					t.Fatalf("step %d: delta differs from the flat layout's", step)
				}
				prevGot, prevWant = got, want
			}
			// Merged per client, as the engine merges kinds.
			var got, want Snapshot
			for i := range recs {
				var g, w Snapshot
				recs[i].AddTo(&g)
				flats[i].AddTo(&w)
				got.Merge(&g)
				want.Merge(&w)
			}
			if !sameSnapshot(&got, &want) {
				t.Fatal("merged snapshot differs from the flat layout's")
			}
			for _, q := range []float64{0, 0.001, 0.1, 0.5, 0.9, 0.99, 0.999, 0.9999, 1} {
				if g, w := got.Quantile(q), want.Quantile(q); g != w {
					t.Errorf("q%g = %g, flat layout %g", q, g, w)
				}
			}
			if got.Mean() != want.Mean() || got.StdDev() != want.StdDev() {
				t.Errorf("mean/stddev = %g/%g, flat layout %g/%g", got.Mean(), got.StdDev(), want.Mean(), want.StdDev())
			}
			if !slices.Equal(got.Buckets(), want.Buckets()) {
				t.Error("stored buckets differ from the flat layout's")
			}
		})
	}
}

func TestRecorderHoldsOnlyChunksUsed(t *testing.T) {
	// A client's latencies clustered around 200 µs take a few KiB: the
	// flat layout took 76 KiB for any. TotalAlloc counts every byte the
	// recorders (and their chunks) were given.
	const n = 1000
	recs := make([]*Recorder, n)
	rng := rand.New(rand.NewPCG(1, 2))
	var vals [200]int64
	for i := range vals {
		vals[i] = draws["clustered"](rng)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range recs {
		recs[i] = NewRecorder()
		for _, v := range vals {
			recs[i].Record(v)
		}
	}
	runtime.ReadMemStats(&after)
	per := (after.TotalAlloc - before.TotalAlloc) / n
	chunks := 0
	for j := range recs[0].chunks {
		if recs[0].chunks[j].Load() != nil {
			chunks++
		}
	}
	t.Logf("a recorder of 200 values around 200µs: %d bytes, %d chunks", per, chunks)
	if per > 8<<10 {
		t.Errorf("a recorder of 200 values around 200µs took %d bytes (%d chunks), want a few KiB", per, chunks)
	}
	if size := unsafe.Sizeof(Recorder{}); size > 1024 {
		t.Errorf("an empty Recorder is %d bytes", size)
	}
	runtime.KeepAlive(recs)
}

func TestRecordAllocatesOnlyForNewChunk(t *testing.T) {
	// Values in ranges already seen cost no allocation; the first value
	// in a new chunk's range costs one.
	r := NewRecorder()
	rng := rand.New(rand.NewPCG(3, 4))
	seen := make([]int64, 1000)
	for i := range seen {
		seen[i] = draws["wide"](rng)
		r.Record(seen[i])
	}
	i := 0
	if a := testing.AllocsPerRun(1000, func() {
		r.Record(seen[i%len(seen)])
		i++
	}); a != 0 {
		t.Errorf("recording values in ranges seen: %v allocations each, want 0", a)
	}
	fresh := NewRecorder()
	if a := testing.AllocsPerRun(1, func() { fresh.Record(123_456) }); a != 0 {
		// AllocsPerRun's warm-up call took the chunk.
		t.Errorf("recording again in the chunk the warm-up call made: %v allocations", a)
	}
	fresh2 := NewRecorder()
	v := int64(1000)
	if a := testing.AllocsPerRun(20, func() { fresh2.Record(v); v *= 2 }); a != 1 {
		t.Errorf("recording in a new range: %v allocations each, want 1", a)
	}
}

func TestReadWhileRecording(t *testing.T) {
	// Readers take snapshots while the writer records into chunks it is
	// still making (run with -race): every snapshot is a state between
	// the start and the end, counts never go back, and the final one is
	// the flat layout's.
	r, flat := NewRecorder(), newFlatRecorder()
	rng := rand.New(rand.NewPCG(5, 6))
	vals := make([]int64, 100000)
	for i := range vals {
		vals[i] = draws["wide"](rng)
		flat.Record(vals[i])
	}
	var want Snapshot
	flat.AddTo(&want)
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var prev, s Snapshot
			for {
				select {
				case <-done:
					return
				default:
				}
				s.Reset()
				r.AddTo(&s)
				if s.Count > want.Count || s.Count < prev.Count {
					t.Errorf("snapshot of %d values after one of %d (of %d)", s.Count, prev.Count, want.Count)
					return
				}
				for i, c := range s.Counts {
					var was uint64
					if prev.Counts != nil {
						was = prev.Counts[i]
					}
					if c > want.Counts[i] || c < was {
						t.Errorf("bucket %d went from %d to %d (final %d)", i, was, c, want.Counts[i])
						return
					}
				}
				prev, s = s, prev
			}
		}()
	}
	for _, v := range vals {
		r.Record(v)
	}
	close(done)
	wg.Wait()
	var got Snapshot
	r.AddTo(&got)
	if !sameSnapshot(&got, &want) {
		t.Fatal("final snapshot differs from the flat layout's")
	}
}

// BenchmarkAddTo is the ticker's cost per client and kind each second: a
// recorder of one client's latencies, clustered around 200 µs, read into
// a snapshot.
func BenchmarkAddTo(b *testing.B) {
	r := NewRecorder()
	rng := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		r.Record(draws["clustered"](rng))
	}
	var s Snapshot
	for b.Loop() {
		r.AddTo(&s)
	}
}
