package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ncruces/go-sqlite3"

	"kurabe/report"
	"kurabe/result"
	"kurabe/store"
	"kurabe/store/mysql"
	"kurabe/store/postgres"
	"kurabe/store/server"
	"kurabe/store/sqlite"
	"kurabe/store/storefault"
	"kurabe/store/storetest"
	"kurabe/stores"
	"kurabe/workload/bbs"
	"kurabe/workload/crud"
	"kurabe/workloads"
)

func testApp() *App {
	return &App{Stores: stores.Builtin, Workloads: workloads.Builtin, Terminal: func(io.Writer) bool { return false }}
}

func runCLI(t *testing.T, app *App, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	err := app.Run(context.Background(), args, &out, &errb)
	code = ExitOK
	if err != nil {
		code = ExitFailed
		var ee *ExitError
		if errors.As(err, &ee) {
			code = ee.Code
		}
		// Main puts "kurabe: " before every message: one that begins
		// "kurabe ..." itself would read "kurabe: kurabe ...".
		if strings.HasPrefix(err.Error(), "kurabe ") {
			t.Errorf("%v: the message begins with \"kurabe \", so Main prints the prefix twice: %v", args, err)
		}
		errb.WriteString("kurabe: " + err.Error() + "\n")
	}
	return out.String(), errb.String(), code
}

// faultApp is the built-in app with one more store, driver: a real SQLite
// database wrapped by wrap, a fault-injecting fake.
func faultApp(driver string, wrap func(store.Store) store.Store) *App {
	app := testApp()
	app.Stores = append(append([]stores.Entry{}, stores.Builtin...), stores.Entry{
		Driver: driver,
		Open: func(ctx context.Context, sp store.Spec, env store.Env) (store.Store, error) {
			st, err := sqlite.Open(ctx, sp, env)
			if err != nil {
				return nil, err
			}
			return wrap(st), nil
		},
	})
	return app
}

// droppingApp is the built-in app with one more store, "dropping": a
// fault-injecting SQLite that acknowledges and drops 1 write in 100.
func droppingApp() *App {
	return faultApp("dropping", func(st store.Store) store.Store { return &storefault.DropWrites{Store: st, Every: 100} })
}

// TestRunEveryOperationFailed: a phase whose operations all failed makes
// the run exit 1 and name it, whatever the other phases did: its figures
// time errors.
func TestRunEveryOperationFailed(t *testing.T) {
	app := faultApp("refusing", func(st store.Store) store.Store { return &storefault.RefuseReads{Store: st} })
	out, errs, code := runCLI(t, app, "run", "--store", "refusing:", "--store", "sqlite:", "--ops", "write,read-latest", "-n", "50", "-c", "2")
	if code != ExitFailed || !strings.Contains(errs, "every operation of refusing read-latest failed") || strings.Contains(errs, "sqlite read-latest") {
		t.Fatalf("exit %d, want %d naming refusing's read-latest alone; stderr %s", code, ExitFailed, errs)
	}
	if !strings.Contains(out, "permission denied") {
		t.Errorf("the errors are not under the table:\n%s", out)
	}
}

func TestRunComparesFileAndSQLite(t *testing.T) {
	dir := t.TempDir()
	js := filepath.Join(dir, "out.json")
	out, errs, code := runCLI(t, testApp(), "run", "-c", "4", "-n", "200", "--seed", "7", "--json", js)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"file ", "sqlite ", "write", "read-all", "read-latest", "mix", "seed 7", "4 clients", "journal_mode=delete"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	doc, err := result.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Stores) != 2 || doc.Seed != 7 || doc.Interrupted {
		t.Fatalf("doc: %d stores, seed %d, interrupted %v", len(doc.Stores), doc.Seed, doc.Interrupted)
	}
	for _, s := range doc.Stores {
		if len(s.Phases) != 4 {
			t.Fatalf("%s: %d phases", s.Label, len(s.Phases))
		}
		for _, p := range s.Phases {
			if p.Ops+p.Errors != 200 {
				t.Errorf("%s %s: %d ops + %d errors, want 200", s.Label, p.Op, p.Ops, p.Errors)
			}
			for _, v := range p.Verify {
				if v.Lost != 0 || v.Extra != 0 || v.Acked == 0 {
					t.Errorf("%s %s: verify %+v", s.Label, p.Op, v)
				}
			}
		}
		// The histogram in the document reproduces the summary.
		l := s.Phases[0].Latency
		if h := l.Histogram(); h.Count != l.Count || math.Abs(h.Quantile(0.99)/1e3-l.P99) > 0.002 {
			t.Errorf("%s: histogram round trip: count %d/%d, p99 %f/%f", s.Label, h.Count, l.Count, h.Quantile(0.99)/1e3, l.P99)
		}
	}
	if doc.Env.Cores == 0 || doc.Env.GoVersion == "" || doc.Stores[1].Info.Version == "" {
		t.Errorf("environment or store version missing: %+v", doc.Env)
	}
	// The temporary data directory is gone.
	if _, err := os.Stat(doc.Run.Dir); !os.IsNotExist(err) {
		t.Errorf("data dir %s still exists", doc.Run.Dir)
	}
}

func TestRunExactCountOverManyClients(t *testing.T) {
	js := filepath.Join(t.TempDir(), "out.json")
	_, errs, code := runCLI(t, testApp(), "run", "--store", "file:", "--ops", "write", "-n", "10001", "-c", "100", "--json", js)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	doc, err := result.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	p := doc.Stores[0].Phases[0]
	if p.Ops != 10001 || p.Verify[0].After != 10001 || len(p.ClientFinish) != 100 {
		t.Fatalf("ops %d, stored %d, clients %d", p.Ops, p.Verify[0].After, len(p.ClientFinish))
	}
}

func TestLostWritesFailTheRun(t *testing.T) {
	app := droppingApp()
	js := filepath.Join(t.TempDir(), "out.json")
	out, errs, code := runCLI(t, app, "run", "--store", "dropping:", "--store", "file:", "--ops", "write", "-n", "1000", "-c", "5", "--json", js)
	if code != ExitFailed {
		t.Fatalf("exit %d, want %d: %s", code, ExitFailed, errs)
	}
	if !strings.Contains(out, "LOST 10") || !strings.Contains(errs, "10 writes lost") {
		t.Fatalf("LOST not reported:\n%s\n%s", out, errs)
	}
	doc, err := result.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	if lost, _ := doc.Lost(); lost != 10 {
		t.Fatalf("document records %d lost", lost)
	}
}

func TestBadInputIsOneLineExit2(t *testing.T) {
	ro := t.TempDir()
	os.Chmod(ro, 0o500)
	defer os.Chmod(ro, 0o700)
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"unknown driver", []string{"run", "--store", "oracle:"}, "unknown driver"},
		{"spec without colon", []string{"run", "--store", "sqlite"}, "DRIVER:"},
		{"bad store option", []string{"run", "--store", "sqlite:?journal_mode=fast"}, "journal_mode"},
		{"unknown option", []string{"run", "--store", "file:?fsync=1"}, "unknown option"},
		{"unknown workload", []string{"run", "-w", "tpcz"}, "unknown workload"},
		{"unknown op", []string{"run", "--ops", "write,delete"}, "no operation"},
		{"zero count", []string{"run", "-n", "0"}, "-n 0"},
		{"n and d", []string{"run", "-n", "5", "-d", "1s"}, "either -n or -d"},
		{"zero clients", []string{"run", "-c", "0"}, "-c 0"},
		{"bad think", []string{"run", "--think", "soon"}, "--think"},
		{"bad mix", []string{"run", "--mix", "write=x"}, "--mix"},
		{"bad format", []string{"run", "--format", "pdf"}, "--format"},
		{"bad rate", []string{"run", "-R", "fast"}, "-R"},
		{"zero rate", []string{"run", "-R", "0"}, "-R"},
		{"ramp without duration", []string{"run", "-R", "5:10"}, "needs a duration"},
		{"rate with think", []string{"run", "-R", "5", "--think", "1ms"}, "think time"},
		{"bad repeat", []string{"run", "--repeat", "0"}, "--repeat"},
		{"bad mux", []string{"run", "--mux", "fibers"}, "--mux fibers: want auto, threads, loop or poller"},
		{"bad via-http", []string{"run", "--via-http=foo"}, `--via-http foo: want persistent, cgi`},
		{"stray argument", []string{"run", "sqlite:"}, "unexpected argument"},
		// Both endings a scenario file may have are named.
		{"not a scenario file", []string{"run", "notes.txt"}, "a scenario file ends in .yaml or .yml"},
		{"vary value twice", []string{"run", "--store", "sqlite:", "--vary", "page_size=4096,8192,8192"}, "8192 is given twice"},
		{"vary empty value", []string{"run", "--store", "sqlite:", "--vary", "page_size=4096,,8192"}, "a value is empty"},
		{"misspelt option of a managed server", []string{"run", "--store", "postgres:managed?conect=pool"}, "did you mean connect?"},
		{"misspelt option of a managed MariaDB", []string{"run", "--store", "mariadb:managed?engin=MyISAM"}, "did you mean engine?"},
		{"tpcb on file", []string{"run", "-w", "tpcb", "--store", "file:", "--store", "sqlite:"}, "the store file: runs none"},
		{"tpcb per-op", []string{"run", "-w", "tpcb", "--store", "postgres:managed?connect=per-op"}, "opens a connection per operation"},
		{"tpcb op per-op", []string{"run", "-w", "select-only", "--ops", "tpcb", "--store", "mariadb:managed", "--vary", "connect=session,per-op"}, "mariadb:managed?connect=per-op opens a connection per operation"},
		{"unparseable postgres address", []string{"run", "--store", "postgres://app:pwSECRET@127.0.0.1:notaport/app"}, `cannot parse the address //app:xxxxx@127.0.0.1:notaport/app: its port "notaport" is not a number from 0 to 65535; want postgres://USER@HOST:PORT/DB, a password as USER:PASSWORD@`},
		{"unparseable mariadb address", []string{"run", "--store", "mariadb://app:pwSECRET@127.0.0.1:notaport/app"}, `its port "notaport" is not a number from 0 to 65535; want mariadb://USER@HOST[:PORT][/DB], a password as USER:PASSWORD@`},
		{"mysql port out of range", []string{"run", "--store", "mysql://app:pwSECRET@127.0.0.1:99999/app"}, `its port "99999" is not a number from 0 to 65535`},
		{"slash in a password", []string{"run", "--store", "postgres://app:pw/SECRET@127.0.0.1:5432/app"}, "the part before the @ holds a /"},
		{"vary an option one store lacks", []string{"run", "--store", "file:", "--store", "sqlite:", "--vary", "journal_mode=wal,delete"}, "--vary journal_mode: the store file: has no option journal_mode (its options: sync"},
		{"max_connections at -c", []string{"run", "--store", "postgres:managed?max_connections=10", "-c", "10"}, "max_connections=10 cannot take -c 10 clients and kurabe's own connection, which counts and verifies the tables beside them; give max_connections=11 or more"},
		// MariaDB runs at least 10, so the level of 10 is the one refused.
		{"max_connections below a level", []string{"run", "--store", "mariadb:managed?max-connections=4", "-c", "1,4,10"}, "max-connections=4 cannot take -c 10 clients"},
		// mysql:managed runs MariaDB or MySQL, and is checked as they are.
		{"max_connections below a level on mysql", []string{"run", "--store", "mysql:managed?max-connections=4", "-c", "1,4,10"}, "max-connections=4 cannot take -c 10 clients"},
		{"max_connections at -c on mariadb", []string{"run", "--store", "mariadb:managed?max_connections=12", "-c", "12"}, "store mariadb:managed?max_connections=12: max_connections=12 cannot take -c 12 clients and kurabe's own connection, which counts and verifies the tables beside them; give max_connections=13 or more"},
		{"max_connections at -c on mysql", []string{"run", "--store", "mysql:managed?max_connections=12", "-c", "12"}, "store mysql:managed?max_connections=12: max_connections=12 cannot take -c 12 clients and kurabe's own connection, which counts and verifies the tables beside them; give max_connections=13 or more"},
		{"max_connections above -c on mysql", []string{"run", "--store", "mysql:managed?max_connections=12", "-c", "1,15"}, "max_connections=12 cannot take -c 15 clients"},
		{"max_connections varied", []string{"run", "--store", "mariadb:managed", "--vary", "max_connections=100,3"}, "max_connections=3 cannot take -c 10 clients"},
		// Server setting names are the same in any case (before, these
		// two started the server and failed).
		{"Max_Connections at -c", []string{"run", "--store", "postgres:managed?Max_Connections=5", "-c", "10"}, "store postgres:managed?max_connections=5: max_connections=5 cannot take -c 10 clients"},
		{"Max_Connections varied", []string{"run", "--store", "mariadb:managed", "--vary", "Max_Connections=100,3"}, "max_connections=3 cannot take -c 10 clients"},
		{"a setting twice in two cases", []string{"run", "--store", "postgres:managed?Shared_Buffers=32MB&shared_buffers=64MB"}, "server setting shared_buffers is given twice, as Shared_Buffers and as shared_buffers"},
		{"a varied setting twice in two cases", []string{"run", "--store", "postgres:managed", "--vary", "Work_Mem=4MB,8MB", "--vary", "work_mem=16MB,32MB"}, "--vary Work_Mem and --vary work_mem name one server setting"},
		// PostgreSQL does not start at or below its 3 reserved connections.
		{"max_connections below PostgreSQL's reserved", []string{"run", "--store", "postgres:managed?max_connections=3", "-c", "1"}, "give max_connections=4 or more"},
		// SQLite's per-op sessions take no SQL: neither tpcb nor
		// select-only runs there, and neither is suggested for it.
		{"tpcb per-op on sqlite", []string{"run", "-w", "tpcb", "--store", "sqlite:?connect=per-op"}, "the store sqlite:?connect=per-op runs none: with connect=per-op, sqlite's sessions open the database for each operation and take no SQL; give it connect=session (the default)"},
		{"select-only per-op on sqlite", []string{"run", "-w", "select-only", "--store", "sqlite:?connect=per-op"}, "give it connect=session (the default), or to time a connection per operation, a server store with connect=per-op (postgres:managed?connect=per-op)"},
		{"select-only per-op on sqlite varied", []string{"run", "-w", "select-only", "--store", "sqlite:", "--vary", "connect=session,per-op"}, "the store sqlite:?connect=per-op runs none"},
		// The stores take connect= in any case, and so does the check.
		{"tpcb PER-OP", []string{"run", "-w", "tpcb", "--store", "postgres:managed?connect=PER-OP"}, "postgres:managed?connect=PER-OP opens a connection per operation"},
		{"tpcb Per-Op on sqlite", []string{"run", "-w", "tpcb", "--store", "sqlite:?connect=Per-Op"}, "take no SQL; give it connect=session (the default)"},
		{"tpcb PER-OP varied", []string{"run", "-w", "tpcb", "--store", "mariadb:managed", "--vary", "connect=session,PER-OP"}, "mariadb:managed?connect=PER-OP opens a connection per operation"},
		{"max_connections below a POOL", []string{"run", "--store", "postgres:managed?connect=POOL&max_connections=10", "-c", "20"}, "cannot take a pool of 10 connections"},
		{"tpcb in select-only's ops", []string{"run", "-w", "select-only", "--ops", "tpcb", "--store", "postgres:managed?connect=per-op"}, "or leave tpcb out of --ops"},
		{"max_connections below a pool", []string{"run", "--store", "postgres:managed?connect=pool&max_connections=10", "-c", "20"}, "cannot take a pool of 10 connections"},
		// The file store takes keys in increasing order only: rows
		// loaded side by side, or hashed keys, would each fail as an
		// error that does not fail the run.
		{"load in chunks from two clients on file", []string{"run", "-w", "load", "--store", "sqlite:", "--store", "file:", "-c", "1,2", "--dataset-rows", "300", "--load-chunk", "100"}, "the store file: takes keys in increasing order only (it appends each row after the last), and -w load with -c 2 loads its 3 chunks (--load-chunk 100) side by side, so rows come out of key order; give -c 1, or --isolate"},
		{"ycsb hashed inserts on file", []string{"run", "-w", "ycsb", "--ops", "C,D", "--store", "file:", "-c", "1"}, "give --insert-order ordered"},
		// Numbered in turn, inserts still reach the file out of turn from
		// several clients: one client's preempted between its number and
		// its write while another writes the next.
		{"ycsb ordered inserts on file from two clients", []string{"run", "-w", "ycsb", "--ops", "A,D", "--store", "sqlite:", "--store", "file:", "--insert-order", "ordered", "-c", "1,2"}, "the store file: takes keys in increasing order only (it appends each row after the last), and ycsb's D and E number their inserts in turn (--insert-order ordered), but with -c 2 a client can write its record after another client wrote a later one, and that insert would fail; give -c 1 for D"},
		// A managed server listens where kurabe connects to it.
		{"skip_networking", []string{"run", "--store", "mariadb:managed?skip_networking=1"}, "server setting skip_networking is kurabe's to set on a managed server"},
		{"skip_networking varied", []string{"run", "--store", "mariadb:managed", "--vary", "skip-networking=0,1"}, "server setting skip-networking is kurabe's to set"},
		{"listen_addresses", []string{"run", "--store", "postgres:managed?listen_addresses=*"}, "listen_addresses is set by kurabe"},
		{"select-only on http", []string{"run", "-w", "select-only", "--store", "http://127.0.0.1:1"}, "runs SQL"},
		{"unknown flag", []string{"run", "--clients", "3"}, "unknown flag --clients; see kurabe help run"},
		{"unknown command", []string{"walk"}, "unknown command"},
		{"unwritable dir", []string{"run", "--dir", filepath.Join(ro, "sub")}, "writable"},
		{"unwritable json", []string{"run", "--json", filepath.Join(ro, "x.json")}, "writable"},
	}
	if os.Geteuid() == 0 {
		cases = cases[:len(cases)-2] // root writes anywhere
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, errs, code := runCLI(t, testApp(), c.args...)
			if code != ExitUsage {
				t.Fatalf("exit %d, want 2; stderr %s", code, errs)
			}
			last := strings.TrimSpace(errs[strings.LastIndex(strings.TrimSuffix(errs, "\n"), "\n")+1:])
			if !strings.Contains(last, c.want) || strings.Contains(errs, "goroutine") || strings.Contains(errs, "SECRET") {
				t.Fatalf("error line %q lacks %q", last, c.want)
			}
			if out != "" {
				t.Fatalf("printed a table on bad input: %s", out)
			}
		})
	}
}

func TestDirKeepsData(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	_, errs, code := runCLI(t, testApp(), "run", "--dir", dir, "--ops", "write", "-n", "50", "-c", "2")
	if code != 0 {
		t.Fatal(errs)
	}
	b, err := os.ReadFile(filepath.Join(dir, "1-file", "posts.txt"))
	if err != nil || bytes.Count(b, []byte("\n")) != 50 {
		t.Fatalf("kept file store: %v, %d lines", err, bytes.Count(b, []byte("\n")))
	}
	if _, err := os.Stat(filepath.Join(dir, "2-sqlite", "kurabe.db")); err != nil {
		t.Fatal(err)
	}
}

func TestStorePathAndMarkdown(t *testing.T) {
	dir := t.TempDir()
	posts := filepath.Join(dir, "k", "posts.txt")
	out, errs, code := runCLI(t, testApp(), "run", "--store", "file:"+posts, "--store", "sqlite:"+filepath.Join(dir, "k", "bbs.db")+"?journal_mode=wal",
		"--ops", "write,read-latest", "-n", "30", "-c", "3", "--format", "markdown")
	if code != 0 {
		t.Fatal(errs)
	}
	if b, _ := os.ReadFile(posts); bytes.Count(b, []byte("\n")) != 30 {
		t.Fatalf("%s holds %d lines, want 30", posts, bytes.Count(b, []byte("\n")))
	}
	if !strings.Contains(out, "| store | op | ops/s |") || !strings.Contains(out, "|---|---|---:|") || !strings.Contains(out, "journal_mode=wal") {
		t.Fatalf("not a markdown table:\n%s", out)
	}
}

func TestRedactArgs(t *testing.T) {
	got := strings.Join(redactArgs([]string{"run", "--store", "postgres://u:hunter2@db/app", "--store=mysql://root:pw@db/x", "-n", "5"}), " ")
	if strings.Contains(got, "hunter2") || strings.Contains(got, ":pw@") {
		t.Fatalf("password survived: %s", got)
	}
	if !strings.Contains(got, "postgres://u:xxxxx@db/app") {
		t.Fatalf("spec mangled: %s", got)
	}
	// A spec without secrets stays as typed, its options in their order.
	typed := []string{"run", "--store", "sqlite:?synchronous=off&journal_mode=wal", "--store=file:/tmp/p.txt?sync=write"}
	if got := redactArgs(typed); !slices.Equal(got, typed) {
		t.Errorf("redactArgs(%q) = %q, want it as typed", typed, got)
	}
}

func TestHelpAndVersion(t *testing.T) {
	out, _, code := runCLI(t, testApp(), "help")
	if code != 0 || !strings.Contains(out, "kurabe run") || !strings.Contains(out, "sqlite") {
		t.Fatalf("help: %d %s", code, out)
	}
	out, _, code = runCLI(t, testApp(), "help", "run")
	if code != 0 || !strings.Contains(out, "-store") || !strings.Contains(out, "-latest") {
		t.Fatalf("help run: %d %s", code, out)
	}
	// A flag whose usage names its default must not also show Go's
	// "(default 0)" (--dataset-rows did, through the flag that several
	// workloads share).
	if strings.Contains(out, "(default 0)") {
		t.Errorf("help run shows a zero default beside the usage's own:\n%s", out)
	}
	out, _, _ = runCLI(t, testApp(), "version")
	if !strings.HasPrefix(out, "kurabe "+Version) {
		t.Fatalf("version: %s", out)
	}
}

// TestInterruptWritesResult runs the real binary, sends SIGINT mid-run and
// checks that a valid result marked interrupted was written, and the
// HTML report. A SIGINT delivered twice in quick succession (timeout -s
// INT sends one to kurabe, and a terminal's Ctrl-C reaches it through its
// process group as well) is the same interrupt: it stopped kurabe at once,
// with no result, before.
func TestInterruptWritesResult(t *testing.T) {
	for _, twice := range []bool{false, true} {
		t.Run(fmt.Sprintf("twice=%v", twice), func(t *testing.T) { interruptWritesResult(t, syscall.SIGINT, twice) })
	}
	// A SIGTERM (a script, a service manager) stops the run the same
	// way, with the status a shell gives it (143), so a script can tell
	// it from a Ctrl-C.
	t.Run("SIGTERM", func(t *testing.T) { interruptWritesResult(t, syscall.SIGTERM, false) })
}

func interruptWritesResult(t *testing.T, sig syscall.Signal, twice bool) {
	bin := kurabeBinary(t)
	dir := t.TempDir()
	js := filepath.Join(dir, "out.json")
	html := filepath.Join(dir, "out.html")
	data := filepath.Join(dir, "data")
	cmd := exec.Command(bin, "run", "--store", "sqlite:?journal_mode=wal", "--dir", data, "--ops", "write,read-latest", "-d", "60s", "-c", "4", "--json", js, "--html", html)
	var out lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Interrupt once the write phase has stored rows, as a user's Ctrl-C
	// mid-run: a fixed sleep could end before a slow machine had set up
	// the store, and then no phase would have run.
	db := filepath.Join(data, "1-sqlite", "kurabe.db")
	var st store.Store
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("no rows in %s within 30s\n%s", db, out.String())
		}
		if st == nil {
			if _, err := os.Stat(db); err != nil {
				continue // opening it first would create it
			}
			st = openSQLite(t, db)
		}
		if n, err := st.Count(context.Background(), bbs.Posts()); err == nil && n > 0 {
			break
		}
	}
	cmd.Process.Signal(sig)
	if twice {
		// Once the first is seen (two sent at once would arrive as
		// one), at once.
		for !strings.Contains(out.String(), "press Ctrl-C again") {
			time.Sleep(time.Millisecond)
		}
		cmd.Process.Signal(sig)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	code := ExitInterrupted
	if sig == syscall.SIGTERM {
		code = 143
	}
	waitExit(t, cmd, done, &out, code)
	doc, err := result.ReadFile(js)
	if err != nil {
		t.Fatalf("no valid result after SIGINT: %v\n%s", err, out.String())
	}
	if _, err := os.Stat(html); err != nil {
		t.Errorf("no HTML report after SIGINT: %v", err)
	}
	if !doc.Interrupted || len(doc.Stores) != 1 || len(doc.Stores[0].Phases) != 1 || !doc.Stores[0].Phases[0].Interrupted {
		t.Fatalf("result not marked interrupted: %+v", doc.Stores)
	}
	p := doc.Stores[0].Phases[0]
	if p.Ops == 0 || p.Verify[0].Lost != 0 || p.Verify[0].Extra != 0 {
		t.Fatalf("interrupted phase: ops %d verify %+v", p.Ops, p.Verify)
	}
	if !strings.Contains(out.String(), "INTERRUPTED") {
		t.Fatalf("table does not say interrupted:\n%s", out.String())
	}
	if sig == syscall.SIGTERM {
		if !strings.Contains(out.String(), "kurabe: stopping (SIGTERM)") {
			t.Fatalf("does not say it stops on SIGTERM:\n%s", out.String())
		}
		return
	}
	if !strings.Contains(out.String(), "kurabe: stopping after the operations under way (those a server does not answer within --grace, 5s by default, are cut off), then writing the results; press Ctrl-C again to stop at once without writing them") {
		t.Fatalf("no hint of a second Ctrl-C after SIGINT:\n%s", out.String())
	}
}

// waitInterrupted waits for the kurabe process cmd (whose Wait reports on
// done) to exit with the interrupted status, within 20 s.
func waitInterrupted(t *testing.T, cmd *exec.Cmd, done <-chan error, out *lockedBuffer) {
	t.Helper()
	waitExit(t, cmd, done, out, ExitInterrupted)
}

// waitExit waits for the kurabe process cmd (whose Wait reports on done)
// to exit with status code, within 20 s of its signal.
func waitExit(t *testing.T, cmd *exec.Cmd, done <-chan error, out *lockedBuffer, code int) {
	t.Helper()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != code {
			t.Fatalf("exit: %v, want %d\n%s", err, code, out.String())
		}
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("kurabe did not stop within 20s of its signal\n%s", out.String())
	}
}

func TestReadOnlyRunOnEmptyTableSaysSo(t *testing.T) {
	out, errs, code := runCLI(t, testApp(), "run", "--store", "file:", "--ops", "read-latest", "-n", "10", "-c", "1")
	if code != 0 {
		t.Fatal(errs)
	}
	if !strings.Contains(out, "read nothing") || !strings.Contains(out, "--ops write,read-latest") {
		t.Fatalf("no hint about the empty table:\n%s", out)
	}
}

// Each repeat runs on a freshly opened store, and a run through kurabe
// serve on tables kurabe made for it: a read before any write of its
// repeat read an empty table, in every repeat and on both rows. Before,
// read-latest #2 was said to have read nothing "although writes were
// acknowledged before it", counting repeat #1's writes, and the row via
// http was said to be on a service's tables kurabe does not empty.
func TestReadNothingCountsItsOwnRepeat(t *testing.T) {
	out, errs, code := runCLI(t, testApp(), "run", "--store", "sqlite:", "--via-http", "--repeat", "2", "--ops", "read-latest,write", "-n", "20", "-c", "2", "-q")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	for _, want := range []string{
		"sqlite read-latest #1: read nothing: the table was empty", "sqlite read-latest #2: read nothing: the table was empty",
		"sqlite via http read-latest #1: read nothing: the table was empty", "sqlite via http read-latest #2: read nothing: the table was empty",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no note %q:\n%s", want, out)
		}
	}
	for _, unwant := range []string{"acknowledged before it", "does not empty"} {
		if strings.Contains(out, unwant) {
			t.Errorf("a note says %q:\n%s", unwant, out)
		}
	}
}

// A --vary table names a run through kurabe serve as the plain table does
// (sqlite via http), and reads back the settings of the store kurabe serve
// served, kept in the row's result as served, apart from the HTTP
// client's own in info. Before, the row was named http and its read-back
// columns showed ?, the HTTP client having no journal_mode. A result
// written before served still reads: the row named, its settings ?.
func TestVaryViaHTTPRowsNameAndReadBackTheServedStore(t *testing.T) {
	dir := t.TempDir()
	js := filepath.Join(dir, "out.json")
	out, errs, code := runCLI(t, testApp(), "run", "--store", "sqlite:", "--vary", "journal_mode=delete,wal", "--via-http",
		"--ops", "write,read-latest", "-n", "20", "-c", "2", "-q", "--json", js)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	for _, row := range []string{`\nsqlite via http +delete +\S+ +\S+ +delete +full +0 +0\n`, `\nsqlite via http +wal +\S+ +\S+ +wal +normal +0 +0\n`} {
		if !regexp.MustCompile(row).MatchString(out) {
			t.Errorf("no row %s:\n%s", row, out)
		}
	}
	if strings.Contains(out, "\nhttp ") || strings.Contains(out, " ? ") {
		t.Errorf("a row named http, or a setting not read back:\n%s", out)
	}
	doc, err := result.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range doc.Stores {
		if s.Via == "" {
			if s.Served != nil {
				t.Errorf("%s: served %+v on a direct run", s.Label, s.Served)
			}
			continue
		}
		if s.Info.Driver != "http" || s.Info.Options["journal_mode"] != "" {
			t.Errorf("%s: info %+v, want the HTTP client's", s.Label, s.Info)
		}
		if s.Served == nil || s.Served.Driver != "sqlite" || s.Served.Options["journal_mode"] != s.Variant[0].Value || !strings.HasSuffix(s.Served.Target, "-via-http/kurabe.db") {
			t.Errorf("%s: served %+v, want the SQLite database kurabe serve served, in journal_mode=%s", s.Label, s.Served, s.Variant[0].Value)
		}
	}
	// As kurabe before served wrote it.
	for i := range doc.Stores {
		doc.Stores[i].Served = nil
	}
	old := filepath.Join(dir, "old.json")
	if err := result.WriteFile(old, doc); err != nil {
		t.Fatal(err)
	}
	rep, errs, code := runCLI(t, testApp(), "report", old)
	if code != ExitOK || !regexp.MustCompile(`\nsqlite via http +wal +\S+ +\S+ +\? +- +0 +0\n`).MatchString(rep) {
		t.Errorf("report of a result without served: exit %d\n%s%s", code, rep, errs)
	}
	if _, errs, code := runCLI(t, testApp(), "compare", old, js); code != ExitOK {
		t.Errorf("compare of a result without served with one with it: exit %d\n%s", code, errs)
	}
}

func TestVaryRunsEveryCombinationAndReadsBack(t *testing.T) {
	js := filepath.Join(t.TempDir(), "out.json")
	out, errs, code := runCLI(t, testApp(), "run", "--store", "sqlite:", "--vary", "page_size=1024,8192", "--vary", "journal_mode=delete,wal",
		"--ops", "write", "-n", "40", "-c", "2", "--json", js)
	if code != 0 {
		t.Fatal(errs)
	}
	doc, err := result.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Stores) != 4 || len(doc.Run.Vary) != 2 {
		t.Fatalf("%d stores, %d axes", len(doc.Stores), len(doc.Run.Vary))
	}
	want := [][2]string{{"1024", "delete"}, {"1024", "wal"}, {"8192", "delete"}, {"8192", "wal"}}
	for i, s := range doc.Stores {
		if s.Info.Options["page_size"] != want[i][0] || s.Info.Options["journal_mode"] != want[i][1] {
			t.Errorf("variant %d %v read back page_size=%s journal_mode=%s", i, s.Variant, s.Info.Options["page_size"], s.Info.Options["journal_mode"])
		}
	}
	if !strings.Contains(out, "page_size (read back)") || strings.Contains(out, "≠") {
		t.Fatalf("matrix table wrong:\n%s", out)
	}
	if n := len(regexp.MustCompile(`\nsqlite +\d`).FindAllString(out, -1)); n != 4 {
		t.Fatalf("%d rows named sqlite, want 4: a store alone is named by its driver\n%s", n, out)
	}
	for _, bad := range []string{"page_size", "page_size=", "=1,2"} {
		if _, _, code := runCLI(t, testApp(), "run", "--vary", bad); code != ExitUsage {
			t.Errorf("--vary %q: exit %d", bad, code)
		}
	}
}

// SQLite reads back synchronous=normal under journal_mode=wal and full
// under delete: a --vary journal_mode table showed only journal_mode, so
// WAL took the credit for what synchronous did too, which only the store
// lines above the table told. A setting not varied that reads back
// differently between variants has a column of its own, in the text,
// Markdown and HTML tables.
func TestVaryTableShowsUnvariedSettingThatDiffers(t *testing.T) {
	dir := t.TempDir()
	js, page := filepath.Join(dir, "out.json"), filepath.Join(dir, "out.html")
	out, errs, code := runCLI(t, testApp(), "run", "--store", "sqlite:", "--vary", "journal_mode=delete,wal",
		"--ops", "write", "-n", "20", "-c", "1", "--json", js, "--html", page)
	if code != 0 {
		t.Fatal(errs)
	}
	md, errs, code := runCLI(t, testApp(), "report", "--format", "markdown", "--lang", "ja", js)
	if code != 0 {
		t.Fatal(errs)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := result.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	// What each variant read back, not what this test expects SQLite to do.
	sync := map[string]string{}
	for _, s := range doc.Stores {
		sync[s.Info.Options["journal_mode"]] = s.Info.Options["synchronous"]
	}
	if sync["delete"] == sync["wal"] {
		t.Skipf("this SQLite reads back synchronous=%s under both journal modes: nothing to show", sync["wal"])
	}
	for _, x := range []struct{ format, table, header, row string }{
		{"text", out, `synchronous \(read back, not varied\)`, `(?m)^sqlite +%s +[\d,]+ +%[1]s +%s +0 +0$`},
		{"markdown", md, `synchronous \(読み戻し、--vary 外\)`, `(?m)^\| sqlite \| %s \| [\d,]+ \| %[1]s \| %s \| 0 \| 0 \|$`},
		{"html", string(html), `<th[^>]*>synchronous \(read back, not varied\)</th>`, `<td[^>]*>%s</td><td[^>]*>[\d,]+</td><td[^>]*>%[1]s</td><td[^>]*>%s</td>`},
	} {
		if !regexp.MustCompile(x.header).MatchString(x.table) {
			t.Errorf("%s: no column for synchronous, which differs between the variants:\n%s", x.format, x.table)
		}
		for _, mode := range []string{"delete", "wal"} {
			if !regexp.MustCompile(fmt.Sprintf(x.row, mode, sync[mode])).MatchString(x.table) {
				t.Errorf("%s: the %s row does not show synchronous=%s", x.format, mode, sync[mode])
			}
		}
	}
}

// Two stores of one driver, varied alike, are told apart in the store
// column of every table by their labels without the varied settings (which
// have columns of their own). (A store alone keeps its driver's name:
// TestVaryRunsEveryCombinationAndReadsBack.)
func TestVaryTableTellsStoresOfOneDriverApart(t *testing.T) {
	dir := t.TempDir()
	js, page := filepath.Join(dir, "out.json"), filepath.Join(dir, "out.html")
	out, errs, code := runCLI(t, testApp(), "run", "--store", "sqlite:?journal_mode=wal", "--store", "sqlite:?journal_mode=delete",
		"--vary", "cache_size=-2000,-4000", "--ops", "write", "-n", "20", "-c", "2", "--json", js, "--html", page)
	if code != 0 {
		t.Fatal(errs)
	}
	md, errs, code := runCLI(t, testApp(), "report", "--format", "markdown", js)
	if code != 0 {
		t.Fatal(errs)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	rowStart := map[string]string{"text": "\n", "markdown": "\n\\| ", "html": "<td[^>]*>"}
	for format, table := range map[string]string{"text": out, "markdown": md, "html": string(html)} {
		for _, name := range []string{"sqlite?journal_mode=wal", "sqlite?journal_mode=delete"} {
			if n := len(regexp.MustCompile(rowStart[format]+regexp.QuoteMeta(name)+"[ <]").FindAllString(strings.ReplaceAll(table, "&amp;", "&"), -1)); n != 2 {
				t.Errorf("%s: %d rows named %s, want 2 (a row per cache_size):\n%s", format, n, name, table)
			}
		}
	}
	doc, err := result.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := report.Benchstat(&b, doc); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "store=sqlite?journal_mode=wal/cache_size=-4000/op=write") || !strings.Contains(b.String(), "store=sqlite?journal_mode=delete/cache_size=-2000/op=write") {
		t.Errorf("benchstat names do not tell the stores apart:\n%s", b.String())
	}
}

func TestRepeatKeepsEachRun(t *testing.T) {
	js := filepath.Join(t.TempDir(), "out.json")
	_, errs, code := runCLI(t, testApp(), "run", "--store", "file:", "--store", "sqlite:", "--ops", "write,read-latest", "--repeat", "3", "-n", "60", "-c", "2", "--json", js)
	if code != 0 {
		t.Fatal(errs)
	}
	doc, err := result.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Run.Repeat != 3 || len(doc.Stores) != 2 {
		t.Fatalf("repeat %d, %d stores", doc.Run.Repeat, len(doc.Stores))
	}
	for _, s := range doc.Stores {
		if len(s.Phases) != 6 {
			t.Fatalf("%s: %d phases, want 2 ops x 3 repeats", s.Label, len(s.Phases))
		}
		for i, p := range s.Phases {
			if p.Repeat != i/2 || p.Ops != 60 {
				t.Errorf("%s phase %d: repeat %d, ops %d", s.Label, i, p.Repeat, p.Ops)
			}
			// Each repeat starts from an empty table.
			if p.Op == "write" && (p.Verify[0].Before != 0 || p.Verify[0].After != 60) {
				t.Errorf("%s repeat %d: before %d after %d", s.Label, p.Repeat, p.Verify[0].Before, p.Verify[0].After)
			}
		}
	}
}

func TestOpenLoopRun(t *testing.T) {
	js := filepath.Join(t.TempDir(), "out.json")
	out, errs, code := runCLI(t, testApp(), "run", "--store", "file:", "--ops", "write", "-R", "400", "-n", "400", "-c", "2", "--json", js)
	if code != 0 {
		t.Fatal(errs)
	}
	doc, err := result.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	p := doc.Stores[0].Phases[0]
	if p.OpenLoop == nil || p.OpenLoop.Scheduled != 400 || p.Ops != 400 || p.Elapsed < 0.9 {
		t.Fatalf("open loop %+v, ops %d, elapsed %.2fs", p.OpenLoop, p.Ops, p.Elapsed)
	}
	if !strings.Contains(out, "open loop at 400 ops/s") || !strings.Contains(out, "service time") {
		t.Fatalf("table does not label the open loop:\n%s", out)
	}
}

func TestViaHTTPRunsDirectAndThroughServe(t *testing.T) {
	js := filepath.Join(t.TempDir(), "out.json")
	out, errs, code := runCLI(t, testApp(), "run", "--store", "sqlite:?journal_mode=wal", "--via-http", "--ops", "write,read-latest", "-n", "200", "-c", "2", "--json", js)
	if code != 0 {
		t.Fatal(errs)
	}
	doc, err := result.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Stores) != 2 || doc.Stores[1].Via != "http" || doc.Stores[1].Of != doc.Stores[0].Label {
		t.Fatalf("stores %+v", doc.Stores)
	}
	via := doc.Stores[1]
	if via.Info.Driver != "http" || len(via.Phases) != 2 || via.Phases[0].Ops != 200 || via.Phases[0].Verify[0].Lost != 0 || via.Phases[0].Verify[0].Acked != 200 {
		t.Fatalf("via-http store: %+v", via)
	}
	if !strings.Contains(out, "write through http") || !strings.Contains(out, "the http layer adds") {
		t.Fatalf("no comparison under the table:\n%s", out)
	}
	if _, _, code := runCLI(t, testApp(), "run", "-w", "range", "--via-http"); code != ExitUsage {
		t.Fatalf("--via-http with range: exit %d", code)
	}
}

// With --repeat, a later repeat's copy through kurabe serve has its
// directory beside the repeat's store, as the first repeat's has, and the
// notes on what HTTP costs say which repeat each is. Before, repeat 2's
// were r2-1-sqlite and r2-2-sqlite (numbered as the second store), and
// the notes of both repeats read "sqlite write through http" alike.
func TestRepeatViaHTTPDirectoriesAndNotes(t *testing.T) {
	dir := t.TempDir()
	out, errs, code := runCLI(t, testApp(), "run", "--store", "sqlite:?synchronous=off", "--via-http", "--ops", "write", "-n", "20", "-c", "1", "--repeat", "2", "--dir", dir)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	var names []string
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if want := []string{"1-sqlite", "1-sqlite-via-http", "r2-1-sqlite", "r2-1-sqlite-via-http"}; !slices.Equal(names, want) {
		t.Errorf("directories %q, want %q", names, want)
	}
	for _, want := range []string{"sqlite write #1 through http", "sqlite write #2 through http"} {
		if !strings.Contains(out, want) {
			t.Errorf("no note %q:\n%s", want, out)
		}
	}
}

// --isolate gives each client a table of its own: every table gets exactly
// its client's acknowledged writes (the file store keeps one file per
// table), and a store that drops writes is still caught, table by table.
func TestIsolateGivesEachClientItsOwnTable(t *testing.T) {
	app := droppingApp()
	dir := t.TempDir()
	js := filepath.Join(dir, "out.json")
	out, errs, code := runCLI(t, app, "run", "-q", "--store", "file:", "--store", "dropping:", "--dir", dir,
		"--ops", "write", "-n", "1000", "-c", "2,5", "--isolate", "--json", js)
	if code != ExitFailed {
		t.Fatalf("exit %d, want %d (the dropping store):\n%s%s", code, ExitFailed, out, errs)
	}
	doc, err := result.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	if !doc.Run.Isolate {
		t.Error("the document does not record --isolate")
	}
	for _, s := range doc.Stores {
		for _, p := range s.Phases {
			var tables []string
			var acked, lost int64
			for _, v := range p.Verify {
				tables = append(tables, v.Table)
				acked += v.Acked
				lost += v.Lost
				if s.Label == "file" && (v.Lost != 0 || v.After-v.Before != v.Acked || v.Acked != int64(1000/p.Clients)) {
					t.Errorf("file c=%d %s: %+v; want %d writes, none lost", p.Clients, v.Table, v, 1000/p.Clients)
				}
			}
			want := []string{"posts_c1", "posts_c2", "posts_c3", "posts_c4", "posts_c5"}[:p.Clients]
			if !slices.Equal(tables, want) {
				t.Errorf("%s c=%d verified tables %v, want %v", s.Label, p.Clients, tables, want)
			}
			if s.Label == "dropping" && (lost != 10 || acked != 1000) {
				t.Errorf("dropping c=%d: %d acked, %d lost; want 1000 and 10", p.Clients, acked, lost)
			}
		}
	}
	// The file store wrote one file per client; the first two got writes
	// at both levels.
	for i := 1; i <= 5; i++ {
		if _, err := os.Stat(filepath.Join(dir, "1-file", fmt.Sprintf("posts_c%d.txt", i))); err != nil {
			t.Errorf("client %d's file: %v", i, err)
		}
	}
	if _, errs, code := runCLI(t, testApp(), "run", "-w", "tpcb", "--isolate"); code != ExitUsage || !strings.Contains(errs, "shared tables") {
		t.Errorf("tpcb --isolate: exit %d, %s", code, errs)
	}
}

// --via-http=persistent,cgi runs the board through kurabe serve twice: in
// one process, and as CGI with a process per request (the binary starts
// itself again). Both rows verify every write, and the report says what
// each layer costs against the direct run.
func TestViaHTTPPersistentAndCGI(t *testing.T) {
	bin := kurabeBinary(t)
	dir := t.TempDir()
	js := filepath.Join(dir, "out.json")
	cmd := exec.Command(bin, "run", "-q", "--store", "sqlite:?synchronous=off", "--dir", dir, "--via-http=persistent,cgi",
		"--ops", "write,read-latest", "-n", "60", "-c", "3", "--json", js)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	doc, err := result.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, s := range doc.Stores {
		labels = append(labels, s.Label+"/"+s.Via)
		for _, p := range s.Phases {
			if p.Ops != 60 || p.Errors != 0 {
				t.Errorf("%s %s: %d ops, %d errors", s.Label, p.Op, p.Ops, p.Errors)
			}
			for _, v := range p.Verify {
				if v.Lost != 0 || v.Extra != 0 || v.Acked != 60 {
					t.Errorf("%s %s: %+v", s.Label, p.Op, v)
				}
			}
		}
	}
	if want := []string{"sqlite/", "sqlite via http/http", "sqlite via cgi/cgi"}; !slices.Equal(labels, want) {
		t.Fatalf("stores %v, want %v", labels, want)
	}
	for _, want := range []string{"sqlite write through cgi:", "sqlite read-latest through http:"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// CGI processes cannot reach a server kurabe starts for the run.
	if _, errs, code := runCLI(t, testApp(), "run", "--store", "postgres:managed", "--via-http=cgi"); code != ExitUsage || !strings.Contains(errs, "cannot share a server") {
		t.Errorf("cgi over a managed server: exit %d, %s", code, errs)
	}
}

// The header says that each client had tables of its own, for every
// store, in the run's output, kurabe report of its JSON (in Japanese too)
// and the HTML: a pasted table must tell separate tables from a shared
// one. Before, a run on server stores said only "2 clients".
func TestIsolateIsSaidInTheHeader(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		stores       []string
		clients      string
		want, wantJA string
	}{
		{[]string{"postgres:managed", "mariadb:managed"}, "2", "2 clients, each on its own table", "2 クライアント、それぞれ専用のテーブル"},
		// The file store's table is a file, and SQLite gives each client
		// a database file of its own.
		{[]string{"file:", "sqlite:"}, "1", "1 client, on its own file", "1 クライアント、専用のファイル"},
	} {
		js, html := filepath.Join(dir, c.clients+".json"), filepath.Join(dir, c.clients+".html")
		args := []string{"run", "-w", "crud", "--ops", "insert,read", "-n", "20", "-c", c.clients, "--isolate", "--json", js, "--html", html}
		for _, s := range c.stores {
			args = append(args, "--store", s)
		}
		out, errs, code := runCLI(t, testApp(), args...)
		if code != ExitOK {
			t.Fatalf("%v: exit %d\n%s%s", c.stores, code, out, errs)
		}
		if head, _, _ := strings.Cut(out, "\n"); !strings.Contains(head, " · "+c.want+" · ") {
			t.Errorf("%v: header %q; want %q", c.stores, head, c.want)
		}
		for lang, want := range map[string]string{"en": c.want, "ja": c.wantJA} {
			rep, errs, code := runCLI(t, testApp(), "report", "--lang", lang, js)
			if head, _, _ := strings.Cut(rep, "\n"); code != ExitOK || !strings.Contains(head, " · "+want+" · ") {
				t.Errorf("%v: kurabe report --lang %s: exit %d, %s, header %q; want %q", c.stores, lang, code, errs, head, want)
			}
		}
		page, err := os.ReadFile(html)
		if err != nil {
			t.Fatal(err)
		}
		if want := strings.TrimPrefix(strings.TrimPrefix(c.want, "2 clients"), "1 client"); !strings.Contains(string(page), c.clients+want+"<") {
			t.Errorf("%v: the HTML's clients lack %q", c.stores, c.clients+want)
		}
	}
	// Without --isolate the clients share the table, and nothing is said.
	out, errs, code := runCLI(t, testApp(), "run", "-w", "crud", "--ops", "insert", "-n", "10", "-c", "2", "--store", "sqlite:")
	if head, _, _ := strings.Cut(out, "\n"); code != ExitOK || !strings.Contains(head, " · 2 clients · ") {
		t.Errorf("shared table: exit %d, %s, header %q", code, errs, head)
	}
}

// On SQLite, --isolate gives each client a database file of its own (tables
// in one file would share its write lock), and each file holds exactly its
// client's writes.
func TestIsolateSQLiteFilePerClient(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "board.db")
	js := filepath.Join(dir, "out.json")
	out, errs, code := runCLI(t, testApp(), "run", "-q", "--store", "sqlite:"+db+"?synchronous=off", "--ops", "write", "-n", "300", "-c", "3", "--isolate", "--json", js)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	for i := 1; i <= 3; i++ {
		st := openSQLite(t, filepath.Join(dir, fmt.Sprintf("board_c%d.db", i)))
		tbl := bbs.Posts()
		tbl.Name = fmt.Sprintf("posts_c%d", i)
		if n, err := st.Count(context.Background(), tbl); err != nil || n != 100 {
			t.Errorf("client %d's file: %d posts, %v; want 100", i, n, err)
		}
	}
	doc, err := result.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	if lost, extra := doc.Lost(); lost != 0 || extra != 0 || len(doc.Stores[0].Phases[0].Verify) != 3 {
		t.Errorf("lost %d, extra %d, verify %+v", lost, extra, doc.Stores[0].Phases[0].Verify)
	}
}

// With --isolate, each client's database file is checked as the store's
// own is: the user dropped client 1's kurabe_posts_c1 and made a table of
// their own under the name, with their row, in board_c1.db. kurabe_meta
// there still lists the name, but the next run refuses the table as not
// the one kurabe made, and the user's row is still there. Before, the
// name alone was kurabe's, and the run dropped the user's table.
func TestIsolateSQLiteRefusesTableMadeAgainByUser(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "board.db")
	args := []string{"run", "-q", "--store", "sqlite:" + db + "?synchronous=off", "--ops", "write", "-n", "20", "-c", "2", "--isolate"}
	if out, errs, code := runCLI(t, testApp(), args...); code != ExitOK {
		t.Fatalf("first run: exit %d\n%s%s", code, out, errs)
	}
	c1 := filepath.Join(dir, "board_c1.db")
	c, err := sqlite3.Open(c1)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Exec("DROP TABLE kurabe_posts_c1; CREATE TABLE kurabe_posts_c1 (id INTEGER PRIMARY KEY, note TEXT); INSERT INTO kurabe_posts_c1 VALUES (1, 'keep me')"); err != nil {
		t.Fatal(err)
	}
	out, errs, code := runCLI(t, testApp(), args...)
	if code == ExitOK || !strings.Contains(out+errs, "table kurabe_posts_c1 in "+c1+" exists and was not created by kurabe (kurabe_meta lists a table of that name, but this is not the table kurabe made: it was replaced since), so it was left as it is") {
		t.Fatalf("run over the user's table: exit %d\n%s%s", code, out, errs)
	}
	st, _, err := c.Prepare("SELECT group_concat(id || ':' || note) FROM kurabe_posts_c1")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if !st.Step() || st.ColumnText(0) != "1:keep me" {
		t.Fatalf("the user's kurabe_posts_c1 holds %q, want only their row", st.ColumnText(0))
	}
}

// With --isolate, SQLite's settings are read back from the clients'
// databases, which ran the workload. Before, they were read from the
// store's own file, which holds none of the clients' tables and never had
// journal_mode=wal applied: the store line said journal_mode=delete and a
// note said the setting did not apply, when every client's file was wal.
// When the clients' files differ (client 1's kept the page size of an
// earlier run), each client's value is given, and the note says so.
func TestIsolateSQLiteReadsBackTheClientsSettings(t *testing.T) {
	dir := t.TempDir()
	js := filepath.Join(dir, "out.json")
	out, errs, code := runCLI(t, testApp(), "run", "--store", "sqlite:?journal_mode=wal&synchronous=off", "--ops", "write", "-n", "20", "-c", "2", "--isolate", "--dir", dir, "--json", js)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	for i := 1; i <= 2; i++ {
		info := openSQLite(t, filepath.Join(dir, "1-sqlite", fmt.Sprintf("kurabe_c%d.db", i))).Info(context.Background())
		if got := info.Options["journal_mode"]; got != "wal" {
			t.Fatalf("client %d's database runs journal_mode=%s, want wal (the test's premise)", i, got)
		}
	}
	doc, err := result.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	if got := doc.Stores[0].Info.Options["journal_mode"]; got != "wal" {
		t.Errorf("journal_mode read back as %q, want wal", got)
	}
	if strings.Contains(out, "did not apply") || !strings.Contains(out, "journal_mode=wal") {
		t.Errorf("the table says wal did not apply:\n%s", out)
	}

	// Client 1's file keeps the page size of a first run; client 2's is new.
	db := filepath.Join(dir, "board.db")
	if out, errs, code := runCLI(t, testApp(), "run", "-q", "--store", "sqlite:"+db+"?page_size=8192&synchronous=off", "--ops", "write", "-n", "10", "-c", "1", "--isolate"); code != ExitOK {
		t.Fatalf("first run: exit %d\n%s%s", code, out, errs)
	}
	out, errs, code = runCLI(t, testApp(), "run", "-q", "--store", "sqlite:"+db+"?page_size=4096&synchronous=off", "--ops", "write", "-n", "10", "-c", "2", "--isolate", "--json", js)
	if code != ExitOK {
		t.Fatalf("second run: exit %d\n%s%s", code, out, errs)
	}
	if doc, err = result.ReadFile(js); err != nil {
		t.Fatal(err)
	}
	if got, want := doc.Stores[0].Info.Options["page_size"], "c1:8192,c2:4096"; got != want {
		t.Errorf("page_size read back as %q, want %q", got, want)
	}
	if want := "page_size asked 4096, the store runs c1:8192,c2:4096"; !strings.Contains(out, want) {
		t.Errorf("no note %q:\n%s", want, out)
	}
}

// With --isolate, crud runs its whole sequence on every client's table:
// each table gets its share of -n inserted, deletes its share of the
// delete phase's rows, and its batch deletes empty it. Before, the phase
// counts were the shared table's, spread over the clients: batch-delete's
// one call went to client 1, and the other tables kept their rows.
func TestIsolateCrudEmptiesEveryTable(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "crud.db")
	js := filepath.Join(dir, "out.json")
	// 600 rows over 3 tables, 200 each; the delete phase's 300 rows, 100
	// each; the rest, 100 a table, in one call of up to 200 each. The
	// shared table's count (300 rows in calls of 200: 2) went to clients
	// 1 and 2, and client 3's table kept its 100 rows.
	out, errs, code := runCLI(t, testApp(), "run", "-q", "-w", "crud", "--store", "sqlite:"+db+"?synchronous=off",
		"-n", "600", "-c", "3", "--batch-delete", "200", "--isolate", "--json", js)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	for i := 1; i <= 3; i++ {
		st := openSQLite(t, filepath.Join(dir, fmt.Sprintf("crud_c%d.db", i)))
		tbl := crud.Table()
		tbl.Name = fmt.Sprintf("crud_c%d", i)
		if n, err := st.Count(context.Background(), tbl); err != nil || n != 0 {
			t.Errorf("client %d's table: %d rows left, %v; want 0", i, n, err)
		}
	}
	doc, err := result.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"insert": 600, "read": 600, "batch-read": 3, "update": 600, "delete": 300, "batch-delete": 3}
	for _, ph := range doc.Stores[0].Phases {
		if ph.Ops != want[ph.Op] || ph.Errors != 0 {
			t.Errorf("%s: %d ops, %d errors; want %d, 0", ph.Op, ph.Ops, ph.Errors, want[ph.Op])
		}
	}
	// -R hands operations to whichever client is free, which the tables'
	// own counts cannot follow: refused before anything runs.
	if _, errs, code := runCLI(t, testApp(), "run", "-w", "crud", "--store", "sqlite:", "-n", "100", "-c", "2", "-R", "100", "--isolate"); code != ExitUsage || !strings.Contains(errs, "-R 100 with --isolate") {
		t.Errorf("-R with --isolate: exit %d, %s", code, errs)
	}
}

// For an SQLite store without a path, --isolate puts the clients'
// databases beside the store's own file in its directory, and the store
// line names them. Before, they went to DATA/r1-1-sqlite-clients/c1/
// kurabe.db, … while the store line named DATA/1-sqlite/kurabe.db alone.
func TestIsolateSQLiteWithoutAPath(t *testing.T) {
	dir := t.TempDir()
	out, errs, code := runCLI(t, testApp(), "run", "--store", "sqlite:?synchronous=off", "--ops", "write", "-n", "20", "-c", "2", "--isolate", "--keep", "--dir", dir)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	sdir := filepath.Join(dir, "1-sqlite")
	for i := 1; i <= 2; i++ {
		st := openSQLite(t, filepath.Join(sdir, fmt.Sprintf("kurabe_c%d.db", i)))
		tbl := bbs.Posts()
		tbl.Name = fmt.Sprintf("posts_c%d", i)
		if n, err := st.Count(context.Background(), tbl); err != nil || n != 10 {
			t.Errorf("client %d's file: %d posts, %v; want 10", i, n, err)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("data directory holds %d entries, want 1-sqlite alone", len(ents))
	}
	if want := filepath.Join(sdir, "kurabe.db") + " (--isolate: the clients' databases beside it: kurabe_c1.db … kurabe_c2.db)"; !strings.Contains(out, want) {
		t.Errorf("store line lacks %q:\n%s", want, out)
	}
}

// TestMuxChoosesHowClientsWait: --mux reaches the engine, the result
// says how the clients waited, and the table's store line says it in
// words. Auto at 2 clients runs a thread per client; --mux loop puts them
// on one event loop; --mux=false (the old spelling of poller) leaves them
// in Go's poller.
func TestMuxChoosesHowClientsWait(t *testing.T) {
	for _, tc := range []struct {
		mux, want, line string
	}{
		{"auto", "threads", "clients on a thread each"},
		{"loop", "loop", "clients on one event loop"},
		{"false", "", ""},
	} {
		t.Run(tc.mux, func(t *testing.T) {
			js := filepath.Join(t.TempDir(), "out.json")
			out, errs, code := runCLI(t, testApp(), "run", "--store", "postgres:managed", "-w", "tpcb", "--ops", "select-only",
				"-n", "200", "-c", "2", "--mux", tc.mux, "--json", js)
			if code != 0 && strings.Contains(errs, "apt-get install") && os.Getenv("KURABE_REQUIRE_SERVERS") == "" {
				t.Skipf("skipped: %s (scripts/test installs it)", strings.TrimSpace(errs))
			}
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			doc, err := result.ReadFile(js)
			if err != nil {
				t.Fatal(err)
			}
			ph := doc.Stores[0].Phases[0]
			if ph.ClientIO != tc.want || ph.Ops != 200 {
				t.Errorf("client_io %q, %d ops; want %q, 200", ph.ClientIO, ph.Ops, tc.want)
			}
			for _, l := range []string{"clients on a thread each", "clients on one event loop"} {
				if strings.Contains(out, l) != (l == tc.line) {
					t.Errorf("store line says %q: %v, want %v:\n%s", l, !(l == tc.line), l == tc.line, out)
				}
			}
		})
	}
}

// TestConnectionCheckFollowsTheStoresTable: which stores start a server,
// and the limits their servers keep, are the stores table's
// (stores.Entry.Server), not driver names in the command line: a driver
// of another name is checked by its entry, and the server's own floor is
// asked only of a limit below the clients'.
func TestConnectionCheckFollowsTheStoresTable(t *testing.T) {
	asked := 0
	app := testApp()
	app.Stores = append(append([]stores.Entry{}, stores.Builtin...),
		stores.Entry{Driver: "raising", Open: func(context.Context, store.Spec, store.Env) (store.Store, error) {
			return nil, errors.New("must not be opened")
		}, Dialect: "mysql", FilesPerSession: 1, Server: &stores.Server{StartsFrom: 1, RunsAtLeast: func() int { asked++; return 10 }}},
		stores.Entry{Driver: "reserving", Open: func(context.Context, store.Spec, store.Env) (store.Store, error) {
			return nil, errors.New("must not be opened")
		}, Dialect: "postgres", FilesPerSession: 1, Server: &stores.Server{StartsFrom: 4, RunsAtLeast: func() int { asked++; return 1 }}},
		stores.Entry{Driver: "defaulting", Open: func(context.Context, store.Spec, store.Env) (store.Store, error) {
			return nil, errors.New("must not be opened")
		}, Dialect: "postgres", FilesPerSession: 1, Server: &stores.Server{StartsFrom: 4, RunsAtLeast: func() int { return 1 }, DefaultConnections: func() int { asked++; return 100 }}},
	)
	for _, c := range []struct {
		spec    string
		clients int
		want    string // the refusal, or "" for none
		asks    bool   // whether the server's floor is asked
	}{
		// Below the clients, within the floor the server raises it to.
		{"raising:managed?max-connections=4", 9, "", true},
		{"raising:managed?max-connections=4", 10, "max-connections=4 cannot take -c 10 clients and kurabe's own connection, which counts and verifies the tables beside them; give max-connections=11 or more", true},
		// Enough for the clients and kurabe's own: nothing to ask.
		{"raising:managed?max_connections=11", 10, "", false},
		// Below what the server starts with.
		{"reserving:managed?max_connections=3", 1, "give max_connections=4 or more", true},
		{"reserving:managed?max_connections=4", 3, "", false},
		// None given: the server's default must take them.
		{"defaulting:managed", 99, "", true},
		{"defaulting:managed", 100, "the server runs max_connections=100 unless told otherwise, which cannot take -c 100 clients and kurabe's own connection, which counts and verifies the tables beside them; give the store max_connections=101 or more (defaulting:managed?max_connections=101)", true},
		{"defaulting:managed?connect=pool&pool_size=120", 200, "cannot take a pool of 120 connections and kurabe's own connection, which counts and verifies the tables beside them; give the store max_connections=121 or more (defaulting:managed?connect=pool&max_connections=121&pool_size=120)", true},
		{"defaulting:managed?max_connections=300", 200, "", false},
		// A server given by its address is not kurabe's to start.
		{"raising://u@127.0.0.1/db?max_connections=3", 10, "", false},
	} {
		asked = 0
		sp, err := store.ParseSpec(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		var got error
		if app.startsServer(sp) {
			got = checkConnections(sp, app.driver(sp.Driver).Server, c.clients)
		}
		if (got == nil) != (c.want == "") || got != nil && !strings.Contains(got.Error(), c.want) {
			t.Errorf("%s with -c %d: %v, want %q", c.spec, c.clients, got, c.want)
		}
		if (asked > 0) != c.asks {
			t.Errorf("%s with -c %d: the server's floor asked %d times, want asked: %v", c.spec, c.clients, asked, c.asks)
		}
	}
}

// A server whose connection limit the clients would fill turns clients
// away, and every phase, writing ones too, runs with the others and is
// verified: kurabe's counting connection is opened before the sessions.
// Before, the write phase failed with "counting posts before write: too
// many clients already". The server is a real PostgreSQL at
// max_connections=8, given by its address (kurabe refuses too many clients
// for a managed one before it starts).
func TestServerFullTurnsClientsAwayInWritingPhases(t *testing.T) {
	dir, err := os.MkdirTemp("", "kurabe-full-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	sp, _ := store.ParseSpec("postgres:managed?max_connections=8")
	srv, err := postgres.Open(ctx, sp, store.Env{Dir: dir})
	storetest.RequireServer(t, err)
	defer srv.Close()
	if err := srv.Setup(ctx, nil); err != nil {
		storetest.RequireServer(t, err)
	}
	addr := strings.TrimPrefix(srv.Info(ctx).Target, "managed ")
	js := filepath.Join(t.TempDir(), "out.json")
	out, errs, code := runCLI(t, testApp(), "run", "--store", "postgres://kurabe@"+addr+"/postgres", "--ops", "read-latest,write,mix",
		"-n", "60", "-c", "12", "--repeat", "2", "-q", "--json", js)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	doc, err := result.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	for _, ph := range doc.Stores[0].Phases {
		refused := int64(0)
		for _, e := range ph.SessionErrors {
			refused += e.Count
		}
		// 8 connections: a phase that writes has kurabe's own, which
		// counts, and 7 clients'. kurabe's own connection is the one that
		// holds its lock on the schema (a server kurabe did not start)
		// for the whole run, a repeat's store sharing it: so a phase that
		// only reads has 7 clients' too, where a run without the lock
		// had 8.
		want := 7
		if ph.Clients != want || refused != int64(12-want) || ph.Ops != 60 || ph.Errors != 0 {
			t.Errorf("%s: %d clients ran, %d refused, %d ops, %d errors; want %d, %d, 60, 0", ph.Op, ph.Clients, refused, ph.Ops, ph.Errors, want, 12-want)
		}
		for _, v := range ph.Verify {
			if v.Error != "" || v.Lost != 0 || v.After-v.Before != 60 && ph.Op == "write" {
				t.Errorf("%s: verify %+v", ph.Op, v)
			}
		}
	}
	if !strings.Contains(out, "12 clients (7 ran)") {
		t.Errorf("the header does not say how many clients ran:\n%s", out)
	}
}

// kurabe's counting connection idles through the phase, and a server may
// close an idle connection (PostgreSQL's idle_session_timeout here; MariaDB's
// wait_timeout, a proxy): the count after the phase then opens a new one.
// Before, the run failed with "could not verify posts: … terminating
// connection due to idle-session timeout".
func TestCountAfterTheServerClosedTheIdleCounter(t *testing.T) {
	js := filepath.Join(t.TempDir(), "out.json")
	out, errs, code := runCLI(t, testApp(), "run", "--store", "postgres:managed?idle_session_timeout=300", "--ops", "write",
		"-d", "1.5s", "-c", "2", "--think", "5ms", "-q", "--json", js)
	if code != 0 && strings.Contains(errs, "apt-get install") && os.Getenv("KURABE_REQUIRE_SERVERS") == "" {
		t.Skip(strings.TrimSpace(errs))
	}
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	doc, err := result.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	ph := doc.Stores[0].Phases[0]
	if len(ph.Verify) != 1 || ph.Verify[0].Error != "" || ph.Verify[0].Lost != 0 || ph.Verify[0].After-ph.Verify[0].Before != ph.Ops || ph.Ops == 0 {
		t.Fatalf("ops %d, verify %+v; want every write verified", ph.Ops, ph.Verify)
	}
}

// More clients than a managed server's default max_connections takes
// (as its program says) are refused before the server starts, with the
// setting to give; given it, the check passes. Before, -c 160 started
// PostgreSQL and MariaDB, and both failed once their phases began.
func TestManagedDefaultMaxConnectionsChecked(t *testing.T) {
	for _, c := range []struct {
		driver string
		limit  func() int
	}{
		{"postgres", postgres.DefaultConnections},
		{"mariadb", func() int { return mysql.DefaultConnections("mariadb") }},
	} {
		t.Run(c.driver, func(t *testing.T) {
			limit := c.limit()
			if limit <= 0 {
				storetest.RequireServer(t, fmt.Errorf("%s's server program does not say its max_connections: %w", c.driver, server.ErrMissing))
			}
			spec := c.driver + ":managed"
			clients := strconv.Itoa(limit)
			out, errs, code := runCLI(t, testApp(), "run", "--store", spec, "--ops", "write", "-n", "10", "-c", "1,"+clients, "-q")
			want := fmt.Sprintf("store %s: the server runs max_connections=%d unless told otherwise, which cannot take -c %d clients and kurabe's own connection", spec, limit, limit)
			if code != ExitUsage || !strings.Contains(errs, want) || !strings.Contains(errs, fmt.Sprintf("(%s?max_connections=%d)", spec, limit+1)) || out != "" {
				t.Fatalf("exit %d; want %d and %q\n%s%s", code, ExitUsage, want, out, errs)
			}
			if _, err := testApp().planRun([]string{"--store", fmt.Sprintf("%s?max_connections=%d", spec, limit+1), "--ops", "write", "-n", "10", "-c", "1," + clients}, io.Discard); err != nil {
				t.Errorf("with max_connections=%d: %v", limit+1, err)
			}
		})
	}
}

// A variant whose tables the server refused (64k pages take no
// row_format=Compressed) read nothing back: its row, store line and JSON
// give the row format asked, marked as given and not read back, not as
// read back, and the matrix does not judge it. Before, they showed
// row_format COMPRESSED as read back.
func TestFailedVariantReadsNothingBack(t *testing.T) {
	js := filepath.Join(t.TempDir(), "out.json")
	out, errs, code := runCLI(t, testApp(), "run", "--store", "mariadb:managed?innodb_page_size=64k", "--vary", "row_format=Compressed,Dynamic",
		"--ops", "write", "-n", "20", "-c", "2", "-q", "--json", js)
	if code != 0 && strings.Contains(errs, "apt-get install") {
		storetest.RequireServer(t, fmt.Errorf("%s: %w", strings.TrimSpace(errs), server.ErrMissing))
	}
	if code != ExitFailed {
		t.Fatalf("exit %d, want %d (the Compressed variant fails)\n%s%s", code, ExitFailed, out, errs)
	}
	doc, err := result.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Compressed (given; not read back)", "Dynamic"}
	for i, s := range doc.Stores {
		if got := s.Info.Options["row_format"]; got != want[i] {
			t.Errorf("%s: row_format %q, want %q (error %q)", s.Label, got, want[i], s.Error)
		}
	}
	if !regexp.MustCompile(`\nmariadb +Compressed +FAILED +Compressed \(given; not read back\) `).MatchString(out) || strings.Contains(out, "≠") {
		t.Errorf("the failed variant's row:\n%s", out)
	}
}

// A managed server's setting given in mixed case is one name: the store
// line lists it once, as the server read it back, and the result's spec
// and label have it in lower case. Before, Shared_Buffers=32MB was listed
// twice (Shared_Buffers=32MB … shared_buffers=32MB).
func TestMixedCaseSettingListedOnce(t *testing.T) {
	js := filepath.Join(t.TempDir(), "out.json")
	out, errs, code := runCLI(t, testApp(), "run", "--store", "postgres:managed?Shared_Buffers=32MB", "--vary", "Work_Mem=4MB,8MB",
		"--ops", "write", "-n", "10", "-c", "2", "-q", "--json", js)
	if code != 0 && strings.Contains(errs, "apt-get install") {
		storetest.RequireServer(t, fmt.Errorf("%s: %w", strings.TrimSpace(errs), server.ErrMissing))
	}
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	lines := regexp.MustCompile(`(?m)^store postgres.*$`).FindAllString(out, -1)
	if len(lines) != 2 {
		t.Fatalf("%d store lines, want 2:\n%s", len(lines), out)
	}
	for _, l := range lines {
		_, l, _ = strings.Cut(l, ") · ") // the options, after the label, target and version
		if n := strings.Count(strings.ToLower(l), "shared_buffers="); n != 1 || !strings.Contains(l, " shared_buffers=32MB ") || strings.Count(strings.ToLower(l), "work_mem=") != 1 {
			t.Errorf("shared_buffers listed %d times, want once as shared_buffers=32MB, and work_mem once: %s", n, l)
		}
	}
	if !strings.Contains(out, "work_mem (read back)") || strings.Contains(out, "≠") {
		t.Errorf("the --vary table:\n%s", out)
	}
	doc, err := result.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range doc.Stores {
		if !strings.Contains(s.Spec, "shared_buffers=32MB") || strings.Contains(s.Spec, "Shared") || s.Variant[0].Name != "work_mem" {
			t.Errorf("spec %s, variant %v: want the settings in lower case", s.Spec, s.Variant)
		}
	}
}

// TestMaxConnectionsBelowMariaDBsFloor: MariaDB runs a max_connections
// below 10 as 10, so 9 clients and kurabe's own connection run on
// max-connections=4; mysql:managed, which runs the same MariaDB where
// mysqld is MariaDB (Debian), takes them as mariadb:managed does. Before,
// the check raised the limit for the name mariadb only, and refused
// mysql:managed a run its server takes. Where mysqld is MySQL, which runs
// the limit as given, the run is refused.
func TestMaxConnectionsBelowMariaDBsFloor(t *testing.T) {
	for _, driver := range []string{"mariadb", "mysql"} {
		t.Run(driver, func(t *testing.T) {
			js := filepath.Join(t.TempDir(), "out.json")
			spec := driver + ":managed?max-connections=4"
			out, errs, code := runCLI(t, testApp(), "run", "--store", spec, "--ops", "write", "-n", "18", "-c", "9", "-q", "--json", js)
			if code != 0 && strings.Contains(errs, "apt-get install") {
				storetest.RequireServer(t, fmt.Errorf("%s: %w", strings.TrimSpace(errs), server.ErrMissing))
			}
			if mysql.MinConnections(driver) < 10 {
				if code != ExitUsage || !strings.Contains(errs, "max-connections=4 cannot take -c 9 clients") {
					t.Fatalf("%s's server runs max_connections as given, and -c 9 was not refused: exit %d\n%s%s", driver, code, out, errs)
				}
				return
			}
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			doc, err := result.ReadFile(js)
			if err != nil {
				t.Fatal(err)
			}
			ph := doc.Stores[0].Phases[0]
			if ph.Clients != 9 || len(ph.SessionErrors) > 0 || ph.Ops != 18 || ph.Errors != 0 {
				t.Errorf("%d clients ran (session errors %v), %d ops, %d errors; want 9, none, 18, 0", ph.Clients, ph.SessionErrors, ph.Ops, ph.Errors)
			}
		})
	}
}

// A store's URL typed without --store is quoted back without its
// password (Main prints every error through store.HideSecrets).
func TestMisplacedStoreURLHidesPassword(t *testing.T) {
	for _, args := range [][]string{
		{"run", "postgres://app:Zq9SecretPw77@127.0.0.1:1/appdb"},
		{"dataset", "import", "mysql://app:Zq9SecretPw77@127.0.0.1:1/x"},
		{"dataset", "import", "postgres://app:Zq9SecretPw77@127.0.0.1:1/appdb?password=Zq9SecretPw77"},
	} {
		var out, errb bytes.Buffer
		code := Main(context.Background(), args, &out, &errb)
		if code != ExitUsage || strings.Contains(out.String()+errb.String(), "Zq9SecretPw77") || !strings.Contains(errb.String(), "app:xxxxx@") {
			t.Errorf("%v: exit %d, printed %s%s", args, code, out.String(), errb.String())
		}
	}
}

// TestOutcome: the exit status a result document gives, for what a run
// can find: a write lost, writes that could not be verified, a phase
// whose every operation failed, some failures, an interruption.
func TestOutcome(t *testing.T) {
	phase := func(ops, errs int64, v ...result.Verify) result.Phase {
		return result.Phase{Op: "write", Ops: ops, Errors: errs, Verify: v}
	}
	cases := []struct {
		name  string
		doc   result.Document
		code  int
		words string
	}{
		{"clean", result.Document{Stores: []result.Store{{Label: "a", Phases: []result.Phase{phase(10, 0, result.Verify{Table: "posts", Acked: 10, After: 10})}}}}, ExitOK, ""},
		{"some failed", result.Document{Stores: []result.Store{{Label: "a", Phases: []result.Phase{phase(10, 3)}}}}, ExitOK, ""},
		{"lost", result.Document{Stores: []result.Store{{Label: "a", Phases: []result.Phase{phase(10, 0, result.Verify{Table: "posts", Acked: 10, After: 9, Lost: 1})}}}}, ExitFailed, "1 writes lost"},
		{"unverified", result.Document{Stores: []result.Store{{Label: "a", Phases: []result.Phase{phase(10, 0, result.Verify{Table: "posts", Acked: 10, Error: "Too many connections"})}}}}, ExitFailed, "could not be verified"},
		{"all failed", result.Document{Stores: []result.Store{{Label: "a", Phases: []result.Phase{phase(0, 5)}}}}, ExitFailed, "every operation of a write failed"},
		{"all skipped", result.Document{Stores: []result.Store{{Label: "a", Phases: []result.Phase{{Op: "transaction", Errors: 1, ErrorClasses: []result.ErrorClass{{Class: "skipped", Count: 1}}}}}}}, ExitOK, ""},
		{"skipped and failed", result.Document{Stores: []result.Store{{Label: "a", Phases: []result.Phase{{Op: "transaction", Errors: 3, ErrorClasses: []result.ErrorClass{{Class: "skipped", Count: 1}, {Class: "error", Count: 2}}}}}}}, ExitFailed, "every operation of a transaction failed"},
		// A mix whose writes all failed while its reads went through.
		{"a kind all failed", result.Document{Stores: []result.Store{{Label: "a", Phases: []result.Phase{{Op: "mix", Ops: 40, Errors: 60, Kinds: []result.Kind{
			{Name: "write", Errors: 60, ErrorClasses: []result.ErrorClass{{Class: "error", Count: 60}}}, {Name: "read-all", Ops: 40}}}}}}}, ExitFailed, "every operation of a mix (write) failed"},
		{"a kind partly failed", result.Document{Stores: []result.Store{{Label: "a", Phases: []result.Phase{{Op: "mix", Ops: 41, Errors: 59, Kinds: []result.Kind{
			{Name: "write", Ops: 1, Errors: 59}, {Name: "read-all", Ops: 40}}}}}}}, ExitOK, ""},
		{"interrupted", result.Document{Interrupted: true, Stores: []result.Store{{Label: "a", Phases: []result.Phase{phase(0, 5)}}}}, ExitInterrupted, "interrupted"},
		{"store failed", result.Document{Stores: []result.Store{{Label: "a", Error: "boom"}}}, ExitFailed, "store a failed"},
		// Errors that say work was lost fail the run, where others only
		// count: a write refused for its key's order, rows the run wrote
		// that a read did not find, rows a bulk load did not take.
		{"key order", result.Document{Stores: []result.Store{{Label: "file", Phases: []result.Phase{withClasses(phase(99, 1), result.ErrorClass{Class: "key-order", Count: 1})}}}}, ExitFailed, "work was lost in file write (key-order 1)"},
		{"missing", result.Document{Stores: []result.Store{{Label: "a", Phases: []result.Phase{withClasses(phase(97, 3), result.ErrorClass{Class: "missing", Count: 3})}}}}, ExitFailed, "work was lost in a write (missing 3)"},
		{"lost in bulk", result.Document{Stores: []result.Store{{Label: "a", Phases: []result.Phase{withClasses(phase(9, 1), result.ErrorClass{Class: "lost", Count: 1})}}}}, ExitFailed, "(lost 1)"},
		// A row missing after a failure in an earlier phase may be that
		// failure's (a failed insert's sequence number): errors only.
		{"missing after a failure", result.Document{Stores: []result.Store{{Label: "a", Phases: []result.Phase{
			withClasses(phase(9, 1), result.ErrorClass{Class: "error", Count: 1}),
			withClasses(phase(9, 1), result.ErrorClass{Class: "missing", Count: 1})}}}}, ExitOK, ""},
		// ... but not after a failure in another repeat, on a store of its own.
		{"missing after another repeat's failure", result.Document{Stores: []result.Store{{Label: "a", Phases: []result.Phase{
			withClasses(phase(9, 1), result.ErrorClass{Class: "error", Count: 1}),
			inRepeat(withClasses(phase(9, 1), result.ErrorClass{Class: "missing", Count: 1}), 1)}}}}, ExitFailed, "(missing 1)"},
		// ... nor after a failure at another client level, whose phases
		// are listed among this level's (phase by phase, every level's
		// together: insert c=1, insert c=4, read c=1, read c=4) but ran
		// on tables of their own; at its own level it may explain one.
		{"missing after another level's failure", result.Document{Run: result.RunConfig{Clients: 1, Levels: []int{1, 4}}, Stores: []result.Store{{Label: "a", Phases: []result.Phase{
			atLevel(phase(10, 0), 1),
			atLevel(withClasses(phase(9, 1), result.ErrorClass{Class: "error", Count: 1}), 4),
			atLevel(withClasses(phase(9, 1), result.ErrorClass{Class: "missing", Count: 1}), 1)}}}}, ExitFailed, "(missing 1)"},
		{"missing after a failure at its level", result.Document{Run: result.RunConfig{Clients: 1, Levels: []int{1, 4}}, Stores: []result.Store{{Label: "a", Phases: []result.Phase{
			atLevel(phase(10, 0), 1),
			atLevel(withClasses(phase(9, 1), result.ErrorClass{Class: "error", Count: 1}), 4),
			atLevel(phase(10, 0), 1),
			atLevel(withClasses(phase(9, 1), result.ErrorClass{Class: "missing", Count: 1}), 4)}}}}, ExitOK, ""},
		// Rows that writes whose answer was lost stored fail nothing;
		// rows beyond them do, and the message says how many they explain.
		{"unknown stored", result.Document{Stores: []result.Store{{Label: "a", Phases: []result.Phase{phase(10, 5, judged(result.Verify{Table: "posts", Acked: 10, After: 13, Unknown: 5}))}}}}, ExitOK, ""},
		{"extra beyond unknown", result.Document{Stores: []result.Store{{Label: "a", Phases: []result.Phase{phase(10, 5, judged(result.Verify{Table: "posts", Acked: 10, After: 17, Unknown: 5}))}}}}, ExitFailed, "0 writes lost, 2 extra rows besides the 5 that writes whose answer was lost"},
		{"lost with unknown", result.Document{Stores: []result.Store{{Label: "a", Phases: []result.Phase{phase(10, 5, judged(result.Verify{Table: "posts", Acked: 10, After: 8, Unknown: 5}))}}}}, ExitFailed, "2 writes lost, 0 extra rows"},
		{"insert-failed", result.Document{Stores: []result.Store{{Label: "a", Phases: []result.Phase{withClasses(phase(9, 2), result.ErrorClass{Class: "busy", Count: 1}, result.ErrorClass{Class: "insert-failed", Count: 1})}}}}, ExitOK, ""},
	}
	for _, c := range cases {
		err := outcome(&c.doc, "en")
		code := ExitOK
		var ee *ExitError
		if errors.As(err, &ee) {
			code = ee.Code
		}
		if code != c.code || (c.words != "" && !strings.Contains(err.Error(), c.words)) {
			t.Errorf("%s: %v (exit %d), want exit %d with %q", c.name, err, code, c.code, c.words)
		}
	}
}

func judged(v result.Verify) result.Verify {
	v.Judge()
	return v
}

func withClasses(p result.Phase, cs ...result.ErrorClass) result.Phase {
	p.ErrorClasses = cs
	return p
}

func atLevel(p result.Phase, clients int) result.Phase {
	p.Clients = clients
	return p
}

func inRepeat(p result.Phase, rep int) result.Phase {
	p.Repeat = rep
	return p
}

// TestRunFailsOnLostRows: a store that loses rows it acknowledged, seen
// by reads that do not find them (class missing) rather than by the
// count after the writes, fails the run, though errors alone do not.
func TestRunFailsOnLostRows(t *testing.T) {
	app := faultApp("losing", func(st store.Store) store.Store { return &storefault.LoseRows{Store: st, Every: 50} })
	out, errs, code := runCLI(t, app, "run", "-w", "point", "--store", "losing:", "--store", "sqlite:", "--hit", "1", "--dataset-rows", "500", "-n", "400", "-c", "2")
	if code != ExitFailed || !strings.Contains(errs, "work was lost in losing point (missing ") || strings.Contains(errs, "sqlite point") {
		t.Fatalf("exit %d, want %d naming losing's point alone; stderr %s\n%s", code, ExitFailed, errs, out)
	}
	if !strings.Contains(out, "errors of class missing") {
		t.Errorf("the errors are not under the table:\n%s", out)
	}
}

// TestDirRelativeAndReused: a relative --dir is made absolute (a server
// kurabe starts runs elsewhere and would read it against its own
// directory), and a --dir given again gets a fresh directory per store
// beside the earlier run's, which stays.
func TestDirRelativeAndReused(t *testing.T) {
	t.Chdir(t.TempDir())
	var targets []string
	for run := range 2 {
		js := fmt.Sprintf("r%d.json", run)
		if _, errs, code := runCLI(t, testApp(), "run", "-q", "--store", "sqlite:", "--dir", "rel", "--ops", "write", "-n", "5", "--repeat", "2", "--json", js); code != ExitOK {
			t.Fatalf("run %d: exit %d: %s", run, code, errs)
		}
		doc, err := result.ReadFile(js)
		if err != nil {
			t.Fatal(err)
		}
		if !filepath.IsAbs(doc.Run.Dir) || filepath.Base(doc.Run.Dir) != "rel" {
			t.Errorf("run %d: dir %q, want the absolute path of rel", run, doc.Run.Dir)
		}
		targets = append(targets, doc.Stores[0].Info.Target)
	}
	// The result names the last repeat's store.
	if !strings.Contains(targets[0], "r2-1-sqlite"+string(filepath.Separator)) || !strings.Contains(targets[1], "r2-1-sqlite-2"+string(filepath.Separator)) {
		t.Errorf("stores in %q then %q; want r2-1-sqlite then r2-1-sqlite-2", targets[0], targets[1])
	}
	if _, err := os.Stat(targets[0]); err != nil {
		t.Errorf("the first run's data is gone: %v", err)
	}
	// Every repeat of each run had a directory of its own.
	var got []string
	ents, _ := os.ReadDir("rel")
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if want := []string{"1-sqlite", "1-sqlite-2", "r2-1-sqlite", "r2-1-sqlite-2"}; !slices.Equal(got, want) {
		t.Errorf("rel holds %v, want %v", got, want)
	}
}

// managedRun is a kurabe process running a long phase on a managed
// PostgreSQL, with its temporary directories in tmp.
type managedRun struct {
	cmd  *exec.Cmd
	done chan error // cmd.Wait's result
	out  lockedBuffer
	tmp  string
	pid  int // the server's
}

// startManagedRun starts kurabe on postgres:managed and returns once its
// server accepts connections and the phase has begun.
func startManagedRun(t *testing.T) *managedRun {
	bin := kurabeBinary(t)
	// A TMPDIR the server can enter: it runs as postgres when the test is
	// root, and t.TempDir's parent is private.
	tmp, err := os.MkdirTemp("", "kurabe-abandon-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	os.Chmod(tmp, 0o755)
	r := &managedRun{tmp: tmp, done: make(chan error, 1)}
	r.cmd = exec.Command(bin, "run", "--store", "postgres:managed", "--ops", "write", "-d", "60s", "-c", "2", "-q")
	r.cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	r.cmd.Stdout, r.cmd.Stderr = &r.out, &r.out
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { r.done <- r.cmd.Wait() }()
	for deadline := time.Now().Add(60 * time.Second); r.pid == 0; time.Sleep(20 * time.Millisecond) {
		select {
		case err := <-r.done:
			if strings.Contains(r.out.String(), "apt-get install") {
				storetest.RequireServer(t, fmt.Errorf("%w: %s", server.ErrMissing, r.out.String()))
			}
			t.Fatalf("kurabe ended before its server ran: %v\n%s", err, r.out.String())
		default:
		}
		if time.Now().After(deadline) {
			r.cmd.Process.Kill()
			t.Fatalf("no server within 60s\n%s", r.out.String())
		}
		// postmaster.pid's last line says ready once the server accepts
		// connections.
		files, _ := filepath.Glob(filepath.Join(tmp, "kurabe-*", "1-postgres", "*", "postmaster.pid"))
		if len(files) == 1 {
			if b, err := os.ReadFile(files[0]); err == nil && strings.Contains(string(b), "ready") {
				fmt.Sscan(string(b), &r.pid)
			}
		}
	}
	time.Sleep(500 * time.Millisecond) // the phase running
	return r
}

// serverGone fails the test unless the run's server has exited within 5 s
// (a zombie has: whether init reaps it is init's affair).
func (r *managedRun) serverGone(t *testing.T) {
	t.Helper()
	alive := func() bool {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", r.pid))
		return err == nil && !strings.Contains(string(b), ") Z ")
	}
	for deadline := time.Now().Add(5 * time.Second); alive(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			syscall.Kill(-r.pid, syscall.SIGKILL)
			t.Fatalf("the server (pid %d) outlived kurabe\n%s", r.pid, r.out.String())
		}
	}
}

// TestSecondInterruptCleansUp: a second Ctrl-C ends kurabe at once, and
// still kills the managed server it started (in a process group of its
// own, which the terminal's Ctrl-C does not reach) and removes its
// temporary data directory, as the orderly stop would have.
func TestSecondInterruptCleansUp(t *testing.T) {
	r := startManagedRun(t)
	// Two signals sent at once would arrive as one: the second goes once
	// the first is seen.
	r.cmd.Process.Signal(syscall.SIGINT)
	for !strings.Contains(r.out.String(), "press Ctrl-C again") {
		time.Sleep(time.Millisecond)
	}
	// At once, before the orderly stop ends: a SIGINT within half a
	// second of the first is taken for the same one delivered twice
	// (TestInterruptWritesResult), so the second request is a SIGTERM,
	// which goes the same way as a person's second Ctrl-C.
	r.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-r.done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 143 {
			t.Fatalf("exit: %v, want 143\n%s", err, r.out.String())
		}
	case <-time.After(20 * time.Second):
		r.cmd.Process.Kill()
		t.Fatalf("kurabe did not stop within 20s of SIGTERM\n%s", r.out.String())
	}
	if !strings.Contains(r.out.String(), "writing no results") {
		t.Errorf("does not say it wrote nothing:\n%s", r.out.String())
	}
	r.serverGone(t)
	if left, _ := filepath.Glob(filepath.Join(r.tmp, "kurabe-*")); len(left) > 0 {
		t.Errorf("left behind: %v\n%s", left, r.out.String())
	}
	if !strings.Contains(r.out.String(), "removed "+r.tmp) {
		t.Errorf("does not say what it removed:\n%s", r.out.String())
	}
}

// TestKilledKurabeTakesItsServer: kurabe killed outright (kill -9, the OOM
// killer) cannot stop its managed server, which would go on listening on
// loopback with no password; the kernel ends it (a parent-death signal).
func TestKilledKurabeTakesItsServer(t *testing.T) {
	r := startManagedRun(t)
	r.cmd.Process.Kill()
	<-r.done
	r.serverGone(t)
}

// TestManagedStartFailureNamesNoGoneFile: a managed server that will not
// start (a value it rejects; a setting it does not have is refused before
// it starts) fails with the end of its log
// quoted. Before, the message also sent the reader to the log's file,
// which kurabe had removed with its temporary directory by the time the
// message appeared; now a file is named only when the directory is kept
// (--dir, --keep), and then it is there.
func TestManagedStartFailureNamesNoGoneFile(t *testing.T) {
	path := regexp.MustCompile(`/[\w.\-]+(/[\w.\-]+)+`)
	for _, tc := range []struct {
		name   string
		args   []string
		driver string
		says   string // what the server complained of, quoted
		keep   bool
	}{
		{"capture postgres", []string{"capture", "--store", "postgres:managed?shared_buffers=lots", "--", "true"}, "postgres", `invalid value for parameter "shared_buffers": "lots"`, false},
		{"capture mariadb", []string{"capture", "--store", "mariadb:managed?character_set_server=no_such_charset", "--", "true"}, "mariadb", "Character set 'no_such_charset' is not a compiled character set", false},
		{"run postgres", []string{"run", "--store", "postgres:managed?shared_buffers=lots", "-n", "1", "-q"}, "postgres", `invalid value for parameter "shared_buffers": "lots"`, false},
		{"run mariadb", []string{"run", "--store", "mariadb:managed?character_set_server=no_such_charset", "-n", "1", "-q"}, "mariadb", "Character set 'no_such_charset' is not a compiled character set", false},
		{"capture postgres kept", []string{"capture", "--store", "postgres:managed?shared_buffers=lots", "--keep", "--", "true"}, "postgres", `invalid value for parameter "shared_buffers": "lots"`, true},
		{"run mariadb kept", []string{"run", "--store", "mariadb:managed?character_set_server=no_such_charset", "-n", "1", "-q"}, "mariadb", "Character set 'no_such_charset' is not a compiled character set", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := slices.Clone(tc.args)
			if tc.keep {
				// --dir keeps the directory; capture also takes --keep.
				// The server must be able to enter it when the test runs
				// as root (and t.TempDir's parent is private).
				dir, err := os.MkdirTemp("", "kurabe-kept-")
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { os.RemoveAll(dir) })
				os.Chmod(dir, 0o755)
				args = slices.Insert(args, 1, "--dir", dir)
			}
			if tc.args[0] == "capture" {
				args = slices.Insert(args, 1, "--log", filepath.Join(t.TempDir(), "c.log"))
			}
			out, errs, code := runCLI(t, testApp(), args...)
			text := out + errs
			if code != ExitFailed && code != ExitUsage || !strings.Contains(text, tc.says) {
				if strings.Contains(text, "not found") {
					storetest.RequireServer(t, fmt.Errorf("%s: %w", text, server.ErrMissing))
				}
				t.Fatalf("exit %d; want a failure that quotes %q:\n%s", code, tc.says, text)
			}
			// Every file kurabe's own lines name is there; the quoted
			// lines of the server's log (indented) are the server's.
			var named []string
			for _, line := range strings.Split(text, "\n") {
				if strings.HasPrefix(line, "  ") || strings.Contains(line, "(removed)") {
					continue
				}
				for _, p := range path.FindAllString(line, -1) {
					named = append(named, p)
					if _, err := os.Stat(p); err != nil {
						t.Errorf("the message names %s, which is gone: %q", p, line)
					}
				}
			}
			if tc.keep && !strings.Contains(text, "(the whole log is kept in ") {
				t.Errorf("the directory was kept, and the message does not say where the log is:\n%s", text)
			}
			t.Logf("named: %q", named)
		})
	}
}

// TestClientLevelsStartFresh: with client levels, a workload whose phases
// change the tables for the ones after them runs the whole sequence at
// each level on tables set up anew, its data set loaded again. Before,
// every phase ran at each level in turn on what the levels before it
// left: crud's batch-delete at c=2 found the table empty (exit 1), and
// every c=2 phase worked on another table than its c=1 row.
func TestClientLevelsStartFresh(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		before map[string]int64 // rows the written table held before the phase, at every level
		order  []string         // the phases, as the table lists them
	}{
		{"crud", []string{"-w", "crud", "--record-size", "32", "-n", "100"}, map[string]int64{"insert": 0},
			[]string{"insert", "insert", "read", "read", "batch-read", "batch-read", "update", "update", "delete", "delete", "batch-delete", "batch-delete"}},
		// The pre-fill is put on again for the second level.
		{"bbs", []string{"-w", "bbs", "--ops", "write,read-all", "--prefill", "5", "-n", "20"}, map[string]int64{"write": 5},
			[]string{"write", "write", "read-all", "read-all"}},
		{"bbs via http", []string{"-w", "bbs", "--ops", "write,mix", "--via-http", "-n", "20"}, map[string]int64{"write": 0, "mix": 20},
			[]string{"write", "write", "mix", "mix"}},
		// usertable is loaded again: D's inserts start from recordcount.
		{"ycsb D", []string{"-w", "ycsb", "--ops", "D,C", "--recordcount", "100", "--field-size", "10", "-n", "200"}, map[string]int64{"D": 100},
			[]string{"D", "D", "C", "C"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			js := filepath.Join(t.TempDir(), "out.json")
			args := append([]string{"run", "--store", "sqlite:", "-c", "1,2", "--seed", "3", "--json", js}, tc.args...)
			_, errs, code := runCLI(t, testApp(), args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			doc, err := result.ReadFile(js)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range doc.Stores {
				var ops []string
				for i, p := range s.Phases {
					ops = append(ops, p.Op)
					if want := []int{1, 2}[i%2]; p.Clients != want || p.Errors != 0 {
						t.Errorf("%s %s: %d clients, errors %+v; want %d and none", s.Label, p.Op, p.Clients, p.ErrorClasses, want)
					}
					if want, ok := tc.before[p.Op]; ok && (len(p.Verify) != 1 || p.Verify[0].Before != want || p.Verify[0].Lost+p.Verify[0].Extra != 0) {
						t.Errorf("%s %s c=%d: verify %+v; want %d rows before", s.Label, p.Op, p.Clients, p.Verify, want)
					}
				}
				if !slices.Equal(ops, tc.order) {
					t.Errorf("%s: phases %v, want %v", s.Label, ops, tc.order)
				}
				// The levels worked on alike tables: read-all read as much at both.
				for i := 0; i+1 < len(s.Phases); i += 2 {
					if a, b := s.Phases[i], s.Phases[i+1]; a.Op == "read-all" && a.BytesRead != b.BytesRead {
						t.Errorf("%s read-all: %d bytes at c=1, %d at c=2", s.Label, a.BytesRead, b.BytesRead)
					}
				}
				if len(s.Prepared) > 1 {
					t.Errorf("%s: %d loads recorded, want the first level's", s.Label, len(s.Prepared))
				}
			}
		})
	}
}

// --isolate loads the data set into each client's table: the note says
// so per table, as the header's rows=500 counts one, where it said
// "1,000 rows" before, the sum without saying.
func TestIsolateLoadSaidPerTable(t *testing.T) {
	js := filepath.Join(t.TempDir(), "out.json")
	out, errs, code := runCLI(t, testApp(), "run", "-w", "point", "--isolate", "--store", "sqlite:", "--dataset", "records",
		"--dataset-rows", "500", "--record-size", "16", "-c", "2", "-n", "100", "--json", js)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "rows=500") || !strings.Contains(out, "data set loaded: 500 rows in each of 2 tables (1,000 in all)") {
		t.Errorf("output:\n%s", out)
	}
	doc, err := result.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	if p := doc.Stores[0].Prepared; len(p) != 1 || p[0].Rows != 1000 || p[0].Tables != 2 {
		t.Errorf("prepared %+v, want 1000 rows in 2 tables", p)
	}
}

// Stores that all have paths need no data directory, --isolate or not:
// the run makes none and names none. Before, --isolate printed
// "data /tmp/kurabe-NNN (removed)" for a temporary directory nothing
// used, the clients' files having gone beside the given paths.
func TestNoDataDirWhenEveryStoreHasAPath(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dir := t.TempDir()
	js := filepath.Join(dir, "out.json")
	out, errs, code := runCLI(t, testApp(), "run", "--store", "sqlite:"+filepath.Join(dir, "iso", "board.db"), "--store", "file:"+filepath.Join(dir, "iso")+"/",
		"--isolate", "-c", "2", "-n", "10", "--ops", "write", "--json", js)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if strings.Contains(out, "\ndata ") || strings.Contains(out, "removed") {
		t.Errorf("a data directory is named:\n%s", out)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("the run made %s in TMPDIR", ents[0].Name())
	}
	doc, err := result.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Run.Dir != "" {
		t.Errorf("data_dir %q, want none", doc.Run.Dir)
	}
	for _, name := range []string{"board_c1.db", "board_c2.db", "posts_c1.txt", "posts_c2.txt"} {
		if _, err := os.Stat(filepath.Join(dir, "iso", name)); err != nil {
			t.Errorf("a client's file beside the given path: %v", err)
		}
	}
	// A store without a path still gets one, named and removed.
	out, errs, code = runCLI(t, testApp(), "run", "--store", "sqlite:", "-n", "10", "-c", "1", "--ops", "write")
	if code != 0 || !strings.Contains(out, "\ndata "+tmp+"/kurabe-") || !strings.Contains(out, "(removed)") {
		t.Errorf("exit %d, %s:\n%s", code, errs, out)
	}
}

// A store path that holds no SQLite database is refused before anything
// runs, in one line, rather than run with its settings read back empty
// (cache_size= journal_mode=) and then failed by its first query.
func TestRunRefusesAPathThatIsNotADatabase(t *testing.T) {
	p := filepath.Join(t.TempDir(), "notdb")
	if err := os.WriteFile(p, []byte("hello not a db\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, code := runCLI(t, testApp(), "run", "--store", "sqlite:"+p, "-n", "10", "-c", "1")
	if code != ExitUsage || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, p+" is not an SQLite database") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// A --vary of one server kind's setting over stores of two kinds is
// refused before any server starts, naming the store that lacks it, as it
// is for the file and SQLite stores: each managed store asks its server
// program whether it has the setting when it is opened.
func TestVaryOfAnotherServersSettingRefusedUpFront(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--store", "postgres:managed", "--store", "mariadb:managed", "--vary", "innodb_page_size=4k,16k"},
			"--vary innodb_page_size: the store postgres:managed has no option innodb_page_size (its options: connect, protocol, synchronous_commit, pool_size, driver, or a setting the PostgreSQL server has"},
		{[]string{"--store", "mariadb:managed", "--store", "postgres:managed", "--vary", "shared_buffers=32MB,64MB"},
			"--vary shared_buffers: the store mariadb:managed has no option shared_buffers"},
	} {
		dir := t.TempDir()
		os.Chmod(dir, 0o755)
		out, errs, code := runCLI(t, testApp(), append([]string{"run", "--dir", dir, "-n", "10"}, c.args...)...)
		if strings.Contains(errs, "apt-get install") {
			storetest.RequireServer(t, fmt.Errorf("%w: %s", server.ErrMissing, errs))
		}
		if code != ExitUsage || !strings.Contains(errs, c.want) || !strings.Contains(errs, "in a run of its own, without this --vary") || out != "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 with %q", c.args, code, errs, c.want)
		}
		// Nothing was initialised for either server.
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if d != nil && !d.IsDir() {
				t.Errorf("%v: the refused run left %s", c.args, p)
			}
			return nil
		})
	}
}

// A store's password that is also a word of kurabe's messages is hidden
// in the address, and the rest of the message, printed and in the JSON's
// error, is left whole: before, the password postgres made "xxxxx: cannot
// connect to xxxxx://pguser:xxxxx@…", and on made "cannot cxxxxxnect".
func TestRunPasswordThatIsAWordLeavesTheMessageWhole(t *testing.T) {
	for _, c := range []struct{ driver, pw string }{
		{"postgres", "postgres"},
		{"postgres", "on"},
		{"mariadb", "mariadb"},
		{"mariadb", "on"},
	} {
		jsonPath := filepath.Join(t.TempDir(), "r.json")
		// Nothing listens on port 1: the store fails to connect.
		spec := c.driver + "://pguser:" + c.pw + "@127.0.0.1:1/nodb"
		out, _, code := runCLI(t, testApp(), "run", "-q", "--store", spec, "-n", "5", "-c", "1", "--json", jsonPath)
		if code != ExitFailed {
			t.Fatalf("%s: exit %d, want %d", spec, code, ExitFailed)
		}
		doc, err := os.ReadFile(jsonPath)
		if err != nil {
			t.Fatal(err)
		}
		want := c.driver + ": cannot connect to " + c.driver + "://pguser:xxxxx@127.0.0.1:1/nodb: "
		if !strings.Contains(out, c.driver+": FAILED: "+want) || !strings.Contains(string(doc), `"`+want) {
			t.Errorf("%s: want %q in the output and the JSON's error; got\n%s\n%s", spec, want, out, doc)
		}
		for _, text := range []string{out, string(doc)} {
			if strings.Count(text, "xxxxx") != strings.Count(text, "pguser:xxxxx@") || strings.Contains(text, "refused") && !strings.Contains(text, "connection refused") {
				t.Errorf("%s: garbled: %s", spec, text)
			}
		}
	}
}

// The refusals the docs quote are quoted as kurabe says them. Before,
// docs/tpcb.md cut the tpcb connect=per-op refusal short (no ", which
// needs none").
func TestDocsQuoteRefusalsWhole(t *testing.T) {
	for _, c := range []struct {
		doc  string
		args []string
	}{
		{"../docs/tpcb.md", []string{"run", "-w", "tpcb", "--store", "postgres:managed?connect=per-op"}},
	} {
		_, errs, code := runCLI(t, testApp(), c.args...)
		msg := strings.TrimSuffix(strings.TrimPrefix(errs, "kurabe: "), "\n")
		if code != ExitUsage || strings.Contains(msg, "\n") {
			t.Fatalf("%v: exit %d, %q; want one line, exit 2", c.args, code, errs)
		}
		doc, err := os.ReadFile(c.doc)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(doc), "`"+msg+"`") {
			t.Errorf("%s does not quote kurabe's message for %v whole: `%s`", c.doc, c.args, msg)
		}
	}
}

// checkOpenFiles gives the largest -c that fits under ulimit -n, and,
// where not one client fits beside kurabe's own files, the limit to raise
// to. Before, ulimit -n 64 and -c 1 said "give -c 1 or fewer".
func TestCheckOpenFilesAdvice(t *testing.T) {
	sqlite, _ := store.ParseSpec("sqlite:")
	two := func(store.Spec) (int, int) { return 2, 0 }
	for _, c := range []struct {
		clients, limit int
		want           string
	}{
		{100, 100, "give -c 18 or fewer, or raise ulimit -n"},
		{1, 64, "raise ulimit -n to 66 or more"},
		{10, 1 << 20, ""},
	} {
		err := checkOpenFiles([]store.Spec{sqlite}, two, fileUse{clients: c.clients, tables: 1}, c.limit)
		if c.want == "" {
			if err != nil {
				t.Errorf("-c %d, limit %d: %v", c.clients, c.limit, err)
			}
			continue
		}
		if err == nil || !strings.HasSuffix(err.Error(), c.want) {
			t.Errorf("-c %d, limit %d: %v; want it to end %q", c.clients, c.limit, err, c.want)
		}
	}
}

// TestSecondInterruptSpeaksTheRunsLanguage: the lines a second interrupt
// prints (what was not written, what was removed) are in the run's
// --lang, as the first interrupt's line is.
func TestSecondInterruptSpeaksTheRunsLanguage(t *testing.T) {
	bin := kurabeBinary(t)
	tmp := t.TempDir()
	cmd := exec.Command(bin, "run", "--lang", "ja", "--store", "sqlite:", "--ops", "write", "-d", "60s", "-c", "1", "-q")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var out lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// The run's data directory holds the database once the store is up.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if dbs, _ := filepath.Glob(filepath.Join(tmp, "kurabe-*", "1-sqlite", "kurabe.db")); len(dbs) == 1 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no store within 30s\n%s", out.String())
		}
	}
	// The client's writes are made to wait on a lock held here, so the
	// run is still stopping after the first interrupt when the second
	// comes: a run that stopped at once would have removed its directory
	// itself, and then the second has nothing left to remove and say so.
	dbs, _ := filepath.Glob(filepath.Join(tmp, "kurabe-*", "1-sqlite", "kurabe.db"))
	blocker, err := sqlite3.Open(dbs[0])
	if err != nil {
		cmd.Process.Kill()
		t.Fatal(err)
	}
	defer blocker.Close()
	if err := blocker.BusyTimeout(20 * time.Second); err != nil {
		t.Fatal(err)
	}
	if err := blocker.Exec("BEGIN EXCLUSIVE"); err != nil {
		cmd.Process.Kill()
		t.Fatalf("cannot hold the store's lock: %v", err)
	}
	defer blocker.Exec("ROLLBACK")
	cmd.Process.Signal(syscall.SIGINT)
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(out.String(), "もう一度 Ctrl-C"); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no Japanese line after the first interrupt\n%s", out.String())
		}
	}
	cmd.Process.Signal(syscall.SIGTERM) // a second request, however soon
	waitExit(t, cmd, done, &out, 143)
	for _, want := range []string{"kurabe: すぐに停止しました。結果 (表・JSON・HTML) は書き出していません", "を削除しました"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the second interrupt does not say %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "stopped at once") || strings.Contains(out.String(), "kurabe: removed") {
		t.Errorf("English after a second interrupt of a run in Japanese:\n%s", out.String())
	}
}

// The file store's clients each hold a descriptor of their table's file,
// and with sync=interval the store holds one more per table, for its
// syncer: a table per client with --isolate. Before, the file store was
// counted as holding none, and -c 100 under ulimit -n 64 ran with 44 of
// every phase's operations failing with "too many open files".
func TestCheckOpenFilesFileStore(t *testing.T) {
	a := Default()
	files := func(sp store.Spec) (int, int) {
		drv := a.driver(sp.Driver)
		return drv.FilesPerSession, drv.FilesPerTable(sp)
	}
	for _, c := range []struct {
		spec  string
		use   fileUse
		limit int
		want  string // the error's end; "" for none
	}{
		// The tester's case: not one client fits beside kurabe's own.
		{"file:", fileUse{clients: 100, tables: 1}, 64, "raise ulimit -n to 164 or more"},
		{"file:", fileUse{clients: 100, tables: 1}, 1024, ""},
		{"file:", fileUse{clients: 100, tables: 1, isolate: true}, 150, "give -c 86 or fewer, or raise ulimit -n"},
		// The syncer's files: one in all when the clients share the table,
		{"file:?sync=interval", fileUse{clients: 100, tables: 1}, 164, "give -c 99 or fewer, or raise ulimit -n"},
		{"file:?sync=interval", fileUse{clients: 100, tables: 1}, 165, ""},
		// one per client when each has a table of its own.
		{"file:?sync=INTERVAL", fileUse{clients: 80, tables: 1, isolate: true}, 200, "give -c 68 or fewer, or raise ulimit -n"},
		{"file:?sync=write", fileUse{clients: 80, tables: 1, isolate: true}, 200, ""},
	} {
		sp, err := store.ParseSpec(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		err = checkOpenFiles([]store.Spec{sp}, files, c.use, c.limit)
		if c.want == "" {
			if err != nil {
				t.Errorf("%s %+v, limit %d: %v", c.spec, c.use, c.limit, err)
			}
			continue
		}
		if err == nil || !strings.HasSuffix(err.Error(), c.want) {
			t.Errorf("%s %+v, limit %d: %v; want it to end %q", c.spec, c.use, c.limit, err, c.want)
		}
	}
}

// The tester's command, under ulimit -n 64: refused before the run (exit
// 2, saying the limit to raise to), as SQLite and PostgreSQL stores are.
// Before, it ran, each phase with 44 errors of "too many open files".
func TestFileStoreClientsOverUlimitAreRefused(t *testing.T) {
	bin := kurabeBinary(t)
	for _, extra := range [][]string{nil, {"--ops", "read-latest"}} {
		args := append([]string{"ulimit -n 64 && exec \"$0\" \"$@\"", bin, "run", "-q", "-c", "100", "-n", "100", "--store", "file:"}, extra...)
		cmd := exec.Command("sh", append([]string{"-c"}, args...)...)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "(ulimit -n); raise ulimit -n to 164 or more") {
			t.Errorf("%v: %v, want exit status 2 and the ulimit to raise to:\n%s", extra, err, out)
		}
	}
}
