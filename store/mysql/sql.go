package mysql

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"kurabe/numfmt"
	"kurabe/store"
)

// SQLSession and BulkLoader for MariaDB and MySQL.
//
// A session prepares each statement text once, on first use, and keeps it
// by its text: on its own connection (connect=session), closed with the
// session; on the pool (connect=pool), shared by every session and closed
// with the store, since database/sql prepares a pool's statement again on
// each connection it runs on and one set per session would multiply the
// server's prepared statements (max_prepared_stmt_count) by the sessions.
// connect=per-op prepares nothing: the driver interpolates the arguments
// into the text, one round trip, as for the other operations. Workloads
// are expected to run a bounded set of texts with placeholders: each text
// stays prepared until its session (pool: store) closes.
//
// A transaction holds one connection: the session's own, on which BEGIN,
// COMMIT and ROLLBACK are sent as statements so its prepared statements
// stay usable; or, with connect=pool, a pooled connection held from Begin
// to Commit or Rollback in a database/sql Tx, through which the shared
// statements run on it (Tx.StmtContext reuses what is prepared there; the
// Stmt it wraps it in is database/sql's allocation). The Tx is not tied
// to Begin's context, which an engine may cancel when Begin returns.
//
// A pool transaction needs no connection but the one it holds: a text the
// pool has not prepared yet is prepared on the transaction (Tx.Prepare,
// closed with it), and on the pool only once the transaction has let its
// connection go. Preparing it on the pool inside the transaction would
// wait for a second connection, and with pool_size no larger than the
// clients every client would hold one and wait for another for ever (tpcb
// at -c 2 on pool_size=2 did). For the same reason the store's lock is
// never held while a statement waits for a pooled connection.
//
// Statements may name kurabe's tables without their database: it is the
// connections' default (connect=session sends USE before its first
// statement, since its connection may be opened before Setup makes the
// database; see start).
//
// Sessions' connections report matched rather than changed rows
// (CLIENT_FOUND_ROWS), so Exec's count means what it means on PostgreSQL
// and SQLite: an UPDATE that sets a value to itself still counts.
//
// Query counts each value's bytes as the driver hands it over: an integer
// or double as 8, a text, DECIMAL or date as its length, NULL as 0. Rows
// are scanned into per-session sql.Scanners that see the driver's values
// in place; the number of columns and whether the first is a DECIMAL
// (read as text, and still an integer for fn when it has no fraction) are
// learned once per text.

var (
	_ store.SQLSession = (*session)(nil)
	_ store.SQLSession = (*perOpSession)(nil)
	_ store.BulkLoader = (*Store)(nil)
)

// sqlStmt is what a session keeps of a statement text it has run.
type sqlStmt struct {
	st      *sql.Stmt // nil with connect=per-op
	cols    int       // result columns; -1 until a Query has seen them
	decimal bool      // the first result column is a DECIMAL
	owned   bool      // st is this session's to close (not the pool's)
	// connect=pool, met first inside a transaction: not on the pool yet,
	// and txSt is the text prepared on the transaction (nil until run).
	later bool
	txSt  *sql.Stmt
}

// maxStatements bounds the prepared statements a session (and a pool)
// keeps: a replay of a log with literal values sends a different text each
// time, and the server refuses more than max_prepared_stmt_count (16,382
// by default) statements over all its connections.
const maxStatements = 256

// sqlCol receives one column's value from database/sql, in place: it is
// a sql.Scanner, which database/sql hands the driver's value as it is
// (a []byte only valid during the call).
type sqlCol struct {
	decimal bool // parse a []byte as a decimal integer (the first column)
	size    int64
	int     int64
}

func (c *sqlCol) Scan(src any) error {
	c.int = 0
	switch v := src.(type) {
	case nil:
		c.size = 0
	case int64:
		c.size, c.int = 8, v
	case uint64:
		c.size = 8
		if v < 1<<63 {
			c.int = int64(v)
		}
	case float64:
		c.size = 8
	case float32:
		c.size = 4
	case bool:
		c.size = 1
	case []byte:
		c.size = int64(len(v))
		if c.decimal {
			c.int, _ = numfmt.DecimalInt(v)
		}
	case string:
		c.size = int64(len(v))
	case time.Time:
		c.size = 8
	default:
		c.size = 0
	}
	return nil
}

// Dialect names MySQL's SQL, with ? placeholders (MariaDB's too).
func (s *session) Dialect() string { return "mysql" }

// TableName is t's name in the store's database (the URL's, or the
// database option's), quoted, for the workloads that write their own SQL
// (crud, load, ycsb, tpcb): without it they would name database kurabe.
func (s *session) TableName(t *store.Table) string { return s.st.qualified(t.Name) }

// sqlStmt returns the session's statement for text, preparing it on first
// use (not with connect=per-op).
func (s *session) sqlStmt(ctx context.Context, text string) (*sqlStmt, error) {
	if p := s.sql[text]; p != nil {
		return p, nil
	}
	if len(s.sql) >= maxStatements {
		s.dropStatements()
	}
	p := &sqlStmt{cols: -1}
	switch {
	case s.conn != nil:
		if !s.usedDB {
			if _, err := s.conn.ExecContext(ctx, "USE "+quote(s.st.opts.database)); err != nil {
				return nil, s.fail(err)
			}
			s.usedDB = true
		}
		st, err := s.conn.PrepareContext(ctx, text)
		if err != nil {
			return nil, s.fail(err)
		}
		p.st, p.owned = st, true
	case s.st.opts.connect == "pool" && s.tx != nil:
		if p.st = s.st.sharedOnly(text); p.st == nil {
			p.later = true
			s.later = append(s.later, text)
		}
	case s.st.opts.connect == "pool":
		st, shared, err := s.st.sharedSQL(ctx, text)
		if err != nil {
			return nil, s.fail(err)
		}
		p.st, p.owned = st, !shared
	}
	if s.sql == nil {
		s.sql = map[string]*sqlStmt{}
	}
	s.sql[text] = p
	return p, nil
}

// sharedSQL returns the pool's statement for text, preparing it once for
// every connect=pool session, and reports whether the pool keeps it. Once
// the pool holds maxStatements, a new text is prepared for the asking
// session alone, which closes it when it drops it.
//
// The store's lock is not held while the statement is prepared, which
// waits for a pooled connection: a client in a transaction, holding one,
// asks the pool's statements too (sharedOnly).
func (s *Store) sharedSQL(ctx context.Context, text string) (st *sql.Stmt, shared bool, err error) {
	if st := s.sharedOnly(text); st != nil {
		return st, true, nil
	}
	if st, err = s.db.PrepareContext(ctx, text); err != nil {
		return nil, false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if other := s.sqlPool[text]; other != nil { // another session's, meanwhile
		st.Close()
		return other, true, nil
	}
	if len(s.sqlPool) >= maxStatements {
		return st, false, nil
	}
	if s.sqlPool == nil {
		s.sqlPool = map[string]*sql.Stmt{}
	}
	s.sqlPool[text] = st
	return st, true, nil
}

// sharedOnly returns the pool's statement for text, nil if it has none.
func (s *Store) sharedOnly(text string) *sql.Stmt {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sqlPool[text]
}

// stmt returns the statement to run p's text with: inside a pool
// transaction, the shared statement on the transaction's connection, or
// the text prepared on the transaction when the pool has not prepared it.
func (s *session) stmt(ctx context.Context, text string, p *sqlStmt) (*sql.Stmt, error) {
	switch {
	case s.tx == nil:
		return p.st, nil
	case p.st != nil:
		return s.tx.StmtContext(ctx, p.st), nil
	case p.txSt == nil:
		st, err := s.tx.PrepareContext(ctx, text)
		if err != nil {
			return nil, s.fail(err)
		}
		p.txSt = st
	}
	return p.txSt, nil
}

// shareLater prepares on the pool the texts a pool transaction met first,
// once it has let its connection go (end). A text that fails is
// forgotten, to be prepared again when next run.
func (s *session) shareLater(ctx context.Context) {
	for _, text := range s.later {
		p := s.sql[text]
		if p == nil || !p.later { // dropped since
			continue
		}
		p.later, p.txSt = false, nil // Commit and Rollback closed txSt
		st, shared, err := s.st.sharedSQL(ctx, text)
		if err != nil {
			delete(s.sql, text)
			continue
		}
		p.st, p.owned = st, !shared
	}
	clear(s.later)
	s.later = s.later[:0]
}

// Exec runs a statement and returns the rows it matched.
func (s *session) Exec(ctx context.Context, text string, args ...any) (int64, error) {
	if s.w != nil {
		return s.wireExec(ctx, text, args)
	}
	p, err := s.sqlStmt(ctx, text)
	if err != nil {
		return 0, err
	}
	st, err := s.stmt(ctx, text, p)
	if err != nil {
		return 0, err
	}
	res, err := st.ExecContext(ctx, args...)
	return s.affected(res, err)
}

func (s *session) affected(res sql.Result, err error) (int64, error) {
	if err != nil {
		return 0, s.fail(err)
	}
	n, err := res.RowsAffected()
	return n, s.fail(err)
}

// Query runs a statement and reads every row, counting rows and bytes.
func (s *session) Query(ctx context.Context, text string, args []any, fn func(first int64)) (int, int64, error) {
	if s.w != nil {
		return s.wireQuery(ctx, text, args, fn)
	}
	p, err := s.sqlStmt(ctx, text)
	if err != nil {
		return 0, 0, err
	}
	st, err := s.stmt(ctx, text, p)
	if err != nil {
		return 0, 0, err
	}
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return 0, 0, s.fail(err)
	}
	return s.readSQL(p, rows, fn)
}

// Exec runs a statement on a connection of its own, the arguments
// interpolated by the driver.
func (p *perOpSession) Exec(ctx context.Context, text string, args ...any) (int64, error) {
	c, err := p.open(ctx)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	res, err := c.ExecContext(ctx, text, args...)
	return p.affected(res, err)
}

// Query runs a statement on a connection of its own and reads every row.
func (p *perOpSession) Query(ctx context.Context, text string, args []any, fn func(first int64)) (int, int64, error) {
	m, err := p.sqlStmt(ctx, text)
	if err != nil {
		return 0, 0, err
	}
	c, err := p.open(ctx)
	if err != nil {
		return 0, 0, err
	}
	defer c.Close()
	rows, err := c.QueryContext(ctx, text, args...)
	if err != nil {
		return 0, 0, p.fail(err)
	}
	return p.readSQL(m, rows, fn)
}

// readSQL reads every row of rows into the session's columns.
func (s *session) readSQL(p *sqlStmt, rows *sql.Rows, fn func(int64)) (int, int64, error) {
	defer rows.Close()
	if p.cols < 0 {
		if err := s.describe(p, rows); err != nil {
			return 0, 0, err
		}
	}
	n := 0
	var size int64
	for rows.Next() {
		dest := s.sqlDest[:p.cols]
		s.sqlCols[0].decimal = p.decimal
		if err := rows.Scan(dest...); err != nil {
			// The text's columns may have changed since they were
			// learned (SELECT * of a table altered since): learn them
			// again and scan the same row once more.
			if err := s.describe(p, rows); err != nil {
				return n, size, err
			}
			dest = s.sqlDest[:p.cols]
			s.sqlCols[0].decimal = p.decimal
			if err := rows.Scan(dest...); err != nil {
				return n, size, s.fail(err)
			}
		}
		for i := range dest {
			size += s.sqlCols[i].size
		}
		if fn != nil && p.cols > 0 {
			fn(s.sqlCols[0].int)
		}
		n++
	}
	return n, size, s.fail(rows.Err())
}

// describe learns the number and first type of a statement's result
// columns, and makes room for them in the session's scratch.
func (s *session) describe(p *sqlStmt, rows *sql.Rows) error {
	types, err := rows.ColumnTypes()
	if err != nil {
		return s.fail(err)
	}
	p.cols = len(types)
	p.decimal = len(types) > 0 && types[0].DatabaseTypeName() == "DECIMAL"
	if len(s.sqlCols) < max(p.cols, 1) {
		s.sqlCols = make([]sqlCol, max(p.cols, 1))
		s.sqlDest = make([]any, len(s.sqlCols))
		for i := range s.sqlCols {
			s.sqlDest[i] = &s.sqlCols[i]
		}
	}
	return nil
}

// errPerOpTx is the answer of Begin, Commit and Rollback under
// connect=per-op.
var errPerOpTx = fmt.Errorf("mysql: %w", store.ErrNoTransactions)

// Begin starts a transaction on the session's connection, or on a pooled
// connection held until Commit or Rollback (connect=pool).
func (s *session) Begin(ctx context.Context) error {
	switch {
	case s.st.opts.connect == "per-op":
		return errPerOpTx
	case s.inTx:
		return errors.New("mysql: Begin inside a transaction; Commit or Rollback it first")
	case s.w != nil:
		return s.wireBegin(ctx)
	case s.conn != nil:
		if _, err := s.conn.ExecContext(ctx, "BEGIN"); err != nil {
			return s.fail(err)
		}
	default:
		c, err := s.db.Conn(ctx)
		if err != nil {
			return scrub(classify(err, true), s.st.secret)
		}
		// Not ctx: database/sql rolls a Tx back when its context ends,
		// and an engine may cancel Begin's when Begin returns.
		tx, err := c.BeginTx(context.WithoutCancel(ctx), nil)
		if err != nil {
			c.Close()
			return s.fail(err)
		}
		s.txConn, s.tx = c, tx
	}
	s.inTx = true
	return nil
}

// Commit ends the transaction, keeping its changes.
func (s *session) Commit(ctx context.Context) error { return s.end(ctx, "COMMIT") }

// Rollback ends the transaction, undoing its changes.
func (s *session) Rollback(ctx context.Context) error { return s.end(ctx, "ROLLBACK") }

func (s *session) end(ctx context.Context, verb string) error {
	switch {
	case s.st.opts.connect == "per-op":
		return errPerOpTx
	case !s.inTx:
		return fmt.Errorf("mysql: %s without a transaction; call Begin first", verb)
	}
	if s.w != nil {
		return s.wireEnd(ctx, verb)
	}
	s.inTx = false
	if s.tx == nil {
		_, err := s.conn.ExecContext(ctx, verb)
		return s.fail(err)
	}
	var err error
	if verb == "COMMIT" {
		err = s.tx.Commit()
	} else {
		err = s.tx.Rollback()
	}
	s.tx = nil
	s.txConn.Close()
	s.txConn = nil
	s.shareLater(ctx)
	return s.fail(err)
}

// closeSQL ends an open transaction and closes the session's own
// statements (a pool's are the store's).
func (s *session) closeSQL() {
	if s.tx != nil {
		s.tx.Rollback()
		s.txConn.Close()
		s.tx, s.txConn = nil, nil
	}
	s.inTx = false
	clear(s.later)
	s.later = s.later[:0]
	s.dropStatements()
}

// dropStatements forgets the session's statements, closing those it owns.
func (s *session) dropStatements() {
	for _, p := range s.sql {
		if p.owned {
			p.st.Close()
		}
	}
	s.sql = nil
}

// Bulk loading.
//
// BulkLoad streams the rows to LOAD DATA LOCAL INFILE as tab-separated
// text, through a reader registered with the driver under a name of its
// own (Reader::kurabe-<random>) for the one statement: no file, and no
// more memory than one row and the driver's 16 KiB packet. The driver is
// configured with AllowAllFiles=false, so a server can only ever get the
// reader it was given, never a file it names. The load runs in a
// transaction with the warnings checked before COMMIT: with LOCAL the
// server cannot stop the sender, so it turns errors such as a duplicate
// key into warnings and skips the row, and BulkLoad makes them an error
// (on InnoDB nothing is kept; MyISAM and Aria keep what was loaded).
//
// The server must allow LOCAL (local_infile=ON): a managed server is
// started with it. When a server has it off, or refuses the statement for
// that reason before any row was read, BulkLoad falls back to multi-row
// INSERTs in one transaction, and Info says so under Facts["bulk_load"].

// loadDataRefused are the errors of a server that does not allow LOAD
// DATA LOCAL: ER_NOT_ALLOWED_COMMAND, MySQL 8's
// ER_CLIENT_LOCAL_FILES_DISABLED and MariaDB 11's
// ER_LOAD_INFILE_CAPABILITY_DISABLED.
var loadDataRefused = []uint16{1148, 3948, 4166}

const (
	bulkLoadData = "LOAD DATA LOCAL INFILE"
	bulkInsert   = "multi-row INSERT (the server has local_infile=OFF)"
)

// BulkLoad inserts every row next yields into one of kurabe's tables and
// returns how many the server took.
func (s *Store) BulkLoad(ctx context.Context, t *store.Table, next func() (store.Row, bool)) (int64, error) {
	n, err := s.bulkLoad(ctx, t, next)
	return n, scrub(err, s.secret)
}

func (s *Store) bulkLoad(ctx context.Context, t *store.Table, next func() (store.Row, bool)) (int64, error) {
	// Never the lock's connection (own): the load kind times this call,
	// and a client that won the kept connection would skip the connect
	// that the others pay; a load cut off would take the lock with it.
	if err := s.ready(ctx); err != nil {
		return 0, err
	}
	c, err := s.fresh(ctx)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	o, err := s.owner(ctx, c, t.Name)
	switch {
	case err != nil:
		return 0, err
	case o == absent:
		return 0, fmt.Errorf("%s: table %s does not exist; run Setup first", s.driver, s.qualified(t.Name))
	case o != ours:
		return 0, s.refusal(t.Name, o)
	}
	var cols []int
	for i := range t.Columns {
		if i > 0 || !t.AutoKey {
			cols = append(cols, i)
		}
	}
	if len(cols) == 0 {
		return 0, fmt.Errorf("%s: table %s has no columns to load but its key, which the server assigns", s.driver, t.Name)
	}
	var local bool
	if err := c.QueryRowContext(ctx, "SELECT @@local_infile").Scan(&local); err != nil {
		return 0, fmt.Errorf("%s: %w", s.driver, classify(err, false))
	}
	if local {
		r := &tsvReader{ctx: ctx, t: t, cols: cols, next: next}
		n, err := s.loadData(ctx, c, t, r)
		var me *mysql.MySQLError
		if err == nil || r.rows > 0 || !errors.As(err, &me) || !slices.Contains(loadDataRefused, me.Number) {
			if err == nil {
				s.setBulkPath(bulkLoadData)
			}
			return n, err
		}
	}
	n, err := s.insertLoad(ctx, c, t, next)
	if err == nil {
		s.setBulkPath(bulkInsert)
	}
	return n, err
}

func (s *Store) setBulkPath(path string) {
	s.mu.Lock()
	s.bulkPath = path
	s.mu.Unlock()
}

// loadData runs LOAD DATA LOCAL INFILE with r as the file, in a
// transaction that is committed only if the server reports no warning.
func (s *Store) loadData(ctx context.Context, c *sql.Conn, t *store.Table, r *tsvReader) (int64, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return 0, fmt.Errorf("%s: %w", s.driver, err)
	}
	name := "kurabe-" + hex.EncodeToString(b[:])
	mysql.RegisterReaderHandler(name, func() io.Reader { return r })
	defer mysql.DeregisterReaderHandler(name)
	names := make([]string, len(r.cols))
	for j, i := range r.cols {
		names[j] = quote(t.Columns[i].Name)
	}
	// The separators are hex literals, which read the same whatever the
	// sql_mode (NO_BACKSLASH_ESCAPES would change '\t').
	q := "LOAD DATA LOCAL INFILE 'Reader::" + name + "' INTO TABLE " + s.qualified(t.Name) +
		" CHARACTER SET utf8mb4 FIELDS TERMINATED BY X'09' ENCLOSED BY '' ESCAPED BY X'5C' LINES TERMINATED BY X'0A' (" +
		strings.Join(names, ", ") + ")"
	if _, err := c.ExecContext(ctx, "BEGIN"); err != nil {
		return 0, fmt.Errorf("%s: %w", s.driver, classify(err, false))
	}
	res, err := c.ExecContext(ctx, q)
	if err != nil {
		c.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		return 0, fmt.Errorf("%s: loading %s: %w", s.driver, s.qualified(t.Name), classify(err, false))
	}
	n, err := res.RowsAffected()
	if err == nil {
		err = s.loadWarnings(ctx, c, n, r.rows)
	}
	if err != nil {
		c.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		return 0, fmt.Errorf("%s: loading %s: %w", s.driver, s.qualified(t.Name), err)
	}
	if _, err := c.ExecContext(ctx, "COMMIT"); err != nil {
		return 0, fmt.Errorf("%s: committing the load of %s: %w", s.driver, s.qualified(t.Name), classify(err, false))
	}
	return n, nil
}

// loadWarnings returns an error quoting the server's first warnings about
// the load, if it had any, or if it took fewer rows than were sent.
func (s *Store) loadWarnings(ctx context.Context, c *sql.Conn, loaded, sent int64) error {
	rows, err := c.QueryContext(ctx, "SHOW WARNINGS LIMIT 3")
	if err != nil {
		return classify(err, false)
	}
	defer rows.Close()
	var msgs []string
	for rows.Next() {
		var level, msg string
		var code int
		if err := rows.Scan(&level, &code, &msg); err != nil {
			return classify(err, false)
		}
		if level != "Note" {
			msgs = append(msgs, fmt.Sprintf("%s %d: %s", level, code, msg))
		}
	}
	if err := rows.Err(); err != nil {
		return classify(err, false)
	}
	if len(msgs) == 0 && loaded == sent {
		return nil
	}
	undo := "nothing was kept"
	if s.opts.engine != "InnoDB" {
		undo = "engine " + s.opts.engine + " has no transactions, so the rows it took stay"
	}
	return fmt.Errorf("the server took %d of %d rows and warned (%s); %s", loaded, sent, strings.Join(msgs, "; "), undo)
}

// tsvReader is the file LOAD DATA reads: the rows as tab-separated lines,
// encoded one row at a time into buf as the driver asks for more.
type tsvReader struct {
	ctx  context.Context
	t    *store.Table
	cols []int // the row values to send, in order
	next func() (store.Row, bool)
	buf  []byte // the encoded row not yet read, from off
	off  int
	rows int64 // rows read from next
	done bool
	err  error
}

func (r *tsvReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if r.off < len(r.buf) {
			c := copy(p[n:], r.buf[r.off:])
			r.off += c
			n += c
			continue
		}
		if r.done || r.err != nil {
			break
		}
		if r.rows%1024 == 0 {
			if r.err = r.ctx.Err(); r.err != nil {
				break
			}
		}
		row, ok := r.next()
		if !ok {
			r.done = true
			break
		}
		if len(row) < len(r.t.Columns) {
			r.err = fmt.Errorf("a row for %s has %d values, want %d", r.t.Name, len(row), len(r.t.Columns))
			break
		}
		r.rows++
		r.buf, r.off = appendRow(r.buf[:0], r.t, r.cols, row), 0
	}
	switch {
	case n > 0:
		return n, nil
	case r.err != nil:
		return 0, r.err
	}
	return 0, io.EOF
}

// appendRow appends a row as one line of LOAD DATA's default format:
// fields separated by tabs, the line ended by a newline, and in a text the
// escape character, tab, newline, carriage return and NUL written as \\,
// \t, \n, \r and \0. A nil text is loaded as an empty one, as Insert
// stores it (the columns are NOT NULL).
func appendRow(b []byte, t *store.Table, cols []int, row store.Row) []byte {
	for j, i := range cols {
		if j > 0 {
			b = append(b, '\t')
		}
		if t.Columns[i].Kind == store.Int {
			b = strconv.AppendInt(b, row[i].Int, 10)
		} else {
			b = appendEscaped(b, row[i].Text)
		}
	}
	return append(b, '\n')
}

func appendEscaped(b, v []byte) []byte {
	start := 0
	for i, c := range v {
		var esc byte
		switch c {
		case '\\':
			esc = '\\'
		case '\t':
			esc = 't'
		case '\n':
			esc = 'n'
		case '\r':
			esc = 'r'
		case 0:
			esc = '0'
		default:
			continue
		}
		b = append(b, v[start:i]...)
		b = append(b, '\\', esc)
		start = i + 1
	}
	return append(b, v[start:]...)
}

// insertLoad is BulkLoad without LOCAL: multi-row INSERTs of up to
// insertLoadRows rows, each as large as fits in a packet, in one
// transaction. The rows are copied into one reused buffer per batch, so
// memory stays that of one batch.
func (s *Store) insertLoad(ctx context.Context, c *sql.Conn, t *store.Table, next func() (store.Row, bool)) (int64, error) {
	const insertLoadRows = 1000
	ss := &session{st: s, conn: c}
	defer func() {
		for _, p := range ss.stmts {
			if p != nil {
				p.close()
			}
		}
	}()
	q := ss.query(t)
	var (
		pending []store.Row
		spans   [][2]int // each pending row's texts in arena, in column order
		arena   []byte
		loaded  int64
	)
	budget := s.maxPacket / 4
	flush := func() error {
		// Point the rows at their texts now that arena no longer grows.
		k := 0
		for _, r := range pending {
			for i, col := range t.Columns {
				if col.Kind == store.Text {
					r[i].Text = arena[spans[k][0]:spans[k][1]:spans[k][1]]
					k++
				}
			}
		}
		rows := pending
		for len(rows) > 0 {
			n := ss.fits(t, rows, q, false)
			st, err := ss.batchStmt(ctx, t, q, n)
			if err != nil {
				return err
			}
			args := ss.args[:0]
			for _, r := range rows[:n] {
				args = bind(args, t, r)
			}
			res, err := st.ExecContext(ctx, args...)
			ss.args = clearArgs(args)
			if err != nil {
				return classify(err, false)
			}
			m, err := res.RowsAffected()
			if err != nil {
				return classify(err, false)
			}
			loaded += m
			rows = rows[n:]
		}
		pending, spans, arena = pending[:0], spans[:0], arena[:0]
		return nil
	}
	if _, err := c.ExecContext(ctx, "BEGIN"); err != nil {
		return 0, fmt.Errorf("%s: %w", s.driver, classify(err, false))
	}
	fail := func(err error) (int64, error) {
		c.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		return 0, fmt.Errorf("%s: loading %s by INSERT: %w", s.driver, s.qualified(t.Name), err)
	}
	for {
		row, ok := next()
		if !ok {
			break
		}
		if len(row) < len(t.Columns) {
			return fail(fmt.Errorf("a row for %s has %d values, want %d", t.Name, len(row), len(t.Columns)))
		}
		var r store.Row
		if len(pending) < cap(pending) {
			r = pending[:len(pending)+1][len(pending)]
		}
		if len(r) < len(t.Columns) {
			r = make(store.Row, len(t.Columns))
		}
		for i, col := range t.Columns {
			r[i] = store.Value{Int: row[i].Int}
			if col.Kind == store.Text {
				spans = append(spans, [2]int{len(arena), len(arena) + len(row[i].Text)})
				arena = append(arena, row[i].Text...)
			}
		}
		pending = append(pending, r)
		if len(pending) == insertLoadRows || len(arena) > budget {
			if err := flush(); err != nil {
				return fail(err)
			}
		}
	}
	if err := flush(); err != nil {
		return fail(err)
	}
	if _, err := c.ExecContext(ctx, "COMMIT"); err != nil {
		return 0, fmt.Errorf("%s: committing the load of %s: %w", s.driver, s.qualified(t.Name), classify(err, false))
	}
	return loaded, nil
}
