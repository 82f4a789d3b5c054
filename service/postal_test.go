package service_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"kurabe/dataset/postal"
	"kurabe/service"
	"kurabe/store"
	"kurabe/store/file"
)

// testRows of the shipped postal data set are loaded by these tests: enough
// for pages of every size the cases ask for, quick to load.
const testRows = 3000

const testPassword = "pa55 wörd&="

func openFile(t *testing.T) store.Store {
	t.Helper()
	sp, _ := store.ParseSpec("file:")
	st, err := file.Open(context.Background(), sp, store.Env{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// servePostal starts the service with the postal APIs over st, after
// loading rows records (0: none, the table is the caller's), and returns
// its URL.
func servePostal(t *testing.T, st store.Store, p service.Postal, rows int) string {
	t.Helper()
	if p.Password == "" {
		p.Password = testPassword
	}
	if p.TokenDir == "" {
		p.TokenDir = filepath.Join(t.TempDir(), "tokens")
	}
	svc, err := service.New(st, service.Config{Postal: &p})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := svc.CreateTables(ctx); err != nil {
		t.Fatal(err)
	}
	if rows > 0 {
		if _, err := svc.LoadPostal(ctx, rows); err != nil {
			t.Fatal(err)
		}
	}
	return start(t, svc)
}

func start(t *testing.T, svc *service.Service) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- svc.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return "http://" + ln.Addr().String()
}

// direct reads count records from position skip (0-based) straight from
// the store, with OFFSET, each as its columns' text.
func direct(t *testing.T, st store.Store, skip, count int) [][]string {
	t.Helper()
	ctx := context.Background()
	sess, err := st.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	tbl := postal.Table()
	var rows [][]string
	_, err = sess.Scan(ctx, tbl, store.Query{Offset: skip, Limit: count}, func(r store.Row) error {
		row := make([]string, len(r))
		for i, v := range r {
			if tbl.Columns[i].Kind == store.Int {
				row[i] = strconv.FormatInt(v.Int, 10)
			} else {
				row[i] = string(v.Text)
			}
		}
		rows = append(rows, row)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// xmlPage is GET /xml/find's document, read with encoding/xml.
type xmlPage struct {
	XMLName xml.Name `xml:"postal"`
	Total   int64    `xml:"total,attr"`
	Skip    int      `xml:"skip,attr"`
	Max     int      `xml:"max,attr"`
	Count   int      `xml:"count,attr"`
	Records []struct {
		Fields []struct {
			XMLName xml.Name
			Value   string `xml:",chardata"`
		} `xml:",any"`
	} `xml:"record"`
}

// rows returns the records as their columns' text, checking that every
// record has every column, by name, in order.
func (p *xmlPage) rows(t *testing.T) [][]string {
	t.Helper()
	cols := postal.Table().Columns
	var out [][]string
	for i, r := range p.Records {
		if len(r.Fields) != len(cols) {
			t.Fatalf("record %d has %d elements, want %d", i, len(r.Fields), len(cols))
		}
		row := make([]string, len(cols))
		for j, f := range r.Fields {
			if f.XMLName.Local != cols[j].Name {
				t.Fatalf("record %d element %d is <%s>, want <%s>", i, j, f.XMLName.Local, cols[j].Name)
			}
			row[j] = f.Value
		}
		out = append(out, row)
	}
	return out
}

func getXML(t *testing.T, u string) xmlPage {
	t.Helper()
	r := do(t, "GET", u, "", "")
	if r.status != 200 {
		t.Fatalf("GET %s: %d %s", u, r.status, r.body)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/xml; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	var p xmlPage
	if err := xml.Unmarshal(r.body, &p); err != nil {
		t.Fatalf("GET %s: not XML: %v\n%.300s", u, err, r.body)
	}
	return p
}

func sameRows(t *testing.T, what string, got, want [][]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d records, want %d", what, len(got), len(want))
	}
	for i := range got {
		for j := range got[i] {
			if got[i][j] != want[i][j] {
				t.Fatalf("%s: record %d column %s = %q, want %q", what, i, postal.Columns[max(j-1, 0)], got[i][j], want[i][j])
			}
		}
	}
}

// pages are the finds both APIs are asked for over testRows records.
var pages = []struct {
	name        string
	skip, max   int
	wantRecords int
}{
	{"first record", 0, 1, 1},
	{"first page", 0, 100, 100},
	{"middle", 1234, 500, 500},
	{"short last page", testRows - 10, 50, 10},
	{"past the end", testRows, 5, 0},
	{"far past the end", 1 << 30, 5, 0},
	{"the largest skip", math.MaxInt64, 5, 0},
	{"the cap, more than there is", 500, 5000, testRows - 500},
}

// Both APIs return exactly the records a direct read of the store gives,
// in key order, from every store and with either way of reading.
func TestPostalFindsMatchTheStore(t *testing.T) {
	stores := []struct {
		name string
		open func(*testing.T) store.Store
	}{
		{"sqlite", func(t *testing.T) store.Store { return openSQLite(t, filepath.Join(t.TempDir(), "p.db")) }},
		{"file", openFile},
	}
	for _, sc := range stores {
		for _, byOffset := range []bool{false, true} {
			t.Run(sc.name+map[bool]string{false: " by key", true: " by offset"}[byOffset], func(t *testing.T) {
				st := sc.open(t)
				base := servePostal(t, st, service.Postal{ByOffset: byOffset}, testRows)
				tok := login(t, base)
				for _, c := range pages {
					want := direct(t, st, c.skip, c.max)
					if len(want) != c.wantRecords {
						t.Fatalf("%s: the store itself gives %d records, want %d", c.name, len(want), c.wantRecords)
					}

					p := getXML(t, base+"/xml/find?skip="+strconv.Itoa(c.skip)+"&max="+strconv.Itoa(c.max))
					if p.Total != testRows || p.Skip != c.skip || p.Max != c.max || p.Count != c.wantRecords {
						t.Fatalf("%s: XML total %d skip %d max %d count %d", c.name, p.Total, p.Skip, p.Max, p.Count)
					}
					sameRows(t, c.name+" (XML)", p.rows(t), want)

					j := apiFind(t, base, tok, c.skip, c.max)
					if j.Total != testRows || j.Offset != c.skip || j.Limit != c.max || j.Count != c.wantRecords {
						t.Fatalf("%s: JSON total %d offset %d limit %d count %d", c.name, j.Total, j.Offset, j.Limit, j.Count)
					}
					sameRows(t, c.name+" (JSON)", j.rows(t), want)
				}
				// Japanese text arrives as the data set has it.
				p := getXML(t, base+"/xml/find?skip=0&max=1")
				if r := p.rows(t)[0]; r[7] != "北海道" || r[8] != "札幌市中央区" || r[9] != "以下に掲載がない場合" || r[4] != "ﾎｯｶｲﾄﾞｳ" {
					t.Fatalf("first record %q", r)
				}
			})
		}
	}
}

// XML escaping is correct for every character a text column may hold:
// the document parses and gives the text back, with the characters XML
// cannot carry as U+FFFD.
func TestPostalXMLEscaping(t *testing.T) {
	st := openSQLite(t, filepath.Join(t.TempDir(), "x.db"))
	ctx := context.Background()
	tbl := postal.Table()
	if err := st.Setup(ctx, []*store.Table{tbl}); err != nil {
		t.Fatal(err)
	}
	texts := []struct{ in, want string }{
		{"a & b < c > d", "a & b < c > d"},
		{`"quoted" 'single' ]]> <![CDATA[x]]>`, `"quoted" 'single' ]]> <![CDATA[x]]>`},
		{"tab\tline\nreturn\r\ncr\r", "tab\tline\nreturn\r\ncr\r"},
		{"&amp; &#x41; &lt;", "&amp; &#x41; &lt;"},
		{"bell\x07 nul\x00 esc\x1b", "bell\uFFFD nul\uFFFD esc\uFFFD"},
		{"bad \xff\xfe utf-8 \xe6\x97", "bad \uFFFD\uFFFD utf-8 \uFFFD\uFFFD"},
		{"non-characters \uFFFE\uFFFF", "non-characters \uFFFD\uFFFD"},
		{"日本語 ｶﾀｶﾅ 🗾 \u2028", "日本語 ｶﾀｶﾅ 🗾 \u2028"},
		{"", ""},
	}
	sess, err := st.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i, tx := range texts {
		row := make(store.Row, len(tbl.Columns))
		row[0].Int = int64(i + 1)
		for j := 1; j < len(row); j++ {
			if tbl.Columns[j].Kind == store.Text {
				row[j].Text = []byte(tx.in)
			} else {
				row[j].Int = int64(-j)
			}
		}
		if err := sess.Insert(ctx, tbl, row); err != nil {
			t.Fatal(err)
		}
	}
	sess.Close()
	// The table is the test's: nothing is loaded, and the total is counted.
	base := servePostal(t, st, service.Postal{}, 0)
	p := getXML(t, base+"/xml/find?skip=0&max=100")
	if p.Total != int64(len(texts)) || p.Count != len(texts) {
		t.Fatalf("total %d count %d, want %d", p.Total, p.Count, len(texts))
	}
	for i, r := range p.rows(t) {
		if r[0] != strconv.Itoa(i+1) || r[10] != "-10" {
			t.Fatalf("record %d: id %s, multi_code %s", i, r[0], r[10])
		}
		for j, v := range r {
			if tbl.Columns[j].Kind == store.Text && v != texts[i].want {
				t.Fatalf("record %d column %s: %q, want %q", i, tbl.Columns[j].Name, v, texts[i].want)
			}
		}
	}
	// The JSON API carries every character (control characters escaped),
	// bytes that are not UTF-8 as U+FFFD each.
	j := apiFind(t, base, login(t, base), 0, 100)
	for i, r := range j.rows(t) {
		var want strings.Builder
		for k := 0; k < len(texts[i].in); {
			c, size := utf8.DecodeRuneInString(texts[i].in[k:])
			want.WriteRune(c) // RuneError is U+FFFD
			k += size
		}
		if r[9] != want.String() {
			t.Fatalf("JSON record %d: %q, want %q", i, r[9], want.String())
		}
	}
}

type apiPage struct {
	Total  int64 `json:"total"`
	Offset int   `json:"offset"`
	Limit  int   `json:"limit"`
	Count  int   `json:"count"`
	Items  []map[string]json.RawMessage
}

// rows returns the items as their columns' text.
func (p *apiPage) rows(t *testing.T) [][]string {
	t.Helper()
	tbl := postal.Table()
	var out [][]string
	for i, it := range p.Items {
		if len(it) != len(tbl.Columns) {
			t.Fatalf("item %d has %d fields, want %d", i, len(it), len(tbl.Columns))
		}
		row := make([]string, len(tbl.Columns))
		for j, c := range tbl.Columns {
			raw, ok := it[c.Name]
			if !ok {
				t.Fatalf("item %d has no %s", i, c.Name)
			}
			if c.Kind == store.Int {
				var n int64
				if err := json.Unmarshal(raw, &n); err != nil {
					t.Fatalf("item %d %s = %s: %v", i, c.Name, raw, err)
				}
				row[j] = strconv.FormatInt(n, 10)
			} else if err := json.Unmarshal(raw, &row[j]); err != nil {
				t.Fatalf("item %d %s = %s: %v", i, c.Name, raw, err)
			}
		}
		out = append(out, row)
	}
	return out
}

// req sends a request with headers ("Name: value").
func req(t *testing.T, method, u, ctype, body string, headers ...string) response {
	t.Helper()
	rq, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if ctype != "" {
		rq.Header.Set("Content-Type", ctype)
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ": ")
		rq.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(rq)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(resp.Body); err != nil {
		t.Fatal(err)
	}
	return response{resp.StatusCode, resp.Header, b.Bytes()}
}

var loginForm = url.Values{"user": {"kurabe"}, "password": {testPassword}}.Encode()

func login(t *testing.T, base string) string {
	t.Helper()
	r := req(t, "POST", base+"/api/login", formType, loginForm)
	var v struct {
		Token     string
		ExpiresIn int64 `json:"expires_in"`
	}
	if err := json.Unmarshal(r.body, &v); r.status != 200 || err != nil || v.Token == "" || v.ExpiresIn <= 0 {
		t.Fatalf("login: %d %s", r.status, r.body)
	}
	return v.Token
}

func apiFind(t *testing.T, base, tok string, offset, limit int) apiPage {
	t.Helper()
	r := req(t, "GET", base+"/api/find?offset="+strconv.Itoa(offset)+"&limit="+strconv.Itoa(limit), "", "", "Authorization: Bearer "+tok)
	if r.status != 200 {
		t.Fatalf("find: %d %s", r.status, r.body)
	}
	var p apiPage
	if err := json.Unmarshal(r.body, &p); err != nil {
		t.Fatalf("find: not JSON: %v: %.300s", err, r.body)
	}
	return p
}

// errorOf returns a JSON error response's message, failing when the
// status is not want.
func errorOf(t *testing.T, r response, want int) string {
	t.Helper()
	var e struct{ Error string }
	if err := json.Unmarshal(r.body, &e); err != nil || e.Error == "" || r.status != want {
		t.Fatalf("status %d, want %d; body %s", r.status, want, r.body)
	}
	return e.Error
}

func TestPostalTokenAPI(t *testing.T) {
	st := openSQLite(t, filepath.Join(t.TempDir(), "p.db"))
	tokens := filepath.Join(t.TempDir(), "tokens")
	base := servePostal(t, st, service.Postal{TokenDir: tokens}, 100)

	// Without a token, with a made-up one, with another scheme: 401.
	for _, c := range []struct {
		name   string
		header []string
		want   string
	}{
		{"no token", nil, "no token"},
		{"empty bearer", []string{"Authorization: Bearer "}, "no token"},
		{"made-up token", []string{"Authorization: Bearer " + strings.Repeat("A", 43)}, "not valid"},
		{"garbage", []string{"X-Auth-Token: ../../etc/passwd"}, "not valid"},
		{"basic auth", []string{"Authorization: Basic a3VyYWJlOnNlY3JldA=="}, "not a bearer token"},
	} {
		r := req(t, "GET", base+"/api/find?offset=0&limit=1", "", "", c.header...)
		if msg := errorOf(t, r, 401); !strings.Contains(msg, c.want) {
			t.Errorf("%s: %q lacks %q", c.name, msg, c.want)
		}
		if r.header.Get("WWW-Authenticate") == "" {
			t.Errorf("%s: 401 without WWW-Authenticate", c.name)
		}
	}

	// Wrong credentials: 401, and the password is never echoed.
	for _, body := range []string{
		url.Values{"user": {"kurabe"}, "password": {"guess"}}.Encode(),
		url.Values{"user": {"admin"}, "password": {testPassword}}.Encode(),
		url.Values{"user": {"kurabe"}, "password": {testPassword + "x"}}.Encode(),
		url.Values{"user": {"kurabe"}, "password": {""}}.Encode(),
	} {
		r := req(t, "POST", base+"/api/login", formType, body)
		if msg := errorOf(t, r, 401); !strings.Contains(msg, "wrong user or password") {
			t.Errorf("login %s: %q", body, msg)
		}
	}
	for _, c := range []struct{ ctype, body, want string }{
		{formType, "user=kurabe", "missing password"},
		{formType, "password=x", "missing user"},
		{"application/json", `{"user":"kurabe","password":"` + testPassword, "bad JSON"},
		{"text/plain", "kurabe " + testPassword, "not accepted"},
	} {
		r := req(t, "POST", base+"/api/login", c.ctype, c.body)
		if msg := errorOf(t, r, 400); !strings.Contains(msg, c.want) || strings.Contains(string(r.body), testPassword) {
			t.Errorf("login %q: %q", c.body, r.body)
		}
	}
	if r := req(t, "GET", base+"/api/login", "", ""); r.status != 405 {
		t.Errorf("GET /api/login: %d", r.status)
	}

	// Log in with a form and with JSON; both tokens work, by either header.
	tok := login(t, base)
	jb, _ := json.Marshal(map[string]string{"user": "kurabe", "password": testPassword})
	r := req(t, "POST", base+"/api/login", "application/json", string(jb))
	var v struct{ Token string }
	if json.Unmarshal(r.body, &v); r.status != 200 || v.Token == "" || v.Token == tok {
		t.Fatalf("JSON login: %d %s", r.status, r.body)
	}
	tok2 := v.Token
	if p := apiFind(t, base, tok, 10, 5); p.Count != 5 || p.Total != 100 {
		t.Fatalf("find: %+v", p)
	}
	if r := req(t, "GET", base+"/api/find?offset=0&limit=2", "", "", "X-Auth-Token: "+tok2); r.status != 200 {
		t.Fatalf("find with X-Auth-Token: %d %s", r.status, r.body)
	}
	// Token files are named by digest: the directory gives no token away.
	ents, err := os.ReadDir(tokens)
	if err != nil || len(ents) != 2 {
		t.Fatalf("token directory: %v, %d files", err, len(ents))
	}
	for _, e := range ents {
		b, _ := os.ReadFile(filepath.Join(tokens, e.Name()))
		if strings.Contains(e.Name(), tok) || strings.Contains(string(b), tok) || strings.Contains(string(b), tok2) || strings.Contains(string(b), testPassword) {
			t.Fatalf("token file %s (%q) holds a token or the password", e.Name(), b)
		}
		if fi, _ := e.Info(); fi.Mode().Perm() != 0o600 {
			t.Errorf("token file mode %v, want 0600", fi.Mode().Perm())
		}
	}

	// Logout ends the token, and only that one.
	r = req(t, "POST", base+"/api/logout", "", "", "Authorization: Bearer "+tok)
	if r.status != 200 || !bytes.Contains(r.body, []byte(`"logged_out":true`)) {
		t.Fatalf("logout: %d %s", r.status, r.body)
	}
	r = req(t, "GET", base+"/api/find?offset=0&limit=1", "", "", "Authorization: Bearer "+tok)
	if msg := errorOf(t, r, 401); !strings.Contains(msg, "expired or logged out") {
		t.Fatalf("find after logout: %q", msg)
	}
	errorOf(t, req(t, "POST", base+"/api/logout", "", "", "Authorization: Bearer "+tok), 401)
	if p := apiFind(t, base, tok2, 0, 1); p.Count != 1 {
		t.Fatalf("the other token after one logout: %+v", p)
	}
	// The XML find needs no token.
	if p := getXML(t, base+"/xml/find?skip=0&max=3"); p.Count != 3 {
		t.Fatalf("XML find: %+v", p)
	}
}

// A token past its lifetime is refused, and its file removed.
func TestPostalTokenExpires(t *testing.T) {
	tokens := filepath.Join(t.TempDir(), "tokens")
	base := servePostal(t, openSQLite(t, ""), service.Postal{TokenDir: tokens, TokenTTL: time.Nanosecond}, 10)
	tok := login(t, base)
	r := req(t, "GET", base+"/api/find?offset=0&limit=1", "", "", "Authorization: Bearer "+tok)
	if msg := errorOf(t, r, 401); !strings.Contains(msg, "expired") {
		t.Fatalf("expired token: %q", msg)
	}
	if ents, _ := os.ReadDir(tokens); len(ents) != 0 {
		t.Fatalf("%d token files left after the expired token was refused", len(ents))
	}
}

func TestPostalBadInput(t *testing.T) {
	base := servePostal(t, openSQLite(t, ""), service.Postal{MaxRecords: 1000}, 10)
	tok := login(t, base)
	cases := []struct {
		name, method, path string
		status             int
		want               string
	}{
		{"no parameters", "GET", "/xml/find", 400, "skip is missing"},
		{"no max", "GET", "/xml/find?skip=0", 400, "max is missing"},
		{"empty skip", "GET", "/xml/find?skip=&max=1", 400, "skip is missing"},
		{"skip a word", "GET", "/xml/find?skip=ten&max=1", 400, `skip="ten": want a whole number`},
		{"negative skip", "GET", "/xml/find?skip=-1&max=1", 400, "0 or more"},
		{"max zero", "GET", "/xml/find?skip=0&max=0", 400, "1 to 1000"},
		{"max a fraction", "GET", "/xml/find?skip=0&max=1.5", 400, `max="1.5"`},
		{"over the cap", "GET", "/xml/find?skip=0&max=1001", 400, "cap of 1000 records"},
		{"bad escape", "GET", "/xml/find?skip=%zz&max=1", 400, "bad query string"},
		{"post", "POST", "/xml/find?skip=0&max=1", 405, "use GET"},
		{"other xml path", "GET", "/xml/findall", 404, "no such path"},
		{"api no offset", "GET", "/api/find?limit=1", 400, "offset is missing"},
		{"api no limit", "GET", "/api/find?offset=1", 400, "limit is missing"},
		{"api limit over the cap", "GET", "/api/find?offset=0&limit=5000", 400, "cap of 1000"},
		{"api negative offset", "GET", "/api/find?offset=-5&limit=1", 400, "0 or more"},
		{"api post", "POST", "/api/find?offset=0&limit=1", 405, "use GET"},
		{"api other path", "GET", "/api/records", 404, "no such path"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := req(t, c.method, base+c.path, "", "", "Authorization: Bearer "+tok)
			if r.status != c.status {
				t.Fatalf("status %d, want %d: %s", r.status, c.status, r.body)
			}
			var msg string
			if strings.HasPrefix(c.path, "/xml/") {
				var e struct {
					Status int    `xml:"status,attr"`
					Msg    string `xml:",chardata"`
				}
				if err := xml.Unmarshal(r.body, &e); err != nil || e.Status != c.status {
					t.Fatalf("XML error not XML: %v %s", err, r.body)
				}
				msg = e.Msg
			} else {
				msg = errorOf(t, r, c.status)
			}
			if !strings.Contains(msg, c.want) {
				t.Fatalf("%q lacks %q", msg, c.want)
			}
		})
	}
}

// Without Config.Postal, the postal paths say how to turn them on.
func TestPostalOff(t *testing.T) {
	base, _ := serve(t, openSQLite(t, ""), service.Config{})
	for _, p := range []string{"/xml/find?skip=0&max=1", "/api/login"} {
		r := do(t, "GET", base+p, "", "")
		if msg := errorOf(t, r, 404); !strings.Contains(msg, "--dataset postal") {
			t.Errorf("%s: %q", p, msg)
		}
	}
}

func TestPostalConfigErrors(t *testing.T) {
	st := openSQLite(t, "")
	dir := t.TempDir()
	for _, c := range []struct {
		p    service.Postal
		want string
	}{
		{service.Postal{TokenDir: dir}, "password"},
		{service.Postal{Password: "x"}, "directory"},
		{service.Postal{Password: "x", TokenDir: dir, MaxRecords: -1}, "records per find"},
		{service.Postal{Password: "x", TokenDir: filepath.Join(dir, "f", "tokens")}, "writable"},
	} {
		if c.want == "writable" {
			os.WriteFile(filepath.Join(dir, "f"), nil, 0o644) // a file where the directory's parent should be
		}
		if _, err := service.New(st, service.Config{Postal: &c.p}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err %v, want %q", c.p, err, c.want)
		}
	}
}

// LoadPostal loads once: a table that already holds the records is left
// alone; one that holds another count is loaded anew. SQLite goes in
// through its bulk path, the file store (which has none) in batches.
func TestLoadPostalOnce(t *testing.T) {
	for _, c := range []struct {
		name string
		open func(*testing.T) store.Store
		path string
	}{
		{"sqlite", func(t *testing.T) store.Store { return openSQLite(t, filepath.Join(t.TempDir(), "p.db")) }, "the store's bulk path"},
		{"file", openFile, "batches of 1000"},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := c.open(t)
			ctx := context.Background()
			load := func(rows int) service.PostalLoad {
				t.Helper()
				svc, err := service.New(st, service.Config{Postal: &service.Postal{Password: "x", TokenDir: t.TempDir()}})
				if err != nil {
					t.Fatal(err)
				}
				defer svc.Close()
				ld, err := svc.LoadPostal(ctx, rows)
				if err != nil {
					t.Fatal(err)
				}
				return ld
			}
			if ld := load(500); !ld.Loaded || ld.Records != 500 || ld.Path != c.path {
				t.Fatalf("first load: %+v", ld)
			}
			if ld := load(500); ld.Loaded || ld.Records != 500 {
				t.Fatalf("second load of the same rows: %+v", ld)
			}
			if ld := load(200); !ld.Loaded || ld.Records != 200 || ld.Had != 500 {
				t.Fatalf("load of fewer rows: %+v", ld)
			}
			if n, err := st.Count(ctx, postal.Table()); err != nil || n != 200 {
				t.Fatalf("count %d (%v) after loading 200", n, err)
			}
		})
	}
}

// In CGI mode every request is a new process; a token one process gives
// is honoured by the next, and a logout in one is seen by the next.
func TestPostalTokensAcrossCGIProcesses(t *testing.T) {
	db := filepath.Join(t.TempDir(), "cgi.db")
	st := openSQLite(t, db)
	tokens := filepath.Join(t.TempDir(), "tokens")
	p := service.Postal{Password: testPassword, TokenDir: tokens}
	svc, err := service.New(st, service.Config{Postal: &p})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.LoadPostal(context.Background(), 50); err != nil {
		t.Fatal(err)
	}
	svc.Close()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var stderr syncBuffer
	cgi := &service.CGI{Path: exe, Stderr: &stderr, Env: []string{
		"KURABE_SERVICE_TEST_CHILD=sqlite:" + db + "?synchronous=off",
		"KURABE_SERVICE_TEST_TOKENS=" + tokens,
		"KURABE_SERVICE_TEST_PASSWORD=" + testPassword,
		"KURABE_SERVICE_TEST_RECORDS=50",
	}}
	host, err := service.New(st, service.Config{CGI: cgi, Postal: &p})
	if err != nil {
		t.Fatal(err)
	}
	base := start(t, host)

	var mu sync.Mutex
	pids := map[string]bool{}
	record := func(r response) response {
		t.Helper()
		pid := r.header.Get("X-Kurabe-Pid")
		mu.Lock()
		defer mu.Unlock()
		if pid == "" || pid == strconv.Itoa(os.Getpid()) || pids[pid] {
			t.Fatalf("X-Kurabe-Pid %q: not a new process (stderr: %s)", pid, stderr.String())
		}
		pids[pid] = true
		return r
	}
	r := record(req(t, "POST", base+"/api/login", formType, loginForm))
	var v struct{ Token string }
	if err := json.Unmarshal(r.body, &v); r.status != 200 || err != nil {
		t.Fatalf("CGI login: %d %s (stderr: %s)", r.status, r.body, stderr.String())
	}
	auth := "Authorization: Bearer " + v.Token
	r = record(req(t, "GET", base+"/api/find?offset=45&limit=10", "", "", auth))
	var page apiPage
	if err := json.Unmarshal(r.body, &page); r.status != 200 || err != nil || page.Total != 50 || page.Count != 5 {
		t.Fatalf("CGI find with another process's token: %d %s", r.status, r.body)
	}
	sameRows(t, "CGI find", page.rows(t), direct(t, st, 45, 10))
	r = record(req(t, "GET", base+"/xml/find?skip=0&max=2", "", ""))
	if r.status != 200 || !bytes.Contains(r.body, []byte(`<postal total="50" skip="0" max="2" count="2">`)) {
		t.Fatalf("CGI XML find: %d %.200s", r.status, r.body)
	}
	if r = record(req(t, "POST", base+"/api/logout", "", "", auth)); r.status != 200 {
		t.Fatalf("CGI logout: %d %s", r.status, r.body)
	}
	errorOf(t, record(req(t, "GET", base+"/api/find?offset=0&limit=1", "", "", auth)), 401)
	errorOf(t, record(req(t, "POST", base+"/api/login", formType, "user=kurabe&password=wrong")), 401)
	if len(pids) != 6 {
		t.Fatalf("%d processes for 6 requests", len(pids))
	}
}
