// Command sqliteloop is the bare-loop peer of kurabe's SQLite read-latest
// operation: one connection, the same per-connection pragmas and the same
// prepared statement, stepped in a tight loop for a fixed time. It prints one
// JSON line: {"ops": N, "ops_per_s": X, "mean_us": Y}.
//
// It reads a database kurabe has already filled (table kurabe_posts).
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// The statement kurabe's SQLite store prepares for bbs read-latest.
const query = "SELECT id, category, text, created FROM kurabe_posts ORDER BY id DESC LIMIT ?1"

func main() {
	db := flag.String("db", "", "database file (required)")
	dur := flag.Duration("d", 5*time.Second, "how long to loop")
	latest := flag.Int64("latest", 1, "rows per query (the LIMIT)")
	busy := flag.String("busy-timeout", "5000", "PRAGMA busy_timeout, applied first")
	sync := flag.String("synchronous", "", "PRAGMA synchronous (empty: not set)")
	cache := flag.String("cache-size", "", "PRAGMA cache_size (empty: not set)")
	flag.Parse()
	if *db == "" {
		fmt.Fprintln(os.Stderr, "sqliteloop: give -db FILE")
		os.Exit(2)
	}
	if err := run(*db, *dur, *latest, *busy, *sync, *cache); err != nil {
		fmt.Fprintln(os.Stderr, "sqliteloop:", err)
		os.Exit(1)
	}
}

func run(path string, dur time.Duration, latest int64, busy, sync, cache string) error {
	c, err := sqlite3.Open(path)
	if err != nil {
		return err
	}
	defer c.Close()
	// Same order as kurabe's store: busy_timeout, then synchronous, then cache_size.
	for _, p := range [][2]string{{"busy_timeout", busy}, {"synchronous", sync}, {"cache_size", cache}} {
		if p[1] == "" {
			continue
		}
		if err := c.Exec("PRAGMA " + p[0] + " = " + p[1]); err != nil {
			return fmt.Errorf("PRAGMA %s = %s: %w", p[0], p[1], err)
		}
	}
	st, _, err := c.Prepare(query)
	if err != nil {
		return fmt.Errorf("prepare: %w", err)
	}
	defer st.Close()

	var ops, rows, sink int64
	start := time.Now()
	var elapsed time.Duration
	for {
		if err := st.BindInt64(1, latest); err != nil {
			return err
		}
		for st.Step() {
			id := st.ColumnInt64(0)
			cat := st.ColumnRawText(1)
			text := st.ColumnRawText(2)
			created := st.ColumnInt64(3)
			sink += id + created + int64(len(cat)) + int64(len(text))
			rows++
		}
		if err := st.Err(); err != nil {
			return err
		}
		if err := st.Reset(); err != nil {
			return err
		}
		ops++
		if elapsed = time.Since(start); elapsed >= dur {
			break
		}
	}
	if rows == 0 {
		return fmt.Errorf("%s: kurabe_posts returned no rows; fill it first", path)
	}
	sec := elapsed.Seconds()
	fmt.Printf("{\"ops\": %d, \"ops_per_s\": %.1f, \"mean_us\": %.3f, \"rows\": %d, \"sink\": %d}\n",
		ops, float64(ops)/sec, sec*1e6/float64(ops), rows, sink)
	return nil
}
