package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"kurabe/probe"
	"kurabe/result"
)

// probe is kurabe probe: the disk's sequential MB/s and fsync'd appends
// per second under a directory, printed and optionally kept as JSON for
// later runs to set their figures against.
func (a *App) probe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg := probe.DefaultConfig()
	var jsonOut string
	var maxMiB int64
	fs := flag.NewFlagSet("kurabe probe", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&cfg.Dir, "dir", cfg.Dir, "the `directory` whose disk to probe, the stores' (kurabe run keeps stores given without a path in the temporary directory)")
	durationVar(fs, &cfg.Duration, "duration", cfg.Duration, "the `duration` of each of the three measurements, e.g. 3s, or 3 (seconds)")
	fs.Int64Var(&maxMiB, "max-mib", cfg.MaxBytes>>20, "size limit of the sequential file in MiB (it is also kept under a quarter of the free space)")
	fs.BoolVar(&cfg.Cached, "cached", false, "sequential I/O through the page cache (synced, the cache dropped before reading) even where O_DIRECT works")
	fs.StringVar(&jsonOut, "json", "", "also write the result as JSON to this file")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: kurabe probe [--dir D] [--duration 3s] [--max-mib N] [--cached] [--json FILE]\n\nMeasures the disk under a directory: sequential write and read in MB/s\n(O_DIRECT where the filesystem allows it) and fsync'd 4 KB appends per\nsecond, the ceiling of a store that syncs every commit. The probe's files\nare removed afterwards.\n\nFlags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return flagsFailed(fs, err, stderr, "kurabe help probe")
	}
	if fs.NArg() > 0 {
		return usageErr("unexpected argument %q; give the directory with --dir", fs.Arg(0))
	}
	switch {
	case cfg.Duration <= 0:
		return usageErr("--duration %v: want a positive time per measurement, e.g. 3s", cfg.Duration)
	case maxMiB < 1:
		return usageErr("--max-mib %d: want 1 or more MiB", maxMiB)
	}
	cfg.MaxBytes = maxMiB << 20
	if err := cfg.Validate(); err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	if err := checkWritableDir(cfg.Dir); err != nil {
		return usageErr("--dir %s: %v; choose a writable directory", cfg.Dir, err)
	}
	if err := checkOutputFile(jsonOut); err != nil {
		return usageErr("--json %s: %v", jsonOut, err)
	}
	// A second Ctrl-C ends kurabe before Run removes its files: Abandon
	// removes them then.
	var forget []func()
	cfg.Created = func(path string) { forget = append(forget, removeLater(path)) }
	res, err := probe.Run(ctx, cfg)
	for _, f := range forget {
		f()
	}
	if ctx.Err() != nil {
		return &ExitError{Code: ExitInterrupted, Err: errors.New("interrupted; nothing was measured, and the probe's files were removed")}
	}
	if err != nil {
		return err
	}
	if _, err := io.WriteString(stdout, strings.Join(res.Lines(), "\n")+"\n"); err != nil {
		return err
	}
	if jsonOut != "" {
		b, err := res.Marshal()
		if err != nil {
			return err
		}
		if err := result.WriteAtomic(jsonOut, func(w io.Writer) error { _, err := w.Write(b); return err }); err != nil {
			return err
		}
	}
	if !res.FilesRemoved {
		return &ExitError{Code: ExitFailed, Err: fmt.Errorf("could not remove the probe's files in %s: %s", cfg.Dir, res.RemoveFailure)}
	}
	return nil
}
