package replay

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Dialects whose logs kurabe reads, named as store.SQLSession.Dialect
// names them.
const (
	Postgres = "postgres"
	MySQL    = "mysql"
	SQLite   = "sqlite"
)

type tokKind uint8

const (
	tWord   tokKind = iota // keyword or unquoted identifier
	tIdent                 // quoted identifier
	tString                // string literal of any form
	tNumber                // numeric literal
	tParam                 // placeholder: $1, ?, :name
	tPunct                 // operator or punctuation
)

type token struct {
	kind       tokKind
	start, end int // byte offsets in the text
}

// lex splits SQL text into tokens, dropping white space and comments. It
// knows each dialect's quoting (PostgreSQL's dollar quotes and E” strings,
// MySQL's backslash escapes, backticks and double-quoted strings) well
// enough to find statement boundaries and literals; it is not a parser.
// Unterminated quotes and comments run to the end of the text, so any
// input yields tokens and nothing panics.
func lex(s, dialect string) []token {
	var out []token
	mysql := dialect == MySQL
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '-' && i+1 < len(s) && s[i+1] == '-' && (!mysql || i+2 >= len(s) || isSpace(s[i+2])):
			i = lineEnd(s, i)
		case c == '#' && mysql:
			i = lineEnd(s, i)
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			i = commentEnd(s, i, dialect == Postgres)
		case c == '\'':
			j := quoteEnd(s, i, '\'', mysql)
			out = append(out, token{tString, i, j})
			i = j
		case c == '"':
			j := quoteEnd(s, i, '"', mysql)
			k := tIdent
			if mysql {
				k = tString // without ANSI_QUOTES, "..." is a string in MySQL
			}
			out = append(out, token{k, i, j})
			i = j
		case c == '`' && mysql:
			j := quoteEnd(s, i, '`', false)
			out = append(out, token{tIdent, i, j})
			i = j
		case c == '[' && dialect == SQLite:
			j := strings.IndexByte(s[i:], ']')
			if j < 0 {
				j = len(s) - i - 1
			}
			out = append(out, token{tIdent, i, i + j + 1})
			i += j + 1
		case c == '$' && dialect == Postgres && i+1 < len(s) && isDigit(s[i+1]):
			j := i + 1
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			out = append(out, token{tParam, i, j})
			i = j
		case c == '$' && dialect == Postgres:
			if j, ok := dollarEnd(s, i); ok {
				out = append(out, token{tString, i, j})
				i = j
				continue
			}
			out = append(out, token{tPunct, i, i + 1})
			i++
		case c == '?':
			j := i + 1
			for j < len(s) && isDigit(s[j]) && dialect == SQLite {
				j++
			}
			if dialect == Postgres {
				// ?, ?| and ?& are jsonb operators in PostgreSQL.
				out = append(out, token{tPunct, i, j})
			} else {
				out = append(out, token{tParam, i, j})
			}
			i = j
		case isDigit(c) || (c == '.' && i+1 < len(s) && isDigit(s[i+1])):
			j := numberEnd(s, i)
			out = append(out, token{tNumber, i, j})
			i = j
		case isWordStart(s, i):
			j := wordEnd(s, i)
			w := s[i:j]
			// Prefixed strings: E'..', B'..', X'..', N'..', U&'..', and
			// MySQL's charset introducers such as _utf8mb4'..'.
			if j < len(s) && s[j] == '\'' && (len(w) == 1 && strings.ContainsAny(w, "eEbBxXnN") || mysql && w[0] == '_') {
				k := quoteEnd(s, j, '\'', mysql || w == "e" || w == "E")
				out = append(out, token{tString, i, k})
				i = k
				continue
			}
			if (w == "U" || w == "u") && strings.HasPrefix(s[j:], "&'") {
				k := quoteEnd(s, j+1, '\'', false)
				out = append(out, token{tString, i, k})
				i = k
				continue
			}
			out = append(out, token{tWord, i, j})
			i = j
		case c == '@' && mysql:
			// A user variable @v or a system one @@v (@@session.v).
			j := i + 1
			for j < len(s) && s[j] == '@' {
				j++
			}
			k := wordEnd(s, j)
			for k < len(s) && s[k] == '.' && k+1 < len(s) && isWordStart(s, k+1) {
				k = wordEnd(s, k+1)
			}
			out = append(out, token{tWord, i, k})
			i = k
		case c == ':' && dialect == SQLite && i+1 < len(s) && isWordStart(s, i+1),
			(c == '@' || c == '$') && dialect == SQLite && i+1 < len(s) && isWordStart(s, i+1):
			j := wordEnd(s, i+1)
			out = append(out, token{tParam, i, j})
			i = j
		default:
			j := i + 1
			if c >= utf8.RuneSelf {
				_, n := utf8.DecodeRuneInString(s[i:])
				j = i + n
			} else if strings.IndexByte("<>=!|&:~^", c) >= 0 {
				// Operators of several characters (<=, <>, ::, ||, ->>) are
				// one token, so a cast or a comparison reads as one.
				for j < len(s) && strings.IndexByte("<>=!|&:~^", s[j]) >= 0 && j-i < 3 {
					j++
				}
			}
			out = append(out, token{tPunct, i, j})
			i = j
		}
	}
	return out
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isWordStart(s string, i int) bool {
	c := s[i]
	if c < utf8.RuneSelf {
		return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsLetter(r)
}

func wordEnd(s string, i int) int {
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if c == '_' || c == '$' || isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
				i++
				continue
			}
			return i
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return i
		}
		i += n
	}
	return i
}

func lineEnd(s string, i int) int {
	if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(s)
}

// commentEnd finds the end of a /* */ comment; PostgreSQL's nest.
func commentEnd(s string, i int, nested bool) int {
	depth := 0
	for i < len(s) {
		switch {
		case strings.HasPrefix(s[i:], "/*"):
			depth++
			i += 2
			if !nested {
				depth = 1
			}
		case strings.HasPrefix(s[i:], "*/"):
			depth--
			i += 2
			if depth == 0 {
				return i
			}
		default:
			i++
		}
	}
	return len(s)
}

// quoteEnd returns the offset after the quote that closes the one at i. A
// doubled quote stands for itself; with backslash, \ escapes any byte.
func quoteEnd(s string, i int, q byte, backslash bool) int {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			if backslash {
				j++
			}
		case q:
			if j+1 < len(s) && s[j+1] == q {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(s)
}

// dollarEnd reads a PostgreSQL dollar-quoted string ($$...$$ or
// $tag$...$tag$) starting at i.
func dollarEnd(s string, i int) (int, bool) {
	j := i + 1
	for j < len(s) && s[j] != '$' {
		c := s[j]
		if !(c == '_' || isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= utf8.RuneSelf) {
			return 0, false
		}
		j++
	}
	if j >= len(s) {
		return 0, false
	}
	tag := s[i : j+1]
	if k := strings.Index(s[j+1:], tag); k >= 0 {
		return j + 1 + k + len(tag), true
	}
	return len(s), true
}

func numberEnd(s string, i int) int {
	j := i
	if strings.HasPrefix(s[i:], "0x") || strings.HasPrefix(s[i:], "0X") || strings.HasPrefix(s[i:], "0b") || strings.HasPrefix(s[i:], "0B") {
		j += 2
		for j < len(s) && (isDigit(s[j]) || s[j] >= 'a' && s[j] <= 'f' || s[j] >= 'A' && s[j] <= 'F' || s[j] == '_') {
			j++
		}
		return j
	}
	for j < len(s) && (isDigit(s[j]) || s[j] == '_') {
		j++
	}
	if j < len(s) && s[j] == '.' {
		j++
		for j < len(s) && isDigit(s[j]) {
			j++
		}
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && isDigit(s[k]) {
			for k < len(s) && isDigit(s[k]) {
				k++
			}
			j = k
		}
	}
	return j
}

// valueLike reports whether a token can end an operand, so that a minus
// after it is subtraction rather than a sign.
func valueLike(s string, t token) bool {
	switch t.kind {
	case tNumber, tString, tParam, tIdent:
		return true
	case tWord:
		_, kw := signKeywords[strings.ToLower(s[t.start:t.end])]
		return !kw
	}
	return s[t.start:t.end] == ")" || s[t.start:t.end] == "]"
}

// signKeywords are words after which a minus is a sign: -1 there is one
// literal, as pg_stat_statements counts it.
var signKeywords = map[string]struct{}{
	"select": {}, "where": {}, "and": {}, "or": {}, "not": {}, "in": {}, "values": {}, "set": {}, "by": {},
	"then": {}, "else": {}, "when": {}, "limit": {}, "offset": {}, "between": {}, "like": {}, "is": {},
	"on": {}, "as": {}, "case": {}, "having": {}, "return": {}, "returning": {}, "interval": {}, "array": {},
}

// Normalize returns a statement's fingerprint text: literals and
// parameters become ?, lists of them in IN (...) and VALUES (...) (and
// further rows of VALUES) collapse to (...), comments and spacing go,
// unquoted words are lower-cased. Statements that differ only in their
// values share it, as in pg_stat_statements or MySQL's statement digests.
func Normalize(sql, dialect string) string {
	toks := lex(sql, dialect)
	parts := make([]string, 0, len(toks))
	kinds := make([]tokKind, 0, len(toks))
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		text := sql[t.start:t.end]
		switch t.kind {
		case tNumber, tString, tParam:
			text = "?"
			t.kind = tParam
		case tWord:
			text = strings.ToLower(text)
			// NULL as a value is a constant like any other; IS NULL and
			// NOT NULL are not.
			if text == "null" && (len(parts) == 0 || parts[len(parts)-1] != "is" && parts[len(parts)-1] != "not") {
				text, t.kind = "?", tParam
			}
		case tPunct:
			// A sign folds into the number after it.
			if (text == "-" || text == "+") && i+1 < len(toks) && toks[i+1].kind == tNumber && (i == 0 || !valueLike(sql, toks[i-1])) {
				continue
			}
			if text == ";" && i == len(toks)-1 {
				continue
			}
		}
		parts = append(parts, text)
		kinds = append(kinds, t.kind)
	}
	// Collapse lists of values.
	out := parts[:0:0]
	for i := 0; i < len(parts); i++ {
		if parts[i] == "(" {
			if j, ok := valueList(parts, kinds, i); ok {
				prev := ""
				if len(out) > 0 {
					prev = out[len(out)-1]
				}
				switch {
				case prev == "in" || prev == "values":
					out = append(out, "(...)")
					i = j
					continue
				case prev == "," && len(out) >= 2 && out[len(out)-2] == "(...)":
					out = out[:len(out)-1] // a further row of VALUES
					i = j
					continue
				}
			}
		}
		out = append(out, parts[i])
	}
	var b strings.Builder
	for i, p := range out {
		if i > 0 && !noSpaceBetween(out[i-1], p) {
			b.WriteByte(' ')
		}
		b.WriteString(p)
	}
	return b.String()
}

// valueList reports whether parts[i] opens a parenthesised list of only
// placeholders and commas, and where it closes.
func valueList(parts []string, kinds []tokKind, i int) (int, bool) {
	n := 0
	for j := i + 1; j < len(parts); j++ {
		switch {
		case parts[j] == ")":
			return j, n > 0
		case kinds[j] == tParam:
			n++
		case parts[j] == ",":
		default:
			return 0, false
		}
	}
	return 0, false
}

func noSpaceBetween(prev, cur string) bool {
	switch cur {
	case ",", ")", ".", "::", ";":
		return true
	case "(":
		return prev != "," && prev != "(" && !isOperator(prev) && !strings.HasSuffix(prev, ")")
	}
	return prev == "(" || prev == "." || prev == "::"
}

func isOperator(s string) bool {
	return s != "" && strings.IndexByte("<>=!|&:~^+-*/%", s[0]) >= 0
}

// stmtKind is how the replayer runs a statement.
type stmtKind uint8

const (
	kExec     stmtKind = iota // store.SQLSession.Exec
	kQuery                    // Query: it returns rows
	kBegin                    // a bare BEGIN or START TRANSACTION: Begin
	kCommit                   // COMMIT or END: Commit
	kRollback                 // ROLLBACK or ABORT (not TO SAVEPOINT): Rollback
)

// classify decides how to run a statement from its first words.
func classify(sql, dialect string) stmtKind {
	toks := lex(sql, dialect)
	var words []string
	for _, t := range toks {
		if t.kind == tPunct && sql[t.start:t.end] == ";" {
			break
		}
		if t.kind != tWord {
			if len(words) == 0 && sql[t.start:t.end] == "(" {
				continue // (SELECT ...) UNION ...
			}
			words = append(words, "")
			continue
		}
		words = append(words, strings.ToLower(sql[t.start:t.end]))
	}
	if len(words) == 0 {
		return kExec
	}
	is := func(w ...string) bool {
		if len(words) != len(w) {
			return false
		}
		for i := range w {
			if words[i] != w[i] {
				return false
			}
		}
		return true
	}
	switch {
	case is("begin"), is("begin", "work"), is("begin", "transaction"), is("start", "transaction"):
		return kBegin
	case is("commit"), is("commit", "work"), is("commit", "transaction"), is("end"), is("end", "work"), is("end", "transaction"):
		return kCommit
	case is("rollback"), is("rollback", "work"), is("rollback", "transaction"), is("abort"), is("abort", "work"), is("abort", "transaction"):
		return kRollback
	}
	switch words[0] {
	case "select", "with", "values", "table", "show", "explain", "describe", "desc", "fetch", "pragma", "call", "analyze", "check", "checksum":
		return kQuery
	}
	for _, w := range words {
		if w == "returning" {
			return kQuery
		}
	}
	return kExec
}
