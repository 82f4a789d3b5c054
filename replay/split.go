package replay

import "strings"

// Split cuts a text holding several statements (a simple-protocol query,
// a multi-statement MySQL query) at its top-level semicolons, since a
// prepared statement holds one. Each statement is judged on its own, so a
// routine's body keeps its semicolons wherever the routine stands in the
// text: in PostgreSQL a body is a quoted string ($$ … $$, $tag$ … $tag$,
// '…') or, after CREATE [OR REPLACE] FUNCTION|PROCEDURE, a BEGIN ATOMIC …
// END block (nesting counted as psql does); in MySQL and MariaDB a
// CREATE PROCEDURE|FUNCTION|TRIGGER|EVENT body, and a compound statement
// standing alone (BEGIN NOT ATOMIC, IF, CASE, LOOP, WHILE, REPEAT, FOR),
// runs to the END that closes it, blocks nested. Semicolons in quotes,
// comments and parentheses never split. Empty statements are dropped.
//
// The server's log holds what the client sent, so there is no DELIMITER
// here: that is a command of the mysql client, which sends the routine
// without it.
func Split(sql, dialect string) []string {
	toks := lex(sql, dialect)
	var out []string
	start := 0 // byte offset where the current statement begins
	for i := 0; i < len(toks); {
		n := statementEnd(sql, toks[i:], dialect)
		if i+n == len(toks) {
			break
		}
		semi := toks[i+n]
		if s := strings.TrimSpace(sql[start:semi.start]); s != "" && !onlyComments(s, dialect) {
			out = append(out, s)
		}
		start = semi.end
		i += n + 1
	}
	if s := strings.TrimSpace(sql[start:]); s != "" && !onlyComments(s, dialect) {
		out = append(out, s)
	}
	return out
}

func onlyComments(s, dialect string) bool { return len(lex(s, dialect)) == 0 }

// statementEnd returns the index of the semicolon that ends the statement
// toks begins with, or len(toks).
func statementEnd(sql string, toks []token, dialect string) int {
	if dialect == MySQL {
		return myStatementEnd(sql, toks)
	}
	return pgStatementEnd(sql, toks)
}

func word(sql string, toks []token, i int) string {
	if i < 0 || i >= len(toks) || toks[i].kind != tWord {
		return ""
	}
	return strings.ToLower(sql[toks[i].start:toks[i].end])
}

func punct(sql string, toks []token, i int) string {
	if i < 0 || i >= len(toks) || toks[i].kind != tPunct {
		return ""
	}
	return sql[toks[i].start:toks[i].end]
}

// pgStatementEnd follows psql (psqlscan.l): a semicolon inside
// parentheses (CREATE RULE … DO (…; …)) or inside the BEGIN … END of a
// CREATE [OR REPLACE] FUNCTION|PROCEDURE does not end the statement.
// Dollar-quoted and quoted bodies are single tokens already.
func pgStatementEnd(sql string, toks []token) int {
	routine := false
	switch {
	case word(sql, toks, 0) == "create" && (word(sql, toks, 1) == "function" || word(sql, toks, 1) == "procedure"):
		routine = true
	case word(sql, toks, 0) == "create" && word(sql, toks, 1) == "or" && word(sql, toks, 2) == "replace" &&
		(word(sql, toks, 3) == "function" || word(sql, toks, 3) == "procedure"):
		routine = true
	}
	paren, begins := 0, 0
	for i, t := range toks {
		switch t.kind {
		case tPunct:
			switch punct(sql, toks, i) {
			case "(":
				paren++
			case ")":
				if paren > 0 {
					paren--
				}
			case ";":
				if paren == 0 && begins == 0 {
					return i
				}
			}
		case tWord:
			if !routine || paren > 0 {
				continue
			}
			switch word(sql, toks, i) {
			case "begin":
				begins++
			case "case": // CASE … END inside a body; outside one it ends nothing
				if begins > 0 {
					begins++
				}
			case "end":
				if begins > 0 {
					begins--
				}
			}
		}
	}
	return len(toks)
}

// myRoutine returns the index of the word PROCEDURE, FUNCTION, TRIGGER or
// EVENT when toks begin CREATE [OR REPLACE] [DEFINER = …] [SQL SECURITY …]
// [AGGREGATE] of one, else -1.
func myRoutine(sql string, toks []token) int {
	if word(sql, toks, 0) != "create" {
		return -1
	}
	for i := 1; i < min(len(toks), 16); i++ {
		switch word(sql, toks, i) {
		case "procedure", "function", "trigger", "event":
			return i
		case "table", "index", "view", "schema", "database", "sequence", "user", "role", "server", "tablespace", "package", "temporary", "unique", "fulltext", "spatial", "algorithm":
			return -1
		}
	}
	return -1
}

// myStatementEnd finds the end of a MySQL/MariaDB statement, following
// the blocks of a compound statement: BEGIN … END, IF … END IF, CASE …
// END [CASE] (statement or expression), LOOP, WHILE, REPEAT and
// MariaDB's FOR … END LOOP|WHILE|REPEAT|FOR. IF, LOOP, WHILE, REPEAT and
// FOR open a block only where a statement begins (after ;, BEGIN, THEN,
// ELSE, DO, LOOP, REPEAT, a label, or where a routine's head ends), so
// IF(…) and REPEAT(…) the functions, DROP TABLE IF EXISTS, SELECT … FOR
// UPDATE and DECLARE … CURSOR FOR keep their meaning.
func myStatementEnd(sql string, toks []token) int {
	kind := myRoutine(sql, toks)
	compound := kind >= 0
	// A compound statement standing alone (MariaDB), maybe labelled.
	first := 0
	if punct(sql, toks, 1) == ":" && toks[0].kind == tWord {
		first = 2
	}
	switch word(sql, toks, first) {
	case "if", "case", "loop", "while", "repeat", "for":
		compound = true
	case "begin":
		compound = word(sql, toks, first+1) == "not" && word(sql, toks, first+2) == "atomic"
	}
	// headEnd is where a routine's body may begin without BEGIN: after
	// its parameter list, FOR EACH ROW, DO, or a characteristic.
	headEnd := -1
	if kind >= 0 {
		switch word(sql, toks, kind) {
		case "procedure", "function":
			for i, p := kind+1, 0; i < len(toks); i++ {
				if punct(sql, toks, i) == "(" {
					p++
				} else if punct(sql, toks, i) == ")" {
					if p--; p == 0 {
						headEnd = i
						break
					}
				} else if punct(sql, toks, i) == ";" {
					break
				}
			}
		}
	}
	body := false // the body has begun
	openers := map[int]bool{}
	stmtStart := func(i int) bool {
		if i == first {
			return true
		}
		prev := i - 1
		switch punct(sql, toks, prev) {
		case ";":
			return true
		case ":":
			return toks[prev].kind == tPunct && prev >= 1 && toks[prev-1].kind == tWord
		}
		switch w := word(sql, toks, prev); w {
		case "then", "else", "do", "atomic":
			return true
		case "begin", "loop", "repeat":
			return openers[prev]
		case "deterministic", "sql", "data", "definer", "invoker", "row":
			return kind >= 0 && !body
		}
		if kind >= 0 && !body && prev == headEnd {
			return true
		}
		// COMMENT '…' among a routine's characteristics.
		return kind >= 0 && !body && toks[prev].kind == tString && word(sql, toks, prev-1) == "comment"
	}
	depth, paren := 0, 0
	for i, t := range toks {
		switch t.kind {
		case tPunct:
			switch punct(sql, toks, i) {
			case "(":
				paren++
			case ")":
				if paren > 0 {
					paren--
				}
			case ";":
				if paren == 0 && depth == 0 {
					return i
				}
				body = true
			}
			continue
		case tWord:
		default:
			continue
		}
		if !compound || paren > 0 {
			continue
		}
		w := word(sql, toks, i)
		afterEnd := word(sql, toks, i-1) == "end"
		open := false
		switch w {
		case "begin":
			open = kind >= 0 || depth > 0 || i == first
		case "case":
			open = !afterEnd
		case "if":
			open = !afterEnd && stmtStart(i) && (punct(sql, toks, i+1) != "(" || thenFollows(sql, toks, i+1))
		case "loop", "while", "for":
			open = !afterEnd && stmtStart(i)
		case "repeat":
			open = !afterEnd && stmtStart(i) && punct(sql, toks, i+1) != "("
		case "end":
			if depth > 0 {
				depth--
			}
			continue
		}
		if open {
			openers[i] = true
			depth++
			body = true
		}
	}
	return len(toks)
}

// thenFollows reports whether the parenthesis at i is the condition of an
// IF statement (IF (a > b) THEN, IF (a) AND b THEN) rather than the
// arguments of the function IF(c, x, y): the statement's THEN comes
// before anything that would end an expression.
func thenFollows(sql string, toks []token, i int) bool {
	p := 0
	for ; i < len(toks); i++ {
		if p == 0 {
			switch word(sql, toks, i) {
			case "then":
				return true
			case "when", "else", "end", "from", "into", "as":
				return false
			}
			switch punct(sql, toks, i) {
			case ";", ",":
				return false
			}
		}
		switch punct(sql, toks, i) {
		case "(":
			p++
		case ")":
			p--
		}
	}
	return false
}
