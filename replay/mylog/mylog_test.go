package mylog

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"kurabe/replay"
)

type ev struct {
	Session string
	Kind    replay.EventKind
	SQL     string
	DB      string
	Sec     float64 // seconds past the first time stamp of the test
	Line    int
}

func parse(t *testing.T, log string, base time.Time) ([]ev, *replay.Skips) {
	t.Helper()
	p := New(strings.NewReader(log), Config{File: "general.log"})
	var out []ev
	for {
		e, ok := p.Next()
		if !ok {
			break
		}
		sec := 0.0
		if !e.Time.IsZero() {
			sec = e.Time.Sub(base).Seconds()
		}
		out = append(out, ev{e.Session, e.Kind, e.SQL, e.Database, sec, e.Line})
	}
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	return out, p.Skipped()
}

// MariaDB 10.11's layout, as it wrote it for the mariadb client running
// a script (cut down): time stamps only on the first entry of a second,
// multi-line queries, USE as Init DB, an SQL-level PREPARE and EXECUTE
// with the server's echoes of them.
const mariadb = `mariadbd, Version: 10.11.19-MariaDB-0+deb12u1-log (Debian 12). started with:
Tcp port: 53306  Unix socket: /tmp/myx/s.sock
Time		    Id Command	Argument
261122  7:22:34	     3 Connect	root@localhost on  using Socket
		     3 Query	SELECT DATABASE()
		     3 Init DB	kurabe
		     3 Query	CREATE TABLE t (id int PRIMARY KEY,
  v text)
		     3 Query	PREPARE ins FROM 'INSERT INTO t VALUES (?, ?)'
		     3 Prepare	INSERT INTO t VALUES (?, ?)
		     3 Query	EXECUTE ins USING @a, @b
		     3 Execute	INSERT INTO t VALUES (3, 'x')
		     3 Quit	
261122  7:22:35	     4 Connect	app@127.0.0.1 on kurabe using TCP/IP
		     4 Prepare	SELECT v FROM t WHERE id = ?
		     4 Execute	SELECT v FROM t WHERE id = 3
		     4 Close stmt	
		     4 Quit	
`

// MySQL 8's layout: every entry with its time in microseconds.
const mysql8 = `/usr/sbin/mysqld, Version: 8.0.36 (MySQL Community Server - GPL). started with:
Tcp port: 3306  Unix socket: /var/run/mysqld/mysqld.sock
Time                 Id Command    Argument
2024-05-01T12:00:00.000000Z	    8 Connect	root@localhost on shop using Socket
2024-05-01T12:00:00.250000Z	    8 Query	select @@version_comment limit 1
2024-05-01T12:00:01.500000Z	    8 Query	SELECT *
FROM orders
WHERE id = 7
2024-05-01T12:00:02.000000+09:00	    9 Connect	Access denied for user 'x'@'localhost' (using password: YES)
2024-05-01T12:00:03.000000Z	    8 Quit	
`

func TestParse(t *testing.T) {
	mdb := time.Date(2026, 11, 22, 7, 22, 34, 0, time.UTC)
	my := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name  string
		log   string
		base  time.Time
		want  []ev
		skips int64
	}{
		{
			name: "mariadb", log: mariadb, base: mdb,
			want: []ev{
				{"3", replay.Connect, "", "", 0, 4},
				{"3", replay.Statement, "SELECT DATABASE()", "", 0, 5},
				{"3", replay.Statement, "USE `kurabe`", "", 0, 6},
				{"3", replay.Statement, "CREATE TABLE t (id int PRIMARY KEY,\n  v text)", "", 0, 7},
				// SQL-level PREPARE is passed over, and EXECUTE replayed
				// as the statement the server ran, its values in place.
				{"3", replay.Statement, "INSERT INTO t VALUES (3, 'x')", "", 0, 12},
				{"3", replay.Disconnect, "", "", 0, 13},
				{"4", replay.Connect, "", "kurabe", 1, 14},
				// The binary protocol: Execute with its values in place.
				{"4", replay.Statement, "SELECT v FROM t WHERE id = 3", "", 1, 16},
				{"4", replay.Disconnect, "", "", 1, 18},
			},
		},
		{
			// A failed login is no session; a zone other than Z is read.
			name: "mysql 8", log: mysql8, base: my,
			want: []ev{
				{"8", replay.Connect, "", "shop", 0, 4},
				{"8", replay.Statement, "select @@version_comment limit 1", "", 0.25, 5},
				{"8", replay.Statement, "SELECT *\nFROM orders\nWHERE id = 7", "", 1.5, 6},
				{"8", replay.Disconnect, "", "", 3, 10},
			},
		},
		{
			// pt-query-digest's sample of MySQL 5.0: spaces between the
			// command and its argument, and Connect without "using".
			name: "mysql 5.0", base: time.Date(2005, 10, 7, 21, 55, 24, 0, time.UTC),
			log: "051007 21:55:24\t     42 Connect     root@localhost on db1\n" +
				"\t\t                 42 Query       SELECT foo \n" +
				"                         FROM tbl\n" +
				"\t\t                 42 Quit\n",
			want: []ev{
				{"42", replay.Connect, "", "db1", 0, 1},
				{"42", replay.Statement, "SELECT foo \n                         FROM tbl", "", 0, 2},
				{"42", replay.Disconnect, "", "", 0, 4},
			},
		},
		{
			// A thread id seen again after Quit is a new session.
			name: "reused thread id", base: my,
			log: "2024-05-01T12:00:00Z\t5 Connect\ta@h on d using TCP/IP\n2024-05-01T12:00:00Z\t5 Quit\t\n" +
				"2024-05-01T12:00:01Z\t5 Connect\ta@h on d using TCP/IP\n2024-05-01T12:00:01Z\t5 Query\tselect 1\n",
			want: []ev{
				{"5", replay.Connect, "", "d", 0, 1},
				{"5", replay.Disconnect, "", "", 0, 2},
				{"5#2", replay.Connect, "", "d", 1, 3},
				{"5#2", replay.Statement, "select 1", "", 1, 4},
			},
		},
		{
			// Without the server's echo, an SQL-level EXECUTE is replayed
			// as it is (at the thread's next entry, or the log's end);
			// DEALLOCATE is passed over.
			name: "execute without echo", base: my,
			log: "2024-05-01T12:00:00Z\t5 Query\tEXECUTE s USING @a\n2024-05-01T12:00:00Z\t5 Query\tDEALLOCATE PREPARE s\n" +
				"2024-05-01T12:00:01Z\t6 Query\tEXECUTE s\n",
			want: []ev{
				{"5", replay.Statement, "EXECUTE s USING @a", "", 0, 1},
				{"6", replay.Statement, "EXECUTE s", "", 1, 3},
			},
		},
		{
			// Lines before the first entry are counted; a truncated last
			// entry still counts as what it is.
			name: "garbled", base: my, skips: 2,
			log: "garbage\nmore garbage\n2024-05-01T12:00:00Z\t5 Query\tselect 1\n2024-05-01T12:00:01Z\t5 Que",
			want: []ev{
				{"5", replay.Statement, "select 1\n2024-05-01T12:00:01Z\t5 Que", "", 0, 3},
			},
		},
		{
			// An entry whose time cannot be read is skipped with its
			// continuation lines, and glued onto nothing (before, it was
			// both reported and appended to session 12's statement).
			name: "unreadable time", base: time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC), skips: 2,
			log: "2026-01-01T10:00:00.100000Z\t12 Query\tinsert into x values (1)\n" +
				"2026-01-01T10:00:0X.300000Z\t12 Query\tinsert into x values (99),\n(100)\n" +
				"2026-01-01T10:00:00.500000Z\t12 Query\tinsert into x values (2)\n",
			want: []ev{
				{"12", replay.Statement, "insert into x values (1)", "", 0.1, 1},
				{"12", replay.Statement, "insert into x values (2)", "", 0.5, 4},
			},
		},
		{
			// The same in MariaDB's layout: a month 13.
			name: "unreadable mariadb time", base: mdb, skips: 1,
			log: "261122  7:22:34\t     3 Query\tselect 1\n261322  7:22:35\t     3 Query\tselect 2\n\t\t     3 Query\tselect 3\n",
			want: []ev{
				{"3", replay.Statement, "select 1", "", 0, 1},
				{"3", replay.Statement, "select 3", "", 0, 3},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, skips := parse(t, tc.log, tc.base)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("events:\n got %+v\nwant %+v", got, tc.want)
			}
			if skips.Count != tc.skips {
				t.Errorf("%d lines skipped, want %d: %v", skips.Count, tc.skips, skips.First)
			}
			for _, e := range skips.First {
				if e.Line == 0 || e.File != "general.log" {
					t.Errorf("a skipped line without its place: %v", e)
				}
			}
		})
	}
}

// FuzzMySQLLog: no input makes the parser panic, and every statement has
// a session.
func FuzzMySQLLog(f *testing.F) {
	f.Add(mariadb)
	f.Add(mysql8)
	f.Add("261122  7:22:3\t 3 Connect\t\n\t\t 3 Query")
	f.Fuzz(func(t *testing.T, log string) {
		p := New(strings.NewReader(log), Config{})
		loadAll(t, log, func() replay.Parser { return New(strings.NewReader(log), Config{}) })
		for n := 0; ; n++ {
			e, ok := p.Next()
			if !ok {
				break
			}
			if e.Session == "" {
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
	lg, err := replay.Load(parser(), replay.MySQL)
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

// BenchmarkParse reads a MariaDB log of short and multi-line queries.
func BenchmarkParse(b *testing.B) {
	var log strings.Builder
	for log.Len() < 1<<20 {
		log.WriteString(mariadb)
	}
	b.SetBytes(int64(log.Len()))
	b.ReportAllocs()
	for b.Loop() {
		p := New(strings.NewReader(log.String()), Config{})
		for {
			if _, ok := p.Next(); !ok {
				break
			}
		}
	}
}
