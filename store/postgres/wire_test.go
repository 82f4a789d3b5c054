package postgres

import (
	"context"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"kurabe/store"
	"kurabe/store/postgres/wire"
	"kurabe/store/storetest"
)

// setupSession opens a store with opts on the shared server, sets up the
// conformance table with n rows and opens a session.
func setupSession(t testing.TB, opts string, n int) (store.Store, *store.Table, store.Session) {
	t.Helper()
	ctx := context.Background()
	st := open(t, sharedDSN(t, "kurabe")+opts, store.Env{})
	tb := storetest.Table()
	if err := st.Setup(ctx, []*store.Table{tb}); err != nil {
		t.Fatal(err)
	}
	if n > 0 {
		if _, err := st.(store.BulkLoader).BulkLoad(ctx, tb, counted(n, 3, func(i int, row store.Row) {
			row[1].Int = int64(i)
			row[2].Text = []byte("hogehoge")
		})); err != nil {
			t.Fatal(err)
		}
	}
	s, err := st.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return st, tb, s
}

func TestDriverDefaultsAndInfo(t *testing.T) {
	for opts, want := range map[string]string{
		"":                        "wire",
		"?driver=pgx":             "pgx",
		"?connect=pool":           "pgx",
		"?connect=per-op":         "pgx",
		"?protocol=simple":        "pgx",
		"?synchronous_commit=off": "wire",
	} {
		st, _, s := setupSession(t, opts, 0)
		info := st.Info(context.Background())
		if info.Options["driver"] != want {
			t.Errorf("%q: driver %q, want %q", opts, info.Options["driver"], want)
		}
		ss, _ := s.(*session)
		if got := ss != nil && ss.w != nil; got != (want == "wire") {
			t.Errorf("%q: session on wire: %v", opts, got)
		}
	}
}

// A context cancelled or timed out during a query ends it, on either
// driver, and is reported as the context's error.
func TestContextInterruptsQuery(t *testing.T) {
	for _, opts := range []string{"", "?driver=pgx"} {
		t.Run(opts, func(t *testing.T) {
			_, tb, s := setupSession(t, opts, 10)
			sq := s.(store.SQLSession)

			// A watch that fired between queries leaves the session
			// usable with another context.
			ctx1, cancel1 := context.WithCancel(context.Background())
			if _, _, err := sq.Query(ctx1, "SELECT 1", nil, nil); err != nil {
				t.Fatal(err)
			}
			cancel1()
			time.Sleep(10 * time.Millisecond)
			if _, err := s.Scan(context.Background(), tb, store.Query{Desc: true, Limit: 1}, func(store.Row) error { return nil }); err != nil {
				t.Fatalf("Scan after an idle cancellation: %v", err)
			}

			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			start := time.Now()
			_, _, err := sq.Query(ctx, "SELECT pg_sleep(30)", nil, nil)
			if el := time.Since(start); el > 5*time.Second {
				t.Fatalf("query returned after %v", el)
			}
			if store.Classify(err) != "timeout" {
				t.Fatalf("interrupted query: class %q (%v), want timeout", store.Classify(err), err)
			}
			// On wire, an operation with an expired context does not run
			// (pgx reports its closed connection instead).
			if opts != "" {
				return
			}
			if err := s.Insert(ctx, tb, store.Row{{}, {Int: 1}, {Text: []byte("x")}}); store.Classify(err) != "timeout" {
				t.Fatalf("Insert with an expired context: class %q (%v)", store.Classify(err), err)
			}
		})
	}
}

// The server's "too many connections" keeps its class on the wire
// driver's connect path.
func TestTooManyConnections(t *testing.T) {
	dir, err := serverDir()
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	st := open(t, "postgres:managed?max_connections=3&superuser_reserved_connections=0", store.Env{Dir: dir})
	if err := st.Setup(ctx, nil); err != nil {
		t.Fatal(err)
	}
	var class string
	for range 5 {
		s, err := st.Open(ctx)
		if err != nil {
			class = store.Classify(err)
			break
		}
		defer s.Close()
	}
	if class != "too-many-connections" {
		t.Fatalf("class %q, want too-many-connections", class)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
}

// Arguments of every supported type reach the server as the values they
// are, and an unsupported one is refused before anything is sent.
func TestWireArgs(t *testing.T) {
	_, _, s := setupSession(t, "", 0)
	sq := s.(store.SQLSession)
	ctx := context.Background()
	for _, c := range []struct {
		cond string
		arg  any
	}{
		{"$1::bigint = -9223372036854775808", int64(math.MinInt64)},
		{"$1::int = 42", 42},
		{"$1::smallint = -7", int16(-7)},
		{"$1::numeric = 18446744073709551615", uint64(math.MaxUint64)},
		{"$1::float8 = 1.5", 1.5},
		{"$1::float8 = 'Infinity'", math.Inf(1)},
		{"$1::float4 = 0.25", float32(0.25)},
		{"$1::bool", true},
		{"$1::text = 'tab\there, ''quoted'', 日本語'", "tab\there, 'quoted', 日本語"},
		{"$1::text = 'bytes'", []byte("bytes")},
		{"$1::bytea = '\\x00ff10'::bytea", []byte{0, 0xff, 0x10}},
		{"$1::timestamptz = '2024-02-29 12:34:56.789+09'", time.Date(2024, 2, 29, 12, 34, 56, 789e6, time.FixedZone("JST", 9*3600))},
		{"$1::text IS NULL", nil},
		{"$1::text IS NULL", []byte(nil)},
	} {
		n, err := sq.Exec(ctx, "SELECT 1 WHERE "+c.cond, c.arg)
		if err != nil || n != 1 {
			t.Errorf("%s with %T %v: %d rows, %v", c.cond, c.arg, c.arg, n, err)
		}
	}
	if _, err := sq.Exec(ctx, "SELECT 1 WHERE $1::int = 1", struct{}{}); err == nil || !strings.Contains(err.Error(), "cannot send a struct {}") {
		t.Errorf("unsupported argument: %v", err)
	}
	if _, err := sq.Exec(ctx, "SELECT 1 WHERE $1::int = 1"); err == nil || !strings.Contains(err.Error(), "takes 1 arguments, 0 given") {
		t.Errorf("missing argument: %v", err)
	}
	if _, _, err := sq.Query(ctx, "SELECT 1", nil, nil); err != nil {
		t.Fatalf("session unusable after refused arguments: %v", err)
	}
}

// Statements the server dropped (DEALLOCATE ALL) fail once and are
// prepared again.
func TestWirePreparesAgain(t *testing.T) {
	_, tb, s := setupSession(t, "", 5)
	ctx := context.Background()
	scan := func() (int, error) {
		return s.Scan(ctx, tb, store.Query{Desc: true, Limit: 3}, func(store.Row) error { return nil })
	}
	if n, err := scan(); err != nil || n != 3 {
		t.Fatalf("Scan: %d, %v", n, err)
	}
	if _, err := s.(store.SQLSession).Exec(ctx, "DEALLOCATE ALL"); err != nil {
		t.Fatal(err)
	}
	if _, err := scan(); store.Classify(err) != "pg:26000" {
		t.Fatalf("Scan of a deallocated statement: %v", err)
	}
	if n, err := scan(); err != nil || n != 3 {
		t.Fatalf("Scan after preparing again: %d, %v", n, err)
	}
}

// In the steady state the wire driver allocates nothing per operation.
func TestWireDoesNotAllocate(t *testing.T) {
	_, tb, s := setupSession(t, "", 1000)
	sq := s.(store.SQLSession)
	ctx := context.Background()
	row := store.Row{{}, {Int: 12345}, {Text: []byte("hogehoge")}}
	var sum int64
	fn := func(r store.Row) error { sum += r[0].Int; return nil }
	first := func(v int64) { sum += v }
	args := []any{int64(500)}
	for name, f := range map[string]func() error{
		"insert": func() error { return s.Insert(ctx, tb, row) },
		"read-latest 1": func() error {
			_, err := s.Scan(ctx, tb, store.Query{Desc: true, Limit: 1}, fn)
			return err
		},
		"read-latest 100": func() error {
			_, err := s.Scan(ctx, tb, store.Query{Desc: true, Limit: 100}, fn)
			return err
		},
		"from, offset": func() error {
			_, err := s.Scan(ctx, tb, store.Query{HasFrom: true, From: 300, Offset: 300, Limit: 10}, fn)
			return err
		},
		"exec": func() error {
			_, err := sq.Exec(ctx, "UPDATE conformance SET n = n WHERE id = $1", args...)
			return err
		},
		"query": func() error {
			_, _, err := sq.Query(ctx, "SELECT id, n, body FROM conformance WHERE id <= $1", args, first)
			return err
		},
	} {
		var err error
		a := testing.AllocsPerRun(100, func() {
			if e := f(); e != nil {
				err = e
			}
		})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if a > 0 {
			t.Errorf("%s: %.1f allocations an operation, want 0", name, a)
		}
	}
}

func TestRowsAffected(t *testing.T) {
	for tag, want := range map[string]int64{
		"INSERT 0 1": 1, "UPDATE 10": 10, "DELETE 0": 0, "SELECT 3": 3, "BEGIN": 0, "": 0, "COPY 123456": 123456,
	} {
		if got := wire.RowsAffected([]byte(tag)); got != want {
			t.Errorf("RowsAffected(%q) = %d, want %d", tag, got, want)
		}
	}
}

// BenchmarkSession is the session's read-latest (N=1 and 100) and insert,
// on each driver: run with -benchmem to see allocations per operation.
func BenchmarkSession(b *testing.B) {
	ctx := context.Background()
	for _, driver := range []string{"wire", "pgx"} {
		_, tb, s := setupSession(b, "?driver="+driver, 1000)
		fn := func(store.Row) error { return nil }
		for _, n := range []int{1, 100} {
			b.Run(driver+"/read-latest-"+map[int]string{1: "1", 100: "100"}[n], func(b *testing.B) {
				b.ReportAllocs()
				q := store.Query{Desc: true, Limit: n}
				for b.Loop() {
					if _, err := s.Scan(ctx, tb, q, fn); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		b.Run(driver+"/insert", func(b *testing.B) {
			b.ReportAllocs()
			row := store.Row{{}, {Int: 12345}, {Text: []byte("hogehoge")}}
			for b.Loop() {
				if err := s.Insert(ctx, tb, row); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Past wire.MaxStatements distinct texts, every statement is closed and
// prepared again on its next use; the session keeps working throughout.
func TestWireStatementsBounded(t *testing.T) {
	_, tb, s := setupSession(t, "", 5)
	sq := s.(store.SQLSession)
	ctx := context.Background()
	for i := range wire.MaxStatements + 10 {
		if n, err := sq.Exec(ctx, "SELECT "+strconv.Itoa(i)); err != nil || n != 1 {
			t.Fatalf("statement %d: %d, %v", i, n, err)
		}
		if i%100 == 0 {
			if n, err := s.Scan(ctx, tb, store.Query{Desc: true, Limit: 2}, func(store.Row) error { return nil }); err != nil || n != 2 {
				t.Fatalf("Scan after %d statements: %d, %v", i, n, err)
			}
		}
	}
	if n, _, err := sq.Query(ctx, "SELECT count(*) FROM pg_prepared_statements", nil, nil); err != nil || n != 1 {
		t.Fatal(err)
	}
	var prepared int64
	if _, _, err := sq.Query(ctx, "SELECT count(*) FROM pg_prepared_statements", nil, func(v int64) { prepared = v }); err != nil {
		t.Fatal(err)
	}
	if prepared > wire.MaxStatements {
		t.Fatalf("%d statements prepared on the server, want at most %d", prepared, wire.MaxStatements)
	}
	if n, err := s.Scan(ctx, tb, store.Query{Desc: true, Limit: 2}, func(store.Row) error { return nil }); err != nil || n != 2 {
		t.Fatalf("Scan at the end: %d, %v", n, err)
	}
}

// A session serves one request's context after another, as kurabe serve's
// pool does, and each context is cancelled when its request ends, often
// while the session already serves the next: a late cancellation must not
// break the next request's exchange, nor touch a closed connection.
func TestWireLateCancellationIsHarmless(t *testing.T) {
	_, tb, s := setupSession(t, "?driver=wire", 50)
	for i := range 300 {
		ctx, cancel := context.WithCancel(context.Background())
		n, err := s.Scan(ctx, tb, store.Query{Desc: true, Limit: 5}, func(store.Row) error { return nil })
		if err != nil || n != 5 {
			t.Fatalf("request %d: %d rows, %v", i, n, err)
		}
		cancel() // the request is over: its watch fires in a goroutine of its own, racing the next request
	}
	// Close while a cancellation may still be running.
	ctx, cancel := context.WithCancel(context.Background())
	if _, err := s.Scan(ctx, tb, store.Query{Limit: 1}, func(store.Row) error { return nil }); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}
