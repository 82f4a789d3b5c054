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
		// Beside a secret's ASCII edge only ASCII letters, digits and
		// underscores join: Japanese text, which puts no space between
		// words, bounds it (kana and kanji are letters to unicode).
		{"トークンabc123xyzが無効です", []string{"abc123xyz"}, nil, "トークンxxxxxが無効です"},
		{"パスワードonが違います", []string{"on"}, nil, "パスワードxxxxxが違います"},
		{"「pw1」éabc123xyz", []string{"pw1", "abc123xyz"}, nil, "「xxxxx」éxxxxx"},
		// An underscore joins: Words keeps the whole-word rule there
		// (Secrets, for HTTP credentials, does not: TestSecrets).
		{"Bearer_abc123xyz", []string{"abc123xyz"}, nil, "Bearer_abc123xyz"},
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

func TestSecrets(t *testing.T) {
	for _, c := range []struct {
		in      string
		secrets []string
		want    string
	}{
		// A secret of 4 characters or more is hidden wherever it occurs,
		// inside other words too.
		{"Bearer_abc123xyz トークンabc123xyzが無効です xabc123xyzy", []string{"abc123xyz"}, "Bearer_xxxxx トークンxxxxxが無効です xxxxxxy"},
		{"key=tok1n tok1nA", []string{"tok1n"}, "key=xxxxx xxxxxA"},
		{"a=s3cr%2Ft b=s3cr/tX", []string{"s3cr/t"}, "a=xxxxx b=xxxxxX"},
		{"パスワードはひみつ1です", []string{"ひみつ1"}, "パスワードはxxxxxです"},
		// Shorter ones only where they stand as words: no garbling.
		{"cannot connect: denied on", []string{"on"}, "cannot connect: denied xxxxx"},
		{"cab abc ab パスabが", []string{"abc"}, "cab xxxxx ab パスabが"},
		// kurabe's own words stay, and a secret inside one of them is
		// hidden only as a word of its own.
		{"kurabe_meta of kurabe", []string{"kurabe"}, "kurabe_meta of kurabe"},
		{"kurabe_meta kura POSTGRES post", []string{"kura", "post"}, "kurabe_meta xxxxx POSTGRES xxxxx"},
		{"xxxxx xxxx", []string{"xxxx"}, "xxxxx xxxxx"},
		{"nothing here", []string{""}, "nothing here"},
	} {
		if got := Secrets(c.in, c.secrets); got != c.want {
			t.Errorf("Secrets(%q, %q) = %q, want %q", c.in, c.secrets, got, c.want)
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
