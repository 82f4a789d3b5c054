package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"kurabe/numfmt"
	"kurabe/service"
	"kurabe/store"
)

// cgiStoreEnv carries the store spec to the per-request processes of
// --cgi, in their environment rather than on their command line, where
// other users could read a password in it.
const cgiStoreEnv = "KURABE_SERVE_STORE"

// passwordEnv holds the token API's password, for kurabe serve and its
// CGI processes: the environment, unlike the command line, is not visible
// to other users.
const passwordEnv = "KURABE_SERVE_PASSWORD"

type serveFlags struct {
	store    string
	listen   string
	cgi      bool
	sessions int
	dir      string
	keep     bool
	public   bool
	child    bool // hidden: answer one CGI request and exit

	dataset    string
	rows       int
	file       string
	user       string
	password   string
	tokenTTL   time.Duration
	maxRecords int
	by         string
	records    int64  // hidden: the postal records, for CGI processes
	tokens     string // hidden: the token directory, for CGI processes
}

// postalFlags are the flags that only apply with --dataset postal.
var postalFlags = []string{"dataset-rows", "dataset-file", "user", "password", "token-ttl", "max-records", "by"}

// serve runs the reference message-board service over a store until ctx
// is cancelled (SIGINT or SIGTERM in main).
func (a *App) serve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f serveFlags
	fs := flag.NewFlagSet("kurabe serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&f.store, "store", "sqlite:", "the store behind the service, DRIVER:[PATH][?OPTION=VALUE&...]")
	fs.StringVar(&f.listen, "listen", "127.0.0.1:3001", "address to listen on, HOST:PORT; port 0 picks a free one")
	fs.BoolVar(&f.cgi, "cgi", false, "start a new process for every request, as CGI does (default: one process with a pool of store sessions)")
	fs.IntVar(&f.sessions, "sessions", 0, fmt.Sprintf("store sessions in the pool (default 2×GOMAXPROCS, %d here)", service.DefaultSessions()))
	fs.StringVar(&f.dir, "dir", "", "keep the data of a store given without a path in this directory (default: a temporary one, removed on exit)")
	fs.BoolVar(&f.keep, "keep", false, "keep the temporary data directory")
	fs.BoolVar(&f.public, "public", false, "allow a --listen address other than loopback (the service has no authentication)")
	fs.StringVar(&f.dataset, "dataset", "", "also serve this data set: postal (Japan Post's KEN_ALL, loaded into the store when not there yet) as GET /xml/find and the token API /api/login, /api/find, /api/logout")
	fs.IntVar(&f.rows, "dataset-rows", 0, "load only the first `N` postal records (default all, 120,720)")
	fs.StringVar(&f.file, "dataset-file", "", "load the postal records from this KEN_ALL.CSV (CP932 or UTF-8, plain or .gz; check it with kurabe dataset import) instead of the copy shipped with kurabe")
	fs.StringVar(&f.user, "user", service.DefaultPostalUser, "the token API's one user")
	fs.StringVar(&f.password, "password", "", "the token API's password (default from "+passwordEnv+", which other users cannot see in ps)")
	durationVar(fs, &f.tokenTTL, "token-ttl", service.DefaultTokenTTL, "the `duration` a token is valid for after login, e.g. 10m, or 600 (seconds)")
	fs.IntVar(&f.maxRecords, "max-records", service.DefaultMaxRecords, "the most records one find may ask for (max=, limit=)")
	fs.StringVar(&f.by, "by", "key", "how a find reads its page: key (from key skip+1, an index seek) or offset (LIMIT ... OFFSET skip, the store walks past the skipped rows)")
	fs.BoolVar(&f.child, "cgi-child", false, "")
	fs.Int64Var(&f.records, "cgi-records", 0, "")
	fs.StringVar(&f.tokens, "cgi-tokens", "", "")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: kurabe serve [flags]\n\nServes the bbs message board over HTTP from a store, until interrupted:\nPOST /posts, GET /posts, GET /posts?limit=N, GET /posts/count (docs/serve.md).\nWith --dataset postal, also GET /xml/find?skip=S&max=M and the token API\nPOST /api/login, GET /api/find?offset=S&limit=M, POST /api/logout.\n\nFlags:")
		hidden := map[string]bool{"cgi-child": true, "cgi-records": true, "cgi-tokens": true}
		fs.VisitAll(func(fl *flag.Flag) {
			if hidden[fl.Name] {
				return
			}
			arg, usage := flag.UnquoteUsage(fl)
			if fl.DefValue != "" && fl.DefValue != "false" && fl.DefValue != "0" {
				usage += fmt.Sprintf(" (default %s)", fl.DefValue)
			}
			fmt.Fprintf(fs.Output(), "  -%s\n    \t%s\n", strings.TrimSpace(fl.Name+" "+arg), usage)
		})
	}
	if err := fs.Parse(args); err != nil {
		return flagsFailed(fs, err, stderr, "kurabe help serve")
	}
	if fs.NArg() > 0 {
		return usageErr("unexpected argument %q; the store is given with --store", fs.Arg(0))
	}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	if f.child {
		return a.serveCGIChild(ctx, &f, stdout)
	}

	// Validate everything before touching the store.
	if set["sessions"] && f.sessions < 1 {
		return usageErr("--sessions %d: want 1 or more", f.sessions)
	}
	if f.cgi && set["sessions"] {
		return usageErr("--sessions does not apply with --cgi: every request's process opens its own session")
	}
	sp, drv, err := a.storeOf(f.store)
	if err != nil {
		return err
	}
	if f.cgi && a.startsServer(sp) {
		return usageErr("--cgi with store %s: each request's process would start a server of its own, and they cannot share one kurabe starts; give a running server's address, e.g. %s://user@127.0.0.1/db, or drop --cgi", sp, sp.Driver)
	}
	if err := checkListen(f.listen, f.public); err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	pcfg, err := f.postal(set)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}

	// A store without a path, and a server kurabe starts, lives in a data
	// directory, temporary unless --dir or --keep.
	dir, kept := absDir(f.dir), f.keep || f.dir != ""
	if sp.Throwaway() || f.dir != "" {
		if dir != "" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return usageErr("--dir %s: %v; choose a writable directory", dir, err)
			}
		} else if dir, err = os.MkdirTemp("", "kurabe-serve-"); err != nil {
			return usageErr("cannot create a temporary directory: %v; set TMPDIR to a writable directory or give --dir", err)
		} else {
			os.Chmod(dir, 0o755) // managed servers run as an unprivileged user when kurabe is root
		}
		if err := checkWritableDir(dir); err != nil {
			return usageErr("--dir %s: %v; choose a writable directory", dir, err)
		}
		if !kept {
			defer removeLater(dir)()
		}
	}
	// The service sets its tables up anew as it starts: another kurabe
	// on them would find them emptied under it. The lock is released
	// after the store closed (defers run last first), so that nothing of
	// it is written once another kurabe may start.
	locks := newStoreLocks("kurabe serve")
	defer locks.release()
	st, err := drv.Open(ctx, sp, store.Env{Dir: dir, Keep: kept})
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("store %s: %w", sp, err)}
	}
	defer st.Close()
	if err := locks.take(ctx, st, sp); err != nil {
		return err
	}

	// Tokens live in the data directory, or in a temporary directory of
	// their own when the store was given with a path.
	if pcfg != nil {
		if dir != "" {
			pcfg.TokenDir = filepath.Join(dir, "tokens")
		} else {
			td, err := os.MkdirTemp("", "kurabe-serve-tokens-")
			if err != nil {
				return usageErr("cannot create a directory for the tokens: %v; set TMPDIR to a writable directory or give --dir", err)
			}
			defer removeLater(td)()
			pcfg.TokenDir = td
		}
	}

	ln, err := net.Listen("tcp", f.listen)
	if err != nil {
		return usageErr("--listen %s: %v; choose a free port, or port 0 for any", f.listen, err)
	}
	defer ln.Close()
	cfg := service.Config{Sessions: f.sessions, Version: Version, Log: log.New(stderr, "kurabe serve: ", 0), Postal: pcfg}
	svc, err := service.New(st, cfg)
	if err != nil {
		return err
	}
	if err := svc.CreateTables(ctx); err != nil {
		return fmt.Errorf("store %s: %w", sp, err)
	}
	postalNote := ""
	if pcfg != nil {
		start := time.Now()
		ld, err := svc.LoadPostal(ctx, f.rows)
		if err != nil {
			if ctx.Err() != nil {
				return &ExitError{Code: ExitInterrupted, Err: errors.New("interrupted while loading the postal data set")}
			}
			if d := store.DeathOf(st); d != nil {
				return fmt.Errorf("store %s: %w\n%v", sp, err, d)
			}
			return fmt.Errorf("store %s: %w", sp, err)
		}
		if ld.Loaded {
			path := ld.Path
			if ld.Had > 0 {
				path += "; the table held " + numfmt.Group(ld.Had) + " records before"
			}
			fmt.Fprintf(stderr, "kurabe serve: postal: loaded %s records into %s in %s (%s)\n", numfmt.Group(ld.Records), sp.Driver, time.Since(start).Round(time.Millisecond), path)
		} else {
			fmt.Fprintf(stderr, "kurabe serve: postal: the store already holds the %s records; not loaded again\n", numfmt.Group(ld.Records))
		}
		pcfg.Records = ld.Records
		postalNote = fmt.Sprintf(" · postal %s records, tokens in %s", numfmt.Group(ld.Records), pcfg.TokenDir)
	}
	if f.cgi {
		// The per-request processes are told everything but the store spec
		// and the password on their command line; those two go in their
		// environment.
		args := []string{"serve", "--cgi-child", "--dir", dir}
		env := []string{cgiStoreEnv + "=" + sp.Raw}
		if pcfg != nil {
			args = append(args, "--dataset", "postal", "--user", pcfg.User, "--token-ttl", pcfg.TokenTTL.String(),
				"--max-records", strconv.Itoa(pcfg.MaxRecords), "--by", f.by,
				"--cgi-records", strconv.FormatInt(pcfg.Records, 10), "--cgi-tokens", pcfg.TokenDir)
			env = append(env, passwordEnv+"="+pcfg.Password)
		}
		cfg.CGI = &service.CGI{Args: args, Env: env, Stderr: stderr}
		svc.Close()
		if svc, err = service.New(st, cfg); err != nil {
			return err
		}
	}
	info := st.Info(ctx)
	sessions := f.sessions
	if sessions == 0 {
		sessions = service.DefaultSessions()
	}
	mode := fmt.Sprintf("persistent, %d sessions", sessions)
	if f.cgi {
		mode = "cgi, a process per request"
	}
	data := ""
	if dir != "" {
		data = " · data " + dir + map[bool]string{true: " (kept)", false: " (removed on exit)"}[kept]
	}
	fmt.Fprintf(stdout, "kurabe serve: http://%s · %s · store %s %s%s%s%s · Ctrl-C stops\n",
		ln.Addr(), mode, info.Driver, info.Target, versionNote(info), postalNote, data)
	// A managed server that dies leaves nothing to serve: every request
	// would fail. kurabe serve stops, saying how it died, rather than
	// answer 500 forever; it does not start the server again, which would
	// hide the crash from whoever measures through it.
	sctx, stopServing := context.WithCancel(ctx)
	defer stopServing()
	if m, ok := st.(store.Mortal); ok {
		if died := m.Died(); died != nil {
			go func() {
				select {
				case <-died:
					stopServing()
				case <-sctx.Done():
				}
			}()
		}
	}
	err = svc.Serve(sctx, ln)
	if d := store.DeathOf(st); d != nil && ctx.Err() == nil {
		return &ExitError{Code: ExitFailed, Err: fmt.Errorf("%v\nkurabe serve stopped: every request would fail without the server; start it again", d)}
	}
	return err
}

func versionNote(info store.Info) string {
	switch {
	case info.Version == "":
		return ""
	case strings.HasPrefix(info.Version, info.Driver):
		return " (" + info.Version + ")"
	}
	return " (" + info.Driver + " " + info.Version + ")"
}

// checkListen refuses an address other than loopback unless --public: the
// service takes posts from anyone who reaches it.
func checkListen(addr string, public bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--listen %q: want HOST:PORT, e.g. 127.0.0.1:3001", addr)
	}
	if public {
		return nil
	}
	if ip := net.ParseIP(host); host == "localhost" || (ip != nil && ip.IsLoopback()) {
		return nil
	}
	shown := host
	if shown == "" {
		shown = "every interface"
	}
	return fmt.Errorf("--listen %s: %s is not a loopback address, and kurabe serve has no authentication: anyone who reaches it could post; listen on 127.0.0.1, or add --public to listen there anyway", addr, shown)
}

// postal checks the postal flags and returns the postal APIs' settings
// (without the token directory), or nil without --dataset.
func (f *serveFlags) postal(set map[string]bool) (*service.Postal, error) {
	switch f.dataset {
	case "":
		for _, name := range postalFlags {
			if set[name] {
				return nil, fmt.Errorf("--%s applies with --dataset postal", name)
			}
		}
		return nil, nil
	case "postal":
	default:
		return nil, fmt.Errorf("--dataset %q: kurabe serve has one data set, postal", f.dataset)
	}
	p := &service.Postal{User: f.user, Password: f.password, TokenTTL: f.tokenTTL, MaxRecords: f.maxRecords, ByOffset: f.by == "offset", File: f.file}
	if !set["password"] {
		p.Password = os.Getenv(passwordEnv)
	}
	switch {
	case p.Password == "":
		return nil, fmt.Errorf("--dataset postal serves a token API, which needs a password: set %s=... in the environment (or give --password, which other users can see in ps)", passwordEnv)
	case f.user == "":
		return nil, errors.New("--user \"\": the token API needs a user name")
	case f.rows < 0:
		return nil, fmt.Errorf("--dataset-rows %d: want 0 (all) or more", f.rows)
	case f.tokenTTL <= 0:
		return nil, fmt.Errorf("--token-ttl %v: want a positive duration such as 15m", f.tokenTTL)
	case f.maxRecords < 1:
		return nil, fmt.Errorf("--max-records %d: want 1 or more", f.maxRecords)
	case f.by != "key" && f.by != "offset":
		return nil, fmt.Errorf("--by %q: want key or offset", f.by)
	}
	return p, nil
}

// serveCGIChild answers the one request a CGI host started this process
// for (kurabe serve --cgi), with the store named in its environment.
func (a *App) serveCGIChild(ctx context.Context, f *serveFlags, stdout io.Writer) error {
	dir := f.dir
	open := func(ctx context.Context) (store.Store, error) {
		sp, err := store.ParseSpec(os.Getenv(cgiStoreEnv))
		if err != nil {
			return nil, err
		}
		drv := a.driver(sp.Driver)
		if drv == nil {
			return nil, fmt.Errorf("unknown driver %q", sp.Driver)
		}
		return drv.Open(ctx, sp, store.Env{Dir: dir})
	}
	cfg := service.Config{Version: Version}
	if f.dataset == "postal" {
		cfg.Postal = &service.Postal{
			User: f.user, Password: os.Getenv(passwordEnv), TokenDir: f.tokens, TokenTTL: f.tokenTTL,
			MaxRecords: f.maxRecords, ByOffset: f.by == "offset", Records: f.records,
		}
	}
	return service.ServeCGI(ctx, open, cfg, os.Environ(), os.Stdin, stdout)
}
