package postgres

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"kurabe/store"
)

// lockKey is the advisory lock key of kurabe's schema: FNV-64 of its
// name, kept positive so that pg_locks' two halves of it compare as
// plain numbers. Advisory locks are per database, like the schema.
func lockKey() int64 {
	h := fnv.New64a()
	h.Write([]byte("kurabe:" + schema))
	return int64(h.Sum64() &^ (1 << 63))
}

// LockName names the database on the server (store.Locker); a managed
// server is the run's own and needs no lock.
func (s *Store) LockName() string {
	if s.managed != nil || s.cfg == nil {
		return ""
	}
	return "postgres://" + net.JoinHostPort(s.cfg.Host, strconv.Itoa(int(s.cfg.Port))) + "/" + s.cfg.Database + "#" + schema
}

// Lock takes a session advisory lock on kurabe's schema, on a connection
// that it keeps until closed: the server releases the lock when the
// connection goes, so a killed kurabe holds nothing. The connection is
// also the store's own for setup, counting and verification (see own),
// so that the lock costs the server no connection more than a run
// without it. Its application_name says who holds it, for the kurabe
// that is refused.
func (s *Store) Lock(ctx context.Context, me store.Holder) (io.Closer, error) {
	if err := s.ready(ctx); err != nil {
		return nil, err
	}
	cfg := s.cfg.Copy()
	cfg.RuntimeParams["application_name"] = holderName(me)
	// The server's synchronous_commit: use sets each store's own (a
	// --vary of it shares the lock), and SET ... TO DEFAULT goes back to
	// what the connection started with.
	delete(cfg.RuntimeParams, "synchronous_commit")
	// Each statement described anew, none cached: the connection
	// outlives the tables it counts, which Setup drops and makes again.
	if cfg.DefaultQueryExecMode == pgx.QueryExecModeCacheStatement {
		cfg.DefaultQueryExecMode = pgx.QueryExecModeDescribeExec
	}
	l := &pgLock{cfg: cfg}
	if err := l.take(ctx, s); err != nil {
		return nil, err
	}
	s.ShareLock(l)
	return l, nil
}

// ShareLock makes l, this command's lock on the schema that another store
// of the same namespace took (--repeat, --via-http, --vary), this store's
// own connection too (store.LockSharer).
func (s *Store) ShareLock(l io.Closer) {
	// Another account's store keeps connecting as itself: its tables
	// must be made and counted as its own.
	if pl, ok := l.(*pgLock); ok && pl.cfg.User == s.cfg.User {
		s.mu.Lock()
		s.lock = pl
		s.mu.Unlock()
	}
}

// pgLock is kurabe's lock on its schema, and the connection that holds it.
type pgLock struct {
	cfg *pgx.ConnConfig // to connect again when the connection is lost

	mu         sync.Mutex // one use of the connection at a time
	c          *pgx.Conn  // nil once closed
	syncCommit string     // the synchronous_commit c runs with ("" the server's)
	lost       error      // the lock went with its connection, and another took it
	closed     bool
}

// take connects and takes the lock, or returns a *store.HeldError saying
// who holds it. l.mu is held or l is not shared yet.
func (l *pgLock) take(ctx context.Context, s *Store) error {
	var c *pgx.Conn
	err := s.connecting(ctx, func(ctx context.Context) (err error) {
		c, err = pgx.ConnectConfig(ctx, l.cfg)
		return err
	})
	if err != nil {
		return err
	}
	key := lockKey()
	var got bool
	if err := c.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", key).Scan(&got); err != nil {
		closeConn(c)
		return s.fail(fmt.Errorf("postgres: %s: locking kurabe's schema: %w", s.target, err))
	}
	if got {
		// Between uses the connection idles, through whole phases: a
		// server that ends idle sessions would end the lock with it. An
		// older server without the setting has no such timeout.
		c.Exec(ctx, "SET idle_session_timeout = 0")
		l.c, l.syncCommit = c, ""
		return nil
	}
	held := &store.HeldError{
		What: fmt.Sprintf("kurabe's tables in %s on %s", l.cfg.Database, net.JoinHostPort(l.cfg.Host, strconv.Itoa(int(l.cfg.Port)))),
		Hint: "another database",
	}
	// Who holds it, as far as this account may see: pg_stat_activity
	// hides other users' sessions' details from most accounts.
	var app *string
	var pid *int32
	err = c.QueryRow(ctx, `SELECT a.application_name, l.pid FROM pg_catalog.pg_locks l
		LEFT JOIN pg_catalog.pg_stat_activity a ON a.pid = l.pid
		WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
		AND l.database = (SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database())
		AND l.classid::bigint = $1 AND l.objid::bigint = $2`, key>>32, key&0xffffffff).Scan(&app, &pid)
	closeConn(c)
	if err == nil {
		if app != nil {
			held.Holder = parseHolder(*app)
		}
		if pid != nil {
			held.Detail = fmt.Sprintf("server process %d", *pid)
		}
	}
	return held
}

// use returns the lock's connection for one of s's own uses, and done,
// which gives it back. The connection is checked first: one the server
// ended (pg_terminate_backend, a restart) or that broke took the lock
// with it, and is made again and the lock taken again. Should another
// kurabe have taken it meanwhile, this and every later use fail: the
// tables may have been another's since. c is nil, with no error, when
// the lock is let go already or its connection is in use (a count while
// a bulk load runs), for the caller to connect as it would without a
// lock.
func (l *pgLock) use(ctx context.Context, s *Store) (c *pgx.Conn, done func(), err error) {
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
	if l.c == nil || l.c.Ping(ctx) != nil {
		if err := ctx.Err(); err != nil {
			l.mu.Unlock()
			return nil, nil, err
		}
		if l.c != nil {
			closeConn(l.c)
			l.c = nil
		}
		// A connection that cannot be made now is tried again at the
		// next use.
		if err := l.take(ctx, s); err != nil {
			if errors.Is(err, store.ErrHeld) {
				l.lost = fmt.Errorf("postgres: %s: the connection that held kurabe's lock on its schema was lost, and when it was made again %w", s.target, err)
				err = l.lost
			}
			l.mu.Unlock()
			return nil, nil, err
		}
	}
	// The store's sessions' synchronous_commit, as a fresh connection of
	// its own would have it (a --vary of it shares one lock).
	if l.syncCommit != s.syncCommit {
		v := s.syncCommit
		if v == "" {
			v = "DEFAULT"
		}
		if _, err := l.c.Exec(ctx, "SET synchronous_commit TO "+v); err != nil {
			l.mu.Unlock()
			return nil, nil, s.fail(fmt.Errorf("postgres: %s: %w", s.target, err))
		}
		l.syncCommit = s.syncCommit
	}
	return l.c, l.mu.Unlock, nil
}

// holderName is an application_name that says who holds the lock, within
// PostgreSQL's 63 bytes (a long host name is cut).
func holderName(me store.Holder) string {
	n := fmt.Sprintf("%s|%d|%d|%s", me.Command, me.PID, me.Since.Unix(), me.Host)
	if len(n) > 63 {
		n = n[:63]
	}
	return n
}

func parseHolder(app string) store.Holder {
	f := strings.SplitN(app, "|", 4)
	if len(f) != 4 || !strings.HasPrefix(f[0], "kurabe") {
		return store.Holder{}
	}
	h := store.Holder{Command: f[0], Host: f[3]}
	h.PID, _ = strconv.Atoi(f[1])
	if sec, err := strconv.ParseInt(f[2], 10, 64); err == nil {
		h.Since = time.Unix(sec, 0)
	}
	return h
}

// Close ends the connection, which releases the lock. It waits for a use
// in progress.
func (l *pgLock) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.c != nil {
		// Let go of it first: the server frees a closed connection's
		// locks only as its process ends, and a kurabe started right
		// after this one ends would be refused meanwhile.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		l.c.Exec(ctx, "SELECT pg_advisory_unlock($1)", lockKey())
		cancel()
		closeConn(l.c)
		l.c = nil
	}
	l.closed = true
	return nil
}
