package cli

import (
	"cmp"
	"context"
	crand "crypto/rand"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"kurabe/engine"
	"kurabe/numfmt"
	"kurabe/outfile"
	"kurabe/probe"
	"kurabe/report"
	"kurabe/result"
	"kurabe/service"
	"kurabe/store"
	"kurabe/store/httpstore"
	"kurabe/stores"
	"kurabe/workload"
)

// defaultStores is what kurabe run compares when given no --store (those
// of them that the workload can run on).
var defaultStores = []string{"file:", "sqlite:"}

type runFlags struct {
	stores   multiFlag
	vary     multiFlag
	workload string
	ops      string
	clients  string
	count    int64
	duration time.Duration
	warmup   time.Duration
	grace    time.Duration
	think    string
	seed     uint64
	jsonOut  string
	htmlOut  string
	lang     *string
	format   string
	dir      string
	keep     bool
	quiet    bool
	repeat   int
	rate     string
	viaHTTP  viaModes
	probe    string
	isolate  bool
	mux      muxFlag
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, " ") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// muxFlag is --mux: how the clients wait for replies (engine.ClientIO).
type muxFlag struct{ io engine.ClientIO }

func (m *muxFlag) String() string {
	if m == nil || m.io == engine.IOAuto {
		return "auto"
	}
	return string(m.io)
}

func (m *muxFlag) Set(v string) (err error) {
	m.io, err = engine.ParseClientIO(v)
	return err
}

// runSet is kurabe run's flag set, every workload's flags included, and
// which of its flags each workload takes.
type runSet struct {
	fs   *flag.FlagSet
	defs map[string]workload.Definition
	// generic are the flags of run itself, which every workload takes;
	// takes lists, per workload, the flags its definition registers: the
	// declaration is the definition's Flags method, in its own folder.
	generic map[string]bool
	takes   map[string][]string
}

// runFlagSet builds the flag set of kurabe run, every workload's flags
// included, bound to f; scenario files are checked against the same set.
func (a *App) runFlagSet(f *runFlags, out io.Writer) *runSet {
	fs := flag.NewFlagSet("kurabe run", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Var(&f.stores, "store", "a store to compare, DRIVER:[PATH][?OPTION=VALUE&...]; repeat for more (default: "+strings.Join(defaultStores, " ")+")")
	fs.Var(&f.vary, "vary", "run every store once per value of a store or server option, NAME=V1,V2,...; repeat to vary several (every combination runs)")
	fs.StringVar(&f.workload, "workload", "bbs", "the workload to run")
	fs.StringVar(&f.workload, "w", "bbs", "short for --workload")
	fs.StringVar(&f.ops, "ops", "", "operations to measure, in order, comma-separated (default: the workload's own list)")
	fs.StringVar(&f.clients, "c", "10", "concurrent clients, each with its own session; a list such as 1,2,4,8 runs every phase at each level")
	fs.Int64Var(&f.count, "n", 2000, "operations per phase in total, spread exactly over the clients")
	durationVar(fs, &f.duration, "d", 0, "run each phase for this `duration` instead of -n operations, e.g. 30s, or 30 (seconds)")
	fs.StringVar(&f.rate, "R", "", "open loop: start operations at this many per second whatever the store's pace (latency measured from the scheduled start); RATE, or FROM:TO for a linear ramp over -d")
	durationVar(fs, &f.warmup, "warmup", 0, "run each phase for this `duration` before measuring, excluded from the figures, e.g. 2s, or 2 (seconds)")
	durationVar(fs, &f.grace, "grace", engine.DefaultGrace, "operations still in flight this `duration` after a phase's end (or Ctrl-C) are cut off and counted as failed (class timeout): a server that stopped answering")
	fs.StringVar(&f.think, "think", "", "delay between one client's operations: a duration (10ms; a bare number is seconds) or a uniform range (5ms-20ms)")
	fs.Uint64Var(&f.seed, "seed", 0, "seed of the clients' random numbers, to repeat a run (default: random, recorded in the result)")
	fs.StringVar(&f.jsonOut, "json", "", "write the full result document to this file")
	fs.StringVar(&f.htmlOut, "html", "", "write a self-contained HTML report (verification, tables, charts) to this file")
	f.lang = langFlag(fs)
	fs.StringVar(&f.format, "format", "text", "table format: "+strings.Join(report.FormatNames(), ", "))
	fs.StringVar(&f.dir, "dir", "", "keep the data of stores given without a path in this directory (default: a temporary one, removed)")
	fs.BoolVar(&f.keep, "keep", false, "keep the temporary data directory")
	fs.BoolVar(&f.quiet, "q", false, "no progress line (it is shown only on a terminal anyway), and no line on stderr about a slow start (outside a terminal, a store set up, a managed server started, a data set loaded or the sessions opened still going after 2s, and each minute after)")
	fs.Var(&f.viaHTTP, "via-http", "bbs: also run each store through kurabe serve on loopback, and report the cost of the HTTP layer per operation; =cgi runs it as CGI (a process per request), =persistent,cgi both")
	fs.StringVar(&f.probe, "disk-probe", "", "record kurabe probe --json FILE's disk figures in the result (load sets autocommit against them)")
	fs.BoolVar(&f.isolate, "isolate", false, "give each client tables of its own (posts_c1, posts_c2, ...; a file each on the file store) instead of sharing the workload's tables")
	fs.Var(&f.mux, "mux", "how clients wait for replies when every session can wait on its socket itself (PostgreSQL and MariaDB on the wire driver, closed loop, no think time): threads (a thread each, as pgbench -j C), loop (one event loop for all, as one pgbench thread), auto (threads up to "+strconv.Itoa(engine.ThreadsPerCPU)+" clients per core, then loop), poller (Go's network poller, as before; also =false); default auto")
	fs.IntVar(&f.repeat, "repeat", 1, "run the whole comparison this many times, stores taking turns, keeping each run's figures (for confidence intervals)")
	rs := &runSet{fs: fs, defs: map[string]workload.Definition{}, generic: map[string]bool{}, takes: map[string][]string{}}
	fs.VisitAll(func(fl *flag.Flag) { rs.generic[fl.Name] = true })
	for _, e := range a.Workloads {
		d := e.New()
		d.Flags(fs)
		rs.defs[e.Name] = d
		// The same definition's flags on a set of their own: the ones
		// this workload takes, whatever other workloads share.
		own := flag.NewFlagSet(e.Name, flag.ContinueOnError)
		e.New().Flags(own)
		own.VisitAll(func(fl *flag.Flag) { rs.takes[e.Name] = append(rs.takes[e.Name], fl.Name) })
	}
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: kurabe run [flags]\n       kurabe run SCENARIO.yaml (or .yml) [flags]\n\nRuns a workload against each store in turn, phase by phase, and prints one\nrow per store and operation. A scenario file holds the same settings by\nthe flags' names (docs/scenarios.md); flags given with it override it.\nFlags marked with a workload's name apply to that workload only. Times\n(-d, --warmup, --think) take a unit (30s, 500ms, 2m) or are seconds\nwithout one (30, 1.5), as kurabe http's -t and -d.\n\nFlags:")
		fs.PrintDefaults()
	}
	return rs
}

// checkApplies says which flag in set the workload does not take, if any:
// an option of another workload would otherwise be ignored, and the run
// would measure something other than what was asked.
func (rs *runSet) checkApplies(name string, set map[string]bool) error {
	for _, fl := range slices.Sorted(maps.Keys(set)) {
		if rs.generic[fl] || slices.Contains(rs.takes[name], fl) {
			continue
		}
		var whose []string
		for _, w := range slices.Sorted(maps.Keys(rs.takes)) {
			if slices.Contains(rs.takes[w], fl) {
				whose = append(whose, w)
			}
		}
		own := name + " takes no options of its own"
		if len(rs.takes[name]) > 0 {
			var names []string
			for _, n := range rs.takes[name] {
				names = append(names, dashed(n))
			}
			own = name + "'s options: " + strings.Join(names, ", ")
		}
		return &ExitError{Code: ExitUsage, Err: &flagError{flag: fl, unfit: true, err: fmt.Errorf("%s does not apply to -w %s, only to %s (%s); see kurabe help run", dashed(fl), name, strings.Join(whose, ", "), own)}}
	}
	return nil
}

// dashed writes a flag's name as the user types it: -n, --dataset.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// flagError is bad input that one flag is to blame for, so that a scenario
// file can point at the line that set it. unfit marks a flag the step's
// workload does not take (an option of another workload, a duration for a
// load): given on the command line with a scenario, it applies to the
// other steps.
type flagError struct {
	flag  string
	unfit bool
	err   error
}

func (e *flagError) Error() string { return e.err.Error() }
func (e *flagError) Unwrap() error { return e.err }

// badFlag is a usage error that flag name is to blame for.
func badFlag(name, format string, args ...any) error {
	return &ExitError{Code: ExitUsage, Err: &flagError{flag: name, err: fmt.Errorf(format, args...)}}
}

// blame is a usage error from a workload's check: the setting it names
// (workload.SettingError), or else the flag its message starts with
// (--scale 0: ...).
func blame(err error) error {
	var se *workload.SettingError
	if errors.As(err, &se) {
		return &ExitError{Code: ExitUsage, Err: &flagError{flag: se.Setting, unfit: se.Unfit, err: err}}
	}
	msg := err.Error()
	name := ""
	if strings.HasPrefix(msg, "-") {
		name = strings.TrimLeft(msg, "-")
		if i := strings.IndexAny(name, " :=,;"); i >= 0 {
			name = name[:i]
		}
	}
	if name == "" {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	return &ExitError{Code: ExitUsage, Err: &flagError{flag: name, err: err}}
}

// runPlan is a kurabe run with its flags read and every check done,
// before anything touches a store or the disk.
type runPlan struct {
	args     []string
	f        runFlags
	set      map[string]bool
	def      workload.Definition
	w        workload.Workload
	ops      []string
	levels   []int
	isolated []workload.Workload
	cfg      engine.Config
	specs    []store.Spec
	variants [][]result.Setting
	axes     []result.Axis
	probe    *probe.Result // read from --disk-probe
	// A step of a scenario: which, and the stream its tables join (CSV
	// under one header for every step).
	scenario *result.Scenario
	tables   *report.TableStream
}

func (a *App) run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if path, rest, ok := a.findScenario(args); ok {
		var f runFlags
		fs := a.runFlagSet(&f, io.Discard).fs
		// A flag given with the file that kurabe run does not have is
		// the command line's mistake, not the file's.
		if err := fs.Parse(rest); err != nil && !errors.Is(err, flag.ErrHelp) {
			return flagsFailed(fs, err, stderr, "kurabe help run")
		} else if err == nil {
			for _, other := range fs.Args() {
				if isScenario(other) {
					return usageErr("one scenario file at a time: run %s and %s one after the other", path, other)
				}
			}
		}
		return a.runScenario(ctx, path, rest, stdout, stderr)
	}
	p, err := a.planRun(args, stderr)
	if err != nil || p == nil {
		return err
	}
	return a.execRun(ctx, p, stdout, stderr)
}

// findScenario finds a scenario file among run's arguments: first, or
// after flags (kurabe run -n 5 sc.yaml). The other arguments are returned
// in order, to override the file's settings.
func (a *App) findScenario(args []string) (path string, rest []string, ok bool) {
	if len(args) > 0 && isScenario(args[0]) {
		return args[0], args[1:], true
	}
	var f runFlags
	fs := a.runFlagSet(&f, io.Discard).fs
	if fs.Parse(args) != nil || fs.NArg() == 0 || !isScenario(fs.Arg(0)) {
		return "", nil, false
	}
	before := args[:len(args)-fs.NArg()]
	return fs.Arg(0), append(slices.Clone(before), fs.Args()[1:]...), true
}

// planRun reads run's flags and checks everything it can without touching
// a store or the disk: a mistake is found before anything runs. It
// returns nil and no error when -h printed the usage.
func (a *App) planRun(args []string, stderr io.Writer) (*runPlan, error) {
	p := &runPlan{args: args, set: map[string]bool{}}
	f := &p.f
	rs := a.runFlagSet(f, io.Discard)
	fs := rs.fs
	if err := fs.Parse(args); err != nil {
		return nil, flagsFailed(fs, err, stderr, "kurabe help run")
	}
	if fs.NArg() > 0 {
		return nil, usageErr("unexpected argument %q; stores are given with --store, a scenario file ends in .yaml or .yml", fs.Arg(0))
	}
	set := p.set
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })

	if len(f.viaHTTP) > 0 && f.workload != "bbs" {
		return nil, badFlag("via-http", "--via-http runs the bbs workload through kurabe serve's board API; it cannot carry workload %s", f.workload)
	}
	if len(f.viaHTTP) > 0 && f.isolate {
		return nil, badFlag("isolate", "--isolate with --via-http: kurabe serve's board API has one table of posts; run --isolate directly against the stores")
	}
	def, ok := rs.defs[f.workload]
	if !ok {
		return nil, badFlag("workload", "unknown workload %q; choose from %s", f.workload, strings.Join(slices.Sorted(maps.Keys(rs.defs)), ", "))
	}
	p.def = def
	if err := rs.checkApplies(f.workload, set); err != nil {
		return nil, err
	}
	all, defOps := def.Ops()
	ops := defOps
	if set["ops"] {
		// --ops '' ran the workload's default list, and --ops write,,read
		// dropped the empty item: a list that lost something (a shell
		// variable not set) is refused.
		if strings.TrimSpace(f.ops) == "" {
			return nil, badFlag("ops", "--ops is empty; choose from %s, or leave --ops out for %s", strings.Join(all, ", "), strings.Join(defOps, ","))
		}
		ops = nil
		for _, o := range strings.Split(f.ops, ",") {
			if o = strings.TrimSpace(o); o == "" {
				return nil, badFlag("ops", "--ops %s: an item is empty; give an operation between each two commas, from %s", f.ops, strings.Join(all, ", "))
			}
			if slices.Contains(ops, o) {
				return nil, badFlag("ops", "--ops %s: %s is given twice, and both phases would have the same row; give it once (--repeat runs phases again)", f.ops, o)
			}
			ops = append(ops, o)
		}
		if len(ops) == 0 {
			return nil, badFlag("ops", "--ops is empty; choose from %s", strings.Join(all, ", "))
		}
	}
	p.ops = ops
	w, err := def.Build(ops)
	if err != nil {
		return nil, blame(err)
	}
	p.w = w
	for i, t := range w.Tables() {
		t.ID = i
	}
	if p.levels, err = parseLevels(f.clients); err != nil {
		return nil, badFlag("c", "%v", err)
	}
	if f.isolate {
		if p.isolated, err = isolate(def, ops, w, slices.Max(p.levels)); err != nil {
			return nil, badFlag("isolate", "%v", err)
		}
	}
	if !set["n"] {
		if c, ok := def.(workload.Counter); ok {
			f.count = c.DefaultCount()
		}
	}
	cfg := engine.Config{Clients: p.levels[0], Count: f.count, Duration: f.duration, Warmup: f.warmup, Grace: f.grace, Seed: f.seed, PerClient: p.isolated, IO: f.mux.io}
	if set["d"] {
		if set["n"] {
			return nil, badFlag("d", "give either -n or -d, not both")
		}
		cfg.Count = 0
		if f.duration <= 0 {
			return nil, badFlag("d", "-d %v: want a positive duration such as 30s", f.duration)
		}
	} else if f.count < 1 {
		return nil, badFlag("n", "-n %d: want 1 or more operations", f.count)
	}
	if f.repeat < 1 {
		return nil, badFlag("repeat", "--repeat %d: want 1 or more", f.repeat)
	}
	if f.warmup < 0 {
		return nil, badFlag("warmup", "--warmup %v: want 0 or more", f.warmup)
	}
	if f.grace <= 0 {
		return nil, badFlag("grace", "--grace %v: want a positive duration such as 5s", f.grace)
	}
	if cfg.ThinkMin, cfg.ThinkMax, err = parseThink(f.think); err != nil {
		return nil, badFlag("think", "%v", err)
	}
	if cfg.Rate, cfg.RampTo, err = parseRate(f.rate); err != nil {
		return nil, badFlag("R", "%v", err)
	}
	if rc, ok := w.(workload.RunChecker); ok {
		if err := rc.CheckRun(workload.RunSettings{Count: cfg.Count, CountGiven: set["n"], Duration: cfg.Duration, Warmup: cfg.Warmup, Rate: cfg.Rate, Isolated: f.isolate}); err != nil {
			return nil, blame(err)
		}
	}
	// What the engine would refuse, said with the flags to blame.
	switch {
	case cfg.RampTo > 0 && cfg.Duration == 0:
		return nil, badFlag("R", "-R %s: a ramp needs a duration to ramp over; add -d, e.g. -d 30s, or give one rate", f.rate)
	case cfg.Rate > 0 && cfg.ThinkMax > 0:
		return nil, badFlag("think", "--think %s with -R %s: think time is for the closed loop, and with a rate the timetable sets the pace; give one of them", f.think, f.rate)
	}
	if err := cfg.Validate(); err != nil {
		return nil, &ExitError{Code: ExitUsage, Err: err}
	}
	if _, ok := report.Formats[f.format]; !ok {
		return nil, badFlag("format", "unknown --format %q; choose from %s", f.format, strings.Join(report.FormatNames(), ", "))
	}
	if err := report.CheckLang(*f.lang); err != nil {
		return nil, badFlag("lang", "%v", err)
	}
	if cfg.Seed == 0 {
		var b [8]byte
		crand.Read(b[:])
		cfg.Seed = binary.LittleEndian.Uint64(b[:]) >> 1
	}
	p.cfg = cfg
	if f.jsonOut != "" && f.htmlOut != "" && samePath(f.jsonOut, f.htmlOut) {
		return nil, badFlag("html", "--json %s and --html %s name the same file; give each its own", f.jsonOut, f.htmlOut)
	}
	for _, out := range []struct{ flag, path string }{{"json", f.jsonOut}, {"html", f.htmlOut}} {
		if err := checkOutputFile(out.path); err != nil {
			return nil, badFlag(out.flag, "--%s %s: %v", out.flag, out.path, err)
		}
	}
	if f.dir != "" {
		f.dir = absDir(f.dir)
		if err := checkDirPath(f.dir); err != nil {
			return nil, badFlag("dir", "--dir %s: %v", f.dir, err)
		}
	}
	if f.probe != "" {
		if p.probe, err = probe.ReadFile(f.probe); errors.Is(err, os.ErrNotExist) {
			return nil, badFlag("disk-probe", "--disk-probe %s: no such file; measure the disk first with kurabe probe --json %s (add --dir D for the disk the stores are on)", f.probe, f.probe)
		} else if err != nil {
			return nil, badFlag("disk-probe", "--disk-probe: %v", err)
		}
	}
	specArgs := f.stores
	_, sqlOnly := w.(workload.SQLOnly)
	if len(specArgs) == 0 {
		// The defaults the workload can run on.
		for _, s := range defaultStores {
			if drv := a.driver(strings.TrimSuffix(s, ":")); !sqlOnly || drv != nil && drv.Dialect != "" {
				specArgs = append(specArgs, s)
			}
		}
	}
	for _, s := range specArgs {
		sp, err := store.ParseSpec(s)
		if err != nil {
			return nil, badFlag("store", "%v", err)
		}
		drv := a.driver(sp.Driver)
		if drv == nil {
			return nil, badFlag("store", "store %s: unknown driver %q; choose from %s", sp, sp.Driver, strings.Join(a.driverNames(), ", "))
		}
		if sqlOnly && drv.Dialect == "" {
			return nil, badFlag("store", "workload %s runs SQL, and the store %s runs none; give a store of %s", f.workload, sp, strings.Join(a.sqlDrivers(), ", "))
		}
		if drv.Workloads != nil && !slices.Contains(drv.Workloads, w.Name()) {
			return nil, badFlag("store", "the store %s runs the workload %s only, not %s; give --workload %s, or a database store for %s", sp, strings.Join(drv.Workloads, ", "), w.Name(), drv.Workloads[0], w.Name())
		}
		// A store in a file needs a directory it can make files in
		// (SQLite's journal beside the database, the file store's
		// marker): found now, not as a failed row after the run began.
		if drv.InFile && !sp.Throwaway() && !strings.HasPrefix(sp.Target, "//") {
			if err := checkDirPath(filepath.Dir(sp.Target)); err != nil {
				return nil, badFlag("store", "store %s: %v", sp, err)
			}
		}
		if a.startsServer(sp) {
			// A server setting is one name in any case: the checks below
			// and the store line see it in lower case.
			if sp, err = store.LowerSettings(sp, drv.Server.Own); err != nil {
				return nil, badFlag("store", "store %s: %v", sp, err)
			}
		}
		for _, mode := range f.viaHTTP {
			if mode == "cgi" && a.startsServer(sp) {
				return nil, badFlag("via-http", "--via-http=cgi with store %s: the per-request processes cannot share a server kurabe starts itself; give the server's address, e.g. %s://user@127.0.0.1/db", sp, sp.Driver)
			}
		}
		p.specs = append(p.specs, sp)
	}
	// An http:// store is a service reached over HTTP already: it runs
	// once, as it is, beside the stores --via-http puts behind kurabe
	// serve. With no other store --via-http would do nothing.
	if len(f.viaHTTP) > 0 && !slices.ContainsFunc(p.specs, func(sp store.Spec) bool { return sp.Driver != "http" && sp.Driver != "https" }) {
		var names []string
		for _, sp := range p.specs {
			names = append(names, sp.String())
		}
		return nil, badFlag("via-http", "--via-http with store %s: it is reached over HTTP already, so there is no store for kurabe serve to stand in front of; drop --via-http, or give the store behind that service (sqlite:PATH, postgres://...) and kurabe runs it directly and through kurabe serve", strings.Join(names, ", "))
	}
	if p.axes, err = parseVary(f.vary); err != nil {
		return nil, badFlag("vary", "%v", err)
	}
	if err := a.lowerVariedSettings(p.axes, p.specs); err != nil {
		return nil, badFlag("vary", "%v", err)
	}
	p.specs, p.variants = expand(p.specs, p.axes)
	defaults := map[*stores.Server]int{} // each server program asked once
	for _, sp := range p.specs {
		if !a.startsServer(sp) {
			continue
		}
		orig := a.driver(sp.Driver).Server
		srv := *orig
		if srv.DefaultConnections != nil {
			srv.DefaultConnections = func() int {
				n, ok := defaults[orig]
				if !ok {
					n = orig.DefaultConnections()
					defaults[orig] = n
				}
				return n
			}
		}
		if err := checkConnections(sp, &srv, slices.Max(p.levels)); err != nil {
			return nil, badFlag("store", "%v", err)
		}
	}
	if sqlOnly {
		for _, sp := range p.specs {
			if drv := a.driver(sp.Driver); drv != nil && drv.PerOpNoSQL && connectMode(sp) == "per-op" {
				give := "connect=session (the default)"
				if tx, ok := w.(workload.Transactional); !ok || !tx.Transactional() {
					give += ", or to time a connection per operation, a server store with connect=per-op (postgres:managed?connect=per-op)"
				}
				return nil, badFlag("store", "workload %s runs SQL, and the store %s runs none: with connect=per-op, %s's sessions open the database for each operation and take no SQL; give it %s", f.workload, sp, sp.Driver, give)
			}
		}
	}
	files := func(sp store.Spec) (perSession, perTable int) {
		drv := a.driver(sp.Driver)
		if drv.FilesPerTable != nil {
			perTable = drv.FilesPerTable(sp)
		}
		return drv.FilesPerSession, perTable
	}
	use := fileUse{clients: slices.Max(p.levels), tables: len(w.Tables()), isolate: p.isolated != nil, viaHTTP: len(f.viaHTTP) > 0}
	if err := checkOpenFiles(p.specs, files, use, openFileLimit()); err != nil {
		return nil, badFlag("c", "%v", err)
	}
	if tx, ok := w.(workload.Transactional); ok && tx.Transactional() {
		for _, sp := range p.specs {
			if connectMode(sp) == "per-op" {
				give := "connect=session (the default) or connect=pool"
				if sp.Driver == "sqlite" {
					give = "connect=session (the default)"
				}
				other := "or run -w select-only, which needs none"
				if f.workload != "tpcb" {
					other = "or leave tpcb out of --ops"
				}
				return nil, badFlag("store", "workload %s runs transactions, which need one connection from BEGIN to COMMIT, and the store %s opens a connection per operation; give it %s, %s", f.workload, sp, give, other)
			}
		}
	}
	if ok, is := w.(workload.OwnKeys); is {
		// Clients writing to one table: each has its own with --isolate.
		sharing := slices.Max(p.levels)
		if p.isolated != nil {
			sharing = 1
		}
		if why := ok.KeysOutOfOrder(sharing); why != "" {
			for _, sp := range p.specs {
				if a.driver(sp.Driver).KeysInOrder {
					return nil, badFlag("store", "the store %s takes keys in increasing order only (it appends each row after the last), and %s", sp, why)
				}
			}
		}
	}
	return p, nil
}

// checkConnections refuses a server kurabe starts (srv, its driver's)
// whose max_connections, given as an option or the server's default when
// none is given, cannot take the clients' connections and kurabe's own
// beside them (it counts and verifies the written tables on one while the
// sessions are open): the run would fail, or run fewer clients than asked,
// after the server started and loaded its data, with the server's "too
// many connections". Since kurabe configures a managed server itself, it
// says which setting to give rather than run short. PostgreSQL's
// superuser_reserved_connections do not count: kurabe's user on a managed
// server is a superuser, which may use them.
func checkConnections(sp store.Spec, srv *stores.Server, clients int) error {
	name := "max_connections"
	given := sp.Options.Get(name)
	if given == "" {
		name = "max-connections" // MariaDB's spelling on the command line
		given = sp.Options.Get(name)
	}
	conns, what := clients, fmt.Sprintf("-c %d clients", clients)
	if connectMode(sp) == "pool" {
		if pool := poolSize(sp); pool < conns {
			conns, what = pool, fmt.Sprintf("a pool of %d connections", pool)
		}
	}
	if given == "" {
		if srv.DefaultConnections == nil {
			return nil
		}
		limit := srv.DefaultConnections() // 0: the program cannot say
		if need := conns + 1; limit > 0 && need > limit {
			with := sp
			with.Options = url.Values{}
			for k, v := range sp.Options {
				with.Options[k] = v
			}
			with.Options.Set("max_connections", strconv.Itoa(need))
			return fmt.Errorf("store %s: the server runs max_connections=%d unless told otherwise, which cannot take %s and kurabe's own connection, which counts and verifies the tables beside them; give the store max_connections=%d or more (%s), or fewer clients", sp, limit, what, need, with)
		}
		return nil
	}
	limit, err := strconv.Atoi(given)
	if err != nil {
		return nil // the server's to judge
	}
	// A server that refuses to start below a limit needs that much
	// whatever the clients; one that raises a smaller limit runs more
	// than was given (asked only now: it may run the server program).
	need := max(conns+1, srv.StartsFrom)
	if need > limit && need > srv.RunsAtLeast() {
		return fmt.Errorf("store %s: %s=%d cannot take %s and kurabe's own connection, which counts and verifies the tables beside them; give %s=%d or more, or fewer clients", sp, name, limit, what, name, need)
	}
	return nil
}

// openFileLimit is how many files kurabe may have open (ulimit -n; Go
// raises it to the hard limit as it starts), or 0 when unknown.
func openFileLimit() int {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur > math.MaxInt32 {
		return 0
	}
	return int(rl.Cur)
}

// fileUse is what of a run decides how many files its stores hold open.
type fileUse struct {
	clients int
	tables  int  // the workload's tables
	isolate bool // --isolate: every client has tables of its own
	viaHTTP bool
}

// checkOpenFiles refuses more clients than kurabe can hold the files of
// (files: a session's and a table's, stores.Entry.FilesPerSession and
// FilesPerTable): with -c 25000 on SQLite the run opened sessions for
// many seconds, and then every phase failed with "too many open files";
// the file store, counted as holding none, ran -c 100 under ulimit -n 64
// with 44 of every phase's operations failing so. A pool holds at most
// pool_size connections; with --via-http every client also holds both
// ends of a loopback connection to kurabe serve, in this process.
func checkOpenFiles(specs []store.Spec, files func(store.Spec) (perSession, perTable int), use fileUse, limit int) error {
	if limit <= 0 {
		return nil
	}
	const own = 64 // kurabe's own: its output, a managed server's pipes, listeners
	clients := use.clients
	for _, sp := range specs {
		perSession, perTable := files(sp)
		fixed, perClient := own, perSession
		if connectMode(sp) == "pool" {
			fixed, perClient = fixed+perClient*min(poolSize(sp), clients), 0
		}
		if use.isolate {
			perClient += perTable * use.tables
		} else {
			fixed += perTable * use.tables
		}
		if use.viaHTTP {
			perClient += 2
		}
		if need := fixed + perClient*clients; need > limit {
			most := 0
			if perClient > 0 {
				most = (limit - fixed) / perClient
			}
			advice := fmt.Sprintf("give -c %d or fewer, or raise ulimit -n", most)
			if most < 1 || most >= clients {
				// Not even one client fits beside kurabe's own files (or
				// a pool, whatever -c, needs more): only the limit helps.
				advice = fmt.Sprintf("raise ulimit -n to %s or more", numfmt.Group(int64(need)))
			}
			return fmt.Errorf("-c %d: the clients of the store %s would hold about %s open files, and kurabe may have %s (ulimit -n); %s", clients, sp, numfmt.Group(int64(need)), numfmt.Group(int64(limit)), advice)
		}
	}
	return nil
}

// poolSize is a store's pool_size= option, or the stores' default of 10.
func poolSize(sp store.Spec) int {
	if n, err := strconv.Atoi(sp.Options.Get("pool_size")); err == nil {
		return n
	}
	return 10
}

// connectMode is a store's connect= option as the stores read it, in any
// case (connect=PER-OP is per-op), or "" when it is not given.
func connectMode(sp store.Spec) string { return strings.ToLower(sp.Options.Get("connect")) }

// openError says why a store did not open. An option it does not know
// that only --vary gave it is the --vary's, not the spec's the user typed:
// --vary applies to every store.
func openError(sp store.Spec, variant []result.Setting, err error) error {
	var oe *store.OptionError
	if errors.As(err, &oe) && oe.Value == "" && slices.ContainsFunc(variant, func(v result.Setting) bool { return v.Name == oe.Name }) {
		base := sp.Driver + ":" + store.RedactTarget(sp.Target)
		return fmt.Errorf("--vary %s: the store %s has no option %s (its options: %s), and --vary applies to every store; run %s in a run of its own, without this --vary", oe.Name, base, oe.Name, oe.Want, base)
	}
	return fmt.Errorf("store %s: %w", sp, err)
}

// startsServer says whether a store is a server kurabe starts itself for
// the run (its driver starts one, stores.Entry.Server, and it is given no
// address), which the processes of CGI requests cannot share.
func (a *App) startsServer(sp store.Spec) bool {
	drv := a.driver(sp.Driver)
	return drv != nil && drv.Server != nil && sp.Throwaway()
}

// checkStores opens each store of the plan in a directory of its own
// and closes it again: a driver checks its options when it opens a store,
// and starts nothing (a managed server starts at the first Setup). A
// scenario checks every step's stores this way before running any. A
// driver may create the directory of the store's path when it opens it
// (SQLite does); the directories the check created are removed again, so
// that a check leaves nothing behind, whether the scenario then runs or not.
func (a *App) checkStores(ctx context.Context, p *runPlan) error {
	dir, err := os.MkdirTemp("", "kurabe-check-")
	if err != nil {
		return usageErr("cannot create a temporary directory: %v; set TMPDIR to a writable directory", err)
	}
	defer removeLater(dir)()
	for i, sp := range p.specs {
		sdir := filepath.Join(dir, strconv.Itoa(i))
		if err := os.MkdirAll(sdir, 0o755); err != nil {
			return usageErr("cannot create %s: %v", sdir, err)
		}
		var made []string
		if !sp.Throwaway() && !strings.HasPrefix(sp.Target, "//") {
			made = missingDirs(filepath.Dir(sp.Target))
		}
		st, err := a.driver(sp.Driver).Open(ctx, sp, store.Env{Dir: sdir})
		if err == nil {
			st.Close()
		}
		for _, d := range made {
			os.Remove(d) // only if empty: whatever else put files there keeps them
		}
		if err != nil {
			flag := "store"
			for _, ax := range p.axes {
				if strings.Contains(err.Error(), ax.Name) {
					flag = "vary"
				}
			}
			return badFlag(flag, "store %s: %v", sp, err)
		}
	}
	return nil
}

// missingDirs returns dir and those of its parents that do not exist,
// deepest first.
func missingDirs(dir string) []string {
	var out []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || !errors.Is(err, os.ErrNotExist) || filepath.Dir(d) == d {
			return out
		}
		out = append(out, d)
	}
}

// execRun runs a checked plan.
func (a *App) execRun(ctx context.Context, p *runPlan, stdout, stderr io.Writer) error {
	f, w, cfg, levels, ops, isolated, axes := &p.f, p.w, p.cfg, p.levels, p.ops, p.isolated, p.axes
	specs, variants, args := p.specs, p.variants, p.args
	var err error

	// The data directory for stores given without a path (and for the
	// processes of --via-http=cgi). When every store has a path or an
	// address of its own and no --dir is given, the run makes none: a
	// temporary directory that nothing used would only be named in the
	// result (--isolate's per-client databases go beside a store's path).
	needDir := len(f.viaHTTP) > 0
	for _, sp := range specs {
		needDir = needDir || sp.Throwaway()
	}
	dir, kept := f.dir, f.keep || f.dir != ""
	switch {
	case dir != "":
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return usageErr("--dir %s: %v; choose a writable directory", dir, err)
		}
	case !needDir:
	default:
		if dir, err = os.MkdirTemp("", "kurabe-"); err != nil {
			return usageErr("cannot create a temporary directory: %v; set TMPDIR to a writable directory or give --dir", err)
		}
		// Managed servers run as an unprivileged user when kurabe is
		// root; they must be able to enter the directory.
		os.Chmod(dir, 0o755)
	}
	if dir != "" {
		if err := checkWritableDir(dir); err != nil {
			return usageErr("--dir %s: %v; choose a writable directory", dir, err)
		}
		if !kept {
			defer removeLater(dir)()
		}
	}
	// ownDir makes a store's directory in dir afresh (freshDir), or
	// returns "" for a store that lives at its own path or address.
	ownDir := func(name string, sp store.Spec) (string, error) {
		if dir == "" || !sp.Throwaway() && len(f.viaHTTP) == 0 {
			return "", nil
		}
		d := freshDir(dir, name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", usageErr("cannot create %s: %v", d, err)
		}
		return d, nil
	}

	// Open every store before running any, so a bad option fails at once.
	type opened struct {
		spec    store.Spec
		label   string
		variant []result.Setting
		st      store.Store
		closed  bool
		via     string // "http" or "cgi": run through kurabe serve over st
		dir     string // a via run's data directory, for its CGI processes
		of      string // the direct store's label, for a via run
		n       int    // the store's place among the specs, from 1
	}
	// Each store's namespace is locked as it is opened, and stays locked
	// until the run ends, after every store closed: one lock across
	// --repeat and --vary and for a store opened again for --via-http,
	// each store sharing its connection (store.LockSharer).
	locks := newStoreLocks("kurabe run")
	defer locks.release()
	var sts []*opened
	defer func() {
		for _, o := range sts {
			if !o.closed {
				o.st.Close()
			}
		}
	}()
	labels := labelStores(specs)
	var dirs []string
	if dir != "" {
		dirs = append(dirs, dir)
	}
	for i, sp := range specs {
		sdir, err := ownDir(fmt.Sprintf("%d-%s", i+1, sp.Driver), sp)
		if err != nil {
			return err
		}
		st, err := a.driver(sp.Driver).Open(ctx, sp, store.Env{Dir: sdir, Keep: kept})
		if err != nil {
			return &ExitError{Code: ExitUsage, Err: openError(sp, variants[i], err)}
		}
		sts = append(sts, &opened{spec: sp, label: labels[i], variant: variants[i], st: st, n: i + 1})
		if err := locks.take(ctx, st, sp); err != nil {
			return err
		}
		if !sp.Throwaway() && !strings.HasPrefix(sp.Target, "//") {
			dirs = append(dirs, filepath.Dir(sp.Target))
		}
		for _, mode := range f.viaHTTP {
			if sp.Driver == "http" || sp.Driver == "https" {
				break
			}
			via := map[string]string{"persistent": "http", "cgi": "cgi"}[mode]
			vdir := sdir + "-via-" + via
			if err := os.MkdirAll(vdir, 0o755); err != nil {
				return usageErr("cannot create %s: %v", vdir, err)
			}
			vst, err := a.driver(sp.Driver).Open(ctx, sp, store.Env{Dir: vdir, Keep: kept})
			if err != nil {
				return &ExitError{Code: ExitUsage, Err: fmt.Errorf("store %s: %w", sp, err)}
			}
			sts = append(sts, &opened{spec: sp, label: labels[i] + " via " + via, variant: variants[i], st: vst, via: via, of: labels[i], dir: vdir, n: i + 1})
			if err := locks.take(ctx, vst, sp); err != nil {
				return err
			}
		}
	}

	doc := &result.Document{
		Schema: result.Schema, Kurabe: Version, Command: append([]string{"run"}, redactArgs(args)...), Started: time.Now().UTC(), Seed: cfg.Seed,
		Run: result.RunConfig{
			Workload: w.Name(), Params: w.Params(), Ops: ops, Clients: cfg.Clients, Levels: levels, Count: cfg.Count,
			Duration: result.Duration(cfg.Duration), Warmup: result.Duration(cfg.Warmup), Think: thinkWithUnits(f.think), Rate: f.rate,
			Dir: dir, DirKept: kept, Vary: axes, Repeat: f.repeat, Isolate: f.isolate,
		},
		Env:      result.CollectEnv(dirs...),
		Scenario: p.scenario,
	}
	doc.Env.Probe = p.probe
	doc.Env.CheckProbe(dirs)

	prog := &progress{w: stderr, on: !f.quiet && a.Terminal(stderr), lang: *f.lang}
	if !f.quiet {
		prog.after = a.StartNotice
	}
	// Stores run one after another, each closed (a managed server
	// stopped) before the next starts, so they never compete. With
	// --repeat, the whole comparison runs again, stores taking turns, each
	// repeat on a freshly opened store.
	for _, o := range sts {
		doc.Stores = append(doc.Stores, result.Store{Label: o.label, Spec: o.spec.String(), Variant: o.variant, Via: o.via, Of: o.of})
	}
	for rep := 0; rep < f.repeat && ctx.Err() == nil; rep++ {
		// A later repeat's directories follow the first's: rR-N-DRIVER
		// for the store, and beside it rR-N-DRIVER-via-http for its run
		// through kurabe serve, as N-DRIVER-via-http is beside N-DRIVER.
		repDirs := map[int]string{} // by the store's n, made once
		repDir := func(o *opened) (string, error) {
			d, ok := repDirs[o.n]
			if !ok {
				var err error
				if d, err = ownDir(fmt.Sprintf("r%d-%d-%s", rep+1, o.n, o.spec.Driver), o.spec); err != nil {
					return "", err
				}
				repDirs[o.n] = d
			}
			if o.via == "" || d == "" {
				return d, nil
			}
			vdir := d + "-via-" + o.via
			if err := os.MkdirAll(vdir, 0o755); err != nil {
				return "", usageErr("cannot create %s: %v", vdir, err)
			}
			return vdir, nil
		}
		for i, o := range sts {
			sr := &doc.Stores[i]
			if ctx.Err() != nil || sr.Error != "" {
				continue
			}
			if rep > 0 {
				sdir, err := repDir(o)
				if err != nil {
					sr.Error = err.Error()
					continue
				}
				if o.st, err = a.driver(o.spec.Driver).Open(ctx, o.spec, store.Env{Dir: sdir, Keep: kept}); err != nil {
					sr.Error = err.Error()
					continue
				}
				// The namespace is locked already: the store shares the
				// lock, and its connection.
				if err := locks.take(ctx, o.st, o.spec); err != nil {
					sr.Error = err.Error()
					o.st.Close() // opened, and closed here: o.closed is still the last repeat's
					continue
				}
				if o.via != "" {
					o.dir = sdir
				}
				o.closed = false
			}
			var phases []result.Phase
			var prep *result.Prepared
			var info *store.Info
			watch := &serverWatch{st: o.st, label: o.label, name: func(p result.Phase) string {
				p.Repeat = rep
				return report.PhaseName(&result.Document{Run: result.RunConfig{Levels: levels, Repeat: f.repeat}}, p)
			}}
			if o.via != "" {
				var cgi *service.CGI
				if o.via == "cgi" {
					cgi = &service.CGI{Args: []string{"serve", "--cgi-child", "--dir", o.dir}, Env: []string{cgiStoreEnv + "=" + o.spec.Raw}, Stderr: stderr}
				}
				var served *store.Info
				phases, info, served, err = runViaHTTP(ctx, cfg, levels, o.st, w, o.label, prog, cgi, watch)
				if served != nil {
					sr.Served = served
				}
			} else if f.isolate && o.spec.Driver == "sqlite" {
				phases, prep, info, err = a.runIsolatedSQLite(ctx, cfg, levels, o.st, o.spec, o.label, w, prog, watch)
			} else {
				phases, prep, err = runStore(ctx, cfg, levels, o.st, w, o.label, prog, nil, watch)
			}
			for j := range phases {
				phases[j].Repeat = rep
			}
			if prep != nil {
				prep.Repeat = rep
				sr.Prepared = append(sr.Prepared, *prep)
			}
			sr.Phases = append(sr.Phases, phases...)
			// Isolated clients ran instances of their own: each may have
			// something to say, once.
			for _, wi := range append([]workload.Workload{w}, isolated...) {
				if n, ok := wi.(workload.Noter); ok {
					for _, note := range n.Notes() {
						if !slices.Contains(sr.Notes, note) {
							sr.Notes = append(sr.Notes, note)
						}
					}
				}
			}
			// Ctrl-C while the store started (a managed server's installer
			// killed) or loaded its data set is no failure of the store:
			// what the killed programs said would only mislead. The store
			// started if its Setup succeeded: then its description and a
			// failure to close it are recorded.
			var le *loadError
			interruptedLoad := err != nil && ctx.Err() != nil && errors.As(err, &le)
			interrupted := err != nil && ctx.Err() != nil && (len(phases) == 0 || interruptedLoad)
			if interruptedLoad {
				sr.Notes = append(sr.Notes, le.interrupted(*f.lang))
			}
			var se *startError
			started := !(interrupted && errors.As(err, &se)) || len(sr.Phases) > 0
			if err != nil && !interrupted {
				sr.Error = err.Error()
			}
			switch {
			case !started:
				sr.Info = notStarted(o.spec)
			case info != nil:
				sr.Info = *info
			default:
				sr.Info = o.st.Info(context.WithoutCancel(ctx))
			}
			if err := o.st.Close(); err != nil && sr.Error == "" && started {
				sr.Error = "closing: " + err.Error()
			}
			o.closed = true
		}
	}
	doc.Finished = time.Now().UTC()
	doc.Interrupted = ctx.Err() != nil
	// The data set may have been chosen store by store (a store holding
	// an import keeps it): the parameters name what the stores had.
	if len(isolated) > 0 {
		doc.Run.Params = isolated[0].Params()
	} else {
		doc.Run.Params = w.Params()
	}
	for i := range doc.Stores {
		if sr := &doc.Stores[i]; doc.Interrupted && sr.Info.Driver == "" && sr.Error == "" {
			sr.Info = notStarted(sts[i].spec) // its turn never came
		}
	}

	var outErr error
	if f.jsonOut != "" {
		outErr = result.WriteFile(f.jsonOut, doc)
	}
	if f.htmlOut != "" {
		if err := result.WriteAtomic(f.htmlOut, func(w io.Writer) error { return report.WriteHTML(w, *f.lang, doc) }); err != nil && outErr == nil {
			outErr = err
		}
	}
	tables := p.tables
	if tables == nil {
		tables = &report.TableStream{W: stdout, Format: f.format, Lang: *f.lang}
	}
	if err := tables.Write(doc); err != nil {
		return err
	}
	if outErr != nil {
		return outErr
	}
	return outcome(doc, *f.lang)
}

// startError is a store's failure to start: its Setup (a managed server
// starts there) or, run as a service, the service's.
type startError struct{ err error }

func (e *startError) Error() string { return e.err.Error() }
func (e *startError) Unwrap() error { return e.err }

// loadError is a workload's load of its data set (workload.Preparer)
// that failed, with the rows it stored before.
type loadError struct {
	rows int64
	err  error
}

func (e *loadError) Error() string {
	if e.rows > 0 {
		return fmt.Sprintf("loading the data set (failed after %s rows): %v", numfmt.Group(e.rows), e.err)
	}
	return "loading the data set: " + e.err.Error()
}

func (e *loadError) Unwrap() error { return e.err }

// interrupted says what the tables hold after Ctrl-C stopped the load:
// the rows it stored (a load in batches keeps the batches before), or
// none, with the store's word on it when it has one (a load in one
// transaction, rolled back).
func (e *loadError) interrupted(lang string) string {
	if e.rows > 0 {
		return report.Sprintf(lang, "note.load-interrupted", numfmt.Group(e.rows))
	}
	why := ""
	if e.err.Error() != context.Canceled.Error() {
		why = " (" + e.err.Error() + ")"
	}
	return report.Sprintf(lang, "note.load-interrupted.none", why)
}

// notStarted describes a store that an interrupt kept from starting.
func notStarted(sp store.Spec) store.Info {
	return store.Info{Driver: sp.Driver, Target: result.NotStarted}
}

// isolate builds one instance of the workload per client, up to n, each
// with tables of its own: the workload's table names with _c1, _c2, ...
func isolate(def workload.Definition, ops []string, w workload.Workload, n int) ([]workload.Workload, error) {
	if s, ok := w.(workload.SharedTables); ok {
		return nil, fmt.Errorf("--isolate: %s", s.SharedTables())
	}
	out := make([]workload.Workload, n)
	for i := range out {
		wi, err := def.Build(ops)
		if err != nil {
			return nil, err
		}
		tables := wi.Tables()
		for j, t := range tables {
			t.Name = fmt.Sprintf("%s_c%d", t.Name, i+1)
			t.ID = i*len(tables) + j
		}
		out[i] = wi
	}
	return out, nil
}

// runIsolatedSQLite runs an isolated SQLite store with a database file per
// client, as separate applications on separate files would be: tables in
// one file would share its write lock. Client i's file is the store's file
// with _cI before the extension, beside it: board_c1.db beside board.db,
// and for a store without a path kurabe_c1.db beside its kurabe.db in the
// store's directory under the data directory (the store line names the
// clients' files). The settings it returns are read back from the
// clients' databases, which ran the workload: the store's own file holds
// none of their tables and never had its per-database settings (such as
// journal_mode=wal) applied.
func (a *App) runIsolatedSQLite(ctx context.Context, cfg engine.Config, levels []int, main store.Store, spec store.Spec, label string, w workload.Workload, prog *progress, watch *serverWatch) ([]result.Phase, *result.Prepared, *store.Info, error) {
	stores := make([]store.Store, len(cfg.PerClient))
	defer func() {
		for _, st := range stores {
			if st != nil {
				st.Close()
			}
		}
	}()
	mainInfo := main.Info(ctx)
	path := spec.Target
	if path == "" {
		path = mainInfo.Target // the file the store made in its directory
	}
	ext := filepath.Ext(path)
	for i := range stores {
		sp := spec
		sp.Target = strings.TrimSuffix(path, ext) + fmt.Sprintf("_c%d", i+1) + ext
		env := store.Env{Dir: filepath.Dir(sp.Target)}
		st, err := a.driver(sp.Driver).Open(ctx, sp, env)
		if err != nil {
			return nil, nil, nil, &startError{fmt.Errorf("client %d's database: %w", i+1, err)}
		}
		stores[i] = st
	}
	cfg.PerClientStore = stores
	phases, prep, err := runStore(ctx, cfg, levels, main, w, label, prog, nil, watch)
	clients := make([]store.Info, len(stores))
	for i, st := range stores {
		clients[i] = st.Info(context.WithoutCancel(ctx))
	}
	info := clientsInfo(mainInfo, clients)
	return phases, prep, &info, err
}

// clientsInfo is an isolated SQLite store's description: its own path,
// with the settings its clients' databases ran, as each read them back.
// A setting on which the databases differ (a page size an existing
// client's file kept) gives each client's value, in client order, as
// c1:8192,c2:4096 (c1-c3:wal for a run of clients with one value), so that
// the note on a setting that did not apply names the clients it missed.
func clientsInfo(main store.Info, clients []store.Info) store.Info {
	if len(clients) == 0 {
		return main
	}
	info := clients[0]
	info.Target = main.Target
	info.Options = map[string]string{}
	for name := range clients[0].Options {
		info.Options[name] = clientValues(clients, name)
	}
	for _, c := range clients {
		if c.Facts["error"] != "" {
			info.Facts = c.Facts // a client's database that could not be read
			break
		}
	}
	return info
}

// clientValues is one setting of the clients' databases: the value, when
// all have the same, or each run of clients with its value.
func clientValues(clients []store.Info, name string) string {
	var runs []string
	for i := 0; i < len(clients); {
		v := clients[i].Options[name]
		j := i + 1
		for j < len(clients) && clients[j].Options[name] == v {
			j++
		}
		who := fmt.Sprintf("c%d", i+1)
		if j-i > 1 {
			who += fmt.Sprintf("-c%d", j)
		}
		runs = append(runs, who+":"+v)
		i = j
	}
	if len(runs) == 1 {
		return clients[0].Options[name]
	}
	return strings.Join(runs, ",")
}

// runStore sets up the workload's tables, loads its data set if it has
// one, and runs each phase in turn, at each client level. With isolated
// clients (cfg.PerClient) it does so for every client's instance.
//
// Phases that change the tables for the phases after them
// (workload.Stateful: crud's deletes take what its insert added) cannot
// run phase by phase at every level, each level working on what the one
// before left: with several levels, each level then runs the whole
// sequence on tables set up anew and its data set loaded again. fresh,
// when not nil, is how to set the tables up anew on a store whose Setup
// does not empty them (the http store, whose service owns its table).
// The phases are returned phase by phase, each at every level, however
// they ran.
func runStore(ctx context.Context, cfg engine.Config, levels []int, st store.Store, w workload.Workload, label string, prog *progress, fresh func(context.Context) error, watch *serverWatch) ([]result.Phase, *result.Prepared, error) {
	instances := []workload.Workload{w}
	if cfg.PerClient != nil {
		instances = cfg.PerClient
	}
	storeOf := func(j int) store.Store {
		if cfg.PerClientStore != nil {
			return cfg.PerClientStore[j]
		}
		return st
	}
	setup := func() error {
		if cfg.PerClientStore != nil {
			for j, wi := range instances {
				if err := storeOf(j).Setup(ctx, wi.Tables()); err != nil {
					return err
				}
			}
			return nil
		}
		var tables []*store.Table
		for _, wi := range instances {
			tables = append(tables, wi.Tables()...)
		}
		return st.Setup(ctx, tables)
	}
	// Setting a store up starts it, when it is a server kurabe runs.
	setupDone := prog.start(report.Sprintf(prog.lang, "progress.setup", label))
	defer setupDone()
	// prepare loads the data set into every instance's tables; again,
	// when not 0, is the client level it is loaded again for.
	prepare := func(again int) (*result.Prepared, error) {
		if _, ok := w.(workload.Preparer); !ok {
			return nil, nil
		}
		what := report.Sprintf(prog.lang, "loading the data set")
		if l, ok := w.(workload.PrepareLabeler); ok {
			format, args := l.PrepareLabel()
			what = report.Sprintf(prog.lang, format, args...)
		}
		if what != "" && again > 0 {
			what += report.Sprintf(prog.lang, "progress.again", again)
		}
		done := func() {}
		if what != "" {
			done = prog.start(label + ": " + what)
		}
		defer done()
		t0 := time.Now()
		prep := &result.Prepared{}
		for j, wi := range instances {
			rows, err := wi.(workload.Preparer).Prepare(ctx, storeOf(j))
			prep.Rows += rows
			if err != nil {
				// A load that failed is not recorded as loaded; the
				// error says how far it went.
				done()
				prog.clear()
				return nil, &loadError{rows: prep.Rows, err: err}
			}
		}
		done()
		prog.clear()
		prep.Seconds = time.Since(t0).Seconds()
		if len(instances) > 1 {
			prep.Tables = len(instances)
		}
		return prep, nil
	}
	// Which data set each instance loads into this store: the records
	// kurabe dataset import left in it, or the one asked for.
	for _, wi := range instances {
		if dc, ok := wi.(workload.DataChooser); ok {
			if err := dc.ChooseData(ctx, st); err != nil {
				return nil, nil, err
			}
		}
	}
	if err := setup(); err != nil {
		return nil, nil, &startError{err}
	}
	setupDone()
	prog.clear()
	prep, err := prepare(0)
	if err != nil {
		if d := store.DeathOf(watch.store()); d != nil {
			// Its server died under the load: that is why.
			prog.say(d.Error())
			err = fmt.Errorf("%w\n%v", err, d)
		}
		return nil, nil, err
	}
	run := func(i, c int) (result.Phase, error) {
		cc := cfg
		cc.Clients = c
		if cpc, ok := w.(workload.ClientPhaseCounter); ok && cc.Count > 0 && cfg.PerClient != nil && cc.Rate == 0 {
			// Isolated clients: each table runs a count of its own.
			cc.Shares = cpc.ClientPhaseCounts(i, cc.Count, c)
			cc.Count = 0
			for _, n := range cc.Shares {
				cc.Count += n
			}
		} else if pc, ok := w.(workload.PhaseCounter); ok && cc.Count > 0 {
			cc.Count = pc.PhaseCount(i, cc.Count)
		}
		cc.Tick = prog.tick(label)
		// Opening thousands of sessions takes a while before the first
		// tick: say so, rather than leave the line still.
		sessions := numfmt.Count(int64(c), "session", "sessions")
		if prog.lang != report.English {
			sessions = report.Sprintf(prog.lang, "progress.sessions", numfmt.Group(int64(c)))
		}
		opened := prog.start(report.Sprintf(prog.lang, "progress.opening", label, w.Phases()[i].Name, sessions))
		cc.Opened = opened
		if m, ok := watch.store().(store.Mortal); ok {
			cc.Gone = m.Died()
		}
		p, err := engine.RunPhase(ctx, cc, st, w, i)
		opened()
		prog.clear()
		return p, err
	}
	// Once the store's server has gone (a managed server died, a server
	// stopped answering), the store's later phases are skipped for that
	// reason, each a row of its own, rather than each fail on connecting.
	total := len(w.Phases()) * len(levels)
	ran := 0 // phases run or skipped so far
	var skip string
	phase := func(i, c int) (result.Phase, error) {
		ran++
		later := ran < total
		ph := w.Phases()[i]
		skipped := result.Phase{Op: ph.Name, Clients: c, Sweep: ph.Sweep, SweepValue: ph.SweepValue}
		if skip == "" {
			// Died since the last phase (loading the data set again
			// for the next client level): this one is the first
			// skipped, and says so.
			skip = watch.died(prog, &skipped, later)
		}
		if skip != "" {
			skipped.Skipped = skip
			return skipped, nil
		}
		p, err := run(i, c)
		if err != nil {
			// The server died as the phase began.
			if skip = watch.died(prog, &skipped, later); skip != "" {
				skipped.Skipped = skip
				return skipped, nil
			}
			return p, err
		}
		skip = watch.gone(ctx, prog, &p, later, cfg.Grace)
		return p, nil
	}
	var phases []result.Phase
	if sf, ok := w.(workload.Stateful); !ok || !sf.Stateful() || len(levels) == 1 {
		for i := range w.Phases() {
			for _, c := range levels {
				if ctx.Err() != nil {
					return phases, prep, nil
				}
				p, err := phase(i, c)
				if err != nil {
					return phases, prep, err
				}
				phases = append(phases, p)
			}
		}
		return phases, prep, nil
	}
	byLevel := make([][]result.Phase, len(levels))
	// phaseMajor lists what ran in the order of the loop above.
	phaseMajor := func() []result.Phase {
		var out []result.Phase
		for i := range w.Phases() {
			for l := range levels {
				if i < len(byLevel[l]) {
					out = append(out, byLevel[l][i])
				}
			}
		}
		return out
	}
	for l, c := range levels {
		if l > 0 && skip == "" {
			if ctx.Err() != nil {
				return phaseMajor(), prep, nil
			}
			again := setup
			if fresh != nil {
				again = func() error { return fresh(ctx) }
			}
			// A server that died meanwhile fails these; its phases are
			// then skipped, saying so.
			if err := again(); err != nil && !watch.dead() {
				return phaseMajor(), prep, fmt.Errorf("setting the tables up anew for -c %d: %w", c, err)
			}
			if _, err := prepare(c); err != nil && !watch.dead() {
				return phaseMajor(), prep, err
			}
		}
		for i := range w.Phases() {
			if ctx.Err() != nil {
				return phaseMajor(), prep, nil
			}
			p, err := phase(i, c)
			if err != nil {
				return phaseMajor(), prep, err
			}
			byLevel[l] = append(byLevel[l], p)
		}
	}
	return phaseMajor(), prep, nil
}

// serverWatch watches the server of the store runStore runs: a managed
// server that died (store.Mortal), a server that stopped answering. A nil
// one watches nothing.
type serverWatch struct {
	st    store.Store // whose server it is: with --via-http, the store behind the service
	label string
	name  func(result.Phase) string // a phase as the table names it
}

func (w *serverWatch) store() store.Store {
	if w == nil {
		return nil
	}
	return w.st
}

// dead reports whether the store's managed server died.
func (w *serverWatch) dead() bool { return w != nil && store.DeathOf(w.st) != nil }

// died records on p, and says on stderr, that the store's managed server
// died, when it did; it returns why the store's later phases are skipped,
// or "" when the server runs. later says whether there are any.
func (w *serverWatch) died(prog *progress, p *result.Phase, later bool) string {
	if w == nil {
		return ""
	}
	d := store.DeathOf(w.st)
	if d == nil {
		return ""
	}
	p.Gone = &result.Gone{Died: true, Signal: d.Signal, SignalName: d.SignalName, ExitStatus: d.Status, CoreDumped: d.CoreDumped, Log: d.Log, LogTail: d.LogTail}
	name := w.name(*p)
	prog.say(report.GoneNote(prog.lang, w.label, name, *p, later))
	return fmt.Sprintf("the managed server died during %s (%s)", name, d.How())
}

// gone checks, after phase p, whether the store's server is gone: its
// managed server died, or, when operations of the phase were cut off
// after the grace period and phases follow, a new connection gets no
// answer within that period either. It records that on p, says it on
// stderr and returns why the store's later phases are skipped; "" when
// the server is there.
func (w *serverWatch) gone(ctx context.Context, prog *progress, p *result.Phase, later bool, grace time.Duration) string {
	if why := w.died(prog, p, later); why != "" || w == nil || p.CutOff == 0 || !later || ctx.Err() != nil {
		return why
	}
	grace = cmp.Or(grace, engine.DefaultGrace)
	err := answers(ctx, w.st, grace)
	if err == nil || ctx.Err() != nil {
		return ""
	}
	p.Gone = &result.Gone{CheckSeconds: grace.Seconds(), Check: err.Error()}
	name := w.name(*p)
	prog.say(report.GoneNote(prog.lang, w.label, name, *p, later))
	return fmt.Sprintf("the server stopped answering during %s (%s operations cut off after --grace %v)", name, numfmt.Group(p.CutOff), grace)
}

// answers opens a new session on st and, on an SQL store, runs SELECT
// 1, within timeout: whether a server that stopped answering answers
// again. A session that connects per statement (connect=per-op) connects
// only for the statement.
func answers(ctx context.Context, st store.Store, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	s, err := st.Open(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	if q, ok := s.(store.SQLSession); ok {
		if _, _, err := q.Query(ctx, "SELECT 1", nil, nil); err != nil {
			return err
		}
	}
	return nil
}

// runViaHTTP serves st with kurabe's board service on a free loopback port
// and runs the workload against it through the http store, as a web
// application's clients would reach it: in one process with a session
// pool, or with cgi set, a new process per request. It returns the phases,
// the http store's description (the HTTP client's: the service's address,
// keepalive, timeout) and, once the service made its tables, that of st,
// the store the service served, with its settings read back (nil when the
// service never made its tables).
func runViaHTTP(ctx context.Context, cfg engine.Config, levels []int, st store.Store, w workload.Workload, label string, prog *progress, cgi *service.CGI, watch *serverWatch) (phases []result.Phase, info, behind *store.Info, err error) {
	svc, err := service.New(st, service.Config{Version: Version, CGI: cgi})
	if err != nil {
		return nil, nil, nil, &startError{err}
	}
	if err := svc.CreateTables(ctx); err != nil {
		return nil, nil, nil, &startError{err}
	}
	// The served store's settings are read back after the run, as a
	// direct run's are: MariaDB's table options from the tables the
	// service made (and made anew between client levels).
	defer func() {
		si := st.Info(context.WithoutCancel(ctx))
		behind = &si
	}()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, nil, fmt.Errorf("cannot listen on loopback for --via-http: %v", err)
	}
	sctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	served := make(chan error, 1)
	go func() { served <- svc.Serve(sctx, ln) }()
	defer func() {
		stop()
		<-served
	}()
	sp, err := store.ParseSpec("http://" + ln.Addr().String())
	if err != nil {
		return nil, nil, nil, err
	}
	hst, err := httpstore.Open(ctx, sp, store.Env{})
	if err != nil {
		return nil, nil, nil, err
	}
	defer hst.Close()
	// The service owns its tables: between client levels they are set
	// up anew through it, not through the http store.
	phases, _, err = runStore(ctx, cfg, levels, hst, w, label, prog, svc.CreateTables, watch)
	hi := hst.Info(context.WithoutCancel(ctx))
	return phases, &hi, nil, err
}

// viaModes is --via-http: bare, the persistent service; =cgi, a process
// per request; =persistent,cgi, both, each a row of its own.
type viaModes []string

func (v *viaModes) String() string   { return strings.Join(*v, ",") }
func (v *viaModes) IsBoolFlag() bool { return true }

func (v *viaModes) Set(s string) error {
	*v = nil
	switch s {
	case "false", "":
		return nil
	case "true":
		s = "persistent"
	}
	for _, m := range strings.Split(s, ",") {
		m = strings.TrimSpace(m)
		if m != "persistent" && m != "cgi" {
			return fmt.Errorf("%q: want persistent, cgi or persistent,cgi", m)
		}
		if !slices.Contains(*v, m) {
			*v = append(*v, m)
		}
	}
	return nil
}

// parseLevels reads -c: "10" or a list such as "1,2,4,8".
func parseLevels(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-c %s: want 1 or more clients, or a list such as 1,2,4,8", s)
		}
		if slices.Contains(out, n) {
			return nil, fmt.Errorf("-c %s: %d is given twice, and both levels would have the same row; give each level once", s, n)
		}
		out = append(out, n)
	}
	return out, nil
}

// outcome turns what the run found into an exit status, its message in
// lang (kurabe prints it as its last line).
func outcome(d *result.Document, lang string) error {
	// Rows that writes whose answer was lost may have stored fail
	// nothing (result.Verify); extra rows beyond them do.
	lost, extra := d.Lost()
	_, unknownStored := d.Unknown()
	var failed, nothing, unverified []string
	// Errors alone fail no run: a store under load may turn operations
	// away (busy, timeouts), and the table counts them. Work lost fails
	// it, as a lost write does: classes lostWork.
	var lostWhere []string
	lostCount := map[string]map[string]int64{}
	for _, s := range d.Stores {
		if s.Error != "" {
			failed = append(failed, s.Label)
			continue
		}
		// A row missing where an operation of the store failed in this
		// phase or before on the same tables may be that failure's: an
		// insert that failed on PostgreSQL still took its number from the
		// sequence, and a read of it finds nothing. The same tables are
		// those of the same repeat (each opens the store afresh) and the
		// same client level (with -c 1,4 a workload that changes its
		// tables runs each level on tables set up anew, while its phases
		// are listed phase by phase, every level's together).
		type tables struct{ repeat, level int }
		failedOn := map[tables]bool{}
		for _, p := range s.Phases {
			// Its server went away (a managed server died, a server
			// stopped answering), and the phases after were skipped.
			if p.Gone != nil && !slices.Contains(failed, s.Label) {
				failed = append(failed, s.Label)
			}
			on := tables{p.Repeat, d.Level(p)}
			if p.Ops == 0 && p.Errors > 0 && !skipped(p.ErrorClasses) && !slices.Contains(nothing, s.Label+" "+p.Op) {
				nothing = append(nothing, s.Label+" "+p.Op)
			}
			// In a mix, a kind whose every operation failed (every
			// write, while the reads went through) is as broken as a
			// phase that did.
			if p.Ops > 0 && len(p.Kinds) > 1 {
				for _, k := range p.Kinds {
					where := s.Label + " " + p.Op + " (" + k.Name + ")"
					if k.Ops == 0 && k.Errors > 0 && !skipped(k.ErrorClasses) && !slices.Contains(nothing, where) {
						nothing = append(nothing, where)
					}
				}
			}
			for _, c := range p.ErrorClasses {
				if c.Class != "skipped" && !slices.Contains(lostWork, c.Class) {
					failedOn[on] = true
				}
			}
			for _, c := range p.ErrorClasses {
				if !slices.Contains(lostWork, c.Class) || (c.Class == "missing" && failedOn[on]) {
					continue
				}
				where := s.Label + " " + p.Op
				if lostCount[where] == nil {
					lostWhere = append(lostWhere, where)
					lostCount[where] = map[string]int64{}
				}
				lostCount[where][c.Class] += c.Count
			}
			for _, v := range p.Verify {
				if v.Error != "" && !slices.Contains(unverified, s.Label+" "+p.Op) {
					unverified = append(unverified, s.Label+" "+p.Op)
				}
			}
		}
	}
	switch {
	case extra > 0 && unknownStored > 0:
		return &ExitError{Code: ExitFailed, Err: errors.New(report.Sprintf(lang, "run.exit.lost.unknown", lost, extra, unknownStored))}
	case lost > 0 || extra > 0:
		return &ExitError{Code: ExitFailed, Err: errors.New(report.Sprintf(lang, "run.exit.lost", lost, extra))}
	case d.Interrupted:
		return &ExitError{Code: ExitInterrupted, Err: errors.New(report.Sprintf(lang, "run.exit.interrupted"))}
	case len(failed) > 0:
		return &ExitError{Code: ExitFailed, Err: errors.New(report.Sprintf(lang, "run.exit.failed", strings.Join(failed, ", ")))}
	case len(lostWhere) > 0:
		var parts []string
		for _, where := range lostWhere {
			var cs []string
			for _, class := range lostWork {
				if n := lostCount[where][class]; n > 0 {
					cs = append(cs, class+" "+numfmt.Group(n))
				}
			}
			parts = append(parts, where+" ("+strings.Join(cs, ", ")+")")
		}
		return &ExitError{Code: ExitFailed, Err: errors.New(report.Sprintf(lang, "run.exit.lost-work", strings.Join(parts, ", ")))}
	case len(nothing) > 0:
		return &ExitError{Code: ExitFailed, Err: errors.New(report.Sprintf(lang, "run.exit.nothing", strings.Join(nothing, ", ")))}
	case len(unverified) > 0:
		return &ExitError{Code: ExitFailed, Err: errors.New(report.Sprintf(lang, "run.exit.unverified", strings.Join(unverified, ", ")))}
	}
	return nil
}

// lostWork are the error classes that say work was lost, which fail the
// run as a lost write does, where other errors only count: a row the run
// wrote or loaded that a read, update or delete did not find (missing;
// unless an operation failed before it, which may explain it), rows a
// bulk load handed over and the store did not take (lost), a write a
// store refused for its key's order, which kurabe should have refused
// before the run (key-order).
var lostWork = []string{"missing", "lost", store.ClassKeyOrder}

// skipped reports whether every error of a phase (or of a kind of
// operation in it), by its classes, is of class skipped: a workload said
// the phase does not apply to the store (a transaction on a connection per
// statement), which the notes say; it failed nothing.
func skipped(classes []result.ErrorClass) bool {
	for _, c := range classes {
		if c.Class != "skipped" {
			return false
		}
	}
	return len(classes) > 0
}

// storeOf parses a --store spec and finds its driver. A spec that does
// not parse or names no driver kurabe has is bad input (exit 2), saying
// what to give.
func (a *App) storeOf(spec string) (store.Spec, *stores.Entry, error) {
	sp, err := store.ParseSpec(spec)
	if err != nil {
		return sp, nil, &ExitError{Code: ExitUsage, Err: err}
	}
	drv := a.driver(sp.Driver)
	if drv == nil {
		return sp, nil, usageErr("store %s: unknown driver %q; choose from %s", sp, sp.Driver, strings.Join(a.driverNames(), ", "))
	}
	return sp, drv, nil
}

func (a *App) driver(name string) *stores.Entry {
	for i := range a.Stores {
		if a.Stores[i].Driver == name {
			return &a.Stores[i]
		}
	}
	return nil
}

// sqlDrivers names the drivers whose sessions take SQL.
func (a *App) sqlDrivers() []string {
	var out []string
	for _, e := range a.Stores {
		if e.Dialect != "" {
			out = append(out, e.Driver)
		}
	}
	return out
}

func (a *App) driverNames() []string {
	var out []string
	for _, e := range a.Stores {
		out = append(out, e.Driver)
	}
	return out
}

// parseVary reads --vary NAME=V1,V2,... flags.
func parseVary(flags []string) ([]result.Axis, error) {
	var axes []result.Axis
	for _, f := range flags {
		name, vals, ok := strings.Cut(f, "=")
		name = strings.TrimSpace(name)
		var values []string
		for _, v := range strings.Split(vals, ",") {
			v = strings.TrimSpace(v)
			switch {
			case v == "" && vals != "":
				return nil, fmt.Errorf("--vary %q: a value is empty; give each value between the commas", f)
			case slices.Contains(values, v):
				return nil, fmt.Errorf("--vary %q: %s is given twice, and both variants would have the same row; give each value once (--repeat runs variants again)", f, v)
			case v != "":
				values = append(values, v)
			}
		}
		if !ok || name == "" || len(values) == 0 {
			return nil, fmt.Errorf("--vary %q: want NAME=V1,V2,..., e.g. --vary journal_mode=delete,wal", f)
		}
		for _, a := range axes {
			if a.Name == name {
				return nil, fmt.Errorf("--vary %s given twice; list all its values in one flag", name)
			}
		}
		axes = append(axes, result.Axis{Name: name, Values: values})
	}
	return axes, nil
}

// lowerVariedSettings writes in lower case the name of a varied option
// that is a server setting of every store (each a server kurabe starts,
// whose own options it is not), as the stores' specs have it
// (store.LowerSettings): --vary Max_Connections=100,3 is checked as
// max_connections, and its column is named so.
func (a *App) lowerVariedSettings(axes []result.Axis, specs []store.Spec) error {
	for i, ax := range axes {
		lower := strings.ToLower(ax.Name)
		if lower == ax.Name {
			continue
		}
		setting := len(specs) > 0
		for _, sp := range specs {
			setting = setting && a.startsServer(sp) && !slices.Contains(a.driver(sp.Driver).Server.Own, lower)
		}
		if !setting {
			continue
		}
		for _, other := range axes {
			if other.Name == lower {
				return fmt.Errorf("--vary %s and --vary %s name one server setting (setting names are the same in any case); list all its values in one flag", ax.Name, other.Name)
			}
		}
		axes[i].Name = lower
	}
	return nil
}

// expand turns each store into one store per combination of the varied
// options, in the order given, the last option varying fastest.
func expand(specs []store.Spec, axes []result.Axis) ([]store.Spec, [][]result.Setting) {
	combos := [][]result.Setting{nil}
	for _, a := range axes {
		var next [][]result.Setting
		for _, c := range combos {
			for _, v := range a.Values {
				next = append(next, append(slices.Clone(c), result.Setting{Name: a.Name, Value: v}))
			}
		}
		combos = next
	}
	var out []store.Spec
	var variants [][]result.Setting
	for _, sp := range specs {
		for _, c := range combos {
			v := sp
			v.Options = url.Values{}
			for k, vals := range sp.Options {
				v.Options[k] = slices.Clone(vals)
			}
			for _, set := range c {
				v.Options.Set(set.Name, set.Value)
			}
			out = append(out, v)
			variants = append(variants, c)
		}
	}
	return out, variants
}

// labelStores names each store for the table: its driver, with its options
// when several stores share a driver, and a number when even those agree.
func labelStores(specs []store.Spec) []string {
	count := map[string]int{}
	for _, s := range specs {
		count[s.Driver]++
	}
	labels := make([]string, len(specs))
	seen := map[string]int{}
	for i, s := range specs {
		l := s.Driver
		if count[s.Driver] > 1 && len(s.Options) > 0 {
			l += "?" + s.Options.Encode()
		}
		seen[l]++
		labels[i] = l
	}
	n := map[string]int{}
	for i, l := range labels {
		if seen[l] > 1 {
			n[l]++
			labels[i] = l + "#" + strconv.Itoa(n[l])
		}
	}
	return labels
}

// parseRate reads -R: "2000" or "100:2000" (a ramp).
func parseRate(s string) (from, to float64, err error) {
	if s == "" {
		return 0, 0, nil
	}
	a, b, ramp := strings.Cut(s, ":")
	from, err = strconv.ParseFloat(a, 64)
	if err == nil && ramp {
		to, err = strconv.ParseFloat(b, 64)
	}
	if err != nil || from <= 0 || (ramp && to <= 0) || math.IsInf(from, 0) || math.IsInf(to, 0) {
		return 0, 0, fmt.Errorf("-R %q: want operations per second, e.g. -R 2000, or a ramp such as -R 100:2000 (with -d)", s)
	}
	return from, to, nil
}

// parseThink reads "10ms" or "5ms-20ms"; a bare number is seconds
// (parseSeconds), as in every duration flag.
func parseThink(s string) (lo, hi time.Duration, err error) {
	if s == "" {
		return 0, 0, nil
	}
	a, b, isRange := strings.Cut(s, "-")
	lo, err = parseSeconds(a)
	hi = lo
	if err == nil && isRange {
		hi, err = parseSeconds(b)
	}
	if err != nil || lo < 0 || hi < lo {
		return 0, 0, fmt.Errorf("--think %q: want a duration such as 10ms, or a range such as 5ms-20ms", s)
	}
	return lo, hi, nil
}

// thinkWithUnits writes a delay or a range of delays that parseThink
// took (and s is the same as typed) with units where it was given as bare
// seconds: 0.01 as 10ms, 0.005-0.02 as 5ms-20ms, so that a result says
// what it was.
func thinkWithUnits(s string) string {
	lo, hi, err := parseThink(s)
	if err != nil || s == "" {
		return s
	}
	a, b, isRange := strings.Cut(s, "-")
	if !isRange {
		return withUnit(a, lo)
	}
	return withUnit(a, lo) + "-" + withUnit(b, hi)
}

// samePath says whether two output paths name one file: the same path
// once cleaned and made absolute, or the same file where it exists.
func samePath(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	ba, err2 := filepath.Abs(b)
	if err1 == nil && err2 == nil && aa == ba {
		return true
	}
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// storeDir names the directory of the i-th store in dir: N-DRIVER.
func storeDir(dir string, i int, sp store.Spec) string {
	return freshDir(dir, fmt.Sprintf("%d-%s", i+1, sp.Driver))
}

// freshDir returns dir/name, or, when a --dir given again already holds
// one of that name (an earlier run's data, which a server's initdb would
// refuse), dir/name-2 and so on, so that every run starts fresh and the
// earlier data stays.
func freshDir(dir, name string) string {
	base := filepath.Join(dir, name)
	for k, d := 2, base; ; k++ {
		if ents, err := os.ReadDir(d); err != nil || len(ents) == 0 {
			return d
		}
		d = fmt.Sprintf("%s-%d", base, k)
	}
}

// absDir makes a --dir absolute: a server kurabe starts there runs in a
// directory of its own, where a relative path would name another place.
func absDir(d string) string {
	if d == "" {
		return d
	}
	if a, err := filepath.Abs(d); err == nil {
		return a
	}
	return d
}

// checkOutputFile checks, before a run, that a result file can be written
// at path when it ends (outfile.Check). "" is no file.
func checkOutputFile(path string) error { return outfile.Check(path) }

// checkDirPath checks, without creating anything, that dir is a writable
// directory or can be made one: its nearest existing ancestor is a
// writable directory.
func checkDirPath(dir string) error {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err == nil {
			if !fi.IsDir() {
				return fmt.Errorf("%s is not a directory; choose a writable directory", d)
			}
			if err := checkWritableDir(d); err != nil {
				return fmt.Errorf("cannot write in %s: %v; choose a writable directory", d, err)
			}
			return nil
		}
		if filepath.Dir(d) == d {
			return fmt.Errorf("%v; choose a writable directory", err)
		}
	}
}

func checkWritableDir(dir string) error { return outfile.WritableDir(dir) }

// redactArgs returns the command line with passwords in store specs
// hidden. A spec without secrets stays as typed (its options in the order
// given), so that the line reads as the user wrote it.
func redactArgs(args []string) []string {
	out := make([]string, len(args))
	hidden := func(spec string) (string, bool) {
		sp, err := store.ParseSpec(spec)
		if err != nil {
			// Unparsed, it may hold a password all the same.
			s := store.RedactSpec(spec)
			return s, s != spec
		}
		s := sp.String()
		return s, strings.Contains(s, "xxxxx") || strings.Contains(s, "(unparseable") || store.HideSecrets(spec) != spec
	}
	for i, a := range args {
		out[i] = a
		if prev := i > 0 && strings.TrimLeft(args[i-1], "-") == "store"; prev || strings.HasPrefix(strings.TrimLeft(a, "-"), "store=") {
			name, val, hasEq := strings.Cut(a, "=")
			if !prev && hasEq {
				if s, ok := hidden(val); ok {
					out[i] = name + "=" + s
				}
			} else if s, ok := hidden(a); ok {
				out[i] = s
			}
		}
	}
	return out
}
