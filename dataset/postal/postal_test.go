package postal

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
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
