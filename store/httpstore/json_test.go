package httpstore

import (
	"encoding/json"
	"math/rand/v2"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

type post struct {
	ID       int64  `json:"id"`
	Category string `json:"category"`
	Text     string `json:"text"`
	Created  int64  `json:"created"`
}

func decodeAll(t testing.TB, body string) ([]post, error) {
	var d decoder
	n, err := d.posts([]byte(body))
	if err != nil {
		return nil, err
	}
	out := make([]post, n)
	for i := range out {
		v := d.vals[i*4 : i*4+4]
		out[i] = post{v[0].Int, string(v[1].Text), string(v[2].Text), v[3].Int}
	}
	return out, nil
}

func TestDecodePosts(t *testing.T) {
	cases := []struct {
		name, body string
		want       []post
	}{
		{"empty", `[]`, []post{}},
		{"empty with space", " \n[ ]\r\n", []post{}},
		{"kurabe serve", `[{"id":1,"category":"test","text":"hogehoge","created":1712345678901234}]`, []post{{1, "test", "hogehoge", 1712345678901234}}},
		// PHP's PDO gives numbers as strings; other fields come in any order.
		{"strings and order", `[{"text":"b","created":"-5","id":"42","category":"a"}]`, []post{{42, "a", "b", -5}}},
		{"nulls and missing", `[{"id":null,"text":null},{}]`, []post{{}, {}}},
		{"extra fields of every kind", `[{"x":{"a":[1,2.5e10,{"b":null}],"c":"}"},"id":3,"y":[],"z":true,"w":false,"v":-1.5E-3,"text":"t"}]`, []post{{ID: 3, Text: "t"}}},
		{"escapes", `[{"text":"a\"b\\c\/d\b\f\n\r\t\u00e9\u65e5\ud83d\ude00"}]`, []post{{Text: "a\"b\\c/d\b\f\n\r\té日😀"}}},
		{"lone surrogates", `[{"text":"x\ud800y\udc00z\ud83dq"}]`, []post{{Text: "x\uFFFDy\uFFFDz\uFFFDq"}}},
		{"escaped key", `[{"te\u0078t":"k"}]`, []post{{Text: "k"}}},
		{"float time", `[{"created":1.712345678901234e15}]`, []post{{Created: 1712345678901234}}},
		{"pretty", "[\n    {\n        \"id\": 7,\n        \"text\": \"p\"\n    },\n    {\"id\":8}\n]", []post{{ID: 7, Text: "p"}, {ID: 8}}},
		{"raw UTF-8 and invalid bytes kept", "[{\"text\":\"日本\xff\"}]", []post{{Text: "日本\xff"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := decodeAll(t, c.body)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(c.want) {
				t.Fatalf("%d posts, want %d", len(got), len(c.want))
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Errorf("post %d = %+v, want %+v", i, got[i], c.want[i])
				}
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	cases := []struct{ name, body, want string }{
		{"object", `{"posts":[]}`, "want an array"},
		{"html", `<html>`, "want an array"},
		{"nothing", ``, "want an array"},
		{"array of numbers", `[1]`, "want a post object"},
		{"trailing data", `[] x`, "trailing data"},
		{"unterminated array", `[{"id":1}`, "want ',' or ']'"},
		{"trailing comma", `[{"id":1},]`, "want a post object"},
		{"trailing comma in object", `[{"id":1,}]`, "want a field name"},
		{"unterminated string", `[{"text":"abc`, "unterminated"},
		{"bad escape", `[{"text":"\q"}]`, "bad escape"},
		{"bad unicode escape", `[{"text":"\u12x4"}]`, `bad \u escape`},
		{"text a number", `[{"text":5}]`, "want a string"},
		{"id a word", `[{"id":"five"}]`, "number in the string"},
		{"id true", `[{"id":true}]`, "want a number"},
		{"id too large", `[{"id":99999999999999999999999}]`, "want an integer"},
		{"missing colon", `[{"id" 1}]`, "want ':'"},
		{"too deep", `[{"x":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}]`, "nested too deeply"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := decodeAll(t, c.body)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err %v, want %q", err, c.want)
			}
		})
	}
}

func TestCount(t *testing.T) {
	good := map[string]int64{
		`{"count":3}`: 3, ` { "status" : "ok" , "count" : "12" } `: 12, `{"x":[{"count":1}],"count":0}`: 0, `7`: 7, `"8"`: 8,
	}
	for body, want := range good {
		if n, err := count([]byte(body)); err != nil || n != want {
			t.Errorf("%s: %d %v, want %d", body, n, err, want)
		}
	}
	for _, body := range []string{`{}`, `{"total":3}`, `[3]`, `{"count":3,}`, `{"count":3} 4`, ``, `{"count":x}`} {
		if n, err := count([]byte(body)); err == nil {
			t.Errorf("%s: %d, want an error", body, n)
		}
	}
}

// randomText draws strings of any bytes, valid UTF-8 or not.
func randomText(r *rand.Rand) string {
	var b []byte
	for range r.IntN(40) {
		switch r.IntN(6) {
		case 0:
			b = append(b, byte(r.IntN(32))) // control characters
		case 1:
			b = append(b, byte(r.IntN(256))) // anything, invalid UTF-8 too
		case 2:
			b = utf8.AppendRune(b, rune(r.IntN(0x10FFFF)))
		case 3:
			b = append(b, `"\/<>&`[r.IntN(6)])
		default:
			b = append(b, byte('a'+r.IntN(26)))
		}
	}
	return string(b)
}

// The decoder reads whatever encoding/json writes as encoding/json reads
// it back.
func TestDecodeMatchesEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		in := make([]post, r.IntN(5))
		for i := range in {
			in[i] = post{r.Int64() - r.Int64(), randomText(r), randomText(r), r.Int64N(1 << 53)}
		}
		b, _ := json.Marshal(in)
		var want []post
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		got, err := decodeAll(t, string(b))
		if err != nil {
			t.Fatalf("%v on %s", err, b)
		}
		if len(got) != len(want) {
			t.Fatalf("%d posts, want %d", len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("post %d = %+v, want %+v (from %s)", i, got[i], want[i], b)
			}
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(`[{"id":1,"category":"test","text":"hogehoge","created":1712345678901234}]`)
	f.Add(`[{"text":"a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00","id":"4","x":{"y":[1,null,true]}}]`)
	f.Add(`{"count":"3"}`)
	f.Fuzz(func(t *testing.T, body string) {
		var d decoder
		n, err := d.posts([]byte(body))
		if err == nil && len(d.vals) != 4*n {
			t.Fatalf("%d posts but %d values", n, len(d.vals))
		}
		count([]byte(body))
		if err != nil {
			return
		}
		// What it read, written again by encoding/json, reads the same.
		first := make([]post, n)
		for i := range first {
			v := d.vals[i*4 : i*4+4]
			first[i] = post{v[0].Int, strings.ToValidUTF8(string(v[1].Text), "\uFFFD"), strings.ToValidUTF8(string(v[2].Text), "\uFFFD"), v[3].Int}
		}
		again, _ := json.Marshal(first)
		second, err := decodeAll(t, string(again))
		if err != nil || len(second) != n {
			t.Fatalf("%v reading back %s", err, again)
		}
		for i := range second {
			if second[i] != first[i] {
				t.Fatalf("post %d read back as %+v, was %+v", i, second[i], first[i])
			}
		}
	})
}

func TestAppendQueryMatchesQueryEscape(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 500 {
		s := randomText(r)
		if got, want := string(appendQuery(nil, []byte(s))), url.QueryEscape(s); got != want {
			t.Fatalf("appendQuery(%q) = %q, want %q", s, got, want)
		}
	}
}

func hundredPosts() []byte {
	var ps []post
	for i := range 100 {
		ps = append(ps, post{int64(i + 1), "test", "hogehoge " + strconv.Itoa(i) + " \"quoted\" 日本語", 1712345678901234 + int64(i)})
	}
	b, _ := json.Marshal(ps)
	return b
}

// BenchmarkDecode parses 100 posts in place, as Scan does.
func BenchmarkDecode(b *testing.B) {
	body := hundredPosts()
	buf := make([]byte, len(body))
	var d decoder
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		copy(buf, body)
		if n, err := d.posts(buf); err != nil || n != 100 {
			b.Fatal(n, err)
		}
	}
}

// BenchmarkDecodeEncodingJSON is the alternative BenchmarkDecode was
// measured against: encoding/json into a slice of structs.
func BenchmarkDecodeEncodingJSON(b *testing.B) {
	body := hundredPosts()
	var ps []post
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		ps = ps[:0]
		if err := json.Unmarshal(body, &ps); err != nil || len(ps) != 100 {
			b.Fatal(err)
		}
	}
}
