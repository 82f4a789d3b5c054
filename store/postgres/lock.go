package postgres

import (
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"net"
	"strconv"
	"strings"
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
// of its own that it keeps until closed: the server releases the lock
// when the connection goes, so a killed kurabe holds nothing. The
// connection's application_name says who holds it, for the kurabe that
// is refused.
func (s *Store) Lock(ctx context.Context, me store.Holder) (io.Closer, error) {
	cfg := s.cfg.Copy()
	cfg.RuntimeParams["application_name"] = holderName(me)
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, s.fail(fmt.Errorf("postgres: cannot connect to %s to lock kurabe's schema: %w", s.target, err))
	}
	var got bool
	if err := c.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", lockKey()).Scan(&got); err != nil {
		closeConn(c)
		return nil, s.fail(fmt.Errorf("postgres: %s: locking kurabe's schema: %w", s.target, err))
	}
	if got {
		// The connection idles for the whole run: a server that ends
		// idle sessions would end the lock with it. An older server
		// without the setting has no such timeout.
		c.Exec(ctx, "SET idle_session_timeout = 0")
		return pgLock{c}, nil
	}
	held := &store.HeldError{
		What: fmt.Sprintf("kurabe's tables in %s on %s", cfg.Database, net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port)))),
		Hint: "another database",
	}
	// Who holds it, as far as this account may see: pg_stat_activity
	// hides other users' sessions' details from most accounts.
	var app *string
	var pid *int32
	key := lockKey()
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
	return nil, held
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

type pgLock struct{ c *pgx.Conn }

// Close ends the connection, which releases the lock.
func (l pgLock) Close() error {
	closeConn(l.c)
	return nil
}
