package wirebuf

import (
	"strings"
	"testing"
	"testing/iotest"
)

// TestRoomAndFill: unread bytes survive a move to the front and a growth,
// a reader that gives one byte at a time is read until n, and an EOF with
// enough bytes is no error while one without is.
func TestRoomAndFill(t *testing.T) {
	for _, tc := range []struct {
		name      string
		size, pos int
		unread    string
		input     string
		n         int
		wantErr   bool
	}{
		{"fits", 16, 2, "ab", "cdef", 4, false},
		{"moves to the front", 8, 6, "ab", "cdef", 6, false},
		{"grows", 4, 1, "abc", "defghij", 10, false},
		{"EOF with enough", 16, 0, "", "abcd", 4, false},
		{"EOF short", 16, 0, "", "ab", 4, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := Buf{B: make([]byte, tc.size), Pos: tc.pos, End: tc.pos + len(tc.unread)}
			copy(b.B[tc.pos:], tc.unread)
			b.Room(tc.n)
			if len(b.B)-b.Pos < tc.n || string(b.B[b.Pos:b.End]) != tc.unread {
				t.Fatalf("after Room(%d): %d bytes from Pos, unread %q; want %q", tc.n, len(b.B)-b.Pos, b.B[b.Pos:b.End], tc.unread)
			}
			err := b.Fill(iotest.OneByteReader(strings.NewReader(tc.input)), tc.n)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("Fill: no error with %d of %d bytes", b.End-b.Pos, tc.n)
				}
				return
			}
			want := (tc.unread + tc.input)[:tc.n]
			if err != nil || string(b.B[b.Pos:b.Pos+tc.n]) != want {
				t.Fatalf("Fill: %q, %v; want %q", b.B[b.Pos:b.End], err, want)
			}
		})
	}
}
