package cli

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kurabe/store"
	"kurabe/store/mysql"
	"kurabe/store/postgres"
	"kurabe/store/storetest"
)

// nastyPasswords are passwords made of the characters an address treats
// as its own (@ : / # ? %), and of spaces, quotes and Japanese. Each is
// distinctive, so that no three characters of one occur in kurabe's own
// text by chance.
var nastyPasswords = []string{
	"Qv@Wx9",     // an @, as a DBA wrote p@ss1
	"Zq@1:/#?%x", // all of them
	"a@b@c@Dq7",  // several @
	"Jk:Lm7:Np",  // colons
	"Rt/Yu3/Io",  // slashes
	"Gh#Bn4",     // a #
	"Pl?Ok5=Ij",  // a ? and an =, as if options began
	"Zx%Cv6",     // a % that is no escape
	"Wq Zj8 Vk",  // spaces
	`Ty'Ui"9`,    // quotes
	"秘密の合言葉",     // Japanese
}

// leak returns the first piece of pw, three characters or more, that text
// shows, or "".
func leak(text, pw string) string {
	runes := []rune(pw)
	for n := 3; n <= len(runes); n++ {
		for i := 0; i+n <= len(runes); i++ {
			if p := string(runes[i : i+n]); strings.Contains(text, p) {
				return p
			}
		}
	}
	return ""
}

// TestNastyPasswordsNeverShown runs kurabe against a real PostgreSQL and
// MariaDB and a real HTTP server with each nasty password, given as typed
// (unencoded) and %-encoded, and finds no three characters of it in
// stdout, stderr, the JSON or the HTML. Several unencoded @ are refused
// before any connection, saying to write %40.
func TestNastyPasswordsNeverShown(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL and MariaDB")
	}
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "kurabe-pw-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	for _, sub := range []string{"pg", "my"} {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The managed PostgreSQL trusts every connection, so an encoded
	// password is taken and the run goes through: its store line, JSON
	// and HTML are checked too.
	sp, _ := store.ParseSpec("postgres:managed")
	pg, err := postgres.Open(ctx, sp, store.Env{Dir: filepath.Join(dir, "pg")})
	storetest.RequireServer(t, err)
	defer pg.Close()
	if err := pg.Setup(ctx, nil); err != nil {
		storetest.RequireServer(t, err)
	}
	pgAddr := strings.TrimPrefix(pg.Info(ctx).Target, "managed ")
	// MariaDB asks for the password, and refuses it: the error's way.
	sp, _ = store.ParseSpec("mariadb:managed")
	my, err := mysql.Open(ctx, sp, store.Env{Dir: filepath.Join(dir, "my")})
	storetest.RequireServer(t, err)
	defer my.Close()
	if err := my.Setup(ctx, nil); err != nil {
		storetest.RequireServer(t, err)
	}
	myAddr := strings.TrimPrefix(my.Info(ctx).Target, "managed ")
	// An HTTP server that answers everything with what it was sent,
	// the credentials included.
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, p, _ := r.BasicAuth()
		http.Error(w, "no BBS here; you sent "+u+":"+p+" "+r.Header.Get("Authorization"), http.StatusTeapot)
	}))
	defer web.Close()
	webAddr := strings.TrimPrefix(web.URL, "http://")

	ran := 0
	for _, pw := range nastyPasswords {
		encoded := url.UserPassword("kurabe", pw).String() // kurabe:%-encoded
		for _, userinfo := range []string{"kurabe:" + pw, encoded} {
			for _, spec := range []string{
				"postgres://" + userinfo + "@" + pgAddr + "/postgres",
				"mariadb://" + userinfo + "@" + myAddr + "/kt",
				"mysql://" + userinfo + "@" + myAddr + "/kt",
				"http://" + userinfo + "@" + webAddr,
			} {
				out := t.TempDir()
				js, html := filepath.Join(out, "r.json"), filepath.Join(out, "r.html")
				var stdout, stderr bytes.Buffer
				code := Main(ctx, []string{"run", "--store", spec, "--json", js, "--html", html, "-n", "20", "-c", "1", "--ops", "write"}, &stdout, &stderr)
				text := stdout.String() + stderr.String()
				for _, f := range []string{js, html} {
					if b, err := os.ReadFile(f); err == nil {
						text += string(b)
					}
				}
				shown := strings.ReplaceAll(spec, pw, "PASSWORD")
				if p := leak(text, pw); p != "" {
					t.Errorf("%s: exit %d, shows %q of the password:\n%s", shown, code, p, text)
				}
				if encoded != "kurabe:"+pw && strings.Contains(text, strings.TrimPrefix(encoded, "kurabe:")) {
					t.Errorf("%s: shows the encoded password", shown)
				}
				if userinfo == encoded && strings.HasPrefix(spec, "postgres:") {
					ran++
					if code != ExitOK {
						t.Errorf("%s: exit %d, want a run that goes through:\n%s", shown, code, text)
					}
				}
				if userinfo != encoded && strings.Count(pw, "@") > 0 {
					// Refused before anything connects or looks up a name.
					want := strings.SplitN(spec, "://", 2)[0] + "://xxxxx@"
					if code != ExitUsage || !strings.Contains(stderr.String(), "%40") || !strings.Contains(stderr.String(), want) || stdout.Len() > 0 {
						t.Errorf("%s: exit %d, want %d and a message saying to write %%40, showing %s…:\n%s", shown, code, ExitUsage, want, text)
					}
				}
			}
		}
	}
	if ran == 0 {
		t.Fatal("no run went through")
	}
}
