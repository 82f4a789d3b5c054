package file

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

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
	for _, spec := range []string{"file:", "file:?sync=write", "file:?sync=interval&sync_interval=10ms"} {
		t.Run(spec, func(t *testing.T) {
			storetest.Run(t, func(t *testing.T) store.Store { return open(t, spec) })
		})
	}
}

func TestManyWritersNeverInterleaveLines(t *testing.T) {
	// 100 concurrent writers of long lines: every line in the file must be
	// one whole record, as a reader of the raw file would see it.
	path := filepath.Join(t.TempDir(), "posts.txt")
	st := open(t, "file:"+path)
	defer st.Close()
	ctx := context.Background()
	tb := storetest.Table()
	if err := st.Setup(ctx, []*store.Table{tb}); err != nil {
		t.Fatal(err)
	}
	const clients, each = 100, 50
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := st.Open(ctx)
			if err != nil {
				t.Error(err)
				return
			}
			defer s.Close()
			body := bytes.Repeat([]byte{byte('A' + c%26)}, 3000+c)
			for i := range each {
				if err := s.Insert(ctx, tb, store.Row{{}, {Int: int64(c)}, {Text: body}}); err != nil {
					t.Error(err)
					return
				}
				_ = i
			}
		}()
	}
	wg.Wait()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	if len(lines) != clients*each {
		t.Fatalf("%d lines, want %d", len(lines), clients*each)
	}
	for i, l := range lines {
		n, body, ok := strings.Cut(l, "\t")
		if !ok {
			t.Fatalf("line %d has no tab: corrupt", i)
		}
		c := 0
		for _, d := range n {
			c = c*10 + int(d-'0')
		}
		want := strings.Repeat(string(rune('A'+c%26)), 3000+c)
		if body != want {
			t.Fatalf("line %d (client %d) is not one whole record", i, c)
		}
	}
}

func TestRefusesFileItDidNotCreate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mine.txt")
	if err := os.WriteFile(path, []byte("someone's data\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st := open(t, "file:"+path)
	err := st.Setup(context.Background(), []*store.Table{storetest.Table()})
	if !errors.Is(err, store.ErrNotOwned) {
		t.Fatalf("Setup on a foreign file: err = %v, want ErrNotOwned", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "someone's data\n" {
		t.Fatalf("foreign file was changed: %q", b)
	}
}

func TestLatestReadsOnlyTheTail(t *testing.T) {
	// read-latest must not scan the whole file: corrupt the head of a large
	// file and the newest rows still read back.
	path := filepath.Join(t.TempDir(), "posts.txt")
	st := open(t, "file:"+path)
	ctx := context.Background()
	tb := storetest.Table()
	if err := st.Setup(ctx, []*store.Table{tb}); err != nil {
		t.Fatal(err)
	}
	s, _ := st.Open(ctx)
	defer s.Close()
	var rows []store.Row
	for i := range 20000 {
		rows = append(rows, store.Row{{}, {Int: int64(i)}, {Text: []byte("some post text of moderate length")}})
	}
	if err := store.InsertBatch(ctx, s, tb, rows); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(path, os.O_WRONLY, 0)
	f.WriteAt([]byte("garbage without tabs"), 0)
	f.Close()
	var got []int64
	if _, err := s.Scan(ctx, tb, store.Query{Desc: true, Limit: 100}, func(r store.Row) error {
		got = append(got, r[1].Int)
		return nil
	}); err != nil {
		t.Fatalf("latest(100): %v", err)
	}
	if len(got) != 100 || got[0] != 19999 || got[99] != 19900 {
		t.Fatalf("latest(100) = %d rows from %v", len(got), got[:min(3, len(got))])
	}
	// A full scan does reach the corrupt line and says so.
	if _, err := s.Scan(ctx, tb, store.Query{}, func(store.Row) error { return nil }); err == nil || !strings.Contains(err.Error(), "corrupt") {
		t.Fatalf("full scan of corrupt file: err = %v, want a corruption error", err)
	}
}

func TestBadOptions(t *testing.T) {
	cases := []struct{ spec, want string }{
		{"file:?sync=sometimes", "sync"},                                  // unknown mode
		{"file:?sync_interval=-1s", "sync_interval"},                      // not positive
		{"file:?fsync=1", "unknown option"},                               // misspelt option
		{"file:?synk=write", `unknown option "synk" (did you mean sync?`}, // one letter off: named
	}
	for _, c := range cases {
		sp, _ := store.ParseSpec(c.spec)
		_, err := Open(context.Background(), sp, store.Env{Dir: t.TempDir()})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want mention of %q", c.spec, err, c.want)
		}
	}
}

func TestClientKeysMustAscend(t *testing.T) {
	st := open(t, "file:")
	ctx := context.Background()
	tb := &store.Table{Name: "keyed", Columns: []store.Column{{Name: "id", Kind: store.Int}, {Name: "v", Kind: store.Text}}}
	if err := st.Setup(ctx, []*store.Table{tb}); err != nil {
		t.Fatal(err)
	}
	s, _ := st.Open(ctx)
	defer s.Close()
	if err := s.Insert(ctx, tb, store.Row{{Int: 5}, {Text: []byte("a")}}); err != nil {
		t.Fatal(err)
	}
	err := s.Insert(ctx, tb, store.Row{{Int: 3}, {Text: []byte("b")}})
	if err == nil || !strings.Contains(err.Error(), "increasing order") {
		t.Fatalf("out-of-order key accepted: %v", err)
	}
	// Its class fails the run (kurabe should never have sent it).
	if c := store.Classify(err); c != store.ClassKeyOrder {
		t.Errorf("out-of-order key refused with class %q, want %q", c, store.ClassKeyOrder)
	}
	err = s.(store.BatchInserter).InsertBatch(ctx, tb, []store.Row{{{Int: 9}, {Text: []byte("c")}}, {{Int: 8}, {Text: []byte("d")}}})
	if c := store.Classify(err); err == nil || c != store.ClassKeyOrder {
		t.Errorf("batch out of key order: %v (class %q), want class %q", err, c, store.ClassKeyOrder)
	}
	if n, _ := st.Count(ctx, tb); n != 1 {
		t.Fatalf("count %d after a refused insert", n)
	}
}

// sync= is a keyword, taken in any case as the other stores' are.
func TestSyncInAnyCase(t *testing.T) {
	sp, _ := store.ParseSpec("file:?sync=WRITE")
	st, err := Open(context.Background(), sp, store.Env{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if got := st.Info(context.Background()).Options["sync"]; got != "write" {
		t.Errorf("sync=WRITE read back as %q, want write", got)
	}
}

// A write that finds the file system full part way through its line is
// cut back off, so the file stays whole: the failed insert is an error of
// class disk-full, every acknowledged row reads back, and the next write,
// once there is room again, starts a line of its own rather than being
// glued onto the torn one.
func TestFullDiskLeavesNoTornLine(t *testing.T) {
	dir := storetest.SmallFS(t, 1<<20)
	path := filepath.Join(dir, "posts.txt")
	st := open(t, "file:"+path)
	defer st.Close()
	ctx := context.Background()
	tb := storetest.Table()
	if err := st.Setup(ctx, []*store.Table{tb}); err != nil {
		t.Fatal(err)
	}
	filler := storetest.Fill(t, dir, 64<<10)
	s, err := st.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// 3,000-byte lines over 4 KiB pages: the write that finds no page
	// left has written into the last page's tail first.
	body := bytes.Repeat([]byte("x"), 3000)
	ok, size := 0, int64(0) // rows acknowledged, and their lines' bytes
	for ; ; ok++ {
		err = s.Insert(ctx, tb, store.Row{{}, {Int: int64(ok)}, {Text: body}})
		if err != nil {
			break
		}
		size += int64(len(strconv.Itoa(ok)) + 1 + len(body) + 1)
		if ok > 1000 {
			t.Fatal("the file system never filled")
		}
	}
	if c := store.Classify(err); c != "disk-full" {
		t.Errorf("write on a full file system: %v (class %q), want class disk-full", err, c)
	}
	if fi, _ := os.Stat(path); fi.Size() != size {
		t.Errorf("after the failed write the file is %d bytes, want the %d of the %d lines acknowledged", fi.Size(), size, ok)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if err := s.Insert(ctx, tb, store.Row{{}, {Int: int64(ok)}, {Text: body}}); err != nil {
		t.Fatalf("write once there was room again: %v", err)
	}
	ok++
	n, err := s.Scan(ctx, tb, store.Query{}, func(r store.Row) error {
		if len(r[2].Text) != len(body) {
			t.Errorf("row %d has a body of %d bytes, want %d", r[1].Int, len(r[2].Text), len(body))
		}
		return nil
	})
	if err != nil || n != ok {
		t.Fatalf("reading back: %d rows, %v; want the %d acknowledged", n, err, ok)
	}
}

// A periodic fsync that fails (sync=interval) is not let pass: from then
// on every write fails with its error, so nothing written after it is
// taken for stored, and Close reports the failed fsyncs with when the
// first failed, which fails the run. The disk is a fake: fsync fails from
// its third call on, as an ext4 whose write-back hit EIO does (making a
// real one needs a loop device, see the commit).
func TestFailedIntervalSyncIsReported(t *testing.T) {
	st := open(t, "file:?sync=interval&sync_interval=2ms").(*Store)
	var calls atomic.Int64
	st.fsync = func(f *os.File) error {
		if calls.Add(1) >= 3 {
			return &os.PathError{Op: "sync", Path: f.Name(), Err: syscall.EIO}
		}
		return f.Sync()
	}
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
	ok := int64(0)
	for ; ok < 10; ok++ {
		if err := s.Insert(ctx, tb, store.Row{{}, {Int: ok}, {Text: []byte("post")}}); err != nil && calls.Load() < 3 {
			t.Fatalf("write before any fsync failed: %v", err)
		} else if err != nil {
			break
		}
	}
	for i := 0; calls.Load() < 3; i++ { // until the fake disk has failed
		if i == 1000 {
			t.Fatal("the syncer did not fsync 3 times in 10 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	err = s.Insert(ctx, tb, store.Row{{}, {Int: ok}, {Text: []byte("post")}})
	if c := store.Classify(err); c != "fsync" || !strings.Contains(err.Error(), "input/output error") {
		t.Errorf("write after a failed fsync: %v (class %q), want class fsync with the disk's error", err, c)
	}
	if err := s.Insert(ctx, tb, store.Row{{}, {Int: -1}, {Text: []byte("post")}}); err == nil {
		t.Error("a later write was taken: the failed fsync was forgotten")
	}
	if n, _ := st.Count(ctx, tb); n != ok {
		t.Errorf("the file holds %d rows, want the %d acknowledged", n, ok)
	}
	cerr := st.Close()
	if cerr == nil || !strings.Contains(cerr.Error(), "fsync failed from") || !strings.Contains(cerr.Error(), "the final one at close too") {
		t.Fatalf("Close after failed fsyncs: %v, want them reported with when they began", cerr)
	}
}

// Two kurabes on one file store, given as a directory or as a file: the
// second is refused until the first lets go.
func TestLock(t *testing.T) {
	dir := t.TempDir()
	for _, target := range []string{dir + "/", filepath.Join(dir, "posts.txt")} {
		storetest.RunLock(t, func(t *testing.T) store.Store {
			sp, _ := store.ParseSpec("file:" + target)
			st, err := Open(context.Background(), sp, store.Env{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		}, "another kurabe test is using kurabe's tables", "pid ")
	}
}

func TestSessionsBorrowReadBuffers(t *testing.T) {
	// A session holds no read buffer of its own (64 KiB each cost
	// gigabytes at -c 100000, in phases that only write too): opening
	// many allocates little, scans one after another reuse one buffer,
	// and scans at once, each on a buffer of its own, read their rows
	// right (run with -race), long lines that grow a buffer included.
	st := open(t, "file:")
	ctx := context.Background()
	tb := storetest.Table()
	if err := st.Setup(ctx, []*store.Table{tb}); err != nil {
		t.Fatal(err)
	}
	const sessions = 500
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ss := make([]store.Session, sessions)
	for i := range ss {
		s, err := st.Open(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		ss[i] = s
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / sessions; per > 4<<10 {
		t.Errorf("opening a session allocated %d bytes, want well under the 64 KiB read buffer", per)
	}
	var rows []store.Row
	for i := range 2000 {
		body := []byte("short post")
		if i%500 == 0 {
			body = bytes.Repeat([]byte{'x'}, 150<<10) // more than a buffer
		}
		rows = append(rows, store.Row{{}, {Int: int64(i)}, {Text: body}})
	}
	if err := store.InsertBatch(ctx, ss[0], tb, rows); err != nil {
		t.Fatal(err)
	}
	check := func(s store.Session, q store.Query) error {
		want := int64(0)
		if q.Desc {
			want = 1999
		}
		n, err := s.Scan(ctx, tb, q, func(r store.Row) error {
			if r[1].Int != want || (want%500 == 0) != (len(r[2].Text) == 150<<10) {
				return fmt.Errorf("row %d (%d bytes of text) where row %d was due", r[1].Int, len(r[2].Text), want)
			}
			if q.Desc {
				want--
			} else {
				want++
			}
			return nil
		})
		if all := cmp.Or(q.Limit, 2000); err == nil && n != all {
			err = fmt.Errorf("%d rows, want %d", n, all)
		}
		return err
	}
	check(ss[0], store.Query{}) // the first scans take buffers
	check(ss[1], store.Query{Desc: true})
	runtime.ReadMemStats(&before)
	for i, s := range ss[:100] {
		if err := check(s, store.Query{Desc: i%2 == 1, Limit: 100 * (i % 2)}); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / 100; per > 16<<10 && !raceEnabled {
		t.Errorf("a scan after another allocated %d bytes, want the buffer reused", per)
	}
	var wg sync.WaitGroup
	for i, s := range ss[:20] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				if err := check(s, store.Query{Desc: i%2 == 1}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}
