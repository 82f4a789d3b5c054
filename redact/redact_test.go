package redact

import (
	"strings"
	"testing"
)

func TestWords(t *testing.T) {
	for _, c := range []struct {
		in      string
		secrets []string
		visible []string
		want    string
	}{
		// Percent-encoded forms are hidden too.
		{"a=s3cr%2Ft b=s3cr/t", []string{"s3cr/t"}, nil, "a=xxxxx b=xxxxx"},
		// Only where the secret stands as a word.
		{"c=ab cab abc ab", []string{"ab"}, nil, "c=xxxxx cab abc xxxxx"},
		{"password: pw1.", []string{"pw1"}, nil, "password: xxxxx."},
		{"user 1 and 10", []string{"1"}, nil, "user xxxxx and 10"},
		{"鍵=秘 秘密", []string{"秘"}, nil, "鍵=xxxxx 秘密"},
		{"a%2Fb a/b", []string{"a/b"}, nil, "xxxxx xxxxx"},
		{"nothing here", []string{"", "xxxxx"}, nil, "nothing here"},
		// A short password inside the words of a message: no garbling.
		{"cannot connect: permission denied on", []string{"on"}, nil, "cannot connect: permission denied xxxxx"},
		// Long secrets too: a word of the message is not cut apart.
		{"secret123 xsecret123 secret1234 'secret123'", []string{"secret123"}, nil, "xxxxx xsecret123 secret1234 'xxxxx'"},
		// An underscore joins words (kurabe_posts).
		{"table posts_1 posts", []string{"posts"}, nil, "table posts_1 xxxxx"},
		// A secret whose edge is not a letter stops at that edge.
		{"x!ab! !ab!y", []string{"!ab!"}, nil, "xxxxxx xxxxxy"},
		// kurabe's words and the address's visible parts stay.
		{"postgres: cannot connect to postgres://u:xxxxx@h/db", []string{"postgres"}, nil, "postgres: cannot connect to postgres://u:xxxxx@h/db"},
		{"kurabe_meta of kurabe", []string{"kurabe"}, nil, "kurabe_meta of kurabe"},
		{`password authentication failed for user "bob"`, []string{"bob"}, []string{"bob", "127.0.0.1", "app"}, `password authentication failed for user "bob"`},
		{`database "app" does not exist, app`, []string{"app"}, []string{"bob", "127.0.0.1", "app"}, `database "app" does not exist, app`},
	} {
		if got := Words(c.in, c.secrets, c.visible...); got != c.want {
			t.Errorf("Words(%q, %q, %q) = %q, want %q", c.in, c.secrets, c.visible, got, c.want)
		}
	}
}

func TestKept(t *testing.T) {
	for _, w := range []string{"postgres", "mysql", "mariadb", "sqlite", "file", "http", "kurabe"} {
		if !Kept(w) {
			t.Errorf("%s is not kept", w)
		}
	}
	if Kept("Postgres1") || Kept("on") || !Kept("bob", "bob") {
		t.Error("Kept keeps the wrong words")
	}
	if strings.Contains(Words("on", []string{"on"}), "on") {
		t.Error("a short secret alone is kept")
	}
}
