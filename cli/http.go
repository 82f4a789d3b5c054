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
	"strconv"
	"strings"
	"time"

	"kurabe/engine"
	"kurabe/flow"
	"kurabe/httpload"
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
	fs.StringVar(&f.ctype, "T", "", "Content-Type of -p and -u bodies (default text/plain, as ab) and of URL file bodies (default application/x-www-form-urlencoded, as siege)")
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
	rest := args
	for {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprint(stdout, httpUsage)
				fs.SetOutput(stdout)
				fs.PrintDefaults()
				return nil
			}
			return usageErr("%v; see kurabe http -h", err)
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
		return usageErr("unknown --format %q; choose from %s", f.format, strings.Join(report.HTTPFormatNames(), ", "))
	}
	if err := report.CheckLang(*lang); err != nil {
		return usageErr("--lang: %v", err)
	}
	if f.jsonOut != "" {
		if err := checkWritableDir(filepath.Dir(f.jsonOut)); err != nil {
			return usageErr("--json %s: %v; choose a writable directory", f.jsonOut, err)
		}
	}
	cfg.UserAgent = "kurabe/" + Version
	w, err := httpload.New(cfg)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	if ecfg.Seed == 0 {
		var b [8]byte
		crand.Read(b[:])
		ecfg.Seed = binary.LittleEndian.Uint64(b[:]) >> 1
	}
	prog := &progress{w: stderr, on: !f.quiet && a.Terminal(stderr)}
	ecfg.Tick = prog.tick("http")

	st := w.Store()
	doc := &result.Document{
		Schema: result.Schema, Kurabe: Version, Command: httpRedact(args), Started: time.Now().UTC(), Seed: ecfg.Seed,
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
	switch h := ph.HTTP; {
	case doc.Interrupted:
		return &ExitError{Code: ExitInterrupted, Err: errors.New("interrupted; the figures cover only the part that ran")}
	case h.Failed > 0:
		return &ExitError{Code: ExitFailed, Err: fmt.Errorf("%d of %d requests failed; the report breaks them down by class", h.Failed, h.Requests)}
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
			return bad("-t %q: want a time such as 30 (seconds), 30s, 500ms or 5M", dur)
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
		return bad("-s %q: want a timeout such as 30 (seconds) or 500ms", f.timeout)
	}
	cfg.Random = f.random
	cfg.Close = f.close

	// What every request carries.
	for _, h := range f.headers {
		name, value, ok := strings.Cut(h, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			return bad("-H %q: want \"Name: value\"", h)
		}
		cfg.Headers = append(cfg.Headers, httpload.Header{Name: name, Value: strings.TrimSpace(value)})
	}
	if len(f.cookies) > 0 {
		for _, c := range f.cookies {
			if !strings.Contains(c, "=") {
				return bad("-C %q: want name=value", c)
			}
		}
		cfg.Headers = append(cfg.Headers, httpload.Header{Name: "Cookie", Value: strings.Join(f.cookies, "; ")})
	}
	if f.auth != "" {
		if !strings.Contains(f.auth, ":") {
			return bad("-A: want user:password")
		}
		cfg.Headers = append(cfg.Headers, httpload.Header{Name: "Authorization", Value: "Basic " + base64.StdEncoding.EncodeToString([]byte(f.auth))})
	}

	// Which responses succeed.
	var exp flow.Expect
	if f.expectStatus != "" {
		for _, s := range strings.Split(f.expectStatus, ",") {
			code, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || code < 100 || code > 599 {
				return bad("--expect-status %q: want status codes such as 200 or 200,302", f.expectStatus)
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
		opt := flow.Options{Expect: exp}
		for _, kv := range f.sets {
			st, err := flow.ParseSetting(kv)
			if err != nil {
				return bad("--set %v", err)
			}
			opt.Set = append(opt.Set, st)
		}
		if len(urls) == 1 {
			opt.Base = urls[0]
		}
		fl, err := flow.ParseFile(f.flowFile, opt)
		if err != nil {
			return bad("%v", err)
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
		return bad("no URL: give one or more URLs, -f URLFILE or --flow FLOW.yaml; see kurabe http -h")
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
	return cfg, ecfg, cfg.Validate()
}

// httpSeconds reads a time as ab and siege write it: seconds (30, 1.5), a
// Go duration (30s, 500ms), or siege's 30S, 5M, 1H.
func httpSeconds(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		if v < 0 || v > 1e9 {
			return 0, errors.New("out of range")
		}
		return time.Duration(v * float64(time.Second)), nil
	}
	if n := len(s); n > 1 {
		if unit, ok := map[byte]time.Duration{'S': time.Second, 'M': time.Minute, 'H': time.Hour}[s[n-1]]; ok {
			v, err := strconv.ParseFloat(s[:n-1], 64)
			if err != nil || v < 0 || v > 1e6 {
				return 0, errors.New("bad number")
			}
			return time.Duration(v * float64(unit)), nil
		}
	}
	return time.ParseDuration(s)
}

// secretName matches --set variables whose values are kept out of the
// result document.
var secretName = regexp.MustCompile(`(?i)pass|secret|token|key|auth|cookie`)

// httpRedact hides credentials in the command line kept in the result.
func httpRedact(args []string) []string {
	out := make([]string, len(args))
	hide := false
	hidden := map[int]string{}
	for i, a := range args {
		out[i] = a
		if h, ok := hidden[i]; ok {
			out[i] = h
			continue
		}
		if hide {
			out[i] = "REDACTED"
			hide = false
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") {
			continue
		}
		secret := name == "A" || name == "C"
		if name == "set" {
			// A variable named like a secret (password=...) keeps its name.
			next := val
			if !hasVal && i+1 < len(args) {
				next = args[i+1]
			}
			if v, _, ok := strings.Cut(next, "="); ok && secretName.MatchString(v) {
				if hasVal {
					out[i] = a[:len(a)-len(val)] + v + "=REDACTED"
				} else {
					hidden[i+1] = v + "=REDACTED"
				}
			}
			continue
		}
		if name == "H" {
			// Only the value of an Authorization or Cookie header is secret.
			next := val
			if !hasVal && i+1 < len(args) {
				next = args[i+1]
			}
			h := strings.ToLower(strings.TrimSpace(next))
			secret = strings.HasPrefix(h, "authorization:") || strings.HasPrefix(h, "cookie:")
		}
		if !secret {
			continue
		}
		if hasVal {
			out[i] = a[:len(a)-len(val)] + "REDACTED"
		} else {
			hide = true
		}
	}
	return out
}
