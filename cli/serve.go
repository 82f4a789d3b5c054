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
	"strings"

	"kurabe/service"
	"kurabe/store"
)

// cgiStoreEnv carries the store spec to the per-request processes of
// --cgi, in their environment rather than on their command line, where
// other users could read a password in it.
const cgiStoreEnv = "KURABE_SERVE_STORE"

type serveFlags struct {
	store    string
	listen   string
	cgi      bool
	sessions int
	dir      string
	keep     bool
	public   bool
	child    bool // hidden: answer one CGI request and exit
}

// serve runs the reference message-board service over a store until ctx
// is cancelled (SIGINT or SIGTERM in main).
func (a *App) serve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f serveFlags
	fs := flag.NewFlagSet("kurabe serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.store, "store", "sqlite:", "the store behind the service, DRIVER:[PATH][?OPTION=VALUE&...]")
	fs.StringVar(&f.listen, "listen", "127.0.0.1:3001", "address to listen on, HOST:PORT; port 0 picks a free one")
	fs.BoolVar(&f.cgi, "cgi", false, "start a new process for every request, as CGI does (default: one process with a pool of store sessions)")
	fs.IntVar(&f.sessions, "sessions", 0, fmt.Sprintf("store sessions in the pool (default 2×GOMAXPROCS, %d here)", service.DefaultSessions()))
	fs.StringVar(&f.dir, "dir", "", "keep the data of a store given without a path in this directory (default: a temporary one, removed on exit)")
	fs.BoolVar(&f.keep, "keep", false, "keep the temporary data directory")
	fs.BoolVar(&f.public, "public", false, "allow a --listen address other than loopback (the service has no authentication)")
	fs.BoolVar(&f.child, "cgi-child", false, "")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: kurabe serve [flags]\n\nServes the bbs message board over HTTP from a store, until interrupted:\nPOST /posts, GET /posts, GET /posts?limit=N, GET /posts/count (docs/serve.md).\n\nFlags:")
		hidden := fs.Lookup("cgi-child")
		fs.VisitAll(func(fl *flag.Flag) {
			if fl == hidden {
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
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return &ExitError{Code: ExitUsage, Err: errors.New("bad flags; see kurabe serve -h")}
	}
	if fs.NArg() > 0 {
		return usageErr("unexpected argument %q; the store is given with --store", fs.Arg(0))
	}
	if f.child {
		return a.serveCGIChild(ctx, f.dir, stdout)
	}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })

	// Validate everything before touching the store.
	if set["sessions"] && f.sessions < 1 {
		return usageErr("--sessions %d: want 1 or more", f.sessions)
	}
	if f.cgi && set["sessions"] {
		return usageErr("--sessions does not apply with --cgi: every request's process opens its own session")
	}
	sp, err := store.ParseSpec(f.store)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	drv := a.driver(sp.Driver)
	if drv == nil {
		return usageErr("store %s: unknown driver %q; choose from %s", sp, sp.Driver, strings.Join(a.driverNames(), ", "))
	}
	if f.cgi && sp.Target == "" && sp.Driver != "file" && sp.Driver != "sqlite" {
		return usageErr("--cgi with store %s: the per-request processes cannot share a server kurabe starts itself; give the server's address, e.g. %s://user@127.0.0.1/db", sp, sp.Driver)
	}
	if err := checkListen(f.listen, f.public); err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}

	// A store without a path lives in a data directory, temporary unless
	// --dir or --keep.
	dir, kept := f.dir, f.keep || f.dir != ""
	if sp.Target == "" || f.dir != "" {
		if dir != "" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return usageErr("--dir %s: %v; choose a writable directory", dir, err)
			}
		} else if dir, err = os.MkdirTemp("", "kurabe-serve-"); err != nil {
			return usageErr("cannot create a temporary directory: %v; set TMPDIR to a writable directory or give --dir", err)
		} else {
			os.Chmod(dir, 0o755) // managed servers run as an unprivileged user when kurabe is root
		}
		if dir, err = filepath.Abs(dir); err != nil {
			return usageErr("--dir: %v", err)
		}
		if err := checkWritableDir(dir); err != nil {
			return usageErr("--dir %s: %v; choose a writable directory", dir, err)
		}
		if !kept {
			defer os.RemoveAll(dir)
		}
	}
	st, err := drv.Open(ctx, sp, store.Env{Dir: dir})
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("store %s: %w", sp, err)}
	}
	defer st.Close()

	cfg := service.Config{Sessions: f.sessions, Version: Version, Log: log.New(stderr, "kurabe serve: ", 0)}
	if f.cgi {
		cfg.CGI = &service.CGI{Args: []string{"serve", "--cgi-child", "--dir", dir}, Env: []string{cgiStoreEnv + "=" + sp.Raw}, Stderr: stderr}
	}
	svc, err := service.New(st, cfg)
	if err != nil {
		return err
	}
	if err := svc.CreateTables(ctx); err != nil {
		return fmt.Errorf("store %s: %w", sp, err)
	}
	ln, err := net.Listen("tcp", f.listen)
	if err != nil {
		return usageErr("--listen %s: %v; choose a free port, or port 0 for any", f.listen, err)
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
	fmt.Fprintf(stdout, "kurabe serve: http://%s · %s · store %s %s%s%s · Ctrl-C stops\n",
		ln.Addr(), mode, info.Driver, info.Target, versionNote(info), data)
	return svc.Serve(ctx, ln)
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

// serveCGIChild answers the one request a CGI host started this process
// for (kurabe serve --cgi), with the store named in its environment.
func (a *App) serveCGIChild(ctx context.Context, dir string, stdout io.Writer) error {
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
	return service.ServeCGI(ctx, open, service.Config{Version: Version}, os.Environ(), os.Stdin, stdout)
}
