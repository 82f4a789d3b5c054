package mysql

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"kurabe/store"
	"kurabe/store/server"
)

// managedUser is the account sessions of a managed server log in as; its
// password is made up at every start and never shown.
const managedUser = "kurabe"

// setting is a server setting of a managed store, passed as --name=value.
type setting struct{ name, value string }

func (s setting) arg() string {
	if s.value == "" {
		return "--" + s.name
	}
	return "--" + s.name + "=" + s.value
}

// reserved are the settings kurabe sets itself to run the server and
// reach it: where it keeps its files, where it listens (kurabe's sessions
// connect over TCP to 127.0.0.1, so skip_networking would leave them
// nowhere to connect), the grant tables kurabe's account is made in, and
// MySQL's X plugin, whose own port would clash between instances.
// tmpdir, local_infile and skip_name_resolve are kurabe's defaults, which
// a setting in the spec overrides.
var reserved = []string{"datadir", "port", "bind_address", "socket", "pid_file", "log_error", "user", "basedir",
	"no_defaults", "defaults_file", "defaults_extra_file", "defaults_group_suffix", "bootstrap", "initialize", "initialize_insecure",
	"skip_networking", "skip_grant_tables", "mysqlx", "mysqlx_port", "mysqlx_bind_address", "mysqlx_socket"}

// isReserved says whether a setting, in any of the spellings the server
// takes (- or _, any case, the loose_ prefix of an option it may not
// have, the enable_/disable_/skip_ prefixes of a boolean one), is one of
// reserved.
func isReserved(name string) bool {
	n := strings.TrimPrefix(strings.ReplaceAll(strings.ToLower(name), "-", "_"), "loose_")
	if slices.Contains(reserved, n) {
		return true
	}
	for _, prefix := range []string{"enable_", "disable_", "skip_"} {
		if rest, ok := strings.CutPrefix(n, prefix); ok && slices.Contains(reserved, rest) {
			return true
		}
	}
	return false
}

// atCreation are the settings fixed when the data directory is made; they
// are given to its initialisation as well as to the server.
var atCreation = []string{"innodb_page_size", "innodb_data_file_path", "innodb_data_home_dir", "innodb_undo_tablespaces",
	"innodb_undo_directory", "innodb_log_group_home_dir", "innodb_log_file_size", "lower_case_table_names"}

var settingRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.-]*$`)

// managed is a server kurabe initialises in its data directory, starts at
// the first Setup and stops at Close.
type managed struct {
	driver     string
	flavor     string // mariadb or mysql
	serverBin  string
	installBin string // mariadb-install-db; empty for MySQL, which initialises with mysqld --initialize-insecure
	dir        string
	keep       bool // dir outlives kurabe: messages may name its files
	settings   []setting
	encrypted  bool
	database   string

	proc   *server.Process
	tmpDir string // a short directory for the socket, when dir is too long for one
}

func newManaged(ctx context.Context, spec store.Spec, env store.Env, opts options) (*managed, error) {
	m := &managed{driver: spec.Driver, dir: env.Dir, keep: env.Keep, encrypted: opts.encrypted, database: opts.database}
	if env.Dir == "" {
		return nil, fmt.Errorf("%s: a managed server needs a data directory and kurabe gave none", spec.Driver)
	}
	// Setting names in lower case (store.LowerSettings): the server
	// takes them in any case.
	spec, err := store.LowerSettings(spec, storeOptions)
	if err != nil {
		return nil, err
	}
	var names []string
	for k := range spec.Options {
		if !slices.Contains(storeOptions, k) {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	for _, k := range names {
		if !settingRE.MatchString(k) {
			return nil, fmt.Errorf("%s: %q is not a server setting name; give settings as name=value, e.g. innodb_buffer_pool_size=256M", spec.Driver, k)
		}
		if isReserved(k) {
			return nil, fmt.Errorf("%s: server setting %s is kurabe's to set on a managed server, which kurabe starts, listening on 127.0.0.1, and connects to; leave it out (or run the server yourself and give its address)", spec.Driver, k)
		}
		if near := store.NearOption(k, storeOptions); near != "" {
			return nil, fmt.Errorf("%s: option %s: did you mean %s? (kurabe's options are %s; any other option of a managed server is a server setting)", spec.Driver, k, near, strings.Join(storeOptions, ", "))
		}
		if err := checkSetting(spec.Driver, k, spec.Options.Get(k)); err != nil {
			return nil, err
		}
		m.settings = append(m.settings, setting{k, spec.Options.Get(k)})
	}

	bin, err := serverProgram(spec.Driver)
	if err != nil {
		return nil, fmt.Errorf("%s: managed server: %w", spec.Driver, err)
	}
	m.serverBin = bin
	m.flavor = flavorOf(ctx, m.serverBin)
	if m.flavor == "mariadb" {
		bin, err := server.Find("mariadb-install-db", "mariadb-server", "/usr/bin")
		if err != nil {
			return nil, fmt.Errorf("%s: managed server: %w", spec.Driver, err)
		}
		m.installBin = bin
	} else if opts.encrypted || opts.pageCompressed || opts.engine == "Aria" {
		return nil, fmt.Errorf("%s: %s is MySQL, not MariaDB: encrypted, page_compressed and engine=Aria are MariaDB's; use mariadb:managed", spec.Driver, m.serverBin)
	}
	if name := m.unknownSetting(ctx); name != "" {
		// No value: an option the store does not have, which the command
		// line tells apart from a bad value (a --vary over stores of two
		// kinds names the store that lacks it).
		return nil, &store.OptionError{Driver: spec.Driver, Name: name,
			Want: strings.Join(storeOptions, ", ") + ", or a setting the server has, and " + m.serverBin + " --help --verbose says it has no " + name}
	}
	return m, nil
}

// unknownVariable finds the options a server's option parser did not
// know in what it wrote: "unknown variable 'name=value'" or "unknown
// option '--name'".
var unknownVariable = regexp.MustCompile(`unknown (?:variable|option) '(?:--)?([^'=]*)`)

// unknownSetting asks the server program whether it has each setting and
// returns the first it lacks, in the spec's spelling (a PostgreSQL
// setting, a misspelling), so that it is refused before a data directory
// and a server are made for it. The server's own option parser judges
// them, as it would at start: mariadbd --help --verbose with the
// settings, and the key management plugin that encrypted=1 loads, whose
// settings it adds. A loose_ setting is never refused. It starts no
// server; a setting it cannot judge
// (a plugin's that another setting loads) is the server's at start.
func (m *managed) unknownSetting(ctx context.Context) string {
	if len(m.settings) == 0 {
		return ""
	}
	args := []string{"--no-defaults"}
	if m.encrypted {
		args = append(args, "--plugin-load-add=file_key_management")
	}
	for _, s := range m.settings {
		args = append(args, s.arg())
	}
	u, err := server.Unprivileged("mysql", "nobody")
	if err != nil {
		return ""
	}
	out, _ := server.Output(ctx, u, m.serverBin, append(args, "--help", "--verbose")...)
	norm := func(s string) string { return strings.ReplaceAll(strings.ToLower(s), "-", "_") }
	for _, match := range unknownVariable.FindAllStringSubmatch(string(out), -1) {
		for _, s := range m.settings {
			// loose_: the server is told to start without the setting
			// if it does not have it, and says so as a warning.
			if norm(s.name) == norm(match[1]) && !strings.HasPrefix(norm(s.name), "loose_") {
				return s.name
			}
		}
	}
	return ""
}

// pageSizes are the values innodb_page_size takes. The server rounds any
// other down to one of them (3k runs as 4096) and starts without a word,
// so the run would measure a page size nobody asked for.
var pageSizes = []string{"4k", "8k", "16k", "32k", "64k", "4096", "8192", "16384", "32768", "65536"}

// checkSetting refuses a server setting's value that the server would not
// run as given, before a server is started for it.
func checkSetting(driver, name, value string) error {
	if strings.ReplaceAll(strings.ToLower(name), "-", "_") == "innodb_page_size" && !slices.Contains(pageSizes, strings.ToLower(value)) {
		return &store.OptionError{Driver: driver, Name: name, Value: value, Want: "4k, 8k, 16k, 32k or 64k (or 4096 … 65536 bytes): InnoDB has no other page size, and the server would quietly run another"}
	}
	return nil
}

// serverProgram is the server program DRIVER:managed runs: mysql:managed
// prefers mysqld, which on Debian is MariaDB under another name, and
// takes mariadbd when there is none.
func serverProgram(driver string) (string, error) {
	if driver == "mysql" {
		if bin, err := server.Find("mysqld", "mariadb-server", "/usr/sbin"); err == nil {
			return bin, nil
		}
	}
	return server.Find("mariadbd", "mariadb-server", "/usr/sbin")
}

// MinConnections is the smallest max_connections the server that
// DRIVER:managed starts runs with: MariaDB raises a smaller one to 10
// without a word, and MySQL runs the one given (1 or more). mysql:managed
// may run either (serverProgram); asking which runs the program with
// --version when its name does not say. When no server program is found
// it is MariaDB's, whose mariadbd the store would look for, and the run
// fails when it starts the server, saying what to install.
func MinConnections(driver string) int {
	const mariadb = 10
	bin, err := serverProgram(driver)
	if err != nil {
		return mariadb
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if flavorOf(ctx, bin) == "mysql" {
		return 1
	}
	return mariadb
}

// maxConnectionsLine is max_connections's line in mariadbd --help
// --verbose's list of values.
var maxConnectionsLine = regexp.MustCompile(`(?m)^max[-_]connections\s+(\d+)\s*$`)

// DefaultConnections is the max_connections the server that
// DRIVER:managed starts runs when none is given (MariaDB's and MySQL's
// 151), as the server program's --help --verbose says it with no
// configuration files (kurabe starts it with --no-defaults); 0 when the
// program is not found or does not say.
func DefaultConnections(driver string) int {
	bin, err := serverProgram(driver)
	if err != nil {
		return 0
	}
	u, err := server.Unprivileged("mysql", "nobody")
	if err != nil {
		return 0
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, _ := server.Output(ctx, u, bin, "--no-defaults", "--help", "--verbose")
	m := maxConnectionsLine.FindSubmatch(out)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

// flavorOf tells MariaDB from MySQL by the program's name or version.
func flavorOf(ctx context.Context, bin string) string {
	if r, err := filepath.EvalSymlinks(bin); err == nil && strings.HasPrefix(filepath.Base(r), "mariadb") {
		return "mariadb"
	}
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err == nil && !bytes.Contains(bytes.ToLower(out), []byte("mariadb")) {
		return "mysql"
	}
	return "mariadb"
}

func (m *managed) datadir() string { return filepath.Join(m.dir, "data") }

// start initialises the data directory, starts the server on a free
// loopback port, creates kurabe's database and the account sessions use
// (with password pass), and returns the server's address.
func (m *managed) start(ctx context.Context, pass string) (string, error) {
	fail := func(err error) error { return fmt.Errorf("%s: managed server: %w", m.driver, err) }
	u, err := server.Unprivileged("mysql", "nobody")
	if err != nil {
		return "", fail(err)
	}
	if err := server.PrepareDir(m.dir, u); err != nil {
		return "", fail(err)
	}
	// A temporary directory of the server's own: servers sharing /tmp
	// delete each other's temporary tables (mariadb-install-db run
	// beside another fails with "Unknown table 'mysql.tmp_user_sys'").
	// A tmpdir setting in the spec comes later and wins.
	tmp := filepath.Join(m.dir, "tmp")
	if err := server.PrepareDir(tmp, u); err != nil {
		return "", fail(err)
	}
	sock := filepath.Join(m.dir, "mysql.sock")
	if len(sock) > 100 { // a socket's path holds at most 107 bytes
		if m.tmpDir, err = os.MkdirTemp("", "kurabe-mysql-"); err != nil {
			return "", fail(err)
		}
		if err := server.PrepareDir(m.tmpDir, u); err != nil {
			return "", fail(err)
		}
		sock = filepath.Join(m.tmpDir, "mysql.sock")
	}

	var user, common, creation []string
	if u != nil {
		user = []string{"--user=" + u.Name}
	}
	if m.encrypted {
		key, err := writeKey(m.dir, u)
		if err != nil {
			return "", fail(err)
		}
		common = append(common, "--plugin-load-add=file_key_management", "--file-key-management-filename="+key)
	}
	for _, s := range m.settings {
		common = append(common, s.arg())
		if slices.Contains(atCreation, strings.ReplaceAll(strings.ToLower(s.name), "-", "_")) {
			creation = append(creation, s.arg())
		}
	}
	tmpArg := []string{"--tmpdir=" + tmp}
	if err := m.initialise(ctx, u, slices.Concat(user, tmpArg, creation)); err != nil {
		return "", fail(err)
	}
	common = slices.Concat(user, tmpArg, common)

	logPath := filepath.Join(m.dir, "mysqld.log")
	if f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err != nil {
		return "", fail(err)
	} else {
		f.Close()
	}
	if err := server.Chown(logPath, u); err != nil {
		return "", fail(err)
	}
	root, err := openDB(newConfig("root", "", "unix", sock))
	if err != nil {
		return "", fail(err)
	}
	defer root.Close()
	var port int
	for attempt := 1; ; attempt++ {
		if port, err = server.FreePort(); err != nil {
			return "", fail(err)
		}
		args := []string{"--no-defaults", "--datadir=" + m.datadir(), "--port=" + strconv.Itoa(port),
			"--bind-address=127.0.0.1", "--socket=" + sock, "--pid-file=" + filepath.Join(m.dir, "mysqld.pid"),
			"--log-error=" + logPath,
			// No reverse DNS lookup per connection: connect=per-op would
			// measure the resolver.
			"--skip-name-resolve",
			// BulkLoad's LOAD DATA LOCAL INFILE; a local_infile setting
			// in the spec comes later and wins.
			"--local-infile=1"}
		if m.flavor == "mysql" {
			args = append(args, "--mysqlx=OFF") // its own port would clash between instances
		}
		p, err := server.Start(u, logPath, m.serverBin, append(args, common...)...)
		if err != nil {
			return "", fail(err)
		}
		err = p.WaitReady(ctx, 60*time.Second, root.PingContext)
		if err == nil {
			m.proc = p
			break
		}
		p.Stop(10 * time.Second)
		// Another program may take the free port before the server does.
		if attempt < 3 && strings.Contains(err.Error(), "already in use") {
			continue
		}
		return "", fail(m.keptLog(err, logPath))
	}
	if err := m.provision(ctx, root, pass); err != nil {
		m.stop()
		return "", fail(err)
	}
	return "127.0.0.1:" + strconv.Itoa(port), nil
}

// initialise makes the data directory. The server's own complaints go to
// a log of their own, which an error quotes.
func (m *managed) initialise(ctx context.Context, u *server.User, settings []string) error {
	log := filepath.Join(m.dir, "install.log")
	args := []string{"--no-defaults", "--datadir=" + m.datadir(), "--log-error=" + log}
	prog := m.installBin
	if prog != "" {
		args = append(args, "--auth-root-authentication-method=normal", "--skip-test-db")
	} else {
		prog = m.serverBin
		args = append(args, "--initialize-insecure")
	}
	err := server.Run(ctx, u, prog, append(args, settings...)...)
	if err == nil {
		return nil
	}
	b, _ := os.ReadFile(log)
	var complaints []string
	for _, line := range strings.Split(string(b), "\n") {
		if strings.Contains(line, "[ERROR]") {
			complaints = append(complaints, "  "+line)
		}
	}
	if len(complaints) > 10 {
		complaints = complaints[len(complaints)-10:]
	}
	if len(complaints) == 0 {
		return m.keptLog(err, log)
	}
	return m.keptLog(fmt.Errorf("%w\nits log says:\n%s", err, strings.Join(complaints, "\n")), log)
}

// keptLog adds to err, which quotes a log's end, where the whole log is,
// when it stays: kurabe removes a directory it does not keep before the
// message is read, and a message must not send anyone to a file that is
// gone.
func (m *managed) keptLog(err error, log string) error {
	if !m.keep {
		return err
	}
	return fmt.Errorf("%w\n(the whole log is kept in %s)", err, log)
}

// writeKey writes a random key for file_key_management, readable by the
// server only.
func writeKey(dir string, u *server.User) (string, error) {
	var k [32]byte
	if _, err := rand.Read(k[:]); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "encryption.key")
	if err := os.WriteFile(path, []byte("1;"+hex.EncodeToString(k[:])+"\n"), 0o600); err != nil {
		return "", err
	}
	return path, server.Chown(path, u)
}

// provision creates kurabe's database and account as root, over the
// socket. The statements hold the password and are never quoted.
func (m *managed) provision(ctx context.Context, root *sql.DB, pass string) error {
	account := "'" + managedUser + "'@'127.0.0.1'"
	steps := []struct{ what, sql string }{
		{"create database " + m.database, "CREATE DATABASE IF NOT EXISTS " + quote(m.database) + " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"},
		{"create user " + account, "CREATE USER " + account + " IDENTIFIED BY '" + pass + "'"},
		// In GRANT, _ is a wildcard unless escaped.
		{"grant " + account + " all on " + m.database, "GRANT ALL ON " + quote(strings.ReplaceAll(m.database, "_", `\_`)) + ".* TO " + account},
	}
	for _, s := range steps {
		if _, err := root.ExecContext(ctx, s.sql); err != nil {
			return fmt.Errorf("cannot %s: %w", s.what, scrub(err, hidden{pw: pass}))
		}
	}
	return nil
}

// stop stops the server: SIGTERM, and SIGKILL if it has not exited within
// 30 s.
func (m *managed) stop() error {
	var err error
	if m.proc != nil {
		err = m.proc.Stop(30 * time.Second)
		m.proc = nil
	}
	if m.tmpDir != "" {
		err = errors.Join(err, os.RemoveAll(m.tmpDir))
		m.tmpDir = ""
	}
	return err
}

func randomPassword() (string, error) {
	var b [18]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("mysql: cannot make up a password: %v", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// died and death are the store's Mortal, for its server.
func (m *managed) died() <-chan struct{} {
	if m.proc == nil {
		return nil
	}
	return m.proc.Died()
}

func (m *managed) death() *store.Death {
	if m.proc == nil {
		return nil
	}
	log := ""
	if m.keep {
		log = m.proc.Log
	}
	return m.proc.Death(m.driver, log)
}
