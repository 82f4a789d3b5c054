package mysql

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode"

	"github.com/go-sql-driver/mysql"

	"kurabe/redact"
	"kurabe/store"
	"kurabe/store/server"
	"kurabe/store/storetest"
)

// serverDir returns a fresh directory that a server running as another
// user can enter (t.TempDir makes its parent private).
func serverDir(t testing.TB) string {
	dir := t.TempDir()
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func openSpec(t testing.TB, spec string, env store.Env) (store.Store, error) {
	t.Helper()
	sp, err := store.ParseSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	return Open(context.Background(), sp, env)
}

// startManaged opens a managed MariaDB and starts it with a Setup of no
// tables; it is stopped when the test ends.
func startManaged(t testing.TB, options string) *Store {
	t.Helper()
	return startManagedAs(t, "mariadb", options)
}

func startManagedAs(t testing.TB, driver, options string) *Store {
	t.Helper()
	st, err := openSpec(t, driver+":managed"+options, store.Env{Dir: serverDir(t)})
	storetest.RequireServer(t, err)
	t.Cleanup(func() { st.Close() })
	start := time.Now()
	if err := st.Setup(context.Background(), nil); err != nil {
		t.Fatalf("starting managed server: %v", err)
	}
	t.Logf("managed server%s started in %v", options, time.Since(start).Round(time.Millisecond))
	return st.(*Store)
}

// rootDB connects to a managed server as root over its socket.
func rootDB(t testing.TB, st *Store) *sql.DB {
	t.Helper()
	db, err := openDB(newConfig("root", "", "unix", filepath.Join(st.m.dir, "mysql.sock")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func mustExec(t testing.TB, db *sql.DB, stmts ...string) {
	t.Helper()
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

func managedAddr(t testing.TB, st store.Store) string {
	t.Helper()
	target := st.Info(context.Background()).Target
	addr, ok := strings.CutPrefix(target, "managed ")
	if !ok {
		t.Fatalf("managed Target = %q, want \"managed 127.0.0.1:PORT\"", target)
	}
	return addr
}

func randomHex(t testing.TB) string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// TestServer starts one managed server and runs everything that needs no
// server of its own against it, as an external server with an account the
// test creates.
func TestServer(t *testing.T) {
	ctx := context.Background()
	managed := startManaged(t, "?innodb_flush_log_at_trx_commit=2&innodb_buffer_pool_size=64M&max_allowed_packet=1M")
	root := rootDB(t, managed)
	// The command line checks -c against the limit the program says a
	// managed server runs when none is given: the one it runs.
	var running int
	if err := root.QueryRow("SELECT @@max_connections").Scan(&running); err != nil {
		t.Fatal(err)
	}
	if d := DefaultConnections("mariadb"); d <= 0 || d != running {
		t.Errorf("DefaultConnections(mariadb) = %d, the server runs max_connections=%d", d, running)
	}
	addr := managedAddr(t, managed)
	pw := "Pw-" + randomHex(t)
	mustExec(t, root, "CREATE USER 'tester'@'127.0.0.1' IDENTIFIED BY '"+pw+"'", "GRANT ALL ON *.* TO 'tester'@'127.0.0.1'")
	dsn := "mysql://tester:" + pw + "@" + addr + "/"
	databases := 0
	// open opens a store in a database of its own, so no run sees another's
	// tables.
	open := func(t *testing.T, opts string) store.Store {
		t.Helper()
		databases++
		st, err := openSpec(t, dsn+"?database=kt_"+strconv.Itoa(databases)+opts, store.Env{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}

	// The conformance suite, once per way of connecting and per engine.
	for _, c := range []struct{ name, opts string }{
		{"session", ""},
		{"session-sql", "&driver=sql"}, // the default is driver=wire
		{"pool", "&connect=pool&pool_size=4"},
		{"per-op", "&connect=per-op"},
		{"MyISAM", "&engine=MyISAM"},
		{"Aria", "&engine=Aria"},
	} {
		t.Run("suite/"+c.name, func(t *testing.T) {
			storetest.Run(t, func(t *testing.T) store.Store { return open(t, c.opts) })
		})
	}

	// Two kurabes on one database: the second is refused, saying which
	// connection holds kurabe's database, until the first lets go.
	t.Run("Lock", func(t *testing.T) {
		storetest.RunLock(t, func(t *testing.T) store.Store {
			st, err := openSpec(t, dsn+"?database=kt_lock", store.Env{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		}, "another kurabe is using kurabe's tables in kt_lock on "+addr, "server connection ", " from 127.0.0.1:")
		if n := managed.LockName(); n != "" {
			t.Errorf("a managed server has LockName %q, want none", n)
		}
	})

	// The server ends the connection that holds kurabe's lock (KILL, a
	// restart): the store takes the lock again at its next use, or fails
	// when another kurabe took it first.
	t.Run("LockLost", func(t *testing.T) {
		storetest.RunLockLost(t, func(t *testing.T) store.Store {
			st, err := openSpec(t, dsn+"?database=kt_lost", store.Env{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		}, func(t *testing.T) {
			var id sql.NullInt64
			if err := root.QueryRow("SELECT IS_USED_LOCK('kurabe:kt_lost')").Scan(&id); err != nil || !id.Valid {
				t.Fatalf("finding the lock's connection: %v, %v", id, err)
			}
			mustExec(t, root, "KILL "+strconv.FormatInt(id.Int64, 10))
			// KILL returns before the connection has gone.
			for i := 0; ; i++ {
				if err := root.QueryRow("SELECT IS_USED_LOCK('kurabe:kt_lost')").Scan(&id); err != nil {
					t.Fatal(err)
				}
				if !id.Valid {
					break
				}
				if i == 1000 {
					t.Fatal("the killed connection still held the lock after 10 s")
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	})

	// SQLSession and BulkLoader (sql_test.go).
	t.Run("SQL", func(t *testing.T) { testSQL(t, open, root, dsn) })

	// Setup creates each index, as information_schema.STATISTICS shows it,
	// under every engine and in the row format with the smallest limit on
	// an indexed column; a text column is indexed on a prefix that fits.
	t.Run("Indexes", func(t *testing.T) {
		long := strings.Repeat("長い列", 5) // 45 bytes: the index name needs shortening
		tb := &store.Table{Name: "indexed", AutoKey: true, Columns: []store.Column{
			{Name: "id", Kind: store.Int}, {Name: "n", Kind: store.Int}, {Name: "body", Kind: store.Text}, {Name: long, Kind: store.Text},
		}, Indexes: [][]string{{"n"}, {"body"}, {"n", "body"}, {"body", long}, {long, "n", "body"}}}
		want := map[string]string{
			"kurabe_indexed_n":                            "n",
			"kurabe_indexed_body":                         "body(191)",
			"kurabe_indexed_n_body":                       "n,body(191)",
			store.IndexName("indexed", tb.Indexes[3], 64): "body(125)," + long + "(125)",
			store.IndexName("indexed", tb.Indexes[4], 64): long + "(124),n,body(124)",
		}
		// The row format is read back as the server made the table: MyISAM
		// cannot keep a table with text columns FIXED, and says Dynamic.
		formats := map[string]string{"&row_format=COMPACT": "compact", "&engine=MyISAM&row_format=FIXED": "dynamic"}
		for _, opts := range []string{"", "&row_format=COMPACT", "&engine=MyISAM", "&engine=MyISAM&row_format=FIXED", "&engine=Aria"} {
			st := open(t, opts)
			database := "kt_" + strconv.Itoa(databases)
			for setup := range 2 { // the second drops the table and indexes it again
				if err := st.Setup(ctx, []*store.Table{tb}); err != nil {
					t.Fatalf("%s: Setup %d: %v", opts, setup+1, err)
				}
			}
			rows, err := root.Query(`SELECT INDEX_NAME, GROUP_CONCAT(CONCAT(COLUMN_NAME, COALESCE(CONCAT('(', SUB_PART, ')'), '')) ORDER BY SEQ_IN_INDEX)
				FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'indexed' AND INDEX_NAME <> 'PRIMARY' GROUP BY INDEX_NAME`, database)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for rows.Next() {
				var name, cols string
				if err := rows.Scan(&name, &cols); err != nil {
					t.Fatal(err)
				}
				got[name] = cols
			}
			rows.Close()
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s: indexes\n%v\nwant\n%v", opts, got, want)
			}
			if f, ok := formats[opts]; ok && strings.ToLower(st.Info(ctx).Options["row_format"]) != f {
				t.Errorf("%s: row_format read back as %q, want %s", opts, st.Info(ctx).Options["row_format"], f)
			}
			// One table: its engine and row format are the store's, said
			// once, and no empty create options are listed.
			so := st.Info(ctx).Options
			if _, ok := so["indexed.engine"]; ok {
				t.Errorf("%s: indexed.engine repeats engine=%s", opts, so["engine"])
			}
			if v, ok := so["indexed.create_options"]; ok && v == "" {
				t.Errorf("%s: empty indexed.create_options listed", opts)
			}
			// The indexed table works as any other, From and Offset included.
			s, err := st.Open(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			for i := range 20 {
				if err := s.Insert(ctx, tb, store.Row{{}, {Int: int64(i)}, {Text: bytes.Repeat([]byte("b"), 300)}, {Text: []byte("x")}}); err != nil {
					t.Fatalf("%s: %v", opts, err)
				}
			}
			var keys []int64
			if _, err := s.Scan(ctx, tb, store.Query{Desc: true, HasFrom: true, From: 15, Offset: 2, Limit: 3}, func(r store.Row) error {
				keys = append(keys, r[0].Int)
				return nil
			}); err != nil || fmt.Sprint(keys) != "[13 12 11]" {
				t.Fatalf("%s: scan down from 15, offset 2, limit 3: %v (%v), want [13 12 11]", opts, keys, err)
			}
		}

		st := open(t, "")
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
	})

	// A scan's shape adds no allocation of this package's but the boxing
	// of its integer arguments of 256 and more, which database/sql's ...any
	// requires; beyond two arguments, database/sql's and the driver's
	// copies of them no longer fit on the stack either.
	t.Run("ScanAllocations", func(t *testing.T) {
		for _, connect := range []string{"session", "session&driver=sql", "pool"} {
			st := open(t, "&connect="+connect)
			tb := storetest.Table()
			if err := st.Setup(ctx, []*store.Table{tb}); err != nil {
				t.Fatal(err)
			}
			s, err := st.Open(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var rows []store.Row
			for i := range 1000 {
				rows = append(rows, store.Row{{}, {Int: int64(i)}, {Text: []byte("body " + strconv.Itoa(i))}})
			}
			if err := store.InsertBatch(ctx, s, tb, rows); err != nil {
				t.Fatal(err)
			}
			allocs := func(q store.Query) float64 {
				return testing.AllocsPerRun(20, func() {
					if n, err := s.Scan(ctx, tb, q, func(store.Row) error { return nil }); err != nil || n != 20 {
						t.Fatalf("Scan(%+v) = %d, %v; want 20 rows", q, n, err)
					}
				})
			}
			latest := allocs(store.Query{Desc: true, Limit: 20})
			for _, c := range []struct {
				q     store.Query
				extra float64 // boxed arguments, and 1 for more than two arguments
			}{
				{store.Query{HasFrom: true, From: 300, Offset: 300, Limit: 20}, 2 + 1},
				{store.Query{Desc: true, HasFrom: true, From: 319, Limit: 20}, 1},
				{store.Query{HasFrom: true, From: 700, Offset: 281}, 2}, // no limit: the last 20
			} {
				got := allocs(c.q)
				t.Logf("connect=%s: %+v: %.0f allocations, the latest 20 rows %.0f", connect, c.q, got, latest)
				if got > latest+c.extra {
					t.Errorf("connect=%s: %+v: %.0f allocations, want at most %.0f (the latest 20 rows: %.0f)", connect, c.q, got, latest+c.extra, latest)
				}
			}
		}
	})

	// A batch larger than max_allowed_packet (1M here) or than the
	// placeholders of one statement is split, and nothing is lost.
	t.Run("LargeBatchesSplit", func(t *testing.T) {
		big := bytes.Repeat([]byte("大"), 3000) // 9000 bytes
		for _, connect := range []string{"session", "session&driver=sql", "pool", "per-op"} {
			st := open(t, "&connect="+connect)
			tb := storetest.Table()
			if err := st.Setup(ctx, []*store.Table{tb}); err != nil {
				t.Fatal(err)
			}
			s, err := st.Open(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var rows []store.Row
			for i := range 400 { // 3.6 MB
				rows = append(rows, store.Row{{}, {Int: int64(i)}, {Text: big}})
			}
			for i := range 40000 { // 80000 placeholders
				rows = append(rows, store.Row{{}, {Int: int64(400 + i)}, {Text: nil}})
			}
			if err := store.InsertBatch(ctx, s, tb, rows); err != nil {
				t.Fatalf("%s: InsertBatch: %v", connect, err)
			}
			if n, err := st.Count(ctx, tb); n != int64(len(rows)) || err != nil {
				t.Fatalf("%s: Count = %d, %v; want %d", connect, n, err, len(rows))
			}
			i := 0
			_, err = s.Scan(ctx, tb, store.Query{}, func(r store.Row) error {
				want := big
				if i >= 400 {
					want = nil
				}
				if r[1].Int != int64(i) || !bytes.Equal(r[2].Text, want) {
					return fmt.Errorf("row %d = %d, %d bytes", i, r[1].Int, len(r[2].Text))
				}
				i++
				return nil
			})
			if err != nil {
				t.Fatalf("%s: %v", connect, err)
			}
		}
	})

	t.Run("NotOwnedIsUntouched", func(t *testing.T) {
		mustExec(t, root,
			"CREATE TABLE kurabe.posts (id INT PRIMARY KEY, body TEXT)",
			"INSERT INTO kurabe.posts VALUES (1, 'written by hand')")
		var before, after, body string
		root.QueryRow("SHOW CREATE TABLE kurabe.posts").Scan(new(string), &before)
		st, err := openSpec(t, dsn, store.Env{}) // database kurabe, the default
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		posts := &store.Table{Name: "posts", Columns: []store.Column{{Name: "id", Kind: store.Int}, {Name: "body", Kind: store.Text}}}
		err = st.Setup(ctx, []*store.Table{posts})
		if !errors.Is(err, store.ErrNotOwned) || !strings.Contains(err.Error(), "database=") || strings.Contains(err.Error(), pw) {
			t.Fatalf("Setup over a table kurabe did not make: %v; want ErrNotOwned saying what to do", err)
		}
		if err := store.Truncate(ctx, st, posts); !errors.Is(err, store.ErrNotOwned) {
			t.Fatalf("Truncate of a table kurabe did not make: %v; want ErrNotOwned", err)
		}
		root.QueryRow("SHOW CREATE TABLE kurabe.posts").Scan(new(string), &after)
		if err := root.QueryRow("SELECT body FROM kurabe.posts WHERE id = 1").Scan(&body); err != nil || body != "written by hand" || before != after {
			t.Fatalf("the table was changed: %q (%v)\nbefore: %s\nafter: %s", body, err, before, after)
		}
		// Beside it, kurabe's own tables come and go.
		threads := &store.Table{Name: "threads", Columns: posts.Columns}
		for range 2 {
			if err := st.Setup(ctx, []*store.Table{threads}); err != nil {
				t.Fatal(err)
			}
		}
	})

	// A user's database where kurabe has never been: a refused Setup
	// leaves no table of kurabe's in it (kurabe_meta was made before the
	// check). A table of the user's named kurabe_meta, of another shape,
	// is theirs too, refused with the same message, not an SQL error.
	t.Run("RefusalLeavesNothing", func(t *testing.T) {
		mustExec(t, root,
			"CREATE DATABASE shop", "CREATE TABLE shop.posts (id INT PRIMARY KEY, body TEXT)",
			"CREATE DATABASE notes", "CREATE TABLE notes.kurabe_meta (id INT PRIMARY KEY, note TEXT)", "INSERT INTO notes.kurabe_meta VALUES (1, 'mine')")
		posts := &store.Table{Name: "posts", Columns: []store.Column{{Name: "id", Kind: store.Int}, {Name: "body", Kind: store.Text}}}
		for db, want := range map[string]string{"shop": "posts", "notes": "kurabe_meta"} {
			st, err := openSpec(t, dsn+db, store.Env{})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			err = st.Setup(ctx, []*store.Table{posts})
			if !errors.Is(err, store.ErrNotOwned) || !strings.Contains(err.Error(), db+"."+want+" exists") {
				t.Fatalf("%s: Setup = %v; want ErrNotOwned naming %s.%s", db, err, db, want)
			}
			var tables []string
			rows, err := root.Query("SHOW TABLES IN " + db)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var name string
				rows.Scan(&name)
				tables = append(tables, name)
			}
			rows.Close()
			if len(tables) != 1 || tables[0] != want {
				t.Errorf("%s after the refusal: tables %v, want only the user's %s", db, tables, want)
			}
		}
	})

	// The tester's steps: kurabe ran in appdb, its user then dropped
	// kurabe's crud and made a crud of their own with their data. kurabe
	// still lists crud in kurabe_meta, but refuses the table there as not
	// its own, on every path that would drop, empty or replace it, and
	// the user's row survives. Before, ownership was the name alone, and
	// the next run replaced the user's table without a word. A table of
	// kurabe's that was altered or optimized is still kurabe's.
	t.Run("TableMadeAgainByUser", func(t *testing.T) {
		mustExec(t, root, "CREATE DATABASE appdb")
		st, err := openSpec(t, dsn+"appdb", store.Env{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		crud := &store.Table{Name: "crud", AutoKey: true, Columns: []store.Column{{Name: "id", Kind: store.Int}, {Name: "payload", Kind: store.Text}}}
		if err := st.Setup(ctx, []*store.Table{crud}); err != nil {
			t.Fatal(err)
		}
		mustExec(t, root, "OPTIMIZE TABLE appdb.crud", "ALTER TABLE appdb.crud ADD INDEX by_payload (payload(10))", "ALTER TABLE appdb.crud ENGINE=Aria", "ALTER TABLE appdb.crud ENGINE=InnoDB")
		if err := st.Setup(ctx, []*store.Table{crud}); err != nil {
			t.Fatalf("Setup over kurabe's own table, altered and optimized: %v", err)
		}
		mustExec(t, root, "DROP TABLE appdb.crud", "CREATE TABLE appdb.crud (id INT PRIMARY KEY, important TEXT)", "INSERT INTO appdb.crud VALUES (1, 'keep me')")
		sw := st.(store.Swapper)
		for what, err := range map[string]error{
			"Setup":    st.Setup(ctx, []*store.Table{crud}),
			"Truncate": store.Truncate(ctx, st, crud),
			"Drop":     sw.Drop(ctx, crud),
			"Replace": func() error {
				_, _, err := store.Replace(ctx, st, crud, func(*store.Table) (int64, error) { return 0, nil })
				return err
			}(),
			"BulkLoad": func() error {
				_, err := st.(store.BulkLoader).BulkLoad(ctx, crud, func() (store.Row, bool) { return nil, false })
				return err
			}(),
		} {
			if !errors.Is(err, store.ErrNotOwned) || !strings.Contains(err.Error(), "appdb.crud") || !strings.Contains(err.Error(), "replaced since") || strings.Contains(err.Error(), pw) {
				t.Errorf("%s of the user's table = %v; want ErrNotOwned saying it was replaced since kurabe made it", what, err)
			}
		}
		var important string
		if err := root.QueryRow("SELECT important FROM appdb.crud WHERE id = 1").Scan(&important); err != nil || important != "keep me" {
			t.Fatalf("the user's row: %q, %v", important, err)
		}
		// A staging table the user made again is not swapped in.
		other := &store.Table{Name: "other", AutoKey: true, Columns: crud.Columns}
		staged := store.Staged(other)
		if err := st.Setup(ctx, []*store.Table{staged}); err != nil {
			t.Fatal(err)
		}
		mustExec(t, root, "DROP TABLE appdb.other_new", "CREATE TABLE appdb.other_new (id BIGINT PRIMARY KEY, payload LONGTEXT)", "INSERT INTO appdb.other_new VALUES (7, 'mine')")
		if err := sw.Swap(ctx, staged, other); !errors.Is(err, store.ErrNotOwned) {
			t.Errorf("Swap of a staging table the user made again = %v; want ErrNotOwned", err)
		}
		var n int
		if err := root.QueryRow("SELECT COUNT(*) FROM appdb.other_new").Scan(&n); err != nil || n != 1 {
			t.Errorf("the user's appdb.other_new: %d rows, %v", n, err)
		}
	})

	// Clean drops kurabe's tables and leaves the user's beside them: one
	// kurabe_meta does not list, and one made again under a listed name.
	t.Run("Clean", func(t *testing.T) {
		mustExec(t, root, "CREATE DATABASE cleandb")
		st, err := openSpec(t, dsn+"cleandb", store.Env{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		cols := []store.Column{{Name: "id", Kind: store.Int}, {Name: "payload", Kind: store.Text}}
		if err := st.Setup(ctx, []*store.Table{{Name: "posts", Columns: cols}, {Name: "crud", AutoKey: true, Columns: cols}}); err != nil {
			t.Fatal(err)
		}
		mustExec(t, root, "CREATE TABLE cleandb.users (id INT PRIMARY KEY)", "INSERT INTO cleandb.users VALUES (1)",
			"DROP TABLE cleandb.crud", "CREATE TABLE cleandb.crud (id INT PRIMARY KEY, important TEXT)", "INSERT INTO cleandb.crud VALUES (1, 'keep me')")
		tables := func() string {
			var names []string
			rows, err := root.Query("SHOW TABLES IN cleandb")
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			for rows.Next() {
				var n string
				rows.Scan(&n)
				names = append(names, n)
			}
			return strings.Join(names, ",")
		}
		cl := st.(store.Cleaner)
		for _, c := range []struct {
			dry    bool
			want   string
			tables string
		}{
			{true, "[{cleandb.crud 2} {cleandb.posts 0} {cleandb.kurabe_meta 4}]", "crud,kurabe_meta,posts,users"},
			{false, "[{cleandb.crud 2} {cleandb.posts 0} {cleandb.kurabe_meta 4}]", "crud,kurabe_meta,users"},
		} {
			got, err := cl.Clean(ctx, c.dry)
			if err != nil || fmt.Sprint(got) != c.want || tables() != c.tables {
				t.Fatalf("Clean(dry run %v) = %v, %v, tables %s; want %s, tables %s", c.dry, got, err, tables(), c.want, c.tables)
			}
		}
		mustExec(t, root, "DROP TABLE cleandb.crud")
		got, err := cl.Clean(ctx, false)
		if err != nil || fmt.Sprint(got) != "[{cleandb.crud 1} {cleandb.kurabe_meta 0}]" || tables() != "users" {
			t.Fatalf("Clean after the user dropped their crud = %v, %v, tables %s", got, err, tables())
		}
	})

	// Info reads back the tables this store made, not every table
	// kurabe_meta lists: an earlier run's Aria posts is not this run's.
	// Before, a load run's store line showed posts.engine=Aria.
	t.Run("InfoReadsThisRunsTables", func(t *testing.T) {
		mustExec(t, root, "CREATE DATABASE infodb")
		cols := []store.Column{{Name: "id", Kind: store.Int}, {Name: "payload", Kind: store.Text}}
		earlier, err := openSpec(t, dsn+"infodb?engine=Aria", store.Env{})
		if err != nil {
			t.Fatal(err)
		}
		defer earlier.Close()
		if err := earlier.Setup(ctx, []*store.Table{{Name: "posts", Columns: cols}}); err != nil {
			t.Fatal(err)
		}
		st, err := openSpec(t, dsn+"infodb", store.Env{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if err := st.Setup(ctx, []*store.Table{{Name: "records", Columns: cols}, {Name: "postal", Columns: cols}}); err != nil {
			t.Fatal(err)
		}
		info := st.Info(ctx)
		for k, v := range info.Options {
			if strings.HasPrefix(k, "posts.") || v == "Aria" {
				t.Errorf("Info of this run reads back the earlier run's posts: %s=%s", k, v)
			}
		}
		if info.Options["engine"] != "InnoDB" {
			t.Errorf("engine read back %q, want InnoDB", info.Options["engine"])
		}
	})

	// kurabe_meta as earlier kurabe made it (name, created) gains the token
	// column. Its entries have none: a table no newer than its entry is
	// kurabe's; one made since is refused.
	t.Run("MetaOfEarlierKurabe", func(t *testing.T) {
		mustExec(t, root, "CREATE DATABASE earlier",
			"CREATE TABLE earlier.kurabe_meta (name VARCHAR(64) NOT NULL PRIMARY KEY, created TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP)",
			"CREATE TABLE earlier.old (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, payload LONGTEXT NOT NULL)",
			"INSERT INTO earlier.kurabe_meta VALUES ('old', NOW())",
			"INSERT INTO earlier.kurabe_meta VALUES ('mine', NOW() - INTERVAL 1 HOUR)",
			"CREATE TABLE earlier.mine (id INT PRIMARY KEY, important TEXT)", "INSERT INTO earlier.mine VALUES (1, 'keep me')")
		st, err := openSpec(t, dsn+"earlier", store.Env{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		cols := []store.Column{{Name: "id", Kind: store.Int}, {Name: "payload", Kind: store.Text}}
		if err := st.Setup(ctx, []*store.Table{{Name: "old", AutoKey: true, Columns: cols}}); err != nil {
			t.Fatalf("Setup over an earlier kurabe's table: %v", err)
		}
		var token sql.NullString
		if err := root.QueryRow("SELECT token FROM earlier.kurabe_meta WHERE name = 'old'").Scan(&token); err != nil || !token.Valid {
			t.Fatalf("old's token: %v, %v", token, err)
		}
		err = st.Setup(ctx, []*store.Table{{Name: "mine", AutoKey: true, Columns: cols}})
		if !errors.Is(err, store.ErrNotOwned) || !strings.Contains(err.Error(), "earlier kurabe") {
			t.Fatalf("Setup over a table made since an earlier kurabe listed it = %v; want ErrNotOwned saying why", err)
		}
		var important string
		if err := root.QueryRow("SELECT important FROM earlier.mine WHERE id = 1").Scan(&important); err != nil || important != "keep me" {
			t.Fatalf("the user's row: %q, %v", important, err)
		}
	})

	// A swap whose RENAME TABLE fails (here the server refuses it: the
	// account may not ALTER) leaves kurabe_meta listing only the tables
	// that are there. Before, the first import listed postal before the
	// rename, so kurabe_meta went on claiming a postal that was never
	// made, and a postal the user made later was refused as kurabe's own
	// "replaced since" (and named by kurabe clean); a later import's
	// failed swap left postal_old listed the same way.
	t.Run("FailedRenameListsNothing", func(t *testing.T) {
		npw := "NoAlter-" + randomHex(t)
		mustExec(t, root, "CREATE DATABASE noalter",
			"CREATE USER 'knoalter'@'127.0.0.1' IDENTIFIED BY '"+npw+"'",
			"GRANT CREATE, DROP, INDEX, SELECT, INSERT, UPDATE, DELETE ON noalter.* TO 'knoalter'@'127.0.0.1'")
		limited, err := openSpec(t, "mysql://knoalter:"+npw+"@"+addr+"/noalter", store.Env{})
		if err != nil {
			t.Fatal(err)
		}
		defer limited.Close()
		full, err := openSpec(t, dsn+"noalter", store.Env{})
		if err != nil {
			t.Fatal(err)
		}
		defer full.Close()
		postal := &store.Table{Name: "postal", Columns: []store.Column{{Name: "id", Kind: store.Int}, {Name: "body", Kind: store.Text}}, Indexes: [][]string{{"body"}}}
		load := func(n int) func(into *store.Table) (int64, error) {
			return func(into *store.Table) (int64, error) {
				rows := 0
				return full.(store.BulkLoader).BulkLoad(ctx, into, func() (store.Row, bool) {
					rows++
					return store.Row{{Int: int64(rows)}, {Text: []byte("r")}}, rows <= n
				})
			}
		}
		listed := func() string {
			var names sql.NullString
			if err := root.QueryRow("SELECT GROUP_CONCAT(name ORDER BY name) FROM noalter.kurabe_meta").Scan(&names); err != nil {
				t.Fatal(err)
			}
			return names.String
		}
		// The first import: no postal yet.
		if _, _, err := store.Replace(ctx, limited, postal, load(3)); err == nil || !strings.Contains(err.Error(), "RENAME TABLE") || strings.Contains(err.Error(), npw) {
			t.Fatalf("first import without ALTER = %v; want the RENAME refused", err)
		}
		if got := listed(); got != "" {
			t.Fatalf("after the failed first swap kurabe_meta lists %q, want nothing (no table of kurabe's is there)", got)
		}
		mustExec(t, root, "CREATE TABLE noalter.postal (id INT PRIMARY KEY, note TEXT)", "INSERT INTO noalter.postal VALUES (1, 'keep me')")
		if err := limited.Setup(ctx, []*store.Table{postal}); !errors.Is(err, store.ErrNotOwned) || !strings.Contains(err.Error(), "it is not in noalter.kurabe_meta") {
			t.Fatalf("Setup over the user's postal made after the failed swap = %v; want it refused as a table kurabe_meta does not list", err)
		}
		mustExec(t, root, "DROP TABLE noalter.postal")
		// A later import: postal is there, kurabe's, and stays as it was.
		if _, _, err := store.Replace(ctx, full, postal, load(5)); err != nil {
			t.Fatal(err)
		}
		if _, _, err := store.Replace(ctx, limited, postal, load(3)); err == nil || !strings.Contains(err.Error(), "RENAME TABLE") {
			t.Fatalf("second import without ALTER = %v; want the RENAME refused", err)
		}
		if got := listed(); got != "postal" {
			t.Errorf("after the failed second swap kurabe_meta lists %q, want postal alone", got)
		}
		if n, err := full.Count(ctx, postal); err != nil || n != 5 {
			t.Errorf("postal after the failed swap: %d rows, %v; want the 5 it held", n, err)
		}
		if _, _, err := store.Replace(ctx, full, postal, load(4)); err != nil {
			t.Fatalf("an import after the failed one: %v", err)
		}
	})

	// A user who may read and write a database but not create tables in
	// it is told what to grant, not only that CREATE was denied.
	t.Run("DeniedSaysWhatToGrant", func(t *testing.T) {
		lpw := "Lim-" + randomHex(t)
		mustExec(t, root, "CREATE DATABASE limited",
			"CREATE USER 'klimited'@'127.0.0.1' IDENTIFIED BY '"+lpw+"'",
			"GRANT SELECT, INSERT, UPDATE, DELETE ON limited.* TO 'klimited'@'127.0.0.1'")
		st, err := openSpec(t, "mysql://klimited:"+lpw+"@"+addr+"/limited", store.Env{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		posts := &store.Table{Name: "posts", Columns: []store.Column{{Name: "id", Kind: store.Int}, {Name: "body", Kind: store.Text}}}
		err = st.Setup(ctx, []*store.Table{posts})
		if err == nil || !strings.Contains(err.Error(), "GRANT ALL ON `limited`.* TO 'klimited'@'127.0.0.1'") || strings.Contains(err.Error(), lpw) {
			t.Fatalf("Setup without CREATE = %v; want the GRANT that lets kurabe make its tables", err)
		}
	})

	// An account with no grant on the database the URL names, which is
	// there (appdb2), is told the GRANT to run, not only to create it: the
	// server answers it as for a database that is not there (1044 to
	// CREATE DATABASE, USE and the rest), so the message says what to do
	// for either. Before, it said "cannot create database appdb2" and
	// to create it, for a database that existed.
	t.Run("DatabaseWithoutGrantSaysWhatToGrant", func(t *testing.T) {
		apw := "App-" + randomHex(t)
		mustExec(t, root, "CREATE DATABASE appdb1", "CREATE DATABASE appdb2",
			"CREATE USER 'kapp'@'127.0.0.1' IDENTIFIED BY '"+apw+"'",
			"GRANT ALL ON appdb1.* TO 'kapp'@'127.0.0.1'")
		for _, c := range []struct{ database, what string }{
			{"appdb2", "there"},
			{"appdb3", "not there"},
		} {
			st, err := openSpec(t, "mysql://kapp:"+apw+"@"+addr+"/"+c.database, store.Env{})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			err = st.Setup(ctx, []*store.Table{{Name: "posts", Columns: []store.Column{{Name: "id", Kind: store.Int}}}})
			for _, want := range []string{
				"GRANT ALL ON `" + c.database + "`.* TO 'kapp'@'127.0.0.1'",
				"CREATE DATABASE `" + c.database + "` CHARACTER SET utf8mb4",
				"does not say whether it exists",
				"(the account has: appdb1)",
			} {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("database %s (%s), no grant on it: Setup = %v; want it to say %q", c.database, c.what, err, want)
				}
			}
			if err != nil && strings.Contains(err.Error(), apw) {
				t.Errorf("the error shows the password: %v", err)
			}
		}
		mustExec(t, root, "GRANT ALL ON appdb2.* TO 'kapp'@'127.0.0.1'")
		st, err := openSpec(t, "mysql://kapp:"+apw+"@"+addr+"/appdb2", store.Env{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if err := st.Setup(ctx, []*store.Table{{Name: "posts", Columns: []store.Column{{Name: "id", Kind: store.Int}}}}); err != nil {
			t.Fatalf("after the GRANT the message gave: %v", err)
		}
	})

	// A --vary run on a server you run sets the tables up anew for each
	// variant, dropping the earlier variant's: a variant whose table the
	// server then refuses to make (encrypted=1 without a key plugin)
	// leaves kurabe_meta listing no table that is not there, and says it
	// dropped the earlier one. Before, kurabe_meta went on listing it.
	t.Run("FailedRemakeListsNothing", func(t *testing.T) {
		spec := dsn + "?database=kt_remake"
		plain, err := openSpec(t, spec, store.Env{})
		if err != nil {
			t.Fatal(err)
		}
		defer plain.Close()
		tb := storetest.Table()
		if err := plain.Setup(ctx, []*store.Table{tb}); err != nil {
			t.Fatal(err)
		}
		encrypted, err := openSpec(t, spec+"&encrypted=1", store.Env{})
		if err != nil {
			t.Fatal(err)
		}
		defer encrypted.Close()
		err = encrypted.Setup(ctx, []*store.Table{tb})
		if err == nil {
			t.Fatal("encrypted=1 without a key plugin: Setup succeeded; the test needs a create option the server refuses")
		}
		if !strings.Contains(err.Error(), "setting up dropped kurabe's earlier table `kt_remake`.`conformance` first") || !strings.Contains(err.Error(), "--vary variant") {
			t.Errorf("encrypted=1 without a key plugin, over an earlier variant's table: %v; want it refused, saying the earlier table was dropped", err)
		}
		var listed, there int
		if err := root.QueryRow("SELECT COUNT(*) FROM kt_remake.kurabe_meta WHERE name = 'conformance'").Scan(&listed); err != nil {
			t.Fatal(err)
		}
		if err := root.QueryRow("SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'kt_remake' AND TABLE_NAME = 'conformance'").Scan(&there); err != nil {
			t.Fatal(err)
		}
		if there != 0 || listed != 0 {
			t.Fatalf("after the failed remake: the table is there %d times and kurabe_meta lists it %d times; want neither", there, listed)
		}
		// A table of the user's by the name is then the user's.
		mustExec(t, root, "CREATE TABLE kt_remake.conformance (id INT PRIMARY KEY)")
		if err := plain.Setup(ctx, []*store.Table{tb}); !errors.Is(err, store.ErrNotOwned) {
			t.Fatalf("Setup over the user's table made after the failed remake: %v; want it refused", err)
		}
		mustExec(t, root, "DROP TABLE kt_remake.conformance")
		if err := plain.Setup(ctx, []*store.Table{tb}); err != nil {
			t.Fatal(err)
		}
		if err := root.QueryRow("SELECT COUNT(*) FROM kt_remake.kurabe_meta WHERE name = 'conformance'").Scan(&listed); err != nil || listed != 1 {
			t.Fatalf("after a Setup that made it: kurabe_meta lists it %d times (%v), want once", listed, err)
		}
	})

	// A store whose tables could not be made (the server refused their
	// create options) has no table to read its table options back from:
	// Info gives them as given, marked so, never as if read back. Before,
	// the row format asked showed as read back (row_format COMPRESSED).
	t.Run("FailedSetupReadsNoTableOptions", func(t *testing.T) {
		st := open(t, "&page_compressed=1&row_format=Compressed")
		if err := st.Setup(ctx, []*store.Table{storetest.Table()}); err == nil {
			t.Fatal("Setup with page_compressed=1 and row_format=Compressed succeeded; the test needs options the server refuses")
		}
		info := st.Info(ctx)
		for name, want := range map[string]string{"row_format": "Compressed (given; not read back)", "page_compressed": "1 (given; not read back)", "engine": ""} {
			if got := info.Options[name]; got != want {
				t.Errorf("Info.Options[%s] = %q, want %q", name, got, want)
			}
		}
		if info.Version == "" {
			t.Errorf("the server was reached, and its version not read: %+v", info)
		}
	})

	t.Run("ConnectTime", func(t *testing.T) {
		st := open(t, "&connect=per-op")
		tb := storetest.Table()
		if err := st.Setup(ctx, []*store.Table{tb}); err != nil {
			t.Fatal(err)
		}
		s, err := st.Open(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		ct, ok := s.(store.ConnectTimer)
		if !ok {
			t.Fatal("a connect=per-op session is not a store.ConnectTimer")
		}
		if err := s.Insert(ctx, tb, store.Row{{}, {Int: 1}, {Text: []byte("x")}}); err != nil || ct.ConnectTime() <= 0 {
			t.Fatalf("after Insert: ConnectTime = %v (%v), want > 0", ct.ConnectTime(), err)
		}
		if _, err := s.Scan(ctx, tb, store.Query{}, func(store.Row) error { return nil }); err != nil || ct.ConnectTime() <= 0 {
			t.Fatalf("after Scan: ConnectTime = %v (%v), want > 0", ct.ConnectTime(), err)
		}
		s2, err := open(t, "").Open(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer s2.Close()
		if _, ok := s2.(store.ConnectTimer); ok {
			t.Fatal("a connect=session session claims to connect per operation")
		}
	})

	// A statement blocked in the server returns when its context ends,
	// with the context's class, on either driver; a new session works.
	// A session serves one request's context after another, as kurabe
	// serve's pool does, each cancelled when its request ends (its watch
	// firing while the next request runs): the late cancellation must not
	// break the next request.
	t.Run("LateCancellationIsHarmless", func(t *testing.T) {
		st := open(t, "&driver=wire")
		if err := st.Setup(ctx, []*store.Table{storetest.Table()}); err != nil {
			t.Fatal(err)
		}
		s, err := st.Open(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		sq := s.(store.SQLSession)
		for i := range 300 {
			rctx, cancel := context.WithCancel(ctx)
			var got int64
			if n, _, err := sq.Query(rctx, "SELECT 41 + ?", []any{int64(1)}, func(first int64) { got = first }); err != nil || n != 1 || got != 42 {
				t.Fatalf("request %d: %d rows, %d, %v", i, n, got, err)
			}
			cancel()
		}
	})

	t.Run("Interrupt", func(t *testing.T) {
		for _, driver := range []string{"wire", "sql"} {
			st := open(t, "&driver="+driver)
			if err := st.Setup(ctx, []*store.Table{storetest.Table()}); err != nil {
				t.Fatal(err)
			}
			s, err := st.Open(ctx)
			if err != nil {
				t.Fatal(err)
			}
			sq := s.(store.SQLSession)
			qctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
			start := time.Now()
			_, _, err = sq.Query(qctx, "SELECT SLEEP(20)", nil, nil)
			cancel()
			if took := time.Since(start); err == nil || store.Classify(err) != "timeout" || took > 5*time.Second {
				t.Errorf("driver=%s: SELECT SLEEP(20) with a deadline of 300ms: %v (class %q) after %v, want a timeout within a few seconds",
					driver, err, store.Classify(err), took)
			}
			s.Close()
			s, err = st.Open(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var got int64
			if n, _, err := s.(store.SQLSession).Query(ctx, "SELECT 41 + ?", []any{int64(1)}, func(first int64) { got = first }); err != nil || n != 1 || got != 42 {
				t.Errorf("driver=%s: after an interrupted session, a new one read %d rows, %d (%v), want 1 row, 42", driver, n, got, err)
			}
			s.Close()
		}
	})

	t.Run("ErrorClasses", func(t *testing.T) {
		st := open(t, "")
		tb := storetest.Table()
		if err := st.Setup(ctx, []*store.Table{tb}); err != nil {
			t.Fatal(err)
		}
		// MariaDB copies InnoDB's session settings from the global ones when
		// a session first uses them.
		mustExec(t, root, "SET GLOBAL innodb_lock_wait_timeout = 1")
		defer mustExec(t, root, "SET GLOBAL innodb_lock_wait_timeout = DEFAULT")
		s, err := st.Open(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		// A reader holding the end of the table blocks inserts.
		lock, err := root.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer lock.Rollback()
		if _, err := lock.Exec("SELECT * FROM " + st.(*Store).qualified(tb.Name) + " FOR UPDATE"); err != nil {
			t.Fatal(err)
		}
		err = s.Insert(ctx, tb, store.Row{{}, {Int: 1}, {Text: []byte("x")}})
		if store.Classify(err) != "lock-timeout" {
			t.Errorf("blocked insert: class %q (%v), want lock-timeout", store.Classify(err), err)
		}
		missing := &store.Table{ID: 1, Name: "never_set_up", Columns: tb.Columns}
		_, err = s.Scan(ctx, missing, store.Query{}, func(store.Row) error { return nil })
		if store.Classify(err) != "mysql:1146" {
			t.Errorf("scan of a missing table: class %q (%v), want mysql:1146", store.Classify(err), err)
		}
	})

	t.Run("EncryptedNeedsPluginOnExternal", func(t *testing.T) {
		st := open(t, "&encrypted=1")
		err := st.Setup(ctx, []*store.Table{storetest.Table()})
		if err == nil || !strings.Contains(err.Error(), "file_key_management") {
			t.Fatalf("encrypted=1 on a server without a key plugin: %v; want an error naming what the server needs", err)
		}
	})

	// A password given in the address shows in no error and not in Info.
	t.Run("Credentials", func(t *testing.T) {
		check := func(what string, err error) {
			t.Helper()
			if err == nil {
				t.Errorf("%s: no error", what)
				return
			}
			if strings.Contains(err.Error(), pw) {
				t.Errorf("%s: error shows the password: %v", what, err)
			}
		}
		st, err := openSpec(t, dsn+"?database=kt_cred", store.Env{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		tb := storetest.Table()
		if err := st.Setup(ctx, []*store.Table{tb}); err != nil {
			t.Fatal(err)
		}
		info, _ := json.Marshal(st.Info(ctx))
		if bytes.Contains(info, []byte(pw)) || !bytes.Contains(info, []byte("xxxxx")) {
			t.Errorf("Info shows the password, or hides it silently: %s", info)
		}
		s, err := st.Open(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		_, err = s.Scan(ctx, &store.Table{ID: 1, Name: "missing", Columns: tb.Columns}, store.Query{}, func(store.Row) error { return nil })
		check("scan of a missing table", err)

		wrong := "Wrong" + pw
		bad, err := openSpec(t, "mysql://tester:"+wrong+"@"+addr+"/x", store.Env{})
		if err != nil {
			t.Fatal(err)
		}
		err = bad.Setup(ctx, nil)
		check("wrong password", err)
		if err != nil && strings.Contains(err.Error(), wrong) || store.Classify(err) != "connect" {
			t.Errorf("wrong password: %v (class %q), want class connect without the password", err, store.Classify(err))
		}
		bad.Close()

		l, _ := net.Listen("tcp", "127.0.0.1:0")
		closed := l.Addr().String()
		l.Close()
		bad, err = openSpec(t, "mysql://tester:"+pw+"@"+closed+"/x", store.Env{})
		if err != nil {
			t.Fatal(err)
		}
		err = bad.Setup(ctx, nil)
		check("no server", err)
		if store.Classify(err) != "connect" {
			t.Errorf("no server: class %q, want connect", store.Classify(err))
		}
		_, err = bad.Open(ctx)
		check("session with no server", err)
		_, err = bad.Count(ctx, tb)
		check("count with no server", err)
		info, _ = json.Marshal(bad.Info(ctx))
		if bytes.Contains(info, []byte(pw)) {
			t.Errorf("Info of an unreachable server shows the password: %s", info)
		}
		bad.Close()

		_, err = openSpec(t, "mysql://tester:"+pw+"@127.0.0.1:notaport/x", store.Env{})
		check("bad address", err)

		// MYSQL_PWD stands in for a password the address leaves out.
		t.Setenv("MYSQL_PWD", pw)
		env, err := openSpec(t, "mysql://tester@"+addr+"/?database=kt_cred", store.Env{})
		if err != nil {
			t.Fatal(err)
		}
		defer env.Close()
		if err := env.Setup(ctx, []*store.Table{tb}); err != nil {
			t.Fatalf("with MYSQL_PWD: %v", err)
		}
	})
}

// The page size is fixed when the data directory is made; it must reach
// mariadb-install-db and be read back as the server has it.
func TestManagedPageSize(t *testing.T) {
	for _, c := range []struct{ given, want string }{{"4k", "4096"}, {"16k", "16384"}} {
		t.Run(c.given, func(t *testing.T) {
			t.Parallel()
			st := startManaged(t, "?innodb_page_size="+c.given)
			info := st.Info(context.Background())
			if got := info.Options["innodb_page_size"]; got != c.want {
				t.Fatalf("innodb_page_size=%s read back as %q, want %s (Info %+v)", c.given, got, c.want, info)
			}
		})
	}
}

func TestManagedEncryptedCompressed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := startManaged(t, "?encrypted=1&page_compressed=1")
	tb := storetest.Table()
	if err := st.Setup(ctx, []*store.Table{tb}); err != nil {
		t.Fatal(err)
	}
	s, err := st.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var rows []store.Row
	for i := range 200 {
		rows = append(rows, store.Row{{}, {Int: int64(i)}, {Text: []byte(strings.Repeat("暗号 ", i))}})
	}
	if err := store.InsertBatch(ctx, s, tb, rows); err != nil {
		t.Fatal(err)
	}
	i := 0
	if _, err := s.Scan(ctx, tb, store.Query{}, func(r store.Row) error {
		if r[1].Int != int64(i) || !bytes.Equal(r[2].Text, rows[i][2].Text) {
			return fmt.Errorf("row %d read back as %d, %q", i, r[1].Int, r[2].Text)
		}
		i++
		return nil
	}); err != nil || i != len(rows) {
		t.Fatalf("read back %d of %d rows: %v", i, len(rows), err)
	}
	info := st.Info(ctx)
	t.Logf("Info: %+v", info)
	opts := strings.ToLower(info.Options["conformance.create_options"])
	if !strings.Contains(opts, "page_compressed") || !strings.Contains(opts, "encrypted") || info.Options["innodb_compression_algorithm"] == "" {
		t.Fatalf("create options read back as %q, compression %q; want page_compressed and encrypted", opts, info.Options["innodb_compression_algorithm"])
	}
	// The server itself says the tablespace is encrypted with the key.
	var scheme, key int
	err = rootDB(t, st).QueryRow("SELECT ENCRYPTION_SCHEME, CURRENT_KEY_ID FROM information_schema.INNODB_TABLESPACES_ENCRYPTION WHERE NAME = 'kurabe/conformance'").Scan(&scheme, &key)
	if err != nil || scheme != 1 || key != 1 {
		t.Fatalf("tablespace encryption: scheme %d key %d (%v), want 1 and 1", scheme, key, err)
	}
}

// A setting the server does not have (PostgreSQL's, a misspelling) is
// refused when the store is opened, before a data directory or a server
// is made for it, as the server's own option parser judges it; settings
// it has, in any spelling, a plugin's that encrypted=1 loads, and loose_
// ones are not.
func TestManagedSettingNamesAskedOfTheServer(t *testing.T) {
	for _, c := range []struct {
		spec string
		want string // in the error; "" for none
	}{
		{"mariadb:managed?shared_buffers=32MB", `unknown option "shared_buffers"`},
		{"mariadb:managed?innodb_buffer_pool_size=64M&wal_level=minimal", "--help --verbose says it has no wal_level"},
		{"mysql:managed?innodb-bogus-setting", `unknown option "innodb-bogus-setting"`},
		{"mariadb:managed?Innodb-Buffer-Pool-Size=64M&innodb_page_size=8k&loose_no_such=1&skip_name_resolve=0&local_infile=0", ""},
		{"mariadb:managed?encrypted=1&file_key_management_encryption_algorithm=aes_ctr", ""},
	} {
		dir := serverDir(t)
		st, err := openSpec(t, c.spec, store.Env{Dir: dir})
		if errors.Is(err, server.ErrMissing) {
			storetest.RequireServer(t, err)
		}
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.spec, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: error %v, want one saying %q", c.spec, err, c.want)
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
func TestManagedBogusSetting(t *testing.T) {
	t.Parallel()
	st, err := openSpec(t, "mariadb:managed?character_set_server=no_such_charset", store.Env{Dir: serverDir(t)})
	storetest.RequireServer(t, err)
	defer st.Close()
	err = st.Setup(context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), "no_such_charset") {
		t.Fatalf("Setup with a bogus setting: %v; want the server's complaint quoted", err)
	}
	t.Logf("the complaint, as the user sees it:\n%v", err)
	if again := st.Setup(context.Background(), nil); again == nil {
		t.Fatal("a second Setup after a failed start succeeded")
	}
}

// mysql:managed runs mysqld (here MariaDB under that name) and stops it at
// Close, freeing its port.
func TestManagedCloseStopsServer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := startManagedAs(t, "mysql", "")
	if d := st.Info(ctx).Driver; d != "mysql" {
		t.Errorf("Info.Driver = %q, want mysql as given", d)
	}
	addr := managedAddr(t, st)
	pid := st.m.proc.Pid()
	if err := st.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("server %d still there after Close (%v)", pid, err)
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("port %s not free after Close: %v", addr, err)
	}
	l.Close()
	if err := st.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	info := st.Info(ctx) // must not panic
	if info.Facts["error"] == "" {
		t.Errorf("Info after Close reports no error: %+v", info)
	}
	if _, err := st.Open(ctx); err == nil {
		t.Error("Open after Close succeeded")
	}
}

// Open validates options and connects to nothing.
func TestOpenValidates(t *testing.T) {
	for _, c := range []struct {
		spec string
		want string // in the error; empty for success
	}{
		{"mysql://u@127.0.0.1:1/x", ""},                               // nothing listens: Open does not connect
		{"mariadb://u@127.0.0.1:1/x?engine=aria&row_format=page", ""}, // case does not matter
		{"mysql://u@127.0.0.1:1/x?engine=MEMORY", "InnoDB, MyISAM or Aria"},
		{"mysql://u@127.0.0.1:1/x?row_format=sideways", "DYNAMIC"},
		{"mysql://u@127.0.0.1:1/x?page_compressed=2", "0 or 1"},
		{"mysql://u@127.0.0.1:1/x?engine=MyISAM&encrypted=1", "InnoDB table option"},
		{"mysql://u@127.0.0.1:1/x?connect=sometimes", "per-op"},
		{"mysql://u@127.0.0.1:1/x?connect=PER-OP&driver=SQL", ""}, // keywords in any case, as the command line reads them
		{"mysql://u@127.0.0.1:1/x?pool_size=3", "connect=pool only"},
		{"mysql://u@127.0.0.1:1/x?connect=pool&pool_size=0", "1 or more"},
		{"mysql://u@127.0.0.1:1/?database=a-b", "letters, digits"},
		{"mysql://u@127.0.0.1:1/a-b", "in the address's path"},
		{"mysql://u@127.0.0.1:1/x?database=y", "names database x and the option database=y"},
		{"mysql://u@127.0.0.1:1/x?database=x", ""},
		{"mysql://u@127.0.0.1:1/x?driver=sql", ""},
		{"mysql://u@127.0.0.1:1/x?driver=pgx", "wire"},
		{"mysql://u@127.0.0.1:1/x?connect=pool&driver=wire", "connect=session only"},
		{"mysql://u@127.0.0.1:1/x?innodb_page_size=4k", "unknown option"}, // a server setting is no option for an external server
		{"mysql://127.0.0.1:1/x", "no user"},
		{"mysql:/var/run/mysqld.sock", "managed"},
		{"mariadb:managed?innodb_page_size=3k", "4k, 8k, 16k"}, // the server would run 4096
		{"mariadb:managed?innodb-page-size=16", "4k, 8k, 16k"},
		{"mariadb:managed?port=3306", "kurabe's to set"},
		{"mariadb:managed?bind-address=0.0.0.0", "kurabe's to set"},
		// kurabe's sessions connect over TCP, and its account is made in
		// the grant tables: the server would start and turn them away.
		{"mariadb:managed?skip_networking=1", "server setting skip_networking is kurabe's to set"},
		{"mariadb:managed?skip-networking", "server setting skip-networking is kurabe's to set"},
		{"mariadb:managed?loose-skip-networking=ON", "kurabe's to set"},
		{"mariadb:managed?enable-skip-networking", "kurabe's to set"},
		{"mariadb:managed?skip_grant_tables=1", "kurabe's to set"},
		{"mysql:managed?mysqlx_port=33060", "kurabe's to set"},
		{"mariadb:managed?Skip_Port", "kurabe's to set"},
	} {
		_, err := openSpec(t, c.spec, store.Env{Dir: t.TempDir()})
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.spec, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: error %v, want one saying %q", c.spec, err, c.want)
		}
	}
}

// The database in an address's path is where kurabe keeps its tables,
// as ?database= says; without either it is kurabe.
func TestAddressDatabase(t *testing.T) {
	for spec, want := range map[string]string{
		"mariadb://u@127.0.0.1:1/appdb":           "appdb",
		"mariadb://u@127.0.0.1:1/?database=appdb": "appdb",
		"mariadb://u@127.0.0.1:1":                 "kurabe",
		"mariadb://u@127.0.0.1:1/":                "kurabe",
	} {
		st, err := openSpec(t, spec, store.Env{Dir: t.TempDir()})
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if got := st.(*Store).opts.database; got != want {
			t.Errorf("%s: tables in database %q, want %q", spec, got, want)
		}
	}
}

func TestClassify(t *testing.T) {
	for _, c := range []struct {
		err        error
		connecting bool
		want       string
	}{
		{&mysql.MySQLError{Number: 1040}, true, "too-many-connections"}, // max_connections reached
		{&mysql.MySQLError{Number: 1213}, false, "deadlock"},
		{&mysql.MySQLError{Number: 1205}, false, "lock-timeout"},
		{&mysql.MySQLError{Number: 1062}, false, "mysql:1062"}, // duplicate key
		{&mysql.MySQLError{Number: 1045}, true, "connect"},     // access denied while connecting
		// A connection lost mid-operation: its outcome is unknown.
		{fmt.Errorf("x: %w", mysql.ErrInvalidConn), false, "connection-lost"},
		{io.ErrUnexpectedEOF, false, "connection-lost"},
		{&net.OpError{Op: "read", Err: syscall.ECONNRESET}, false, "connection-lost"},
		{&mysql.MySQLError{Number: 1927}, false, "connection-lost"}, // KILL
		{&mysql.MySQLError{Number: 1053}, false, "connection-lost"}, // shutdown
		{&mysql.MySQLError{Number: 1927}, true, "connect"},
		// No connection to send on: the request never left.
		{&net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, false, "connect"},
		{fmt.Errorf("x: %w", driver.ErrBadConn), false, "connect"},
		{io.EOF, true, "connect"},
		{fmt.Errorf("x: %w", context.DeadlineExceeded), false, "timeout"},
		{errors.New("something else"), false, "error"},
	} {
		if got := store.Classify(classify(c.err, c.connecting)); got != c.want {
			t.Errorf("classify(%v, %v) = %q, want %q", c.err, c.connecting, got, c.want)
		}
	}
}

// Should the password ever reach an error's text, it is replaced and the
// error keeps its class and sentinel.
func TestScrub(t *testing.T) {
	err := scrub(&store.ClassError{Class: "connect", Err: fmt.Errorf("dial tester:s3cret@tcp: %w", store.ErrNotOwned)}, hidden{pw: "s3cret"})
	if strings.Contains(err.Error(), "s3cret") || store.Classify(err) != "connect" || !errors.Is(err, store.ErrNotOwned) {
		t.Fatalf("scrub: %v (class %q)", err, store.Classify(err))
	}
	plain := errors.New("no secret here")
	if scrub(plain, hidden{pw: "s3cret"}) != plain {
		t.Fatal("scrub changed an error without the secret")
	}
}

// KURABE_TEST_MYSQL=mysql://user:pass@host:port/db[?options] runs the suite
// against a server of your own too.
func TestExternalServer(t *testing.T) {
	spec := os.Getenv("KURABE_TEST_MYSQL")
	if spec == "" {
		t.Skip("KURABE_TEST_MYSQL not set")
	}
	storetest.Run(t, func(t *testing.T) store.Store {
		st, err := openSpec(t, spec, store.Env{})
		if err != nil {
			t.Fatal(err)
		}
		return st
	})
}

// BenchmarkScan reads 20 rows on a session's own connection: the latest,
// and after From and Offset.
func BenchmarkScan(b *testing.B) {
	ctx := context.Background()
	st := startManaged(b, "")
	tb := storetest.Table()
	if err := st.Setup(ctx, []*store.Table{tb}); err != nil {
		b.Fatal(err)
	}
	s, err := st.Open(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var rows []store.Row
	for i := range 1000 {
		rows = append(rows, store.Row{{}, {Int: int64(i)}, {Text: []byte("a post of some length, " + strconv.Itoa(i))}})
	}
	if err := store.InsertBatch(ctx, s, tb, rows); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		q    store.Query
	}{
		{"latest", store.Query{Desc: true, Limit: 20}},
		{"from+offset", store.Query{HasFrom: true, From: 300, Offset: 300, Limit: 20}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Scan(ctx, tb, c.q, func(store.Row) error { return nil }); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A server that cannot be reached: the address is shown with the scheme
// given (mariadb://, not mysql://) and the password hidden, and of the
// table options only those given, marked as not read back; before, the
// defaults (engine=InnoDB, row_format=(engine default), …) were listed
// as if the server had them.
func TestUnreachableServerSaysWhatItDidNotRead(t *testing.T) {
	for _, scheme := range []string{"mariadb", "mysql"} {
		st, err := openSpec(t, scheme+"://app:pwSECRET@127.0.0.1:1/appdb?engine=MyISAM", store.Env{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		err = st.Setup(context.Background(), nil)
		want := scheme + "://app:xxxxx@127.0.0.1:1/appdb"
		if err == nil || !strings.Contains(err.Error(), "cannot connect to "+want) || strings.Contains(err.Error(), "SECRET") {
			t.Errorf("%s: Setup error %v, want one naming %s", scheme, err, want)
		}
		info := st.Info(context.Background())
		if info.Target != want {
			t.Errorf("target %q, want %q", info.Target, want)
		}
		o := info.Options
		if o["engine"] != "MyISAM (given; not read back)" || o["connect"] != "session" {
			t.Errorf("%s: options %v, want engine=MyISAM marked as not read back and connect=session", scheme, o)
		}
		for _, name := range []string{"row_format", "page_compressed", "encrypted"} {
			if v, ok := o[name]; ok {
				t.Errorf("%s: %s=%s shown, though neither given nor read back", scheme, name, v)
			}
		}
	}
}

// A password that is also a word of the message is hidden in the
// address's password field, and elsewhere only where it stands as a word
// that is neither kurabe's (mariadb, mysql) nor the address's user, host
// or database: the message is not garbled ("cannot cxxxxxnect" for "on").
func TestPasswordThatIsAWord(t *testing.T) {
	for _, pw := range []string{"mariadb", "on", "kurabe", "secret123", "app", "tcp"} {
		st, err := openSpec(t, "mariadb://app:"+pw+"@127.0.0.1:1/appdb", store.Env{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		// Nothing listens on port 1: a real dial, refused.
		err = st.Setup(context.Background(), nil)
		if err == nil {
			t.Fatalf("%s: Setup on a closed port succeeded", pw)
		}
		msg := err.Error()
		if want := "mariadb: cannot connect to mariadb://app:xxxxx@127.0.0.1:1/appdb: "; !strings.HasPrefix(msg, want) || !strings.Contains(msg, "connection refused") || strings.Count(msg, "xxxxx") != 1 {
			t.Errorf("%s: error %q: want it to begin %q and say the connection was refused, ungarbled", pw, msg, want)
		}
		// A server's message that echoes the password.
		echoed := scrub(&store.ClassError{Class: "connect", Err: fmt.Errorf("password '%s' for 'app' refused on connection", pw)}, st.(*Store).secret)
		for _, text := range []string{msg, echoed.Error()} {
			for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !(r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)) }) {
				if w == pw && !redact.Kept(w, "app", "127.0.0.1", "appdb") {
					t.Errorf("%q shows the password %q", text, pw)
				}
			}
		}
		if store.Classify(echoed) != "connect" {
			t.Errorf("%s: class %q", pw, store.Classify(echoed))
		}
	}
}

// The tables' size is their true size, not InnoDB's statistics as they
// were when the table was made: before, 30,000 rows just written read as
// tables_size_bytes 16384, one page, in every variant of a matrix.
func TestManagedTableSizesAreTrue(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := startManaged(t, "?innodb_page_size=4k")
	tb := storetest.Table()
	if err := st.Setup(ctx, []*store.Table{tb}); err != nil {
		t.Fatal(err)
	}
	s, err := st.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const n, body = 30000, 80
	for chunk := 0; chunk < n; chunk += 1000 {
		var rows []store.Row
		for i := chunk; i < chunk+1000; i++ {
			rows = append(rows, store.Row{{}, {Int: int64(i)}, {Text: []byte(fmt.Sprintf("%0*d", body, i))}})
		}
		if err := store.InsertBatch(ctx, s, tb, rows); err != nil {
			t.Fatal(err)
		}
	}
	info := st.Info(ctx)
	size, err := strconv.ParseInt(info.Facts["tables_size_bytes"], 10, 64)
	if err != nil {
		t.Fatalf("tables_size_bytes %q: %v (Info %+v)", info.Facts["tables_size_bytes"], err, info)
	}
	// The rows' bodies alone take n*body bytes; a page is 4096.
	if size < n*body || info.Facts["tables_size_note"] != "" {
		t.Fatalf("tables_size_bytes = %d after %d rows of %d bytes, want at least %d (note %q)", size, n, body, n*body, info.Facts["tables_size_note"])
	}
	// Only kurabe's tables are analysed: another table in the database
	// keeps its statistics as they were (none recalculated in the
	// background, STATS_AUTO_RECALC=0).
	root := rootDB(t, st)
	mustExec(t, root, "CREATE TABLE kurabe.notmine (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB STATS_AUTO_RECALC=0",
		"INSERT INTO kurabe.notmine SELECT seq, REPEAT('x', 100) FROM kurabe.seq_1_to_20000")
	st.Info(ctx)
	var length int64
	if err := root.QueryRow("SELECT DATA_LENGTH FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'kurabe' AND TABLE_NAME = 'notmine'").Scan(&length); err != nil || length >= 20000*100 {
		t.Errorf("another table's DATA_LENGTH %d (%v), want its stale statistics: kurabe analysed a table it did not create", length, err)
	}
}

// TestConnectTimeout: a port that accepts connections but never greets
// (a stopped server, another kind of server's port) fails the connect
// after connect_timeout, saying so, instead of holding it for ever; for
// the store's start and, with the server stopped after it, for a
// session's connection on either driver.
func TestConnectTimeout(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		var held []net.Conn
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	addr := l.Addr().String()
	check := func(t *testing.T, err error, addr string) {
		t.Helper()
		if err == nil {
			t.Fatal("connecting to a server that never greets succeeded")
		}
		want := "the server at " + addr + " did not answer within 1s (connect_timeout=1;"
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q\nwant it to say %q", err, want)
		}
		if got := store.Classify(err); got != "connect" {
			t.Errorf("class %q, want connect", got)
		}
	}
	t.Run("silent port", func(t *testing.T) {
		st, err := openSpec(t, "mysql://u@"+addr+"/?connect_timeout=1", store.Env{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		check(t, st.Setup(context.Background(), []*store.Table{storetest.Table()}), addr)
	})
	for _, driver := range []string{"wire", "sql"} {
		t.Run("stopped server, driver="+driver, func(t *testing.T) {
			st := startManaged(t, "?connect_timeout=1&driver="+driver)
			pid := st.m.proc.Pid()
			if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
				t.Fatal(err)
			}
			defer syscall.Kill(pid, syscall.SIGCONT)
			s, err := st.Open(context.Background())
			if err == nil {
				s.Close()
			}
			check(t, err, managedAddr(t, st))
		})
	}
	if _, err := openSpec(t, "mysql://u@"+addr+"/?connect_timeout=0", store.Env{}); err == nil || !strings.Contains(err.Error(), "connect_timeout") {
		t.Errorf("connect_timeout=0: error %v, want it refused", err)
	}
}
