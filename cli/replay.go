package cli

import (
	"context"
	crand "crypto/rand"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"kurabe/numfmt"
	"kurabe/replay"
	"kurabe/replay/mylog"
	"kurabe/replay/pglog"
	"kurabe/report"
	"kurabe/result"
	"kurabe/store"
)

type replayFlags struct {
	pgLog   string
	myLog   string
	prefix  string
	stores  multiFlag
	speed   string
	clients int
	warmup  time.Duration
	delay   string
	seed    uint64
	jsonOut string
	format  string
	lang    *string
	dir     string
	keep    bool
	quiet   bool
	yes     bool
}

const replayUsage = `Usage: kurabe replay --pg-log FILE | --mysql-general-log FILE --store SPEC [flags]

Replays the statements of a server's log against a store: each session of
the log on a client of its own, at the logged times scaled by --speed, or
the log's transactions spread over --clients N. Prints one row for all
statements and one per statement fingerprint (values taken out), and says
when the replay could not keep the log's pace.

Replay a PostgreSQL log on a postgres store, a MariaDB or MySQL log on a
mariadb or mysql store: kurabe does not translate between dialects, so
other stores (sqlite, file, http) are refused.

The statements run as they are, writes included: on a server you run
yourself (not managed), give --yes.

Flags:
`

func (a *App) replay(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f replayFlags
	fs := flag.NewFlagSet("kurabe replay", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&f.pgLog, "pg-log", "", "a PostgreSQL server log written with log_statement=all or log_min_duration_statement=0")
	fs.StringVar(&f.myLog, "mysql-general-log", "", "a MariaDB or MySQL general query log")
	fs.StringVar(&f.prefix, "pg-prefix", "", "the log_line_prefix the PostgreSQL log was written with (default: found from the log; kurabe capture's is '"+pglog.DefaultPrefix+"')")
	fs.Var(&f.stores, "store", "the store to replay on, in the log's dialect: postgres for --pg-log, mariadb or mysql for --mysql-general-log (DRIVER:managed or a server's URL, [?OPTION=VALUE&...]); repeat to replay on each in turn")
	fs.StringVar(&f.speed, "speed", "1", "1 replays at the logged pace, 2 twice as fast, 0.5 at half; max runs each client's statements back to back")
	fs.IntVar(&f.clients, "clients", 0, "spread the log's transactions and statements over N clients (default: one client per session of the log)")
	durationVar(fs, &f.warmup, "warmup", 0, "leave statements that start within this `duration` of the start out of the figures, e.g. 2s, or 2 (seconds)")
	fs.StringVar(&f.delay, "delay", "", "a delay after each statement before the client's next: a duration (5ms; a bare number is seconds) or a uniform range (1ms-10ms)")
	fs.Uint64Var(&f.seed, "seed", 0, "seed of the random delays (default: random, recorded)")
	fs.StringVar(&f.jsonOut, "json", "", "write the result document to this file (kurabe report and compare read it)")
	fs.StringVar(&f.format, "format", "text", "table format: "+strings.Join(report.FormatNames(), ", "))
	f.lang = langFlag(fs)
	fs.StringVar(&f.dir, "dir", "", "data directory of the managed servers (default: a temporary one, removed)")
	fs.BoolVar(&f.keep, "keep", false, "keep the temporary data directory")
	fs.BoolVar(&f.quiet, "q", false, "no progress line, even on a terminal")
	fs.BoolVar(&f.yes, "yes", false, "replay on a server you run (not managed): the log's statements change it")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, replayUsage)
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return nil
		}
		return usageErr("%s; see kurabe help replay", flagProblem(fs, err.Error()))
	}
	if fs.NArg() > 0 {
		return usageErr("unexpected argument %q; give the log with --pg-log or --mysql-general-log", fs.Arg(0))
	}

	// Validate everything before reading the log or touching a store.
	var logPath, format, dialect string
	switch {
	case f.pgLog != "" && f.myLog != "":
		return usageErr("give one log: --pg-log or --mysql-general-log, not both")
	case f.pgLog != "":
		logPath, format, dialect = f.pgLog, "pg-log", replay.Postgres
	case f.myLog != "":
		logPath, format, dialect = f.myLog, "mysql-general-log", replay.MySQL
		if f.prefix != "" {
			return usageErr("--pg-prefix is for --pg-log; a general query log has no prefix")
		}
	default:
		return usageErr("give the log to replay: --pg-log FILE or --mysql-general-log FILE (kurabe capture makes one)")
	}
	if len(f.stores) == 0 {
		return usageErr("give the store to replay on with --store, e.g. --store %s:managed", map[string]string{replay.Postgres: "postgres", replay.MySQL: "mariadb"}[dialect])
	}
	cfg := replay.Config{Clients: f.clients, Warmup: f.warmup, Seed: f.seed}
	if f.speed != "max" {
		v, err := strconv.ParseFloat(f.speed, 64)
		if err != nil || v <= 0 {
			return usageErr("--speed %q: want a factor above 0 (1 = as logged, 2 = twice as fast) or max", f.speed)
		}
		cfg.Speed = v
	}
	if f.clients < 0 || f.clients == 0 && flagGiven(fs, "clients") {
		return usageErr("--clients %d: want 1 or more (or leave it out for one client per session)", f.clients)
	}
	var err error
	if cfg.DelayMin, cfg.DelayMax, err = parseThink(f.delay); err != nil {
		return usageErr("--delay %q: want a duration such as 5ms, or a range such as 1ms-10ms", f.delay)
	}
	if err := cfg.Validate(); err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	if _, ok := report.Formats[f.format]; !ok {
		return usageErr("unknown --format %q; choose from %s", f.format, strings.Join(report.FormatNames(), ", "))
	}
	if err := report.CheckLang(*f.lang); err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	if err := checkOutputFile(f.jsonOut); err != nil {
		return usageErr("--json %s: %v", f.jsonOut, err)
	}
	var specs []store.Spec
	for _, s := range f.stores {
		sp, drv, err := a.storeOf(s)
		if err != nil {
			return err
		}
		if err := replay.CheckDialect(sp.String(), drv.Dialect, dialect); err != nil {
			return &ExitError{Code: ExitUsage, Err: err}
		}
		if !f.yes && !sp.Throwaway() {
			return usageErr("store %s is not a throwaway one: the log's statements would run on it as they are, writes and DROPs included, outside kurabe's own tables; give --yes if that is what you want, or replay on %s:managed", sp, sp.Driver)
		}
		specs = append(specs, sp)
	}
	if cfg.Seed == 0 {
		var b [8]byte
		crand.Read(b[:])
		cfg.Seed = binary.LittleEndian.Uint64(b[:]) >> 1
	}

	dir, kept := absDir(f.dir), f.keep || f.dir != ""
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return usageErr("--dir %s: %v; choose a writable directory", dir, err)
		}
	} else if dir, err = os.MkdirTemp("", "kurabe-"); err != nil {
		return usageErr("cannot create a temporary directory: %v; set TMPDIR to a writable directory or give --dir", err)
	} else {
		os.Chmod(dir, 0o755) // managed servers run as another user when kurabe is root
	}
	if !kept {
		defer removeLater(dir)()
	}
	// Every store is opened (its spec validated; nothing starts) and
	// readied for a replay before the log is read or any server starts:
	// a table option that cannot reach the log's tables is refused here.
	stores := make([]store.Store, len(specs))
	defer func() {
		for _, st := range stores {
			if st != nil {
				st.Close()
			}
		}
	}()
	for i, sp := range specs {
		sdir := storeDir(dir, i, sp)
		if err := os.MkdirAll(sdir, 0o755); err != nil {
			return usageErr("cannot create %s: %v", sdir, err)
		}
		st, err := a.driver(sp.Driver).Open(ctx, sp, store.Env{Dir: sdir, Keep: kept})
		if err != nil {
			return &ExitError{Code: ExitUsage, Err: fmt.Errorf("store %s: %w", sp, err)}
		}
		stores[i] = st
		if r, ok := st.(store.Replayer); ok {
			if err := r.ForReplay(); err != nil {
				return &ExitError{Code: ExitUsage, Err: fmt.Errorf("store %s: %w", sp, err)}
			}
		}
	}

	// Outside a terminal, a start that takes long (a large log read, a
	// managed server started) says what it waits for, as kurabe run's do.
	prog := &progress{w: stderr, on: !f.quiet && a.Terminal(stderr), lang: *f.lang}
	if !f.quiet {
		prog.after = a.StartNotice
	}
	read := prog.start(report.Sprintf(prog.lang, "progress.log", logPath))
	lg, prefix, err := readLog(logPath, format, dialect, f.prefix)
	read()
	prog.clear()
	if err != nil {
		return err
	}
	if lg.Statements == 0 {
		msg := fmt.Sprintf("%s has no statements to replay (%s read", logPath, numfmt.Count(int64(lg.Lines), "line", "lines"))
		if lg.Skips.Count > 0 {
			msg += fmt.Sprintf(", %s could not be read; the first: %v", numfmt.Group(lg.Skips.Count), lg.Skips.First[0])
		}
		msg += ")"
		if format == "pg-log" {
			msg += "; it needs log_statement=all or log_min_duration_statement=0, and --pg-prefix if its log_line_prefix is not one kurabe knows"
		}
		return &ExitError{Code: ExitUsage, Err: errors.New(msg)}
	}

	if last := time.Duration(float64(lg.LastDue()) / cfg.Speed); cfg.Speed > 0 && cfg.DelayMax == 0 && cfg.Warmup > last {
		return usageErr("--warmup %v covers the whole log: its last statement is due %.3f s into the replay at --speed %s, so nothing would be measured; give a warm-up shorter than that", f.warmup, last.Seconds(), f.speed)
	}

	params := map[string]string{"log": logPath, "format": format, "speed": f.speed}
	if prefix != "" {
		params["log_line_prefix"] = prefix
	}
	if f.delay != "" {
		params["delay"] = thinkWithUnits(f.delay)
	}
	clients := f.clients
	if clients == 0 {
		clients = len(lg.Sessions)
	}
	doc := &result.Document{
		Schema: result.Schema, Kurabe: Version, Command: append([]string{"replay"}, redactArgs(args)...), Started: time.Now().UTC(), Seed: cfg.Seed,
		Run: result.RunConfig{Workload: "replay", Params: params, Ops: []string{"replay"}, Clients: clients,
			Count: lg.Statements, Warmup: result.Duration(f.warmup), Think: thinkWithUnits(f.delay), Dir: dir, DirKept: kept},
		Env: result.CollectEnv(dir),
	}
	labels := labelStores(specs)
	for i, sp := range specs {
		if ctx.Err() != nil {
			break
		}
		sr := result.Store{Label: labels[i], Spec: sp.String()}
		st := stores[i]
		// The first session starts a managed server: opened here, under
		// the start's notice, before the replay's clock starts.
		started := prog.start(report.Sprintf(prog.lang, "progress.start", labels[i]))
		var phases []result.Phase
		s, err := st.Open(ctx)
		started()
		if err == nil {
			s.Close()
			rc := cfg
			rc.Tick = prog.tick(labels[i])
			phases, err = replay.Run(ctx, rc, st, lg)
		}
		prog.clear()
		if err != nil {
			sr.Error = err.Error()
		}
		for j := range phases {
			if r := phases[j].Replay; r != nil && phases[j].Op == "replay" {
				r.Log, r.Format, r.Prefix = logPath, format, prefix
			}
		}
		if r, ok := st.(store.Replayer); ok && len(phases) > 0 && phases[0].Replay != nil {
			// Where the log's tables did not take the store's table
			// options (a CREATE TABLE naming its own engine).
			phases[0].Replay.Notes = append(phases[0].Replay.Notes, r.ReplayNotes(context.WithoutCancel(ctx))...)
		}
		sr.Phases = phases
		sr.Info = st.Info(context.WithoutCancel(ctx))
		stores[i] = nil
		if err := st.Close(); err != nil && sr.Error == "" {
			sr.Error = "closing: " + err.Error()
		}
		doc.Stores = append(doc.Stores, sr)
		if len(specs) == 1 && sr.Error != "" && len(phases) == 0 {
			return &ExitError{Code: ExitFailed, Err: fmt.Errorf("store %s: %s", sp, sr.Error)}
		}
	}
	doc.Finished = time.Now().UTC()
	doc.Interrupted = ctx.Err() != nil

	var jsonErr error
	if f.jsonOut != "" {
		jsonErr = result.WriteFile(f.jsonOut, doc)
	}
	// The table and its notes, the replay's own lines (pace, unreadable
	// lines) among them, as kurabe report prints them from the JSON.
	if err := report.WriteTables(stdout, f.format, *f.lang, doc); err != nil {
		return err
	}
	if jsonErr != nil {
		return jsonErr
	}
	var failed, nothing, allWarm []string
	for _, s := range doc.Stores {
		switch {
		case s.Error != "":
			failed = append(failed, s.Label)
		case allFailed(s.Phases):
			nothing = append(nothing, s.Label)
		case allWarmup(s.Phases):
			allWarm = append(allWarm, s.Label)
		}
	}
	switch {
	case doc.Interrupted:
		return &ExitError{Code: ExitInterrupted, Err: errors.New(report.Sprintf(*f.lang, "run.exit.interrupted"))}
	case len(failed) > 0:
		return &ExitError{Code: ExitFailed, Err: fmt.Errorf("store %s failed; see the notes under the table", strings.Join(failed, ", "))}
	case len(nothing) > 0:
		return &ExitError{Code: ExitFailed, Err: fmt.Errorf("every statement failed on %s, so the figures time errors, not the log's work; see the errors under the table (does the store hold the log's tables?)", strings.Join(nothing, ", "))}
	case len(allWarm) > 0:
		return &ExitError{Code: ExitFailed, Err: fmt.Errorf("every statement ran within the --warmup of %v on %s, so nothing was measured; give a warm-up shorter than the replay", f.warmup, strings.Join(allWarm, ", "))}
	}
	return nil
}

// allWarmup says whether every statement of a store's replay ran in the
// warm-up, leaving nothing measured.
func allWarmup(phases []result.Phase) bool {
	for _, p := range phases {
		if p.Op == "replay" {
			return p.Ops+p.Errors == 0 && p.WarmupOps > 0
		}
	}
	return false
}

// allFailed says whether every statement a store's replay ran failed
// (Ops counts those that did not).
func allFailed(phases []result.Phase) bool {
	for _, p := range phases {
		if p.Op == "replay" {
			return p.Errors > 0 && p.Ops == 0
		}
	}
	return false
}

// readLog parses a log into memory, with the prefix a PostgreSQL log was
// read with.
func readLog(path, format, dialect, prefix string) (*replay.Log, string, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, "", usageErr("cannot read the log: %v", err)
	}
	defer fh.Close()
	if fi, err := fh.Stat(); err == nil && fi.IsDir() {
		return nil, "", usageErr("--%s %s is a directory; give the log file in it", format, path)
	}
	var p replay.Parser
	if format == "pg-log" {
		pp, err := pglog.New(fh, pglog.Config{File: path, Prefix: prefix})
		if err != nil {
			return nil, "", &ExitError{Code: ExitUsage, Err: fmt.Errorf("--pg-prefix: %w", err)}
		}
		p, prefix = pp, pp.Prefix()
	} else {
		p = mylog.New(fh, mylog.Config{File: path})
	}
	lg, err := replay.Load(p, dialect)
	if err != nil {
		return nil, "", &ExitError{Code: ExitFailed, Err: fmt.Errorf("%s: %w", path, err)}
	}
	return lg, prefix, nil
}
