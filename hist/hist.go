// Package hist holds kurabe's latency histograms.
//
// A Recorder is written by exactly one goroutine (one simulated client) and
// may be read at any time by others: every counter is updated with an atomic
// add, so a reader takes a consistent-enough Snapshot once a second without
// a lock, and the writer never waits. Recording does not allocate, but for
// a chunk's first value (below).
//
// The bucket layout is log-linear, as in HDR histograms: values below 512 ns
// are exact, above that each power of two is split into 256 buckets, so a
// reported value is within 0.2 % of the true one (the midpoint of a bucket is
// reported). Values are nanoseconds up to 2^44 ns (about 4.9 hours); larger
// values fall into the last bucket, while Max stays exact.
//
// The 9,472 buckets (74 KiB of counters) are held in 74 chunks of 128
// buckets (half a power of two, 1 KiB each), and a Recorder allocates a
// chunk the first time it records a value in the chunk's range: an empty
// Recorder is 624 bytes, and one client's latencies, which cluster in a few
// ranges, take a few KiB more, so that kurabe can keep one per client and
// operation kind at -c 100000 (it was 76 KiB whatever it held). Recording
// allocates only then: at most 74 times over a Recorder's life, typically
// a few times in its first operations, and never once its values' ranges
// have been seen.
package hist

import (
	"math"
	"math/bits"
	"sync/atomic"
)

const (
	subBits    = 9
	subCount   = 1 << subBits // exact values below this
	halfCount  = subCount / 2 // buckets per power of two above it
	maxBits    = 44
	numBuckets = subCount + (maxBits-subBits)*halfCount

	chunkBits = 7 // buckets in a chunk: 128, half of a power of two's
	chunkLen  = 1 << chunkBits
	chunkMask = chunkLen - 1
	numChunks = numBuckets / chunkLen
)

// The chunks tile the buckets exactly (the build fails otherwise): the
// exact values below subCount are 4 chunks, each power of two above 2.
var _ [numChunks*chunkLen - numBuckets]struct{}
var _ [numBuckets - numChunks*chunkLen]struct{}

// index returns the bucket that holds v (v >= 0).
func index(v int64) int {
	if v < subCount {
		return int(v)
	}
	shift := bits.Len64(uint64(v)) - subBits
	if shift > maxBits-subBits {
		return numBuckets - 1
	}
	return subCount + (shift-1)*halfCount + int(v>>uint(shift)) - halfCount
}

// bounds returns the lowest value of bucket i and its width.
func bounds(i int) (low, width int64) {
	if i < subCount {
		return int64(i), 1
	}
	shift := (i-subCount)/halfCount + 1
	sub := (i-subCount)%halfCount + halfCount
	return int64(sub) << uint(shift), int64(1) << uint(shift)
}

// chunk is the counters of chunkLen consecutive buckets.
type chunk [chunkLen]uint64

// Recorder is a histogram with a single writer and any number of readers.
//
// Its buckets are in chunks allocated on first use. The writer publishes a
// new chunk with an atomic store before it counts into it, and a reader
// loads each chunk pointer atomically and skips a nil one (no value there
// yet), so readers never see a chunk half made and never stop the writer.
type Recorder struct {
	chunks [numChunks]atomic.Pointer[chunk]
	count  uint64
	sum    uint64
	min    int64 // math.MaxInt64 while empty
	max    int64
}

// NewRecorder returns an empty Recorder. It holds no chunk yet.
func NewRecorder() *Recorder {
	return &Recorder{min: math.MaxInt64}
}

// Record adds one value in nanoseconds. Negative values count as 0.
// Only one goroutine may call Record on a given Recorder. It allocates
// only the first time a value falls in a chunk's range (see the package
// comment).
func (r *Recorder) Record(ns int64) {
	if ns < 0 {
		ns = 0
	}
	i := index(ns)
	c := r.chunks[i>>chunkBits].Load()
	if c == nil {
		c = r.grow(i >> chunkBits)
	}
	atomic.AddUint64(&c[i&chunkMask], 1)
	atomic.AddUint64(&r.sum, uint64(ns))
	// The writer is the only one to change min and max, so a load and a
	// store suffice; the atomic store publishes the value to readers.
	if ns < atomic.LoadInt64(&r.min) {
		atomic.StoreInt64(&r.min, ns)
	}
	if ns > atomic.LoadInt64(&r.max) {
		atomic.StoreInt64(&r.max, ns)
	}
	// count is written last: a reader that sees it sees the bucket too.
	atomic.AddUint64(&r.count, 1)
}

// grow allocates chunk j, out of Record's line so that the common path
// stays short. Only the writer calls it, so the chunk is still nil.
//
//go:noinline
func (r *Recorder) grow(j int) *chunk {
	c := new(chunk)
	r.chunks[j].Store(c)
	return c
}

// Count returns how many values were recorded so far (0 for a nil
// Recorder).
func (r *Recorder) Count() uint64 {
	if r == nil {
		return 0
	}
	return atomic.LoadUint64(&r.count)
}

// AddTo adds the recorder's current contents to s. It may run while the
// writer records; the result is then a mix of slightly different instants,
// which is fine for live views and exact once the writer has stopped. A
// nil Recorder adds nothing.
func (r *Recorder) AddTo(s *Snapshot) {
	s.ensure()
	if r == nil {
		return // a nil Recorder is empty
	}
	wasEmpty := s.Count == 0
	var n uint64
	for j := range r.chunks {
		ch := r.chunks[j].Load()
		if ch == nil {
			continue // no value in its range yet
		}
		counts := s.Counts[j*chunkLen : (j+1)*chunkLen]
		for i := range ch {
			if c := atomic.LoadUint64(&ch[i]); c != 0 {
				counts[i] += c
				n += c
			}
		}
	}
	s.Count += n
	s.Sum += atomic.LoadUint64(&r.sum)
	if n > 0 {
		if m := atomic.LoadInt64(&r.min); wasEmpty || m < s.Min {
			s.Min = m
		}
		if m := atomic.LoadInt64(&r.max); m > s.Max {
			s.Max = m
		}
	}
}

// Snapshot is a plain histogram for merging and computing statistics.
// The zero value is an empty histogram.
type Snapshot struct {
	Counts []uint64
	Count  uint64
	Sum    uint64
	Min    int64
	Max    int64
}

func (s *Snapshot) ensure() {
	if s.Counts == nil {
		s.Counts = make([]uint64, numBuckets)
	}
}

// Reset empties s, keeping its memory.
func (s *Snapshot) Reset() {
	clear(s.Counts)
	s.Count, s.Sum, s.Min, s.Max = 0, 0, 0, 0
}

// Merge adds o to s.
func (s *Snapshot) Merge(o *Snapshot) {
	if o.Count == 0 {
		return
	}
	s.ensure()
	for i, c := range o.Counts {
		s.Counts[i] += c
	}
	if s.Count == 0 || o.Min < s.Min {
		s.Min = o.Min
	}
	if o.Max > s.Max {
		s.Max = o.Max
	}
	s.Count += o.Count
	s.Sum += o.Sum
}

// Delta sets s to cur minus prev, where prev is an earlier snapshot of the
// same recorders: the values recorded in between. Min and Max of the interval
// are taken from its lowest and highest non-empty buckets.
func (s *Snapshot) Delta(cur, prev *Snapshot) {
	s.ensure()
	s.Count, s.Sum, s.Min, s.Max = 0, 0, 0, 0
	first, last := -1, -1
	for i := range s.Counts {
		var c uint64
		if cur.Counts != nil {
			c = cur.Counts[i]
		}
		if prev.Counts != nil && prev.Counts[i] <= c {
			c -= prev.Counts[i]
		}
		s.Counts[i] = c
		if c != 0 {
			if first < 0 {
				first = i
			}
			last = i
			s.Count += c
		}
	}
	if cur.Sum >= prev.Sum {
		s.Sum = cur.Sum - prev.Sum
	}
	if first >= 0 {
		lo, _ := bounds(first)
		hi, w := bounds(last)
		s.Min = max(lo, cur.Min)
		s.Max = min(hi+w-1, cur.Max)
	}
}

// Mean returns the mean in nanoseconds (0 when empty).
func (s *Snapshot) Mean() float64 {
	if s.Count == 0 {
		return 0
	}
	return float64(s.Sum) / float64(s.Count)
}

// StdDev returns the population standard deviation in nanoseconds, computed
// from bucket midpoints.
func (s *Snapshot) StdDev() float64 {
	if s.Count < 2 {
		return 0
	}
	mean := s.Mean()
	var acc float64
	for i, c := range s.Counts {
		if c == 0 {
			continue
		}
		d := s.mid(i) - mean
		acc += d * d * float64(c)
	}
	return math.Sqrt(acc / float64(s.Count))
}

func (s *Snapshot) mid(i int) float64 {
	lo, w := bounds(i)
	v := float64(lo) + float64(w-1)/2
	return math.Min(math.Max(v, float64(s.Min)), float64(s.Max))
}

// Quantile returns the value at quantile q (0..1) in nanoseconds: the
// midpoint of the bucket that holds it, clamped to [Min, Max].
func (s *Snapshot) Quantile(q float64) float64 {
	if s.Count == 0 {
		return 0
	}
	if q <= 0 {
		return float64(s.Min)
	}
	if q >= 1 {
		return float64(s.Max)
	}
	rank := uint64(math.Ceil(q * float64(s.Count)))
	if rank == 0 {
		rank = 1
	}
	var seen uint64
	for i, c := range s.Counts {
		seen += c
		if seen >= rank {
			return s.mid(i)
		}
	}
	return float64(s.Max)
}

// Bucket is one non-empty bucket in the encoded form of a histogram: the
// lowest value it holds (ns) and how many values fell in it.
type Bucket [2]int64

// Buckets returns the non-empty buckets, for storage in a result document.
func (s *Snapshot) Buckets() []Bucket {
	var out []Bucket
	for i, c := range s.Counts {
		if c != 0 {
			lo, _ := bounds(i)
			out = append(out, Bucket{lo, int64(c)})
		}
	}
	return out
}

// FromBuckets rebuilds a snapshot from Buckets output and the exact summary
// values kept beside it.
func FromBuckets(b []Bucket, sum uint64, minV, maxV int64) *Snapshot {
	s := &Snapshot{Sum: sum, Min: minV, Max: maxV}
	s.ensure()
	for _, x := range b {
		if x[1] <= 0 || x[0] < 0 {
			continue
		}
		s.Counts[index(x[0])] += uint64(x[1])
		s.Count += uint64(x[1])
	}
	return s
}
