package flow

import (
	"encoding/json"
	"testing"
)

func TestPathLookup(t *testing.T) {
	doc := []byte(` { "token": "abc", "n": -1.5e3, "ok" : true, "nil": null,
	  "data": {"items": [ {"id": 7, "tags": ["a", "b"]}, {"id": "x\"y\u00e9"} ], "empty": []},
	  "a.b": {"c": 1}, "esc\u0061ped": 2, "s": "{not an object}" }`)
	for _, c := range []struct {
		path, want string
		isString   bool
		ok         bool
	}{
		{"$.token", "abc", true, true},                 // $. prefix
		{"token", "abc", true, true},                   // bare key
		{"$.n", "-1.5e3", false, true},                 // numbers as written
		{"ok", "true", false, true},                    // literals
		{"nil", "null", false, true},                   // null is a value
		{"data.items[0].id", "7", false, true},         // nested
		{"data.items[0].tags[1]", "b", true, true},     // array in array
		{"data.items[1].id", `x\"y\u00e9`, true, true}, // still escaped
		{"data.items[2]", "", false, false},            // past the end
		{"data.empty[0]", "", false, false},            // empty array
		{`$["a.b"].c`, "1", false, true},               // quoted key with a dot
		{"escaped", "2", false, true},                  // escaped key
		{"data.items", `[ {"id": 7, "tags": ["a", "b"]}, {"id": "x\"y\u00e9"} ]`, false, true},
		{"s.x", "", false, false},           // a string is not an object
		{"token[0]", "", false, false},      // nor an array
		{"missing", "", false, false},       // absent key
		{"$", string(doc[1:]), false, true}, // the whole document
	} {
		p, err := ParsePath(c.path)
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		v, isStr, ok := p.Lookup(doc)
		if ok != c.ok || (ok && (string(v) != c.want || isStr != c.isString)) {
			t.Errorf("%s: got %q string=%v ok=%v, want %q %v %v", c.path, v, isStr, ok, c.want, c.isString, c.ok)
		}
	}
}

func TestParsePathErrors(t *testing.T) {
	for _, p := range []string{"a..b", "a[", "a[x]", "a[1", `a["b]`, "a]", "[99999999999999999999]"} {
		if _, err := ParsePath(p); err == nil {
			t.Errorf("%q parsed", p)
		}
	}
}

func TestUnescapeMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{`plain`, `a\"b\\c\/d\n\t\r\b\f`, `\u00e9\u4e2d`, `\ud83d\ude00 smile`, `\ud800 lone`} {
		var want string
		if err := json.Unmarshal([]byte(`"`+s+`"`), &want); err != nil {
			t.Fatal(err)
		}
		got, err := AppendUnescaped(nil, []byte(s))
		if err != nil || string(got) != want {
			t.Errorf("%s: got %q (%v), want %q", s, got, err, want)
		}
	}
}

func BenchmarkLookup(b *testing.B) {
	doc := []byte(`{"status":"ok","data":{"total":120000,"items":[{"id":1,"name":"a"},{"id":2,"name":"b"}]},"token":"0123456789abcdef"}`)
	p, _ := ParsePath("$.token")
	b.ReportAllocs()
	var dst []byte
	for b.Loop() {
		v, _, _ := p.Lookup(doc)
		dst, _ = AppendUnescaped(dst[:0], v)
	}
}

// FuzzJSONPath checks that lookups never panic and agree with
// encoding/json on the documents it accepts.
func FuzzJSONPath(f *testing.F) {
	f.Add(`{"a":{"b":[1,{"c":"d"}]}}`, "a.b[1].c")
	f.Add(`[1,2,"x\u0041"]`, "$[2]")
	f.Add(`{"a":"\"}"}`, "a")
	f.Fuzz(func(t *testing.T, doc, path string) {
		p, err := ParsePath(path)
		if err != nil {
			return
		}
		v, isStr, ok := p.Lookup([]byte(doc))
		if !ok || !json.Valid([]byte(doc)) {
			return
		}
		if isStr {
			got, err := AppendUnescaped(nil, v)
			var want string
			if err == nil && json.Unmarshal([]byte(`"`+string(v)+`"`), &want) == nil && string(got) != want {
				t.Fatalf("unescaped %q, encoding/json %q", got, want)
			}
		} else if !json.Valid(v) {
			t.Fatalf("%s in %s: %q is not a JSON value", path, doc, v)
		}
	})
}
