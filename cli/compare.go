package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"kurabe/report"
)

// compare prints what changed between two runs: ops/s and p99 per store
// and operation, with a Mann–Whitney U test over repeats. It exits 0
// whatever it finds: a difference is information, not a failure.
func (a *App) compare(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("kurabe compare", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	format := fs.String("format", "text", "table format: text or markdown")
	lang := langFlag(fs)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: kurabe compare OLD.json NEW.json [flags]\n\nFor each store, operation and client level in both runs: old and new ops/s and p99 latency\n(medians over repeats), the change, and whether it is significant (Mann–Whitney\nU test, α=0.05; run with --repeat 4 or more to be able to tell).\n\nFlags:")
		fs.PrintDefaults()
	}
	paths, err := parseInterleaved(fs, args)
	if err != nil {
		return flagsFailed(fs, err, stderr, "kurabe compare -h")
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
	if len(c.Rows) == 0 {
		return usageErr("%s and %s have no store, operation and client level in common (old: %s; new: %s)", paths[0], paths[1],
			strings.Join(c.OnlyOld, ", "), strings.Join(c.OnlyNew, ", "))
	}
	return report.WriteCompare(stdout, c, *format, *lang)
}
