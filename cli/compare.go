package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"kurabe/report"
	"kurabe/result"
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
		fmt.Fprintln(fs.Output(), "Usage: kurabe compare OLD.json NEW.json [flags]\n\nFor each store, operation and client level in both runs: old and new ops/s\n(rows/s for two load runs) and p99 latency (medians over repeats), the change,\nand whether it is significant (Mann–Whitney U test, α=0.05; run with --repeat 4\nor more to be able to tell).\nTwo replays (kurabe replay) are compared by each fingerprint's latency\n(mean, p50, p99) and the replay's time, whatever their client counts.\nOLD and NEW may each be a quoted pattern ('old-*.json'): the results it\nmatches are pooled, each run a repeat (kurabe http runs once per result).\nExits 0 whatever changed, 1 when a store failed in either run (it is not\ncompared), 2 on bad input.\n\nFlags:")
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
	var docs []*result.Document
	for i, p := range paths {
		d, err := readPooled(p)
		if err != nil {
			return err
		}
		docs = append(docs, d)
		if matches, _ := filepath.Glob(p); len(matches) > 1 {
			paths[i] = p + " (" + fmt.Sprint(len(matches)) + " results)"
		}
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
		what := "store, operation and client level"
		if c.Replay {
			what = "store and statement fingerprint"
		}
		return usageErr("%s and %s have no %s in common (old: %s; new: %s)", paths[0], paths[1], what,
			listSome(c.OnlyOld), listSome(c.OnlyNew))
	}
	if err := report.WriteCompare(stdout, c, *format, *lang); err != nil {
		return err
	}
	if c.Failed() {
		return failed()
	}
	return nil
}

// readPooled reads the result at path or, when path is a pattern
// ('old-*.json'), every result it matches, pooled into one document whose
// phases are the runs' phases, each run's numbered as further repeats:
// a kurabe http run is one sample, and compare needs 4 a side to test.
// The results must be of one workload; the first one's settings stand
// for all (compare says where the two sides' settings differ).
func readPooled(path string) (*result.Document, error) {
	if !strings.ContainsAny(path, "*?[") {
		docs, err := readDocs([]string{path})
		if err != nil {
			return nil, err
		}
		return docs[0], nil
	}
	matches, err := filepath.Glob(path)
	if err != nil {
		return nil, usageErr("%s: %v", path, err)
	}
	if len(matches) == 0 {
		return nil, usageErr("%s matches no file", path)
	}
	slices.Sort(matches)
	docs, err := readDocs(matches)
	if err != nil {
		return nil, err
	}
	pool := docs[0]
	for i, d := range docs[1:] {
		if d.Run.Workload != pool.Run.Workload {
			return nil, usageErr("%s: %s is workload %s, %s is %s: pool runs of one workload", path, matches[0], pool.Run.Workload, matches[i+1], d.Run.Workload)
		}
		for _, s := range d.Stores {
			j := slices.IndexFunc(pool.Stores, func(p result.Store) bool { return p.Label == s.Label })
			if j < 0 {
				pool.Stores = append(pool.Stores, s)
				continue
			}
			next := 0
			for _, p := range pool.Stores[j].Phases {
				next = max(next, p.Repeat+1)
			}
			for _, p := range s.Phases {
				p.Repeat += next
				pool.Stores[j].Phases = append(pool.Stores[j].Phases, p)
			}
			if pool.Stores[j].Error == "" {
				pool.Stores[j].Error = s.Error
			}
		}
		pool.Interrupted = pool.Interrupted || d.Interrupted
	}
	return pool, nil
}

// listSome lists the first few of names (a replay can have a thousand
// fingerprints), and says so when there are none: a run in which every
// operation failed measured nothing to compare.
func listSome(names []string) string {
	const few = 5
	switch {
	case len(names) == 0:
		return "nothing measured: no operation succeeded"
	case len(names) > few:
		return strings.Join(names[:few], ", ") + fmt.Sprintf(" and %d more", len(names)-few)
	}
	return strings.Join(names, ", ")
}
