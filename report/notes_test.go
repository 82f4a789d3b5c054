package report

import (
	"bytes"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"kurabe/probe"
	"kurabe/result"
	"kurabe/store"
	"kurabe/workload/load"
)

// notesDocs are documents that between them produce every kind of note
// kurabe writes under a table: a sweep with fitted lines that cross, a
// store run through kurabe serve, a failed store, a loaded data set,
// session and error classes, an interruption (rangeNotesDoc); lost, extra
// and unverifiable writes, an open loop that fell behind, a connection per
// operation, a read of an empty table, a mix broken down by kind
// (bbsNotesDoc), settings that did not apply as asked (bbsNotesDoc); load rates against
// the disk's fsync rate, and without one (loadNotesDoc); lines that do not
// cross within the measured range, and a line too poor to say (sweepNotesDoc);
// a replay's lines: its pace kept, lost (BEHIND) or not judged
// (interrupted), and lines of the log it could not read (replayNotesDoc);
// servers that went away mid-run, a managed one that died and one that
// stopped answering, and the phases skipped after (goneNotesDoc).
func notesDocs() []*result.Document {
	docs := []*result.Document{rangeNotesDoc(), bbsNotesDoc(), loadNotesDoc(5200), loadNotesDoc(0), sweepNotesDoc(), replayNotesDoc(), goneNotesDoc()}
	for _, d := range docs {
		for i := range d.Stores {
			d.Stores[i].Info.Target = "/tmp/kurabe-n/" + strconv.Itoa(i+1)
		}
	}
	return docs
}

func notesBase(workload string, seed uint64, ops ...string) *result.Document {
	return &result.Document{Schema: result.Schema, Kurabe: "0.0.0-test", Seed: seed,
		Started: time.Date(2026, 11, 5, 9, 0, 0, 0, time.UTC), Finished: time.Date(2026, 11, 5, 9, 1, 0, 0, time.UTC),
		Run: result.RunConfig{Workload: workload, Ops: ops, Clients: 1, Count: 20, Dir: "/tmp/kurabe-n"}}
}

// notesPhase is a phase of n operations at a mean latency of meanUs.
func notesPhase(op string, clients int, meanUs float64) result.Phase {
	ops := int64(20)
	return result.Phase{Op: op, Clients: clients, Ops: ops, Elapsed: float64(ops) * meanUs / 1e6, OpsPerSec: 1e6 / meanUs,
		Latency:   result.Latency{Count: uint64(ops), Mean: meanUs, P50: meanUs * 0.9, P90: meanUs * 1.5, P99: meanUs * 2, P999: meanUs * 3, Max: meanUs * 3},
		BytesRead: 1000, FinishRatio: 1}
}

func rangeNotesDoc() *result.Document {
	d := notesBase("range", 1, "range 1", "range 100", "range 1000")
	sweep := func(label string, fixed, per float64) result.Store {
		s := result.Store{Label: label}
		for _, n := range []float64{1, 100, 1000} {
			p := notesPhase("range "+strconvF(n), 1, fixed+per*n)
			p.Sweep, p.SweepValue = "records", n
			s.Phases = append(s.Phases, p)
		}
		return s
	}
	// sqlite: 100 µs + 2 µs per record; file: 400 µs + 0.5 µs per
	// record; they cross at 200 records.
	sq := sweep("sqlite", 100, 2)
	sq.Notes = []string{"journal_mode=wal was applied"} // a store's own words, quoted as they are
	sq.Prepared = []result.Prepared{{Rows: 120720, Seconds: 2.5}}
	sq.Phases[1].SessionErrors = []result.ErrorClass{{Class: "busy", Count: 2, First: "database is locked"}}
	// Grouped in the table and the note (98,525), as ops/s are.
	sq.Phases[1].Errors = 98525
	sq.Phases[1].ErrorClasses = []result.ErrorClass{{Class: "short-read", Count: 98525, First: "99 rows, want 100"}}
	fi := sweep("file", 400, 0.5)
	fi.Phases[2].Interrupted = true
	// Through kurabe serve: slower on one record, faster on 100 (the
	// service queues requests before the store).
	via := result.Store{Label: "sqlite via http", Via: "http", Of: "sqlite",
		Phases: []result.Phase{notesPhase("range 1", 1, 250), notesPhase("range 100", 1, 280)}}
	broken := result.Store{Label: "postgres", Error: "cannot connect to 127.0.0.1:5432: connection refused"}
	d.Stores = []result.Store{sq, fi, via, broken}
	return d
}

// sweepNotesDoc is a sweep up to 100 records whose lines would cross only
// beyond it (sqlite and file, at 200), and a store whose latency does not
// follow the records (mariadb, R² far below MinR2).
func sweepNotesDoc() *result.Document {
	d := notesBase("range", 7, "range 1", "range 10", "range 100")
	for _, st := range []struct {
		label string
		means [3]float64
	}{{"sqlite", [3]float64{102, 120, 300}}, {"file", [3]float64{400.5, 405, 450}}, {"mariadb", [3]float64{900, 700, 880}}} {
		s := result.Store{Label: st.label}
		for i, n := range []float64{1, 10, 100} {
			p := notesPhase("range "+strconvF(n), 1, st.means[i])
			p.Sweep, p.SweepValue = "records", n
			s.Phases = append(s.Phases, p)
		}
		d.Stores = append(d.Stores, s)
	}
	return d
}

func strconvF(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func goneNotesDoc() *result.Document {
	d := notesBase("bbs", 3, "write", "read-all")
	died := notesPhase("write", 2, 400)
	died.Gone = &result.Gone{Died: true, Signal: 9, SignalName: "SIGKILL",
		LogTail: []string{"LOG:  database system is ready to accept connections", "FATAL:  terminating connection due to unexpected postmaster exit"}}
	stopped := notesPhase("write", 2, 500)
	stopped.CutOff, stopped.GraceSeconds, stopped.Errors = 2, 5, 2
	stopped.Gone = &result.Gone{CheckSeconds: 5, Check: "mariadb: the server at 127.0.0.1:3306 did not answer"}
	skipped := func(why string) result.Phase {
		return result.Phase{Op: "read-all", Clients: 2, Skipped: why}
	}
	crashed := notesPhase("write", 2, 450)
	crashed.Gone = &result.Gone{Died: true, ExitStatus: 1, Log: "/tmp/kurabe-n/3-postgres/postgres.log"}
	d.Stores = []result.Store{
		{Label: "postgres", Phases: []result.Phase{died, skipped("the managed server died during write (killed by signal 9 (SIGKILL))")}},
		{Label: "mariadb", Phases: []result.Phase{stopped, skipped("the server stopped answering during write (2 operations cut off after --grace 5s)")}},
		{Label: "postgres-2", Phases: []result.Phase{crashed}},
	}
	return d
}

func bbsNotesDoc() *result.Document {
	d := notesBase("bbs", 2, "write", "read-latest")
	d.Run.Rate = "500"
	lost := notesPhase("write", 2, 300)
	lost.Verify = []result.Verify{{Table: "posts", Acked: 20, Before: 0, After: 18, Lost: 2}}
	open := notesPhase("read-latest", 2, 900)
	open.Elapsed = 2
	open.OpenLoop = &result.OpenLoop{Rate: 500, Scheduled: 1000, Achieved: 412.5, Late: 37, LateAfterUs: 10000,
		Lag: result.Latency{P99: 48000}, Service: result.Latency{P50: 800, P99: 4100}, Behind: true, Note: result.BehindStore}
	extra := notesPhase("write", 2, 310)
	extra.Verify = []result.Verify{{Table: "posts", Acked: 20, Before: 5, After: 26, Extra: 1}}
	empty := notesPhase("read-latest", 2, 120)
	empty.BytesRead = 0
	perOp := notesPhase("write", 2, 2500)
	perOp.Connect = &result.Latency{Mean: 2100}
	perOp.LatencyExclConnect = &result.Latency{Mean: 400}
	perOp.OpsPerSecExclConnect = 2500
	perOp.Verify = []result.Verify{{Table: "posts", Error: "permission denied for table kurabe_posts"}}
	// Writes whose answer was lost (cut off, their connection lost):
	// rows of them stored, rows beyond them EXTRA, acknowledged rows
	// LOST whatever they are, and a load's chunks of many rows each.
	judged := func(v result.Verify) []result.Verify { v.Judge(); return []result.Verify{v} }
	cc := func(class string, n int64) result.ClassCount { return result.ClassCount{Class: class, Count: n} }
	unknown := notesPhase("write", 2, 320)
	unknown.Verify = judged(result.Verify{Table: "posts", Acked: 20, After: 23, Unknown: 5, UnknownClasses: []result.ClassCount{cc("timeout", 3), cc("connection-lost", 2)}})
	beyond := notesPhase("write", 2, 330)
	beyond.Verify = judged(result.Verify{Table: "posts", Acked: 20, Before: 23, After: 50, Unknown: 2, UnknownClasses: []result.ClassCount{cc("connection-lost", 2)}})
	lostToo := notesPhase("write", 2, 340)
	lostToo.Verify = judged(result.Verify{Table: "posts", Acked: 20, Before: 50, After: 67, Unknown: 1, UnknownClasses: []result.ClassCount{cc("timeout", 1)}})
	chunks := notesPhase("write", 2, 350)
	chunks.Verify = judged(result.Verify{Table: "posts", Before: 67, After: 367, Unknown: 600, UnknownClasses: []result.ClassCount{cc("timeout", 2)}})
	mix := notesPhase("mix", 2, 200)
	mix.Kinds = []result.Kind{
		{Name: "write", Ops: 5, Latency: result.Latency{P50: 410, P99: 1200}},
		{Name: "read-all", Ops: 0},
		{Name: "read-latest", Ops: 15, Latency: result.Latency{P50: 95, P99: 310}},
	}
	d.Stores = []result.Store{
		{Label: "sqlite", Phases: []result.Phase{lost, open, mix}},
		// Two settings that did not apply as asked, one that did (Aria
		// read back as aria), one the same in other words (16k read
		// back as 16384), one not read back, and a secret: only the first
		// two are noted.
		{Label: "mariadb", Spec: "mariadb:managed?engine=Aria&innodb_buffer_pool_size=16k&innodb_page_size=3k&log-warnings=2&password=xxxxx&row_format=Compressed",
			Info: store.Info{Driver: "mariadb", Options: map[string]string{"engine": "aria", "innodb_buffer_pool_size": "16384", "innodb_page_size": "4096",
				"log_warnings": "2 (given; not a server variable, not read back)", "row_format": "Page"}},
			Phases: []result.Phase{extra, empty}},
		{Label: "postgres", Phases: []result.Phase{perOp, unknown, beyond, lostToo, chunks}},
		// A read with nothing written before it: on a store kurabe
		// emptied, and on a service's, which kurabe does not empty.
		{Label: "file", Phases: []result.Phase{empty}},
		{Label: "http", Info: store.Info{Driver: "http", TablesKept: true}, Phases: []result.Phase{empty}},
	}
	return d
}

// loadNotesDoc is a load run of 120,720 rows in one chunk; fsyncs is the
// disk's rate from kurabe probe (0: none).
func loadNotesDoc(fsyncs float64) *result.Document {
	d := notesBase("load", 3, "autocommit", "transaction", "bulk")
	d.Run.Params = map[string]string{"rows": "120720", "chunk_rows": "120720"}
	if fsyncs > 0 {
		d.Env.Probe = &probe.Result{FsyncsPerSec: fsyncs}
	}
	phase := func(op string, clients int, secs float64, errs int64) result.Phase {
		return result.Phase{Op: op, Clients: clients, Elapsed: secs, Ops: 1, Errors: errs, OpsPerSec: 1 / secs,
			Latency: result.Latency{Count: 1, Mean: secs * 1e6}, BytesWritten: 1}
	}
	d.Stores = []result.Store{
		{Label: "sqlite", Info: store.Info{Driver: "sqlite", Options: map[string]string{"journal_mode": "delete", "synchronous": "full"}},
			Phases: []result.Phase{phase("autocommit", 1, 109.7, 0), phase("transaction", 1, 0.65, 0)}},
		// A server with local_infile=OFF: bulk ran as multi-row INSERTs.
		{Label: "mariadb", Info: store.Info{Driver: "mariadb", Facts: map[string]string{"bulk_load": "multi-row INSERT (the server has local_infile=OFF)"}},
			Phases: []result.Phase{phase("autocommit", 1, 24.1, 0), phase("transaction", 1, 3.0, 1), phase("bulk", 1, 0.4, 0)}},
		{Label: "postgres", Info: store.Info{Driver: "postgres"}, Phases: []result.Phase{phase("autocommit", 4, 10, 0)}},
		{Label: "file", Phases: []result.Phase{phase("autocommit", 1, 5, 0)}},
	}
	return d
}

// A load with a connection per statement (connect=per-op): the note
// gives the rows' rate, with and without connecting, where it gave the
// operations' (0.56 ops/s for a load of 1,000 rows); and a bulk phase,
// which the store loads on a connection of its own, timed no connecting
// and has no such note (before: "connecting took 0 on average", without
// a unit).
func TestPerOpLoadNoteGivesRows(t *testing.T) {
	d := notesBase("load", 4, "autocommit", "bulk")
	d.Run.Params = map[string]string{"rows": "1000", "chunk_rows": "1000"}
	auto := result.Phase{Op: "autocommit", Clients: 1, Elapsed: 2, Ops: 1, OpsPerSec: 0.5, OpsPerSecExclConnect: 0.8,
		Latency: result.Latency{Count: 1, Mean: 2e6}, Connect: &result.Latency{Count: 1, Mean: 750e3, Max: 750e3}, LatencyExclConnect: &result.Latency{Count: 1, Mean: 1.25e6},
		Verify: []result.Verify{{Table: "records", Acked: 1000, After: 1000}}, BytesWritten: 1}
	bulk := result.Phase{Op: "bulk", Clients: 1, Elapsed: 0.01, Ops: 1, OpsPerSec: 100, OpsPerSecExclConnect: 100,
		Latency: result.Latency{Count: 1, Mean: 1e4}, Connect: &result.Latency{Count: 1}, LatencyExclConnect: &result.Latency{Count: 1, Mean: 1e4},
		Verify: []result.Verify{{Table: "records", Acked: 1000, After: 1000}}, BytesWritten: 1}
	d.Stores = []result.Store{{Label: "sqlite", Info: store.Info{Driver: "sqlite"}, Phases: []result.Phase{auto, bulk}}}
	for _, lang := range []string{English, Japanese} {
		text := strings.Join(Notes(d, lang), "\n")
		want := map[string]string{
			English:  "sqlite autocommit: a new connection per statement: 500 rows/s including connecting, 800 excluding; connecting took 750ms per operation on average (all of its connections), operations 1.25s without it",
			Japanese: "sqlite autocommit: 文ごとに新しい接続: 接続を含めて 500 行/秒、除くと 800 行/秒。接続に操作あたり平均 750ms (そのすべての接続)、接続を除いた操作に平均 1.25s",
		}[lang]
		if !strings.Contains(text, want) {
			t.Errorf("%s: want %q in:\n%s", lang, want, text)
		}
		if strings.Contains(text, "sqlite bulk: ") {
			t.Errorf("%s: a note on connecting in the bulk phase, which made no connection of its session:\n%s", lang, text)
		}
	}
}

// TestNotesGolden keeps the notes of every kind in both languages: the
// Japanese file shows each sentence translated, the English one that the
// English did not change.
func TestNotesGolden(t *testing.T) {
	for _, c := range []struct{ name, format, lang string }{
		{"notes-en.txt", "text", English},
		{"notes-ja.txt", "text", Japanese},
		{"notes-ja.md", "markdown", Japanese},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteTables(&b, c.format, c.lang, notesDocs()...); err != nil {
				t.Fatal(err)
			}
			golden(t, c.name, b.Bytes())
		})
	}
}

// TestNotesFollowTheLanguage checks that each note kurabe writes itself
// changes with the language, that only quoted text (a store's notes and
// error messages) stays the same, and that the figures in them are the
// same in both languages and in the same order.
func TestNotesFollowTheLanguage(t *testing.T) {
	quoted := []string{"journal_mode=wal was applied", "the data it moved is not in the log"}
	digits := regexp.MustCompile(`[0-9]+(?:[.,][0-9]+)*`)
	for _, d := range notesDocs() {
		en, ja := Notes(d, English), Notes(d, Japanese)
		if len(en) == 0 || len(en) != len(ja) {
			t.Fatalf("%s: %d English notes, %d Japanese", d.Run.Workload, len(en), len(ja))
		}
		for i := range en {
			if en[i] == ja[i] && !slices.ContainsFunc(quoted, func(q string) bool { return strings.HasSuffix(en[i], q) }) {
				t.Errorf("not translated: %q", en[i])
			}
			if a, b := digits.FindAllString(en[i], -1), digits.FindAllString(ja[i], -1); !slices.Equal(a, b) {
				t.Errorf("figures differ:\n%s\n%s", en[i], ja[i])
			}
		}
	}
}

// TestNotesKindsCovered makes sure the note documents still produce each
// kind of note, so that the golden files cover every sentence.
func TestNotesKindsCovered(t *testing.T) {
	var all []string
	for _, d := range notesDocs() {
		all = append(all, Notes(d, English)...)
	}
	text := strings.Join(all, "\n")
	for _, want := range []string{
		"FAILED:", "data set loaded", "could not open a session", "errors of class", "could not verify", "LOST 2 writes", "EXTRA 1 rows",
		"*: interrupted", "open loop:", "; BEHIND:", "a new connection per operation", "read nothing: the table was empty", "read nothing, although writes were acknowledged before it (20) and the store counted 26 rows after them", "kurabe does not empty this store's tables", "mean latency =", "cross at", "do not cross between 1 and 100 records", "no crossing stated: mariadb's line fits its points poorly",
		"layer adds", "less through the http layer", "load, rows/s", "(incomplete)", "run kurabe probe --dir", "group commit",
		"; BEHIND: the store could not keep the log's pace", "; kept the log's pace", "INTERRUPTED after", "could not be read and was passed over", "could not be read and were passed over",
		"postgres write: 3 of the 5 writes whose answer was lost (timeout 3, connection-lost 2) were stored",
		"EXTRA 5 rows: 20 acknowledged, table posts grew by 27; besides them, 2 rows are those of the 2 writes whose answer was lost (connection-lost 2), which may be stored",
		"LOST 3 writes: 20 acknowledged, table posts grew by 17; more are missing if any of the 1 writes whose answer was lost (timeout 1) were stored",
		"300 of the 600 rows of the 2 writes whose answer was lost (timeout 2) were stored",
		"the managed server died during write: killed by signal 9 (SIGKILL: kill -9 sends it", "; the store's later phases were skipped; its log's last lines:\n  LOG:", "died during write: exit status 1; its log (/tmp/kurabe-n/3-postgres/postgres.log) is empty",
		"mariadb: the server stopped answering during write (2 operations cut off after --grace 5s), and a new connection got no answer within 5s either (mariadb: the server",
		"commits are not synced", "about one sync per commit", "several syncs per commit", "mix by kind: write 25.0% (p50 410µs, p99 1.20ms) · read-latest 75.0%",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no note says %q", want)
		}
	}
}

// TestLoadNotesEnglishUnchanged checks that the report's English load notes
// are load.Notes' own, byte for byte.
func TestLoadNotesEnglishUnchanged(t *testing.T) {
	for _, fsyncs := range []float64{5200, 0} {
		d := loadNotesDoc(fsyncs)
		want := load.Notes(d, fsyncs)
		if got := load.NotesIn(d, fsyncs, tr(English).f); !slices.Equal(got, want) {
			t.Errorf("fsyncs %v:\n%q\nwant\n%q", fsyncs, got, want)
		}
	}
}

// Every reason the load notes give for an autocommit row slower than an
// fsync, which depends on the store and its settings, is said in Japanese
// too, whole.
func TestSlowCommitTranslated(t *testing.T) {
	for _, info := range []store.Info{
		{Driver: "sqlite", Options: map[string]string{"journal_mode": "delete", "synchronous": "full"}},
		{Driver: "sqlite", Options: map[string]string{"journal_mode": "wal", "synchronous": "full"}},
		{Driver: "postgres", Options: map[string]string{"fsync": "on", "synchronous_commit": "on", "full_page_writes": "on"}},
		{Driver: "postgres", Options: map[string]string{"fsync": "on", "synchronous_commit": "on", "full_page_writes": "off"}},
		{Driver: "postgres", Options: map[string]string{"fsync": "on", "synchronous_commit": "off"}},
		{Driver: "mariadb", Options: map[string]string{"engine": "InnoDB", "innodb_flush_log_at_trx_commit": "1", "sync_binlog": "1"}},
		{Driver: "mariadb", Options: map[string]string{"engine": "InnoDB", "innodb_flush_log_at_trx_commit": "1", "sync_binlog": "0"}},
		{Driver: "file", Options: map[string]string{"sync": "write"}},
		{Driver: "sqlite"},
	} {
		d := notesBase("load", 1, "autocommit")
		d.Run.Params = map[string]string{"rows": "1000", "chunk_rows": "1000"}
		d.Env.Probe = &probe.Result{FsyncsPerSec: 3000}
		d.Stores = []result.Store{{Label: "s", Info: info, Phases: []result.Phase{{Op: "autocommit", Clients: 1, Elapsed: 1, Ops: 1, OpsPerSec: 1,
			Latency: result.Latency{Count: 1, Mean: 1e6}, BytesWritten: 1}}}}
		en, ja := Notes(d, English), Notes(d, Japanese)
		reason := func(notes []string) string {
			for _, n := range notes {
				if _, r, ok := strings.Cut(n, "fsync 3.0 回分の時間"); ok {
					return r
				}
				if _, r, ok := strings.Cut(n, "3.0 fsyncs' time per row"); ok {
					return r
				}
			}
			return ""
		}
		e, j := reason(en), reason(ja)
		if e == "" || j == "" || strings.Contains(j, "sync's time") || strings.Contains(j, "the statement") || strings.Contains(j, "settings read back") {
			t.Errorf("%s %v: the reason is not in Japanese:\n%q\n%q", info.Driver, info.Options, e, j)
		}
	}
}

// TestHTMLNotesInJapanese checks that the HTML report's notes follow its
// language.
func TestHTMLNotesInJapanese(t *testing.T) {
	var b bytes.Buffer
	if err := writeHTML(&b, Japanese, nil, notesDocs()[:2]); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, n := range append(Notes(rangeNotesDoc(), Japanese), Notes(bbsNotesDoc(), Japanese)...) {
		if !strings.Contains(page, htmlEscaper.Replace(n)) {
			t.Errorf("page lacks the note %q", n)
		}
	}
	if strings.Contains(page, "mean latency =") || strings.Contains(page, "could not verify") {
		t.Error("English notes in the Japanese page")
	}
}

// htmlEscaper escapes text as html/template does.
var htmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;", "+", "&#43;")

// With client levels (and repeats), a note names the phase as its table row
// does, so two levels' notes are told apart.
func TestNotesNameTheLevel(t *testing.T) {
	d := notesBase("bbs", 4, "write")
	d.Run.Levels = []int{1, 3}
	d.Run.Repeat = 2
	for _, c := range []int{1, 3} {
		p := notesPhase("write", c, 300)
		p.Repeat = 1
		p.Verify = []result.Verify{{Table: "posts", Acked: 20, After: 19, Lost: 1}}
		d.Stores = append(d.Stores, result.Store{Label: "sqlite", Phases: []result.Phase{p}})
	}
	text := strings.Join(Notes(d, English), "\n")
	for _, want := range []string{"sqlite write c=1 #2: LOST 1", "sqlite write c=3 #2: LOST 1"} {
		if !strings.Contains(text, want) {
			t.Errorf("no note %q in:\n%s", want, text)
		}
	}
}

// A sweep run at several client levels says at which level two stores'
// lines cross.
func TestCrossingNamesTheLevel(t *testing.T) {
	d := notesBase("range", 5, "range 1", "range 100", "range 1000")
	d.Run.Levels = []int{1, 4}
	for _, st := range []struct {
		label        string
		fixed, slope float64
	}{{"sqlite", 100, 2}, {"file", 400, 0.5}} {
		s := result.Store{Label: st.label}
		for _, c := range []int{1, 4} {
			for _, n := range []float64{1, 100, 1000} { // three values: a line through two is not judged
				p := notesPhase("range "+strconvF(n), c, st.fixed+st.slope*n)
				p.Sweep, p.SweepValue = "records", n
				s.Phases = append(s.Phases, p)
			}
		}
		d.Stores = append(d.Stores, s)
	}
	text := strings.Join(Notes(d, English), "\n")
	for _, want := range []string{"sqlite and file (c=1) cross at 200 records", "sqlite and file (c=4) cross at 200 records"} {
		if !strings.Contains(text, want) {
			t.Errorf("no note %q in:\n%s", want, text)
		}
	}
}

func TestPct(t *testing.T) {
	cases := []struct {
		v      float64
		digits int
		signed bool
		want   string
	}{
		{-42.4, 0, true, "-42%"},
		{12.6, 0, true, "+13%"},
		{-99.9, 0, true, "-99.9%"},          // not a total loss
		{-99.96, 0, true, "-99.96%"},        // nor at one decimal
		{-100, 0, true, "-100%"},            // a total loss is one
		{-99.9999999, 0, true, "-99.9999%"}, // cut, not rounded, past four decimals
		{99.96, 1, false, "99.96%"},         // a share that is not all
		{0.04, 1, false, "0.04%"},           // nor none
		{0, 1, false, "0.0%"},
		{25, 1, false, "25.0%"},
		{-0.3, 2, true, "-0.30%"},
		{0.001, 0, true, "+0.001%"},
	}
	for _, c := range cases {
		if got := pct(c.v, c.digits, c.signed); got != c.want {
			t.Errorf("pct(%v, %d, %v) = %q, want %q", c.v, c.digits, c.signed, got, c.want)
		}
	}
}

// Shares of a whole add up to 100.0%, each rounded from its exact ratio.
func TestShares(t *testing.T) {
	for _, c := range []struct {
		counts []int64
		want   []string
	}{
		// point --hit 0.1 over 2,000 lookups: 9.45 and 90.55, which
		// rounded one by one in floating point were 9.4% and 90.5%
		{[]int64{189, 1811}, []string{"9.5%", "90.5%"}},
		// three thirds: the left-over tenth goes to the first
		{[]int64{1, 1, 1}, []string{"33.4%", "33.3%", "33.3%"}},
		// the larger remainder takes it
		{[]int64{1, 2}, []string{"33.3%", "66.7%"}},
		// a kind of none is 0.0%, and the rest is all of it
		{[]int64{5, 0, 15}, []string{"25.0%", "0.0%", "75.0%"}},
		{[]int64{7, 0}, []string{"100.0%", "0.0%"}},
		// one in 2,501 is not none, nor the rest all: more decimals,
		// for every share
		{[]int64{1, 2500}, []string{"0.04%", "99.96%"}},
		// nothing at all
		{[]int64{0, 0}, []string{"0.0%", "0.0%"}},
		// counts whose products overflow 64 bits still divide exactly
		{[]int64{1 << 61, 1 << 61}, []string{"50.0%", "50.0%"}},
	} {
		got := shares(c.counts)
		if !slices.Equal(got, c.want) {
			t.Errorf("shares(%v) = %v, want %v", c.counts, got, c.want)
		}
	}
}

// The kinds of a mixed phase add up to 100.0% in its note: point's hits
// and misses of 2,000 lookups were 9.4% and 90.5%.
func TestKindsNoteAddsUp(t *testing.T) {
	p := notesPhase("point", 1, 2000)
	p.Kinds = []result.Kind{
		{Name: "point-hit", Ops: 189, Latency: result.Latency{P50: 30, P99: 90}},
		{Name: "point-miss", Ops: 1811, Latency: result.Latency{P50: 20, P99: 80}},
	}
	want := "sqlite point by kind: point-hit 9.5% (p50 30.0µs, p99 90.0µs) · point-miss 90.5% (p50 20.0µs, p99 80.0µs)"
	if got := kindsNote(English, "sqlite", "point", p); got != want {
		t.Errorf("kinds note:\n got %s\nwant %s", got, want)
	}
}

// Counts in the notes are whole numbers (50 rows, not 50.0), and a drop of
// 99.9% through the HTTP layer is not shown as a total loss.
func TestNotesCountsAndDrops(t *testing.T) {
	d := notesBase("bbs", 6, "write")
	direct := notesPhase("write", 1, 100)  // 10,000 ops/s
	via := notesPhase("write", 1, 100_000) // 10 ops/s: -99.9%
	d.Stores = []result.Store{
		{Label: "sqlite", Phases: []result.Phase{direct}, Prepared: []result.Prepared{{Rows: 50, Seconds: 0.5}, {Repeat: 1, Rows: 5, Seconds: 0.25}}},
		{Label: "sqlite via cgi", Via: "cgi", Of: "sqlite", Phases: []result.Phase{via}},
	}
	text := strings.Join(Notes(d, English), "\n")
	for _, want := range []string{"data set loaded: 50 rows in 500ms (100 rows/s)", "data set loaded: 5 rows in 250ms", "(-99.9%)"} {
		if !strings.Contains(text, want) {
			t.Errorf("no note says %q in:\n%s", want, text)
		}
	}
	for _, bad := range []string{"50.0 rows", "5.00 rows", "-100%"} {
		if strings.Contains(text, bad) {
			t.Errorf("a note says %q:\n%s", bad, text)
		}
	}
}

// A phase that failed every operation through the HTTP layer gets no
// comparison of its latency with the direct run's: it has none.
func TestNotesNoViaCostOfAFailedPhase(t *testing.T) {
	d := notesBase("bbs", 6, "write")
	failed := notesPhase("write", 1, 0)
	failed.Ops, failed.OpsPerSec, failed.Errors, failed.Latency = 0, 0, 20, result.Latency{}
	failed.ErrorClasses = []result.ErrorClass{{Class: "http:400", Count: 20, First: "400 Bad Request"}}
	d.Stores = []result.Store{
		{Label: "file", Phases: []result.Phase{notesPhase("write", 1, 30)}},
		{Label: "file via http", Via: "http", Of: "file", Phases: []result.Phase{failed}},
	}
	text := strings.Join(Notes(d, English), "\n")
	if strings.Contains(text, "through http") || strings.Contains(text, "layer") {
		t.Errorf("a via note for a phase with no successful operation:\n%s", text)
	}
}

// A data set loaded into each isolated client's tables (--isolate) is
// said per table: the run's rows=500 is one table's, not the sum's.
func TestNotesLoadedPerTable(t *testing.T) {
	d := notesBase("point", 2, "point")
	d.Stores = []result.Store{{Label: "sqlite", Phases: []result.Phase{notesPhase("point", 2, 100)},
		Prepared: []result.Prepared{{Rows: 1000, Tables: 2, Seconds: 0.5}}}}
	for lang, want := range map[string]string{
		English:  "sqlite: data set loaded: 500 rows in each of 2 tables (1,000 in all) in 500ms (2,000 rows/s)",
		Japanese: "sqlite: データセットを読み込みました: 2 個のテーブルにそれぞれ 500 行 (計 1,000 行) を 500ms で (2,000 行/秒)",
	} {
		if text := strings.Join(Notes(d, lang), "\n"); !strings.Contains(text, want) {
			t.Errorf("%s: no note says %q in:\n%s", lang, want, text)
		}
	}
}

// The time a data set took to load is written to a precision that fits
// it, as kurabe dataset import writes it: a load of a few milliseconds
// was "in 0.00 s" beside its hundreds of thousands of rows a second.
func TestNotesLoadTimeFits(t *testing.T) {
	for _, c := range []struct {
		secs     float64
		en, ja   string
		tables   int
		rows     int64
		rowsSaid string
	}{
		// a small data set loaded in 4.6 ms
		{0.0046, "in 4.60ms (434,783 rows/s)", "を 4.60ms で (434,783 行/秒)", 1, 2000, "2,000 rows"},
		// under a millisecond, to the microsecond
		{0.000095, "in 95.0µs (", "を 95.0µs で (", 1, 20, "20 rows"},
		// seconds keep two decimals
		{2.677, "in 2.68s (", "を 2.68s で (", 1, 120720, "120,720 rows"},
		// --isolate's line too
		{0.0046, "(4,000 in all) in 4.60ms (", "(計 4,000 行) を 4.60ms で (", 2, 4000, "2,000 rows in each"},
	} {
		d := notesBase("point", 2, "point")
		d.Stores = []result.Store{{Label: "sqlite", Phases: []result.Phase{notesPhase("point", 2, 100)},
			Prepared: []result.Prepared{{Rows: c.rows, Tables: c.tables, Seconds: c.secs}}}}
		for lang, want := range map[string]string{English: c.en, Japanese: c.ja} {
			text := strings.Join(Notes(d, lang), "\n")
			if !strings.Contains(text, want) || strings.Contains(text, "0.00") {
				t.Errorf("%s, %g s: no note says %q (or one says 0.00) in:\n%s", lang, c.secs, want, text)
			}
		}
		if text := strings.Join(Notes(d, English), "\n"); !strings.Contains(text, c.rowsSaid) {
			t.Errorf("%g s: the note lost its rows (%q):\n%s", c.secs, c.rowsSaid, text)
		}
	}
}

// A note every store shares (each variant of a --vary saying how crud's
// batch read went) is said once; one some share, once with their names;
// one store's own, with its name. Before, each store said it again.
func TestSharedNotesSaidOnce(t *testing.T) {
	d := notesBase("crud", 5, "batch-read")
	same := "crud batch-read: one SELECT ... WHERE id IN (300 keys) per call"
	d.Stores = []result.Store{
		{Label: "sqlite?page_size=4096", Notes: []string{same, "only here"}},
		{Label: "sqlite?page_size=8192", Notes: []string{same, "in two"}},
		{Label: "sqlite?page_size=16384", Notes: []string{same, "in two"}},
	}
	got := Notes(d, English)
	want := []string{"all 3 stores: " + same, "sqlite?page_size=4096: only here", "sqlite?page_size=8192, sqlite?page_size=16384: in two"}
	if !slices.Equal(got, want) {
		t.Errorf("notes\n%q\nwant\n%q", got, want)
	}
	// Two stores are both, not "all 2".
	d.Stores = d.Stores[1:]
	for lang, want := range map[string]string{English: "both stores: " + same, Japanese: "両ストア: " + same} {
		if got := Notes(d, lang); len(got) == 0 || got[0] != want {
			t.Errorf("%s: notes %q, want %q first", lang, got, want)
		}
	}
}

// TestReadNothingCountsWritesOnItsTables: a read that found nothing is
// told apart by the writes acknowledged before it on the tables it read,
// not by every write listed before it. Each repeat runs on a freshly
// opened store, and with -c 1,4 a board that writes runs each level on a
// fresh board, its phases listed phase by phase (write c=1, write c=4,
// read-latest c=1, …); a run through kurabe serve reached tables kurabe
// made and emptied for it, not a service's own.
func TestReadNothingCountsWritesOnItsTables(t *testing.T) {
	written := func(op string, clients int, acked int64, rep int) result.Phase {
		p := notesPhase(op, clients, 500)
		p.BytesRead, p.BytesWritten, p.Ops, p.Repeat = 0, 1000, acked, rep
		p.Verify = []result.Verify{{Table: "posts", Acked: acked, After: acked}}
		return p
	}
	empty := func(op string, clients int, rep int) result.Phase {
		p := notesPhase(op, clients, 50)
		p.BytesRead, p.Repeat = 0, rep
		return p
	}
	failedWrite := written("write", 1, 0, 0)
	failedWrite.Errors = 20
	cases := []struct {
		name   string
		run    result.RunConfig
		store  result.Store
		want   []string
		unwant string
	}{
		{"repeats", result.RunConfig{Ops: []string{"read-latest", "write"}, Clients: 2, Repeat: 2},
			result.Store{Label: "sqlite", Phases: []result.Phase{empty("read-latest", 2, 0), written("write", 2, 20, 0), empty("read-latest", 2, 1), written("write", 2, 20, 1)}},
			[]string{"sqlite read-latest #1: read nothing: the table was empty", "sqlite read-latest #2: read nothing: the table was empty"}, "acknowledged"},
		{"levels", result.RunConfig{Ops: []string{"write", "read-latest"}, Clients: 1, Levels: []int{1, 4}},
			result.Store{Label: "sqlite", Phases: []result.Phase{failedWrite, written("write", 4, 40, 0), empty("read-latest", 1, 0), empty("read-latest", 4, 0)}},
			[]string{"sqlite read-latest c=1: read nothing: the table was empty", "sqlite read-latest c=4: read nothing, although writes were acknowledged before it (40) and the store counted 40 rows after them"}, "(60)"},
		{"via http", result.RunConfig{Ops: []string{"read-latest", "write"}, Clients: 2, Repeat: 2},
			result.Store{Label: "sqlite via http", Via: "http", Of: "sqlite", Info: store.Info{Driver: "http", TablesKept: true},
				Phases: []result.Phase{empty("read-latest", 2, 0), written("write", 2, 20, 0), empty("read-latest", 2, 1), written("write", 2, 20, 1)}},
			[]string{"sqlite via http read-latest #1: read nothing: the table was empty", "sqlite via http read-latest #2: read nothing: the table was empty"}, "does not empty"},
	}
	for _, c := range cases {
		d := notesBase("bbs", 1, c.run.Ops...)
		c.run.Workload, c.run.Count = "bbs", 20
		d.Run = c.run
		d.Stores = []result.Store{c.store}
		got := strings.Join(Notes(d, English), "\n")
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: no note says %q:\n%s", c.name, w, got)
			}
		}
		if strings.Contains(got, c.unwant) {
			t.Errorf("%s: a note says %q:\n%s", c.name, c.unwant, got)
		}
	}
}

// A run through kurabe serve is judged by the settings of the store kurabe
// serve served (Store.Served), not by the HTTP client's, which has none of
// them: a setting that did not apply there is noted as on a direct run. A
// document written before Served notes nothing it cannot know.
func TestSettingNotesOfTheServedStore(t *testing.T) {
	d := notesBase("bbs", 1, "write")
	via := result.Store{Label: "mariadb via http", Via: "http", Of: "mariadb", Spec: "mariadb:managed?row_format=Compressed",
		Info:   store.Info{Driver: "http", Options: map[string]string{"keepalive": "1", "timeout": "30s"}, TablesKept: true},
		Served: &store.Info{Driver: "mariadb", Options: map[string]string{"row_format": "Page"}},
		Phases: []result.Phase{notesPhase("write", 1, 300)}}
	d.Stores = []result.Store{via}
	want := "mariadb via http: row_format asked Compressed, the store runs Page"
	if got := strings.Join(Notes(d, English), "\n"); !strings.Contains(got, want) {
		t.Errorf("no note %q:\n%s", want, got)
	}
	d.Stores[0].Served = nil
	if got := strings.Join(Notes(d, English), "\n"); strings.Contains(got, "row_format") {
		t.Errorf("a document without served: %s", got)
	}
}
