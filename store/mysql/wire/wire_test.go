package wire

import (
	"encoding/binary"
	"testing"
)

func TestLenenc(t *testing.T) {
	// Each size class of the encoding, at its edges.
	for _, n := range []uint64{0, 250, 251, 1<<16 - 1, 1 << 16, 1<<24 - 1, 1 << 24, 1<<64 - 1} {
		b := appendLenenc([]byte{7}, n)
		got, pos, ok := lenencInt(b, 1)
		if !ok || got != n || pos != len(b) {
			t.Errorf("%d: read back %d at %d of %d (%v)", n, got, pos, len(b), ok)
		}
	}
	if _, _, ok := lenencInt([]byte{0xfc, 1}, 0); ok {
		t.Error("a truncated 2-byte length was read")
	}
}

func TestInt(t *testing.T) {
	le := func(n int, v uint64) []byte {
		b := binary.LittleEndian.AppendUint64(nil, v)
		return b[:n]
	}
	for _, c := range []struct {
		col  Column
		v    []byte
		want int64
		ok   bool
	}{
		{Column{Type: TypeLongLong}, le(8, 1<<63|5), -(1 << 63) + 5, true},        // signed BIGINT
		{Column{Type: TypeLongLong, Flags: FlagUnsigned}, le(8, 1<<63), 0, false}, // beyond int64
		{Column{Type: TypeLong}, le(4, 0xffffffff), -1, true},
		{Column{Type: TypeLong, Flags: FlagUnsigned}, le(4, 0xffffffff), 1<<32 - 1, true},
		{Column{Type: TypeShort}, le(2, 0xfffe), -2, true},
		{Column{Type: TypeTiny, Flags: FlagUnsigned}, le(1, 200), 200, true},
		{Column{Type: TypeNewDecimal}, []byte("-55.000"), -55, true}, // SUM() of integers
		{Column{Type: TypeNewDecimal}, []byte("1.5"), 0, false},
		{Column{Type: TypeString}, []byte("12"), 0, false}, // text is not read as a number
		{Column{Type: TypeLongLong}, nil, 0, false},        // NULL
	} {
		got, ok := Int(c.col, c.v)
		if got != c.want || ok != c.ok {
			t.Errorf("%+v %q: %d, %v; want %d, %v", c.col, c.v, got, ok, c.want, c.ok)
		}
	}
}

func TestRow(t *testing.T) {
	c := &Conn{cols: []Column{{Type: TypeLongLong}, {Type: TypeString}, {Type: TypeLong}, {Type: TypeDate}}}
	// Header, NULL bitmap (column 2 is NULL: bit 4), then the values.
	p := []byte{0, 1 << 4}
	p = binary.LittleEndian.AppendUint64(p, 42)
	p = append(appendLenenc(p, 3), "大"...)
	p = append(p, 4, 0xe8, 0x07, 12, 31)
	if err := c.row(p); err != nil {
		t.Fatal(err)
	}
	v := c.Values()
	if n, _ := Int(c.cols[0], v[0]); n != 42 || string(v[1]) != "大" || v[2] != nil || len(v[3]) != 4 {
		t.Errorf("row read as %q", v)
	}
	if err := c.row(p[:len(p)-1]); err == nil {
		t.Error("a short row was read")
	}
}

// FuzzRow feeds arbitrary packets to the row reader, which must refuse
// what it cannot read rather than read past the packet.
func FuzzRow(f *testing.F) {
	f.Add([]byte{0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 1, 'x', 0, 0, 0, 0, 0})
	f.Add([]byte{0, 0xff})
	f.Fuzz(func(t *testing.T, p []byte) {
		if len(p) == 0 {
			return
		}
		c := &Conn{cols: []Column{{Type: TypeLongLong}, {Type: TypeString}, {Type: TypeLong}, {Type: TypeDateTime}}}
		if c.row(p) == nil {
			for _, v := range c.Values() {
				_ = len(v)
			}
		}
	})
}
