package cli

import (
	"context"
	crand "crypto/rand"
	"encoding/base64"
	"encoding/binary"
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
	"time"

	"kurabe/engine"
	"kurabe/flow"
	"kurabe/httpload"
	"kurabe/redact"
	"kurabe/report"
	"kurabe/result"
)

// httpFlags are kurabe http's flags: ab's, siege's URL file, and kurabe's.
type httpFlags struct {
	n            int64
	c            int
	t, d         string
	postFile     string
	putFile      string
	ctype        string
	headers      multiFlag
	cookies      multiFlag
	auth         string
	method       string
	timeout      string
	rate         string
	urlFile      string
	random       bool
	flowFile     string
	sets         multiFlag
	jsonOut      string
	format       string
	expectStatus string
	expectBody   string
	expectLength int64
	close        bool
	seed         uint64
	quiet        bool
}

const httpUsage = `Usage: kurabe http [flags] URL...
       kurabe http [flags] -f URLFILE
       kurabe http [flags] --flow FLOW.yaml [BASE-URL]

Sends HTTP requests with -c clients, each with its own kept-alive
connection, -n requests in all or for -t/-d; or at -R requests per second
(open loop). Takes ab's flags and siege's URL files; non-2xx responses are
failures, counted by status code. With --flow, one operation is one pass
through the flow's steps, and -n counts passes.

Flags:
`

func (a *App) http(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f httpFlags
	fs := flag.NewFlagSet("kurabe http", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Int64Var(&f.n, "n", 1, "requests in all (with --flow: passes through the flow), spread exactly over the clients; ab's default is 1")
	fs.IntVar(&f.c, "c", 1, "concurrent clients, each with its own connection (with -R: the most requests in flight, default 50)")
	fs.StringVar(&f.t, "t", "", "run this long instead of -n: seconds (30), a duration (30s, 500ms) or siege's 30S, 5M, 1H")
	fs.StringVar(&f.d, "d", "", "the same as -t")
	fs.StringVar(&f.postFile, "p", "", "POST the contents of this file (with -T)")
	fs.StringVar(&f.putFile, "u", "", "PUT the contents of this file (with -T)")
	fs.StringVar(&f.ctype, "T", "", "Content-Type of -p and -u bodies (default text/plain, as ab), and of URL file bodies and flow steps' bodies that name none (default application/x-www-form-urlencoded, as siege)")
	fs.Var(&f.headers, "H", `a header sent with every request, "Name: value"; repeat for more`)
	fs.Var(&f.cookies, "C", `a cookie sent with every request, "name=value"; repeat for more`)
	fs.StringVar(&f.auth, "A", "", "basic authentication, user:password")
	fs.StringVar(&f.method, "m", "", "the method (default GET; POST with -p, PUT with -u)")
	fs.StringVar(&f.timeout, "s", "30", "timeout of each request: seconds (30) or a duration (500ms)")
	fs.StringVar(&f.rate, "R", "", "open loop: start requests at this many per second whether or not earlier ones finished (latency from the scheduled start); RATE, or FROM:TO to ramp linearly over -d")
	fs.StringVar(&f.urlFile, "f", "", "read URLs from this file, siege's format: URL, URL POST body, URL POST <file, NAME=value and $(NAME)")
	fs.BoolVar(&f.random, "random", false, "pick URLs at random rather than in turn")
	fs.StringVar(&f.flowFile, "flow", "", "run this request flow (YAML); a URL after it replaces the flow's base")
	fs.Var(&f.sets, "set", "with --flow: give a flow variable, `NAME=VALUE` (records=100), or a generator in braces ('offset={int: [0, 1000]}'); replaces the flow's own; repeat for more")
	fs.StringVar(&f.jsonOut, "json", "", "write the full result document to this file")
	fs.StringVar(&f.format, "format", "full", "report: "+strings.Join(report.HTTPFormatNames(), ", ")+" (full has ab's and siege's fields)")
	lang := langFlag(fs)
	fs.StringVar(&f.expectStatus, "expect-status", "", "succeed only on these status codes, e.g. 200 or 200,302 (default: any 2xx)")
	fs.StringVar(&f.expectBody, "expect-body", "", "succeed only when the body matches this regular expression")
	fs.Int64Var(&f.expectLength, "expect-length", -1, "succeed only when the body has this many bytes (by default any length succeeds and lengths are reported)")
	fs.BoolVar(&f.close, "close", false, "a new connection per request (Connection: close), as ab without -k")
	fs.Uint64Var(&f.seed, "seed", 0, "seed of the clients' random numbers (random URL order, flow variables); default random, recorded")
	fs.BoolVar(&f.quiet, "q", false, "no progress line, even on a terminal")
	// Accepted for compatibility; they change nothing.
	fs.Bool("k", true, "keep-alive (always on; see --close)")
	fs.Bool("l", true, "accept bodies of varying length (always: lengths fail only with --expect-length)")
	fs.Bool("r", true, "do not exit on socket errors (kurabe never does; it counts them)")
	fs.Bool("b", true, "siege's benchmark mode (kurabe never waits between requests unless asked)")

	var urls []string
	args = joinedFlags(fs, args)
	rest := args
	for {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprint(stdout, httpUsage)
				fs.SetOutput(stdout)
				fs.PrintDefaults()
				return nil
			}
			return usageErr("%s; see kurabe help http", flagProblem(fs, flagErr(err)))
		}
		rest = fs.Args()
		if len(rest) == 0 {
			break
		}
		if rest[0] == "--" {
			urls = append(urls, rest[1:]...)
			break
		}
		urls = append(urls, rest[0])
		rest = rest[1:]
	}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })

	cfg, ecfg, err := f.config(urls, set)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	render, ok := report.HTTPFormats[f.format]
	if !ok {
		return usageErr("unknown --format %s; choose from %s", httpload.Quote(f.format), strings.Join(report.HTTPFormatNames(), ", "))
	}
	if err := report.CheckLang(*lang); err != nil {
		return usageErr("--lang: %v", err)
	}
	if err := checkOutputFile(f.jsonOut); err != nil {
		return usageErr("--json %s: %v", f.jsonOut, err)
	}
	if err := ecfg.Validate(); err != nil {
		return usageErr("%v", err)
	}
	cfg.UserAgent = "kurabe/" + Version
	w, err := httpload.New(cfg)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	// A server that is not there would fail every request at once: say so
	// before the run, as ab does (it stops at the first refused connect).
	if err := w.Preflight(ctx); err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	// Each request is bounded by -s (the watchdog), also at -t's end and
	// at Ctrl-C: the engine's grace, which would cut an operation off
	// sooner and blame run's --grace, is set past the longest an
	// operation can take, a whole pass of a flow.
	steps := 1
	if cfg.Flow != nil {
		steps = len(cfg.Flow.Steps)
	}
	ecfg.Grace = time.Duration(steps)*(cfg.Timeout+100*time.Millisecond) + time.Second // a watchdog tick is at most 100 ms
	if ecfg.Seed == 0 {
		var b [8]byte
		crand.Read(b[:])
		ecfg.Seed = binary.LittleEndian.Uint64(b[:]) >> 1
	}
	prog := &progress{w: stderr, on: !f.quiet && a.Terminal(stderr)}
	ecfg.Tick = prog.tick("http")

	st := w.Store()
	doc := &result.Document{
		Schema: result.Schema, Kurabe: Version, Command: append([]string{"http"}, httpRedact(args, secretVars(cfg)...)...), Started: time.Now().UTC(), Seed: ecfg.Seed,
		Run: result.RunConfig{
			Workload: w.Name(), Params: w.Params(), Ops: []string{w.Phases()[0].Name}, Clients: ecfg.Clients,
			Count: ecfg.Count, Duration: result.Duration(ecfg.Duration), Rate: f.rate,
		},
		Env: result.CollectEnv(),
	}
	ph, err := engine.RunPhase(ctx, ecfg, st, w, 0)
	prog.clear()
	if err != nil {
		return &ExitError{Code: ExitFailed, Err: err}
	}
	ph.HTTP = w.Stats()
	doc.Finished = time.Now().UTC()
	doc.Interrupted = ctx.Err() != nil
	info := st.Info(context.WithoutCancel(ctx))
	doc.Stores = []result.Store{{Label: "http", Spec: info.Target, Info: info, Phases: []result.Phase{ph}}}

	var jsonErr error
	if f.jsonOut != "" {
		jsonErr = result.WriteFile(f.jsonOut, doc)
	}
	if err := render(stdout, *lang, doc); err != nil {
		return err
	}
	if jsonErr != nil {
		return jsonErr
	}
	if h := ph.HTTP; h.Resent > 0 {
		fmt.Fprintln(stderr, "kurabe: "+report.HTTPResentLine(*lang, h.Resent))
	}
	switch h := ph.HTTP; {
	case doc.Interrupted:
		return &ExitError{Code: ExitInterrupted, Err: errors.New(report.HTTPInterruptedLine(*lang))}
	case h.Failed > 0:
		return &ExitError{Code: ExitFailed, Err: errors.New(report.HTTPFailedLine(*lang, h.Failed, h.Requests))}
	}
	return nil
}

// config checks the flags and builds the load's and the engine's
// configurations. Every problem is one line that says what to change.
func (f *httpFlags) config(urls []string, set map[string]bool) (httpload.Config, engine.Config, error) {
	cfg := httpload.DefaultConfig()
	// Every request waits on the network, so clients take turns without
	// the engine's yield between operations (which costs kurabe CPU here).
	ecfg := engine.Config{Clients: f.c, Count: f.n, Seed: f.seed, NoYield: true}
	bad := func(format string, args ...any) (httpload.Config, engine.Config, error) {
		return cfg, ecfg, fmt.Errorf(format, args...)
	}

	// How long: -n, or -t / -d.
	dur := f.t
	if set["d"] {
		if set["t"] && f.d != f.t {
			return bad("-t %s and -d %s disagree; give one", f.t, f.d)
		}
		dur = f.d
	}
	if dur != "" {
		if set["n"] {
			return bad("give either -n or -t/-d, not both")
		}
		d, err := httpSeconds(dur)
		if err != nil || d <= 0 {
			return bad("-t %s: want a time such as 30 (seconds), 30s, 500ms or 5M", httpload.Quote(dur))
		}
		ecfg.Count, ecfg.Duration = 0, d
	} else if f.n < 1 {
		return bad("-n %d: want 1 or more requests", f.n)
	}
	if f.c < 1 {
		return bad("-c %d: want 1 or more clients", f.c)
	}
	var err error
	if ecfg.Rate, ecfg.RampTo, err = parseRate(f.rate); err != nil {
		return cfg, ecfg, err
	}
	if ecfg.Rate > 0 {
		cfg.OpenLoop = true
		if !set["n"] && dur == "" {
			return bad("-R needs -n (requests in all) or -d (how long)")
		}
		if !set["c"] {
			ecfg.Clients = 50
		}
	}
	if ecfg.Count > 0 && int64(ecfg.Clients) > ecfg.Count {
		ecfg.Clients = int(ecfg.Count) // as ab, never more clients than requests
	}
	if cfg.Timeout, err = httpSeconds(f.timeout); err != nil || cfg.Timeout <= 0 {
		return bad("-s %s: want a timeout such as 30 (seconds) or 500ms", httpload.Quote(f.timeout))
	}
	cfg.Random = f.random
	cfg.Close = f.close

	// What every request carries. What goes on the wire as written must
	// not break the request: a CR or LF in a value would end the header
	// and start another (header injection), a space in a method or name
	// would garble the request line or the header.
	// A header or cookie given wrong is not quoted: it may hold a secret.
	given := map[string]bool{} // header names given with -H, lower case
	for _, h := range f.headers {
		name, value, ok := strings.Cut(h, ":")
		name = strings.TrimSpace(name)
		if !ok || !flow.ValidToken(name) {
			return bad("-H: want \"Name: value\", e.g. -H \"Accept: application/json\"; the one given has no colon, no name before it, or a name that is not a token (letters, digits and !#$%%&'*+-.^_`|~; no space or control character) (not shown, in case it holds a secret)")
		}
		value = strings.TrimSpace(value)
		if !flow.ValidHeaderValue(value) {
			return bad("-H %s: the value has a control character (such as CR, LF, NUL or DEL; only a tab is allowed), which would break the request on the wire (not shown, in case it holds a secret)", name)
		}
		given[strings.ToLower(name)] = true
		cfg.Headers = append(cfg.Headers, httpload.Header{Name: name, Value: value})
	}
	if len(f.cookies) > 0 {
		if given["cookie"] {
			return bad("-C and -H \"Cookie: ...\" would send two Cookie headers; give every cookie with -C (repeat it), or all in one -H")
		}
		for _, c := range f.cookies {
			if !strings.Contains(c, "=") {
				return bad("-C: want name=value; the cookie given has no = (not shown, in case it holds a secret)")
			}
			if !flow.ValidHeaderValue(c) {
				return bad("-C: the cookie has a control character (such as CR, LF, NUL or DEL; only a tab is allowed), which would break the request on the wire (not shown, in case it holds a secret)")
			}
		}
		cfg.Headers = append(cfg.Headers, httpload.Header{Name: "Cookie", Value: strings.Join(f.cookies, "; ")})
	}
	if f.auth != "" {
		if !strings.Contains(f.auth, ":") {
			return bad("-A: want user:password")
		}
		if given["authorization"] {
			return bad("-A and -H \"Authorization: ...\" would send two Authorization headers; give one of them")
		}
		cfg.Headers = append(cfg.Headers, httpload.Header{Name: "Authorization", Value: "Basic " + base64.StdEncoding.EncodeToString([]byte(f.auth))})
	}
	if !flow.ValidHeaderValue(f.ctype) {
		return bad("-T %s: a Content-Type has no control character (a CR, LF or NUL)", httpload.Quote(f.ctype))
	}
	if f.ctype != "" && given["content-type"] {
		// -H would win, and -T be dropped without a word.
		return bad("-T and -H \"Content-Type: ...\" both give the Content-Type; give one of them")
	}
	if f.method != "" && !flow.ValidToken(f.method) {
		return bad("-m %s: a method is one word of letters, digits and !#$%%&'*+-.^_`|~, such as GET or DELETE; no space or control character", httpload.Quote(f.method))
	}

	// Which responses succeed.
	var exp flow.Expect
	if f.expectStatus != "" {
		for _, s := range strings.Split(f.expectStatus, ",") {
			code, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || code < 100 || code > 599 {
				return bad("--expect-status %s: want status codes such as 200 or 200,302", httpload.Quote(f.expectStatus))
			}
			exp.Status = append(exp.Status, code)
		}
	}
	if f.expectBody != "" {
		re, err := regexp.Compile(f.expectBody)
		if err != nil {
			return bad("--expect-body: %v", err)
		}
		exp.Body = re
	}
	if set["expect-length"] {
		if f.expectLength < 0 {
			return bad("--expect-length %d: want 0 or more bytes", f.expectLength)
		}
		exp.Length, exp.HasLength = f.expectLength, true
	}
	cfg.Expect = exp

	// What to request: a flow, a URL file, URLs.
	if f.postFile != "" && f.putFile != "" {
		return bad("give -p (POST) or -u (PUT), not both")
	}
	if len(f.sets) > 0 && f.flowFile == "" {
		return bad("--set gives a flow's variables; use it with --flow FLOW.yaml")
	}
	if f.flowFile != "" {
		switch {
		case f.urlFile != "":
			return bad("give --flow or -f, not both")
		case f.postFile != "" || f.putFile != "" || f.method != "":
			return bad("-p, -u and -m are for URLs; a flow gives each step's method and body")
		case len(urls) > 1:
			return bad("--flow takes at most one URL, the base its relative URLs join; got %d", len(urls))
		case f.random:
			return bad("--random is for URL lists; a flow runs its steps in order")
		}
		// A step's body that names no Content-Type gets -T's (or
		// -H's, which every step carries), else a form's, as URL files.
		opt := flow.Options{Expect: exp, ContentType: f.ctype}
		for _, h := range cfg.Headers {
			if strings.EqualFold(h.Name, "Content-Type") {
				opt.ContentType = h.Value
			}
		}
		// The values of variables named like secrets stay out of messages.
		var secrets []string
		for _, kv := range f.sets {
			if name, value, ok := strings.Cut(kv, "="); ok && httpload.SecretName(name) {
				secrets = append(secrets, httpload.SecretWords(value)...)
			}
		}
		hide := func(err error) string { return redact.Secrets(httpload.RedactText(err.Error()), secrets) }
		for _, kv := range f.sets {
			st, err := flow.ParseSetting(kv)
			if err != nil {
				return bad("--set %s", hide(err))
			}
			opt.Set = append(opt.Set, st)
		}
		if len(urls) == 1 {
			// The base may carry user:password (sent as basic
			// authentication); everything recorded shows xxxxx instead.
			base, err := httpload.CheckURL(urls[0], true)
			if err != nil {
				return bad("--flow: the base URL %v", err)
			}
			opt.Base = base
		}
		fl, err := flow.ParseFile(f.flowFile, opt)
		if err != nil {
			return bad("%s", hide(err))
		}
		if f.ctype != "" && !slices.ContainsFunc(fl.Steps, func(s flow.Step) bool { return s.DefaultType }) {
			return bad("-T %s: no step of %s sends a body without a Content-Type of its own, so -T would change nothing; a step's Content-Type goes in its headers (or the flow's)", httpload.Quote(f.ctype), f.flowFile)
		}
		cfg.Flow = fl
		return cfg, ecfg, cfg.Validate()
	}
	ctype := f.ctype
	if f.urlFile != "" {
		data, err := os.ReadFile(f.urlFile)
		if err != nil {
			return bad("-f: %v", err)
		}
		dir := filepath.Dir(f.urlFile)
		targets, err := httpload.ParseURLFile(f.urlFile, data, httpload.URLFileOptions{
			ContentType: ctype,
			Getenv:      os.LookupEnv,
			ReadFile: func(name string) ([]byte, error) {
				if !filepath.IsAbs(name) {
					name = filepath.Join(dir, name)
				}
				return os.ReadFile(name)
			},
		})
		if err != nil {
			return bad("%v", err)
		}
		cfg.Targets = targets
	}
	if len(urls) == 0 && len(cfg.Targets) == 0 {
		return bad("no URL: give one or more URLs, -f URLFILE or --flow FLOW.yaml; see kurabe help http")
	}
	var body []byte
	method := "GET"
	if file := f.postFile + f.putFile; file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return bad("-%s: %v", map[bool]string{true: "p", false: "u"}[f.postFile != ""], err)
		}
		body, method = b, "POST"
		if f.putFile != "" {
			method = "PUT"
		}
		if ctype == "" {
			ctype = "text/plain"
		}
	}
	if f.method != "" {
		method = strings.ToUpper(f.method)
	}
	for _, u := range urls {
		if u != "" && strings.Trim(u, "0123456789") == "" {
			return bad("%s is not a URL: a number where a URL belongs follows a flag that takes no value; siege's -r N is -n N×clients here (kurabe's -r is ab's and takes none)", u)
		}
		if !strings.Contains(u, "://") {
			u = "http://" + u
		}
		cfg.Targets = append(cfg.Targets, httpload.Target{Method: method, URL: u, Body: body, ContentType: ctype})
	}
	if f.method != "" {
		for i := range cfg.Targets {
			cfg.Targets[i].Method = method
		}
	}
	if f.ctype != "" && !slices.ContainsFunc(cfg.Targets, func(t httpload.Target) bool { return t.Body != nil }) {
		return bad("-T %s gives the Content-Type of bodies, and no request sends one; give the body with -p FILE (POST) or -u FILE (PUT), or on a URL file's line (URL POST name=value&...)", httpload.Quote(f.ctype))
	}
	return cfg, ecfg, cfg.Validate()
}

// httpSeconds reads a time as ab and siege write it: seconds (30, 1.5), a
// Go duration (30s, 500ms), or siege's 30S, 5M, 1H.
func httpSeconds(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if n := len(s); n > 1 {
		if unit, ok := map[byte]time.Duration{'S': time.Second, 'M': time.Minute, 'H': time.Hour}[s[n-1]]; ok {
			v, err := strconv.ParseFloat(s[:n-1], 64)
			if err != nil || v < 0 || v > 1e6 {
				return 0, errors.New("bad number")
			}
			return time.Duration(v * float64(unit)), nil
		}
	}
	return parseSeconds(s) // 30, 1.5 or 30s, 500ms, as kurabe run's -d
}

// secretVars are the flow's variables sent in secret headers, whatever
// their names.
func secretVars(cfg httpload.Config) []string {
	if cfg.Flow == nil {
		return nil
	}
	return cfg.Flow.HeaderVars(httpload.SecretName)
}

// httpRedact hides credentials in the command line kept in the result:
// the values of -A and -C, of -H headers and --set variables named like
// secrets (httpload.SecretName) or sent in secret headers (secretVars),
// and URL passwords and secret query parameters. args are the arguments
// after joinedFlags.
func httpRedact(args []string, secretVars ...string) []string {
	out := slices.Clone(args)
	for i := 0; i < len(out); i++ {
		a := out[i]
		if a == "--" {
			for j := i + 1; j < len(out); j++ {
				out[j] = httpload.RedactURL(out[j])
			}
			break
		}
		if !strings.HasPrefix(a, "-") {
			out[i] = httpload.RedactURL(a)
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		var hide func(string) string
		switch name {
		case "A", "C":
			hide = func(string) string { return "REDACTED" }
		case "H":
			hide = func(h string) string {
				name, _, ok := strings.Cut(h, ":")
				switch {
				case !ok:
					return "REDACTED" // no name: it may be all secret
				case httpload.SecretName(name):
					return name + ": REDACTED"
				}
				return h
			}
		case "set":
			// A variable named like a secret (password=...) keeps its name.
			hide = func(kv string) string {
				if name, _, ok := strings.Cut(kv, "="); ok && (httpload.SecretName(name) || slices.Contains(secretVars, name)) {
					return name + "=REDACTED"
				}
				return kv
			}
		default:
			continue
		}
		if hasVal {
			out[i] = a[:len(a)-len(val)] + hide(val)
		} else if i+1 < len(out) {
			i++
			out[i] = hide(out[i])
		}
	}
	return out
}

// joinedFlags splits ab's joined short flags, as getopt reads them, so
// that ab command lines paste unchanged: -n10 is -n 10, -HName: v is
// -H "Name: v", -kc10 is -k -c 10. An argument that names a flag of its
// own (-close, -random) or is the value of the flag before it is left.
func joinedFlags(fs *flag.FlagSet, args []string) []string {
	isBool := func(f *flag.Flag) bool {
		b, ok := f.Value.(interface{ IsBoolFlag() bool })
		return ok && b.IsBoolFlag()
	}
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if len(a) < 2 || a[0] != '-' {
			out = append(out, a)
			continue
		}
		long := strings.HasPrefix(a, "--")
		name, _, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if f := fs.Lookup(name); f != nil || long || lowerWord(name) {
			// A flag by its name (-expect-body, --expect-body) takes the
			// next argument as its value whatever it looks like; an
			// unknown --name or -word (-quiet) is left whole for the
			// flag package to name, not split into -q -u iet.
			out = append(out, a)
			if f != nil && !hasVal && !isBool(f) && i+1 < len(args) {
				i++
				out = append(out, args[i]) // the flag's value, whatever it looks like
			}
			continue
		}
		// -kc10: bool flags, then one that takes the rest (or the next
		// argument) as its value.
		var split []string
		valueNext := false
		ok := false
		for k := 1; k < len(a); k++ {
			f := fs.Lookup(a[k : k+1])
			if f == nil {
				break
			}
			split = append(split, "-"+a[k:k+1])
			if !isBool(f) {
				if k+1 < len(a) {
					split = append(split, a[k+1:])
				} else {
					valueNext = true
				}
				ok = true
				break
			}
			ok = k == len(a)-1
		}
		if !ok {
			out = append(out, a) // flag's own error names it
			continue
		}
		out = append(out, split...)
		if valueNext && i+1 < len(args) {
			i++
			out = append(out, args[i])
		}
	}
	return out
}

// lowerWord says whether s is a word of four or more lower-case letters:
// a long flag's name given with one dash, never ab's joined short flags
// (their values are numbers, methods, headers, files with a dot).
func lowerWord(s string) bool {
	if len(s) < 4 {
		return false
	}
	for _, c := range s {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// flagErr is the flag package's error with an undefined flag's name cut
// at its first character that cannot be part of a name: "-XAuthorization:
// Bearer T" must not print the token.
func flagErr(err error) string {
	msg := err.Error()
	const undefined = "flag provided but not defined: "
	if name, ok := strings.CutPrefix(msg, undefined); ok {
		end := strings.IndexFunc(name, func(r rune) bool {
			return !(r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
		})
		if end >= 0 {
			name = name[:end] + "…"
		}
		if len(name) > 40 {
			name = name[:40] + "…"
		}
		return undefined + name + siegeHint(name)
	}
	return msg
}

// toolHints say what ab's and siege's flags that kurabe http does not
// take are called here, or what to do instead: their command lines are
// pasted as often as they are typed.
var toolHints = map[string]string{
	"reps":         "siege's --reps N is -n N×clients here",
	"concurrent":   "siege's --concurrent is -c",
	"time":         "siege's --time is -t (30, 30s, 5M)",
	"delay":        "siege's --delay has no counterpart; kurabe sends without delay, or at a rate with -R",
	"internet":     "siege's --internet is --random",
	"file":         "siege's --file is -f",
	"header":       "siege's --header is -H",
	"benchmark":    "siege's --benchmark is always on",
	"content-type": "siege's --content-type is -T",
	"i":            "ab's -i (HEAD requests) is -m HEAD; siege's -i (internet mode) is --random",
	"g":            "ab's -g (gnuplot data) has no counterpart; --json FILE writes every figure, and kurabe report draws charts",
	"e":            "ab's -e (CSV of percentiles) has no counterpart; --json FILE writes the percentiles, and kurabe report --format csv FILE turns them into CSV",
	"v":            "ab's -v (verbosity) has no counterpart; the report quotes each failure class's first message",
	"X":            "ab's -X (proxy) is not supported; kurabe connects to the server directly",
}

// siegeHint is the hint for an undefined flag, with "; " before it, or "".
func siegeHint(flagName string) string {
	name := strings.TrimLeft(flagName, "-")
	if h, ok := toolHints[name]; ok {
		return "; " + h
	}
	if r, ok := strings.CutPrefix(name, "r"); ok && r != "" && strings.Trim(r, "0123456789") == "" {
		return "; siege's -r N is -n N×clients here (kurabe's -r is ab's and takes no value)"
	}
	return ""
}

// flagGiven reports whether the flag name was on the command line.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}
