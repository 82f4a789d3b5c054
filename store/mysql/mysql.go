// Package mysql is the MariaDB/MySQL store, on github.com/go-sql-driver/mysql
// through database/sql. It serves the drivers "mysql" and "mariadb", either
// against a server someone else runs (mysql://user:pass@host:port/db) or
// against a throwaway server kurabe initialises, starts and stops itself
// (mariadb:managed), in which case every option that is not a store option
// is handed to the server as --name=value.
//
// Trade-offs:
//
//   - database/sql is how Go applications talk to MySQL, so its costs are
//     part of what is measured: it boxes every argument and integer column
//     into an interface and allocates a little per call. What can be avoided
//     is: statements are prepared once per connection and reused (each
//     shape of scan, by order, From, Limit and Offset, on its first use),
//     rows are read into per-session buffers (sql.RawBytes, so text is not
//     copied), and no SQL text is built per operation. BenchmarkScan
//     measures about three allocations per row read, all of them the
//     driver's and database/sql's (each BIGINT is boxed); this package's
//     only ones are the boxing of a scan's integer arguments of 256 and
//     more (From, Offset), which database/sql's ...any requires.
//   - From and Offset are the server's to apply (WHERE and OFFSET, after a
//     LIMIT of 2^64-1 when there is no limit, as MySQL's grammar wants).
//   - Secondary indexes (store.Table.Indexes) are created after their
//     table; a text column is indexed on a prefix of at most 191
//     characters, the same under every engine (see maxTextPrefix).
//   - driver=wire (the default with connect=session) runs a session's
//     operations over package wire instead: the driver still connects and
//     authenticates, then each operation is one COM_STMT_EXECUTE packet
//     and a read of the reply in place, with no allocation and less
//     client CPU per query than database/sql (bench/mywire compares the
//     two bare); driver=sql keeps database/sql.
//   - connect=session gives each session its own connection (*sql.Conn) with
//     its own prepared statements; connect=pool shares a *sql.DB of
//     pool_size connections and one set of statements among all sessions;
//     connect=per-op opens a connection for every operation, as a PHP page
//     does, and sends the statement as text with its arguments interpolated
//     by the driver (one round trip; PHP's PDO does the same by default),
//     since a statement prepared for one use costs two.
//   - kurabe works in the database the URL names, or without one in the
//     database of option database (default kurabe), and only ever drops
//     or empties the tables its kurabe_meta table lists with the token
//     their comment has (kurabe:TOKEN), so a table someone made again
//     under one of those names is not taken for kurabe's.
//   - A managed server is made fresh in the store's data directory by
//     mariadb-install-db (given the settings fixed at creation, such as
//     innodb_page_size) and runs as the mysql user (or nobody) when kurabe
//     runs as root, on a free loopback port, with --skip-name-resolve so
//     that connecting does not wait on a resolver. Sessions log in over TCP
//     as kurabe@127.0.0.1 with a password made up at start and never shown.
//   - A batch is one multi-row INSERT. Only when it would not fit in one
//     packet (max_allowed_packet) or exceed the 65535 placeholders of a
//     prepared statement is it split, and then the parts run in one
//     transaction.
//   - Sessions are store.SQLSessions too (sql.go): statements in MySQL's
//     SQL with ? placeholders, prepared once per text as the other
//     statements are, with kurabe's database as the default one so that
//     such SQL can name tables as the workload does; Exec reports matched
//     rows. The store is a store.BulkLoader: LOAD DATA LOCAL INFILE fed
//     by a streaming reader, or multi-row INSERTs where the server has
//     local_infile off (a managed server is started with it on).
package mysql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-sql-driver/mysql"

	"kurabe/redact"
	"kurabe/store"
	"kurabe/store/server"
)

const (
	metaTable = "kurabe_meta"
	// metaColumns are kurabe_meta's columns as kurabe makes it: each
	// table kurabe made, when, and the token in the table's comment;
	// metaColumnsOld those of earlier kurabe, without the token.
	metaColumns    = "name,created,token"
	metaColumnsOld = "name,created"
	// commentPrefix starts the comment of every table kurabe makes,
	// followed by its token.
	commentPrefix = "kurabe:"
	// The driver refuses packets larger than this, whatever the server allows.
	driverMaxPacket = 64 << 20
	// A prepared statement takes at most this many placeholders.
	maxPlaceholders = 65535
)

// storeOptions are the options of every form; the others are server
// settings (managed) or errors (external).
var storeOptions = []string{"engine", "row_format", "page_compressed", "encrypted", "connect", "pool_size", "database", "driver", "connect_timeout"}

// OwnOptions are the store's own options; any other option of a managed
// store is a server setting.
func OwnOptions() []string { return slices.Clone(storeOptions) }

// options are the store options in effect.
type options struct {
	engine         string // InnoDB, MyISAM or Aria
	rowFormat      string // empty for the engine's default
	pageCompressed bool
	encrypted      bool
	connect        string // session, pool or per-op
	poolSize       int
	database       string
	driver         string // wire or sql: how connect=session sessions talk
	connectTimeout time.Duration
}

// defaultConnectTimeout bounds opening a connection, as the postgres
// store's connect_timeout does by default.
const defaultConnectTimeout = 10 * time.Second

var (
	engines    = map[string]string{"innodb": "InnoDB", "myisam": "MyISAM", "aria": "Aria"}
	rowFormats = []string{"DEFAULT", "DYNAMIC", "FIXED", "COMPRESSED", "REDUNDANT", "COMPACT", "PAGE"}
	identRE    = regexp.MustCompile(`^[A-Za-z0-9_]{1,64}$`)
)

func parseOptions(driver string, o *store.Options) (options, error) {
	bad := func(name, value, want string) error {
		return &store.OptionError{Driver: driver, Name: name, Value: value, Want: want}
	}
	var op options
	v := o.Get("engine", "InnoDB")
	op.engine = engines[strings.ToLower(v)]
	if op.engine == "" {
		return op, bad("engine", v, "InnoDB, MyISAM or Aria")
	}
	op.rowFormat = strings.ToUpper(o.Get("row_format", ""))
	if op.rowFormat != "" && !slices.Contains(rowFormats, op.rowFormat) {
		return op, bad("row_format", op.rowFormat, strings.Join(rowFormats, ", "))
	}
	for _, b := range []struct {
		name string
		dst  *bool
	}{{"page_compressed", &op.pageCompressed}, {"encrypted", &op.encrypted}} {
		switch v := o.Get(b.name, "0"); v {
		case "0":
		case "1":
			*b.dst = true
		default:
			return op, bad(b.name, v, "0 or 1")
		}
		if *b.dst && op.engine != "InnoDB" {
			return op, bad(b.name, "1", "0 with engine="+op.engine+": it is an InnoDB table option")
		}
	}
	op.connect = strings.ToLower(o.Get("connect", "session"))
	switch op.connect {
	case "session", "pool", "per-op":
	default:
		return op, bad("connect", op.connect, "session (a connection per client), pool (clients share pool_size connections) or per-op (a new connection per operation)")
	}
	ps := o.Get("pool_size", "")
	switch {
	case ps == "" && op.connect == "pool":
		op.poolSize = 10
	case ps != "" && op.connect != "pool":
		return op, bad("pool_size", ps, "no value: it applies to connect=pool only")
	case ps != "":
		n, err := strconv.Atoi(ps)
		if err != nil || n < 1 {
			return op, bad("pool_size", ps, "a number of connections, 1 or more")
		}
		op.poolSize = n
	}
	defDriver := "sql"
	if op.connect == "session" {
		defDriver = "wire"
	}
	op.driver = strings.ToLower(o.Get("driver", defDriver))
	switch {
	case op.driver != "wire" && op.driver != "sql":
		return op, bad("driver", op.driver, "wire (kurabe's lean binary-protocol client, connect=session only) or sql (go-sql-driver/mysql through database/sql)")
	case op.driver == "wire" && op.connect != "session":
		return op, bad("driver", op.driver, "sql with connect="+op.connect+": the wire client serves connect=session only")
	}
	op.connectTimeout = defaultConnectTimeout
	if v := o.Get("connect_timeout", ""); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return op, bad("connect_timeout", v, "a number of seconds, 1 or more")
		}
		op.connectTimeout = time.Duration(n) * time.Second
	}
	op.database = o.Get("database", "kurabe")
	if !identRE.MatchString(op.database) {
		return op, bad("database", op.database, "a name of letters, digits and _, at most 64")
	}
	return op, nil
}

// Store is a MariaDB or MySQL database, on a server kurabe runs or not.
type Store struct {
	driver string
	opts   options
	target string        // for Info; a managed store's is set once it runs
	given  url.Values    // the options the spec gave, for Info before the server is read
	base   *mysql.Config // kurabe's login; nil for a managed store until it runs
	secret hidden        // the password, scrubbed from every error text
	m      *managed      // nil for an external server

	mu        sync.Mutex
	closed    bool
	startErr  error
	admin     *sql.DB       // fresh connections for setup and verification
	db        *sql.DB       // sessions' connections (pool), or where they come from
	sessCfg   *mysql.Config // the configuration of db's connections, for driver=wire
	maxPacket int           // the largest statement the server and driver accept
	// The statements connect=pool sessions share, prepared on the pool
	// (database/sql prepares them again on each connection).
	pool map[poolKey]*sql.Stmt
	// SQLSession texts connect=pool sessions share, likewise.
	sqlPool map[string]*sql.Stmt
	// How the last BulkLoad went in (bulkLoadData or bulkInsert).
	bulkPath string
	// A replay's (ForReplay): the session settings that give the log's
	// tables the table options, set on each connection as it is made.
	replay       bool
	replayParams map[string]string
	// The tables this store made (Setup, Swap), whose options and sizes
	// Info reads back: kurabe_meta may list others, of earlier runs.
	made map[string]bool
	// lock is the command's lock on kurabe's database (Lock, ShareLock),
	// whose connection is the store's own: nil without one.
	lock *myLock
}

// Open validates a MariaDB/MySQL spec. It connects to nothing and starts
// nothing: a managed server starts at the first Setup.
func Open(ctx context.Context, spec store.Spec, env store.Env) (store.Store, error) {
	o := store.NewOptions(spec)
	opts, err := parseOptions(spec.Driver, o)
	if err != nil {
		return nil, err
	}
	s := &Store{driver: spec.Driver, opts: opts, given: spec.Options}
	switch {
	case strings.HasPrefix(spec.Target, "//"):
		if err := o.Check(); err != nil {
			return nil, err
		}
		cfg, pass, db, err := parseURL(spec.Driver, spec.Target)
		if err != nil {
			return nil, err
		}
		if db != "" {
			// The URL's database is where kurabe keeps its tables, as
			// ?database= says; giving both, they must agree.
			if given := spec.Options.Get("database"); given != "" && given != db {
				return nil, fmt.Errorf("%s: the address names database %s and the option database=%s; give one", spec.Driver, db, given)
			}
			if !identRE.MatchString(db) {
				return nil, &store.OptionError{Driver: spec.Driver, Name: "database", Value: db, Want: "a name of letters, digits and _, at most 64, in the address's path"}
			}
			s.opts.database = db
		}
		host, _, _ := net.SplitHostPort(cfg.Addr)
		cfg.Timeout = opts.connectTimeout
		s.base, s.secret = cfg, hidden{pass, []string{cfg.User, host, db}}
		s.target = spec.Driver + ":" + store.RedactTarget(spec.Target) // as typed: mariadb:// or mysql://
		return s, nil
	case spec.Target == "managed" || spec.Target == "":
		m, err := newManaged(ctx, spec, env, opts)
		if err != nil {
			return nil, err
		}
		s.m = m
		s.target = "managed (not started)"
		return s, nil
	}
	return nil, fmt.Errorf("%s: target %q is neither a server address nor managed; give %s:managed or %s",
		spec.Driver, store.RedactTarget(spec.Target), spec.Driver, addressForm(spec.Driver))
}

// addressForm is the address a message asks for. Its password is not
// written as in a URL (user:password@), which would be hidden in the
// message like a real one.
func addressForm(driver string) string {
	return driver + "://USER@HOST[:PORT][/DB], a password as USER:PASSWORD@ (special characters %-encoded) or in MYSQL_PWD"
}

// parseURL turns //user[:password]@host[:port][/db] into the driver's
// configuration (the parsed form of its DSN user:pass@tcp(host:port)/,
// built directly so that the password never sits in a DSN string an error
// could quote), the password, and the database of the path, if any.
func parseURL(driver, target string) (*mysql.Config, string, string, error) {
	want := "want " + addressForm(driver)
	u, err := url.Parse("mysql:" + target)
	if err != nil {
		what := store.AddressProblem(target)
		if what != "" {
			what = ": " + what
		}
		return nil, "", "", fmt.Errorf("%s: cannot read address %s%s; %s", driver, store.RedactTarget(target), what, want)
	}
	if u.User == nil || u.User.Username() == "" {
		return nil, "", "", fmt.Errorf("%s: address %s names no user; %s", driver, store.RedactTarget(target), want)
	}
	if u.Hostname() == "" {
		return nil, "", "", fmt.Errorf("%s: address %s names no host; %s", driver, store.RedactTarget(target), want)
	}
	port := u.Port()
	if port == "" {
		port = "3306"
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return nil, "", "", fmt.Errorf("%s: address %s: its port %q is not a number from 0 to 65535; %s", driver, store.RedactTarget(target), port, want)
	}
	pass, ok := u.User.Password()
	if !ok {
		pass = os.Getenv("MYSQL_PWD")
	}
	return newConfig(u.User.Username(), pass, "tcp", net.JoinHostPort(u.Hostname(), port)), pass, strings.Trim(u.Path, "/"), nil
}

func newConfig(user, pass, network, addr string) *mysql.Config {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd = user, pass
	cfg.Net, cfg.Addr = network, addr
	// The collation goes in the handshake, which makes the connection
	// utf8mb4 without a SET NAMES round trip per connection.
	cfg.Collation = "utf8mb4_bin"
	cfg.Timeout = defaultConnectTimeout // the store's connect_timeout
	// The driver would print to stderr; its errors reach us anyway.
	cfg.Logger = &mysql.NopLogger{}
	// LOAD DATA LOCAL INFILE may only read the readers BulkLoad
	// registers, never a file a server asks for.
	cfg.AllowAllFiles = false
	return cfg
}

func openDB(cfg *mysql.Config) (*sql.DB, error) {
	c, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(timeoutConnector{c, cfg.Timeout, cfg.Addr}), nil
}

// timeoutConnector opens the driver's connections within the connect
// timeout: the driver's own Timeout bounds the dial only, and a port that
// accepts connections but never greets (a stopped server, another kind of
// server's port) would hold the handshake for ever.
type timeoutConnector struct {
	driver.Connector
	timeout time.Duration
	addr    string
}

func (c timeoutConnector) Connect(ctx context.Context) (driver.Conn, error) {
	var dc driver.Conn
	err := connecting(ctx, c.timeout, c.addr, func(ctx context.Context) (err error) {
		dc, err = c.Connector.Connect(ctx)
		return err
	})
	return dc, err
}

// connecting runs connect within timeout, and says so first when the
// server did not answer in time.
func connecting(ctx context.Context, timeout time.Duration, addr string, connect func(context.Context) error) error {
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	err := connect(cctx)
	if err != nil && ctx.Err() == nil && cctx.Err() != nil {
		// Class connect, not the timeout of an operation cut off.
		// The message says so without the driver's, which is about what
		// the timeout interrupted.
		return &store.ClassError{Class: "connect", Err: &scrubbed{
			msg: fmt.Sprintf("the server at %s did not answer within %v (connect_timeout=%d; give connect_timeout=SECONDS to wait longer)", addr, timeout, int(timeout.Seconds())),
			is:  err,
		}}
	}
	return err
}

// ready starts a managed server if it is not running, and readies the
// connections. It runs once; a failure is returned again.
func (s *Store) ready(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("%s: store is closed", s.driver)
	}
	if s.admin != nil || s.startErr != nil {
		return s.startErr
	}
	s.startErr = s.start(ctx)
	return s.startErr
}

func (s *Store) start(ctx context.Context) error {
	if s.m != nil {
		pass, err := randomPassword()
		if err != nil {
			return err
		}
		addr, err := s.m.start(ctx, pass)
		if err != nil {
			return err
		}
		s.base, s.secret = newConfig(managedUser, pass, "tcp", addr), hidden{pw: pass}
		s.base.Timeout = s.opts.connectTimeout
		s.target = "managed " + addr
	}
	admin, err := openDB(s.base)
	if err != nil {
		return fmt.Errorf("%s: %w", s.driver, err)
	}
	admin.SetMaxIdleConns(0)
	var packet int
	if err := admin.QueryRowContext(ctx, "SELECT @@max_allowed_packet").Scan(&packet); err != nil {
		admin.Close()
		return fmt.Errorf("%s: cannot connect to %s: %w", s.driver, s.target, classify(err, true))
	}
	s.maxPacket = min(packet, driverMaxPacket)

	cfg := s.base.Clone()
	cfg.MaxAllowedPacket = s.maxPacket
	cfg.InterpolateParams = s.opts.connect == "per-op"
	if len(s.replayParams) > 0 {
		// The driver sends them as one SET as it connects, for every
		// connection of db and of package wire alike; admin's, which
		// kurabe's own statements use, are left as the server has them.
		cfg.Params = maps.Clone(s.replayParams)
	}
	// SQL a workload sends (store.SQLSession) names kurabe's tables
	// without their database, which is an option; kurabe's own SQL
	// qualifies every name. connect=pool and per-op connect at their
	// first operation, after Setup has made the database, so theirs is
	// chosen in the handshake; a connect=session session connects at
	// Open, which may come first, and sends USE before its first SQL
	// statement instead (sqlStmt).
	if s.opts.connect != "session" {
		cfg.DBName = s.opts.database
	}
	// Matched rows, not changed ones, are what Exec reports on every SQL
	// store.
	cfg.ClientFoundRows = true
	db, err := openDB(cfg)
	if err != nil {
		admin.Close()
		return fmt.Errorf("%s: %w", s.driver, err)
	}
	if s.opts.connect == "pool" {
		db.SetMaxOpenConns(s.opts.poolSize)
		db.SetMaxIdleConns(s.opts.poolSize)
	} else {
		// Every connection is new and closed when its session or operation
		// is done.
		db.SetMaxIdleConns(0)
	}
	s.admin, s.db, s.sessCfg = admin, db, cfg
	return nil
}

// fresh returns a new connection as kurabe's user, for setup and
// verification.
func (s *Store) fresh(ctx context.Context) (*sql.Conn, error) {
	if err := s.ready(ctx); err != nil {
		return nil, err
	}
	c, err := s.admin.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot connect to %s: %w", s.driver, s.target, classify(err, true))
	}
	return c, nil
}

// own returns a connection for the store's own work (setup, counting,
// verification, a bulk load) and done, which gives it back: the lock's
// connection when the store has the command's lock, which kurabe keeps
// for the whole command anyway, so the lock costs the server no
// connection more; else a fresh one, which done closes.
func (s *Store) own(ctx context.Context) (c *sql.Conn, done func(), err error) {
	if err := s.ready(ctx); err != nil {
		return nil, nil, err
	}
	s.mu.Lock()
	l := s.lock
	s.mu.Unlock()
	if l != nil {
		if c, done, err = l.use(ctx, s); c != nil || err != nil {
			return c, done, err
		}
	}
	if c, err = s.fresh(ctx); err != nil {
		return nil, nil, err
	}
	return c, func() { c.Close() }, nil
}

// quote quotes an identifier.
func quote(name string) string { return "`" + strings.ReplaceAll(name, "`", "``") + "`" }

func (s *Store) qualified(table string) string { return quote(s.opts.database) + "." + quote(table) }

// Setup creates the tables empty in kurabe's database, dropping earlier
// ones only when kurabe_meta says kurabe created them.
func (s *Store) Setup(ctx context.Context, tables []*store.Table) error {
	return scrub(s.setup(ctx, tables), s.secret)
}

func (s *Store) setup(ctx context.Context, tables []*store.Table) error {
	c, done, err := s.own(ctx)
	if err != nil {
		return err
	}
	defer done()
	if err := s.createDatabase(ctx, c); err != nil {
		return err
	}
	// Every table is checked before kurabe_meta is made: a refused run
	// leaves nothing behind in a database that is someone else's.
	for _, t := range tables {
		if err := s.mayReplace(ctx, c, t.Name); err != nil {
			return err
		}
	}
	shape, err := s.metaShape(ctx, c)
	if err != nil {
		return err
	}
	var meta string
	switch shape {
	case "":
		meta = "CREATE TABLE " + s.qualified(metaTable) +
			" (name VARCHAR(64) NOT NULL PRIMARY KEY, created TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, token VARCHAR(64) NULL) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin"
	case metaColumnsOld:
		meta = "ALTER TABLE " + s.qualified(metaTable) + " ADD COLUMN token VARCHAR(64) NULL"
	}
	if meta != "" {
		if _, err := c.ExecContext(ctx, meta); err != nil {
			return fmt.Errorf("%s: cannot create %s: %w%s", s.driver, s.qualified(metaTable), classify(err, false), s.grantHint(ctx, c, err))
		}
	}
	token, err := s.token(ctx, c)
	if err != nil {
		return err
	}
	for _, t := range tables {
		if err := s.setupTable(ctx, c, t, token); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) createDatabase(ctx context.Context, c *sql.Conn) error {
	var n int
	err := c.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?", s.opts.database).Scan(&n)
	if err != nil {
		return fmt.Errorf("%s: %w", s.driver, classify(err, false))
	}
	if n > 0 {
		return nil
	}
	q := "CREATE DATABASE IF NOT EXISTS " + quote(s.opts.database) + " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"
	_, err = c.ExecContext(ctx, q)
	var me *mysql.MySQLError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &me) && me.Number == 1044: // ER_DBACCESS_DENIED_ERROR
		// The database is not among those the account sees, and the
		// server refuses it CREATE DATABASE: either the database is there
		// and the account has no grant on it, or it is not and the
		// account may not make it. The server answers both alike (1044
		// to CREATE, USE, SHOW CREATE DATABASE), so as not to tell an
		// account what databases there are: say what to do for each.
		account := s.account(ctx, c)
		return fmt.Errorf("%s: the server refuses %s the database %s (%w): the account has no privilege on it, and the server does not say whether it exists. If it exists, an administrator grants the account on it: GRANT ALL ON %s.* TO %s; if it does not, an administrator makes it first: CREATE DATABASE %s CHARACTER SET utf8mb4 COLLATE utf8mb4_bin, then that GRANT. Or name a database the account has with ?database=NAME%s",
			s.driver, account, s.opts.database, classify(err, false), quote(s.opts.database), account, quote(s.opts.database), s.visibleDatabases(ctx, c))
	}
	return fmt.Errorf("%s: cannot create database %s: %w; create it (CHARACTER SET utf8mb4) and grant the user all on it, or name another with ?database=", s.driver, s.opts.database, classify(err, false))
}

// account is kurabe's account as the server matched it (user@host),
// quoted as GRANT names it; USER when the server does not say.
func (s *Store) account(ctx context.Context, c *sql.Conn) string {
	var cur string
	if c.QueryRowContext(ctx, "SELECT CURRENT_USER()").Scan(&cur) == nil {
		if user, host, ok := strings.Cut(cur, "@"); ok {
			return "'" + user + "'@'" + host + "'"
		}
	}
	return "USER"
}

// visibleDatabases lists, for an error, the databases the account sees
// (those it has a privilege on), as " (the account has: a, b)"; "" for
// none.
func (s *Store) visibleDatabases(ctx context.Context, c *sql.Conn) string {
	rows, err := c.QueryContext(ctx, "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME NOT IN ('information_schema', 'performance_schema', 'mysql', 'sys') ORDER BY SCHEMA_NAME LIMIT 11")
	if err != nil {
		return ""
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if rows.Scan(&n) == nil {
			names = append(names, n)
		}
	}
	switch {
	case len(names) == 0:
		return ""
	case len(names) > 10:
		names = append(names[:10], "…")
	}
	return " (the account has: " + strings.Join(names, ", ") + ")"
}

// grantHint says what to grant when err is the server refusing kurabe's
// user a statement on its database; "" for other errors.
func (s *Store) grantHint(ctx context.Context, c *sql.Conn, err error) string {
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Number != 1142 && me.Number != 1044 { // ER_TABLEACCESS_DENIED_ERROR, ER_DBACCESS_DENIED_ERROR
		return ""
	}
	account := s.account(ctx, c)
	return fmt.Sprintf("; kurabe makes, indexes, empties and drops its own tables in the database %s: grant the user that (GRANT ALL ON %s.* TO %s, or at least CREATE, DROP, ALTER, INDEX, SELECT, INSERT, UPDATE, DELETE), or name a database where it has them with ?database=",
		s.opts.database, quote(s.opts.database), account)
}

// ownership is what a table name in kurabe's database is to kurabe.
type ownership uint8

const (
	absent   ownership = iota // no table by that name
	foreign                   // a table kurabe_meta does not list
	replaced                  // listed, but not the table kurabe made: another by its name
	unproven                  // listed by an earlier kurabe without a token, and made again or altered since
	ours                      // the table kurabe made
)

// metaShape is kurabe_meta's columns, "" when there is none; a table of
// someone else's by that name is an error.
func (s *Store) metaShape(ctx context.Context, c *sql.Conn) (string, error) {
	var cols sql.NullString
	err := c.QueryRowContext(ctx, "SELECT GROUP_CONCAT(COLUMN_NAME ORDER BY ORDINAL_POSITION) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?", s.opts.database, metaTable).Scan(&cols)
	switch {
	case err != nil:
		return "", fmt.Errorf("%s: %w", s.driver, classify(err, false))
	case !cols.Valid:
		return "", nil
	case strings.EqualFold(cols.String, metaColumns), strings.EqualFold(cols.String, metaColumnsOld):
		return strings.ToLower(cols.String), nil
	}
	return "", s.notOwned(metaTable)
}

// owner says what the table is to kurabe. kurabe makes every table with
// the comment kurabe:TOKEN and lists it in kurabe_meta with the token, a
// random one per database: a table someone made again under the name has
// no such comment. The token, not the table's CREATE_TIME, since InnoDB's
// changes when the table is altered or optimized, and a comment stays
// through ALTER, OPTIMIZE and RENAME. An entry of an earlier kurabe,
// which kept no token, is taken as kurabe's while the table is no newer
// than the entry: kurabe listed a table right after making it, and one
// made again later (or altered, for InnoDB) is refused.
func (s *Store) owner(ctx context.Context, c *sql.Conn, table string) (ownership, error) {
	var n int
	var comment string
	err := c.QueryRowContext(ctx, "SELECT COUNT(*), COALESCE(MAX(TABLE_COMMENT), '') FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?", s.opts.database, table).Scan(&n, &comment)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", s.driver, classify(err, false))
	}
	if n == 0 {
		return absent, nil
	}
	shape, err := s.metaShape(ctx, c)
	if err != nil || shape == "" {
		return foreign, err
	}
	tokenCol := "m.token"
	if shape == metaColumnsOld {
		tokenCol = "NULL"
	}
	var token sql.NullString
	var older bool
	err = c.QueryRowContext(ctx, "SELECT "+tokenCol+", COALESCE(t.CREATE_TIME <= m.created, 0) FROM "+s.qualified(metaTable)+
		" m LEFT JOIN information_schema.TABLES t ON t.TABLE_SCHEMA = ? AND t.TABLE_NAME = m.name WHERE m.name = ?", s.opts.database, table).Scan(&token, &older)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return foreign, nil
	case err != nil:
		return 0, fmt.Errorf("%s: %w", s.driver, classify(err, false))
	case token.Valid && comment == commentPrefix+token.String, !token.Valid && older:
		return ours, nil
	case !token.Valid:
		return unproven, nil
	}
	return replaced, nil
}

// mayReplace refuses a table by that name that is not the one kurabe
// made; one that is not there, or is kurabe's, may be dropped.
func (s *Store) mayReplace(ctx context.Context, c *sql.Conn, table string) error {
	o, err := s.owner(ctx, c, table)
	if err != nil || o == absent || o == ours {
		return err
	}
	return s.refusal(table, o)
}

// token is the token of kurabe's tables in its database: the one
// kurabe_meta has, or a new one.
func (s *Store) token(ctx context.Context, c *sql.Conn) (string, error) {
	var tok string
	err := c.QueryRowContext(ctx, "SELECT token FROM "+s.qualified(metaTable)+" WHERE token IS NOT NULL ORDER BY created LIMIT 1").Scan(&tok)
	switch {
	case err == nil && identRE.MatchString(tok):
		return tok, nil
	case err != nil && !errors.Is(err, sql.ErrNoRows):
		return "", fmt.Errorf("%s: %w", s.driver, classify(err, false))
	}
	return randomPassword()
}

// record lists the table as kurabe's, with the token its comment has.
func (s *Store) record(ctx context.Context, c *sql.Conn, table, token string) error {
	rec := "INSERT INTO " + s.qualified(metaTable) + " (name, created, token) VALUES (?, NOW(), ?) ON DUPLICATE KEY UPDATE created = NOW(), token = VALUES(token)"
	if _, err := c.ExecContext(ctx, rec, table, token); err != nil {
		return fmt.Errorf("%s: cannot record table %s in %s: %w", s.driver, table, metaTable, classify(err, false))
	}
	return nil
}

// unrecord takes the table off kurabe's list, once it has dropped it.
func (s *Store) unrecord(ctx context.Context, c *sql.Conn, table string) error {
	if _, err := c.ExecContext(ctx, "DELETE FROM "+s.qualified(metaTable)+" WHERE name = ?", table); err != nil {
		return fmt.Errorf("%s: dropped kurabe's table %s, and cannot take it off %s: %w", s.driver, table, metaTable, classify(err, false))
	}
	return nil
}

func (s *Store) notOwned(table string) error { return s.refusal(table, foreign) }

// refusal is the error for a table kurabe may not change, by what it is.
func (s *Store) refusal(table string, o ownership) error {
	if table == metaTable {
		return fmt.Errorf("%s: table %s.%s exists and was %w (kurabe's list of its tables has the columns %s), so it was left as it is; give kurabe another database with ?database=NAME",
			s.driver, s.opts.database, table, store.ErrNotOwned, strings.ReplaceAll(metaColumns, ",", ", "))
	}
	why := "it is not in " + s.opts.database + "." + metaTable
	switch o {
	case replaced:
		why = s.opts.database + "." + metaTable + " lists a table of that name, but this is not the table kurabe made: it was replaced since"
	case unproven:
		why = s.opts.database + "." + metaTable + " lists it, from an earlier kurabe that did not mark the tables it made, and the table was made again or altered since, so kurabe cannot tell it is the one it made"
	}
	return fmt.Errorf("%s: table %s.%s exists and was %w (%s), so it was left as it is; drop it yourself if it may go, or give kurabe another database with ?database=NAME",
		s.driver, s.opts.database, table, store.ErrNotOwned, why)
}

func (s *Store) setupTable(ctx context.Context, c *sql.Conn, t *store.Table, token string) error {
	if len(t.Name) > 64 || t.Name == metaTable || len(t.Columns) == 0 || t.Columns[0].Kind != store.Int {
		return fmt.Errorf("%s: cannot create table %q: names are at most 64 bytes, %s is kurabe's own, and column 0 must be an integer key", s.driver, t.Name, metaTable)
	}
	indexes, err := s.indexSQL(t)
	if err != nil {
		return err
	}
	o, err := s.owner(ctx, c, t.Name)
	if err != nil {
		return err
	}
	if o != absent && o != ours {
		return s.refusal(t.Name, o)
	}
	// Each Setup makes its tables anew: kurabe's table of the name, an
	// earlier run's or an earlier --vary variant's, is dropped first, and
	// its entry in kurabe_meta with it, so that a table that then cannot
	// be made is not listed as there; it is listed again once made.
	if _, err := c.ExecContext(ctx, "DROP TABLE IF EXISTS "+s.qualified(t.Name)); err != nil {
		return fmt.Errorf("%s: cannot drop kurabe's table %s: %w", s.driver, s.qualified(t.Name), classify(err, false))
	}
	s.mu.Lock()
	delete(s.made, t.Name)
	s.mu.Unlock()
	if err := s.unrecord(ctx, c, t.Name); err != nil {
		return err
	}
	if _, err := c.ExecContext(ctx, s.createSQL(t)+" COMMENT='"+commentPrefix+token+"'"); err != nil {
		hint := ""
		if s.opts.encrypted {
			hint = "; encrypted=1 needs a key management plugin on the server (e.g. plugin_load_add=file_key_management with file_key_management_filename=a key file) — mariadb:managed?encrypted=1 sets one up itself"
		}
		if o == ours {
			hint += fmt.Sprintf("; setting up dropped kurabe's earlier table %s first (an earlier run's or --vary variant's: each sets its tables up anew), so it is gone now, and %s no longer lists it", s.qualified(t.Name), metaTable)
		}
		return fmt.Errorf("%s: cannot create table %s: %w%s%s", s.driver, s.qualified(t.Name), classify(err, false), s.grantHint(ctx, c, err), hint)
	}
	// Listed as soon as it is there, so that one whose indexes then fail
	// is still kurabe's to drop.
	if err := s.record(ctx, c, t.Name, token); err != nil {
		return err
	}
	s.mu.Lock()
	if s.made == nil {
		s.made = map[string]bool{}
	}
	s.made[t.Name] = true
	s.mu.Unlock()
	for _, q := range indexes {
		if _, err := c.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: cannot index table %s: %s: %w", s.driver, s.qualified(t.Name), q, classify(err, false))
		}
	}
	// A server without NO_ENGINE_SUBSTITUTION in sql_mode quietly uses its
	// default engine instead; a comparison of engines must not.
	var engine string
	err = c.QueryRowContext(ctx, "SELECT ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?", s.opts.database, t.Name).Scan(&engine)
	if err != nil {
		return fmt.Errorf("%s: %w", s.driver, classify(err, false))
	}
	if !strings.EqualFold(engine, s.opts.engine) {
		return fmt.Errorf("%s: table %s was created with engine %s, not %s: the server does not have %s or substituted its default; see SHOW ENGINES", s.driver, s.qualified(t.Name), engine, s.opts.engine, s.opts.engine)
	}
	return nil
}

func (s *Store) createSQL(t *store.Table) string {
	var b strings.Builder
	b.WriteString("CREATE TABLE " + s.qualified(t.Name) + " (")
	for i, c := range t.Columns {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(quote(c.Name))
		switch {
		case i == 0 && t.AutoKey:
			b.WriteString(" BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY")
		case i == 0:
			b.WriteString(" BIGINT NOT NULL PRIMARY KEY")
		case c.Kind == store.Int:
			b.WriteString(" BIGINT NOT NULL")
		default:
			// LONGTEXT, not TEXT: TEXT stops at 64 KiB.
			b.WriteString(" LONGTEXT NOT NULL")
		}
	}
	b.WriteString(") ENGINE=" + s.opts.engine + " DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin")
	if s.opts.rowFormat != "" {
		b.WriteString(" ROW_FORMAT=" + s.opts.rowFormat)
	}
	if s.opts.pageCompressed {
		b.WriteString(" PAGE_COMPRESSED=1")
	}
	if s.opts.encrypted {
		b.WriteString(" ENCRYPTED=YES")
	}
	return b.String()
}

// maxName is the identifier limit of MySQL and MariaDB, 64 characters;
// index names are kept within as many bytes.
const maxName = 64

// An index on a TEXT or LONGTEXT column must say how many leading
// characters of it the index holds. kurabe indexes at most maxTextPrefix:
// 764 bytes in utf8mb4, within the 767 bytes InnoDB allows one column of
// an index in its REDUNDANT and COMPACT row formats. In an index of
// several columns the text columns share what the integers (8 bytes each)
// leave of maxKeyBytes, MyISAM's limit on a whole key and the smallest of
// the engines' (InnoDB's is 1173 bytes with 4 KiB pages and 3072 with
// 16 KiB, Aria's 2300). So an index has the same definition under every
// engine, row format and page size, and a comparison of engines compares
// equal indexes. Making an indexed column VARCHAR instead would cap the
// length of its values (a strict server refuses longer ones) and store it
// unlike the same column unindexed. The price of a prefix: the index
// narrows a lookup to the rows that share the prefix, which the server
// then reads to check, and it cannot cover a query or order by the column.
const (
	maxTextPrefix = 191
	maxKeyBytes   = 1000
)

// indexSQL returns the CREATE INDEX statements of t's secondary indexes,
// each named kurabe_<table>_<columns> (shortened by indexName when that is
// too long).
func (s *Store) indexSQL(t *store.Table) ([]string, error) { return s.indexSQLOn(t, t.Name) }

// indexSQLOn returns the statements that make t's indexes, under t's index
// names, on table (t's staging table at a swap: an index's name is the
// table's own in MySQL, so the names go with the table when it is renamed).
func (s *Store) indexSQLOn(t *store.Table, table string) ([]string, error) {
	kinds := map[string]store.Kind{}
	for _, c := range t.Columns {
		kinds[c.Name] = c.Kind
	}
	var out []string
	names := map[string]bool{}
	for _, cols := range t.Indexes {
		if len(cols) == 0 {
			return nil, fmt.Errorf("%s: table %s lists an index of no columns; give each index at least one column", s.driver, t.Name)
		}
		ints, texts := 0, 0
		for _, c := range cols {
			kind, ok := kinds[c]
			switch {
			case !ok:
				return nil, fmt.Errorf("%s: table %s has no column %q to index (index on %s)", s.driver, t.Name, c, strings.Join(cols, ", "))
			case kind == store.Text:
				texts++
			default:
				ints++
			}
		}
		prefix := maxTextPrefix
		if texts > 0 {
			prefix = min(prefix, (maxKeyBytes-8*ints)/(4*texts))
		}
		if prefix < 1 {
			return nil, fmt.Errorf("%s: an index on %s of table %s would be longer than the %d bytes a key may have; index fewer columns", s.driver, strings.Join(cols, ", "), t.Name, maxKeyBytes)
		}
		parts := make([]string, len(cols))
		for i, c := range cols {
			parts[i] = quote(c)
			if kinds[c] == store.Text {
				parts[i] += "(" + strconv.Itoa(prefix) + ")"
			}
		}
		name := store.IndexName(t.Name, cols, maxName)
		if names[name] {
			return nil, fmt.Errorf("%s: table %s lists two indexes named %s (on %s); list each index once", s.driver, t.Name, name, strings.Join(cols, ", "))
		}
		names[name] = true
		out = append(out, "CREATE INDEX "+quote(name)+" ON "+s.qualified(table)+" ("+strings.Join(parts, ", ")+")")
	}
	return out, nil
}

// Truncate empties one of kurabe's tables.
func (s *Store) Truncate(ctx context.Context, t *store.Table) error {
	return scrub(s.truncate(ctx, t), s.secret)
}

func (s *Store) truncate(ctx context.Context, t *store.Table) error {
	c, done, err := s.own(ctx)
	if err != nil {
		return err
	}
	defer done()
	if err := s.mayReplace(ctx, c, t.Name); err != nil {
		return err
	}
	if _, err := c.ExecContext(ctx, "TRUNCATE TABLE "+s.qualified(t.Name)); err != nil {
		return fmt.Errorf("%s: %w", s.driver, classify(err, false))
	}
	return nil
}

// Count counts a table's rows from a fresh connection.
func (s *Store) Count(ctx context.Context, t *store.Table) (int64, error) {
	c, done, err := s.own(ctx)
	if err != nil {
		return 0, scrub(err, s.secret)
	}
	defer done()
	return s.count(ctx, c, t)
}

func (s *Store) count(ctx context.Context, c *sql.Conn, t *store.Table) (int64, error) {
	var n int64
	if err := c.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+s.qualified(t.Name)).Scan(&n); err != nil {
		return 0, scrub(fmt.Errorf("%s: %w", s.driver, classify(err, false)), s.secret)
	}
	return n, nil
}

// OpenCounter opens the connection Count would, and keeps it
// (store.CounterOpener). Each count is a statement of its own in
// autocommit, so it sees every row committed before it. A store with the
// command's lock counts on the lock's connection, which is kept anyway
// (checked now, as it would be opened now).
func (s *Store) OpenCounter(ctx context.Context) (store.Counter, error) {
	if err := s.ready(ctx); err != nil {
		return nil, scrub(err, s.secret)
	}
	s.mu.Lock()
	l := s.lock
	s.mu.Unlock()
	if l != nil {
		c, done, err := l.use(ctx, s)
		if err != nil {
			return nil, scrub(err, s.secret)
		}
		if c != nil {
			done()
			return lockCounter{s}, nil
		}
	}
	c, err := s.fresh(ctx)
	if err != nil {
		return nil, scrub(err, s.secret)
	}
	return &counter{s, c}, nil
}

type counter struct {
	s *Store
	c *sql.Conn
}

func (c *counter) Count(ctx context.Context, t *store.Table) (int64, error) {
	return c.s.count(ctx, c.c, t)
}

func (c *counter) Close() error { return c.c.Close() }

// lockCounter counts on the lock's connection, through Count.
type lockCounter struct{ s *Store }

func (c lockCounter) Count(ctx context.Context, t *store.Table) (int64, error) {
	return c.s.Count(ctx, t)
}

func (lockCounter) Close() error { return nil }

// readBack are server settings Info always reports, when the server has
// them.
var readBack = []string{"innodb_page_size", "innodb_buffer_pool_size", "innodb_flush_log_at_trx_commit", "sync_binlog", "innodb_compression_algorithm", "collation_connection"}

// Networked: every operation waits on the server's socket (store.Networked).
func (s *Store) Networked() {}

// Info reports the store options and the settings as the server has them,
// read back, so that one that did not apply shows. It never starts a
// managed server, and reports what it could not read in Facts["error"].
func (s *Store) Info(ctx context.Context) store.Info {
	s.mu.Lock()
	target, admin, closed, bulkPath := s.target, s.admin, s.closed, s.bulkPath
	replay, sessDB := s.replay, s.db
	s.mu.Unlock()
	client := "github.com/go-sql-driver/mysql via database/sql"
	if s.opts.driver == "wire" {
		client = "kurabe/store/mysql/wire (binary protocol; go-sql-driver/mysql connects)"
	}
	info := store.Info{Driver: s.driver, Target: target, Options: s.optionMap(), Facts: map[string]string{
		"client": client,
	}}
	if bulkPath != "" {
		info.Facts["bulk_load"] = bulkPath
	}
	if s.m != nil {
		info.Facts["server"] = s.m.serverBin
		info.Facts["datadir"] = s.m.datadir()
		info.Facts["data_size_bytes"] = strconv.FormatInt(server.DirSize(s.m.datadir()), 10)
	}
	if admin == nil || closed {
		if closed {
			info.Facts["error"] = "store is closed; settings not read back"
		} else {
			info.Facts["error"] = "server not reached yet (Setup connects); settings not read back"
		}
		info.Options = s.givenOptions()
		return info
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	c, done, err := s.own(ctx)
	if err != nil {
		info.Facts["error"] = scrub(fmt.Errorf("cannot connect to read settings back: %w", err), s.secret).Error()
		info.Options = s.givenOptions()
		return info
	}
	defer done()
	c.QueryRowContext(ctx, "SELECT VERSION()").Scan(&info.Version)

	for _, name := range readBack {
		if v, ok := variable(ctx, c, name); ok {
			info.Options[name] = v
		}
	}
	if s.m != nil {
		for _, st := range s.m.settings {
			name := strings.ReplaceAll(st.name, "-", "_")
			if v, ok := variable(ctx, c, name); ok {
				info.Options[name] = v
			} else {
				info.Options[name] = st.value + " (given; not a server variable, not read back)"
			}
		}
	}
	if replay {
		s.replayInfo(ctx, sessDB, &info)
	} else if !s.tableInfo(ctx, c, &info) {
		// No table of kurabe's to read them from (Setup failed: a row
		// format the page size does not take): what was asked, as asked.
		s.markGiven(info.Options)
	}
	return info
}

// givenOptions is what Info says of the options when it could not read
// the server: kurabe's own (connect, driver, database, pool_size) as
// they are, and of the table options the server would have to confirm
// (engine, row_format, page_compressed, encrypted) only those the spec
// gave, marked as not read back, rather than their defaults
// (engine=InnoDB, row_format=(engine default), …) as if read back.
func (s *Store) givenOptions() map[string]string {
	o := s.optionMap()
	s.markGiven(o)
	return o
}

// markGiven replaces the table options in o, which could not be read
// back, with those the spec gave, marked as not read back.
func (s *Store) markGiven(o map[string]string) {
	for _, name := range tableOptions {
		delete(o, name)
		if v := s.given.Get(name); v != "" {
			o[name] = v + " (given; not read back)"
		}
	}
}

// tableOptions are the options Info reads back from the table.
var tableOptions = []string{"engine", "row_format", "page_compressed", "encrypted"}

func (s *Store) optionMap() map[string]string {
	o := map[string]string{
		"engine":          s.opts.engine,
		"row_format":      s.opts.rowFormat,
		"page_compressed": boolText(s.opts.pageCompressed),
		"encrypted":       boolText(s.opts.encrypted),
		"connect":         s.opts.connect,
		"database":        s.opts.database,
		"driver":          s.opts.driver,
	}
	if o["row_format"] == "" {
		o["row_format"] = "(engine default)"
	}
	if s.opts.connect == "pool" {
		o["pool_size"] = strconv.Itoa(s.opts.poolSize)
	}
	return o
}

func boolText(v bool) string {
	if v {
		return "1"
	}
	return "0"
}

var varNameRE = regexp.MustCompile(`^[A-Za-z0-9_]+$`)

// variable reads a server variable; ok is false when it does not exist.
func variable(ctx context.Context, c *sql.Conn, name string) (string, bool) {
	if !varNameRE.MatchString(name) {
		return "", false
	}
	var v sql.NullString
	if err := c.QueryRowContext(ctx, "SELECT @@"+name).Scan(&v); err != nil {
		return "", false
	}
	return v.String, true
}

// tableInfo reports each kurabe table's engine, row format and create
// options (where page_compressed and encrypted show), and their size. It
// says whether it found a table to read them from.
func (s *Store) tableInfo(ctx context.Context, c *sql.Conn, info *store.Info) bool {
	// Only this store's tables: kurabe_meta also lists those of earlier
	// runs (an Aria table of a --vary engine run beside a load run's).
	s.mu.Lock()
	made := maps.Clone(s.made)
	s.mu.Unlock()
	ours := map[string]bool{}
	rows, err := c.QueryContext(ctx, "SELECT name FROM "+s.qualified(metaTable))
	if err != nil {
		return false // no Setup yet: no tables
	}
	for rows.Next() {
		var n string
		if rows.Scan(&n) == nil && made[n] {
			ours[n] = true
		}
	}
	rows.Close()
	if err := s.analyze(ctx, c, ours); err != nil {
		info.Facts["tables_size_note"] = scrub(fmt.Errorf("InnoDB's statistics, perhaps stale: ANALYZE TABLE failed: %w", err), s.secret).Error()
	}
	rows, err = c.QueryContext(ctx, `SELECT TABLE_NAME, COALESCE(ENGINE, ''), COALESCE(ROW_FORMAT, ''), COALESCE(CREATE_OPTIONS, ''),
		COALESCE(DATA_LENGTH, 0) + COALESCE(INDEX_LENGTH, 0) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?`, s.opts.database)
	if err != nil {
		info.Facts["error"] = scrub(fmt.Errorf("cannot read table options: %w", err), s.secret).Error()
		return false
	}
	defer rows.Close()
	var total int64
	type tableOpts struct{ engine, format, create string }
	per := map[string]tableOpts{}
	for rows.Next() {
		var name, engine, format, create string
		var size int64
		if rows.Scan(&name, &engine, &format, &create, &size) != nil || !ours[name] {
			continue
		}
		per[name] = tableOpts{engine, format, create}
		total += size
		// The table options as the server has them, in place of the ones
		// asked for, so a variant matrix shows what really applied.
		upper := strings.ToUpper(create)
		info.Options["engine"] = engine
		info.Options["row_format"] = format
		info.Options["page_compressed"] = boolText(strings.Contains(upper, "PAGE_COMPRESSED`='1'") || strings.Contains(upper, "PAGE_COMPRESSED`='ON'") || strings.Contains(upper, "PAGE_COMPRESSED=1"))
		info.Options["encrypted"] = boolText(strings.Contains(upper, "ENCRYPTED`='YES'") || strings.Contains(upper, "ENCRYPTED=YES"))
	}
	// Per table, or once for all when every table has the same options
	// (an isolated run's tables, pgbench's four).
	same := len(per) > 1
	var first *tableOpts
	for _, o := range per {
		if first == nil {
			first = &o
		} else if o != *first {
			same = false
		}
	}
	for name, o := range per {
		if same {
			name = "tables"
			info.Facts["tables"] = strconv.Itoa(len(per))
		}
		if len(per) > 1 {
			// With one table, engine and row_format above are its own.
			info.Options[name+".engine"] = o.engine
			info.Options[name+".row_format"] = o.format
		}
		if o.create != "" {
			info.Options[name+".create_options"] = o.create
		}
	}
	info.Facts["tables_size_bytes"] = strconv.FormatInt(total, 10)
	if s.m == nil {
		info.Facts["data_size_bytes"] = info.Facts["tables_size_bytes"]
	}
	return len(per) > 0
}

// analyze runs ANALYZE TABLE on kurabe's own InnoDB tables (ours), and no
// others, so that their sizes in information_schema are true: InnoDB's
// DATA_LENGTH and INDEX_LENGTH are its statistics, which stay at one page
// after a table is created until the server recalculates them (in the
// background, when a tenth of the table has changed and some seconds have
// passed), so 30,000 rows written just before read as 16384 bytes. InnoDB's
// ANALYZE samples a few pages per index and counts the pages of each, so
// it is quick whatever the table's size. MyISAM's and Aria's sizes are
// their files', always current, and their ANALYZE reads every key: they
// are left alone.
func (s *Store) analyze(ctx context.Context, c *sql.Conn, ours map[string]bool) error {
	rows, err := c.QueryContext(ctx, "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND ENGINE = 'InnoDB'", s.opts.database)
	if err != nil {
		return err
	}
	var names []string
	for rows.Next() {
		var n string
		if rows.Scan(&n) == nil && ours[n] {
			names = append(names, s.qualified(n))
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(names) == 0 {
		return err
	}
	slices.Sort(names)
	// ANALYZE TABLE answers with a row per table, a failure among them
	// (Msg_type error) rather than as the statement's error.
	rows, err = c.QueryContext(ctx, "ANALYZE TABLE "+strings.Join(names, ", "))
	if err != nil {
		return err
	}
	defer rows.Close()
	var failed []string
	for rows.Next() {
		var table, op, kind, text string
		if rows.Scan(&table, &op, &kind, &text) == nil && strings.EqualFold(kind, "error") {
			failed = append(failed, table+": "+text)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(failed) > 0 {
		return errors.New(strings.Join(failed, "; "))
	}
	return nil
}

// Died is store.Mortal's: a managed server's exit that kurabe did not ask
// for.
func (s *Store) Died() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		return nil
	}
	return s.m.died()
}

// Death is store.Mortal's: how a managed server that died ended.
func (s *Store) Death() *store.Death {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		return nil
	}
	return s.m.death()
}

// Close closes the store's connections and stops a managed server
// (SIGTERM, then SIGKILL after 30 s). It is safe to call twice.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	for _, st := range s.pool {
		st.Close()
	}
	for _, st := range s.sqlPool {
		st.Close()
	}
	var errs []error
	if s.db != nil {
		errs = append(errs, s.db.Close(), s.admin.Close())
	}
	s.mu.Unlock()
	if s.m != nil {
		errs = append(errs, s.m.stop())
	}
	return scrub(errors.Join(errs...), s.secret)
}

// classify gives an error its class for the error breakdown. connecting
// says the error came from opening a connection. A connection lost
// mid-operation is store.ClassConnLost: the server ended the session
// (KILL: 1927, "Connection was killed"; a shutdown: 1053) or the
// connection broke (the wire driver's and go-sql-driver's ErrInvalidConn,
// EOF, a reset) after the request may have gone out, so the operation's
// outcome is unknown. database/sql's driver.ErrBadConn and ErrConnDone
// say the request never went out (go-sql-driver returns ErrBadConn only
// before writing), and stay connect: no connection to send on.
func classify(err error, connecting bool) error {
	// ce escapes to errors.As, so it is allocated where it is declared:
	// after the check for nil, which every successful operation takes.
	if err == nil {
		return nil
	}
	var ce *store.ClassError
	if errors.As(err, &ce) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		class := "mysql:" + strconv.Itoa(int(me.Number))
		switch me.Number {
		case 1040:
			class = "too-many-connections"
		case 1213:
			class = "deadlock"
		case 1205:
			class = "lock-timeout"
		default:
			switch {
			case connecting:
				class = "connect"
			case me.Number == 1927 || me.Number == 1053:
				class = store.ClassConnLost
			}
		}
		return &store.ClassError{Class: class, Err: err}
	}
	var oe *net.OpError
	if connecting || errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) || (errors.As(err, &oe) && oe.Op == "dial") {
		return &store.ClassError{Class: "connect", Err: err}
	}
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, mysql.ErrInvalidConn) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &store.ClassError{Class: store.ClassConnLost, Err: err}
	}
	return err
}

// hidden is a password to keep out of messages, and the parts of its
// address a message shows, which stay even when the password is one of
// them (a password equal to the user name).
type hidden struct {
	pw      string
	visible []string // user, host and database
}

// scrub replaces the password in err's text, should any path of the driver
// or of this package ever put it there: a URL's password field and
// password= values always, and the password where it stands as a word,
// unless it is one of kurabe's words (mysql, mariadb) or a visible part of
// the address (redact.Words). The class and the sentinel errors callers
// test for survive.
func scrub(err error, secret hidden) error {
	if err == nil || secret.pw == "" {
		return err
	}
	msg := err.Error()
	clean := redact.Words(store.HideSecrets(msg), []string{secret.pw}, secret.visible...)
	if clean == msg {
		return err
	}
	out := &scrubbed{msg: clean}
	for _, keep := range []error{store.ErrNotOwned, context.Canceled, context.DeadlineExceeded} {
		if errors.Is(err, keep) {
			out.is = keep
			break
		}
	}
	var ce *store.ClassError
	if errors.As(err, &ce) {
		return &store.ClassError{Class: ce.Class, Err: out}
	}
	return out
}

// scrubbed is an error whose message kurabe rewrote: a password hidden,
// or a connect that got no answer said as such.
type scrubbed struct {
	msg string
	is  error
}

func (e *scrubbed) Error() string { return e.msg }
func (e *scrubbed) Unwrap() error { return e.is }

var (
	_ store.Swapper    = (*Store)(nil)
	_ store.TableNamer = (*Store)(nil)
)

// TableName is t's name on the server: <database>.<name>.
func (s *Store) TableName(t *store.Table) string { return s.opts.database + "." + t.Name }

// Swap puts staged in t's place. DDL commits by itself in MySQL and
// MariaDB, so there is no transaction to hold it in; staged is indexed
// first, then one RENAME TABLE, which is atomic, moves t aside to
// <name>_old and staged into its place (other sessions see the old table
// or the new, never none), and the old one is dropped.
func (s *Store) Swap(ctx context.Context, staged, t *store.Table) error {
	return scrub(s.swap(ctx, staged, t), s.secret)
}

func (s *Store) swap(ctx context.Context, staged, t *store.Table) error {
	indexes, err := s.indexSQLOn(t, staged.Name)
	if err != nil {
		return err
	}
	c, done, err := s.own(ctx)
	if err != nil {
		return err
	}
	defer done()
	old := t.Name + "_old"
	o, err := s.owner(ctx, c, t.Name)
	if err != nil {
		return err
	}
	if o != absent && o != ours {
		return s.refusal(t.Name, o)
	}
	exists := o == ours
	if err := s.mayReplace(ctx, c, old); err != nil {
		return err
	}
	switch so, err := s.owner(ctx, c, staged.Name); {
	case err != nil:
		return err
	case so == absent:
		return fmt.Errorf("%s: the staging table %s is not there; run Setup first", s.driver, s.qualified(staged.Name))
	case so != ours:
		return s.refusal(staged.Name, so)
	}
	// Each entry moves with its table: t's goes with t to old, and
	// staged's (its token, which its comment has) with staged into t's
	// place. A name is listed only while a table of kurabe's is there or
	// about to be, never one that is not coming: old's entry is made
	// before the rename (so that a stop right after it leaves old listed,
	// for the next swap to drop), and is taken back if the rename was not
	// done; t's is made only after the rename, so a stop or failure before
	// it leaves t unlisted, and a table someone makes under the name later
	// is not taken for kurabe's. A stop between the rename and t's entry
	// leaves the table kurabe made unlisted, which kurabe then refuses as
	// not its own: the safe side.
	recAs := "INSERT INTO " + s.qualified(metaTable) + " (name, created, token) SELECT ?, created, token FROM " + s.qualified(metaTable) +
		" WHERE name = ? ON DUPLICATE KEY UPDATE created = VALUES(created), token = VALUES(token)"
	unrec := "DELETE FROM " + s.qualified(metaTable) + " WHERE name = ?"
	before := []swapStep{{"DROP TABLE IF EXISTS " + s.qualified(old), nil}}
	for _, q := range indexes {
		before = append(before, swapStep{q, nil})
	}
	rename := "RENAME TABLE " + s.qualified(staged.Name) + " TO " + s.qualified(t.Name)
	var after []swapStep
	if exists {
		before = append(before, swapStep{recAs, []any{old, t.Name}})
		rename = "RENAME TABLE " + s.qualified(t.Name) + " TO " + s.qualified(old) + ", " + s.qualified(staged.Name) + " TO " + s.qualified(t.Name)
		after = append(after, swapStep{"DROP TABLE " + s.qualified(old), nil}, swapStep{unrec, []any{old}})
	}
	after = append(after, swapStep{recAs, []any{t.Name, staged.Name}}, swapStep{unrec, []any{staged.Name}})
	if err := s.runSteps(ctx, c, staged, t, before); err != nil {
		return err
	}
	// From the rename on, the entries are put right whatever happens to
	// ctx: a Ctrl-C must not leave them half moved.
	bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if _, err := c.ExecContext(ctx, rename); err != nil {
		failed := fmt.Errorf("%s: swapping %s into %s: %s: %w", s.driver, s.qualified(staged.Name), s.qualified(t.Name), rename, classify(err, false))
		var answer *mysql.MySQLError // the server's own error: the rename was not done
		return errors.Join(failed, s.settleRename(bctx, !errors.As(err, &answer), staged, t, exists, after, swapStep{unrec, []any{old}}))
	}
	if err := s.runSteps(bctx, c, staged, t, after); err != nil {
		return err
	}
	s.mu.Lock()
	if s.made == nil {
		s.made = map[string]bool{}
	}
	delete(s.made, staged.Name)
	s.made[t.Name] = true
	s.mu.Unlock()
	return nil
}

// swapStep is one statement of a swap.
type swapStep struct {
	q    string
	args []any
}

func (s *Store) runSteps(ctx context.Context, c *sql.Conn, staged, t *store.Table, steps []swapStep) error {
	for _, st := range steps {
		if _, err := c.ExecContext(ctx, st.q, st.args...); err != nil {
			return fmt.Errorf("%s: swapping %s into %s: %s: %w", s.driver, s.qualified(staged.Name), s.qualified(t.Name), st.q, classify(err, false))
		}
	}
	return nil
}

// settleRename puts kurabe_meta right after a swap's RENAME TABLE gave an
// error, on a connection of its own (an interrupted statement takes its
// connection with it). RENAME TABLE is done whole or not at all, and an
// error of the server's says it was not; an interrupt or a lost
// connection (unsure) may have cut off the answer alone, so then the
// staging table, gone or still there, says whether it was done. Done, the steps after it are run;
// not done, old's entry made for it is taken back (unrecOld, when t was
// there to be moved aside).
func (s *Store) settleRename(ctx context.Context, unsure bool, staged, t *store.Table, exists bool, after []swapStep, unrecOld swapStep) error {
	c, err := s.fresh(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	done := false
	if unsure {
		o, err := s.owner(ctx, c, staged.Name)
		if err != nil {
			return err
		}
		done = o == absent
	}
	switch {
	case done:
		return s.runSteps(ctx, c, staged, t, after)
	case exists:
		return s.runSteps(ctx, c, staged, t, []swapStep{unrecOld})
	}
	return nil
}

// Drop removes one of kurabe's tables, if it is there.
func (s *Store) Drop(ctx context.Context, t *store.Table) error {
	return scrub(s.drop(ctx, t), s.secret)
}

func (s *Store) drop(ctx context.Context, t *store.Table) error {
	c, done, err := s.own(ctx)
	if err != nil {
		return err
	}
	defer done()
	o, err := s.owner(ctx, c, t.Name)
	switch {
	case err != nil || o == foreign || o == absent:
		return err // not kurabe's or not there: left as it is
	case o != ours:
		return s.refusal(t.Name, o)
	}
	for _, q := range []string{"DROP TABLE " + s.qualified(t.Name), "DELETE FROM " + s.qualified(metaTable) + " WHERE name = ?"} {
		args := []any{}
		if strings.HasPrefix(q, "DELETE") {
			args = append(args, t.Name)
		}
		if _, err := c.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("%s: dropping %s: %w", s.driver, s.qualified(t.Name), classify(err, false))
		}
	}
	return nil
}

var _ store.Cleaner = (*Store)(nil)
var _ store.Mortal = (*Store)(nil)

// Clean drops kurabe's tables and then kurabe_meta, never the database,
// which may hold the user's tables (and which kurabe made only when the
// address named none). DDL commits by itself in MySQL and MariaDB, so it
// is done table by table, each checked just before it is dropped; with
// dryRun nothing is run but the checks.
func (s *Store) Clean(ctx context.Context, dryRun bool) ([]store.Cleaned, error) {
	out, err := s.clean(ctx, dryRun)
	return out, scrub(err, s.secret)
}

func (s *Store) clean(ctx context.Context, dryRun bool) ([]store.Cleaned, error) {
	if s.m != nil {
		return nil, fmt.Errorf("%s: a managed server is thrown away with its tables when kurabe stops; there is nothing to clean", s.driver)
	}
	c, done, err := s.own(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	meta := s.opts.database + "." + metaTable
	shape, err := s.metaShape(ctx, c)
	if err != nil {
		return nil, err
	}
	if shape == "" {
		return []store.Cleaned{{Name: meta, Outcome: store.CleanNothing}}, nil
	}
	rows, err := c.QueryContext(ctx, "SELECT name FROM "+s.qualified(metaTable)+" ORDER BY name")
	if err != nil {
		return nil, fmt.Errorf("%s: reading %s: %w", s.driver, meta, classify(err, false))
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return nil, fmt.Errorf("%s: reading %s: %w", s.driver, meta, classify(err, false))
		}
		names = append(names, n)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: reading %s: %w", s.driver, meta, classify(err, false))
	}
	run := func(q string, args ...any) error {
		if dryRun {
			return nil
		}
		if _, err := c.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("%s: cleaning %s: %s: %w", s.driver, s.opts.database, q, classify(err, false))
		}
		return nil
	}
	unrec := "DELETE FROM " + s.qualified(metaTable) + " WHERE name = ?"
	var out []store.Cleaned
	left := false
	for _, name := range names {
		o, err := s.owner(ctx, c, name)
		if err != nil {
			return out, err
		}
		cl := store.Cleaned{Name: s.opts.database + "." + name}
		switch o {
		case ours:
			if err := run("DROP TABLE " + s.qualified(name)); err != nil {
				return out, err
			}
			cl.Outcome = store.CleanDropped
		case absent:
			cl.Outcome = store.CleanUnlisted
		case unproven:
			cl.Outcome, left = store.CleanUnproven, true
		default:
			cl.Outcome, left = store.CleanReplaced, true
		}
		if o == ours || o == absent {
			if err := run(unrec, name); err != nil {
				return out, err
			}
		}
		out = append(out, cl)
	}
	if left {
		return append(out, store.Cleaned{Name: meta, Outcome: store.CleanListKept}), nil
	}
	if err := run("DROP TABLE " + s.qualified(metaTable)); err != nil {
		return out, err
	}
	return append(out, store.Cleaned{Name: meta, Outcome: store.CleanDropped}), nil
}
