// Package numfmt writes numbers for people (whole numbers with thousands
// separators, as kurabe's tables and command output show them) and reads
// the decimal text servers send for numeric columns.
package numfmt

import (
	"strconv"
)

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

// Count writes n grouped, followed by the noun in the number it takes in
// English: Count(1, "row", "rows") is "1 row", Count(2000, …) "2,000 rows".
func Count(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return Group(n) + " " + many
}

// GroupFloat writes v rounded to a whole number, grouped as Group does.
func GroupFloat(v float64) string {
	if v < 0 {
		return Group(int64(v - 0.5))
	}
	return Group(int64(v + 0.5))
}

// DecimalInt parses a decimal integer, allowing a fraction of zeros
// ("55.0000", as a DECIMAL or numeric column may read). It does not
// allocate.
func DecimalInt(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	var u uint64
	digits := 0
	for ; digits < len(b) && b[digits] >= '0' && b[digits] <= '9'; digits++ {
		if u > (1<<63)/10 {
			return 0, false
		}
		u = u*10 + uint64(b[digits]-'0')
	}
	if digits == 0 {
		return 0, false
	}
	if rest := b[digits:]; len(rest) > 0 {
		if rest[0] != '.' {
			return 0, false
		}
		for _, c := range rest[1:] {
			if c != '0' {
				return 0, false
			}
		}
	}
	return Signed(u, neg)
}

// Signed applies a sign to a magnitude, reporting false when the result
// does not fit an int64.
func Signed(u uint64, neg bool) (int64, bool) {
	switch {
	case neg && u <= 1<<63:
		return -int64(u), true
	case !neg && u < 1<<63:
		return int64(u), true
	}
	return 0, false
}
