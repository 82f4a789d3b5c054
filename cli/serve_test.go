package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"kurabe/result"
	"kurabe/store"
	"kurabe/store/httpstore"
	"kurabe/store/sqlite"
	"kurabe/store/storefault"
	"kurabe/stores"
)

// httpApp is kurabe with the http driver, which the shipped table will
// register, and a store that drops one acknowledged write in 100.
func httpApp() *App {
	app := testApp()
	app.Stores = append(append([]stores.Entry{}, stores.Builtin...),
		stores.Entry{Driver: "http", Open: httpstore.Open},
		stores.Entry{Driver: "dropping", Open: func(ctx context.Context, sp store.Spec, env store.Env) (store.Store, error) {
			st, err := sqlite.Open(ctx, sp, env)
			if err != nil {
				return nil, err
			}
			return &storefault.DropWrites{Store: st, Every: 100}, nil
		}},
	)
	return app
}

var served = regexp.MustCompile(`^kurabe serve: (http://127\.0\.0\.1:\d+) · .* · store \S+ (\S+).*?(?: · data (\S+) \((kept|removed on exit)\))? · Ctrl-C stops$`)

// startServe runs `kurabe serve ARGS` in a goroutine and returns the URL
// and the line it printed, and a function that cancels it and returns its
// error.
func startServe(t *testing.T, app *App, args ...string) (base string, m []string, stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan error, 1)
	go func() {
		err := app.Run(ctx, append([]string{"serve"}, args...), pw, &stderr)
		pw.Close()
		done <- err
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	go io.Copy(io.Discard, pr)
	if err != nil {
		cancel()
		t.Fatalf("serve printed no line: %v; returned %v; stderr %s", err, <-done, stderr.String())
	}
	m = served.FindStringSubmatch(strings.TrimSuffix(line, "\n"))
	if m == nil {
		cancel()
		t.Fatalf("unexpected line: %q", line)
	}
	var once sync.Once
	var serr error
	stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case serr = <-done:
			case <-time.After(15 * time.Second):
				serr = errors.New("serve did not return within 15s of cancel")
			}
		})
		return serr
	}
	t.Cleanup(func() { stop() })
	return m[1], m, stop
}

func post(t *testing.T, base, category, text string) *http.Response {
	t.Helper()
	resp, err := http.PostForm(base+"/posts", url.Values{"category": {category}, "text": {text}})
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 201 {
		t.Fatalf("POST /posts: %d", resp.StatusCode)
	}
	return resp
}

func getJSON(t *testing.T, u string, v any) *http.Response {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d", u, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	return resp
}

func TestServeAnswersAndShutsDown(t *testing.T) {
	base, m, stop := startServe(t, testApp(), "--store", "sqlite:", "--listen", "127.0.0.1:0", "--sessions", "2")
	dir := m[3]
	if !strings.Contains(m[0], "persistent, 2 sessions") || m[4] != "removed on exit" || !strings.HasPrefix(m[2], dir) {
		t.Fatalf("line: %q", m[0])
	}
	resp := post(t, base, "test", "hogehoge")
	if resp.Header.Get("Server") != "kurabe/"+Version {
		t.Errorf("Server header %q", resp.Header.Get("Server"))
	}
	post(t, base, "test", "日本語")
	var all, latest []struct{ Text string }
	getJSON(t, base+"/posts", &all)
	getJSON(t, base+"/posts?limit=1", &latest)
	var c struct{ Count int }
	getJSON(t, base+"/posts/count", &c)
	if len(all) != 2 || all[1].Text != "日本語" || len(latest) != 1 || latest[0].Text != "日本語" || c.Count != 2 {
		t.Fatalf("all %v latest %v count %d", all, latest, c.Count)
	}
	if err := stop(); err != nil {
		t.Fatalf("serve returned %v after cancel", err)
	}
	if conn, err := net.DialTimeout("tcp", strings.TrimPrefix(base, "http://"), time.Second); err == nil {
		conn.Close()
		t.Fatal("still listening after shutdown")
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("temporary data %s still there", dir)
	}
}

func TestServeDirKeepsData(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "d")
	base, m, stop := startServe(t, testApp(), "--store", "file:", "--dir", dir, "--listen", "127.0.0.1:0")
	if m[4] != "kept" {
		t.Fatalf("line: %q", m[0])
	}
	for range 3 {
		post(t, base, "c", "t")
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "posts.txt")); err != nil || bytes.Count(b, []byte("\n")) != 3 {
		t.Fatalf("kept data: %v, %q", err, b)
	}
}

func TestServeBadInputIsOneLineExit2(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	app := testApp()
	app.Stores = append(append([]stores.Entry{}, stores.Builtin...), stores.Entry{Driver: "pgish", Open: func(context.Context, store.Spec, store.Env) (store.Store, error) {
		return nil, errors.New("must not be opened")
	}})
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"any interface", []string{"--listen", "0.0.0.0:0"}, "--public"},
		{"empty host", []string{"--listen", ":3001"}, "every interface"},
		{"IPv6 any", []string{"--listen", "[::]:0"}, "not a loopback address"},
		{"other host", []string{"--listen", "example.org:80"}, "--public"},
		{"no port", []string{"--listen", "127.0.0.1"}, "HOST:PORT"},
		{"port taken", []string{"--listen", busy.Addr().String()}, "choose a free port"},
		{"unknown driver", []string{"--store", "oracle:"}, "unknown driver"},
		{"spec without colon", []string{"--store", "sqlite"}, "DRIVER:"},
		{"bad option", []string{"--store", "sqlite:?journal_mode=fast"}, "journal_mode"},
		{"zero sessions", []string{"--sessions", "0"}, "--sessions 0"},
		{"sessions with cgi", []string{"--cgi", "--sessions", "3"}, "does not apply with --cgi"},
		{"cgi with a throwaway server", []string{"--cgi", "--store", "pgish:"}, "give the server's address"},
		{"stray argument", []string{"sqlite:"}, "unexpected argument"},
		{"unknown flag", []string{"--port", "3"}, "bad flags"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, errs, code := runCLI(t, app, append([]string{"serve"}, c.args...)...)
			if code != ExitUsage {
				t.Fatalf("exit %d, want 2; stderr %s", code, errs)
			}
			last := strings.TrimSpace(errs[strings.LastIndex(strings.TrimSuffix(errs, "\n"), "\n")+1:])
			if !strings.Contains(last, c.want) {
				t.Fatalf("error line %q lacks %q", last, c.want)
			}
			if out != "" {
				t.Fatalf("printed %q on bad input", out)
			}
		})
	}
}

// kurabe run through HTTP against kurabe serve: the same workload and
// verification as against the store directly.
func TestRunThroughHTTPAgainstServe(t *testing.T) {
	app := httpApp()
	base, _, _ := startServe(t, app, "--store", "sqlite:?journal_mode=wal&synchronous=normal", "--listen", "127.0.0.1:0")
	js := filepath.Join(t.TempDir(), "out.json")
	out, errs, code := runCLI(t, app, "run", "--store", base, "-n", "200", "-c", "4", "--json", js)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errs, out)
	}
	doc, err := result.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	s := doc.Stores[0]
	if s.Info.Driver != "http" || s.Info.Version != "kurabe serve "+Version || !strings.HasPrefix(s.Info.Facts["backend"], "sqlite") || len(s.Phases) != 4 {
		t.Fatalf("store %+v, %d phases", s.Info, len(s.Phases))
	}
	for _, p := range s.Phases {
		if p.Ops != 200 || p.Errors != 0 {
			t.Errorf("%s: %d ops, %d errors", p.Op, p.Ops, p.Errors)
		}
		for _, v := range p.Verify {
			if v.Lost != 0 || v.Extra != 0 || v.Acked == 0 || v.After-v.Before != v.Acked {
				t.Errorf("%s: verify %+v", p.Op, v)
			}
		}
	}
}

// A service that acknowledges a write and drops it is caught through
// HTTP as it is directly.
func TestLostWritesThroughHTTP(t *testing.T) {
	app := httpApp()
	base, _, _ := startServe(t, app, "--store", "dropping:?synchronous=off", "--listen", "127.0.0.1:0")
	js := filepath.Join(t.TempDir(), "out.json")
	out, errs, code := runCLI(t, app, "run", "--store", base, "--ops", "write", "-n", "1000", "-c", "5", "--json", js)
	if code != ExitFailed {
		t.Fatalf("exit %d, want %d: %s", code, ExitFailed, errs)
	}
	if !strings.Contains(out, "LOST 10") || !strings.Contains(errs, "10 writes lost") {
		t.Fatalf("LOST not reported:\n%s\n%s", out, errs)
	}
	doc, err := result.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	if lost, _ := doc.Lost(); lost != 10 {
		t.Fatalf("document records %d lost", lost)
	}
}

// TestServeCGIEndToEnd runs the real binary with --cgi: every request is
// answered by a new process (a distinct X-Kurabe-Pid), kurabe run's
// verification holds through it, and SIGTERM shuts it down cleanly.
func TestServeCGIEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "kurabe")
	if out, err := exec.Command("go", "build", "-o", bin, "..").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "serve", "--cgi", "--store", "sqlite:?synchronous=off", "--listen", "127.0.0.1:0")
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var waitErr error
	exited := make(chan struct{})
	go func() { waitErr = cmd.Wait(); close(exited) }()
	var data string
	t.Cleanup(func() {
		// On failure too: stop it as a user would, so it removes its data.
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
		}
		if data != "" {
			os.RemoveAll(data)
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("no line: %v; stderr %s", err, stderr.String())
	}
	m := served.FindStringSubmatch(strings.TrimSuffix(line, "\n"))
	if m == nil || !strings.Contains(line, "cgi, a process per request") {
		t.Fatalf("line %q", line)
	}
	base := m[1]
	data = m[3]

	pids := map[string]bool{}
	for i := range 3 {
		resp := post(t, base, "cgi", "post "+string(rune('a'+i)))
		pids[resp.Header.Get("X-Kurabe-Pid")] = true
	}
	var c struct{ Count int }
	pids[getJSON(t, base+"/posts/count", &c).Header.Get("X-Kurabe-Pid")] = true
	var latest []struct{ Text string }
	pids[getJSON(t, base+"/posts?limit=2", &latest).Header.Get("X-Kurabe-Pid")] = true
	delete(pids, "")
	delete(pids, "0")
	if len(pids) != 5 || pids[strconv.Itoa(cmd.Process.Pid)] {
		t.Fatalf("5 requests answered by processes %v (server %d); want 5 new ones", pids, cmd.Process.Pid)
	}
	if c.Count != 3 || len(latest) != 2 || latest[0].Text != "post c" {
		t.Fatalf("count %d, latest %v", c.Count, latest)
	}

	// kurabe run verifies writes through the per-request processes too.
	out, errs, code := runCLI(t, httpApp(), "run", "--store", base, "--ops", "write,read-latest", "-n", "40", "-c", "2")
	if code != 0 || !strings.Contains(out, "store http: "+base+" (http kurabe serve "+Version+")") {
		t.Fatalf("run through CGI: exit %d\n%s\n%s", code, out, errs)
	}

	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
		if waitErr != nil {
			t.Fatalf("exit after SIGTERM: %v; stderr %s", waitErr, stderr.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("kurabe serve did not stop within 15s of SIGTERM")
	}
	if _, err := os.Stat(data); !os.IsNotExist(err) {
		t.Fatalf("temporary data %s still there after SIGTERM", data)
	}
}

// lockedBuffer is a buffer a process writes to while a test may read it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
