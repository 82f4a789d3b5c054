package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"kurabe/numfmt"
	"kurabe/report"
	"kurabe/store"
)

// clean is kurabe clean: drop the tables kurabe made in a database
// server someone runs (kurabe_meta lists them, and each must still be the
// table kurabe made), then kurabe_meta, then PostgreSQL's kurabe schema
// when kurabe made it and nothing else is in it; say what was dropped and
// what was left, and why.
func (a *App) clean(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var storeSpec string
	var dryRun bool
	fs := flag.NewFlagSet("kurabe clean", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&storeSpec, "store", "", "the server and database to clean, as kurabe run was given it, e.g. postgres://app@db.example/app or mysql://app@db.example/appdb")
	fs.BoolVar(&dryRun, "dry-run", false, "say what would be dropped and left, and change nothing")
	lang := langFlag(fs)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: kurabe clean --store SPEC [--dry-run] [--lang en|ja]

Drops the tables kurabe made in a PostgreSQL or MariaDB/MySQL database:
each table kurabe_meta lists that is still the table kurabe made (its OID,
or the token in its comment), then kurabe_meta once it lists nothing more,
then PostgreSQL's schema kurabe if kurabe made it and nothing else is in
it. A table kurabe did not make is never touched, whatever its name; one
kurabe_meta lists that was made again since is left, and said so. A
MariaDB/MySQL database is never dropped. Exit status 1 when something
kurabe_meta lists was left.

Flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return flagsFailed(fs, err, stderr, "kurabe help clean")
	}
	if fs.NArg() > 0 {
		return usageErr("unexpected argument %q; give the store with --store", fs.Arg(0))
	}
	if err := report.CheckLang(*lang); err != nil {
		return usageErr("--lang: %v", err)
	}
	if storeSpec == "" {
		return usageErr("give the store to clean, e.g. kurabe clean --store postgres://app@db.example/app")
	}
	sp, drv, err := a.storeOf(storeSpec)
	if err != nil {
		return err
	}
	if sp.Throwaway() {
		return usageErr("--store %s: kurabe throws that store away with its tables when it stops; there is nothing to clean", sp)
	}
	// Released after the store closed (defers run last first), so
	// that nothing of it is written once another kurabe may start.
	locks := newStoreLocks("kurabe clean")
	defer locks.release()
	st, err := drv.Open(ctx, sp, store.Env{})
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("store %s: %w", sp, err)}
	}
	defer st.Close()
	cl, ok := st.(store.Cleaner)
	if !ok {
		return usageErr("--store %s: kurabe clean cleans PostgreSQL and MariaDB/MySQL databases; an SQLite file's tables are kurabe_*, a file store's files have a .kurabe marker beside them: remove those yourself", sp)
	}
	if err := locks.take(ctx, st, sp); err != nil {
		return err
	}
	done, err := cl.Clean(ctx, dryRun)
	if err != nil {
		return err
	}
	tr := func(key string, args ...any) string { return report.Sprintf(*lang, key, args...) }
	var b strings.Builder
	b.WriteString(sp.String() + "\n")
	left := 0
	for _, c := range done {
		key := map[store.CleanOutcome]string{
			store.CleanDropped:  "clean.dropped",
			store.CleanUnlisted: "clean.unlisted",
			store.CleanReplaced: "clean.replaced",
			store.CleanUnproven: "clean.unproven",
			store.CleanListKept: "clean.listkept",
			store.CleanNotMade:  "clean.notmade",
			store.CleanNotEmpty: "clean.notempty",
			store.CleanNothing:  "clean.nothing",
		}[c.Outcome]
		if dryRun && (c.Outcome == store.CleanDropped || c.Outcome == store.CleanUnlisted) {
			key += ".dry"
		}
		b.WriteString("  " + tr(key, c.Name) + "\n")
		if c.Outcome == store.CleanReplaced || c.Outcome == store.CleanUnproven {
			left++
		}
	}
	if dryRun {
		b.WriteString(tr("clean.dry") + "\n")
	}
	if _, err := io.WriteString(stdout, b.String()); err != nil {
		return err
	}
	if left > 0 {
		return &ExitError{Code: ExitFailed, Err: errors.New("clean left " + numfmt.Count(int64(left), "table", "tables") + " that kurabe_meta lists but kurabe did not make (said above); look at them and drop them yourself if they may go")}
	}
	return nil
}
