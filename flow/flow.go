// Package flow reads request flows: YAML files that describe what one
// simulated user does in one iteration, step by step (log in, search with a
// random offset, log out), with values taken from one response and used in
// the next request.
//
// The package knows nothing of HTTP clients. It parses and checks a flow
// once, up front, with the file and line of every problem, and compiles it
// into templates and extractors that a client renders into buffers it
// reuses: running a step looks nothing up by name and allocates nothing
// (except for regex extractions, see State). Variables are named in
// templates as {{name}}: they are drawn at random per iteration (vars),
// per request of one step (a step's vars), or extracted from an earlier
// step's response (extract). A flow that uses a variable no earlier step
// can have set is rejected at parse time, not discovered under load.
package flow

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"go.yaml.in/yaml/v3"

	"kurabe/beside"
)

// Flow is a parsed, checked flow.
type Flow struct {
	Name string
	File string
	Base string // the base URL relative step URLs were joined to
	// BaseLine is the line of the file's base:, 0 when the base came
	// from outside the file (Options.Base) or there is none.
	BaseLine int
	Vars     []Var // drawn at the start of every iteration
	Steps    []Step
	names    []string // variable index -> name
}

// Step is one request of a flow.
type Step struct {
	Name    string
	Line    int // where the step starts in the file
	Method  string
	URL     Template // the whole URL; its scheme and host are literal
	Origin  string   // scheme://host[:port] of URL, where the request goes
	Headers []Header
	Body    Template
	Vars    []Var // drawn before each request of this step
	Extract []Extract
	Expect  Expect
	// Always runs the step even when an earlier step of the iteration
	// failed, provided every variable it uses has a value (a logout after
	// a failed search, but not after a failed login).
	Always bool
	// DefaultType says the step sends a body and names no Content-Type
	// (its headers nor the flow's): Headers carry Options.ContentType.
	DefaultType bool
	uses        []int
}

// Header is one request header whose value is a template.
type Header struct {
	Name  string
	Value Template
}

// Expect says which responses succeed.
type Expect struct {
	Status    []int          // accepted status codes; empty: any 2xx
	Body      *regexp.Regexp // the body must match, when set
	Length    int64          // the body must be this long,
	HasLength bool           // when this is set
}

// StatusOK reports whether code is an accepted status.
func (e *Expect) StatusOK(code int) bool {
	if len(e.Status) == 0 {
		return code >= 200 && code < 300
	}
	return slices.Contains(e.Status, code)
}

// Options are what a parse needs from outside the file.
type Options struct {
	// ReadFile reads a file a flow names (line: and body_file:), by the
	// name as written. Nil: no files can be read.
	ReadFile func(name string) ([]byte, error)
	// Base, when set, replaces the file's base URL.
	Base string
	// Expect is used by steps without an expect of their own when the
	// file has no flow-level expect either.
	Expect Expect
	// Set gives variables from outside the file (kurabe http --set): each
	// replaces the flow's or a step's variable of that name, or defines a
	// flow-level one for a variable the steps use but no vars section
	// defines. A name no step uses is an error, as is one a step extracts.
	Set []Setting
	// ContentType is sent with the body of a step that names no
	// Content-Type in its headers or the flow's (kurabe http's -T); empty
	// is DefaultContentType.
	ContentType string
}

// DefaultContentType is the Content-Type of a step's body when neither
// the file nor Options name one: a form, as siege sends a URL file's
// bodies (and kurabe http's URL files do), which is what a body written
// as name=value&... is. A JSON body names its type in the step's headers.
const DefaultContentType = "application/x-www-form-urlencoded"

// Setting is one variable given from outside the file, NAME=VALUE. The
// value is used as it is, or, when it is written as a YAML mapping in
// braces, is a generator as in a vars section: {int: [0, 1000]}.
type Setting struct {
	Name, Value string
}

// ParseSetting reads NAME=VALUE.
func ParseSetting(s string) (Setting, error) {
	name, value, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	switch {
	case !ok:
		return Setting{}, fmt.Errorf("%q: want NAME=VALUE, e.g. records=100 or 'offset={int: [0, 1000]}'", s)
	case !validName(name):
		return Setting{}, fmt.Errorf("%q: %q is not a variable name (letters, digits and _, not starting with a digit)", s, name)
	}
	return Setting{Name: name, Value: value}, nil
}

// SyntaxError is a problem at one line of a flow file.
type SyntaxError struct {
	File string
	Line int // 0 when the problem concerns the whole file
	Col  int // 0 when the line alone is known
	Msg  string
}

func (e *SyntaxError) Error() string {
	switch {
	case e.Line > 0 && e.Col > 0:
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return e.File + ": " + e.Msg
}

// ParseError holds every problem found in a file, in line order.
type ParseError struct {
	Errs []*SyntaxError
}

// Error lists every problem, one per line with its file and line (see
// ListProblems).
func (e *ParseError) Error() string { return ListProblems(e.Errs) }

// MaxShown is the most problems ListProblems lists.
const MaxShown = 20

// ListProblems writes a file's problems one per line, so that a file with
// several mistakes is fixed in one pass; past MaxShown, a last line says
// how many more there are.
func ListProblems[E error](errs []E) string {
	var b strings.Builder
	for i, e := range errs {
		if i > 0 {
			b.WriteByte('\n')
		}
		if i == MaxShown {
			n := len(errs) - i
			fmt.Fprintf(&b, "(and %d more %s)", n, map[bool]string{true: "problem", false: "problems"}[n == 1])
			break
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// flowFiles names the flow files beside a missing one, or where
// kurabe's own are.
var flowFiles = beside.Kind{
	Listed: "the flow files",
	Own:    "kurabe's own flows are in the flows folder of its source (docs/http.md); give the path of one",
}

// ParseFile reads and parses a flow file; files it names are read relative
// to the flow file's directory.
func ParseFile(path string, opt Options) (*Flow, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("flow file %s: no such file; %s", path, flowFiles.Hint(path))
	}
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(path)
	opt.ReadFile = func(name string) ([]byte, error) {
		if !filepath.IsAbs(name) {
			name = filepath.Join(dir, name)
		}
		return os.ReadFile(name)
	}
	return Parse(path, data, opt)
}

// The file's layout. Strict decoding rejects unknown fields.
type fileYAML struct {
	Name    string             `yaml:"name"`
	Base    string             `yaml:"base"`
	Headers map[string]string  `yaml:"headers"`
	Vars    map[string]varYAML `yaml:"vars"`
	Expect  *expectYAML        `yaml:"expect"`
	Steps   []stepYAML         `yaml:"steps"`
}

type stepYAML struct {
	Name     string                 `yaml:"name"`
	Method   string                 `yaml:"method"`
	URL      string                 `yaml:"url"`
	Headers  map[string]string      `yaml:"headers"`
	Body     string                 `yaml:"body"`
	BodyFile string                 `yaml:"body_file"`
	Vars     map[string]varYAML     `yaml:"vars"`
	Extract  map[string]extractYAML `yaml:"extract"`
	Expect   *expectYAML            `yaml:"expect"`
	Always   bool                   `yaml:"always"`
}

type varYAML struct {
	Int    ints     `yaml:"int"`
	Choice []string `yaml:"choice"`
	Line   string   `yaml:"line"`
	Seq    ints     `yaml:"seq"`
}

type extractYAML struct {
	JSON   string `yaml:"json"`
	Header string `yaml:"header"`
	Regex  string `yaml:"regex"`
	Group  *int   `yaml:"group"`
}

type expectYAML struct {
	Status ints   `yaml:"status"`
	Body   string `yaml:"body"`
	Length *int64 `yaml:"length"`
}

// ints is one integer or a list of them.
type ints []int64

func (v *ints) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		var x int64
		if err := n.Decode(&x); err != nil {
			return err
		}
		*v = ints{x}
		return nil
	}
	var xs []int64
	if err := n.Decode(&xs); err != nil {
		return err
	}
	*v = xs
	return nil
}

// Friendlier names for the layout's types in the decoder's messages.
var typeNames = strings.NewReplacer(
	"flow.fileYAML", "the flow", "flow.stepYAML", "a step", "flow.varYAML", "a variable (int, choice, line, seq)",
	"flow.extractYAML", "an extraction (json, header, regex, group)", "flow.expectYAML", "expect (status, body, length)",
	"flow.ints", "integers", "map[string]string", "a mapping of names to text", "map[string]flow.varYAML", "a mapping of variables",
	"map[string]flow.extractYAML", "a mapping of variables to extractions", "[]flow.stepYAML", "a list of steps",
	"[]string", "a list", "[]int64", "a list of integers", "*int64", "an integer", "*int", "an integer", "int64", "an integer",
)

var lineMsg = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)

// Parse parses a flow from data; name is the file's name, for messages.
func Parse(name string, data []byte, opt Options) (*Flow, error) {
	p := &parser{file: name, opt: opt}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, p.fail(0, "the file is empty; a flow needs at least one step under steps:")
	}
	if err := yaml.Unmarshal(data, &p.root); err != nil {
		return nil, p.syntaxErr(data, err)
	}
	var fy fileYAML
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&fy); err != nil {
		pe := p.yamlErr(err, &p.root)
		if !onlyUnknownFields(err) {
			return nil, pe
		}
		// An unknown key (heders: for headers:) leaves the rest of the
		// file decoded: the other problems are found too and listed with
		// it, so that the file is fixed in one pass. A value of the wrong
		// type is not gone on from, since the zero left in its place
		// would bring problems of its own that are not in the file.
		p.errs = pe.Errs
	}
	var more yaml.Node
	if err := dec.Decode(&more); err != io.EOF {
		return nil, p.fail(more.Line, "a flow file holds one YAML document; remove the second (the one after ---)")
	}
	f := p.compile(&fy)
	if len(p.errs) > 0 {
		slices.SortStableFunc(p.errs, func(a, b *SyntaxError) int { return a.Line - b.Line })
		return nil, &ParseError{Errs: p.errs}
	}
	return f, nil
}

type parser struct {
	file  string
	opt   Options
	root  yaml.Node
	errs  []*SyntaxError
	index map[string]int
	names []string
	set   map[string]*Var // compiled Options.Set, by name
}

func (p *parser) fail(line int, format string, args ...any) error {
	return &ParseError{Errs: []*SyntaxError{{File: p.file, Line: line, Msg: fmt.Sprintf(format, args...)}}}
}

func (p *parser) errorf(line int, format string, args ...any) {
	p.errs = append(p.errs, &SyntaxError{File: p.file, Line: line, Msg: fmt.Sprintf(format, args...)})
}

// syntaxErr reports a YAML syntax error. The decoder's line for these is
// where the enclosing block starts (and is missing for the first line), so
// the line is found here instead: the first line from which on every
// prefix of the file fails to parse.
func (p *parser) syntaxErr(data []byte, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if g := lineMsg.FindStringSubmatch(err.Error()); g != nil {
		msg = g[2]
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	line := 0
	if len(lines) <= 5000 {
		line = 1
		for k := len(lines) - 1; k > 0; k-- {
			var n yaml.Node
			if yaml.Unmarshal(bytes.Join(lines[:k], nil), &n) == nil {
				line = k + 1
				break
			}
		}
	}
	return p.fail(line, "%s", msg)
}

// onlyUnknownFields reports whether the decoder's err is a list of keys
// it does not know and nothing else.
func onlyUnknownFields(err error) bool {
	var te *yaml.TypeError
	if !errors.As(err, &te) || len(te.Errors) == 0 {
		return false
	}
	for _, m := range te.Errors {
		if !strings.Contains(m, " not found in type ") {
			return false
		}
	}
	return true
}

// yamlErr turns the decoder's errors into ours, one per line it names.
// A value of the wrong type is found in root, the document decoded, so
// that the message names its key and column and says what to write.
func (p *parser) yamlErr(err error, root *yaml.Node) *ParseError {
	var msgs []string
	var te *yaml.TypeError
	if errors.As(err, &te) {
		msgs = te.Errors
	} else {
		msgs = []string{err.Error()}
	}
	pe := &ParseError{}
	used := map[*yaml.Node]bool{} // values already blamed, for two on one line
	for _, m := range msgs {
		line := 0
		if g := lineMsg.FindStringSubmatch(m); g != nil {
			line, _ = strconv.Atoi(g[1])
			m = g[2]
		} else {
			m = strings.TrimPrefix(m, "yaml: ")
			// The decoder leaves out the line of problems on the first
			// line (it omits line 0 of its 0-based count).
			line = 1
		}
		col := 0
		if f, t, ok := strings.Cut(m, " not found in type "); ok && strings.HasPrefix(f, "field ") {
			name := strings.TrimPrefix(f, "field ")
			m = fmt.Sprintf("unknown field %q in %s", name, t)
			col = keyColumn(root, line, name)
		}
		if e := p.typeProblem(root, line, m, used); e != nil {
			pe.Errs = append(pe.Errs, e)
			continue
		}
		pe.Errs = append(pe.Errs, &SyntaxError{File: p.file, Line: line, Col: col, Msg: typeNames.Replace(m)})
	}
	return pe
}

// keyColumn is the column of the mapping key name on line under n, or 0.
func keyColumn(n *yaml.Node, line int, name string) int {
	if n == nil {
		return 0
	}
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := n.Content[i]; k.Line == line && k.Value == name {
				return k.Column
			}
		}
	}
	for _, c := range n.Content {
		if col := keyColumn(c, line, name); col > 0 {
			return col
		}
	}
	return 0
}

// unmarshalMsg is the decoder's message for a value of the wrong type:
// its tag, the value (cut to 7 characters and "..." past 10) unless it
// is a list or mapping, and the Go type it should have fitted.
var unmarshalMsg = regexp.MustCompile("^cannot unmarshal (!![a-z]+)(?: `(.*)`)? into (.+)$")

// typeProblem rewrites the decoder's "cannot unmarshal !!str `maybe` into
// bool" on line as what to write instead, at the value's line and column:
// "always: want true or false, not "maybe"". It is nil when m is another
// message or the value is not found.
func (p *parser) typeProblem(root *yaml.Node, line int, m string, used map[*yaml.Node]bool) *SyntaxError {
	g := unmarshalMsg.FindStringSubmatch(m)
	if g == nil || root == nil {
		return nil
	}
	tag, shown, into := g[1], g[2], g[3]
	matches := func(n *yaml.Node) bool {
		if n.Line != line || n.ShortTag() != tag || used[n] {
			return false
		}
		// A list or mapping on the line that has the kind wanted (the
		// list of steps that starts there) is not the one blamed.
		switch n.Kind {
		case yaml.SequenceNode:
			return !strings.HasPrefix(into, "[]")
		case yaml.MappingNode:
			return !strings.HasPrefix(into, "map[") && !strings.HasSuffix(into, "YAML")
		}
		cut, ok := strings.CutSuffix(shown, "...")
		return n.Value == shown || ok && len(n.Value) > 10 && strings.HasPrefix(n.Value, cut)
	}
	// Such values in the file's order, each with the key it is the value
	// of (or the key of the list it is in).
	type cand struct {
		n      *yaml.Node
		key    string
		inList bool
	}
	var cands []cand
	var walk func(n *yaml.Node, k string, list bool)
	walk = func(n *yaml.Node, k string, list bool) {
		if n == nil {
			return
		}
		if matches(n) {
			cands = append(cands, cand{n, k, list})
		}
		switch n.Kind {
		case yaml.DocumentNode:
			for _, c := range n.Content {
				walk(c, k, false)
			}
		case yaml.SequenceNode:
			for _, c := range n.Content {
				walk(c, k, true)
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				walk(n.Content[i+1], n.Content[i].Value, false)
			}
		}
	}
	walk(root, "", false)
	if len(cands) == 0 {
		return nil
	}
	// The decoder blames the innermost value: of a list or mapping within
	// another on one line (steps: [[x]]), the last; of plain values, the
	// first not yet blamed, as the decoder goes in the file's order.
	c := cands[0]
	if k := c.n.Kind; k == yaml.SequenceNode || k == yaml.MappingNode {
		c = cands[len(cands)-1]
	}
	found, key, inList := c.n, c.key, c.inList
	used[found] = true
	var given string
	switch found.Kind {
	case yaml.SequenceNode:
		given = "a list"
	case yaml.MappingNode:
		given = "a mapping"
	case yaml.ScalarNode:
		// Quoted only where a number or true/false was due: elsewhere the
		// value may be a header's or a variable's, and a secret.
		given = "text"
		if into == "bool" || strings.HasPrefix(into, "int") || strings.HasPrefix(into, "uint") || strings.HasPrefix(into, "float") {
			v := found.Value
			if r := []rune(v); len(r) > 40 {
				v = string(r[:40]) + "…"
			}
			given = strconv.Quote(v)
		}
	}
	want := wantType(into, key, inList)
	if into == "string" && found.Kind != yaml.ScalarNode {
		want += " (YAML reads a value that starts with [ or {, or holds \": \", as a list or a mapping: put it in quotes)"
	}
	if inList {
		given += " in the list"
	}
	if key == "" {
		key = "the file"
	}
	return &SyntaxError{File: p.file, Line: found.Line, Col: found.Column, Msg: fmt.Sprintf("%s: want %s, not %s", key, want, given)}
}

// wantType says what to write where the decoder wanted the Go type into,
// for the value of key (an item of its list when inList).
func wantType(into, key string, inList bool) string {
	example := "[0, 100]"
	if key == "status" {
		example = "[200, 302]"
	}
	switch into {
	case "bool":
		return "true or false"
	case "int", "int64", "*int", "*int64":
		switch {
		case inList:
			return "whole numbers, such as " + example
		case key == "status" || key == "int" || key == "seq":
			// ints: one number, or a list of them.
			return "a whole number or a list of them, such as " + example
		}
		return "a whole number"
	case "[]int64":
		return "a whole number or a list of them, such as " + example
	case "string":
		return "text"
	case "[]string":
		return "a list, such as [10, 100]"
	case "map[string]string":
		return "a mapping of names to values, such as {Accept: application/json}"
	case "map[string]flow.varYAML":
		return "a mapping of variables, such as {offset: {int: [0, 100]}}"
	case "map[string]flow.extractYAML":
		return "a mapping of variables to extractions, such as {token: {json: $.token}}"
	case "[]flow.stepYAML":
		return "a list of steps, each a mapping that starts with - (- url: /login)"
	case "flow.stepYAML":
		return "a step, a mapping such as {name: login, method: POST, url: /login}"
	case "flow.varYAML":
		return "a generator: {int: [LOW, HIGH]}, {choice: [A, B]}, {line: FILE} or {seq: START}"
	case "flow.extractYAML":
		return "an extraction: {json: PATH}, {header: NAME} or {regex: RE}"
	case "flow.expectYAML":
		return "a mapping such as {status: [200], body: REGEX, length: N}"
	case "flow.fileYAML":
		return "a mapping of name, base, headers, vars, expect and steps"
	}
	return typeNames.Replace(into)
}

// node finds the node at path (mapping keys and sequence indexes) under
// the document, for its line; it returns the deepest node found.
func (p *parser) node(path ...any) *yaml.Node {
	n := &p.root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	for _, k := range path {
		next := (*yaml.Node)(nil)
		switch k := k.(type) {
		case string:
			if n.Kind == yaml.MappingNode {
				for i := 0; i+1 < len(n.Content); i += 2 {
					if n.Content[i].Value == k {
						next = n.Content[i+1]
					}
				}
			}
		case int:
			if n.Kind == yaml.SequenceNode && k < len(n.Content) {
				next = n.Content[k]
			}
		}
		if next == nil {
			return n
		}
		n = next
	}
	return n
}

func (p *parser) line(path ...any) int { return p.node(path...).Line }

// keyLine is the line of a mapping key (for vars and extractions, whose
// problems concern the entry as a whole).
func (p *parser) keyLine(key string, path ...any) int {
	n := p.node(path...)
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				return n.Content[i].Line
			}
		}
	}
	return n.Line
}

func (p *parser) variable(name string) int {
	if i, ok := p.index[name]; ok {
		return i
	}
	p.index[name] = len(p.names)
	p.names = append(p.names, name)
	return len(p.names) - 1
}

func (p *parser) compile(fy *fileYAML) *Flow {
	p.index = map[string]int{}
	f := &Flow{Name: fy.Name, File: p.file, Base: fy.Base}
	if fy.Base != "" {
		f.BaseLine = p.line("base")
	}
	if p.opt.Base != "" {
		f.Base, f.BaseLine = p.opt.Base, 0
	}
	if f.Name == "" {
		f.Name = strings.TrimSuffix(filepath.Base(p.file), filepath.Ext(p.file))
	}
	if f.Base != "" {
		if _, err := origin(f.Base); err != nil {
			p.errorf(p.line("base"), "base %q: %v", f.Base, err)
		}
	}
	defExpect := p.opt.Expect
	if fy.Expect != nil {
		defExpect = p.expect(fy.Expect, "expect")
	}
	p.compileSet()
	f.Vars = p.vars(fy.Vars, "vars")
	for _, st := range p.opt.Set {
		if v := p.set[st.Name]; v != nil && !slices.ContainsFunc(f.Vars, func(fv Var) bool { return fv.Name == st.Name }) {
			f.Vars = append(f.Vars, *v)
		}
	}
	if len(fy.Steps) == 0 {
		p.errorf(p.line("steps"), "no steps; a flow needs at least one step under steps:")
	}
	defined := map[string]bool{}
	for _, v := range f.Vars {
		defined[v.Name] = true
	}
	seen := map[string]int{}
	for i := range fy.Steps {
		sy := &fy.Steps[i]
		st := Step{Name: sy.Name, Line: p.line("steps", i), Always: sy.Always, Expect: defExpect}
		if st.Name == "" {
			st.Name = "step " + strconv.Itoa(i+1)
		}
		if j, dup := seen[st.Name]; dup {
			p.errorf(p.line("steps", i, "name"), "step name %q is used twice (steps %d and %d); names label the figures, give each step its own", st.Name, j+1, i+1)
		}
		seen[st.Name] = i
		st.Method = strings.ToUpper(strings.TrimSpace(sy.Method))
		if st.Method == "" {
			st.Method = "GET"
		}
		if !validMethod(st.Method) {
			p.errorf(p.line("steps", i, "method"), "%s: method %q is not an HTTP method token", StepLabel(st.Name), sy.Method)
		}
		st.Vars = p.vars(sy.Vars, "steps", i, "vars")
		for _, v := range st.Vars {
			defined[v.Name] = true
		}
		var uses []string
		use := func(refs []ref, path ...any) {
			for _, r := range refs {
				if !defined[r.name] {
					p.errorf(p.line(path...), "%s uses {{%s}}, which no vars section defines and no earlier step extracts", StepLabel(st.Name), r.name)
				}
				uses = append(uses, r.name)
			}
		}
		// The URL: joined to the base, its scheme and host literal.
		if sy.URL == "" {
			p.errorf(st.Line, "%s has no url", StepLabel(st.Name))
		} else {
			full := joinURL(f.Base, sy.URL)
			t, refs, err := parseTemplate(full)
			switch {
			case err != nil:
				p.errorf(p.line("steps", i, "url"), "%s: url %v", StepLabel(st.Name), err)
			case !strings.Contains(sy.URL, "://") && f.Base == "":
				p.errorf(p.line("steps", i, "url"), "%s: url %q is relative and the flow has no base; give base: http://host:port or a full URL", StepLabel(st.Name), sy.URL)
			default:
				o, err := origin(full)
				if err != nil {
					p.errorf(p.line("steps", i, "url"), "%s: url %q: %v", StepLabel(st.Name), full, err)
				}
				st.URL, st.Origin = t, o
				use(refs, "steps", i, "url")
			}
			st.URL.resolveLater(refs)
		}
		// Headers: the flow's, then the step's (which win), sorted by name.
		hs := map[string]string{}
		hline := map[string]int{}
		for _, k := range sortedKeys(fy.Headers) {
			hs[http1Canonical(k)] = fy.Headers[k]
			hline[http1Canonical(k)] = p.line("headers", k)
		}
		for _, k := range sortedKeys(sy.Headers) {
			hs[http1Canonical(k)] = sy.Headers[k]
			hline[http1Canonical(k)] = p.line("steps", i, "headers", k)
		}
		for _, k := range sortedKeys(hs) {
			if !validToken(k) {
				p.errorf(hline[k], "%s: %q is not a valid header name", StepLabel(st.Name), k)
				continue
			}
			if !ValidHeaderValue(hs[k]) {
				// Not quoted: the value may be a secret.
				p.errorf(hline[k], "%s: header %s: the value has a control character (such as CR, LF, NUL or DEL; only a tab is allowed), which would break the request on the wire", StepLabel(st.Name), k)
				continue
			}
			t, refs, err := parseTemplate(hs[k])
			if err != nil {
				p.errorf(hline[k], "%s: header %s: %v", StepLabel(st.Name), k, err)
				continue
			}
			use(refs, "steps", i, "headers", k)
			t.resolveLater(refs)
			st.Headers = append(st.Headers, Header{Name: k, Value: t})
		}
		// The body, written out or from a file.
		body := sy.Body
		if sy.BodyFile != "" {
			if sy.Body != "" {
				p.errorf(p.line("steps", i, "body_file"), "%s has both body and body_file; give one", StepLabel(st.Name))
			}
			b, err := p.readFile(sy.BodyFile)
			if err != nil {
				p.errorf(p.line("steps", i, "body_file"), "%s: body_file: %v", StepLabel(st.Name), readErr(sy.BodyFile, err))
			}
			body = string(b)
		}
		if body != "" {
			t, refs, err := parseTemplate(body)
			if err != nil {
				p.errorf(p.line("steps", i, "body"), "%s: body %v", StepLabel(st.Name), err)
			} else {
				use(refs, "steps", i, "body")
				t.resolveLater(refs)
				st.Body = t
			}
		}
		// A body sent without a type would go out as
		// application/octet-stream (fasthttp's default), which a form
		// handler refuses: it gets Options.ContentType.
		if _, typed := hs["Content-Type"]; body != "" && !typed {
			ct := cmp.Or(p.opt.ContentType, DefaultContentType)
			at, _ := slices.BinarySearchFunc(st.Headers, "Content-Type", func(h Header, name string) int { return strings.Compare(h.Name, name) })
			st.Headers = slices.Insert(st.Headers, at, Header{Name: "Content-Type", Value: literal(ct)})
			st.DefaultType = true
		}
		if sy.Expect != nil {
			st.Expect = p.expect(sy.Expect, "steps", i, "expect")
		}
		st.Extract = p.extracts(sy.Extract, "steps", i, "extract")
		for _, e := range st.Extract {
			defined[e.Name] = true
			if p.set[e.Name] != nil {
				p.errorf(0, "--set %s: %s extracts {{%s}} from its response, so a value given here would be overwritten; set another variable", e.Name, StepLabel(st.Name), e.Name)
			}
		}
		for _, n := range uses {
			i := p.variable(n)
			if !slices.Contains(st.uses, i) {
				st.uses = append(st.uses, i)
			}
		}
		f.Steps = append(f.Steps, st)
	}
	// A setting no step uses is most likely a misspelt name.
	for _, st := range p.opt.Set {
		if p.set[st.Name] == nil {
			continue
		}
		used := false
		for i := range f.Steps {
			if slices.Contains(f.Steps[i].uses, p.index[st.Name]) {
				used = true
			}
		}
		if !used {
			var names []string
			for _, v := range f.Vars {
				if v.Name != st.Name {
					names = append(names, v.Name)
				}
			}
			p.errorf(0, "--set %s: no step uses {{%s}}; the flow's variables are %s", st.Name, st.Name, strings.Join(names, ", "))
		}
	}
	// Every name is known now: give templates their variable indexes.
	for i := range f.Steps {
		st := &f.Steps[i]
		st.URL.finish(p.index)
		st.Body.finish(p.index)
		for j := range st.Headers {
			st.Headers[j].Value.finish(p.index)
		}
	}
	f.names = p.names
	return f
}

// resolveLater keeps a template's references until every variable has an
// index; finish resolves them.
func (t *Template) resolveLater(refs []ref) { t.pending = refs }

func (t *Template) finish(index map[string]int) {
	t.resolve(t.pending, index)
	t.pending = nil
}

// readErr says which file could not be read, once.
func readErr(name string, err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("cannot read %s: %v", name, err)
}

func (p *parser) readFile(name string) ([]byte, error) {
	if p.opt.ReadFile == nil {
		return nil, fmt.Errorf("cannot read %s here", name)
	}
	return p.opt.ReadFile(name)
}

func (p *parser) vars(m map[string]varYAML, path ...any) []Var {
	var out []Var
	for _, name := range sortedKeys(m) {
		vy := m[name]
		line := p.keyLine(name, path...)
		if !validName(name) {
			p.errorf(line, "variable name %q: use letters, digits and _, not starting with a digit", name)
			continue
		}
		v := Var{Name: name, index: p.variable(name)}
		n := 0
		if vy.Int != nil {
			n++
			v.kind = genInt
			if len(vy.Int) != 2 || vy.Int[0] > vy.Int[1] {
				p.errorf(line, "variable %s: int wants [low, high] with low <= high, e.g. int: [0, 1000]", name)
			} else {
				v.lo, v.hi = vy.Int[0], vy.Int[1]
			}
		}
		if vy.Choice != nil {
			n++
			v.kind, v.items = genChoice, vy.Choice
			if len(vy.Choice) == 0 {
				p.errorf(line, "variable %s: choice wants at least one value, e.g. choice: [10, 100]", name)
			}
		}
		if vy.Line != "" {
			n++
			v.kind = genLine
			b, err := p.readFile(vy.Line)
			if err != nil {
				p.errorf(line, "variable %s: line: %v", name, readErr(vy.Line, err))
			}
			for _, l := range strings.Split(string(b), "\n") {
				if l = strings.TrimSuffix(l, "\r"); l != "" {
					v.items = append(v.items, l)
				}
			}
			if err == nil && len(v.items) == 0 {
				p.errorf(line, "variable %s: %s has no non-empty lines", name, vy.Line)
			}
		}
		if vy.Seq != nil {
			n++
			v.kind, v.seq = genSeq, new(atomic.Int64)
			switch {
			case len(vy.Seq) == 1:
				v.lo, v.hi = vy.Seq[0], vy.Seq[0]-1
			case len(vy.Seq) == 2 && vy.Seq[0] <= vy.Seq[1] && vy.Seq[1]-vy.Seq[0] >= 0 && vy.Seq[1]-vy.Seq[0] < math.MaxInt64:
				v.lo, v.hi = vy.Seq[0], vy.Seq[1]
			default:
				p.errorf(line, "variable %s: seq wants a start, or [start, end] to wrap around, e.g. seq: 1", name)
			}
		}
		if n != 1 {
			p.errorf(line, "variable %s: give exactly one of int: [low, high], choice: [...], line: FILE, seq: START", name)
			continue
		}
		if sv := p.set[name]; sv != nil {
			v = *sv // --set wins over the file
		}
		out = append(out, v)
	}
	return out
}

// compileSet turns Options.Set into variables: a fixed value, or a
// generator written in braces. A name given twice takes the last value.
func (p *parser) compileSet() {
	p.set = map[string]*Var{}
	for _, st := range p.opt.Set {
		if !validName(st.Name) {
			p.errorf(0, "--set %s: not a variable name (letters, digits and _, not starting with a digit)", st.Name)
			continue
		}
		v := &Var{Name: st.Name, index: p.variable(st.Name), kind: genFixed, items: []string{st.Value}}
		if val := strings.TrimSpace(st.Value); strings.HasPrefix(val, "{") {
			var vy varYAML
			dec := yaml.NewDecoder(strings.NewReader(val))
			dec.KnownFields(true)
			if err := dec.Decode(&vy); err != nil {
				var root yaml.Node
				yaml.Unmarshal([]byte(val), &root)
				if pe := p.yamlErr(err, &root); len(pe.Errs) > 0 {
					p.errorf(0, "--set %s=%s: %s; write a generator as {int: [LOW, HIGH]}, {choice: [A, B]}, {line: FILE} or {seq: START}", st.Name, st.Value, pe.Errs[0].Msg)
				}
				continue
			}
			before := len(p.errs)
			delete(p.set, st.Name) // an earlier --set of the name must not replace this one
			vs := p.vars(map[string]varYAML{st.Name: vy})
			for _, e := range p.errs[before:] {
				e.Line, e.Msg = 0, "--set "+strings.TrimPrefix(e.Msg, "variable ")
			}
			if len(vs) != 1 {
				continue
			}
			*v = vs[0]
		}
		p.set[st.Name] = v
	}
}

func (p *parser) extracts(m map[string]extractYAML, path ...any) []Extract {
	var out []Extract
	for _, name := range sortedKeys(m) {
		ey := m[name]
		line := p.keyLine(name, path...)
		if !validName(name) {
			p.errorf(line, "variable name %q: use letters, digits and _, not starting with a digit", name)
			continue
		}
		e := Extract{Name: name, index: p.variable(name)}
		n := 0
		if ey.JSON != "" {
			n++
			e.kind = fromJSON
			pth, err := ParsePath(ey.JSON)
			if err != nil {
				p.errorf(line, "extract %s: %v", name, err)
			}
			e.path = pth
		}
		if ey.Header != "" {
			n++
			e.kind, e.header = fromHeader, ey.Header
		}
		if ey.Regex != "" {
			n++
			e.kind = fromRegex
			re, err := regexp.Compile(ey.Regex)
			if err != nil {
				p.errorf(line, "extract %s: regex: %v", name, err)
				continue
			}
			e.re = re
			e.group = min(1, re.NumSubexp())
			if ey.Group != nil {
				e.group = *ey.Group
			}
			if e.group < 0 || e.group > re.NumSubexp() {
				p.errorf(line, "extract %s: group %d, but the regex has %d", name, e.group, re.NumSubexp())
				continue
			}
		} else if ey.Group != nil {
			p.errorf(line, "extract %s: group is for regex extractions", name)
		}
		if n != 1 {
			p.errorf(line, "extract %s: give exactly one of json: PATH, header: NAME, regex: RE", name)
			continue
		}
		out = append(out, e)
	}
	return out
}

func (p *parser) expect(ey *expectYAML, path ...any) Expect {
	var e Expect
	for _, s := range ey.Status {
		if s < 100 || s > 599 {
			p.errorf(p.line(append(path, "status")...), "expect: status %d is not an HTTP status (100 to 599)", s)
		}
		e.Status = append(e.Status, int(s))
	}
	if ey.Body != "" {
		re, err := regexp.Compile(ey.Body)
		if err != nil {
			p.errorf(p.line(append(path, "body")...), "expect: body: %v", err)
		}
		e.Body = re
	}
	if ey.Length != nil {
		if *ey.Length < 0 {
			p.errorf(p.line(append(path, "length")...), "expect: length %d: want 0 or more bytes", *ey.Length)
		}
		e.Length, e.HasLength = *ey.Length, true
	}
	return e
}

// joinURL joins a step's URL to the base unless it is absolute.
func joinURL(base, u string) string {
	if strings.Contains(u, "://") || base == "" {
		return u
	}
	return strings.TrimRight(base, "/") + "/" + strings.TrimLeft(u, "/")
}

// origin returns scheme://host[:port] of an http or https URL, and fails
// when they are not literal: every request of a step goes to one server.
func origin(u string) (string, error) {
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok || (scheme != "http" && scheme != "https") {
		return "", errors.New("want an http:// or https:// URL")
	}
	host := rest
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		host = rest[:i]
	}
	if strings.Contains(host, "{{") {
		return "", errors.New("the host must be written out, not a {{variable}}")
	}
	if host == "" {
		return "", errors.New("no host")
	}
	return scheme + "://" + host, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func validMethod(m string) bool { return validToken(m) }

// ValidToken reports whether s is an HTTP token, as a method or a header
// name must be: letters, digits and !#$%&'*+-.^_`|~.
func ValidToken(s string) bool { return validToken(s) }

// ValidHeaderValue reports whether s can be a header's value on the wire:
// no control character but tab. A CR or LF would end the header and start
// another (header injection), a NUL is refused by servers.
func ValidHeaderValue(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// validToken reports whether s is an HTTP token (a method or header name).
func validToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// http1Canonical writes a header name as Content-Type, so that the flow's
// and a step's headers of the same name meet.
func http1Canonical(s string) string {
	b := []byte(strings.TrimSpace(s))
	upper := true
	for i, c := range b {
		switch {
		case upper && c >= 'a' && c <= 'z':
			b[i] = c - 'a' + 'A'
		case !upper && c >= 'A' && c <= 'Z':
			b[i] = c - 'A' + 'a'
		}
		upper = c == '-'
	}
	return string(b)
}

// HeaderVars returns the names of the variables that the values of
// headers named as secret (by the function given: Authorization,
// Cookie, ...) use, in any step: a token given with --set tk=... and
// sent as "Authorization: Bearer {{tk}}" is as secret as the header.
func (f *Flow) HeaderVars(secret func(header string) bool) []string {
	var names []string
	for _, s := range f.Steps {
		for _, h := range s.Headers {
			if !secret(h.Name) {
				continue
			}
			for _, p := range h.Value.parts {
				if p.v >= 0 && p.v < len(f.names) && !slices.Contains(names, f.names[p.v]) {
					names = append(names, f.names[p.v])
				}
			}
		}
	}
	return names
}

// StepLabel names a step in messages: "step login", and "step 2" for a
// step without a name, whose name is already "step 2" (not "step step 2").
func StepLabel(name string) string {
	if strings.HasPrefix(name, "step ") {
		return name
	}
	return "step " + name
}
