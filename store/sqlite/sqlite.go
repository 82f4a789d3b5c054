// Package sqlite is the SQLite store, on github.com/ncruces/go-sqlite3's
// direct API (no cgo, no database/sql: one less layer of allocation per
// query). Each session owns its own connection and prepared statements, as
// separate processes of a web application would.
//
// connect=per-op opens the database for every operation, as a PHP page
// without persistent connections does; the time spent opening is reported
// apart.
//
// Options are SQLite's own pragmas, given as DSN query parameters and read
// back after they are applied: page_size, journal_mode, synchronous,
// cache_size, busy_timeout. busy_timeout defaults to 5000 ms so concurrent
// writers wait for the lock instead of failing; a real SQLITE_BUSY after the
// timeout is counted as an error of class "busy".
//
// Tables are named kurabe_<table>, and kurabe_meta lists the ones kurabe
// created, each with the token that kurabe put in a comment in its CREATE
// TABLE, which SQLite keeps as the table's text: a kurabe_ table missing
// from it, or listed but without the token (made again by hand under the
// name), is never dropped, emptied or loaded into.
package sqlite

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ncruces/go-sqlite3"

	"kurabe/numfmt"
	"kurabe/store"
)

const prefix = "kurabe_"

// Store is an SQLite database file.
type Store struct {
	path   string
	pragma []pragma // applied in order on every connection
	perOp  bool     // connect=per-op: open the database for every operation
	// throwaway: the database is kurabe's own, in its data directory,
	// and no other kurabe can reach it (no lock).
	throwaway bool
}

type pragma struct {
	name, value string
	perDB       bool // stored in the database file: set at setup only
}

// Options the driver accepts, in the order they are applied. busy_timeout
// comes first so the others wait for a lock too; page_size must come before
// journal_mode=wal, which fixes the page size.
var known = []struct {
	name  string
	perDB bool
	valid func(string) bool
	want  string
}{
	{"busy_timeout", false, isNonNegInt, "milliseconds, 0 or more"},
	{"page_size", true, isPow2Between(512, 65536), "a power of two from 512 to 65536"},
	{"journal_mode", true, oneOf("delete", "truncate", "persist", "memory", "wal", "off"), "delete, truncate, persist, memory, wal or off"},
	{"synchronous", false, oneOf("off", "normal", "full", "extra", "0", "1", "2", "3"), "off, normal, full or extra"},
	{"cache_size", false, isInt, "an integer (pages, or KiB when negative)"},
}

func oneOf(vs ...string) func(string) bool {
	return func(v string) bool {
		for _, x := range vs {
			if strings.EqualFold(v, x) {
				return true
			}
		}
		return false
	}
}

func isInt(v string) bool { _, err := strconv.Atoi(v); return err == nil }

func isNonNegInt(v string) bool { n, err := strconv.Atoi(v); return err == nil && n >= 0 }

func isPow2Between(lo, hi int) func(string) bool {
	return func(v string) bool {
		n, err := strconv.Atoi(v)
		return err == nil && n >= lo && n <= hi && n&(n-1) == 0
	}
}

// Open opens an SQLite store. The target is the database file; without one
// the database is bbs.db in the store's data directory.
func Open(ctx context.Context, spec store.Spec, env store.Env) (store.Store, error) {
	o := store.NewOptions(spec)
	s := &Store{path: spec.Target}
	for _, k := range known {
		def := ""
		if k.name == "busy_timeout" {
			def = "5000"
		}
		v := o.Get(k.name, def)
		if v == "" {
			continue
		}
		if !k.valid(v) {
			return nil, &store.OptionError{Driver: "sqlite", Name: k.name, Value: v, Want: k.want}
		}
		s.pragma = append(s.pragma, pragma{k.name, strings.ToLower(v), k.perDB})
	}
	switch c := strings.ToLower(o.Get("connect", "session")); c {
	case "session":
	case "per-op":
		s.perOp = true
	default:
		return nil, &store.OptionError{Driver: "sqlite", Name: "connect", Value: c, Want: "session (one connection per client) or per-op (open the database for every operation, as a PHP page does)"}
	}
	if err := o.Check(); err != nil {
		return nil, err
	}
	if s.path == "" {
		if env.Dir == "" {
			return nil, errors.New("sqlite: no database path given and no data directory; give sqlite:/path/to/bbs.db")
		}
		s.path = filepath.Join(env.Dir, "kurabe.db")
		s.throwaway = true
	}
	if dir := filepath.Dir(s.path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("sqlite: cannot create directory %s: %v; choose a writable path", dir, err)
		}
	}
	if err := checkDatabase(s.path); err != nil {
		return nil, err
	}
	return s, nil
}

// LockName is the absolute path of the lock file beside the database, or
// "" for a database of kurabe's own data directory.
func (s *Store) LockName() string {
	if s.throwaway {
		return ""
	}
	p, err := filepath.Abs(s.path)
	if err != nil {
		p = s.path
	}
	return p + ".kurabe-lock"
}

// Lock takes the flock on the file LockName names.
func (s *Store) Lock(ctx context.Context, me store.Holder) (io.Closer, error) {
	return store.LockFile(s.LockName(), "kurabe's tables in "+s.path, "another database file", me)
}

// header is how every SQLite database file begins.
const header = "SQLite format 3\x00"

// checkDatabase says what is wrong with a path that names something other
// than an SQLite database or a file to create: SQLite opens any file and
// fails only at the first query ("file is not a database"), after the
// run's settings were read back empty from it.
func checkDatabase(path string) error {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil // created at the first connection
	case err != nil:
		return fmt.Errorf("sqlite: %v", err)
	case fi.IsDir():
		return fmt.Errorf("sqlite: %s is a directory; give the path of a database file in it, e.g. sqlite:%s", path, filepath.Join(path, "kurabe.db"))
	case fi.Size() == 0:
		return nil // an empty file is an empty database to SQLite
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("sqlite: cannot read %s: %v; check the path is a readable file", path, err)
	}
	defer f.Close()
	b := make([]byte, len(header))
	if _, err := io.ReadFull(f, b); err != nil || string(b) != header {
		return fmt.Errorf("sqlite: %s is not an SQLite database (it does not begin with SQLite's header); give the path of a database, or of a file to create", path)
	}
	return nil
}

// conn opens a connection with the per-connection pragmas applied (and the
// per-database ones too when setup is true). Only setup creates the
// database file: a store that never started leaves none behind, and a
// file removed while kurabe ran is reported missing by the count that
// verifies the run, not made anew and empty.
func (s *Store) conn(setup bool) (*sqlite3.Conn, error) {
	flags := sqlite3.OPEN_READWRITE | sqlite3.OPEN_URI
	if setup {
		flags |= sqlite3.OPEN_CREATE
	}
	c, err := sqlite3.OpenFlags(s.path, flags)
	if err != nil {
		if _, serr := os.Stat(s.path); !setup && errors.Is(serr, os.ErrNotExist) {
			return nil, fmt.Errorf("sqlite: %s is gone: the database file was removed while kurabe ran", s.path)
		}
		return nil, fmt.Errorf("sqlite: cannot open %s: %w; check the path is a writable file", s.path, err)
	}
	for _, p := range s.pragma {
		if p.perDB && !setup {
			continue
		}
		if err := c.Exec("PRAGMA " + p.name + " = " + p.value); err != nil {
			c.Close()
			return nil, fmt.Errorf("sqlite: PRAGMA %s=%s: %w", p.name, p.value, s.classify(err))
		}
	}
	return c, nil
}

// Setup creates kurabe's tables empty, dropping earlier ones kurabe made.
// Whether it may is checked first, before anything is made or set in the
// file (kurabe_meta, or a pragma the file keeps, such as journal_mode=wal),
// so that a refused run leaves the database as it was; then everything is
// made in one transaction, so that a failure leaves nothing half made, and
// each table is checked again in it, just before it is dropped.
func (s *Store) Setup(ctx context.Context, tables []*store.Table) error {
	if err := s.checkOwned(tables); err != nil {
		return err
	}
	c, err := s.conn(true)
	if err != nil {
		return err
	}
	defer c.Close()
	return s.inTx(c, func() error {
		shape, err := s.metaShape(c)
		if err != nil {
			return err
		}
		switch shape {
		case "":
			err = s.exec(c, "CREATE TABLE "+metaTable+" (name TEXT PRIMARY KEY, created INTEGER NOT NULL, token TEXT)")
		case metaColumnsOld:
			err = s.exec(c, "ALTER TABLE "+metaTable+" ADD COLUMN token TEXT")
		}
		if err != nil {
			return err
		}
		token, err := s.token(c)
		if err != nil {
			return err
		}
		for _, t := range tables {
			if err := s.mayReplace(c, metaColumns, t); err != nil {
				return err
			}
			name := prefix + t.Name
			stmts := []string{"DROP TABLE IF EXISTS " + name, createSQL(t, token)}
			for _, ix := range t.Indexes {
				stmts = append(stmts, "CREATE INDEX "+store.IndexName(t.Name, ix, math.MaxInt)+" ON "+name+" ("+strings.Join(ix, ", ")+")")
			}
			for _, q := range stmts {
				if err := s.exec(c, q); err != nil {
					return err
				}
			}
			if err := s.execArgs(c, "INSERT OR REPLACE INTO "+metaTable+" (name, created, token) VALUES (?, unixepoch(), ?)", name, token); err != nil {
				return err
			}
		}
		return nil
	})
}

// inTx runs fn in a write transaction on c, committed when fn succeeds
// and rolled back otherwise.
func (s *Store) inTx(c *sqlite3.Conn, fn func() error) error {
	if err := c.Exec("BEGIN IMMEDIATE"); err != nil {
		return fmt.Errorf("sqlite: %s: BEGIN IMMEDIATE: %w", s.path, s.classify(err))
	}
	err := fn()
	if err == nil {
		if e := c.Exec("COMMIT"); e != nil {
			err = fmt.Errorf("sqlite: %s: COMMIT: %w", s.path, s.classify(e))
		}
	}
	if err != nil && !c.GetAutocommit() {
		c.Exec("ROLLBACK")
	}
	return err
}

func (s *Store) exec(c *sqlite3.Conn, q string) error {
	if err := c.Exec(q); err != nil {
		return fmt.Errorf("sqlite: %s: %w", q, s.classify(err))
	}
	return nil
}

// execArgs runs q with its ? bound to args, as text.
func (s *Store) execArgs(c *sqlite3.Conn, q string, args ...string) error {
	st, _, err := c.Prepare(q)
	if err == nil {
		for i, a := range args {
			if err = st.BindText(i+1, a); err != nil {
				break
			}
		}
		if err == nil {
			err = st.Exec()
		}
		st.Close()
	}
	if err != nil {
		return fmt.Errorf("sqlite: %s: %w", q, s.classify(err))
	}
	return nil
}

// lookup runs q with its ? bound to args and returns the first row's
// columns as text, and whether each is NULL; found is false for no row.
func (s *Store) lookup(c *sqlite3.Conn, q string, args ...string) (cols []string, null []bool, found bool, err error) {
	st, _, err := c.Prepare(q)
	if err != nil {
		return nil, nil, false, fmt.Errorf("sqlite: %s: %w", q, s.classify(err))
	}
	defer st.Close()
	for i, a := range args {
		if err := st.BindText(i+1, a); err != nil {
			return nil, nil, false, fmt.Errorf("sqlite: %s: %w", q, s.classify(err))
		}
	}
	if !st.Step() {
		if err := st.Err(); err != nil {
			return nil, nil, false, fmt.Errorf("sqlite: %s: %w", q, s.classify(err))
		}
		return nil, nil, false, nil
	}
	for i := range st.ColumnCount() {
		cols = append(cols, st.ColumnText(i))
		null = append(null, st.ColumnType(i) == sqlite3.NULL)
	}
	return cols, null, true, nil
}

const (
	// metaTable lists the tables kurabe created: each one's name, when
	// it was made, and the token in its CREATE TABLE's comment;
	// metaColumnsOld are the columns of earlier kurabe, without the token.
	metaTable      = prefix + "meta"
	metaColumns    = "name, created, token"
	metaColumnsOld = "name, created"
	// commentPrefix starts the comment kurabe puts in every CREATE TABLE
	// it runs, followed by the file's token.
	commentPrefix = "kurabe:"
)

// tokenRE is a token kurabe made: 36 hex digits.
var tokenRE = regexp.MustCompile(`^[0-9a-f]{36}$`)

// token is the token of kurabe's tables in this file: the one kurabe_meta
// has, or a new one.
func (s *Store) token(c *sqlite3.Conn) (string, error) {
	cols, _, found, err := s.lookup(c, "SELECT token FROM "+metaTable+" WHERE token IS NOT NULL ORDER BY created LIMIT 1")
	if err != nil {
		return "", err
	}
	if found && tokenRE.MatchString(cols[0]) {
		return cols[0], nil
	}
	var b [18]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("sqlite: cannot make up a token for kurabe's tables: %v", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// ownership is what a name in the database file is to kurabe.
type ownership uint8

const (
	absent   ownership = iota // nothing by that name
	foreign                   // something kurabe_meta does not list
	replaced                  // listed, but not the table kurabe made: another by its name
	unproven                  // listed by an earlier kurabe without a token, and made again or altered since
	ours                      // the table kurabe made
)

// metaShape is kurabe_meta's columns, "" when there is none; a table (or
// view) of someone else's by that name is an error.
func (s *Store) metaShape(c *sqlite3.Conn) (string, error) {
	cols, _, found, err := s.lookup(c, "SELECT type, (SELECT group_concat(name, ', ') FROM (SELECT name FROM pragma_table_info(?) ORDER BY cid)) FROM sqlite_master WHERE name = ?", metaTable, metaTable)
	switch {
	case err != nil:
		return "", err
	case !found:
		return "", nil
	case cols[0] == "table" && (cols[1] == metaColumns || cols[1] == metaColumnsOld):
		return cols[1], nil
	}
	return "", s.refusal(metaTable, foreign)
}

// owner says what t's name in the file is to kurabe. SQLite keeps the
// text of the CREATE TABLE that made a table, comments and all, and
// edits it in place for ALTER TABLE (a rename changes the name in it, an
// added column is put in its list), so kurabe makes every table with the
// comment kurabe:TOKEN after its name and lists it in kurabe_meta with
// the token, a random one per file: a table someone made again under the
// name has no such comment. An entry of an earlier kurabe (shape
// metaColumnsOld, or a NULL token), which kept no token, is taken as
// kurabe's while the table's text is still, to the byte, the CREATE TABLE
// kurabe ran for it (or that after kurabe's swap renamed it into place):
// one made again by hand or altered since is refused.
func (s *Store) owner(c *sqlite3.Conn, shape string, t *store.Table) (ownership, error) {
	name := prefix + t.Name
	obj, _, found, err := s.lookup(c, "SELECT type, coalesce(sql, '') FROM sqlite_master WHERE name = ?", name)
	if err != nil || !found {
		return absent, err
	}
	if shape == "" {
		return foreign, nil
	}
	tokenCol := "token"
	if shape == metaColumnsOld {
		tokenCol = "NULL"
	}
	entry, null, listed, err := s.lookup(c, "SELECT "+tokenCol+" FROM "+metaTable+" WHERE name = ?", name)
	switch {
	case err != nil:
		return 0, err
	case !listed:
		return foreign, nil
	case obj[0] != "table":
		return replaced, nil
	case !null[0] && madeWith(obj[1], name, entry[0]):
		return ours, nil
	case null[0] && (obj[1] == "CREATE TABLE "+name+" "+columnsSQL(t) || obj[1] == "CREATE TABLE \""+name+"\" "+columnsSQL(t)):
		return ours, nil
	case null[0]:
		return unproven, nil
	}
	return replaced, nil
}

// madeWith says whether def, a table's text in sqlite_master, is that of
// a CREATE TABLE name kurabe ran with the token, or of the table it made
// renamed to name (SQLite quotes the new name).
func madeWith(def, name, token string) bool {
	rest, ok := strings.CutPrefix(def, "CREATE TABLE ")
	if !ok {
		return false
	}
	if r, ok := strings.CutPrefix(rest, name+" "); ok {
		rest = r
	} else if r, ok := strings.CutPrefix(rest, "\""+name+"\" "); ok {
		rest = r
	} else {
		return false
	}
	return strings.HasPrefix(rest, "/* "+commentPrefix+token+" */ (")
}

// mayReplace refuses a table by t's name that is not the one kurabe
// made; one that is not there, or is kurabe's, may be dropped.
func (s *Store) mayReplace(c *sqlite3.Conn, shape string, t *store.Table) error {
	o, err := s.owner(c, shape, t)
	if err != nil || o == absent || o == ours {
		return err
	}
	return s.refusal(prefix+t.Name, o)
}

// refusal is the error for a table kurabe may not change, by what it is,
// in the servers' words.
func (s *Store) refusal(name string, o ownership) error {
	if name == metaTable {
		return fmt.Errorf("sqlite: table %s in %s exists and was %w (kurabe's list of its tables has the columns %s), so it was left as it is; give kurabe another database file", metaTable, s.path, store.ErrNotOwned, metaColumns)
	}
	why := "it is not in " + metaTable
	switch o {
	case replaced:
		why = metaTable + " lists a table of that name, but this is not the table kurabe made: it was replaced since"
	case unproven:
		why = metaTable + " lists it, from an earlier kurabe that did not mark the tables it made, and the table was made again or altered since, so kurabe cannot tell it is the one it made"
	}
	return fmt.Errorf("sqlite: table %s in %s exists and was %w (%s), so it was left as it is; drop it yourself if it may go, or give kurabe another database file", name, s.path, store.ErrNotOwned, why)
}

// checkOwned refuses tables Setup would drop that kurabe did not create,
// and a kurabe_meta that is not kurabe's (of other columns, or not a
// table), on a connection that sets nothing in the file.
func (s *Store) checkOwned(tables []*store.Table) error {
	for _, t := range tables {
		if prefix+t.Name == metaTable {
			return fmt.Errorf("sqlite: a workload table may not be called %s, kurabe's own list of its tables", metaTable)
		}
	}
	if _, err := os.Stat(s.path); errors.Is(err, os.ErrNotExist) {
		return nil // nothing there yet, so nothing of anyone else's
	}
	c, err := s.conn(false)
	if err != nil {
		return err
	}
	defer c.Close()
	shape, err := s.metaShape(c)
	if err != nil {
		return err
	}
	for _, t := range tables {
		if err := s.mayReplace(c, shape, t); err != nil {
			return err
		}
	}
	return nil
}

// createSQL is the CREATE TABLE kurabe runs for t, with the file's token
// in a comment after the name, where SQLite keeps it (owner).
func createSQL(t *store.Table, token string) string {
	return "CREATE TABLE " + prefix + t.Name + " /* " + commentPrefix + token + " */ " + columnsSQL(t)
}

// columnsSQL is t's column list as kurabe's CREATE TABLE gives it.
func columnsSQL(t *store.Table) string {
	var b strings.Builder
	b.WriteString("(")
	for i, c := range t.Columns {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(c.Name)
		if c.Kind == store.Int {
			b.WriteString(" INTEGER")
		} else {
			b.WriteString(" TEXT")
		}
		if i == 0 {
			b.WriteString(" PRIMARY KEY")
		}
	}
	b.WriteString(")")
	return b.String()
}

// Truncate deletes every row of a kurabe table, once it is checked to be
// the table kurabe made.
func (s *Store) Truncate(ctx context.Context, t *store.Table) error {
	c, err := s.conn(false)
	if err != nil {
		return err
	}
	defer c.Close()
	return s.inTx(c, func() error {
		shape, err := s.metaShape(c)
		if err == nil {
			err = s.mayReplace(c, shape, t)
		}
		if err != nil {
			return err
		}
		return s.exec(c, "DELETE FROM "+prefix+t.Name)
	})
}

func queryInt(c *sqlite3.Conn, q string) (int64, error) {
	st, _, err := c.Prepare(q)
	if err != nil {
		return 0, fmt.Errorf("sqlite: %s: %w", q, classify(err))
	}
	defer st.Close()
	if !st.Step() {
		if err := st.Err(); err != nil {
			return 0, fmt.Errorf("sqlite: %s: %w", q, classify(err))
		}
		return 0, fmt.Errorf("sqlite: %s returned no row", q)
	}
	return st.ColumnInt64(0), nil
}

func queryText(c *sqlite3.Conn, q string) string {
	st, _, err := c.Prepare(q)
	if err != nil {
		return ""
	}
	defer st.Close()
	if !st.Step() {
		return ""
	}
	return st.ColumnText(0)
}

// Count counts a table's rows from a fresh connection.
func (s *Store) Count(ctx context.Context, t *store.Table) (int64, error) {
	c, err := s.conn(false)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	return queryInt(c, "SELECT count(*) FROM "+prefix+t.Name)
}

// Info reads the effective settings back from a fresh connection.
func (s *Store) Info(ctx context.Context) store.Info {
	info := store.Info{Driver: "sqlite", Target: s.path, Options: map[string]string{"connect": "session"}}
	if s.perOp {
		info.Options["connect"] = "per-op"
	}
	c, err := s.conn(false)
	if err != nil {
		info.Facts = map[string]string{"error": err.Error()}
		return info
	}
	defer c.Close()
	info.Version = queryText(c, "SELECT sqlite_version()")
	for _, k := range known {
		info.Options[k.name] = queryText(c, "PRAGMA "+k.name)
	}
	if v, ok := info.Options["synchronous"]; ok {
		info.Options["synchronous"] = map[string]string{"0": "off", "1": "normal", "2": "full", "3": "extra"}[v]
	}
	info.Facts = map[string]string{"driver": "github.com/ncruces/go-sqlite3 (no cgo)"}
	return info
}

// Close has nothing to release: connections belong to sessions.
func (s *Store) Close() error { return nil }

// Open returns a session with its own connection, or, with connect=per-op,
// one that opens the database for every operation.
func (s *Store) Open(ctx context.Context) (store.Session, error) {
	if s.perOp {
		return &perOpSession{st: s}, nil
	}
	c, err := s.conn(false)
	if err != nil {
		return nil, err
	}
	return &session{c: c, path: s.path}, nil
}

// perOpSession opens a connection, prepares, runs one operation and closes
// again, every time: the "no persistent connection" case.
type perOpSession struct {
	st      *Store
	connect time.Duration
}

func (p *perOpSession) with(fn func(s *session) error) error {
	t0 := time.Now()
	c, err := p.st.conn(false)
	p.connect += time.Since(t0)
	if err != nil {
		return &store.ClassError{Class: "connect", Err: err}
	}
	s := &session{c: c, path: p.st.path}
	err = fn(s)
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	return err
}

func (p *perOpSession) Insert(ctx context.Context, t *store.Table, row store.Row) error {
	return p.with(func(s *session) error { return s.Insert(ctx, t, row) })
}

func (p *perOpSession) Scan(ctx context.Context, t *store.Table, q store.Query, fn func(store.Row) error) (n int, err error) {
	err = p.with(func(s *session) error { n, err = s.Scan(ctx, t, q, fn); return err })
	return n, err
}

// ConnectTime returns the time spent connecting since it was last called.
func (p *perOpSession) ConnectTime() time.Duration {
	c := p.connect
	p.connect = 0
	return c
}

func (p *perOpSession) Close() error { return nil }

type stmts struct {
	insert *sqlite3.Stmt
	scan   [2][2]*sqlite3.Stmt // by [desc][from]; ?1 limit, ?2 from, ?3 offset
	sel    string              // SELECT ... FROM ..., to prepare scans lazily
	key    string
}

type session struct {
	c      *sqlite3.Conn
	path   string   // the database file, for what a full disk says
	tables []*stmts // by table ID
	row    store.Row
	sql    map[string]*sqlite3.Stmt // SQLSession statements by text
}

func (s *session) prepared(t *store.Table) (*stmts, error) {
	for len(s.tables) <= t.ID {
		s.tables = append(s.tables, nil)
	}
	if p := s.tables[t.ID]; p != nil {
		return p, nil
	}
	name := prefix + t.Name
	var cols, marks []string
	for i, c := range t.Columns {
		cols = append(cols, c.Name)
		if i == 0 && t.AutoKey {
			marks = append(marks, "NULL")
		} else {
			marks = append(marks, "?"+strconv.Itoa(i+1))
		}
	}
	list := strings.Join(cols, ", ")
	p := &stmts{sel: "SELECT " + list + " FROM " + name, key: cols[0]}
	q := "INSERT INTO " + name + " (" + list + ") VALUES (" + strings.Join(marks, ", ") + ")"
	st, _, err := s.c.Prepare(q)
	if err != nil {
		return nil, fmt.Errorf("sqlite: prepare %s: %w", q, s.classify(err))
	}
	p.insert = st
	s.tables[t.ID] = p
	return p, nil
}

// scanStmt returns the prepared scan for an order and whether it starts
// from a key, preparing it on first use.
func (s *session) scanStmt(p *stmts, desc, from bool) (*sqlite3.Stmt, error) {
	d, f := b2i(desc), b2i(from)
	if st := p.scan[d][f]; st != nil {
		return st, nil
	}
	q := p.sel
	if from {
		if desc {
			q += " WHERE " + p.key + " <= ?2"
		} else {
			q += " WHERE " + p.key + " >= ?2"
		}
	}
	q += " ORDER BY " + p.key
	if desc {
		q += " DESC"
	}
	q += " LIMIT ?1 OFFSET ?3"
	st, _, err := s.c.Prepare(q)
	if err != nil {
		return nil, fmt.Errorf("sqlite: prepare %s: %w", q, s.classify(err))
	}
	p.scan[d][f] = st
	return st, nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (s *session) Insert(ctx context.Context, t *store.Table, row store.Row) error {
	p, err := s.prepared(t)
	if err != nil {
		return err
	}
	if err := bind(p.insert, t, row); err != nil {
		return err
	}
	return s.classify(p.insert.Exec())
}

// InsertBatch inserts all rows in one transaction. It inserts none once
// ctx is done, so that a load in batches (bbs's --prefill) stops at the
// next batch on Ctrl-C, with the batches before it stored.
func (s *session) InsertBatch(ctx context.Context, t *store.Table, rows []store.Row) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	p, err := s.prepared(t)
	if err != nil {
		return err
	}
	if err := s.c.Exec("BEGIN IMMEDIATE"); err != nil {
		return s.classify(err)
	}
	for _, r := range rows {
		if err := bind(p.insert, t, r); err == nil {
			err = p.insert.Exec()
		}
		if err != nil {
			s.c.Exec("ROLLBACK")
			return s.classify(err)
		}
	}
	return s.classify(s.c.Exec("COMMIT"))
}

func bind(st *sqlite3.Stmt, t *store.Table, row store.Row) error {
	for i, c := range t.Columns {
		if i == 0 && t.AutoKey {
			continue
		}
		var err error
		if c.Kind == store.Int {
			err = st.BindInt64(i+1, row[i].Int)
		} else {
			err = st.BindRawText(i+1, row[i].Text)
		}
		if err != nil {
			return classify(err)
		}
	}
	return nil
}

func (s *session) Scan(ctx context.Context, t *store.Table, q store.Query, fn func(store.Row) error) (int, error) {
	p, err := s.prepared(t)
	if err != nil {
		return 0, err
	}
	st, err := s.scanStmt(p, q.Desc, q.HasFrom)
	if err != nil {
		return 0, err
	}
	limit := int64(-1)
	if q.Limit > 0 {
		limit = int64(q.Limit)
	}
	err = st.BindInt64(1, limit)
	if err == nil && q.HasFrom {
		err = st.BindInt64(2, q.From)
	}
	if err == nil {
		err = st.BindInt64(3, int64(q.Offset))
	}
	if err != nil {
		return 0, s.classify(err)
	}
	defer st.Reset()
	if cap(s.row) < len(t.Columns) {
		s.row = make(store.Row, len(t.Columns))
	}
	row := s.row[:len(t.Columns)]
	n := 0
	for st.Step() {
		for i, c := range t.Columns {
			if c.Kind == store.Int {
				row[i] = store.Value{Int: st.ColumnInt64(i)}
			} else {
				row[i] = store.Value{Text: st.ColumnRawText(i)}
			}
		}
		if err := fn(row); err != nil {
			return n, err
		}
		n++
	}
	return n, s.classify(st.Err())
}

func (s *session) Close() error {
	for _, st := range s.sql {
		st.Close()
	}
	for _, p := range s.tables {
		if p != nil {
			p.insert.Close()
			for _, row := range p.scan {
				for _, st := range row {
					if st != nil {
						st.Close()
					}
				}
			}
		}
	}
	return s.c.Close()
}

// classify gives SQLite's lock errors the class "busy", so they are
// counted apart from other failures, and SQLITE_FULL the class disk-full.
func classify(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, sqlite3.BUSY) || errors.Is(err, sqlite3.LOCKED) {
		return &store.ClassError{Class: "busy", Err: err}
	}
	if errors.Is(err, sqlite3.FULL) {
		return &store.ClassError{Class: store.ClassDiskFull, Err: fmt.Errorf("%w; free space on its file system and run again", err)}
	}
	var se *sqlite3.Error
	if errors.As(err, &se) {
		return &store.ClassError{Class: "sqlite:" + strings.ToLower(strings.TrimPrefix(se.Code().Error(), "sqlite3: ")), Err: err}
	}
	return err
}

var (
	_ store.Swapper    = (*Store)(nil)
	_ store.TableNamer = (*Store)(nil)
)

// TableName is t's name in the database file: kurabe_<name>.
func (s *Store) TableName(t *store.Table) string { return prefix + t.Name }

// Swap puts staged in t's place in one transaction (SQLite's DDL is
// transactional): drop t, rename staged, index it, and move staged's entry
// in kurabe_meta (its token, which its comment has) to t's name. t must be
// kurabe's or not there, and staged kurabe's.
func (s *Store) Swap(ctx context.Context, staged, t *store.Table) error {
	c, err := s.conn(true)
	if err != nil {
		return err
	}
	defer c.Close()
	name := prefix + t.Name
	return s.inTx(c, func() error {
		shape, err := s.metaShape(c)
		if err != nil {
			return err
		}
		if err := s.mayReplace(c, shape, t); err != nil {
			return err
		}
		switch o, err := s.owner(c, shape, staged); {
		case err != nil:
			return err
		case o == absent:
			return fmt.Errorf("sqlite: the staging table %s is not in %s; run Setup first", prefix+staged.Name, s.path)
		case o != ours:
			return s.refusal(prefix+staged.Name, o)
		}
		stmts := []string{
			"DROP TABLE IF EXISTS " + name,
			"ALTER TABLE " + prefix + staged.Name + " RENAME TO " + name,
		}
		for _, ix := range t.Indexes {
			stmts = append(stmts, "CREATE INDEX "+store.IndexName(t.Name, ix, math.MaxInt)+" ON "+name+" ("+strings.Join(ix, ", ")+")")
		}
		for _, q := range stmts {
			if err := s.exec(c, q); err != nil {
				return err
			}
		}
		tokenCol := "token"
		if shape == metaColumnsOld {
			tokenCol = "NULL" // a staging table an earlier kurabe made and listed
		}
		if err := s.execArgs(c, "INSERT OR REPLACE INTO "+metaTable+" (name, created, token) SELECT ?, unixepoch(), "+tokenCol+" FROM "+metaTable+" WHERE name = ?", name, prefix+staged.Name); err != nil {
			return err
		}
		return s.execArgs(c, "DELETE FROM "+metaTable+" WHERE name = ?", prefix+staged.Name)
	})
}

// Drop removes one of kurabe's tables, if it is there. A table of that
// name kurabe_meta does not list is left as it is, as is one it lists
// that is not the table kurabe made, which is an error.
func (s *Store) Drop(ctx context.Context, t *store.Table) error {
	c, err := s.conn(false)
	if err != nil {
		return err
	}
	defer c.Close()
	name := prefix + t.Name
	return s.inTx(c, func() error {
		shape, err := s.metaShape(c)
		if err != nil {
			return err
		}
		switch o, err := s.owner(c, shape, t); {
		case err != nil || o == absent || o == foreign:
			return err // not there, or not kurabe's: left as it is
		case o != ours:
			return s.refusal(name, o)
		}
		if err := s.exec(c, "DROP TABLE "+name); err != nil {
			return err
		}
		return s.execArgs(c, "DELETE FROM "+metaTable+" WHERE name = ?", name)
	})
}

func (s *Store) classify(err error) error { return classifyAt(s.path, err) }

func (s *session) classify(err error) error { return classifyAt(s.path, err) }

// fullBelow is the free space under which a disk I/O error is taken for a
// full disk.
const fullBelow = 4 << 20

// classifyAt classifies err (classify) from a connection to the database
// at path, and takes a disk I/O error on a file system that is (all but)
// full for SQLITE_FULL, class disk-full. The driver's VFS means to return
// SQLITE_FULL for ENOSPC, but it looks for the bare errno where
// (*os.File).WriteAt returns it inside an *os.PathError, so SQLite says
// "disk I/O error" (SQLITE_IOERR_WRITE), and the errno is gone by the
// time the statement returns (the rollback's calls reset it). So the file
// system is asked after the error, on this path only: the rollback may
// have freed its journal's pages, hence a margin rather than none free.
func classifyAt(path string, err error) error {
	err = classify(err)
	if err == nil || !errors.Is(err, sqlite3.IOERR) {
		return err
	}
	var fs syscall.Statfs_t
	if syscall.Statfs(filepath.Dir(path), &fs) != nil {
		return err
	}
	if free := int64(fs.Bavail) * int64(fs.Bsize); free < fullBelow {
		return &store.ClassError{Class: store.ClassDiskFull, Err: fmt.Errorf("%w: the file system of %s is full (%s bytes free); free space on it and run again", err, path, numfmt.Group(free))}
	}
	return err
}
