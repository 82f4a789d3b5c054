package report

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/perf/benchmath"

	"kurabe/result"
)

// Alpha is the significance level of compare: a difference counts when the
// Mann–Whitney U test gives p <= Alpha, as in benchstat.
const Alpha = 0.05

// Comparison is what changed between two runs, store by store,
// operation by operation and client level by client level.
type Comparison struct {
	Old, New *result.Document
	Rows     []CompareRow
	OnlyOld  []string // "store op" (with " c=N" when levels differ) present only in the old run
	OnlyNew  []string
	// SkippedAlone holds the names in OnlyOld and OnlyNew whose phases
	// the run that has them skipped.
	SkippedAlone map[string]bool
	// PartlySkipped are the rows whose phases skipped some of their
	// operations in a run (ycsb A's updates on the file store): their
	// figures are of the operations that ran.
	PartlySkipped []PartSkip
	// FailedOld and FailedNew are the stores that failed in each run: their
	// figures are missing there, so their rows are not compared.
	FailedOld, FailedNew []Failure
	// Replay says both runs are kurabe replays. Their rows are paired by
	// store and fingerprint whatever the client count (one client per
	// session or --clients N: the same statements either way), and what
	// they compare is latency, not ops/s: a fingerprint's ops/s is its
	// count in the log over the whole replay's time, so its change is the
	// replay's time over again, on every row. The replay's time is
	// compared once, in the row of the phase "replay".
	Replay bool
}

// Failure is a store that failed in a run, and why.
type Failure struct{ Store, Error string }

// Failed reports whether a store failed in either run.
func (c *Comparison) Failed() bool { return len(c.FailedOld)+len(c.FailedNew) > 0 }

func failures(d *result.Document) []Failure {
	var out []Failure
	for _, s := range d.Stores {
		if s.Error != "" {
			out = append(out, Failure{s.Label, s.Error})
		}
	}
	return out
}

// CompareRow compares one store × operation × client level.
type CompareRow struct {
	Store, Op string // Op names the level too ("write c=4") when the runs' levels differ
	Clients   int
	OpsPerSec Change
	P99       Change // microseconds
	// Replays only: the mean and median latency (microseconds) and, in
	// the row of the phase "replay", the replay's time (seconds).
	Mean, P50, Time Change
	// SkippedOld and SkippedNew say the phase was skipped in that run:
	// the workload does not run it on that store (crud's update on the
	// file store). It measured nothing there, so it is no change to or
	// from zero, and the row's figures on that side are not set.
	SkippedOld, SkippedNew bool
}

// Skipped reports whether the phase was skipped in either run, so that
// the row compares nothing.
func (r CompareRow) Skipped() bool { return r.SkippedOld || r.SkippedNew }

// PartSkip is a row whose phases skipped some of their operations in one
// run (New false: the old run).
type PartSkip struct {
	Name    string // "store op"
	New     bool
	Skipped int64 // skipped operations, over the repeats
}

// Change compares one figure's samples (one per repeat) in two runs.
//
// The method is benchstat's: the centre of each side is its median, with a
// 95% confidence interval where the sample count allows (6 or more), and
// the two sides are compared with a Mann–Whitney U test, which assumes
// nothing about the distribution. With n1 and n2 samples the smallest p
// the test can give is 2/C(n1+n2, n1): below 4 samples per side that is
// above 0.05, so no difference can be called significant, however large;
// TooFew says so.
type Change struct {
	Old, New    Center
	Delta       float64 // new/old - 1
	P           float64
	Significant bool
	TooFew      bool
}

// Center is a side's median and its confidence interval (±Inf when too
// few samples for one).
type Center struct {
	Median, Lo, Hi float64
	N              int
}

// Compare pairs the phases of two runs by store label, operation and client
// level: each repeat of a phase is one sample, and phases at different
// levels (-c 1,2,4) are different figures, never samples of one. Levels
// that ran in one run only are listed as such.
func Compare(old, new *result.Document) *Comparison {
	c := &Comparison{Old: old, New: new, FailedOld: failures(old), FailedNew: failures(new)}
	c.Replay = IsReplay(old) && IsReplay(new)
	oldS, oldKeys := samples(old, c.Replay)
	newS, newKeys := samples(new, c.Replay)
	levels := levelsVary(old, new) && !c.Replay
	name := func(k sampleKey) string { return k.store + " " + k.phase.name(levels) }
	// A store that failed in one run is said as such, not as phases the
	// other run has alone.
	failed := func(fs []Failure, store string) bool {
		return slices.ContainsFunc(fs, func(f Failure) bool { return f.Store == store })
	}
	// A phase skipped in a run is named so where it appears alone.
	c.SkippedAlone = map[string]bool{}
	alone := func(k sampleKey, s *sampleSet) string {
		if s.skippedOnly() {
			c.SkippedAlone[name(k)] = true
		}
		return name(k)
	}
	for _, k := range oldKeys {
		o := oldS[k]
		n, ok := newS[k]
		if !ok {
			if !failed(c.FailedNew, k.store) {
				c.OnlyOld = append(c.OnlyOld, alone(k, o))
			}
			continue
		}
		r := CompareRow{Store: k.store, Op: k.phase.name(levels), Clients: k.phase.clients,
			SkippedOld: o.skippedOnly(), SkippedNew: n.skippedOnly()}
		if r.Skipped() {
			// The side that ran keeps its figures, for the table.
			r.OpsPerSec = Change{Old: centerOf(o.opsPerSec), New: centerOf(n.opsPerSec)}
			r.P99 = Change{Old: centerOf(o.p99), New: centerOf(n.p99)}
		} else {
			r.OpsPerSec, r.P99 = change(o.opsPerSec, n.opsPerSec), change(o.p99, n.p99)
			if c.Replay {
				r.Mean, r.P50 = change(o.mean, n.mean), change(o.p50, n.p50)
				if k.phase.op == "replay" {
					r.Time = change(o.time, n.time)
				}
			}
			for _, x := range []struct {
				s   *sampleSet
				new bool
			}{{o, false}, {n, true}} {
				if x.s.skips > 0 {
					c.PartlySkipped = append(c.PartlySkipped, PartSkip{Name: name(k), New: x.new, Skipped: x.s.skips})
				}
			}
		}
		c.Rows = append(c.Rows, r)
	}
	for _, k := range newKeys {
		if _, ok := oldS[k]; !ok && !failed(c.FailedOld, k.store) {
			c.OnlyNew = append(c.OnlyNew, alone(k, newS[k]))
		}
	}
	return c
}

type sampleKey struct {
	store string
	phase phaseKey
}

type sampleSet struct {
	opsPerSec, p99  []float64
	mean, p50, time []float64 // kept for replays
	skippedPhases   int       // repeats in which the phase was skipped whole
	skips           int64     // skipped operations of the phases that measured
}

// skippedOnly reports whether the phase was skipped in every repeat that
// has a figure: it measured nothing.
func (s *sampleSet) skippedOnly() bool { return len(s.opsPerSec) == 0 && s.skippedPhases > 0 }

// samples collects each store × operation × level's figures over repeats,
// in the document's order. Phases without a successful operation are left
// out, unless the workload skipped them on the store (class skipped):
// those are kept, without figures, so that compare says they were skipped
// rather than missing.
//
// A replay's phases are keyed by fingerprint alone, without the client
// level: two replays of one log in different modes run the same
// statements.
func samples(d *result.Document, replay bool) (map[sampleKey]*sampleSet, []sampleKey) {
	m := map[sampleKey]*sampleSet{}
	var keys []sampleKey
	for _, s := range d.Stores {
		for _, p := range s.Phases {
			skipped := skippedPhase(p)
			if p.Ops == 0 && !skipped {
				continue
			}
			k := sampleKey{s.Label, keyOf(d, p)}
			if replay {
				k.phase.clients = 0
			}
			if m[k] == nil {
				m[k] = &sampleSet{}
				keys = append(keys, k)
			}
			if skipped {
				m[k].skippedPhases++
				continue
			}
			m[k].opsPerSec = append(m[k].opsPerSec, p.OpsPerSec)
			m[k].p99 = append(m[k].p99, p.Latency.P99)
			m[k].mean = append(m[k].mean, p.Latency.Mean)
			m[k].p50 = append(m[k].p50, p.Latency.P50)
			m[k].time = append(m[k].time, p.Elapsed)
			m[k].skips += skippedOps(p)
		}
	}
	return m, keys
}

func change(old, new []float64) Change {
	// benchmath sorts the values it is given: pass copies.
	so := benchmath.NewSample(slices.Clone(old), &benchmath.DefaultThresholds)
	sn := benchmath.NewSample(slices.Clone(new), &benchmath.DefaultThresholds)
	ch := Change{Old: center(so), New: center(sn)}
	if ch.Old.Median != 0 {
		ch.Delta = ch.New.Median/ch.Old.Median - 1
	}
	cmp := benchmath.AssumeNothing.Compare(so, sn)
	ch.P = cmp.P
	ch.Significant = cmp.P <= Alpha
	ch.TooFew = minUTestP(len(old), len(new)) > Alpha
	if ch.TooFew {
		ch.Significant = false
	}
	return ch
}

// centerOf is the centre of vs, or the zero Center when it is empty.
func centerOf(vs []float64) Center {
	if len(vs) == 0 {
		return Center{}
	}
	return center(benchmath.NewSample(slices.Clone(vs), &benchmath.DefaultThresholds))
}

func center(s *benchmath.Sample) Center {
	sum := benchmath.AssumeNothing.Summary(s, 0.95)
	return Center{Median: sum.Center, Lo: sum.Lo, Hi: sum.Hi, N: len(s.Values)}
}

// minUTestP is the smallest two-sided p-value a Mann–Whitney U test can
// give for samples of n1 and n2 values: both orderings in which one sample
// lies wholly above the other, out of C(n1+n2, n1) equally likely ones.
func minUTestP(n1, n2 int) float64 {
	if n1 == 0 || n2 == 0 {
		return 1
	}
	// C(n1+n2, n1) computed in floating point; exact enough for a threshold.
	lg := func(n int) float64 { v, _ := math.Lgamma(float64(n) + 1); return v }
	return math.Min(1, 2/math.Exp(lg(n1+n2)-lg(n1)-lg(n2)))
}

// WriteCompare writes the comparison as an aligned table ("text") or a
// Markdown table ("markdown"): one table for ops/s, one for p99 latency.
func WriteCompare(w io.Writer, c *Comparison, format, lang string) error {
	l := tr(lang)
	var b strings.Builder
	// Old and new are told apart by their names; their start times, to
	// the fraction of a second, match the runs' CSV and benchstat names.
	side := func(key string, d *result.Document) string {
		reps := 0
		for _, s := range d.Stores {
			for _, p := range s.Phases {
				reps = max(reps, p.Repeat+1)
			}
		}
		return fmt.Sprintf("%s: kurabe %s · %s · %s %s · %s %d", l.t(key), d.Kurabe, runTime(d),
			l.t("workload"), d.Run.Workload, l.t("repeats"), reps)
	}
	lines := []string{side("old", c.Old), side("new", c.New)}
	if interrupted(c.Old) {
		lines = append(lines, l.t("compare.interrupted.old"))
	}
	if interrupted(c.New) {
		lines = append(lines, l.t("compare.interrupted.new"))
	}
	if r := runChanges(c.Old, c.New); len(r) > 0 {
		lines = append(lines, l.f("compare.run-settings", strings.Join(r, l.t("compare.settings.sep"))))
	}
	lines = append(lines, settingChanges([]*result.Document{c.Old, c.New}, l)...)
	if c.Replay {
		// The replay's time, once per store: the one figure of the whole
		// replay that its fingerprints' rates would only repeat.
		for _, r := range c.Rows {
			if r.Op == "replay" {
				secs := func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) + " s" }
				lines = append(lines, l.f("compare.replay-time", r.Store, centerCell(r.Time.Old, secs), centerCell(r.Time.New, secs), deltaCell(r.Time, l)))
			}
		}
	}
	for _, x := range lines {
		if format == "markdown" {
			x += "  "
		}
		b.WriteString(x + "\n")
	}
	type figure struct {
		name string
		get  func(CompareRow) Change
		fmt  func(float64) string
	}
	figs := []figure{
		{l.t("ops/s"), func(r CompareRow) Change { return r.OpsPerSec }, num},
		{"p99", func(r CompareRow) Change { return r.P99 }, dur},
	}
	opHeader := l.t("op")
	if c.Replay {
		// Per fingerprint, what the statements took; the row "replay" is
		// every statement of the log.
		figs = []figure{
			{l.t("mean"), func(r CompareRow) Change { return r.Mean }, dur},
			{"p50", func(r CompareRow) Change { return r.P50 }, dur},
			{"p99", func(r CompareRow) Change { return r.P99 }, dur},
		}
		opHeader = l.t("fingerprint")
	}
	for _, fig := range figs {
		header := row{l.t("store"), opHeader, l.t("old") + " " + fig.name, l.t("new") + " " + fig.name, l.t("delta"), l.t("significance")}
		numeric := []bool{false, false, true, true, true, false}
		var rows []row
		for _, r := range c.Rows {
			ch := fig.get(r)
			if r.Skipped() {
				// Nothing to compare: the side that ran shows its figure,
				// the skipped side says so.
				cell := func(skipped bool, c Center) string {
					if skipped {
						return l.t("skipped")
					}
					return centerCell(c, fig.fmt)
				}
				rows = append(rows, row{r.Store, r.Op, cell(r.SkippedOld, ch.Old), cell(r.SkippedNew, ch.New), "-", "-"})
				continue
			}
			rows = append(rows, row{r.Store, r.Op, centerCell(ch.Old, fig.fmt), centerCell(ch.New, fig.fmt), deltaCell(ch, l), pCell(ch, l)})
		}
		b.WriteString("\n")
		if format == "markdown" {
			markdownTable(&b, header, rows, numeric)
		} else {
			alignTable(&b, header, rows, numeric)
		}
	}
	b.WriteString("\n")
	var notes []string
	for _, f := range c.FailedOld {
		notes = append(notes, l.f("compare.failed.old", f.Store, f.Error))
	}
	for _, f := range c.FailedNew {
		notes = append(notes, l.f("compare.failed.new", f.Store, f.Error))
	}
	for _, ps := range c.PartlySkipped {
		key := "compare.partly-skipped.old"
		if ps.New {
			key = "compare.partly-skipped.new"
		}
		notes = append(notes, l.f(key, ps.Name, num0(ps.Skipped)))
	}
	alone := func(names []string) string {
		var out []string
		for _, n := range names {
			if c.SkippedAlone[n] {
				n += " (" + l.t("skipped") + ")"
			}
			out = append(out, n)
		}
		return strings.Join(out, ", ")
	}
	if len(c.OnlyOld) > 0 {
		notes = append(notes, l.t("only in old")+": "+alone(c.OnlyOld))
	}
	if len(c.OnlyNew) > 0 {
		notes = append(notes, l.t("only in new")+": "+alone(c.OnlyNew))
	}
	if c.Replay {
		notes = append(notes, l.t("compare.footnote.replay"))
	} else {
		notes = append(notes, l.t("compare.footnote"))
	}
	for _, n := range notes {
		if format == "markdown" {
			n = "- " + n
		}
		b.WriteString(n + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// centerCell writes a median with its confidence interval as ± the larger
// relative distance to either bound, when there is one.
func centerCell(c Center, f func(float64) string) string {
	s := f(c.Median)
	if math.IsInf(c.Lo, 0) || math.IsInf(c.Hi, 0) || c.Median == 0 {
		return s
	}
	pct := math.Max(c.Hi/c.Median-1, 1-c.Lo/c.Median) * 100
	return s + " ± " + strconv.FormatFloat(pct, 'f', 0, 64) + "%"
}

// deltaCell is the change of the medians when the test found it
// significant, ~ when it did not; with too few samples for the test to
// find anything, the change of the medians marked untested, so that a
// 100× change between single runs is not hidden behind ~.
func deltaCell(ch Change, l tr) string {
	switch {
	case ch.TooFew && ch.Old.Median != 0:
		return pct(ch.Delta*100, 2, true) + " (" + l.t("untested") + ")"
	case !ch.Significant:
		return "~"
	}
	return pct(ch.Delta*100, 2, true)
}

// interrupted reports whether a run was cut short (Ctrl-C, SIGINT): the
// document says so, or one of its phases does.
func interrupted(d *result.Document) bool {
	if d.Interrupted {
		return true
	}
	for _, s := range d.Stores {
		for _, p := range s.Phases {
			if p.Interrupted {
				return true
			}
		}
	}
	return false
}

// runChanges lists the run settings (what was asked of kurabe run, not
// what the stores read back) that differ between old and new, each with
// both values: "-n 500 → 400", "-c 2 → 1,2,4", "records 10 → 100" for a
// workload option; "-" where a run has none.
func runChanges(old, new *result.Document) []string {
	if IsReplay(old) && IsReplay(new) {
		return replayChanges(old, new)
	}
	get := func(r result.RunConfig) []string {
		levels := r.Levels
		if len(levels) == 0 {
			levels = []int{r.Clients}
		}
		var ls []string
		for _, c := range levels {
			ls = append(ls, strconv.Itoa(c))
		}
		n := "-"
		if r.Count > 0 {
			n = strconv.FormatInt(r.Count, 10)
		}
		d := "-"
		if r.Duration > 0 {
			d = time.Duration(r.Duration).String()
		}
		or := func(s string) string {
			if s == "" {
				return "-"
			}
			return s
		}
		return []string{r.Workload, n, d, strings.Join(ls, ","), time.Duration(r.Warmup).String(), or(r.Think), or(r.Rate), strconv.FormatBool(r.Isolate)}
	}
	names := []string{"workload", "-n", "-d", "-c", "--warmup", "--think", "-R", "--isolate"}
	o, n := get(old.Run), get(new.Run)
	var out []string
	for i, name := range names {
		if o[i] != n[i] {
			out = append(out, name+" "+o[i]+" → "+n[i])
		}
	}
	return append(out, paramChanges(old, new)...)
}

// paramChanges lists the workload parameters that differ between two
// runs, "-" where a run has none: "latest 100 → 50".
func paramChanges(old, new *result.Document) []string {
	var out []string
	params := map[string]bool{}
	for k := range old.Run.Params {
		params[k] = true
	}
	for k := range new.Run.Params {
		params[k] = true
	}
	for _, k := range slices.Sorted(maps.Keys(params)) {
		ov, ok := old.Run.Params[k]
		if !ok {
			ov = "-"
		}
		nv, ok := new.Run.Params[k]
		if !ok {
			nv = "-"
		}
		if ov != nv {
			out = append(out, k+" "+quoteValue(ov)+" → "+quoteValue(nv))
		}
	}
	return out
}

// IsReplay reports whether d is the result of kurabe replay.
func IsReplay(d *result.Document) bool { return d.Run.Workload == "replay" }

// replayChanges lists the settings of kurabe replay that differ between
// two replays, under the names of its flags where it has one; a replay
// has no -n, -c, -d, --think or -R, and a count of statements or clients
// it did not ask for is read from the log, so those are named for what
// they are: "clients one per session (12) → 4".
func replayChanges(old, new *result.Document) []string {
	clients := func(d *result.Document) string {
		n := strconv.Itoa(d.Run.Clients)
		for _, s := range d.Stores {
			for _, p := range s.Phases {
				if p.Op == "replay" && p.Replay != nil && p.Replay.Mode == "sessions" {
					return "one per session (" + n + ")"
				}
			}
		}
		return n
	}
	var out []string
	for _, x := range []struct{ name, o, n string }{
		{"statements", strconv.FormatInt(old.Run.Count, 10), strconv.FormatInt(new.Run.Count, 10)},
		{"clients", clients(old), clients(new)},
		{"--warmup", time.Duration(old.Run.Warmup).String(), time.Duration(new.Run.Warmup).String()},
	} {
		if x.o != x.n {
			out = append(out, x.name+" "+x.o+" → "+x.n)
		}
	}
	return append(out, paramChanges(old, new)...)
}

func pCell(ch Change, l tr) string {
	n := "n=" + strconv.Itoa(ch.Old.N) + "+" + strconv.Itoa(ch.New.N)
	if ch.TooFew {
		return n + " (" + l.t("too few samples") + ")"
	}
	return "p=" + strconv.FormatFloat(ch.P, 'f', 3, 64) + " " + n
}

// settingChanges says, one line per store found in more than one of docs
// (by label), which of its effective settings (as the store read them
// back) differ between the runs, with each run's value in order: "sqlite
// ran with other settings: journal_mode delete → wal". A change of
// setting is often the point of comparing two runs, and otherwise the
// reason their figures differ; a value a run lacks is "-".
func settingChanges(docs []*result.Document, l tr) []string {
	var labels []string
	opts := map[string][]map[string]string{}
	for _, d := range docs {
		seen := map[string]bool{}
		for _, s := range d.Stores {
			if seen[s.Label] {
				continue
			}
			seen[s.Label] = true
			if _, ok := opts[s.Label]; !ok {
				labels = append(labels, s.Label)
			}
			opts[s.Label] = append(opts[s.Label], readableOptions(s.Info)) // MiB, as the store lines write them
		}
	}
	var out []string
	for _, label := range labels {
		runs := opts[label]
		if len(runs) < 2 {
			continue
		}
		names := map[string]bool{}
		for _, o := range runs {
			for k := range o {
				names[k] = true
			}
		}
		var parts []string
		for _, name := range slices.Sorted(maps.Keys(names)) {
			var vs []string
			for _, o := range runs {
				v, ok := o[name]
				if !ok {
					v = "-"
				}
				vs = append(vs, v)
			}
			if slices.ContainsFunc(vs, func(v string) bool { return v != vs[0] }) {
				parts = append(parts, name+" "+strings.Join(vs, " → "))
			}
		}
		if len(parts) > 0 {
			out = append(out, l.f("compare.settings", label, strings.Join(parts, l.t("compare.settings.sep"))))
		}
	}
	return out
}
