// Package postal reads Japan Post's postal-code file KEN_ALL.CSV: 15
// columns, text quoted, CRLF line ends, in CP932 (Shift JIS as Windows has
// it) or UTF-8, detected from the bytes.
//
// A town name longer than the file's column allows continues on the
// following rows with the same postal code: the first row opens a
// parenthesis "（" that a later row closes "）". The Reader joins such rows
// back into one record and counts how many rows it joined.
//
// The Reader streams: memory stays flat whatever the file's size. A
// malformed row is returned as a *SyntaxError with the file, line and
// reason, and reading can go on past it, as benchfmt's reader does.
package postal

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/transform"

	"kurabe/datasets"
	"kurabe/store"
)

// Columns are the file's columns, in order, with the names kurabe's postal
// table uses.
var Columns = []string{
	"jis_code", "old_code", "code", "pref_kana", "city_kana", "town_kana",
	"pref", "city", "town",
	"multi_code", "koaza", "chome", "multi_town", "update_status", "update_reason",
}

// flagStart is the first of the six integer flag columns.
const flagStart = 9

// Record is one postal code's row, split rows joined.
type Record struct {
	Fields [15]string
	Flags  [6]int // columns 10-15 as integers
	Line   int    // line of the record's first row
	Joined int    // extra rows joined into this record
}

// Code returns the 7-digit postal code.
func (r *Record) Code() string { return r.Fields[2] }

// SyntaxError is a malformed row.
type SyntaxError struct {
	File string
	Line int
	Msg  string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// Reader reads records one at a time.
type Reader struct {
	file    string
	csv     *csv.Reader
	pending []string // a row read ahead that belongs to the next record
	pLine   int
	rec     Record
	err     error
	rows    int
	joined  int
	done    bool
	enc     string
}

// NewReader reads KEN_ALL data from r; file names the input in errors.
func NewReader(r io.Reader, file string) *Reader {
	br := bufio.NewReaderSize(r, 64<<10)
	var src io.Reader = br
	enc := "UTF-8"
	if head, _ := br.Peek(64 << 10); !utf8.Valid(trimPartialRune(head)) {
		src = transform.NewReader(br, japanese.ShiftJIS.NewDecoder())
		enc = "CP932"
	}
	c := csv.NewReader(src)
	c.FieldsPerRecord = -1 // checked here, with a better message
	c.ReuseRecord = false
	return &Reader{file: file, csv: c, enc: enc}
}

// Encoding names the encoding detected from the input's first 64 KiB:
// "CP932" or "UTF-8".
func (r *Reader) Encoding() string { return r.enc }

// File names the input, as errors do.
func (r *Reader) File() string { return r.file }

// trimPartialRune drops an incomplete UTF-8 sequence cut off at the end of
// a peeked buffer, so valid UTF-8 is not mistaken for CP932.
func trimPartialRune(b []byte) []byte {
	for i := 1; i <= 3 && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			break
		}
	}
	return b
}

// Rows returns the rows read so far; Joined, how many of them were
// continuations joined into an earlier record.
func (r *Reader) Rows() int   { return r.rows }
func (r *Reader) Joined() int { return r.joined }

// Next reads the next record. It returns false at the end of the input or
// on an error; Err says which. After a *SyntaxError, Next may be called
// again to go on with the following row.
func (r *Reader) Next() bool {
	r.err = nil
	if r.done {
		return false
	}
	row, line, err := r.row()
	if err != nil {
		if err == io.EOF {
			r.done = true
			return false
		}
		r.err = err
		return false
	}
	if err := r.set(row, line); err != nil {
		r.err = err
		return false
	}
	// Join continuation rows while the town's parenthesis stays open.
	for strings.Count(r.rec.Fields[8], "（") > strings.Count(r.rec.Fields[8], "）") {
		next, nline, err := r.row()
		if err == io.EOF {
			r.done = true
			break
		}
		if err != nil {
			r.err = err
			return false
		}
		if len(next) != 15 || next[2] != r.rec.Fields[2] {
			r.pending, r.pLine = next, nline // the parenthesis never closed; keep the row
			break
		}
		r.rec.Fields[5] += next[5]
		r.rec.Fields[8] += next[8]
		r.rec.Joined++
		r.joined++
	}
	return true
}

func (r *Reader) row() ([]string, int, error) {
	if r.pending != nil {
		row, line := r.pending, r.pLine
		r.pending = nil
		return row, line, nil
	}
	row, err := r.csv.Read()
	if err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			r.rows++
			return nil, 0, &SyntaxError{File: r.file, Line: pe.Line, Msg: pe.Err.Error()}
		}
		return nil, 0, err
	}
	r.rows++
	line, _ := r.csv.FieldPos(0)
	return row, line, nil
}

func (r *Reader) set(row []string, line int) error {
	if len(row) != 15 {
		return &SyntaxError{File: r.file, Line: line, Msg: fmt.Sprintf("%d columns, want 15 (is this KEN_ALL.CSV?)", len(row))}
	}
	if len(row[2]) != 7 || !digits(row[2]) {
		return &SyntaxError{File: r.file, Line: line, Msg: fmt.Sprintf("postal code %q is not 7 digits", row[2])}
	}
	r.rec = Record{Line: line}
	for i, f := range row {
		r.rec.Fields[i] = strings.TrimRight(f, " ")
	}
	for i := range r.rec.Flags {
		v, err := strconv.Atoi(row[flagStart+i])
		if err != nil {
			return &SyntaxError{File: r.file, Line: line, Msg: fmt.Sprintf("column %d (%s) is %q, want a number", flagStart+i+1, Columns[flagStart+i], row[flagStart+i])}
		}
		r.rec.Flags[i] = v
	}
	return nil
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Record returns the current record, valid until the next call to Next.
func (r *Reader) Record() *Record { return &r.rec }

// Err returns the error that stopped Next, nil at the end of the input.
func (r *Reader) Err() error { return r.err }

// Summary reads all of r and returns the record count, rows joined and the
// syntax errors met (at most max of them kept).
func Summary(rd *Reader, max int) (records int, errs []error, err error) {
	for {
		if rd.Next() {
			records++
			continue
		}
		e := rd.Err()
		if e == nil {
			return records, errs, nil
		}
		var se *SyntaxError
		if !errors.As(e, &se) {
			return records, errs, e
		}
		if len(errs) < max {
			errs = append(errs, e)
		}
	}
}

// Table is the postal table in kurabe's stores: the row number as key, the
// fifteen columns (the six flags as integers), and indexes on the postal
// code and the old code, as in the study that loaded it.
func Table() *store.Table {
	t := &store.Table{Name: "postal", Columns: []store.Column{{Name: "id", Kind: store.Int}}, Indexes: [][]string{{"code"}, {"old_code"}}}
	for i, c := range Columns {
		k := store.Text
		if i >= flagStart {
			k = store.Int
		}
		t.Columns = append(t.Columns, store.Column{Name: c, Kind: k})
	}
	return t
}

// Open returns a reader over the postal data set shipped with kurabe.
func Open() (*Reader, error) {
	gz, err := gzip.NewReader(bytes.NewReader(datasets.KenAllGz))
	if err != nil {
		return nil, fmt.Errorf("the shipped postal data set is damaged: %v", err)
	}
	return NewReader(gz, "ken_all.csv.gz (shipped)"), nil
}

// OpenFile returns a reader over a KEN_ALL file on disk, as Japan Post
// publishes it (CP932) or converted to UTF-8, plain or gzip-compressed
// (told by its first bytes, not its name). path "" is the shipped data
// set. Close the returned closer when done.
func OpenFile(path string) (*Reader, io.Closer, error) {
	if path == "" {
		r, err := Open()
		return r, io.NopCloser(nil), err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("postal data set: %w", err)
	}
	br := bufio.NewReaderSize(f, 64<<10)
	var src io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("postal data set %s: looks gzip-compressed but is not readable as gzip: %v", path, err)
		}
		src = gz
	}
	return NewReader(src, path), f, nil
}

// FillRow sets row (len(Table().Columns) values) to rec with key id: the
// text columns as new byte slices, the flags as integers.
func FillRow(row store.Row, id int64, rec *Record) {
	row[0] = store.Value{Int: id}
	for i, f := range rec.Fields {
		if i >= flagStart {
			row[i+1] = store.Value{Int: int64(rec.Flags[i-flagStart])}
		} else {
			row[i+1] = store.Value{Text: []byte(f)}
		}
	}
}

// LoadStore loads r's records into t, numbering them from 1, and stops
// after limit records when limit > 0. It goes through the store's bulk
// path (COPY, LOAD DATA, SQLite's prepared insert in one transaction) when
// the store has one and takes it, and otherwise in batches of 1000 rows
// through one session. Malformed rows are skipped: a caller that must not
// load a damaged file reads it through once first (kurabe dataset import
// lists them). It returns the records loaded and the path taken.
func LoadStore(ctx context.Context, st store.Store, t *store.Table, r *Reader, limit int64) (int64, string, error) {
	row := make(store.Row, len(t.Columns))
	var n int64
	next := func() (store.Row, bool) {
		if limit > 0 && n >= limit {
			return nil, false
		}
		for !r.Next() {
			var se *SyntaxError
			if !errors.As(r.Err(), &se) {
				return nil, false // the end, or a read error: r.Err says
			}
		}
		n++
		FillRow(row, n, r.Record())
		return row, true
	}
	if bl, ok := st.(store.BulkLoader); ok {
		got, err := bl.BulkLoad(ctx, t, next)
		// A bulk path that refuses before taking a row (SQLite with
		// connect=per-op) leaves the batches to do the work.
		if err == nil || n > 0 {
			if err == nil {
				err = r.Err()
			}
			return got, "the store's bulk path", err
		}
	}
	s, err := st.Open(ctx)
	if err != nil {
		return 0, "", err
	}
	defer s.Close()
	const batch = 1000
	how := fmt.Sprintf("batches of %d", batch)
	rows := make([]store.Row, 0, batch)
	vals := make([]store.Value, batch*len(t.Columns))
	var done int64
	for {
		rw, ok := next()
		if ok {
			i := len(rows) * len(t.Columns)
			dst := store.Row(vals[i : i+len(t.Columns) : i+len(t.Columns)])
			copy(dst, rw)
			rows = append(rows, dst)
		}
		if len(rows) == batch || (!ok && len(rows) > 0) {
			if err := store.InsertBatch(ctx, s, t, rows); err != nil {
				return done, how, err
			}
			done += int64(len(rows))
			rows = rows[:0]
		}
		if !ok {
			return done, how, r.Err()
		}
	}
}

// Load inserts every record of r into t through s, numbering rows from 1,
// in batches of batch rows through the store's batch path, and returns the
// number of rows loaded. limit > 0 stops after that many.
func Load(ctx context.Context, s store.Session, t *store.Table, r *Reader, batch, limit int) (int64, error) {
	rows := make([]store.Row, 0, batch)
	vals := make([]store.Value, 0, batch*len(t.Columns))
	var n int64
	flush := func() error {
		if len(rows) == 0 {
			return nil
		}
		err := store.InsertBatch(ctx, s, t, rows)
		rows, vals = rows[:0], vals[:0]
		return err
	}
	for r.Next() {
		n++
		start := len(vals)
		vals = vals[:start+len(t.Columns)]
		FillRow(vals[start:], n, r.Record())
		rows = append(rows, vals[start:len(vals):len(vals)])
		if len(rows) == batch {
			if err := flush(); err != nil {
				return n, err
			}
		}
		if limit > 0 && n >= int64(limit) {
			break
		}
	}
	if err := r.Err(); err != nil {
		return n, err
	}
	return n, flush()
}
