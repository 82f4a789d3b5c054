package replay

import (
	"bufio"
	"io"
	"strings"
)

// LineReader reads a log line by line, of any length, numbering lines
// from 1. A last line without a newline is still a line.
type LineReader struct {
	r    *bufio.Reader
	n    int
	err  error
	back []string // lines pushed back, read again first (most recent last)
}

// NewLineReader reads from r.
func NewLineReader(r io.Reader) *LineReader {
	return &LineReader{r: bufio.NewReaderSize(r, 64<<10)}
}

// Next returns the next line without its line ending, and false at the
// end or on a read error (see Err).
func (l *LineReader) Next() (string, bool) {
	if n := len(l.back); n > 0 {
		s := l.back[n-1]
		l.back = l.back[:n-1]
		l.n++
		return s, true
	}
	if l.err != nil {
		return "", false
	}
	s, err := l.r.ReadString('\n')
	if err != nil {
		l.err = err
		if s == "" {
			return "", false
		}
	}
	l.n++
	s = strings.TrimSuffix(s, "\n")
	s = strings.TrimSuffix(s, "\r")
	return s, true
}

// Unread pushes lines back to be read again, in order, before the rest.
func (l *LineReader) Unread(lines []string) {
	for i := len(lines) - 1; i >= 0; i-- {
		l.back = append(l.back, lines[i])
		l.n--
	}
}

// Line returns the number of the line Next returned last.
func (l *LineReader) Line() int { return l.n }

// Err returns the read error that ended the lines, if it was not io.EOF.
func (l *LineReader) Err() error {
	if l.err == io.EOF {
		return nil
	}
	return l.err
}
