package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"hash/fnv"
	"io"

	"kurabe/store"
)

// lockName is the GET_LOCK name of kurabe's database. The server's names
// are server-wide and at most 64 characters: a long database name is
// hashed.
func (s *Store) lockName() string {
	n := "kurabe:" + s.opts.database
	if len(n) > 64 {
		h := fnv.New64a()
		h.Write([]byte(s.opts.database))
		n = fmt.Sprintf("kurabe:%016x", h.Sum64())
	}
	return n
}

// LockName names the database on the server (store.Locker); a managed
// server is the run's own and needs no lock.
func (s *Store) LockName() string {
	if s.m != nil || s.base == nil {
		return ""
	}
	return "mysql://" + s.base.Addr + "/" + s.opts.database
}

// Lock takes GET_LOCK on kurabe's database, on a connection of its own
// that it keeps until closed: the server releases the lock when the
// connection goes, so a killed kurabe holds nothing.
func (s *Store) Lock(ctx context.Context, me store.Holder) (io.Closer, error) {
	db, err := openDB(s.base)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.driver, err)
	}
	db.SetMaxOpenConns(1)
	c, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, scrub(fmt.Errorf("%s: cannot connect to %s to lock kurabe's database: %w", s.driver, s.target, classify(err, true)), s.secret)
	}
	var got sql.NullInt64
	if err := c.QueryRowContext(ctx, "SELECT GET_LOCK(?, 0)", s.lockName()).Scan(&got); err != nil {
		c.Close()
		db.Close()
		return nil, scrub(fmt.Errorf("%s: %s: locking kurabe's database: %w", s.driver, s.target, classify(err, false)), s.secret)
	}
	if got.Valid && got.Int64 == 1 {
		// The connection idles for the whole run: wait_timeout would end
		// it, and the lock with it (a year is the longest the server
		// takes).
		c.ExecContext(ctx, "SET SESSION wait_timeout = 31536000")
		return &myLock{db: db, c: c}, nil
	}
	held := &store.HeldError{
		What: fmt.Sprintf("kurabe's tables in %s on %s", s.opts.database, s.base.Addr),
		Hint: "another database",
	}
	// The holder's connection, as far as this account may see it (its
	// own connections, or all with PROCESS): it has been idle since it
	// took the lock.
	var id sql.NullInt64
	if c.QueryRowContext(ctx, "SELECT IS_USED_LOCK(?)", s.lockName()).Scan(&id) == nil && id.Valid {
		held.Detail = fmt.Sprintf("server connection %d", id.Int64)
		var host string
		var secs int64
		if c.QueryRowContext(ctx, "SELECT HOST, TIME FROM information_schema.PROCESSLIST WHERE ID = ?", id.Int64).Scan(&host, &secs) == nil {
			held.Detail += fmt.Sprintf(" from %s, holding it for %d s", host, secs)
		}
	}
	c.Close()
	db.Close()
	return nil, held
}

type myLock struct {
	db *sql.DB
	c  *sql.Conn
}

// Close ends the connection, which releases the lock.
func (l *myLock) Close() error {
	l.c.Close()
	return l.db.Close()
}
