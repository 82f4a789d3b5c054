package httpload

import (
	"errors"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

func newRand() *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }

func TestParseURLFile(t *testing.T) {
	read := func(name string) ([]byte, error) {
		if name == "post.json" {
			return []byte(`{"a":1}`), nil
		}
		return nil, &os.PathError{Op: "open", Path: name, Err: os.ErrNotExist}
	}
	env := func(name string) (string, bool) {
		if name == "PORT" {
			return "3001", true
		}
		return "", false
	}
	type want struct{ method, url, body, ctype string }
	for _, c := range []struct {
		name  string
		src   string
		ctype string
		want  []want
	}{
		// A bare URL is a GET.
		{"get", "http://127.0.0.1:3001/read_file\n", "", []want{{"GET", "http://127.0.0.1:3001/read_file", "", ""}}},
		// Without a scheme, http:// is assumed, as siege does.
		{"no scheme", "127.0.0.1:3001/x\n", "", []want{{"GET", "http://127.0.0.1:3001/x", "", ""}}},
		// Comments, blank lines, CRLF and surrounding space are skipped.
		{"comments", "# urls\n\n  http://h/a  \r\n#http://h/b\n", "", []want{{"GET", "http://h/a", "", ""}}},
		// POST with a body, form-encoded by default.
		{"post", "http://h/write POST category=test&text=hogehoge\n", "", []want{{"POST", "http://h/write", "category=test&text=hogehoge", "application/x-www-form-urlencoded"}}},
		// The body keeps its inner spaces.
		{"post spaces", "http://h/w POST a=1 b=2\n", "", []want{{"POST", "http://h/w", "a=1 b=2", "application/x-www-form-urlencoded"}}},
		// The body from a file, with -T's content type.
		{"post file", "http://h/w PUT <post.json\n", "application/json", []want{{"PUT", "http://h/w", `{"a":1}`, "application/json"}}},
		// A method without a body, lower case allowed.
		{"delete", "http://h/x delete\n", "", []want{{"DELETE", "http://h/x", "", ""}}},
		// Tabs separate as spaces do.
		{"tabs", "http://h/x\tPOST\ta=1\n", "", []want{{"POST", "http://h/x", "a=1", "application/x-www-form-urlencoded"}}},
		// Variables: $(NAME) and ${NAME}, defined before, quotes dropped,
		// one defined from another, and the environment as a fallback.
		{"variables", "HOST=127.0.0.1:$(PORT)\nP=\"/a\"\nhttp://$(HOST)${P}?q=$x POST v=$(P)\n", "", []want{{"POST", "http://127.0.0.1:3001/a?q=$x", "v=/a", "application/x-www-form-urlencoded"}}},
		// A URL with = in its query is not a variable.
		{"query", "http://h/?a=b\n", "", []want{{"GET", "http://h/?a=b", "", ""}}},
		{"https", "https://h:8443/\n", "", []want{{"GET", "https://h:8443/", "", ""}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseURLFile("urls.txt", []byte(c.src), URLFileOptions{ReadFile: read, Getenv: env, ContentType: c.ctype})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(c.want) {
				t.Fatalf("got %d targets, want %d", len(got), len(c.want))
			}
			for i, w := range c.want {
				g := got[i]
				if g.Method != w.method || g.URL != w.url || string(g.Body) != w.body || g.ContentType != w.ctype {
					t.Fatalf("got %s %s %q %q, want %+v", g.Method, g.URL, g.Body, g.ContentType, w)
				}
			}
		})
	}
}

func TestParseURLFileErrors(t *testing.T) {
	read := func(string) ([]byte, error) { return nil, &os.PathError{Op: "open", Path: "x", Err: os.ErrNotExist} }
	for _, c := range []struct {
		name, src string
		line      int
		want      string
	}{
		{"empty", "# nothing\n\n", 1, "no URLs"},
		{"undefined variable", "http://h/\nhttp://$(HOST)/x\n", 2, "$(HOST) is not defined"},
		{"unclosed variable", "http://$(HOST/x\n", 1, "without a closing )"},
		{"variable used before its definition", "http://$(H)/\nH=h\n", 1, "not defined"},
		{"bad method", "http://h/ GRAB x\n", 1, `"GRAB" after the URL is not a method`},
		{"scheme", "ftp://h/x\n", 1, "not ftp"},
		{"no host", "http:///x\n", 1, "no host"},
		{"bad url", "http://h/%zz\n", 1, "not a URL"},
		{"credentials", "http://u:p@h/\n", 1, "-A user:password"},
		{"no body file name", "http://h/ POST <\n", 1, "name the file"},
		{"missing body file", "http://h/\nhttp://h/ POST <nope.txt\n", 2, `cannot read the body file "nope.txt": file does not exist`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseURLFile("urls.txt", []byte(c.src), URLFileOptions{ReadFile: read})
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("got %v, want a ParseError", err)
			}
			if pe.Errs[0].Line != c.line || !strings.Contains(pe.Errs[0].Msg, c.want) || !strings.HasPrefix(err.Error(), "urls.txt:") {
				t.Fatalf("got %q at line %d, want line %d with %q", err, pe.Errs[0].Line, c.line, c.want)
			}
		})
	}
	// Every bad line is reported, not just the first.
	_, err := ParseURLFile("u", []byte("ftp://a\nhttp://ok/\nhttp://b/ GRAB\n"), URLFileOptions{})
	var pe *ParseError
	if !errors.As(err, &pe) || len(pe.Errs) != 2 || pe.Errs[1].Line != 3 || !strings.HasPrefix(strings.Split(err.Error(), "\n")[1], "u:3: \"GRAB\"") {
		t.Fatalf("got %v", err)
	}
}

func FuzzURLFile(f *testing.F) {
	f.Add("HOST=127.0.0.1:3001\nhttp://$(HOST)/read_file\n$(HOST)/write POST a=b&c=d\n# c\nhttp://${HOST}/x PUT <post.txt\n")
	f.Add("http://h/ GET\n\n\r\nhttps://[::1]:80/x?y=$(\n")
	f.Add("A=$(B)\nB=1\n")
	f.Fuzz(func(t *testing.T, src string) {
		read := func(string) ([]byte, error) { return []byte("body"), nil }
		targets, err := ParseURLFile("fuzz.txt", []byte(src), URLFileOptions{ReadFile: read})
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || len(pe.Errs) == 0 || pe.Errs[0].Line < 1 {
				t.Fatalf("error %v is not a ParseError with a line", err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line message %q", err)
			}
			return
		}
		// What parses must be a load the workload accepts.
		cfg := DefaultConfig()
		cfg.Targets = targets
		if _, err := New(cfg); err != nil {
			t.Fatalf("parsed %q but the workload refuses it: %v", src, err)
		}
	})
}
