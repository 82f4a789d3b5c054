// Package redact hides secrets (passwords, tokens) in free text: the
// messages of errors kurabe prints and records, which may quote a server's
// own message, and a server may echo what it was sent.
//
// It is the one place where a secret's text is searched for in a message;
// the structural forms (a URL's user:password@, an option named password=)
// are masked by their own parsers (store.HideSecrets, httpload.RedactURL)
// before any search is needed. A search is a trade-off. Words replaces a
// secret only where it stands as a word of its own, since replacing it
// inside other words garbles the message ("cannot cxxxxxnect" for a
// password "on") while a server that echoes a password echoes it as a
// word. Where the secret begins (ends) with an ASCII letter, digit or
// underscore, the character before (after) it must not be one of those:
// any other character, Japanese text included, bounds a word
// ("トークンabc123xyzが無効です" hides abc123xyz); a secret's non-ASCII edge
// is bounded by anything but a letter, digit or underscore of any script.
// Secrets, for credentials sent over HTTP (tokens, cookies, basic
// authentication), hides a secret of MinAnywhere characters or more
// wherever it occurs, inside other words too ("Bearer_abc123xyz"): such a
// value is unlikely to be part of an ordinary word, and a token glued to
// other text must not leak; shorter ones, and one found inside one of
// kurabe's own words (below), still go by the whole-word rule. A secret that
// is also a word the message needs, one of kurabe's own (a driver's name:
// "postgres", "mysql") or another visible part of the same address (its
// user, host or database), is not searched for at all: "postgres://" must
// stay, and a message cannot tell the user "bob" from the password "bob".
package redact

import (
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Mask replaces a secret, as url.URL.Redacted writes a password.
const Mask = "xxxxx"

// vocabulary is kurabe's own words that messages are made of, which a
// secret equal to one of them must not blot out: the drivers' names and
// schemes, and kurabe's name (its tables are kurabe_*).
var vocabulary = []string{
	"kurabe", "postgres", "postgresql", "pg", "mysql", "mariadb", "sqlite", "file", "http", "https",
	"managed", "tcp", "unix", "localhost", Mask,
}

// Words returns s with each whole-word occurrence of each of secrets, and
// of its percent-encoded forms, replaced by Mask. A secret equal to one of
// kurabe's own words, or to one of visible (the user, host and database of
// the address it belongs to), is left where it stands: the message needs
// those words, and they are shown elsewhere anyway.
func Words(s string, secrets []string, visible ...string) string {
	return hide(s, secrets, false, visible)
}

// MinAnywhere is the length, in characters, from which Secrets hides a
// secret wherever it occurs.
const MinAnywhere = 4

// Secrets returns s with each of secrets, and its percent-encoded forms,
// replaced by Mask: a secret of MinAnywhere characters or more wherever
// it occurs, inside other words too; a shorter one, or one found inside
// one of kurabe's own words ("kura" in "kurabe"), where it stands as a
// word (as Words does). A secret equal to one of kurabe's own words is
// left where it stands.
func Secrets(s string, secrets []string) string {
	return hide(s, secrets, true, nil)
}

func hide(s string, secrets []string, anywhere bool, visible []string) string {
	for _, v := range secrets {
		if v == "" || Kept(v, visible...) {
			continue
		}
		everywhere := anywhere && utf8.RuneCountInString(v) >= MinAnywhere && !inVocabulary(v)
		forms := []string{v}
		if e := url.QueryEscape(v); e != v {
			forms = append(forms, e)
		}
		if e := url.PathEscape(v); e != v && !slices.Contains(forms, e) {
			forms = append(forms, e)
		}
		for _, f := range forms {
			if everywhere {
				s = strings.ReplaceAll(s, f, Mask)
			} else {
				s = replaceWord(s, f)
			}
		}
	}
	return s
}

// inVocabulary reports whether v occurs inside one of kurabe's own words,
// whatever its case.
func inVocabulary(v string) bool {
	v = strings.ToLower(v)
	for _, w := range vocabulary {
		if strings.Contains(w, v) {
			return true
		}
	}
	return false
}

// Kept reports whether Words leaves the secret v in place: it is one of
// kurabe's own words or one of visible.
func Kept(v string, visible ...string) bool {
	return v == "" || slices.Contains(vocabulary, v) || slices.Contains(visible, v)
}

// replaceWord replaces by Mask each occurrence of w in s that is not part
// of a longer word: where w begins (ends) with a letter, digit or
// underscore, the character before (after) it must not be one (joined).
// Beside an ASCII edge only ASCII ones join: unicode.IsLetter takes kana
// and kanji for letters, and Japanese text, which puts no space between
// words, would hide nothing quoted in it.
func replaceWord(s, w string) string {
	first, _ := utf8.DecodeRuneInString(w)
	last, _ := utf8.DecodeLastRuneInString(w)
	var b strings.Builder
	done := 0 // s[:done] is in b
	for from := 0; ; {
		i := strings.Index(s[from:], w)
		if i < 0 {
			break
		}
		i += from
		before, _ := utf8.DecodeLastRuneInString(s[:i])
		after, _ := utf8.DecodeRuneInString(s[i+len(w):])
		if joined(first, before) || joined(last, after) {
			from = i + 1
			continue
		}
		b.WriteString(s[done:i])
		b.WriteString(Mask)
		done = i + len(w)
		from = done
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// joined reports whether the secret's edge character edge and the
// character beside it make one word.
func joined(edge, beside rune) bool {
	if edge < utf8.RuneSelf {
		return asciiWord(edge) && asciiWord(beside)
	}
	return wordRune(edge) && wordRune(beside)
}

func asciiWord(r rune) bool {
	return r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
}

func wordRune(r rune) bool {
	return r != utf8.RuneError && (r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r))
}
