// Command mywire is the leanest Go peer of sysbench's oltp_point_select:
// go-sql-driver/mysql shakes hands, then the loop takes the socket over
// (store/mysql/wire), prepares the statement once and per query sends one
// COM_STMT_EXECUTE packet and reads the reply in place. With -via sql the
// same loop goes through database/sql and the driver's prepared statement
// instead, as kurabe's store did. It tells how fast Go can go on this
// machine, apart from kurabe's per-operation work.
//
// It prints one JSON line: {"ops": N, "ops_per_s": X, "cpu_us_per_op": Y}.
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"

	"kurabe/store/mysql/wire"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "mywire:", err)
		os.Exit(1)
	}
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("mywire", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:3306", "server address")
	user := fs.String("user", "root", "user (password from MYSQL_PWD)")
	db := fs.String("db", "sbtest", "database")
	query := fs.String("query", "SELECT c FROM sbtest1 WHERE id=?", "statement with one integer parameter")
	rows := fs.Int64("rows", 100000, "keys are drawn uniformly from 1..rows")
	dur := fs.Duration("d", 5*time.Second, "how long to loop")
	clients := fs.Int("c", 1, "connections, one goroutine each")
	via := fs.String("via", "wire", "wire or sql")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.DBName = *user, os.Getenv("MYSQL_PWD"), "tcp", *addr, *db
	cfg.Collation = "utf8mb4_bin"
	ctx := context.Background()

	var loops []func(deadline time.Time) (int64, error)
	cached := false
	switch *via {
	case "wire":
		for i := range *clients {
			c, err := wire.Connect(ctx, cfg.Clone())
			if err != nil {
				return err
			}
			defer c.Close()
			cached = c.CachesMetadata()
			st, err := c.Prepare(ctx, *query)
			if err != nil {
				return err
			}
			rng := rand.New(rand.NewPCG(uint64(i), 1))
			loops = append(loops, func(deadline time.Time) (int64, error) {
				var n int64
				for time.Now().Before(deadline) {
					c.Start(st)
					c.Int(1 + rng.Int64N(*rows))
					if err := c.Send(ctx); err != nil {
						return n, err
					}
					got := 0
					for c.Next() {
						got++
					}
					if err := c.Done(); err != nil {
						return n, err
					}
					if got != 1 {
						return n, fmt.Errorf("%d rows, want 1", got)
					}
					n++
				}
				return n, nil
			})
		}
	case "sql":
		cn, err := mysql.NewConnector(cfg)
		if err != nil {
			return err
		}
		pool := sql.OpenDB(cn)
		defer pool.Close()
		for i := range *clients {
			c, err := pool.Conn(ctx)
			if err != nil {
				return err
			}
			st, err := c.PrepareContext(ctx, *query)
			if err != nil {
				return err
			}
			rng := rand.New(rand.NewPCG(uint64(i), 1))
			var v sql.RawBytes
			loops = append(loops, func(deadline time.Time) (int64, error) {
				var n int64
				for time.Now().Before(deadline) {
					r, err := st.QueryContext(ctx, 1+rng.Int64N(*rows))
					if err != nil {
						return n, err
					}
					got := 0
					for r.Next() {
						r.Scan(&v)
						got++
					}
					if err := r.Close(); err != nil {
						return n, err
					}
					if got != 1 {
						return n, fmt.Errorf("%d rows, want 1", got)
					}
					n++
				}
				return n, nil
			})
		}
	default:
		return fmt.Errorf("-via %q: want wire or sql", *via)
	}

	var ops atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, len(loops))
	var ru0, ru1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	start := time.Now()
	for _, loop := range loops {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, err := loop(start.Add(*dur))
			if err != nil {
				errs <- err
			}
			ops.Add(n)
		}()
	}
	wg.Wait()
	el := time.Since(start)
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	close(errs)
	for err := range errs {
		return err
	}
	cpu := time.Duration(ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano())
	n := ops.Load()
	_, err := fmt.Fprintf(out, "{\"ops\": %d, \"ops_per_s\": %.1f, \"cpu_us_per_op\": %.2f, \"metadata_cache\": %v}\n", n, float64(n)/el.Seconds(), float64(cpu.Microseconds())/float64(n), cached)
	return err
}
