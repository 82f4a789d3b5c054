package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"kurabe/beside"
	"kurabe/outfile"
	"kurabe/report"
	"kurabe/result"
	"kurabe/store"
)

// A scenario file is a study written down: the settings of kurabe run by
// their flags' names, so it can say exactly what the command line can, and
// optionally several steps run one after another, each over the common
// settings. Every setting is checked against run's own flags, and a wrong
// one is reported with the file, line and column.
//
//	title: BBS on file, SQLite and MariaDB
//	about: what the study asked and how to run it at full size
//	run:
//	  store: [file:, sqlite:, mariadb:managed]
//	  ops: [write, read-all, read-latest, mix]
//	  c: 100
//	steps:            # optional
//	  - {ops: write}
//	  - {ops: read-latest, c: 10}
type scenario struct {
	Title string
	About string
	Steps []step // one step without steps:
}

// step is one step's arguments, the common settings and the step's own,
// with where in the file each was set.
type step struct {
	args []string
	at   []position // per argument
	pos  position   // the step's mapping, or run's
}

// position is a place in a scenario file; line 0 is none (a flag given on
// the command line).
type position struct{ line, col int }

func isScenario(arg string) bool { return beside.IsYAML(arg) }

// scenarioFiles names the scenario files beside a missing one, or where
// kurabe's own are.
var scenarioFiles = beside.Kind{
	Listed: "the scenarios",
	Own:    "kurabe's own scenarios are in the scenarios folder of its source (docs/scenarios.md); give the path of one",
}

// scenarioError is a mistake in a scenario file, with its position.
type scenarioError struct {
	File      string
	Line, Col int
	Msg       string
}

func (e *scenarioError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// yamlErrorLine finds the line of a YAML syntax error in b, 1-based.
// The YAML library's own line is not it: it names the line before the
// one where the enclosing node starts (its marks count from 0, and only
// scanner errors add 1), and none at all for an error on the first line.
// So the file is parsed again line by line: the error is on the line
// after the longest prefix that still parses, the first line no
// continuation can repair.
func yamlErrorLine(b []byte) int {
	lines := bytes.SplitAfter(b, []byte("\n"))
	for k := len(lines) - 1; k > 0; k-- {
		var n yaml.Node
		if yaml.Unmarshal(bytes.Join(lines[:k], nil), &n) == nil {
			return k + 1
		}
	}
	return 1
}

// yamlLinePrefix is the YAML library's "line N: " before its message.
var yamlLinePrefix = regexp.MustCompile(`^yaml: (line \d+: )?`)

// yamlMessage is the YAML library's message without its line, which
// yamlErrorLine replaces.
func yamlMessage(err error) string {
	return "YAML: " + yamlLinePrefix.ReplaceAllString(err.Error(), "")
}

// yamlHint says what to do about a YAML syntax error on line (1-based) of
// b, where the YAML library's message says only what it found: tabs in
// indentation, a quote left open, a line indented unlike its mapping, a
// value ending in ":" left unquoted.
func yamlHint(msg string, b []byte, line int) string {
	lines := strings.Split(string(b), "\n")
	text := ""
	if line-1 < len(lines) {
		text = lines[line-1]
	}
	indent := func(l string) string { return l[:len(l)-len(strings.TrimLeft(l, " \t"))] }
	// The line above: the nearest one before that holds something.
	above := ""
	for i := line - 2; i >= 0; i-- {
		if t := strings.TrimSpace(lines[i]); t != "" && !strings.HasPrefix(t, "#") {
			above = lines[i]
			break
		}
	}
	switch {
	case strings.Contains(indent(text), "\t"):
		return " (a tab indents this line, and YAML takes only spaces for indentation; indent with spaces)"
	case strings.Contains(msg, "unexpected end of stream") && (strings.Count(text, `"`)%2 == 1 || strings.Count(text, "'")%2 == 1):
		return " (a quote opened on this line is not closed; close it on the same line, as in store: \"sqlite:\")"
	case strings.Contains(msg, "mapping values are not allowed") && valueEndsInColon.MatchString(text):
		return ` (a value ending in ":", such as the store file:, needs quotes: "file:")`
	case strings.Contains(msg, "mapping values are not allowed") && len(indent(text)) > len(indent(above)) && !strings.HasSuffix(strings.TrimSpace(above), ":"):
		return fmt.Sprintf(" (this line is indented more than the line above it, %q; the settings of one mapping line up, each at the same indentation)", strings.TrimSpace(above))
	case strings.Contains(msg, "mapping values are not allowed"):
		return ` (a value ending in ":", such as the store file:, needs quotes: "file:")`
	case strings.Contains(msg, "did not find expected key"):
		return " (this line's indentation matches no mapping above it; the settings of one mapping line up, each at the same indentation, with spaces)"
	}
	return ""
}

// valueEndsInColon matches a line whose value holds ": " or ends in ":"
// (store: file:, category: a: b), which YAML reads as a mapping.
var valueEndsInColon = regexp.MustCompile(`:\s+[^"'#\s][^#]*:(\s|$)`)

// colonValue is the quoted value of a mapping YAML made of a value ending
// in ":" (- file: in a block list is the mapping {file: null}), or "".
func colonValue(n *yaml.Node) string {
	if n.Kind == yaml.MappingNode && len(n.Content) == 2 && n.Content[0].Kind == yaml.ScalarNode && n.Content[1].Tag == "!!null" && n.Content[1].Value == "" {
		return strconv.Quote(n.Content[0].Value + ":")
	}
	return ""
}

// loadScenario reads and checks a scenario file against run's flags.
func (a *App) loadScenario(path string) (*scenario, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("scenario %s: no such file; %s", path, scenarioFiles.Hint(path))
	}
	if err != nil {
		return nil, fmt.Errorf("scenario: %v", err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		line := yamlErrorLine(b)
		return nil, fmt.Errorf("%s:%d: %s%s", path, line, yamlMessage(err), yamlHint(err.Error(), b, line))
	}
	if _, err := resolveYAML(path, &doc, nil); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, &scenarioError{path, max(doc.Line, 1), max(doc.Column, 1), "a scenario is a mapping with title, about, run and optionally steps"}
	}
	sc := &scenario{}
	var base step
	var steps *yaml.Node
	root := doc.Content[0]
	if err := noDuplicateKeys(path, root); err != nil {
		return nil, err
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "title":
			if v.Kind != yaml.ScalarNode {
				return nil, &scenarioError{path, v.Line, v.Column, "title: want one line of text saying what the study compares (quote it if it holds \": \" or \" #\")"}
			}
			sc.Title = strings.TrimRight(v.Value, "\n")
			if strings.Contains(sc.Title, "\n") {
				return nil, &scenarioError{path, v.Line, v.Column, "title: want one line, the heading of the study; put the rest in about"}
			}
		case "about":
			if v.Kind != yaml.ScalarNode {
				return nil, &scenarioError{path, v.Line, v.Column, "about: want text (a block with > or | for several lines: about: >, then the text indented under it)"}
			}
			sc.About = v.Value
		case "run":
			if base, err = a.scenarioArgs(path, v); err != nil {
				return nil, err
			}
		case "steps":
			if v.Kind != yaml.SequenceNode {
				return nil, &scenarioError{path, v.Line, v.Column, "steps: want a list of settings, one mapping per step"}
			}
			steps = v
		default:
			near := ""
			if n := store.NearOption(k.Value, []string{"title", "about", "run", "steps"}); n != "" {
				near = " (did you mean " + n + "?)"
			}
			return nil, &scenarioError{path, k.Line, k.Column, fmt.Sprintf("unknown key %q%s; a scenario has title, about, run and steps", k.Value, near)}
		}
	}
	if steps == nil {
		sc.Steps = []step{base}
		return sc, nil
	}
	for _, n := range steps.Content {
		st, err := a.scenarioArgs(path, n)
		if err != nil {
			return nil, err
		}
		// A step's settings override the common ones, as flags after the
		// file override both.
		sc.Steps = append(sc.Steps, base.with(st.args, st.at, st.pos))
	}
	if len(sc.Steps) == 0 {
		return nil, &scenarioError{path, steps.Line, steps.Column, "steps: the list is empty"}
	}
	return sc, nil
}

// with returns the step with more arguments (at their positions) after
// its own, dropping its own that they set again or contradict.
func (s step) with(args []string, at []position, pos position) step {
	keep := overridden(s.args, args)
	out := step{pos: pos}
	if pos.line == 0 {
		out.pos = s.pos
	}
	for _, i := range keep {
		out.args = append(out.args, s.args[i])
		out.at = append(out.at, s.at[i])
	}
	out.args = append(out.args, args...)
	if at == nil {
		at = make([]position, len(args))
	}
	out.at = append(out.at, at...)
	return out
}

// resolveYAML replaces YAML's aliases (*name) by the nodes their anchors
// (&name) mark, and expands merge keys (<<: *base, or a list of such),
// in place, so that the rest of the reading sees plain values: a step can
// be an alias of another (steps: [*r, *r]), a setting's value an alias
// (store: *stores), and a step's mapping can take the common settings of
// an anchored mapping (<<: *base, n: 10), its own keys winning over the
// merged ones, and the first merged mapping's over later ones, as YAML
// says. A value given through an alias is reported at its anchor.
//
// within holds the nodes being resolved, enclosing n: an alias of one of
// them (a: &x [*x]) would hold itself.
func resolveYAML(path string, n *yaml.Node, within []*yaml.Node) (*yaml.Node, error) {
	for n.Kind == yaml.AliasNode {
		if slices.Contains(within, n.Alias) {
			return nil, &scenarioError{path, n.Line, n.Column, fmt.Sprintf("the alias *%s is inside its own anchor &%s, so it would hold itself; write the values out", n.Value, n.Value)}
		}
		n = n.Alias
	}
	if slices.Contains(within, n) {
		return n, nil // resolved already, higher up
	}
	within = append(within, n)
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		for i, c := range n.Content {
			r, err := resolveYAML(path, c, within)
			if err != nil {
				return nil, err
			}
			n.Content[i] = r
		}
	case yaml.MappingNode:
		if err := noDuplicateKeys(path, n); err != nil {
			return nil, err
		}
		var own, merged []*yaml.Node
		var sources []*yaml.Node // the mappings to merge, in order
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			var err error
			if v, err = resolveYAML(path, v, within); err != nil {
				return nil, err
			}
			if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
				list := []*yaml.Node{v}
				if v.Kind == yaml.SequenceNode {
					list = v.Content // already resolved
				}
				for _, m := range list {
					if m.Kind != yaml.MappingNode {
						return nil, &scenarioError{path, m.Line, m.Column, "<<: want a mapping to merge, or an alias of one (<<: *base), or a list of them"}
					}
				}
				sources = append(sources, list...)
				continue
			}
			if k, err = resolveYAML(path, k, within); err != nil {
				return nil, err
			}
			own = append(own, k, v)
		}
		has := func(key string, in []*yaml.Node) bool {
			for i := 0; i+1 < len(in); i += 2 {
				if settingKey(in[i].Value) == settingKey(key) {
					return true
				}
			}
			return false
		}
		for _, m := range sources {
			for i := 0; i+1 < len(m.Content); i += 2 {
				if k := m.Content[i]; !has(k.Value, own) && !has(k.Value, merged) {
					merged = append(merged, k, m.Content[i+1])
				}
			}
		}
		n.Content = append(own, merged...)
	}
	return n, nil
}

// noDuplicateKeys refuses a mapping that gives a key twice: YAML's last
// one would win silently.
// A flag of two names (w and workload) is one key.
func noDuplicateKeys(path string, m *yaml.Node) error {
	seen := map[string]string{} // by settingKey, the name it was given as
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if first, ok := seen[settingKey(k.Value)]; ok {
			if first != k.Value {
				return &scenarioError{path, k.Line, k.Column, fmt.Sprintf("%s and %s are one setting, given twice in this mapping; give it once", first, k.Value)}
			}
			return &scenarioError{path, k.Line, k.Column, fmt.Sprintf("%s is given twice in this mapping; give it once (a list for several values)", k.Value)}
		}
		seen[settingKey(k.Value)] = k.Value
	}
	return nil
}

// settingKey is one name of a setting that has two (w and workload).
func settingKey(name string) string {
	if alias, ok := aliases[name]; ok && alias < name {
		return alias
	}
	return name
}

// scenarioArgs turns a mapping of settings into run's arguments, checking
// each one on its own so an error points at its line.
func (a *App) scenarioArgs(path string, m *yaml.Node) (step, error) {
	if m.Kind != yaml.MappingNode {
		return step{}, &scenarioError{path, m.Line, m.Column, "want a mapping of settings, such as {store: sqlite:, n: 1000}"}
	}
	if err := noDuplicateKeys(path, m); err != nil {
		return step{}, err
	}
	st := step{pos: position{m.Line, m.Column}}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		var probe runFlags
		fs := a.runFlagSet(&probe, io.Discard).fs
		fl := fs.Lookup(k.Value)
		if fl == nil {
			var names []string
			fs.VisitAll(func(fl *flag.Flag) { names = append(names, fl.Name) })
			near := ""
			if n := store.NearOption(k.Value, names); n != "" {
				near = " (did you mean " + n + "?)"
			}
			if slices.Contains([]string{"title", "about", "run", "steps"}, k.Value) {
				// steps: indented under run.
				return step{}, &scenarioError{path, k.Line, k.Column, fmt.Sprintf("%s is a key of the scenario, not a setting: move it out of this mapping, to the start of its line (no indentation)", k.Value)}
			}
			return step{}, &scenarioError{path, k.Line, k.Column, fmt.Sprintf("unknown setting %q%s; settings are the flags of kurabe run by name (kurabe help run)", k.Value, near)}
		}
		var vals []string
		var at []position // each value's place: a list's item, for a repeatable flag
		switch v.Kind {
		case yaml.ScalarNode:
			vals = []string{v.Value}
			at = []position{{v.Line, v.Column}}
		case yaml.SequenceNode:
			var items []string
			for _, it := range v.Content {
				if q := colonValue(it); q != "" {
					return step{}, &scenarioError{path, it.Line, it.Column, fmt.Sprintf("%s: YAML read %s as a mapping, since it ends in \":\"; quote it: %s", k.Value, strings.Trim(q, `"`), q)}
				}
				if it.Kind != yaml.ScalarNode {
					return step{}, &scenarioError{path, it.Line, it.Column, fmt.Sprintf("%s: want plain values in the list", k.Value)}
				}
				if k.Value == "vary" && v.Style&yaml.FlowStyle != 0 && len(items) > 0 && !strings.Contains(it.Value, "=") {
					// [synchronous=off,full]: YAML splits at the comma.
					return step{}, &scenarioError{path, it.Line, it.Column, fmt.Sprintf("vary: %q has no NAME=: in [ ] a comma separates items, so YAML read %s,%s as two; quote a setting with its values: [%q]", it.Value, items[len(items)-1], it.Value, items[len(items)-1]+","+it.Value)}
				}
				items = append(items, it.Value)
				at = append(at, position{it.Line, it.Column})
			}
			if _, repeatable := fl.Value.(*multiFlag); repeatable {
				vals = items // --store a --store b
			} else {
				vals = []string{strings.Join(items, ",")} // ops: [write, read-all] -> write,read-all
				at = []position{{v.Line, v.Column}}
			}
		default:
			if q := colonValue(v); q != "" {
				return step{}, &scenarioError{path, v.Line, v.Column, fmt.Sprintf("%s: YAML read %s as a mapping, since it ends in \":\"; quote it: %s", k.Value, strings.Trim(q, `"`), q)}
			}
			return step{}, &scenarioError{path, v.Line, v.Column, fmt.Sprintf("%s: want a value or a list of values", k.Value)}
		}
		for j, val := range vals {
			if scenarioInputs[k.Value] && val != "" && !filepath.IsAbs(val) {
				// An input goes with the file, so a scenario and its data
				// can be moved together; outputs go where kurabe runs.
				val = filepath.Join(filepath.Dir(path), val)
			}
			arg := "--" + k.Value + "=" + val
			if err := fs.Parse([]string{arg}); err != nil {
				pos := at[j]
				if v.Kind == yaml.SequenceNode && len(vals) == 1 {
					// A list joined with commas: point at the first item
					// the flag refuses on its own, if one is.
					for _, it := range v.Content {
						var probe runFlags
						if a.runFlagSet(&probe, io.Discard).fs.Parse([]string{"--" + k.Value + "=" + it.Value}) != nil {
							pos = position{it.Line, it.Column}
							break
						}
					}
				}
				return step{}, &scenarioError{path, pos.line, pos.col, settingProblem(fs, k.Value, err)}
			}
			st.args = append(st.args, arg)
			st.at = append(st.at, at[j])
		}
	}
	return st, nil
}

// scenarioInputs are the settings that name a file kurabe reads: in a
// scenario file a relative path is taken from the file's directory. The
// others that name files (json, html, dir, a store's path) are written to,
// and are taken from the current directory, as on the command line.
var scenarioInputs = map[string]bool{"dataset-file": true, "disk-probe": true}

// settingProblem says what is wrong with a setting's value as the command
// line says it of the flag ("-n ten: want a whole number (operations per
// phase …)"), by the setting's name: "n: ten: want a whole number (…)".
func settingProblem(fs *flag.FlagSet, name string, err error) string {
	msg := flagProblem(fs, err.Error())
	if rest, ok := strings.CutPrefix(msg, dashed(name)+" "); ok {
		return name + ": " + rest
	}
	return name + ": " + msg
}

// runScenario checks every step of a scenario file, with the flags given
// with the file overriding its settings, and then runs them in turn: a
// mistake in a later step is found before the first runs.
func (a *App) runScenario(ctx context.Context, path string, extra []string, stdout, stderr io.Writer) error {
	sc, err := a.loadScenario(path)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	steps, notes, err := a.planScenario(ctx, path, sc, extra, stderr)
	if err != nil || steps == nil {
		return err // nil steps: -h printed the usage
	}
	for _, n := range notes {
		fmt.Fprintf(stderr, "kurabe: %s\n", n)
	}
	// A named pipe that every step writes to stays open between them, so
	// its reader reads every step's document before the end of the stream.
	for _, v := range outputPaths(steps) {
		defer outfile.Hold(v)()
	}
	var failed []string // the steps that failed
	lang := report.English
	var tables *report.TableStream
	for i, args := range steps {
		// Planned again: the check's plan, and the data set its workload
		// decoded, were let go, so that only the running step's is held.
		p, err := a.planRun(args, stderr)
		if err != nil {
			return stepError(path, i, len(steps), step{args: args, at: make([]position, len(args))}, err)
		}
		lang = *p.f.lang
		// Headings are for people: with a format for programs (CSV,
		// benchstat) they go to stderr, so that stdout parses.
		heads := stdout
		if report.MachineFormat(p.f.format) {
			heads = stderr
		}
		if i == 0 {
			if sc.Title != "" {
				fmt.Fprintf(heads, "# %s\n", sc.Title)
			}
			if about := strings.TrimSpace(sc.About); about != "" {
				// What the study was and how to run it at full size.
				fmt.Fprintf(heads, "\n%s\n", about)
			}
		}
		if len(steps) > 1 {
			fmt.Fprint(heads, report.Sprintf(lang, "\n## step %d of %d: kurabe run %s\n\n", i+1, len(steps), report.ShellJoin(commandLine(redactArgs(p.args), a.runBoolFlags()))))
		}
		if tables == nil || tables.Format != p.f.format || tables.Lang != lang {
			tables = &report.TableStream{W: stdout, Format: p.f.format, Lang: lang}
		}
		p.tables = tables
		p.scenario = &result.Scenario{File: path, Title: sc.Title, Step: i + 1, Steps: len(steps)}
		err = a.execRun(ctx, p, stdout, stderr)
		p = nil
		var ee *ExitError
		switch {
		case err == nil:
		case errors.As(err, &ee) && ee.Code == ExitUsage:
			return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s, step %d: %w", path, i+1, err)}
		case errors.As(err, &ee) && ee.Code == ExitInterrupted:
			return interruptedAt(err, lang, path, i, len(steps))
		default:
			fmt.Fprintf(stderr, "kurabe: %s\n", report.Sprintf(lang, "scenario.step.failed", path, i+1, err))
			failed = append(failed, report.Sprintf(lang, "scenario.step", i+1))
		}
		if ctx.Err() != nil {
			return interruptedAt(&ExitError{Code: ExitInterrupted, Err: errors.New(report.Sprintf(lang, "run.exit.interrupted"))}, lang, path, i, len(steps))
		}
	}
	if len(failed) > 0 {
		// Each failure was said as its step ended; this is the verdict.
		key := "scenario.failed"
		if len(failed) > 1 {
			key = "scenario.failed.n"
		}
		return &ExitError{Code: ExitFailed, Err: errors.New(report.Sprintf(lang, key, path, len(failed), len(steps), strings.Join(failed, ", ")))}
	}
	return nil
}

// interruptedAt is the error of a scenario interrupted in step i (from
// 0) of n: the step's own, and which later steps never ran.
func interruptedAt(err error, lang, path string, i, n int) error {
	if i+1 >= n {
		return err // the last step: none was left
	}
	rest := report.Sprintf(lang, "scenario.step", i+2)
	switch {
	case i+3 == n:
		rest = report.Sprintf(lang, "scenario.steps.two", i+2, n)
	case i+3 < n:
		rest = report.Sprintf(lang, "scenario.steps", i+2, n)
	}
	return &ExitError{Code: ExitInterrupted, Err: errors.New(report.Sprintf(lang, "scenario.interrupted", err, path, i+1, n, rest))}
}

// planScenario checks every step, stores included, and returns each
// step's arguments as it is to run, with notes on flags of the command
// line that some steps leave out. It returns no steps and no error when -h
// printed the usage.
//
// A flag given on the command line applies to the steps that take it: an
// option of one workload to the steps running it, -n, -d or --warmup to the
// steps whose workload fits them (a load step keeps its own size). It is
// refused only when no step takes it. Each step's plan is let go once
// checked: a workload may hold its decoded data set, and a scenario of
// several steps would otherwise hold them all.
func (a *App) planScenario(ctx context.Context, path string, sc *scenario, extra []string, stderr io.Writer) (steps [][]string, notes []string, err error) {
	given := a.splitGiven(extra)
	var langs []string // each step's --lang, for the notes on it
	// left[j][i] is why step i leaves out given[j], if it does.
	left := make([][]error, len(given))
	for j := range left {
		left[j] = make([]error, len(sc.Steps))
	}
	for i, st := range sc.Steps {
		use := make([]int, len(given)) // the flags given that the step takes
		for j := range use {
			use[j] = j
		}
		for {
			var args []string
			for _, j := range use {
				args = append(args, given[j].args...)
			}
			full := st.with(args, nil, position{})
			args = full.args
			if len(sc.Steps) > 1 {
				args = stepOutputs(args, i+1)
			}
			p, err := a.planRun(args, stderr)
			if err == nil && p == nil {
				return nil, nil, nil // -h
			}
			var fe *flagError
			if err != nil && errors.As(err, &fe) && fe.unfit {
				if k := slices.IndexFunc(use, func(j int) bool { return given[j].sets(fe.flag) }); k >= 0 {
					left[use[k]][i] = err
					use = slices.Delete(use, k, k+1)
					continue
				}
			}
			if err == nil {
				err = a.checkStores(ctx, p)
			}
			if err != nil {
				return nil, nil, stepError(path, i, len(sc.Steps), full, err)
			}
			steps = append(steps, args)
			langs = append(langs, *p.f.lang)
			break
		}
	}
	byStep := make([][]string, len(sc.Steps)) // the notes on each step
	for j, g := range given {
		var skipped []int
		for i, err := range left[j] {
			if err != nil {
				skipped = append(skipped, i)
			}
		}
		switch {
		case len(skipped) == 0:
		case len(skipped) == len(sc.Steps) && len(sc.Steps) == 1:
			return nil, nil, stepError(path, 0, 1, sc.Steps[0].with(extra, nil, position{}), left[j][0])
		case len(skipped) == len(sc.Steps):
			return nil, nil, &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s: %s applies to no step of the scenario (step 1: %v)", path, strings.Join(g.args, " "), left[j][0])}
		default:
			for _, i := range skipped {
				byStep[i] = append(byStep[i], report.Sprintf(langs[i], "scenario.leaves-out", path, i+1, strings.Join(g.args, " "), left[j][i]))
			}
		}
	}
	// In step order, each step's in the order the flags were given.
	for _, n := range byStep {
		notes = append(notes, n...)
	}
	return steps, notes, nil
}

// givenFlag is a flag given on the command line with a scenario, with its
// value: the arguments that set it.
type givenFlag struct {
	name string // "" for an argument that is no flag
	args []string
}

// sets reports whether the flag is name, or another name for it.
func (g givenFlag) sets(name string) bool {
	return g.name != "" && (g.name == name || aliases[g.name] == name)
}

// splitGiven splits the command line's arguments into flags with their
// values, as run's flag set reads them.
func (a *App) splitGiven(args []string) []givenFlag {
	var f runFlags
	fs := a.runFlagSet(&f, io.Discard).fs
	var out []givenFlag
	for i := 0; i < len(args); i++ {
		arg := args[i]
		name := argName(arg)
		if name == "" || arg == "--" {
			out = append(out, givenFlag{args: []string{arg}})
			continue
		}
		g := givenFlag{name: name, args: []string{arg}}
		if fl := fs.Lookup(name); fl != nil && !strings.Contains(arg, "=") && i+1 < len(args) {
			if bf, ok := fl.Value.(interface{ IsBoolFlag() bool }); !ok || !bf.IsBoolFlag() {
				i++
				g.args = append(g.args, args[i])
			}
		}
		out = append(out, g)
	}
	return out
}

// stepError places a step's bad input in the file: at the setting of the
// flag to blame when the file set it, at the step otherwise.
func stepError(path string, i, n int, st step, err error) error {
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != ExitUsage {
		return err
	}
	msg := err.Error()
	if n > 1 {
		msg = fmt.Sprintf("step %d: %s", i+1, msg)
	}
	at := st.pos
	var fe *flagError
	if errors.As(err, &fe) {
		for _, flag := range append([]string{fe.flag}, blameInstead[fe.flag]...) {
			// Of a flag set several times (store: [a, b]), the value
			// the message names (the longest, as sqlite:?x=1 names
			// sqlite: too), else the last.
			found, named := -1, -1
			for j, a := range st.args {
				if name := argName(a); name != "" && (name == flag || aliases[name] == flag) {
					found = j
					if v := argValue(a); v != "" && strings.Contains(msg, v) && (named < 0 || len(v) > len(argValue(st.args[named]))) {
						named = j
					}
				}
			}
			if named >= 0 {
				found = named
			}
			if found >= 0 {
				at = st.at[found]
				break
			}
		}
	}
	if at.line == 0 {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s: %s", path, msg)}
	}
	return &ExitError{Code: ExitUsage, Err: &scenarioError{path, at.line, at.col, msg}}
}

// blameInstead names the settings to point at, in turn, when a step does
// not set the flag an error blames: range's --records by default reads
// more records than a small --dataset-file (or --rows) holds.
var blameInstead = map[string][]string{"records": {"rows", "dataset-file"}}

// aliases are flags of run that set the same thing under two names.
var aliases = map[string]string{"w": "workload", "workload": "w"}

// exclusive are flags of run that cannot be given together: setting one
// on the command line (or in a step) drops the other from the file.
var exclusive = map[string][]string{"n": {"d"}, "d": {"n"}, "R": {"think"}, "think": {"R"}}

// argValue is the value an argument of the form --name=value gives.
func argValue(a string) string {
	_, v, _ := strings.Cut(a, "=")
	return v
}

// argName is the flag an argument sets ("" for a value).
func argName(a string) string {
	if !strings.HasPrefix(a, "-") {
		return ""
	}
	name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
	return name
}

// overridden returns the indexes of a step's arguments that flags given
// after them leave standing: not set again (so --store on the command line
// replaces the file's stores instead of adding to them), not contradicted
// (-d replaces the file's n).
func overridden(args, extra []string) []int {
	given := map[string]bool{}
	for _, a := range extra {
		if name := argName(a); name != "" {
			given[name] = true
			if alias, ok := aliases[name]; ok {
				given[alias] = true
			}
			for _, x := range exclusive[name] {
				given[x] = true
			}
		}
	}
	var out []int
	for i, a := range args {
		if !given[argName(a)] {
			out = append(out, i)
		}
	}
	return out
}

// outputPaths are the files the steps write their results to, once each.
func outputPaths(steps [][]string) []string {
	var out []string
	for _, args := range steps {
		for i, a := range args {
			name, v, hasEq := strings.Cut(strings.TrimLeft(a, "-"), "=")
			if !strings.HasPrefix(a, "-") || (name != "json" && name != "html") {
				continue
			}
			if !hasEq && i+1 < len(args) {
				v = args[i+1]
			}
			if v != "" && !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	return out
}

// stepOutputs gives each step of a scenario its own result files: out.json
// becomes out-1.json, out-2.json, ...
func stepOutputs(args []string, step int) []string {
	numbered := func(v string) string {
		if fi, err := os.Stat(v); strings.HasSuffix(v, "/") || err == nil && fi.IsDir() {
			return v // a directory: left for the output check to refuse
		}
		if outfile.Direct(v) {
			// A device or pipe (/dev/stdout, a FIFO) has no files beside
			// it: every step writes its document to it, in turn.
			return v
		}
		dot := strings.LastIndex(v, ".")
		if dot <= strings.LastIndex(v, "/") {
			dot = len(v)
		}
		return v[:dot] + "-" + strconv.Itoa(step) + v[dot:]
	}
	out := make([]string, len(args))
	copy(out, args)
	for i, a := range args {
		name, v, hasEq := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || (name != "json" && name != "html") {
			continue
		}
		if hasEq && v != "" {
			out[i] = "--" + name + "=" + numbered(v)
		} else if !hasEq && i+1 < len(args) {
			out[i+1] = numbered(args[i+1])
		}
	}
	return out
}

// commandLine writes a step's flags as the command line would have them:
// a scenario's settings arrive as --name=value, and a one-letter flag is
// written -c 1 (a boolean one -q for -q=true), as everywhere else; the
// others stay --name=value, which kurabe run takes as it is. isBool says
// which flags are boolean, which take no separate value.
func commandLine(args []string, isBool func(name string) bool) []string {
	out := make([]string, 0, len(args))
	for _, a := range args {
		name, val, ok := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		switch {
		case !strings.HasPrefix(a, "--") || !ok || len(name) != 1:
			out = append(out, a)
		case isBool(name) && val == "true":
			out = append(out, "-"+name)
		case isBool(name):
			out = append(out, "-"+name+"="+val)
		default:
			out = append(out, "-"+name, val)
		}
	}
	return out
}

// runBoolFlags says which of kurabe run's flags are boolean.
func (a *App) runBoolFlags() func(name string) bool {
	var f runFlags
	fs := a.runFlagSet(&f, io.Discard).fs
	return func(name string) bool {
		fl := fs.Lookup(name)
		if fl == nil {
			return false
		}
		b, ok := fl.Value.(interface{ IsBoolFlag() bool })
		return ok && b.IsBoolFlag()
	}
}
