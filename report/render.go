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
// kurabe-run configuration line tells the runs apart. A result of kurabe
// http is written in text and Markdown as kurabe http writes it (a table
// per URL or flow step), not as a store's phases.
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
			switch {
			case isHTTPResult(d) && format == "text":
				// kurabe http's result in its own shape, as kurabe http
				// printed it: per URL or step, not a store's table.
				err = HTTPText(w, lang, d)
			case isHTTPResult(d):
				err = HTTPMarkdown(w, lang, d)
			case format == "text":
				err = text(w, d, l)
			default:
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

// A TableStream writes the tables of documents that come one at a time,
// a scenario's steps, as WriteTables writes documents given together: CSV
// under one header, benchstat in one stream under one Unit line; text and
// Markdown one document after another, as the caller separates them.
type TableStream struct {
	W            io.Writer
	Format, Lang string
	n            int // documents written
}

// Write writes one more document's tables.
func (s *TableStream) Write(d *result.Document) error {
	defer func() { s.n++ }()
	if s.n == 0 {
		return WriteTables(s.W, s.Format, s.Lang, d)
	}
	switch s.Format {
	case "csv":
		return writeCSVRows(s.W, []*result.Document{d}, false)
	case "benchstat":
		return writeBenchstatRuns(s.W, []*result.Document{d}, false)
	}
	return WriteTables(s.W, s.Format, s.Lang, d)
}

// MachineFormat reports whether a format is for programs (CSV,
// benchstat), whose output must hold nothing but the format: headings for
// people go elsewhere.
func MachineFormat(format string) bool { return format == "csv" || format == "benchstat" }

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

// isHTTPResult reports whether d is a result of kurabe http: one target
// and one phase carrying HTTP figures.
func isHTTPResult(d *result.Document) bool {
	_, err := httpPhase(d)
	return err == nil
}
