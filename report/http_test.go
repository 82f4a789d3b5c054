package report

import (
	"bytes"
	"flag"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"kurabe/hist"
	"kurabe/result"
	"kurabe/store"
)

// httpUpdating reports whether -update was given (the flag is defined by
// the package's other golden tests).
func httpUpdating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// httpLat builds a latency from n seeded exponential samples around mean µs.
func httpLat(rng *rand.Rand, n int, meanUS float64, buckets bool) result.Latency {
	r := hist.NewRecorder()
	for range n {
		r.Record(int64(rng.ExpFloat64() * meanUS * 1e3))
	}
	var s hist.Snapshot
	r.AddTo(&s)
	l := result.Summarize(&s)
	if !buckets {
		l.Buckets = nil
	}
	return l
}

// httpURLs is a closed-loop run over two URLs with failures and varying lengths.
func httpURLs() *result.Document {
	rng := rand.New(rand.NewPCG(4, 2))
	h := &result.HTTPStats{
		Mode: "urls", Order: "round-robin", Requests: 10000, Responses: 9990, Failed: 160, Non2xx: 150, KeepAlive: true,
		Status:        []result.StatusCount{{Code: 200, Count: 9840}, {Code: 503, Count: 150}},
		Length:        result.BodyLength{Count: 9990, Min: 58, Max: 1200, Mean: 410.25, Distinct: 37},
		BytesReceived: 5_600_000, BytesSent: 1_100_000, BodyBytes: 4_098_397, Connections: 100, Reconnects: 3, Resent: 2, Server: "nginx/1.22.1",
		Connect: httpLat(rng, 100, 50, false), Processing: httpLat(rng, 9990, 900, false), Waiting: httpLat(rng, 9990, 850, false),
		Total: httpLat(rng, 9990, 900, true), Write: result.Moments{Count: 9990, Mean: 12.5}, Read: result.Moments{Count: 9990, Mean: 3.25},
		TCPConnect: result.Moments{Count: 100, Mean: 44.4},
	}
	h.Connect.Count, h.Connect.Min, h.Connect.P50 = 9990, 0, 0
	for i, u := range []string{"http://127.0.0.1:3001/read_file", "http://127.0.0.1:3001/posts?limit=100"} {
		h.Targets = append(h.Targets, result.HTTPTarget{Name: "GET " + u, Method: "GET", URL: u, Line: i + 2, Requests: 5000, Failed: int64(80 * i * 2),
			Length:  result.BodyLength{Count: 4995, Min: 58 + int64(i)*400, Max: 58 + int64(i)*1142, Mean: 58 + float64(i)*700, Distinct: 1 + i*36},
			Latency: httpLat(rng, 4995, 700+400*float64(i), false)})
	}
	return &result.Document{
		Schema: result.Schema, Kurabe: "0.0.0-test", Seed: 42,
		Run: result.RunConfig{Workload: "http", Clients: 100, Count: 10000},
		Stores: []result.Store{{Label: "http", Info: store.Info{Driver: "http", Target: "http://127.0.0.1:3001"}, Phases: []result.Phase{{
			Op: "2 URLs in turn", Clients: 100, Elapsed: 1.234567, Ops: 9840, OpsPerSec: 7970.5, Errors: 160, ProcessCPU: 0.81,
			ErrorClasses: []result.ErrorClass{{Class: "http 503", Count: 150, First: "GET http://127.0.0.1:3001/read_file: 503 Service Unavailable"},
				{Class: "timeout", Count: 10, First: "GET http://127.0.0.1:3001/posts?limit=100: timeout"}},
			Latency: httpLat(rng, 9840, 880, true), HTTP: h,
		}}}},
	}
}

// httpFlow is an open-loop run of a three-step flow.
func httpFlow() *result.Document {
	rng := rand.New(rand.NewPCG(7, 3))
	h := &result.HTTPStats{
		Mode: "flow", Requests: 3000, Responses: 3000, KeepAlive: true,
		Status:    []result.StatusCount{{Code: 200, Count: 3000}},
		Length:    result.BodyLength{Count: 3000, Min: 11, Max: 9000, Mean: 3010.5, Distinct: 192, MoreThan: true},
		BodyBytes: 9_031_500, BytesReceived: 9_400_000, BytesSent: 420_000, RequestBodyBytes: 30_000, Connections: 8,
		Connect: httpLat(rng, 8, 40, false), Processing: httpLat(rng, 3000, 300, false), Waiting: httpLat(rng, 3000, 280, false),
		Total: httpLat(rng, 3000, 300, true), TCPConnect: result.Moments{Count: 8, Mean: 38.5}, TLS: result.Moments{Count: 8, Mean: 812.5},
		Write: result.Moments{Count: 3000, Mean: 14.5}, Read: result.Moments{Count: 3000, Mean: 6.25},
	}
	for _, s := range []string{"login", "find", "logout"} {
		h.Targets = append(h.Targets, result.HTTPTarget{Name: s, Method: "GET", URL: "https://127.0.0.1:8443/api/" + s, Requests: 1000,
			Length: result.BodyLength{Count: 1000, Min: 11, Max: 11, Mean: 11, Distinct: 1}, Latency: httpLat(rng, 1000, 300, false)})
	}
	lat := httpLat(rng, 1000, 5000, true)
	return &result.Document{
		Schema: result.Schema, Kurabe: "0.0.0-test", Seed: 7,
		Run: result.RunConfig{Workload: "http", Clients: 8, Duration: result.Duration(10 * time.Second), Rate: "100"},
		Stores: []result.Store{{Label: "http", Info: store.Info{Driver: "http", Target: "https://127.0.0.1:8443"}, Phases: []result.Phase{{
			Op: "flow api", Clients: 8, Elapsed: 10.0001, Ops: 1000, OpsPerSec: 99.99, Latency: lat, ProcessCPU: 0.12, HTTP: h,
			OpenLoop: &result.OpenLoop{Rate: 100, Scheduled: 1000, Achieved: 99.99, Late: 12, LateAfterUs: 2000,
				Service: httpLat(rng, 1000, 900, true), Lag: httpLat(rng, 1000, 100, false), Behind: true,
				Note: "the store could not keep up with the rate: operations started late or not at all"},
		}}}},
	}
}

func TestHTTPGolden(t *testing.T) {
	for docName, doc := range map[string]func() *result.Document{"urls": httpURLs, "flow": httpFlow} {
		for name, render := range HTTPFormats {
			for _, lang := range Langs {
				t.Run(docName+"-"+name+"-"+lang, func(t *testing.T) {
					var b bytes.Buffer
					if err := render(&b, lang, doc()); err != nil {
						t.Fatal(err)
					}
					if lang != English && (name == "ab" || name == "siege") {
						// The tools' own layouts stay as the tools print
						// them, for the scripts that read them.
						var en bytes.Buffer
						render(&en, English, doc())
						if b.String() != en.String() {
							t.Errorf("%s in %s differs from English:\n%s", name, lang, b.String())
						}
						return
					}
					path := filepath.Join("testdata", "http-"+docName+"-"+name+".golden")
					if lang != English {
						path = strings.TrimSuffix(path, ".golden") + "." + lang + ".golden"
					}
					if httpUpdating() {
						if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
							t.Fatal(err)
						}
						return
					}
					want, err := os.ReadFile(path)
					if err != nil {
						t.Fatalf("%v (run go test ./report -update to create it)", err)
					}
					if !bytes.Equal(b.Bytes(), want) {
						t.Errorf("%s differs from %s (go test ./report -update rewrites it):\n%s", name, path, b.String())
					}
				})
			}
		}
	}
}

// TestHTTPNumbersAreTheSameInBothLanguages: a Japanese report of a run
// carries the English report's figures, in the same order.
func TestHTTPNumbersAreTheSameInBothLanguages(t *testing.T) {
	num := regexp.MustCompile(`[0-9]+(?:[.,][0-9]+)*`)
	for _, doc := range []func() *result.Document{httpURLs, httpFlow} {
		for _, name := range []string{"full", "text", "markdown"} {
			var en, ja bytes.Buffer
			if err := HTTPFormats[name](&en, English, doc()); err != nil {
				t.Fatal(err)
			}
			if err := HTTPFormats[name](&ja, Japanese, doc()); err != nil {
				t.Fatal(err)
			}
			if en.String() == ja.String() {
				t.Fatalf("%s: the Japanese report is the English one", name)
			}
			a, b := num.FindAllString(en.String(), -1), num.FindAllString(ja.String(), -1)
			if strings.Join(a, " ") != strings.Join(b, " ") {
				t.Errorf("%s: figures differ between the languages:\nen %v\nja %v", name, a, b)
			}
		}
	}
	// One client over one connection is said in the singular.
	one := httpURLs()
	one.Stores[0].Phases[0].Clients, one.Stores[0].Phases[0].HTTP.Connections = 1, 1
	for lang, want := range map[string][]string{English: {" · 1 client · ", "Connections: 1 opened;"}, Japanese: {" · 1 クライアント · ", "接続: 1 本を開きました。"}} {
		var b bytes.Buffer
		if err := HTTPText(&b, lang, one); err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: no %q in\n%s", lang, w, b.String())
			}
		}
	}
	if err := HTTPText(&bytes.Buffer{}, "fr", httpURLs()); err == nil || !strings.Contains(err.Error(), "unknown language") {
		t.Errorf("an unknown language: %v", err)
	}
}

func TestHTTPReportRoundTrip(t *testing.T) {
	// A document written and read back renders the same report.
	path := filepath.Join(t.TempDir(), "r.json")
	doc := httpURLs()
	if err := result.WriteFile(path, doc); err != nil {
		t.Fatal(err)
	}
	back, err := result.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	HTTPFull(&a, English, doc)
	HTTPFull(&b, English, back)
	if a.String() != b.String() {
		t.Fatalf("report changed after a round trip:\n%s\n---\n%s", a.String(), b.String())
	}
}

func TestHTTPReportRefusesOtherDocuments(t *testing.T) {
	d := httpURLs()
	d.Stores[0].Phases[0].HTTP = nil
	if err := HTTPFull(&bytes.Buffer{}, English, d); err == nil || !strings.Contains(err.Error(), "not a kurabe http result") {
		t.Fatalf("got %v", err)
	}
}

// A phase no request measured is said to be so, not printed as zeros:
// here no request got a response.
func TestHTTPNotMeasured(t *testing.T) {
	d := httpURLs()
	p := &d.Stores[0].Phases[0]
	p.Ops, p.Latency = 0, result.Latency{}
	p.HTTP.Responses, p.HTTP.Failed, p.HTTP.Status = 0, p.HTTP.Requests, nil
	h := p.HTTP
	h.Connect, h.Processing, h.Waiting, h.Total = result.Latency{}, result.Latency{}, result.Latency{}, result.Latency{}
	h.Write, h.Read = result.Moments{}, result.Moments{}
	for lang, want := range map[string][]string{
		English:  {"Waiting:    not measured\n", "Total:      not measured\n", "served within a certain time (ms): none, no request succeeded", "write not measured, wait for the first byte not measured, read not measured"},
		Japanese: {"書き込み 未計測、最初のバイトまでの待ち 未計測、読み込み 未計測"},
	} {
		var b bytes.Buffer
		if err := HTTPFull(&b, lang, d); err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: no %q in\n%s", lang, w, b.String())
			}
		}
		if strings.Contains(b.String(), "Waiting:         0.000") {
			t.Errorf("%s: zeros printed as figures:\n%s", lang, b.String())
		}
	}
	if got := HTTPFailedLine(Japanese, 10, 30); got != "30 件中 10 件のリクエストが失敗しました。種類別の内訳は報告にあります" {
		t.Errorf("ja: %q", got)
	}
	if got := HTTPFailedLine(English, 10, 30); got != "10 of 30 requests failed; the report breaks them down by class" {
		t.Errorf("en: %q", got)
	}
}

// An open loop in which no request succeeded says its latencies were not
// measured rather than print zeros, and its BEHIND speaks of the server.
func TestHTTPOpenLoopNotMeasured(t *testing.T) {
	d := httpFlow()
	p := &d.Stores[0].Phases[0]
	if p.OpenLoop == nil {
		t.Fatal("the flow fixture has no open loop")
	}
	p.Ops, p.Latency = 0, result.Latency{}
	p.OpenLoop.Service = result.Latency{}
	for lang, want := range map[string]string{
		English:  "latency from the scheduled start and service time: not measured (no request succeeded)",
		Japanese: "予定開始時刻からのレイテンシとサービス時間: 未計測",
	} {
		var b bytes.Buffer
		if err := HTTPFull(&b, lang, d); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), want) || strings.Contains(b.String(), "p50 0.000 ms") {
			t.Errorf("%s: want %q and no zero percentiles in\n%s", lang, want, b.String())
		}
		if strings.Contains(b.String(), "BEHIND: the store") {
			t.Errorf("%s: BEHIND speaks of a store:\n%s", lang, b.String())
		}
	}
}

// The connect phase kurabe prints is the TCP connect alone, per
// connection opened, the TLS handshake beside it; ab's Connect row holds
// both. A document from before tcp_connect was recorded gets it from
// Connect less the handshakes.
func TestHTTPConnectIsTCPAlone(t *testing.T) {
	for name, tcp := range map[string]result.Moments{"new": {Count: 40, Mean: 78}, "old": {}} {
		h := &result.HTTPStats{Mode: "urls", Requests: 40, Responses: 40, Connections: 40,
			Status:  []result.StatusCount{{Code: 200, Count: 40}},
			Connect: result.Latency{Count: 40, Mean: 875, Min: 800, P50: 870, Max: 990}, TCPConnect: tcp,
			TLS: result.Moments{Count: 40, Mean: 797}, Total: result.Latency{Count: 40, Mean: 1000}}
		d := &result.Document{Schema: result.Schema, Run: result.RunConfig{Workload: "http", Clients: 1, Count: 40},
			Stores: []result.Store{{Label: "http", Phases: []result.Phase{{Op: "GET https://127.0.0.1:8443/", Clients: 1, Elapsed: 1, Ops: 40, HTTP: h}}}}}
		var b bytes.Buffer
		if err := HTTPFull(&b, English, d); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"Connections: 40 opened; TCP connect 78.0 µs per connection (mean of 40); TLS handshake 797.0 µs per handshake (mean of 40)", "Connect:         0.800      0.875"} {
			if !strings.Contains(b.String(), want) {
				t.Errorf("%s: no %q in\n%s", name, want, b.String())
			}
		}
	}
}

// When every client was busy, BEHIND says how many clients the rate needs
// at the latency measured (rate × mean service time), in kurabe http's
// report and under kurabe run's table; without a service time, it says
// only to give more clients.
func TestBehindForWantOfClients(t *testing.T) {
	d := httpFlow()
	p := &d.Stores[0].Phases[0]
	o := p.OpenLoop
	o.Note = result.BehindBusy
	o.Service.Mean = 91_881 // µs: 8 clients carry 87.1/s, 100/s needs 10
	for lang, want := range map[string]string{
		English:  "BEHIND: every client was busy when requests were due: 8 clients at a mean service time of 91.9ms carry at most 87.1/s; give -c 10 or more (100/s × 91.9ms), or a lower rate; if the service time then grows, the server is the limit",
		Japanese: "BEHIND: リクエストの予定時刻に全クライアントが処理中でした: 8 クライアントは平均サービス時間 91.9ms で最大 87.1/秒しか運べません。-c 10 以上 (100/秒 × 91.9ms)",
	} {
		var b bytes.Buffer
		if err := HTTPText(&b, lang, d); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), want) {
			t.Errorf("%s: no %q in\n%s", lang, want, b.String())
		}
	}
	// kurabe run's open loop: the same phase without kurabe http's figures.
	run := *d
	run.Stores = []result.Store{d.Stores[0]}
	rp := *p
	rp.HTTP = nil
	run.Stores[0].Phases = []result.Phase{rp}
	if got := strings.Join(Notes(&run, English), "\n"); !strings.Contains(got, "BEHIND: every client was busy when operations were due: 8 clients at a mean service time of 91.9ms carry at most 87.1/s; give -c 10 or more (100/s × 91.9ms), or a lower rate; if the service time then grows, the store is the limit") {
		t.Errorf("kurabe run's notes:\n%s", got)
	}
	// Clients that carry the rate on average were all busy only at
	// moments: the note says so, not that they carry too little. Before,
	// 50 clients at 6.98ms were said to "carry at most 7,161/s" against
	// 2,000/s asked.
	o.Service.Mean = 1_000 // µs: 8 clients carry 8,000/s, far above 100/s
	var bb bytes.Buffer
	if err := HTTPText(&bb, English, d); err != nil {
		t.Fatal(err)
	}
	if want := "BEHIND: every client was busy when requests were due at moments: 8 clients at a mean service time of 1.00ms carry 8,000/s on average, more than the 100/s asked, so the late starts came from bursts of slow responses that kept every client busy at once; give -c 9 or more to absorb them"; !strings.Contains(bb.String(), want) {
		t.Errorf("no %q in\n%s", want, bb.String())
	}
	o.Service = result.Latency{}
	var b bytes.Buffer
	HTTPText(&b, English, d)
	if !strings.Contains(b.String(), "BEHIND: every client was busy when requests were due: give more clients (-c) or a lower rate") {
		t.Errorf("no service time:\n%s", b.String())
	}
}

// httpAllFailed is a closed-loop run of one URL of which every request
// got a 404: responses timed, no request succeeded.
func httpAllFailed() *result.Document {
	rng := rand.New(rand.NewPCG(9, 1))
	u := "http://127.0.0.1:3001/nope"
	first := "GET " + u + `: 404 Not Found: {"error":"no such path"}`
	h := &result.HTTPStats{
		Mode: "urls", Order: "round-robin", Requests: 200, Responses: 200, Failed: 200, Non2xx: 200, KeepAlive: true,
		Status:        []result.StatusCount{{Code: 404, Count: 200}},
		Length:        result.BodyLength{Count: 200, Min: 145, Max: 145, Mean: 145, Distinct: 1},
		BytesReceived: 50_000, BytesSent: 16_000, BodyBytes: 29_000, Connections: 4,
		Connect: httpLat(rng, 4, 10, false), Processing: httpLat(rng, 200, 140, false), Waiting: httpLat(rng, 200, 90, false),
		Total: httpLat(rng, 200, 140, true), Write: result.Moments{Count: 200, Mean: 42.25}, Read: result.Moments{Count: 200, Mean: 0.75},
		Targets: []result.HTTPTarget{{Name: "GET " + u, Method: "GET", URL: u, Requests: 200, Failed: 200,
			Length: result.BodyLength{Count: 200, Min: 145, Max: 145, Mean: 145, Distinct: 1}, Latency: httpLat(rng, 200, 140, false)}},
	}
	classes := []result.ErrorClass{{Class: "http 404", Count: 200, First: first}}
	return &result.Document{
		Schema: result.Schema, Kurabe: "0.0.0-test", Seed: 3,
		Run: result.RunConfig{Workload: "http", Ops: []string{"GET " + u}, Clients: 4, Count: 200},
		Stores: []result.Store{{Label: "http", Info: store.Info{Driver: "http", Target: "http://127.0.0.1:3001"}, Phases: []result.Phase{{
			Op: "GET " + u, Clients: 4, Elapsed: 0.0123, Errors: 200, ErrorClasses: classes, FinishRatio: 1.89,
			ClientFinish: []float64{0.0108, 0.0073, 0.0124, 0.0066}, ProcessCPU: 0.42, HTTP: h,
			Kinds: []result.Kind{{Name: "GET " + u, Errors: 200, ErrorClasses: classes}},
		}}}},
	}
}

// TestHTTPInHTML: the HTML report of a kurabe http result shows what its
// text format shows beside the common table (before, none of it): the
// status codes, the body lengths, the table per URL or flow step, a
// flow's passes and an open loop's BEHIND; and its heading counts runs in
// the singular where there is one ("1 run", not "1 run(s)").
func TestHTTPInHTML(t *testing.T) {
	for _, c := range []struct {
		name, lang string
		doc        *result.Document
		want       []string
	}{
		{"urls", English, httpURLs(), []string{"<p class=\"muted\">1 run. Each store", "<h3>Per URL</h3>", "<li>Status codes: 200 × 9,840, 503 × 150</li>",
			"<li>Body lengths: varying, 58 to 1,200 bytes", "<li>Failed, http 503: 150; first: GET http://127.0.0.1:3001/read_file: 503 Service Unavailable</li>",
			`<th>url</th><th class="num">requests</th>`, `<td>GET http://127.0.0.1:3001/posts?limit=100</td><td class="num">5,000</td>`}},
		{"flow", English, httpFlow(), []string{"<h3>Per step</h3>", `<th>step</th>`, "<td>login</td>", "<li>Flow: 1,000 passes completed, 0 failed",
			"<li>BEHIND: the server could not keep up with the rate"}},
		{"flow", Japanese, httpFlow(), []string{"1 件の実行。", "<h3>ステップごと</h3>", "<li>ステータスコード: 200 × 3,000</li>", "<li>フロー: 完了 1,000 パス"}},
	} {
		var b bytes.Buffer
		if err := writeHTML(&b, c.lang, nil, []*result.Document{c.doc}); err != nil {
			t.Fatal(err)
		}
		got := htmlText(b.String())
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s %s: no %q in the HTML", c.name, c.lang, w)
			}
		}
		// Each failure and the open loop are said once, in kurabe http's
		// words.
		if n := strings.Count(got, "503 Service Unavailable"); c.name == "urls" && n != 1 {
			t.Errorf("%s: the 503s are said %d times", c.name, n)
		}
		if strings.Contains(got, "open loop: ") {
			t.Errorf("%s %s: the open loop is said twice", c.name, c.lang)
		}
	}
	var two bytes.Buffer
	if err := writeHTML(&two, English, nil, []*result.Document{httpURLs(), httpFlow()}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(two.String(), "<p class=\"muted\">2 runs. Each store") {
		t.Errorf("two runs: no \"2 runs.\" heading")
	}
}

// TestHTTPFlowFailureInJapanese: a flow's failure line names the step in
// the report's language (before: "失敗、login: http 401: 10 件。最初: step
// login (POST …)"), and the header's keep-alive is translated; the
// server's words after it are quoted as they are.
func TestHTTPFlowFailureInJapanese(t *testing.T) {
	d := httpFlow()
	p := &d.Stores[0].Phases[0]
	p.Errors = 10
	p.ErrorClasses = []result.ErrorClass{{Class: "login: http 401", Count: 10, First: "step login (POST https://127.0.0.1:8443/api/login): 401 Unauthorized: bad password"}}
	for lang, want := range map[string][]string{
		English:  {"Failed, login: http 401: 10; first: step login (POST https://127.0.0.1:8443/api/login): 401 Unauthorized: bad password", " · keep-alive · "},
		Japanese: {"失敗、login: http 401: 10 件。最初: ステップ login (POST https://127.0.0.1:8443/api/login): 401 Unauthorized: bad password", " · 接続を再利用 (keep-alive) · "},
	} {
		var b bytes.Buffer
		if err := HTTPText(&b, lang, d); err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: no %q in\n%s", lang, w, b.String())
			}
		}
	}
	// A URL run's message is the request's, with no step to name.
	u := httpURLs()
	u.Stores[0].Phases[0].ErrorClasses[0].First = "step GET: nothing to translate"
	var b bytes.Buffer
	if err := HTTPText(&b, Japanese, u); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "最初: step GET: nothing to translate") {
		t.Errorf("a URL run's message changed:\n%s", b.String())
	}
}

// With one URL, the table per URL showed the URL's own latency record,
// timed a hair apart from the phase's (1.863 ms where the CSV's mean_us
// is 1863.95; 14.949 ms where its max_us reads 15.0ms): the same run's
// figures disagreed between formats. The table rounds the phase's
// figures, the ones the CSV and JSON carry.
func TestHTTPOneURLTableRoundsTheCSVFigures(t *testing.T) {
	d := httpURLs()
	p := &d.Stores[0].Phases[0]
	h := p.HTTP
	h.Targets = h.Targets[:1]
	h.Targets[0].Requests, h.Targets[0].Failed = p.Ops+p.Errors, p.Errors
	p.Op = h.Targets[0].Name
	// The URL's record: as many requests, timed apart.
	h.Targets[0].Latency = httpLat(rand.New(rand.NewPCG(9, 9)), int(p.Latency.Count), 900, false)
	var csv bytes.Buffer
	if err := CSV(&csv, d); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(csv.String()), "\n")
	head, row := strings.Split(lines[0], ","), strings.Split(lines[1], ",")
	csvMS := func(col string) string {
		i := slices.Index(head, col)
		v, err := strconv.ParseFloat(row[i], 64)
		if err != nil {
			t.Fatalf("CSV %s %q: %v", col, row[i], err)
		}
		return httpMS(v)
	}
	want := []string{csvMS("mean_us"), csvMS("p50_us"), csvMS("p90_us"), csvMS("p99_us"), csvMS("max_us")}
	for name, write := range map[string]func(io.Writer, string, *result.Document) error{"text": HTTPText, "markdown": HTTPMarkdown} {
		var b bytes.Buffer
		if err := write(&b, English, d); err != nil {
			t.Fatal(err)
		}
		cells := regexp.MustCompile(`(?m)^\|? ?GET \S+ .*$`).FindString(b.String())
		got := regexp.MustCompile(`\d+\.\d{3}`).FindAllString(cells, -1)
		if !slices.Equal(got, want) {
			t.Errorf("%s: the URL's row has mean, p50, p90, p99, max %v; the CSV %v:\n%s", name, got, want, b.String())
		}
	}
}

// The open-loop lines wrote their counts bare (1395 started late, 2603
// never started) beside grouped rates: every count is grouped, in both
// languages, in kurabe http's lines and in the notes under a table.
func TestOpenLoopCountsGrouped(t *testing.T) {
	d := httpFlow()
	o := d.Stores[0].Phases[0].OpenLoop
	o.Scheduled, o.Late, o.NotStarted = 20_000, 1395, 2603
	for _, lang := range []string{English, Japanese} {
		var b bytes.Buffer
		if err := HTTPText(&b, lang, d); err != nil {
			t.Fatal(err)
		}
		run := httpFlow()
		run.Run.Workload, run.Stores[0].Phases[0].HTTP = "bbs", nil
		ro := run.Stores[0].Phases[0].OpenLoop
		ro.Late, ro.NotStarted = 1395, 2603
		if err := WriteTables(&b, "text", lang, run); err != nil {
			t.Fatal(err)
		}
		for _, n := range []string{"20,000", "1,395", "2,603"} {
			if !strings.Contains(b.String(), n) {
				t.Errorf("%s: %s not grouped in:\n%s", lang, n, b.String())
			}
		}
		if regexp.MustCompile(`\b(20000|1395|2603)\b`).MatchString(b.String()) {
			t.Errorf("%s: a count not grouped:\n%s", lang, b.String())
		}
	}
}

// kurabe http's own lines and tables wrote their counts bare (a step's
// 1000 requests, 200 × 3000, 1000 passes completed, bodies of 11 to 9000
// bytes) where the rest of kurabe groups them (numfmt): every figure of
// four digits or more is grouped, in both languages, in the text and
// Markdown reports and in the full report's part after ab's and siege's
// fields, which keep those tools' plain numbers for the scripts that read
// them. The summary line echoes the flags as given (n=, seed), as kurabe
// run's does, and is left out.
func TestHTTPCountsGrouped(t *testing.T) {
	bare := regexp.MustCompile(`(^|[^0-9.,:=])[0-9]{4,}`)
	for docName, doc := range map[string]func() *result.Document{"urls": httpURLs, "flow": func() *result.Document {
		d := httpFlow()
		h := d.Stores[0].Phases[0].HTTP
		h.Connections, h.TCPConnect.Count, h.TLS.Count, h.Reconnects, h.Resent = 1200, 1200, 1200, 1500, 1100
		h.Targets[1].Failed = 2500
		h.Targets[1].Length = result.BodyLength{Count: 1000, Min: 1024, Max: 65536, Mean: 4096, Distinct: 1500}
		h.Status = append(h.Status, result.StatusCount{Code: 503, Count: 2500})
		p := &d.Stores[0].Phases[0]
		p.Ops, p.Errors, p.OpsPerSec = 12_000, 2500, 1200.5
		p.ErrorClasses = []result.ErrorClass{{Class: "http-503", Count: 2500, First: "step find (GET …): 503"}}
		return d
	}} {
		for _, name := range []string{"text", "markdown", "full"} {
			for _, lang := range Langs {
				var b bytes.Buffer
				if err := HTTPFormats[name](&b, lang, doc()); err != nil {
					t.Fatal(err)
				}
				out := b.String()
				if name == "full" {
					_, out, _ = strings.Cut(out, "Shortest transaction")
					_, out, _ = strings.Cut(out, "\n")
				} else {
					_, out, _ = strings.Cut(out, "\n")
				}
				for _, line := range strings.Split(out, "\n") {
					if bare.MatchString(line) {
						t.Errorf("%s %s %s: a figure not grouped in %q", docName, name, lang, line)
					}
				}
				if docName == "flow" && !strings.Contains(out, "1,000") {
					t.Errorf("%s %s: no 1,000 (a step's requests) in:\n%s", name, lang, out)
				}
			}
		}
	}
	for _, lang := range Langs {
		if s := HTTPFailedLine(lang, 2500, 12_000) + HTTPResentLine(lang, 1100); bare.MatchString(s) {
			t.Errorf("%s: exit lines not grouped: %q", lang, s)
		}
	}
}
