package report

import (
	"slices"
	"strconv"
	"strings"

	"kurabe/result"
)

// matrix builds the table of a run with --vary, in the shape of a tuning
// study: one row per store variant, the requested settings, ops/s per
// operation, then each varied setting as the store reported it back. A
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
	for _, k := range keys {
		header = append(header, k.name(levels)+" "+l.t("ops/s"))
		numeric = append(numeric, true)
	}
	for _, a := range d.Run.Vary {
		header = append(header, a.Name+" "+l.t("(read back)"))
		numeric = append(numeric, false)
	}
	header = append(header, l.t("errors"), l.t("lost"))
	numeric = append(numeric, true, true)

	repeats := max(d.Run.Repeat, 1)
	var rows []row
	for _, s := range d.Stores {
		name := s.Info.Driver
		if name == "" {
			name = s.Label
		}
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
			var errs int64
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
					cell = num(p.OpsPerSec)
					if p.Interrupted {
						cell += "*"
					}
					errs += p.Errors
					if l := lostCell(p); l != "0" && l != "-" {
						lost = l
					}
				}
				r = append(r, cell)
			}
			if !ran && rep > 0 && s.Error == "" {
				continue // the run was interrupted before this repeat
			}
			for _, a := range d.Run.Vary {
				got, ok := s.Info.Options[a.Name]
				switch {
				case !ok:
					got = "?"
				case !sameSetting(asked[a.Name], got):
					got = "≠ " + got
				}
				r = append(r, got)
			}
			errCell := num0(errs)
			if !ran {
				errCell, lost = "-", "-" // nothing ran to count or verify
			}
			r = append(r, errCell, lost)
			rows = append(rows, r)
		}
	}
	return header, rows, numeric
}

// sameSetting compares a requested setting with the value a store reports,
// allowing for the spellings servers use: 4k and 4096, ON and 1, wal and WAL.
func sameSetting(asked, got string) bool {
	a, g := normSetting(asked), normSetting(got)
	return a == g
}

func normSetting(v string) string {
	v = strings.ToLower(strings.TrimSpace(v))
	switch v {
	case "on", "yes", "true":
		return "1"
	case "off", "no", "false":
		return "0"
	}
	mult := int64(1)
	switch {
	case strings.HasSuffix(v, "kb"), strings.HasSuffix(v, "k"):
		mult = 1 << 10
	case strings.HasSuffix(v, "mb"), strings.HasSuffix(v, "m"):
		mult = 1 << 20
	case strings.HasSuffix(v, "gb"), strings.HasSuffix(v, "g"):
		mult = 1 << 30
	}
	n, err := strconv.ParseInt(strings.TrimRight(v, "kmgb"), 10, 64)
	if err != nil {
		return v
	}
	return strconv.FormatInt(n*mult, 10)
}
