package replay

import (
	"reflect"
	"testing"
)

func TestNormalize(t *testing.T) {
	tests := []struct {
		dialect, in, want string
	}{
		// Literals, parameters and spacing go; words are lower-cased.
		{Postgres, "SELECT v  FROM t\n WHERE id = 42 AND name = 'it''s';", "select v from t where id = ? and name = ?"},
		{Postgres, "select v from t where id = $1 and name = $2", "select v from t where id = ? and name = ?"},
		// A sign is part of the number after an operator or keyword, an
		// operator after an operand.
		{Postgres, "select -1, a - 1, f(-2.5e3)", "select ?, a - ?, f(?)"},
		// Lists in IN and rows of VALUES collapse.
		{Postgres, "insert into t values (1, 'a'), (2, 'b'), (3, 'c')", "insert into t values (...)"},
		{Postgres, "insert into t values (1, 'a')", "insert into t values (...)"},
		{Postgres, "select * from t where id in (1, 2, 3)", "select * from t where id in (...)"},
		{Postgres, "select * from t where id in (7)", "select * from t where id in (...)"},
		// NULL as a value is a literal; IS NULL and NOT NULL stay.
		{Postgres, "select f(1, NULL) where a IS NULL and b is not null", "select f(?, ?) where a is null and b is not null"},
		{Postgres, "create table t (a int NOT NULL, b int DEFAULT NULL)", "create table t(a int not null, b int default ?)"},
		// PostgreSQL's quoting: dollar quotes, E strings, casts, quoted
		// identifiers kept, comments gone.
		{Postgres, "select $$a;b$$, E'x\\'y', '1'::int, \"Mixed\" /* c /* nested */ */ -- end", "select ?, ?, ?::int, \"Mixed\""},
		// MySQL's: backticks, double-quoted strings, backslash escapes,
		// # comments, charset introducers, hex.
		{MySQL, "SELECT `a` FROM t WHERE s = \"x\" AND u = 'it\\'s' AND h = 0xFF AND c = _utf8mb4'z' # note", "select `a` from t where s = ? and u = ? and h = ? and c = ?"},
		{MySQL, "INSERT INTO t VALUES (3, 'x')", "insert into t values (...)"},
		{MySQL, "SET @id = 3, @@session.sql_mode = 'x'", "set @id = ?, @@session.sql_mode = ?"},
		// In PostgreSQL ? is an operator; in MySQL a placeholder.
		{Postgres, "select j ? 'k'", "select j ? ?"},
		{MySQL, "select * from t where id = ?", "select * from t where id = ?"},
	}
	for _, tc := range tests {
		if got := Normalize(tc.in, tc.dialect); got != tc.want {
			t.Errorf("Normalize(%q, %s) = %q, want %q", tc.in, tc.dialect, got, tc.want)
		}
	}
}

func TestSplit(t *testing.T) {
	tests := []struct {
		dialect, in string
		want        []string
	}{
		{Postgres, "select 1", []string{"select 1"}},
		{Postgres, "select 1;", []string{"select 1"}},
		// A simple-protocol query of three statements.
		{Postgres, "BEGIN; UPDATE t SET v = ';' WHERE id = 3; COMMIT;", []string{"BEGIN", "UPDATE t SET v = ';' WHERE id = 3", "COMMIT"}},
		// Semicolons in quotes, dollar quotes and comments do not split.
		{Postgres, "select 'a;b', $x$;$x$ -- ;\n; select 2", []string{"select 'a;b', $x$;$x$ -- ;", "select 2"}},
		// A routine's body keeps its semicolons.
		{MySQL, "CREATE PROCEDURE p() BEGIN SELECT 1; SELECT 2; END", []string{"CREATE PROCEDURE p() BEGIN SELECT 1; SELECT 2; END"}},
		{Postgres, "CREATE OR REPLACE FUNCTION f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1; END;", []string{"CREATE OR REPLACE FUNCTION f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1; END"}},
		{Postgres, " ; -- nothing\n ;", nil},
		// An unterminated quote runs to the end, never panics.
		{MySQL, "select 'abc; select 2", []string{"select 'abc; select 2"}},
	}
	for _, tc := range tests {
		if got := Split(tc.in, tc.dialect); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Split(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		in   string
		want stmtKind
	}{
		{"BEGIN", kBegin},
		{"start transaction", kBegin},
		{"BEGIN ISOLATION LEVEL SERIALIZABLE", kExec}, // options: run as text
		{"COMMIT", kCommit},
		{"end", kCommit},
		{"ROLLBACK", kRollback},
		{"ROLLBACK TO SAVEPOINT a", kExec},
		{"select 1", kQuery},
		{"(select 1) union (select 2)", kQuery},
		{"WITH x AS (select 1) select * from x", kQuery},
		{"insert into t values (1) returning id", kQuery},
		{"insert into t values (1)", kExec},
		{"SHOW tables", kQuery},
	}
	for _, tc := range tests {
		if got := classify(tc.in, Postgres); got != tc.want {
			t.Errorf("classify(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

func FuzzNormalize(f *testing.F) {
	f.Add("select $$a;b$$, E'x\\'y', '1'::int -- c", "postgres")
	f.Add("SELECT `a` FROM t WHERE s = \"x\" # c", "mysql")
	f.Fuzz(func(t *testing.T, s, dialect string) {
		Normalize(s, dialect)
		for _, part := range Split(s, dialect) {
			classify(part, dialect)
		}
	})
}
