// Package records is the records data set: fixed-size rows of a key and a
// payload of random text (808 bytes by default, the row of the page-size
// study), any number of them, generated from a seed.
//
// Generation is streamed and costs next to nothing per row, because it
// runs inside measured operations (the load workload times a store taking
// rows, not kurabe making them). A Generator draws one pool of 1 MiB of
// random text from the seed once; a row's payload is a window of that pool
// at an offset hashed from the seed and the key. Making a row copies
// nothing, and memory stays flat whatever the row count.
//
// Trade-offs of the payload:
//
//   - It is text from the 64-character base64url alphabet ("binary-ish":
//     6 bits of entropy per byte), not arbitrary bytes, because every store
//     takes it into a text column (PostgreSQL rejects NUL and invalid
//     UTF-8), and no byte needs escaping in a COPY, a LOAD DATA file or
//     the file store's lines.
//   - Within a page (a few kilobytes to 64 KiB) rows are as incompressible
//     as random base64 text: two rows' windows overlap with a chance of
//     about 2×808 in a million. Across the whole table they are not, since
//     every payload comes from the same MiB; a filesystem or a compressor
//     with a window larger than the pool would notice.
//
// The package also holds what the workloads loading a data set share
// (source.go): the choice between records and the shipped postal data set,
// with flags every workload that loads a data set binds to, and SQL
// naming (sql.go).
package records

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"kurabe/store"
)

// Defaults of the data set.
const (
	DefaultSize = 808     // payload bytes per row, as in the page-size study
	DefaultRows = 100_000 // rows when no count is given
	DefaultSeed = 1
	poolSize    = 1 << 20
)

const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

// Table is the records table: the key and the payload.
func Table() *store.Table {
	return &store.Table{Name: "records", Columns: []store.Column{
		{Name: "id", Kind: store.Int},
		{Name: "payload", Kind: store.Text},
	}}
}

// Generator makes rows of the records data set. It is read-only once
// made, so any number of goroutines may share one.
type Generator struct {
	seed uint64
	size int
	pool []byte
}

// NewGenerator returns the generator of seed's rows with size-byte
// payloads.
func NewGenerator(seed uint64, size int) *Generator {
	g := &Generator{seed: seed, size: size, pool: make([]byte, poolSize+size)}
	rng := rand.New(rand.NewPCG(seed, 0x6b75726162652d72)) // "kurabe-r"
	var word [8]byte
	for i := 0; i < len(g.pool); i += 8 {
		binary.LittleEndian.PutUint64(word[:], rng.Uint64())
		for j := 0; j < 8 && i+j < len(g.pool); j++ {
			g.pool[i+j] = alphabet[word[j]&63]
		}
	}
	return g
}

// Size is the payload's length in bytes.
func (g *Generator) Size() int { return g.size }

// Payload returns key's payload; version gives the same key other
// contents (an update writes version 1, 2, ...). The bytes belong to the
// generator and must not be changed.
func (g *Generator) Payload(key int64, version uint64) []byte {
	off := mix(g.seed^mix(uint64(key))^version*0x9e3779b97f4a7c15) % poolSize
	return g.pool[off : off+uint64(g.size) : off+uint64(g.size)]
}

// Fill sets row (two values: key, payload) to key's row.
func (g *Generator) Fill(row store.Row, key int64) {
	row[0] = store.Value{Int: key}
	row[1] = store.Value{Text: g.Payload(key, 0)}
}

// mix is splitmix64's finaliser: a cheap, well-spread hash of x.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// ParseCount reads a row count: digits with an optional k, M or G suffix
// (thousands, millions, billions), e.g. 120000, 500k, 10M, 1.5M.
func ParseCount(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := 1.0
	if t != "" {
		switch t[len(t)-1] {
		case 'k', 'K':
			mult = 1e3
		case 'm', 'M':
			mult = 1e6
		case 'g', 'G':
			mult = 1e9
		}
		if mult > 1 {
			t = t[:len(t)-1]
		}
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(t, "_", ""), 64)
	n := v * mult
	if err != nil || n < 0 || n > math.MaxInt64/2 || n != math.Trunc(n) {
		return 0, fmt.Errorf("%q is not a row count: want a whole number, optionally with k, M or G, e.g. 120000, 500k, 10M", s)
	}
	return int64(n), nil
}

// FormatCount writes n as ParseCount reads it, shortest first: 10M, 500k,
// 120720.
func FormatCount(n int64) string {
	switch {
	case n != 0 && n%1_000_000_000 == 0:
		return strconv.FormatInt(n/1_000_000_000, 10) + "G"
	case n != 0 && n%1_000_000 == 0:
		return strconv.FormatInt(n/1_000_000, 10) + "M"
	case n != 0 && n%1_000 == 0:
		return strconv.FormatInt(n/1_000, 10) + "k"
	}
	return strconv.FormatInt(n, 10)
}
