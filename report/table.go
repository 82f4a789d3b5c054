// Package report renders result documents: tables (aligned text for a
// terminal, Markdown for a blog post, CSV for a spreadsheet, Go benchmark
// format for benchstat), charts (PNG and SVG, drawn with gonum/plot), one
// self-contained HTML page, and the comparison of two runs with a
// significance test. Each format is one function that writes to an
// io.Writer. Words change with the language (lang.go); numbers never do.
package report

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"math"
	"math/bits"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/text/width"

	"kurabe/numfmt"
	"kurabe/result"
	"kurabe/store"
	"kurabe/workload/load"
)

// Formats lists the table formats by name.
var Formats = map[string]func(io.Writer, *result.Document) error{
	"text":      Text,
	"markdown":  Markdown,
	"csv":       CSV,
	"benchstat": Benchstat,
}

// FormatNames returns the format names, sorted.
func FormatNames() []string { return slices.Sorted(maps.Keys(Formats)) }

// Summary returns the lines that say what ran.
func Summary(d *result.Document) []string { return summary(d, English) }

func summary(d *result.Document, l tr) []string {
	r := d.Run
	var what []string
	what = append(what, "kurabe "+d.Kurabe)
	what = append(what, workloadOps(d, l)...)
	shown := r.Params
	if name, _ := sweptValues(d); name != "" {
		// The sweep's values are said with the operations
		// ("records 1,100,1000"), not again as a setting.
		shown = maps.Clone(shown)
		delete(shown, name)
	}
	for k, v := range shown {
		// A file's SHA-256 tells two files of one name apart in the
		// JSON and in compare; its first 12 digits say it on this line.
		if strings.HasSuffix(k, "_sha256") && len(v) > 12 {
			shown = maps.Clone(shown)
			shown[k] = v[:12] + "…"
		}
	}
	if p := runParams(shown); p != "" {
		what = append(what, p)
	}
	switch {
	case len(r.Levels) > 1:
		var ls []string
		for _, l := range r.Levels {
			ls = append(ls, strconv.Itoa(l))
		}
		what = append(what, l.t("clients")+" "+strings.Join(ls, ",")+clientsRan(d, l)+isolated(d, l))
	case l == Japanese:
		what = append(what, strconv.Itoa(r.Clients)+" "+l.t("client")+clientsRan(d, l)+isolated(d, l))
	default:
		what = append(what, plural(r.Clients, "client")+clientsRan(d, l)+isolated(d, l))
	}
	switch {
	case r.Workload == "replay" && r.Count > 0:
		// A replay's count is the log's statements in all, not a count
		// per operation.
		what = append(what, l.count64(r.Count, "replay.statement", "replay.statements"))
	case r.Count > 0:
		what = append(what, l.f("summary.n", strconv.FormatInt(r.Count, 10)))
	default:
		what = append(what, l.f("summary.duration", time.Duration(r.Duration).String()))
	}
	what = append(what, l.t("warm-up")+" "+time.Duration(r.Warmup).String())
	if r.Think != "" && r.Workload != "replay" { // a replay's is its delay=, with its settings
		what = append(what, l.t("think")+" "+r.Think)
	}
	if r.Rate != "" {
		what = append(what, l.f("open loop at %s ops/s (latency from the scheduled start)", r.Rate))
	}
	what = append(what, l.t("seed")+" "+strconv.FormatUint(d.Seed, 10))
	lines := []string{strings.Join(what, " · ")}
	for _, s := range d.Stores {
		line := l.t("store") + " " + s.Label + ": " + target(d, s, l)
		if v := storeVersion(s); v != "" {
			line += " (" + s.Info.Driver + " " + v + ")"
		}
		if p := params(readableOptions(s.Info)); p != "" {
			line += " · " + p
		}
		if io := clientIO(s.Phases); io != "" {
			line += " · " + l.t(io)
		}
		lines = append(lines, line)
	}
	if dir := dataDir(d, l); dir != "" {
		lines = append(lines, l.t("data")+" "+dir)
	}
	if d.Interrupted {
		lines = append(lines, l.t("INTERRUPTED"))
	}
	return lines
}

// workloadOps names the workload and its operations for the summary
// line: "workload bbs write,read-all"; a sweep by its swept values
// ("workload range", "records 1,100,1000", not "range range 1,range
// 100,…"); one operation of the workload's own name as such ("workload
// point", "op point"), and a replay, whose one operation is every
// statement of the log, once ("workload replay").
func workloadOps(d *result.Document, l tr) []string {
	r := d.Run
	w := l.t("workload") + " " + r.Workload
	if len(r.Ops) == 1 && r.Ops[0] == r.Workload {
		if r.Workload == "replay" {
			return []string{w}
		}
		return []string{w, l.t("op") + " " + r.Ops[0]}
	}
	if name, values := sweptValues(d); name != "" {
		return []string{w, l.t(name) + " " + strings.Join(values, ",")}
	}
	return []string{w + " " + strings.Join(r.Ops, ",")}
}

// sweptValues returns the name of the value a sweep's operations vary
// ("records") and each operation's value ("1", "100"), when every
// operation is the workload's name and its value (range 100) and the
// phases say so; "" otherwise.
func sweptValues(d *result.Document) (string, []string) {
	name := ""
	var values []string
	for _, op := range d.Run.Ops {
		v, ok := strings.CutPrefix(op, d.Run.Workload+" ")
		if !ok {
			return "", nil
		}
		sweep := ""
		for _, s := range d.Stores {
			for _, p := range s.Phases {
				if p.Op == op && p.Sweep != "" {
					sweep = p.Sweep
				}
			}
		}
		if sweep == "" || name != "" && sweep != name {
			return "", nil
		}
		name = sweep
		values = append(values, v)
	}
	return name, values
}

// isolated says, after the clients, that each had tables of its own
// (--isolate), so that a pasted table tells separate tables from a shared
// one: ", each on its own table", or file where every store keeps a
// client's tables in a file of its own (the file store's table is a file;
// SQLite gives each client a database file, which its store line names).
// It is empty without --isolate.
func isolated(d *result.Document, l tr) string {
	if !d.Run.Isolate {
		return ""
	}
	key := "isolate.file"
	if len(d.Stores) == 0 {
		key = "isolate.table"
	}
	for _, s := range d.Stores {
		if s.Info.Driver != "file" && s.Info.Driver != "sqlite" {
			key = "isolate.table"
		}
	}
	if len(d.Run.Levels) <= 1 && d.Run.Clients == 1 {
		key += ".one"
	}
	return l.t(key)
}

// clientsRan says, after the clients asked for, how many ran where the
// store refused some of them a session (a server's max_connections): " (6
// ran)", " (as few as 6 ran)" when other phases at that level ran more,
// and with client levels the level it was at (" (c=8: 6 ran)"). It is
// empty when every client of every phase ran; the notes under the table
// say which phases lost clients, and why.
func clientsRan(d *result.Document, l tr) string {
	type span struct{ lo, hi int }
	ran := map[int]*span{}
	short := map[int]bool{}
	for _, s := range d.Stores {
		for _, p := range s.Phases {
			lv := level(d, p)
			sp := ran[lv]
			if sp == nil {
				sp = &span{p.Clients, p.Clients}
				ran[lv] = sp
			}
			sp.lo, sp.hi = min(sp.lo, p.Clients), max(sp.hi, p.Clients)
			short[lv] = short[lv] || len(p.SessionErrors) > 0
		}
	}
	var parts []string
	for _, lv := range slices.Sorted(maps.Keys(short)) {
		// Without levels, the line gives the run's clients: a phase
		// at another count is no part of it.
		if !short[lv] || len(d.Run.Levels) <= 1 && lv != d.Run.Clients {
			continue
		}
		part := l.f("clients.ran", ran[lv].lo)
		if ran[lv].hi > ran[lv].lo {
			part = l.f("clients.ran.min", ran[lv].lo)
		}
		if len(d.Run.Levels) > 1 {
			part = "c=" + strconv.Itoa(lv) + ": " + part
		}
		parts = append(parts, part)
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

// storeVersion is the version of the store's server or library. A
// result of kurabe http records kurabe's own HTTP client there (kurabe lean
// HTTP/1.1, fasthttp; the options name it as client=); the server is what
// its first response's Server header said, if anything.
func storeVersion(s result.Store) string {
	for _, p := range s.Phases {
		if p.HTTP != nil {
			return p.HTTP.Server
		}
	}
	return s.Info.Version
}

// target is where a store lived. With --repeat each repeat opens a fresh
// store in the data directory, or starts a fresh managed server on a port
// of its own, or (--via-http) a fresh kurabe serve on a loopback port of
// its own, and the document keeps the last one's path or address: the
// line says so rather than pass it off as every repeat's.
func target(d *result.Document, s result.Store, l tr) string {
	t := s.Info.Target
	if t == result.NotStarted {
		return l.t("store.not-started")
	}
	inDir := d.Run.Dir != "" && strings.HasPrefix(t, strings.TrimSuffix(d.Run.Dir, "/")+"/")
	managed := strings.HasPrefix(t, "managed ") && !strings.HasPrefix(t, "managed (") // "managed 127.0.0.1:PORT", not "managed (not started)"
	if d.Run.Repeat > 1 && (inDir || managed || s.Via != "") {
		t += " (" + l.t("the last repeat's; each repeat had its own") + ")"
	}
	if d.Run.Isolate && s.Info.Driver == "sqlite" && s.Info.Target != "" {
		// --isolate gave each client a database file of its own, beside
		// the store's.
		n := max(d.Run.Clients, slices.Max(append([]int{1}, d.Run.Levels...)))
		ext := filepath.Ext(s.Info.Target)
		base := strings.TrimSuffix(filepath.Base(s.Info.Target), ext)
		files := base + "_c1" + ext
		if n > 1 {
			files += " … " + base + fmt.Sprintf("_c%d", n) + ext
		}
		t += " (" + l.t("--isolate: the clients' databases beside it") + ": " + files + ")"
	}
	return t
}

// dataDir is the run's data directory and whether it was kept, or "" when
// no store lived in it: every store had a path or an address of its own
// (sqlite:/tmp/bbs.db, postgres://...; --isolate's per-client databases
// then go beside the path), or the result (kurabe http's) has none.
func dataDir(d *result.Document, l tr) string {
	r := d.Run
	if r.Dir == "" {
		return ""
	}
	used := false
	for _, s := range d.Stores {
		sp, err := store.ParseSpec(s.Spec)
		used = used || s.Spec == "" || err != nil || sp.Throwaway() ||
			strings.HasPrefix(s.Info.Target, strings.TrimSuffix(r.Dir, "/")+"/")
	}
	if !used {
		return ""
	}
	if r.DirKept {
		return r.Dir + " (" + l.t("kept") + ")"
	}
	return r.Dir + " (" + l.t("removed") + ")"
}

// readableOptions is a store's options for its line: MariaDB's and
// MySQL's sizes in bytes (innodb_buffer_pool_size=134217728, as the
// server reads them back) in a unit one reads at a glance (128MiB), as
// PostgreSQL's come (128MB). The result document keeps the bytes.
func readableOptions(info store.Info) map[string]string {
	if info.Driver != "mariadb" && info.Driver != "mysql" {
		return info.Options
	}
	out := make(map[string]string, len(info.Options))
	for k, v := range info.Options {
		if strings.HasSuffix(k, "_size") && k != "innodb_page_size" {
			v = readableBytes(v)
		}
		out[k] = v
	}
	return out
}

// readableBytes writes a number of bytes of 1 MiB or more in GiB or MiB
// (128MiB, 1.5GiB); anything else is returned as it is.
func readableBytes(v string) string {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 1<<20 {
		return v
	}
	unit, div := "MiB", float64(1<<20)
	if n >= 1<<30 {
		unit, div = "GiB", float64(1<<30)
	}
	prec := 1
	if float64(n) == div*float64(int64(float64(n)/div)) {
		prec = 0 // a whole number of units
	}
	return strconv.FormatFloat(float64(n)/div, 'f', prec, 64) + unit
}

func params(m map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, k+"="+m[k])
	}
	return strings.Join(parts, " ")
}

// runParams is params for the run's settings, each value with spaces in
// it quoted (log_line_prefix='%m [%p] %c %q%u@%d ' speed=1), so that the
// next setting is told apart and a trailing space shows. A store's
// options keep their notes unquoted (engine=MyISAM (given; not read
// back)).
func runParams(m map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, k+"="+quoteValue(m[k]))
	}
	return strings.Join(parts, " ")
}

// quoteValue quotes a value that has spaces or quotes in it as a
// PostgreSQL configuration file does: in single quotes, one within
// doubled.
func quoteValue(v string) string {
	if !strings.ContainsAny(v, " \t\n'") {
		return v
	}
	return "'" + strings.ReplaceAll(v, "'", "''") + "'"
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// row is one table row, already formatted.
type row []string

// latency columns, in the table's order.
var latCols = []struct {
	name string
	get  func(result.Latency) float64
}{
	{"mean", func(l result.Latency) float64 { return l.Mean }},
	{"p50", func(l result.Latency) float64 { return l.P50 }},
	{"p90", func(l result.Latency) float64 { return l.P90 }},
	{"p99", func(l result.Latency) float64 { return l.P99 }},
	{"p99.9", func(l result.Latency) float64 { return l.P999 }},
	{"max", func(l result.Latency) float64 { return l.Max }},
}

// behindNote says why an open loop fell behind, in l: the engine's note,
// or when every client was busy, what the clients carry at the latency
// measured and how many the rate needs (rate × latency). busy says what
// was due (behind.busy.ops, or in kurabe http behind.busy.requests);
// limit names what is the limit when more clients only make the latency
// grow: the store, or in kurabe http the server.
func behindNote(l tr, o *result.OpenLoop, clients int, busy, limit string) string {
	if o.Note != result.BehindBusy {
		return l.t(o.Note) // the engine's notes are keys
	}
	need, carry := o.ClientsNeeded(clients)
	if need == 0 {
		return l.f("behind.busy.unmeasured", l.t(busy))
	}
	if carry > o.PeakRate() {
		// On average the clients carry the rate: the late starts came
		// from moments when slow responses kept all of them busy at once.
		return l.f("behind.busy.bursts", l.t(busy), clients, dur(o.Service.Mean), num(carry), num(o.PeakRate()), need)
	}
	return l.f("behind.busy", l.t(busy), clients, dur(o.Service.Mean), num(carry), need, num(o.PeakRate()), dur(o.Service.Mean), l.t(limit))
}

// dur formats a latency in µs with its own unit and about three
// significant digits: 0.93µs, 298µs, 1.25ms, 1.18s.
func dur(us float64) string {
	switch {
	case us == 0:
		return "0"
	case us < 999.5:
		return num(us) + "µs"
	case us < 999_500:
		return num(us/1e3) + "ms"
	}
	return num(us/1e6) + "s"
}

// Duration writes d as the tables write times, to about three
// significant digits (95.0µs, 2.35ms, 350ms, 2.68s), for a command's own
// lines (kurabe dataset import's "read in 350ms").
func Duration(d time.Duration) string { return durUnit(float64(d) / float64(time.Microsecond)) }

// durUnit is dur with a unit on 0 too, for a sentence: "took 0µs".
func durUnit(us float64) string {
	if us == 0 {
		return "0µs"
	}
	return dur(us)
}

// num formats with about three significant digits and thousands separators.
func num(v float64) string {
	switch {
	case v == 0:
		return "0"
	case v >= 999.5:
		return group(strconv.FormatFloat(v, 'f', 0, 64))
	case v >= 99.95:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 9.995:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// pct writes a percentage with digits decimals, or more where rounding
// would claim what did not happen: a drop of 99.94% is -99.94%, not -100%
// (a total loss); a share of 99.96% is not 100%, nor 0.04% 0%. Past four
// decimals a figure still that close to ±100 is cut toward zero instead.
// signed puts + before a figure that is not negative.
func pct(v float64, digits int, signed bool) string {
	claims := func(s string) bool {
		r, _ := strconv.ParseFloat(s, 64)
		return (math.Abs(r) == 100 && math.Abs(v) != 100) || (r == 0 && v != 0)
	}
	d := digits
	s := strconv.FormatFloat(v, 'f', d, 64)
	for claims(s) && d < 4 {
		d++
		s = strconv.FormatFloat(v, 'f', d, 64)
	}
	if r, _ := strconv.ParseFloat(s, 64); math.Abs(r) == 100 && math.Abs(v) != 100 {
		f := math.Pow(10, float64(d))
		s = strconv.FormatFloat(math.Trunc(v*f)/f, 'f', d, 64)
	}
	if signed && !strings.HasPrefix(s, "-") {
		s = "+" + s
	}
	return s + "%"
}

// shares writes each count's share of their sum as a percentage with one
// decimal, so that the shares of a whole add up to 100.0%: each is
// rounded by largest remainder from the exact integer ratio, the units
// left over going to the largest remainders (the first of equal ones).
// Rounded one by one, 189 and 1,811 of 2,000 were 9.4% and 90.5%, 99.9% in
// all: both are halves (9.45, 90.55), which in floating point lie just
// below. As with pct, a share that is not none never shows 0, nor one that
// is not all 100: the decimals grow, for every share alike, until none
// does, up to four. A sum of 0 gives every count 0.0%.
func shares(counts []int64) []string {
	var total uint64
	for _, c := range counts {
		total += uint64(max(c, 0))
	}
	out := make([]string, len(counts))
	if total == 0 {
		for i := range out {
			out[i] = "0.0%"
		}
		return out
	}
	var units []uint64
	digits := 1
	for ; digits <= 4; digits++ {
		whole := uint64(100)
		for range digits {
			whole *= 10
		}
		units = make([]uint64, len(counts))
		rems := make([]uint64, len(counts))
		left := whole
		for i, c := range counts {
			// c*whole/total, exactly: c <= total keeps the quotient
			// within whole.
			hi, lo := bits.Mul64(uint64(max(c, 0)), whole)
			units[i], rems[i] = bits.Div64(hi, lo, total)
			left -= units[i]
		}
		order := make([]int, len(counts))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(rems[b], rems[a]) })
		for _, i := range order[:left] {
			units[i]++
		}
		claims := false
		for i, c := range counts {
			if (units[i] == 0 && c > 0) || (units[i] == whole && uint64(c) != total) {
				claims = true
			}
		}
		if !claims || digits == 4 {
			break
		}
	}
	unit := uint64(1)
	for range digits {
		unit *= 10
	}
	for i, u := range units {
		frac := strconv.FormatUint(u%unit, 10)
		out[i] = strconv.FormatUint(u/unit, 10) + "." + strings.Repeat("0", digits-len(frac)) + frac + "%"
	}
	return out
}

func group(s string) string {
	if len(s) <= 3 {
		return s
	}
	var b strings.Builder
	pre := len(s) % 3
	if pre > 0 {
		b.WriteString(s[:pre])
	}
	for i := pre; i < len(s); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s[i : i+3])
	}
	return b.String()
}

// table builds the header and rows: one row per store and operation, and
// with --repeat one row per repeat (write #1, write #2, ...): the table shows
// what was measured; compare and the charts summarise repeats.
func table(d *result.Document, l tr) (row, []row, []bool) {
	if len(d.Run.Vary) > 0 {
		return matrix(d, l)
	}
	header := row{l.t("store"), l.t("op"), l.t("ops/s")}
	type pr struct {
		s result.Store
		p result.Phase
	}
	var prs []pr
	for _, s := range d.Stores {
		for _, p := range s.Phases {
			prs = append(prs, pr{s, p})
		}
	}
	for _, c := range latCols {
		header = append(header, l.t(c.name))
	}
	header = append(header, l.t("errors"), l.t("lost"), l.t("last/first"))
	var rows []row
	for _, x := range prs {
		r := row{x.s.Label, phaseName(d, x.p), num(x.p.OpsPerSec)}
		if x.p.Interrupted {
			r[1] += "*"
		}
		if skippedPhase(x.p) {
			r[2] = l.t("skipped")
			for len(r) < len(header) {
				r = append(r, "-")
			}
			rows = append(rows, r)
			continue
		}
		for _, c := range latCols {
			r = append(r, latCell(x.p.Latency, c.get))
		}
		r = append(r, errorsCell(x.p.Errors, skippedOps(x.p), l), lostCell(x.p, l), ratioCell(x.p))
		rows = append(rows, r)
	}
	for _, s := range d.Stores {
		if s.Error != "" {
			r := row{s.Label, l.t("FAILED")}
			for len(r) < len(header) {
				r = append(r, "-")
			}
			rows = append(rows, r)
		}
	}
	numeric := make([]bool, len(header))
	for i := 2; i < len(header); i++ {
		numeric[i] = true
	}
	return header, rows, numeric
}

// errorsCell is a phase's errors without its skips, which are not
// failures, and the skips after them: "0 (+493 skipped)" for ycsb A on the
// file store, whose updates it skips. The note under the table says why.
func errorsCell(errors, skipped int64, l tr) string {
	if skipped == 0 {
		return num0(errors)
	}
	return l.f("errors.skipped", num0(errors-skipped), num0(skipped))
}

// latCell is one latency figure, or "-" when the phase measured none (no
// operation succeeded): a 0 there would read as a latency.
func latCell(l result.Latency, get func(result.Latency) float64) string {
	if l.Count == 0 {
		return "-"
	}
	return dur(get(l))
}

// ratioCell is the last client's finish time over the first's, or "-"
// when it says nothing of the work: a replay's clients follow the log, not
// a share of -n (no ratio is recorded), and clients that only met errors
// (no operation succeeded) shared no work.
func ratioCell(p result.Phase) string {
	if !ratioMeasured(p) {
		return "-"
	}
	return strconv.FormatFloat(p.FinishRatio, 'f', 2, 64)
}

func ratioMeasured(p result.Phase) bool { return p.FinishRatio > 0 && p.Latency.Count > 0 }

// lostCell is a phase's lost column: "-" for a phase that wrote nothing,
// "?" where a count failed, LOST n (acknowledged rows missing), EXTRA n
// (rows beyond the acknowledged ones and those writes whose answer was
// lost may have stored), or 0; where writes' answers were lost and
// nothing failed, 0 with how many rows of them the store holds, "0 (+3
// of 5 unknown)".
func lostCell(p result.Phase, l tr) string {
	if len(p.Verify) == 0 {
		return "-"
	}
	var lost, extra, unknown, stored int64
	for _, v := range p.Verify {
		if v.Error != "" {
			return "?"
		}
		lost += v.Lost
		extra += v.Extra
		unknown += v.Unknown
		stored += v.UnknownStored
	}
	switch {
	case lost > 0:
		return "LOST " + strconv.FormatInt(lost, 10)
	case extra > 0:
		return "EXTRA " + strconv.FormatInt(extra, 10)
	case unknown > 0:
		return l.f("cell.unknown", num0(stored), num0(unknown))
	}
	return "0"
}

// unknownClasses lists the classes of a table's writes whose answer was
// lost, with their counts: "timeout 3, connection-lost 2".
func unknownClasses(v result.Verify) string {
	parts := make([]string, 0, len(v.UnknownClasses))
	for _, c := range v.UnknownClasses {
		parts = append(parts, c.Class+" "+num0(c.Count))
	}
	return strings.Join(parts, ", ")
}

// Notes returns the lines under the table in lang: failures, errors by
// class, verification problems, open-loop and connection figures, fitted
// lines, load rates and the cost of --via-http. Only kurabe's own sentences
// change with the language; what stores and workloads wrote into the
// document (store notes, error messages) is quoted as it is.
func Notes(d *result.Document, lang string) []string { return notes(d, tr(lang)) }

func notes(d *result.Document, l tr) []string {
	var out []string
	// A kurabe http result's own lines come first, as its text format
	// prints them (statuses, body lengths, failures by class, the phases
	// of a request, a flow's passes, the open loop); the phase's error
	// classes, open loop and kinds are then not said again below.
	r, err := httpPhase(d)
	if err == nil {
		r.l = l
		var b strings.Builder
		r.notes(&b)
		for _, line := range strings.Split(b.String(), "\n") {
			if line = strings.TrimSpace(line); line != "" {
				out = append(out, line)
			}
		}
	}
	httpSaid := err == nil
	// A note several stores share (every variant of a --vary saying how
	// crud's batch read went) is said once, naming them, where the first
	// of them would have said it.
	holders := map[string][]string{}
	for _, s := range d.Stores {
		for _, n := range s.Notes {
			if !slices.Contains(holders[n], s.Label) {
				holders[n] = append(holders[n], s.Label)
			}
		}
	}
	said := map[string]bool{} // notes said once for several stores
	for _, s := range d.Stores {
		var replayed []string
		if s.Error != "" {
			out = append(out, l.f("note.failed", s.Label, s.Error))
		}
		for _, n := range s.Notes {
			switch who := holders[n]; {
			case said[n]:
			case len(who) == 1:
				out = append(out, s.Label+": "+n)
			case len(who) == 2 && len(d.Stores) == 2:
				out = append(out, l.f("note.both-stores", n))
			case len(who) == len(d.Stores):
				out = append(out, l.f("note.every-store", len(who), n))
			default:
				out = append(out, strings.Join(who, ", ")+": "+n)
			}
			said[n] = true
		}
		out = append(out, settingNotes(l, s)...)
		// MariaDB/MySQL's bulk path falls back to multi-row INSERTs where
		// the server has local_infile off; the bulk figure is then not
		// LOAD DATA's, and the table would not say so.
		if strings.HasPrefix(s.Info.Facts["bulk_load"], "multi-row INSERT") && slices.ContainsFunc(s.Phases, func(p result.Phase) bool { return p.Op == "bulk" }) {
			out = append(out, l.f("note.bulk-insert", s.Label))
		}
		for _, p := range s.Prepared {
			if p.Rows == 0 {
				continue
			}
			who := s.Label
			if d.Run.Repeat > 1 {
				who += " #" + strconv.Itoa(p.Repeat+1) // each repeat loads afresh
			}
			rate := num(float64(p.Rows) / max(p.Seconds, 1e-9))
			took := Duration(time.Duration(p.Seconds * float64(time.Second)))
			if p.Tables > 1 {
				// --isolate: a copy in each client's tables, which
				// the run's rows=N names one of.
				out = append(out, l.f("note.loaded-each", who, num0(p.Rows/int64(p.Tables)), p.Tables, num0(p.Rows), took, rate))
				continue
			}
			out = append(out, l.f("note.loaded", who, num0(p.Rows), took, rate))
		}
		for i, p := range s.Phases {
			// The phase as its table row names it: with client levels or
			// repeats, the same operation has several rows.
			op := phaseName(d, p)
			for _, c := range p.SessionErrors {
				out = append(out, l.f("note.session", s.Label, op, num0(c.Count), c.Class, c.First, p.Clients))
			}
			if p.Gone != nil {
				out = append(out, goneNote(l, s.Label, op, p, goneLater(s, i)))
			}
			if p.CutOff > 0 && (p.Gone == nil || p.Gone.Died) {
				// A server that stopped answering: its note says
				// how many were cut off.
				out = append(out, l.f("note.cut-off", s.Label, op, num0(p.CutOff), dur(p.GraceSeconds*1e6)))
			}
			if p.SessionsLost > 0 {
				line := l.f("note.reopened", s.Label, op, num0(p.SessionsLost), num0(p.SessionsReopened))
				if p.ReopenFailures > 0 {
					line += l.f("note.reopen-tries", num0(p.ReopenFailures), p.ReopenError)
				}
				if n := p.SessionsLost - p.SessionsReopened; n > 0 {
					line += l.f("note.not-reopened", num0(n))
				}
				out = append(out, line)
			}
			for _, c := range p.ErrorClasses {
				if httpSaid {
					break
				}
				if c.Count == 1 {
					out = append(out, l.f("note.error", s.Label, op, num0(c.Count), c.Class, c.First))
				} else {
					out = append(out, l.f("note.errors", s.Label, op, num0(c.Count), c.Class, c.First))
				}
			}
			for _, v := range p.Verify {
				switch {
				case v.Error != "":
					out = append(out, l.f("note.unverified", s.Label, op, v.Table, v.Error))
				case v.Lost > 0:
					line := l.f("note.lost", s.Label, op, v.Lost, v.Acked, v.Table, v.After-v.Before)
					if v.Unknown > 0 {
						line += l.f("note.lost.unknown", num0(v.UnknownWrites()), unknownClasses(v))
					}
					out = append(out, line)
				case v.Extra > 0:
					line := l.f("note.extra", s.Label, op, v.Extra, v.Acked, v.Table, v.After-v.Before)
					if v.Unknown > 0 {
						line += l.f("note.extra.unknown", num0(v.UnknownStored), num0(v.UnknownWrites()), unknownClasses(v))
					}
					out = append(out, line)
				case v.Unknown > 0:
					where := op
					if len(p.Verify) > 1 {
						where += " (" + v.Table + ")"
					}
					if n := v.UnknownWrites(); n == v.Unknown {
						out = append(out, l.f("note.unknown", s.Label, where, num0(v.UnknownStored), num0(n), unknownClasses(v)))
					} else {
						out = append(out, l.f("note.unknown.rows", s.Label, where, num0(v.UnknownStored), num0(v.Unknown), num0(n), unknownClasses(v)))
					}
				}
			}
			if p.Interrupted {
				out = append(out, l.f("note.interrupted", s.Label, op))
			}
			if o := p.OpenLoop; o != nil && !httpSaid {
				line := l.f("note.openloop", s.Label, op, num(o.Achieved), num(o.MeanRate()),
					numfmt.Group(o.Late), dur(o.LateAfterUs), dur(o.Lag.P99), dur(o.Service.P50), dur(o.Service.P99))
				if o.NotStarted > 0 {
					line += l.f("note.notstarted", numfmt.Group(o.NotStarted))
				}
				if o.Behind {
					line += l.f("note.behind", behindNote(l, o, p.Clients, "behind.busy.ops", "the store"))
				}
				out = append(out, line)
			}
			// A phase that timed no connecting (a load's bulk way, which
			// the store runs on a connection of its own; a result written
			// before kurabe left such a phase's figures out) has no note.
			if p.Connect != nil && p.LatencyExclConnect != nil && p.Ops > 0 && p.Connect.Mean > 0 {
				if rows, ok := load.PhaseRows(d, p); ok && p.Elapsed > 0 && p.OpsPerSec > 0 {
					// A load operation is a chunk of rows, connecting once
					// per statement: the rate to read is the rows'.
					with := float64(rows) / p.Elapsed
					out = append(out, l.f("note.per-op.rows", s.Label, op, num(with), num(with*p.OpsPerSecExclConnect/p.OpsPerSec), durUnit(p.Connect.Mean), durUnit(p.LatencyExclConnect.Mean)))
				} else {
					out = append(out, l.f("note.per-op", s.Label, op, num(p.OpsPerSec), num(p.OpsPerSecExclConnect), durUnit(p.Connect.Mean), durUnit(p.LatencyExclConnect.Mean)))
				}
			}
			if line := kindsNote(l, s.Label, op, p); line != "" && !httpSaid {
				out = append(out, line)
			}
			if p.Ops > 0 && p.BytesRead == 0 && p.BytesWritten == 0 {
				out = append(out, readNothing(l, d, s, i, op))
			}
			replayed = append(replayed, replayNotes(l, s.Label, p)...)
		}
		// A replay's own lines come last, as kurabe replay printed them:
		// the last says whether it kept the log's pace.
		out = append(out, replayed...)
	}
	out = append(out, fitNotes(d, l)...)
	out = append(out, load.NotesIn(d, d.Env.FsyncsPerSec(), l.f)...)
	return append(out, viaNotes(d, l)...)
}

// settingNotes names each option the store's spec asked for whose value,
// as the store read it back, differs from the request: a setting that did
// not apply (a page size the server rounded, a row format the engine does
// not have) would otherwise pass unseen, as only --vary's table marks it.
// The comparison is the matrix's (sameSetting: 4k is 4096, ON is 1); an
// option the store does not read back is not judged. A run through kurabe
// serve is judged by the store it served (settingsOf), whose spec is the
// row's.
func settingNotes(l tr, s result.Store) []string {
	sp, err := store.ParseSpec(s.Spec)
	if err != nil {
		return nil
	}
	info := settingsOf(s)
	shown := readableOptions(info) // in the units of the store line
	var out []string
	for _, name := range slices.Sorted(maps.Keys(sp.Options)) {
		asked := sp.Options.Get(name)
		key := name
		got, ok := info.Options[key]
		if !ok {
			// MariaDB's variables are read back with _ for a -.
			key = strings.ReplaceAll(name, "-", "_")
			got, ok = info.Options[key]
		}
		if !ok || strings.Contains(got, "not read back") {
			continue
		}
		if _, chosen := info.Facts[key+store.ChosenFact]; chosen {
			// Asked to choose (PostgreSQL's -1): what it chose.
			out = append(out, l.f("note.setting.chosen", s.Label, name, asked, shown[key]))
			continue
		}
		if sameForEveryClient(asked, got) {
			continue
		}
		out = append(out, l.f("note.setting", s.Label, name, asked, shown[key]))
	}
	return out
}

// clientValue is one run of clients in a setting that an isolated SQLite
// store's clients' databases read back differently: c1:8192 or c1-c3:wal.
var clientValue = regexp.MustCompile(`^c\d+(-c\d+)?:`)

// sameForEveryClient is sameSetting for a value read back from one
// database, or from each client's (c1:8192,c2:4096): every client's must
// be the one asked.
func sameForEveryClient(asked, got string) bool {
	parts := strings.Split(got, ",")
	for _, p := range parts {
		if !clientValue.MatchString(p) {
			return sameSetting(asked, got)
		}
	}
	for _, p := range parts {
		if !sameSetting(asked, clientValue.ReplaceAllString(p, "")) {
			return false
		}
	}
	return true
}

// readNothing explains a phase that read nothing, with what is true of
// the store: writes acknowledged before it on the same tables (the store
// answered the reads with no rows), a store whose tables kurabe does not
// empty (a service's), or one kurabe emptied at the start of the run (a
// read needs a write first). i is the phase's index in s.Phases.
//
// Writes before it count only where they reached the tables it read
// (sameTables): each repeat runs on a freshly opened store, and with
// several client levels a workload that writes runs each level on tables
// set up anew, so writes of another repeat or level were never there to
// read, whatever their place in s.Phases.
func readNothing(l tr, d *result.Document, s result.Store, i int, op string) string {
	p := s.Phases[i]
	var acked, rows int64
	for _, q := range s.Phases[:i] {
		if !sameTables(d, p, q) {
			continue
		}
		for _, v := range q.Verify {
			acked += v.Acked
			rows = v.After
		}
	}
	switch {
	case acked > 0:
		return l.f("note.read-nothing.written", s.Label, op, acked, rows)
	case s.Info.TablesKept && s.Via == "":
		// A run through kurabe serve (--via-http) reached, through the
		// http store, tables kurabe made and emptied for it.
		return l.f("note.read-nothing.kept", s.Label, op, p.Op)
	}
	return l.f("note.read-nothing", s.Label, op, p.Op)
}

// sameTables reports whether phases p and q of one store ran on the same
// tables, so that what one wrote the other could find: the same repeat
// (each repeat opens the store afresh) and the same client level (with
// -c 1,4 a workload whose phases write runs each level on tables set up
// anew; one that writes nothing changes nothing a level could find, so
// telling its levels apart loses nothing).
func sameTables(d *result.Document, p, q result.Phase) bool {
	return p.Repeat == q.Repeat && level(d, p) == level(d, q)
}

// kindsNote breaks a phase that mixes kinds of operation (bbs mix, ycsb's
// letters) down by kind: each kind's share of the operations and its
// latency, which the table's one row per phase does not show. It is empty
// for a phase of one kind.
func kindsNote(l tr, label, op string, p result.Phase) string {
	var parts []string
	counts := make([]int64, len(p.Kinds))
	for i, k := range p.Kinds {
		counts[i] = k.Ops
	}
	share := shares(counts)
	for i, k := range p.Kinds {
		if k.Ops > 0 {
			parts = append(parts, l.f("note.kind", k.Name, share[i], dur(k.Latency.P50), dur(k.Latency.P99)))
		}
	}
	if len(parts) < 2 {
		return ""
	}
	return l.f("note.kinds", label, op, strings.Join(parts, " · "))
}

// Text writes the summary and an aligned table for a terminal.
func Text(w io.Writer, d *result.Document) error { return text(w, d, English) }

func text(w io.Writer, d *result.Document, l tr) error {
	header, rows, numeric := table(d, l)
	var b strings.Builder
	for _, s := range summary(d, l) {
		b.WriteString(s + "\n")
	}
	b.WriteString("\n")
	alignTable(&b, header, rows, numeric)
	if ns := notes(d, l); len(ns) > 0 {
		b.WriteString("\n")
		for _, n := range ns {
			b.WriteString(n + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// displayWidth is how many terminal columns s takes: Japanese (East Asian
// wide and fullwidth) characters take two.
func displayWidth(s string) int {
	n := 0
	for _, r := range s {
		switch width.LookupRune(r).Kind() {
		case width.EastAsianWide, width.EastAsianFullwidth:
			n += 2
		default:
			n++
		}
	}
	return n
}

// alignTable writes rows under header in aligned columns, numbers to the
// right, two spaces apart.
func alignTable(b *strings.Builder, header row, rows []row, numeric []bool) {
	width := make([]int, len(header))
	for _, r := range append([]row{header}, rows...) {
		for i, c := range r {
			width[i] = max(width[i], displayWidth(c))
		}
	}
	for _, r := range append([]row{header}, rows...) {
		for i, c := range r {
			pad := strings.Repeat(" ", width[i]-displayWidth(c))
			if i > 0 {
				b.WriteString("  ")
			}
			if numeric[i] {
				b.WriteString(pad + c)
			} else if i < len(r)-1 {
				b.WriteString(c + pad)
			} else {
				b.WriteString(c)
			}
		}
		b.WriteString("\n")
	}
}

// Markdown writes the summary and a Markdown table.
func Markdown(w io.Writer, d *result.Document) error { return markdown(w, d, English) }

func markdown(w io.Writer, d *result.Document, l tr) error {
	header, rows, numeric := table(d, l)
	var b strings.Builder
	for _, s := range summary(d, l) {
		b.WriteString(s + "  \n")
	}
	b.WriteString("\n")
	markdownTable(&b, header, rows, numeric)
	if ns := notes(d, l); len(ns) > 0 {
		b.WriteString("\n")
		for _, n := range ns {
			b.WriteString("- " + n + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// markdownTable writes rows under header as a Markdown table, numbers
// aligned right.
func markdownTable(b *strings.Builder, header row, rows []row, numeric []bool) {
	line := func(r row) {
		b.WriteString("|")
		for _, c := range r {
			b.WriteString(" " + strings.ReplaceAll(c, "|", "\\|") + " |")
		}
		b.WriteString("\n")
	}
	line(header)
	b.WriteString("|")
	for i := range header {
		if numeric[i] {
			b.WriteString("---:|")
		} else {
			b.WriteString("---|")
		}
	}
	b.WriteString("\n")
	for _, r := range rows {
		line(r)
	}
}

// clientIO says how the clients of a store's phases waited for replies
// where they did not use Go's network poller (result.Phase.ClientIO).
func clientIO(phases []result.Phase) string {
	threads := slices.ContainsFunc(phases, func(p result.Phase) bool { return p.ClientIO == "threads" })
	loop := slices.ContainsFunc(phases, func(p result.Phase) bool { return p.ClientIO == "loop" })
	switch {
	case threads && loop:
		return "clients on a thread each or on one event loop"
	case threads:
		return "clients on a thread each"
	case loop:
		return "clients on one event loop"
	}
	return ""
}
