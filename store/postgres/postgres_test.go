package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"kurabe/redact"
	"kurabe/store"
	"kurabe/store/mysql"
	"kurabe/store/postgres/wire"
	"kurabe/store/server"
	"kurabe/store/storetest"
)

// The package's tests share one managed server, started through the
// managed code path on first use and stopped by TestMain; the conformance
// runs reach it as an external server, so they start no servers of their
// own.
var shared struct {
	once sync.Once
	st   store.Store
	dir  string
	port int
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.st != nil {
		if err := shared.st.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "stopping the shared server:", err)
			code = 1
		}
	}
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

// serverDir returns a directory for a managed server's data that the
// unprivileged server user can enter (t.TempDir's parent is private).
func serverDir() (string, error) {
	dir, err := os.MkdirTemp("", "kurabe-pg-")
	if err != nil {
		return "", err
	}
	return dir, os.Chmod(dir, 0o755)
}

// sharedDSN returns the address of the shared server, starting it first.
func sharedDSN(t testing.TB, userinfo string) string {
	t.Helper()
	shared.once.Do(func() {
		ctx := context.Background()
		if shared.dir, shared.err = serverDir(); shared.err != nil {
			return
		}
		sp, _ := store.ParseSpec("postgres:managed")
		if shared.st, shared.err = Open(ctx, sp, store.Env{Dir: shared.dir}); shared.err != nil {
			return
		}
		if shared.err = shared.st.Setup(ctx, nil); shared.err == nil {
			shared.port = shared.st.(*Store).managed.port
		}
	})
	storetest.RequireServer(t, shared.err)
	return fmt.Sprintf("postgres://%s@127.0.0.1:%d/postgres", userinfo, shared.port)
}

func open(t testing.TB, spec string, env store.Env) store.Store {
	t.Helper()
	sp, err := store.ParseSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	st, err := Open(context.Background(), sp, env)
	storetest.RequireServer(t, err)
	t.Cleanup(func() { st.Close() })
	return st
}

func TestConformance(t *testing.T) {
	dsn := sharedDSN(t, "kurabe")
	for _, opts := range []string{
		"", // driver=wire
		"?driver=pgx",
		"?driver=wire&synchronous_commit=off",
		"?connect=pool&pool_size=4",
		"?connect=per-op",
		"?protocol=simple",
		"?connect=per-op&protocol=simple&synchronous_commit=off",
	} {
		t.Run(opts, func(t *testing.T) {
			storetest.Run(t, func(t *testing.T) store.Store { return open(t, dsn+opts, store.Env{}) })
		})
	}
}

// TestConformanceExternal runs the suite against a server of your own:
// KURABE_TEST_PG=postgres://user:pw@host:port/db. It uses schema kurabe.
func TestConformanceExternal(t *testing.T) {
	dsn := os.Getenv("KURABE_TEST_PG")
	if dsn == "" {
		t.Skip("KURABE_TEST_PG is not set (give postgres://user[:password]@host:port/db to test against that server)")
	}
	storetest.Run(t, func(t *testing.T) store.Store { return open(t, dsn, store.Env{}) })
}

func TestManagedSettingsReadBackAndStop(t *testing.T) {
	t.Parallel()
	dir, err := serverDir()
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	st := open(t, "postgres:managed?shared_buffers=64MB&synchronous_commit=off&work_mem=8MB&temp_buffers=2048", store.Env{Dir: dir})
	if err := st.Setup(ctx, []*store.Table{storetest.Table()}); err != nil {
		t.Fatal(err)
	}
	m := st.(*Store).managed
	info := st.Info(ctx)
	for k, v := range map[string]string{
		"shared_buffers": "64MB", "synchronous_commit": "off", "work_mem": "8MB",
		"block_size": "8192", "connect": "session", "protocol": "extended",
		// Asked as a bare number, so read back in the setting's unit
		// (pages of 8kB), not as SHOW's 16MB.
		"temp_buffers": "2048",
	} {
		if info.Options[k] != v {
			t.Errorf("Info.Options[%s] = %q, want %q", k, info.Options[k], v)
		}
	}
	if u := info.Facts["temp_buffers.unit"]; u != "8kB" {
		t.Errorf("temp_buffers' unit = %q, want 8kB", u)
	}
	for _, k := range []string{"fsync", "wal_level", "full_page_writes", "max_connections"} {
		if info.Options[k] == "" {
			t.Errorf("Info.Options[%s] not read back", k)
		}
	}
	// The command line checks -c against the limit the program says a
	// managed server runs when none is given: the one it runs.
	if d := DefaultConnections(); d <= 0 || info.Options["max_connections"] != strconv.Itoa(d) {
		t.Errorf("DefaultConnections() = %d, the server runs max_connections=%s", d, info.Options["max_connections"])
	}
	if want := "managed 127.0.0.1:" + strconv.Itoa(m.port); info.Target != want {
		t.Errorf("Target = %q, want %q", info.Target, want)
	}
	if n, _ := strconv.ParseInt(info.Facts["data_size_bytes"], 10, 64); n <= 0 || info.Version == "" || info.Facts["error"] != "" {
		t.Errorf("Info incomplete: %+v", info)
	}
	if os.Geteuid() == 0 {
		// As root, the server must run as someone else.
		status, err := os.ReadFile("/proc/" + strconv.Itoa(m.proc.Pid()) + "/status")
		if err != nil {
			t.Fatal(err)
		}
		for line := range strings.Lines(string(status)) {
			if f := strings.Fields(line); len(f) > 1 && f[0] == "Uid:" && f[1] == "0" {
				t.Errorf("server runs as root: %s", line)
			}
		}
	}

	// A session's open connection must not keep Close waiting (SIGTERM
	// alone would: PostgreSQL's smart shutdown waits for its clients).
	s, err := st.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Insert(ctx, storetest.Table(), store.Row{{}, {Int: 1}, {Text: []byte("x")}}); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if !m.proc.Exited() {
		t.Fatal("server still running after Close")
	}
	l, err := net.Listen("tcp", m.addr())
	if err != nil {
		t.Fatalf("port not free after Close: %v", err)
	}
	l.Close()
	if err := st.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if info := st.Info(ctx); info.Facts["error"] == "" {
		t.Errorf("Info after Close reports no error: %+v", info)
	}
	if err := st.Setup(ctx, nil); err == nil {
		t.Error("Setup after Close succeeded")
	}
}

// TestManagedPortTakenByAnotherServer hands a starting server the port a
// running one holds (a fake free-port finder, since the real race between
// finding a port and binding it comes only by chance). The new server
// cannot bind it, and the old one, which trusts the same user, answers on
// it: the start must not take that answer for its own server's, and must
// try again on another port.
func TestManagedPortTakenByAnotherServer(t *testing.T) {
	dirA, err := serverDir()
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dirA)
	dirB, err := serverDir()
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dirB)
	ctx := context.Background()
	stA := open(t, "postgres:managed", store.Env{Dir: dirA})
	if err := stA.(*Store).ready(ctx); err != nil {
		t.Fatal(err)
	}
	a := stA.(*Store).managed

	calls := 0
	defer func(f func() (int, error)) { freePort = f }(freePort)
	realFreePort := freePort
	freePort = func() (int, error) {
		calls++
		if calls == 1 {
			return a.port, nil
		}
		return realFreePort()
	}
	stB := open(t, "postgres:managed", store.Env{Dir: dirB})
	if err := stB.(*Store).ready(ctx); err != nil {
		t.Fatal(err)
	}
	b := stB.(*Store).managed
	if calls < 2 || b.port == a.port {
		t.Fatalf("the second server took port %d after %d tries; the first holds %d", b.port, calls, a.port)
	}
	for _, m := range []*managed{a, b} {
		c, err := pgx.Connect(ctx, m.dsn())
		if err != nil {
			t.Fatal(err)
		}
		var dir string
		err = c.QueryRow(ctx, "SHOW data_directory").Scan(&dir)
		c.Close(ctx)
		// The server reports the physical path: compare as the store does.
		if err != nil || !sameDir(dir, m.dataDir) {
			t.Errorf("port %d serves data directory %q (%v), want %q", m.port, dir, err, m.dataDir)
		}
	}
}

// A setting the server does not have (MariaDB's, a misspelling) is
// refused when the store is opened, before a data directory or a server
// is made for it, as the server program judges it; settings it has, in
// any case, those --describe-config leaves out, and an extension's, are
// not.
func TestManagedSettingNamesAskedOfTheServer(t *testing.T) {
	for _, c := range []struct {
		spec string
		want string // in the error; "" for none
	}{
		{"postgres:managed?innodb_page_size=4k", `unknown option "innodb_page_size"`},
		{"postgres:managed?shared_buffers=32MB&shared_bufers=1GB", "-C says it has no shared_bufers"},
		{"postgres:managed?Shared_Buffers=32MB&zero_damaged_pages=on&debug_discard_caches=0&auto_explain.log_min_duration=0", ""},
	} {
		dir := t.TempDir()
		os.Chmod(dir, 0o755)
		sp, err := store.ParseSpec(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		st, err := Open(context.Background(), sp, store.Env{Dir: dir})
		if errors.Is(err, server.ErrMissing) {
			storetest.RequireServer(t, err)
		}
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.spec, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: err = %v, want one saying %q", c.spec, err, c.want)
		case err != nil && strings.Contains(err.Error(), "hunter22"):
			t.Errorf("%s: the message shows the password: %v", c.spec, err)
		}
		if st != nil {
			st.Close()
		}
		if left, _ := os.ReadDir(dir); len(left) > 0 {
			t.Errorf("%s: opening left %d files in the store's directory", c.spec, len(left))
		}
	}
}

// The server's own complaint about a setting's value reaches the user.
func TestManagedBadValueQuotesServer(t *testing.T) {
	t.Parallel()
	dir, err := serverDir()
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	st := open(t, "postgres:managed?shared_buffers=lots", store.Env{Dir: dir})
	err = st.Setup(context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), `invalid value for parameter "shared_buffers"`) {
		t.Fatalf("Setup error = %v, want the server's own complaint", err)
	}
	if info := st.Info(context.Background()); !strings.Contains(info.Facts["error"], "shared_buffers") {
		t.Errorf("Info does not give the reason the server did not start: %v", info.Facts)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestRefusesTableItDidNotCreate(t *testing.T) {
	dsn := sharedDSN(t, "kurabe")
	ctx := context.Background()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	for _, q := range []string{
		"CREATE SCHEMA IF NOT EXISTS kurabe",
		"DROP TABLE IF EXISTS kurabe.posts",
		"CREATE TABLE kurabe.posts (x int)",
		"INSERT INTO kurabe.posts VALUES (42)",
	} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	defer c.Exec(ctx, "DROP TABLE kurabe.posts")

	st := open(t, dsn, store.Env{})
	posts := &store.Table{Name: "posts", AutoKey: true, Columns: []store.Column{{Name: "id", Kind: store.Int}, {Name: "body", Kind: store.Text}}}
	if err := st.Setup(ctx, []*store.Table{posts}); !errors.Is(err, store.ErrNotOwned) {
		t.Fatalf("Setup err = %v, want ErrNotOwned", err)
	}
	if err := store.Truncate(ctx, st, posts); !errors.Is(err, store.ErrNotOwned) {
		t.Fatalf("Truncate err = %v, want ErrNotOwned", err)
	}
	var n, x int
	if err := c.QueryRow(ctx, "SELECT count(*), max(x) FROM kurabe.posts").Scan(&n, &x); err != nil || n != 1 || x != 42 {
		t.Fatalf("foreign table changed: %d rows, x=%d, err %v", n, x, err)
	}
}

// A user's table named kurabe_meta, of another shape, is not kurabe's
// list of its tables: Setup refuses with ErrNotOwned, not an SQL error,
// and leaves it as it is.
func TestRefusesForeignMeta(t *testing.T) {
	dsn := sharedDSN(t, "kurabe")
	ctx := context.Background()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "CREATE DATABASE notes"); err != nil {
		t.Fatal(err)
	}
	notes := strings.TrimSuffix(dsn, "/postgres") + "/notes"
	u, err := pgx.Connect(ctx, notes)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close(ctx)
	for _, q := range []string{"CREATE SCHEMA kurabe", "CREATE TABLE kurabe.kurabe_meta (id int, note text)", "INSERT INTO kurabe.kurabe_meta VALUES (1, 'mine')"} {
		if _, err := u.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	st := open(t, notes, store.Env{})
	posts := &store.Table{Name: "posts", AutoKey: true, Columns: []store.Column{{Name: "id", Kind: store.Int}, {Name: "body", Kind: store.Text}}}
	if err := st.Setup(ctx, []*store.Table{posts}); !errors.Is(err, store.ErrNotOwned) || !strings.Contains(err.Error(), "kurabe.kurabe_meta") {
		t.Fatalf("Setup err = %v, want ErrNotOwned naming kurabe.kurabe_meta", err)
	}
	var tables []string
	rows, _ := u.Query(ctx, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'kurabe'")
	for rows.Next() {
		var name string
		rows.Scan(&name)
		tables = append(tables, name)
	}
	if rows.Err() != nil || len(tables) != 1 || tables[0] != "kurabe_meta" {
		t.Fatalf("tables after the refusal: %v (%v), want only the user's kurabe_meta", tables, rows.Err())
	}
}

// A user without CREATE on the database who owns a kurabe schema made
// for it runs: Setup does not ask to create the schema that is there.
// Before, CREATE SCHEMA IF NOT EXISTS was refused (permission denied for
// database).
func TestSetupInSchemaMadeForUser(t *testing.T) {
	dsn := sharedDSN(t, "kurabe")
	ctx := context.Background()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	for _, q := range []string{"CREATE ROLE klimited LOGIN", "CREATE DATABASE lim", "REVOKE CREATE ON DATABASE lim FROM PUBLIC"} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	base := strings.TrimSuffix(dsn, "/postgres")
	base = strings.Replace(base, "//kurabe@", "//klimited@", 1)
	posts := &store.Table{Name: "posts", AutoKey: true, Columns: []store.Column{{Name: "id", Kind: store.Int}, {Name: "body", Kind: store.Text}}}
	// Without the schema, the message says how to have it made.
	st := open(t, base+"/lim", store.Env{})
	if err := st.Setup(ctx, []*store.Table{posts}); err == nil || !strings.Contains(err.Error(), "CREATE SCHEMA kurabe AUTHORIZATION klimited") {
		t.Fatalf("Setup without the schema or CREATE = %v; want how to have the schema made", err)
	}
	u, err := pgx.Connect(ctx, strings.TrimSuffix(dsn, "/postgres")+"/lim")
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close(ctx)
	if _, err := u.Exec(ctx, "CREATE SCHEMA kurabe AUTHORIZATION klimited"); err != nil {
		t.Fatal(err)
	}
	st = open(t, base+"/lim", store.Env{})
	if err := st.Setup(ctx, []*store.Table{posts}); err != nil {
		t.Fatalf("Setup in the user's own kurabe schema: %v", err)
	}
}

// A user with CREATE on the database, where another user owns the schema
// kurabe, is told to have the owner grant rights on the schema: CREATE on
// the database, which it has, does not help.
func TestSetupInSchemaOfAnotherUser(t *testing.T) {
	dsn := sharedDSN(t, "kurabe")
	ctx := context.Background()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	execAll(t, c, "CREATE ROLE kschemaowner LOGIN", "CREATE ROLE kcreator LOGIN", "CREATE DATABASE owned", "GRANT CREATE ON DATABASE owned TO kcreator, kschemaowner")
	base := strings.TrimSuffix(dsn, "/postgres")
	owner, err := pgx.Connect(ctx, strings.Replace(base, "//kurabe@", "//kschemaowner@", 1)+"/owned")
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close(ctx)
	execAll(t, owner, "CREATE SCHEMA kurabe")
	creator := strings.Replace(base, "//kurabe@", "//kcreator@", 1) + "/owned"
	posts := &store.Table{Name: "posts", AutoKey: true, Columns: []store.Column{{Name: "id", Kind: store.Int}, {Name: "body", Kind: store.Text}}}
	st := open(t, creator, store.Env{})
	err = st.Setup(ctx, []*store.Table{posts})
	if err == nil || !strings.Contains(err.Error(), "which kschemaowner owns") || !strings.Contains(err.Error(), "GRANT USAGE, CREATE ON SCHEMA kurabe TO kcreator") ||
		strings.Contains(err.Error(), "CREATE on the database") {
		t.Fatalf("Setup in another user's schema = %v; want the owner's grant on the schema", err)
	}
	// With the grant it says, Setup goes through.
	execAll(t, owner, "GRANT USAGE, CREATE ON SCHEMA kurabe TO kcreator")
	st = open(t, creator, store.Env{})
	if err := st.Setup(ctx, []*store.Table{posts}); err != nil {
		t.Fatalf("Setup after the grant: %v", err)
	}
}

// freshDB makes a database of its own on the shared server and returns
// kurabe's address of it and a connection to it as its owner.
func freshDB(t *testing.T, name string) (string, *pgx.Conn) {
	t.Helper()
	dsn := sharedDSN(t, "kurabe")
	ctx := context.Background()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	addr := strings.TrimSuffix(dsn, "/postgres") + "/" + name
	u, err := pgx.Connect(ctx, addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { u.Close(ctx) })
	return addr, u
}

func execAll(t *testing.T, c *pgx.Conn, stmts ...string) {
	t.Helper()
	for _, q := range stmts {
		if _, err := c.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// A table kurabe made, dropped by its user and made again under the same
// name with the user's data, is still listed in kurabe_meta: kurabe
// refuses it as it refuses any table it did not make, and the user's row
// survives every path that would empty, drop or replace it. Before,
// ownership was the name alone, and Setup dropped the user's table.
func TestRefusesTableMadeAgainByUser(t *testing.T) {
	addr, u := freshDB(t, "replaced")
	ctx := context.Background()
	crud := &store.Table{Name: "crud", AutoKey: true, Columns: []store.Column{{Name: "id", Kind: store.Int}, {Name: "payload", Kind: store.Text}}}
	st := open(t, addr, store.Env{})
	if err := st.Setup(ctx, []*store.Table{crud}); err != nil {
		t.Fatal(err)
	}
	execAll(t, u, "DROP TABLE kurabe.crud", "CREATE TABLE kurabe.crud (id int PRIMARY KEY, important text)", "INSERT INTO kurabe.crud VALUES (1, 'keep me')")
	sw := st.(store.Swapper)
	staged := store.Staged(crud)
	for what, err := range map[string]error{
		"Setup":    st.Setup(ctx, []*store.Table{crud}),
		"Truncate": store.Truncate(ctx, st, crud),
		"Drop":     sw.Drop(ctx, crud),
		"Replace": func() error {
			_, _, err := store.Replace(ctx, st, crud, func(*store.Table) (int64, error) { return 0, nil })
			return err
		}(),
	} {
		if !errors.Is(err, store.ErrNotOwned) || !strings.Contains(err.Error(), "kurabe.crud") || !strings.Contains(err.Error(), "replaced since") {
			t.Errorf("%s of the user's table = %v; want ErrNotOwned saying it was replaced since kurabe made it", what, err)
		}
	}
	var important string
	if err := u.QueryRow(ctx, "SELECT important FROM kurabe.crud WHERE id = 1").Scan(&important); err != nil || important != "keep me" {
		t.Fatalf("the user's row: %q, %v", important, err)
	}
	// The staging table of that Replace was kurabe's and is gone.
	var left bool
	u.QueryRow(ctx, "SELECT to_regclass('kurabe.crud_new') IS NOT NULL").Scan(&left)
	if left {
		t.Errorf("the staging table %s was left behind", staged.Name)
	}
	// A staging table replaced by the user's is not swapped in.
	other := &store.Table{Name: "other", AutoKey: true, Columns: crud.Columns}
	ostaged := store.Staged(other)
	if err := st.Setup(ctx, []*store.Table{ostaged}); err != nil {
		t.Fatal(err)
	}
	execAll(t, u, "DROP TABLE kurabe.other_new", "CREATE TABLE kurabe.other_new (id bigint PRIMARY KEY, payload text)", "INSERT INTO kurabe.other_new VALUES (7, 'mine')")
	if err := sw.Swap(ctx, ostaged, other); !errors.Is(err, store.ErrNotOwned) {
		t.Errorf("Swap of a staging table the user made again = %v; want ErrNotOwned", err)
	}
	var n int
	if err := u.QueryRow(ctx, "SELECT count(*) FROM kurabe.other_new").Scan(&n); err != nil || n != 1 {
		t.Errorf("the user's kurabe.other_new: %d rows, %v", n, err)
	}
}

// kurabe_meta as earlier kurabe made it (name, created) gains the OID
// column. Its entries carry no OID: a table made in the same transaction
// as its entry, as kurabe made them, is taken as kurabe's (and recorded
// with its OID when made anew); one made again since is refused.
func TestMetaOfEarlierKurabe(t *testing.T) {
	addr, u := freshDB(t, "earlier")
	ctx := context.Background()
	execAll(t, u, "CREATE SCHEMA kurabe",
		"CREATE TABLE kurabe.kurabe_meta (name text PRIMARY KEY, created timestamptz NOT NULL DEFAULT now())",
		"BEGIN", "CREATE TABLE kurabe.old (id bigserial PRIMARY KEY, payload text)", "INSERT INTO kurabe.kurabe_meta (name) VALUES ('old')", "COMMIT",
		"BEGIN", "CREATE TABLE kurabe.mine (id bigint PRIMARY KEY, payload text)", "INSERT INTO kurabe.kurabe_meta (name) VALUES ('mine')", "COMMIT",
		"DROP TABLE kurabe.mine", "CREATE TABLE kurabe.mine (id int PRIMARY KEY, important text)", "INSERT INTO kurabe.mine VALUES (1, 'keep me')")
	cols := []store.Column{{Name: "id", Kind: store.Int}, {Name: "payload", Kind: store.Text}}
	old := &store.Table{Name: "old", AutoKey: true, Columns: cols}
	mine := &store.Table{Name: "mine", AutoKey: true, Columns: cols}
	st := open(t, addr, store.Env{})
	if err := st.Setup(ctx, []*store.Table{old}); err != nil {
		t.Fatalf("Setup over an earlier kurabe's table: %v", err)
	}
	var relid uint32
	if err := u.QueryRow(ctx, "SELECT relid FROM kurabe.kurabe_meta WHERE name = 'old'").Scan(&relid); err != nil || relid == 0 {
		t.Fatalf("old's recorded OID: %d, %v", relid, err)
	}
	err := st.Setup(ctx, []*store.Table{mine})
	if !errors.Is(err, store.ErrNotOwned) || !strings.Contains(err.Error(), "earlier kurabe") {
		t.Fatalf("Setup over a table made again since an earlier kurabe listed it = %v; want ErrNotOwned saying why", err)
	}
	var important string
	if err := u.QueryRow(ctx, "SELECT important FROM kurabe.mine WHERE id = 1").Scan(&important); err != nil || important != "keep me" {
		t.Fatalf("the user's row: %q, %v", important, err)
	}
}

func TestPerOpReportsConnectTime(t *testing.T) {
	dsn := sharedDSN(t, "kurabe")
	ctx := context.Background()
	tb := storetest.Table()
	for _, mode := range []string{"session", "pool", "per-op"} {
		st := open(t, dsn+"?connect="+mode, store.Env{})
		if err := st.Setup(ctx, []*store.Table{tb}); err != nil {
			t.Fatal(err)
		}
		s, err := st.Open(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		ct, ok := s.(store.ConnectTimer)
		if ok != (mode == "per-op") {
			t.Fatalf("connect=%s: session implements ConnectTimer: %v", mode, ok)
		}
		if !ok {
			continue
		}
		if err := s.Insert(ctx, tb, store.Row{{}, {Int: 1}, {Text: []byte("x")}}); err != nil {
			t.Fatal(err)
		}
		if ct.ConnectTime() <= 0 {
			t.Errorf("ConnectTime after Insert = %v", ct.ConnectTime())
		}
		if n, err := s.Scan(ctx, tb, store.Query{}, func(store.Row) error { return nil }); err != nil || n != 1 {
			t.Fatalf("Scan = %d, %v", n, err)
		}
		if ct.ConnectTime() <= 0 {
			t.Errorf("ConnectTime after Scan = %v", ct.ConnectTime())
		}
	}
}

func TestExternalInfoReadsBack(t *testing.T) {
	dsn := sharedDSN(t, "kurabe")
	ctx := context.Background()
	st := open(t, dsn+"?synchronous_commit=local&protocol=simple&connect=pool&pool_size=3", store.Env{})
	info := st.Info(ctx)
	if info.Options["synchronous_commit"] != "local" || info.Options["protocol"] != "simple" || info.Options["connect"] != "pool" || info.Options["pool_size"] != "3" {
		t.Errorf("options not read back: %v", info.Options)
	}
	if info.Target != "postgres:"+strings.TrimPrefix(dsn, "postgres:") || info.Version == "" || info.Facts["data_size_bytes"] == "" {
		t.Errorf("Info incomplete: %+v", info)
	}
}

func TestPasswordNeverShown(t *testing.T) {
	const pw, envPW = "s3cret-Pa55word", "env-Pa55word"
	dsn := sharedDSN(t, "kurabe:"+pw)
	t.Setenv("PGPASSWORD", envPW)
	ctx := context.Background()
	closedPort := func() int {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		return l.Addr().(*net.TCPAddr).Port
	}()
	check := func(what, text string) {
		t.Helper()
		if strings.Contains(text, pw) || strings.Contains(text, envPW) {
			t.Errorf("%s shows a password: %s", what, text)
		}
	}

	// The server trusts every connection, so the password is accepted
	// and ignored; it must still not show in Info.
	st := open(t, dsn, store.Env{})
	if err := st.Setup(ctx, []*store.Table{storetest.Table()}); err != nil {
		t.Fatal(err)
	}
	info := st.Info(ctx)
	check("Info", fmt.Sprintf("%+v", info))
	if !strings.Contains(info.Target, "xxxxx") {
		t.Errorf("Target %q does not show the password was redacted", info.Target)
	}

	for _, c := range []struct {
		name, target, class string
	}{
		// Nothing listens on the port: a connect failure.
		{"refused", fmt.Sprintf("//kurabe:%s@127.0.0.1:%d/postgres", pw, closedPort), "connect"},
		// The server refuses: its error passes through, classified.
		{"no such database", strings.TrimPrefix(dsn, "postgres:")[:strings.LastIndex(strings.TrimPrefix(dsn, "postgres:"), "/")] + "/no_such_db", "pg:3D000"},
		// The password comes from PGPASSWORD.
		{"env password", fmt.Sprintf("//kurabe@127.0.0.1:%d/postgres", closedPort), "connect"},
	} {
		sp, _ := store.ParseSpec("postgres:" + c.target)
		st, err := Open(ctx, sp, store.Env{})
		if err != nil {
			t.Fatalf("%s: Open: %v", c.name, err)
		}
		err = st.Setup(ctx, nil)
		if err == nil {
			t.Fatalf("%s: Setup succeeded", c.name)
		}
		check(c.name+" error", err.Error())
		if got := store.Classify(err); got != c.class {
			t.Errorf("%s: class %q, want %q (%v)", c.name, got, c.class, err)
		}
		check(c.name+" Info", fmt.Sprintf("%+v", st.Info(ctx)))
		st.Close()
	}

	// Addresses pgx or net/url cannot parse.
	for _, target := range []string{
		"//kurabe:" + pw + "@127.0.0.1:99999/postgres",
		"//kurabe:" + pw + "@127.0.0.1:port/postgres",
		"//kurabe:" + pw + "@[::1/postgres",
	} {
		sp, _ := store.ParseSpec("postgres:" + target)
		_, err := Open(ctx, sp, store.Env{})
		if err == nil {
			t.Fatalf("Open(%s) succeeded", store.RedactTarget(target))
		}
		check("parse error", err.Error())
	}
}

func TestScrubRemovesPasswordKeepsClass(t *testing.T) {
	s := &Store{password: "hunter22"}
	err := s.fail(fmt.Errorf("connecting with hunter22: %w", &pgconn.PgError{Code: "53300", Message: "too many"}))
	if strings.Contains(err.Error(), "hunter22") {
		t.Fatalf("password kept: %v", err)
	}
	if got := store.Classify(err); got != "too-many-connections" {
		t.Fatalf("class = %q", got)
	}
}

// A server that cannot be reached is said in one line, without the
// password: pgx lists every attempt (TLS, then not) on lines of their own.
func TestUnreachableIsOneLine(t *testing.T) {
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	st := open(t, "postgres://u:hunter22@"+addr+"/db", store.Env{})
	err := st.Setup(context.Background(), []*store.Table{storetest.Table()})
	if err == nil {
		t.Fatal("Setup on a closed port succeeded")
	}
	if msg := err.Error(); strings.Contains(msg, "\n") || strings.Contains(msg, "hunter22") || !strings.Contains(msg, "connection refused") {
		t.Errorf("error %q: want one line saying the connection was refused, without the password", msg)
	}
	if got := store.Classify(err); got != "connect" {
		t.Errorf("class %q, want connect", got)
	}
}

// TestUnknownHostSaidOnce: a host name that does not resolve is said once
// (pgconn repeats the resolver's message at the end of its own).
func TestUnknownHostSaidOnce(t *testing.T) {
	st := open(t, "postgres://u@nosuchhost.invalid:5432/db", store.Env{})
	err := st.Setup(context.Background(), []*store.Table{storetest.Table()})
	if err == nil {
		t.Fatal("Setup against a host that does not resolve succeeded")
	}
	msg := err.Error()
	if n := strings.Count(msg, "nosuchhost.invalid"); n != 2 { // the address, then the lookup
		t.Errorf("error %q names the host %d times, want twice (the address kurabe was given, and the failed lookup once)", msg, n)
	}
}

func TestUnrepeated(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"x: lookup h on 10.0.0.1:53: no such host lookup h on 10.0.0.1:53: no such host", "x: lookup h on 10.0.0.1:53: no such host"},
		{"x: dial tcp: connection refused", "x: dial tcp: connection refused"},
		{"bad bad", "bad bad"}, // short repeats are the message's own words
		{"", ""},
	} {
		if got := unrepeated(c.in); got != c.want {
			t.Errorf("unrepeated(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestClassify(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{&pgconn.PgError{Code: "53300"}, "too-many-connections"},
		{&pgconn.PgError{Code: "40001"}, "serialization"},
		{&pgconn.PgError{Code: "40P01"}, "deadlock"},
		{&pgconn.PgError{Code: "23505"}, "pg:23505"},
		// Wrapped, as Setup and the sessions wrap them.
		{fmt.Errorf("postgres: x: %w", &pgconn.PgError{Code: "42P01"}), "pg:42P01"},
		// Left for store.Classify to call a timeout.
		{fmt.Errorf("query: %w", context.DeadlineExceeded), "timeout"},
		{errors.New("something else"), "error"},
		// The server ended the session (pg_terminate_backend), or the
		// connection broke mid-operation: the outcome is unknown.
		{&pgconn.PgError{Severity: "FATAL", SeverityUnlocalized: "FATAL", Code: "57P01"}, "connection-lost"},
		{fmt.Errorf("postgres: %w: %w", wire.ErrConnLost, io.EOF), "connection-lost"},
		{fmt.Errorf("failed to receive message: %w", io.ErrUnexpectedEOF), "connection-lost"},
	} {
		if got := store.Classify(classify(c.err)); got != c.want {
			t.Errorf("classify(%v) = %q, want %q", c.err, got, c.want)
		}
	}
	// A real connect failure, to a port nothing listens on.
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	_, err := pgx.Connect(context.Background(), "postgres://x@"+addr+"/x?sslmode=disable")
	if got := store.Classify(classify(err)); got != "connect" {
		t.Errorf("refused connection classified %q (%v)", got, err)
	}
}

func TestOptionsValidated(t *testing.T) {
	for _, c := range []struct {
		spec string
		env  store.Env
		want string // in the error; "" for none
	}{
		// Everything valid: Open must not connect (host h does not exist).
		{"postgres://u:pw@h:5432/db?connect=pool&pool_size=3&protocol=simple&synchronous_commit=off", store.Env{}, ""},
		{"postgres://u@h/db?connect=sometimes", store.Env{}, "session, pool or per-op"},
		// Keywords in any case, as the command line's checks read them.
		{"postgres://u@h/db?connect=PER-OP&protocol=Simple&driver=PGX", store.Env{}, ""},
		{"postgres://u@h/db?protocol=binary", store.Env{}, "extended or simple"},
		{"postgres://u@h/db?synchronous_commit=maybe", store.Env{}, "remote_apply"},
		{"postgres://u@h/db?pool_size=4", store.Env{}, "only with connect=pool"},
		{"postgres://u@h/db?connect=pool&pool_size=0", store.Env{}, "1 or more"},
		{"postgres://u@h/db?driver=pgx", store.Env{}, ""},
		{"postgres://u@h/db?driver=libpq", store.Env{}, "wire or pgx"},
		{"postgres://u@h/db?driver=wire&connect=pool", store.Env{}, "only with connect=session and protocol=extended"},
		{"postgres://u@h/db?driver=wire&protocol=simple", store.Env{}, "only with connect=session and protocol=extended"},
		// libpq's connection parameters, beside kurabe's own options.
		{"postgres://u@h/db?sslmode=disable&connect=pool&application_name=app&connect_timeout=3", store.Env{}, ""},
		// The files reach pgconn, which reads them at once.
		{"postgres://u@h/db?sslmode=verify-full&sslrootcert=/nonexistent/ca.pem", store.Env{}, "unable to read CA file"},
		{"postgres://u@h/db?sslmode=sometimes", store.Env{}, "sslmode"},
		// A password goes in the user part or PGPASSWORD, where messages hide it.
		{"postgres://u@h/db?password=hunter22", store.Env{}, `unknown option "password"`},
		// Server settings are only for managed servers.
		{"postgres://u@h/db?shared_buffers=1GB", store.Env{}, `unknown option "shared_buffers"`},
		{"postgres:managed?port=5433", store.Env{Dir: "/tmp"}, "set by kurabe"},
		{"postgres:managed?bad-name=1", store.Env{Dir: "/tmp"}, "setting name"},
		{"postgres:managed", store.Env{}, "needs a data directory"},
		{"postgres:somewhere", store.Env{}, "neither an address nor managed"},
	} {
		sp, err := store.ParseSpec(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		st, err := Open(context.Background(), sp, c.env)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.spec, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: err = %v, want one saying %q", c.spec, err, c.want)
		case err != nil && strings.Contains(err.Error(), "hunter22"):
			t.Errorf("%s: the message shows the password: %v", c.spec, err)
		}
		if st != nil {
			st.Close()
		}
	}
}

func TestScanDoesNotAllocatePerRow(t *testing.T) {
	dsn := sharedDSN(t, "kurabe")
	ctx := context.Background()
	for _, protocol := range []string{"extended", "extended&driver=pgx", "simple"} {
		st := open(t, dsn+"?protocol="+protocol, store.Env{})
		tb := storetest.Table()
		if err := st.Setup(ctx, []*store.Table{tb}); err != nil {
			t.Fatal(err)
		}
		s, err := st.Open(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		rows := make([]store.Row, 1000)
		for i := range rows {
			rows[i] = store.Row{{}, {Int: int64(i)}, {Text: []byte("body " + strconv.Itoa(i))}}
		}
		if err := store.InsertBatch(ctx, s, tb, rows); err != nil {
			t.Fatal(err)
		}
		var sum int64
		allocs := func(q store.Query) float64 {
			return testing.AllocsPerRun(20, func() {
				if _, err := s.Scan(ctx, tb, q, func(r store.Row) error {
					sum += r[1].Int + int64(len(r[2].Text))
					return nil
				}); err != nil {
					t.Fatal(err)
				}
			})
		}
		// Keys are 1..1000; From and Offset above 255, since Go boxes
		// smaller integers without allocating.
		for _, c := range []struct {
			name      string
			few, many store.Query // 10 rows, 500 rows
		}{
			{"latest", store.Query{Desc: true, Limit: 10}, store.Query{Desc: true, Limit: 500}},
			{"from and offset", store.Query{HasFrom: true, From: 300, Offset: 300, Limit: 10}, store.Query{HasFrom: true, From: 300, Offset: 300, Limit: 500}},
			{"desc from, offset, no limit", store.Query{Desc: true, HasFrom: true, From: 309, Offset: 299}, store.Query{Desc: true, HasFrom: true, From: 799, Offset: 299}},
		} {
			few, many := allocs(c.few), allocs(c.many)
			t.Logf("protocol=%s, %s: %.0f allocations a scan of 10 rows, %.0f of 500", protocol, c.name, few, many)
			if many-few > 10 {
				t.Errorf("protocol=%s, %s: scanning 500 rows allocates %.0f times, 10 rows %.0f times", protocol, c.name, many, few)
			}
			if strings.HasPrefix(protocol, "extended") {
				// pgx allocates a little per query; the shapes must not
				// add to it (the simple protocol formats every argument).
				if latest := allocs(store.Query{Desc: true, Limit: 10}); few > latest {
					t.Errorf("protocol=%s, %s: %.0f allocations a scan, %.0f for the latest 10 rows", protocol, c.name, few, latest)
				}
			}
		}
	}
}

// Setup creates each of a table's indexes under kurabe's name for it, as
// the server reports them in pg_indexes, and again at a second Setup.
func TestSetupCreatesIndexes(t *testing.T) {
	dsn := sharedDSN(t, "kurabe")
	ctx := context.Background()
	st := open(t, dsn, store.Env{})
	long := strings.Repeat("長い列", 6) // 54 bytes: the index name needs shortening
	tb := &store.Table{Name: "indexed", AutoKey: true, Columns: []store.Column{
		{Name: "id", Kind: store.Int}, {Name: "n", Kind: store.Int}, {Name: "body", Kind: store.Text}, {Name: long, Kind: store.Text},
	}, Indexes: [][]string{{"n"}, {"body", "n"}, {long, "n"}}}
	want := map[string]string{
		"kurabe_indexed_n":                            "(n)",
		"kurabe_indexed_body_n":                       "(body, n)",
		store.IndexName("indexed", tb.Indexes[2], 63): `("` + long + `", n)`,
	}
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	for setup := range 2 {
		if err := st.Setup(ctx, []*store.Table{tb}); err != nil {
			t.Fatalf("Setup %d: %v", setup+1, err)
		}
		rows, err := c.Query(ctx, "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'kurabe' AND tablename = 'indexed' AND indexname <> 'indexed_pkey'")
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for rows.Next() {
			var name, def string
			if err := rows.Scan(&name, &def); err != nil {
				t.Fatal(err)
			}
			got[name] = def
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("Setup %d: indexes %v, want %d", setup+1, got, len(want))
		}
		for name, cols := range want {
			if def := got[name]; !strings.HasSuffix(def, " ON kurabe.indexed USING btree "+cols) {
				t.Errorf("Setup %d: index %s is %q, want one on %s", setup+1, name, def, cols)
			}
		}
	}
	// The indexed table works as any other, From and Offset included.
	s, err := st.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := range 20 {
		if err := s.Insert(ctx, tb, store.Row{{}, {Int: int64(i)}, {Text: []byte("b")}, {Text: []byte("x")}}); err != nil {
			t.Fatal(err)
		}
	}
	var keys []int64
	if _, err := s.Scan(ctx, tb, store.Query{HasFrom: true, From: 5, Offset: 2, Limit: 3}, func(r store.Row) error {
		keys = append(keys, r[0].Int)
		return nil
	}); err != nil || fmt.Sprint(keys) != "[7 8 9]" {
		t.Fatalf("scan from 5, offset 2, limit 3: %v (%v), want [7 8 9]", keys, err)
	}

	for _, c := range []struct {
		indexes [][]string
		want    string
	}{
		{[][]string{{"n", "nope"}}, `no column "nope"`},
		{[][]string{{}}, "no columns"},
		{[][]string{{"n"}, {"n"}}, "two indexes named kurabe_indexed_n"},
	} {
		bad := &store.Table{Name: "indexed", AutoKey: true, Columns: tb.Columns, Indexes: c.indexes}
		if err := st.Setup(ctx, []*store.Table{bad}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Setup with indexes %q: %v, want an error saying %q", c.indexes, err, c.want)
		}
	}
}

func TestIndexName(t *testing.T) {
	long := strings.Repeat("x", 60)
	for _, c := range []struct {
		table string
		cols  []string
		want  string // "" to check only the length and the hash ending
	}{
		// Short names are kurabe_<table>_<columns>.
		{"posts", []string{"user_id"}, "kurabe_posts_user_id"},
		{"posts", []string{"user_id", "created"}, "kurabe_posts_user_id_created"},
		// Exactly 63 bytes stays as it is.
		{strings.Repeat("t", 54), []string{"n"}, "kurabe_" + strings.Repeat("t", 54) + "_n"},
		// Longer ones are cut and end in a hash.
		{"posts", []string{long}, ""},
		{strings.Repeat("t", 63), []string{"n"}, ""},
		// A cut never splits a character (3 bytes each here).
		{strings.Repeat("表", 21), []string{"列"}, ""},
	} {
		got := store.IndexName(c.table, c.cols, 63)
		switch {
		case c.want != "" && got != c.want:
			t.Errorf("store.IndexName(%s, %q) = %s, want %s", c.table, c.cols, got, c.want)
		case len(got) > 63 || !utf8.ValidString(got) || !strings.HasPrefix(got, "kurabe_"):
			t.Errorf("store.IndexName(%s, %q) = %s (%d bytes), want at most 63 bytes of valid UTF-8", c.table, c.cols, got, len(got))
		case c.want == "" && got[len(got)-9] != '_':
			t.Errorf("store.IndexName(%s, %q) = %s, want it to end in _ and a hash", c.table, c.cols, got)
		}
		if again := store.IndexName(c.table, c.cols, 63); again != got {
			t.Errorf("store.IndexName(%s, %q) is %s, then %s", c.table, c.cols, got, again)
		}
	}
	// Long names that share their first 54 bytes stay apart.
	if a, b := store.IndexName("posts", []string{long + "a"}, 63), store.IndexName("posts", []string{long + "b"}, 63); a == b {
		t.Errorf("two long names became one: %s", a)
	}
}

func TestSameDir(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{real, real, true},
		{real + "/", real, true},
		{link, real, true},
		{filepath.Join(link, "..", "real"), real, true},
		{other, real, false},
		{filepath.Join(dir, "missing"), real, false},
	} {
		if got := sameDir(c.a, c.b); got != c.want {
			t.Errorf("sameDir(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// A password that is also a word of the message ("postgres", "on") is
// hidden in the address's password field, and elsewhere only where it
// stands as a word that is neither kurabe's (a driver's name) nor the
// address's user, host or database; the rest of the message is left whole.
// Before, every occurrence of its text was replaced: "xxxxx: cannot connect
// to xxxxx://pguser:xxxxx@…" for "postgres", "cannot cxxxxxnect" for "on".
func TestPasswordThatIsAWord(t *testing.T) {
	dsn := sharedDSN(t, "kurabe")
	ctx := context.Background()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "DO $$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'pguser') THEN CREATE ROLE pguser LOGIN; END IF; END$$"); err != nil {
		t.Fatal(err)
	}
	hostPort := strings.TrimSuffix(strings.TrimPrefix(dsn, "postgres://kurabe@"), "/postgres")
	visible := []string{"pguser", "127.0.0.1", "nodb"}
	for _, c := range []struct {
		pw   string
		echo string // a server's message that quotes the password
	}{
		{"postgres", ""}, // the driver's name: the scheme and the prefix stay
		{"on", "on"},     // inside connect, connection: left; a word of its own: hidden
		{"kurabe", ""},   // kurabe's name (kurabe_meta, the schema kurabe)
		{"secret123", "secret123"},
		{"pguser", ""}, // the user name, shown as such
	} {
		t.Run(c.pw, func(t *testing.T) {
			// The server trusts every connection: the password is
			// ignored and the server says the database does not exist.
			st := open(t, "postgres://pguser:"+c.pw+"@"+hostPort+"/nodb", store.Env{})
			err := st.Setup(ctx, []*store.Table{storetest.Table()})
			if err == nil {
				t.Fatal("Setup of a database that does not exist succeeded")
			}
			msg := err.Error()
			want := "postgres: cannot connect to postgres://pguser:xxxxx@" + hostPort + "/nodb: "
			if !strings.HasPrefix(msg, want) || !strings.Contains(msg, `database "nodb" does not exist`) || strings.Count(msg, "xxxxx") != 1 {
				t.Errorf("error %q: want it to begin %q and say the database does not exist, ungarbled", msg, want)
			}
			if got := store.Classify(err); got != "pg:3D000" {
				t.Errorf("class %q, want pg:3D000", got)
			}
			// A message from the server that echoes the password.
			echoed := st.(*Store).fail(&pgconn.PgError{Code: "28P01", Message: fmt.Sprintf("password %q is not %s's (on %s)", c.pw, "pguser", "connection")})
			for _, text := range []string{msg, echoed.Error(), fmt.Sprintf("%+v", st.Info(ctx))} {
				for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !(r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)) }) {
					if w == c.pw && !redact.Kept(w, visible...) {
						t.Errorf("%q shows the password %q", text, c.pw)
					}
				}
			}
			if c.echo != "" && strings.Contains(echoed.Error(), `"`+c.echo+`"`) {
				t.Errorf("echoed password kept: %v", echoed)
			}
		})
	}
}

// TestExternalTooManyConnectionsQuotesServer: on a server at its
// connection limit, a session that cannot connect is classed
// too-many-connections and its message quotes the server's FATAL, not
// the TLS attempt sslmode=prefer made first (before: "tls error: server
// refused TLS connection", the real cause left to be found with
// PGSSLMODE=disable). libpq's connection parameters are taken in the
// address (sslmode=disable), kept apart from kurabe's own options.
func TestExternalTooManyConnectionsQuotesServer(t *testing.T) {
	t.Parallel()
	dir, err := serverDir()
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	m := open(t, "postgres:managed?max_connections=2&superuser_reserved_connections=0", store.Env{Dir: dir})
	if err := m.Setup(ctx, nil); err != nil {
		storetest.RequireServer(t, err)
		t.Fatal(err)
	}
	addr := fmt.Sprintf("postgres://kurabe@127.0.0.1:%d/postgres", m.(*Store).managed.port)
	for _, tc := range []struct{ name, query string }{
		{"sslmode=prefer", ""}, // pgconn's default: TLS first, then without
		{"sslmode=disable", "?sslmode=disable&application_name=kurabe-test&connect_timeout=5"},
	} {
		st := open(t, addr+tc.query, store.Env{})
		var sessions []store.Session
		var openErr error
		for range 4 {
			s, err := st.Open(ctx)
			if err != nil {
				openErr = err
				break
			}
			sessions = append(sessions, s)
		}
		if len(sessions) > 0 && tc.query != "" {
			var n int64
			if _, _, err := sessions[0].(store.SQLSession).Query(ctx, "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'kurabe-test'", nil, func(v int64) { n = v }); err != nil {
				t.Errorf("%s: %v", tc.name, err)
			} else if n != int64(len(sessions)) {
				t.Errorf("%s: %d sessions named kurabe-test, want the %d opened (application_name of the address)", tc.name, n, len(sessions))
			}
		}
		for _, s := range sessions {
			s.Close()
		}
		st.Close()
		if openErr == nil {
			t.Fatalf("%s: 4 sessions opened on a server with max_connections=2", tc.name)
		}
		msg := openErr.Error()
		t.Logf("%s: %s", tc.name, msg)
		if got := store.Classify(openErr); got != "too-many-connections" {
			t.Errorf("%s: class %q, want too-many-connections", tc.name, got)
		}
		if !strings.Contains(msg, "too many clients") || strings.Contains(msg, "TLS") || strings.Contains(msg, "\n") {
			t.Errorf("%s: message %q; want one line quoting the server's FATAL, not the TLS attempt", tc.name, msg)
		}
	}
}

// TestSwapKeepsTableReadableWhileIndexing: a re-import's swap builds the
// new rows' indexes before it takes the old table away, so a session
// reading the table meanwhile gets the old rows instead of waiting for the
// build. A session holding a lock on the staging table stops the swap in
// its index build, where a reader of the table must still get through.
func TestSwapKeepsTableReadableWhileIndexing(t *testing.T) {
	dsn := sharedDSN(t, "kurabe")
	ctx := context.Background()
	st := open(t, dsn, store.Env{})
	tb := &store.Table{Name: "swapread", Columns: []store.Column{{Name: "id", Kind: store.Int}, {Name: "body", Kind: store.Text}}, Indexes: [][]string{{"body"}, {"body", "id"}}}
	staged := store.Staged(tb)
	fill := func(into *store.Table, n int) {
		t.Helper()
		if err := st.Setup(ctx, []*store.Table{into}); err != nil {
			t.Fatalf("Setup %s: %v", into.Name, err)
		}
		s, err := st.Open(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		for i := range n {
			if err := s.Insert(ctx, into, store.Row{{Int: int64(i)}, {Text: []byte("row")}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	fill(tb, 3)
	fill(staged, 5)

	connect := func() *pgx.Conn {
		t.Helper()
		c, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(ctx) })
		return c
	}
	blocker, reader := connect(), connect()
	tx, err := blocker.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	// ROW EXCLUSIVE, as a writer of the staging table holds, stops CREATE
	// INDEX (SHARE) and ALTER TABLE (ACCESS EXCLUSIVE) alike.
	if _, err := tx.Exec(ctx, "LOCK TABLE kurabe.swapread_new IN ROW EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- st.(store.Swapper).Swap(ctx, staged, tb) }()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var waiting bool
		if err := reader.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE NOT l.granted AND c.relname = 'swapread_new')").Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("Swap returned (%v) while another session held a lock on the staging table", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("Swap never waited for the staging table's lock")
		}
	}
	if _, err := reader.Exec(ctx, "SET lock_timeout = '10s'"); err != nil {
		t.Fatal(err)
	}
	var n int64
	if err := reader.QueryRow(ctx, "SELECT count(*) FROM kurabe.swapread").Scan(&n); err != nil || n != 3 {
		t.Fatalf("reading the table while the swap waits in its index build: %d rows, %v; want the 3 it held (the old table must not be locked yet)", n, err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Swap: %v", err)
	}
	if err := reader.QueryRow(ctx, "SELECT count(*) FROM kurabe.swapread").Scan(&n); err != nil || n != 5 {
		t.Fatalf("after the swap: %d rows, %v; want the 5 staged", n, err)
	}
	rows, err := reader.Query(ctx, "SELECT indexname FROM pg_indexes WHERE schemaname = 'kurabe' AND tablename = 'swapread' ORDER BY 1")
	if err != nil {
		t.Fatal(err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if want := "[kurabe_swapread_body kurabe_swapread_body_id swapread_pkey]"; fmt.Sprint(names) != want {
		t.Errorf("indexes after the swap: %v, want %s (named for the table, not the staging table)", names, want)
	}
}

// silentServer listens on 127.0.0.1 and accepts connections without ever
// answering, as a stopped server's port does; it returns the address and
// the count of connections accepted so far.
func silentServer(t *testing.T) (string, func() int) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	return l.Addr().String(), func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(conns)
	}
}

// TestConnectTimeoutBoundsTheWholeConnect: with sslmode=prefer pgconn
// tries TLS and then without, each try with connect_timeout of its own;
// kurabe's connect_timeout bounds the whole, so a server that never
// answers is not tried a second time, and the message leads with the
// timeout, not with the TLS try.
func TestConnectTimeoutBoundsTheWholeConnect(t *testing.T) {
	addr, accepted := silentServer(t)
	for _, mode := range []string{"", "&driver=pgx", "&connect=per-op"} {
		t.Run(mode, func(t *testing.T) {
			before := accepted()
			st := open(t, "postgres://u@"+addr+"/db?connect_timeout=1"+mode, store.Env{})
			s, err := st.Open(context.Background())
			if err == nil {
				_, err = s.Scan(context.Background(), storetest.Table(), store.Query{}, func(store.Row) error { return nil })
				s.Close()
			}
			if err == nil {
				t.Fatal("connecting to a server that never answers succeeded")
			}
			want := "postgres: cannot connect to postgres://u@" + addr + "/db: the server at " + addr + " did not answer within 1s (connect_timeout=1;"
			if msg := err.Error(); !strings.HasPrefix(msg, want) {
				t.Errorf("error %q\nwant it to start %q", msg, want)
			}
			if got := store.Classify(err); got != "connect" {
				t.Errorf("class %q, want connect", got)
			}
			// Info, after a failed start, does not wait for the server
			// again.
			info := st.Info(context.Background())
			if !strings.HasPrefix(info.Facts["error"], want) {
				t.Errorf("Info's error %q\nwant it to start %q", info.Facts["error"], want)
			}
			if n := accepted() - before; n != 1 {
				t.Errorf("the server was tried %d times, want once: the timeout is the whole connect's, and Info does not wait again", n)
			}
		})
	}
}

// TestAnotherKindOfServer: an address whose port is MariaDB's is said to
// be another kind of server, not with pgconn's "received unexpected
// message: %!w(<nil>)".
func TestAnotherKindOfServer(t *testing.T) {
	dir, err := serverDir()
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	sp, _ := store.ParseSpec("mariadb:managed")
	my, err := mysql.Open(context.Background(), sp, store.Env{Dir: dir})
	storetest.RequireServer(t, err)
	defer my.Close()
	if err := my.Setup(context.Background(), nil); err != nil {
		storetest.RequireServer(t, err)
	}
	addr := strings.TrimPrefix(my.Info(context.Background()).Target, "managed ")
	st := open(t, "postgres://u@"+addr+"/db?connect_timeout=5", store.Env{})
	err = st.Setup(context.Background(), []*store.Table{storetest.Table()})
	if err == nil {
		t.Fatal("Setup against MariaDB's port succeeded")
	}
	msg := err.Error()
	want := "the server at " + addr + " did not answer as PostgreSQL does; is it another kind of server"
	if !strings.Contains(msg, want) || strings.Contains(msg, "%!") {
		t.Errorf("error %q\nwant it to say %q, without a formatting mistake", msg, want)
	}
	if got := store.Classify(err); got != "connect" {
		t.Errorf("class %q, want connect", got)
	}
}

// Two kurabes on one database of a server they did not start: the second
// is refused, saying who holds kurabe's schema, until the first lets go;
// the lock goes with its connection. A managed server needs no lock.
func TestLock(t *testing.T) {
	dsn := sharedDSN(t, "kurabe")
	storetest.RunLock(t, func(t *testing.T) store.Store {
		return open(t, dsn, store.Env{})
	}, "another kurabe test is using kurabe's tables in postgres on 127.0.0.1:", fmt.Sprintf("pid %d on host ", os.Getpid()), "server process ")
	if n := open(t, "postgres:managed", store.Env{Dir: t.TempDir()}).(store.Locker).LockName(); n != "" {
		t.Errorf("a managed server has LockName %q, want none", n)
	}
}

// The server ends the connection that holds kurabe's lock (an
// administrator's pg_terminate_backend, a restart): the store takes the
// lock again at its next use, or fails when another kurabe took it first.
func TestLockLost(t *testing.T) {
	dsn := sharedDSN(t, "kurabe")
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	storetest.RunLockLost(t, func(t *testing.T) store.Store {
		return open(t, dsn, store.Env{})
	}, func(t *testing.T) {
		var pid int32
		if err := admin.QueryRow(ctx, "SELECT pid FROM pg_stat_activity WHERE application_name LIKE 'kurabe test|%'").Scan(&pid); err != nil {
			t.Fatalf("finding the lock's connection: %v", err)
		}
		if _, err := admin.Exec(ctx, "SELECT pg_terminate_backend($1, 10000)", pid); err != nil {
			t.Fatal(err)
		}
	})
}

// Stores of one namespace share the lock's connection (a --vary of
// synchronous_commit on a server you run), and each reads back its own
// setting on it: the connection had started with the first store's
// value, and SET ... TO DEFAULT goes back to what a connection started
// with, so a store that left it to the server read back the first's off.
func TestSharedLockRunsEachStoresSynchronousCommit(t *testing.T) {
	addr, _ := freshDB(t, "locksync")
	ctx := context.Background()
	off := open(t, addr+"?synchronous_commit=off", store.Env{})
	held, err := off.(store.Locker).Lock(ctx, store.Me("kurabe test"))
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	def := open(t, addr, store.Env{})
	def.(store.LockSharer).ShareLock(held)
	for _, c := range []struct {
		st   store.Store
		want string
	}{{off, "off"}, {def, "on"}, {off, "off"}} {
		if got := c.st.Info(ctx).Options["synchronous_commit"]; got != c.want {
			t.Errorf("synchronous_commit read back %q on the shared connection, want %q", got, c.want)
		}
	}
}

// Two stores of one database given with different accounts share the
// namespace's lock, not its connection: each makes its tables as itself.
// The second store's Setup had run on the lock's connection, as the first
// store's account, and its tables were that account's.
func TestSharedLockKeepsEachAccount(t *testing.T) {
	addr, owner := freshDB(t, "lockacct")
	execAll(t, owner, "CREATE ROLE kacct1 LOGIN", "CREATE ROLE kacct2 LOGIN", "CREATE SCHEMA kurabe",
		"GRANT USAGE, CREATE ON SCHEMA kurabe TO kacct1, kacct2")
	ctx := context.Background()
	as := func(user string) string { return strings.Replace(addr, "//kurabe@", "//"+user+"@", 1) }
	first := open(t, as("kacct1"), store.Env{})
	held, err := first.(store.Locker).Lock(ctx, store.Me("kurabe test"))
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	second := open(t, as("kacct2"), store.Env{})
	second.(store.LockSharer).ShareLock(held)
	posts := &store.Table{Name: "posts", AutoKey: true, Columns: []store.Column{{Name: "id", Kind: store.Int}, {Name: "body", Kind: store.Text}}}
	if err := second.Setup(ctx, []*store.Table{posts}); err != nil {
		t.Fatal(err)
	}
	var got string
	if err := owner.QueryRow(ctx, "SELECT tableowner FROM pg_tables WHERE schemaname = 'kurabe' AND tablename = 'posts'").Scan(&got); err != nil {
		t.Fatal(err)
	}
	if got != "kacct2" {
		t.Errorf("the second store's table is %s's, want kacct2's", got)
	}
}
