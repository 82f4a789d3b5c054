package cli

import (
	"archive/zip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"kurabe/dataset/postal"
	"kurabe/result"
)

// readDoc reads a result document a run wrote with --json.
func readDoc(t *testing.T, path string) *result.Document {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var d result.Document
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	return &d
}

// A workload run on a store whose postal table kurabe dataset import
// loaded uses those records, says so, and leaves them there; with
// --isolate each client's table gets a copy. --dataset-file and -w load
// load their own data set in its place, and say so. Before, a run
// silently replaced the imported table with the shipped 120,720 records.
func TestRunUsesTheImportedTable(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "imp.db")
	spec := "sqlite:" + db
	out, errs, code := runCLI(t, testApp(), "dataset", "import", sampleKenAll, "--store", spec, "--rows", "700")
	if code != ExitOK || !strings.Contains(out, "workloads run on this store (point, range) use these records") {
		t.Fatalf("import: exit %d\n%s%s", code, out, errs)
	}
	count := func() int64 {
		n, err := openSQLite(t, db).Count(context.Background(), postal.Table())
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	recorded := func() bool {
		imp, holds, err := postal.FindImport(context.Background(), openSQLite(t, db))
		return err == nil && imp != nil && holds
	}
	const said = "data set: imported from ken_all_sample.csv, 700 records"

	js := filepath.Join(dir, "point.json")
	out, errs, code = runCLI(t, testApp(), "run", "-q", "-w", "point", "--store", spec, "-n", "50", "--json", js)
	if code != ExitOK || !strings.Contains(out, said) || !strings.Contains(out, "data set loaded: 700 rows") {
		t.Fatalf("point on the imported store: exit %d\n%s%s", code, out, errs)
	}
	if p := readDoc(t, js).Run.Params; p["rows"] != "700" || p["dataset_import"] != sampleKenAll || len(p["dataset_file_sha256"]) != 64 {
		t.Errorf("params %v; want the import's 700 rows, file and SHA-256", p)
	}
	if n := count(); n != 700 || !recorded() {
		t.Fatalf("after the run the table holds %d records (import recorded: %v); want the 700 imported", n, recorded())
	}

	out, errs, code = runCLI(t, testApp(), "run", "-q", "-w", "point", "--isolate", "-c", "2", "--store", spec, "-n", "20")
	if code != ExitOK || !strings.Contains(out, said) || !strings.Contains(out, "700 rows in each of 2 tables") {
		t.Fatalf("point --isolate on the imported store: exit %d\n%s%s", code, out, errs)
	}
	if n := count(); n != 700 || !recorded() {
		t.Fatalf("after --isolate the table holds %d records; want the 700 imported, untouched", n)
	}

	out, errs, code = runCLI(t, testApp(), "run", "-q", "-w", "range", "--records", "1,1000", "--store", spec, "-n", "5")
	if code != ExitFailed || !strings.Contains(out, "more than the 700 that the import of "+sampleKenAll+" in kurabe_postal holds") {
		t.Fatalf("range reading more than the import holds: exit %d\n%s%s", code, out, errs)
	}

	out, errs, code = runCLI(t, testApp(), "run", "-q", "-w", "point", "--store", spec, "-n", "20", "--dataset-file", sampleKenAll)
	if code != ExitOK || !strings.Contains(out, "kurabe_postal held the import of "+sampleKenAll+" (700 records); this run loaded "+sampleKenAll+" (1,996 records) into it in its place (--dataset-file)") {
		t.Fatalf("point --dataset-file on the imported store: exit %d\n%s%s", code, out, errs)
	}
	if n := count(); n != 1996 || recorded() {
		t.Fatalf("after --dataset-file: %d records, import still recorded: %v", n, recorded())
	}

	if _, errs, code := runCLI(t, testApp(), "dataset", "import", sampleKenAll, "--store", spec, "--rows", "700"); code != ExitOK {
		t.Fatalf("import again: %s", errs)
	}
	out, errs, code = runCLI(t, testApp(), "run", "-q", "-w", "load", "--ops", "bulk", "--dataset-rows", "900", "--store", spec)
	if code != ExitOK || !strings.Contains(out, "(-w load loads its own data set), so the import's record was dropped") {
		t.Fatalf("load on the imported store: exit %d\n%s%s", code, out, errs)
	}
	if recorded() {
		t.Fatal("the import is still recorded after -w load replaced the table")
	}
}

// writeZip writes a ZIP archive of the named files' contents.
func writeZip(t *testing.T, path string, members map[string]string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for _, name := range slices.Sorted(maps.Keys(members)) {
		raw, err := os.ReadFile(members[name])
		if err != nil {
			t.Fatal(err)
		}
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(raw)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// Japan Post's ken_all.zip is read as it is published: its one .CSV.
// An archive of several is refused, naming them; other archives are named
// with what to do. A file refused before any row has no summary line.
// Before, a ZIP read as "not text · 0 rows → 0 records".
func TestDatasetImportReadsKenAllZip(t *testing.T) {
	dir := t.TempDir()
	one := filepath.Join(dir, "ken_all.zip")
	writeZip(t, one, map[string]string{"KEN_ALL.CSV": sampleKenAll})
	db := filepath.Join(dir, "p.db")
	out, errs, code := runCLI(t, testApp(), "dataset", "import", one, "--store", "sqlite:"+db)
	if code != ExitOK || !strings.Contains(out, one+"/KEN_ALL.CSV: CP932 · 2,000 rows → 1,996 records") || !strings.Contains(out, "loaded 1,996 records") {
		t.Fatalf("ken_all.zip: exit %d\n%s%s", code, out, errs)
	}
	out, errs, code = runCLI(t, testApp(), "run", "-q", "-w", "point", "--store", "sqlite:", "--dir", dir, "--dataset-file", one, "-n", "10")
	if code != ExitOK || !strings.Contains(out, "data set loaded: 1,996 rows") {
		t.Fatalf("--dataset-file ken_all.zip: exit %d\n%s%s", code, out, errs)
	}

	two := filepath.Join(dir, "two.zip")
	writeZip(t, two, map[string]string{"KEN_ALL.CSV": sampleKenAll, "JIGYOSYO.CSV": sampleKenAll})
	tarred := filepath.Join(dir, "ken_all.tar")
	head := make([]byte, 1024)
	copy(head[257:], "ustar")
	if err := os.WriteFile(tarred, head, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ file, want string }{
		{two, "is a ZIP archive with 2 .CSV files (JIGYOSYO.CSV, KEN_ALL.CSV)"},
		{tarred, "this is a tar archive, not a text file; extract it (tar xf " + tarred + ")"},
		{db, "this is an SQLite database, not a text file"},
	} {
		for _, args := range [][]string{{"dataset", "import", c.file}, {"run", "-w", "point", "--store", "sqlite:", "--dir", dir, "--dataset-file", c.file}} {
			out, errs, code := runCLI(t, testApp(), args...)
			if code != ExitUsage || !strings.Contains(errs, c.want) || strings.Contains(out, "0 rows") || strings.Contains(errs, "lists every bad row") {
				t.Errorf("%v: exit %d\n%s%s", args, code, out, errs)
			}
			if args[0] == "dataset" && out != "" {
				t.Errorf("%v: a summary of a file refused before any row: %q", args, out)
			}
		}
	}
}

// Japan Post's file is KEN_ALL.CSV every month: a run records the path as
// given, the size and the SHA-256, and compare shows two months apart.
// Before, only the name was recorded and compare saw no difference.
func TestDatasetFileIsToldApartFromAnotherOfItsName(t *testing.T) {
	dir := t.TempDir()
	raw, err := os.ReadFile(sampleKenAll)
	if err != nil {
		t.Fatal(err)
	}
	var docs []string
	for i, body := range [][]byte{raw, raw[:len(raw)/2]} {
		month := filepath.Join(dir, []string{"2024-01", "2024-02"}[i])
		os.Mkdir(month, 0o755)
		file := filepath.Join(month, "KEN_ALL.CSV")
		if err := os.WriteFile(file, body[:strings.LastIndex(string(body), "\r\n")+2], 0o644); err != nil {
			t.Fatal(err)
		}
		js := filepath.Join(dir, []string{"a.json", "b.json"}[i])
		if out, errs, code := runCLI(t, testApp(), "run", "-q", "-w", "point", "--store", "sqlite:", "--dir", dir, "--dataset-file", file, "--dataset-rows", "500", "-n", "10", "--json", js); code != ExitOK {
			t.Fatalf("exit %d\n%s%s", code, out, errs)
		}
		whole, _ := os.ReadFile(file)
		sum := sha256.Sum256(whole)
		if p := readDoc(t, js).Run.Params; p["dataset_file"] != file || p["dataset_file_sha256"] != hex.EncodeToString(sum[:]) || p["dataset_file_bytes"] != strconv.Itoa(len(whole)) {
			t.Errorf("params %v; want %s with its size %d and SHA-256 %x (of the whole file, though only 500 records were read)", p, file, len(whole), sum)
		}
		docs = append(docs, js)
	}
	out, errs, code := runCLI(t, testApp(), "compare", docs[0], docs[1])
	if code == ExitUsage || !strings.Contains(out, "dataset_file_sha256") {
		t.Errorf("compare does not show the files differ: exit %d\n%s%s", code, out, errs)
	}
}

// The messages the tester found wrong.
func TestDatasetMessages(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.csv")
	row := `01101,"060  ","06000XX","ﾎｯｶｲﾄﾞｳ","ｻｯﾎﾟﾛｼﾁｭｳｵｳｸ","ｲｶﾆｹｲｻｲｶﾞﾅｲﾊﾞｱｲ","北海道","札幌市中央区","以下",0,0,0,0,0,0` + "\r\n"
	if err := os.WriteFile(bad, []byte(strings.Repeat(row, 2000)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		want string
		not  string
	}{
		// import has no shipped data set to fall back on.
		{"missing file", []string{"dataset", "import", filepath.Join(dir, "nosuch.csv")}, "no such file", "shipped"},
		// a workload has.
		{"missing file for a workload", []string{"run", "-w", "point", "--store", "sqlite:", "--dir", dir, "--dataset-file", filepath.Join(dir, "nosuch.csv")}, "or leave out --dataset-file for the shipped data set", ""},
		{"--lang before the subcommand", []string{"dataset", "--lang", "ja"}, "takes no --lang", "unknown dataset subcommand"},
		{"a flag before the subcommand", []string{"dataset", "--store", "sqlite:/tmp/x.db", "import"}, "--store is a flag, not a subcommand: flags come after the subcommand", "unknown dataset subcommand"},
		{"all malformed", []string{"dataset", "import", bad}, "(2,000 rows read, 2,000 malformed)", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, errs, code := runCLI(t, testApp(), c.args...)
			if code != ExitUsage || !strings.Contains(errs, c.want) || (c.not != "" && strings.Contains(errs, c.not)) {
				t.Errorf("exit %d: %s; want %q, not %q", code, errs, c.want, c.not)
			}
		})
	}
	if out, _, code := runCLI(t, testApp(), "dataset", "-h"); code != ExitOK || !strings.Contains(out, "Usage:") {
		t.Errorf("dataset -h: exit %d %q", code, out)
	}
}
