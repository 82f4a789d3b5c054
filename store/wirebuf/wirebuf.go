// Package wirebuf is the read buffer of kurabe's wire drivers
// (store/postgres/wire, store/mysql/wire): replies are read into one
// buffer and parsed in place, so a message is never copied out.
package wirebuf

import "io"

// Buf holds the bytes read and not yet parsed, B[Pos:End].
type Buf struct {
	B        []byte
	Pos, End int
}

// Room makes room for n unread bytes from Pos: when they would not fit,
// it moves the unread bytes to the front, growing B when n exceeds it.
func (b *Buf) Room(n int) {
	if len(b.B)-b.Pos >= n {
		return
	}
	buf := b.B
	if len(buf) < n {
		buf = make([]byte, max(n, 2*len(buf)))
	}
	b.End = copy(buf, b.B[b.Pos:b.End])
	b.Pos = 0
	b.B = buf
}

// Fill reads from r until n bytes are unread (after Room(n)). An EOF
// that comes with enough bytes is not an error.
func (b *Buf) Fill(r io.Reader, n int) error {
	for b.End-b.Pos < n {
		m, err := r.Read(b.B[b.End:])
		b.End += m
		if err != nil {
			if err == io.EOF && b.End-b.Pos >= n {
				break
			}
			return err
		}
	}
	return nil
}
