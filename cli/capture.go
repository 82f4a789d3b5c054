package cli

import (
	"bufio"
	"bytes"
	"context"
	crand "crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"kurabe/numfmt"
	"kurabe/outfile"
	"kurabe/redact"
	"kurabe/replay"
	"kurabe/replay/pglog"
	"kurabe/store"
)

const captureUsage = `Usage: kurabe capture --store postgres:managed|mariadb:managed [--log FILE] -- COMMAND [ARGS...]

Starts a throwaway server that logs every statement, runs COMMAND with the
connection in its environment, stops the server and saves the log of what
COMMAND did, ready for kurabe replay.

PostgreSQL: PGHOST, PGPORT, PGUSER, PGDATABASE and DATABASE_URL are set
(no password: the server trusts loopback connections), so psql, pgbench
and libpq programs connect with no flags.

MariaDB: MYSQL_HOST, MYSQL_TCP_PORT and MYSQL_HOME are set; MYSQL_HOME
holds a my.cnf with the user and its password, which the mariadb and mysql
clients read on their own (others take --defaults-extra-file=$KURABE_MY_CNF).
DATABASE_URL holds mysql://user:password@127.0.0.1:port/kurabe. The
password is made up for this run and never printed.

Flags:
`

func (a *App) capture(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("kurabe capture", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	spec := fs.String("store", "", "the server to start: postgres:managed or mariadb:managed, with server settings as options if you like (postgres:managed?shared_buffers=256MB)")
	logOut := fs.String("log", "", "where to save the log (default: kurabe-capture-postgres.log or kurabe-capture-mariadb.log)")
	dirFlag := fs.String("dir", "", "data directory of the server (default: a temporary one, removed)")
	keep := fs.Bool("keep", false, "keep the server's data directory")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, captureUsage)
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return nil
		}
		return usageErr("%s; see kurabe help capture", flagProblem(fs, err.Error()))
	}
	command := fs.Args()
	if len(command) > 0 && command[0] == "--" {
		command = command[1:]
	}
	if len(command) == 0 {
		return usageErr("give the command to run after --, e.g. kurabe capture --store postgres:managed -- psql -f app.sql")
	}
	if *spec == "" {
		return usageErr("give the server with --store postgres:managed or --store mariadb:managed")
	}
	sp, err := store.ParseSpec(*spec)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	var kind string
	switch sp.Driver {
	case "postgres":
		kind = "postgres"
	case "mariadb", "mysql":
		kind = "mariadb"
	default:
		return usageErr("--store %s: capture starts postgres:managed or mariadb:managed, whose logs kurabe replay reads", sp)
	}
	if sp.Target != "managed" {
		return usageErr("--store %s: capture needs a server it starts itself, to set its logging; give %s:managed (for a server you run, set its logging yourself: see docs/replay.md)", sp, sp.Driver)
	}
	if a.driver(sp.Driver) == nil {
		return usageErr("store %s: unknown driver %q; choose from %s", sp, sp.Driver, strings.Join(a.driverNames(), ", "))
	}
	if *logOut == "" {
		*logOut = "kurabe-capture-" + kind + ".log"
	}
	if err := checkOutputFile(*logOut); err != nil {
		return usageErr("--log %s: %v", *logOut, err)
	}
	if _, err := exec.LookPath(command[0]); err != nil {
		return usageErr("cannot run %s: %v", command[0], err)
	}

	dir, kept := absDir(*dirFlag), *keep || *dirFlag != ""
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return usageErr("--dir %s: %v; choose a writable directory", dir, err)
		}
	} else if dir, err = os.MkdirTemp("", "kurabe-capture-"); err != nil {
		return usageErr("cannot create a temporary directory: %v; set TMPDIR to a writable directory or give --dir", err)
	}
	os.Chmod(dir, 0o755) // the server runs as another user when kurabe is root
	if !kept {
		defer removeLater(dir)()
	}
	// The server's own directory is short, so that its socket's path fits.
	sdir := freshDir(dir, "s")
	if err := os.MkdirAll(sdir, 0o755); err != nil {
		return usageErr("cannot create %s: %v", sdir, err)
	}
	// The client's files (MariaDB's my.cnf, with the password) live apart
	// from the server's, readable by kurabe's user only.
	cdir, err := os.MkdirTemp("", "kurabe-client-")
	if err != nil {
		return usageErr("cannot create a temporary directory: %v", err)
	}
	defer removeLater(cdir)()

	var c *captured
	if kind == "postgres" {
		c, err = a.startPostgres(ctx, sp, sdir, kept)
	} else {
		c, err = a.startMariaDB(ctx, sp, sdir, cdir, kept)
	}
	if c != nil && c.st != nil {
		defer c.st.Close()
	}
	if err != nil {
		// A refused option or setting is bad input, as it is to kurabe
		// run (status 2); a server that would not start is a failure.
		var ee *ExitError
		if errors.As(err, &ee) {
			return err
		}
		return &ExitError{Code: ExitFailed, Err: err}
	}
	// Only what the command does goes into the saved log: not the server's
	// start, nor kurabe's own connections before it. Those log their end
	// when the server gets to it, which may be after they were closed
	// here: wait for that, so that the saved log does not begin with it.
	open := pgSessionsOpen
	if kind == "mariadb" {
		open = mariadbSessionsOpen
	}
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(c.log); err != nil || open(b) <= 0 {
			break
		}
	}
	from, err := fileSize(c.log)
	if err != nil {
		return &ExitError{Code: ExitFailed, Err: fmt.Errorf("the server's log: %w", err)}
	}
	fmt.Fprintf(stderr, "kurabe capture: %s at %s; running %s\n", c.what, c.addr, strings.Join(command, " "))

	cmd := exec.CommandContext(ctx, command[0], command[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, stdout, stderr
	cmd.Env = append(os.Environ(), c.env...)
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	runErr := cmd.Run()

	// The command's part of the log ends when its sessions have logged
	// their end (the server gets to it after the command exits); what
	// follows is the server's shutdown, which is not kept.
	to, err := fileSize(c.log)
	for deadline := time.Now().Add(2 * time.Second); err == nil && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		b, rerr := os.ReadFile(c.log)
		if rerr != nil || int64(len(b)) < from {
			break
		}
		to = from + int64(bytes.LastIndexByte(b[from:], '\n')+1) // whole lines
		if open(b[from:]) <= 0 {
			break
		}
	}
	// Stopped, the server has written and closed its log.
	if err := c.st.Close(); err != nil {
		return &ExitError{Code: ExitFailed, Err: fmt.Errorf("stopping the server: %w", err)}
	}
	if err := saveLog(c.log, from, to, *logOut, kind == "mariadb"); err != nil {
		return &ExitError{Code: ExitFailed, Err: err}
	}
	summary, err := summarizeLog(*logOut, kind)
	if err != nil {
		return &ExitError{Code: ExitFailed, Err: err}
	}
	flag, storeHint := "--pg-log", "postgres:managed"
	if kind == "mariadb" {
		flag, storeHint = "--mysql-general-log", "mariadb:managed"
	}
	fmt.Fprintf(stderr, "kurabe capture: saved %s (%s); replay it with: kurabe replay %s %s --store %s\n", *logOut, summary, flag, *logOut, storeHint)
	if ctx.Err() != nil {
		// The command was stopped with kurabe: not a failure of its own.
		return &ExitError{Code: ExitInterrupted, Err: errors.New("interrupted; the log of what ran was saved")}
	}
	if runErr != nil {
		var ee *exec.ExitError
		if errors.As(runErr, &ee) {
			return &ExitError{Code: ExitFailed, Err: fmt.Errorf("%s exited with status %d; the log of what it did was saved anyway", command[0], ee.ExitCode())}
		}
		return &ExitError{Code: ExitFailed, Err: fmt.Errorf("%s: %v; the log was saved anyway", command[0], runErr)}
	}
	return nil
}

// captured is a running server whose log is being captured.
type captured struct {
	st   store.Store
	what string   // "PostgreSQL 15.4"
	addr string   // host:port
	log  string   // the server's log file
	env  []string // the connection, for the command
}

// pgCaptureSettings are the server settings that make PostgreSQL's log
// one kurabe replay reads: every statement, sessions told apart,
// connections and disconnections, English messages, on stderr.
var pgCaptureSettings = map[string]string{
	"log_statement":              "all",
	"log_line_prefix":            pglog.DefaultPrefix,
	"log_connections":            "on",
	"log_disconnections":         "on",
	"logging_collector":          "off",
	"log_destination":            "stderr",
	"lc_messages":                "C",
	"log_min_duration_statement": "-1",
}

func (a *App) startPostgres(ctx context.Context, given store.Spec, sdir string, kept bool) (*captured, error) {
	sp := withOptions(given)
	for _, name := range slices.Sorted(maps.Keys(pgCaptureSettings)) {
		v := pgCaptureSettings[name]
		if g := sp.Options.Get(name); g != "" && g != v {
			return nil, &ExitError{Code: ExitUsage, Err: fmt.Errorf("--store %s: capture sets %s=%s itself, for a log replay can read; leave it out", given, name, v)}
		}
		sp.Options.Set(name, v)
	}
	st, err := a.driver(sp.Driver).Open(ctx, sp, store.Env{Dir: sdir, Keep: kept})
	if err != nil {
		return nil, &ExitError{Code: ExitUsage, Err: fmt.Errorf("store %s: %w", given, err)}
	}
	c := &captured{st: st, log: filepath.Join(sdir, "postgres.log")}
	if err := startServer(ctx, st); err != nil {
		return c, err
	}
	info := st.Info(ctx)
	host, port, err := managedAddr(info)
	if err != nil {
		return c, err
	}
	c.what, c.addr = "PostgreSQL "+info.Version, net.JoinHostPort(host, port)
	c.env = []string{"PGHOST=" + host, "PGPORT=" + port, "PGUSER=kurabe", "PGDATABASE=postgres", "PGSSLMODE=disable",
		"DATABASE_URL=postgres://kurabe@" + c.addr + "/postgres?sslmode=disable"}
	return c, nil
}

func (a *App) startMariaDB(ctx context.Context, given store.Spec, sdir, cdir string, kept bool) (*captured, error) {
	sp := withOptions(given)
	logPath := filepath.Join(sdir, "general.log")
	for _, o := range [][2]string{{"general_log", "1"}, {"general_log_file", logPath}, {"log_output", "FILE"}} {
		if sp.Options.Get(o[0]) != "" {
			return nil, &ExitError{Code: ExitUsage, Err: fmt.Errorf("--store %s: capture sets %s itself, for a log replay can read; leave it out", given, o[0])}
		}
		sp.Options.Set(o[0], o[1])
	}
	st, err := a.driver(sp.Driver).Open(ctx, sp, store.Env{Dir: sdir, Keep: kept})
	if err != nil {
		return nil, &ExitError{Code: ExitUsage, Err: fmt.Errorf("store %s: %w", given, err)}
	}
	c := &captured{st: st, log: logPath}
	if err := startServer(ctx, st); err != nil {
		return c, err
	}
	info := st.Info(ctx)
	host, port, err := managedAddr(info)
	if err != nil {
		return c, err
	}
	c.what, c.addr = "MariaDB "+info.Version, net.JoinHostPort(host, port)
	// The store's own account's password is its secret. As root, over
	// the server's socket (root has no password there), make an account
	// for the command with a password of its own.
	var b [18]byte
	if _, err := crand.Read(b[:]); err != nil {
		return c, err
	}
	pass := hex.EncodeToString(b[:])
	const user, database = "capture", "kurabe"
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr = "root", "unix", filepath.Join(sdir, "mysql.sock")
	cfg.Timeout = 10 * time.Second
	cfg.Logger = &mysql.NopLogger{}
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return c, err
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	for _, q := range []string{
		"CREATE DATABASE IF NOT EXISTS " + database,
		"CREATE USER '" + user + "'@'127.0.0.1' IDENTIFIED BY '" + pass + "'",
		"GRANT ALL ON *.* TO '" + user + "'@'127.0.0.1'",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return c, fmt.Errorf("preparing an account for the command as root over %s: %s", cfg.Addr, redact.Words(err.Error(), []string{pass}))
		}
	}
	cnf := filepath.Join(cdir, "my.cnf")
	text := fmt.Sprintf("# kurabe capture: the throwaway server's account, for this run only\n[client]\nuser=%s\npassword=%s\nhost=%s\nport=%s\nprotocol=TCP\n\n[mysql]\ndatabase=%s\n\n[mariadb-client]\ndatabase=%s\n", user, pass, host, port, database, database)
	if err := os.WriteFile(cnf, []byte(text), 0o600); err != nil {
		return c, err
	}
	u := url.URL{Scheme: "mysql", User: url.UserPassword(user, pass), Host: c.addr, Path: "/" + database}
	c.env = []string{"MYSQL_HOME=" + cdir, "KURABE_MY_CNF=" + cnf, "MYSQL_HOST=" + host, "MYSQL_TCP_PORT=" + port, "DATABASE_URL=" + u.String()}
	return c, nil
}

// pgSessionsOpen counts the sessions a PostgreSQL log written with
// pgCaptureSettings shows authorized and not yet ended.
func pgSessionsOpen(log []byte) int {
	return bytes.Count(log, []byte("LOG:  connection authorized: ")) - bytes.Count(log, []byte("LOG:  disconnection: "))
}

// mariadbSessionsOpen counts the sessions a MariaDB general log shows
// connected and not yet quit.
func mariadbSessionsOpen(log []byte) int {
	return len(mariadbConnect.FindAll(log, -1)) - len(mariadbQuit.FindAll(log, -1))
}

var (
	mariadbConnect = regexp.MustCompile(`(?m)^[^\t\n]*\t[ \t]*\d+ Connect\t`)
	mariadbQuit    = regexp.MustCompile(`(?m)^[^\t\n]*\t[ \t]*\d+ Quit\t`)
)

// withOptions returns sp with a map of options of its own to change.
func withOptions(sp store.Spec) store.Spec {
	opts := url.Values{}
	for k, v := range sp.Options {
		opts[k] = append([]string(nil), v...)
	}
	sp.Options = opts
	return sp
}

// startServer starts a managed server: opening a session does, without
// creating kurabe's tables (which Setup would, into the log).
func startServer(ctx context.Context, st store.Store) error {
	s, err := st.Open(ctx)
	if err != nil {
		return err
	}
	return s.Close()
}

var managedRE = regexp.MustCompile(`^managed (\S+):(\d+)$`)

// managedAddr reads a managed server's address from its Info.Target,
// "managed 127.0.0.1:PORT".
func managedAddr(info store.Info) (host, port string, err error) {
	m := managedRE.FindStringSubmatch(info.Target)
	if m == nil {
		return "", "", fmt.Errorf("cannot tell where the managed server listens from %q", info.Target)
	}
	return m[1], m[2], nil
}

func fileSize(path string) (int64, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// mariadbTime is the time stamp MariaDB writes on the first entry of a
// second.
var mariadbTime = regexp.MustCompile(`^\d{6} [ \d]\d:\d\d:\d\d\t`)

// saveLog copies the server's log from offset from to offset to (or its
// end, when to is not past from) to out. A MariaDB log keeps its header,
// and its first entry gets the time stamp it lacks when the entry before
// it (cut off) had it.
func saveLog(src string, from, to int64, out string, mariadb bool) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("the server's log: %w", err)
	}
	defer in.Close()
	var head []string
	var stamp string
	if mariadb {
		r := bufio.NewReader(io.LimitReader(in, from))
		for n := 0; ; n++ {
			line, err := r.ReadString('\n')
			if n < 3 && line != "" {
				head = append(head, line)
			}
			if m := mariadbTime.FindString(line); m != "" {
				stamp = strings.TrimSuffix(m, "\t")
			}
			if err != nil {
				break
			}
		}
	}
	if _, err := in.Seek(from, io.SeekStart); err != nil {
		return err
	}
	return outfile.Write(out, func(f io.Writer) error {
		w := bufio.NewWriter(f)
		for _, h := range head {
			w.WriteString(h)
		}
		var body io.Reader = in
		if to > from {
			body = io.LimitReader(in, to-from)
		}
		r := bufio.NewReader(body)
		first := true
		for {
			line, err := r.ReadString('\n')
			if first && line != "" {
				first = false
				if stamp != "" && strings.HasPrefix(line, "\t\t") {
					line = stamp + line[1:]
				}
			}
			w.WriteString(line)
			if err != nil {
				if err != io.EOF {
					return err
				}
				break
			}
		}
		return w.Flush()
	})
}

// summarizeLog reads a saved log back as replay will: sessions and
// statements.
func summarizeLog(path, kind string) (string, error) {
	format, dialect := "pg-log", replay.Postgres
	if kind == "mariadb" {
		format, dialect = "mysql-general-log", replay.MySQL
	}
	lg, _, err := readLog(path, format, dialect, "")
	if err != nil {
		return "", err
	}
	s := fmt.Sprintf("%s, %s, %.3f s", numfmt.Count(int64(len(lg.Sessions)), "session", "sessions"), numfmt.Count(lg.Statements, "statement", "statements"), lg.Span.Seconds())
	if lg.Skips.Count > 0 {
		s += ", " + numfmt.Count(lg.Skips.Count, "line", "lines") + " unreadable"
	}
	return s, nil
}
