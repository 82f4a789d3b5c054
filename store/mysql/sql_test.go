package mysql

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"kurabe/store"
	"kurabe/store/storetest"
)

// counted returns a next function for BulkLoad that yields n rows made by
// fill into one reused row, as a workload's loader would.
func counted(n, cols int, fill func(i int, row store.Row)) func() (store.Row, bool) {
	row := make(store.Row, cols)
	i := 0
	return func() (store.Row, bool) {
		if i == n {
			return nil, false
		}
		i++
		fill(i, row)
		return row, true
	}
}

// testSQL runs against TestServer's server: open opens a store of the
// given options in a database of its own, root is the server's root and
// dsn the address of an account with every privilege.
func testSQL(t *testing.T, open func(t *testing.T, opts string) store.Store, root *sql.DB, dsn string) {
	ctx := context.Background()

	// The checks of sqlite's TestSQLSessionAndBulkLoad, in every connect
	// mode, and what a transaction on a pool must do.
	for _, connect := range []string{"session", "session&driver=sql", "pool", "per-op"} {
		t.Run("SQLSession/"+connect, func(t *testing.T) {
			opts := "&connect=" + connect
			if connect == "pool" {
				opts += "&pool_size=2"
			}
			st := open(t, opts)
			tb := storetest.Table()
			if err := st.Setup(ctx, []*store.Table{tb}); err != nil {
				t.Fatal(err)
			}
			n, err := st.(store.BulkLoader).BulkLoad(ctx, tb, counted(1000, 3, func(i int, row store.Row) {
				row[1].Int = int64(i)
				row[2].Text = []byte("bulk")
			}))
			if err != nil || n != 1000 {
				t.Fatalf("BulkLoad: %d, %v", n, err)
			}
			if c, err := st.Count(ctx, tb); err != nil || c != 1000 {
				t.Fatalf("Count after BulkLoad: %d, %v", c, err)
			}
			if f := st.Info(ctx).Facts["bulk_load"]; f != bulkLoadData {
				t.Errorf("Info.Facts[bulk_load] = %q, want %q", f, bulkLoadData)
			}
			sess, err := st.Open(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			sq := sess.(store.SQLSession)
			if sq.Dialect() != "mysql" {
				t.Fatal(sq.Dialect())
			}
			storetest.PointerArgs(t, sq, "conformance")
			count := func(where string) int64 {
				t.Helper()
				var c int64
				if _, _, err := sq.Query(ctx, "SELECT COUNT(*) FROM conformance WHERE "+where, nil, func(v int64) { c = v }); err != nil {
					t.Fatalf("count where %s: %v", where, err)
				}
				return c
			}

			if connect == "per-op" {
				for name, f := range map[string]func(context.Context) error{"Begin": sq.Begin, "Commit": sq.Commit, "Rollback": sq.Rollback} {
					if err := f(ctx); err == nil || !strings.Contains(err.Error(), "connect=session or connect=pool") {
						t.Errorf("%s with connect=per-op: %v, want an error naming the modes that have transactions", name, err)
					}
				}
			} else {
				// A transaction that is rolled back leaves nothing behind;
				// inside it, the session sees its own writes, which on a
				// pool of two means it kept one connection.
				if err := sq.Begin(ctx); err != nil {
					t.Fatal(err)
				}
				if err := sq.Begin(ctx); err == nil {
					t.Error("Begin inside a transaction accepted")
				}
				if ch, err := sq.Exec(ctx, "UPDATE conformance SET n = n + ? WHERE n <= ?", 10000, 10); err != nil || ch != 10 {
					t.Fatalf("update changed %d: %v", ch, err)
				}
				for range 3 {
					if c := count("n > 10000"); c != 10 {
						t.Fatalf("inside the transaction %d rows updated, want 10", c)
					}
				}
				if err := sq.Rollback(ctx); err != nil {
					t.Fatal(err)
				}
				if c := count("n > 10000"); c != 0 {
					t.Fatalf("after Rollback %d rows updated, want 0", c)
				}
				if err := sq.Begin(ctx); err != nil {
					t.Fatal(err)
				}
				if ch, err := sq.Exec(ctx, "UPDATE conformance SET body = ? WHERE n = ?", []byte("committed"), 1000); err != nil || ch != 1 {
					t.Fatalf("update changed %d: %v", ch, err)
				}
				if err := sq.Commit(ctx); err != nil {
					t.Fatal(err)
				}
				if c := count("body = 'committed'"); c != 1 {
					t.Fatalf("after Commit %d rows changed, want 1", c)
				}
				if err := sq.Commit(ctx); err == nil || !strings.Contains(err.Error(), "call Begin first") {
					t.Errorf("Commit without a transaction: %v", err)
				}
			}

			// Matched rows count, as on PostgreSQL and SQLite, also when
			// nothing changes; no arguments is fine.
			if ch, err := sq.Exec(ctx, "UPDATE conformance SET n = n WHERE n <= 3"); err != nil || ch != 3 {
				t.Fatalf("update without arguments or changes: %d rows, %v; want 3", ch, err)
			}
			// SUM is a DECIMAL, which the driver hands over as text; fn
			// sees it as the integer it is.
			var sum int64
			rows, size, err := sq.Query(ctx, "SELECT SUM(n) FROM conformance WHERE n <= ?", []any{10}, func(v int64) { sum = v })
			if err != nil || rows != 1 || size != 2 || sum != 55 {
				t.Fatalf("decimal sum: rows %d bytes %d sum %d err %v; want 1 row of 2 bytes, 55", rows, size, sum, err)
			}
			rows, size, err = sq.Query(ctx, "SELECT CAST(SUM(n) AS SIGNED) FROM conformance WHERE n <= ?", []any{10}, func(v int64) { sum = v })
			if err != nil || rows != 1 || size != 8 || sum != 55 {
				t.Fatalf("integer sum: rows %d bytes %d sum %d err %v; want 1 row of 8 bytes, 55", rows, size, sum, err)
			}
			// Every value's bytes count; fn sees 0 for a text, even one
			// of digits.
			var firsts []int64
			rows, size, err = sq.Query(ctx, "SELECT body, n FROM conformance WHERE n BETWEEN ? AND ? ORDER BY n", []any{11, 13}, func(v int64) { firsts = append(firsts, v) })
			if err != nil || rows != 3 || size != 3*(4+8) || fmt.Sprint(firsts) != "[0 0 0]" {
				t.Fatalf("text and bigint: rows %d bytes %d firsts %v err %v; want 3 rows of 12 bytes", rows, size, firsts, err)
			}
			if _, _, err := sq.Query(ctx, "SELECT '42', NULL", nil, func(v int64) { sum = v }); err != nil || sum != 0 {
				t.Fatalf("a text of digits: fn saw %d (%v), want 0", sum, err)
			}
			if rows, _, err := sq.Query(ctx, "SELECT n FROM conformance WHERE n > ?", []any{1 << 20}, nil); err != nil || rows != 0 {
				t.Fatalf("no rows: %d, %v", rows, err)
			}

			// Errors keep the server's class.
			for _, c := range []struct {
				sql   string
				args  []any
				class string
			}{
				{"SELEC 1", nil, "mysql:1064"},
				{"SELECT 1; SELECT 2", nil, "mysql:1064"},
				{"SELECT n FROM no_such_table", nil, "mysql:1146"},
				{"INSERT INTO conformance (id, n, body) VALUES (?, ?, ?)", []any{1, 1, "duplicate key"}, "mysql:1062"},
				// An argument database/sql cannot convert.
				{"UPDATE conformance SET n = ?", []any{struct{}{}}, "error"},
			} {
				if _, err := sq.Exec(ctx, c.sql, c.args...); err == nil || store.Classify(err) != c.class {
					t.Errorf("Exec(%s): %v, class %q, want %q", c.sql, err, store.Classify(err), c.class)
				}
				if _, _, err := sq.Query(ctx, c.sql, c.args, nil); err == nil || store.Classify(err) != c.class {
					t.Errorf("Query(%s): %v, class %q, want %q", c.sql, err, store.Classify(err), c.class)
				}
			}
			// The session still works after every error.
			if c := count("TRUE"); c != 1000 {
				t.Fatalf("count after errors: %d", c)
			}
			// A text's columns learned once are learned again when they
			// change under it.
			if _, _, err := sq.Query(ctx, "SELECT * FROM conformance WHERE n = ?", []any{500}, nil); err != nil {
				t.Fatal(err)
			}
			mustExec(t, root, "ALTER TABLE "+st.(*Store).qualified("conformance")+" ADD COLUMN extra BIGINT NOT NULL DEFAULT 7")
			if rows, size, err := sq.Query(ctx, "SELECT * FROM conformance WHERE n = ?", []any{500}, nil); err != nil || rows != 1 || size != 8+8+4+8 {
				t.Fatalf("after a column was added: %d rows of %d bytes, %v", rows, size, err)
			}
		})
	}

	// A pool transaction needs no connection but the one it holds: two
	// clients in transactions on a pool of two run texts the pool has not
	// prepared yet, and then ones it has. Before, each text was prepared on
	// the pool first, which waited for a third connection for ever (tpcb
	// at -c 2 on pool_size=2 ran nothing); the deadline makes that fail.
	t.Run("PoolTransactionHoldsOneConnection", func(t *testing.T) {
		st := open(t, "&connect=pool&pool_size=2")
		tb := storetest.Table()
		if err := st.Setup(ctx, []*store.Table{tb}); err != nil {
			t.Fatal(err)
		}
		tctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		var clients [2]store.SQLSession
		for i := range clients {
			s, err := st.Open(tctx)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			clients[i] = s.(store.SQLSession)
		}
		const insert = "INSERT INTO conformance (n, body) VALUES (?, ?)"
		const sum = "SELECT CAST(COALESCE(SUM(n), 0) AS SIGNED) FROM conformance WHERE body = ?"
		for round := range 3 { // the first prepares on the transactions, the later ones on the pool
			for _, c := range clients {
				if err := c.Begin(tctx); err != nil {
					t.Fatalf("round %d: Begin: %v", round, err)
				}
			}
			for i, c := range clients {
				for range 2 { // the second run reuses what the first prepared
					if _, err := c.Exec(tctx, insert, int64(i+1), "pool"); err != nil {
						t.Fatalf("round %d: client %d: INSERT inside its transaction: %v (the pool has 2 connections, both held by the transactions)", round, i, err)
					}
				}
				var got int64
				if _, _, err := c.Query(tctx, sum, []any{"pool"}, func(v int64) { got = v }); err != nil {
					t.Fatalf("round %d: client %d: SELECT inside its transaction: %v", round, i, err)
				}
				if want := int64(round*6 + 2*(i+1)); got != want { // its own writes and the committed ones
					t.Errorf("round %d: client %d sees a sum of %d, want %d", round, i, got, want)
				}
			}
			for i, c := range clients {
				if err := c.Commit(tctx); err != nil {
					t.Fatalf("round %d: client %d: Commit: %v", round, i, err)
				}
			}
		}
		if n, err := st.Count(ctx, tb); err != nil || n != 12 {
			t.Errorf("Count = %d, %v; want the 12 rows of 3 rounds", n, err)
		}
		// After the first round the texts are the pool's, shared.
		if p := st.(*Store).sharedOnly(insert); p == nil {
			t.Error("the INSERT run in transactions was never prepared on the pool")
		}
	})

	// A replay of literal SQL sends a new text every time: the sessions
	// keep a bounded number of prepared statements, so the server's count
	// stays far below its max_prepared_stmt_count.
	for _, connect := range []string{"session", "session&driver=sql", "pool"} {
		t.Run("StatementsBounded/"+connect, func(t *testing.T) {
			st := open(t, "&connect="+connect)
			tb := storetest.Table()
			if err := st.Setup(ctx, []*store.Table{tb}); err != nil {
				t.Fatal(err)
			}
			sess, err := st.Open(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			sq := sess.(store.SQLSession)
			const texts = 3 * maxStatements
			for i := range texts {
				if _, _, err := sq.Query(ctx, fmt.Sprintf("SELECT n FROM conformance WHERE n = %d", i), nil, nil); err != nil {
					t.Fatalf("statement %d: %v", i, err)
				}
			}
			var name string
			var prepared int
			if err := root.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE 'Prepared_stmt_count'").Scan(&name, &prepared); err != nil {
				t.Fatal(err)
			}
			if prepared > 2*maxStatements+16 {
				t.Errorf("after %d distinct statements the server holds %d prepared statements; want at most about %d", texts, prepared, 2*maxStatements)
			}
		})
	}

	t.Run("BulkLoadRoundTrip", func(t *testing.T) {
		testBulkRoundTrip(t, open(t, ""), bulkLoadData)
		// The same through the fallback, on a server that refuses LOCAL.
		mustExec(t, root, "SET GLOBAL local_infile = 0")
		defer mustExec(t, root, "SET GLOBAL local_infile = 1")
		testBulkRoundTrip(t, open(t, ""), bulkInsert)
	})

	// A load of 100,000 rows of 200 bytes (20 MB of text) keeps the live
	// heap flat, by LOAD DATA and by its fallback.
	t.Run("BulkLoadFlatMemory", func(t *testing.T) {
		for _, path := range []string{bulkLoadData, bulkInsert} {
			if path == bulkInsert {
				mustExec(t, root, "SET GLOBAL local_infile = 0")
				defer mustExec(t, root, "SET GLOBAL local_infile = 1")
			}
			st := open(t, "")
			tb := storetest.Table()
			if err := st.Setup(ctx, []*store.Table{tb}); err != nil {
				t.Fatal(err)
			}
			const rows = 100_000
			var h heapWatch
			h.sample()
			text := []byte(strings.Repeat("x", 192))
			start := time.Now()
			n, err := st.(store.BulkLoader).BulkLoad(ctx, tb, counted(rows, 3, func(i int, row store.Row) {
				if i%10_000 == 0 {
					h.sample()
				}
				row[1].Int = int64(i)
				row[2].Text = strconv.AppendInt(text[:192], int64(1e7+i), 10)
			}))
			if err != nil || n != rows {
				t.Fatalf("%s: BulkLoad: %d, %v", path, n, err)
			}
			t.Logf("%s: %d rows in %v; live heap grew by at most %d KiB", path, rows, time.Since(start).Round(time.Millisecond), h.growth()>>10)
			if h.growth() > 4<<20 {
				t.Errorf("%s: the live heap grew by %d KiB while loading %d rows, want a few MiB at most", path, h.growth()>>10, rows)
			}
			if f := st.Info(ctx).Facts["bulk_load"]; f != path {
				t.Errorf("Info.Facts[bulk_load] = %q, want %q", f, path)
			}
			if c, err := st.Count(ctx, tb); err != nil || c != rows {
				t.Fatalf("%s: Count: %d, %v", path, c, err)
			}
			s, _ := st.Open(ctx)
			defer s.Close()
			if _, err := s.Scan(ctx, tb, store.Query{Desc: true, Limit: 1}, func(r store.Row) error {
				if r[0].Int != rows || r[1].Int != rows {
					return fmt.Errorf("last row: key %d, n %d; want the server's keys 1..%d", r[0].Int, r[1].Int, rows)
				}
				return nil
			}); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
		}
	})

	t.Run("BulkLoadNotOwned", func(t *testing.T) {
		mustExec(t, root, "CREATE TABLE kurabe.foreign_bulk (id BIGINT, n BIGINT, body TEXT)")
		defer mustExec(t, root, "DROP TABLE kurabe.foreign_bulk")
		st, err := openSpec(t, dsn, store.Env{}) // database kurabe, the default
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if err := st.Setup(ctx, nil); err != nil {
			t.Fatal(err)
		}
		foreign := storetest.Table()
		foreign.Name = "foreign_bulk"
		if _, err := st.(store.BulkLoader).BulkLoad(ctx, foreign, counted(1, 3, func(int, store.Row) {})); !errors.Is(err, store.ErrNotOwned) {
			t.Fatalf("BulkLoad into a table kurabe did not create: %v, want ErrNotOwned", err)
		}
		var n int
		if err := root.QueryRow("SELECT COUNT(*) FROM kurabe.foreign_bulk").Scan(&n); err != nil || n != 0 {
			t.Fatalf("the foreign table has %d rows (%v)", n, err)
		}
	})

	// Exec and Query allocate no more than database/sql does for the same
	// prepared statement on a connection of its own, reading the rows
	// without scanning them: the session adds nothing per call.
	t.Run("SQLAddsNoAllocations", func(t *testing.T) {
		st := open(t, "")
		tb := storetest.Table()
		if err := st.Setup(ctx, []*store.Table{tb}); err != nil {
			t.Fatal(err)
		}
		if _, err := st.(store.BulkLoader).BulkLoad(ctx, tb, counted(100, 3, func(i int, row store.Row) {
			row[1].Int = int64(i)
			row[2].Text = []byte("some text")
		})); err != nil {
			t.Fatal(err)
		}
		sess, err := st.Open(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer sess.Close()
		sq := sess.(store.SQLSession)
		raw, err := st.(*Store).db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer raw.Close()
		if _, err := raw.ExecContext(ctx, "USE "+quote(st.(*Store).opts.database)); err != nil {
			t.Fatal(err)
		}
		const upd = "UPDATE conformance SET n = n WHERE id = ?"
		const sel = "SELECT id, n, body FROM conformance WHERE id <= ?"
		rawUpd, err := raw.PrepareContext(ctx, upd)
		if err != nil {
			t.Fatal(err)
		}
		defer rawUpd.Close()
		rawSel, err := raw.PrepareContext(ctx, sel)
		if err != nil {
			t.Fatal(err)
		}
		defer rawSel.Close()
		args := []any{int64(50)}
		var sum int64
		fn := func(v int64) { sum += v }
		ours := map[string]float64{
			"exec": testing.AllocsPerRun(200, func() {
				if _, err := sq.Exec(ctx, upd, args...); err != nil {
					t.Fatal(err)
				}
			}),
			"query": testing.AllocsPerRun(200, func() {
				if _, _, err := sq.Query(ctx, sel, args, fn); err != nil {
					t.Fatal(err)
				}
			}),
		}
		theirs := map[string]float64{
			"exec": testing.AllocsPerRun(200, func() {
				res, err := rawUpd.ExecContext(ctx, args...)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := res.RowsAffected(); err != nil {
					t.Fatal(err)
				}
			}),
			"query": testing.AllocsPerRun(200, func() {
				rows, err := rawSel.QueryContext(ctx, args...)
				if err != nil {
					t.Fatal(err)
				}
				for rows.Next() {
				}
				rows.Close()
				if rows.Err() != nil {
					t.Fatal(rows.Err())
				}
			}),
		}
		for _, op := range []string{"exec", "query"} {
			t.Logf("%s: %.0f allocations a call, database/sql alone %.0f", op, ours[op], theirs[op])
			if ours[op] > theirs[op] {
				t.Errorf("%s: %.0f allocations a call, database/sql alone %.0f", op, ours[op], theirs[op])
			}
		}
	})
}

// awkwardTexts are texts that must survive BulkLoad byte for byte.
var awkwardTexts = []string{
	"",
	"tab\there\tand\tthere",
	"line\nbreak and \r\n crlf and a lone \r",
	`back\slash \t not a tab, \N not a null, \. not an end, \\ two`,
	"\\N",
	"日本語の投稿です。郵便番号〒100-0001、絵文字🍣も",
	"'quotes' \"double\" ; -- not sql",
	"\\",
	"ends in a backslash\\",
	"\t\n\\",
	"a NUL \x00 inside, and ^Z \x1a",
	strings.Repeat("長文", 20000), // 120 kB: a row larger than the driver's 16 KiB packets
}

// testBulkRoundTrip loads awkwardTexts under explicit keys, reads them
// back byte for byte, and checks that a duplicate key fails the load and
// keeps nothing.
func testBulkRoundTrip(t *testing.T, st store.Store, path string) {
	ctx := context.Background()
	tb := &store.Table{Name: "bulk_keys", Columns: []store.Column{{Name: "k", Kind: store.Int}, {Name: "body", Kind: store.Text}, {Name: "n", Kind: store.Int}}}
	if err := st.Setup(ctx, []*store.Table{tb}); err != nil {
		t.Fatal(err)
	}
	key := func(i int) int64 { return int64(i)*7919 - 50000 }
	n, err := st.(store.BulkLoader).BulkLoad(ctx, tb, counted(len(awkwardTexts), 3, func(i int, row store.Row) {
		row[0].Int = key(i)
		row[1].Text = []byte(awkwardTexts[i-1])
		row[2].Int = -int64(i)
	}))
	if err != nil || n != int64(len(awkwardTexts)) {
		t.Fatalf("%s: BulkLoad: %d, %v", path, n, err)
	}
	if f := st.Info(ctx).Facts["bulk_load"]; f != path {
		t.Errorf("Info.Facts[bulk_load] = %q, want %q", f, path)
	}
	s, err := st.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	i := 0
	if _, err := s.Scan(ctx, tb, store.Query{}, func(r store.Row) error {
		i++
		if r[0].Int != key(i) || r[2].Int != -int64(i) || !bytes.Equal(r[1].Text, []byte(awkwardTexts[i-1])) {
			return fmt.Errorf("row %d read back as key %d, n %d, text %q", i, r[0].Int, r[2].Int, r[1].Text)
		}
		return nil
	}); err != nil || i != len(awkwardTexts) {
		t.Fatalf("%s: read back %d of %d rows: %v", path, i, len(awkwardTexts), err)
	}
	// A duplicate key: LOAD DATA LOCAL skips the row with a warning, and
	// BulkLoad makes that an error and keeps nothing; the INSERTs fail.
	_, err = st.(store.BulkLoader).BulkLoad(ctx, tb, counted(3, 3, func(i int, row store.Row) {
		row[0].Int = key(3) - int64(i) + 2 // key(3) comes second
		row[1].Text = nil
		row[2].Int = 0
	}))
	if err == nil || !strings.Contains(err.Error(), "Duplicate entry") {
		t.Fatalf("%s: BulkLoad of a duplicate key: %v, want an error quoting the server", path, err)
	}
	t.Logf("%s: a duplicate key: %v", path, err)
	if c, err := st.Count(ctx, tb); err != nil || c != int64(len(awkwardTexts)) {
		t.Fatalf("%s: after the failed load: %d rows (%v), want %d", path, c, err, len(awkwardTexts))
	}
}

// heapWatch samples the live heap (after a collection) while rows are
// loaded, to show that a load does not hold on to them.
type heapWatch struct {
	base, peak uint64
}

func (h *heapWatch) sample() {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	if h.base == 0 {
		h.base = m.HeapAlloc
	}
	h.peak = max(h.peak, m.HeapAlloc)
}

func (h *heapWatch) growth() int64 { return int64(h.peak) - int64(h.base) }

func TestAppendEscaped(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"plain 日本語", "plain 日本語"},
		{"a\tb\nc\rd\\e\x00f", `a\tb\nc\rd\\e\0f`},
		{`\N`, `\\N`},
		{"\\", `\\`},
	} {
		if got := string(appendEscaped(nil, []byte(c.in))); got != c.want {
			t.Errorf("appendEscaped(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// BenchmarkSQL runs a one-row UPDATE (Exec) and a one-row SELECT (Query)
// through SQLSession, by connect mode.
func BenchmarkSQL(b *testing.B) {
	ctx := context.Background()
	managed := startManaged(b, "")
	addr := managedAddr(b, managed)
	root := rootDB(b, managed)
	mustExec(b, root, "CREATE USER 'bench'@'127.0.0.1' IDENTIFIED BY 'bench'", "GRANT ALL ON *.* TO 'bench'@'127.0.0.1'")
	for _, connect := range []string{"session", "pool", "per-op"} {
		st, err := openSpec(b, "mysql://bench:bench@"+addr+"/?connect="+connect, store.Env{})
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		tb := storetest.Table()
		if err := st.Setup(ctx, []*store.Table{tb}); err != nil {
			b.Fatal(err)
		}
		if _, err := st.(store.BulkLoader).BulkLoad(ctx, tb, counted(1000, 3, func(i int, row store.Row) {
			row[1].Int = int64(i)
			row[2].Text = []byte("a post of some length")
		})); err != nil {
			b.Fatal(err)
		}
		sess, err := st.Open(ctx)
		if err != nil {
			b.Fatal(err)
		}
		sq := sess.(store.SQLSession)
		args := []any{int64(500)}
		b.Run("exec/"+connect, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := sq.Exec(ctx, "UPDATE conformance SET n = n + 1 WHERE id = ?", args...); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("query/"+connect, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := sq.Query(ctx, "SELECT n, body FROM conformance WHERE id = ?", args, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
		if connect != "per-op" {
			// A transaction of one UPDATE and one SELECT.
			b.Run("tx/"+connect, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if err := sq.Begin(ctx); err != nil {
						b.Fatal(err)
					}
					if _, err := sq.Exec(ctx, "UPDATE conformance SET n = n + 1 WHERE id = ?", args...); err != nil {
						b.Fatal(err)
					}
					if _, _, err := sq.Query(ctx, "SELECT n, body FROM conformance WHERE id = ?", args, nil); err != nil {
						b.Fatal(err)
					}
					if err := sq.Commit(ctx); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		sess.Close()
	}
}

// BenchmarkBulkLoad loads 100,000 rows by LOAD DATA LOCAL INFILE, by its
// fallback of multi-row INSERTs, and by InsertBatch in batches of 1000,
// and reports rows a second.
func BenchmarkBulkLoad(b *testing.B) {
	ctx := context.Background()
	st := startManaged(b, "")
	root := rootDB(b, st)
	tb := storetest.Table()
	if err := st.Setup(ctx, []*store.Table{tb}); err != nil {
		b.Fatal(err)
	}
	const rows = 100_000
	fill := func(i int, row store.Row) {
		row[1].Int = int64(i)
		row[2].Text = []byte("a post of some length, about a line of text in a board")
	}
	bulk := func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			if err := store.Truncate(ctx, st, tb); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if n, err := st.BulkLoad(ctx, tb, counted(rows, 3, fill)); err != nil || n != rows {
				b.Fatal(n, err)
			}
		}
		b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "rows/s")
	}
	b.Run("load-data", bulk)
	b.Run("fallback-insert", func(b *testing.B) {
		mustExec(b, root, "SET GLOBAL local_infile = 0")
		defer mustExec(b, root, "SET GLOBAL local_infile = 1")
		bulk(b)
	})
	b.Run("insert-batch", func(b *testing.B) {
		b.ReportAllocs()
		s, err := st.Open(ctx)
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		batch := make([]store.Row, 1000)
		for i := range batch {
			batch[i] = make(store.Row, 3)
		}
		for b.Loop() {
			b.StopTimer()
			if err := store.Truncate(ctx, st, tb); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			for i := 0; i < rows; i += len(batch) {
				for j, r := range batch {
					fill(i+j+1, r)
				}
				if err := store.InsertBatch(ctx, s, tb, batch); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "rows/s")
	})
}
