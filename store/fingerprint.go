package store

import (
	"context"
	"encoding/binary"
	"hash/fnv"
)

// Fingerprint summarises a table's contents so two stores, or one store
// before and after, can be compared: the row count and a hash of every row
// in key order. Keys a store assigned itself (AutoKey) are left out, since
// stores number rows differently.
type Fingerprint struct {
	Rows int64  `json:"rows"`
	Hash uint64 `json:"hash"`
}

// TakeFingerprint scans t through s and returns its fingerprint.
func TakeFingerprint(ctx context.Context, s Session, t *Table) (Fingerprint, error) {
	h := fnv.New64a()
	var buf [8]byte
	first := 0
	if t.AutoKey {
		first = 1
	}
	n, err := s.Scan(ctx, t, Query{}, func(r Row) error {
		for i := first; i < len(t.Columns); i++ {
			if t.Columns[i].Kind == Int {
				binary.LittleEndian.PutUint64(buf[:], uint64(r[i].Int))
				h.Write(buf[:])
				continue
			}
			binary.LittleEndian.PutUint64(buf[:], uint64(len(r[i].Text)))
			h.Write(buf[:])
			h.Write(r[i].Text)
		}
		return nil
	})
	return Fingerprint{Rows: int64(n), Hash: h.Sum64()}, err
}
