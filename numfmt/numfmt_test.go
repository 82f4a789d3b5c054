package numfmt

import "testing"

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
	if got := GroupFloat(1999.5); got != "2,000" {
		t.Errorf("GroupFloat(1999.5) = %q, want 2,000", got)
	}
	if got := GroupFloat(-2.6); got != "-3" {
		t.Errorf("GroupFloat(-2.6) = %q, want -3", got)
	}
}
