package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"kurabe/dataset/postal"
	"kurabe/dataset/records"
	"kurabe/numfmt"
	"kurabe/report"
	"kurabe/store"
)

// dataset is kurabe dataset: what data sets kurabe has, and importing
// Japan Post's KEN_ALL.CSV (checked, split rows joined, optionally loaded
// into a store's postal table).
func (a *App) dataset(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "list" {
		if len(args) > 1 && helpWord(args[1]) {
			fmt.Fprint(stdout, datasetUsage)
			return nil
		}
		if len(args) > 1 {
			return usageErr("dataset list takes no arguments; to import a file: kurabe dataset import FILE")
		}
		datasetList(stdout)
		return nil
	}
	switch args[0] {
	case "import":
		return a.datasetImport(ctx, args[1:], stdout, stderr)
	}
	if helpWord(args[0]) {
		fmt.Fprint(stdout, datasetUsage)
		return nil
	}
	if name, _, _ := strings.Cut(strings.TrimLeft(args[0], "-"), "="); strings.HasPrefix(args[0], "-") {
		if name == "lang" {
			return usageErr("--lang: kurabe dataset takes no --lang, as it writes English only; leave --lang out (the flags of kurabe dataset import are --store, --rows, --skip-bad and --max-errors)")
		}
		return usageErr("%s is a flag, not a subcommand: flags come after the subcommand, e.g. kurabe dataset import FILE %s (kurabe dataset -h)", args[0], args[0])
	}
	return usageErr("unknown dataset subcommand %q; use list or import (kurabe dataset -h)", args[0])
}

const datasetUsage = `Usage:
  kurabe dataset [list]            the data sets workloads can use
  kurabe dataset import FILE [--store SPEC] [--rows N] [--skip-bad]
                        [--max-errors N]
                                   check Japan Post's KEN_ALL.CSV (CP932 or
                                   UTF-8, plain, .gz or ken_all.zip), join its
                                   split rows, and load it into a store's
                                   postal table

A checked file is used by the workloads with --dataset-file FILE; point and
range run on a store an import loaded use the imported records.
`

// helpWord says whether an argument asks for help.
func helpWord(s string) bool { return s == "-h" || s == "--help" || s == "-help" || s == "help" }

func datasetList(w io.Writer) {
	fmt.Fprintf(w, `postal   Japan Post's postal codes: %s records (from 120,998 rows of KEN_ALL.CSV,
         long town names joined), 15 columns, indexes on code and old_code.
         Shipped with kurabe; --dataset-file FILE reads a newer KEN_ALL.CSV.
         Used by: load, point, range (and kurabe serve's postal APIs).
records  fixed-size rows of random base64url text (default %d bytes, as in
         the page-size study), any count (--dataset-rows 10M), generated from
         --records-seed, streamed. Used by: load and point (--dataset records), and
         crud, which always uses it.
posts    message-board posts (id, category, text, created). Used by: bbs, which
         can pre-fill the board before measuring (--prefill N).
`, numfmt.Group(postalRecords), records.DefaultSize)
}

// postalRecords is the shipped data set's record count, as its tests check.
const postalRecords = 120_720

func (a *App) datasetImport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var (
		storeSpec string
		rows      records.RowCount
		skipBad   bool
		maxErrs   int
	)
	fs := flag.NewFlagSet("kurabe dataset import", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&storeSpec, "store", "", "also load the records into this store's postal table, e.g. sqlite:/tmp/postal.db or postgres://user@127.0.0.1/app (kurabe's own table; made anew)")
	fs.Var(&rows, "rows", "load only the first N records (default all)")
	fs.BoolVar(&skipBad, "skip-bad", false, "load the good records of a file with malformed rows (by default nothing is loaded then)")
	fs.IntVar(&maxErrs, "max-errors", 20, "reported rows (malformed, or part of an incomplete record) listed in full")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: kurabe dataset import FILE [flags]\n\nReads Japan Post's KEN_ALL.CSV (CP932 as published, or UTF-8; plain,\ngzip-compressed, or the ken_all.zip it comes in), joins each town name continued over several rows back\ninto one record, and reports rows, records, rows joined and every malformed\nrow with its line. With --store it loads the records into the store.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	var file string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		file, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return flagsFailed(fs, err, stderr, "kurabe help dataset")
	}
	if file == "" && fs.NArg() > 0 {
		file = fs.Arg(0)
		if fs.NArg() > 1 {
			return usageErr("unexpected argument %q; import takes one file", fs.Arg(1))
		}
	} else if fs.NArg() > 0 {
		return usageErr("unexpected argument %q; import takes one file", fs.Arg(0))
	}
	if file == "" {
		return usageErr("give the file to import, e.g. kurabe dataset import KEN_ALL.CSV")
	}
	if fi, err := os.Stat(file); err == nil && fi.IsDir() {
		return usageErr("%s is a directory; give Japan Post's KEN_ALL.CSV file (plain, .gz, or ken_all.zip)", file)
	}
	if maxErrs < 0 {
		return usageErr("--max-errors %d: want 0 or more", maxErrs)
	}
	if storeSpec == "" && (rows > 0 || skipBad) {
		return usageErr("--rows and --skip-bad say what to load: they apply with --store")
	}

	// Open the store before reading, so a bad spec fails at once.
	var st store.Store
	if storeSpec != "" {
		sp, drv, err := a.storeOf(storeSpec)
		if err != nil {
			return err
		}
		if sp.Throwaway() {
			return usageErr("--store %s: an import into a store kurabe would throw away at exit is lost; give a path or an address, e.g. %s", sp, importExample(sp.Driver))
		}
		// Released after the store closed (defers run last first), so
		// that nothing of it is written once another kurabe may start.
		locks := newStoreLocks("kurabe dataset import")
		defer locks.release()
		if st, err = drv.Open(ctx, sp, store.Env{}); err != nil {
			return &ExitError{Code: ExitUsage, Err: fmt.Errorf("store %s: %w", sp, err)}
		}
		defer st.Close()
		if err := locks.take(ctx, st, sp); err != nil {
			return err
		}
	}

	// First pass: check the whole file.
	r, closer, err := postal.OpenFile(file)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	t := postal.Table()
	var name string
	if st != nil {
		name = store.TableName(st, t)
		setStopped("stopped at once, before loading: the " + name + " table holds what it held before")
	}
	t0 := time.Now()
	var (
		n, bad int
		errs   []error
		first  error // the first row reported
	)
	for {
		if r.Next() {
			if n++; n%4096 == 0 && ctx.Err() != nil {
				// A Ctrl-C while the file is checked: nothing was
				// loaded yet.
				closer.Close()
				what := "nothing was loaded"
				if st != nil {
					what = kept(st, t, name, false)
				}
				return &ExitError{Code: ExitInterrupted, Err: fmt.Errorf("interrupted while checking %s, after %s; %s", file, numfmt.Count(int64(n), "record", "records"), what)}
			}
			continue
		}
		e := r.Err()
		if e == nil {
			break
		}
		var se *postal.SyntaxError
		if !errors.As(e, &se) {
			// A file that cannot be read through (cut short, damaged) is
			// bad input, as kurabe run --dataset-file says (exit 2).
			closer.Close()
			return &ExitError{Code: ExitUsage, Err: e}
		}
		if bad++; bad == 1 {
			first = e
		}
		if len(errs) < maxErrs {
			errs = append(errs, e)
		}
	}
	if r.Rows() == 0 && n == 0 && bad > 0 {
		// Refused before any row was read (an archive, a database,
		// UTF-16): no rows, no encoding to describe, one line says why.
		closer.Close()
		return &ExitError{Code: ExitUsage, Err: first}
	}
	var fp postal.Fingerprint
	if bad == 0 || st != nil {
		fp, _, err = r.Fingerprint()
		if err != nil {
			closer.Close()
			return &ExitError{Code: ExitUsage, Err: err}
		}
	}
	closer.Close()
	if r.Rows() == 0 && bad == 0 {
		// Nothing to describe: no encoding was seen, no row read.
		return usageErr("%s is empty: it holds no rows, so no records; give Japan Post's KEN_ALL.CSV (or its .gz)", file)
	}
	fmt.Fprintf(stdout, "%s: %s · %s rows → %s records (%s continuation rows joined into their records) · read in %s\n",
		r.File(), r.Encoding(), numfmt.Group(int64(r.Rows())), numfmt.Group(int64(n)),
		numfmt.Group(int64(r.Joined())), took(time.Since(t0)))
	for _, e := range errs {
		fmt.Fprintln(stdout, "  "+e.Error())
	}
	if bad > len(errs) {
		fmt.Fprintf(stdout, "  … and %s reported (--max-errors to list them)\n", numfmt.Count(int64(bad-len(errs)), "more row", "more rows"))
	}
	if n == 0 {
		return usageErr("%s holds no records (%s rows read, %s malformed); give Japan Post's KEN_ALL.CSV", file, numfmt.Group(int64(r.Rows())), numfmt.Group(int64(bad)))
	}
	if bad > 0 && !(skipBad && st != nil) {
		what := "fix them, or add --skip-bad with --store to load the good records"
		if st != nil {
			what = "nothing was loaded; " + what
		}
		return fmt.Errorf("%s: %s reported (malformed, or part of an incomplete record); %s", file, numfmt.Count(int64(bad), "row", "rows"), what)
	}
	if st == nil {
		fmt.Fprintf(stdout, "ok: run workloads on it with --dataset-file %s\n", file)
		return nil
	}

	// Second pass: load.
	if r, closer, err = postal.OpenFile(file); err != nil {
		return err
	}
	defer closer.Close()
	t0 = time.Now()
	want := int64(n)
	if rows > 0 && int64(rows) < want {
		want = int64(rows)
	}
	var how string
	if _, ok := st.(store.Swapper); ok {
		setStopped(fmt.Sprintf("stopped at once; the import was not finished: the %s table holds what it held before, and the staging table %s may be left beside it (the next import replaces it)", name, store.TableName(st, store.Staged(t))))
	} else {
		setStopped("stopped at once; the import was not finished: the " + name + " table is incomplete")
	}
	swapping := false // the load is whole and being swapped in
	loaded, atomic, err := store.Replace(ctx, st, t, func(into *store.Table) (int64, error) {
		var loaded int64
		var err error
		loaded, how, err = postal.LoadStore(ctx, st, into, r, want)
		if err == nil && loaded != want {
			err = fmt.Errorf("the file gave %d records on the second reading, %d on the first (changed while importing?): %v", loaded, want, r.Err())
		}
		if err == nil && into != t {
			// Loaded into the staging table, which is now swapped in
			// whole or not at all.
			swapping = true
			setStopped(fmt.Sprintf("stopped at once while the import swapped its table in: the %s table holds what it held before or all %s loaded, not a part", name, numfmt.Count(loaded, "record", "records")))
		}
		return loaded, err
	})
	if err == nil {
		setStopped(fmt.Sprintf("stopped at once, after the import: the %s table holds the %s loaded", name, numfmt.Count(loaded, "record", "records")))
	}
	if err != nil {
		state := "the " + name + " table is incomplete"
		if atomic {
			// A swap refused for a table kurabe may not touch (the
			// user's postal_old in its way) is refused before it
			// changes anything: the table is as it was.
			state = kept(st, t, name, swapping && !errors.Is(err, store.ErrNotOwned))
		}
		if ctx.Err() != nil {
			// A load in one transaction (a bulk path) stops with none
			// of it stored.
			after := "after " + numfmt.Count(loaded, "record", "records")
			if loaded == 0 {
				after = "before any record was stored"
			}
			return &ExitError{Code: ExitInterrupted, Err: fmt.Errorf("import interrupted %s; %s", after, state)}
		}
		return fmt.Errorf("loading %s after %s: %w; %s", file, numfmt.Count(loaded, "record", "records"), err, state)
	}
	el := time.Since(t0)
	count, err := st.Count(ctx, t)
	if err != nil {
		return fmt.Errorf("counting the %s table: %w", name, err)
	}
	info := st.Info(ctx)
	fmt.Fprintf(stdout, "loaded %s records into %s %s table %s (%s) in %s, %s rows/s\n",
		numfmt.Group(loaded), info.Driver, info.Target, name, how, took(el),
		numfmt.GroupFloat(float64(loaded)/max(el.Seconds(), 1e-9)))
	if count != loaded {
		return fmt.Errorf("LOST: the store acknowledged %d records and holds %d", loaded, count)
	}
	if !postal.Records(st) {
		fmt.Fprintf(stdout, "the file store keeps no record of an import: a workload run on it loads its own data set into %s (the shipped one, or --dataset-file %s)\n", name, file)
		return nil
	}
	if err := postal.SaveImport(ctx, st, postal.Import{Fingerprint: fp, Records: loaded, At: time.Now()}); err != nil {
		return fmt.Errorf("the records are loaded, but recording the import in %s failed: %w; a workload run on the store would load the shipped data set in their place (run the import again)", store.TableName(st, postal.ImportTable()), err)
	}
	fmt.Fprintf(stdout, "workloads run on this store (point, range) use these records, recorded in %s; --dataset-file FILE loads another file in their place\n", store.TableName(st, postal.ImportTable()))
	return nil
}

// kept says what a table holds after a load that was to be swapped in at
// the end failed or was cut short, counted again: what it held before, or,
// when the swap itself failed (swapping), that or every record loaded,
// since the swap may have failed before its one step or after it (a store
// whose swap takes several, dropping the old table last).
func kept(st store.Store, t *store.Table, name string, swapping bool) string {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n, err := st.Count(ctx, t)
	switch {
	case swapping && err != nil:
		return "the " + name + " table holds what it held before or every record loaded, not a part"
	case swapping:
		return fmt.Sprintf("the %s table holds %s, what it held before or every record loaded, not a part", name, numfmt.Count(n, "record", "records"))
	case err != nil:
		return "nothing was changed: the " + name + " table, if there was one, is as it was"
	}
	return fmt.Sprintf("nothing was changed: the %s table holds the %s it held before", name, numfmt.Count(n, "record", "records"))
}

// took writes how long something took as kurabe's tables write times,
// to about three significant digits: 95.0µs, 2.35ms, 350ms, 2.68s, where
// rounding to the millisecond wrote a quick read or load as 0s beside a
// rate of tens of thousands of rows a second.
func took(d time.Duration) string { return report.Duration(d) }

func importExample(driver string) string {
	switch driver {
	case "postgres":
		return "postgres://user@127.0.0.1:5432/app"
	case "mysql", "mariadb":
		return driver + "://user@127.0.0.1:3306/app"
	}
	return driver + ":/tmp/postal." + map[bool]string{true: "db", false: "txt"}[driver == "sqlite"]
}
