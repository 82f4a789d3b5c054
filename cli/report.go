package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"kurabe/report"
	"kurabe/result"
)

// parseInterleaved parses flags that may come before, between or after the
// positional arguments (kurabe report run.json --html r.html), which the
// flag package alone stops at.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// readDocs reads result documents named on the command line.
func readDocs(paths []string) ([]*result.Document, error) {
	var docs []*result.Document
	for _, p := range paths {
		d, err := result.ReadFile(p)
		if _, newer := err.(*result.NewerError); newer {
			return nil, usageErr("%v", err)
		} else if err != nil {
			return nil, usageErr("%v; give a file written by kurabe run --json", err)
		}
		docs = append(docs, d)
	}
	return docs, nil
}

// langFlag is --lang, whose default comes from the locale. Help says
// where it comes from rather than what it is in the shell that asked
// ((default "en") beside "LC_ALL ... chooses" reads as a contradiction).
func langFlag(fs *flag.FlagSet) *string {
	lang := fs.String("lang", report.DefaultLang(os.Getenv), "language of headings, labels and the notes under the tables: "+strings.Join(report.Langs, ", ")+" (default: from LC_ALL, LC_MESSAGES or LANG, the first of them that is set: ja when it starts with ja, else en)")
	fs.Lookup("lang").DefValue = ""
	return lang
}

func (a *App) report(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("kurabe report", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	htmlOut := fs.String("html", "", "write one self-contained HTML report (tables and charts) to this file")
	pngDir := fs.String("png", "", "write each chart as a PNG file into this directory")
	svgDir := fs.String("svg", "", "write each chart as an SVG file into this directory")
	format := fs.String("format", "text", "table format on stdout: "+strings.Join(report.FormatNames(), ", "))
	lang := langFlag(fs)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: kurabe report FILE.json [MORE.json ...] [flags]\n\nRenders result documents written by kurabe run --json: tables on stdout, an\nHTML report, charts as PNG or SVG files. Without --html, --png or --svg it\nprints the text table.\n\nFlags:")
		fs.PrintDefaults()
	}
	paths, err := parseInterleaved(fs, args)
	if err != nil {
		return flagsFailed(fs, err, stderr, "kurabe help report")
	}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	if len(paths) == 0 {
		return usageErr("no result given; kurabe report FILE.json [MORE.json ...], files written by kurabe run --json")
	}
	if err := report.CheckLang(*lang); err != nil {
		return usageErr("--lang: %v", err)
	}
	if _, ok := report.Formats[*format]; !ok {
		return usageErr("unknown --format %q; choose from %s", *format, strings.Join(report.FormatNames(), ", "))
	}
	if err := checkOutputFile(*htmlOut); err != nil {
		return usageErr("--html %s: %v", *htmlOut, err)
	}
	for _, dir := range []struct{ flag, path string }{{"png", *pngDir}, {"svg", *svgDir}} {
		if dir.path == "" {
			continue
		}
		if err := os.MkdirAll(dir.path, 0o755); err != nil {
			return usageErr("--%s %s: %v; choose a writable directory", dir.flag, dir.path, err)
		}
		if err := checkWritableDir(dir.path); err != nil {
			return usageErr("--%s %s: %v; choose a writable directory", dir.flag, dir.path, err)
		}
	}
	docs, err := readDocs(paths)
	if err != nil {
		return err
	}

	files := *htmlOut != "" || *pngDir != "" || *svgDir != ""
	if !files || set["format"] {
		if err := report.WriteTables(stdout, *format, *lang, docs...); err != nil {
			return err
		}
	}
	if *lang == report.Japanese && files && report.JapaneseFont() == "" {
		fmt.Fprintln(stderr, "kurabe: no font with Japanese glyphs found (Debian: apt-get install fonts-noto-cjk); the charts' words stay English")
	}
	if *htmlOut != "" {
		if err := result.WriteAtomic(*htmlOut, func(w io.Writer) error { return report.WriteHTML(w, *lang, docs...) }); err != nil {
			return err
		}
		fmt.Fprintln(stderr, "wrote "+*htmlOut)
	}
	for _, c := range []struct{ format, dir string }{{"png", *pngDir}, {"svg", *svgDir}} {
		if c.dir == "" {
			continue
		}
		written, err := report.WriteCharts(c.dir, c.format, *lang, docs...)
		for _, p := range written {
			fmt.Fprintln(stderr, "wrote "+p)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
