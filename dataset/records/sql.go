package records

import (
	"fmt"
	"strconv"
	"strings"

	"kurabe/store"
)

// SQL helpers for the workloads that reach a data set's table through
// store.SQLSession (crud's UPDATE, DELETE and IN queries; load's INSERT).

// tableNamer may be implemented by an SQL session to give the quoted,
// qualified name its store's Setup gave a table. Without it the names are
// those of each store's default namespace: SQLite kurabe_<name>,
// PostgreSQL "kurabe"."<name>", MySQL `kurabe`.`<name>`.
type tableNamer interface {
	TableName(t *store.Table) string
}

// TableName is t's name in s's SQL.
func TableName(s store.SQLSession, t *store.Table) string {
	if n, ok := s.(tableNamer); ok {
		return n.TableName(t)
	}
	switch s.Dialect() {
	case "postgres":
		return `"kurabe"."` + t.Name + `"`
	case "mysql":
		return "`kurabe`.`" + t.Name + "`"
	}
	return "kurabe_" + t.Name
}

// Dialects lists the SQL dialects the helpers write.
var Dialects = []string{"sqlite", "postgres", "mysql"}

// CheckDialect says whether the helpers can write s's SQL.
func CheckDialect(s store.SQLSession) error {
	for _, d := range Dialects {
		if s.Dialect() == d {
			return nil
		}
	}
	return fmt.Errorf("no SQL written for dialect %q; kurabe knows %s", s.Dialect(), strings.Join(Dialects, ", "))
}

// Placeholder is the i-th (from 1) statement argument in dialect.
func Placeholder(dialect string, i int) string {
	if dialect == "postgres" {
		return "$" + strconv.Itoa(i)
	}
	return "?"
}

// Placeholders writes n placeholders from the first, comma-separated.
func Placeholders(dialect string, first, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(Placeholder(dialect, first+i))
	}
	return b.String()
}

// InsertSQL is the INSERT of one row of t into s's store, every column
// given (t must not be AutoKey).
func InsertSQL(s store.SQLSession, t *store.Table) string {
	cols := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		cols[i] = c.Name
	}
	return "INSERT INTO " + TableName(s, t) + " (" + strings.Join(cols, ", ") + ") VALUES (" + Placeholders(s.Dialect(), 1, len(cols)) + ")"
}

// Args sets args to row's values as SQLSession arguments, one per
// column, and returns it. Integers and texts are boxed (integers outside
// 0..255 allocate): the price of one SQL interface for three drivers.
func Args(args []any, t *store.Table, row store.Row) []any {
	args = args[:0]
	for i, c := range t.Columns {
		if c.Kind == store.Int {
			args = append(args, row[i].Int)
		} else {
			args = append(args, row[i].Text)
		}
	}
	return args
}
