// Package postgres is the PostgreSQL store. Sessions with a connection of
// their own run over package wire (driver=wire): pgx's pgconn connects and
// authenticates, and then each operation is one write of Bind, Execute and
// Sync and a read of the reply in place, allocating nothing. Everything
// else (pooled and per-operation connections, the simple protocol, Setup,
// Count, Info, COPY) is on jackc/pgx/v5's native interface (pgx.Conn and
// pgxpool, not database/sql, whose extra layer allocates per row and hides
// the protocol choices this store exists to compare).
//
// A store is either an existing server (postgres://user@host:port/db) or a
// throwaway one kurabe runs itself (postgres:managed): initdb into the
// store's directory, started on a free loopback port on the first Setup,
// stopped by Close. For a managed server, every option that is not a store
// option below is a server setting passed as -c name=value; the server
// itself rejects unknown ones, and Info reads every one of them back, so a
// setting that did not apply shows.
//
// Store options and the trade-offs they choose between:
//
//   - connect=session (default): each session owns one connection, opened
//     when the session is, like the processes of an application with
//     persistent connections. connect=pool: sessions share one pgxpool of
//     pool_size connections (default 10); a session waits for a free one,
//     and that wait counts in its latency, as in an application server
//     with a pool. connect=per-op: every operation connects, runs and
//     disconnects, like CGI without a pooler; the session reports the time
//     spent connecting (store.ConnectTimer) so figures can be given with
//     and without it, as pgbench -C does.
//   - protocol=extended (default): pgx's per-connection statement cache
//     prepares each statement on a connection's first use and then binds
//     and executes it in one round trip. With connect=per-op every
//     operation prepares again, as pgbench -C -M prepared does.
//     protocol=simple sends each statement as text with its values
//     quoted in, parsed and planned by the server every time.
//   - driver=wire (the default with connect=session and protocol=extended)
//     or driver=pgx: what a session's operations run on. On this 2-core
//     machine a pgx query cost the client about 18 µs of CPU against
//     15 µs for the wire path, and 10 µs for libpq in pgbench; the rest of
//     the gap is Go's network poller and the kernel (bench/pg-latest.sh).
//     Both drivers send the same statements, prepared once per session,
//     and classify errors alike. driver=wire sends parameters in the text
//     format (workloads' SQL may bind an integer to an int4 or numeric
//     parameter; the server converts), and asks for results in the binary
//     format for the types pgx also reads in binary, so byte counts agree.
//   - synchronous_commit=on|off|local|remote_write|remote_apply is sent in
//     every connection's startup message, which sets it for the session
//     like SET would, without an extra round trip per connection.
//
// Tables live in the schema kurabe, and kurabe.kurabe_meta lists the ones
// kurabe created, each with its OID. A table in that schema that is not
// listed, or is listed but has another OID (someone made it again under
// that name), is never dropped, truncated or altered: Setup fails with
// store.ErrNotOwned. A
// table's secondary indexes are created with it, in the same transaction,
// named kurabe_<table>_<columns> (cut and ended with a hash past 63 bytes).
//
// Scan reads the wire values in place (rows.RawValues), decoding integers
// from either format without allocating per row; text is handed to the
// callback as the received bytes. Each shape of scan (its order, and
// whether it has From, Limit and Offset) is a statement of its own, built
// on first use, so a session prepares only the shapes it runs and builds
// no SQL per call. The server applies From (WHERE) and Offset (OFFSET), so
// skipped rows cost what they cost any application. InsertBatch queues the
// rows' INSERTs in one pgx.Batch: one round trip and, under a single Sync
// (or one multi-statement simple query), one implicit transaction, through
// the same statement as Insert.
//
// Sessions are store.SQLSessions too (sql.go): statements in PostgreSQL's
// SQL with $1 placeholders, through pgx's statement cache (or its simple
// protocol), on the connection the connect mode gives; connections start
// with search_path kurabe, public, so that such SQL can name kurabe's
// tables as they are named in the workload. A transaction holds one
// connection from Begin to Commit or Rollback, so connect=per-op has
// none. The store is a store.BulkLoader: COPY FROM STDIN in the binary
// format, streamed.
//
// Passwords never appear in what the store reports: targets are redacted
// and every error message is scrubbed of the password in use.
package postgres

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"kurabe/redact"
	"kurabe/store"
	"kurabe/store/postgres/wire"
	"kurabe/store/server"
)

// schema is the namespace kurabe owns on the server.
const schema = "kurabe"

// schemaMark is the comment of a schema kurabe made.
const schemaMark = "made by kurabe; kurabe clean drops it when nothing else is in it"

// metaColumns are kurabe_meta's columns: each table kurabe made, when,
// and its OID; metaColumnsOld those of earlier kurabe, without the OID.
const (
	metaColumns    = "name,created,relid"
	metaColumnsOld = "name,created"
)

type connectMode uint8

const (
	connectSession connectMode = iota
	connectPool
	connectPerOp
)

var connectNames = []string{"session", "pool", "per-op"}

// storeOptions are read by the store itself; for a managed server every
// other option is a server setting.
var storeOptions = []string{"connect", "protocol", "synchronous_commit", "pool_size", "driver"}

// OwnOptions are the store's own options; any other option of a managed
// store is a server setting.
func OwnOptions() []string { return slices.Clone(storeOptions) }

// libpqParams are the connection parameters of libpq's URIs that an
// address of an existing server may carry beside kurabe's options, passed
// to pgconn as they are: how to secure the connection, the name the
// server shows for it, and how long to wait for it. A password is not
// among them: it goes in the address's user part or PGPASSWORD, where
// messages hide it.
var libpqParams = []string{"sslmode", "sslrootcert", "sslcert", "sslkey", "application_name", "connect_timeout"}

// reserved are server settings kurabe chooses for a managed server, since
// it must know them to connect.
var reserved = []string{"listen_addresses", "port", "unix_socket_directories", "data_directory", "hba_file", "config_file"}

// reported are the server settings Info always reads back.
var reported = []string{"block_size", "shared_buffers", "synchronous_commit", "fsync", "wal_level", "full_page_writes", "max_connections"}

var settingName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$`)

// Store is one PostgreSQL database, on an existing server or a managed one.
type Store struct {
	connect    connectMode
	simple     bool   // protocol=simple
	wire       bool   // driver=wire: sessions run over package wire
	syncCommit string // "" leaves the server's default
	poolSize   int
	target     string     // for Info and messages, without credentials
	dsn        string     // external: the connection string, possibly with a password
	conn       url.Values // external: the libpq parameters the address gave (sslmode=disable)
	password   string     // scrubbed from every error message
	visible    []string   // the address's user, host and database, which messages keep even when the password is one of them
	managed    *managed

	mu       sync.Mutex
	noAnswer error           // the last connect found no server answering within the timeout
	cfg      *pgx.ConnConfig // set once the server can be reached
	pool     *pgxpool.Pool
	startErr error
	closed   bool
	// lock is the command's lock on kurabe's schema (Lock, ShareLock),
	// whose connection is the store's own: nil without one.
	lock *pgLock
}

// Open validates a PostgreSQL spec. It does not connect, and for a managed
// store it only finds the server programs: the server starts on Setup.
func Open(ctx context.Context, spec store.Spec, env store.Env) (store.Store, error) {
	o := store.NewOptions(spec)
	s := &Store{}
	// Keywords are taken in any case, as synchronous_commit's are and
	// the command line's checks of connect= compare them.
	mode := strings.ToLower(o.Get("connect", "session"))
	i := slices.Index(connectNames, mode)
	if i < 0 {
		return nil, &store.OptionError{Driver: "postgres", Name: "connect", Value: mode, Want: "session, pool or per-op"}
	}
	s.connect = connectMode(i)
	switch p := strings.ToLower(o.Get("protocol", "extended")); p {
	case "extended":
	case "simple":
		s.simple = true
	default:
		return nil, &store.OptionError{Driver: "postgres", Name: "protocol", Value: p, Want: "extended or simple"}
	}
	switch d := strings.ToLower(o.Get("driver", "")); d {
	case "":
		s.wire = s.connect == connectSession && !s.simple
	case "pgx":
	case "wire":
		if s.connect != connectSession || s.simple {
			return nil, fmt.Errorf("postgres: driver=wire runs only with connect=session and protocol=extended; drop driver=wire or those options")
		}
		s.wire = true
	default:
		return nil, &store.OptionError{Driver: "postgres", Name: "driver", Value: d, Want: "wire or pgx"}
	}
	s.syncCommit = strings.ToLower(o.Get("synchronous_commit", ""))
	if s.syncCommit != "" && !slices.Contains([]string{"on", "off", "local", "remote_write", "remote_apply"}, s.syncCommit) {
		return nil, &store.OptionError{Driver: "postgres", Name: "synchronous_commit", Value: s.syncCommit, Want: "on, off, local, remote_write or remote_apply"}
	}
	size := o.Get("pool_size", "")
	if size != "" && s.connect != connectPool {
		return nil, fmt.Errorf("postgres: pool_size=%s applies only with connect=pool; add connect=pool or drop pool_size", size)
	}
	s.poolSize = 10
	if size != "" {
		n, err := strconv.Atoi(size)
		if err != nil || n < 1 {
			return nil, &store.OptionError{Driver: "postgres", Name: "pool_size", Value: size, Want: "a number of connections, 1 or more"}
		}
		s.poolSize = n
	}

	switch {
	case spec.Target == "managed":
		m, err := newManaged(ctx, spec, env)
		if err != nil {
			return nil, err
		}
		s.managed = m
		s.target = "managed (not started)"
		return s, nil
	case strings.HasPrefix(spec.Target, "//"):
		conn := url.Values{}
		for _, k := range libpqParams {
			if v := o.Get(k, ""); v != "" {
				conn.Set(k, v)
			}
		}
		if err := o.Check(); err != nil {
			return nil, err
		}
		if err := s.external(spec.Target, conn); err != nil {
			return nil, err
		}
		return s, nil
	}
	return nil, fmt.Errorf("postgres: target %q is neither an address nor managed; give postgres:managed or %s", store.RedactTarget(spec.Target), addressForm)
}

// addressForm is the address a message asks for. Its password is not
// written as in a URL (user:password@), which would be hidden in the
// message like a real one.
const addressForm = "postgres://USER@HOST:PORT/DB, a password as USER:PASSWORD@ (special characters %-encoded) or in PGPASSWORD"

// external parses the address of an existing server, keeping its password
// out of any message; conn holds the libpq parameters the address gave.
func (s *Store) external(target string, conn url.Values) error {
	s.target = "postgres:" + store.RedactTarget(target)
	u, err := url.Parse("postgres:" + target)
	if err != nil {
		// url's message quotes the address; say only what was expected.
		what := store.AddressProblem(target)
		if what != "" {
			what = ": " + what
		}
		return fmt.Errorf("postgres: cannot parse the address %s%s; want %s", store.RedactTarget(target), what, addressForm)
	}
	if pw, ok := u.User.Password(); ok {
		s.password = pw
	}
	s.visible = []string{u.User.Username(), u.Hostname(), strings.TrimPrefix(u.Path, "/")}
	s.dsn, s.conn = "postgres:"+target, conn
	if len(conn) > 0 {
		s.dsn += "?" + conn.Encode()
	}
	cfg, err := pgx.ParseConfig(s.dsn)
	if err != nil {
		return s.fail(fmt.Errorf("postgres: bad address %s: %w", s.target, err))
	}
	if cfg.Password != "" {
		s.password = cfg.Password // perhaps from PGPASSWORD or a .pgpass file
	}
	s.visible = append(s.visible, cfg.User, cfg.Host, cfg.Database) // perhaps from PGUSER, PGHOST, PGDATABASE
	s.tune(cfg)
	s.cfg = cfg
	return nil
}

// tune applies the store's options to a connection configuration.
func (s *Store) tune(cfg *pgx.ConnConfig) {
	if s.simple {
		cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	}
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	if _, ok := cfg.RuntimeParams["application_name"]; !ok {
		cfg.RuntimeParams["application_name"] = "kurabe" // unless the address (or PGAPPNAME) names it
	}
	// SQL a workload sends (store.SQLSession) names kurabe's tables as
	// they are in its schema; kurabe's own SQL qualifies every name.
	cfg.RuntimeParams["search_path"] = schema + ", public"
	// Without a limit (connect_timeout in the address, or
	// PGCONNECT_TIMEOUT) an unreachable host would hang for the kernel's
	// two minutes of retries.
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = 10 * time.Second
	}
	if s.syncCommit != "" {
		cfg.RuntimeParams["synchronous_commit"] = s.syncCommit
	}
}

// ready starts a managed server and creates the pool, once.
func (s *Store) ready(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("postgres: the store is closed")
	}
	if s.startErr != nil {
		return s.startErr
	}
	if s.cfg == nil {
		cfg, err := s.managed.start(ctx)
		if err != nil {
			s.startErr = err
			return err
		}
		s.tune(cfg)
		s.cfg = cfg
		s.dsn = s.managed.dsn()
		s.target = "managed " + s.managed.addr()
	}
	if s.connect == connectPool && s.pool == nil {
		pc, err := pgxpool.ParseConfig(s.dsn)
		if err != nil {
			return s.fail(fmt.Errorf("postgres: %s: %w", s.target, err))
		}
		s.tune(pc.ConnConfig)
		pc.MaxConns = int32(s.poolSize)
		p, err := pgxpool.NewWithConfig(ctx, pc)
		if err != nil {
			return s.fail(fmt.Errorf("postgres: cannot create the pool for %s: %w", s.target, err))
		}
		s.pool = p
	}
	return nil
}

// fresh opens a connection of the store's own, apart from any session's.
func (s *Store) fresh(ctx context.Context) (*pgx.Conn, error) {
	if err := s.ready(ctx); err != nil {
		return nil, err
	}
	return s.connectPgx(ctx)
}

// own returns a connection for the store's own work (setup, counting,
// verification, a bulk load) and done, which gives it back: the lock's
// connection when the store has the command's lock, which kurabe keeps
// for the whole command anyway, so the lock costs the server no
// connection more; else a fresh one, which done closes.
func (s *Store) own(ctx context.Context) (c *pgx.Conn, done func(), err error) {
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
	if c, err = s.connectPgx(ctx); err != nil {
		return nil, nil, err
	}
	return c, func() { closeConn(c) }, nil
}

// connectPgx opens a pgx connection within the connect timeout.
func (s *Store) connectPgx(ctx context.Context) (c *pgx.Conn, err error) {
	err = s.connecting(ctx, func(ctx context.Context) (err error) {
		c, err = pgx.ConnectConfig(ctx, s.cfg)
		return err
	})
	return c, err
}

// connecting runs connect, which opens a connection, within the connect
// timeout (connect_timeout, default 10 s), and says why it failed. pgconn
// gives each of its tries a timeout of its own: with sslmode=prefer, a
// server that never answers cost the timeout twice (TLS, then without),
// and the message led with the TLS try's. Here the timeout bounds the
// whole, and its message says so first.
func (s *Store) connecting(ctx context.Context, connect func(context.Context) error) error {
	d := s.cfg.ConnectTimeout
	cctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	err := connect(cctx)
	timedOut := err != nil && ctx.Err() == nil && cctx.Err() != nil
	defer func() {
		s.mu.Lock()
		s.noAnswer = nil
		if timedOut {
			s.noAnswer = err
		}
		s.mu.Unlock()
	}()
	if err == nil {
		return nil
	}
	addr := net.JoinHostPort(s.cfg.Host, strconv.Itoa(int(s.cfg.Port)))
	switch {
	case timedOut:
		// Class connect, not the timeout of an operation cut off.
		err = &store.ClassError{Class: "connect", Err: &scrubbed{msg: fmt.Sprintf("postgres: cannot connect to %s: the server at %s did not answer within %v (connect_timeout=%d; give connect_timeout=SECONDS in the address to wait longer)", s.target, addr, d, int(d.Seconds())), err: err}}
	case strings.Contains(err.Error(), "received unexpected message"):
		// pgconn read a message that has no place in PostgreSQL's
		// start-up, and wrapped a nil error in its message.
		err = &store.ClassError{Class: "connect", Err: &scrubbed{msg: fmt.Sprintf("postgres: cannot connect to %s: the server at %s did not answer as PostgreSQL does; is it another kind of server (MariaDB/MySQL, HTTP)? Check the address's port", s.target, addr), err: err}}
	default:
		err = fmt.Errorf("postgres: cannot connect to %s: %w", s.target, err)
	}
	err = s.fail(err)
	return err
}

func closeConn(c *pgx.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c.Close(ctx)
}

// qualified returns the quoted name of a table in kurabe's schema.
func qualified(name string) string { return pgx.Identifier{schema, name}.Sanitize() }

// begin opens a connection of its own and a transaction on it, for the
// DDL of Setup, Swap and Drop; end rolls back what was not committed and
// closes the connection.
func (s *Store) begin(ctx context.Context) (tx pgx.Tx, end func(), err error) {
	c, done, err := s.own(ctx)
	if err != nil {
		return nil, nil, err
	}
	tx, err = c.Begin(ctx)
	if err != nil {
		done()
		return nil, nil, s.fail(fmt.Errorf("postgres: %s: %w", s.target, err))
	}
	return tx, func() {
		tx.Rollback(ctx)
		done()
	}, nil
}

// Setup creates the tables empty in schema kurabe, dropping only tables
// kurabe.kurabe_meta says kurabe created. It runs in one transaction, so a
// failure leaves nothing half made.
func (s *Store) Setup(ctx context.Context, tables []*store.Table) error {
	tx, end, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer end()
	// The schema is made only when it is missing: a user without CREATE
	// on the database may own a kurabe schema made for it
	// (CREATE SCHEMA kurabe AUTHORIZATION app), and the server refuses
	// even CREATE SCHEMA IF NOT EXISTS to such a user.
	// Its owner, and whether this user may create in it, say what to ask
	// for when it may not: the owner's grant, not CREATE on the database.
	var hasSchema, mayCreate bool
	var owner string
	if err := tx.QueryRow(ctx, `SELECT count(*) > 0, coalesce(max(pg_catalog.pg_get_userbyid(nspowner)), ''),
		coalesce(bool_and(pg_catalog.has_schema_privilege(oid, 'USAGE') AND pg_catalog.has_schema_privilege(oid, 'CREATE')), false)
		FROM pg_catalog.pg_namespace WHERE nspname = $1`, schema).Scan(&hasSchema, &owner, &mayCreate); err != nil {
		return s.fail(fmt.Errorf("postgres: %s: looking up schema %s: %w", s.target, schema, err))
	}
	// A table of someone else's by kurabe_meta's name is not kurabe's
	// list. One of an earlier kurabe (name, created) is given the column
	// of tables' identities; its entries have none until made again.
	var cols string
	if err := tx.QueryRow(ctx, `SELECT coalesce(string_agg(column_name, ',' ORDER BY ordinal_position), '')
		FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'kurabe_meta'`, schema).Scan(&cols); err != nil {
		return s.fail(fmt.Errorf("postgres: %s: looking up %s.kurabe_meta: %w", s.target, schema, err))
	}
	var stmts []string
	if !hasSchema {
		// Marked, so that kurabe clean drops only a schema kurabe made.
		stmts = append(stmts, "CREATE SCHEMA "+schema, "COMMENT ON SCHEMA "+schema+" IS '"+schemaMark+"'")
	}
	switch cols {
	case "":
		stmts = append(stmts, "CREATE TABLE "+qualified("kurabe_meta")+" (name text PRIMARY KEY, created timestamptz NOT NULL DEFAULT now(), relid oid)")
	case metaColumnsOld:
		stmts = append(stmts, "ALTER TABLE "+qualified("kurabe_meta")+" ADD COLUMN relid oid")
	case metaColumns:
	default:
		return fmt.Errorf("postgres: %s.kurabe_meta on %s was %w (kurabe's list of its tables has the columns %s); kurabe will not change it: drop or rename it yourself if it is disposable, or point kurabe at another database",
			schema, s.target, store.ErrNotOwned, strings.ReplaceAll(metaColumns, ",", ", "))
	}
	for _, q := range stmts {
		if _, err := tx.Exec(ctx, q); err != nil {
			hint := ""
			var pe *pgconn.PgError
			switch {
			case !errors.As(err, &pe) || pe.Code != "42501": // insufficient_privilege
			case hasSchema && !mayCreate:
				hint = fmt.Sprintf("; kurabe keeps its tables in the schema %s, which %s owns and this user may not create in: have %s grant it (GRANT USAGE, CREATE ON SCHEMA %s TO %s), or point kurabe at another database", schema, owner, owner, schema, s.cfg.User)
			default:
				hint = fmt.Sprintf("; kurabe keeps its tables in the schema %s: have it made for this user (CREATE SCHEMA %s AUTHORIZATION %s), or grant the user CREATE on the database", schema, schema, s.cfg.User)
			}
			return s.fail(fmt.Errorf("postgres: %s: %s: %w%s", s.target, q, err, hint))
		}
	}
	for _, t := range tables {
		if t.Name == "kurabe_meta" {
			return fmt.Errorf("postgres: a workload table may not be called kurabe_meta, kurabe's own list of its tables")
		}
		// PostgreSQL truncates longer names, so the ownership check would
		// look up one name and DROP would act on another.
		if len(t.Name) > 63 {
			return fmt.Errorf("postgres: table name %q is longer than PostgreSQL's 63 bytes; shorten it", t.Name)
		}
		indexes, err := indexSQL(t, t.Name)
		if err != nil {
			return err
		}
		if err := s.mayReplace(ctx, tx, t.Name); err != nil {
			return err
		}
		// Dropping the table drops its indexes; they are made anew after
		// it, in the same transaction.
		stmts := []string{"DROP TABLE IF EXISTS " + qualified(t.Name), createSQL(t)}
		for _, ix := range indexes {
			stmts = append(stmts, ix.create)
		}
		for _, q := range stmts {
			if _, err := tx.Exec(ctx, q); err != nil {
				return s.fail(fmt.Errorf("postgres: %s: %s: %w", s.target, q, err))
			}
		}
		if err := s.record(ctx, tx, t.Name); err != nil {
			return err
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return s.fail(fmt.Errorf("postgres: %s: committing setup: %w", s.target, err))
	}
	return nil
}

func createSQL(t *store.Table) string {
	var b strings.Builder
	b.WriteString("CREATE TABLE " + qualified(t.Name) + " (")
	for i, c := range t.Columns {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(pgx.Identifier{c.Name}.Sanitize())
		switch {
		case i == 0 && t.AutoKey:
			b.WriteString(" bigserial PRIMARY KEY")
		case i == 0:
			b.WriteString(" bigint PRIMARY KEY")
		case c.Kind == store.Int:
			b.WriteString(" bigint")
		default:
			b.WriteString(" text")
		}
	}
	b.WriteString(")")
	return b.String()
}

// maxName is PostgreSQL's identifier limit (NAMEDATALEN-1). The server
// truncates longer names without an error, so two long index names could
// become one.
const maxName = 63

// index is one of a table's secondary indexes: the statement that builds
// it, the name it is built under and the name it has on the table itself.
type index struct{ create, built, name string }

// indexSQL returns t's secondary indexes, each named
// kurabe_<table>_<columns> (shortened by indexName when that is too long),
// built on the table named on: t itself, or the staging table that Swap
// indexes before putting it in t's place, where they are named after it
// until then. A btree entry holds at most about 2.7 kB, so an INSERT of a
// longer text into an indexed text column fails; that is PostgreSQL's
// limit, which a workload indexing long texts has to respect.
func indexSQL(t *store.Table, on string) ([]index, error) {
	var out []index
	names := map[string]bool{}
	for _, cols := range t.Indexes {
		if len(cols) == 0 {
			return nil, fmt.Errorf("postgres: table %s lists an index of no columns; give each index at least one column", t.Name)
		}
		quoted := make([]string, len(cols))
		for i, c := range cols {
			if !slices.ContainsFunc(t.Columns, func(col store.Column) bool { return col.Name == c }) {
				return nil, fmt.Errorf("postgres: table %s has no column %q to index (index on %s)", t.Name, c, strings.Join(cols, ", "))
			}
			quoted[i] = pgx.Identifier{c}.Sanitize()
		}
		name := store.IndexName(t.Name, cols, maxName)
		if names[name] {
			return nil, fmt.Errorf("postgres: table %s lists two indexes named %s (on %s); list each index once", t.Name, name, strings.Join(cols, ", "))
		}
		names[name] = true
		built := store.IndexName(on, cols, maxName)
		out = append(out, index{
			create: "CREATE INDEX " + pgx.Identifier{built}.Sanitize() + " ON " + qualified(on) + " (" + strings.Join(quoted, ", ") + ")",
			built:  built,
			name:   name,
		})
	}
	return out, nil
}

// Truncate empties a table kurabe created, and restarts its key sequence so
// keys are numbered as after Setup.
func (s *Store) Truncate(ctx context.Context, t *store.Table) error {
	c, done, err := s.own(ctx)
	if err != nil {
		return err
	}
	defer done()
	if err := s.checkOwned(ctx, c, t); err != nil {
		return err
	}
	if _, err := c.Exec(ctx, "TRUNCATE "+qualified(t.Name)+" RESTART IDENTITY"); err != nil {
		return s.fail(fmt.Errorf("postgres: %s: truncating %s: %w", s.target, t.Name, err))
	}
	return nil
}

// Count counts a table's rows from a fresh connection.
func (s *Store) Count(ctx context.Context, t *store.Table) (int64, error) {
	c, done, err := s.own(ctx)
	if err != nil {
		return 0, err
	}
	defer done()
	return s.count(ctx, c, t)
}

func (s *Store) count(ctx context.Context, c *pgx.Conn, t *store.Table) (int64, error) {
	var n int64
	if err := c.QueryRow(ctx, "SELECT count(*) FROM "+qualified(t.Name)).Scan(&n); err != nil {
		return 0, s.fail(fmt.Errorf("postgres: %s: counting %s: %w", s.target, t.Name, err))
	}
	return n, nil
}

// OpenCounter opens the connection Count would, and keeps it
// (store.CounterOpener). Each count is a statement of its own in
// autocommit, so it sees every row committed before it. A store with the
// command's lock counts on the lock's connection, which is kept anyway
// (checked now, as it would be opened now).
func (s *Store) OpenCounter(ctx context.Context) (store.Counter, error) {
	s.mu.Lock()
	l := s.lock
	s.mu.Unlock()
	if l != nil {
		c, done, err := l.use(ctx, s)
		if err != nil {
			return nil, err
		}
		if c != nil {
			done()
			return lockCounter{s}, nil
		}
	}
	c, err := s.fresh(ctx)
	if err != nil {
		return nil, err
	}
	return &counter{s, c}, nil
}

type counter struct {
	s *Store
	c *pgx.Conn
}

func (c *counter) Count(ctx context.Context, t *store.Table) (int64, error) {
	return c.s.count(ctx, c.c, t)
}

func (c *counter) Close() error {
	closeConn(c.c)
	return nil
}

// lockCounter counts on the lock's connection, through Count.
type lockCounter struct{ s *Store }

func (c lockCounter) Count(ctx context.Context, t *store.Table) (int64, error) {
	return c.s.Count(ctx, t)
}

func (lockCounter) Close() error { return nil }

// Networked: every operation waits on the server's socket (store.Networked).
func (s *Store) Networked() {}

// Info reads the effective settings back from the store's own connection
// (own), which runs with the sessions' synchronous_commit, so it shows what
// they run with. When the
// server cannot be reached it returns what the store knows, with the
// reason under Facts["error"].
func (s *Store) Info(ctx context.Context) store.Info {
	s.mu.Lock()
	started, closed, target, startErr, noAnswer := s.cfg != nil, s.closed, s.target, s.startErr, s.noAnswer
	s.mu.Unlock()
	info := store.Info{Driver: "postgres", Target: target, Options: map[string]string{
		"connect":  connectNames[s.connect],
		"protocol": "extended",
		"driver":   "pgx",
	}, Facts: map[string]string{"client": "github.com/jackc/pgx/v5"}}
	if s.wire {
		info.Options["driver"] = "wire"
		info.Facts["client"] = "kurabe/store/postgres/wire (connects with github.com/jackc/pgx/v5/pgconn)"
	}
	if s.simple {
		info.Options["protocol"] = "simple"
	}
	if s.connect == connectPool {
		info.Options["pool_size"] = strconv.Itoa(s.poolSize)
	}
	if s.syncCommit != "" {
		info.Options["synchronous_commit"] = s.syncCommit
	}
	for k, v := range s.conn {
		info.Options[k] = v[0] // the address's libpq parameters, as given
	}
	names := slices.Clone(reported)
	if m := s.managed; m != nil {
		info.Facts["data_dir"] = m.dataDir
		info.Facts["data_size_bytes"] = strconv.FormatInt(server.DirSize(m.dataDir), 10)
		for _, st := range m.settings {
			if !slices.Contains(names, st.name) {
				names = append(names, st.name)
			}
		}
	}
	switch {
	case startErr != nil:
		info.Facts["error"] = startErr.Error()
		return info
	case !started || closed:
		info.Facts["error"] = "server not reachable: the store is not set up or already closed"
		return info
	case noAnswer != nil:
		// The server did not answer the last connect: asking again
		// would double the wait for a run that failed already.
		info.Facts["error"] = noAnswer.Error()
		return info
	}
	c, done, err := s.own(ctx)
	if err != nil {
		info.Facts["error"] = err.Error()
		return info
	}
	defer done()
	show := func(name string) (string, error) {
		// current_setting is SHOW as a function: it takes the name as a
		// parameter and gives NULL, not an error, for an unknown one.
		var v *string
		if err := c.QueryRow(ctx, "SELECT current_setting($1, true)", name).Scan(&v); err != nil {
			return "", s.fail(err)
		}
		if v == nil {
			return "(not a setting)", nil
		}
		return *v, nil
	}
	if info.Version, err = show("server_version"); err != nil {
		info.Facts["error"] = err.Error()
		return info
	}
	for _, n := range names {
		if info.Options[n], err = show(n); err != nil {
			info.Facts["error"] = err.Error()
			return info
		}
	}
	if m := s.managed; m != nil {
		// A setting asked for as a bare number is in the setting's base
		// unit (shared_buffers=2048 is 2048 pages of 8kB), where SHOW gives
		// 16MB: read it back in that unit, so that it compares with the
		// request, and say the unit.
		for _, st := range m.settings {
			if _, err := strconv.ParseFloat(st.value, 64); err != nil {
				continue
			}
			var v, unit, minVal *string
			if err := c.QueryRow(ctx, "SELECT setting, unit, min_val FROM pg_settings WHERE name = $1", st.name).Scan(&v, &unit, &minVal); err != nil || v == nil {
				continue // not in pg_settings (a custom option): SHOW's value stands
			}
			if minVal != nil && *minVal == "-1" && isMinusOne(st.value) {
				// -1 is the server's "choose for me" (wal_buffers,
				// autovacuum_work_mem, …): SHOW's value, with its unit
				// (512kB), is what it chose, and it is noted as chosen.
				info.Facts[st.name+store.ChosenFact] = st.value
				continue
			}
			info.Options[st.name] = *v
			if unit != nil && *unit != "" {
				info.Facts[st.name+".unit"] = *unit
			}
		}
	}
	if s.managed == nil {
		var size int64
		if err := c.QueryRow(ctx, "SELECT pg_database_size(current_database())").Scan(&size); err == nil {
			info.Facts["data_size_bytes"] = strconv.FormatInt(size, 10)
		}
	}
	return info
}

// isMinusOne says whether a bare number asked is -1.
func isMinusOne(v string) bool {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	return err == nil && f == -1
}

// Died is store.Mortal's: a managed server's exit that kurabe did not ask
// for.
func (s *Store) Died() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.managed == nil {
		return nil
	}
	return s.managed.died()
}

// Death is store.Mortal's: how a managed server that died ended.
func (s *Store) Death() *store.Death {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.managed == nil {
		return nil
	}
	return s.managed.death()
}

// Close closes the pool and stops a managed server. It is safe to call
// more than once.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	if s.pool != nil {
		s.pool.Close()
	}
	if s.managed != nil {
		return s.managed.stop()
	}
	return nil
}

// Open returns a session. With connect=session it owns a new connection;
// with connect=per-op it connects for every operation and reports the
// time spent connecting.
func (s *Store) Open(ctx context.Context) (store.Session, error) {
	if err := s.ready(ctx); err != nil {
		return nil, err
	}
	ss := newSession(s)
	switch s.connect {
	case connectSession:
		if err := ss.connect(ctx); err != nil {
			return nil, err
		}
	case connectPerOp:
		return &perOpSession{ss}, nil
	}
	return ss, nil
}

// fail classifies err and removes the password from its message: a URL's
// password field and password= values always, and the password where it
// stands as a word, unless it is one of kurabe's words or the address's
// user, host or database (redact.Words).
func (s *Store) fail(err error) error {
	err = classify(err)
	if err == nil {
		return err
	}
	msg := err.Error()
	out := msg
	if s.password != "" {
		out = redact.Words(store.HideSecrets(out), []string{s.password}, s.visible...)
	}
	// pgx lists each address and TLS mode it tried on a line of its own,
	// often the same line twice (sslmode=prefer tries TLS, then not):
	// messages are one line. When the server answered one of the tries
	// with an error (FATAL: too many clients), that is the cause, and
	// the other tries' lines ("tls error: server refused TLS
	// connection") only hide it: the message keeps the server's.
	if strings.Contains(out, "\n") {
		var pe *pgconn.PgError
		server := errors.As(err, &pe)
		var lines []string
		for i, l := range slices.Collect(strings.Lines(out)) {
			l = strings.TrimSpace(l)
			if l == "" || slices.Contains(lines, l) {
				continue
			}
			if server && i > 0 && !strings.Contains(l, "SQLSTATE "+pe.Code) {
				continue
			}
			lines = append(lines, l)
		}
		out = strings.Join(lines, " ")
	}
	out = unrepeated(out)
	if out != msg {
		return &scrubbed{msg: out, err: err}
	}
	return err
}

// unrepeated drops a tail said twice in a row: pgconn ends a failed host
// lookup with the resolver's message twice ("…: no such host lookup x on
// …: no such host"). Tails shorter than 12 bytes are left, so that words a
// message really says twice stay.
func unrepeated(msg string) string {
	for i := 0; i < len(msg); i++ {
		if msg[i] != ' ' {
			continue
		}
		tail := msg[i+1:]
		if len(tail) >= 12 && strings.HasSuffix(msg[:i], tail) {
			return msg[:i]
		}
	}
	return msg
}

// scrubbed is an error whose message kurabe rewrote: a password hidden,
// several lines made one, or, for a failed connect, pgconn's message
// replaced by its cause, said first without every try's line.
type scrubbed struct {
	msg string
	err error
}

func (e *scrubbed) Error() string { return e.msg }
func (e *scrubbed) Unwrap() error { return e.err }

// classify gives errors the classes of the error breakdown: the SQLSTATEs
// a benchmark expects under contention by name, any other server error as
// "pg:<sqlstate>", failures to connect as "connect", and a connection lost
// mid-operation as store.ClassConnLost: the server ended the session (a
// FATAL error, such as pg_terminate_backend's 57P01, after which it
// closes the connection) or the connection broke (EOF, a reset) after the
// request may have gone out, so the operation's outcome is unknown.
// Context errors are left as they are, for store.Classify to call them
// timeouts.
func classify(err error) error {
	if err == nil {
		return nil
	}
	var ce *store.ClassError
	if errors.As(err, &ce) {
		return err
	}
	var cerr *pgconn.ConnectError
	connecting := errors.As(err, &cerr)
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		class := "pg:" + pe.Code
		switch pe.Code {
		case "53300":
			class = "too-many-connections"
		case "40001":
			class = "serialization"
		case "40P01":
			class = "deadlock"
		default:
			if sev := cmp.Or(pe.SeverityUnlocalized, pe.Severity); !connecting && (sev == "FATAL" || sev == "PANIC") {
				class = store.ClassConnLost
			}
		}
		return &store.ClassError{Class: class, Err: err}
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return err
	}
	if connecting {
		return &store.ClassError{Class: "connect", Err: err}
	}
	if connLost(err) {
		return &store.ClassError{Class: store.ClassConnLost, Err: err}
	}
	return err
}

// connLost reports whether err is a connection that broke mid-operation:
// the wire driver's, or pgx's EOF, reset or other network error, unless
// pgconn says the request was never sent (SafeToRetry), which leaves the
// outcome known.
func connLost(err error) bool {
	if errors.Is(err, wire.ErrConnLost) {
		return true
	}
	if pgconn.SafeToRetry(err) {
		return false
	}
	var ne net.Error
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &ne) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

var (
	_ store.Swapper    = (*Store)(nil)
	_ store.TableNamer = (*Store)(nil)
)

// TableName is t's name in the database: kurabe.<name>.
func (s *Store) TableName(t *store.Table) string { return schema + "." + t.Name }

// Swap puts staged in t's place in one transaction (PostgreSQL's DDL is
// transactional): index staged, drop t, rename staged, its primary key and
// its indexes, and record it, so other sessions see the old table or the
// new, never none. The indexes are built before t is dropped, so readers
// of t wait only for the renames, not for the build.
func (s *Store) Swap(ctx context.Context, staged, t *store.Table) error {
	indexes, err := indexSQL(t, staged.Name)
	if err != nil {
		return err
	}
	tx, end, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer end()
	if err := s.mayReplace(ctx, tx, t.Name); err != nil {
		return err
	}
	if err := s.mustOwn(ctx, tx, staged.Name); err != nil {
		return err
	}
	var pkey string
	if err := tx.QueryRow(ctx, "SELECT coalesce((SELECT conname FROM pg_catalog.pg_constraint WHERE conrelid = $1::regclass AND contype = 'p'), '')",
		qualified(staged.Name)).Scan(&pkey); err != nil {
		return s.fail(fmt.Errorf("postgres: %s: looking up table %s: %w", s.target, staged.Name, err))
	}
	var stmts []string
	for _, ix := range indexes {
		stmts = append(stmts, ix.create)
	}
	stmts = append(stmts,
		"DROP TABLE IF EXISTS "+qualified(t.Name),
		"ALTER TABLE "+qualified(staged.Name)+" RENAME TO "+pgx.Identifier{t.Name}.Sanitize(),
	)
	if pkey != "" {
		// The name CREATE TABLE gives a primary key, so the next staging
		// table's may be given again.
		stmts = append(stmts, "ALTER TABLE "+qualified(t.Name)+" RENAME CONSTRAINT "+pgx.Identifier{pkey}.Sanitize()+" TO "+pgx.Identifier{truncName(t.Name + "_pkey")}.Sanitize())
	}
	for _, ix := range indexes {
		stmts = append(stmts, "ALTER INDEX "+qualified(ix.built)+" RENAME TO "+pgx.Identifier{ix.name}.Sanitize())
	}
	for _, q := range stmts {
		if _, err := tx.Exec(ctx, q); err != nil {
			return s.fail(fmt.Errorf("postgres: %s: %s: %w", s.target, q, err))
		}
	}
	if err := s.record(ctx, tx, t.Name); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "DELETE FROM "+qualified("kurabe_meta")+" WHERE name = $1", staged.Name); err != nil {
		return s.fail(fmt.Errorf("postgres: %s: recording table %s: %w", s.target, staged.Name, err))
	}
	if err := tx.Commit(ctx); err != nil {
		return s.fail(fmt.Errorf("postgres: %s: committing the swap of %s: %w", s.target, t.Name, err))
	}
	return nil
}

// ownership is what a name in kurabe's schema is to kurabe.
type ownership uint8

const (
	absent   ownership = iota // no table by that name
	foreign                   // a table kurabe_meta does not list
	replaced                  // listed, but not the table kurabe made: another by its name
	unproven                  // listed by an earlier kurabe without its identity, and changed since
	ours                      // the table kurabe made
)

// rowQuerier is a connection or a transaction.
type rowQuerier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// owner says what the table name in kurabe's schema is to kurabe. A table
// is kurabe's when kurabe_meta lists it with its OID, which kurabe
// records when it makes the table: a table someone made again under the
// name has another (PostgreSQL does not give an OID in use twice, and
// reaches one it gave before only after four billion new objects). An
// entry of an earlier kurabe, which recorded no OID, is checked by
// transaction: kurabe made the table and listed it in one, so the
// table's pg_class row and its entry were written by the same transaction
// (xmin) unless the table was made again, renamed or altered since.
func (s *Store) owner(ctx context.Context, q rowQuerier, name string) (ownership, error) {
	var oid, relid uint32
	var listed, sameXact bool
	err := q.QueryRow(ctx, `SELECT coalesce(c.oid, 0), m.name IS NOT NULL, coalesce(m.relid, 0), coalesce(c.xmin = m.xmin, false)
		FROM (SELECT 1) one
		LEFT JOIN (pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace AND n.nspname = $1) ON c.relname = $2
		LEFT JOIN `+qualified("kurabe_meta")+` m ON m.name = $2`, schema, name).Scan(&oid, &listed, &relid, &sameXact)
	if err != nil {
		return 0, s.fail(fmt.Errorf("postgres: %s: looking up table %s: %w", s.target, name, err))
	}
	switch {
	case oid == 0:
		return absent, nil
	case !listed:
		return foreign, nil
	case relid == oid, relid == 0 && sameXact:
		return ours, nil
	case relid == 0:
		return unproven, nil
	}
	return replaced, nil
}

// refusal is the error for a table kurabe may not change, by what it is.
func (s *Store) refusal(name string, o ownership) error {
	why := "it is not listed in " + schema + ".kurabe_meta"
	switch o {
	case replaced:
		why = schema + ".kurabe_meta lists a table of that name, but this is not the table kurabe made: it was replaced since"
	case unproven:
		why = schema + ".kurabe_meta lists it, from an earlier kurabe that did not record which table it made, and the table was made again, renamed or altered since, so kurabe cannot tell it is the one it made"
	}
	return fmt.Errorf("postgres: %s.%s on %s was %w (%s); kurabe will not drop it: drop or rename it yourself if it is disposable, or point kurabe at another database",
		schema, name, s.target, store.ErrNotOwned, why)
}

// mayReplace refuses, inside tx, a table of kurabe's schema by that name
// that is not the one kurabe made; one that is not there, or is kurabe's,
// may be dropped and made anew.
func (s *Store) mayReplace(ctx context.Context, tx pgx.Tx, name string) error {
	o, err := s.owner(ctx, tx, name)
	if err != nil || o == absent || o == ours {
		return err
	}
	return s.refusal(name, o)
}

// mustOwn fails unless the table is there and kurabe's.
func (s *Store) mustOwn(ctx context.Context, q rowQuerier, name string) error {
	o, err := s.owner(ctx, q, name)
	switch {
	case err != nil || o == ours:
		return err
	case o == absent:
		return fmt.Errorf("postgres: %s.%s on %s is not there; run Setup first", schema, name, s.target)
	}
	return s.refusal(name, o)
}

// record lists the table kurabe has just made, with its OID.
func (s *Store) record(ctx context.Context, tx pgx.Tx, name string) error {
	_, err := tx.Exec(ctx, "INSERT INTO "+qualified("kurabe_meta")+" (name, relid) VALUES ($1, $2::regclass::oid) ON CONFLICT (name) DO UPDATE SET created = now(), relid = excluded.relid",
		name, qualified(name))
	if err != nil {
		return s.fail(fmt.Errorf("postgres: %s: recording table %s: %w", s.target, name, err))
	}
	return nil
}

// truncName cuts a name to PostgreSQL's limit, at a character boundary.
func truncName(name string) string {
	if len(name) <= maxName {
		return name
	}
	cut := maxName
	for cut > 0 && !utf8.RuneStart(name[cut]) {
		cut--
	}
	return name[:cut]
}

// Drop removes one of kurabe's tables, if it is there.
func (s *Store) Drop(ctx context.Context, t *store.Table) error {
	tx, end, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer end()
	o, err := s.owner(ctx, tx, t.Name)
	switch {
	case err != nil || o == foreign:
		return err // not kurabe's: left as it is, as one that is not there
	case o == replaced || o == unproven:
		return s.refusal(t.Name, o)
	case o == ours:
		if _, err := tx.Exec(ctx, "DROP TABLE "+qualified(t.Name)); err != nil {
			return s.fail(fmt.Errorf("postgres: %s: dropping %s: %w", s.target, t.Name, err))
		}
	}
	if _, err := tx.Exec(ctx, "DELETE FROM "+qualified("kurabe_meta")+" WHERE name = $1", t.Name); err != nil {
		return s.fail(fmt.Errorf("postgres: %s: dropping %s: %w", s.target, t.Name, err))
	}
	if err := tx.Commit(ctx); err != nil {
		return s.fail(fmt.Errorf("postgres: %s: dropping %s: %w", s.target, t.Name, err))
	}
	return nil
}

var _ store.Cleaner = (*Store)(nil)
var _ store.Mortal = (*Store)(nil)

// Clean drops kurabe's tables, kurabe_meta and the schema kurabe made, in
// one transaction, so it happens whole or not at all; with dryRun the
// same is done and rolled back, so the report is exactly what a clean
// would do (it holds the tables' locks for as long).
func (s *Store) Clean(ctx context.Context, dryRun bool) ([]store.Cleaned, error) {
	if s.managed != nil {
		return nil, errors.New("postgres: a managed server is thrown away with its tables when kurabe stops; there is nothing to clean")
	}
	tx, end, err := s.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer end()
	var cols string
	var mark *string
	if err := tx.QueryRow(ctx, `SELECT (SELECT obj_description(oid, 'pg_namespace') FROM pg_catalog.pg_namespace WHERE nspname = $1),
		(SELECT coalesce(string_agg(column_name, ',' ORDER BY ordinal_position), '') FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'kurabe_meta')`,
		schema).Scan(&mark, &cols); err != nil {
		return nil, s.fail(fmt.Errorf("postgres: %s: looking up schema %s: %w", s.target, schema, err))
	}
	meta := schema + ".kurabe_meta"
	switch cols {
	case "":
		out := []store.Cleaned{{Name: meta, Outcome: store.CleanNothing}}
		if mark != nil && *mark == schemaMark {
			// kurabe_meta is gone, and the schema kurabe made is left.
			c, err := s.dropSchema(ctx, tx)
			if err != nil {
				return nil, err
			}
			out = append(out, c)
		}
		if !dryRun {
			if err := tx.Commit(ctx); err != nil {
				return nil, s.fail(fmt.Errorf("postgres: %s: committing the clean: %w", s.target, err))
			}
		}
		return out, nil
	case metaColumnsOld:
		// owner reads the OID column; an earlier kurabe's entries have none.
		if _, err := tx.Exec(ctx, "ALTER TABLE "+qualified("kurabe_meta")+" ADD COLUMN relid oid"); err != nil {
			return nil, s.fail(fmt.Errorf("postgres: %s: %s: %w", s.target, meta, err))
		}
	case metaColumns:
	default:
		return nil, fmt.Errorf("postgres: %s on %s was %w (kurabe's list of its tables has the columns %s), so it lists nothing kurabe may drop; kurabe will not change it",
			meta, s.target, store.ErrNotOwned, strings.ReplaceAll(metaColumns, ",", ", "))
	}
	rows, err := tx.Query(ctx, "SELECT name FROM "+qualified("kurabe_meta")+" ORDER BY name")
	if err != nil {
		return nil, s.fail(fmt.Errorf("postgres: %s: reading %s: %w", s.target, meta, err))
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, s.fail(fmt.Errorf("postgres: %s: reading %s: %w", s.target, meta, err))
	}
	var out []store.Cleaned
	left := false
	for _, name := range names {
		o, err := s.owner(ctx, tx, name)
		if err != nil {
			return nil, err
		}
		c := store.Cleaned{Name: schema + "." + name}
		switch o {
		case ours:
			if _, err := tx.Exec(ctx, "DROP TABLE "+qualified(name)); err != nil {
				return nil, s.fail(fmt.Errorf("postgres: %s: dropping %s: %w", s.target, c.Name, err))
			}
			c.Outcome = store.CleanDropped
		case absent:
			c.Outcome = store.CleanUnlisted
		case unproven:
			c.Outcome, left = store.CleanUnproven, true
		default:
			c.Outcome, left = store.CleanReplaced, true
		}
		if o == ours || o == absent {
			if _, err := tx.Exec(ctx, "DELETE FROM "+qualified("kurabe_meta")+" WHERE name = $1", name); err != nil {
				return nil, s.fail(fmt.Errorf("postgres: %s: %s: %w", s.target, meta, err))
			}
		}
		out = append(out, c)
	}
	if left {
		out = append(out, store.Cleaned{Name: meta, Outcome: store.CleanListKept})
	} else {
		if _, err := tx.Exec(ctx, "DROP TABLE "+qualified("kurabe_meta")); err != nil {
			return nil, s.fail(fmt.Errorf("postgres: %s: dropping %s: %w", s.target, meta, err))
		}
		out = append(out, store.Cleaned{Name: meta, Outcome: store.CleanDropped})
		c := store.Cleaned{Name: "schema " + schema, Outcome: store.CleanNotMade}
		if mark != nil && *mark == schemaMark {
			if c, err = s.dropSchema(ctx, tx); err != nil {
				return nil, err
			}
		}
		out = append(out, c)
	}
	if !dryRun {
		if err := tx.Commit(ctx); err != nil {
			return nil, s.fail(fmt.Errorf("postgres: %s: committing the clean: %w", s.target, err))
		}
	}
	return out, nil
}

// dropSchema drops kurabe's schema inside tx unless something is in it.
func (s *Store) dropSchema(ctx context.Context, tx pgx.Tx) (store.Cleaned, error) {
	c := store.Cleaned{Name: "schema " + schema, Outcome: store.CleanDropped}
	sp, err := tx.Begin(ctx)
	if err != nil {
		return c, s.fail(fmt.Errorf("postgres: %s: %w", s.target, err))
	}
	// RESTRICT: the server refuses if anything else is in it.
	if _, err := sp.Exec(ctx, "DROP SCHEMA "+schema+" RESTRICT"); err != nil {
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "2BP01" { // dependent_objects_still_exist
			return c, s.fail(fmt.Errorf("postgres: %s: dropping schema %s: %w", s.target, schema, err))
		}
		sp.Rollback(ctx)
		c.Outcome = store.CleanNotEmpty
		return c, nil
	}
	if err := sp.Commit(ctx); err != nil {
		return c, s.fail(fmt.Errorf("postgres: %s: dropping schema %s: %w", s.target, schema, err))
	}
	return c, nil
}
