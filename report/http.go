package report

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"kurabe/numfmt"
	"kurabe/result"
)

// HTTPFormats lists the reports of kurabe http by name. full carries ab's
// and siege's fields and kurabe's own; ab and siege print only theirs, in
// their layout, so scripts that read those tools' output keep working;
// text and markdown are a table per URL or flow step.
//
// Times are printed to the microsecond (ms with three decimals, seconds
// with six) where ab prints whole milliseconds and siege hundredths of a
// second.
//
// lang is the language of kurabe's own lines and of the tables (English
// or Japanese); ab's and siege's fields stay in English, as those tools
// print them, in every format.
var HTTPFormats = map[string]func(w io.Writer, lang string, d *result.Document) error{
	"full":     HTTPFull,
	"ab":       HTTPAb,
	"siege":    HTTPSiege,
	"text":     HTTPText,
	"markdown": HTTPMarkdown,
}

// HTTPFormatNames returns the format names, sorted.
func HTTPFormatNames() []string { return slices.Sorted(maps.Keys(HTTPFormats)) }

// httpRun is the one phase of a kurabe http document, with what its
// reports derive from it.
type httpRun struct {
	d       *result.Document
	p       *result.Phase
	h       *result.HTTPStats
	elapsed float64 // seconds
	ok      int64   // successful requests
	l       tr      // the language of kurabe's own lines
}

func httpPhase(d *result.Document) (*httpRun, error) {
	if len(d.Stores) != 1 || len(d.Stores[0].Phases) != 1 || d.Stores[0].Phases[0].HTTP == nil {
		return nil, errors.New("not a kurabe http result: it needs one phase with HTTP figures")
	}
	p := &d.Stores[0].Phases[0]
	return &httpRun{d: d, p: p, h: p.HTTP, elapsed: p.Elapsed, ok: p.HTTP.Requests - p.HTTP.Failed}, nil
}

func (r *httpRun) perSec(x float64) float64 {
	if r.elapsed <= 0 {
		return 0
	}
	return x / r.elapsed
}

// httpMS formats µs as milliseconds with µs resolution.
func httpMS(us float64) string { return strconv.FormatFloat(us/1e3, 'f', 3, 64) }

// httpSecs formats µs as seconds with µs resolution.
func httpSecs(us float64) string { return strconv.FormatFloat(us/1e6, 'f', 6, 64) }

func httpF2(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }

// httpG2 is httpF2 with its whole part grouped (1,234.50), for kurabe's
// own lines and tables; ab's and siege's fields keep their tools' plain
// numbers (httpF2), which scripts read.
func httpG2(x float64) string {
	s := httpF2(x)
	whole, frac, _ := strings.Cut(s, ".")
	neg := strings.HasPrefix(whole, "-")
	whole = group(strings.TrimPrefix(whole, "-"))
	if neg {
		whole = "-" + whole
	}
	return whole + "." + frac
}

// plain writes a count as ab and siege do, without separators.
func plain(n int64) string { return strconv.FormatInt(n, 10) }

// httpLines writes "Label:   value" lines with the values in one column.
type httpLines struct {
	b     *strings.Builder
	width int
}

func (l httpLines) add(label, format string, args ...any) {
	fmt.Fprintf(l.b, "%-*s%s\n", l.width, label+":", fmt.Sprintf(format, args...))
}

// summary is the line that says what ran.
func (r *httpRun) summary() string {
	d := r.d
	l := r.l
	what := []string{"kurabe " + d.Kurabe + " http", r.p.Op, l.count(r.p.Clients, "http.client", "http.clients")}
	if d.Run.Count > 0 {
		unit := "http.n.requests"
		if r.h.Mode == "flow" {
			unit = "http.n.passes"
		}
		what = append(what, l.f(unit, d.Run.Count))
	} else {
		what = append(what, l.f("http.duration", time.Duration(d.Run.Duration).String()))
	}
	if d.Run.Rate != "" {
		what = append(what, l.f("http.rate", d.Run.Rate))
	}
	if r.h.Order != "" {
		what = append(what, l.t(r.h.Order))
	}
	if r.h.KeepAlive {
		what = append(what, l.t("keep-alive"))
	} else {
		what = append(what, l.t("a connection per request"))
	}
	what = append(what, l.t("seed")+" "+strconv.FormatUint(d.Seed, 10))
	s := strings.Join(what, " · ") + "\n"
	if d.Interrupted {
		s += l.t("INTERRUPTED") + "\n"
	}
	return s
}

// count is "1 thing" (key one) or "n things" (key many, formatted with n).
func (l tr) count(n int, one, many string) string {
	if n == 1 {
		return l.t(one)
	}
	return l.f(many, n)
}

// lengthText says what the body lengths were, in language tl (ab's
// Document Length field is always English, with ab's plain numbers: ab
// is true; kurabe's own lines group them, 9,000 bytes).
func lengthText(tl tr, l result.BodyLength, ab bool) string {
	n, f2 := numfmt.Group, httpG2
	if ab {
		n, f2 = plain, httpF2
	}
	switch {
	case l.Count == 0:
		return tl.t("no responses")
	case l.Min == l.Max:
		return tl.f("http.bytes", n(l.Min))
	}
	distinct := tl.f("http.distinct", n(int64(l.Distinct)))
	if l.MoreThan {
		distinct = tl.f("http.distinct.more", n(int64(l.Distinct)))
	}
	if l.Distinct == 0 {
		distinct = tl.t("distinct not tracked")
	}
	return tl.f("http.varying", n(l.Min), n(l.Max), f2(l.Mean), distinct)
}

func (r *httpRun) classes() string {
	var parts []string
	for _, c := range r.p.ErrorClasses {
		parts = append(parts, fmt.Sprintf("%s: %d", c.Class, c.Count))
	}
	return strings.Join(parts, ", ")
}

// ab writes ab's fields.
func (r *httpRun) ab(b *strings.Builder) {
	h := r.h
	l := httpLines{b, 24}
	if len(h.Targets) == 1 && h.Mode == "urls" {
		if u, err := url.Parse(h.Targets[0].URL); err == nil {
			if h.Server != "" {
				l.add("Server Software", "%s", h.Server)
			}
			l.add("Server Hostname", "%s", u.Hostname())
			port := u.Port()
			if port == "" {
				port = map[bool]string{true: "443", false: "80"}[u.Scheme == "https"]
			}
			l.add("Server Port", "%s", port)
			path := u.RequestURI()
			l.add("Document Path", "%s", path)
		}
	} else if h.Server != "" {
		l.add("Server Software", "%s", h.Server)
	}
	l.add("Document Length", "%s", lengthText(English, h.Length, true))
	b.WriteString("\n")
	l.add("Concurrency Level", "%d", r.p.Clients)
	l.add("Time taken for tests", "%s seconds", strconv.FormatFloat(r.elapsed, 'f', 6, 64))
	l.add("Complete requests", "%d", h.Requests)
	if h.Failed > 0 {
		l.add("Failed requests", "%d (%s)", h.Failed, r.classes())
	} else {
		l.add("Failed requests", "0")
	}
	if h.Non2xx > 0 {
		l.add("Non-2xx responses", "%d", h.Non2xx)
	}
	l.add("Total transferred", "%d bytes", h.BytesReceived)
	if h.RequestBodyBytes > 0 {
		l.add("Total body sent", "%d", h.RequestBodyBytes)
	}
	l.add("HTML transferred", "%d bytes", h.BodyBytes)
	l.add("Requests per second", "%s [#/sec] (mean, successful requests)", httpF2(r.perSec(float64(r.ok))))
	if h.Requests > 0 {
		per := r.elapsed * 1e6 / float64(h.Requests)
		l.add("Time per request", "%s [ms] (mean)", httpMS(per*float64(r.p.Clients)))
		l.add("Time per request", "%s [ms] (mean, across all concurrent requests)", httpMS(per))
	}
	l.add("Transfer rate", "%s [Kbytes/sec] received", httpF2(r.perSec(float64(h.BytesReceived)/1024)))
	if h.RequestBodyBytes > 0 {
		fmt.Fprintf(b, "%24s%s kb/s sent\n", "", httpF2(r.perSec(float64(h.BytesSent)/1024)))
		fmt.Fprintf(b, "%24s%s kb/s total\n", "", httpF2(r.perSec(float64(h.BytesSent+h.BytesReceived)/1024)))
	}

	b.WriteString("\nConnection Times (ms, µs resolution)\n")
	fmt.Fprintf(b, "%-12s%10s %10s %9s %10s %10s\n", "", "min", "mean", "[+/-sd]", "median", "max")
	for _, row := range []struct {
		name string
		l    result.Latency
	}{{"Connect:", h.Connect}, {"Processing:", h.Processing}, {"Waiting:", h.Waiting}, {"Total:", h.Total}} {
		if row.l.Count == 0 {
			// No request measured this phase (none got a response):
			// zeros would read as figures.
			fmt.Fprintf(b, "%-12s%10s\n", row.name, "not measured")
			continue
		}
		fmt.Fprintf(b, "%-12s%10s %10s %9s %10s %10s\n", row.name, httpMS(row.l.Min), httpMS(row.l.Mean), httpMS(row.l.StdDev), httpMS(row.l.P50), httpMS(row.l.Max))
	}

	lat := r.p.Latency
	what, longest := "successful requests", "request"
	if h.Mode == "flow" {
		what, longest = "successful passes through the flow", "pass"
	}
	if lat.Count == 0 {
		fmt.Fprintf(b, "\nPercentage of the %s served within a certain time (ms): none, no %s succeeded\n", what, longest)
		return
	}
	if o := r.p.OpenLoop; o != nil {
		fmt.Fprintf(b, "\nPercentage of the %s served within a certain time (ms)\n", what)
		fmt.Fprintf(b, "%8s  %12s  %12s\n", "", "from the", "service time,")
		fmt.Fprintf(b, "%8s  %12s  %12s\n", "", "scheduled", "from the")
		fmt.Fprintf(b, "%8s  %12s  %12s\n", "", "start", "actual start")
		for _, q := range httpQuantiles {
			fmt.Fprintf(b, "%8s  %12s  %12s%s\n", q.name, httpMS(httpQuantile(lat, q.q)), httpMS(httpQuantile(o.Service, q.q)), httpNote(q.q, longest))
		}
		return
	}
	fmt.Fprintf(b, "\nPercentage of the %s served within a certain time (ms)\n", what)
	for _, q := range httpQuantiles {
		fmt.Fprintf(b, "%8s  %12s%s\n", q.name, httpMS(httpQuantile(lat, q.q)), httpNote(q.q, longest))
	}
}

var httpQuantiles = []struct {
	name string
	q    float64
}{
	{"50%", 0.5}, {"66%", 0.66}, {"75%", 0.75}, {"80%", 0.8}, {"90%", 0.9},
	{"95%", 0.95}, {"98%", 0.98}, {"99%", 0.99}, {"99.9%", 0.999}, {"100%", 1},
}

func httpNote(q float64, what string) string {
	if q >= 1 {
		return " (longest " + what + ")"
	}
	return ""
}

// httpQuantile reads any quantile from a latency's histogram buckets.
func httpQuantile(l result.Latency, q float64) float64 {
	if l.Count == 0 {
		return 0
	}
	if q >= 1 {
		return l.Max
	}
	if len(l.Buckets) == 0 {
		switch q {
		case 0.5:
			return l.P50
		case 0.9:
			return l.P90
		case 0.95:
			return l.P95
		case 0.99:
			return l.P99
		case 0.999:
			return l.P999
		}
		return 0
	}
	return float64(int64(l.Histogram().Quantile(q))) / 1e3
}

// siege writes siege's fields.
func (r *httpRun) siege(b *strings.Builder) {
	h := r.h
	l := httpLines{b, 31}
	const mb = 1 << 20
	availability := 100.0
	if h.Requests > 0 {
		availability = float64(r.ok) / float64(h.Requests) * 100
	}
	l.add("Transactions", "%d hits", h.Responses)
	l.add("Availability", "%s %%", httpF2(availability))
	l.add("Elapsed time", "%s secs", strconv.FormatFloat(r.elapsed, 'f', 6, 64))
	l.add("Data transferred", "%s MB", httpF2(float64(h.BodyBytes)/mb))
	l.add("Response time", "%s secs", httpSecs(h.Total.Mean))
	l.add("Transaction rate", "%s trans/sec", httpF2(r.perSec(float64(h.Responses))))
	l.add("Throughput", "%s MB/sec", httpF2(r.perSec(float64(h.BodyBytes)/mb)))
	l.add("Concurrency", "%s", httpF2(r.perSec(float64(h.Total.SumNs)/1e9)))
	l.add("Successful transactions", "%d", r.ok)
	if h.Failed > 0 {
		// The classes, as ab's Failed requests has them: the line
		// kurabe http ends with points to them, in every format.
		l.add("Failed transactions", "%d (%s)", h.Failed, r.classes())
	} else {
		l.add("Failed transactions", "0")
	}
	l.add("Longest transaction", "%s", httpSecs(h.Total.Max))
	l.add("Shortest transaction", "%s", httpSecs(h.Total.Min))
}

// notes are kurabe's own lines: statuses, failures by class, lengths,
// phases, the open loop, the flow and kurabe's CPU.
func (r *httpRun) notes(b *strings.Builder) {
	h, p := r.h, r.p
	l := r.l
	var st []string
	for _, s := range h.Status {
		code := strconv.Itoa(s.Code)
		if s.Code == 0 {
			code = l.t("other")
		}
		st = append(st, code+" × "+numfmt.Group(s.Count))
	}
	if len(st) == 0 {
		st = []string{l.t("none")}
	}
	b.WriteString(l.f("http.status", strings.Join(st, ", ")))
	b.WriteString(l.f("http.lengths", lengthText(l, h.Length, false)))
	if h.Length.Min != h.Length.Max {
		b.WriteString(r.lengthsNote())
	}
	b.WriteString("\n")
	for _, c := range p.ErrorClasses {
		b.WriteString(l.f("http.failed", c.Class, numfmt.Group(c.Count), r.firstError(c.First)) + "\n")
	}
	if h.Resent > 0 {
		b.WriteString(l.f("http.resent", numfmt.Group(h.Resent), numfmt.Group(h.Requests+h.Resent)) + "\n")
	}
	b.WriteString(l.f("http.per-request", r.phase(uint64(h.Write.Count), h.Write.Mean), r.phase(h.Waiting.Count, h.Waiting.Mean), r.phase(uint64(h.Read.Count), h.Read.Mean)) + "\n")
	b.WriteString(r.connections() + "\n")
	if h.Reconnects > 0 {
		b.WriteString(l.f("http.reconnects", numfmt.Group(h.Reconnects)) + "\n")
	}
	if h.Mode == "flow" && p.Latency.Count == 0 {
		b.WriteString(l.f("http.flow.none", numfmt.Group(p.Ops), numfmt.Group(p.Errors)) + "\n")
	} else if h.Mode == "flow" {
		b.WriteString(l.f("http.flow", numfmt.Group(p.Ops), numfmt.Group(p.Errors), httpG2(p.OpsPerSec), httpMS(p.Latency.Mean), httpMS(p.Latency.P50), httpMS(p.Latency.P99), httpMS(p.Latency.Max)) + "\n")
	}
	if o := p.OpenLoop; o != nil {
		b.WriteString(l.f("http.openloop", numfmt.Group(o.Scheduled), httpG2(o.MeanRate()), httpG2(o.Achieved), numfmt.Group(o.Late), httpMS(o.LateAfterUs), httpMS(o.Lag.P99)) + "\n")
		if o.NotStarted > 0 {
			b.WriteString(l.f("http.notstarted", numfmt.Group(o.NotStarted)) + "\n")
		}
		if p.Latency.Count > 0 {
			b.WriteString("  " + l.f("http.openloop.corrected", httpMS(p.Latency.P50), httpMS(p.Latency.P99), httpMS(p.Latency.Max)) + "\n")
			b.WriteString("  " + l.f("http.openloop.service", httpMS(o.Service.P50), httpMS(o.Service.P99), httpMS(o.Service.Max)) + "\n")
		} else {
			b.WriteString("  " + l.t("http.openloop.none") + "\n")
		}
		if o.Behind {
			// The engine speaks of stores; here the store is the server.
			note := behindNote(l, o, p.Clients, "behind.busy.requests", "the server")
			switch o.Note {
			case result.BehindStore:
				note = l.t("http.behind.server")
			case result.BehindTimer:
				note = l.t("http.behind.timer")
			}
			fmt.Fprintf(b, "  BEHIND: %s\n", note)
		}
	}
	b.WriteString(l.f("http.cpu", httpF2(p.ProcessCPU)) + "\n")
}

// lengthsNote says whether varying body lengths are failures: not
// unless asked, with --expect-length N those of another length are, and
// so are those a flow step's expect length refused.
func (r *httpRun) lengthsNote() string {
	l := r.l
	if n, ok := r.d.Run.Params["expect_length"]; ok {
		return l.f("http.lengths.failure", n)
	}
	for _, c := range r.p.ErrorClasses {
		if c.Class == "expect-length" || strings.HasSuffix(c.Class, ": expect-length") {
			return l.t("http.lengths.step-failure")
		}
	}
	return l.t("http.lengths.not-failure")
}

// firstError is a class's first message with a flow step's label in the
// report's language: httpload names the step ("step login (POST …): …")
// in English, as every error message is; the rest is quoted as it is.
func (r *httpRun) firstError(msg string) string {
	if rest, ok := strings.CutPrefix(msg, "step "); ok && r.h.Mode == "flow" {
		return r.l.t("step") + " " + rest
	}
	return msg
}

// connections says how many connections were opened and what opening
// one took: the mean TCP connect per connection (and TLS handshake per
// handshake), not per request, where the kept-alive requests' zeros would
// make it read as nothing (a mean over requests is ab's Connect row).
// The count beside each mean is how many it is over: results written
// before kurabe timed the connects of requests that then failed measured
// fewer than were opened.
func (r *httpRun) connections() string {
	h, l := r.h, r.l
	if h.Connections == 0 {
		return l.t("http.connections.none")
	}
	s := l.f("http.connections.opened", numfmt.Group(h.Connections))
	switch {
	case h.TCPConnect.Count > 0:
		s += l.f("http.connect", httpUS(h.TCPConnect.Mean), numfmt.Group(h.TCPConnect.Count))
	case h.Connect.Count > 0 && h.Connect.Mean > 0:
		// A result from before tcp_connect was recorded: ab's Connect
		// (a mean over requests, the kept-alive ones' zeros included)
		// less the handshakes, shared over the connections opened.
		n := min(h.Connections, int64(h.Connect.Count))
		sum := h.Connect.Mean*float64(h.Connect.Count) - h.TLS.Mean*float64(h.TLS.Count)
		s += l.f("http.connect", httpUS(max(sum, 0)/float64(n)), numfmt.Group(n))
	default:
		s += l.t("http.connect.none")
	}
	if h.TLS.Count > 0 {
		s += l.f("http.tls", httpUS(h.TLS.Mean), numfmt.Group(h.TLS.Count))
	}
	return s
}

func httpUS(us float64) string { return strconv.FormatFloat(us, 'f', 1, 64) }

// phase is a phase's mean in µs, or "not measured" when no request
// measured it: a zero there would read as a figure.
func (r *httpRun) phase(count uint64, mean float64) string {
	if count == 0 {
		return r.l.t("not measured")
	}
	return httpUS(mean)
}

// HTTPFailedLine is the line kurabe http ends with when requests failed,
// in lang (English for an unknown one).
func HTTPFailedLine(lang string, failed, requests int64) string {
	return tr(lang).f("http.exit.failed", numfmt.Group(failed), numfmt.Group(requests))
}

// HTTPResentLine is the line kurabe http ends with when requests were
// sent twice (result.HTTPStats.Resent).
func HTTPResentLine(lang string, resent int64) string {
	return tr(lang).f("http.exit.resent", numfmt.Group(resent))
}

// HTTPInterruptedLine is the line kurabe http ends with when interrupted.
func HTTPInterruptedLine(lang string) string { return tr(lang).t("http.exit.interrupted") }

// targetRows is one row per URL or step, for the tables.
func (r *httpRun) targetRows() (header []string, rows [][]string) {
	l := r.l
	first := l.t("url")
	if r.h.Mode == "flow" {
		first = l.t("step")
	}
	// The latency columns are in ms, as ab's; the unit is in each heading
	// since a bare 0.852 could be seconds or µs as well.
	ms := func(s string) string { return s + " (ms)" }
	header = []string{first, l.t("requests"), "req/s", l.t("failed"), ms(l.t("mean")), ms("p50"), ms("p90"), ms("p99"), ms(l.t("max")), l.t("body bytes")}
	for _, t := range r.h.Targets {
		lat := t.Latency
		if len(r.h.Targets) == 1 && r.h.Mode != "flow" && r.p.Latency.Count == lat.Count {
			// One URL's requests are the phase's operations: show the
			// phase's latency, the figures the CSV and JSON carry, so
			// the table rounds the same values (the URL's own record
			// is timed a hair apart, around the request alone).
			lat = r.p.Latency
		}
		// A row's latency is over its successful requests (as the
		// percentiles of the whole run are): a URL whose every request
		// failed, or a step that never ran, has none, shown as "-"
		// rather than as zeros or as the failures' times.
		val := func(v float64) string {
			if lat.Count == 0 {
				return "-"
			}
			return httpMS(v)
		}
		pct := func(v float64) string {
			if len(r.h.Targets) > 1 && lat.P50 == 0 && lat.Count > 0 {
				return "-" // no histogram kept for this many targets
			}
			return val(v)
		}
		length := lengthText(l, t.Length, false)
		if t.Length.Count > 0 && t.Length.Min != t.Length.Max {
			length = numfmt.Group(t.Length.Min) + "-" + numfmt.Group(t.Length.Max)
		}
		rows = append(rows, []string{t.Name, numfmt.Group(t.Requests), httpG2(r.perSec(float64(t.Requests - t.Failed))),
			numfmt.Group(t.Failed), val(lat.Mean), pct(lat.P50), pct(lat.P90), pct(lat.P99), val(lat.Max), length})
	}
	return header, rows
}

func httpTable(b *strings.Builder, header []string, rows [][]string) {
	width := make([]int, len(header))
	for _, r := range append([][]string{header}, rows...) {
		for i, c := range r {
			width[i] = max(width[i], displayWidth(c))
		}
	}
	for _, r := range append([][]string{header}, rows...) {
		for i, c := range r {
			pad := strings.Repeat(" ", width[i]-displayWidth(c))
			switch {
			case i == 0:
				b.WriteString(c + pad)
			case i == len(r)-1:
				b.WriteString("  " + c)
			default:
				b.WriteString("  " + pad + c)
			}
		}
		b.WriteString("\n")
	}
}

func httpWrite(w io.Writer, lang string, d *result.Document, body func(*httpRun, *strings.Builder)) error {
	if err := CheckLang(lang); err != nil {
		return err
	}
	r, err := httpPhase(d)
	if err != nil {
		return err
	}
	r.l = tr(lang)
	var b strings.Builder
	body(r, &b)
	_, err = io.WriteString(w, b.String())
	return err
}

// HTTPFull writes ab's fields, siege's, the table per URL or step when
// there are several, and kurabe's own lines.
func HTTPFull(w io.Writer, lang string, d *result.Document) error {
	return httpWrite(w, lang, d, func(r *httpRun, b *strings.Builder) {
		b.WriteString(r.summary() + "\n")
		r.ab(b)
		b.WriteString("\n")
		r.siege(b)
		b.WriteString("\n")
		if len(r.h.Targets) > 1 || r.h.Mode == "flow" {
			header, rows := r.targetRows()
			httpTable(b, header, rows)
			b.WriteString("\n")
		}
		r.notes(b)
	})
}

// HTTPAb writes ab's fields in ab's layout, in English whatever lang is.
func HTTPAb(w io.Writer, lang string, d *result.Document) error {
	return httpWrite(w, lang, d, func(r *httpRun, b *strings.Builder) { r.ab(b) })
}

// HTTPSiege writes siege's fields in siege's layout, in English whatever
// lang is.
func HTTPSiege(w io.Writer, lang string, d *result.Document) error {
	return httpWrite(w, lang, d, func(r *httpRun, b *strings.Builder) { r.siege(b) })
}

// HTTPText writes a table per URL or step, and kurabe's lines.
func HTTPText(w io.Writer, lang string, d *result.Document) error {
	return httpWrite(w, lang, d, func(r *httpRun, b *strings.Builder) {
		b.WriteString(r.summary() + "\n")
		header, rows := r.targetRows()
		httpTable(b, header, rows)
		b.WriteString("\n")
		r.notes(b)
	})
}

// HTTPMarkdown writes the same as HTTPText as Markdown.
func HTTPMarkdown(w io.Writer, lang string, d *result.Document) error {
	return httpWrite(w, lang, d, func(r *httpRun, b *strings.Builder) {
		b.WriteString(strings.TrimSuffix(r.summary(), "\n") + "\n\n")
		header, rows := r.targetRows()
		line := func(cells []string) {
			b.WriteString("|")
			for _, c := range cells {
				b.WriteString(" " + strings.ReplaceAll(c, "|", "\\|") + " |")
			}
			b.WriteString("\n")
		}
		line(header)
		b.WriteString("|---|" + strings.Repeat("---:|", len(header)-2) + "---|\n")
		for _, row := range rows {
			line(row)
		}
		b.WriteString("\n")
		var notes strings.Builder
		r.notes(&notes)
		for _, n := range strings.Split(strings.TrimSuffix(notes.String(), "\n"), "\n") {
			// An indented line continues the note above it (the open
			// loop's latencies, its BEHIND): a bullet under that note's.
			indent := ""
			if strings.HasPrefix(n, "  ") {
				indent = "  "
			}
			b.WriteString(indent + "- " + strings.TrimSpace(n) + "\n")
		}
	})
}
