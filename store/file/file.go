// Package file is the append-only text file store: one record per line,
// fields separated by tabs, the way a small PHP or Node message board keeps
// its posts.
//
// Lines from many clients never interleave: each session owns a descriptor
// opened with O_APPEND and writes a whole line with one write(2), which the
// kernel applies atomically for regular files. Writers do not wait for
// each other, as on a hand-written board: each holds a read-write lock
// shared around its write(2), which only a write that failed part way (a
// full disk) takes alone, to cut its torn line back off once every other
// write under way has finished, so the next line does not glue onto it.
// A row's key is the byte offset of its line plus one, so keys grow in
// insertion order without any coordination between writers.
//
// Reading the latest N rows reads backwards from the end of the file in
// growing chunks and never scans the whole file.
package file

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"kurabe/store"
)

const (
	markerSuffix = ".kurabe"
	chunk        = 64 << 10
)

type syncMode int

const (
	syncNone syncMode = iota
	syncWrite
	syncInterval
)

var syncNames = []string{"none", "write", "interval"}

// Store is an append-only text file store.
type Store struct {
	target   string // as given: a file, a directory, or empty
	dir      string // where tables live when target is not a file
	sync     syncMode
	interval time.Duration

	mu    sync.Mutex
	paths map[string]string    // table name -> file
	apps  map[string]*appender // file -> what its writers share
	// orderMu orders the writes of tables with keys given by clients:
	// it is held from checking a write's keys to the write itself, so
	// two clients cannot pass the check in one order and write in the
	// other. lastKey is under it.
	orderMu sync.Mutex
	lastKey map[string]int64 // tables with keys given by clients: the highest written
	first   string           // first table set up, which takes the target path
	// throwaway: the tables are in kurabe's own data directory, which no
	// other kurabe can reach (no lock).
	throwaway bool

	stopSync chan struct{}
	syncDone chan struct{}
	// syncFailed is the first periodic fsync that failed (sync=interval):
	// from then on every write fails with its error, since the rows
	// written before it may never reach the disk and a later fsync that
	// succeeds does not say they did (Linux reports a failed write-back
	// once, and marks the pages clean).
	syncFailed atomic.Pointer[syncFailure]
	// syncErr is what Close reports of the syncer: failed syncs, the
	// final one's too. Set by the syncer before syncDone closes.
	syncErr error
	// fsync is (*os.File).Sync, replaced in tests by a fake that fails.
	fsync func(*os.File) error
	// scanBufs are the buffers of a scan (*scanBufs), lent to a session
	// for each. A read buffer of its own per session cost 64 KiB a
	// client, gigabytes at -c 100000 even in phases that only write, and
	// few scans run at once: a scan makes new buffers when every set is
	// out, as at a phase's first scans, or when two garbage collections
	// in a row emptied the pool (a sync.Pool keeps its sets through one;
	// the measured loop allocates nothing, so collections are rare).
	scanBufs sync.Pool
}

// scanBufs are a scan's buffers, kept from one scan to the next.
type scanBufs struct {
	rbuf []byte // chunk bytes, or grown
	ends []int
}

// syncFailure is a failed periodic fsync.
type syncFailure struct {
	at    time.Time
	after time.Duration // since the syncer started
	path  string
	err   error
	opErr error // what each write fails with from then on
}

// Open opens a file store. Options: sync=none|write|interval and
// sync_interval (a duration, default 1s).
func Open(ctx context.Context, spec store.Spec, env store.Env) (store.Store, error) {
	o := store.NewOptions(spec)
	mode := strings.ToLower(o.Get("sync", "none"))
	ivs := o.Get("sync_interval", "1s")
	if err := o.Check(); err != nil {
		return nil, err
	}
	s := &Store{target: spec.Target, paths: map[string]string{}, apps: map[string]*appender{}, lastKey: map[string]int64{}, fsync: (*os.File).Sync}
	s.scanBufs.New = func() any { return &scanBufs{rbuf: make([]byte, chunk)} }
	switch i := indexOf(syncNames, mode); i {
	case -1:
		return nil, &store.OptionError{Driver: "file", Name: "sync", Value: mode, Want: strings.Join(syncNames, ", ")}
	default:
		s.sync = syncMode(i)
	}
	iv, err := time.ParseDuration(ivs)
	if err != nil || iv <= 0 {
		return nil, &store.OptionError{Driver: "file", Name: "sync_interval", Value: ivs, Want: "a positive duration such as 1s or 200ms"}
	}
	s.interval = iv
	switch {
	case spec.Target == "":
		if env.Dir == "" {
			return nil, errors.New("file: no path given and no data directory; give file:/path/to/posts.txt")
		}
		s.dir = env.Dir
		s.throwaway = true
	case strings.HasSuffix(spec.Target, "/") || isDir(spec.Target):
		s.dir = spec.Target
	}
	return s, nil
}

// LockName is the absolute path of the lock file: .kurabe-lock in the
// store's directory, or beside the target file. It is "" for tables in
// kurabe's own data directory.
func (s *Store) LockName() string {
	if s.throwaway {
		return ""
	}
	p := s.target + ".kurabe-lock"
	if s.dir != "" {
		p = filepath.Join(s.dir, ".kurabe-lock")
	}
	if a, err := filepath.Abs(p); err == nil {
		p = a
	}
	return p
}

// Lock takes the flock on the file LockName names. A directory that does
// not exist yet is made, as Setup would.
func (s *Store) Lock(ctx context.Context, me store.Holder) (io.Closer, error) {
	p := s.LockName()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return nil, fmt.Errorf("file: cannot create %s: %v; choose a writable path", filepath.Dir(p), err)
	}
	what := "kurabe's tables in " + s.dir
	if s.dir == "" {
		what = "kurabe's tables at " + s.target
	}
	return store.LockFile(p, what, "another path", me)
}

// FilesPerTable is how many files the store holds open for each table
// through a run, besides its sessions' (one each per table they use): with
// sync=interval its syncer keeps every table's file open to flush it.
func FilesPerTable(spec store.Spec) int {
	if strings.EqualFold(spec.Options.Get("sync"), "interval") {
		return 1
	}
	return 0
}

func indexOf(list []string, v string) int {
	for i, x := range list {
		if x == v {
			return i
		}
	}
	return -1
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// path returns the file that holds table t: the target itself for the first
// table when the target names a file, and name.txt in the directory (or
// beside the target) otherwise.
func (s *Store) path(name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p, ok := s.paths[name]; ok {
		return p
	}
	var p string
	switch {
	case s.dir != "":
		p = filepath.Join(s.dir, name+".txt")
	case s.first == "":
		s.first = name
		p = s.target
	default:
		p = s.target + "." + name + ".txt"
	}
	s.paths[name] = p
	return p
}

// appender returns what the writers of file p share.
func (s *Store) appender(p string) *appender {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.apps[p]
	if a == nil {
		a = &appender{path: p}
		s.apps[p] = a
	}
	return a
}

// Setup creates each table's file empty. An existing file is emptied only
// if kurabe created it (a marker file sits beside it); a non-empty file
// without the marker is left alone and reported.
func (s *Store) Setup(ctx context.Context, tables []*store.Table) error {
	for _, t := range tables {
		p := s.path(t.Name)
		if dir := filepath.Dir(p); dir != "" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return fmt.Errorf("file: cannot create directory for %s: %v; choose a writable path", p, err)
			}
		}
		fi, err := os.Stat(p)
		switch {
		case err == nil && fi.IsDir():
			return fmt.Errorf("file: %s is a directory; give a file path or end it with / to use it as a directory", p)
		case err == nil && fi.Size() > 0:
			if _, merr := os.Stat(p + markerSuffix); merr != nil {
				return fmt.Errorf("file: %s already holds data and was %w (no %s beside it); choose another path or remove it", p, store.ErrNotOwned, filepath.Base(p)+markerSuffix)
			}
		case err != nil && !errors.Is(err, os.ErrNotExist):
			return fmt.Errorf("file: %v", err)
		}
		if err := os.WriteFile(p+markerSuffix, []byte("created by kurabe; the file beside it may be emptied by kurabe\n"), 0o644); err != nil {
			return fmt.Errorf("file: cannot write %s: %v; choose a writable path", p+markerSuffix, err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			return fmt.Errorf("file: cannot create %s: %v; choose a writable path", p, err)
		}
		s.orderMu.Lock()
		delete(s.lastKey, t.Name)
		s.orderMu.Unlock()
	}
	if s.sync == syncInterval && s.stopSync == nil {
		s.startSyncer(tables)
	}
	return nil
}

// startSyncer flushes the files to disk every interval, as a board that
// relies on a periodic flush would. A failed flush is not let pass, as
// such a board would: from then on writes fail with its error, and
// Close reports every failed flush.
func (s *Store) startSyncer(tables []*store.Table) {
	var files []*os.File
	for _, t := range tables {
		if f, err := os.Open(s.path(t.Name)); err == nil {
			files = append(files, f)
		}
	}
	s.stopSync, s.syncDone = make(chan struct{}), make(chan struct{})
	start := time.Now()
	go func() {
		defer close(s.syncDone)
		tick := time.NewTicker(s.interval)
		defer tick.Stop()
		syncs, failed := 0, 0
		syncAll := func() {
			for _, f := range files {
				syncs++
				if err := s.fsync(f); err != nil {
					failed++
					s.syncFailedAt(f.Name(), err, start)
				}
			}
		}
		for {
			select {
			case <-tick.C:
				syncAll()
			case <-s.stopSync:
				before := failed
				syncAll()
				var errs []error
				if sf := s.syncFailed.Load(); sf != nil {
					last := ""
					if failed > before {
						last = ", the final one at close too"
					}
					errs = append(errs, fmt.Errorf("file: sync=interval: fsync failed from %s on (%.2f s after the store was set up; %d of %d fsyncs failed%s), first on %s: %v; the rows written before it may not be on disk, and the writes from then on were refused", sf.at.Format("15:04:05.000"), sf.after.Seconds(), failed, syncs, last, sf.path, sf.err))
				}
				for _, f := range files {
					if err := f.Close(); err != nil {
						errs = append(errs, fmt.Errorf("file: closing %s after its last fsync: %v", f.Name(), err))
					}
				}
				s.syncErr = errors.Join(errs...)
				return
			}
		}
	}()
}

// syncFailedAt records the first failed fsync, with the error each write
// fails with from then on (built once, so that writes refused do not
// allocate).
func (s *Store) syncFailedAt(path string, err error, start time.Time) {
	if s.syncFailed.Load() != nil {
		return
	}
	now := time.Now()
	sf := &syncFailure{at: now, after: now.Sub(start), path: path, err: err}
	msg := fmt.Errorf("file: sync=interval: the fsync of %s failed at %s (%.2f s after the store was set up): %w; the rows written before it may not be on disk, so the store takes no more writes", path, now.Format("15:04:05.000"), sf.after.Seconds(), err)
	class := "fsync"
	if isFull(err) {
		class = store.ClassDiskFull
		msg = fmt.Errorf("%w; free space on its file system and run again", msg)
	}
	sf.opErr = &store.ClassError{Class: class, Err: msg}
	s.syncFailed.Store(sf)
}

// Truncate empties a table's file.
func (s *Store) Truncate(ctx context.Context, t *store.Table) error {
	s.orderMu.Lock()
	delete(s.lastKey, t.Name)
	s.orderMu.Unlock()
	return os.Truncate(s.path(t.Name), 0)
}

// Open returns a session with its own descriptors.
func (s *Store) Open(ctx context.Context) (store.Session, error) {
	return &session{st: s}, nil
}

// Count counts the lines of t's file.
func (s *Store) Count(ctx context.Context, t *store.Table) (int64, error) {
	f, err := os.Open(s.path(t.Name))
	if err != nil {
		return 0, fmt.Errorf("file: %v", err)
	}
	defer f.Close()
	buf := make([]byte, 256<<10)
	var n int64
	for {
		k, err := f.Read(buf)
		n += int64(bytes.Count(buf[:k], []byte{'\n'}))
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, fmt.Errorf("file: %v", err)
		}
	}
}

// Info describes the store.
func (s *Store) Info(ctx context.Context) store.Info {
	target := s.target
	if s.dir != "" {
		target = s.dir
	}
	opts := map[string]string{"sync": syncNames[s.sync]}
	if s.sync == syncInterval {
		opts["sync_interval"] = s.interval.String()
	}
	return store.Info{Driver: "file", Target: target, Options: opts}
}

// Close stops the interval syncer, flushing once more, and reports the
// flushes that failed (with when the first did), the last one's too.
func (s *Store) Close() error {
	if s.stopSync != nil {
		close(s.stopSync)
		<-s.syncDone
		s.stopSync = nil
	}
	return s.syncErr
}

type session struct {
	st    *Store
	files []*handle // by table ID
	wbuf  []byte    // the line being written
	rbuf  []byte    // during a scan (Store.scanBufs): read buffer, grows for read-latest
	ubuf  []byte    // unescaped text of the current row
	row   store.Row
	spans [][2]int // where each escaped text field lies in ubuf
	flt   filter   // the current scan's From, Offset and Limit
	ends  []int    // during a scan: line ends found while reading backwards
}

// handle is a session's descriptor on one table's file.
type handle struct {
	f   *os.File
	fd  int // f's, written with write(2) directly: see writeLine
	app *appender
}

func (s *session) file(t *store.Table) (*handle, error) {
	for len(s.files) <= t.ID {
		s.files = append(s.files, nil)
	}
	if h := s.files[t.ID]; h != nil {
		return h, nil
	}
	p := s.st.path(t.Name)
	f, err := os.OpenFile(p, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return nil, fmt.Errorf("file: %v", err)
	}
	h := &handle{f: f, fd: int(f.Fd()), app: s.st.appender(p)}
	s.files[t.ID] = h
	return h, nil
}

func (s *session) Close() error {
	var first error
	for _, h := range s.files {
		if h != nil {
			if err := h.f.Close(); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}

func (s *session) Insert(ctx context.Context, t *store.Table, row store.Row) error {
	h, err := s.file(t)
	if err != nil {
		return err
	}
	s.wbuf = appendLine(s.wbuf[:0], t, row)
	if !t.AutoKey {
		if err := s.st.inOrder(t, row[0].Int, row[0].Int); err != nil {
			return err
		}
		defer s.st.orderMu.Unlock()
	}
	return s.write(h)
}

// InsertBatch writes all rows with one write(2).
func (s *session) InsertBatch(ctx context.Context, t *store.Table, rows []store.Row) error {
	h, err := s.file(t)
	if err != nil {
		return err
	}
	if !t.AutoKey && len(rows) > 0 {
		for i := 1; i < len(rows); i++ {
			if rows[i][0].Int <= rows[i-1][0].Int {
				return keyOrderError(t, rows[i][0].Int, rows[i-1][0].Int)
			}
		}
	}
	s.wbuf = s.wbuf[:0]
	for _, r := range rows {
		s.wbuf = appendLine(s.wbuf, t, r)
	}
	if !t.AutoKey && len(rows) > 0 {
		if err := s.st.inOrder(t, rows[0][0].Int, rows[len(rows)-1][0].Int); err != nil {
			return err
		}
		defer s.st.orderMu.Unlock()
	}
	return s.write(h)
}

// inOrder checks that keys first..last come after every key written so
// far to t, and records last. A file is ordered by the order of writes, so
// a table with client-given keys must be written in key order. On success
// it returns holding orderMu, which the caller releases after its write.
func (st *Store) inOrder(t *store.Table, first, last int64) error {
	st.orderMu.Lock()
	if prev, ok := st.lastKey[t.Name]; ok && first <= prev {
		st.orderMu.Unlock()
		return keyOrderError(t, first, prev)
	}
	st.lastKey[t.Name] = last
	return nil
}

// keyOrderError is the refusal of key got after key prev, of class
// key-order: not the store failing under load, but a write kurabe should
// not have given it (the command line refuses a workload that would,
// before the run), so a run that meets one fails.
func keyOrderError(t *store.Table, got, prev int64) error {
	return &store.ClassError{Class: store.ClassKeyOrder, Err: fmt.Errorf("file: %s: keys must be written in increasing order (the file keeps rows in the order written); got %d after %d", t.Name, got, prev)}
}

func (s *session) write(h *handle) error {
	if sf := s.st.syncFailed.Load(); sf != nil {
		return sf.opErr
	}
	a := h.app
	a.mu.RLock()
	n, err := writeLine(h.fd, s.wbuf)
	if err == nil {
		a.mu.RUnlock()
		if s.st.sync == syncWrite {
			if err := h.f.Sync(); err != nil {
				return fmt.Errorf("file: fsync: %w", err)
			}
		}
		return nil
	}
	var torn span
	if n > 0 {
		// The descriptor's offset is the end of what this write put
		// in (O_APPEND moved it to the end first): its torn part is
		// the n bytes before. Recorded before the shared lock is let
		// go, so that whoever cuts sees every torn write.
		end, serr := h.f.Seek(0, io.SeekCurrent)
		if serr != nil {
			a.mu.RUnlock()
			return fmt.Errorf("file: write to %s failed part way (%d of %d bytes: %v), and where it ended could not be read (%v); the file is corrupt from there", a.path, n, len(s.wbuf), err, serr)
		}
		torn = span{end - int64(n), end}
		a.tmu.Lock()
		a.torn = append(a.torn, torn)
		a.tmu.Unlock()
	}
	a.mu.RUnlock()
	what := "nothing written"
	if n > 0 {
		if cerr := a.cut(h.f, torn); cerr != nil {
			return classed(fmt.Errorf("file: write to %s failed part way (%d of %d bytes: %w), and %v", a.path, n, len(s.wbuf), err, cerr))
		}
		what = fmt.Sprintf("%d of %d bytes written and cut back off, so the file holds whole lines only", n, len(s.wbuf))
	}
	err = fmt.Errorf("file: write to %s: %w (%s)", a.path, err, what)
	if isFull(err) {
		err = fmt.Errorf("%w; free space on its file system and run again", err)
	}
	return classed(err)
}

// classed gives a failed write on a full file system the class
// disk-full.
func classed(err error) error {
	if isFull(err) {
		return &store.ClassError{Class: store.ClassDiskFull, Err: err}
	}
	return err
}

func isFull(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// writeLine writes b with one write(2), as os.File.Write does not: after
// a short write it writes the rest with another, which may land after a
// line another client appended in between.
func writeLine(fd int, b []byte) (int, error) {
	for {
		n, err := syscall.Write(fd, b)
		if err == syscall.EINTR {
			continue // nothing written
		}
		if err != nil {
			return max(n, 0), err
		}
		if n < len(b) {
			// Part written and the reason not given (the kernel
			// reports the bytes written): a full file system, when it
			// has no room left for the rest.
			var fs syscall.Statfs_t
			if syscall.Fstatfs(fd, &fs) == nil && int64(fs.Bavail)*int64(fs.Bsize) < int64(len(b)-n) {
				return n, syscall.ENOSPC
			}
			return n, io.ErrShortWrite
		}
		return n, nil
	}
}

// appender is what the sessions writing one file share.
type appender struct {
	path string
	// mu is held shared around every write(2), which costs writers
	// nothing against each other (the kernel orders their appends), and
	// alone by a writer cutting its torn line off, so that every write
	// under way has finished when it looks at the file's end.
	mu   sync.RWMutex
	tmu  sync.Mutex
	torn []span // writes that failed part way, not yet cut off; under tmu
}

// span is where a write's bytes lie in the file.
type span struct{ start, end int64 }

// cut takes torn off the end of the file, with every other torn write
// that ends the file after it (several clients' writes may fail part way
// one after another as the disk fills). It fails when a whole line was
// appended after torn before the writers stopped, which needs room to
// come free in between: that line cannot be moved, and the torn one stays.
func (a *appender) cut(f *os.File, torn span) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.tmu.Lock()
	defer a.tmu.Unlock()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("its size could not be read to cut it off (%v); the file may be corrupt from byte %d", err, torn.start)
	}
	size := fi.Size()
	for {
		i := slices.IndexFunc(a.torn, func(sp span) bool { return sp.end == size })
		if i < 0 {
			break
		}
		size = a.torn[i].start
		a.torn = slices.Delete(a.torn, i, i+1)
	}
	if size < fi.Size() {
		if err := f.Truncate(size); err != nil {
			return fmt.Errorf("cutting it off failed (%v); the file is corrupt from byte %d", err, size)
		}
	}
	if i := slices.Index(a.torn, torn); i >= 0 {
		a.torn = slices.Delete(a.torn, i, i+1)
		return fmt.Errorf("another client's line was appended after it before it could be cut off; the line at byte %d is torn and a full read of the file will fail there", torn.start)
	}
	return nil
}

// appendLine encodes a row: fields joined by tabs, the key left out when the
// store assigns it, and backslash, tab, CR and LF escaped in text.
func appendLine(b []byte, t *store.Table, row store.Row) []byte {
	first := 0
	if t.AutoKey {
		first = 1
	}
	for i := first; i < len(t.Columns); i++ {
		if i > first {
			b = append(b, '\t')
		}
		if t.Columns[i].Kind == store.Int {
			b = strconv.AppendInt(b, row[i].Int, 10)
			continue
		}
		for _, c := range row[i].Text {
			switch c {
			case '\\':
				b = append(b, '\\', '\\')
			case '\t':
				b = append(b, '\\', 't')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			default:
				b = append(b, c)
			}
		}
	}
	return append(b, '\n')
}

// parseLine decodes one line (without its newline) into s.row. key is the
// line's offset plus one, used for AutoKey tables. Text without escapes
// points into the line; escaped text is decoded into s.ubuf, and attached
// only once all fields are decoded, since ubuf may move while it grows.
func (s *session) parseLine(t *store.Table, line []byte, key int64) error {
	ncol := len(t.Columns)
	if cap(s.row) < ncol {
		s.row = make(store.Row, ncol)
		s.spans = make([][2]int, ncol)
	}
	s.row = s.row[:ncol]
	first := 0
	if t.AutoKey {
		first = 1
		s.row[0] = store.Value{Int: key}
	}
	s.ubuf = s.ubuf[:0]
	for i := first; i < ncol; i++ {
		field := line
		if j := bytes.IndexByte(line, '\t'); j >= 0 && i < ncol-1 {
			field, line = line[:j], line[j+1:]
		} else if i < ncol-1 {
			return fmt.Errorf("file: %s: line at byte %d has %d fields, want %d; the file is corrupt", t.Name, key-1, i-first+1, ncol-first)
		} else if j >= 0 {
			return fmt.Errorf("file: %s: line at byte %d has more than %d fields; the file is corrupt", t.Name, key-1, ncol-first)
		}
		s.spans[i] = [2]int{-1, 0}
		if t.Columns[i].Kind == store.Int {
			v, err := strconv.ParseInt(string(field), 10, 64)
			if err != nil {
				return fmt.Errorf("file: %s: line at byte %d: column %s is not an integer: %q; the file is corrupt", t.Name, key-1, t.Columns[i].Name, field)
			}
			s.row[i] = store.Value{Int: v}
			continue
		}
		if bytes.IndexByte(field, '\\') < 0 {
			s.row[i] = store.Value{Text: field}
			continue
		}
		start := len(s.ubuf)
		for k := 0; k < len(field); k++ {
			c := field[k]
			if c == '\\' && k+1 < len(field) {
				k++
				switch field[k] {
				case 't':
					c = '\t'
				case 'n':
					c = '\n'
				case 'r':
					c = '\r'
				default:
					c = field[k]
				}
			}
			s.ubuf = append(s.ubuf, c)
		}
		s.spans[i] = [2]int{start, len(s.ubuf)}
	}
	for i := first; i < ncol; i++ {
		if sp := s.spans[i]; sp[0] >= 0 {
			s.row[i] = store.Value{Text: s.ubuf[sp[0]:sp[1]]}
		}
	}
	return nil
}

func (s *session) Scan(ctx context.Context, t *store.Table, q store.Query, fn func(store.Row) error) (int, error) {
	h, err := s.file(t)
	if err != nil {
		return 0, err
	}
	s.flt = filter{q: q, fn: fn, seekable: t.AutoKey}
	b := s.st.scanBufs.Get().(*scanBufs)
	s.rbuf, s.ends = b.rbuf, b.ends
	if q.Desc {
		err = s.scanDesc(h.f, t)
	} else {
		err = s.scanAsc(h.f, t)
	}
	b.rbuf, b.ends = s.rbuf, s.ends // grown or not, for the next scan
	s.rbuf, s.ends = nil, nil
	s.st.scanBufs.Put(b)
	return s.flt.n, err
}

// filter applies a query's From, Offset and Limit to rows in scan order.
// With AutoKey the key is the line's byte offset, so the scans seek to
// From instead of filtering, and the filter only counts.
type filter struct {
	q        store.Query
	fn       func(store.Row) error
	seekable bool
	skipped  int
	n        int
}

// take offers one row; done reports that the scan may stop.
func (f *filter) take(r store.Row) (done bool, err error) {
	if f.q.HasFrom && !f.seekable {
		k := r[0].Int
		if (!f.q.Desc && k < f.q.From) || (f.q.Desc && k > f.q.From) {
			return false, nil
		}
	}
	if f.skipped < f.q.Offset {
		f.skipped++
		return false, nil
	}
	if err := f.fn(r); err != nil {
		return true, err
	}
	f.n++
	return f.q.Limit > 0 && f.n >= f.q.Limit, nil
}

// scanAsc streams the file from the start, or from the line at or after
// From's byte offset, with one buffer.
func (s *session) scanAsc(f *os.File, t *store.Table) error {
	var off int64 // file offset of rbuf[0]
	skipPartial := false
	if s.flt.q.HasFrom && s.flt.seekable && s.flt.q.From > 1 {
		off = s.flt.q.From - 1
		// Start at a line boundary: if From falls inside a line, that
		// line's key is below From, so it is skipped.
		var prev [1]byte
		if _, err := f.ReadAt(prev[:], off-1); err != nil && err != io.EOF {
			return fmt.Errorf("file: read: %w", err)
		}
		skipPartial = prev[0] != '\n'
	}
	have := 0 // bytes in rbuf
	for {
		k, err := f.ReadAt(s.rbuf[have:], off+int64(have))
		have += k
		start := 0
		for {
			j := bytes.IndexByte(s.rbuf[start:have], '\n')
			if j < 0 {
				break
			}
			if skipPartial {
				skipPartial = false
				start += j + 1
				continue
			}
			if perr := s.parseLine(t, s.rbuf[start:start+j], off+int64(start)+1); perr != nil {
				return perr
			}
			if done, ferr := s.flt.take(s.row); done || ferr != nil {
				return ferr
			}
			start += j + 1
		}
		if err == io.EOF || (err == nil && k == 0) {
			return nil // a partial last line (a write in flight) is not a row yet
		}
		if err != nil {
			return fmt.Errorf("file: read: %w", err)
		}
		// Keep the partial line; grow the buffer if one line fills it.
		copy(s.rbuf, s.rbuf[start:have])
		off += int64(start)
		have -= start
		if have == len(s.rbuf) {
			s.rbuf = append(s.rbuf, make([]byte, len(s.rbuf))...)
		}
	}
}

// scanDesc reads the tail of the file, doubling the amount read until it
// holds enough line ends or reaches the start, then yields newest first.
// With From (AutoKey), the file is read as if it ended with the line that
// holds byte From-1.
func (s *session) scanDesc(f *os.File, t *store.Table) error {
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("file: %v", err)
	}
	size := fi.Size()
	if q := s.flt.q; q.HasFrom && s.flt.seekable {
		if q.From < 1 {
			return nil
		}
		if q.From-1 < size {
			end, err := lineEnd(f, q.From-1)
			if err != nil {
				return err
			}
			size = min(size, end)
		}
	}
	limit := s.flt.q.Limit
	want := int64(4096)
	if limit > 0 {
		want = int64(limit+s.flt.q.Offset) * 128
	}
	for {
		if want > size {
			want = size
		}
		if int64(cap(s.rbuf)) < want {
			s.rbuf = make([]byte, want)
		}
		buf := s.rbuf[:want]
		start := size - want
		if _, err := f.ReadAt(buf, start); err != nil && err != io.EOF {
			return fmt.Errorf("file: read: %w", err)
		}
		// Drop a partial last line (a write in flight).
		end := bytes.LastIndexByte(buf, '\n') + 1
		s.ends = s.ends[:0]
		for i := end - 1; i >= 0; i-- {
			if buf[i] == '\n' {
				s.ends = append(s.ends, i)
			}
		}
		complete := len(s.ends) - 1 // lines whose start is known
		if start == 0 {
			complete = len(s.ends)
		}
		enough := limit > 0 && complete >= limit+s.flt.q.Offset && !(s.flt.q.HasFrom && !s.flt.seekable)
		if enough || start == 0 {
			for i := 0; i < complete; i++ {
				lineStart := 0
				if i+1 < len(s.ends) {
					lineStart = s.ends[i+1] + 1
				}
				if perr := s.parseLine(t, buf[lineStart:s.ends[i]], start+int64(lineStart)+1); perr != nil {
					return perr
				}
				if done, ferr := s.flt.take(s.row); done || ferr != nil {
					return ferr
				}
			}
			return nil
		}
		want *= 2
	}
}

// lineEnd returns the offset just past the newline that ends the line
// holding byte off.
func lineEnd(f *os.File, off int64) (int64, error) {
	var buf [4096]byte
	for {
		k, err := f.ReadAt(buf[:], off)
		if i := bytes.IndexByte(buf[:k], '\n'); i >= 0 {
			return off + int64(i) + 1, nil
		}
		off += int64(k)
		if err == io.EOF || k == 0 {
			return off, nil
		}
		if err != nil {
			return 0, fmt.Errorf("file: read: %w", err)
		}
	}
}
