package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"sync"
	"time"

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

// Lock takes GET_LOCK on kurabe's database, on a connection that it keeps
// until closed: the server releases the lock when the connection goes, so
// a killed kurabe holds nothing. The connection is also the store's own
// for setup, counting and verification (see own), so that the lock costs
// the server no connection more than a run without it.
func (s *Store) Lock(ctx context.Context, me store.Holder) (io.Closer, error) {
	db, err := openDB(s.base)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.driver, err)
	}
	// One connection, closed when given back, not kept idle: a lost one
	// is made again in its place.
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(0)
	l := &myLock{db: db, user: s.base.User, name: s.lockName()}
	if err := l.take(ctx, s); err != nil {
		db.Close()
		return nil, err
	}
	s.ShareLock(l)
	return l, nil
}

// ShareLock makes l, this command's lock on the database that another
// store of the same namespace took (--repeat, --via-http, --vary), this
// store's own connection too (store.LockSharer).
func (s *Store) ShareLock(l io.Closer) {
	// Another account's store keeps connecting as itself: its tables
	// must be made and counted as its own.
	if ml, ok := l.(*myLock); ok && s.base != nil && ml.user == s.base.User {
		s.mu.Lock()
		s.lock = ml
		s.mu.Unlock()
	}
}

// myLock is kurabe's lock on its database, and the connection that holds
// it.
type myLock struct {
	db   *sql.DB
	user string // the account it connects as
	name string // the GET_LOCK name

	mu     sync.Mutex // one use of the connection at a time
	c      *sql.Conn  // nil once closed
	lost   error      // the lock went with its connection, and another took it
	closed bool
}

// take connects and takes the lock, or returns a *store.HeldError saying
// who holds it. l.mu is held or l is not shared yet.
func (l *myLock) take(ctx context.Context, s *Store) error {
	c, err := l.db.Conn(ctx)
	if err != nil {
		return scrub(fmt.Errorf("%s: cannot connect to %s to lock kurabe's database: %w", s.driver, s.target, classify(err, true)), s.secret)
	}
	var got sql.NullInt64
	if err := c.QueryRowContext(ctx, "SELECT GET_LOCK(?, 0)", s.lockName()).Scan(&got); err != nil {
		c.Close()
		return scrub(fmt.Errorf("%s: %s: locking kurabe's database: %w", s.driver, s.target, classify(err, false)), s.secret)
	}
	if got.Valid && got.Int64 == 1 {
		// Between uses the connection idles, through whole phases:
		// wait_timeout would end it, and the lock with it (a year is the
		// longest the server takes).
		c.ExecContext(ctx, "SET SESSION wait_timeout = 31536000")
		l.c = c
		return nil
	}
	held := &store.HeldError{
		What: fmt.Sprintf("kurabe's tables in %s on %s", s.opts.database, s.base.Addr),
		Hint: "another database",
	}
	// The holder's connection, as far as this account may see it (its
	// own connections, or all with PROCESS).
	var id sql.NullInt64
	if c.QueryRowContext(ctx, "SELECT IS_USED_LOCK(?)", s.lockName()).Scan(&id) == nil && id.Valid {
		held.Detail = fmt.Sprintf("server connection %d", id.Int64)
		var host string
		if c.QueryRowContext(ctx, "SELECT HOST FROM information_schema.PROCESSLIST WHERE ID = ?", id.Int64).Scan(&host) == nil {
			held.Detail += " from " + host
		}
	}
	c.Close()
	return held
}

// use returns the lock's connection for one of s's own uses, and done,
// which gives it back. The connection is checked first: one the server
// ended (KILL, a restart) or that broke took the lock with it, and is
// made again and the lock taken again. Should another kurabe have taken
// it meanwhile, this and every later use fail: the tables may have been
// another's since. c is nil, with no error, when the lock is let go
// already or its connection is in use (a count while a bulk load runs),
// for the caller to connect as it would without a lock.
func (l *myLock) use(ctx context.Context, s *Store) (c *sql.Conn, done func(), err error) {
	if !l.mu.TryLock() {
		return nil, nil, nil
	}
	switch {
	case l.lost != nil:
		l.mu.Unlock()
		return nil, nil, l.lost
	case l.closed:
		l.mu.Unlock()
		return nil, nil, nil
	}
	if l.c == nil || l.c.PingContext(ctx) != nil {
		if err := ctx.Err(); err != nil {
			l.mu.Unlock()
			return nil, nil, err
		}
		if l.c != nil {
			l.c.Close() // closed, not kept: the pool keeps none idle
			l.c = nil
		}
		// A connection that cannot be made now is tried again at the
		// next use.
		if err := l.take(ctx, s); err != nil {
			if errors.Is(err, store.ErrHeld) {
				l.lost = fmt.Errorf("%s: %s: the connection that held kurabe's lock on its database was lost, and when it was made again %w", s.driver, s.target, err)
				err = l.lost
			}
			l.mu.Unlock()
			return nil, nil, err
		}
	}
	return l.c, l.mu.Unlock, nil
}

// Close ends the connection, which releases the lock. It waits for a use
// in progress.
func (l *myLock) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.c != nil {
		// Let go of it first: the server frees a closed connection's
		// locks only as it notices the close, and a kurabe started
		// right after this one ends would be refused meanwhile.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		l.c.ExecContext(ctx, "DO RELEASE_LOCK(?)", l.name)
		cancel()
		l.c.Close()
		l.c = nil
	}
	l.closed = true
	return l.db.Close()
}
