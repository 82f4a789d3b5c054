package postgres

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"kurabe/store"
	"kurabe/store/server"
)

// managed is a throwaway server kurabe runs in the store's directory.
type managed struct {
	initdb, postgres string
	dataDir, log     string
	keep             bool      // the directory outlives kurabe: messages may name its files
	settings         []setting // in name order, given as -c name=value

	port int
	proc *server.Process
}

type setting struct{ name, value string }

// newManaged finds the server programs, sorts the server settings out of
// the spec's options (their names in lower case: store.LowerSettings) and
// asks the server program whether it has each of them. It starts no
// server.
func newManaged(ctx context.Context, spec store.Spec, env store.Env) (*managed, error) {
	if env.Dir == "" {
		return nil, errors.New("postgres: a managed server needs a data directory and none was given; give --dir or use postgres://user@host:port/db")
	}
	m := &managed{dataDir: filepath.Join(env.Dir, "pgdata"), log: filepath.Join(env.Dir, "postgres.log"), keep: env.Keep}
	spec, err := store.LowerSettings(spec, storeOptions)
	if err != nil {
		return nil, err
	}
	for name, v := range spec.Options {
		switch {
		case slices.Contains(storeOptions, name):
			continue
		case slices.Contains(reserved, strings.ToLower(name)):
			return nil, fmt.Errorf("postgres: %s is set by kurabe for a managed server (it must know where to connect); remove it from the spec", name)
		case store.NearOption(name, storeOptions) != "":
			return nil, fmt.Errorf("postgres: option %s: did you mean %s? (kurabe's options are %s; any other option of a managed server is a server setting)", name, store.NearOption(name, storeOptions), strings.Join(storeOptions, ", "))
		case !settingName.MatchString(name):
			return nil, &store.OptionError{Driver: "postgres", Name: name, Value: v[0], Want: "a PostgreSQL setting name such as shared_buffers (letters, digits and underscores)"}
		}
		m.settings = append(m.settings, setting{name, v[0]})
	}
	slices.SortFunc(m.settings, func(a, b setting) int { return strings.Compare(a.name, b.name) })
	if m.initdb, err = server.Find("initdb", "postgresql", "/usr/lib/postgresql/*/bin"); err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	// The server must be the same version as initdb.
	if m.postgres, err = server.Find("postgres", "postgresql", filepath.Dir(m.initdb)); err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if name := m.unknownSetting(ctx); name != "" {
		// No value: an option the store does not have, which the command
		// line tells apart from a bad value (a --vary over stores of two
		// kinds names the store that lacks it).
		return nil, &store.OptionError{Driver: "postgres", Name: name,
			Want: strings.Join(storeOptions, ", ") + ", or a setting the PostgreSQL server has, and " + m.postgres + " -C says it has no " + name}
	}
	return m, nil
}

// unknownSetting asks the server program whether it has each setting and
// returns the first it lacks (a MariaDB setting, a misspelling), so that
// it is refused before a server is made for it. postgres --describe-config
// lists most settings and runs as any user; the ones it leaves out
// (developer options such as zero_damaged_pages) are asked one by one of
// postgres -C, which reads an empty configuration and needs no data
// directory, but refuses to run as root. A setting of an extension's (a
// dotted name) is the server's to judge when it loads the extension; so
// is any name the program cannot be asked about.
func (m *managed) unknownSetting(ctx context.Context) string {
	if len(m.settings) == 0 {
		return ""
	}
	listed := map[string]bool{}
	if out, err := server.Output(ctx, nil, m.postgres, "--describe-config"); err == nil {
		for _, line := range strings.Split(string(out), "\n") {
			n, _, _ := strings.Cut(line, "\t")
			listed[n] = true
		}
	}
	for _, st := range m.settings {
		name := strings.ToLower(st.name)
		if listed[name] || strings.Contains(name, ".") {
			continue
		}
		u, err := server.Unprivileged("postgres", "nobody")
		if err != nil {
			return ""
		}
		// The data directory is not made yet: nothing of it is read.
		out, _ := server.Output(ctx, u, m.postgres, "--config-file=/dev/null", "-c", "data_directory="+m.dataDir,
			"-c", "hba_file=/dev/null", "-c", "ident_file=/dev/null", "-C", name)
		if strings.Contains(string(out), "unrecognized configuration parameter") {
			return st.name
		}
	}
	return ""
}

// DefaultConnections is the max_connections a managed server runs when
// none is given (100), as the installed server program says with no
// configuration (postgres -C, as unknownSetting asks it); 0 when the
// programs are not found or do not say. (initdb writes the 100 into the
// configuration it makes, or fewer on a machine short of shared memory,
// where the server then turns away the clients it has no place for.)
func DefaultConnections() int {
	initdb, err := server.Find("initdb", "postgresql", "/usr/lib/postgresql/*/bin")
	if err != nil {
		return 0
	}
	bin, err := server.Find("postgres", "postgresql", filepath.Dir(initdb))
	if err != nil {
		return 0
	}
	u, err := server.Unprivileged("postgres", "nobody")
	if err != nil {
		return 0
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// No data directory is read: the one named need not exist.
	out, _ := server.Output(ctx, u, bin, "--config-file=/dev/null", "-c", "data_directory=/nonexistent/kurabe",
		"-c", "hba_file=/dev/null", "-c", "ident_file=/dev/null", "-C", "max_connections")
	// The value is a line of its own; the server may log beside it.
	for _, line := range strings.Split(string(out), "\n") {
		if n, err := strconv.Atoi(strings.TrimSpace(line)); err == nil {
			return n
		}
	}
	return 0
}

// sameDir reports whether two paths name one directory, through symbolic
// links (PostgreSQL reports its data directory from the physical working
// directory, where Go's may keep a link's name).
func sameDir(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ra, errA := filepath.EvalSymlinks(a)
	rb, errB := filepath.EvalSymlinks(b)
	return errA == nil && errB == nil && ra == rb
}

// freePort is server.FreePort; a test replaces it to hand out a port
// another server holds, which the real one yields only by chance.
var freePort = server.FreePort

func (m *managed) addr() string { return "127.0.0.1:" + strconv.Itoa(m.port) }

func (m *managed) dsn() string {
	return "postgres://kurabe@" + m.addr() + "/postgres?sslmode=disable"
}

// start initialises the data directory and starts the server on a free
// loopback port, as an unprivileged user when kurabe runs as root. The
// server trusts every connection, which is safe only because it listens on
// 127.0.0.1 and a socket in its own data directory.
func (m *managed) start(ctx context.Context) (*pgx.ConnConfig, error) {
	u, err := server.Unprivileged("postgres", "nobody")
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if err := server.PrepareDir(m.dataDir, u); err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	// --no-sync: the data is thrown away, so initdb need not wait for the
	// disk; the server's own settings decide durability from then on.
	if err := server.Run(ctx, u, m.initdb, "-D", m.dataDir, "-U", "kurabe", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"); err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	// A Unix socket path may be 107 bytes at most; rather than fail on a
	// deep directory, go without the socket (kurabe connects over TCP).
	socketDir := m.dataDir
	if len(socketDir)+len("/.s.PGSQL.65535") > 107 {
		socketDir = ""
	}
	dataDir, err := filepath.Abs(m.dataDir)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	for attempt := 1; ; attempt++ {
		if m.port, err = freePort(); err != nil {
			return nil, fmt.Errorf("postgres: %w", err)
		}
		args := []string{"-D", m.dataDir, "-p", strconv.Itoa(m.port),
			"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=" + socketDir}
		for _, st := range m.settings {
			args = append(args, "-c", st.name+"="+st.value)
		}
		proc, err := server.Start(u, m.log, m.postgres, args...)
		if err != nil {
			return nil, fmt.Errorf("postgres: %w", err)
		}
		cfg, err := pgx.ParseConfig(m.dsn())
		if err != nil {
			proc.Stop(5 * time.Second)
			return nil, fmt.Errorf("postgres: %w", err)
		}
		err = proc.WaitReady(ctx, 30*time.Second, func(ctx context.Context) error {
			c, err := pgx.ConnectConfig(ctx, cfg)
			if err != nil {
				return err
			}
			defer c.Close(ctx)
			// Another server (another kurabe's, which trusts the same
			// user) may hold the port when this one could not bind it.
			var dir string
			if err := c.QueryRow(ctx, "SHOW data_directory").Scan(&dir); err != nil {
				return err
			}
			if !sameDir(dir, dataDir) {
				return fmt.Errorf("port %d is another server's (its data directory is %s)", m.port, dir)
			}
			return nil
		})
		if err == nil {
			m.proc = proc
			return cfg, nil
		}
		proc.Stop(5 * time.Second)
		// FreePort's port can be taken before the server binds it.
		if attempt < 3 && strings.Contains(proc.LogTail(5), "Address already in use") {
			continue
		}
		// The error quotes the log's end; its file is named only if it
		// stays, since kurabe removes a directory it does not keep
		// before the message is read.
		if m.keep {
			return nil, fmt.Errorf("postgres: managed server in %s: %w\n(the whole log is kept in %s)", m.dataDir, err, m.log)
		}
		return nil, fmt.Errorf("postgres: managed server: %w", err)
	}
}

// stop shuts the server down. SIGTERM alone is PostgreSQL's smart shutdown,
// which waits for every client to leave; SIGINT (fast shutdown) ends their
// sessions first. Stop then sends SIGTERM and kills the server if it has
// not exited in time.
func (m *managed) stop() error {
	if m.proc == nil {
		return nil
	}
	if !m.proc.Exited() {
		m.proc.Stopping()
		syscall.Kill(m.proc.Pid(), syscall.SIGINT)
	}
	if err := m.proc.Stop(30 * time.Second); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	return nil
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
		log = m.log
	}
	return m.proc.Death("postgres", log)
}
