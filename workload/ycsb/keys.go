package ycsb

import (
	"sync"
	"sync/atomic"
)

// window is how far inserts may be acknowledged ahead of the oldest one
// still in flight: a million record numbers, as bits (128 KiB).
const window = 1 << 20

// keyspace is the record numbers of one store's run: 0..loaded-1 loaded
// before the phases, then one claimed by each insert from a counter the
// clients share. As YCSB's acknowledged counter does, it knows the
// longest run of record numbers from 0 whose inserts have all returned:
// reads draw from that run only, so a read never asks for a record whose
// insert has not returned yet, however the clients' inserts overlap.
//
// Claiming and acknowledging take no lock: an acknowledgement sets its
// record's bit in a ring and moves the limit past every set bit it finds
// there, by compare-and-swap, so whichever client completes a run moves
// the limit. A failed insert is acknowledged too (the run would
// otherwise stop there for good) and remembered, so a read that misses
// it can say why.
type keyspace struct {
	next  atomic.Int64 // the next record number an insert claims
	limit atomic.Int64 // record numbers below it are all acknowledged
	bits  [window / 64]atomic.Uint64

	mu       sync.Mutex
	failed   map[int64]bool // record numbers whose insert failed
	failures atomic.Int64   // len(failed), read without the lock
}

// reset starts a run with records 0..n-1 present.
func (k *keyspace) reset(n int64) {
	k.next.Store(n)
	k.limit.Store(n)
	for i := range k.bits {
		k.bits[i].Store(0)
	}
	k.mu.Lock()
	k.failed = nil
	k.failures.Store(0)
	k.mu.Unlock()
}

// claim returns a record number for an insert.
func (k *keyspace) claim() int64 { return k.next.Add(1) - 1 }

// count is the number of records a read may ask for: 0..count-1.
func (k *keyspace) count() int64 { return k.limit.Load() }

// ack records that the insert of record n returned.
func (k *keyspace) ack(n int64) {
	k.bits[(n%window)/64].Or(1 << (n % 64))
	for {
		l := k.limit.Load()
		w, bit := &k.bits[(l%window)/64], uint64(1)<<(l%64)
		if w.Load()&bit == 0 {
			return // l is still in flight; its acknowledgement moves on
		}
		if k.limit.CompareAndSwap(l, l+1) {
			w.And(^bit)
		}
	}
}

// fail records that the insert of record n failed, and acknowledges it.
func (k *keyspace) fail(n int64) {
	k.mu.Lock()
	if k.failed == nil {
		k.failed = map[int64]bool{}
	}
	k.failed[n] = true
	k.failures.Store(int64(len(k.failed)))
	k.mu.Unlock()
	k.ack(n)
}

// failedInsert says whether record n's insert failed in this run. It
// takes a lock only once an insert has failed.
func (k *keyspace) failedInsert(n int64) bool {
	if k.failures.Load() == 0 {
		return false
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.failed[n]
}
