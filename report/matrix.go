package report

import (
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"kurabe/result"
	"kurabe/store"
)

// matrix builds the table of a run with --vary, in the shape of a tuning
// study: one row per store variant, the requested settings, ops/s per
// operation (rows/s for the load workload, as its charts), then each varied setting as the store reported it back. A
// read-back value that differs from the request is marked with "≠", so a
// setting that silently did not apply is visible.
//
// With client levels (-c 1,2,4) each operation has a column per level
// (write c=4 ops/s). With --repeat each variant has a row per repeat
// (sqlite #1, sqlite #2, ...), as the other tables keep one row per repeat:
// the table shows what was measured, and the spread between repeats is
// there to see; the charts draw medians with min–max whiskers and compare
// tests them. The errors and lost columns count the phases of their own
// row, so they go with the figures beside them.
func matrix(d *result.Document, l tr) (row, []row, []bool) {
	keys := phaseKeys(d)
	for _, op := range d.Run.Ops {
		// An operation no store ran still has its column (FAILED or -).
		if !slices.ContainsFunc(keys, func(k phaseKey) bool { return k.op == op }) {
			keys = append(keys, phaseKey{op, d.Run.Clients})
		}
	}
	levels := levelsVary(d)
	header := row{l.t("store")}
	numeric := []bool{false}
	for _, a := range d.Run.Vary {
		header = append(header, a.Name)
		numeric = append(numeric, false)
	}
	rate := ratesOf(d) // a load run's figure is rows/s
	for _, k := range keys {
		header = append(header, k.name(levels)+" "+l.t(rate.unit()))
		numeric = append(numeric, true)
	}
	for _, a := range d.Run.Vary {
		header = append(header, a.Name+" "+l.t("(read back)"))
		numeric = append(numeric, false)
	}
	names := variantStoreNames(d)
	confounders := unvariedDiffering(d, names)
	for _, name := range confounders {
		header = append(header, name+" "+l.t("(read back, not varied)"))
		numeric = append(numeric, false)
	}
	header = append(header, l.t("errors"), l.t("lost"))
	numeric = append(numeric, true, true)

	repeats := max(d.Run.Repeat, 1)
	var rows []row
	for i, s := range d.Stores {
		name := names[i]
		asked := map[string]string{}
		for _, v := range s.Variant {
			asked[v.Name] = v.Value
		}
		for rep := range repeats {
			r := row{name}
			if d.Run.Repeat > 1 {
				r[0] += " #" + strconv.Itoa(rep+1)
			}
			for _, a := range d.Run.Vary {
				r = append(r, asked[a.Name])
			}
			var errs, skips int64
			lost := "0"
			ran := false
			for _, k := range keys {
				cell := "-"
				if s.Error != "" {
					cell = l.t("FAILED")
				}
				for _, p := range s.Phases {
					if p.Repeat != rep || keyOf(d, p) != k {
						continue
					}
					ran = true
					cell = num(rate.of(s, p))
					if skippedPhase(p) {
						cell = l.t("skipped") // its errors are the skips, said in the notes
					} else {
						// A phase's skips are said apart from its errors.
						errs += p.Errors
						skips += skippedOps(p)
					}
					if p.Interrupted {
						cell += "*"
					}
					// A LOST, EXTRA or ? of any phase stays: a later
					// phase's unknown writes (0 (+1 of 2 unknown))
					// replace only a clean 0.
					if c := lostCell(p, l); c != "0" && c != "-" && (lost == "" || lost == "0" || lost == "-" || strings.HasPrefix(lost, "0 (")) {
						lost = c
					}
				}
				r = append(r, cell)
			}
			if !ran && rep > 0 && s.Error == "" {
				continue // the run was interrupted before this repeat
			}
			settings := settingsOf(s)
			for _, a := range d.Run.Vary {
				got, ok := settings.Options[a.Name]
				switch {
				case !ok:
					got = "?"
				case strings.Contains(got, "not read back"):
					// (given; not read back): nothing to judge
				case settings.Facts[a.Name+store.ChosenFact] != "":
					// asked the server to choose: what it chose
				case !sameSetting(asked[a.Name], got):
					got = "≠ " + got
				}
				r = append(r, got)
			}
			opts := readableOptions(settings)
			for _, name := range confounders {
				got, ok := opts[name]
				if !ok {
					got = "-"
				}
				r = append(r, got)
			}
			errCell := errorsCell(errs, skips, l)
			if !ran {
				errCell, lost = "-", "-" // nothing ran to count or verify
			}
			r = append(r, errCell, lost)
			rows = append(rows, r)
		}
	}
	return header, rows, numeric
}

// unvariedDiffering lists the settings that were not varied yet read back
// differently between variants of one store (names, as the store column
// gives them): kurabe's SQLite (SQLITE_DEFAULT_WAL_SYNCHRONOUS=1) reads
// back synchronous=normal under journal_mode=wal and full under delete, so
// a journal_mode table that showed only the varied setting would credit
// WAL with what synchronous did. Stores that failed or never started read
// back nothing and are left out.
func unvariedDiffering(d *result.Document, names []string) []string {
	varied := map[string]bool{}
	for _, a := range d.Run.Vary {
		varied[a.Name] = true
	}
	values := map[string]map[string]map[string]bool{} // store name → setting → values
	for i, s := range d.Stores {
		info := settingsOf(s)
		if s.Error != "" || info.Target == result.NotStarted || len(info.Options) == 0 {
			continue
		}
		if values[names[i]] == nil {
			values[names[i]] = map[string]map[string]bool{}
		}
		for k, v := range readableOptions(info) {
			if varied[k] || strings.Contains(v, "not read back") || perTable(k, varied) {
				continue
			}
			if values[names[i]][k] == nil {
				values[names[i]][k] = map[string]bool{}
			}
			values[names[i]][k][v] = true
		}
	}
	var out []string
	for _, settings := range values {
		for k, vs := range settings {
			if len(vs) > 1 && !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	slices.Sort(out)
	return out
}

// perTable reports whether k is a table's own reading of settings the
// run varied: MariaDB's tables.row_format when row_format was varied, or
// tables.create_options, which spells the table options (row_format,
// page_compressed, encrypted) a variant asked for.
func perTable(k string, varied map[string]bool) bool {
	_, opt, ok := strings.Cut(k, ".")
	return ok && (varied[opt] || opt == "create_options" && len(varied) > 0)
}

// variantStoreNames names each store of a --vary run for the store column:
// its driver (sqlite; a run through kurabe serve, the served store's
// driver and the way, sqlite via http, as the plain table's label says),
// or, where stores of one driver differ in more than the varied settings,
// its label without them (sqlite?journal_mode=wal, postgres?connect=pool,
// sqlite?synchronous=off via http), since the varied settings have
// columns of their own. Variants of one store share a name.
func variantStoreNames(d *result.Document) []string {
	short := make([]string, len(d.Stores))
	full := make([]string, len(d.Stores))
	bases := map[string]map[string]bool{}
	for i, s := range d.Stores {
		full[i] = labelWithout(s.Label, s.Variant)
		short[i] = settingsOf(s).Driver
		if short[i] == "" || s.Via != "" && s.Served == nil {
			// A document written before Served names the served
			// store's driver only in the label.
			short[i] = labelDriver(s.Label)
		}
		if s.Via != "" {
			short[i] += " via " + s.Via
		}
		if bases[short[i]] == nil {
			bases[short[i]] = map[string]bool{}
		}
		bases[short[i]][full[i]] = true
	}
	for i := range short {
		if len(bases[short[i]]) > 1 {
			short[i] = full[i]
		}
	}
	return short
}

// settingsOf is the description of the store whose settings a row's
// read-back columns show: for a run through kurabe serve (--via-http),
// the store kurabe serve served (Store.Served), not the HTTP client that
// reached it, whose Info holds only its address, keepalive and timeout;
// for any other, the store's own. A document written before Served gives
// the HTTP client's, which has none of the served store's settings.
func settingsOf(s result.Store) store.Info {
	if s.Via != "" && s.Served != nil {
		return *s.Served
	}
	return s.Info
}

// labelDriver is the driver a store's label starts with.
func labelDriver(label string) string {
	if i := strings.IndexAny(label, "?# "); i >= 0 {
		return label[:i]
	}
	return label
}

// labelWithout is a store's label (driver?options#n via http, as the run
// names its stores) without the options a --vary set.
func labelWithout(label string, variant []result.Setting) string {
	label, via, hasVia := strings.Cut(label, " via ")
	num := ""
	if i := strings.LastIndexByte(label, '#'); i >= 0 {
		if _, err := strconv.Atoi(label[i+1:]); err == nil {
			label, num = label[:i], label[i:]
		}
	}
	name, query, _ := strings.Cut(label, "?")
	var keep []string
	for _, kv := range strings.Split(query, "&") {
		k, _, _ := strings.Cut(kv, "=")
		if k, err := url.QueryUnescape(k); err == nil && kv != "" && !slices.ContainsFunc(variant, func(v result.Setting) bool { return v.Name == k }) {
			keep = append(keep, kv)
		}
	}
	if len(keep) > 0 {
		name += "?" + strings.Join(keep, "&")
	}
	name += num
	if hasVia {
		name += " via " + via
	}
	return name
}

// sameSetting compares a requested setting with the value a store reports,
// allowing for the spellings stores use: 4k and 4096, ON and 1, wal and WAL,
// 1000ms and 1s, 300s and 5min, 1.0 and 1, utf8 and utf8mb3. Values of
// different kinds (a number asked, a name read back: SQLite's
// synchronous=1 is normal; PostgreSQL's wal_compression=on is pglz) cannot
// be told apart without the store's own table of names, so they count as
// the same: a note that a setting did not apply must be true.
func sameSetting(asked, got string) bool {
	a, g := normSetting(asked), normSetting(got)
	switch {
	case a.kind != g.kind:
		return true
	case a.kind == settingWord:
		return a.word == g.word
	}
	return math.Abs(a.num-g.num) <= 1e-9*math.Max(math.Abs(a.num), 1)
}

type settingKind uint8

const (
	settingWord     settingKind = iota
	settingNumber               // a number, a size in bytes, a boolean as 0 or 1
	settingDuration             // in milliseconds
)

// setting is a value in one spelling: a number (in bytes, milliseconds or
// as it stands) or a word in lower case.
type setting struct {
	kind settingKind
	num  float64
	word string
}

// aliases are names servers read back for others: MariaDB's utf8 is
// utf8mb3.
var aliases = map[string]string{"utf8": "utf8mb3"}

// normSetting says what kind of value v is and writes it in one spelling.
func normSetting(v string) setting {
	v = strings.ToLower(strings.TrimSpace(v))
	switch v {
	case "on", "yes", "true":
		return setting{kind: settingNumber, num: 1}
	case "off", "no", "false":
		return setting{kind: settingNumber, num: 0}
	}
	number := func(s string) (float64, bool) {
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		return f, err == nil && !math.IsNaN(f) && !math.IsInf(f, 0)
	}
	// Durations before sizes: "min" and "ms" end as "m" and "s" do.
	for _, u := range []struct {
		suffix string
		kind   settingKind
		mult   float64
	}{
		{"us", settingDuration, 1e-3}, {"ms", settingDuration, 1}, {"min", settingDuration, 60e3}, {"s", settingDuration, 1e3}, {"h", settingDuration, 3600e3}, {"d", settingDuration, 86400e3},
		{"kb", settingNumber, 1 << 10}, {"k", settingNumber, 1 << 10}, {"mb", settingNumber, 1 << 20}, {"m", settingNumber, 1 << 20}, {"gb", settingNumber, 1 << 30}, {"g", settingNumber, 1 << 30}, {"tb", settingNumber, 1 << 40}, {"t", settingNumber, 1 << 40}, {"b", settingNumber, 1},
		{"", settingNumber, 1},
	} {
		if n, ok := strings.CutSuffix(v, u.suffix); ok {
			if f, ok := number(n); ok {
				return setting{kind: u.kind, num: f * u.mult}
			}
		}
	}
	if a, ok := aliases[v]; ok {
		v = a
	}
	return setting{kind: settingWord, word: v}
}
