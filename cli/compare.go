package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"kurabe/report"
)

// compare prints what changed between two runs: ops/s and p99 per store
// and operation, with a Mann–Whitney U test over repeats. A difference is
// information, not a failure: it exits 0 whatever it finds among what the
// runs share. A store that failed in either run has no figures there to
// compare, which is said under the tables and fails compare (status 1,
// as kurabe run's for a failed store), so a script comparing a fresh run
// against a baseline does not pass over it.
func (a *App) compare(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("kurabe compare", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	format := fs.String("format", "text", "table format: text or markdown")
	lang := langFlag(fs)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: kurabe compare OLD.json NEW.json [flags]\n\nFor each store, operation and client level in both runs: old and new ops/s and p99 latency\n(medians over repeats), the change, and whether it is significant (Mann–Whitney\nU test, α=0.05; run with --repeat 4 or more to be able to tell).\nExits 0 whatever changed, 1 when a store failed in either run (it is not\ncompared), 2 on bad input.\n\nFlags:")
		fs.PrintDefaults()
	}
	paths, err := parseInterleaved(fs, args)
	if err != nil {
		return flagsFailed(fs, err, stderr, "kurabe help compare")
	}
	if len(paths) != 2 {
		return usageErr("compare takes two results, OLD.json NEW.json; got %d", len(paths))
	}
	if *format != "text" && *format != "markdown" {
		return usageErr("unknown --format %q; choose from text, markdown", *format)
	}
	if err := report.CheckLang(*lang); err != nil {
		return usageErr("--lang: %v", err)
	}
	docs, err := readDocs(paths)
	if err != nil {
		return err
	}
	c := report.Compare(docs[0], docs[1])
	failed := func() error {
		var fs []string
		for _, f := range c.FailedOld {
			fs = append(fs, fmt.Sprintf("store %s failed in the old run (%s), so it was not compared: %s", f.Store, paths[0], f.Error))
		}
		for _, f := range c.FailedNew {
			fs = append(fs, fmt.Sprintf("store %s failed in the new run (%s), so it was not compared: %s", f.Store, paths[1], f.Error))
		}
		return &ExitError{Code: ExitFailed, Err: errors.New(strings.Join(fs, "; "))}
	}
	if len(c.Rows) == 0 {
		if c.Failed() {
			return failed()
		}
		return usageErr("%s and %s have no store, operation and client level in common (old: %s; new: %s)", paths[0], paths[1],
			strings.Join(c.OnlyOld, ", "), strings.Join(c.OnlyNew, ", "))
	}
	if err := report.WriteCompare(stdout, c, *format, *lang); err != nil {
		return err
	}
	if c.Failed() {
		return failed()
	}
	return nil
}
