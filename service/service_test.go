package service_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
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
	"kurabe/workload/bbs"
)

// TestMain lets this test binary play the CGI child: the CGI tests start
// it again, once per request, with KURABE_SERVICE_TEST_CHILD set.
func TestMain(m *testing.M) {
	if spec := os.Getenv("KURABE_SERVICE_TEST_CHILD"); spec != "" {
		os.Exit(cgiChild(spec))
	}
	os.Exit(m.Run())
}

func cgiChild(spec string) int {
	open := func(ctx context.Context) (store.Store, error) {
		sp, err := store.ParseSpec(spec)
		if err != nil {
			return nil, err
		}
		return sqlite.Open(ctx, sp, store.Env{})
	}
	cfg := service.Config{Version: "test"}
	if dir := os.Getenv("KURABE_SERVICE_TEST_TOKENS"); dir != "" {
		records, _ := strconv.ParseInt(os.Getenv("KURABE_SERVICE_TEST_RECORDS"), 10, 64)
		cfg.Postal = &service.Postal{Password: os.Getenv("KURABE_SERVICE_TEST_PASSWORD"), TokenDir: dir, Records: records}
	}
	if err := service.ServeCGI(context.Background(), open, cfg, os.Environ(), os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func openSQLite(t *testing.T, path string) store.Store {
	t.Helper()
	sp, err := store.ParseSpec("sqlite:" + path + "?synchronous=off")
	if err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(context.Background(), sp, store.Env{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// serve starts the service on a free port of 127.0.0.1 and returns its
// URL and a function that stops it and returns Serve's error.
func serve(t *testing.T, st store.Store, cfg service.Config) (string, func() error) {
	t.Helper()
	svc, err := service.New(st, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.CreateTables(context.Background()); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- svc.Serve(ctx, ln) }()
	var once sync.Once
	var serr error
	stop := func() error {
		once.Do(func() {
			cancel()
			select {
			case serr = <-done:
			case <-time.After(20 * time.Second):
				serr = errors.New("Serve did not return within 20s of cancel")
			}
		})
		return serr
	}
	t.Cleanup(func() { stop() })
	return "http://" + ln.Addr().String(), stop
}

type response struct {
	status int
	header http.Header
	body   []byte
}

func do(t *testing.T, method, u, ctype, body string) response {
	t.Helper()
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{resp.StatusCode, resp.Header, b}
}

type post struct {
	ID       int64  `json:"id"`
	Category string `json:"category"`
	Text     string `json:"text"`
	Created  int64  `json:"created"`
}

func posts(t *testing.T, r response) []post {
	t.Helper()
	if r.status != 200 {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	var ps []post
	if err := json.Unmarshal(r.body, &ps); err != nil {
		t.Fatalf("not a JSON array of posts: %v: %s", err, r.body)
	}
	return ps
}

func countOf(t *testing.T, base string) int64 {
	t.Helper()
	r := do(t, "GET", base+"/posts/count", "", "")
	var c struct{ Count *int64 }
	if err := json.Unmarshal(r.body, &c); r.status != 200 || err != nil || c.Count == nil {
		t.Fatalf("count: %d %s", r.status, r.body)
	}
	return *c.Count
}

const formType = "application/x-www-form-urlencoded"

func TestAPI(t *testing.T) {
	base, _ := serve(t, openSQLite(t, ""), service.Config{Version: "9.9"})
	before := time.Now().UnixMicro()

	// A form post, as the studies' clients send it.
	r := do(t, "POST", base+"/posts", formType, "category=test&text=hogehoge")
	if r.status != 201 || !bytes.Contains(r.body, []byte(`"id":null`)) {
		t.Fatalf("form post: %d %s", r.status, r.body)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	if r.header.Get("Server") != "kurabe/9.9" || r.header.Get("X-Kurabe-Pid") != strconv.Itoa(os.Getpid()) {
		t.Errorf("headers: %v", r.header)
	}
	// JSON, with text that needs escaping both ways.
	awkward := "tab\there \"quoted\" \\ 日本語 \u2028 line\nbreak"
	jb, _ := json.Marshal(map[string]string{"category": "日記", "text": awkward})
	if r := do(t, "POST", base+"/posts", "application/json", string(jb)); r.status != 201 {
		t.Fatalf("JSON post: %d %s", r.status, r.body)
	}
	// A multipart form, as an HTML form with enctype=multipart/form-data.
	var mb bytes.Buffer
	mw := multipart.NewWriter(&mb)
	mw.WriteField("category", "m")
	mw.WriteField("text", "")
	mw.Close()
	if r := do(t, "POST", base+"/posts", mw.FormDataContentType(), mb.String()); r.status != 201 {
		t.Fatalf("multipart post: %d %s", r.status, r.body)
	}
	// A form without Content-Type is read as a form.
	if r := do(t, "POST", base+"/posts", "", "category=x&text=y+z%21"); r.status != 201 {
		t.Fatalf("post without Content-Type: %d %s", r.status, r.body)
	}

	all := posts(t, do(t, "GET", base+"/posts", "", ""))
	want := []post{{Category: "test", Text: "hogehoge"}, {Category: "日記", Text: awkward}, {Category: "m", Text: ""}, {Category: "x", Text: "y z!"}}
	if len(all) != len(want) {
		t.Fatalf("GET /posts: %d posts, want %d", len(all), len(want))
	}
	for i, p := range all {
		if p.Category != want[i].Category || p.Text != want[i].Text {
			t.Errorf("post %d = %q/%q, want %q/%q", i, p.Category, p.Text, want[i].Category, want[i].Text)
		}
		if p.Created < before || p.Created > time.Now().UnixMicro() {
			t.Errorf("post %d created %d, not the service's clock in µs", i, p.Created)
		}
		if i > 0 && p.ID <= all[i-1].ID {
			t.Errorf("ids not increasing: %d after %d", p.ID, all[i-1].ID)
		}
	}
	latest := posts(t, do(t, "GET", base+"/posts?limit=2", "", ""))
	if len(latest) != 2 || latest[0].ID != all[3].ID || latest[1].ID != all[2].ID {
		t.Fatalf("latest 2 = %+v, want the last two newest first", latest)
	}
	if n := len(posts(t, do(t, "GET", base+"/posts?limit=100", "", ""))); n != 4 {
		t.Fatalf("latest 100 of 4 returned %d", n)
	}
	if n := countOf(t, base); n != 4 {
		t.Fatalf("count %d, want 4", n)
	}
	var self struct {
		Service, Version, Mode string
		Sessions               int
		Store                  store.Info
	}
	r = do(t, "GET", base+"/", "", "")
	if err := json.Unmarshal(r.body, &self); err != nil || self.Mode != "persistent" || self.Store.Driver != "sqlite" || self.Sessions != service.DefaultSessions() {
		t.Fatalf("GET /: %v %s", err, r.body)
	}
}

func TestBadInput(t *testing.T) {
	base, _ := serve(t, openSQLite(t, ""), service.Config{MaxBody: 1000})
	cases := []struct {
		name, method, path, ctype, body string
		status                          int
		want                            string
	}{
		{"no text", "POST", "/posts", formType, "category=a", 400, "missing text"},
		{"no category", "POST", "/posts", formType, "text=a", 400, "missing category"},
		{"bad escape", "POST", "/posts", formType, "category=a&text=%zz", 400, "bad form"},
		{"text not UTF-8", "POST", "/posts", formType, "category=a&text=%ff", 400, "UTF-8"},
		{"bad JSON", "POST", "/posts", "application/json", `{"category":`, 400, "bad JSON"},
		{"JSON not an object", "POST", "/posts", "application/json", `["a"]`, 400, "bad JSON: the body must be a JSON object, not a JSON array"},
		{"JSON of the wrong type", "POST", "/posts", "application/json", `{"category":1,"text":"x"}`, 400, "bad JSON: category must be a string, not a JSON number"},
		{"other type", "POST", "/posts", "text/plain", "hello", 400, "not accepted"},
		{"too big", "POST", "/posts", formType, "category=a&text=" + strings.Repeat("x", 2000), 413, "larger than 1000"},
		{"limit zero", "GET", "/posts?limit=0", "", "", 400, "limit="},
		{"limit word", "GET", "/posts?limit=ten", "", "", 400, "whole number"},
		{"limit negative", "GET", "/posts?limit=-99999999999999999999", "", "", 400, "want a whole number of posts from 1 to 2147483647"},
		{"limit too large", "GET", "/posts?limit=99999999999999999999", "", "", 400, `limit="99999999999999999999": too large; ask for at most 2147483647 posts`},
		{"limit over the cap", "GET", "/posts?limit=2147483648", "", "", 400, "too large"},
		{"empty category", "POST", "/posts", formType, "category=&text=a", 400, "empty category"},
		{"empty category in JSON", "POST", "/posts", "application/json", `{"category":"","text":"a"}`, 400, "empty category"},
		{"method", "DELETE", "/posts", "", "", 405, "not allowed"},
		{"count method", "POST", "/posts/count", "", "", 405, "not allowed"},
		{"unknown path", "GET", "/post", "", "", 404, "no such path"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := do(t, c.method, base+c.path, c.ctype, c.body)
			var e struct{ Error string }
			if err := json.Unmarshal(r.body, &e); err != nil {
				t.Fatalf("error not JSON: %s", r.body)
			}
			if r.status != c.status || !strings.Contains(e.Error, c.want) {
				t.Fatalf("%d %q, want %d and %q", r.status, e.Error, c.status, c.want)
			}
		})
	}
	if n := countOf(t, base); n != 0 {
		t.Fatalf("bad input stored %d posts", n)
	}
}

// hooked wraps a real store: it counts sessions opened and runs hooks
// before each insert and scan, to block or fail them.
type hooked struct {
	store.Store
	opens  atomic.Int64
	insert func() error
	scan   func() error
}

func (h *hooked) Open(ctx context.Context) (store.Session, error) {
	h.opens.Add(1)
	s, err := h.Store.Open(ctx)
	if err != nil {
		return nil, err
	}
	return &hookedSession{Session: s, h: h}, nil
}

type hookedSession struct {
	store.Session
	h *hooked
}

func (s *hookedSession) Insert(ctx context.Context, t *store.Table, row store.Row) error {
	if s.h.insert != nil {
		if err := s.h.insert(); err != nil {
			return err
		}
	}
	return s.Session.Insert(ctx, t, row)
}

func (s *hookedSession) Scan(ctx context.Context, t *store.Table, q store.Query, fn func(store.Row) error) (int, error) {
	if s.h.scan != nil {
		if err := s.h.scan(); err != nil {
			return 0, err
		}
	}
	return s.Session.Scan(ctx, t, q, fn)
}

func TestStoreErrorsAnswer5xx(t *testing.T) {
	var fail atomic.Pointer[error]
	get := func() error {
		if e := fail.Load(); e != nil {
			return *e
		}
		return nil
	}
	h := &hooked{Store: openSQLite(t, ""), insert: get, scan: get}
	base, _ := serve(t, h, service.Config{Sessions: 1})
	cases := []struct {
		err    error
		status int
		class  string
	}{
		{&store.ClassError{Class: "busy", Err: errors.New("database is locked")}, 503, "busy"},
		{&store.ClassError{Class: "too-many-connections", Err: errors.New("sorry, too many clients")}, 503, "too-many-connections"},
		{errors.New("disk I/O error"), 500, "error"},
	}
	for _, c := range cases {
		fail.Store(&c.err)
		for _, r := range []response{do(t, "POST", base+"/posts", formType, "category=a&text=b"), do(t, "GET", base+"/posts", "", "")} {
			var e struct{ Error, Class string }
			json.Unmarshal(r.body, &e)
			if r.status != c.status || e.Class != c.class || !strings.Contains(e.Error, c.err.Error()) {
				t.Errorf("%v: %d %s, want %d class %s", c.err, r.status, r.body, c.status, c.class)
			}
		}
	}
	fail.Store(nil)
	if r := do(t, "POST", base+"/posts", formType, "category=a&text=b"); r.status != 201 {
		t.Fatalf("after errors: %d %s", r.status, r.body)
	}
	// The busy errors kept the session; the two other errors each
	// replaced it (once for the post, once for the read).
	if got := h.opens.Load(); got != 5 {
		t.Errorf("%d sessions opened, want 5 (1, then 4 replacing failed ones)", got)
	}
	if n := countOf(t, base); n != 1 {
		t.Fatalf("count %d after failed writes, want 1", n)
	}
}

func TestSessionsAreReused(t *testing.T) {
	h := &hooked{Store: openSQLite(t, "")}
	base, _ := serve(t, h, service.Config{Sessions: 3})
	var wg sync.WaitGroup
	for c := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10 {
				body := url.Values{"category": {"c" + strconv.Itoa(c)}, "text": {strconv.Itoa(i)}}.Encode()
				req, _ := http.NewRequest("POST", base+"/posts", strings.NewReader(body))
				req.Header.Set("Content-Type", formType)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 201 {
					t.Errorf("status %d", resp.StatusCode)
				}
			}
		}()
	}
	wg.Wait()
	if n := h.opens.Load(); n < 1 || n > 3 {
		t.Fatalf("%d sessions opened for 60 requests, want 1 to 3 (the pool size)", n)
	}
	if n := countOf(t, base); n != 60 {
		t.Fatalf("count %d, want 60", n)
	}
}

// A post is answered only once the store's Insert returned, and a
// shutdown waits for it.
func TestAckAfterInsertAndGracefulShutdown(t *testing.T) {
	entered := make(chan struct{}, 1)
	release := make(chan struct{})
	h := &hooked{Store: openSQLite(t, ""), insert: func() error {
		entered <- struct{}{}
		<-release
		return nil
	}}
	base, stop := serve(t, h, service.Config{ShutdownTimeout: 10 * time.Second})
	got := make(chan response, 1)
	go func() {
		resp, err := http.Post(base+"/posts", formType, strings.NewReader("category=a&text=b"))
		if err != nil {
			got <- response{status: -1, body: []byte(err.Error())}
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		got <- response{status: resp.StatusCode, body: b}
	}()
	<-entered
	select {
	case r := <-got:
		t.Fatalf("answered %d before the insert returned", r.status)
	case <-time.After(100 * time.Millisecond):
	}
	stopped := make(chan error, 1)
	go func() { stopped <- stop() }()
	select {
	case err := <-stopped:
		t.Fatalf("Serve returned (%v) with a request in flight", err)
	case <-time.After(100 * time.Millisecond):
	}
	// New connections are refused while the old request finishes. The
	// listener closes when Serve's goroutine gets to it, which a loaded
	// machine may delay past the 100 ms above: wait for it (the request
	// stays in flight until release), but not for ever.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		c, err := net.DialTimeout("tcp", strings.TrimPrefix(base, "http://"), time.Second)
		if err != nil {
			break
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Error("listener still accepts connections 10s into the shutdown")
			break
		}
	}
	select {
	case r := <-got:
		t.Fatalf("answered %d before the insert returned", r.status)
	case err := <-stopped:
		t.Fatalf("Serve returned (%v) with a request in flight", err)
	default:
	}
	close(release)
	if r := <-got; r.status != 201 {
		t.Fatalf("in-flight post: %d %s", r.status, r.body)
	}
	if err := <-stopped; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if n, err := h.Count(context.Background(), bbs.Posts()); err != nil || n != 1 {
		t.Fatalf("store holds %d (%v), want the acknowledged post", n, err)
	}
}

func TestShutdownTimeoutCutsOff(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	entered := make(chan struct{}, 1)
	h := &hooked{Store: openSQLite(t, ""), insert: func() error { entered <- struct{}{}; <-release; return nil }}
	base, stop := serve(t, h, service.Config{ShutdownTimeout: 200 * time.Millisecond})
	go http.Post(base+"/posts", formType, strings.NewReader("category=a&text=b"))
	<-entered
	t0 := time.Now()
	err := stop()
	if err == nil || !strings.Contains(err.Error(), "cut off") || time.Since(t0) > 5*time.Second {
		t.Fatalf("Serve returned %v after %v, want a cut-off error after 200ms", err, time.Since(t0))
	}
}

func TestFileStoreBehindService(t *testing.T) {
	sp, _ := store.ParseSpec("file:")
	st, err := file.Open(context.Background(), sp, store.Env{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	base, _ := serve(t, st, service.Config{})
	for i := range 5 {
		if r := do(t, "POST", base+"/posts", formType, "category=f&text=line%0A"+strconv.Itoa(i)); r.status != 201 {
			t.Fatalf("%d %s", r.status, r.body)
		}
	}
	ps := posts(t, do(t, "GET", base+"/posts?limit=3", "", ""))
	if len(ps) != 3 || ps[0].Text != "line\n4" || ps[2].Text != "line\n2" || countOf(t, base) != 5 {
		t.Fatalf("file store through the service: %+v", ps)
	}
}

// TestCGIStartsOneProcessPerRequest runs the service in CGI mode with this
// test binary as the child (see TestMain): every request is answered by a
// process of its own, which opens the store, does one thing and exits.
func TestCGIStartsOneProcessPerRequest(t *testing.T) {
	db := filepath.Join(t.TempDir(), "cgi.db")
	st := openSQLite(t, db)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var stderr syncBuffer
	cfg := service.Config{CGI: &service.CGI{Path: exe, Env: []string{"KURABE_SERVICE_TEST_CHILD=sqlite:" + db + "?synchronous=off"}, Stderr: &stderr}}
	base, _ := serve(t, st, cfg)

	pids := map[string]bool{}
	record := func(r response) {
		t.Helper()
		pid := r.header.Get("X-Kurabe-Pid")
		if pid == "" || pid == strconv.Itoa(os.Getpid()) || pids[pid] {
			t.Fatalf("X-Kurabe-Pid %q: not a new process (parent %d, seen %v)", pid, os.Getpid(), pids)
		}
		pids[pid] = true
	}
	const writes = 3
	for i := range writes {
		r := do(t, "POST", base+"/posts", formType, "category=cgi&text=post+"+strconv.Itoa(i))
		if r.status != 201 {
			t.Fatalf("CGI post: %d %s (stderr: %s)", r.status, r.body, stderr.String())
		}
		record(r)
	}
	r := do(t, "GET", base+"/posts?limit=2", "", "")
	record(r)
	if ps := posts(t, r); len(ps) != 2 || ps[0].Text != "post 2" {
		t.Fatalf("CGI latest: %s", r.body)
	}
	r = do(t, "GET", base+"/posts/count", "", "")
	record(r)
	if !bytes.Contains(r.body, []byte(`"count":3`)) {
		t.Fatalf("CGI count: %s", r.body)
	}
	r = do(t, "GET", base+"/", "", "")
	record(r)
	if !bytes.Contains(r.body, []byte(`"mode":"cgi"`)) {
		t.Fatalf("CGI GET /: %s", r.body)
	}
	if len(pids) != writes+3 {
		t.Fatalf("%d processes for %d requests", len(pids), writes+3)
	}
	if n, err := st.Count(context.Background(), bbs.Posts()); err != nil || n != writes {
		t.Fatalf("the parent's store sees %d posts (%v), want %d", n, err, writes)
	}
}

// TestCGIChunkedBody: a post whose body comes chunked (no Content-Length,
// as curl -T - or a streaming client sends it) reaches the CGI child whole,
// and one over the limit is answered 413 in JSON, as in persistent mode.
func TestCGIChunkedBody(t *testing.T) {
	db := filepath.Join(t.TempDir(), "cgi.db")
	st := openSQLite(t, db)
	exe, _ := os.Executable()
	cfg := service.Config{MaxBody: 1 << 10, CGI: &service.CGI{Path: exe, Env: []string{"KURABE_SERVICE_TEST_CHILD=sqlite:" + db + "?synchronous=off"}}}
	base, _ := serve(t, st, cfg)
	post := func(body string) (int, string) {
		t.Helper()
		// A reader of unknown length makes the client send it chunked.
		req, _ := http.NewRequest("POST", base+"/posts", io.MultiReader(strings.NewReader(body)))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := post(`{"category":"cgi","text":"chunked"}`); code != 201 {
		t.Fatalf("chunked post: %d %s", code, body)
	}
	if ps := posts(t, do(t, "GET", base+"/posts?limit=1", "", "")); len(ps) != 1 || ps[0].Text != "chunked" {
		t.Fatalf("the chunked post was not stored: %+v", ps)
	}
	code, body := post(`{"category":"cgi","text":"` + strings.Repeat("x", 2<<10) + `"}`)
	if code != 413 || !strings.Contains(body, `"error"`) || !strings.Contains(body, "larger than 1024 bytes") {
		t.Fatalf("chunked post over the limit: %d %s", code, body)
	}
}

// A child that cannot open its store answers 500 with the reason.
func TestCGIChildWithoutStore(t *testing.T) {
	exe, _ := os.Executable()
	cfg := service.Config{CGI: &service.CGI{Path: exe, Env: []string{"KURABE_SERVICE_TEST_CHILD=sqlite:?journal_mode=nonsense"}}}
	base, _ := serve(t, openSQLite(t, ""), cfg)
	r := do(t, "GET", base+"/posts", "", "")
	if r.status != 500 || !bytes.Contains(r.body, []byte("journal_mode")) {
		t.Fatalf("%d %s", r.status, r.body)
	}
}

func TestServeCGIOutsideCGI(t *testing.T) {
	err := service.ServeCGI(context.Background(), nil, service.Config{}, []string{"HOME=/"}, strings.NewReader(""), io.Discard)
	if err == nil || !strings.Contains(err.Error(), "GATEWAY_INTERFACE") {
		t.Fatalf("err = %v", err)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
