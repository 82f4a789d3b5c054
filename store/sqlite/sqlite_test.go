package sqlite

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ncruces/go-sqlite3"

	"kurabe/store"
	"kurabe/store/storetest"
)

func open(t *testing.T, spec string) store.Store {
	t.Helper()
	sp, err := store.ParseSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	st, err := Open(context.Background(), sp, store.Env{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestConformance(t *testing.T) {
	// A long busy timeout: the suite's 16 concurrent writers in rollback-
	// journal mode queue for the lock, and on a loaded machine a writer
	// can wait longer than the default 5 s. The suite checks that nothing
	// is lost, not how long the lock takes.
	for _, spec := range []string{"sqlite:?busy_timeout=60000", "sqlite:?journal_mode=wal&synchronous=normal", "sqlite:?page_size=1024&cache_size=-512&busy_timeout=60000", "sqlite:?connect=per-op&busy_timeout=60000"} {
		t.Run(spec, func(t *testing.T) {
			storetest.Run(t, func(t *testing.T) store.Store { return open(t, spec) })
		})
	}
}

func TestOptionsAppliedAndReadBack(t *testing.T) {
	st := open(t, "sqlite:?page_size=8192&journal_mode=wal&synchronous=off&cache_size=-4096&busy_timeout=1234")
	ctx := context.Background()
	if err := st.Setup(ctx, []*store.Table{storetest.Table()}); err != nil {
		t.Fatal(err)
	}
	info := st.Info(ctx)
	want := map[string]string{"page_size": "8192", "journal_mode": "wal", "synchronous": "off", "cache_size": "-4096", "busy_timeout": "1234"}
	for k, v := range want {
		if info.Options[k] != v {
			t.Errorf("%s read back as %q, want %q", k, info.Options[k], v)
		}
	}
	if !strings.HasPrefix(info.Version, "3.") {
		t.Errorf("version = %q", info.Version)
	}
}

func TestRefusesTableItDidNotCreate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.db")
	c, err := sqlite3.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	c.Exec("CREATE TABLE kurabe_conformance (x); INSERT INTO kurabe_conformance VALUES (42)")
	c.Close()
	st := open(t, "sqlite:"+path)
	err = st.Setup(context.Background(), []*store.Table{storetest.Table()})
	if !errors.Is(err, store.ErrNotOwned) {
		t.Fatalf("err = %v, want ErrNotOwned", err)
	}
	c, _ = sqlite3.Open(path)
	defer c.Close()
	if n, _ := queryInt(c, "SELECT x FROM kurabe_conformance"); n != 42 {
		t.Fatal("foreign table was changed")
	}
}

// A refused run leaves the user's database as it was, byte for byte: no
// kurabe_meta, none of the tables before the refused one, and no pragma
// the file keeps (journal_mode=wal). A kurabe_meta of the user's, of
// other columns, is refused by name, as on the servers, not with SQLite's
// "no such column". Before, the first made an empty kurabe_meta (and any
// table before the refused one) and switched the file to WAL; the second
// failed with "no such column: name".
func TestRefusalLeavesTheDatabaseAsItWas(t *testing.T) {
	fresh := &store.Table{Name: "fresh", Columns: []store.Column{{Name: "id", Kind: store.Int}}}
	for _, c := range []struct {
		name, user string // the user's database
		want       []string
	}{
		{"a table of the user's", "CREATE TABLE kurabe_conformance (x); INSERT INTO kurabe_conformance VALUES (42)",
			[]string{"table kurabe_conformance in", "not created by kurabe"}},
		{"a kurabe_meta of the user's", "CREATE TABLE kurabe_meta (a int); INSERT INTO kurabe_meta VALUES (7)",
			[]string{"table kurabe_meta in", "not created by kurabe (kurabe's list of its tables has the columns name, created, token)", "give kurabe another database file"}},
		{"a view named kurabe_meta", "CREATE TABLE notes (name, created); CREATE VIEW kurabe_meta AS SELECT * FROM notes",
			[]string{"table kurabe_meta in", "not created by kurabe"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "app.db")
			db, err := sqlite3.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := db.Exec(c.user); err != nil {
				t.Fatal(err)
			}
			db.Close()
			before, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			st := open(t, "sqlite:"+path+"?journal_mode=wal&page_size=8192")
			defer st.Close()
			err = st.Setup(context.Background(), []*store.Table{fresh, storetest.Table()})
			if !errors.Is(err, store.ErrNotOwned) {
				t.Fatalf("err = %v, want ErrNotOwned", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %v, want it to say %q", err, w)
				}
			}
			after, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(after) != string(before) {
				t.Errorf("the refused run changed the database file (%d bytes, was %d)", len(after), len(before))
			}
			for _, suffix := range []string{"-wal", "-journal"} {
				if _, err := os.Stat(path + suffix); err == nil {
					t.Errorf("the refused run left %s beside the database", filepath.Base(path+suffix))
				}
			}
		})
	}
}

// userSQL runs the user's statements on the database file at path, as the
// sqlite3 shell would.
func userSQL(t *testing.T, path string, stmts ...string) {
	t.Helper()
	c, err := sqlite3.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, q := range stmts {
		if err := c.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// userText is the text column of the first row q returns, "" for none.
func userText(t *testing.T, path, q string) string {
	t.Helper()
	c, err := sqlite3.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return queryText(c, q)
}

// The servers' test, on a real SQLite file: kurabe made crud, its user
// then dropped it and made a crud of their own under the same name, with
// the very text kurabe's CREATE TABLE had before tables carried a token,
// and their row. kurabe_meta still lists kurabe_crud, but every path that
// would drop, empty, replace or load into it refuses the table as not
// kurabe's, in the servers' words, and the user's row survives. Before,
// ownership was the name alone, and the next Setup dropped the user's
// table without a word. A table of kurabe's that was altered or vacuumed
// is still kurabe's.
func TestTableMadeAgainByUser(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "app.db")
	st := open(t, "sqlite:"+path)
	crud := &store.Table{Name: "crud", AutoKey: true, Columns: []store.Column{{Name: "id", Kind: store.Int}, {Name: "payload", Kind: store.Text}}, Indexes: [][]string{{"payload"}}}
	if err := st.Setup(ctx, []*store.Table{crud}); err != nil {
		t.Fatal(err)
	}
	userSQL(t, path, "ALTER TABLE kurabe_crud ADD COLUMN note TEXT", "ALTER TABLE kurabe_crud RENAME COLUMN note TO remark", "VACUUM")
	if err := st.Setup(ctx, []*store.Table{crud}); err != nil {
		t.Fatalf("Setup over kurabe's own table, altered and vacuumed: %v", err)
	}
	userSQL(t, path, "DROP TABLE kurabe_crud", "CREATE TABLE kurabe_crud (id INTEGER PRIMARY KEY, payload TEXT)", "INSERT INTO kurabe_crud VALUES (1, 'keep me')")
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
			_, err := st.(store.BulkLoader).BulkLoad(ctx, crud, func() (store.Row, bool) {
				return store.Row{{Int: 2}, {Text: []byte("kurabe's")}}, false
			})
			return err
		}(),
	} {
		want := "sqlite: table kurabe_crud in " + path + " exists and was not created by kurabe (kurabe_meta lists a table of that name, but this is not the table kurabe made: it was replaced since), so it was left as it is; drop it yourself if it may go, or give kurabe another database file"
		if !errors.Is(err, store.ErrNotOwned) || err.Error() != want {
			t.Errorf("%s of the user's table = %v; want ErrNotOwned: %s", what, err, want)
		}
	}
	if got := userText(t, path, "SELECT group_concat(id || ':' || payload) FROM kurabe_crud"); got != "1:keep me" {
		t.Fatalf("the user's table holds %q, want only their row 1:keep me", got)
	}
	// A staging table the user made again is not swapped in.
	other := &store.Table{Name: "other", AutoKey: true, Columns: crud.Columns}
	staged := store.Staged(other)
	if err := st.Setup(ctx, []*store.Table{staged}); err != nil {
		t.Fatal(err)
	}
	userSQL(t, path, "DROP TABLE kurabe_other_new", "CREATE TABLE kurabe_other_new (id INTEGER PRIMARY KEY, payload TEXT)", "INSERT INTO kurabe_other_new VALUES (7, 'mine')")
	if err := sw.Swap(ctx, staged, other); !errors.Is(err, store.ErrNotOwned) || !strings.Contains(err.Error(), "kurabe_other_new") {
		t.Errorf("Swap of a staging table the user made again = %v; want ErrNotOwned", err)
	}
	if got := userText(t, path, "SELECT group_concat(id || ':' || payload) FROM kurabe_other_new"); got != "7:mine" {
		t.Errorf("the user's kurabe_other_new holds %q", got)
	}
	if got := userText(t, path, "SELECT count(*) FROM sqlite_master WHERE name = 'kurabe_other'"); got != "0" {
		t.Errorf("the refused swap made kurabe_other")
	}
	// kurabe's own tables beside them come and go, and a table swapped in
	// (renamed by SQLite, which quotes the new name) is still kurabe's.
	posts := &store.Table{Name: "posts", Columns: crud.Columns}
	for range 2 {
		if _, _, err := store.Replace(ctx, st, posts, func(into *store.Table) (int64, error) { return 0, nil }); err != nil {
			t.Fatal(err)
		}
	}
	if err := sw.Drop(ctx, posts); err != nil {
		t.Fatal(err)
	}
	if got := userText(t, path, "SELECT count(*) FROM sqlite_master WHERE name = 'kurabe_posts'") + userText(t, path, "SELECT count(*) FROM kurabe_meta WHERE name = 'kurabe_posts'"); got != "00" {
		t.Errorf("Drop of kurabe's swapped-in posts left table and entry counts %s", got)
	}
}

// kurabe_meta as an earlier kurabe made it (name, created) gains the token
// column. Its entries have none: a table whose text is still the CREATE
// TABLE that kurabe ran (or its swap's rename of it) is kurabe's, and is
// made anew with a token; one made again differently or altered since is
// refused, saying why, and left as it is.
func TestMetaOfEarlierKurabe(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "app.db")
	userSQL(t, path,
		"CREATE TABLE kurabe_meta (name TEXT PRIMARY KEY, created INTEGER NOT NULL)",
		"CREATE TABLE kurabe_old (id INTEGER PRIMARY KEY, payload TEXT)",
		"CREATE TABLE kurabe_swapped_new (id INTEGER PRIMARY KEY, payload TEXT)", "ALTER TABLE kurabe_swapped_new RENAME TO kurabe_swapped",
		"CREATE TABLE kurabe_mine (id INTEGER PRIMARY KEY AUTOINCREMENT, payload TEXT NOT NULL)", "INSERT INTO kurabe_mine VALUES (1, 'keep me')",
		"CREATE TABLE kurabe_altered (id INTEGER PRIMARY KEY, payload TEXT)", "ALTER TABLE kurabe_altered ADD COLUMN extra TEXT", "INSERT INTO kurabe_altered VALUES (1, 'keep me', 'too')",
		"INSERT INTO kurabe_meta VALUES ('kurabe_old', unixepoch()), ('kurabe_swapped', unixepoch()), ('kurabe_mine', unixepoch()), ('kurabe_altered', unixepoch())")
	st := open(t, "sqlite:"+path)
	cols := []store.Column{{Name: "id", Kind: store.Int}, {Name: "payload", Kind: store.Text}}
	for _, name := range []string{"old", "swapped"} {
		if err := st.Setup(ctx, []*store.Table{{Name: name, Columns: cols}}); err != nil {
			t.Fatalf("Setup over an earlier kurabe's %s: %v", name, err)
		}
		if tok := userText(t, path, "SELECT token FROM kurabe_meta WHERE name = 'kurabe_"+name+"'"); len(tok) != 36 || !strings.Contains(userText(t, path, "SELECT sql FROM sqlite_master WHERE name = 'kurabe_"+name+"'"), "/* kurabe:"+tok+" */") {
			t.Errorf("kurabe_%s made anew with token %q: %s", name, tok, userText(t, path, "SELECT sql FROM sqlite_master WHERE name = 'kurabe_"+name+"'"))
		}
	}
	for _, name := range []string{"mine", "altered"} {
		err := st.Setup(ctx, []*store.Table{{Name: name, Columns: cols}})
		want := "sqlite: table kurabe_" + name + " in " + path + " exists and was not created by kurabe (kurabe_meta lists it, from an earlier kurabe that did not mark the tables it made, and the table was made again or altered since, so kurabe cannot tell it is the one it made), so it was left as it is"
		if !errors.Is(err, store.ErrNotOwned) || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("Setup over kurabe_%s = %v; want ErrNotOwned: %s", name, err, want)
		}
		if got := userText(t, path, "SELECT payload FROM kurabe_"+name+" WHERE id = 1"); got != "keep me" {
			t.Errorf("the user's kurabe_%s: %q", name, got)
		}
	}
}

func TestBusyIsClassified(t *testing.T) {
	// With no busy timeout, a writer blocked by another's open write
	// transaction fails with SQLITE_BUSY, classified as "busy".
	st := open(t, "sqlite:?busy_timeout=0")
	ctx := context.Background()
	tb := storetest.Table()
	if err := st.Setup(ctx, []*store.Table{tb}); err != nil {
		t.Fatal(err)
	}
	a, _ := st.Open(ctx)
	defer a.Close()
	b, _ := st.Open(ctx)
	defer b.Close()
	if err := a.(*session).c.Exec("BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	err := b.Insert(ctx, tb, store.Row{{}, {Int: 1}, {Text: []byte("x")}})
	if got := store.Classify(err); got != "busy" {
		t.Fatalf("class = %q (err %v), want busy", got, err)
	}
	a.(*session).c.Exec("ROLLBACK")
}

func TestWritersWaitWithBusyTimeout(t *testing.T) {
	// With the default busy timeout, 20 concurrent writers in the default
	// rollback-journal mode all succeed. synchronous=off keeps the fsyncs
	// out of the lock: with them, the 400 commits take as long as the
	// disk makes them, and on a slow disk one writer can wait out the 5 s
	// while the others take turns. Without a busy timeout, most of these
	// writes fail even so.
	st := open(t, "sqlite:?synchronous=off")
	ctx := context.Background()
	tb := storetest.Table()
	if err := st.Setup(ctx, []*store.Table{tb}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []error
	for c := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := st.Open(ctx)
			if err != nil {
				t.Error(err)
				return
			}
			defer s.Close()
			for i := range 20 {
				if err := s.Insert(ctx, tb, store.Row{{}, {Int: int64(c*20 + i)}, {Text: []byte("w")}}); err != nil {
					mu.Lock()
					failures = append(failures, err)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if len(failures) > 0 {
		t.Fatalf("%d writes failed, first: %v", len(failures), failures[0])
	}
	if n, _ := st.Count(ctx, tb); n != 400 {
		t.Fatalf("count = %d, want 400", n)
	}
}

func TestBadOptions(t *testing.T) {
	cases := []struct{ spec, want string }{
		{"sqlite:?page_size=1000", "power of two"},    // not a power of two
		{"sqlite:?journal_mode=fast", "journal_mode"}, // unknown mode
		{"sqlite:?busy_timeout=-1", "busy_timeout"},   // negative
		{"sqlite:?pagesize=4096", "unknown option"},   // misspelt
	}
	for _, c := range cases {
		sp, _ := store.ParseSpec(c.spec)
		_, err := Open(context.Background(), sp, store.Env{Dir: t.TempDir()})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want mention of %q", c.spec, err, c.want)
		}
	}
}

func TestSQLSessionAndBulkLoad(t *testing.T) {
	st := open(t, "sqlite:?journal_mode=wal")
	ctx := context.Background()
	tb := storetest.Table()
	if err := st.Setup(ctx, []*store.Table{tb}); err != nil {
		t.Fatal(err)
	}
	// Bulk load 1000 rows in one transaction.
	i := 0
	row := store.Row{{}, {}, {Text: []byte("bulk")}}
	n, err := st.(store.BulkLoader).BulkLoad(ctx, tb, func() (store.Row, bool) {
		if i == 1000 {
			return nil, false
		}
		i++
		row[1].Int = int64(i)
		return row, true
	})
	if err != nil || n != 1000 {
		t.Fatalf("BulkLoad: %d, %v", n, err)
	}
	sess, _ := st.Open(ctx)
	defer sess.Close()
	sq := sess.(store.SQLSession)
	if sq.Dialect() != "sqlite" {
		t.Fatal(sq.Dialect())
	}
	storetest.PointerArgs(t, sq, "kurabe_conformance")
	// A transaction that is rolled back leaves nothing behind.
	if err := sq.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	if ch, err := sq.Exec(ctx, "UPDATE kurabe_conformance SET n = n + ? WHERE n <= ?", 10000, 10); err != nil || ch != 10 {
		t.Fatalf("update changed %d: %v", ch, err)
	}
	if err := sq.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	var sum int64
	rows, bytes, err := sq.Query(ctx, "SELECT sum(n) FROM kurabe_conformance WHERE n <= ?", []any{10}, func(v int64) { sum = v })
	if err != nil || rows != 1 || bytes != 8 || sum != 55 {
		t.Fatalf("query: rows %d bytes %d sum %d err %v", rows, bytes, sum, err)
	}
	if _, err := sq.Exec(ctx, "SELECT 1; SELECT 2"); err == nil {
		t.Fatal("two statements accepted")
	}
	if _, err := sq.Exec(ctx, "UPDATE kurabe_conformance SET n = ?", struct{}{}); err == nil {
		t.Fatal("unbindable argument accepted")
	}
}

// A path that holds something other than an SQLite database fails at
// Open with one line that says so; before, SQLite opened it, the settings
// line read back empty values (cache_size= journal_mode=), and only the
// first query said "file is not a database". A database, an empty file
// and a file still to create are taken.
func TestPathMustBeADatabase(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	db := filepath.Join(dir, "real.db")
	st := open(t, "sqlite:"+db)
	if err := st.Setup(context.Background(), []*store.Table{storetest.Table()}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path, want string // want "": opens
	}{
		{"text", write("notdb", []byte("hello not a db\n")), "is not an SQLite database"},
		{"shorter than the header", write("short", []byte("SQLite")), "is not an SQLite database"},
		{"a directory", dir, "is a directory"},
		{"a database", db, ""},
		{"an empty file", write("empty.db", nil), ""},
		{"a file to create", filepath.Join(dir, "new.db"), ""},
	} {
		sp, _ := store.ParseSpec("sqlite:" + tc.path)
		st, err := Open(context.Background(), sp, store.Env{Dir: t.TempDir()})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n")):
			t.Errorf("%s: err = %v, want one line saying %q", tc.name, err, tc.want)
		}
		if st != nil {
			st.Close()
		}
	}
}

// connect= is a keyword like journal_mode's values, taken in any case:
// the command line's checks of connect=per-op compare it so.
func TestConnectInAnyCase(t *testing.T) {
	for _, v := range []string{"PER-OP", "Per-Op", "per-op"} {
		st := open(t, "sqlite:?connect="+v)
		if got := st.Info(context.Background()).Options["connect"]; got != "per-op" {
			t.Errorf("connect=%s read back as %q, want per-op", v, got)
		}
	}
}

// Ctrl-C stops a load: a bulk load (one transaction) stops between rows
// and is rolled back, saying the table holds none of it; a batch insert
// stores nothing once the context is done, so a load in batches stops at
// the next batch with the batches before it kept.
func TestLoadsStopWhenCanceled(t *testing.T) {
	st := open(t, "sqlite:")
	defer st.Close()
	tb := storetest.Table()
	if err := st.Setup(context.Background(), []*store.Table{tb}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var given int64
	n, err := st.(store.BulkLoader).BulkLoad(ctx, tb, func() (store.Row, bool) {
		given++
		if given == 5000 {
			cancel() // Ctrl-C part way
		}
		if given > 1_000_000 {
			return nil, false
		}
		return store.Row{{}, {Int: given}, {Text: []byte("row")}}, true
	})
	if !errors.Is(err, context.Canceled) || n != 0 || !strings.Contains(err.Error(), "holds none") {
		t.Errorf("bulk load canceled part way: %d rows, %v; want 0 rows and an error saying the table holds none", n, err)
	}
	if given > 6000 {
		t.Errorf("the bulk load went on for %d rows after it was canceled", given-5000)
	}
	s, err := st.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rows := []store.Row{{{}, {Int: 1}, {Text: []byte("a")}}, {{}, {Int: 2}, {Text: []byte("b")}}}
	if err := store.InsertBatch(ctx, s, tb, rows); !errors.Is(err, context.Canceled) {
		t.Errorf("batch insert after the cancel: %v, want context.Canceled", err)
	}
	if c, _ := st.Count(context.Background(), tb); c != 0 {
		t.Errorf("the table holds %d rows after a canceled load and batch, want 0", c)
	}
}

// A full disk is said as one: SQLITE_FULL, or the I/O error the driver
// gives for ENOSPC, is of class disk-full with a message that says to
// free space, in Setup and in every write.
func TestFullDiskIsClassDiskFull(t *testing.T) {
	dir := storetest.SmallFS(t, 1<<20)
	sp, _ := store.ParseSpec("sqlite:" + filepath.Join(dir, "bbs.db"))
	st, err := Open(context.Background(), sp, store.Env{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	tb := storetest.Table()
	if err := st.Setup(ctx, []*store.Table{tb}); err != nil {
		t.Fatal(err)
	}
	s, err := st.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	body := bytes.Repeat([]byte("x"), 3000)
	for i := 0; ; i++ {
		if i > 1000 {
			t.Fatal("the file system never filled")
		}
		if err = s.Insert(ctx, tb, store.Row{{}, {Int: int64(i)}, {Text: body}}); err != nil {
			break
		}
	}
	if c := store.Classify(err); c != store.ClassDiskFull || !strings.Contains(err.Error(), "free space") {
		t.Errorf("write on a full disk: %v (class %q), want class disk-full saying to free space", err, c)
	}
	// Setup on the full disk, as a run's next store would meet it.
	storetest.Fill(t, dir, 0)
	err = st.Setup(ctx, []*store.Table{tb, {Name: "more", Columns: tb.Columns, AutoKey: true}})
	if c := store.Classify(err); c != store.ClassDiskFull || !strings.Contains(err.Error(), "free space") {
		t.Errorf("setup on a full disk: %v (class %q), want class disk-full saying to free space", err, c)
	}
}

// Only Setup creates the database file: a store that never started
// leaves none, and a file removed while the run wrote is reported gone by
// the count that verifies it, not made anew and empty (which read as a
// count of 0 and a file of 0 bytes left behind).
func TestOnlySetupCreatesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bbs.db")
	sp, _ := store.ParseSpec("sqlite:" + path)
	st, err := Open(context.Background(), sp, store.Env{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	tb := storetest.Table()
	st.Info(ctx)
	st.Count(ctx, tb)
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("before Setup the database file exists (%v): a store that never started left it behind", err)
	}
	if err := st.Setup(ctx, []*store.Table{tb}); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if n, err := st.Count(ctx, tb); err == nil || !strings.Contains(err.Error(), "removed") {
		t.Errorf("count of a removed database: %d, %v; want an error saying it was removed", n, err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the count made the removed database anew (%v)", err)
	}
}

// Two kurabes on one database file: the second is refused, saying who
// holds it, until the first lets go. A database in kurabe's own data
// directory needs no lock.
func TestLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.db")
	storetest.RunLock(t, func(t *testing.T) store.Store {
		sp, _ := store.ParseSpec("sqlite:" + path + "?journal_mode=wal")
		st, err := Open(context.Background(), sp, store.Env{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}, "another kurabe test is using kurabe's tables in "+path, fmt.Sprintf("pid %d on host ", os.Getpid()), "since ")
	if _, err := os.Stat(path + ".kurabe-lock"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the lock file is left after the lock was let go: %v", err)
	}
	sp, _ := store.ParseSpec("sqlite:")
	st, err := Open(context.Background(), sp, store.Env{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if n := st.(store.Locker).LockName(); n != "" {
		t.Errorf("a database in kurabe's data directory has LockName %q, want none", n)
	}
}

// A lock file a killed kurabe left, with no lock on it, is no obstacle.
func TestStaleLockFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.db")
	if err := os.WriteFile(path+".kurabe-lock", []byte("kurabe run\n999999\nelsewhere\n2020-01-01T00:00:00Z\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sp, _ := store.ParseSpec("sqlite:" + path)
	st, err := Open(context.Background(), sp, store.Env{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	l, err := st.(store.Locker).Lock(context.Background(), store.Me("kurabe run"))
	if err != nil {
		t.Fatalf("Lock over a stale lock file: %v", err)
	}
	l.Close()
}
