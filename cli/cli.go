// Package cli is kurabe's command line: one file per subcommand, each a
// function of (context, arguments, output) that returns an error, so the
// whole program runs in tests without a process of its own.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"kurabe/store"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"kurabe/report"
	"kurabe/stores"
	"kurabe/workloads"
)

// Version is kurabe's version, recorded in every result.
var Version = "0.1.0"

// Exit statuses.
const (
	ExitOK          = 0
	ExitFailed      = 1   // the run found a problem: lost writes, a store that failed
	ExitUsage       = 2   // bad input: flags, store specs, paths
	ExitInterrupted = 130 // stopped by Ctrl-C; the result was still written
)

// ExitError carries an exit status with an error.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

func usageErr(format string, args ...any) error {
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf(format, args...)}
}

// flagsFailed is what a command returns when parsing fs (with its output
// discarded) failed with err: for -h, nil after fs.Usage printed to w;
// otherwise one line naming the bad flag, saying what it takes, and where
// to read about them, instead of the whole usage above a line that says
// only "bad flags".
func flagsFailed(fs *flag.FlagSet, err error, w io.Writer, see string) error {
	if errors.Is(err, flag.ErrHelp) {
		fs.SetOutput(w)
		fs.Usage()
		return nil
	}
	return usageErr("%s; see %s", flagProblem(fs, err.Error()), see)
}

// flagProblem rewrites the flag package's message msg about fs, which
// says "parse error" of a bad number or duration and nothing of a
// misspelt flag, to say what the flag takes, or which flag was meant.
// Every command's flag errors pass through here.
func flagProblem(fs *flag.FlagSet, msg string) string {
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		name, hint, _ := strings.Cut(name, "; ") // kurabe http's hint for siege's flags
		bare := strings.TrimLeft(name, "-")
		out := "unknown flag " + dashed(bare)
		if !strings.Contains(bare, "…") { // cut where it could hold a secret
			var names []string
			fs.VisitAll(func(fl *flag.Flag) { names = append(names, fl.Name) })
			if near := store.NearOption(bare, names); near != "" {
				out += " (did you mean " + dashed(near) + "?)"
			}
		}
		if elsewhere := elsewhereFlags[fs.Name()][bare]; elsewhere != "" {
			out += "; " + elsewhere
		}
		if hint != "" {
			out += "; " + hint
		}
		return out
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		name = strings.TrimLeft(name, "-")
		if want := takes(fs.Lookup(name)); want != "" {
			return dashed(name) + " needs a value: " + want
		}
		return dashed(name) + " needs a value"
	}
	// invalid value "V" for flag -NAME: REASON (or "invalid boolean
	// value", of a flag that may be given bare, such as --via-http).
	rest, ok := strings.CutPrefix(msg, "invalid value ")
	if !ok {
		rest, ok = strings.CutPrefix(msg, "invalid boolean value ")
	}
	if !ok {
		return msg
	}
	val, after, ok1 := strings.Cut(rest, " for flag -")
	if !ok1 {
		val, after, ok1 = strings.Cut(rest, " for -") // a boolean's wording
	}
	name, reason, ok2 := strings.Cut(after, ": ")
	if !ok1 || !ok2 {
		return "invalid value " + rest
	}
	if v, err := strconv.Unquote(val); err == nil && v != "" && !strings.ContainsAny(v, " \t") {
		val = v
	}
	fl := fs.Lookup(name)
	if reason == "parse error" || reason == "value out of range" {
		if want := takes(fl); want != "" {
			return dashed(name) + " " + val + ": " + want
		}
	}
	// A flag's own message may quote the value again.
	reason = strings.TrimPrefix(reason, strconv.Quote(val)+": ")
	return dashed(name) + " " + val + ": " + reason
}

// elsewhereFlags names, per command, flags that belong to another command
// and are often given to this one.
var elsewhereFlags = map[string]map[string]string{
	"kurabe run": {
		"png": "charts are kurabe report's: run with --json F (or --html F, whose page has them), then kurabe report F --png DIR",
		"svg": "charts are kurabe report's: run with --json F (or --html F, whose page has them), then kurabe report F --svg DIR",
	},
}

// takes says what a flag's value is, for the types whose own message is
// only "parse error": the kind of value, and what the flag is for; "" for
// others, whose messages say it.
func takes(fl *flag.Flag) string {
	if fl == nil {
		return ""
	}
	what := strings.ReplaceAll(fl.Usage, "`", "") // a value's name in the usage
	if i := strings.Index(what, " ("); i > 0 {
		what = what[:i] // without its default
	}
	g, ok := fl.Value.(flag.Getter)
	if !ok {
		return ""
	}
	switch g.Get().(type) {
	case time.Duration:
		return "want seconds (30) or a duration such as 500ms or 2m (" + what + ")"
	case uint64, uint:
		return "want a whole number, 0 or more (" + what + ")"
	case int, int64:
		return "want a whole number (" + what + ")"
	case float64:
		return "want a number (" + what + ")"
	case bool:
		return "want true or false (" + what + ")"
	}
	return ""
}

// App is kurabe with its tables of stores and workloads; tests build one
// with extra entries (fault-injecting stores) and a fake terminal check.
type App struct {
	Stores    []stores.Entry
	Workloads []workloads.Entry
	// Terminal reports whether w is a terminal, for the progress line.
	Terminal func(w io.Writer) bool
	// StartNotice is how long a start (a store set up, a data set
	// loaded, the clients' sessions opened) runs outside a terminal
	// before a line on stderr says what it waits for: 0 never, below 0
	// at once (tests, which must not depend on how long a start takes).
	StartNotice time.Duration
}

// Default returns kurabe as shipped.
func Default() *App {
	return &App{Stores: stores.Builtin, Workloads: workloads.Builtin, Terminal: isTerminal, StartNotice: 2 * time.Second}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// Main runs kurabe and returns its exit status, printing any error as one
// line on stderr.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	err := Default().Run(ctx, args, stdout, stderr)
	if err == nil {
		return ExitOK
	}
	var ee *ExitError
	code := ExitFailed
	if errors.As(err, &ee) {
		code = ee.Code
	}
	if !errors.Is(err, errHelpShown) {
		// A message may quote what was typed, and a store's URL typed
		// where a file was wanted keeps its password.
		fmt.Fprintln(stderr, "kurabe: "+store.HideSecrets(err.Error()))
	}
	return code
}

var errHelpShown = errors.New("help shown")

// StoppingLine is what kurabe says on stderr at the first Ctrl-C, before
// the command has finished its output: what the command does now, and
// that a second Ctrl-C stops it at once. It is in that output's language,
// the command's --lang (or, without one, the locale: LC_ALL, LC_MESSAGES,
// LANG) for the commands that take --lang, English for the others, whose
// lines are English. args are kurabe's arguments, the command first.
// kurabe serve writes no results: it says only that it stops.
func StoppingLine(args []string, getenv func(string) string) string {
	command := ""
	if len(args) > 0 {
		command = args[0]
	}
	lang, key := commandLang(args, getenv), "stopping"
	switch command {
	case "dataset":
		// An import writes no results: it drops what it loaded.
		if _, ok := flagValue(args[1:], "store"); ok {
			return "\nkurabe: stopping the import; what the table holds then is said next; press Ctrl-C again to stop at once\n"
		}
		return "\nkurabe: stopping the check of the file; press Ctrl-C again to stop at once\n"
	case "serve":
		return "\nkurabe: stopping: no new connections; the requests in flight finish (for up to 10 s), then the store is closed; press Ctrl-C again to stop at once\n"
	case "capture":
		return "\nkurabe: stopping: the command gets the interrupt, then the server stops and the log of what ran is saved; press Ctrl-C again to stop at once without saving it\n"
	case "clean":
		return "\nkurabe: " + report.Sprintf(lang, "clean.stopping") + "\n"
	case "probe":
		return "\nkurabe: stopping the probe; it measures nothing and removes its files; press Ctrl-C again to stop at once\n"
	case "report", "compare":
		key = "stopping.report"
	case "http":
		// No --grace: -s bounds each request (docs/http.md).
		key = "stopping.http"
		if _, ok := flagValue(args[1:], "flow"); ok {
			key = "stopping.http.flow"
		}
	case "replay":
		key = "stopping.replay"
	}
	return "\nkurabe: " + report.Sprintf(lang, key) + "\n"
}

// commandLang is the language of what the command in args (kurabe's
// arguments, the command first) says on stderr: its --lang (or, without
// one, the locale) for the commands that take --lang, English for the
// others, whose lines are English.
func commandLang(args []string, getenv func(string) string) string {
	if len(args) == 0 {
		return report.English
	}
	switch args[0] {
	case "run", "http", "replay", "report", "compare", "clean":
		if v, ok := flagValue(args[1:], "lang"); ok && report.CheckLang(v) == nil {
			return v
		}
		return report.DefaultLang(getenv)
	}
	return report.English
}

// flagValue is the last value args give the flag name (--name V,
// --name=V, -name V, -name=V), up to a "--"; ok is false when none does.
func flagValue(args []string, name string) (v string, ok bool) {
	for i, a := range args {
		if a == "--" {
			break
		}
		if val, found := strings.CutPrefix(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), name+"="); found && strings.HasPrefix(a, "-") {
			v, ok = val, true
		} else if (a == "--"+name || a == "-"+name) && i+1 < len(args) {
			v, ok = args[i+1], true
		}
	}
	return v, ok
}

// Run runs one kurabe command.
func (a *App) Run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		a.usage(stderr)
		return &ExitError{Code: ExitUsage, Err: errHelpShown}
	}
	stopLang.Store(commandLang(args, os.Getenv))
	setStopped(stoppedAtOnce(args[0], commandLang(args, os.Getenv)))
	switch args[0] {
	case "run":
		return a.run(ctx, args[1:], stdout, stderr)
	case "report":
		return a.report(ctx, args[1:], stdout, stderr)
	case "compare":
		return a.compare(ctx, args[1:], stdout, stderr)
	case "serve":
		return a.serve(ctx, args[1:], stdout, stderr)
	case "replay":
		return a.replay(ctx, args[1:], stdout, stderr)
	case "capture":
		return a.capture(ctx, args[1:], stdout, stderr)
	case "http":
		return a.http(ctx, args[1:], stdout, stderr)
	case "probe":
		return a.probe(ctx, args[1:], stdout, stderr)
	case "dataset":
		return a.dataset(ctx, args[1:], stdout, stderr)
	case "clean":
		return a.clean(ctx, args[1:], stdout, stderr)
	case "version", "--version", "-version":
		if len(args) > 1 {
			if helpWord(args[1]) {
				fmt.Fprintln(stdout, versionUsage)
				return nil
			}
			return usageErr("version takes no arguments; run kurabe version")
		}
		return a.version(stdout)
	case "help", "-h", "--help", "-help":
		if len(args) == 1 {
			a.usage(stdout)
			return nil
		}
		// help COMMAND [SUBCOMMAND] is COMMAND [SUBCOMMAND] -h, on stdout.
		topic := args[1:]
		switch {
		case !slices.Contains(commands, topic[0]) || len(topic) > 1 && topic[0] != "dataset" || len(topic) > 2:
			return usageErr("no help on %q; ask about a command: %s", strings.Join(topic, " "), strings.Join(commands, ", "))
		case topic[0] == "help":
			a.usage(stdout)
			return nil
		case topic[0] == "version":
			fmt.Fprintln(stdout, versionUsage)
			return nil
		}
		return a.Run(ctx, append(slices.Clone(topic), "-h"), stdout, stdout)
	}
	return usageErr("unknown command %q; commands are: %s", args[0], strings.Join(commands, ", "))
}

const versionUsage = "Usage: kurabe version\n\nPrints kurabe's version, as every result records it."

// commands are kurabe's commands, for messages.
var commands = []string{"run", "report", "compare", "serve", "http", "replay", "capture", "probe", "dataset", "clean", "version", "help"}

func (a *App) usage(w io.Writer) {
	// One column for the names, as wide as the longest (select-only).
	width := 0
	for _, e := range a.Workloads {
		width = max(width, len(e.Name))
	}
	for _, e := range a.Stores {
		width = max(width, len(e.Driver))
	}
	var ws, ss []string
	for _, e := range a.Workloads {
		ws = append(ws, fmt.Sprintf("  %-*s %s", width, e.Name, e.New().Summary()))
	}
	for _, e := range a.Stores {
		ex := e.Example
		if strings.ContainsAny(ex, "?&") {
			ex = "'" + ex + "'" // as the shell needs it
		}
		ss = append(ss, fmt.Sprintf("  %-*s %s\n  %*s e.g. --store %s", width, e.Driver, e.Summary, width, "", ex))
	}
	fmt.Fprintf(w, `kurabe compares data stores under the same workload.

Usage:
  kurabe run [flags]      run a workload against one or more stores
  kurabe report FILE.json [MORE.json ...] [--html F] [--png DIR] [--svg DIR] [--format F]
                          tables, an HTML report and charts from results
  kurabe compare OLD.json NEW.json
                          what changed between two runs, and is it significant
  kurabe serve --store SPEC [--listen 127.0.0.1:3001] [--cgi]
                          serve the message board over HTTP from any store
  kurabe replay --pg-log F | --mysql-general-log F --store SPEC [--speed 1|2|max] [--clients N]
                          replay a server's query log against a store, per statement fingerprint
  kurabe capture --store postgres:managed|mariadb:managed [--log F] -- COMMAND...
                          run COMMAND against a throwaway server and save its log for replay
  kurabe http [flags] URL ab- and siege-style HTTP load, request flows, open loop
  kurabe probe [--dir D] [--json F]
                          the disk's sequential MB/s and fsync'd 4 KB appends per second
  kurabe dataset [list | import KEN_ALL.CSV [--store SPEC]]
                          the data sets; check and load Japan Post's postal-code file
  kurabe clean --store SPEC [--dry-run]
                          drop the tables kurabe made in a PostgreSQL or MariaDB/MySQL database
  kurabe version          print the version
  kurabe help COMMAND     a command's flags, e.g. kurabe help run

Without flags, kurabe run compares an append-only file and SQLite on the
bbs workload (write, read-all, read-latest, mix) in a temporary directory.

Workloads:
%s

Stores (--store DRIVER:[PATH][?OPTION=VALUE&...]; no path: a temporary one):
%s
`, strings.Join(ws, "\n"), strings.Join(ss, "\n"))
}
