package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"kurabe/result"
)

// WriteTables writes the documents' tables in format (a name in Formats)
// and language: text and Markdown one document after another, CSV under
// one header with a run column, benchstat as one stream whose
// kurabe-run configuration line tells the runs apart.
func WriteTables(w io.Writer, format, lang string, docs ...*result.Document) error {
	if err := CheckLang(lang); err != nil {
		return err
	}
	l := tr(lang)
	switch format {
	case "csv":
		return writeCSV(w, docs)
	case "benchstat":
		return writeBenchstat(w, docs)
	case "text", "markdown":
		for i, d := range docs {
			if i > 0 {
				sep := "\n"
				if format == "markdown" {
					sep = "\n---\n\n"
				}
				if _, err := io.WriteString(w, sep); err != nil {
					return err
				}
			}
			var err error
			if format == "text" {
				err = text(w, d, l)
			} else {
				err = markdown(w, d, l)
			}
			if err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("unknown format %q; choose from %s", format, strings.Join(FormatNames(), ", "))
}

// runIDs names each document of a stream (the CSV run column, benchstat's
// kurabe-run, compare's header) by its start time in RFC 3339 with the
// fraction of a second the document holds (nanoseconds): runs started in the
// same second are still told apart. Documents that share a start time all
// the same (a file given twice) get " (2)", " (3)", ... after the first, so
// every document in one stream has a name of its own.
func runIDs(docs []*result.Document) []string {
	ids := make([]string, len(docs))
	seen := map[string]int{}
	for i, d := range docs {
		id := runTime(d)
		seen[id]++
		if n := seen[id]; n > 1 {
			id += " (" + strconv.Itoa(n) + ")"
		}
		ids[i] = id
	}
	return ids
}

// runTime is a run's start in RFC 3339 with the fraction of a second the
// document holds.
func runTime(d *result.Document) string { return d.Started.UTC().Format(time.RFC3339Nano) }
