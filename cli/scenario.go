package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
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

func isScenario(arg string) bool {
	return strings.HasSuffix(arg, ".yaml") || strings.HasSuffix(arg, ".yml")
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

// loadScenario reads and checks a scenario file against run's flags.
func (a *App) loadScenario(path string) (*scenario, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("scenario: %v", err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		hint := ""
		if strings.Contains(err.Error(), "mapping values are not allowed") {
			hint = ` (a value ending in ":", such as the store file:, needs quotes: "file:")`
		}
		return nil, fmt.Errorf("%s: %v%s", path, err, hint)
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
			sc.Title = v.Value
		case "about":
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
			return nil, &scenarioError{path, k.Line, k.Column, fmt.Sprintf("unknown key %q; a scenario has title, about, run and steps", k.Value)}
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

// noDuplicateKeys refuses a mapping that gives a key twice: YAML's last
// one would win silently.
func noDuplicateKeys(path string, m *yaml.Node) error {
	seen := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if seen[k.Value] {
			return &scenarioError{path, k.Line, k.Column, fmt.Sprintf("%s is given twice in this mapping; give it once (a list for several values)", k.Value)}
		}
		seen[k.Value] = true
	}
	return nil
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
			return step{}, &scenarioError{path, k.Line, k.Column, fmt.Sprintf("unknown setting %q; settings are the flags of kurabe run by name (kurabe help run)", k.Value)}
		}
		var vals []string
		switch v.Kind {
		case yaml.ScalarNode:
			vals = []string{v.Value}
		case yaml.SequenceNode:
			var items []string
			for _, it := range v.Content {
				if it.Kind != yaml.ScalarNode {
					return step{}, &scenarioError{path, it.Line, it.Column, fmt.Sprintf("%s: want plain values in the list", k.Value)}
				}
				items = append(items, it.Value)
			}
			if _, repeatable := fl.Value.(*multiFlag); repeatable {
				vals = items // --store a --store b
			} else {
				vals = []string{strings.Join(items, ",")} // ops: [write, read-all] -> write,read-all
			}
		default:
			return step{}, &scenarioError{path, v.Line, v.Column, fmt.Sprintf("%s: want a value or a list of values", k.Value)}
		}
		for _, val := range vals {
			arg := "--" + k.Value + "=" + val
			if err := fs.Parse([]string{arg}); err != nil {
				return step{}, &scenarioError{path, v.Line, v.Column, fmt.Sprintf("%s: %q is not valid: %v", k.Value, val, unwrapFlagErr(err))}
			}
			st.args = append(st.args, arg)
			st.at = append(st.at, position{v.Line, v.Column})
		}
	}
	return st, nil
}

func unwrapFlagErr(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 {
		return msg[i+2:]
	}
	return msg
}

// runScenario checks every step of a scenario file, with the flags given
// with the file overriding its settings, and then runs them in turn: a
// mistake in a later step is found before the first runs.
func (a *App) runScenario(ctx context.Context, path string, extra []string, stdout, stderr io.Writer) error {
	sc, err := a.loadScenario(path)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	plans := make([]*runPlan, len(sc.Steps))
	for i, st := range sc.Steps {
		st = st.with(extra, nil, position{})
		args := st.args
		if len(sc.Steps) > 1 {
			args = stepOutputs(args, i+1)
		}
		p, err := a.planRun(args, stderr)
		if err == nil && p == nil {
			return nil // -h
		}
		if err == nil {
			err = a.checkStores(ctx, p)
		}
		if err != nil {
			return stepError(path, i, len(sc.Steps), st, err)
		}
		plans[i] = p
	}
	if sc.Title != "" {
		fmt.Fprintf(stdout, "# %s\n", sc.Title)
	}
	var failed error
	for i, p := range plans {
		if len(plans) > 1 {
			fmt.Fprintf(stdout, "\n## step %d of %d: kurabe run %s\n\n", i+1, len(plans), strings.Join(redactArgs(p.args), " "))
		}
		err := a.execRun(ctx, p, stdout, stderr)
		var ee *ExitError
		switch {
		case err == nil:
		case errors.As(err, &ee) && ee.Code == ExitUsage:
			return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s, step %d: %w", path, i+1, err)}
		case errors.As(err, &ee) && ee.Code == ExitInterrupted:
			return err
		default:
			fmt.Fprintf(stderr, "kurabe: %s, step %d: %v\n", path, i+1, err)
			failed = err
		}
		if ctx.Err() != nil {
			return &ExitError{Code: ExitInterrupted, Err: errors.New("interrupted")}
		}
	}
	return failed
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
		for j, a := range st.args {
			if name := argName(a); name != "" && (name == fe.flag || aliases[name] == fe.flag) {
				at = st.at[j]
			}
		}
	}
	if at.line == 0 {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s: %s", path, msg)}
	}
	return &ExitError{Code: ExitUsage, Err: &scenarioError{path, at.line, at.col, msg}}
}

// aliases are flags of run that set the same thing under two names.
var aliases = map[string]string{"w": "workload", "workload": "w"}

// exclusive are flags of run that cannot be given together: setting one
// on the command line (or in a step) drops the other from the file.
var exclusive = map[string][]string{"n": {"d"}, "d": {"n"}, "R": {"think"}, "think": {"R"}}

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

// stepOutputs gives each step of a scenario its own result files: out.json
// becomes out-1.json, out-2.json, ...
func stepOutputs(args []string, step int) []string {
	numbered := func(v string) string {
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
