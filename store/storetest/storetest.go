// Package storetest is the conformance suite every kurabe store must pass.
// It runs against real stores only: a real file, a real SQLite database, a
// real server. A store's own test calls Run with a function that opens a
// fresh store.
package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"kurabe/store"
)

// Table is the table the suite writes: an auto-assigned key, an integer and
// a text column.
func Table() *store.Table {
	return &store.Table{Name: "conformance", AutoKey: true, Columns: []store.Column{
		{Name: "id", Kind: store.Int}, {Name: "n", Kind: store.Int}, {Name: "body", Kind: store.Text},
	}}
}

// awkward texts that every store must keep byte for byte.
var awkward = []string{
	"hogehoge",
	"",
	"tab\there",
	"line\nbreak and \r\n crlf",
	"back\\slash \\t not a tab",
	"日本語の投稿です。郵便番号〒100-0001",
	"'quotes' \"double\" ; -- not sql",
}

func text(i int) []byte {
	return []byte(awkward[i%len(awkward)] + "#" + strconv.Itoa(i))
}

func row(i int) store.Row {
	return store.Row{{}, {Int: int64(i)}, {Text: text(i)}}
}

// Run runs the suite. open must return a new, empty store each call.
func Run(t *testing.T, open func(t *testing.T) store.Store) {
	ctx := context.Background()
	setup := func(t *testing.T) (store.Store, *store.Table, store.Session) {
		st := open(t)
		t.Cleanup(func() { st.Close() })
		tb := Table()
		if err := st.Setup(ctx, []*store.Table{tb}); err != nil {
			t.Fatalf("Setup: %v", err)
		}
		s, err := st.Open(ctx)
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		t.Cleanup(func() { s.Close() })
		return st, tb, s
	}
	count := func(t *testing.T, st store.Store, tb *store.Table) int64 {
		t.Helper()
		n, err := st.Count(ctx, tb)
		if err != nil {
			t.Fatalf("Count: %v", err)
		}
		return n
	}
	collect := func(t *testing.T, s store.Session, tb *store.Table, q store.Query) []store.Row {
		t.Helper()
		var rows []store.Row
		n, err := s.Scan(ctx, tb, q, func(r store.Row) error {
			c := make(store.Row, len(r))
			for i, v := range r {
				c[i] = store.Value{Int: v.Int, Text: bytes.Clone(v.Text)}
			}
			rows = append(rows, c)
			return nil
		})
		if err != nil {
			t.Fatalf("Scan(%+v): %v", q, err)
		}
		if n != len(rows) {
			t.Fatalf("Scan returned %d, called fn %d times", n, len(rows))
		}
		return rows
	}

	t.Run("EmptyAfterSetup", func(t *testing.T) {
		st, tb, s := setup(t)
		if n := count(t, st, tb); n != 0 {
			t.Fatalf("Count after Setup = %d, want 0", n)
		}
		if rows := collect(t, s, tb, store.Query{Desc: true, Limit: 100}); len(rows) != 0 {
			t.Fatalf("latest of empty table returned %d rows", len(rows))
		}
	})

	// A counter opened before the rows went in (as the engine opens it,
	// before the clients' sessions) sees every row committed since, on
	// each count.
	t.Run("CounterSeesLaterRows", func(t *testing.T) {
		st, tb, s := setup(t)
		c, err := store.OpenCounter(ctx, st)
		if err != nil {
			t.Fatalf("OpenCounter: %v", err)
		}
		defer c.Close()
		for round := range 2 {
			if n, err := c.Count(ctx, tb); err != nil || n != int64(10*round) {
				t.Fatalf("counter's count = %d, %v; want %d", n, err, 10*round)
			}
			for i := range 10 {
				if err := s.Insert(ctx, tb, row(10*round+i)); err != nil {
					t.Fatalf("Insert: %v", err)
				}
			}
		}
		if n, err := c.Count(ctx, tb); err != nil || n != 20 {
			t.Fatalf("counter's count = %d, %v; want 20", n, err)
		}
	})

	t.Run("InsertedRowsReadBackInOrder", func(t *testing.T) {
		st, tb, s := setup(t)
		const n = 500
		for i := range n {
			if err := s.Insert(ctx, tb, row(i)); err != nil {
				t.Fatalf("Insert %d: %v", i, err)
			}
		}
		if got := count(t, st, tb); got != n {
			t.Fatalf("Count = %d after %d acknowledged inserts", got, n)
		}
		all := collect(t, s, tb, store.Query{})
		if len(all) != n {
			t.Fatalf("read-all returned %d rows, want %d", len(all), n)
		}
		for i, r := range all {
			if r[1].Int != int64(i) || !bytes.Equal(r[2].Text, text(i)) {
				t.Fatalf("row %d = (%d, %q), want (%d, %q)", i, r[1].Int, r[2].Text, i, text(i))
			}
			if i > 0 && r[0].Int <= all[i-1][0].Int {
				t.Fatalf("keys not increasing in insert order: %d after %d", r[0].Int, all[i-1][0].Int)
			}
		}
		latest := collect(t, s, tb, store.Query{Desc: true, Limit: 100})
		if len(latest) != 100 {
			t.Fatalf("latest(100) returned %d rows", len(latest))
		}
		for k, r := range latest {
			if want := n - 1 - k; r[1].Int != int64(want) || !bytes.Equal(r[2].Text, text(want)) {
				t.Fatalf("latest[%d] = row %d, want row %d, newest first", k, r[1].Int, want)
			}
		}
		first := collect(t, s, tb, store.Query{Limit: 7})
		if len(first) != 7 || first[6][1].Int != 6 {
			t.Fatalf("first 7 rows wrong: %d rows", len(first))
		}
		if more := collect(t, s, tb, store.Query{Desc: true, Limit: 10 * n}); len(more) != n {
			t.Fatalf("latest(%d) on %d rows returned %d", 10*n, n, len(more))
		}
	})

	t.Run("FromAndOffset", func(t *testing.T) {
		_, tb, s := setup(t)
		const n = 300
		for i := range n {
			if err := s.Insert(ctx, tb, row(i)); err != nil {
				t.Fatal(err)
			}
		}
		all := collect(t, s, tb, store.Query{})
		keys := make([]int64, len(all))
		for i, r := range all {
			keys[i] = r[0].Int
		}
		cases := []struct {
			name  string
			q     store.Query
			first int // index into all of the first row expected, -1 for none
			count int
			desc  bool
		}{
			{"from a key", store.Query{HasFrom: true, From: keys[100], Limit: 50}, 100, 50, false},
			{"from between keys", store.Query{HasFrom: true, From: keys[100] + 1, Limit: 5}, 101, 5, false},
			{"from past the end", store.Query{HasFrom: true, From: keys[n-1] + 1, Limit: 5}, -1, 0, false},
			{"from near the end", store.Query{HasFrom: true, From: keys[n-3]}, n - 3, 3, false},
			{"offset", store.Query{Offset: 250, Limit: 20}, 250, 20, false},
			{"offset past the end", store.Query{Offset: n + 5, Limit: 20}, -1, 0, false},
			{"from and offset", store.Query{HasFrom: true, From: keys[10], Offset: 5, Limit: 3}, 15, 3, false},
			{"desc from a key", store.Query{Desc: true, HasFrom: true, From: keys[200], Limit: 10}, 200, 10, true},
			{"desc offset", store.Query{Desc: true, Offset: 10, Limit: 10}, n - 11, 10, true},
		}
		for _, c := range cases {
			got := collect(t, s, tb, c.q)
			if len(got) != c.count {
				t.Fatalf("%s: %d rows, want %d", c.name, len(got), c.count)
			}
			for k, r := range got {
				i := c.first + k
				if c.desc {
					i = c.first - k
				}
				if r[0].Int != keys[i] || r[1].Int != int64(i) {
					t.Fatalf("%s: row %d is key %d (n=%d), want key %d (n=%d)", c.name, k, r[0].Int, r[1].Int, keys[i], i)
				}
			}
		}
	})

	t.Run("ExplicitKeys", func(t *testing.T) {
		// A table whose keys the client gives (a data set's own numbering,
		// with gaps), loaded in key order as data sets are: From by value.
		st := open(t)
		t.Cleanup(func() { st.Close() })
		tb := &store.Table{Name: "keyed", Columns: []store.Column{{Name: "id", Kind: store.Int}, {Name: "body", Kind: store.Text}}, Indexes: [][]string{{"body"}}}
		if err := st.Setup(ctx, []*store.Table{tb}); err != nil {
			t.Fatalf("Setup: %v", err)
		}
		s, err := st.Open(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		var rows []store.Row
		for _, k := range []int64{10, 20, 30, 40, 50} {
			rows = append(rows, store.Row{{Int: k}, {Text: []byte("row " + strconv.FormatInt(k, 10))}})
		}
		if err := store.InsertBatch(ctx, s, tb, rows); err != nil {
			t.Fatalf("InsertBatch: %v", err)
		}
		var got []int64
		if _, err := s.Scan(ctx, tb, store.Query{HasFrom: true, From: 15, Limit: 3}, func(r store.Row) error {
			if string(r[1].Text) != "row "+strconv.FormatInt(r[0].Int, 10) {
				t.Errorf("key %d holds %q", r[0].Int, r[1].Text)
			}
			got = append(got, r[0].Int)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if len(got) != 3 || got[0] != 20 || got[1] != 30 || got[2] != 40 {
			t.Fatalf("From 15, limit 3: keys %v, want [20 30 40]", got)
		}
		got = got[:0]
		if _, err := s.Scan(ctx, tb, store.Query{Desc: true, HasFrom: true, From: 35, Offset: 1}, func(r store.Row) error {
			got = append(got, r[0].Int)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0] != 20 || got[1] != 10 {
			t.Fatalf("desc from 35, offset 1: keys %v, want [20 10]", got)
		}
	})

	t.Run("TableNameIsTheOneAQueryUses", func(t *testing.T) {
		// The name kurabe prints (kurabe dataset import's "loaded … table
		// kurabe_postal") is one a user can paste into a query.
		st, tb, s := setup(t)
		if _, ok := st.(store.TableNamer); !ok {
			t.Skip("the store gives its tables no name of its own")
		}
		q, ok := s.(store.SQLSession)
		if !ok {
			t.Skip("the store's sessions take no SQL")
		}
		for i := range 3 {
			if err := s.Insert(ctx, tb, row(i)); err != nil {
				t.Fatal(err)
			}
		}
		var n int64 = -1
		name := store.TableName(st, tb)
		if _, _, err := q.Query(ctx, "SELECT count(*) FROM "+name, nil, func(first int64) { n = first }); err != nil || n != 3 {
			t.Fatalf("SELECT count(*) FROM %s: %d, %v; want 3", name, n, err)
		}
	})

	t.Run("ReplaceKeepsTheRowsUntilALoadSucceeds", func(t *testing.T) {
		// A reload that fails or is interrupted part way (kurabe dataset
		// import) must leave the table as it was where the store can swap
		// a staging table in (store.Swapper); a good one replaces it.
		st := open(t)
		t.Cleanup(func() { st.Close() })
		tb := &store.Table{Name: "swapped", Columns: []store.Column{{Name: "id", Kind: store.Int}, {Name: "body", Kind: store.Text}}, Indexes: [][]string{{"body"}}}
		if err := st.Setup(ctx, []*store.Table{tb}); err != nil {
			t.Fatalf("Setup: %v", err)
		}
		load := func(into *store.Table, from, to int64) (int64, error) {
			s, err := st.Open(ctx)
			if err != nil {
				return 0, err
			}
			defer s.Close()
			var rows []store.Row
			for k := from; k < to; k++ {
				rows = append(rows, store.Row{{Int: k}, {Text: []byte("row " + strconv.FormatInt(k, 10))}})
			}
			return int64(len(rows)), store.InsertBatch(ctx, s, into, rows)
		}
		if _, err := load(tb, 0, 10); err != nil {
			t.Fatalf("loading 10 rows: %v", err)
		}
		_, canSwap := st.(store.Swapper)
		broke := fmt.Errorf("the load broke off")
		for round := range 2 { // a second round swaps over a swapped table
			n, atomic, err := store.Replace(ctx, st, tb, func(into *store.Table) (int64, error) {
				n, err := load(into, 100, 105)
				if err != nil {
					return n, err
				}
				return n, broke
			})
			if atomic != canSwap || !errors.Is(err, broke) || n != 5 {
				t.Fatalf("round %d: failed Replace: %d rows, atomic %v, error %v; want 5, %v, the load's error", round, n, atomic, err, canSwap)
			}
			if !canSwap {
				return // the table is set up anew: nothing kept to check
			}
			if got := count(t, st, tb); got != int64(10+round) {
				t.Fatalf("round %d: after a failed Replace the table holds %d rows, want the %d it held", round, got, 10+round)
			}
			if _, err := st.Count(ctx, store.Staged(tb)); err == nil {
				t.Fatalf("round %d: the staging table %s is still there after a failed Replace", round, store.Staged(tb).Name)
			}
			n, _, err = store.Replace(ctx, st, tb, func(into *store.Table) (int64, error) { return load(into, 200, 211+int64(round)) })
			if err != nil || n != int64(11+round) {
				t.Fatalf("round %d: Replace: %d rows, %v", round, n, err)
			}
			if got := count(t, st, tb); got != n {
				t.Fatalf("round %d: after Replace the table holds %d rows, want %d", round, got, n)
			}
			s, err := st.Open(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var first int64 = -1
			if _, err := s.Scan(ctx, tb, store.Query{Limit: 1}, func(r store.Row) error { first = r[0].Int; return nil }); err != nil || first != 200 {
				t.Fatalf("round %d: the replaced table's first key is %d (%v), want 200", round, first, err)
			}
			s.Close()
		}
	})

	t.Run("ConcurrentWritersLoseNothing", func(t *testing.T) {
		st, tb, _ := setup(t)
		const clients, each = 16, 60
		var wg sync.WaitGroup
		errs := make(chan error, clients)
		for c := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s, err := st.Open(ctx)
				if err != nil {
					errs <- err
					return
				}
				defer s.Close()
				for i := range each {
					if err := s.Insert(ctx, tb, row(c*each+i)); err != nil {
						errs <- fmt.Errorf("client %d insert %d: %w", c, i, err)
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		if got := count(t, st, tb); got != clients*each {
			t.Fatalf("Count = %d, want %d", got, clients*each)
		}
		s, err := st.Open(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		seen := map[int64]bool{}
		for _, r := range collect(t, s, tb, store.Query{}) {
			if !bytes.Equal(r[2].Text, text(int(r[1].Int))) || seen[r[1].Int] {
				t.Fatalf("row %d corrupt or duplicated: %q", r[1].Int, r[2].Text)
			}
			seen[r[1].Int] = true
		}
		if len(seen) != clients*each {
			t.Fatalf("%d distinct rows, want %d", len(seen), clients*each)
		}
	})

	t.Run("BatchInsert", func(t *testing.T) {
		st, tb, s := setup(t)
		var rows []store.Row
		for i := range 300 {
			rows = append(rows, row(i))
		}
		if err := store.InsertBatch(ctx, s, tb, rows); err != nil {
			t.Fatalf("InsertBatch: %v", err)
		}
		if got := count(t, st, tb); got != 300 {
			t.Fatalf("Count = %d after a batch of 300", got)
		}
		fp1, err := store.TakeFingerprint(ctx, s, tb)
		if err != nil {
			t.Fatal(err)
		}
		// The same rows one by one give the same fingerprint.
		if err := store.Truncate(ctx, st, tb); err != nil {
			t.Fatalf("Truncate: %v", err)
		}
		if got := count(t, st, tb); got != 0 {
			t.Fatalf("Count = %d after Truncate", got)
		}
		for _, r := range rows {
			if err := s.Insert(ctx, tb, r); err != nil {
				t.Fatal(err)
			}
		}
		fp2, err := store.TakeFingerprint(ctx, s, tb)
		if err != nil {
			t.Fatal(err)
		}
		if fp1 != fp2 || fp1.Rows != 300 {
			t.Fatalf("fingerprints differ: batch %+v, singles %+v", fp1, fp2)
		}
	})

	t.Run("SetupAgainStartsEmpty", func(t *testing.T) {
		st, tb, s := setup(t)
		for i := range 10 {
			if err := s.Insert(ctx, tb, row(i)); err != nil {
				t.Fatal(err)
			}
		}
		s.Close()
		if err := st.Setup(ctx, []*store.Table{tb}); err != nil {
			t.Fatalf("second Setup: %v", err)
		}
		if got := count(t, st, tb); got != 0 {
			t.Fatalf("Count after second Setup = %d, want 0", got)
		}
	})

	// A session that connects per operation (store.ConnectTimer) reports
	// all the connecting since it was last asked, then starts from zero:
	// an operation made of several (a load of one statement per row) is
	// charged for every connect, and nothing is charged twice.
	t.Run("ConnectTimeSinceLastAsked", func(t *testing.T) {
		_, tb, s := setup(t)
		ct, ok := s.(store.ConnectTimer)
		if !ok {
			t.Skip("sessions keep their connection")
		}
		ct.ConnectTime()
		for i := range 2 {
			if err := s.Insert(ctx, tb, row(i)); err != nil {
				t.Fatalf("Insert: %v", err)
			}
		}
		if c := ct.ConnectTime(); c <= 0 {
			t.Fatalf("ConnectTime after two inserts = %v, want > 0", c)
		}
		if c := ct.ConnectTime(); c != 0 {
			t.Fatalf("ConnectTime asked again at once = %v, want 0", c)
		}
	})

	t.Run("InfoNamesDriver", func(t *testing.T) {
		st, _, _ := setup(t)
		info := st.Info(ctx)
		if info.Driver == "" || info.Target == "" || info.Options == nil {
			t.Fatalf("Info incomplete: %+v", info)
		}
	})

	// Sessions that can hand their waits to an event loop
	// (store.Multiplexed) must read and write the same through it, and
	// work as before once given back.
	t.Run("Multiplexed", func(t *testing.T) {
		if runtime.GOOS != "linux" {
			t.Skip("the engine's event loop runs on Linux only (epoll)")
		}
		st, tb, s := setup(t)
		m, ok := s.(store.Multiplexed)
		if !ok {
			t.Skip("this store's sessions do not multiplex")
		}
		w := &PollWaiter{}
		if !m.Multiplex(w) {
			t.Skip("this session cannot multiplex (its driver reads through Go's poller)")
		}
		// A row too big for one read makes the session wait mid-reply.
		big := bytes.Repeat([]byte("比べ"), 100_000)
		want := func(i int) []byte {
			if i == 7 {
				return big
			}
			return text(i)
		}
		insert := func(from, to int) {
			t.Helper()
			for i := from; i < to; i++ {
				if err := s.Insert(ctx, tb, store.Row{{}, {Int: int64(i)}, {Text: want(i)}}); err != nil {
					t.Fatalf("Insert %d: %v", i, err)
				}
			}
		}
		check := func(n int) {
			t.Helper()
			all := collect(t, s, tb, store.Query{})
			if len(all) != n {
				t.Fatalf("read-all returned %d rows, want %d", len(all), n)
			}
			for i, r := range all {
				if r[1].Int != int64(i) || !bytes.Equal(r[2].Text, want(i)) {
					t.Fatalf("row %d = (%d, %d bytes), want (%d, %d bytes)", i, r[1].Int, len(r[2].Text), i, len(want(i)))
				}
			}
		}
		insert(0, 50)
		check(50)
		// Every reply is waited for through the waiter, not Go's poller.
		if w.Waits < 51 {
			t.Fatalf("the multiplexed session waited %d times through the waiter for 51 replies", w.Waits)
		}
		if !m.Multiplex(nil) {
			t.Fatal("Multiplex(nil) could not give the session back")
		}
		waits := w.Waits
		insert(50, 60)
		check(60)
		if w.Waits != waits {
			t.Fatalf("the waiter was used %d times after the session was given back", w.Waits-waits)
		}
		// Closed while multiplexed, a session still says goodbye cleanly.
		if !m.Multiplex(&PollWaiter{}) {
			t.Fatal("Multiplex refused a second time")
		}
		insert(60, 61)
		if err := s.Close(); err != nil {
			t.Fatalf("Close while multiplexed: %v", err)
		}
		if n := count(t, st, tb); n != 61 {
			t.Fatalf("Count = %d, want 61", n)
		}
	})
}
