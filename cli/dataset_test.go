package cli

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ncruces/go-sqlite3"

	"kurabe/dataset/postal"
	"kurabe/datasets"
	"kurabe/store"
	"kurabe/store/sqlite"
)

const sampleKenAll = "../dataset/postal/testdata/ken_all_sample.csv"

// gzipFile writes a gzip-compressed copy of src under dir.
func gzipFile(t *testing.T, src, dir string) string {
	t.Helper()
	raw, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "KEN_ALL.CSV.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	zw.Write(raw)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return path
}

func openSQLite(t *testing.T, path string) store.Store {
	t.Helper()
	sp, err := store.ParseSpec("sqlite:" + path)
	if err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(context.Background(), sp, store.Env{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// The import of the shared sample (CP932 as Japan Post publishes it, here
// gzip-compressed) yields its 1,996 records with the 4 continuation rows
// joined, and the store holds exactly the records the reader gives, row
// for row, in key order.
func TestDatasetImportLoadsEveryRecordJoined(t *testing.T) {
	dir := t.TempDir()
	gz := gzipFile(t, sampleKenAll, dir)
	db := filepath.Join(dir, "postal.db")
	out, errs, code := runCLI(t, testApp(), "dataset", "import", gz, "--store", "sqlite:"+db)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	for _, want := range []string{"CP932", "2,000 rows → 1,996 records (4 continuation rows joined", "loaded 1,996 records into sqlite"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	st := openSQLite(t, db)
	ctx := context.Background()
	tbl := postal.Table()
	if n, err := st.Count(ctx, tbl); err != nil || n != 1996 {
		t.Fatalf("count = %d, %v; want 1996", n, err)
	}
	f, err := os.Open(sampleKenAll)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd := postal.NewReader(f, sampleKenAll)
	s, err := st.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var id int64
	longest := 0
	_, err = s.Scan(ctx, tbl, store.Query{}, func(r store.Row) error {
		id++
		if !rd.Next() {
			t.Fatalf("the store has more rows than the file has records (row %d)", id)
		}
		rec := rd.Record()
		if r[0].Int != id {
			t.Fatalf("row %d has key %d", id, r[0].Int)
		}
		if got := string(r[1+2].Text); got != rec.Code() {
			t.Fatalf("row %d: code %q, want %q", id, got, rec.Code())
		}
		if got, want := string(r[1+8].Text), rec.Fields[8]; got != want {
			t.Fatalf("row %d: town %q, want %q", id, got, want)
		}
		longest = max(longest, len(r[1+8].Text))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if id != 1996 {
		t.Fatalf("scanned %d rows", id)
	}
	// A joined town name is longer than one row of the file holds.
	if longest < 100 {
		t.Errorf("the longest town is %d bytes; the joined names are missing", longest)
	}
}

// A file with a malformed row is named with its line; nothing is loaded
// unless --skip-bad, which loads the good records only.
func TestDatasetImportMalformedRows(t *testing.T) {
	dir := t.TempDir()
	good := `01101,"060  ","0600000","ﾎｯｶｲﾄﾞｳ","ｻｯﾎﾟﾛｼﾁｭｳｵｳｸ","ｲｶﾆｹｲｻｲｶﾞﾅｲﾊﾞｱｲ","北海道","札幌市中央区","以下に掲載がない場合",0,0,0,0,0,0` + "\r\n"
	bad := `01101,"064  ","06409XX","ﾎｯｶｲﾄﾞｳ","ｻｯﾎﾟﾛｼﾁｭｳｵｳｸ","ｱｻﾋｶﾞｵｶ","北海道","札幌市中央区","旭ケ丘",0,0,1,0,0,0` + "\r\n"
	csv := filepath.Join(dir, "bad.csv")
	if err := os.WriteFile(csv, []byte(good+bad+good), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "p.db")

	out, errs, code := runCLI(t, testApp(), "dataset", "import", csv, "--store", "sqlite:"+db)
	if code != ExitFailed || !strings.Contains(out, "bad.csv:2:") || !strings.Contains(errs, "nothing was loaded") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	if n, err := openSQLite(t, db).Count(context.Background(), postal.Table()); err == nil && n != 0 {
		t.Fatalf("%d rows loaded from a file with a bad row", n)
	}

	out, errs, code = runCLI(t, testApp(), "dataset", "import", csv, "--store", "sqlite:"+db, "--skip-bad")
	if code != ExitOK || !strings.Contains(out, "loaded 2 records") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	if n, err := openSQLite(t, db).Count(context.Background(), postal.Table()); err != nil || n != 2 {
		t.Fatalf("count = %d, %v; want the 2 good records", n, err)
	}
}

// A file that is not text (a database given by mistake) is said to be
// so, at once, and not called CP932. Before, an SQLite database read as
// "CP932 · 3 rows" of "5 columns" and "1 columns, want 15". A text file
// of the wrong shape says "1 column" in the singular.
func TestDatasetImportOfANonTextFile(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "postal.db")
	if _, errs, code := runCLI(t, testApp(), "dataset", "import", sampleKenAll, "--store", "sqlite:"+db); code != ExitOK {
		t.Fatalf("making the database: exit %d, %s", code, errs)
	}
	// Bytes that are neither UTF-8 nor CP932, with no NUL among them.
	noise := filepath.Join(dir, "noise.bin")
	if err := os.WriteFile(noise, bytes.Repeat([]byte{0xfd, 0x80, 0xa0, 0xff, 'x'}, 400), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ file, want string }{
		{db, "it has NUL bytes in its first KiB"},
		{noise, "its first KiB is neither UTF-8 nor CP932"},
	} {
		out, errs, code := runCLI(t, testApp(), "dataset", "import", c.file)
		if code != ExitUsage || !strings.Contains(out, filepath.Base(c.file)+":1: not a text file: "+c.want) || strings.Count(out, "\n") != 2 ||
			!strings.Contains(out, ": not text · ") || strings.Contains(out, "CP932 ·") || strings.Contains(out, "columns") || !strings.Contains(errs, "holds no rows kurabe can read") {
			t.Errorf("%s: exit %d\n%s%s", c.file, code, out, errs)
		}
	}
	one := filepath.Join(dir, "one.csv")
	if err := os.WriteFile(one, []byte("abc\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, errs, code := runCLI(t, testApp(), "dataset", "import", one); code != ExitUsage || !strings.Contains(out, "one.csv:1: 1 column, want 15") {
		t.Errorf("one column: exit %d\n%s%s", code, out, errs)
	}
}

// What a second Ctrl-C would say is true at each stage of an import: while
// the new records go into the staging table the table holds what it held
// before, and after the import all of them. Before, it said "writing no
// results (no table, JSON or HTML)", which an import never writes.
func TestSecondInterruptSaysWhatTheImportLeft(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "postal.db")
	// In WAL mode, so that the counts here are not locked out by the
	// import's transaction.
	spec := "sqlite:" + db + "?journal_mode=wal"
	if _, errs, code := runCLI(t, testApp(), "dataset", "import", sampleKenAll, "--store", spec); code != ExitOK {
		t.Fatalf("the first import: exit %d, %s", code, errs)
	}
	full := filepath.Join(dir, "ken_all.csv.gz")
	if err := os.WriteFile(full, datasets.KenAllGz, 0o644); err != nil {
		t.Fatal(err)
	}
	st := openSQLite(t, db+"?journal_mode=wal")
	name := store.TableName(st, postal.Table())
	done := make(chan error, 1)
	go func() {
		var stdout, stderr bytes.Buffer
		done <- testApp().Run(context.Background(), []string{"dataset", "import", full, "--store", spec}, &stdout, &stderr)
	}()
	loading := 0
	for running := true; running; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			running = false
		case <-time.After(5 * time.Millisecond):
		}
		line := StoppedLine()
		if !strings.Contains(line, "the import was not finished: the "+name+" table holds what it held before") {
			continue
		}
		loading++
		if n, err := st.Count(context.Background(), postal.Table()); err != nil || n != 1996 {
			t.Fatalf("%q while the table holds %d records (%v), not the 1,996 it held before", line, n, err)
		}
	}
	if line := StoppedLine(); loading == 0 || line != "kurabe: stopped at once, after the import: the "+name+" table holds the 120,720 records loaded\n" {
		t.Errorf("said while loading %d times; after: %q", loading, line)
	}
}

func TestDatasetBadInput(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "empty.csv")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// The shipped file cut short, as an interrupted download leaves it.
	truncated := filepath.Join(t.TempDir(), "KEN_ALL.csv.gz")
	if err := os.WriteFile(truncated, datasets.KenAllGz[:20000], 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no file", []string{"dataset", "import"}, "give the file"},
		{"missing file", []string{"dataset", "import", "/nonexistent/KEN_ALL.CSV"}, "no such file"},
		{"empty file", []string{"dataset", "import", empty}, "empty.csv is empty: it holds no rows, so no records; give Japan Post's KEN_ALL.CSV"},
		{"truncated gzip", []string{"dataset", "import", truncated}, "is truncated"},
		{"truncated gzip for a workload", []string{"run", "-w", "point", "--dataset-file", truncated, "--store", "sqlite:", "-n", "1"}, "is truncated"},
		{"throwaway store", []string{"dataset", "import", sampleKenAll, "--store", "sqlite:"}, "give a path"},
		// A server kurabe starts is thrown away at exit too.
		{"managed server", []string{"dataset", "import", sampleKenAll, "--store", "postgres:managed"}, "would throw away at exit is lost"},
		// A directory is bad input, found before reading.
		{"directory", []string{"dataset", "import", os.TempDir()}, "is a directory"},
		{"unknown driver", []string{"dataset", "import", sampleKenAll, "--store", "nosuch:/x"}, "unknown driver"},
		{"two files", []string{"dataset", "import", sampleKenAll, "other.csv"}, "one file"},
		{"subcommand", []string{"dataset", "export"}, "list or import"},
		{"list with an argument", []string{"dataset", "list", "postal"}, "takes no arguments"},
		{"rows without a store", []string{"dataset", "import", sampleKenAll, "--rows", "10"}, "apply with --store"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := runCLI(t, testApp(), tc.args...)
			if code != ExitUsage || !strings.Contains(errs, tc.want) || strings.Count(errs, "\n") != 1 {
				t.Errorf("exit %d, stderr %q; want exit 2 and one line with %q", code, errs, tc.want)
			}
			// An empty file is said to be empty, not described as a
			// file of 0 rows in some encoding.
			if strings.Contains(out, "0 rows") {
				t.Errorf("stdout describes what is not there: %q", out)
			}
		})
	}
}

// A workload reads a user's KEN_ALL file with --dataset-file instead of the
// shipped data set.
func TestDatasetFileFeedsWorkloads(t *testing.T) {
	out, errs, code := runCLI(t, testApp(), "run", "-q", "--store", "sqlite:", "--dir", t.TempDir(),
		"--workload", "point", "--dataset-file", sampleKenAll, "-n", "50")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	if !strings.Contains(out+errs, "1,996 rows") {
		t.Errorf("the sample's 1,996 records were not loaded:\n%s%s", out, errs)
	}
}

// breakingSQLite is a real SQLite store whose bulk load breaks off after
// after rows: by cancelling the command's context (a Ctrl-C) or, with
// cancel nil, by failing.
type breakingSQLite struct {
	*sqlite.Store
	after  int
	cancel context.CancelFunc
}

func (b breakingSQLite) BulkLoad(ctx context.Context, t *store.Table, next func() (store.Row, bool)) (int64, error) {
	n := 0
	return b.Store.BulkLoad(ctx, t, func() (store.Row, bool) {
		if n++; n > b.after {
			if b.cancel == nil {
				return nil, false // the load then says the file gave fewer records
			}
			b.cancel()
		}
		return next()
	})
}

// A re-import that is interrupted (Ctrl-C) or fails part way leaves the
// table with the rows it held before, and says so: the records are loaded
// into a staging table that is swapped in only when whole. Before, the
// table was made anew first and left empty. (The swap on PostgreSQL and
// MariaDB is checked by the conformance suite, store/storetest.)
func TestDatasetReimportCutShortKeepsTheTable(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "p.db")
	out, errs, code := runCLI(t, testApp(), "dataset", "import", sampleKenAll, "--store", "sqlite:"+db, "--rows", "700")
	if code != ExitOK || !strings.Contains(out, "loaded 700 records into sqlite "+db+" table kurabe_postal ") {
		t.Fatalf("first import: exit %d\n%s%s", code, out, errs)
	}
	for _, c := range []struct {
		name      string
		interrupt bool
		code      int
		want      string
	}{
		{"interrupted", true, ExitInterrupted, "import interrupted before any record was stored; nothing was changed: the kurabe_postal table holds the 700 records it held before"}, // SQLite's bulk load is one transaction, rolled back
		{"failed", false, ExitFailed, "nothing was changed: the kurabe_postal table holds the 700 records it held before"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			app := testApp()
			app.Stores = slices.Clone(app.Stores)
			for i := range app.Stores {
				if app.Stores[i].Driver == "sqlite" {
					app.Stores[i].Open = func(ctx context.Context, sp store.Spec, env store.Env) (store.Store, error) {
						st, err := sqlite.Open(ctx, sp, env)
						if err != nil {
							return nil, err
						}
						b := breakingSQLite{Store: st.(*sqlite.Store), after: 1000}
						if c.interrupt {
							b.cancel = cancel
						}
						return b, nil
					}
				}
			}
			var out, errb bytes.Buffer
			err := app.Run(ctx, []string{"dataset", "import", sampleKenAll, "--store", "sqlite:" + db}, &out, &errb)
			var ee *ExitError
			if err == nil || !strings.Contains(err.Error(), c.want) || (c.code != ExitFailed && (!errors.As(err, &ee) || ee.Code != c.code)) {
				t.Fatalf("error %v (exit %+v); want exit %d and %q", err, ee, c.code, c.want)
			}
			st := openSQLite(t, db)
			if n, err := st.Count(context.Background(), postal.Table()); err != nil || n != 700 {
				t.Fatalf("after the cut-short import the table holds %d rows (%v), want the 700 it held", n, err)
			}
			if _, err := st.Count(context.Background(), store.Staged(postal.Table())); err == nil {
				t.Fatal("the staging table was left behind")
			}
		})
	}
}

// A swap refused before it changed anything (a table kurabe may not touch
// in its way) says plainly that nothing was changed, not that the table
// holds "what it held before or every record loaded". Here the user took
// kurabe_postal off kurabe_meta's list, so it is no longer kurabe's.
func TestDatasetRefusedSwapSaysNothingChanged(t *testing.T) {
	db := filepath.Join(t.TempDir(), "postal.db")
	if _, errs, code := runCLI(t, testApp(), "dataset", "import", sampleKenAll, "--store", "sqlite:"+db, "--rows", "700"); code != ExitOK {
		t.Fatalf("first import: exit %d: %s", code, errs)
	}
	c, err := sqlite3.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	err = c.Exec("DELETE FROM kurabe_meta WHERE name = 'kurabe_postal'")
	c.Close()
	if err != nil {
		t.Fatal(err)
	}
	_, errs, code := runCLI(t, testApp(), "dataset", "import", sampleKenAll, "--store", "sqlite:"+db)
	if code != ExitFailed || !strings.Contains(errs, "nothing was changed: the kurabe_postal table holds the 700 records it held before") || strings.Contains(errs, "or every record loaded") {
		t.Fatalf("import refused at the swap: exit %d: %s", code, errs)
	}
}

// The user dropped the kurabe_postal an import made and made a table of
// their own under the name, with their row: kurabe_meta still lists
// kurabe_postal, but the next import refuses the table as not the one
// kurabe made, before it changes anything, and the user's row is still
// there. Before, SQLite knew its tables by name alone, and the import's
// swap dropped the user's table.
func TestDatasetImportRefusesTableMadeAgainByUser(t *testing.T) {
	db := filepath.Join(t.TempDir(), "postal.db")
	if _, errs, code := runCLI(t, testApp(), "dataset", "import", sampleKenAll, "--store", "sqlite:"+db, "--rows", "700"); code != ExitOK {
		t.Fatalf("first import: exit %d: %s", code, errs)
	}
	c, err := sqlite3.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Exec("DROP TABLE kurabe_postal; CREATE TABLE kurabe_postal (id INTEGER PRIMARY KEY, note TEXT); INSERT INTO kurabe_postal VALUES (1, 'keep me')"); err != nil {
		t.Fatal(err)
	}
	_, errs, code := runCLI(t, testApp(), "dataset", "import", sampleKenAll, "--store", "sqlite:"+db)
	if code != ExitFailed || !strings.Contains(errs, "table kurabe_postal in "+db+" exists and was not created by kurabe (kurabe_meta lists a table of that name, but this is not the table kurabe made: it was replaced since)") ||
		!strings.Contains(errs, "nothing was changed") {
		t.Fatalf("import over the user's kurabe_postal: exit %d: %s", code, errs)
	}
	st, _, err := c.Prepare("SELECT group_concat(id || ':' || note) FROM kurabe_postal")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if !st.Step() || st.ColumnText(0) != "1:keep me" {
		t.Fatalf("the user's kurabe_postal holds %q, want only their row", st.ColumnText(0))
	}
}
