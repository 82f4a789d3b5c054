package ycsb

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
)

func TestFNV64IsFNV1aOfTheLittleEndianBytes(t *testing.T) {
	// The standard library's FNV-1a over the value's eight bytes, lowest
	// first, made non-negative, is what YCSB hashes keys with.
	for _, v := range []uint64{0, 1, 2, 255, 256, 1000, 1 << 40, math.MaxInt64, math.MaxUint64} {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], v)
		h := fnv.New64a()
		h.Write(b[:])
		want := int64(h.Sum64())
		if want < 0 {
			want = -want
		}
		if got := fnv64(v); got != want || got < 0 {
			t.Errorf("fnv64(%d) = %d, want %d", v, got, want)
		}
	}
}

func TestScrambledZetaIsZetaOf10To10(t *testing.T) {
	// zeta(10^10, 0.99) by Euler–Maclaurin: the first 10^6 terms summed,
	// the rest as the integral with the end corrections f/2 and f'/12;
	// the next term is below 1e-18.
	const s, m, n = zipfConstant, 1_000_000, float64(scrambledItems)
	head := zeta(0, 0, m-1, s)
	f := func(x float64) float64 { return math.Pow(x, -s) }
	df := func(x float64) float64 { return -s * math.Pow(x, -s-1) }
	integral := (math.Pow(n, 1-s) - math.Pow(m, 1-s)) / (1 - s)
	tail := integral + (f(n)+f(m))/2 + (df(n)-df(m))/12
	if got := head + tail; math.Abs(got-scrambledZeta) > 1e-9 {
		t.Errorf("zeta(10^10, 0.99) = %.14f, the constant says %.14f", got, scrambledZeta)
	}
}

// share counts how often each of n values is drawn in draws draws.
func share(n int64, draws int, next func() int64) []float64 {
	counts := make([]float64, n)
	for range draws {
		counts[next()]++
	}
	for i := range counts {
		counts[i] /= float64(draws)
	}
	return counts
}

// within says whether got is within k standard deviations of p, the
// share of draws draws of a binomial.
func within(got, p float64, draws int, k float64) bool {
	sd := math.Sqrt(p * (1 - p) / float64(draws))
	return math.Abs(got-p) <= k*sd
}

func TestZipfianShape(t *testing.T) {
	// Over n ranks: rank 0 is drawn with P = 1/zeta(n) and rank 1 with
	// 1/(2^0.99·zeta(n)), exactly (Gray's method draws them by their
	// own thresholds); the ten most popular ranks hold zeta(10)/zeta(n)
	// of the draws, within 5 % (the rest is an approximation); shares fall
	// with rank.
	const draws = 200_000
	for _, n := range []int64{10, 1000, 100_000} {
		zn := zeta(0, 0, n, zipfConstant)
		z := newZipfian(n, zipfConstant, zn)
		rng := rand.New(rand.NewPCG(1, 2))
		got := share(n, draws, func() int64 { return z.rank(rng.Float64()) })
		p0, p1 := 1/zn, 1/(math.Pow(2, zipfConstant)*zn)
		if !within(got[0], p0, draws, 5) || !within(got[1], p1, draws, 5) {
			t.Errorf("n=%d: rank 0 %.4f (want %.4f), rank 1 %.4f (want %.4f)", n, got[0], p0, got[1], p1)
		}
		var top float64
		for _, s := range got[:min(10, n)] {
			top += s
		}
		if want := zeta(0, 0, min(10, n), zipfConstant) / zn; math.Abs(top-want) > 0.05*want {
			t.Errorf("n=%d: top 10 hold %.4f, want %.4f", n, top, want)
		}
		if got[0] < got[1] || got[1] < got[5] || got[5] < got[n-1] {
			t.Errorf("n=%d: shares do not fall with rank: %.4f %.4f %.4f %.6f", n, got[0], got[1], got[5], got[n-1])
		}
	}
}

func TestScrambledZipfianShape(t *testing.T) {
	// YCSB's scrambled zipfian: the hottest record is rank 0's, hashed,
	// and holds about 1/zeta(10^10) = 3.78 % of the draws whatever the
	// record count, plus its share of the folded tail; the ten hottest
	// are spread over the key space, not clustered at its start.
	const draws = 400_000
	for _, n := range []int64{1000, 100_000} {
		s := newScrambled(n)
		rng := rand.New(rand.NewPCG(3, 4))
		got := share(n, draws, func() int64 { return s.next(rng) })
		hot := fnv64(0) % n
		hottest := int64(0)
		for i, x := range got {
			if x > got[hottest] {
				hottest = int64(i)
			}
		}
		if hottest != hot {
			t.Errorf("n=%d: hottest record %d, want %d (rank 0 hashed)", n, hottest, hot)
		}
		if got[hot] < 0.035 || got[hot] > 0.042 {
			t.Errorf("n=%d: the hottest record has %.4f of the draws, want about 0.038", n, got[hot])
		}
		// The ten hottest ranks' records: how many fall in the first
		// tenth of the records (about one, not ten).
		low := 0
		for r := range uint64(10) {
			if fnv64(r)%n < n/10 {
				low++
			}
		}
		if low > 4 {
			t.Errorf("n=%d: %d of the ten hottest records in the first tenth: not scrambled", n, low)
		}
	}
}

func TestLatestFavoursTheNewest(t *testing.T) {
	// Over n records the newest is drawn with P = 1/zeta(n), the one
	// before with 1/(2^0.99·zeta(n)); when records are added, the newest
	// of the new count takes the top share, and the zeta extended from the
	// old count equals the zeta summed afresh.
	const draws = 200_000
	rng := rand.New(rand.NewPCG(5, 6))
	l := newLatest(1000, zeta(0, 0, 1000, zipfConstant))
	for _, n := range []int64{1000, 1500, 1501, 1200} {
		got := share(n, draws, func() int64 { return l.next(rng, n) })
		zn := zeta(0, 0, n, zipfConstant)
		if math.Abs(l.z.zetan-zn) > 1e-9 {
			t.Errorf("n=%d: zeta %.12f, summed afresh %.12f", n, l.z.zetan, zn)
		}
		if p := 1 / zn; !within(got[n-1], p, draws, 5) {
			t.Errorf("n=%d: the newest record has %.4f of the draws, want %.4f", n, got[n-1], p)
		}
		var newest100 float64
		for _, s := range got[n-100:] {
			newest100 += s
		}
		if want := zeta(0, 0, 100, zipfConstant) / zn; math.Abs(newest100-want) > 0.05*want {
			t.Errorf("n=%d: the newest 100 records have %.4f of the draws, want %.4f", n, newest100, want)
		}
	}
	// One record: always it.
	if got := l.next(rng, 1); got != 0 {
		t.Errorf("one record: drew %d", got)
	}
}

func TestDistributionsAreDeterministic(t *testing.T) {
	// The same seed gives the same draws.
	draw := func() []int64 {
		rng := rand.New(rand.NewPCG(7, 8))
		s, l := newScrambled(1000), newLatest(1000, zeta(0, 0, 1000, zipfConstant))
		var out []int64
		for i := range 100 {
			out = append(out, s.next(rng), l.next(rng, 1000+int64(i)))
		}
		return out
	}
	a, b := draw(), draw()
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("draw %d: %d, then %d", i, a[i], b[i])
		}
	}
}

func TestKeyspaceLimitFollowsContiguousAcks(t *testing.T) {
	var k keyspace
	k.reset(10)
	a, b, c := k.claim(), k.claim(), k.claim() // 10, 11, 12
	if a != 10 || b != 11 || c != 12 {
		t.Fatalf("claims %d %d %d", a, b, c)
	}
	k.ack(12)
	k.ack(11)
	if n := k.count(); n != 10 {
		t.Errorf("10 in flight: count %d, want 10", n)
	}
	k.fail(10) // a failed insert moves the limit too, and is remembered
	if n := k.count(); n != 13 {
		t.Errorf("all returned: count %d, want 13", n)
	}
	if !k.failedInsert(10) || k.failedInsert(11) {
		t.Errorf("failed inserts remembered wrongly")
	}

	// Many clients acknowledging out of order, across the ring's wrap.
	k.reset(window - 1000)
	var wg sync.WaitGroup
	const clients, each = 8, 5000
	for range clients {
		wg.Go(func() {
			for range each {
				k.ack(k.claim())
			}
		})
	}
	wg.Wait()
	if n, want := k.count(), int64(window-1000+clients*each); n != want {
		t.Errorf("after %d acks: count %d, want %d", clients*each, n, want)
	}
}

func BenchmarkChoose(b *testing.B) {
	// A key draw of each distribution: no allocation, one Pow or two.
	wl, err := New().Build([]string{"D"})
	if err != nil {
		b.Fatal(err)
	}
	w := wl.(*ycsb)
	w.keys.reset(1000)
	c := w.NewClient(nil, rand.New(rand.NewPCG(1, 1))).(*client)
	for _, d := range []int{distUniform, distZipfian, distLatest} {
		b.Run(distNames[d], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.choose(d)
			}
		})
	}
}
