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
		{Postgres, "select E'a\\';b'; select \"x;y\" from t /* ; /* ; */ */; select 3", []string{"select E'a\\';b'", "select \"x;y\" from t /* ; /* ; */ */", "select 3"}},
		// A function first, then a statement that calls it (before, one
		// statement: "cannot insert multiple commands into a prepared
		// statement").
		{Postgres, "create function f() returns int language plpgsql as $$ begin insert into m values (4,'fn'); return 1; end $$; select f();",
			[]string{"create function f() returns int language plpgsql as $$ begin insert into m values (4,'fn'); return 1; end $$", "select f()"}},
		{Postgres, "CREATE OR REPLACE FUNCTION g() RETURNS trigger AS $body$ BEGIN NEW.a := 1; RETURN NEW; END $body$ LANGUAGE plpgsql; CREATE TRIGGER tg BEFORE INSERT ON m FOR EACH ROW EXECUTE FUNCTION g(); insert into m values (1)",
			[]string{"CREATE OR REPLACE FUNCTION g() RETURNS trigger AS $body$ BEGIN NEW.a := 1; RETURN NEW; END $body$ LANGUAGE plpgsql", "CREATE TRIGGER tg BEFORE INSERT ON m FOR EACH ROW EXECUTE FUNCTION g()", "insert into m values (1)"}},
		// A body in a quoted string; a dollar quote holding another tag.
		{Postgres, "create function h() returns int as 'select 1; select 2' language sql; select h()", []string{"create function h() returns int as 'select 1; select 2' language sql", "select h()"}},
		{Postgres, "do $a$ begin perform $b$;$b$; end $a$; select 1", []string{"do $a$ begin perform $b$;$b$; end $a$", "select 1"}},
		// After another statement (this worked before too).
		{Postgres, "create table m2(a int); create function f() returns int language sql as $$ select 1; $$; select f()", []string{"create table m2(a int)", "create function f() returns int language sql as $$ select 1; $$", "select f()"}},
		// SQL-standard bodies: BEGIN ATOMIC … END, a CASE … END inside.
		{Postgres, "CREATE OR REPLACE FUNCTION f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1; END;", []string{"CREATE OR REPLACE FUNCTION f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1; END"}},
		{Postgres, "create procedure p() language sql begin atomic insert into t values (case when true then 1 else 2 end); select case when 1 = 1 then 1 end; end; call p(); begin; commit",
			[]string{"create procedure p() language sql begin atomic insert into t values (case when true then 1 else 2 end); select case when 1 = 1 then 1 end; end", "call p()", "begin", "commit"}},
		// CREATE RULE's actions in parentheses.
		{Postgres, "create rule r as on insert to t do also (insert into a values (1); insert into b values (2)); select 1", []string{"create rule r as on insert to t do also (insert into a values (1); insert into b values (2))", "select 1"}},
		// A plain BEGIN is a transaction, and CASE … END outside a body ends nothing.
		{Postgres, "begin; select case when a then 1 end from t; end", []string{"begin", "select case when a then 1 end from t", "end"}},
		{Postgres, " ; -- nothing\n ;", nil},

		// MySQL and MariaDB: a routine's body keeps its semicolons.
		{MySQL, "CREATE PROCEDURE p() BEGIN SELECT 1; SELECT 2; END", []string{"CREATE PROCEDURE p() BEGIN SELECT 1; SELECT 2; END"}},
		// After another statement (before: split inside the body) and
		// first in the text (before: not split at all).
		{MySQL, "create table t5(a int); create procedure p5() begin insert into t5 values (1); insert into t5 values (2); end; call p5()",
			[]string{"create table t5(a int)", "create procedure p5() begin insert into t5 values (1); insert into t5 values (2); end", "call p5()"}},
		{MySQL, "create procedure p6() begin insert into t6 values (1); insert into t6 values (2); end; call p6()",
			[]string{"create procedure p6() begin insert into t6 values (1); insert into t6 values (2); end", "call p6()"}},
		// Nested blocks, each kind of END, labels, IF(…) and REPEAT(…)
		// the functions, DROP … IF EXISTS, a cursor and a handler FOR.
		{MySQL, "CREATE DEFINER=`root`@`localhost` PROCEDURE p(IN n INT) MODIFIES SQL DATA BEGIN DECLARE i INT DEFAULT 0; DECLARE done INT DEFAULT 0; DECLARE c CURSOR FOR SELECT a FROM t FOR UPDATE; DECLARE CONTINUE HANDLER FOR NOT FOUND SET done = 1; DROP TABLE IF EXISTS tmp; lbl: LOOP SET i = i + 1; IF i > n THEN LEAVE lbl; ELSEIF i = 2 THEN SET @x = IF(i > 1, REPEAT('a', 2), 'b'); ELSE BEGIN SELECT 1; END; END IF; END LOOP lbl; WHILE i > 0 DO SET i = i - 1; END WHILE; REPEAT SET i = i + 1; UNTIL i > 3 END REPEAT; CASE i WHEN 4 THEN SELECT CASE WHEN i = 4 THEN 'x' ELSE 'y' END; ELSE SELECT 0; END CASE; IF (i > 1) AND (i < 9) THEN SELECT 2; END IF; END; CALL p(3);",
			[]string{"CREATE DEFINER=`root`@`localhost` PROCEDURE p(IN n INT) MODIFIES SQL DATA BEGIN DECLARE i INT DEFAULT 0; DECLARE done INT DEFAULT 0; DECLARE c CURSOR FOR SELECT a FROM t FOR UPDATE; DECLARE CONTINUE HANDLER FOR NOT FOUND SET done = 1; DROP TABLE IF EXISTS tmp; lbl: LOOP SET i = i + 1; IF i > n THEN LEAVE lbl; ELSEIF i = 2 THEN SET @x = IF(i > 1, REPEAT('a', 2), 'b'); ELSE BEGIN SELECT 1; END; END IF; END LOOP lbl; WHILE i > 0 DO SET i = i - 1; END WHILE; REPEAT SET i = i + 1; UNTIL i > 3 END REPEAT; CASE i WHEN 4 THEN SELECT CASE WHEN i = 4 THEN 'x' ELSE 'y' END; ELSE SELECT 0; END CASE; IF (i > 1) AND (i < 9) THEN SELECT 2; END IF; END", "CALL p(3)"}},
		// MariaDB's FOR loop; a body that is one IF, without BEGIN.
		{MySQL, "create or replace procedure p() for i in 1..3 do insert into t values (i); end for; call p()", []string{"create or replace procedure p() for i in 1..3 do insert into t values (i); end for", "call p()"}},
		{MySQL, "create procedure p(x int) deterministic if x > 0 then insert into t values (x); else insert into t values (0); end if; call p(1)", []string{"create procedure p(x int) deterministic if x > 0 then insert into t values (x); else insert into t values (0); end if", "call p(1)"}},
		// Functions: a body of one RETURN, and a block; a CASE expression
		// with IF(…) in a branch.
		{MySQL, "create function f(a int) returns int deterministic return if(a > 0, 1, 0); select f(2)", []string{"create function f(a int) returns int deterministic return if(a > 0, 1, 0)", "select f(2)"}},
		{MySQL, "CREATE FUNCTION f2(a INT) RETURNS VARCHAR(10) BEGIN DECLARE r VARCHAR(10); SET r = CASE WHEN a > 0 THEN IF(a > 9, 'big', 'small') ELSE 'neg' END; RETURN r; END; SELECT f2(3)",
			[]string{"CREATE FUNCTION f2(a INT) RETURNS VARCHAR(10) BEGIN DECLARE r VARCHAR(10); SET r = CASE WHEN a > 0 THEN IF(a > 9, 'big', 'small') ELSE 'neg' END; RETURN r; END", "SELECT f2(3)"}},
		// Triggers: one statement, and a block.
		{MySQL, "create trigger tr before insert on t for each row set new.a = new.a + 1; insert into t values (1)", []string{"create trigger tr before insert on t for each row set new.a = new.a + 1", "insert into t values (1)"}},
		{MySQL, "CREATE TRIGGER tr2 AFTER INSERT ON t FOR EACH ROW BEGIN IF NEW.a > 1 THEN INSERT INTO log VALUES (NEW.a); END IF; END; INSERT INTO t VALUES (5)",
			[]string{"CREATE TRIGGER tr2 AFTER INSERT ON t FOR EACH ROW BEGIN IF NEW.a > 1 THEN INSERT INTO log VALUES (NEW.a); END IF; END", "INSERT INTO t VALUES (5)"}},
		{MySQL, "CREATE TRIGGER tr3 BEFORE UPDATE ON t FOR EACH ROW IF NEW.a < 0 THEN SET NEW.a = 0; END IF; select 1", []string{"CREATE TRIGGER tr3 BEFORE UPDATE ON t FOR EACH ROW IF NEW.a < 0 THEN SET NEW.a = 0; END IF", "select 1"}},
		// Events: one statement, and a block.
		{MySQL, "create event e on schedule every 1 hour do delete from t; select 1", []string{"create event e on schedule every 1 hour do delete from t", "select 1"}},
		{MySQL, "create event e2 on schedule every 1 day comment 'x;y' do begin delete from t; insert into t values (1); end; select 2", []string{"create event e2 on schedule every 1 day comment 'x;y' do begin delete from t; insert into t values (1); end", "select 2"}},
		// MariaDB's compound statements outside routines.
		{MySQL, "BEGIN NOT ATOMIC DECLARE x INT; SET x = 1; SELECT x; END; SELECT 2", []string{"BEGIN NOT ATOMIC DECLARE x INT; SET x = 1; SELECT x; END", "SELECT 2"}},
		{MySQL, "if @a > 1 then select 1; else select 2; end if; select 3", []string{"if @a > 1 then select 1; else select 2; end if", "select 3"}},
		// A plain BEGIN is a transaction; quotes, backticks and comments
		// of every kind hide semicolons; SELECT … FOR UPDATE is no loop.
		{MySQL, "begin; select * from t where a = 1 for update; commit", []string{"begin", "select * from t where a = 1 for update", "commit"}},
		{MySQL, "select 'a;b', \"c;d\", `e;f` # ;\n; select 1 -- ;\n; /* ; */ select 2", []string{"select 'a;b', \"c;d\", `e;f` # ;", "select 1 -- ;", "/* ; */ select 2"}},
		{MySQL, "select 'it\\'s;'; select if(1, 2, 3); select case when 1 then 2 end", []string{"select 'it\\'s;'", "select if(1, 2, 3)", "select case when 1 then 2 end"}},
		// An unterminated quote runs to the end, never panics.
		{MySQL, "select 'abc; select 2", []string{"select 'abc; select 2"}},
		// A body cut off in the middle is one statement.
		{MySQL, "create procedure p() begin select 1; select 2", []string{"create procedure p() begin select 1; select 2"}},
	}
	for _, tc := range tests {
		if got := Split(tc.in, tc.dialect); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Split(%q, %s) =\n%q\nwant\n%q", tc.in, tc.dialect, got, tc.want)
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
