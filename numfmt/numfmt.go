// Package numfmt writes numbers for people: whole numbers with thousands
// separators, as kurabe's tables and command output show them.
package numfmt

import "strconv"

// Group writes n with a comma every three digits: 120720 → "120,720".
func Group(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		return "-" + s
	}
	return s
}

// GroupFloat writes v rounded to a whole number, grouped as Group does.
func GroupFloat(v float64) string {
	if v < 0 {
		return Group(int64(v - 0.5))
	}
	return Group(int64(v + 0.5))
}
