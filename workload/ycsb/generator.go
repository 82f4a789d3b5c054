package ycsb

import (
	"math"
	"math/rand/v2"
)

// The request distributions, written here from their published
// descriptions: the zipfian generator is Gray et al.'s ("Quickly
// generating billion-record synthetic databases", SIGMOD 1994), which
// YCSB uses; scrambling and "latest" follow the YCSB paper and its
// CoreWorkload documentation.

// zipfConstant is YCSB's zipfian constant (theta).
const zipfConstant = 0.99

// scrambledItems is the size of the zipfian space a scrambled zipfian
// draws ranks from before hashing them onto the records: 10^10, so that
// the popularity of the hottest items does not depend on the record count.
const scrambledItems = 10_000_000_000

// scrambledZeta is zeta(10^10, 0.99), the sum of 1/i^0.99 for i = 1 to
// 10^10. Summing it takes minutes, so it is a constant here; the tests
// check it against the Euler–Maclaurin expansion of the sum.
const scrambledZeta = 26.46902820178302

// zeta returns sum + the sum of 1/i^theta for i = from+1 to to: the zeta
// of to items, given sum, the zeta of from items.
func zeta(sum float64, from, to int64, theta float64) float64 {
	for i := from + 1; i <= to; i++ {
		sum += 1 / math.Pow(float64(i), theta)
	}
	return sum
}

// zipfian draws ranks 0 to n-1, rank 0 the most popular, with
// P(rank r) proportional to 1/(r+1)^theta. It is Gray et al.'s method:
// one uniform number and one Pow per draw, and the two most popular ranks
// exact. It holds no RNG; the caller passes the uniform number.
type zipfian struct {
	n     int64
	theta float64
	zetan float64 // zeta(n, theta)
	alpha float64 // 1/(1-theta)
	eta   float64
	half  float64 // 1 + 0.5^theta: below it, u·zetan falls on rank 1
}

// newZipfian returns the zipfian over n ranks, n >= 1, whose zeta(n) is
// zetan.
func newZipfian(n int64, theta, zetan float64) zipfian {
	z := zipfian{theta: theta, alpha: 1 / (1 - theta), half: 1 + math.Pow(0.5, theta)}
	z.resize(n, zetan)
	return z
}

// resize sets the zipfian to n ranks whose zeta is zetan.
func (z *zipfian) resize(n int64, zetan float64) {
	z.n, z.zetan = n, zetan
	zeta2 := 1 + math.Pow(0.5, z.theta)
	// With n <= 2 every draw falls on rank 0 or 1 before eta is used.
	z.eta = (1 - math.Pow(2/float64(n), 1-z.theta)) / (1 - zeta2/zetan)
}

// rank maps u, uniform in [0, 1), to a rank.
func (z *zipfian) rank(u float64) int64 {
	uz := u * z.zetan
	switch {
	case uz < 1:
		return 0
	case uz < z.half:
		return 1
	}
	r := int64(float64(z.n) * math.Pow(z.eta*u-z.eta+1, z.alpha))
	return min(max(r, 0), z.n-1)
}

// fnv64 is YCSB's key hash: 64-bit FNV-1a over the value's eight bytes,
// lowest first, made non-negative. It turns a record number into a key
// (YCSB's "hashed" insert order) and a zipfian rank into a record
// (scrambling).
func fnv64(v uint64) int64 {
	const (
		offset = 0xcbf29ce484222325
		prime  = 0x100000001b3
	)
	h := uint64(offset)
	for range 8 {
		h ^= v & 0xff
		h *= prime
		v >>= 8
	}
	x := int64(h)
	if x < 0 {
		x = -x
	}
	if x < 0 { // -2^63 has no positive counterpart
		x = 0
	}
	return x
}

// scrambled is YCSB's scrambled zipfian over n records: a rank from the
// zipfian over 10^10 items, hashed onto 0..n-1. The popular records are
// then spread over the key space instead of clustered at its start, and
// the hottest record's share (about 1/zeta(10^10) = 3.8 %) is the same
// whatever n.
type scrambled struct {
	z zipfian
	n int64
}

func newScrambled(n int64) scrambled {
	return scrambled{z: newZipfian(scrambledItems, zipfConstant, scrambledZeta), n: n}
}

func (s *scrambled) next(rng *rand.Rand) int64 {
	return fnv64(uint64(s.z.rank(rng.Float64()))) % s.n
}

// latest is YCSB's "latest" distribution: a zipfian over the records
// inserted so far by recency, the newest the most popular. The record
// count grows as clients insert; the zeta of the new count is extended
// from the old one, so a draw after k inserts costs k Pows once.
type latest struct {
	z zipfian
}

// newLatest returns the latest distribution over n records, n >= 1,
// whose zeta(n, 0.99) is zetan.
func newLatest(n int64, zetan float64) latest {
	return latest{z: newZipfian(n, zipfConstant, zetan)}
}

// next draws one of the n records 0..n-1, n >= 1: n-1 the most likely.
func (l *latest) next(rng *rand.Rand, n int64) int64 {
	switch {
	case l.z.n == 0: // the zero latest
		*l = newLatest(n, zeta(0, 0, n, zipfConstant))
	case n != l.z.n:
		zn := l.z.zetan
		if n > l.z.n {
			zn = zeta(zn, l.z.n, n, zipfConstant)
		} else {
			zn = zeta(0, 0, n, zipfConstant)
		}
		l.z.resize(n, zn)
	}
	return n - 1 - l.z.rank(rng.Float64())
}
