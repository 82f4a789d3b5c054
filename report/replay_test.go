package report

import (
	"bytes"
	"encoding/csv"
	"slices"
	"strings"
	"testing"

	"kurabe/result"
)

// replayNotesDoc is a replay of one log on three stores, between them
// every line kurabe replay writes under its table: a store that could not
// keep the log's pace (BEHIND) with a line of the log it could not read
// and a fingerprint that never succeeded; one that kept it, over --clients
// with a --delay, with unreadable lines and a note of the replay's own; and
// one interrupted.
func replayNotesDoc() *result.Document {
	d := notesBase("replay", 4, "replay")
	d.Run.Count, d.Run.Clients = 8, 2
	d.Run.Params = map[string]string{"format": "pg-log", "log": "slow.log", "speed": "1"}
	replay := func(clients int, meanUs float64, r result.Replay) result.Phase {
		p := notesPhase("replay", clients, meanUs)
		p.Ops, p.FinishRatio = 7, 0
		p.Latency.Count = 7
		r.Log, r.Format, r.Speed, r.Lines, r.Sessions, r.Statements, r.LogSpan = "slow.log", "pg-log", "1", 20, 2, 8, 0.941
		p.Replay = &r
		return p
	}
	print := func(p result.Phase, id, text string, n int64) result.Phase {
		p.Op = id + " " + text
		p.FinishRatio = 0
		p.Replay = &result.Replay{Fingerprint: id, Text: text, InLog: n}
		return p
	}
	// The statement that failed every time: nothing measured but its
	// error, though the phase timed its clients (a finish ratio that says
	// nothing of the work).
	missing := result.Phase{Op: "9f9a81fa select * from missing_table", Clients: 1, Errors: 1, Elapsed: 0.5, FinishRatio: 1.89,
		ErrorClasses: []result.ErrorClass{{Class: "pg:42P01", Count: 1, First: `ERROR: relation "missing_table" does not exist (SQLSTATE 42P01)`}},
		Replay:       &result.Replay{Fingerprint: "9f9a81fa", Text: "select * from missing_table", InLog: 1}}
	behind := replay(2, 206000, result.Replay{Mode: "sessions", Scheduled: 0.941, Wall: 1.699,
		Lag: &result.Latency{Count: 7, P50: 326631.423, P99: 797966.335, Max: 798484.468}, Late: 6, LateAfterUs: 10000, Behind: true,
		Note:       "the store could not keep the log's pace: statements started up to 798.48ms late and the replay ended 0.76 s after the schedule",
		Unreadable: 1, FirstUnreadable: []string{`slow.log:10: no log_line_prefix "%m [%p] %c %q%u@%d " at the start: "this line is garbage"`}})
	behind.Errors = 1
	kept := replay(2, 900, result.Replay{Mode: "clients", Delay: "1ms-5ms", Scheduled: 0.941, Wall: 0.951,
		Lag: &result.Latency{Count: 8, P50: 420, P99: 4227, Max: 4227}, Late: 0, LateAfterUs: 10000,
		Unreadable: 3, FirstUnreadable: []string{"slow.log:3: cut off", "slow.log:4: cut off", "slow.log:9: cut off"},
		Notes: []string{"1 COPY statement from or to the client was left out: the data it moved is not in the log"}})
	stopped := replay(2, 900, result.Replay{Mode: "sessions", Scheduled: 0.941, Wall: 0.4,
		Lag: &result.Latency{Count: 3, P50: 841, P99: 982, Max: 982}, LateAfterUs: 10000})
	stopped.Interrupted, stopped.Ops, stopped.Latency.Count = true, 3, 3
	d.Stores = []result.Store{
		{Label: "postgres", Phases: []result.Phase{behind, print(notesPhase("replay", 2, 206000), "962a76aa", "select pg_sleep(?)", 7), missing}},
		{Label: "pg-clients", Phases: []result.Phase{kept}},
		{Label: "pg-stopped", Phases: []result.Phase{stopped}},
	}
	return d
}

// TestReplayReportSaysWhatTheRunSaid: a report of a replay's JSON, in
// text, Markdown and HTML and in both languages, carries the lines kurabe
// replay printed under its table (before, only the live run had them):
// the pace verdict (BEHIND), the unreadable lines, the interruption; its
// header counts the log's statements, not "n=8 per op".
func TestReplayReportSaysWhatTheRunSaid(t *testing.T) {
	want := map[string][]string{
		English: {"· 2 clients · 8 statements ·",
			"postgres replay: 8 statements of 2 sessions from slow.log (20 lines, 0.941 s as logged), one client per session, speed 1; took 1.699 s against 0.941 s scheduled; lag behind the schedule p50 326.631ms, p99 797.966ms, max 798.484ms; 6 statements started more than 10ms late; BEHIND: the store could not keep the log's pace: statements started up to 798.48ms late and the replay ended 0.76 s after the schedule",
			`postgres replay: 1 line of the log could not be read and was passed over; the first: slow.log:10: no log_line_prefix`,
			"pg-clients replay: 8 statements of 2 sessions from slow.log (20 lines, 0.941 s as logged), 2 clients, speed 1, delay 1ms-5ms; took 0.951 s against 0.941 s scheduled; lag behind the schedule p50 420µs, p99 4.227ms, max 4.227ms; 0 statements started more than 10ms late; kept the log's pace",
			"pg-clients replay: 3 lines of the log could not be read and were passed over; the first: slow.log:3: cut off; slow.log:4: cut off; slow.log:9: cut off",
			"pg-clients replay: 1 COPY statement from or to the client was left out",
			"pg-stopped replay: 8 statements of 2 sessions from slow.log (20 lines, 0.941 s as logged), one client per session, speed 1; INTERRUPTED after 0.400 s of the 0.941 s scheduled, with 3 of the 8 statements run; lag behind the schedule of those that ran p50 841µs, p99 982µs, max 982µs; no verdict on the pace, which only a replay to the log's end can give",
		},
		Japanese: {"· 2 クライアント · 8 文 ·",
			"BEHIND: ストアがログのペースを保てませんでした: 文の開始が最大 798.48ms 遅れ、再生は予定より 0.76 秒遅く終わりました",
			"postgres replay: ログの 1 行を読めず、飛ばしました。最初: slow.log:10:",
			"pg-clients replay: 8 文 (2 セッション)、ログ slow.log (20 行、記録上 0.941 秒)、2 クライアント、速度 1、遅延 1ms-5ms。所要 0.951 秒 (予定 0.941 秒)",
			"。ログのペースを保ちました",
			"pg-stopped replay: 8 文 (2 セッション)、ログ slow.log (20 行、記録上 0.941 秒)、セッションごとのクライアント、速度 1。0.400 秒で中断 (予定 0.941 秒のうち)、実行 3 / 8 文",
		},
	}
	for lang, lines := range want {
		for _, format := range []string{"text", "markdown", "html"} {
			var b bytes.Buffer
			var err error
			if format == "html" {
				err = writeHTML(&b, lang, nil, []*result.Document{replayNotesDoc()})
			} else {
				err = WriteTables(&b, format, lang, replayNotesDoc())
			}
			if err != nil {
				t.Fatal(err)
			}
			got := b.String()
			if format == "html" {
				got = htmlText(got)
			}
			for _, w := range lines {
				if !strings.Contains(got, w) {
					t.Errorf("%s %s: no %q in\n%s", lang, format, w, got)
				}
			}
			if strings.Contains(got, "per op") || strings.Contains(got, "操作ごと") {
				t.Errorf("%s %s: the header counts per op:\n%s", lang, format, got)
			}
		}
	}
}

// htmlText undoes the escaping html/template does in text, for substring
// checks.
func htmlText(s string) string {
	return strings.NewReplacer("&#34;", `"`, "&#39;", "'", "&amp;", "&", "&lt;", "<", "&gt;", ">", "&#43;", "+").Replace(s)
}

// TestNothingMeasuredIsADash: a phase in which no operation succeeded (a
// replayed statement that always failed, a kurabe http run of 404s)
// measured no latency, and its clients' finish times say nothing of the
// work: "-" in the text, Markdown and HTML tables and an empty cell in
// the CSV, never a 0 that reads as a latency (before: "0 0 0 0 0 0 0"
// and last/first 1.89).
func TestNothingMeasuredIsADash(t *testing.T) {
	const op = "9f9a81fa select * from missing_table"
	for _, lang := range Langs {
		header, rows, _ := table(replayNotesDoc(), tr(lang))
		i := slices.IndexFunc(rows, func(r row) bool { return r[1] == op })
		if i < 0 {
			t.Fatalf("no row %q", op)
		}
		for j, c := range rows[i] {
			h := header[j]
			switch {
			case j < 3: // store, op, ops/s: 0 successful per second is a figure
			case h == tr(lang).t("errors"):
				if c != "1" {
					t.Errorf("%s: errors %q", lang, c)
				}
			case c != "-":
				t.Errorf("%s: %s is %q, want -", lang, h, c)
			}
		}
	}
	var md bytes.Buffer
	if err := WriteTables(&md, "markdown", English, replayNotesDoc()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| "+op+" | 0 | - | - | - | - | - | - | 1 | - | - |") {
		t.Errorf("markdown:\n%s", md.String())
	}
	var c bytes.Buffer
	if err := WriteTables(&c, "csv", English, replayNotesDoc()); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&c).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs[1:] {
		if r[4] != op {
			continue
		}
		for _, name := range []string{"mean_us", "p50_us", "p99_us", "max_us", "finish_ratio"} {
			if v := r[slices.Index(csvHeader, name)]; v != "" {
				t.Errorf("csv %s = %q, want an empty cell", name, v)
			}
		}
	}
	// An http run of which every request failed, in the HTML report.
	var h bytes.Buffer
	if err := writeHTML(&h, English, nil, []*result.Document{httpAllFailed()}); err != nil {
		t.Fatal(err)
	}
	row := `<td>GET http://127.0.0.1:3001/nope</td><td class="num">0</td><td class="num">-</td><td class="num">-</td><td class="num">-</td><td class="num">-</td><td class="num">-</td><td class="num">-</td><td class="num">200</td><td class="num">-</td><td class="num">-</td>`
	if !strings.Contains(h.String(), row) {
		t.Errorf("the HTML results row of an all-failed http run is not\n%s\n%s", row, h.String())
	}
}

// TestReplayLinesSayItOnce: a replay's header gives its --delay once (as
// delay=, with its settings; before, also as "think"), an interrupted
// replay groups the statements it ran as it groups the log's (before:
// "with 31696 of the 100,000"), and one whose every statement ran in the
// warm-up says so instead of "kept the log's pace".
func TestReplayLinesSayItOnce(t *testing.T) {
	d := replayNotesDoc()
	d.Run.Params["delay"], d.Run.Think = "10ms-20ms", "10ms-20ms"
	stopped := &d.Stores[2].Phases[0]
	stopped.Ops, stopped.Replay.Statements = 31696, 100000
	warm := d.Stores[1].Phases[0]
	warm.Ops, warm.Errors, warm.WarmupOps, warm.Latency, warm.OpsPerSec = 0, 0, 8, result.Latency{}, 0
	r := *warm.Replay
	warm.Replay = &r
	d.Stores = append(d.Stores, result.Store{Label: "pg-warm", Phases: []result.Phase{warm}})
	for _, lang := range Langs {
		var b bytes.Buffer
		if err := WriteTables(&b, "text", lang, d); err != nil {
			t.Fatal(err)
		}
		got := b.String()
		if n := strings.Count(got, "10ms-20ms"); n != 1 {
			t.Errorf("%s: the delay %d times:\n%s", lang, n, got)
		}
		if !strings.Contains(got, "delay=10ms-20ms") {
			t.Errorf("%s: no delay= in the header:\n%s", lang, got)
		}
		if !strings.Contains(got, "31,696 / 100,000") && !strings.Contains(got, "with 31,696 of the 100,000 statements run") {
			t.Errorf("%s: the count the interrupted replay ran is not grouped:\n%s", lang, got)
		}
		i := strings.Index(got, "pg-warm replay:")
		if i < 0 || !strings.Contains(got[i:], "ALL WARM-UP") || strings.Contains(strings.SplitN(got[i:], "\n", 2)[0], "kept the log's pace") {
			t.Errorf("%s: a replay all in the warm-up:\n%s", lang, got)
		}
	}
}
