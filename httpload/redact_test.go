package httpload

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"kurabe/engine"
	"kurabe/flow"
)

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://h/x":                                "http://h/x",
		"http://u:SECRET@h:80/x":                    "http://u:xxxxx@h:80/x",
		"http://u@h/x":                              "http://xxxxx@h/x",
		"http://TOKEN123@h/x":                       "http://xxxxx@h/x",
		"http://u:p@ss@h/x":                         "http://u:xxxxx@h/x",
		"http://h/x?api_key=K1&limit=5":             "http://h/x?api_key=xxxxx&limit=5",
		"http://h/x?limit=5&Token=abc#frag":         "http://h/x?limit=5&Token=xxxxx#frag",
		"http://h/x?access%5Ftoken=abc":             "http://h/x?access%5Ftoken=xxxxx",
		"http://h/x?password=":                      "http://h/x?password=",
		"http://h/x?k={{api_key}}&api_key={{key}}":  "http://h/x?k={{api_key}}&api_key={{key}}",
		"https://a:b@h/login?session=s1&user=bob":   "https://a:xxxxx@h/login?session=xxxxx&user=bob",
		"not a url ?password=x":                     "not a url ?password=x",
		"http://h/path@with-at?q=1":                 "http://h/path@with-at?q=1",
		"http://h/find?offset=10&limit=100&author=": "http://h/find?offset=10&limit=100&author=",
	} {
		if got := RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
	msg := `step find (GET http://u:pw12@h/find?api_key=K9: 500), "http://h/?token=T1"; see https://h/?x=1.`
	want := `step find (GET http://u:xxxxx@h/find?api_key=xxxxx: 500), "http://h/?token=xxxxx"; see https://h/?x=1.`
	if got := RedactText(msg); got != want {
		t.Errorf("RedactText:\n got %q\nwant %q", got, want)
	}
	for _, name := range []string{"Authorization", "Proxy-Authorization", "Cookie", "X-Api-Key", "X-Auth-Token", "X-Session-Id", "password", "api_key", "client_secret"} {
		if !SecretName(name) {
			t.Errorf("%s is not secret", name)
		}
	}
	for _, name := range []string{"Accept", "Content-Type", "X-Request-Id", "offset", "records", "Keep-Alive"} {
		if SecretName(name) {
			t.Errorf("%s is secret", name)
		}
	}
	if got := Quote(strings.Repeat("a", 4<<20)); len(got) != 100+2+len("…") {
		t.Errorf("Quote of 4 MB: %d bytes", len(got))
	}
	// Quote escapes as %q does, its final quote included; another
	// error's text keeps its quotes, with only control characters escaped.
	for _, c := range []struct{ got, want string }{
		{Quote(`x"`), `"x\""`},
		{Quote("a\x00b"), `"a\x00b"`},
		{clipText(`invalid port ":+80" after host`, 120), `invalid port ":+80" after host`},
		{clipText("a\x00b\\c", 120), `a\x00b\c`},
		{clipText("日本語のテキスト", 3), "日本語…"},
	} {
		if c.got != c.want {
			t.Errorf("got %s, want %s", c.got, c.want)
		}
	}
}

// Secrets stay out of the failures' messages (the report prints them and
// the result document keeps them): a --set variable named like a secret,
// a token extracted from a response, a secret header, a URL's password,
// and the run's parameters.
func TestSecretsStayOutOfMessages(t *testing.T) {
	var mu sync.Mutex
	var auth []string
	mux := http.NewServeMux()
	mux.HandleFunc("POST /login", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		io.WriteString(w, `{"token":"TOKEN-4711"}`)
	})
	// The error page echoes what it got: the body the message quotes
	// must not show it.
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		u, p, _ := r.BasicAuth()
		// Values glued to other text: Japanese, an underscore.
		fmt.Fprintf(w, "キー%sが無効 sig_%s ", r.Header.Get("X-Api-Key"), r.Header.Get("X-Signature"))
		fmt.Fprintf(w, "got %s %s %s %s:%s %s", r.URL, r.Header.Get("Authorization"), r.Header.Get("X-Api-Key"), u, p, r.Header.Get("X-Signature"))
	})
	ts := httptest.NewServer(mux)
	defer ts.Close()
	base := strings.Replace(ts.URL, "http://", "http://bob:PWBOB42@", 1)
	f, err := flow.Parse("s.yaml", []byte(`
steps:
  - name: login
    method: POST
    url: /login
    extract: {token: {json: $.token}}
  - name: find
    url: /find/{{token}}?k={{api_key}}&s={{sig}}
    headers: {X-Signature: "{{sig}}", Authorization: "Bearer {{sig}}"}
`), flow.Options{Base: base, Set: []flow.Setting{{Name: "api_key", Value: "APIKEY77"}, {Name: "sig", Value: "SIG-0815"}}})
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Flow = f
	cfg.Headers = []Header{{"X-Api-Key", "HDRKEY99"}, {"Accept", "text/plain"}}
	w, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ph := runW(t, w, engine.Config{Clients: 1, Count: 2})
	if class(ph, "find: http 500") != 2 {
		t.Fatalf("classes %+v", ph.ErrorClasses)
	}
	// The password goes to the server as basic authentication.
	if len(auth) != 2 || auth[0] != "Basic Ym9iOlBXQk9CNDI=" {
		t.Fatalf("the server saw %q", auth)
	}
	var all strings.Builder
	for _, e := range ph.ErrorClasses {
		all.WriteString(e.First + "\n")
	}
	for _, tg := range ph.HTTP.Targets {
		all.WriteString(tg.URL + "\n")
	}
	for k, v := range w.Params() {
		all.WriteString(k + "=" + v + "\n")
	}
	for _, secret := range []string{"APIKEY77", "TOKEN-4711", "PWBOB42", "HDRKEY99", "SIG-0815", "Ym9iOlBXQk9CNDI"} {
		if strings.Contains(all.String(), secret) {
			t.Errorf("%s is recorded:\n%s", secret, all.String())
		}
	}
	for _, want := range []string{"step find (GET http://" + strings.TrimPrefix(ts.URL, "http://") + "/find/xxxxx?k=xxxxx&s=xxxxx): 500", "header X-Api-Key=REDACTED", "header Accept=text/plain", "http://bob:xxxxx@"} {
		if !strings.Contains(all.String(), want) {
			t.Errorf("no %q in\n%s", want, all.String())
		}
	}
}

// URLs that cannot be sent are refused before anything runs, with the
// problem named and the password hidden; what means one thing is escaped.
func TestCheckURL(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"http://h/posts?limit=1 2", "http://h/posts?limit=1%202"},
		{"h:8080/検索?q=日本", "http://h:8080/%E6%A4%9C%E7%B4%A2?q=%E6%97%A5%E6%9C%AC"},
		{"http://h/a|b{c}", "http://h/a%7Cb%7Bc%7D"},
		{"http://h/a%20b?c=%2F", "http://h/a%20b?c=%2F"},
		{"https://[::1]:8443/", "https://[::1]:8443/"},
	} {
		if got, err := CheckURL(c.in, false); err != nil || got != c.want {
			t.Errorf("CheckURL(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"http://127.0.0.1:99999/", `"http://127.0.0.1:99999/": port 99999 is out of range; ports go from 1 to 65535`},
		{"http://127.0.0.1:0/", "port 0 is out of range"},
		{"http://h:abc/", "is not a URL"},
		{"http://h/a\nb", `"http://h/a\nb" has a control character (byte 0x0a)`},
		{"http://h/100%", `"%" starts no escape; write a % itself as %25`},
		{"http://h/?q=%zz", `"%zz" starts no escape`},
		{"http:///x", "has no host"},
		{"ftp://h/", "not ftp://"},
		{"http://bob:PWBOB42@h/x", `"http://bob:xxxxx@h/x": give credentials with -A user:password, not in the URL`},
		{"http://h h/", "is not a URL"},
	} {
		_, err := CheckURL(c.in, false)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "PWBOB42") {
			t.Errorf("CheckURL(%q): %v, want %q", c.in, err, c.want)
		}
	}
	if got, err := CheckURL("http://bob:PW@h/", true); err != nil || got != "http://bob:PW@h/" {
		t.Errorf("credentials allowed: %q %v", got, err)
	}
	long := "http://127.0.0.1:99999/" + strings.Repeat("a", 4<<20)
	if _, err := CheckURL(long, false); err == nil || len(err.Error()) > 250 {
		t.Errorf("a 4 MB URL: %d bytes of message", len(err.Error()))
	}
	// A URL file quotes the line as written: $(PW) may come from the
	// environment.
	env := func(string) (string, bool) { return "ENVSECRET", true }
	_, err := ParseURLFile("u.txt", []byte("http://bob:$(PW)@h/x\nhttp://h/$(PW)/x?y=1 2\nhttp://h/\\\n"), URLFileOptions{Getenv: env})
	if err == nil || strings.Contains(err.Error(), "ENVSECRET") || !strings.HasPrefix(err.Error(), `u.txt:1: "http://bob:xxxxx@h/x": give credentials`) {
		t.Errorf("URL file: %v", err)
	}
	if targets, err := ParseURLFile("u.txt", []byte("http://h/a%20b?c=\"d\"\n"), URLFileOptions{}); err != nil || targets[0].URL != "http://h/a%20b?c=%22d%22" {
		t.Errorf("URL file: %+v %v", targets, err)
	}
}

// The request line carries the escaped URL, on both paths, and a flow's
// rendered URL is escaped where a variable put a space.
func TestEscapedURLsReachTheServer(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.RequestURI)
		mu.Unlock()
	}))
	defer ts.Close()
	paths(t, urls(ts.URL+"/posts?limit=1 2&q=a|b"), func(t *testing.T, w *Workload) {
		ph := runW(t, w, engine.Config{Clients: 1, Count: 2})
		mu.Lock()
		defer mu.Unlock()
		if ph.Errors != 0 || len(seen) < 2 || seen[len(seen)-1] != "/posts?limit=1%202&q=a%7Cb" {
			t.Fatalf("errors %+v, server saw %q", ph.ErrorClasses, seen)
		}
	})
	f, err := flow.Parse("e.yaml", []byte("steps:\n  - url: /find?user={{user}}&n={{n|url}}\n"),
		flow.Options{Base: ts.URL, Set: []flow.Setting{{Name: "user", Value: "a b"}, {Name: "n", Value: "c d"}}})
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Flow = f
	ph := run(t, cfg, engine.Config{Clients: 1, Count: 1})
	mu.Lock()
	defer mu.Unlock()
	if ph.Errors != 0 || seen[len(seen)-1] != "/find?user=a%20b&n=c+d" {
		t.Fatalf("errors %+v, server saw %q", ph.ErrorClasses, seen)
	}
	// A flow whose server has a port out of range is refused with its line.
	f, err = flow.Parse("p.yaml", []byte("steps:\n  - name: one\n    url: /x\n"), flow.Options{Base: "http://127.0.0.1:99999"})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Flow = f
	if _, err := New(cfg); err == nil || !strings.HasPrefix(err.Error(), "p.yaml:2: step one: ") || !strings.Contains(err.Error(), "port 99999 is out of range") {
		t.Fatalf("got %v", err)
	}
}

// A flow file's base is checked as a URL on the command line is, path
// included, and the error names the file's line.
func TestFlowBaseChecked(t *testing.T) {
	f, err := flow.Parse("f.yaml", []byte("name: x\nbase: http://127.0.0.1:9/%zz\nsteps:\n  - url: /a\n"), flow.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Flow = f
	if _, err := New(cfg); err == nil || !strings.Contains(err.Error(), "f.yaml:2: base: ") || !strings.Contains(err.Error(), "starts no escape") {
		t.Fatalf("got %v", err)
	}
	f, _ = flow.Parse("f.yaml", []byte("base: http://127.0.0.1:9/api\nsteps:\n  - url: a\n"), flow.Options{})
	cfg.Flow = f
	if _, err := New(cfg); err != nil {
		t.Fatalf("a good base refused: %v", err)
	}
}

func TestBodyText(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{`{"error": "limit must be a number"}`, 200, `{"error": "limit must be a number"}`},
		// An HTML page: one line, runs of white space as one space.
		{"<html>\n  <body>\r\n\t<h1>Not   Found</h1>\n</body>\n</html>\n", 200, "<html> <body> <h1>Not Found</h1> </body> </html>"},
		{"  \n  ", 200, ""},
		{"abcdef", 3, "abc…"},
		{"ab cdef", 3, "ab…"}, // no space before the ellipsis
		{"日本語のテキスト", 3, "日本語…"},
		{"a\x00b", 200, ""},           // binary
		{"ab\xff\xfecdefgh", 200, ""}, // not UTF-8
		{strings.Repeat("é", 300), 2, "éé…"},
		// Indentation fills the window read: still cut, and said so.
		{strings.Repeat("<p>x</p>"+strings.Repeat(" ", 100)+"\n", 20), 40, "<p>x</p> <p>x</p>…"},
	} {
		if got := BodyText([]byte(c.in), c.n); got != c.want {
			t.Errorf("BodyText(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
	// A character cut by the window BodyText reads is not binary.
	if got := BodyText([]byte(strings.Repeat("日", 20)), 3); got != "日日日…" {
		t.Errorf("cut character: %q", got)
	}
}

// A failed status's message quotes the start of the body, where a server
// says why, on one line and without the credentials sent, on both paths.
func TestFailureQuotesTheBody(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/bad", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(400)
		io.WriteString(w, `{"error": "limit must be 1 or more"}`)
	})
	mux.HandleFunc("/html", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(404)
		io.WriteString(w, "<html>\n  <body>\n\t<h1>Not   Found</h1>\n</body>\n</html>\n"+strings.Repeat("<!-- padding -->\n", 1000))
	})
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		u, p, _ := r.BasicAuth()
		w.WriteHeader(401)
		fmt.Fprintf(w, "no: %s (%s:%s)", r.Header.Get("Authorization"), u, p)
	})
	mux.HandleFunc("/binary", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(500)
		w.Write([]byte{0, 1, 2, 0xff})
	})
	ts := httptest.NewServer(mux)
	defer ts.Close()
	cfg := urls(ts.URL+"/bad", ts.URL+"/html", ts.URL+"/echo", ts.URL+"/binary")
	cfg.Headers = []Header{{"Authorization", "Basic Ym9iOkhUVFBQVzc3"}} // -A bob:HTTPPW77
	paths(t, cfg, func(t *testing.T, w *Workload) {
		ph := runW(t, w, engine.Config{Clients: 1, Count: 8})
		want := map[string]string{
			"http 400": "GET " + ts.URL + `/bad: 400 Bad Request: {"error": "limit must be 1 or more"}`,
			"http 404": "GET " + ts.URL + "/html: 404 Not Found: <html> <body> <h1>Not Found</h1> </body> </html> <!-- padding --> <!--",
			"http 401": "GET " + ts.URL + "/echo: 401 Unauthorized: no: xxxxx (xxxxx)",
			"http 500": "GET " + ts.URL + "/binary: 500 Internal Server Error",
		}
		for _, c := range ph.ErrorClasses {
			w, ok := want[c.Class]
			if !ok {
				t.Errorf("unexpected class %s: %s", c.Class, c.First)
				continue
			}
			if !strings.HasPrefix(c.First, w) || strings.ContainsAny(c.First, "\n\t") || len(c.First) > 300 ||
				strings.Contains(c.First, "HTTPPW77") || strings.Contains(c.First, "Ym9iOkhUVFBQVzc3") {
				t.Errorf("%s: %s\nwant %s…", c.Class, c.First, w)
			}
			delete(want, c.Class)
		}
		if len(want) > 0 {
			t.Errorf("no class for %v", want)
		}
	})
}
