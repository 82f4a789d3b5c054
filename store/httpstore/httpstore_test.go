package httpstore

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kurabe/service"
	"kurabe/store"
	"kurabe/store/file"
	"kurabe/store/sqlite"
	"kurabe/store/storetest"
	"kurabe/workload/bbs"
)

// The conformance suite of store/storetest cannot run here: it writes its
// own table (conformance: id, n, body), which is not part of the BBS API,
// and it expects Setup to empty the table, which an HTTP store must not do
// (the service owns its table). So this file holds the same checks, shaped
// for the bbs posts table, and runs them against kurabe serve over a real
// SQLite database, over a real file, and against a hand-written service in
// the style of a small PHP script, which answers in its own dialect.

var ctx = context.Background()

// awkward texts every service must keep byte for byte.
var awkward = []string{
	"hogehoge",
	"",
	"tab\there",
	"line\nbreak and \r\n crlf",
	"back\\slash \\t not a tab",
	"日本語の投稿です。郵便番号〒100-0001",
	"'quotes' \"double\" ; -- not sql & not=a+form%20",
	"<script>alert(1)</script> \u2028 \U0001F600",
}

func text(i int) []byte { return []byte(awkward[i%len(awkward)] + "#" + strconv.Itoa(i)) }

func category(i int) []byte { return []byte("cat " + awkward[(i/3)%len(awkward)]) }

func row(i int) store.Row {
	return store.Row{{}, {Text: category(i)}, {Text: text(i)}, {Int: 0}}
}

// backend starts a BBS service on 127.0.0.1 and returns the store spec
// that reaches it, and the store behind it when there is one.
type backend struct {
	name  string
	start func(t *testing.T) (spec string, direct store.Store)
}

func serviceOver(kind string) func(t *testing.T) (string, store.Store) {
	return func(t *testing.T) (string, store.Store) {
		var st store.Store
		var err error
		switch kind {
		case "sqlite":
			sp, _ := store.ParseSpec("sqlite:?synchronous=off")
			st, err = sqlite.Open(ctx, sp, store.Env{Dir: t.TempDir()})
		case "file":
			sp, _ := store.ParseSpec("file:")
			st, err = file.Open(ctx, sp, store.Env{Dir: t.TempDir()})
		}
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		svc, err := service.New(st, service.Config{Version: "test"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { svc.Close() })
		if err := svc.CreateTables(ctx); err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(svc.Handler())
		t.Cleanup(srv.Close)
		return "http:" + strings.TrimPrefix(srv.URL, "http:"), st
	}
}

func fakeBackend(t *testing.T) (string, store.Store) {
	srv := httptest.NewServer(&fakePHP{})
	t.Cleanup(srv.Close)
	return "http:" + strings.TrimPrefix(srv.URL, "http:") + "/bbs/", nil
}

var backends = []backend{
	{"service-sqlite", serviceOver("sqlite")},
	{"service-file", serviceOver("file")},
	{"fake-php", fakeBackend},
}

func openSpec(t *testing.T, spec string) *Store {
	t.Helper()
	sp, err := store.ParseSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	st, err := Open(ctx, sp, store.Env{})
	if err != nil {
		t.Fatalf("Open(%s): %v", spec, err)
	}
	t.Cleanup(func() { st.Close() })
	return st.(*Store)
}

func TestConformance(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { conformance(t, b) })
	}
}

func conformance(t *testing.T, b backend) {
	setup := func(t *testing.T) (*Store, *store.Table, store.Session, store.Store) {
		spec, direct := b.start(t)
		st := openSpec(t, spec)
		tb := bbs.Posts()
		if err := st.Setup(ctx, []*store.Table{tb}); err != nil {
			t.Fatalf("Setup: %v", err)
		}
		s, err := st.Open(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return st, tb, s, direct
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
	insert := func(t *testing.T, s store.Session, tb *store.Table, from, to int) {
		t.Helper()
		for i := from; i < to; i++ {
			if err := s.Insert(ctx, tb, row(i)); err != nil {
				t.Fatalf("Insert %d: %v", i, err)
			}
		}
	}

	t.Run("EmptyAfterSetup", func(t *testing.T) {
		st, tb, s, _ := setup(t)
		if n := count(t, st, tb); n != 0 {
			t.Fatalf("Count = %d, want 0", n)
		}
		if rows := collect(t, s, tb, store.Query{Desc: true, Limit: 100}); len(rows) != 0 {
			t.Fatalf("latest of an empty table returned %d rows", len(rows))
		}
		if rows := collect(t, s, tb, store.Query{}); len(rows) != 0 {
			t.Fatalf("all of an empty table returned %d rows", len(rows))
		}
	})

	t.Run("InsertedRowsReadBackInOrder", func(t *testing.T) {
		st, tb, s, _ := setup(t)
		const n = 240
		t0 := time.Now().UnixMicro()
		insert(t, s, tb, 0, n)
		if got := count(t, st, tb); got != n {
			t.Fatalf("Count = %d after %d acknowledged inserts", got, n)
		}
		all := collect(t, s, tb, store.Query{})
		if len(all) != n {
			t.Fatalf("read-all returned %d rows, want %d", len(all), n)
		}
		for i, r := range all {
			if !bytes.Equal(r[1].Text, category(i)) || !bytes.Equal(r[2].Text, text(i)) {
				t.Fatalf("row %d = (%q, %q), want (%q, %q)", i, r[1].Text, r[2].Text, category(i), text(i))
			}
			if r[3].Int < t0 || r[3].Int > time.Now().UnixMicro() {
				t.Fatalf("row %d created %d: not the service's clock in µs", i, r[3].Int)
			}
			if i > 0 && r[0].Int <= all[i-1][0].Int {
				t.Fatalf("ids not increasing in insert order: %d after %d", r[0].Int, all[i-1][0].Int)
			}
		}
		latest := collect(t, s, tb, store.Query{Desc: true, Limit: 100})
		if len(latest) != 100 {
			t.Fatalf("latest(100) returned %d rows", len(latest))
		}
		for k, r := range latest {
			if want := n - 1 - k; !bytes.Equal(r[2].Text, text(want)) || r[0].Int != all[want][0].Int {
				t.Fatalf("latest[%d] = %q, want row %d, newest first", k, r[2].Text, want)
			}
		}
		if first := collect(t, s, tb, store.Query{Limit: 7}); len(first) != 7 || !bytes.Equal(first[6][2].Text, text(6)) {
			t.Fatalf("first 7 rows wrong: %d rows", len(first))
		}
		if desc := collect(t, s, tb, store.Query{Desc: true}); len(desc) != n || !bytes.Equal(desc[0][2].Text, text(n-1)) || !bytes.Equal(desc[n-1][2].Text, text(0)) {
			t.Fatalf("all newest first wrong: %d rows", len(desc))
		}
		if more := collect(t, s, tb, store.Query{Desc: true, Limit: 10 * n}); len(more) != n {
			t.Fatalf("latest(%d) on %d rows returned %d", 10*n, n, len(more))
		}
	})

	t.Run("ConcurrentWritersLoseNothing", func(t *testing.T) {
		st, tb, _, _ := setup(t)
		const clients, each = 8, 30
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
		s, _ := st.Open(ctx)
		defer s.Close()
		seen := map[string]bool{}
		for _, r := range collect(t, s, tb, store.Query{}) {
			if seen[string(r[2].Text)] {
				t.Fatalf("row %q duplicated", r[2].Text)
			}
			seen[string(r[2].Text)] = true
		}
		for i := range clients * each {
			if !seen[string(text(i))] {
				t.Fatalf("row %d (%q) missing", i, text(i))
			}
		}
	})

	t.Run("BatchInsertAndFingerprint", func(t *testing.T) {
		st, tb, s, direct := setup(t)
		var rows []store.Row
		for i := range 120 {
			rows = append(rows, row(i))
		}
		if err := store.InsertBatch(ctx, s, tb, rows); err != nil {
			t.Fatalf("InsertBatch: %v", err)
		}
		if got := count(t, st, tb); got != 120 {
			t.Fatalf("Count = %d after a batch of 120", got)
		}
		fp, err := store.TakeFingerprint(ctx, s, tb)
		if err != nil || fp.Rows != 120 {
			t.Fatalf("fingerprint through HTTP: %+v %v", fp, err)
		}
		if direct == nil {
			return
		}
		// Every byte the store holds comes back through JSON unchanged.
		ds, err := direct.Open(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer ds.Close()
		dfp, err := store.TakeFingerprint(ctx, ds, tb)
		if err != nil || dfp != fp {
			t.Fatalf("fingerprint through HTTP %+v, of the store itself %+v (%v)", fp, dfp, err)
		}
	})

	t.Run("SetupKeepsTheServicesData", func(t *testing.T) {
		st, tb, s, _ := setup(t)
		insert(t, s, tb, 0, 10)
		if err := st.Setup(ctx, []*store.Table{tb}); err != nil {
			t.Fatalf("second Setup: %v", err)
		}
		if got := count(t, st, tb); got != 10 {
			t.Fatalf("Count after a second Setup = %d; Setup must not empty the service's table", got)
		}
		if err := store.Truncate(ctx, st, tb); err == nil || !strings.Contains(err.Error(), "owns its table") {
			t.Fatalf("Truncate: %v", err)
		}
	})

	t.Run("OnlyThePostsTable", func(t *testing.T) {
		st, _, s, _ := setup(t)
		other := storetest.Table()
		if err := st.Setup(ctx, []*store.Table{other}); err == nil || !strings.Contains(err.Error(), `"conformance"`) {
			t.Fatalf("Setup of another table: %v", err)
		}
		if err := s.Insert(ctx, other, store.Row{{}, {Int: 1}, {Text: []byte("x")}}); err == nil {
			t.Fatal("Insert into another table succeeded")
		}
		if _, err := st.Count(ctx, other); err == nil {
			t.Fatal("Count of another table succeeded")
		}
	})

	t.Run("InfoNamesDriverAndService", func(t *testing.T) {
		st, _, _, direct := setup(t)
		info := st.Info(ctx)
		if info.Driver != "http" || !strings.HasPrefix(info.Target, "http://127.0.0.1:") || info.Options["keepalive"] != "1" || info.Version == "" {
			t.Fatalf("Info incomplete: %+v", info)
		}
		if direct != nil && (info.Version != "kurabe serve test" || info.Facts["mode"] != "persistent" || !strings.HasPrefix(info.Facts["backend"], direct.Info(ctx).Driver)) {
			t.Fatalf("Info of kurabe serve: %+v", info)
		}
	})
}

// fakePHP is a hand-written BBS in the manner of a small PHP script, to
// show the store takes any service that speaks the API: it lives under
// /bbs, sends ids and times as strings (as PHP's PDO does), its fields in
// another order with extras, pretty-printed and HTML-escaped, answers a
// post with 200 and a page, and its count with a string.
type fakePHP struct {
	mu    sync.Mutex
	posts []map[string]any
}

func (f *fakePHP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Server", "Apache/2.4.62 (fake)")
	w.Header().Set("X-Powered-By", "PHP/8.2.0 (fake)")
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case r.Method == "POST" && r.URL.Path == "/bbs/posts":
		if err := r.ParseForm(); err != nil || !r.PostForm.Has("text") {
			http.Error(w, "bad form", 400)
			return
		}
		f.posts = append(f.posts, map[string]any{
			"id": strconv.Itoa(len(f.posts) + 1), "category": r.PostForm.Get("category"), "text": r.PostForm.Get("text"),
			"created": strconv.FormatInt(time.Now().UnixMicro(), 10), "meta": map[string]any{"ip": r.RemoteAddr, "tags": []any{1.5e300, true, nil, "x"}},
		})
		fmt.Fprint(w, "<html><body>Thank you for posting!</body></html>")
	case r.Method == "GET" && r.URL.Path == "/bbs/posts/count":
		fmt.Fprintf(w, "{\n  \"status\": \"ok\",\n  \"count\": \"%d\"\n}", len(f.posts))
	case r.Method == "GET" && r.URL.Path == "/bbs/posts":
		out := slices.Clone(f.posts)
		if l := r.URL.Query().Get("limit"); l != "" {
			n, _ := strconv.Atoi(l)
			slices.Reverse(out)
			out = out[:min(n, len(out))]
		}
		if out == nil {
			out = []map[string]any{}
		}
		b, _ := json.MarshalIndent(out, "", "    ")
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
	default:
		http.NotFound(w, r)
	}
}

// counting is a server that counts the connections made to it.
func counting(t *testing.T, h http.Handler) (*httptest.Server, *atomic.Int64) {
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnState = func(c net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &conns
}

func TestKeepAliveAndConnectTime(t *testing.T) {
	for _, ka := range []string{"1", "0"} {
		t.Run("keepalive="+ka, func(t *testing.T) {
			srv, conns := counting(t, &fakePHP{})
			st := openSpec(t, "http:"+strings.TrimPrefix(srv.URL, "http:")+"/bbs?keepalive="+ka)
			tb := bbs.Posts()
			if err := st.Setup(ctx, []*store.Table{tb}); err != nil {
				t.Fatal(err)
			}
			s, err := st.Open(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ct, timed := s.(store.ConnectTimer)
			if timed != (ka == "0") {
				t.Fatalf("session is a ConnectTimer: %v, want it only with keepalive=0", timed)
			}
			before := conns.Load()
			const ops = 12
			for i := range ops {
				var err error
				if i%2 == 0 {
					err = s.Insert(ctx, tb, row(i))
				} else {
					_, err = s.Scan(ctx, tb, store.Query{Desc: true, Limit: 5}, func(store.Row) error { return nil })
				}
				if err != nil {
					t.Fatal(err)
				}
				if timed {
					// Asked once: it starts from zero again when asked.
					if c := ct.ConnectTime(); c <= 0 || c > 5*time.Second {
						t.Fatalf("op %d: connect time %v", i, c)
					}
				}
			}
			want := int64(1)
			if ka == "0" {
				want = ops
			}
			if got := conns.Load() - before; got != want {
				t.Fatalf("%d connections for %d operations, want %d", got, ops, want)
			}
		})
	}
}

func TestErrorsAreClassed(t *testing.T) {
	mux := http.NewServeMux()
	status := func(code int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) { http.Error(w, `{"error":"nope"}`, code) }
	}
	mux.HandleFunc("/s500/posts", status(500))
	mux.HandleFunc("/s503/posts", status(503))
	mux.HandleFunc("/redirect/posts", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/thanks", http.StatusSeeOther) })
	mux.HandleFunc("/badjson/posts", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"posts":[]}`)) })
	mux.HandleFunc("/badjson/posts/count", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"total":3}`)) })
	mux.HandleFunc("/slow/posts", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(2 * time.Second):
		case <-r.Context().Done():
		}
	})
	mux.HandleFunc("/toomany/posts", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`[{"id":1},{"id":2}]`)) })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http:")
	tb := bbs.Posts()
	cases := []struct {
		path, opts string
		scan       bool
		class      string
	}{
		{"/s500", "", false, "http 500"},
		{"/s503", "", true, "http 503"},
		{"/nothing", "", true, "http 404"},
		{"/redirect", "", false, "http 303"},
		{"/badjson", "", true, "bad-response"},
		{"/slow", "?timeout=100ms", true, "timeout"},
		{"/toomany", "", true, "bad-response"},
	}
	for _, c := range cases {
		st := openSpec(t, "http:"+addr+c.path+c.opts)
		s, _ := st.Open(ctx)
		var err error
		if c.scan {
			_, err = s.Scan(ctx, tb, store.Query{Desc: true, Limit: 1}, func(store.Row) error { return nil })
		} else {
			err = s.Insert(ctx, tb, row(1))
		}
		if got := store.Classify(err); got != c.class {
			t.Errorf("%s: class %q (%v), want %q", c.path, got, err, c.class)
		}
		s.Close()
	}
	// Setup says what is wrong and where to read about the API.
	st := openSpec(t, "http:"+addr+"/badjson")
	if err := st.Setup(ctx, []*store.Table{tb}); err == nil || !strings.Contains(err.Error(), `no "count" field`) || !strings.Contains(err.Error(), "docs/serve.md") {
		t.Fatalf("Setup against a foreign service: %v", err)
	}
	// Nobody listening: class connect.
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	free := ln.Addr().String()
	ln.Close()
	st = openSpec(t, "http://"+free)
	s, _ := st.Open(ctx)
	defer s.Close()
	if err := s.Insert(ctx, tb, row(1)); store.Classify(err) != "connect" {
		t.Fatalf("closed port: %v (class %s)", err, store.Classify(err))
	}
	if err := st.Setup(ctx, []*store.Table{tb}); err == nil || !strings.Contains(err.Error(), "kurabe serve") {
		t.Fatalf("Setup with nobody listening: %v", err)
	}
}

func TestOpenErrors(t *testing.T) {
	cases := []struct{ spec, want string }{
		{"http://127.0.0.1:1?keepalive=2", "keepalive"},
		{"http://127.0.0.1:1?timeout=soon", "timeout"},
		{"http://127.0.0.1:1?pool=3", "unknown option"},
		{"http:127.0.0.1:1", "//HOST:PORT"},
		{"http:", "//HOST:PORT"},
		{"http:///posts", "not an address"},
	}
	for _, c := range cases {
		sp, err := store.ParseSpec(c.spec)
		if err == nil {
			_, err = Open(ctx, sp, store.Env{})
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.spec, err, c.want)
		}
	}
}

func TestCredentialsAndHTTPS(t *testing.T) {
	var auth atomic.Value
	fake := &fakePHP{}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, p, _ := r.BasicAuth()
		auth.Store(u + ":" + p)
		fake.ServeHTTP(w, r)
	}))
	defer srv.Close()
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	for _, ka := range []string{"1", "0"} {
		sp, _ := store.ParseSpec("https://ann:s3cret@" + strings.TrimPrefix(srv.URL, "https://") + "/bbs?keepalive=" + ka)
		st, err := open(sp, &tls.Config{RootCAs: pool})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		tb := bbs.Posts()
		if err := st.Setup(ctx, []*store.Table{tb}); err != nil {
			t.Fatal(err)
		}
		s, _ := st.Open(ctx)
		if err := s.Insert(ctx, tb, row(3)); err != nil {
			t.Fatal(err)
		}
		if ct, ok := s.(store.ConnectTimer); ok && ct.ConnectTime() <= 0 {
			t.Fatal("no connect time over TLS with keepalive=0")
		}
		s.Close()
		info := st.Info(ctx)
		if info.Driver != "https" || strings.Contains(info.Target, "s3cret") || strings.Contains(info.Target, "ann") || info.Version != "Apache/2.4.62 (fake)" || info.Facts["x-powered-by"] == "" || !info.TablesKept {
			t.Fatalf("Info: %+v", info)
		}
	}
	if got := auth.Load(); got != "ann:s3cret" {
		t.Fatalf("basic auth sent %v", got)
	}
}

// fixed answers every request with the same body, so the benchmarks below
// measure the client side: net/http, reading and parsing.
func fixed(b *testing.B, body []byte) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == "POST" {
			w.WriteHeader(201)
			w.Write([]byte(`{"id":null}`))
			return
		}
		w.Write(body)
	}))
	b.Cleanup(srv.Close)
	return "http:" + strings.TrimPrefix(srv.URL, "http:")
}

// BenchmarkScanLatest100 is one read-latest of 100 posts through the
// session against a server that answers at once.
func BenchmarkScanLatest100(b *testing.B) {
	sp, _ := store.ParseSpec(fixed(b, hundredPosts()))
	st, _ := Open(ctx, sp, store.Env{})
	defer st.Close()
	s, _ := st.Open(ctx)
	defer s.Close()
	tb := bbs.Posts()
	fn := func(store.Row) error { return nil }
	b.ReportAllocs()
	for b.Loop() {
		if n, err := s.Scan(ctx, tb, store.Query{Desc: true, Limit: 100}, fn); err != nil || n != 100 {
			b.Fatal(n, err)
		}
	}
}

// BenchmarkInsert is one write through the session against a server that
// answers at once.
func BenchmarkInsert(b *testing.B) {
	sp, _ := store.ParseSpec(fixed(b, nil))
	st, _ := Open(ctx, sp, store.Env{})
	defer st.Close()
	s, _ := st.Open(ctx)
	defer s.Close()
	tb := bbs.Posts()
	r := store.Row{{}, {Text: []byte("test")}, {Text: []byte("hogehoge")}, {}}
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Insert(ctx, tb, r); err != nil {
			b.Fatal(err)
		}
	}
}

// An error page quoted in a message is one line, cut, and shows none of
// the credentials the request carried, even when the page echoes them
// (the password, user:password, and the base64 of basic authentication).
func TestErrorBodiesAreOneLineWithoutCredentials(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/echo/", func(w http.ResponseWriter, r *http.Request) {
		u, p, _ := r.BasicAuth()
		w.WriteHeader(500)
		fmt.Fprintf(w, "auth was %s (user %s, password %s, both %s:%s)", r.Header.Get("Authorization"), u, p, u, p)
	})
	mux.HandleFunc("/html/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(404)
		fmt.Fprintf(w, "<!DOCTYPE html>\n<html>\n  <head><title>404 Not Found</title></head>\n  <body>\n\t<h1>Not   Found</h1>\n%s\n</body>\n</html>\n", strings.Repeat("<p>padding</p>\n", 100))
	})
	mux.HandleFunc("/long/", func(w http.ResponseWriter, r *http.Request) {
		// The credential straddles the 200 characters quoted.
		w.WriteHeader(400)
		fmt.Fprintf(w, "%s %s", strings.Repeat("a", 190), r.Header.Get("Authorization"))
	})
	mux.HandleFunc("/json/", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(200)
		fmt.Fprintf(w, `{"count": "%s"}`, r.Header.Get("Authorization"))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	tb := bbs.Posts()
	cases := []struct {
		spec, want string
		scan       bool
	}{
		{"http://bob:STOREPW99@" + host + "/echo", "500 Internal Server Error: auth was xxxxx (user bob, password xxxxx, both xxxxx)", false},
		{"http://TOKEN1234@" + host + "/echo", "auth was xxxxx (user xxxxx, password , both xxxxx)", true},
		// Scrubbed before it is cut: no piece of it is left.
		{"http://bob:STOREPW99@" + host + "/long", strings.Repeat("a", 190) + " xxxxx", true},
		{"http://" + host + "/html", "404 Not Found: <!DOCTYPE html> <html> <head><title>404 Not Found</title></head> <body> <h1>Not Found</h1> <p>padding</p>", true},
	}
	for _, c := range cases {
		st := openSpec(t, c.spec)
		s, _ := st.Open(ctx)
		var err error
		if c.scan {
			_, err = s.Scan(ctx, tb, store.Query{}, func(store.Row) error { return nil })
		} else {
			err = s.Insert(ctx, tb, row(1))
		}
		s.Close()
		msg := fmt.Sprint(err)
		if !strings.Contains(msg, c.want) || strings.ContainsAny(msg, "\n\t") || len(msg) > 400 {
			t.Errorf("%s:\n got %s\nwant it to contain %s, on one line", c.spec, msg, c.want)
		}
		for _, secret := range []string{"STOREPW99", "Ym9i", "TOKEN1234", "VE9LRU4x"} {
			if strings.Contains(msg, secret) {
				t.Errorf("%s: the message shows %s: %s", c.spec, secret, msg)
			}
		}
	}
	// Setup's message, which kurabe run prints as FAILED and keeps in
	// --json, and a bad response that quotes the body.
	st := openSpec(t, "http://bob:STOREPW99@"+host+"/json")
	err := st.Setup(ctx, []*store.Table{tb})
	if err == nil || !strings.Contains(err.Error(), "xxxxx") || strings.Contains(err.Error(), "Ym9iOlNUT1JFUFc5OQ") || strings.Contains(err.Error(), "STOREPW99") {
		t.Fatalf("Setup: %v", err)
	}
}
