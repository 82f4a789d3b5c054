package postal

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"golang.org/x/text/encoding/japanese"

	"kurabe/datasets"
)

// The expected counts below were derived independently of this package:
// Python's csv module over the CP932 file, joining rows while the town's
// "（" outnumber its "）" and the code stays the same.

func TestSampleJoinsSplitRows(t *testing.T) {
	f, err := os.Open("testdata/ken_all_sample.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := NewReader(f, "ken_all_sample.csv")
	n, errs, err := Summary(r, 10)
	if err != nil || len(errs) > 0 {
		t.Fatalf("errors: %v %v", err, errs)
	}
	if n != 1996 || r.Rows() != 2000 || r.Joined() != 4 {
		t.Fatalf("%d records from %d rows, %d joined; want 1996, 2000, 4", n, r.Rows(), r.Joined())
	}
}

func TestJoinedTownIsWhole(t *testing.T) {
	f, _ := os.Open("testdata/ken_all_sample.csv")
	defer f.Close()
	r := NewReader(f, "sample")
	found := false
	for r.Next() {
		rec := r.Record()
		if rec.Code() == "0660005" {
			found = true
			town := rec.Fields[8]
			if !strings.HasPrefix(town, "協和（８８－２") || !strings.HasSuffix(town, "）") || rec.Joined == 0 {
				t.Fatalf("joined town %q (%d rows joined)", town, rec.Joined)
			}
			if rec.Fields[6] != "北海道" || rec.Fields[3] != "ﾎｯｶｲﾄﾞｳ" || rec.Fields[1] != "066" || rec.Flags[0] != 1 {
				t.Fatalf("record %+v", rec)
			}
		}
	}
	if !found {
		t.Fatal("0660005 not found")
	}
}

func TestFullFileShipped(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 120,998 rows")
	}
	gz, err := gzip.NewReader(bytes.NewReader(datasets.KenAllGz))
	if err != nil {
		t.Fatal(err)
	}
	r := NewReader(gz, "ken_all.csv.gz")
	n, errs, err := Summary(r, 10)
	if err != nil || len(errs) > 0 {
		t.Fatalf("errors: %v %v", err, errs)
	}
	if n != 120720 || r.Rows() != 120998 || r.Joined() != 278 {
		t.Fatalf("%d records from %d rows, %d joined; want 120720, 120998, 278", n, r.Rows(), r.Joined())
	}
}

func TestUTF8InputReadsTheSame(t *testing.T) {
	raw, _ := os.ReadFile("testdata/ken_all_sample.csv")
	utf, err := japanese.ShiftJIS.NewDecoder().Bytes(raw)
	if err != nil {
		t.Fatal(err)
	}
	a := NewReader(bytes.NewReader(raw), "cp932")
	b := NewReader(bytes.NewReader(utf), "utf8")
	for a.Next() {
		if !b.Next() || a.Record().Fields != b.Record().Fields {
			t.Fatalf("line %d differs between CP932 and UTF-8 input", a.Record().Line)
		}
	}
	if b.Next() {
		t.Fatal("UTF-8 input has more records")
	}
}

func TestMalformedRowsNamed(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"few columns", "01101,\"060  \",\"0600000\",\"x\"\r\n", "x:1: 4 columns, want 15"},
		{"bad code", `01101,"060  ","06000AB","a","b","c","d","e","f",0,0,0,0,0,0` + "\r\n", `x:1: postal code "06000AB" is not 7 digits`},
		{"bad flag", `01101,"060  ","0600000","a","b","c","d","e","f",0,0,x,0,0,0` + "\r\n", "x:1: column 12 (chome)"},
		// Japan Post's flags are one digit; a wider value would be changed
		// by the workloads' one-byte flags.
		{"flag above 9", `01101,"060  ","0600000","a","b","c","d","e","f",0,0,0,0,0,300` + "\r\n", "x:1: column 15 (update_reason)"},
		{"negative flag", `01101,"060  ","0600000","a","b","c","d","e","f",0,0,0,0,-1,0` + "\r\n", "x:1: column 14 (update_status)"},
		{"two-digit flag", `01101,"060  ","0600000","a","b","c","d","e","f",10,0,0,0,0,0` + "\r\n", "x:1: column 10 (multi_code)"},
		{"signed flag", `01101,"060  ","0600000","a","b","c","d","e","f",+1,0,0,0,0,0` + "\r\n", "x:1: column 10 (multi_code)"},
		{"empty flag", `01101,"060  ","0600000","a","b","c","d","e","f",,0,0,0,0,0` + "\r\n", "x:1: column 10 (multi_code)"},
		{"only a continuation", `01101,"060  ","0600000","a","b","c","d","e","番地）",0,0,0,0,0,0` + "\r\n", "x:1: a continuation row"},
		{"split never closed", `01101,"060  ","0600000","a","b","c","d","e","町（一",0,0,0,0,0,0` + "\r\n", "x:1: the record starting here is incomplete"},
		{"bad quote", `01101,"060  ,"0600000"` + "\r\n", "x:1:"},
	}
	for _, c := range cases {
		r := NewReader(strings.NewReader(c.in), "x")
		if r.Next() {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		var se *SyntaxError
		if !errors.As(r.Err(), &se) || !strings.Contains(r.Err().Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, r.Err(), c.want)
		}
	}
}

func TestGoesOnAfterABadRow(t *testing.T) {
	good := `01101,"060  ","0600000","a","b","c","d","e","f",0,0,0,0,0,0` + "\r\n"
	in := good + `01101,"060  ","BAD","a","b","c","d","e","f",0,0,0,0,0,0` + "\r\n" + good
	n, errs, err := Summary(NewReader(strings.NewReader(in), "x"), 5)
	if err != nil || n != 2 || len(errs) != 1 || !strings.Contains(errs[0].Error(), "x:2:") {
		t.Fatalf("n=%d errs=%v err=%v", n, errs, err)
	}
}

func FuzzReader(f *testing.F) {
	raw, _ := os.ReadFile("testdata/ken_all_sample.csv")
	f.Add(raw[:2000])
	f.Add([]byte(`01101,"060  ","0600000","a","b","c","d","e","f（",0,0,0,0,0,0` + "\r\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := NewReader(bytes.NewReader(b), "fuzz")
		for i := 0; i < 10000; i++ {
			if !r.Next() {
				var se *SyntaxError
				if r.Err() == nil || !errors.As(r.Err(), &se) {
					return
				}
			}
		}
	})
}

// sampleLines returns the sample's lines (CP932, without their CRLF).
func sampleLines(t *testing.T) [][]byte {
	t.Helper()
	raw, err := os.ReadFile("testdata/ken_all_sample.csv")
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Split(bytes.TrimSuffix(raw, []byte("\r\n")), []byte("\r\n"))
}

func joinLines(lines [][]byte) []byte {
	return append(bytes.Join(lines, []byte("\r\n")), "\r\n"...)
}

// readAll reads every record and every syntax error of in.
func readAll(t *testing.T, in []byte) (recs []Record, errLines []int, errs []string, r *Reader) {
	t.Helper()
	r = NewReader(bytes.NewReader(in), "x")
	for {
		if r.Next() {
			recs = append(recs, *r.Record())
			continue
		}
		if r.Err() == nil {
			return
		}
		var se *SyntaxError
		if !errors.As(r.Err(), &se) {
			t.Fatalf("read error: %v", r.Err())
		}
		errLines = append(errLines, se.Line)
		errs = append(errs, se.Error())
	}
}

func TestDamagedSplitIsReportedNotReplaced(t *testing.T) {
	// Lines 181-183 of the sample are one record, 0660005 協和（８８－２、…番地）,
	// split over three rows; the sample's other split (two rows joined)
	// stays whole in every case.
	const code = "0660005"
	edit := func(i int, f func([]byte) []byte) func([][]byte) [][]byte {
		return func(l [][]byte) [][]byte { l[i-1] = f(l[i-1]); return l }
	}
	dropColumn := func(b []byte) []byte { return b[:bytes.LastIndexByte(b, ',')] }
	cases := []struct {
		name     string
		edit     func([][]byte) [][]byte
		errLines []int
		records  int
	}{
		// A stray quote breaks the middle row: the record is incomplete,
		// and the last row, which closes a parenthesis it never opened,
		// is not a record of its own.
		{"stray quote in the middle row", edit(182, func(b []byte) []byte { return bytes.Replace(b, []byte(`","`), []byte(`"","`), 1) }), []int{181, 182, 183}, 1995},
		{"14 columns in the middle row", edit(182, dropColumn), []int{181, 182, 183}, 1995},
		{"a bad flag in the middle row", edit(182, func(b []byte) []byte { return append(dropColumn(b), ",x"...) }), []int{181, 182, 183}, 1995},
		{"bytes that are not CP932 in the middle row", edit(182, func(b []byte) []byte { return bytes.Replace(b, []byte("\x82\x51"), []byte("\x82\xff"), 1) }), []int{181, 182, 183}, 1995},
		// The first row malformed, with its town readable: the rows that
		// continue it are reported, not loaded as records.
		{"14 columns in the first row", edit(181, dropColumn), []int{181, 182, 183}, 1995},
		// The row that closes the parenthesis is missing: the next row has
		// another code.
		{"closing row missing", func(l [][]byte) [][]byte { return append(l[:182], l[183:]...) }, []int{181}, 1995},
		// The file ends inside the split.
		{"file ends inside the split", func(l [][]byte) [][]byte { return l[:182] }, []int{181}, 180},
		// A row that closes a parenthesis no row opened starts no record.
		{"opening and middle rows missing", func(l [][]byte) [][]byte { return append(l[:180], l[182:]...) }, []int{181}, 1995},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			recs, lines, errs, _ := readAll(t, joinLines(c.edit(sampleLines(t))))
			if !slices.Equal(lines, c.errLines) {
				t.Errorf("errors at lines %v, want %v:\n%s", lines, c.errLines, strings.Join(errs, "\n"))
			}
			if len(recs) != c.records {
				t.Errorf("%d records, want %d", len(recs), c.records)
			}
			for _, rec := range recs {
				town := rec.Fields[8]
				if strings.Count(town, "（") != strings.Count(town, "）") {
					t.Errorf("line %d: record with an unbalanced town %q", rec.Line, town)
				}
				if rec.Code() == code {
					t.Errorf("line %d: a record of the damaged split was loaded: %q", rec.Line, town)
				}
			}
		})
	}
}

func TestLongSplitBrokenInTheMiddle(t *testing.T) {
	// A split over four rows whose second is malformed: every row of it is
	// reported, none is loaded, and the records around it are.
	row := func(code, town, flag string) string {
		return `01101,"060  ","` + code + `","a","b","","d","e","` + town + `",` + flag + ",0,0,0,0,0\r\n"
	}
	in := row("0600001", "前", "0") +
		row("0600002", "町（一", "0") +
		row("0600002", "二", "x") +
		row("0600002", "三", "0") +
		row("0600002", "四）", "0") +
		row("0600002", "町", "0") + // the same code again, after the split: a record
		row("0600003", "後", "0")
	recs, lines, errs, r := readAll(t, []byte(in))
	if !slices.Equal(lines, []int{2, 3, 4, 5}) {
		t.Errorf("errors at lines %v, want 2-5:\n%s", lines, strings.Join(errs, "\n"))
	}
	var towns []string
	for _, rec := range recs {
		towns = append(towns, rec.Fields[8])
	}
	if !slices.Equal(towns, []string{"前", "町", "後"}) || r.Joined() != 0 || r.Rows() != 7 {
		t.Errorf("records %q, %d joined, %d rows; want 前 町 後, 0 joined, 7 rows", towns, r.Joined(), r.Rows())
	}
}

func TestTwoBadRowsInOneSplit(t *testing.T) {
	// Two rows of a split are malformed: the row that closes it still
	// belongs to the record of line 2, and says so, rather than being a
	// continuation of nothing; also when the record's first row is one of
	// the malformed ones.
	row := func(code, town, flag string) string {
		return `01101,"060  ","` + code + `","a","b","","d","e","` + town + `",` + flag + ",0,0,0,0,0\r\n"
	}
	for _, c := range []struct{ name, first, second string }{
		{"middle rows", "0", "x"},
		{"first and middle row", "x", "y"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := row("0600001", "前", "0") +
				row("0600002", "町（一", c.first) +
				row("0600002", "二", c.second) +
				row("0600002", "三", "y") +
				row("0600002", "四）", "0") +
				row("0600003", "後", "0")
			recs, lines, errs, _ := readAll(t, []byte(in))
			if !slices.Equal(lines, []int{2, 3, 4, 5}) || len(recs) != 2 {
				t.Fatalf("errors at lines %v and %d records, want 2-5 and 2:\n%s", lines, len(recs), strings.Join(errs, "\n"))
			}
			if last := errs[len(errs)-1]; !strings.Contains(last, "continues the record of line 2") {
				t.Errorf("line 5: %s; want it named as the rest of line 2's record", last)
			}
		})
	}
}

func TestEncodingIsCheckedOnEveryRow(t *testing.T) {
	lines := sampleLines(t)
	utf := func(l [][]byte) []byte {
		b, err := japanese.ShiftJIS.NewDecoder().Bytes(joinLines(l))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	// A UTF-8 file whose rows from line 1501 on are CP932: the first 64
	// KiB decide UTF-8, and every later row is checked.
	mixed := append(utf(lines[:1500]), joinLines(lines[1500:])...)
	if len(utf(lines[:1500])) < 64<<10 {
		t.Fatal("the UTF-8 part is shorter than the 64 KiB the encoding is told from")
	}
	cases := []struct {
		name     string
		in       []byte
		errLines []int
		want     string
	}{
		{"CP932 after 64 KiB of UTF-8", mixed, nil, "is not UTF-8"},
		// Past the first KiB: a NUL there is a malformed row of a text
		// file, one in the first KiB a file that is not text.
		{"a NUL byte", joinLines(slices.Concat(lines[:19], [][]byte{bytes.Replace(lines[19], []byte("098"), []byte("0\x008"), 1)}, lines[20:])), []int{20}, "column 2 (old_code) holds a NUL byte"},
		{"UTF-16", append([]byte{0xff, 0xfe}, "0\x001\x00"...), []int{1}, "UTF-16"},
	}
	for _, c := range cases {
		_, lines, errs, _ := readAll(t, c.in)
		if len(errs) == 0 || !strings.Contains(errs[0], c.want) || (c.errLines != nil && !slices.Equal(lines, c.errLines)) {
			t.Errorf("%s: %d errors, the first %q, want %q", c.name, len(errs), errs[:min(len(errs), 1)], c.want)
		}
		if c.errLines == nil && (len(lines) == 0 || lines[0] < 1501) {
			t.Errorf("%s: errors at lines %v, want them from line 1501", c.name, lines)
		}
	}
}

func TestUTF8ByteOrderMarkIsDropped(t *testing.T) {
	raw, _ := os.ReadFile("testdata/ken_all_sample.csv")
	utf, err := japanese.ShiftJIS.NewDecoder().Bytes(raw)
	if err != nil {
		t.Fatal(err)
	}
	recs, _, errs, r := readAll(t, append([]byte("\xef\xbb\xbf"), utf...))
	if len(errs) > 0 || len(recs) != 1996 || recs[0].Fields[0] != "01221" || r.Encoding() != "UTF-8" {
		t.Fatalf("%d records, first jis_code %q, encoding %s, errors %v", len(recs), recs[0].Fields[0], r.Encoding(), errs)
	}
}
