// Command pgloop is the bare-loop peer of kurabe's PostgreSQL read-latest
// operation: one pgx connection per client, the same prepared statement,
// stepped in a tight loop for a fixed time. It prints one JSON line:
// {"ops": N, "ops_per_s": X}.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// The statement kurabe's PostgreSQL store prepares for bbs read-latest.
const query = `SELECT "id", "category", "text", "created" FROM "kurabe"."posts" ORDER BY "id" DESC LIMIT $1`

func main() {
	dsn := flag.String("dsn", "", "PostgreSQL URL (required)")
	dur := flag.Duration("d", 5*time.Second, "how long to loop")
	clients := flag.Int("c", 1, "connections, one goroutine each")
	flag.Parse()
	if *dsn == "" {
		fmt.Fprintln(os.Stderr, "pgloop: give -dsn URL")
		os.Exit(2)
	}
	ctx := context.Background()
	var ops atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, *clients)
	start := time.Now()
	for range *clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := pgx.Connect(ctx, *dsn)
			if err != nil {
				errs <- err
				return
			}
			defer c.Close(ctx)
			var n int64
			for time.Since(start) < *dur {
				rows, err := c.Query(ctx, query, 1)
				if err != nil {
					errs <- err
					return
				}
				for rows.Next() {
					_ = rows.RawValues()
				}
				rows.Close()
				if err := rows.Err(); err != nil {
					errs <- err
					return
				}
				n++
			}
			ops.Add(n)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		fmt.Fprintln(os.Stderr, "pgloop:", err)
		os.Exit(1)
	}
	el := time.Since(start).Seconds()
	fmt.Printf("{\"ops\": %d, \"ops_per_s\": %.1f}\n", ops.Load(), float64(ops.Load())/el)
}
