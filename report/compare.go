package report

import (
	"fmt"
	"io"
	"maps"
	"math"
	"net/url"
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
	// ByPath is set when the runs' phases paired by method and path
	// rather than by full URL: two kurabe http runs against two servers
	// (127.0.0.1:3917 and :3918) name their one phase by URL, so nothing
	// pairs by name, yet they asked the same of each. It holds each
	// side's servers, for the note that says so.
	ByPath *PathPairing
	// FailedBoth are the phases ("store op") in which no operation
	// succeeded in either run (a replayed statement on a missing table):
	// nothing to compare, but not to be passed over in silence.
	FailedBoth []string
	// FailedOther holds the names in OnlyOld and OnlyNew that the other
	// run has too, but in which no operation succeeded there.
	FailedOther map[string]bool
	// RowsPerSec says both runs are load runs, whose rows' OpsPerSec
	// compare rows/s: one load operation is a whole data set (or a
	// --load-chunk), so its ops/s is about 1/time and moves with the data
	// set's size (3,000 rows at 40 ops/s, 2,000 at 60, both 120k rows/s).
	RowsPerSec bool
}

// PathPairing names the servers of each side of runs paired by path.
type PathPairing struct{ Old, New []string }

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
	OpsPerSec Change // rows/s where Comparison.RowsPerSec says so
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
// the test can give is 2/C(n1+n2, n1), which depends on both counts (3+3
// give 0.1, 3+6 give 0.024): where it is above 0.05 no difference can be
// called significant, however large; TooFew says so.
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
	c.RowsPerSec = ratesOf(old).rowsPerSec() && ratesOf(new).rowsPerSec()
	so, sn := samples(old, c.Replay, c.RowsPerSec), samples(new, c.Replay, c.RowsPerSec)
	if !c.Replay && !so.shares(sn) {
		// Nothing pairs by name: two kurabe http runs of the same
		// requests against servers on two ports (or hosts) name their
		// phase by URL. They pair by method and path instead, when each
		// side asked for the same ones.
		po, okOld := so.byPath()
		pn, okNew := sn.byPath()
		if okOld && okNew && samePhases(po, pn) {
			so, sn = po, pn
			c.ByPath = &PathPairing{Old: po.origins, New: pn.origins}
		}
	}
	oldS, oldKeys, newS, newKeys := so.m, so.keys, sn.m, sn.keys
	levels := levelsVary(old, new) && !c.Replay
	name := func(k sampleKey) string { return k.store + " " + k.phase.name(levels) }
	// A store that failed in one run is said as such, not as phases the
	// other run has alone.
	failed := func(fs []Failure, store string) bool {
		return slices.ContainsFunc(fs, func(f Failure) bool { return f.Store == store })
	}
	// A phase skipped in a run is named so where it appears alone.
	c.SkippedAlone = map[string]bool{}
	c.FailedOther = map[string]bool{}
	alone := func(k sampleKey, s *sampleSet, other side) string {
		if s.skippedOnly() {
			c.SkippedAlone[name(k)] = true
		}
		if slices.Contains(other.failed, k) {
			c.FailedOther[name(k)] = true
		}
		return name(k)
	}
	for _, k := range oldKeys {
		o := oldS[k]
		n, ok := newS[k]
		if !ok {
			if !failed(c.FailedNew, k.store) {
				c.OnlyOld = append(c.OnlyOld, alone(k, o, sn))
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
			c.OnlyNew = append(c.OnlyNew, alone(k, newS[k], so))
		}
	}
	for _, k := range so.failed {
		if slices.Contains(sn.failed, k) {
			c.FailedBoth = append(c.FailedBoth, name(k))
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

// side is one run's samples: each store × operation × level's figures
// over repeats (m, in the document's order in keys), and the phases in
// which no operation succeeded in any repeat (failed, in order).
type side struct {
	m       map[sampleKey]*sampleSet
	keys    []sampleKey
	failed  []sampleKey
	origins []string // the servers a side's URLs named, when paired by path
}

// samples collects each store × operation × level's figures over repeats,
// in the document's order. Phases without a successful operation are left
// out, unless the workload skipped them on the store (class skipped):
// those are kept, without figures, so that compare says they were skipped
// rather than missing. A phase that never had a successful operation is
// listed apart (side.failed), so that compare can say it failed.
//
// A replay's phases are keyed by fingerprint alone, without the client
// level: two replays of one log in different modes run the same
// statements. With rows, a load run's phases give their rows/s where
// others give ops/s.
func samples(d *result.Document, replay, rows bool) side {
	sd := side{m: map[sampleKey]*sampleSet{}}
	rate := rates{}
	if rows {
		rate = ratesOf(d)
	}
	for _, s := range d.Stores {
		for _, p := range s.Phases {
			k := sampleKey{s.Label, keyOf(d, p)}
			if replay {
				k.phase.clients = 0
			}
			skipped := skippedPhase(p)
			if p.Ops == 0 && !skipped {
				if p.Errors > 0 && !slices.Contains(sd.failed, k) {
					sd.failed = append(sd.failed, k)
				}
				continue
			}
			if sd.m[k] == nil {
				sd.m[k] = &sampleSet{}
				sd.keys = append(sd.keys, k)
			}
			if skipped {
				sd.m[k].skippedPhases++
				continue
			}
			sd.m[k].opsPerSec = append(sd.m[k].opsPerSec, rate.of(s, p))
			sd.m[k].p99 = append(sd.m[k].p99, p.Latency.P99)
			sd.m[k].mean = append(sd.m[k].mean, p.Latency.Mean)
			sd.m[k].p50 = append(sd.m[k].p50, p.Latency.P50)
			sd.m[k].time = append(sd.m[k].time, p.Elapsed)
			sd.m[k].skips += skippedOps(p)
		}
	}
	// A phase that succeeded in some repeat measured something.
	sd.failed = slices.DeleteFunc(sd.failed, func(k sampleKey) bool { return sd.m[k] != nil })
	return sd
}

// shares reports whether the two sides have a phase in common.
func (s side) shares(o side) bool {
	return slices.ContainsFunc(s.keys, func(k sampleKey) bool { return o.m[k] != nil })
}

// byPath keys a side's phases by method and path (with the query) instead
// of the full URL kurabe http names its phase by ("GET
// http://127.0.0.1:3917/posts/count" becomes "GET /posts/count"), and
// lists the servers the URLs named. It fails when a phase is not named by
// one URL, or when two phases of the side would take one name.
func (s side) byPath() (side, bool) {
	out := side{m: map[sampleKey]*sampleSet{}}
	rekey := func(k sampleKey) (sampleKey, bool) {
		method, raw, ok := strings.Cut(k.phase.op, " ")
		if !ok {
			return k, false
		}
		u, err := url.Parse(raw)
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
			return k, false
		}
		origin := u.Host
		if u.Scheme != "http" {
			origin = u.Scheme + "://" + u.Host
		}
		if !slices.Contains(out.origins, origin) {
			out.origins = append(out.origins, origin)
		}
		k.phase.op = method + " " + u.RequestURI()
		return k, true
	}
	for _, k := range s.keys {
		nk, ok := rekey(k)
		if !ok || out.m[nk] != nil {
			return s, false
		}
		out.m[nk] = s.m[k]
		out.keys = append(out.keys, nk)
	}
	for _, k := range s.failed {
		nk, ok := rekey(k)
		if !ok || out.m[nk] != nil || slices.Contains(out.failed, nk) {
			return s, false
		}
		out.failed = append(out.failed, nk)
	}
	return out, len(out.keys) > 0
}

// samePhases reports whether two sides have the same phases, measured or
// failed: paired by path, each must have asked for what the other did.
func samePhases(a, b side) bool {
	set := func(s side) map[sampleKey]bool {
		m := map[sampleKey]bool{}
		for _, k := range append(slices.Clone(s.keys), s.failed...) {
			m[k] = true
		}
		return m
	}
	return maps.Equal(set(a), set(b))
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
	// C(n1+n2, k) as a running product, each step a whole number: exact
	// in floating point for any sample count compare meets.
	k := min(n1, n2)
	c := 1.0
	for i := 1; i <= k; i++ {
		c = c * float64(n1+n2-k+i) / float64(i)
	}
	return math.Min(1, 2/c)
}

// WriteCompare writes the comparison as an aligned table ("text") or a
// Markdown table ("markdown"): one table for ops/s (rows/s for two load
// runs), one for p99 latency.
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
	for _, label := range notStarted(c.Old) {
		lines = append(lines, l.f("compare.not-started.old", label))
	}
	for _, label := range notStarted(c.New) {
		lines = append(lines, l.f("compare.not-started.new", label))
	}
	lines = append(lines, settingChanges([]*result.Document{c.Old, c.New}, l)...)
	if p := c.ByPath; p != nil {
		lines = append(lines, l.f("compare.by-path", strings.Join(p.Old, ", "), strings.Join(p.New, ", ")))
	}
	if c.Replay {
		// The replay's time, once per store: the one figure of the whole
		// replay that its fingerprints' rates would only repeat, with
		// its test as the tables' rows have theirs.
		for _, r := range c.Rows {
			if r.Op == "replay" {
				secs := func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) + " s" }
				lines = append(lines, l.f("compare.replay-time", r.Store, centerCell(r.Time.Old, secs), centerCell(r.Time.New, secs), deltaCell(r.Time, l), pCell(r.Time, l)))
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
	unit := "ops/s"
	if c.RowsPerSec {
		unit = "rows/s"
	}
	figs := []figure{
		{l.t(unit), func(r CompareRow) Change { return r.OpsPerSec }, num},
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
	alone := func(names []string, other string) string {
		var out []string
		for _, n := range names {
			if c.SkippedAlone[n] {
				n += " (" + l.t("skipped") + ")"
			}
			if c.FailedOther[n] {
				n += " (" + l.t(other) + ")"
			}
			out = append(out, n)
		}
		return strings.Join(out, ", ")
	}
	if len(c.OnlyOld) > 0 {
		notes = append(notes, l.t("only in old")+": "+alone(c.OnlyOld, "compare.failed-in.new"))
	}
	if len(c.OnlyNew) > 0 {
		notes = append(notes, l.t("only in new")+": "+alone(c.OnlyNew, "compare.failed-in.old"))
	}
	if len(c.FailedBoth) > 0 {
		notes = append(notes, l.f("compare.failed-both", strings.Join(c.FailedBoth, ", ")))
	}
	foot := l.t("compare.footnote")
	if c.Replay {
		foot = l.t("compare.footnote.replay")
	}
	if few := tooFew(c, l); few != "" {
		key := "compare.too-few"
		if c.Replay {
			key = "compare.too-few.replay"
		}
		if l != Japanese {
			foot += " " // Japanese sentences follow each other without one
		}
		foot += l.f(key, few)
	}
	notes = append(notes, foot)
	for _, n := range notes {
		if format == "markdown" {
			n = "- " + n
		}
		b.WriteString(n + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// tooFew lists the sample counts of the rows too few to test, with the
// smallest p each allows ("0.100 with n=3+3"), or "" when every row could
// be tested: whether a test can reach α depends on n1 and n2 together
// (3+6 can, 3+3 cannot), so the note names the counts it is about.
func tooFew(c *Comparison, l tr) string {
	type counts struct{ o, n int }
	var seen []counts
	var out []string
	for _, r := range c.Rows {
		if r.Skipped() {
			continue
		}
		for _, ch := range []Change{r.OpsPerSec, r.P99, r.Mean, r.P50, r.Time} {
			k := counts{ch.Old.N, ch.New.N}
			if !ch.TooFew || slices.Contains(seen, k) {
				continue
			}
			seen = append(seen, k)
			out = append(out, l.f("compare.too-few.n", strconv.FormatFloat(minUTestP(k.o, k.n), 'f', 3, 64), k.o, k.n))
		}
	}
	return strings.Join(out, l.t("compare.settings.sep"))
}

// notStarted lists the stores an interrupt kept from starting in d: they
// have neither settings nor figures there.
func notStarted(d *result.Document) []string {
	var out []string
	for _, s := range d.Stores {
		if s.Info.Target == result.NotStarted {
			out = append(out, s.Label)
		}
	}
	return out
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
			if s.Info.Target == result.NotStarted {
				// An interrupt kept it from starting: it has no settings
				// in this run to differ (compare says it did not run).
				continue
			}
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
