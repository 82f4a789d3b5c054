package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kurabe/result"
)

// httpCLI runs kurabe http in-process and returns its output and status.
func httpCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	app := &App{Terminal: func(io.Writer) bool { return false }}
	var out, errb bytes.Buffer
	err := app.Run(context.Background(), append([]string{"http"}, args...), &out, &errb)
	if err != nil {
		code = ExitFailed
		var ee *ExitError
		if errors.As(err, &ee) {
			code = ee.Code
		}
		errb.WriteString("kurabe: " + err.Error() + "\n")
	}
	return out.String(), errb.String(), code
}

// httpCounting is a server that counts requests per path and method, and
// answers 503 on /fail.
type httpCounting struct {
	*httptest.Server
	n      atomic.Int64
	mu     sync.Mutex
	paths  map[string]int
	bodies []string
}

func newHTTPCounting(t *testing.T) *httpCounting {
	s := &httpCounting{paths: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.n.Add(1)
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.paths[r.Method+" "+r.URL.RequestURI()]++
		if len(body) > 0 {
			s.bodies = append(s.bodies, r.Header.Get("Content-Type")+" "+string(body))
		}
		s.mu.Unlock()
		if r.URL.Path == "/fail" {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		w.Header().Set("Server", "counting/1")
		io.WriteString(w, "hello")
	}))
	t.Cleanup(s.Close)
	return s
}

// seen returns copies of the requests and bodies the server saw, read
// under its lock (the race detector cannot see that the responses came
// after the handler's writes).
func (s *httpCounting) seen() (map[string]int, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	paths := make(map[string]int, len(s.paths))
	for k, v := range s.paths {
		paths[k] = v
	}
	return paths, append([]string(nil), s.bodies...)
}

func TestHTTPSendsExactlyN(t *testing.T) {
	s := newHTTPCounting(t)
	out, errs, code := httpCLI(t, "-n", "10000", "-c", "100", "-k", s.URL+"/read_file")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if got := s.n.Load(); got != 10000 {
		t.Fatalf("the server saw %d requests, want exactly 10000", got)
	}
	for _, want := range []string{
		"Server Software:        counting/1", "Server Port:", "Document Path:          /read_file", "Document Length:        5 bytes",
		"Concurrency Level:      100", "Complete requests:      10000", "Failed requests:        0", "Requests per second:", "[ms] (mean, across all concurrent requests)",
		"Transfer rate:", "Connection Times (ms, µs resolution)", "Connect:", "Processing:", "Waiting:", "Total:", "99.9%", "(longest request)",
		"Transactions:                  10000 hits", "Availability:                  100.00 %", "Elapsed time:", "Data transferred:", "Response time:",
		"Transaction rate:", "Throughput:", "Concurrency:", "Successful transactions:       10000", "Failed transactions:           0",
		"Longest transaction:", "Shortest transaction:", "Status codes: 200 × 10,000", "Connections: 100 opened; TCP connect ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

func TestHTTPFailuresByStatus(t *testing.T) {
	s := newHTTPCounting(t)
	js := filepath.Join(t.TempDir(), "r.json")
	out, errs, code := httpCLI(t, "-n", "40", "-c", "4", "--json", js, s.URL+"/fail", s.URL+"/ok")
	if code != ExitFailed || !strings.Contains(errs, "20 of 40 requests failed") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	for _, want := range []string{"Failed requests:        20 (http 503: 20)", "Non-2xx responses:      20", "Failed, http 503: 20; first: GET " + s.URL + "/fail: 503 Service Unavailable", "GET " + s.URL + "/ok"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	doc, err := result.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	h := doc.Stores[0].Phases[0].HTTP
	if h == nil || h.Failed != 20 || h.Non2xx != 20 || len(h.Targets) != 2 || doc.Run.Workload != "http" {
		t.Fatalf("document %+v", h)
	}
}

func TestHTTPURLFileAndPost(t *testing.T) {
	s := newHTTPCounting(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "post.txt"), []byte("category=test&text=hogehoge"), 0o644)
	urls := fmt.Sprintf("# siege's format\nBASE=%s\n$(BASE)/read_file\n$(BASE)/write POST category=a&text=b\n$(BASE)/put PUT <post.txt\n", s.URL)
	os.WriteFile(filepath.Join(dir, "urls.txt"), []byte(urls), 0o644)
	_, errs, code := httpCLI(t, "-f", filepath.Join(dir, "urls.txt"), "-c", "3", "-n", "30", "--format", "siege")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	paths, bodies := s.seen()
	if paths["GET /read_file"] != 10 || paths["POST /write"] != 10 || paths["PUT /put"] != 10 {
		t.Fatalf("server saw %v", paths)
	}
	if !contains(bodies, "application/x-www-form-urlencoded category=a&text=b") || !contains(bodies, "application/x-www-form-urlencoded category=test&text=hogehoge") {
		t.Fatalf("bodies %v", bodies)
	}
	// ab's -p with -T.
	os.WriteFile(filepath.Join(dir, "p.json"), []byte(`{"x":1}`), 0o644)
	if _, errs, code := httpCLI(t, "-n", "2", "-p", filepath.Join(dir, "p.json"), "-T", "application/json", "-H", "X-A: 1", "-C", "s=1", s.URL+"/j"); code != 0 {
		t.Fatalf("-p: exit %d: %s", code, errs)
	}
	if paths, bodies := s.seen(); paths["POST /j"] != 2 || !contains(bodies, `application/json {"x":1}`) {
		t.Fatalf("server saw %v %v", paths, bodies)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestHTTPFlow(t *testing.T) {
	// A login that answers a token, and a find that refuses requests
	// without it.
	var finds, rejected atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("POST /login", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{"token":"s3cret"}`) })
	mux.HandleFunc("GET /find", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			rejected.Add(1)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		finds.Add(1)
		fmt.Fprintf(w, `{"items":[%s]}`, r.URL.Query().Get("offset"))
	})
	ts := httptest.NewServer(mux)
	defer ts.Close()
	dir := t.TempDir()
	fl := filepath.Join(dir, "flow.yaml")
	os.WriteFile(fl, []byte(`
vars:
  offset: {int: [0, 99]}
steps:
  - name: login
    method: POST
    url: /login
    extract: {token: {json: $.token}}
  - name: find
    url: /find?offset={{offset}}
    headers: {Authorization: "Bearer {{token}}"}
`), 0o644)
	js := filepath.Join(dir, "r.json")
	out, errs, code := httpCLI(t, "--flow", fl, "-c", "2", "-n", "20", "--json", js, "--format", "text", ts.URL)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errs, out)
	}
	if finds.Load() != 20 || rejected.Load() != 0 {
		t.Fatalf("finds %d, rejected %d", finds.Load(), rejected.Load())
	}
	for _, want := range []string{"flow flow", "n=20 passes", "step", "login", "find", "Flow: 20 passes completed, 0 failed"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	doc, err := result.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	if h := doc.Stores[0].Phases[0].HTTP; h.Requests != 40 || h.Targets[1].Name != "find" {
		t.Fatalf("document %+v", h)
	}
	// A flow error names the file and line, on one line, exit 2.
	os.WriteFile(fl, []byte("steps:\n  - url: /x\n    heders: {}\n"), 0o644)
	_, errs, code = httpCLI(t, "--flow", fl, ts.URL)
	if code != ExitUsage || !strings.Contains(errs, "flow.yaml:3:5: unknown field \"heders\" in a step") || strings.Count(errs, "\n") != 1 {
		t.Fatalf("exit %d: %q", code, errs)
	}
}

func TestHTTPOpenLoopReportsBothLatencies(t *testing.T) {
	// The server stalls for 1 s once; at 200/s on 4 clients, the requests
	// scheduled meanwhile queue, and the report shows the corrected
	// latency (from the scheduled start) above the service time.
	var n atomic.Int64
	var mu sync.Mutex
	var until time.Time
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 60 {
			mu.Lock()
			until = time.Now().Add(time.Second)
			mu.Unlock()
		}
		mu.Lock()
		wait := time.Until(until)
		mu.Unlock()
		time.Sleep(wait)
	}))
	defer ts.Close()
	js := filepath.Join(t.TempDir(), "r.json")
	out, errs, code := httpCLI(t, "-R", "200", "-d", "2s", "-c", "4", "--json", js, ts.URL)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"open loop at 200 req/s", "latency from the scheduled start (corrected)", "service time from the actual start (uncorrected)", "from the", "scheduled"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	doc, err := result.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	p := doc.Stores[0].Phases[0]
	if p.OpenLoop == nil || p.Latency.P90 < 5*p.OpenLoop.Service.P90 || p.Latency.Mean < 3*p.OpenLoop.Service.Mean {
		t.Fatalf("corrected %+v, service %+v", p.Latency, p.OpenLoop)
	}
}

func TestHTTPFormats(t *testing.T) {
	t.Setenv("LC_ALL", "C") // English, whatever the machine's locale
	s := newHTTPCounting(t)
	for format, want := range map[string][]string{
		"ab":       {"Requests per second:", "Connection Times"},
		"siege":    {"Transactions:", "Longest transaction:"},
		"text":     {"url", "req/s", "Status codes: 200 × 3"},
		"markdown": {"| url | requests |", "---:|", "- Status codes: 200 × 3"},
		"full":     {"Requests per second:", "Transactions:", "Status codes:"},
	} {
		out, errs, code := httpCLI(t, "-n", "3", "--format", format, s.URL)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", format, code, errs)
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("--format %s lacks %q:\n%s", format, w, out)
			}
		}
		if format == "ab" && strings.Contains(out, "Transactions:") || format == "siege" && strings.Contains(out, "Requests per second") {
			t.Errorf("--format %s mixes formats:\n%s", format, out)
		}
	}

	// In Japanese, kurabe's own lines and the table change; ab's and
	// siege's fields stay as those tools print them. LANG picks the
	// language when --lang is not given.
	for _, c := range []struct {
		args []string
		env  string
		want []string
	}{
		{[]string{"--lang", "ja", "--format", "text"}, "C", []string{"リクエスト", "ステータスコード: 200 × 3", "本文の長さ: "}},
		{[]string{"--format", "full"}, "ja_JP.UTF-8", []string{"Requests per second:", "Transactions:", "ステータスコード: 200 × 3"}},
		{[]string{"--lang", "en", "--format", "text"}, "ja_JP.UTF-8", []string{"Status codes: 200 × 3"}},
	} {
		t.Setenv("LC_ALL", c.env)
		out, errs, code := httpCLI(t, append(append([]string{"-n", "3"}, c.args...), s.URL)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errs)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v with LC_ALL=%s lacks %q:\n%s", c.args, c.env, w, out)
			}
		}
	}
}

func TestHTTPBadFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{}, "no URL"},
		{[]string{"-x", "http://h/"}, "unknown flag -x"},
		{[]string{"-n", "0", "http://h/"}, "-n 0"},
		{[]string{"-c", "0", "http://h/"}, "-c 0"},
		{[]string{"-n", "5", "-t", "3", "http://h/"}, "either -n or -t"},
		{[]string{"-t", "3", "-d", "4", "http://h/"}, "disagree"},
		{[]string{"-t", "soon", "http://h/"}, "-t \"soon\""},
		{[]string{"-s", "-1", "http://h/"}, "-s"},
		{[]string{"-R", "fast", "-d", "1s", "http://h/"}, "-R"},
		{[]string{"-R", "100", "http://h/"}, "-R needs -n"},
		{[]string{"-H", "NoColon", "http://h/"}, "-H"},
		{[]string{"-C", "nocookie", "http://h/"}, "-C"},
		{[]string{"-A", "user", "http://h/"}, "-A"},
		// What would break the request on the wire (header injection
		// through the lean client's request as written), refused before
		// the run, without quoting a value that may be secret.
		{[]string{"-H", "X-A: a\r\nX-Inj: SECRETVAL", "http://h/"}, "-H X-A: the value has a control character"},
		{[]string{"-H", "X-A: a\x00SECRETVAL", "http://h/"}, "-H X-A: the value has a control character"},
		{[]string{"-H", "X A: SECRETVAL", "http://h/"}, "not a token"},
		{[]string{"-H", "X\nA: SECRETVAL", "http://h/"}, "not a token"},
		{[]string{"-C", "a=SECRETVAL\r\nX-Inj: b", "http://h/"}, "-C: the cookie has a control character"},
		{[]string{"-T", "text/plain\r\nX-Inj: b", "-p", "/dev/null", "http://h/"}, "-T \"text/plain\\r\\nX-Inj: b\": a Content-Type has no control character"},
		{[]string{"-m", "GE T", "http://h/"}, `-m "GE T": a method is one word`},
		{[]string{"-m", "GET\r\n", "http://h/"}, `-m "GET\r\n": a method is one word`},
		// Two headers of one name, from two flags.
		{[]string{"-A", "u:SECRETVAL", "-H", "authorization: Bearer zz", "http://h/"}, "-A and -H \"Authorization: ...\" would send two Authorization headers"},
		{[]string{"-C", "a=1", "-H", "Cookie: b=2", "http://h/"}, "-C and -H \"Cookie: ...\" would send two Cookie headers"},
		// -T is never dropped without a word: with no body to type, or
		// beside -H's Content-Type, which would win.
		{[]string{"-T", "application/json", "http://h/"}, "-T \"application/json\" gives the Content-Type of bodies, and no request sends one"},
		{[]string{"-T", "application/json", "-H", "Content-Type: text/plain", "-p", "/dev/null", "http://h/"}, "-T and -H \"Content-Type: ...\" both give the Content-Type"},
		{[]string{"-p", "a", "-u", "b", "http://h/"}, "not both"},
		{[]string{"-p", "/nonexistent/post.txt", "http://h/"}, "-p"},
		{[]string{"--expect-status", "2xx", "http://h/"}, "--expect-status"},
		{[]string{"--expect-body", "(", "http://h/"}, "--expect-body"},
		{[]string{"--expect-length", "-5", "http://h/"}, "--expect-length"},
		{[]string{"--format", "xml", "http://h/"}, "--format"},
		{[]string{"--lang", "fr", "http://h/"}, "unknown language"},
		{[]string{"ftp://h/"}, "not ftp"},
		{[]string{"-f", "/nonexistent/urls.txt"}, "-f"},
		{[]string{"--flow", "/nonexistent/flow.yaml"}, "flow.yaml"},
		{[]string{"--flow", "f.yaml", "-f", "u.txt"}, "not both"},
		{[]string{"--flow", "f.yaml", "http://a/", "http://b/"}, "at most one URL"},
		{[]string{"--json", "/nonexistent/dir/r.json", "http://h/"}, "--json"},
		{[]string{"--json", os.TempDir(), "http://h/"}, "is a directory"},
		{[]string{"-R", "10:5", "-n", "5", "http://h/"}, "a ramp needs a duration"},
		// siege command lines, pasted: what their flags are called here.
		{[]string{"-c", "10", "-r", "5", "-b", "http://h/"}, "siege's -r N is -n N×clients here"},
		{[]string{"-c10", "-r5", "http://h/"}, "-r5; siege's -r N is -n N×clients"},
		{[]string{"--reps=5", "http://h/"}, "-reps; siege's --reps N is -n N×clients"},
		{[]string{"--concurrent=10", "http://h/"}, "siege's --concurrent is -c"},
		// ab's and siege's flags kurabe http does not take: what to give.
		{[]string{"-i", "http://h/"}, "unknown flag -i; ab's -i (HEAD requests) is -m HEAD; siege's -i (internet mode) is --random"},
		{[]string{"-n", "5", "-g", "out.tsv", "http://h/"}, "unknown flag -g; ab's -g (gnuplot data) has no counterpart; --json FILE"},
		{[]string{"-e", "p.csv", "http://h/"}, "unknown flag -e; ab's -e (CSV of percentiles)"},
		{[]string{"-v", "2", "http://h/"}, "unknown flag -v; ab's -v (verbosity) has no counterpart"},
		{[]string{"-X", "proxy:3128", "http://h/"}, "unknown flag -X; ab's -X (proxy) is not supported"},
		{[]string{"--set", "n=5", "http://h/"}, "use it with --flow"},
		{[]string{"--flow", "f.yaml", "--set", "n", "http://h/"}, "want NAME=VALUE"},
		{[]string{"--flow", "f.yaml", "--set", "1n=5", "http://h/"}, "not a variable name"},
	} {
		var out, errb bytes.Buffer
		code := Main(context.Background(), append([]string{"http"}, c.args...), &out, &errb)
		if code != ExitUsage || strings.Count(errb.String(), "\n") != 1 || !strings.Contains(errb.String(), c.want) || out.Len() != 0 || strings.Contains(errb.String(), "SECRETVAL") {
			t.Errorf("%v: exit %d, stderr %q, want one line with %q", c.args, code, errb.String(), c.want)
		}
	}
}

func TestHTTPHelp(t *testing.T) {
	out, _, code := httpCLI(t, "-h")
	if code != 0 || !strings.Contains(out, "Usage: kurabe http") || !strings.Contains(out, "-expect-length") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

func TestHTTPRedact(t *testing.T) {
	got := strings.Join(httpRedact([]string{"-A", "u:p", "-C=s=1", "-H", "Authorization: Bearer x", "-H", "Accept: */*", "-n", "3"}), " ")
	if got != "-A REDACTED -C=REDACTED -H Authorization: REDACTED -H Accept: */* -n 3" {
		t.Fatalf("got %q", got)
	}
	// Any header named like a secret, a header without a name, URL
	// passwords and secret query parameters.
	got = strings.Join(httpRedact([]string{"-H", "X-Api-Key: K", "-H=X-Auth-Token: T", "-H", "Proxy-Authorization: Basic Zm9v", "-H", "Bearer T",
		"-H", "X-Session-Id: S", "-p", "post.txt", "http://u:SECRET@h:1/x?api_key=Q&n=1", "--", "http://h/?token=T"}), " ")
	if got != "-H X-Api-Key: REDACTED -H=X-Auth-Token: REDACTED -H Proxy-Authorization: REDACTED -H REDACTED -H X-Session-Id: REDACTED -p post.txt http://u:xxxxx@h:1/x?api_key=xxxxx&n=1 -- http://h/?token=xxxxx" {
		t.Fatalf("got %q", got)
	}
	// --set keeps the names, and the values of those named like secrets.
	got = strings.Join(httpRedact([]string{"--set", "password=hunter2", "--set=records=5", "--set=api_token=t", "-set", "offset={int: [0, 9]}"}), " ")
	if got != "--set password=REDACTED --set=records=5 --set=api_token=REDACTED -set offset={int: [0, 9]}" {
		t.Fatalf("got %q", got)
	}
}

// --set gives a flow's variables from the command line: it replaces the
// file's (records), fills in one the file leaves undefined (user), takes
// generators, and a name the flow does not use is refused, exit 2.
func TestHTTPFlowSet(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]int{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.URL.RawQuery]++
		mu.Unlock()
	}))
	defer ts.Close()
	fl := filepath.Join(t.TempDir(), "flow.yaml")
	os.WriteFile(fl, []byte(`
vars:
  records: {choice: [100]}
  offset: {int: [0, 1000]}
steps:
  - url: /find?offset={{offset}}&limit={{records}}&user={{user|url}}
`), 0o644)
	js := filepath.Join(t.TempDir(), "r.json")
	out, errs, code := httpCLI(t, "--flow", fl, "--set", "records=5000", "--set", "offset={int: [3, 4]}", "--set=user=a b", "--set", "password=x",
		"-c", "2", "-n", "30", "--json", js, ts.URL)
	if code != ExitUsage || !strings.Contains(errs, "--set password: no step uses {{password}}; the flow's variables are offset, records, user") {
		t.Fatalf("an unused --set: exit %d: %s", code, errs)
	}
	out, errs, code = httpCLI(t, "--flow", fl, "--set", "records=5000", "--set", "offset={int: [3, 4]}", "--set=user=a b",
		"-c", "2", "-n", "30", "--json", js, ts.URL)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errs, out)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 || seen["offset=3&limit=5000&user=a+b"]+seen["offset=4&limit=5000&user=a+b"] != 30 {
		t.Fatalf("queries %v", seen)
	}
	doc, err := result.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	// The command line as typed after kurabe, its command's name first.
	if !slices.Contains(doc.Command, "records=5000") || doc.Command[0] != "http" {
		t.Fatalf("command %q", doc.Command)
	}
}

func TestHTTPSeconds(t *testing.T) {
	for in, want := range map[string]time.Duration{"30": 30 * time.Second, "1.5": 1500 * time.Millisecond, "500ms": 500 * time.Millisecond, "30S": 30 * time.Second, "5M": 5 * time.Minute, "1H": time.Hour, "2m": 2 * time.Minute} {
		if got, err := httpSeconds(in); err != nil || got != want {
			t.Errorf("%s: got %v %v, want %v", in, got, err, want)
		}
	}
}

// ab's joined short flags, as getopt reads them: ab command lines paste
// unchanged.
func TestHTTPJoinedFlags(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.String("n", "", "")
	fs.String("c", "", "")
	fs.String("H", "", "")
	fs.String("p", "", "")
	fs.Bool("k", false, "")
	fs.Bool("q", false, "")
	fs.Bool("close", false, "")
	fs.String("flow", "", "")
	for _, c := range []struct{ in, want []string }{
		{[]string{"-n10", "-c4", "-HAuthorization: Bearer T", "http://h/"}, []string{"-n", "10", "-c", "4", "-H", "Authorization: Bearer T", "http://h/"}},
		{[]string{"-kc", "10", "-kq", "-kc4"}, []string{"-k", "-c", "10", "-k", "-q", "-k", "-c", "4"}},
		{[]string{"-close", "-flow", "f.yaml", "-n=5", "--c=3"}, []string{"-close", "-flow", "f.yaml", "-n=5", "--c=3"}},
		// A flag's value is left alone, whatever it looks like.
		{[]string{"-p", "-n10", "-H", "-kc"}, []string{"-p", "-n10", "-H", "-kc"}},
		// Unknown letters: the flag package's error names the argument.
		{[]string{"-xyz", "-kx"}, []string{"-xyz", "-kx"}},
		{[]string{"--", "-n10"}, []string{"--", "-n10"}},
		// A long flag by its name, with one dash or two, takes the next
		// argument as its value even when it starts with a dash.
		{[]string{"--flow", "-kc", "-flow", "-n10"}, []string{"--flow", "-kc", "-flow", "-n10"}},
		// A long flag that does not exist is not read as joined letters
		// (-quiet is not -q -u iet; --kc is not -k -c).
		{[]string{"-quiet", "--kc", "10"}, []string{"-quiet", "--kc", "10"}},
	} {
		if got := joinedFlags(fs, c.in); !slices.Equal(got, c.want) {
			t.Errorf("%q: got %q, want %q", c.in, got, c.want)
		}
	}
	s := newHTTPCounting(t)
	if _, errs, code := httpCLI(t, "-n10", "-c2", "-HX-A: 1", "-kq", s.URL+"/j"); code != 0 || s.n.Load() != 10 {
		t.Fatalf("exit %d, %d requests: %s", code, s.n.Load(), errs)
	}
}

// Credentials stay out of the result document and the output: a password
// in a flow's base URL (on the command line or in the file), a --set
// variable named like a secret, headers named like secrets.
func TestHTTPCredentialsStayOut(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusInternalServerError) })
	ts := httptest.NewServer(mux)
	defer ts.Close()
	dir := t.TempDir()
	fl := filepath.Join(dir, "f.yaml")
	withPassword := strings.Replace(ts.URL, "http://", "http://u:SECRET1@", 1)
	os.WriteFile(fl, []byte("base: "+strings.Replace(ts.URL, "http://", "http://v:SECRET2@", 1)+"\nsteps:\n  - url: /err500?api_key={{api_key}}&k={{key2}}\n"), 0o644)
	for _, args := range [][]string{
		{"--flow", fl, "-n", "2", "--set", "api_key=APIKEY77", "--set=key2=KEYTWO22", "-H", "X-Api-Key: HDR12345", "-HX-Auth-Token: TOK54321", withPassword},
		{"--flow", fl, "-n", "2", "--set", "api_key=APIKEY77", "--set=key2=KEYTWO22", "-H", "Proxy-Authorization: Basic HDR12345", "-H", "X-Session-Id: TOK54321"},
	} {
		js := filepath.Join(dir, "r.json")
		out, errs, code := httpCLI(t, append(args, "--json", js)...)
		if code != ExitFailed || !strings.Contains(out, "/err500?api_key=xxxxx&k=xxxxx): 500") {
			t.Fatalf("exit %d: %s\n%s", code, errs, out)
		}
		data, _ := os.ReadFile(js)
		for _, secret := range []string{"SECRET1", "SECRET2", "APIKEY77", "KEYTWO22", "HDR12345", "TOK54321"} {
			if strings.Contains(string(data), secret) || strings.Contains(out, secret) || strings.Contains(errs, secret) {
				t.Errorf("%v: %s is recorded or printed", args, secret)
			}
		}
	}
	// A URL with credentials is refused (-A gives them), and the message
	// hides the password, also when it comes from the environment through
	// a URL file.
	_, errs, code := httpCLI(t, "-n", "4", "http://bob:PWBOB42@127.0.0.1:3001/x")
	if code != ExitUsage || strings.Contains(errs, "PWBOB42") || !strings.Contains(errs, `"http://bob:xxxxx@127.0.0.1:3001/x": give credentials with -A`) {
		t.Fatalf("exit %d: %s", code, errs)
	}
	uf := filepath.Join(dir, "u.txt")
	os.WriteFile(uf, []byte("http://bob:$(KURABE_TEST_PW)@127.0.0.1:3001/x\n"), 0o644)
	t.Setenv("KURABE_TEST_PW", "ENVPW987")
	if _, errs, code := httpCLI(t, "-f", uf); code != ExitUsage || strings.Contains(errs, "ENVPW987") || !strings.Contains(errs, "u.txt:1: ") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// A variable sent in a secret header is secret whatever its name; a
	// user name alone may be a token; a bad generator for a secret does
	// not quote the parts of it.
	fa := filepath.Join(dir, "auth.yaml")
	os.WriteFile(fa, []byte("steps:\n  - url: /a\n    headers:\n      Authorization: Bearer {{tk}}\n"), 0o644)
	js := filepath.Join(dir, "auth.json")
	out, errs, code := httpCLI(t, "--flow", fa, "-n", "2", "--set", "tk=BEARERTK9", "--json", js, strings.Replace(ts.URL, "http://", "http://USERTOK77@", 1))
	data, _ := os.ReadFile(js)
	if code != ExitFailed || len(data) == 0 {
		t.Fatalf("exit %d: %s\n%s", code, errs, out)
	}
	for _, secret := range []string{"BEARERTK9", "USERTOK77"} {
		if strings.Contains(string(data), secret) || strings.Contains(out, secret) || strings.Contains(errs, secret) {
			t.Errorf("%s is recorded or printed", secret)
		}
	}
	if _, errs, code := httpCLI(t, "--flow", fl, "-n", "1", "--set", "api_key={int: [GENSECRET1, 2]}", "--set", "key2=x", ts.URL); code != ExitUsage || strings.Contains(errs, "GENSECRET1") {
		t.Errorf("a bad generator for a secret: exit %d: %s", code, errs)
	}
	// Flags given wrong do not repeat what may be a secret.
	for _, args := range [][]string{{"-H", "Bearer TOKEN9", "http://h/"}, {"-XAuthorization: Bearer TOKEN9", "http://h/"}, {"-C", "TOKEN9", "http://h/"}} {
		if _, errs, code := httpCLI(t, args...); code != ExitUsage || strings.Contains(errs, "TOKEN9") {
			t.Errorf("%q: exit %d: %s", args, code, errs)
		}
	}
}

// Bad URLs are refused before anything is sent, in one line, exit 2; a
// space in a query is sent escaped.
func TestHTTPBadURLs(t *testing.T) {
	for _, c := range []struct{ url, want string }{
		{"http://127.0.0.1:99999/", "port 99999 is out of range"},
		{"http://127.0.0.1:3001/a\tb", "control character"},
		{"http:///x", "has no host"},
		{"http://h/100%", "starts no escape"},
	} {
		out, errs, code := httpCLI(t, "-n", "2", c.url)
		if code != ExitUsage || !strings.Contains(errs, c.want) || strings.Count(errs, "\n") != 1 || out != "" {
			t.Errorf("%q: exit %d: %q", c.url, code, errs)
		}
	}
	s := newHTTPCounting(t)
	if _, errs, code := httpCLI(t, "-n", "2", s.URL+"/posts?limit=1 2"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if paths, _ := s.seen(); paths["GET /posts?limit=1%202"] != 2 {
		t.Fatalf("server saw %v", paths)
	}
	// A flow whose base has a port out of range.
	fl := filepath.Join(t.TempDir(), "f.yaml")
	os.WriteFile(fl, []byte("steps:\n  - url: /x\n"), 0o644)
	if _, errs, code := httpCLI(t, "--flow", fl, "http://127.0.0.1:70000"); code != ExitUsage || !strings.Contains(errs, "port 70000 is out of range") {
		t.Fatalf("exit %d: %s", code, errs)
	}
}

// A URL or flow file with several problems lists every one, each on a
// line of its own with the file and line, exit 2.
func TestHTTPFileProblemsAllListed(t *testing.T) {
	dir := t.TempDir()
	urls := filepath.Join(dir, "urls.txt")
	os.WriteFile(urls, []byte("http://h/ GRAB\nhttp://h/ok\nhttp://$(NOPE_KURABE)/x\nftp://h/\n"), 0o644)
	fl := filepath.Join(dir, "f.yaml")
	os.WriteFile(fl, []byte("base: http://h\nsteps:\n  - {name: a, method: 'GE T', url: /x}\n  - {name: a, url: /y, expect: {status: [99]}}\n"), 0o644)
	for _, c := range []struct {
		args  []string
		lines []string
	}{
		{[]string{"-f", urls}, []string{"kurabe: " + urls + ":1: ", urls + ":3: ", urls + ":4: "}},
		{[]string{"--flow", fl}, []string{"kurabe: " + fl + ":3: ", fl + ":4: ", fl + ":4: "}},
	} {
		out, errs, code := httpCLI(t, c.args...)
		got := strings.Split(strings.TrimSuffix(errs, "\n"), "\n")
		ok := code == ExitUsage && out == "" && len(got) == len(c.lines)
		for i := 0; ok && i < len(got); i++ {
			ok = strings.HasPrefix(got[i], c.lines[i])
		}
		if !ok {
			t.Errorf("%v: exit %d:\n%s", c.args, code, errs)
		}
	}
}

// A server that is not running stops the run before it starts, in one
// line, instead of tens of thousands of failures a second.
func TestHTTPNothingListening(t *testing.T) {
	ts := httptest.NewServer(http.NotFoundHandler())
	addr := ts.Listener.Addr().String()
	ts.Close()
	// Without the check before the run, the run would go on for its
	// second, print a report and exit 1.
	out, errs, code := httpCLI(t, "-t", "1s", "-c", "2", "http://"+addr+"/")
	if code != ExitUsage || out != "" || errs != "kurabe: nothing listens on "+addr+" (connection refused): start the server or check the URL\n" {
		t.Fatalf("exit %d: %q %q", code, errs, out)
	}
}

// With --lang ja, the closing line is Japanese too.
func TestHTTPClosingLineInJapanese(t *testing.T) {
	s := newHTTPCounting(t)
	_, errs, code := httpCLI(t, "-n", "4", "--lang", "ja", s.URL+"/fail", s.URL+"/ok")
	if code != ExitFailed || !strings.Contains(errs, "kurabe: 4 件中 2 件のリクエストが失敗しました") {
		t.Fatalf("exit %d: %q", code, errs)
	}
}

// An unnamed flow step is "step 1" in messages, not "step step 1".
func TestHTTPUnnamedStep(t *testing.T) {
	s := newHTTPCounting(t)
	fl := filepath.Join(t.TempDir(), "f.yaml")
	os.WriteFile(fl, []byte("steps:\n  - url: /fail\n"), 0o644)
	out, _, code := httpCLI(t, "--flow", fl, "-n", "1", s.URL)
	if code != ExitFailed || !strings.Contains(out, "first: step 1 (GET "+s.URL+"/fail): 503") || strings.Contains(out, "step step") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

// A row's latency is that of its successful requests, as the run's
// percentiles are: a URL whose every request failed, and a step that never
// ran, show "-" in every latency column, not the failures' times or zeros.
// The headings carry the unit.
func TestHTTPRowsWithoutSuccess(t *testing.T) {
	t.Setenv("LC_ALL", "C")
	s := newHTTPCounting(t)
	noLatency := regexp.MustCompile(`(?m)^(\S.*?)\s+\d+\s+[\d.]+\s+\d+\s+-\s+-\s+-\s+-\s+-\s`)
	rowsWithout := func(out string) []string {
		var names []string
		for _, m := range noLatency.FindAllStringSubmatch(out, -1) {
			names = append(names, m[1])
		}
		return names
	}
	for _, c := range []struct {
		name string
		urls []string
		want []string // the rows without latency
	}{
		// One URL keeps no histogram of its own (its row is the run's
		// responses less the failed ones).
		{"one URL", []string{s.URL + "/fail"}, []string{"GET " + s.URL + "/fail"}},
		// Several keep one each.
		{"two URLs", []string{s.URL + "/fail", s.URL + "/ok"}, []string{"GET " + s.URL + "/fail"}},
	} {
		js := filepath.Join(t.TempDir(), "r.json")
		out, errs, code := httpCLI(t, append([]string{"-n", "20", "-c", "2", "--format", "text", "--json", js}, c.urls...)...)
		if code != ExitFailed {
			t.Fatalf("%s: exit %d: %s", c.name, code, errs)
		}
		if got := rowsWithout(out); !slices.Equal(got, c.want) {
			t.Errorf("%s: rows without latency %q, want %q:\n%s", c.name, got, c.want, out)
		}
		if !strings.Contains(out, "mean (ms)  p50 (ms)  p90 (ms)  p99 (ms)  max (ms)") {
			t.Errorf("%s: headings without the unit:\n%s", c.name, out)
		}
		doc, err := result.ReadFile(js)
		if err != nil {
			t.Fatal(err)
		}
		for _, tg := range doc.Stores[0].Phases[0].HTTP.Targets {
			if failed := tg.Failed == tg.Requests; failed != (tg.Latency.Count == 0) {
				t.Errorf("%s: target %s: %d of %d failed, latency over %d", c.name, tg.Name, tg.Failed, tg.Requests, tg.Latency.Count)
			}
		}
	}

	// A flow whose first step fails: the step behind it never runs.
	fl := filepath.Join(t.TempDir(), "flow.yaml")
	os.WriteFile(fl, []byte("steps:\n  - {name: login, url: /fail}\n  - {name: find, url: /ok}\n"), 0o644)
	out, errs, code := httpCLI(t, "--flow", fl, "-n", "6", "--format", "markdown", s.URL)
	if code != ExitFailed {
		t.Fatalf("flow: exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"| step | requests | req/s | failed | mean (ms) | p50 (ms) | p90 (ms) | p99 (ms) | max (ms) | body bytes |",
		"| login | 6 | 0.00 | 6 | - | - | - | - | - |",
		"| find | 0 | 0.00 | 0 | - | - | - | - | - | no responses |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("flow: report lacks %q:\n%s", want, out)
		}
	}
}

// The connect time is per connection opened, over every connection
// opened: those of requests that then timed out too.
func TestHTTPConnectPerConnection(t *testing.T) {
	t.Setenv("LC_ALL", "C")
	release := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/stall" {
			<-release
		}
	}))
	t.Cleanup(ts.Close)
	t.Cleanup(func() { close(release) })
	fl := filepath.Join(t.TempDir(), "flow.yaml") // a flow goes through fasthttp
	os.WriteFile(fl, []byte("steps:\n  - url: /stall\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-n", "40", "-c", "4", ts.URL + "/"}, "Connections: 4 opened; TCP connect "},
		{[]string{"-n", "2", "-c", "2", "-s", "300ms", ts.URL + "/stall"}, "Connections: 2 opened; TCP connect "},
		{[]string{"--flow", fl, "-n", "2", "-c", "2", "-s", "300ms", ts.URL}, "Connections: 2 opened; TCP connect "},
	} {
		js := filepath.Join(t.TempDir(), "r.json")
		out, errs, _ := httpCLI(t, append([]string{"--format", "text", "--json", js}, c.args...)...)
		if !strings.Contains(out, c.want) || !strings.Contains(out, " µs per connection (mean of ") {
			t.Errorf("%v: report lacks %q:\n%s\n%s", c.args, c.want, out, errs)
		}
		doc, err := result.ReadFile(js)
		if err != nil {
			t.Fatal(err)
		}
		h := doc.Stores[0].Phases[0].HTTP
		if h.TCPConnect.Count != h.Connections || h.TCPConnect.Mean <= 0 {
			t.Errorf("%v: %d connections, connect over %d, mean %v µs", c.args, h.Connections, h.TCPConnect.Count, h.TCPConnect.Mean)
		}
	}
}

// An open loop whose clients were all in a request when requests were due
// says so, with the clients the rate needs at the latency measured,
// instead of blaming the server; the rate achieved is over -d.
func TestHTTPOpenLoopBehindForWantOfClients(t *testing.T) {
	t.Setenv("LC_ALL", "C")
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(50 * time.Millisecond)
	}))
	t.Cleanup(ts.Close)
	js := filepath.Join(t.TempDir(), "r.json")
	// Two clients at 50 ms carry at most 40/s; 200/s is asked.
	out, errs, code := httpCLI(t, "-R", "200", "-d", "1s", "-c", "2", "--format", "text", "--json", js, ts.URL)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	doc, err := result.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	p := doc.Stores[0].Phases[0]
	o := p.OpenLoop
	need, _ := o.ClientsNeeded(2)
	for _, want := range []string{
		"BEHIND: every client was busy when requests were due: 2 clients at a mean service time of ",
		fmt.Sprintf("give -c %d or more (200/s × ", need),
		fmt.Sprintf("%.2f/s achieved", float64(p.Ops+p.Errors)), // over -d 1s
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if need < 10 || strings.Contains(out, "the server could not keep up") {
		t.Errorf("need %d clients at a mean service time of %.0f µs:\n%s", need, o.Service.Mean, out)
	}
}

// A kurabe http run whose every request failed (always 500), and a flow
// whose every pass failed at its first step, keep their rows in the HTML
// report's side-by-side table, "0 (failed)"; they were left out, as if
// never run.
func TestHTTPAllFailedRunsSideBySide(t *testing.T) {
	t.Setenv("LC_ALL", "C")
	s := newHTTPCounting(t)
	dir := t.TempDir()
	fl := filepath.Join(dir, "flow.yaml")
	os.WriteFile(fl, []byte("steps:\n  - {name: login, method: POST, url: /fail, body: user=a}\n"), 0o644)
	var docs []string
	for i, args := range [][]string{{s.URL + "/ok"}, {s.URL + "/fail"}, {"--flow", fl, s.URL}} {
		js := filepath.Join(dir, fmt.Sprintf("r%d.json", i))
		if _, errs, code := httpCLI(t, append([]string{"-n", "6", "-q", "--json", js}, args...)...); code != ExitOK && i == 0 || code != ExitFailed && i > 0 {
			t.Fatalf("run %d: exit %d: %s", i, code, errs)
		}
		docs = append(docs, js)
	}
	page := filepath.Join(dir, "r.html")
	app := &App{Terminal: func(io.Writer) bool { return false }}
	var out, errb bytes.Buffer
	if err := app.Run(context.Background(), append([]string{"report", "--html", page}, docs...), &out, &errb); err != nil {
		t.Fatalf("report: %v\n%s", err, errb.String())
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	i, j := strings.Index(html, "Runs side by side"), strings.Index(html, "</table>")
	if i < 0 || j < i {
		t.Fatalf("no side-by-side table:\n%s", html)
	}
	table := html[i:j]
	if n := strings.Count(table, "0 (failed)"); n != 2 || strings.Count(table, "<tr") != 4 {
		t.Errorf("side-by-side table: %d cells 0 (failed), want 2, and a row for each run:\n%s", n, table)
	}
}

// -H "Connection: close" is --close: a connection per request, and the
// report and the result say so (it was recorded as keep-alive).
func TestHTTPConnectionCloseHeaderIsClose(t *testing.T) {
	t.Setenv("LC_ALL", "C")
	var conns atomic.Int64
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	ts.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	ts.Start()
	t.Cleanup(ts.Close)
	for _, how := range [][]string{{"--close"}, {"-H", "Connection: close"}, {"-H", "connection: Close"}} {
		js := filepath.Join(t.TempDir(), "r.json")
		c0 := conns.Load()
		out, errs, code := httpCLI(t, append(how, "-n", "5", "--format", "text", "--json", js, ts.URL+"/")...)
		if code != ExitOK {
			t.Fatalf("%q: exit %d: %s", how, code, errs)
		}
		if n := conns.Load() - c0; n != 1+5 {
			t.Errorf("%q: the server saw %d connections for the preflight and 5 requests", how, n)
		}
		if !strings.Contains(out, "a connection per request") || strings.Contains(out, "keep-alive") {
			t.Errorf("%q: the report does not say a connection per request:\n%s", how, out)
		}
		doc, err := result.ReadFile(js)
		if err != nil {
			t.Fatal(err)
		}
		st := doc.Stores[0]
		if st.Phases[0].HTTP.KeepAlive || doc.Run.Params["keep_alive"] != "false" || st.Info.Options["keep_alive"] != "false" {
			t.Errorf("%q: recorded as keep-alive: http %v, params %v, options %v", how, st.Phases[0].HTTP.KeepAlive, doc.Run.Params, st.Info.Options)
		}
	}
}

// --format siege breaks failures down by class, as ab's format does: the
// line kurabe http ends with says the report does.
func TestHTTPSiegeFormatHasTheClasses(t *testing.T) {
	s := newHTTPCounting(t)
	out, errs, code := httpCLI(t, "-n", "10", "--format", "siege", s.URL+"/fail")
	if code != ExitFailed || !strings.Contains(errs, "10 of 10 requests failed; the report breaks them down by class") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !regexp.MustCompile(`(?m)^Failed transactions:\s+10 \(http 503: 10\)$`).MatchString(out) {
		t.Errorf("siege's format lacks the classes:\n%s", out)
	}
	out, _, _ = httpCLI(t, "-n", "3", "--format", "siege", s.URL+"/ok")
	if !regexp.MustCompile(`(?m)^Failed transactions:\s+0$`).MatchString(out) {
		t.Errorf("no failures:\n%s", out)
	}
}

// With --expect-length the varying lengths are failures, and the body
// lengths line says so instead of "not a failure".
func TestHTTPExpectLengthLengthsLine(t *testing.T) {
	t.Setenv("LC_ALL", "C")
	var n atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, strings.Repeat("x", 50+int(n.Add(1)%3)))
	}))
	t.Cleanup(ts.Close)
	out, _, code := httpCLI(t, "-n", "9", "--format", "text", "--expect-length", "50", ts.URL+"/")
	if code != ExitFailed || !strings.Contains(out, "Failed, expect-length: 6;") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if !strings.Contains(out, "Body lengths: varying, 50 to 52 bytes") || !strings.Contains(out, "(a body of other than 50 bytes is a failure, class expect-length: --expect-length)") || strings.Contains(out, "not a failure") {
		t.Errorf("the lengths line:\n%s", out)
	}
	out, _, _ = httpCLI(t, "-n", "3", "--format", "text", ts.URL+"/")
	if !strings.Contains(out, "(not a failure; --expect-length N makes it one)") {
		t.Errorf("without --expect-length:\n%s", out)
	}
}

// One URL's row in the result has the run's body lengths, distinct
// lengths included (it had distinct 0 beside the run's 3).
func TestHTTPOneTargetDistinctLengths(t *testing.T) {
	var n atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, strings.Repeat("x", 50+int(n.Add(1)%3)))
	}))
	t.Cleanup(ts.Close)
	js := filepath.Join(t.TempDir(), "r.json")
	if _, errs, code := httpCLI(t, "-n", "9", "-c", "2", "-q", "--json", js, ts.URL+"/"); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	doc, err := result.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	h := doc.Stores[0].Phases[0].HTTP
	if h.Length.Distinct != 3 || len(h.Targets) != 1 || h.Targets[0].Length != h.Length {
		t.Errorf("run's lengths %+v, the URL's %+v", h.Length, h.Targets[0].Length)
	}
}

// kurabe http writes one run per result, so compare of two results can
// test nothing; a quoted pattern per side pools runs as repeats, and the
// advice says so (it said to run with --repeat, which kurabe http has
// not).
func TestHTTPCompareHowToTest(t *testing.T) {
	t.Setenv("LC_ALL", "C")
	s := newHTTPCounting(t)
	dir := t.TempDir()
	for _, side := range []string{"old", "new"} {
		for i := range 4 {
			js := filepath.Join(dir, fmt.Sprintf("%s-%d.json", side, i))
			if _, errs, code := httpCLI(t, "-n", "20", "-q", "--json", js, s.URL+"/ok"); code != ExitOK {
				t.Fatalf("exit %d: %s", code, errs)
			}
		}
	}
	compare := func(args ...string) string {
		t.Helper()
		app := &App{Terminal: func(io.Writer) bool { return false }}
		var out, errb bytes.Buffer
		if err := app.Run(context.Background(), append([]string{"compare"}, args...), &out, &errb); err != nil {
			t.Fatalf("compare %q: %v\n%s", args, err, errb.String())
		}
		return out.String()
	}
	one := compare(filepath.Join(dir, "old-0.json"), filepath.Join(dir, "new-0.json"))
	if !strings.Contains(one, "% (untested)") || strings.Contains(one, "--repeat 4 or more to test it.") ||
		!strings.Contains(one, "or give each side as 4 or more results, a quoted pattern such as 'old-*.json' (kurabe http writes one run per result)") {
		t.Errorf("one run a side:\n%s", one)
	}
	pooled := compare(filepath.Join(dir, "old-*.json"), filepath.Join(dir, "new-*.json"))
	if !strings.Contains(pooled, "n=4+4") || strings.Contains(pooled, "% (untested)") || strings.Contains(pooled, "too few samples") ||
		!regexp.MustCompile(`(?m)^old: .* · repeats 4$`).MatchString(pooled) {
		t.Errorf("four runs a side, pooled:\n%s", pooled)
	}
	app := &App{Terminal: func(io.Writer) bool { return false }}
	var out, errb bytes.Buffer
	err := app.Run(context.Background(), []string{"compare", filepath.Join(dir, "none-*.json"), filepath.Join(dir, "new-0.json")}, &out, &errb)
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != ExitUsage || !strings.Contains(err.Error(), "none-*.json matches no file") {
		t.Errorf("a pattern matching nothing: %v", err)
	}
}

// Two servers on two ports, the same requests to each: kurabe http names
// its phase by URL, so nothing paired and compare exited 2 ("no store,
// operation and client level in common"). They pair by method and path,
// and the note above the tables names each side's server. Results whose
// paths differ still do not pair.
func TestHTTPCompareTwoServersByPath(t *testing.T) {
	t.Setenv("LC_ALL", "C")
	oldBase, _, _ := startServe(t, testApp(), "--store", "sqlite:", "--listen", "127.0.0.1:0")
	newBase, _, _ := startServe(t, testApp(), "--store", "sqlite:?journal_mode=wal", "--listen", "127.0.0.1:0")
	dir := t.TempDir()
	for i := range 4 {
		for _, x := range []struct{ name, url string }{
			{"old", oldBase + "/posts/count"}, {"new", newBase + "/posts/count"}, {"other", newBase + "/posts?limit=1"},
		} {
			js := filepath.Join(dir, fmt.Sprintf("%s-%d.json", x.name, i))
			if _, errs, code := httpCLI(t, "-n", "40", "-c", "2", "-q", "--json", js, x.url); code != ExitOK {
				t.Fatalf("kurabe http %s: exit %d: %s", x.url, code, errs)
			}
		}
	}
	out, errs, code := runCLI(t, testApp(), "compare", filepath.Join(dir, "old-*.json"), filepath.Join(dir, "new-*.json"))
	if code != ExitOK {
		t.Fatalf("compare of one path on two servers: exit %d\n%s%s", code, out, errs)
	}
	t.Logf("compare printed:\n%s", out)
	host := func(base string) string { return strings.TrimPrefix(base, "http://") }
	if !strings.Contains(out, "paired by path: old "+host(oldBase)+", new "+host(newBase)) {
		t.Errorf("compare does not say it paired by path, naming both servers (%s, %s)", host(oldBase), host(newBase))
	}
	if !regexp.MustCompile(`(?m)^http +GET /posts/count .*n=4\+4$`).MatchString(out) {
		t.Errorf("no row for GET /posts/count with 4 samples a side")
	}
	// Other paths: nothing in common, as before.
	_, errs, code = runCLI(t, testApp(), "compare", filepath.Join(dir, "old-*.json"), filepath.Join(dir, "other-*.json"))
	if code != ExitUsage || !strings.Contains(errs, "no store, operation and client level in common") {
		t.Errorf("compare of two paths: exit %d, %s; want 2 and nothing in common", code, errs)
	}
}

// ab's -i pasted against a live server: one line saying what to give
// instead, and nothing sent.
func TestHTTPAbFlagHintSendsNothing(t *testing.T) {
	s := newHTTPCounting(t)
	for _, f := range []string{"-i", "-g", "-v", "-X"} {
		args := []string{"-n", "3", f}
		if f != "-i" {
			args = append(args, "x")
		}
		_, errs, code := httpCLI(t, append(args, s.URL+"/")...)
		if code != ExitUsage || !strings.Contains(errs, "unknown flag "+f+"; ab's "+f+" (") || strings.Count(errs, "\n") != 1 {
			t.Errorf("%s: exit %d, stderr %q", f, code, errs)
		}
	}
	if n := s.n.Load(); n != 0 {
		t.Errorf("the server got %d requests", n)
	}
}

// In Markdown the open loop's indented lines are bullets under the Open
// loop note, not notes of their own.
func TestHTTPMarkdownOpenLoopNested(t *testing.T) {
	s := newHTTPCounting(t)
	js := filepath.Join(t.TempDir(), "r.json")
	if _, errs, code := httpCLI(t, "-R", "100", "-n", "20", "-c", "2", "-q", "--json", js, s.URL+"/ok"); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	app := &App{Terminal: func(io.Writer) bool { return false }}
	var out, errb bytes.Buffer
	if err := app.Run(context.Background(), []string{"report", "--format", "markdown", "--lang", "en", js}, &out, &errb); err != nil {
		t.Fatalf("report: %v\n%s", err, errb.String())
	}
	md := out.String()
	want := regexp.MustCompile(`(?m)^- Open loop: .*\n  - latency from the scheduled start \(corrected\): .*\n  - service time from the actual start \(uncorrected\): `)
	if !want.MatchString(md) || regexp.MustCompile(`(?m)^- (latency from the scheduled|service time from)`).MatchString(md) {
		t.Errorf("the open loop's lines are not nested under its note:\n%s", md)
	}
}

// TestHTTPInterruptIsBoundedByTheTimeout: at Ctrl-C a request in flight
// is held up to -s by a server that does not answer, and then fails as a
// timeout of -s. Before, the engine's grace of kurabe run (5 s, which
// kurabe http has no flag for) cut it off and its message blamed --grace.
func TestHTTPInterruptIsBoundedByTheTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	asked := make(chan struct{}, 1) // a request arrived, to be left unanswered
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			go func() {
				if n, _ := c.Read(make([]byte, 4096)); n > 0 {
					select {
					case asked <- struct{}{}:
					default:
					}
				}
			}()
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-asked
		cancel() // Ctrl-C
	}()
	app := &App{Terminal: func(io.Writer) bool { return false }}
	var out, errb bytes.Buffer
	err = app.Run(ctx, []string{"http", "-s", "7", "-n", "1", "--format", "text", "http://" + ln.Addr().String() + "/"}, &out, &errb)
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != ExitInterrupted {
		t.Fatalf("got %v, want exit %d\n%s%s", err, ExitInterrupted, out.String(), errb.String())
	}
	report := out.String()
	if !strings.Contains(report, "timeout: 1") || !strings.Contains(report, "no response within the timeout of 7s (-s)") || strings.Contains(report, "grace") {
		t.Fatalf("the request should have timed out after -s, not been cut off by a grace period:\n%s", report)
	}
}

// TestHTTPFlowBodyContentType: a flow step's body that names no
// Content-Type goes out as a form (as a URL file's bodies do), so kurabe
// serve's login written the obvious way succeeds; -T gives the type of
// such steps instead, and is refused where it would change nothing. Before,
// such a body went out as application/octet-stream, which serve refused,
// and -T was dropped without a word.
func TestHTTPFlowBodyContentType(t *testing.T) {
	db := filepath.Join(t.TempDir(), "postal.db")
	base, _, _ := startServe(t, testApp(), "--store", "sqlite:"+db+"?synchronous=off", "--dataset", "postal", "--dataset-rows", "100", "--password", "secret", "--listen", "127.0.0.1:0")
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	login := write("login.yaml", "steps:\n  - name: login\n    method: POST\n    url: /api/login\n    body: user=kurabe&password={{password}}\n    vars: {password: {choice: [secret]}}\n")
	out, errs, code := httpCLI(t, "--flow", login, "-n", "3", "--format", "text", base)
	if code != 0 || !strings.Contains(out, "Status codes: 200 × 3") {
		t.Fatalf("a form body without a Content-Type: exit %d\n%s%s", code, out, errs)
	}

	// What each step sent, echoed back.
	var mu sync.Mutex
	types := map[string]string{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		types[r.URL.Path] = r.Header.Get("Content-Type")
		mu.Unlock()
	}))
	defer ts.Close()
	fl := write("mixed.yaml", "headers: {Accept: '*/*'}\nsteps:\n  - {name: form, method: POST, url: /form, body: a=b}\n"+
		"  - {name: own, method: POST, url: /own, body: '<x/>', headers: {content-type: application/xml}}\n  - {name: none, url: /none}\n")
	for _, c := range []struct {
		args []string
		form string // the Content-Type the step without one sent
	}{
		{nil, "application/x-www-form-urlencoded"},
		{[]string{"-T", "application/json"}, "application/json"},
		{[]string{"-H", "Content-Type: text/plain"}, "text/plain"},
	} {
		clear(types)
		if out, errs, code := httpCLI(t, append(append([]string{"--flow", fl, "-n", "1"}, c.args...), ts.URL)...); code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", c.args, code, out, errs)
		}
		// A step's own type wins; a step without a body gets none.
		if types["/form"] != c.form || types["/own"] != "application/xml" || types["/none"] != "" && !slices.Contains(c.args, "-H") {
			t.Errorf("%v: sent %q", c.args, types)
		}
	}
	// -T where every body names its type, or no step sends one.
	own := write("own.yaml", "steps:\n  - {method: POST, url: /own, body: '{}', headers: {Content-Type: application/json}}\n  - {url: /none}\n")
	_, errs, code = httpCLI(t, "--flow", own, "-T", "text/plain", "-n", "1", ts.URL)
	if code != ExitUsage || !strings.Contains(errs, "-T \"text/plain\": no step of "+own+" sends a body without a Content-Type of its own, so -T would change nothing") {
		t.Fatalf("-T that types nothing: exit %d, %q", code, errs)
	}
}
