package store

import (
	"strings"
	"testing"
)

func TestParseSpec(t *testing.T) {
	cases := []struct {
		in             string
		driver, target string
		opts           string
		err            string
	}{
		{in: "sqlite:", driver: "sqlite"},                                         // temporary database
		{in: "file:/tmp/k/posts.txt", driver: "file", target: "/tmp/k/posts.txt"}, // plain path
		{in: "sqlite:/tmp/k/bbs.db?journal_mode=wal&synchronous=normal", driver: "sqlite", target: "/tmp/k/bbs.db", opts: "journal_mode=wal&synchronous=normal"},
		{in: "SQLite:?page_size=8192", driver: "sqlite", opts: "page_size=8192"},                                                 // driver case folded
		{in: "postgres://u:pw@db:5432/app?connect=pool", driver: "postgres", target: "//u:pw@db:5432/app", opts: "connect=pool"}, // URL kept whole
		{in: "sqlite", err: "DRIVER:"},                                // no colon
		{in: ":x", err: "DRIVER:"},                                    // no driver
		{in: "sqlite:?a=1&a=2", err: "given 2 times"},                 // repeated option
		{in: "sqlite:?page_size=%zz", err: "cannot read the options"}, // bad escape
	}
	for _, c := range cases {
		sp, err := ParseSpec(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: err = %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if sp.Driver != c.driver || sp.Target != c.target || sp.Options.Encode() != c.opts {
			t.Errorf("%q = %q %q %q", c.in, sp.Driver, sp.Target, sp.Options.Encode())
		}
	}
}

func TestSpecStringHidesPassword(t *testing.T) {
	sp, err := ParseSpec("postgres://kurabe:s3cret@127.0.0.1:5432/app?connect=pool")
	if err != nil {
		t.Fatal(err)
	}
	if s := sp.String(); strings.Contains(s, "s3cret") || !strings.Contains(s, "kurabe:xxxxx@127.0.0.1:5432/app") {
		t.Fatalf("String() = %q", s)
	}
	// A password given as an option, a likely mistake, is hidden too.
	for _, raw := range []string{"postgres://bob@127.0.0.1:1/db?password=pgSECRET", "sqlite:/tmp/x.db?PASSWORD=pgSECRET&journal_mode=wal", "mysql://u@h:1?pwd=pgSECRET"} {
		sp, _ := ParseSpec(raw)
		if s := sp.String(); strings.Contains(s, "pgSECRET") || !strings.Contains(s, "xxxxx") {
			t.Errorf("String() = %q", s)
		}
	}
	// A server setting whose name only mentions a password is not one.
	sp, _ = ParseSpec("postgres:managed?password_encryption=md5")
	if s := sp.String(); !strings.Contains(s, "password_encryption=md5") {
		t.Errorf("String() = %q", s)
	}
}

func TestOptionsReportsUnknown(t *testing.T) {
	sp, _ := ParseSpec("x:?good=1&typo=2")
	o := NewOptions(sp)
	if o.Get("good", "") != "1" || o.Get("other", "d") != "d" {
		t.Fatal("Get")
	}
	err := o.Check()
	if err == nil || !strings.Contains(err.Error(), `"typo"`) || !strings.Contains(err.Error(), "good, other") {
		t.Fatalf("Check = %v", err)
	}
}

func TestClassify(t *testing.T) {
	cases := []struct {
		err  error
		want string
	}{
		{&ClassError{Class: "busy", Err: ErrNotOwned}, "busy"},
		{ErrNotOwned, "error"},
	}
	for _, c := range cases {
		if got := Classify(c.err); got != c.want {
			t.Errorf("Classify(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}

func TestHideSecrets(t *testing.T) {
	cases := []struct{ in, want string }{
		{`unexpected argument "postgres://app:Zq9@127.0.0.1:5/db"`, `unexpected argument "postgres://app:xxxxx@127.0.0.1:5/db"`},
		{"open mysql://u:p%40ss@h/x?password=abc&engine=InnoDB&pwd=z: no such file", "open mysql://u:xxxxx@h/x?password=xxxxx&engine=InnoDB&pwd=xxxxx: no such file"},
		{"mariadb:managed?innodb_page_size=8k&password_encryption=md5", "mariadb:managed?innodb_page_size=8k&password_encryption=md5"},
		{"sqlite:?ssl_password=q", "sqlite:?ssl_password=xxxxx"},
		{"postgres://user@h/db and http://a/b", "postgres://user@h/db and http://a/b"},
		{"-n 0: want 1 or more", "-n 0: want 1 or more"},
	}
	for _, c := range cases {
		if got := HideSecrets(c.in); got != c.want {
			t.Errorf("HideSecrets(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestNearOption(t *testing.T) {
	opts := []string{"connect", "engine", "row_format", "pool_size", "database"}
	for name, want := range map[string]string{
		"conect": "connect", "engin": "engine", "rowformat": "row_format", "databse": "database",
		"connect": "", "shared_buffers": "", "innodb_page_size": "", "port": "", "fsync": "",
	} {
		if got := NearOption(name, opts); got != want {
			t.Errorf("NearOption(%q) = %q, want %q", name, got, want)
		}
	}
}

// A password that makes its URL parse as something else, or a target that
// is not a URL at all, is hidden all the same; so is a ? in a password,
// which is not taken for the start of the options.
func TestRedactTargetShapes(t *testing.T) {
	for target, want := range map[string]string{
		"//u:12/34@127.0.0.1:1/db":      "//u:xxxxx@127.0.0.1:1/db", // parses: host u, port 12
		"//u:p@ss@127.0.0.1:5432/db":    "//u:xxxxx@127.0.0.1:5432/db",
		"//u@127.0.0.1/db":              "//u@127.0.0.1/db",
		"//127.0.0.1:5432/db":           "//127.0.0.1:5432/db",
		"u:pw12@tcp(127.0.0.1:1)/db":    "u:xxxxx@tcp(127.0.0.1:1)/db", // a Go driver's DSN
		"host=h password=pw12 dbname=d": "host=h password=xxxxx dbname=d",
		"/tmp/kurabe/board.db":          "/tmp/kurabe/board.db",
	} {
		if got := RedactTarget(target); got != want {
			t.Errorf("RedactTarget(%s) = %s, want %s", target, got, want)
		}
	}
	sp, err := ParseSpec("postgres://u:pa?ss@127.0.0.1:1/db?connect=pool")
	if err != nil || sp.Target != "//u:pa?ss@127.0.0.1:1/db" || sp.Options.Get("connect") != "pool" || len(sp.Options) != 1 {
		t.Errorf("ParseSpec with a ? in the password: %+v, %v", sp, err)
	}
	if s := sp.String(); strings.Contains(s, "pa?ss") || strings.Contains(s, "ss@") {
		t.Errorf("String() = %s shows the password", s)
	}
	sp, _ = ParseSpec("postgres://u:p@h/db?connect=pool")
	if sp.Target != "//u:p@h/db" || sp.Options.Get("connect") != "pool" {
		t.Errorf("ParseSpec of a plain URL: %+v", sp)
	}
}

// An address that does not parse is shown with its password hidden, and
// what is wrong with it is said without quoting the password.
func TestAddressProblem(t *testing.T) {
	for _, c := range []struct{ target, shown, problem string }{
		{"//app:pSECRET@127.0.0.1:notaport/app", "//app:xxxxx@127.0.0.1:notaport/app", `its port "notaport" is not a number`},
		{"//app:p/SECRET@127.0.0.1:5432/app", "//app:xxxxx@127.0.0.1:5432/app", "the part before the @ holds a /"},
		{"//app:p@SECRET@127.0.0.1:x/app", "//app:xxxxx@127.0.0.1:x/app", `its port "x"`},
		{"//app:SECRET", "//app:xxxxx", "is not a port"}, // no @: the host may have been left out, so what follows the colon is hidden, and the problem quotes nothing
		{"//127.0.0.1:5432/app", "//127.0.0.1:5432/app", ""},
	} {
		if got := RedactTarget(c.target); got != c.shown {
			t.Errorf("RedactTarget(%s) = %s, want %s", c.target, got, c.shown)
		}
		got := AddressProblem(c.target)
		if c.problem == "" && got != "" || !strings.Contains(got, c.problem) || strings.Contains(got, "SECRET") {
			t.Errorf("AddressProblem(%s) = %q, want one saying %q", c.target, got, c.problem)
		}
	}
}

func TestLowerSettings(t *testing.T) {
	own := []string{"connect", "pool_size"}
	for _, c := range []struct {
		spec, want, err string
	}{
		// A server setting in any case is one name, in lower case.
		{"postgres:managed?Shared_Buffers=32MB&Max_Connections=5", "postgres:managed?max_connections=5&shared_buffers=32MB", ""},
		// Lower case already: the spec as it was.
		{"postgres:managed?shared_buffers=32MB&connect=pool", "postgres:managed?connect=pool&shared_buffers=32MB", ""},
		// kurabe's own options keep their rules: Connect is not connect,
		// and stays for the driver to refuse.
		{"postgres:managed?Connect=pool&Work_Mem=8MB", "postgres:managed?Connect=pool&work_mem=8MB", ""},
		// MariaDB's dashes stay; only the case changes.
		{"mariadb:managed?Max-Connections=20", "mariadb:managed?max-connections=20", ""},
		// One setting under two spellings.
		{"postgres:managed?Shared_Buffers=32MB&shared_buffers=64MB", "", "server setting shared_buffers is given twice, as Shared_Buffers and as shared_buffers"},
		{"postgres:managed?SHARED_BUFFERS=32MB&Shared_Buffers=64MB", "", "server setting shared_buffers is given twice, as SHARED_BUFFERS and as Shared_Buffers"},
	} {
		sp, err := ParseSpec(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		got, err := LowerSettings(sp, own)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: err = %v, want %q", c.spec, err, c.err)
			}
			continue
		}
		if err != nil || got.String() != c.want {
			t.Errorf("%s: %s, %v; want %s", c.spec, got, err, c.want)
		}
		if sp.String() != (Spec{Driver: sp.Driver, Target: sp.Target, Options: sp.Options}).String() {
			t.Errorf("%s: the spec given was changed", c.spec)
		}
	}
}

// Several unencoded @ are refused whatever the driver, and the message
// shows the address with all of its user part hidden, the user included,
// since no parser can tell where such a password ends.
func TestParseSpecRefusesSeveralAt(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"postgres://app:p@ss1@127.0.0.1:55902/appdb", "postgres://xxxxx@127.0.0.1:55902/appdb"},
		{"mysql://app2:Zq@1:/#?%x@127.0.0.1:3306/appdb", "mysql://xxxxx@127.0.0.1:3306/appdb"},
		{"http://a@b@c@127.0.0.1:3001/bbs", "http://xxxxx@127.0.0.1:3001/bbs"},
		// An @ after the host (a database name's) is one too many as well.
		{"mariadb://app:pw9Kq@127.0.0.1/db@x", "mariadb://xxxxx@x"},
	} {
		_, err := ParseSpec(c.in)
		if err == nil || !strings.Contains(err.Error(), "%40") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want a refusal saying %%40, showing %s", c.in, err, c.want)
		}
		for _, secret := range []string{"ss1", "Zq@", "@1:", "#?%", "pw9Kq"} {
			if err != nil && strings.Contains(err.Error(), secret) {
				t.Errorf("%s: %v shows %q", c.in, err, secret)
			}
		}
	}
	// One @ in a URL, and any number in a path, are not refused.
	for _, in := range []string{"postgres://app:pw@127.0.0.1/db", "sqlite:/tmp/a@b/c@d.db", "http://127.0.0.1:3001/@bbs"} {
		if _, err := ParseSpec(in); err != nil {
			t.Errorf("%s: %v", in, err)
		}
	}
}

// Options that cannot be read may hold a password: the message does not
// quote them.
func TestParseSpecBadOptionsQuoteNoPassword(t *testing.T) {
	_, err := ParseSpec("postgres://app@127.0.0.1/db?password=Kq%zzWv")
	if err == nil || strings.Contains(err.Error(), "Kq") || strings.Contains(err.Error(), "zzWv") {
		t.Fatalf("err = %v", err)
	}
}
