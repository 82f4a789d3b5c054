package report

import (
	"cmp"
	"slices"
	"strconv"

	"kurabe/result"
	"kurabe/workload/load"
)

// phaseKey is what makes two phases of one store different measurements
// rather than repeats of one: the operation (a sweep's operation carries its
// value, "range 100") and the client level (-c 1,2,4). Only phases with the
// same key are samples of one figure: compare tests them against each
// other, the charts and the side-by-side table take their median.
type phaseKey struct {
	op      string
	clients int
}

// level is the client level a phase ran at (result.Document.Level).
func level(d *result.Document, p result.Phase) int { return d.Level(p) }

func keyOf(d *result.Document, p result.Phase) phaseKey { return phaseKey{p.Op, level(d, p)} }

// name is the key as tables name it: the operation, with " c=N" when
// levels tell phases apart.
func (k phaseKey) name(levels bool) string {
	if levels {
		return k.op + " c=" + strconv.Itoa(k.clients)
	}
	return k.op
}

// fileName is the key in a chart's file name: write, write-c4.
func (k phaseKey) fileName(levels bool) string {
	if levels {
		return fileName(k.op) + "-c" + strconv.Itoa(k.clients)
	}
	return fileName(k.op)
}

// phaseKeys returns the keys of the documents' phases: operations in run
// order (as ops does), each at its levels from the fewest clients up.
func phaseKeys(docs ...*result.Document) []phaseKey {
	var keys []phaseKey
	var order []string
	for _, d := range docs {
		for _, op := range ops(d) {
			if !slices.Contains(order, op) {
				order = append(order, op)
			}
		}
		for _, s := range d.Stores {
			for _, p := range s.Phases {
				if k := keyOf(d, p); !slices.Contains(keys, k) {
					keys = append(keys, k)
				}
			}
		}
	}
	slices.SortStableFunc(keys, func(a, b phaseKey) int {
		return cmp.Or(cmp.Compare(slices.Index(order, a.op), slices.Index(order, b.op)), cmp.Compare(a.clients, b.clients))
	})
	return keys
}

// levelsVary reports whether the documents' phases ran at more than one
// client level, so that names must carry the level.
func levelsVary(docs ...*result.Document) bool {
	seen := -1
	for _, d := range docs {
		if len(d.Run.Levels) > 1 {
			return true
		}
		for _, s := range d.Stores {
			for _, p := range s.Phases {
				switch n := level(d, p); {
				case seen < 0:
					seen = n
				case n != seen:
					return true
				}
			}
		}
	}
	return false
}

// PhaseName names phase p of a run whose document is d (its Run is enough)
// as its table row does.
func PhaseName(d *result.Document, p result.Phase) string { return phaseName(d, p) }

// phaseName names a phase as its table row does: the operation, the level
// with -c 1,2,4 (write c=4) and the repeat with --repeat (write c=4 #2).
func phaseName(d *result.Document, p result.Phase) string {
	name := keyOf(d, p).name(len(d.Run.Levels) > 1)
	if d.Run.Repeat > 1 {
		name += " #" + strconv.Itoa(p.Repeat+1)
	}
	return name
}

// opsPerSecAt collects a store's ops/s at key k over repeats. Phases
// without a successful operation are left out.
func opsPerSecAt(d *result.Document, s result.Store, k phaseKey) spread {
	return rates{}.at(d, s, k)
}

// rates is how the tables, the CSV and compare measure a phase's
// throughput: ops/s, or, for the load workload, rows/s, the figure its
// notes and charts give. One load operation is a whole data set (or a
// --load-chunk): its ops/s is about 1/time, so it moves with the data
// set's size (40 ops/s loading 3,000 rows against 60 loading 2,000, at the
// same 120k rows/s) and says nothing of the store.
type rates struct {
	rows map[loadPhase]float64 // nil: ops/s
}

func ratesOf(d *result.Document) rates {
	rs := load.Rates(d)
	if rs == nil {
		return rates{}
	}
	m := map[loadPhase]float64{}
	for _, r := range rs {
		m[loadPhase{r.Store, r.Way, r.Clients, r.Repeat}] = r.RowsPerSec
	}
	return rates{m}
}

// rowsPerSec reports whether the figure is rows/s (a load run).
func (r rates) rowsPerSec() bool { return r.rows != nil }

// unit names the figure as the tables' headers do: "ops/s" or "rows/s".
func (r rates) unit() string {
	if r.rowsPerSec() {
		return "rows/s"
	}
	return "ops/s"
}

// of is phase p's figure in store s.
func (r rates) of(s result.Store, p result.Phase) float64 {
	if !r.rowsPerSec() {
		return p.OpsPerSec
	}
	return r.rows[loadPhase{s.Label, p.Op, p.Clients, p.Repeat}]
}

// at collects store s's figure at key k over repeats; phases without a
// successful operation are left out.
func (r rates) at(d *result.Document, s result.Store, k phaseKey) spread {
	var vs []float64
	for _, p := range s.Phases {
		if p.Ops > 0 && keyOf(d, p) == k {
			vs = append(vs, r.of(s, p))
		}
	}
	return spreadOf(vs)
}

// allFailedAt reports whether phase k of s ran and every operation of it
// failed (none succeeded, some erred, not all of them skips), in every
// repeat.
func allFailedAt(d *result.Document, s result.Store, k phaseKey) bool {
	failed := false
	for _, p := range s.Phases {
		if keyOf(d, p) != k {
			continue
		}
		if p.Ops > 0 || p.Errors == 0 || skippedPhase(p) {
			return false
		}
		failed = true
	}
	return failed
}

// skippedOps is how many of a phase's errors are skips (class skipped):
// operations the workload does not run on the store (ycsb A's updates on
// the file store), not failures.
func skippedOps(p result.Phase) int64 {
	var n int64
	for _, c := range p.ErrorClasses {
		if c.Class == "skipped" {
			n += c.Count
		}
	}
	return n
}

// skippedPhase reports whether a phase's operations were all skipped: none
// succeeded, and every error is of class skipped, a workload's word that
// the phase does not apply to the store (crud's update on the file store,
// which speaks no SQL). Such a phase measured nothing, so the tables show
// "skipped" and "-" rather than zeros that read as measured; the notes say
// why. So does a phase kurabe did not run since its store's server had
// gone (Phase.Skipped).
func skippedPhase(p result.Phase) bool {
	if p.Skipped != "" {
		return true // its store's server had gone: the note on that phase says so
	}
	if p.Ops > 0 || len(p.ErrorClasses) == 0 {
		return false
	}
	for _, c := range p.ErrorClasses {
		if c.Class != "skipped" {
			return false
		}
	}
	return true
}
