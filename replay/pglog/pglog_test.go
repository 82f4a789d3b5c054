package pglog

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"kurabe/replay"
)

// ev is an event as the tests compare it: session, kind, statement,
// parameters and the time's milliseconds past 07:22:14.
type ev struct {
	Session string
	Kind    replay.EventKind
	SQL     string
	Params  []replay.Param
	Ms      int
	Line    int
}

func parse(t *testing.T, log, prefix string) ([]ev, *replay.Skips) {
	t.Helper()
	p, err := New(strings.NewReader(log), Config{File: "pg.log", Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 11, 22, 7, 22, 14, 0, time.UTC)
	var out []ev
	for {
		e, ok := p.Next()
		if !ok {
			break
		}
		ms := 0
		if !e.Time.IsZero() {
			ms = int(e.Time.Sub(base) / time.Millisecond)
		}
		out = append(out, ev{e.Session, e.Kind, e.SQL, e.Params, ms, e.Line})
	}
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	return out, p.Skipped()
}

// A log as PostgreSQL 15 wrote it under kurabe capture's settings, with
// psql and pgbench -M prepared as clients (cut down).
const captured = `2026-11-22 07:22:12.552 UTC [10790] 6b029824.2a26 LOG:  starting PostgreSQL 15.18 (Debian 15.18-0+deb12u1) on x86_64-pc-linux-gnu
2026-11-22 07:22:14.579 UTC [10828] 6b029826.2a4c [unknown]@[unknown] LOG:  connection received: host=127.0.0.1 port=51148
2026-11-22 07:22:14.580 UTC [10828] 6b029826.2a4c kurabe@postgres LOG:  connection authorized: user=kurabe database=postgres application_name=psql
2026-11-22 07:22:14.583 UTC [10828] 6b029826.2a4c kurabe@postgres LOG:  statement: CREATE TABLE t (id int PRIMARY KEY,
	  v text);
2026-11-22 07:22:14.589 UTC [10828] 6b029826.2a4c kurabe@postgres LOG:  statement: INSERT INTO t VALUES (1, 'a
	b'), (2, 'it''s');
2026-11-22 07:22:14.589 UTC [10828] 6b029826.2a4c kurabe@postgres LOG:  statement: EXECUTE ins(3, 'x');
2026-11-22 07:22:14.589 UTC [10828] 6b029826.2a4c kurabe@postgres DETAIL:  prepare: PREPARE ins (int, text) AS INSERT INTO t VALUES ($1, $2);
2026-11-22 07:22:14.592 UTC [10828] 6b029826.2a4c kurabe@postgres LOG:  disconnection: session time: 0:00:00.015 user=kurabe database=postgres host=127.0.0.1 port=51148
2026-11-22 07:22:14.633 UTC [10831] 6b029826.2a4f [unknown]@[unknown] LOG:  connection received: host=127.0.0.1 port=51164
2026-11-22 07:22:14.634 UTC [10831] 6b029826.2a4f kurabe@postgres LOG:  connection authorized: user=kurabe database=postgres application_name=pgbench
2026-11-22 07:22:14.635 UTC [10831] 6b029826.2a4f kurabe@postgres LOG:  execute P_0: SELECT v FROM t WHERE id = $1 AND v <> $2;
2026-11-22 07:22:14.635 UTC [10831] 6b029826.2a4f kurabe@postgres DETAIL:  parameters: $1 = '4', $2 = 'it''s
	two lines'
2026-11-22 07:22:14.636 UTC [10831] 6b029826.2a4f kurabe@postgres LOG:  execute <unnamed>: SELECT $1
2026-11-22 07:22:14.636 UTC [10831] 6b029826.2a4f kurabe@postgres DETAIL:  parameters: $1 = NULL
2026-11-22 07:22:14.637 UTC [10831] 6b029826.2a4f kurabe@postgres ERROR:  relation "nosuch" does not exist at character 15
2026-11-22 07:22:14.637 UTC [10831] 6b029826.2a4f kurabe@postgres STATEMENT:  SELECT * FROM nosuch
2026-11-22 07:22:14.640 UTC [10831] 6b029826.2a4f kurabe@postgres LOG:  disconnection: session time: 0:00:00.003 user=kurabe database=postgres host=127.0.0.1 port=51164
`

func TestParse(t *testing.T) {
	psql, bench := "6b029826.2a4c", "6b029826.2a4f"
	tests := []struct {
		name   string
		log    string
		prefix string
		want   []ev
		skips  int64
		first  string // in the first skipped line's message
	}{
		{
			// kurabe capture's prefix, found without being given:
			// connections, multi-line statements, a quote in a literal,
			// EXECUTE with its DETAIL, named and unnamed extended
			// statements with parameters (one spanning two lines, one
			// NULL), an error report passed over.
			name: "captured", log: captured,
			want: []ev{
				{psql, replay.Connect, "", nil, 580, 3},
				{psql, replay.Statement, "CREATE TABLE t (id int PRIMARY KEY,\n  v text);", nil, 583, 4},
				{psql, replay.Statement, "INSERT INTO t VALUES (1, 'a\nb'), (2, 'it''s');", nil, 589, 6},
				{psql, replay.Statement, "EXECUTE ins(3, 'x');", nil, 589, 8},
				{psql, replay.Disconnect, "", nil, 592, 10},
				{bench, replay.Connect, "", nil, 634, 12},
				{bench, replay.Statement, "SELECT v FROM t WHERE id = $1 AND v <> $2;", []replay.Param{{Value: "4"}, {Value: "it's\ntwo lines"}}, 635, 13},
				{bench, replay.Statement, "SELECT $1", []replay.Param{{Null: true}}, 636, 16},
				{bench, replay.Disconnect, "", nil, 640, 20},
			},
		},
		{
			// log_min_duration_statement=0 alone: the start is the line's
			// time less the duration; parse and bind steps (and the
			// parameters of bind) are passed over.
			name: "durations", prefix: "%m [%p] ",
			log: `2026-11-22 07:22:14.642 UTC [10899] LOG:  duration: 0.390 ms  parse <unnamed>: SELECT v FROM t WHERE id = $1
2026-11-22 07:22:14.642 UTC [10899] LOG:  duration: 0.371 ms  bind <unnamed>: SELECT v FROM t WHERE id = $1
2026-11-22 07:22:14.642 UTC [10899] DETAIL:  parameters: $1 = '1'
2026-11-22 07:22:14.645 UTC [10899] LOG:  duration: 2.000 ms  execute <unnamed>: SELECT v FROM t WHERE id = $1
2026-11-22 07:22:14.645 UTC [10899] DETAIL:  parameters: $1 = '1'
2026-11-22 07:22:14.700 UTC [10899] LOG:  duration: 100.000 ms  statement: select pg_sleep(0.1)
`,
			want: []ev{
				{"10899", replay.Statement, "SELECT v FROM t WHERE id = $1", []replay.Param{{Value: "1"}}, 643, 4},
				{"10899", replay.Statement, "select pg_sleep(0.1)", nil, 600, 6},
			},
		},
		{
			// Both settings on: the statement once, the bare duration
			// passed over; "execute fetch from" continues a portal.
			name: "both settings", prefix: "%m [%p] %c ",
			log: `2026-11-22 07:22:19.597 UTC [10896] 6b02982b.2a90 LOG:  statement: select 1
2026-11-22 07:22:19.597 UTC [10896] 6b02982b.2a90 LOG:  duration: 0.352 ms
2026-11-22 07:22:19.598 UTC [10896] 6b02982b.2a90 LOG:  execute fetch from S_1/C_2: select * from big
`,
			want: []ev{{"6b02982b.2a90", replay.Statement, "select 1", nil, 5597, 1}},
		},
		{
			// A process id alone: the connection lines of log_connections
			// tell two sessions of the same process id apart.
			name: "pid reused", prefix: "%t [%p]: [%l-1] user=%u,db=%d ",
			log: `2026-11-22 07:22:14 UTC [42]: [1-1] user=[unknown],db=[unknown] LOG:  connection received: host=[local]
2026-11-22 07:22:14 UTC [42]: [2-1] user=app,db=shop LOG:  connection authorized: user=app database=shop
2026-11-22 07:22:14 UTC [42]: [3-1] user=app,db=shop LOG:  statement: select 1
2026-11-22 07:22:15 UTC [42]: [4-1] user=app,db=shop LOG:  statement: select 2
2026-11-22 07:22:16 UTC [42]: [1-1] user=[unknown],db=[unknown] LOG:  connection received: host=[local]
2026-11-22 07:22:16 UTC [42]: [2-1] user=app,db=shop LOG:  statement: select 3
`,
			want: []ev{
				{"42", replay.Connect, "", nil, 0, 2},
				{"42", replay.Statement, "select 1", nil, 0, 3},
				{"42", replay.Statement, "select 2", nil, 1000, 4},
				{"42", replay.Disconnect, "", nil, 0, 0},
				{"42#2", replay.Statement, "select 3", nil, 2000, 6},
			},
		},
		{
			// Garbage, a stray continuation and a truncated last line are
			// counted, never fatal; the statements around them are read.
			name: "garbled", prefix: DefaultPrefix, skips: 4,
			log: "\tstray continuation\n" +
				"2026-11-22 07:22:14.100 UTC [1] 1.1 u@d LOG:  statement: select 1\n" +
				"this is not a log line\n" +
				"2026-11-22 07:22:14.200 UTC [1] 1.1 u@d LOG:  execute S_1: select $1\n" +
				"2026-11-22 07:22:14.200 UTC [1] 1.1 u@d DETAIL:  parameters: $1 = 'unterminated\n" +
				"2026-11-22 07:22:14.3",
			want: []ev{
				{"1.1", replay.Statement, "select 1", nil, 100, 2},
				{"1.1", replay.Statement, "select $1", nil, 200, 4},
			},
		},
		{
			// A line with the prefix but a month 13 is said to have an
			// unreadable time (before: "no log_line_prefix at the
			// start"), and its continuation lines go with it, not onto
			// the statement before.
			name: "unreadable time", prefix: DefaultPrefix, skips: 2, first: `an unreadable time "2026-13-01 07:22:14.200 UTC"`,
			log: "2026-11-22 07:22:14.100 UTC [1] 1.1 u@d LOG:  statement: select 1\n" +
				"2026-13-01 07:22:14.200 UTC [1] 1.1 u@d LOG:  statement: insert into x\n" +
				"\tvalues (99)\n" +
				"2026-11-22 07:22:14.300 UTC [1] 1.1 u@d LOG:  statement: select 2\n" +
				"\tfrom t\n",
			want: []ev{
				{"1.1", replay.Statement, "select 1", nil, 100, 1},
				{"1.1", replay.Statement, "select 2\nfrom t", nil, 300, 4},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, skips := parse(t, tc.log, tc.prefix)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("events:\n got %+v\nwant %+v", got, tc.want)
			}
			if skips.Count != tc.skips {
				t.Errorf("%d lines skipped, want %d: %v", skips.Count, tc.skips, skips.First)
			}
			if tc.first != "" && (len(skips.First) == 0 || !strings.Contains(skips.First[0].Msg, tc.first)) {
				t.Errorf("the first skipped line: %v; want %q in it", skips.First, tc.first)
			}
			for _, e := range skips.First {
				if e.Line == 0 || e.File != "pg.log" {
					t.Errorf("a skipped line without its place: %v", e)
				}
			}
		})
	}
}

// TestDetect finds each candidate prefix from the log alone.
func TestDetect(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{"2026-11-22 07:22:14.583 UTC [10828] 6b029826.2a4c kurabe@postgres LOG:  statement: select 1", DefaultPrefix},
		{"2026-11-22 07:22:14.583 UTC [10828] kurabe@postgres LOG:  statement: select 1", "%m [%p] %q%u@%d "},
		{"2026-11-22 07:22:14 UTC [10828]: [3-1] user=app,db=shop LOG:  statement: select 1", "%t [%p]: [%l-1] user=%u,db=%d "},
	} {
		p, err := New(strings.NewReader(tc.line+"\n"), Config{})
		if err != nil {
			t.Fatal(err)
		}
		if p.Prefix() != tc.want {
			t.Errorf("%s: prefix %q, want %q", tc.line, p.Prefix(), tc.want)
		}
		if e, ok := p.Next(); !ok || e.SQL != "select 1" {
			t.Errorf("%s: read %+v, %v", tc.line, e, ok)
		}
	}
}

func TestPrefixWithoutSession(t *testing.T) {
	if _, err := New(strings.NewReader(""), Config{Prefix: "%m "}); err == nil || !strings.Contains(err.Error(), "%c") {
		t.Fatalf("a prefix without %%c or %%p: %v", err)
	}
}

// FuzzPGLog: no input makes the parser panic or loop, and every event
// it returns has a session.
func FuzzPGLog(f *testing.F) {
	f.Add(captured, "")
	f.Add("2026-11-22 07:22:14.642 UTC [1] LOG:  duration: 0.390 ms  execute x: s\n2026-11-22 07:22:14.642 UTC [1] DETAIL:  parameters: $1 = 'a''", "%m [%p] ")
	f.Add("\t\n\t\n:  LOG:  ", "%q%c")
	f.Fuzz(func(t *testing.T, log, prefix string) {
		p, err := New(strings.NewReader(log), Config{Prefix: prefix})
		if err != nil {
			return
		}
		loadAll(t, log, func() replay.Parser {
			p, _ := New(strings.NewReader(log), Config{Prefix: prefix})
			return p
		})
		for n := 0; ; n++ {
			e, ok := p.Next()
			if !ok {
				break
			}
			if e.Session == "" && e.Kind != replay.Disconnect {
				t.Fatalf("event without a session: %+v", e)
			}
			if n > len(log)+10 {
				t.Fatal("more events than bytes")
			}
		}
	})
}

// loadAll reads a log as replay does, to its statements and fingerprints.
func loadAll(t *testing.T, log string, parser func() replay.Parser) {
	lg, err := replay.Load(parser(), replay.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, f := range lg.Fingerprints {
		n += f.Count
	}
	if n != lg.Statements {
		t.Fatalf("fingerprints count %d statements of %d", n, lg.Statements)
	}
}

// BenchmarkParse reads a log of extended-protocol statements with
// parameters and simple ones over two lines.
func BenchmarkParse(b *testing.B) {
	var log strings.Builder
	for log.Len() < 1<<20 {
		log.WriteString(captured)
	}
	b.SetBytes(int64(log.Len()))
	b.ReportAllocs()
	for b.Loop() {
		p, _ := New(strings.NewReader(log.String()), Config{Prefix: DefaultPrefix})
		for {
			if _, ok := p.Next(); !ok {
				break
			}
		}
	}
}
