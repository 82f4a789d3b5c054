package report

import (
	"fmt"
	"io"
	"strings"

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
