package httpload

import (
	"context"
	"encoding/base64"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"kurabe/engine"
	"kurabe/flow"
	"kurabe/result"
)

// run drives cfg with the engine and returns the phase with its HTTP figures.
func run(t testing.TB, cfg Config, ec engine.Config) result.Phase {
	t.Helper()
	w, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return runW(t, w, ec)
}

func urls(u ...string) Config {
	cfg := DefaultConfig()
	for _, x := range u {
		cfg.Targets = append(cfg.Targets, Target{URL: x})
	}
	return cfg
}

func class(ph result.Phase, name string) int64 {
	for _, c := range ph.ErrorClasses {
		if c.Class == name {
			return c.Count
		}
	}
	return 0
}

func TestNon2xxAreFailuresByCode(t *testing.T) {
	ts := erroring(t)
	ph := run(t, urls(ts.URL+"/x"), engine.Config{Clients: 4, Count: 400})
	h := ph.HTTP
	// 400 requests: every 4th is a 503 (100), every 10th not a multiple
	// of 4 is a 404 (20, 60, ...: 20 of them).
	if h.Requests != 400 || h.Responses != 400 || h.Failed != 120 || h.Non2xx != 120 {
		t.Fatalf("requests %d responses %d failed %d non-2xx %d", h.Requests, h.Responses, h.Failed, h.Non2xx)
	}
	if class(ph, "http 503") != 100 || class(ph, "http 404") != 20 || ph.Errors != 120 || ph.Ops != 280 {
		t.Fatalf("classes %+v, ops %d errors %d", ph.ErrorClasses, ph.Ops, ph.Errors)
	}
	want := []result.StatusCount{{Code: 200, Count: 280}, {Code: 404, Count: 20}, {Code: 503, Count: 100}}
	if len(h.Status) != 3 || h.Status[0] != want[0] || h.Status[1] != want[1] || h.Status[2] != want[2] {
		t.Fatalf("status %+v", h.Status)
	}
	for _, c := range ph.ErrorClasses {
		if !strings.Contains(c.First, ts.URL+"/x") {
			t.Fatalf("message %q does not name the URL", c.First)
		}
	}
	// --expect-status 503 turns it around: 503 succeeds, 200 and 404 fail.
	cfg := urls(ts.URL + "/y")
	cfg.Expect.Status = []int{503}
	ph = run(t, cfg, engine.Config{Clients: 1, Count: 40})
	if ph.Ops != 10 || class(ph, "expect-status 200") != 28 || class(ph, "http 404") != 2 {
		t.Fatalf("with --expect-status 503: ops %d, classes %+v", ph.Ops, ph.ErrorClasses)
	}
}

func TestLengthVariationIsAStatisticUnlessExpected(t *testing.T) {
	ts := varying(t)
	ph := run(t, urls(ts.URL), engine.Config{Clients: 2, Count: 100})
	l := ph.HTTP.Length
	if ph.Errors != 0 || ph.HTTP.Failed != 0 {
		t.Fatalf("varying lengths failed: %+v", ph.ErrorClasses)
	}
	if l.Count != 100 || l.Min != 10 || l.Max != 19 || l.Distinct != 10 || math.Abs(l.Mean-14.5) > 0.01 || l.MoreThan {
		t.Fatalf("length %+v", l)
	}
	if ph.HTTP.BodyBytes != 1450 || ph.BytesRead != 1450 {
		t.Fatalf("body bytes %d, engine bytes %d", ph.HTTP.BodyBytes, ph.BytesRead)
	}
	cfg := urls(ts.URL)
	cfg.Expect.Length, cfg.Expect.HasLength = 12, true
	ph = run(t, cfg, engine.Config{Clients: 2, Count: 100})
	if ph.Ops != 10 || class(ph, "expect-length") != 90 {
		t.Fatalf("--expect-length 12: ops %d classes %+v", ph.Ops, ph.ErrorClasses)
	}
	// A body expectation has its own class too.
	cfg = urls(ts.URL)
	cfg.Expect.Body = regexp.MustCompile(`^x{15}$`)
	ph = run(t, cfg, engine.Config{Clients: 1, Count: 20})
	if ph.Ops != 2 || class(ph, "expect-body") != 18 {
		t.Fatalf("--expect-body: ops %d classes %+v", ph.Ops, ph.ErrorClasses)
	}
}

func TestExactCountAndRoundRobin(t *testing.T) {
	ts, n := counting(t)
	// 1001 requests over 7 clients and 3 URLs: exactly 1001 reach the
	// server, and the URLs take turns.
	ph := run(t, urls(ts.URL+"/a", ts.URL+"/b", ts.URL+"/c"), engine.Config{Clients: 7, Count: 1001})
	if n.Load() != 1001 || ph.Ops != 1001 || ph.HTTP.Requests != 1001 {
		t.Fatalf("server saw %d, ops %d, requests %d", n.Load(), ph.Ops, ph.HTTP.Requests)
	}
	for _, tg := range ph.HTTP.Targets {
		if tg.Requests < 330 || tg.Requests > 338 || tg.Latency.Count != uint64(tg.Requests) || tg.Latency.P99 == 0 {
			t.Fatalf("round robin uneven: %+v", tg)
		}
	}
	if ph.HTTP.Connections != 7 {
		t.Fatalf("%d connections for 7 kept-alive clients", ph.HTTP.Connections)
	}
	// At random, every URL is still hit.
	cfg := urls(ts.URL+"/a", ts.URL+"/b")
	cfg.Random = true
	ph = run(t, cfg, engine.Config{Clients: 2, Count: 200})
	for _, tg := range ph.HTTP.Targets {
		if tg.Requests < 60 {
			t.Fatalf("random order starved %s: %d", tg.Name, tg.Requests)
		}
	}
}

func TestPhasesAndCloseMode(t *testing.T) {
	ts, _ := counting(t)
	cfg := urls(ts.URL)
	cfg.Close = true
	ph := run(t, cfg, engine.Config{Clients: 2, Count: 50})
	h := ph.HTTP
	if h.Connections != 50 || h.Connect.Count != 50 || h.Connect.Min <= 0 || h.KeepAlive {
		t.Fatalf("--close: %d connections, connect %+v", h.Connections, h.Connect)
	}
	if h.Waiting.Count != 50 || h.Write.Count != 50 || h.Read.Count != 50 || h.Total.Mean < h.Waiting.Mean || h.Processing.Mean > h.Total.Mean {
		t.Fatalf("phases: waiting %+v write %+v read %+v total %+v", h.Waiting, h.Write, h.Read, h.Total)
	}
	if h.BytesSent <= 0 || h.BytesReceived <= h.BodyBytes {
		t.Fatalf("bytes sent %d received %d body %d", h.BytesSent, h.BytesReceived, h.BodyBytes)
	}
	// Kept alive, only the first request of each client connects.
	ph = run(t, urls(ts.URL), engine.Config{Clients: 2, Count: 50})
	if ph.HTTP.Connections != 2 || ph.HTTP.Connect.P50 != 0 {
		t.Fatalf("keep-alive: %d connections, connect %+v", ph.HTTP.Connections, ph.HTTP.Connect)
	}
}

func TestTLS(t *testing.T) {
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("secure")) }))
	defer ts.Close()
	ph := run(t, urls(ts.URL), engine.Config{Clients: 2, Count: 20})
	h := ph.HTTP
	if ph.Errors != 0 || h.TLS.Count != 2 || h.TLS.Mean <= 0 || h.Waiting.Count != 20 {
		t.Fatalf("errors %+v, tls %+v, waiting %+v", ph.ErrorClasses, h.TLS, h.Waiting)
	}
	// With a connection per request: the connect phase is the TCP dial
	// alone, the handshake is counted apart, and ab's Connect holds both
	// (docs/http.md, Per-request phases).
	cfg := urls(ts.URL)
	cfg.Close = true
	h = run(t, cfg, engine.Config{Clients: 1, Count: 20}).HTTP
	sum := h.TCPConnect.Mean*float64(h.TCPConnect.Count) + h.TLS.Mean*float64(h.TLS.Count)
	if h.TCPConnect.Count != 20 || h.TLS.Count != 20 || h.TCPConnect.Mean <= 0 || h.TCPConnect.Max >= h.Connect.Max ||
		math.Abs(sum-h.Connect.Mean*float64(h.Connect.Count)) > 0.01*sum+1 {
		t.Fatalf("--close over TLS: tcp connect %+v, tls %+v, ab's connect %+v", h.TCPConnect, h.TLS, h.Connect)
	}
}

func TestTransportErrors(t *testing.T) {
	// A timeout: the server answers after 300 ms, the client waits 50.
	ts := slow(t, 300*time.Millisecond)
	cfg := urls(ts.URL)
	cfg.Timeout = 50 * time.Millisecond
	ph := run(t, cfg, engine.Config{Clients: 2, Count: 4})
	if class(ph, "timeout") != 4 || ph.HTTP.Requests != 4 || ph.HTTP.Responses != 0 {
		t.Fatalf("timeouts: %+v", ph.ErrorClasses)
	}
	// Nothing listening: connect errors.
	ts2, _ := counting(t)
	addr := ts2.URL
	ts2.Close()
	ph = run(t, urls(addr), engine.Config{Clients: 1, Count: 3})
	if class(ph, "connect") != 3 {
		t.Fatalf("refused: %+v", ph.ErrorClasses)
	}
}

const tokenFlow = `
name: api
vars:
  user: {choice: [alice, bob]}
  offset: {int: [0, 119990]}
  limit: {choice: [1, 10]}
steps:
  - name: login
    method: POST
    url: /api/login
    headers: {Content-Type: application/x-www-form-urlencoded}
    body: user={{user}}
    extract:
      token: {json: $.token}
      session: {header: X-Session}
  - name: find
    url: /api/find?offset={{offset}}&limit={{limit}}
    headers: {Authorization: "Bearer {{token}}"}
    expect: {body: '"total":120000'}
    extract:
      first: {json: 'data.items[0].id'}
  - name: logout
    method: POST
    url: /api/logout
    headers: {Authorization: "Bearer {{session}}"}
    always: true
`

func TestFlowCarriesTheToken(t *testing.T) {
	api := newTokenAPI(t)
	f, err := flow.Parse("api.yaml", []byte(tokenFlow), flow.Options{Base: api.URL})
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Flow = f
	ph := run(t, cfg, engine.Config{Clients: 4, Count: 100})
	if ph.Errors != 0 || ph.Ops != 100 {
		t.Fatalf("passes %d, errors %+v", ph.Ops, ph.ErrorClasses)
	}
	if api.logins.Load() != 100 || api.finds.Load() != 100 || api.logouts.Load() != 100 || api.rejected.Load() != 0 {
		t.Fatalf("server: logins %d finds %d logouts %d rejected %d", api.logins.Load(), api.finds.Load(), api.logouts.Load(), api.rejected.Load())
	}
	h := ph.HTTP
	if h.Mode != "flow" || h.Requests != 300 || len(h.Targets) != 3 {
		t.Fatalf("http %+v", h)
	}
	for _, tg := range h.Targets {
		if tg.Requests != 100 || tg.Failed != 0 || tg.Latency.P50 == 0 {
			t.Fatalf("step %+v", tg)
		}
	}
	// The whole pass takes longer than any one step.
	if ph.Latency.Mean <= h.Targets[1].Latency.Mean {
		t.Fatalf("pass mean %.1fµs not above find mean %.1fµs", ph.Latency.Mean, h.Targets[1].Latency.Mean)
	}
}

func TestFlowWithoutTokenIsRejected(t *testing.T) {
	// The same flow with the extraction pointing at a missing field: the
	// login's answer has no "tok", so find is never sent without a token;
	// logout (always) still runs, with the session taken from the header.
	api := newTokenAPI(t)
	src := strings.Replace(tokenFlow, "json: $.token", "json: $.tok", 1)
	f, err := flow.Parse("api.yaml", []byte(src), flow.Options{Base: api.URL})
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Flow = f
	ph := run(t, cfg, engine.Config{Clients: 2, Count: 10})
	if ph.Ops != 0 || class(ph, "login: extract token") != 10 || api.finds.Load() != 0 || api.rejected.Load() != 0 || api.logouts.Load() != 10 {
		t.Fatalf("ops %d classes %+v finds %d rejected %d logouts %d", ph.Ops, ph.ErrorClasses, api.finds.Load(), api.rejected.Load(), api.logouts.Load())
	}
	// Sending a bad token: the server rejects find with 401, the failure is
	// the step's, and logout still runs (always) with the session header.
	src = strings.Replace(tokenFlow, `"Bearer {{token}}"`, `"Bearer x{{token}}"`, 1)
	f, err = flow.Parse("api.yaml", []byte(src), flow.Options{Base: api.URL})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Flow = f
	ph = run(t, cfg, engine.Config{Clients: 2, Count: 10})
	if ph.Ops != 0 || class(ph, "find: http 401") != 10 || api.logouts.Load() != 20 {
		t.Fatalf("ops %d classes %+v logouts %d", ph.Ops, ph.ErrorClasses, api.logouts.Load())
	}
}

func TestOpenLoopKeepsRate(t *testing.T) {
	ts, n := counting(t)
	ph := run(t, urls(ts.URL), engine.Config{Clients: 8, Duration: 2 * time.Second, Rate: 500})
	if got := n.Load(); got < 990 || got > 1010 {
		t.Fatalf("server saw %d requests at 500/s for 2 s, want 1000 ± 10 (open loop %+v)", got, ph.OpenLoop)
	}
	if ph.OpenLoop == nil || ph.OpenLoop.Scheduled != 1000 {
		t.Fatalf("open loop %+v", ph.OpenLoop)
	}
}

func TestOpenLoopChargesAStallToTheQueue(t *testing.T) {
	// 200/s for 2 s on 4 clients; the server stalls for 1 s at request 60.
	// Requests scheduled during the stall wait for a free client: their
	// latency from the scheduled start shows it, the service time does not.
	ts := stalling(t, 60, time.Second)
	ph := run(t, urls(ts.URL), engine.Config{Clients: 4, Duration: 2 * time.Second, Rate: 200})
	o := ph.OpenLoop
	if o == nil {
		t.Fatal("no open loop figures")
	}
	if ph.Latency.P90 < 5*o.Service.P90 || ph.Latency.Mean < 3*o.Service.Mean || ph.Latency.Max < 900_000 {
		t.Fatalf("corrected p90 %.0fµs mean %.0fµs max %.0fµs; service p90 %.0fµs mean %.0fµs",
			ph.Latency.P90, ph.Latency.Mean, ph.Latency.Max, o.Service.P90, o.Service.Mean)
	}
	if o.Late == 0 {
		t.Fatalf("no late starts: %+v", o)
	}
}

// In an open loop the rows per URL or step run from the scheduled start
// too, as the engine's latency does: a request that waited behind the
// timetable is charged for the wait in its row, not only in the pass or
// request the engine timed.
func TestOpenLoopRowsFromTheScheduledStart(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  func(base string) Config
	}{
		{"one URL", func(base string) Config { return urls(base + "/a") }},
		{"two URLs", func(base string) Config { return urls(base+"/a", base+"/b") }},
		{"flow", func(base string) Config {
			f, err := flow.Parse("s.yaml", []byte("steps:\n  - url: /a\n  - url: /b\n"), flow.Options{Base: base})
			if err != nil {
				t.Fatal(err)
			}
			cfg := DefaultConfig()
			cfg.Flow = f
			return cfg
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			// A server of its own: it stalls once, at its 40th request.
			cfg := c.cfg(stalling(t, 40, 500*time.Millisecond).URL)
			cfg.OpenLoop = true
			ph := run(t, cfg, engine.Config{Clients: 4, Duration: time.Second, Rate: 200})
			svc := ph.OpenLoop.Service
			if len(ph.HTTP.Targets) == 0 {
				t.Fatal("no per-target rows")
			}
			for _, tg := range ph.HTTP.Targets {
				// Most requests were quick to serve but waited behind the
				// stall: from the scheduled start, their mean is several
				// times the service time's, as the engine's is.
				if tg.Latency.Count == 0 || tg.Latency.Mean < 3*svc.Mean || tg.Latency.P90 < 5*svc.P90 {
					t.Errorf("%s: mean %.0fµs p90 %.0fµs; service mean %.0fµs p90 %.0fµs; engine mean %.0fµs",
						tg.Name, tg.Latency.Mean, tg.Latency.P90, svc.Mean, svc.P90, ph.Latency.Mean)
				}
			}
		})
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"nothing", DefaultConfig(), "no URL"},
		{"ftp", urls("ftp://h/"), "not ftp"},
		{"no host", urls("http:///x"), "no host"},
		{"timeout", func() Config { c := urls("http://h/"); c.Timeout = 0; return c }(), "timeout"},
		// What would break the request on the wire (the lean path writes
		// it as given).
		{"header value", func() Config { c := urls("http://h/"); c.Headers = []Header{{"X-A", "a\r\nX-Inj: b"}}; return c }(), "header X-A: the value has a control character"},
		{"header name", func() Config { c := urls("http://h/"); c.Headers = []Header{{"X A", "b"}}; return c }(), "not a token"},
		{"method", func() Config { c := urls("http://h/"); c.Targets[0].Method = "GE T"; return c }(), `method "GE T" is not a token`},
		{"content type", func() Config { c := urls("http://h/"); c.Targets[0].ContentType = "a\nb"; return c }(), "Content-Type"},
	} {
		if _, err := New(c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
}

// TestNoAllocations checks the steady state of a client: a request to the
// canned server, with its checks and bookkeeping, allocates nothing.
func TestNoAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	base := canned(t, strings.Repeat("x", 58))
	for _, cfg := range []Config{urls(base + "/"), urls(base+"/a", base+"/b")} {
		cfg.Expect.Body = regexp.MustCompile("x+")
		w, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		s, _ := w.Store().Open(context.Background())
		c := w.NewClient(s, nil)
		for range 100 {
			if _, err := c.Do(context.Background(), 0); err != nil {
				t.Fatal(err)
			}
		}
		if a := testing.AllocsPerRun(1000, func() { c.Do(context.Background(), 0) }); a > 0.01 {
			t.Fatalf("%d URLs: %.2f allocations per request", len(cfg.Targets), a)
		}
		s.Close()
	}
}

// BenchmarkRequest measures one request through a client against a server
// in the same process: canned allocates nothing itself, so allocs/op is
// the client's; httptest (net/http's server) adds its own.
func BenchmarkRequest(b *testing.B) {
	ts, _ := counting(b)
	for _, srv := range []struct{ name, url string }{{"canned", canned(b, strings.Repeat("x", 58))}, {"httptest", ts.URL}} {
		b.Run(srv.name, func(b *testing.B) {
			w, err := New(urls(srv.url + "/"))
			if err != nil {
				b.Fatal(err)
			}
			s, _ := w.Store().Open(context.Background())
			defer s.Close()
			c := w.NewClient(s, nil)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Do(context.Background(), 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFlowPass measures one pass of a three-step flow (templates,
// JSON and header extraction, no regex) against the canned server.
func BenchmarkFlowPass(b *testing.B) {
	base := canned(b, `{"token":"0123456789abcdef","data":{"items":[{"id":7}]}}`)
	f, err := flow.Parse("b.yaml", []byte(`
vars: {offset: {int: [0, 1000]}}
steps:
  - {name: login, url: /login, extract: {token: {json: $.token}, server: {header: Server}}}
  - {name: find, url: '/find?o={{offset}}', headers: {Authorization: 'Bearer {{token}}'}, extract: {id: {json: 'data.items[0].id'}}}
  - {name: logout, url: '/logout?t={{token|url}}'}
`), flow.Options{Base: base})
	if err != nil {
		b.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Flow = f
	w, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	s, _ := w.Store().Open(context.Background())
	defer s.Close()
	c := w.NewClient(s, newRand())
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Do(context.Background(), 0); err != nil {
			b.Fatal(err)
		}
	}
}

func TestURLFileFromDisk(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "post.txt"), []byte("a=1&b=2"), 0o644)
	os.WriteFile(filepath.Join(dir, "urls.txt"), []byte("H=127.0.0.1:1\nhttp://$(H)/x POST <post.txt\n"), 0o644)
	data, _ := os.ReadFile(filepath.Join(dir, "urls.txt"))
	ts, err := ParseURLFile("urls.txt", data, URLFileOptions{ReadFile: func(n string) ([]byte, error) { return os.ReadFile(filepath.Join(dir, n)) }})
	if err != nil || string(ts[0].Body) != "a=1&b=2" {
		t.Fatalf("%+v %v", ts, err)
	}
}

// TestExampleFiles runs the example flow and URL file of testdata (the
// ones docs/http.md shows) against the token API.
func TestExampleFiles(t *testing.T) {
	api := newTokenAPI(t)
	f, err := flow.ParseFile(filepath.Join("testdata", "login-find-logout.yaml"), flow.Options{Base: api.URL})
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Flow = f
	ph := run(t, cfg, engine.Config{Clients: 3, Count: 30})
	if ph.Ops != 30 || ph.Errors != 0 || api.finds.Load() != 30 || api.logouts.Load() != 30 || api.rejected.Load() != 0 {
		t.Fatalf("passes %d errors %+v finds %d logouts %d", ph.Ops, ph.ErrorClasses, api.finds.Load(), api.logouts.Load())
	}
	data, err := os.ReadFile(filepath.Join("testdata", "urls.txt"))
	if err != nil {
		t.Fatal(err)
	}
	targets, err := ParseURLFile("urls.txt", data, URLFileOptions{ReadFile: func(n string) ([]byte, error) { return os.ReadFile(filepath.Join("testdata", n)) }})
	if err != nil || len(targets) != 4 || string(targets[3].Body) != "category=test&text=from+a+file" {
		t.Fatalf("%+v %v", targets, err)
	}
}

// A step's own Authorization header is sent, not the base URL's
// user:password (which apply only where no Authorization is set), and so
// is one given with -H or -A for every request.
func TestStepAuthorizationWinsOverBaseCredentials(t *testing.T) {
	var mu sync.Mutex
	seen := map[string][]string{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.URL.Path] = r.Header.Values("Authorization")
		mu.Unlock()
	}))
	defer ts.Close()
	base := strings.Replace(ts.URL, "http://", "http://u:BASEPW@", 1)
	f, err := flow.Parse("a.yaml", []byte(`
steps:
  - url: /own
    headers: {authorization: Bearer STEPTOKEN}
  - url: /base
`), flow.Options{Base: base})
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Flow = f
	if ph := run(t, cfg, engine.Config{Clients: 1, Count: 1}); ph.Errors != 0 {
		t.Fatal(ph.ErrorClasses)
	}
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("u:BASEPW"))
	if !slices.Equal(seen["/own"], []string{"Bearer STEPTOKEN"}) || !slices.Equal(seen["/base"], []string{basic}) {
		t.Fatalf("the server saw %q", seen)
	}
	cfg.Headers = []Header{{"Authorization", "Bearer ALL"}}
	if ph := run(t, cfg, engine.Config{Clients: 1, Count: 1}); ph.Errors != 0 {
		t.Fatal(ph.ErrorClasses)
	}
	if !slices.Equal(seen["/own"], []string{"Bearer STEPTOKEN"}) || !slices.Equal(seen["/base"], []string{"Bearer ALL"}) {
		t.Fatalf("with -H: the server saw %q", seen)
	}
}

// A URL listed twice (a URL file posting two bodies to one URL) gets two
// rows that can be told apart: by the file's line, or by the place on the
// command line.
func TestRowsOfOneURLAreNamedApart(t *testing.T) {
	ts, _ := counting(t)
	targets, err := ParseURLFile("u.txt", []byte(ts.URL+"/posts POST a=1\n"+ts.URL+"/posts/count\n# c\n"+ts.URL+"/posts POST a=2\n"), URLFileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Targets = append(targets, Target{Method: "GET", URL: ts.URL + "/x"}, Target{Method: "GET", URL: ts.URL + "/x"})
	var names []string
	for _, tg := range run(t, cfg, engine.Config{Clients: 1, Count: 5}).HTTP.Targets {
		names = append(names, tg.Name)
	}
	want := []string{"POST " + ts.URL + "/posts (line 1)", "GET " + ts.URL + "/posts/count", "POST " + ts.URL + "/posts (line 4)",
		"GET " + ts.URL + "/x (#4)", "GET " + ts.URL + "/x (#5)"}
	if !slices.Equal(names, want) {
		t.Fatalf("rows %q, want %q", names, want)
	}
}
