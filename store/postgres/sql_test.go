package postgres

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"kurabe/store"
	"kurabe/store/storetest"
)

// counted returns a next function for BulkLoad that yields n rows made by
// fill into one reused row, as a workload's loader would.
func counted(n int, cols int, fill func(i int, row store.Row)) func() (store.Row, bool) {
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

// The checks of sqlite's TestSQLSessionAndBulkLoad, in every connect mode
// and under both protocols, plus what a transaction on a pool must do.
func TestSQLSessionAndBulkLoad(t *testing.T) {
	dsn := sharedDSN(t, "kurabe")
	ctx := context.Background()
	for _, opts := range []string{
		"", // driver=wire
		"?driver=pgx",
		"?connect=pool&pool_size=2",
		"?connect=per-op",
		"?protocol=simple",
		"?connect=pool&pool_size=2&protocol=simple",
	} {
		t.Run(opts, func(t *testing.T) {
			simple := strings.Contains(opts, "simple")
			perOp := strings.Contains(opts, "per-op")
			st := open(t, dsn+opts, store.Env{})
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
			sess, err := st.Open(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			sq := sess.(store.SQLSession)
			if sq.Dialect() != "postgres" {
				t.Fatal(sq.Dialect())
			}
			storetest.PointerArgs(t, sq, "conformance")
			count := func(where string) int64 {
				t.Helper()
				var c int64
				if _, _, err := sq.Query(ctx, "SELECT count(*) FROM conformance WHERE "+where, nil, func(v int64) { c = v }); err != nil {
					t.Fatalf("count where %s: %v", where, err)
				}
				return c
			}

			if perOp {
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
				if ch, err := sq.Exec(ctx, "UPDATE conformance SET n = n + $1 WHERE n <= $2", 10000, 10); err != nil || ch != 10 {
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
				// Committed, it stays.
				if err := sq.Begin(ctx); err != nil {
					t.Fatal(err)
				}
				if ch, err := sq.Exec(ctx, "UPDATE conformance SET body = $1 WHERE n = $2", []byte("committed"), 1000); err != nil || ch != 1 {
					t.Fatalf("update changed %d: %v", ch, err)
				}
				if err := sq.Commit(ctx); err != nil {
					t.Fatal(err)
				}
				if c := count("body = 'committed'"); c != 1 {
					t.Fatalf("after Commit %d rows changed, want 1", c)
				}
				// A transaction in which a statement failed is rolled back
				// by COMMIT, and Commit says so.
				if err := sq.Begin(ctx); err != nil {
					t.Fatal(err)
				}
				if _, err := sq.Exec(ctx, "UPDATE conformance SET n = 0 WHERE n = $1", 999); err != nil {
					t.Fatal(err)
				}
				if _, err := sq.Exec(ctx, "UPDATE conformance SET n = n / $1", 0); store.Classify(err) != "pg:22012" {
					t.Fatalf("division by zero: class %q (%v)", store.Classify(err), err)
				}
				if err := sq.Commit(ctx); !errors.Is(err, pgx.ErrTxCommitRollback) {
					t.Fatalf("Commit of a failed transaction: %v, want pgx.ErrTxCommitRollback", err)
				}
				if c := count("n = 999"); c != 1 {
					t.Fatalf("the failed transaction left %d rows with n = 999, want 1", c)
				}
				if err := sq.Rollback(ctx); err == nil || !strings.Contains(err.Error(), "call Begin first") {
					t.Errorf("Rollback without a transaction: %v", err)
				}
			}

			// Without arguments, under the extended protocol too.
			if ch, err := sq.Exec(ctx, "UPDATE conformance SET n = n WHERE n <= 3"); err != nil || ch != 3 {
				t.Fatalf("update without arguments changed %d: %v", ch, err)
			}
			// sum of a bigint is a numeric; fn sees it as the integer it is.
			var sum int64
			rows, size, err := sq.Query(ctx, "SELECT sum(n) FROM conformance WHERE n <= $1", []any{10}, func(v int64) { sum = v })
			if err != nil || rows != 1 || sum != 55 {
				t.Fatalf("numeric sum: rows %d bytes %d sum %d err %v", rows, size, sum, err)
			}
			wantSize := int64(8) // a bigint in the binary format
			if simple {
				wantSize = 2 // "55"
			}
			rows, size, err = sq.Query(ctx, "SELECT sum(n)::bigint FROM conformance WHERE n <= $1", []any{10}, func(v int64) { sum = v })
			if err != nil || rows != 1 || size != wantSize || sum != 55 {
				t.Fatalf("bigint sum: rows %d bytes %d sum %d err %v; want 1 row of %d bytes, 55", rows, size, sum, err, wantSize)
			}
			// Every value's bytes count; fn sees 0 for a text.
			var firsts []int64
			rows, size, err = sq.Query(ctx, "SELECT body, n FROM conformance WHERE n BETWEEN $1 AND $2 ORDER BY n", []any{11, 13}, func(v int64) { firsts = append(firsts, v) })
			wantSize = 3 * (4 + 8)
			if simple {
				wantSize = 3 * (4 + 2)
			}
			if err != nil || rows != 3 || size != wantSize || fmt.Sprint(firsts) != "[0 0 0]" {
				t.Fatalf("text and bigint: rows %d bytes %d firsts %v err %v; want 3 rows of %d bytes", rows, size, firsts, err, wantSize)
			}
			if rows, _, err := sq.Query(ctx, "SELECT n FROM conformance WHERE n > $1", []any{1 << 20}, nil); err != nil || rows != 0 {
				t.Fatalf("no rows: %d, %v", rows, err)
			}

			// Errors keep the server's class.
			for _, c := range []struct {
				sql   string
				args  []any
				class string
			}{
				{"SELEC 1", nil, "pg:42601"},
				{"SELECT n FROM no_such_table", nil, "pg:42P01"},
				{"INSERT INTO conformance (id, n, body) VALUES ($1, $2, $3)", []any{1, 1, "duplicate key"}, "pg:23505"},
				// An argument pgx cannot encode.
				{"UPDATE conformance SET n = $1", []any{struct{}{}}, "error"},
			} {
				if _, err := sq.Exec(ctx, c.sql, c.args...); err == nil || store.Classify(err) != c.class {
					t.Errorf("Exec(%s): %v, class %q, want %q", c.sql, err, store.Classify(err), c.class)
				}
				if _, _, err := sq.Query(ctx, c.sql, c.args, nil); err == nil || store.Classify(err) != c.class {
					t.Errorf("Query(%s): %v, class %q, want %q", c.sql, err, store.Classify(err), c.class)
				}
			}
			// Two statements in one text are refused by the extended
			// protocol and run by the simple one.
			_, err = sq.Exec(ctx, "SELECT 1; SELECT 2")
			if simple != (err == nil) {
				t.Errorf("two statements, protocol simple=%v: %v", simple, err)
			}
			// The session still works after every error.
			if c := count("true"); c != 1000 {
				t.Fatalf("count after errors: %d", c)
			}
		})
	}
}

// awkwardTexts are texts that must survive BulkLoad byte for byte.
var awkwardTexts = []string{
	"",
	"tab\there\tand\tthere",
	"line\nbreak and \r\n crlf and a lone \r",
	`back\slash \t not a tab, \N not a null, \. not an end, \\ two`,
	"日本語の投稿です。郵便番号〒100-0001、絵文字🍣も",
	"'quotes' \"double\" ; -- not sql",
	"\\",
	"ends in a backslash\\",
	"\t\n\\",
	strings.Repeat("長文", 5000),
}

// BulkLoad keeps texts byte for byte and loads explicit keys as given,
// and refuses a table kurabe did not create.
func TestBulkLoadRoundTrip(t *testing.T) {
	dsn := sharedDSN(t, "kurabe")
	ctx := context.Background()
	st := open(t, dsn, store.Env{})
	tb := &store.Table{Name: "bulk_keys", Columns: []store.Column{{Name: "k", Kind: store.Int}, {Name: "body", Kind: store.Text}, {Name: "n", Kind: store.Int}}}
	if err := st.Setup(ctx, []*store.Table{tb}); err != nil {
		t.Fatal(err)
	}
	key := func(i int) int64 { return int64(i)*7919 - 50000 } // negative, gaps, not in order of i's magnitude alone
	n, err := st.(store.BulkLoader).BulkLoad(ctx, tb, counted(len(awkwardTexts), 3, func(i int, row store.Row) {
		row[0].Int = key(i)
		row[1].Text = []byte(awkwardTexts[i-1])
		row[2].Int = -int64(i)
	}))
	if err != nil || n != int64(len(awkwardTexts)) {
		t.Fatalf("BulkLoad: %d, %v", n, err)
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
		t.Fatalf("read back %d of %d rows: %v", i, len(awkwardTexts), err)
	}

	// A duplicate key fails the whole COPY: nothing more is loaded.
	_, err = st.(store.BulkLoader).BulkLoad(ctx, tb, counted(3, 3, func(i int, row store.Row) {
		row[0].Int = key(3) - int64(i) + 2 // key(3) comes second
		row[1].Text = nil
		row[2].Int = 0
	}))
	if store.Classify(err) != "pg:23505" {
		t.Fatalf("BulkLoad of a duplicate key: %v (class %q), want pg:23505", err, store.Classify(err))
	}
	if c, err := st.Count(ctx, tb); err != nil || c != int64(len(awkwardTexts)) {
		t.Fatalf("after the failed load: %d rows (%v), want %d", c, err, len(awkwardTexts))
	}

	// A table kurabe did not create is never written.
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	for _, q := range []string{"DROP TABLE IF EXISTS kurabe.foreign_bulk", "CREATE TABLE kurabe.foreign_bulk (id bigint, n bigint, body text)"} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	defer c.Exec(ctx, "DROP TABLE kurabe.foreign_bulk")
	foreign := storetest.Table()
	foreign.Name = "foreign_bulk"
	if _, err := st.(store.BulkLoader).BulkLoad(ctx, foreign, counted(1, 3, func(int, store.Row) {})); !errors.Is(err, store.ErrNotOwned) {
		t.Fatalf("BulkLoad into a table kurabe did not create: %v, want ErrNotOwned", err)
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

// A load of 100,000 rows of 200 bytes (20 MB of text) keeps the live
// heap flat.
func TestBulkLoadFlatMemory(t *testing.T) {
	dsn := sharedDSN(t, "kurabe")
	ctx := context.Background()
	st := open(t, dsn, store.Env{})
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
		t.Fatalf("BulkLoad: %d, %v", n, err)
	}
	t.Logf("%d rows in %v; live heap grew by at most %d KiB", rows, time.Since(start).Round(time.Millisecond), h.growth()>>10)
	if h.growth() > 4<<20 {
		t.Errorf("the live heap grew by %d KiB while loading %d rows, want a few MiB at most", h.growth()>>10, rows)
	}
	if c, err := st.Count(ctx, tb); err != nil || c != rows {
		t.Fatalf("Count: %d, %v", c, err)
	}
	// The last key the server gave is the number of rows: keys are its.
	s, _ := st.Open(ctx)
	defer s.Close()
	if _, err := s.Scan(ctx, tb, store.Query{Desc: true, Limit: 1}, func(r store.Row) error {
		if r[0].Int != rows || r[1].Int != rows {
			return fmt.Errorf("last row: key %d, n %d", r[0].Int, r[1].Int)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// Exec and Query allocate no more than pgx does for the same statement on
// a connection of its own: the session adds nothing per call.
func TestSQLAddsNoAllocations(t *testing.T) {
	dsn := sharedDSN(t, "kurabe")
	ctx := context.Background()
	for _, protocol := range []string{"extended", "extended&driver=pgx", "simple"} {
		st := open(t, dsn+"?protocol="+protocol, store.Env{})
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
		cfg, err := pgx.ParseConfig(dsn)
		if err != nil {
			t.Fatal(err)
		}
		st.(*Store).tune(cfg)
		raw, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer raw.Close(ctx)

		const upd = "UPDATE conformance SET n = n WHERE id = $1"
		const sel = "SELECT id, n, body FROM conformance WHERE id <= $1"
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
				if _, err := raw.Exec(ctx, upd, args...); err != nil {
					t.Fatal(err)
				}
			}),
			"query": testing.AllocsPerRun(200, func() {
				rows, err := raw.Query(ctx, sel, args...)
				if err != nil {
					t.Fatal(err)
				}
				for rows.Next() {
					sum += int64(len(rows.RawValues()[0]))
				}
				rows.Close()
				if rows.Err() != nil {
					t.Fatal(rows.Err())
				}
			}),
		}
		for _, op := range []string{"exec", "query"} {
			t.Logf("protocol=%s %s: %.0f allocations a call, pgx alone %.0f", protocol, op, ours[op], theirs[op])
			if ours[op] > theirs[op] {
				t.Errorf("protocol=%s %s: %.0f allocations a call, pgx alone %.0f", protocol, op, ours[op], theirs[op])
			}
		}
	}
}

func TestFirstInt(t *testing.T) {
	bin := func(h string) []byte {
		b, err := hex.DecodeString(h)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	f := func(oid uint32, format int16) *pgconn.FieldDescription {
		return &pgconn.FieldDescription{DataTypeOID: oid, Format: format}
	}
	const numeric, int8, int4, int2, text = 1700, 20, 23, 21, 25
	for _, c := range []struct {
		name string
		v    []byte
		f    *pgconn.FieldDescription
		want int64
	}{
		{"bigint binary", bin("ffffffffffffffd6"), f(int8, 1), -42},
		{"integer binary", bin("ffffffd6"), f(int4, 1), -42},
		{"smallint binary", bin("0007"), f(int2, 1), 7},
		{"bigint text", []byte("-9223372036854775808"), f(int8, 0), -1 << 63},
		{"NULL", nil, f(int8, 1), 0},
		{"a text of digits is not an integer", []byte("42"), f(text, 0), 0},
		// numeric 55: 1 digit, weight 0, positive, scale 0, digit 55.
		{"numeric 55", bin("0001000000000000" + "0037"), f(numeric, 1), 55},
		// numeric 1,0000,0000 with trailing zero digits left out: 1 digit of weight 2.
		{"numeric 10^8", bin("0001000200000000" + "0001"), f(numeric, 1), 100_000_000},
		// -12345.0000: digits 1, 2345, weight 1, negative, scale 4.
		{"numeric -12345.0000", bin("0002000140000004" + "00010929"), f(numeric, 1), -12345},
		// 1.5: digits 1, 5000, weight 0: a fraction.
		{"numeric 1.5", bin("0002000000000001" + "00011388"), f(numeric, 1), 0},
		{"numeric NaN", bin("000000000000c000"), f(numeric, 1), 0},
		// 10^20 does not fit: digits 1 of weight 5.
		{"numeric 10^20", bin("0001000500000000" + "0001"), f(numeric, 1), 0},
		{"numeric text 55.000", []byte("55.000"), f(numeric, 0), 55},
		{"numeric text 55.5", []byte("55.5"), f(numeric, 0), 0},
		{"numeric text overflow", []byte("9223372036854775808"), f(numeric, 0), 0},
	} {
		if got := firstInt(c.v, c.f); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}

// BenchmarkSQL runs a one-row UPDATE (Exec) and a one-row SELECT (Query)
// through SQLSession, by connect mode and protocol.
func BenchmarkSQL(b *testing.B) {
	dsn := sharedDSN(b, "kurabe")
	ctx := context.Background()
	for _, opts := range []string{"", "?driver=pgx", "?protocol=simple", "?connect=pool", "?connect=per-op"} {
		st := open(b, dsn+opts, store.Env{})
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
		b.Run("exec"+opts, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := sq.Exec(ctx, "UPDATE conformance SET n = n + 1 WHERE id = $1", args...); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("query"+opts, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := sq.Query(ctx, "SELECT n, body FROM conformance WHERE id = $1", args, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
		if !strings.Contains(opts, "per-op") {
			// A transaction of one UPDATE and one SELECT.
			b.Run("tx"+opts, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if err := sq.Begin(ctx); err != nil {
						b.Fatal(err)
					}
					if _, err := sq.Exec(ctx, "UPDATE conformance SET n = n + 1 WHERE id = $1", args...); err != nil {
						b.Fatal(err)
					}
					if _, _, err := sq.Query(ctx, "SELECT n, body FROM conformance WHERE id = $1", args, nil); err != nil {
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

// BenchmarkBulkLoad loads 100,000 rows by COPY and, for comparison, by
// InsertBatch in batches of 1000, and reports rows a second.
func BenchmarkBulkLoad(b *testing.B) {
	dsn := sharedDSN(b, "kurabe")
	ctx := context.Background()
	st := open(b, dsn, store.Env{})
	tb := storetest.Table()
	if err := st.Setup(ctx, []*store.Table{tb}); err != nil {
		b.Fatal(err)
	}
	const rows = 100_000
	fill := func(i int, row store.Row) {
		row[1].Int = int64(i)
		row[2].Text = []byte("a post of some length, about a line of text in a board")
	}
	b.Run("copy", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			if err := store.Truncate(ctx, st, tb); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if n, err := st.(store.BulkLoader).BulkLoad(ctx, tb, counted(rows, 3, fill)); err != nil || n != rows {
				b.Fatal(n, err)
			}
		}
		b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "rows/s")
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
