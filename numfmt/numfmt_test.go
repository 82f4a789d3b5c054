package numfmt

import (
	"testing"
)

func TestGroup(t *testing.T) {
	cases := []struct {
		in   int64
		want string
	}{
		{0, "0"}, {7, "7"}, {999, "999"}, {1000, "1,000"}, {120720, "120,720"},
		{1234567, "1,234,567"}, {-1000, "-1,000"}, {-999, "-999"},
	}
	for _, c := range cases {
		if got := Group(c.in); got != c.want {
			t.Errorf("Group(%d) = %q, want %q", c.in, got, c.want)
		}
	}
	for n, want := range map[int64]string{0: "0 rows", 1: "1 row", 2: "2 rows", 2000: "2,000 rows"} {
		if got := Count(n, "row", "rows"); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
	if got := GroupFloat(1999.5); got != "2,000" {
		t.Errorf("GroupFloat(1999.5) = %q, want 2,000", got)
	}
	if got := GroupFloat(-2.6); got != "-3" {
		t.Errorf("GroupFloat(-2.6) = %q, want -3", got)
	}
}

func TestDecimalInt(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"55", 55, true},
		{"-55.000", -55, true},
		{"9223372036854775807", 1<<63 - 1, true},
		{"-9223372036854775808", -1 << 63, true},
		{"9223372036854775808", 0, false},
		{"1.5", 0, false},
		{"", 0, false},
		{"-", 0, false},
		{"12a", 0, false},
	} {
		if got, ok := DecimalInt([]byte(c.in)); got != c.want || ok != c.ok {
			t.Errorf("DecimalInt(%q) = %d, %v; want %d, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}
