// Package postal reads Japan Post's postal-code file KEN_ALL.CSV: 15
// columns, text quoted, CRLF line ends, in CP932 (Shift JIS as Windows has
// it) or UTF-8, detected from the bytes.
//
// A town name longer than the file's column allows continues on the
// following rows with the same postal code: the first row opens a
// parenthesis "（" that a later row closes "）". The Reader joins such rows
// back into one record and counts how many rows it joined. A record whose
// split is cut short is reported and left out whole, never returned in
// part (the rule is at Next).
//
// The Reader streams: memory stays flat whatever the file's size. A
// malformed row is returned as a *SyntaxError with the file, line and
// reason, and reading can go on past it, as benchfmt's reader does.
package postal

import (
	"archive/zip"
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/transform"

	"kurabe/datasets"
	"kurabe/numfmt"
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
	pending *row // a row read ahead that starts the next record
	rec     Record
	err     error
	queue   []error // errors found ahead, returned before reading on
	broken  broken
	rows    int
	joined  int
	done    bool
	enc     string
	fp      *fingerprint // the file on disk, for Fingerprint; nil for the shipped data set
}

// row is one row of the file. A malformed row has bad set, and f holds
// what could be read of it.
type row struct {
	f    []string
	line int
	bad  error
}

// broken is a record left out because a row of it was malformed: the rows
// after it with its postal code, up to the one that closes its town's
// parenthesis, are the rest of it.
type broken struct {
	code string
	open int // parentheses still open
	line int // the record's first line
}

var (
	bomUTF8    = []byte{0xef, 0xbb, 0xbf}
	bomUTF16LE = []byte{0xff, 0xfe}
	bomUTF16BE = []byte{0xfe, 0xff}
)

// NewReader reads KEN_ALL data from r; file names the input in errors.
func NewReader(r io.Reader, file string) *Reader {
	br := bufio.NewReaderSize(r, 64<<10)
	var src io.Reader = br
	rd := &Reader{file: file, enc: "UTF-8"}
	head, _ := br.Peek(64 << 10)
	switch {
	case bytes.HasPrefix(head, bomUTF8):
		// A byte-order mark says UTF-8 (an editor's "UTF-8 with BOM"); it
		// is no part of the first record.
		br.Discard(len(bomUTF8))
	case bytes.HasPrefix(head, bomUTF16LE), bytes.HasPrefix(head, bomUTF16BE):
		rd.queue = []error{&SyntaxError{File: file, Line: 1, Msg: "the file is UTF-16 (it starts with a UTF-16 byte-order mark); save it as UTF-8 or CP932 (Shift JIS)"}}
		rd.done, rd.enc = true, "UTF-16"
	case archive(head, file) != "":
		rd.queue = []error{&SyntaxError{File: file, Line: 1, Msg: archive(head, file)}}
		rd.done, rd.enc = true, "not text"
	case notText(head) != "":
		// A database, an archive or an image read as CSV gave "1 columns,
		// want 15" and was called CP932.
		rd.queue = []error{&SyntaxError{File: file, Line: 1, Msg: "not a text file: " + notText(head) + "; give Japan Post's KEN_ALL.CSV, CP932 or UTF-8, plain or .gz"}}
		rd.done, rd.enc = true, "not text"
	case !utf8.Valid(trimPartialRune(head)):
		src = transform.NewReader(br, japanese.ShiftJIS.NewDecoder())
		rd.enc = "CP932"
	}
	c := csv.NewReader(src)
	c.FieldsPerRecord = -1 // checked here, with a better message
	c.ReuseRecord = false
	rd.csv = c
	return rd
}

// archives are the archive and compressed formats a KEN_ALL.CSV may come
// in that kurabe does not read itself, by their first bytes (at offset),
// with what to do instead. ZIP is here for a ZIP read through gzip or
// handed to NewReader; OpenFile reads a ZIP archive of one CSV itself.
var archives = []struct {
	offset int
	magic  string
	name   string
	do     string
}{
	{0, "PK\x03\x04", "a ZIP archive", "unzip it (unzip FILE) and import the KEN_ALL.CSV in it"},
	{0, "7z\xbc\xaf\x27\x1c", "a 7-Zip archive", "extract it (7z x FILE) and import the KEN_ALL.CSV in it"},
	{0, "Rar!\x1a\x07", "a RAR archive", "extract it (unrar x FILE) and import the KEN_ALL.CSV in it"},
	{2, "-lh", "an LZH archive", "extract it (lha x FILE) and import the KEN_ALL.CSV in it"},
	{0, "\xfd7zXZ\x00", "an xz-compressed file", "decompress it (xz -d FILE) and import the result"},
	{0, "BZh", "a bzip2-compressed file", "decompress it (bunzip2 FILE) and import the result"},
	{0, "\x28\xb5\x2f\xfd", "a zstd-compressed file", "decompress it (zstd -d FILE) and import the result"},
	{257, "ustar", "a tar archive", "extract it (tar xf FILE) and import the KEN_ALL.CSV in it"},
	{0, "SQLite format 3\x00", "an SQLite database", "give the KEN_ALL.CSV it was loaded from"},
}

// archive says what an input that starts as an archive or a compressed
// file of a kind kurabe does not read is, and what to do, or "".
func archive(head []byte, file string) string {
	for _, a := range archives {
		if len(head) >= a.offset+len(a.magic) && string(head[a.offset:a.offset+len(a.magic)]) == a.magic {
			// An LZH header's method is -lh0- to -lh7-, -lhd-.
			if a.name == "an LZH archive" && (len(head) < 7 || head[6] != '-') {
				continue
			}
			return "this is " + a.name + ", not a text file; " + strings.ReplaceAll(a.do, "FILE", file)
		}
	}
	return ""
}

// textCheck is how much of the input notText looks at.
const textCheck = 1 << 10

// notText says why the start of the input is not text, or "" when it may
// be: NUL bytes in its first KiB (a database, an archive, an image; no
// text file has them), or bytes that are neither UTF-8 nor CP932.
func notText(head []byte) string {
	h := head[:min(len(head), textCheck)]
	if bytes.IndexByte(h, 0) >= 0 {
		return "it has NUL bytes in its first KiB (a database, an archive or an image?)"
	}
	if utf8.Valid(trimPartialRune(h)) {
		return ""
	}
	dec, err := japanese.ShiftJIS.NewDecoder().Bytes(h)
	if err == nil && len(h) < len(head) {
		// The KiB may end in the first byte of a character.
		if r, n := utf8.DecodeLastRune(dec); r == utf8.RuneError && n > 0 {
			dec = dec[:len(dec)-n]
		}
	}
	if err != nil || bytes.ContainsRune(dec, utf8.RuneError) {
		return "its first KiB is neither UTF-8 nor CP932 (Shift JIS)"
	}
	return ""
}

// Encoding names the encoding detected from the input's first 64 KiB:
// "CP932" or "UTF-8" ("UTF-16", or "not text" for a database or another
// binary file, for a file the reader then refuses). Every row is checked
// against it.
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
// continuations joined into a record returned by Next (rows of a record
// left out as incomplete are not counted).
func (r *Reader) Rows() int   { return r.rows }
func (r *Reader) Joined() int { return r.joined }

// Next reads the next record. It returns false at the end of the input or
// on an error; Err says which. After a *SyntaxError, Next may be called
// again to go on with the following row.
//
// A record is returned only whole: every row of it well-formed and its
// town name's parentheses closed. The rule for split town names:
//
//   - A row whose town opens more "（" than it closes starts a split; the
//     following rows with the same postal code are joined to it until the
//     parentheses close.
//   - If the split is cut short (a malformed row inside it, a row of
//     another code, the end of the file), the record is incomplete: it is
//     reported at its first line and left out, never returned in part.
//     After a malformed row, the rows with its code that follow, up to
//     the one that closes the parenthesis, are the rest of that record:
//     each is reported, none is returned as a record of its own.
//   - A row that would start a record but closes a "）" no row before it
//     opened is a continuation with nothing to continue: it is reported,
//     not returned.
func (r *Reader) Next() bool {
	r.err = nil
	if len(r.queue) > 0 {
		r.err, r.queue = r.queue[0], r.queue[1:]
		return false
	}
	if r.done {
		return false
	}
	first, err := r.row()
	if err != nil {
		r.stop(err)
		return false
	}
	if first.bad != nil {
		if b := r.broken; b.line > 0 && (len(first.f) <= 2 || first.f[2] == b.code) {
			// Another malformed row of a record already left out: still
			// that record's, its parentheses counted as far as they read.
			r.breakOff(first, b.code, b.line, b.open)
		} else {
			r.breakOff(first, "", first.line, 0)
		}
		r.err = first.bad
		return false
	}
	if b := r.broken; b.line > 0 {
		if first.f[2] == b.code {
			r.broken.open += balance(first.f[8])
			if r.broken.open <= 0 {
				r.broken = broken{}
			}
			r.err = r.syntax(first.line, "continues the record of line %d, which is incomplete; left out with it", b.line)
			return false
		}
		r.broken = broken{}
	}
	r.set(first)
	open := balance(r.rec.Fields[8])
	if open < 0 {
		r.err = r.syntax(first.line, "a continuation row with no record to continue: town %q closes a \"）\" no row before it opened (is the row that opens it missing or malformed?)", r.rec.Fields[8])
		return false
	}
	for open > 0 {
		next, err := r.row()
		if err != nil {
			if err == io.EOF {
				r.err = r.incomplete("the file ends before it closes")
			}
			r.stop(err)
			return false
		}
		if next.bad != nil {
			r.breakOff(next, r.rec.Fields[2], r.rec.Line, open)
			r.err = r.incomplete(fmt.Sprintf("its row at line %d is malformed", next.line))
			r.queue = append(r.queue, next.bad)
			return false
		}
		if next.f[2] != r.rec.Fields[2] {
			r.pending = &next
			r.err = r.incomplete(fmt.Sprintf("line %d has another postal code (%s) before it closes", next.line, next.f[2]))
			return false
		}
		r.rec.Fields[5] += next.f[5]
		r.rec.Fields[8] += next.f[8]
		r.rec.Joined++
		open += balance(next.f[8])
	}
	if open < 0 {
		r.err = r.syntax(r.rec.Line, "town %q closes more \"）\" than it opens over lines %d-%d; left out", r.rec.Fields[8], r.rec.Line, r.rec.Line+r.rec.Joined)
		return false
	}
	r.joined += r.rec.Joined
	return true
}

// stop ends reading at err: io.EOF is the end (Err nil, unless an error
// is already set), any other error is returned by Err.
func (r *Reader) stop(err error) {
	r.done = true
	if err != io.EOF {
		r.err = err
	}
}

// breakOff notes that the record of postal code code starting at line,
// with open parentheses still open, is cut short by the malformed row bad:
// the rows after it with that code are the rest of that record, until the
// parentheses close. What can be read of bad counts: its own code when the
// record starts with it (open 0, code ""), and its parentheses.
func (r *Reader) breakOff(bad row, code string, line, open int) {
	if open == 0 { // bad starts the record
		if len(bad.f) <= 2 || len(bad.f[2]) != 7 || !digits(bad.f[2]) {
			r.broken = broken{}
			return
		}
		code = bad.f[2]
	}
	for i, f := range bad.f {
		if i > 2 && i < flagStart {
			open += balance(f)
		}
	}
	r.broken = broken{}
	if open > 0 {
		r.broken = broken{code: code, open: open, line: line}
	}
}

// balance is the "（" of a town name less its "）".
func balance(town string) int {
	return strings.Count(town, "（") - strings.Count(town, "）")
}

func (r *Reader) syntax(line int, format string, args ...any) *SyntaxError {
	return &SyntaxError{File: r.file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

func (r *Reader) incomplete(why string) *SyntaxError {
	return r.syntax(r.rec.Line, "the record starting here is incomplete (postal code %s): its town's \"（\" is not closed, as %s; left out", r.rec.Fields[2], why)
}

// row reads the next row and checks it; a malformed row comes back with
// bad set. The error is io.EOF at the end, or a read error.
func (r *Reader) row() (row, error) {
	if r.pending != nil {
		p := *r.pending
		r.pending = nil
		return p, nil
	}
	f, err := r.csv.Read()
	if err != nil {
		var pe *csv.ParseError
		if !errors.As(err, &pe) {
			return row{}, err
		}
		r.rows++
		return row{f: f, line: pe.StartLine, bad: r.syntax(pe.StartLine, "%v", pe.Err)}, nil
	}
	r.rows++
	line, _ := r.csv.FieldPos(0)
	return row{f: f, line: line, bad: r.check(f, line)}, nil
}

// check says what is wrong with a row, or nil.
func (r *Reader) check(f []string, line int) error {
	if len(f) != 15 {
		return r.syntax(line, "%s, want 15 (is this KEN_ALL.CSV?)", numfmt.Count(int64(len(f)), "column", "columns"))
	}
	if len(f[2]) != 7 || !digits(f[2]) {
		return r.syntax(line, "postal code %q is not 7 digits", f[2])
	}
	for i, v := range f[flagStart:] {
		// Japan Post's flags are single digits; the workloads keep them
		// in a byte.
		if len(v) != 1 || !digits(v) {
			return r.syntax(line, "column %d (%s) is %q, want one digit 0-9", flagStart+i+1, Columns[flagStart+i], v)
		}
	}
	for i, v := range f[:flagStart] {
		// The encoding was told from the first 64 KiB; a row after them
		// in another one is found here. A store would refuse it
		// (PostgreSQL takes no invalid UTF-8 nor NUL) or keep garbage.
		switch {
		case r.enc == "UTF-8" && !utf8.ValidString(v):
			return r.syntax(line, "column %d (%s) is not UTF-8, which the file's first 64 KiB are (is this part CP932? convert the whole file to one encoding)", i+1, Columns[i])
		case r.enc == "CP932" && strings.ContainsRune(v, utf8.RuneError):
			return r.syntax(line, "column %d (%s) has bytes that are not CP932, which the file's first 64 KiB are (is this part UTF-8? convert the whole file to one encoding)", i+1, Columns[i])
		case strings.IndexByte(v, 0) >= 0:
			return r.syntax(line, "column %d (%s) holds a NUL byte", i+1, Columns[i])
		}
	}
	return nil
}

// set makes the checked row f the current record.
func (r *Reader) set(f row) {
	r.rec = Record{Line: f.line}
	for i, v := range f.f {
		r.rec.Fields[i] = strings.TrimRight(v, " ")
	}
	for i := range r.rec.Flags {
		r.rec.Flags[i] = int(f.f[flagStart+i][0] - '0')
	}
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
// publishes it (CP932, in ken_all.zip) or converted to UTF-8: plain,
// gzip-compressed, or a ZIP archive holding one .CSV (told by its first
// bytes, not its name). path "" is the shipped data set. Close the
// returned closer when done; the Reader's Fingerprint then tells this
// file from another of the same name.
func OpenFile(path string) (*Reader, io.Closer, error) {
	if path == "" {
		r, err := Open()
		return r, io.NopCloser(nil), err
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("postal data set %s: no such file; give the path of Japan Post's KEN_ALL.CSV (as published, or its ken_all.zip)", path)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("postal data set: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("postal data set: %w", err)
	}
	fp := &fingerprint{path: path, f: f, size: fi.Size(), h: sha256.New()}
	// The file is hashed as it is read, so telling it apart costs no
	// second reading (Fingerprint reads what a reader left unread).
	br := bufio.NewReaderSize(io.TeeReader(f, fp.h), 64<<10)
	var src io.Reader = br
	name := path
	magic, _ := br.Peek(4)
	switch {
	case len(magic) >= 2 && magic[0] == 0x1f && magic[1] == 0x8b:
		gz, err := gzip.NewReader(br)
		if err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("postal data set %s: looks gzip-compressed but is not readable as gzip: %v", path, err)
		}
		src = gzReader{gz, path}
	case bytes.Equal(magic, []byte("PK\x03\x04")), bytes.Equal(magic, []byte("PK\x05\x06")):
		// Japan Post's ken_all.zip: read its one .CSV member. The archive
		// is read at its directory, not in order, so it is hashed whole
		// when the fingerprint is asked for.
		fp.whole = true
		m, member, err := zipMember(f, fi.Size(), path)
		if err != nil {
			f.Close()
			return nil, nil, err
		}
		name = path + "/" + member
		src = m
	}
	rd := NewReader(src, name)
	rd.fp = fp
	return rd, f, nil
}

// zipMember opens the one .CSV file of a ZIP archive, refusing an archive
// with none or several (named, so the user can pick one).
func zipMember(f *os.File, size int64, path string) (io.Reader, string, error) {
	zr, err := zip.NewReader(f, size)
	if err != nil {
		return nil, "", fmt.Errorf("%s looks like a ZIP archive but cannot be read as one (%v); was the download cut short? Download ken_all.zip again, or unzip it and import KEN_ALL.CSV", path, err)
	}
	var csvs, others []*zip.File
	for _, m := range zr.File {
		switch {
		case m.FileInfo().IsDir():
		case strings.EqualFold(filepath.Ext(m.Name), ".csv"):
			csvs = append(csvs, m)
		default:
			others = append(others, m)
		}
	}
	names := func(ms []*zip.File) string {
		var s []string
		for _, m := range ms {
			s = append(s, m.Name)
		}
		return strings.Join(s, ", ")
	}
	switch {
	case len(csvs) == 0 && len(others) == 0:
		return nil, "", fmt.Errorf("%s is a ZIP archive with no files in it; give Japan Post's ken_all.zip (or the KEN_ALL.CSV in it)", path)
	case len(csvs) == 0:
		return nil, "", fmt.Errorf("%s is a ZIP archive with no .CSV file in it (it holds %s); give Japan Post's ken_all.zip (or the KEN_ALL.CSV in it)", path, names(others))
	case len(csvs) > 1:
		return nil, "", fmt.Errorf("%s is a ZIP archive with %d .CSV files (%s); kurabe reads an archive of one: unzip it (unzip %s) and import the one you mean", path, len(csvs), names(csvs), path)
	}
	m, err := csvs[0].Open()
	if err != nil {
		return nil, "", fmt.Errorf("%s: cannot read %s from the ZIP archive: %v; unzip it (unzip %s) and import %s", path, csvs[0].Name, err, path, csvs[0].Name)
	}
	return zipReader{m, path + "/" + csvs[0].Name}, csvs[0].Name, nil
}

// zipReader says what a damaged member of a ZIP archive means.
type zipReader struct {
	r    io.Reader
	name string
}

func (z zipReader) Read(p []byte) (int, error) {
	n, err := z.r.Read(p)
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		err = fmt.Errorf("%s is truncated: its compressed data ends early (was the download or copy cut short?)", z.name)
	case err != nil && err != io.EOF:
		err = fmt.Errorf("%s: damaged ZIP data: %w", z.name, err)
	}
	return n, err
}

// Fingerprint tells one KEN_ALL file from another: Japan Post's file is
// KEN_ALL.CSV every month, so its name alone does not.
type Fingerprint struct {
	Path   string // as given
	Size   int64  // bytes on disk
	SHA256 string // of the file's bytes on disk, in hex, as sha256sum prints it
}

type fingerprint struct {
	path  string
	f     *os.File
	size  int64
	h     hash.Hash
	whole bool // hash the file from its start (a ZIP archive, not read in order)
	done  *Fingerprint
}

// Fingerprint returns the file's path, size and SHA-256, reading what
// the reader left unread (a workload that takes the first records only);
// ok is false for the shipped data set. Ask it before closing the file.
func (r *Reader) Fingerprint() (fp Fingerprint, ok bool, err error) {
	p := r.fp
	if p == nil {
		return Fingerprint{}, false, nil
	}
	if p.done != nil {
		return *p.done, true, nil
	}
	var rest io.Reader = p.f
	if p.whole {
		p.h.Reset()
		rest = io.NewSectionReader(p.f, 0, p.size)
	}
	if _, err := io.Copy(p.h, rest); err != nil {
		return Fingerprint{}, false, fmt.Errorf("hashing %s: %w", p.path, err)
	}
	p.done = &Fingerprint{Path: p.path, Size: p.size, SHA256: hex.EncodeToString(p.h.Sum(nil))}
	return *p.done, true, nil
}

// gzReader says what a gzip stream that ends early means: the file was
// cut short, which gzip itself reports as "unexpected EOF".
type gzReader struct {
	gz   *gzip.Reader
	path string
}

func (g gzReader) Read(p []byte) (int, error) {
	n, err := g.gz.Read(p)
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		err = fmt.Errorf("%s is truncated: its gzip data ends early (was the download or copy cut short?)", g.path)
	case err != nil && err != io.EOF:
		err = fmt.Errorf("%s: damaged gzip data: %w", g.path, err)
	}
	return n, err
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
	var (
		n       int64
		stopped error
	)
	next := func() (store.Row, bool) {
		if limit > 0 && n >= limit {
			return nil, false
		}
		// A bulk path may not watch ctx (the stores' own do): an
		// interrupt ends the rows, and the load's error says it was cut
		// short.
		if n%1024 == 0 && ctx.Err() != nil {
			stopped = ctx.Err()
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
		// A bulk path that refuses before taking a row leaves the
		// batches to do the work.
		if err == nil || n > 0 {
			if err == nil {
				err = cmp.Or(stopped, r.Err())
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
			return done, how, cmp.Or(stopped, r.Err())
		}
	}
}
