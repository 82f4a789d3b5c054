package flow

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// files stands in for the files a flow names.
func files(m map[string]string) func(string) ([]byte, error) {
	return func(name string) ([]byte, error) {
		if s, ok := m[name]; ok {
			return []byte(s), nil
		}
		return nil, os.ErrNotExist
	}
}

const loginFlow = `
name: bbs-api
base: http://127.0.0.1:3001
headers:
  accept: application/json
vars:
  offset: {int: [0, 1000]}
  limit: {choice: [10, 100]}
  user: {line: users.txt}
  n: {seq: 1}
steps:
  - name: login
    method: post
    url: /api/login
    headers: {Content-Type: application/x-www-form-urlencoded}
    body: user={{user|url}}&n={{ n }}
    expect: {status: [200]}
    extract:
      token: {json: $.token}
  - name: find
    url: /api/find?offset={{offset}}&limit={{limit}}
    headers: {Authorization: "Bearer {{token}}"}
    extract:
      first: {json: "data.items[0].id"}
      total: {regex: '"total":(\d+)'}
      server: {header: Server}
  - name: logout
    method: POST
    url: /api/logout
    headers: {Authorization: "Bearer {{token}}"}
    always: true
`

func TestParseValid(t *testing.T) {
	f, err := Parse("flow.yaml", []byte(loginFlow), Options{ReadFile: files(map[string]string{"users.txt": "alice\r\n\nbob o'neil\n"})})
	if err != nil {
		t.Fatal(err)
	}
	if f.Name != "bbs-api" || len(f.Steps) != 3 || len(f.Vars) != 4 {
		t.Fatalf("flow %+v", f)
	}
	login, find, logout := &f.Steps[0], &f.Steps[1], &f.Steps[2]
	if login.Method != "POST" || login.Origin != "http://127.0.0.1:3001" || login.URL.String() != "http://127.0.0.1:3001/api/login" || login.Line != 12 {
		t.Fatalf("login %+v", login)
	}
	if find.Method != "GET" || !logout.Always || login.Always {
		t.Fatal("methods or always wrong")
	}
	// Flow headers and step headers merge, names canonical, sorted.
	if len(find.Headers) != 2 || find.Headers[0].Name != "Accept" || find.Headers[1].Name != "Authorization" {
		t.Fatalf("headers %+v", find.Headers)
	}
	if !login.Expect.StatusOK(200) || login.Expect.StatusOK(201) || !find.Expect.StatusOK(204) || find.Expect.StatusOK(302) {
		t.Fatal("expectations wrong")
	}

	st := f.NewState(rand.New(rand.NewPCG(1, 2)))
	for iter := range 3 {
		st.Begin()
		if !st.Ready(login) || st.Ready(find) {
			t.Fatal("find must wait for the token")
		}
		body := string(login.Body.Append(nil, st))
		if body != "user=alice&n="+string(rune('1'+iter)) && body != "user=bob+o%27neil&n="+string(rune('1'+iter)) {
			t.Fatalf("login body %q", body)
		}
		if e := st.Extract(login, fakeResp{body: `{"ok": true, "token" : "t\u00e9\"k"}`}); e != nil {
			t.Fatalf("extract failed at %s", e.Name)
		}
		if v, _ := st.Value("token"); v != `té"k` {
			t.Fatalf("token %q", v)
		}
		url := string(find.URL.Append(nil, st))
		if !strings.HasPrefix(url, "http://127.0.0.1:3001/api/find?offset=") || !strings.Contains(url, "&limit=1") {
			t.Fatalf("find url %q", url)
		}
		if h := string(find.Headers[1].Value.Append(nil, st)); h != `Bearer té"k` {
			t.Fatalf("header %q", h)
		}
		e := st.Extract(find, fakeResp{body: `{"data":{"items":[{"id":17},{"id":18}]},"total":42}`, headers: map[string]string{"Server": "x/1"}})
		if e != nil {
			t.Fatalf("extract failed at %s", e.Name)
		}
		for name, want := range map[string]string{"first": "17", "total": "42", "server": "x/1"} {
			if v, _ := st.Value(name); v != want {
				t.Fatalf("%s = %q, want %q", name, v, want)
			}
		}
	}
	// A missing value fails the extraction and leaves the variable unset.
	st.Begin()
	if e := st.Extract(login, fakeResp{body: `{"error":"no"}`}); e == nil || e.Name != "token" {
		t.Fatalf("extract of a missing token: %v", e)
	}
	if st.Ready(logout) {
		t.Fatal("logout must not run without a token")
	}
}

type fakeResp struct {
	body    string
	headers map[string]string
}

func (r fakeResp) Body() []byte { return []byte(r.body) }
func (r fakeResp) Header(name string) []byte {
	if v, ok := r.headers[name]; ok {
		return []byte(v)
	}
	return nil
}

func TestVarsDraw(t *testing.T) {
	f, err := Parse("f.yaml", []byte(`
base: http://h
vars:
  i: {int: [5, 7]}
  c: {choice: [a, b]}
  s: {seq: [10, 12]}
steps: [{url: "/{{i}}/{{c}}/{{s}}"}]
`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	st := f.NewState(rand.New(rand.NewPCG(3, 4)))
	seen := map[string]bool{}
	var seqs []string
	for range 200 {
		st.Begin()
		i, _ := st.Value("i")
		c, _ := st.Value("c")
		s, _ := st.Value("s")
		seen["i"+i], seen["c"+c] = true, true
		seqs = append(seqs, s)
	}
	for _, k := range []string{"i5", "i6", "i7", "ca", "cb"} {
		if !seen[k] {
			t.Fatalf("never drew %s: %v", k, seen)
		}
	}
	if len(seen) != 5 {
		t.Fatalf("drew values out of range: %v", seen)
	}
	if strings.Join(seqs[:5], ",") != "10,11,12,10,11" {
		t.Fatalf("sequence %v", seqs[:5])
	}
}

func TestParseErrors(t *testing.T) {
	users := files(map[string]string{"empty.txt": "\n\n"})
	for _, c := range []struct {
		name, src string
		line      int
		want      string
	}{
		// Empty files say what a flow needs.
		{"empty", "  \n", 0, "needs at least one step"},
		// YAML syntax errors keep their line, also on line 1.
		{"syntax", "steps:\n  - url: /x\n   bad: [\n", 3, ""},
		{"syntax after a valid multi-line value", "base: http://h\nsteps: [\n  {url: /x}\n]\nname: a\n  b: c\n", 6, ""},
		{"tab", "steps:\n  - url: /x\n\t  name: y\n", 3, "tab"},
		{"syntax line 1", "a: b: c\n", 1, "mapping values"},
		// Strict mode: an unknown field, with the step's friendly name.
		{"unknown field", "base: http://h\nsteps:\n  - url: /x\n    heders: {A: b}\n", 4, `unknown field "heders" in a step`},
		{"wrong type", "steps:\n  - url: /x\n    always: maybe\n", 3, `always: want true or false, not "maybe"`},
		{"duplicate key", "steps: []\nsteps: []\n", 2, "already defined"},
		{"two documents", "steps: [{url: 'http://h/'}]\n---\nsteps: []\n", 2, "one YAML document"},
		{"no steps", "name: x\n", 1, "no steps"},
		{"relative url without base", "steps:\n  - url: /x\n", 2, "no base"},
		{"no url", "base: http://h\nsteps:\n  - name: a\n", 3, "has no url"},
		{"bad scheme", "steps:\n  - url: ftp://h/x\n", 2, "http:// or https://"},
		{"variable host", "vars: {h: {choice: [a]}}\nsteps:\n  - url: 'http://{{h}}/x'\n", 3, "host must be written out"},
		// A variable used before any step can have set it.
		{"undefined variable", "base: http://h\nsteps:\n  - url: /a\n  - url: /b\n    headers:\n      X-T: '{{token}}'\n", 6, "uses {{token}}"},
		{"used before extracted", "base: http://h\nsteps:\n  - url: /a?t={{t}}\n  - url: /b\n    extract: {t: {json: $.t}}\n", 3, "uses {{t}}"},
		{"unclosed template", "base: http://h\nsteps:\n  - url: /a\n    body: 'x={{y'\n", 4, "without a closing"},
		{"bad filter", "base: http://h\nvars: {y: {int: [1, 2]}}\nsteps:\n  - url: /a\n    body: '{{y|base64}}'\n", 5, "unknown filter"},
		{"bad variable name", "base: http://h\nsteps:\n  - url: /a?{{1x}}\n", 3, "not a variable name"},
		{"duplicate step name", "base: http://h\nsteps:\n  - {name: a, url: /a}\n  - {name: a, url: /b}\n", 4, "used twice"},
		{"bad method", "base: http://h\nsteps:\n  - {method: 'GE T', url: /a}\n", 3, "method"},
		{"int range", "base: http://h\nvars:\n  o: {int: [5, 1]}\nsteps: [{url: /}]\n", 3, "low <= high"},
		{"two generators", "base: http://h\nvars:\n  o: {int: [1, 5], choice: [a]}\nsteps: [{url: /}]\n", 3, "exactly one"},
		{"no generator", "base: http://h\nvars:\n  o: {}\nsteps: [{url: /}]\n", 3, "exactly one"},
		{"missing line file", "base: http://h\nvars:\n  u: {line: users.txt}\nsteps: [{url: /}]\n", 3, "users.txt"},
		{"empty line file", "base: http://h\nvars:\n  u: {line: empty.txt}\nsteps: [{url: /}]\n", 3, "no non-empty lines"},
		{"bad seq", "base: http://h\nvars:\n  s: {seq: [3, 2]}\nsteps: [{url: /}]\n", 3, "seq wants"},
		{"seq too wide", "base: http://h\nvars:\n  s: {seq: [-9223372036854775808, 9223372036854775807]}\nsteps: [{url: /}]\n", 3, "seq wants"},
		{"bad json path", "base: http://h\nsteps:\n  - url: /\n    extract:\n      t: {json: 'a[x]'}\n", 5, "JSON path"},
		{"bad regex", "base: http://h\nsteps:\n  - url: /\n    extract:\n      t: {regex: '('}\n", 5, "regex"},
		{"regex group", "base: http://h\nsteps:\n  - url: /\n    extract:\n      t: {regex: 'a(b)', group: 2}\n", 5, "group 2"},
		{"two extractions", "base: http://h\nsteps:\n  - url: /\n    extract:\n      t: {json: $.a, header: X}\n", 5, "exactly one"},
		{"bad status", "base: http://h\nsteps:\n  - url: /\n    expect: {status: [200, 999]}\n", 4, "999"},
		{"bad expect body", "base: http://h\nsteps:\n  - url: /\n    expect:\n      body: '['\n", 5, "expect: body"},
		{"body and body_file", "base: http://h\nsteps:\n  - url: /\n    body: x\n    body_file: b.txt\n", 5, "both body"},
		{"bad header name", "base: http://h\nsteps:\n  - url: /\n    headers: {'X Y': z}\n", 4, "header name"},
		// A CR or LF in a header's value would start a header of its own
		// on the wire; the value is not quoted (it may be a secret).
		{"header injection", "base: http://h\nsteps:\n  - url: /\n    headers:\n      X-A: \"a\\r\\nX-Inj: SECRET\"\n", 5, "header X-A: the value has a control character"},
		{"NUL in a flow's header", "base: http://h\nheaders: {X-A: \"a\\0b\"}\nsteps:\n  - url: /\n", 2, "control character"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("flow.yaml", []byte(c.src), Options{ReadFile: users})
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("got %v, want a ParseError", err)
			}
			first := pe.Errs[0]
			if first.Line != c.line || !strings.Contains(first.Msg, c.want) || first.File != "flow.yaml" {
				t.Fatalf("got %q (line %d), want line %d containing %q", err, first.Line, c.line, c.want)
			}
			for _, line := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(line, "flow.yaml") || strings.Contains(line, "YAML\"") || strings.Contains(line, "flow.step") || strings.Contains(line, "SECRET") {
					t.Fatalf("message not friendly lines, each with the file: %q", err)
				}
			}
		})
	}
}

// Every problem is listed, one per line with its line number, so that
// a file is fixed in one pass; past 20, a last line counts the rest.
func TestParseReportsEveryProblem(t *testing.T) {
	_, err := Parse("f.yaml", []byte("base: http://h\nsteps:\n  - url: /a?{{x}}\n  - url: /b?{{y}}\n"), Options{})
	var pe *ParseError
	want := "f.yaml:3: step 1 uses {{x}}, which no vars section defines and no earlier step extracts\n" +
		"f.yaml:4: step 2 uses {{y}}, which no vars section defines and no earlier step extracts"
	if !errors.As(err, &pe) || len(pe.Errs) != 2 || err.Error() != want {
		t.Fatalf("got %v", err)
	}
	// An unknown key is listed with the rest, not alone before them.
	_, err = Parse("f.yaml", []byte("base: http://h\nsteps:\n  - url: /a?{{x}}\n    heders: {A: b}\n  - methd: GET\n    url: /b\n    expect: {status: [999]}\n"), Options{})
	want = "f.yaml:3: step 1 uses {{x}}, which no vars section defines and no earlier step extracts\n" +
		"f.yaml:4:5: unknown field \"heders\" in a step\n" +
		"f.yaml:5:5: unknown field \"methd\" in a step\n" +
		"f.yaml:7: expect: status 999 is not an HTTP status (100 to 599)"
	if err == nil || err.Error() != want {
		t.Fatalf("unknown keys and other problems: got\n%v\nwant\n%s", err, want)
	}
	src := "base: http://h\nsteps:\n" + strings.Repeat("  - url: /a?{{x}}\n", 25)
	_, err = Parse("f.yaml", []byte(src), Options{})
	lines := strings.Split(fmt.Sprint(err), "\n")
	if len(lines) != 21 || lines[19] != "f.yaml:22: step 20 uses {{x}}, which no vars section defines and no earlier step extracts" || lines[20] != "(and 5 more problems)" {
		t.Fatalf("25 problems:\n%v", err)
	}
}

// TestWrongTypeSaysWhatToWrite: a value of the wrong type is named by
// its key, at its line and column, with what to write instead. Before,
// the YAML library's words came through: "cannot unmarshal !!str `maybe`
// into bool", at the line alone.
func TestWrongTypeSaysWhatToWrite(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      string
	}{
		{"bool", "steps:\n  - url: http://h/\n    always: maybe\n", `f.yaml:3:13: always: want true or false, not "maybe"`},
		// The decoder shows 7 characters of a long value; the message
		// quotes it whole.
		{"long value", "steps:\n  - url: http://h/\n    always: only-after-login\n", `f.yaml:3:13: always: want true or false, not "only-after-login"`},
		// Two on one line: each at its own column.
		{"two on a line", "steps:\n  - url: http://h/\n    expect: {status: ok, length: ok}\n",
			`f.yaml:3:22: status: want a whole number or a list of them, such as [200, 302], not "ok"` + "\n" + `f.yaml:3:34: length: want a whole number, not "ok"`},
		{"in a list", "vars:\n  n: {int: [a, 3]}\nsteps: [{url: 'http://h/{{n}}'}]\n", `f.yaml:2:13: int: want whole numbers, such as [0, 100], not "a" in the list`},
		{"list for a mapping", "steps:\n  - url: http://h/\n    headers: [Accept, json]\n", "f.yaml:3:14: headers: want a mapping of names to values, such as {Accept: application/json}, not a list"},
		{"list for text", "steps:\n  - url: [http://h/]\n", `f.yaml:2:10: url: want text (YAML reads a value that starts with [ or {, or holds ": ", as a list or a mapping: put it in quotes), not a list`},
		{"step not a mapping", "steps:\n  - http://h/\n", `f.yaml:2:5: steps: want a step, a mapping such as {name: login, method: POST, url: /login}, not text in the list`},
		// A value where a mapping or text was due may be a secret: it is
		// not quoted.
		{"header value as text", "steps:\n  - url: http://h/\n    headers: 'Authorization: Bearer sekrit-token-1234567'\n", "f.yaml:3:14: headers: want a mapping of names to values, such as {Accept: application/json}, not text"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("f.yaml", []byte(c.src), Options{})
			if err == nil || err.Error() != c.want {
				t.Fatalf("got\n%v\nwant\n%s", err, c.want)
			}
		})
	}
	// A generator given with --set is read the same way.
	_, err := Parse("f.yaml", []byte("steps: [{url: 'http://h/{{n}}'}]\n"), Options{Set: []Setting{{"n", "{int: [a, 3]}"}}})
	if err == nil || !strings.Contains(err.Error(), `--set n={int: [a, 3]}: int: want whole numbers, such as [0, 100], not "a" in the list`) {
		t.Fatalf("--set: %v", err)
	}
}

// TestBodyContentType: a step that sends a body and names no
// Content-Type gets Options.ContentType, else a form's, as a URL file's
// bodies; a type the step or the flow names wins, and a step without a
// body gets none.
func TestBodyContentType(t *testing.T) {
	src := "base: http://h\nsteps:\n  - {name: form, method: POST, url: /a, body: 'a=b', headers: {Accept: x, X-Z: y}}\n" +
		"  - {name: own, method: POST, url: /b, body: '{}', headers: {content-type: application/json}}\n  - {name: get, url: /c}\n"
	flowTyped := "base: http://h\nheaders: {Content-Type: text/csv}\nsteps:\n  - {method: POST, url: /a, body: 'a,b'}\n"
	for _, c := range []struct {
		name, src, opt string
		want           []string // each step's Content-Type, "" for none
	}{
		{"default", src, "", []string{"application/x-www-form-urlencoded", "application/json", ""}},
		{"from -T", src, "text/plain", []string{"text/plain", "application/json", ""}},
		{"the flow's", flowTyped, "text/plain", []string{"text/csv"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, err := Parse("f.yaml", []byte(c.src), Options{ContentType: c.opt})
			if err != nil {
				t.Fatal(err)
			}
			for i, s := range f.Steps {
				var got, names []string
				for _, h := range s.Headers {
					names = append(names, h.Name)
					if h.Name == "Content-Type" {
						got = append(got, h.Value.String())
					}
				}
				if want := c.want[i]; want == "" && len(got) != 0 || want != "" && !slices.Equal(got, []string{want}) {
					t.Errorf("step %s: Content-Type %q, want %q", s.Name, got, want)
				}
				if !slices.IsSorted(names) || s.DefaultType != (i == 0 && c.name != "the flow's") {
					t.Errorf("step %s: headers %q (sorted by name), default type %v", s.Name, names, s.DefaultType)
				}
			}
		})
	}
}

func TestBaseOverride(t *testing.T) {
	f, err := Parse("f.yaml", []byte("base: http://a:1\nsteps: [{url: /x}, {url: 'http://c:3/y'}]\n"), Options{Base: "http://b:2/"})
	if err != nil {
		t.Fatal(err)
	}
	if f.Steps[0].URL.String() != "http://b:2/x" || f.Steps[1].Origin != "http://c:3" {
		t.Fatalf("steps %+v", f.Steps)
	}
}

func FuzzFlow(f *testing.F) {
	f.Add(loginFlow)
	f.Add("steps: [{url: 'http://h/{{a}}'}]\nvars: {a: {seq: [1, 3]}}\n")
	f.Add("a: b: c")
	f.Add("steps:\n  - url: http://h/\n    extract: {t: {regex: '(x)', group: 1}}\n    expect: {status: 200, length: 3}\n")
	f.Fuzz(func(t *testing.T, src string) {
		fl, err := Parse("fuzz.yaml", []byte(src), Options{ReadFile: files(map[string]string{"users.txt": "a\nb\n"})})
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || len(pe.Errs) == 0 {
				t.Fatalf("error %v is not a ParseError", err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line message %q", err)
			}
			return
		}
		// A flow that parses must run: draw, render and extract without panics.
		st := fl.NewState(rand.New(rand.NewPCG(1, 1)))
		st.Begin()
		for i := range fl.Steps {
			s := &fl.Steps[i]
			st.Draw(s.Vars)
			if st.Ready(s) {
				s.URL.Append(nil, st)
				s.Body.Append(nil, st)
			}
			st.Extract(s, fakeResp{body: src})
		}
	})
}

// Variables given from outside the file (kurabe http --set) replace the
// file's, fill in ones the file leaves undefined, and may be generators.
func TestSet(t *testing.T) {
	const src = `
base: http://h
vars:
  records: {choice: [100]}
  offset: {int: [0, 115720]}
steps:
  - name: find
    url: /find?offset={{offset}}&limit={{records}}&user={{user}}
    vars:
      page: {int: [1, 9]}
    body: p={{page}}
`
	users := files(map[string]string{"users.txt": "alice\nbob\n"})
	for _, c := range []struct {
		name string
		set  []string
		want func(url, body string) bool
	}{
		// A fixed value replaces a flow variable; an undefined one is filled in.
		{"fixed", []string{"records=5000", "user=kurabe"}, func(u, b string) bool {
			return strings.HasSuffix(u, "&limit=5000&user=kurabe")
		}},
		// A generator in braces replaces one: here a range of one value.
		{"generator", []string{"offset={int: [7, 7]}", "user={choice: [x]}", "records=1"}, func(u, b string) bool {
			return u == "http://h/find?offset=7&limit=1&user=x"
		}},
		// A step's own variable is replaced too, and a line: file is
		// read relative to the flow.
		{"step variable and line file", []string{"page=42", "user={line: users.txt}"}, func(u, b string) bool {
			return b == "p=42" && (strings.HasSuffix(u, "user=alice") || strings.HasSuffix(u, "user=bob"))
		}},
		// The last of two settings of one name wins.
		{"twice", []string{"user=a", "user=b"}, func(u, b string) bool { return strings.HasSuffix(u, "user=b") }},
		// A value is used as it is, = and spaces included.
		{"verbatim", []string{"user=a=b c"}, func(u, b string) bool { return strings.HasSuffix(u, "user=a=b c") }},
	} {
		t.Run(c.name, func(t *testing.T) {
			var opt Options
			opt.ReadFile = users
			for _, s := range c.set {
				st, err := ParseSetting(s)
				if err != nil {
					t.Fatal(err)
				}
				opt.Set = append(opt.Set, st)
			}
			f, err := Parse("f.yaml", []byte(src), opt)
			if err != nil {
				t.Fatal(err)
			}
			st := f.NewState(rand.New(rand.NewPCG(5, 6)))
			for range 20 {
				st.Begin()
				st.Draw(f.Steps[0].Vars)
				u, b := string(f.Steps[0].URL.Append(nil, st)), string(f.Steps[0].Body.Append(nil, st))
				if !c.want(u, b) {
					t.Fatalf("url %q body %q", u, b)
				}
			}
		})
	}
}

func TestSetErrors(t *testing.T) {
	const src = "base: http://h\nvars: {n: {int: [1, 2]}}\nsteps:\n  - url: /a?n={{n}}\n    extract: {tok: {json: $.t}}\n  - url: /b?t={{tok}}\n"
	for _, c := range []struct{ set, want string }{
		{"m=1", "--set m: no step uses {{m}}; the flow's variables are n"},
		{"tok=x", "--set tok: step 1 extracts {{tok}}"},
		{"n={int: [5, 1]}", "--set n: int wants [low, high]"},
		{"n={int: [1, 2], choice: [a]}", "--set n: give exactly one"},
		{"n={integer: [1, 2]}", `--set n={integer: [1, 2]}: unknown field "integer"`},
		{"n={int: [1,", "--set n={int: [1,:"},
		{"n={line: missing.txt}", "--set n: line: cannot read missing.txt"},
	} {
		t.Run(c.set, func(t *testing.T) {
			st, err := ParseSetting(c.set)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Parse("f.yaml", []byte(src), Options{Set: []Setting{st}, ReadFile: files(nil)})
			var pe *ParseError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), c.want) || pe.Errs[0].Line != 0 {
				t.Fatalf("got %v, want %q", err, c.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line message %q", err)
			}
		})
	}
	for _, s := range []string{"records", "=5", "1n=5", "a b=5"} {
		if _, err := ParseSetting(s); err == nil {
			t.Errorf("ParseSetting(%q) accepted", s)
		}
	}
}

// A step is named once in messages: "step 2" for an unnamed step (whose
// name is already "step 2"), "step login" for a named one.
func TestMessagesNameAStepOnce(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"base: http://h\nsteps:\n  - url: /a\n  - {url: /b, method: 'G T'}\n", `f.yaml:4: step 2: method "G T" is not an HTTP method token`},
		{"base: http://h\nsteps:\n  - {name: login, url: /a, method: 'G T'}\n", `f.yaml:3: step login: method "G T" is not an HTTP method token`},
		{"base: http://h\nsteps:\n  - url: /a\n  - {name: x}\n", "f.yaml:4: step x has no url"},
		{"base: http://h\nsteps:\n  - {body: 'a'}\n", "f.yaml:3: step 1 has no url"},
	} {
		_, err := Parse("f.yaml", []byte(c.src), Options{})
		if err == nil || err.Error() != c.want {
			t.Errorf("%q: got %v, want %s", c.src, err, c.want)
		}
	}
}

// A flow file that is not there says which are, or where kurabe's own
// flows are, rather than only "no such file".
func TestParseFileMissing(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "login.yaml"), []byte("steps: []\n"), 0o644)
	for _, c := range []struct{ path, want string }{
		{filepath.Join(dir, "nosuch.yaml"), "no such file; the flow files in " + dir + "/ are login.yaml"},
		{filepath.Join(dir, "empty", "nosuch.yaml"), "kurabe's own flows are in the flows folder"},
	} {
		_, err := ParseFile(c.path, Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.path, err, c.want)
		}
	}
}
