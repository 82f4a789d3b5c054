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
	Steps [][]string // each step's arguments; one step without steps:
}

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
	var base []string
	var steps *yaml.Node
	root := doc.Content[0]
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
		sc.Steps = [][]string{base}
		return sc, nil
	}
	for _, st := range steps.Content {
		args, err := a.scenarioArgs(path, st)
		if err != nil {
			return nil, err
		}
		sc.Steps = append(sc.Steps, append(append([]string{}, base...), args...))
	}
	if len(sc.Steps) == 0 {
		return nil, &scenarioError{path, steps.Line, steps.Column, "steps: the list is empty"}
	}
	return sc, nil
}

// scenarioArgs turns a mapping of settings into run's arguments, checking
// each one on its own so an error points at its line.
func (a *App) scenarioArgs(path string, m *yaml.Node) ([]string, error) {
	if m.Kind != yaml.MappingNode {
		return nil, &scenarioError{path, m.Line, m.Column, "want a mapping of settings, such as {store: sqlite:, n: 1000}"}
	}
	var args []string
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		var probe runFlags
		fs, _ := a.runFlagSet(&probe, io.Discard)
		fl := fs.Lookup(k.Value)
		if fl == nil {
			return nil, &scenarioError{path, k.Line, k.Column, fmt.Sprintf("unknown setting %q; settings are the flags of kurabe run by name (kurabe help run)", k.Value)}
		}
		var vals []string
		switch v.Kind {
		case yaml.ScalarNode:
			vals = []string{v.Value}
		case yaml.SequenceNode:
			var items []string
			for _, it := range v.Content {
				if it.Kind != yaml.ScalarNode {
					return nil, &scenarioError{path, it.Line, it.Column, fmt.Sprintf("%s: want plain values in the list", k.Value)}
				}
				items = append(items, it.Value)
			}
			if _, repeatable := fl.Value.(*multiFlag); repeatable {
				vals = items // --store a --store b
			} else {
				vals = []string{strings.Join(items, ",")} // ops: [write, read-all] -> write,read-all
			}
		default:
			return nil, &scenarioError{path, v.Line, v.Column, fmt.Sprintf("%s: want a value or a list of values", k.Value)}
		}
		for _, val := range vals {
			arg := "--" + k.Value + "=" + val
			if err := fs.Parse([]string{arg}); err != nil {
				return nil, &scenarioError{path, v.Line, v.Column, fmt.Sprintf("%s: %q is not valid: %v", k.Value, val, unwrapFlagErr(err))}
			}
			args = append(args, arg)
		}
	}
	return args, nil
}

func unwrapFlagErr(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 {
		return msg[i+2:]
	}
	return msg
}

// runScenario runs each step of a scenario file in turn, with the flags
// given after the file appended, so they override the file's settings.
func (a *App) runScenario(ctx context.Context, path string, extra []string, stdout, stderr io.Writer) error {
	sc, err := a.loadScenario(path)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	if sc.Title != "" {
		fmt.Fprintf(stdout, "# %s\n", sc.Title)
	}
	var failed error
	for i, step := range sc.Steps {
		args := append(overridden(step, extra), extra...)
		if len(sc.Steps) > 1 {
			args = stepOutputs(args, i+1)
			fmt.Fprintf(stdout, "\n## step %d of %d: kurabe run %s\n\n", i+1, len(sc.Steps), strings.Join(redactArgs(args), " "))
		}
		err := a.run(ctx, args, stdout, stderr)
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

// overridden drops from a step's arguments the settings that flags given
// after the scenario file set again, so --store on the command line
// replaces the file's stores instead of adding to them.
func overridden(step, extra []string) []string {
	given := map[string]bool{}
	for _, a := range extra {
		if strings.HasPrefix(a, "-") {
			name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
			given[name] = true
		}
	}
	var out []string
	for _, a := range step {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !given[name] {
			out = append(out, a)
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
