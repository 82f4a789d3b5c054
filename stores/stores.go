// Package stores is the table of built-in stores. Adding a store means
// adding its folder under store/ and one line here.
package stores

import (
	"kurabe/store"
	"kurabe/store/file"
	"kurabe/store/httpstore"
	"kurabe/store/mysql"
	"kurabe/store/postgres"
	"kurabe/store/sqlite"
)

// Entry is one store driver.
type Entry struct {
	Driver  string
	Open    store.Opener
	Summary string
	Example string
	// Dialect is the SQL its sessions take (store.SQLSession.Dialect):
	// postgres, mysql or sqlite, or empty for a store that runs none. The
	// command line checks it before a store starts.
	Dialect string
	// KeysInOrder says that the store takes rows whose keys its clients
	// give in increasing order only (the file store appends them), so
	// that the command line refuses a workload that would give them out
	// of order (workload.OwnKeys) before the store starts.
	KeysInOrder bool
	// PerOpNoSQL says that the store's sessions take no SQL with
	// connect=per-op (SQLite's open the file for each operation through
	// the Session calls), so that the command line refuses a workload
	// that runs only SQL (workload.SQLOnly) on such a store before it
	// starts.
	PerOpNoSQL bool
	// InFile says that the store keeps its data in a file at the spec's
	// path (file:PATH, sqlite:PATH), whose directory the command line
	// checks before the store starts.
	InFile bool
	// FilesPerSession is how many files a client's session holds open at
	// most: a connection's socket, SQLite's database and its journal, the
	// file store's descriptor of its table's file (each session opens its
	// own, with O_APPEND; every workload the file store runs has one
	// table). The command line checks -c against ulimit -n with it.
	FilesPerSession int
	// FilesPerTable, when not nil, is how many files the store itself
	// holds open for each table through the run: the file store's one per
	// table with sync=interval, for its syncer. With --isolate every
	// client has tables of its own, so the command line counts these per
	// client too.
	FilesPerTable func(store.Spec) int
	// Server says how the throwaway server the driver starts itself
	// (DRIVER:managed) takes a max_connections given as an option; nil
	// for a driver that starts none. The command line checks -c against
	// it before the server starts.
	Server *Server
	// Workloads are the workloads the store runs, nil for any: a service
	// speaking kurabe serve's API has the message board's table only.
	// The command line refuses another before the store starts.
	Workloads []string
}

// Server is what the command line knows of a server a driver starts.
type Server struct {
	// StartsFrom is the smallest max_connections the server starts
	// with: PostgreSQL refuses one at or below its
	// superuser_reserved_connections (3 by default).
	StartsFrom int
	// RunsAtLeast returns the smallest max_connections the server runs
	// with, raising a smaller one to it (MariaDB's 10); 1 when it runs
	// any it starts with. It may ask the server program which it is, and
	// is asked only of a limit below the clients'.
	RunsAtLeast func() int
	// DefaultConnections returns the max_connections the server runs
	// when none is given (PostgreSQL's 100, MariaDB's 151), as the
	// server program says; 0 when it cannot say. It is asked only of a
	// spec that gives none.
	DefaultConnections func() int
	// Own are the driver's own options; every other option of a managed
	// store is a server setting, whose name the server takes in any case
	// (store.LowerSettings).
	Own []string
}

// mysqlServer is the server mariadb:managed or mysql:managed starts; the
// latter may be MySQL (mysql.MinConnections).
func mysqlServer(driver string) *Server {
	return &Server{StartsFrom: 1, RunsAtLeast: func() int { return mysql.MinConnections(driver) },
		DefaultConnections: func() int { return mysql.DefaultConnections(driver) }, Own: mysql.OwnOptions()}
}

// postgresServer is the server postgres:managed starts.
var postgresServer = &Server{StartsFrom: 4, RunsAtLeast: func() int { return 1 }, DefaultConnections: postgres.DefaultConnections, Own: postgres.OwnOptions()}

// Builtin lists the drivers kurabe ships.
var Builtin = []Entry{
	{"file", file.Open, "append-only text file, one post per line; options sync=none|write|interval, sync_interval", "file:/tmp/k/posts.txt?sync=write", "", true, false, true, 1, file.FilesPerTable, nil, nil},
	{"http", httpstore.Open, "a message-board service speaking kurabe serve's API (docs/serve.md), kurabe serve or your own app; options keepalive=1|0, timeout", "http://127.0.0.1:3001", "", false, false, false, 1, nil, nil, []string{"bbs"}},
	{"https", httpstore.Open, "the same over TLS (certificates checked against the system's roots)", "https://bbs.example.org/app", "", false, false, false, 1, nil, nil, []string{"bbs"}},
	{"mariadb", mysql.Open, "MariaDB server: mariadb://user:pass@host:port[/db] or mariadb:managed (a throwaway server kurabe starts); options engine=InnoDB|MyISAM|Aria, row_format, page_compressed, encrypted, connect=session|pool|per-op, pool_size, driver=wire|sql, database, and for managed any server setting", "mariadb:managed?innodb_page_size=8k", "mysql", false, false, false, 1, nil, mysqlServer("mariadb"), nil},
	{"mysql", mysql.Open, "MySQL or MariaDB server, as mariadb", "mysql://kurabe@127.0.0.1:3306/?engine=MyISAM", "mysql", false, false, false, 1, nil, mysqlServer("mysql"), nil},
	{"postgres", postgres.Open, "PostgreSQL: an existing server by URL, or managed (a throwaway server kurabe starts); options connect=session|pool|per-op, pool_size, protocol=extended|simple, driver=wire|pgx, synchronous_commit, and for managed any server setting", "postgres:managed?shared_buffers=256MB", "postgres", false, false, false, 1, nil, postgresServer, nil},
	{"sqlite", sqlite.Open, "SQLite database file; options connect=session|per-op, page_size, journal_mode, synchronous, cache_size, busy_timeout", "sqlite:/tmp/k/bbs.db?journal_mode=wal", "sqlite", false, true, true, 2, nil, nil, nil},
}
