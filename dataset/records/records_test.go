package records

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kurabe/dataset/postal"
	"kurabe/store"
	"kurabe/store/file"
	"kurabe/store/sqlite"
)

func TestParseCount(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		err  bool
	}{
		{"120000", 120000, false},
		{"500k", 500_000, false},
		{"10M", 10_000_000, false},
		{"1.5M", 1_500_000, false}, // a fraction that comes out whole
		{"2G", 2_000_000_000, false},
		{"1_000", 1000, false},
		{"0", 0, false},
		{"", 0, true},
		{"ten", 0, true},
		{"-5", 0, true},
		{"1.5", 0, true}, // not a whole number of rows
		{"10X", 0, true}, // unknown suffix
		{"0.0001k", 0, true},
	} {
		got, err := ParseCount(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("ParseCount(%q) = %d, %v; want %d, error %v", tc.in, got, err, tc.want, tc.err)
		}
		if err == nil {
			if back, err := ParseCount(FormatCount(got)); err != nil || back != got {
				t.Errorf("FormatCount(%d) = %q reads back as %d, %v", got, FormatCount(got), back, err)
			}
		}
	}
}

func TestGeneratorIsDeterministicText(t *testing.T) {
	a, b, other := NewGenerator(7, 808), NewGenerator(7, 808), NewGenerator(8, 808)
	seen := map[string]bool{}
	for k := int64(1); k <= 1000; k++ {
		p := a.Payload(k, 0)
		if len(p) != 808 {
			t.Fatalf("key %d: %d bytes", k, len(p))
		}
		if !bytes.Equal(p, b.Payload(k, 0)) {
			t.Fatalf("key %d: two generators of one seed differ", k)
		}
		if bytes.Equal(p, other.Payload(k, 0)) {
			t.Fatalf("key %d: seeds 7 and 8 give the same payload", k)
		}
		if bytes.Equal(p, a.Payload(k, 1)) {
			t.Fatalf("key %d: version 1 is version 0", k)
		}
		for _, c := range p {
			if !strings.ContainsRune(alphabet, rune(c)) {
				t.Fatalf("key %d: byte %q outside the base64url alphabet", k, c)
			}
		}
		seen[string(p)] = true
	}
	if len(seen) < 999 {
		t.Errorf("only %d distinct payloads in 1000 keys", len(seen))
	}
}

func TestIterDoesNotAllocate(t *testing.T) {
	// Memory stays flat in the row count: yielding a row allocates nothing.
	for _, ds := range []string{"records", "postal"} {
		c := DefaultConfig()
		c.Dataset, c.Rows = ds, 5000
		src, err := Open(c)
		if err != nil {
			t.Fatal(err)
		}
		next := src.Iter(0, src.Rows())
		if n := testing.AllocsPerRun(1000, func() { next() }); n != 0 {
			t.Errorf("%s: %v allocations per row", ds, n)
		}
	}
}

func TestPostalSourceMatchesTheReader(t *testing.T) {
	// The decoded arena gives exactly the rows postal.Load would insert,
	// numbered from 1 (checked over the first 5000 records against the
	// reader), and Bytes adds up what Fill yields over all of them.
	src, err := Open(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	r, err := postal.Open()
	if err != nil {
		t.Fatal(err)
	}
	row := src.NewRow()
	var i, total int64
	for i < 5000 && r.Next() {
		rec := r.Record()
		src.Fill(row, i)
		if row[0].Int != i+1 {
			t.Fatalf("row %d has key %d", i, row[0].Int)
		}
		for j, f := range rec.Fields {
			v := row[1+j]
			if j >= 9 {
				if v.Int != int64(rec.Flags[j-9]) {
					t.Fatalf("row %d column %s: %d, want %d", i, postal.Columns[j], v.Int, rec.Flags[j-9])
				}
			} else if string(v.Text) != f {
				t.Fatalf("row %d column %s: %q, want %q", i, postal.Columns[j], v.Text, f)
			}
		}
		i++
	}
	if src.Rows() != 120_720 {
		t.Fatalf("source has %d records, the shipped file 120,720", src.Rows())
	}
	for i := range src.Rows() {
		src.Fill(row, i)
		for j, c := range src.Table().Columns {
			if c.Kind == store.Int {
				total += 8
			} else {
				total += int64(len(row[j].Text))
			}
		}
	}
	if got := src.Bytes(0, src.Rows()); got != total {
		t.Errorf("Bytes = %d, rows add up to %d", got, total)
	}
	// --dataset-rows takes the first N.
	c := DefaultConfig()
	c.Rows = 1000
	if s, _ := Open(c); s.Rows() != 1000 {
		t.Errorf("limited to 1000: %d rows", s.Rows())
	}
}

func TestLoadGivesTheSameTableOnEveryStore(t *testing.T) {
	// The same seed loads the same rows into SQLite (bulk path), SQLite
	// with connect=per-op (whose bulk path refuses: batches) and the file
	// store (batches): equal counts and fingerprints.
	c := DefaultConfig()
	c.Dataset, c.Rows, c.Size = "records", 3000, 100
	ctx := context.Background()
	perOp, _ := store.ParseSpec("sqlite:?connect=per-op")
	var fps []store.Fingerprint
	for _, o := range []struct {
		open store.Opener
		spec store.Spec
	}{{sqlite.Open, store.Spec{}}, {sqlite.Open, perOp}, {file.Open, store.Spec{}}} {
		src, err := Open(c)
		if err != nil {
			t.Fatal(err)
		}
		st, err := o.open(ctx, o.spec, store.Env{Dir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if err := st.Setup(ctx, []*store.Table{src.Table()}); err != nil {
			t.Fatal(err)
		}
		n, err := src.LoadTable(ctx, st, src.Table(), 700)
		if err != nil || n != 3000 {
			t.Fatalf("loaded %d: %v", n, err)
		}
		s, _ := st.Open(ctx)
		fp, err := store.TakeFingerprint(ctx, s, src.Table())
		s.Close()
		if err != nil || fp.Rows != 3000 {
			t.Fatalf("fingerprint %+v: %v", fp, err)
		}
		fps = append(fps, fp)
	}
	if fps[0] != fps[1] || fps[0] != fps[2] {
		t.Errorf("sqlite %+v, sqlite per-op %+v, file %+v", fps[0], fps[1], fps[2])
	}
}

func TestSharedFlags(t *testing.T) {
	// Two workloads bind the same flags in one flag set; one setting
	// reaches both, and the help names both.
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	a, b := DefaultConfig(), DefaultConfig()
	a.Flags(fs, "point", true)
	b.Flags(fs, "load", true)
	if err := fs.Parse([]string{"--dataset", "records", "--dataset-rows", "10M", "--record-size", "100", "--records-seed", "9"}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []Config{a, b} {
		if c.Dataset != "records" || c.Rows != 10_000_000 || c.Size != 100 || c.Seed != 9 {
			t.Errorf("config %+v", c)
		}
	}
	if u := fs.Lookup("dataset").Usage; !strings.HasPrefix(u, "point, load: ") {
		t.Errorf("usage %q", u)
	}
	if err := fs.Parse([]string{"--dataset-rows", "lots"}); err == nil {
		t.Error("a bad count was accepted")
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.Dataset = "ken_all" }, "want postal"},
		{func(c *Config) { c.Rows = -1 }, "--dataset-rows"},
		{func(c *Config) { c.Size = 0 }, "--record-size"},
	} {
		c := DefaultConfig()
		tc.edit(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want %q", err, tc.want)
		}
	}
}

func TestPostalFileRefused(t *testing.T) {
	// A --dataset-file that would load nothing, or other values than
	// kurabe dataset import reports, is refused when the source is opened
	// (before any store is touched), naming the file and line.
	dir := t.TempDir()
	good := `01101,"060  ","0600000","a","b","c","d","e","f",0,0,0,0,0,0` + "\r\n"
	for _, tc := range []struct {
		name, content, want string
	}{
		{"empty", "", "holds no records"},
		{"blank lines only", "\r\n\r\n", "holds no records"},
		// The workloads keep a flag in a byte: 300 would load as 44.
		{"flag above 9", `01101,"060  ","0600000","a","b","c","d","e","f",0,0,0,0,-1,300` + "\r\n" + good, "1: column 14 (update_status)"},
		{"split never closed", good + `01101,"060  ","0600001","a","b","c","d","e","町（一",0,0,0,0,0,0` + "\r\n", "2: the record starting here is incomplete"},
	} {
		path := filepath.Join(dir, tc.name+".csv")
		if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		c := DefaultConfig()
		c.File = path
		_, err := Open(c)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: err = %v, want %q naming the file", tc.name, err, tc.want)
		}
	}
	c := DefaultConfig()
	c.File = filepath.Join(dir, "missing.csv")
	if _, err := Open(c); err == nil || !strings.Contains(err.Error(), "missing.csv") {
		t.Errorf("a missing file: err = %v", err)
	}
}
