package hist

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestIndexBoundsAgree(t *testing.T) {
	// Every bucket's lowest value maps back to that bucket, and the value
	// just below it to the previous one: the layout has no gaps or overlaps.
	for i := 1; i < numBuckets; i++ {
		lo, w := bounds(i)
		if got := index(lo); got != i {
			t.Fatalf("index(low of %d = %d) = %d", i, lo, got)
		}
		if got := index(lo + w - 1); got != i {
			t.Fatalf("index(high of %d) = %d", i, got)
		}
		if got := index(lo - 1); got != i-1 {
			t.Fatalf("index(%d) = %d, want %d", lo-1, got, i-1)
		}
	}
}

func TestQuantilesWithinRelativeError(t *testing.T) {
	// Quantiles of a wide spread of values agree with the exact ones to the
	// promised 0.2 %, from sub-microsecond to seconds.
	rng := rand.New(rand.NewPCG(1, 2))
	r := NewRecorder()
	var vals []int64
	for range 200000 {
		v := int64(math.Exp(rng.Float64()*20)) + rng.Int64N(100) // ~1 ns .. 0.5 s
		vals = append(vals, v)
		r.Record(v)
	}
	slices.Sort(vals)
	var s Snapshot
	r.AddTo(&s)
	cases := []float64{0.5, 0.9, 0.99, 0.999}
	for _, q := range cases {
		want := float64(vals[int(math.Ceil(q*float64(len(vals))))-1])
		got := s.Quantile(q)
		if rel := math.Abs(got-want) / want; rel > 0.002 && math.Abs(got-want) > 1 {
			t.Errorf("q%.3f = %.0f, want %.0f (rel err %.4f)", q, got, want, rel)
		}
	}
	if s.Min != vals[0] || s.Max != vals[len(vals)-1] {
		t.Errorf("min/max = %d/%d, want %d/%d", s.Min, s.Max, vals[0], vals[len(vals)-1])
	}
	var sum float64
	for _, v := range vals {
		sum += float64(v)
	}
	if got, want := s.Mean(), sum/float64(len(vals)); math.Abs(got-want) > 1e-6*want {
		t.Errorf("mean = %f, want %f", got, want)
	}
}

func TestMergeEqualsSingleRecorder(t *testing.T) {
	// Recording into two recorders and merging gives the same histogram as
	// recording everything into one: per-client histograms lose nothing.
	a, b, all := NewRecorder(), NewRecorder(), NewRecorder()
	for i := int64(0); i < 10000; i++ {
		v := i * i % 9999991
		if i%3 == 0 {
			a.Record(v)
		} else {
			b.Record(v)
		}
		all.Record(v)
	}
	var sa, sb, merged, want Snapshot
	a.AddTo(&sa)
	b.AddTo(&sb)
	merged.Merge(&sa)
	merged.Merge(&sb)
	all.AddTo(&want)
	if !slices.Equal(merged.Counts, want.Counts) || merged.Count != want.Count || merged.Sum != want.Sum || merged.Min != want.Min || merged.Max != want.Max {
		t.Fatalf("merged histogram differs from single recorder")
	}
}

func TestDeltaIsolatesInterval(t *testing.T) {
	r := NewRecorder()
	for range 100 {
		r.Record(1000)
	}
	var prev Snapshot
	r.AddTo(&prev)
	for range 50 {
		r.Record(5_000_000)
	}
	var cur, d Snapshot
	r.AddTo(&cur)
	d.Delta(&cur, &prev)
	if d.Count != 50 {
		t.Fatalf("delta count = %d, want 50", d.Count)
	}
	if q := d.Quantile(0.5); math.Abs(q-5e6) > 5e6*0.002 {
		t.Fatalf("delta p50 = %f, want ~5e6", q)
	}
}

func TestBucketsRoundTrip(t *testing.T) {
	r := NewRecorder()
	for i := int64(1); i < 1<<40; i *= 3 {
		r.Record(i)
	}
	r.Record(1 << 50) // beyond the range: last bucket, exact max
	var s Snapshot
	r.AddTo(&s)
	back := FromBuckets(s.Buckets(), s.Sum, s.Min, s.Max)
	if !slices.Equal(back.Counts, s.Counts) || back.Count != s.Count || back.Max != 1<<50 {
		t.Fatalf("round trip changed the histogram")
	}
	if got := back.Quantile(1); got != float64(int64(1)<<50) {
		t.Fatalf("max quantile = %f", got)
	}
}

func TestEmpty(t *testing.T) {
	var s Snapshot
	if s.Quantile(0.99) != 0 || s.Mean() != 0 || s.StdDev() != 0 {
		t.Fatal("empty snapshot should report zeros")
	}
}

func BenchmarkRecord(b *testing.B) {
	r := NewRecorder()
	b.ReportAllocs()
	v := int64(12345)
	for i := 0; b.Loop(); i++ {
		r.Record(v + int64(i&1023))
	}
}
