// Command pgwire is the leanest Go peer of kurabe's PostgreSQL read-latest
// operation: pgconn connects (and authenticates), then the loop takes the
// raw socket (pgconn.Hijack), sends Parse once and per query one pre-built
// Bind+Execute+Sync write, and reads until ReadyForQuery, decoding only the
// DataRow's field lengths. It tells how fast Go can go on this machine,
// apart from any driver's per-query work.
//
// -read netpoll reads through the net.Conn (Go's network poller parks the
// goroutine while the server works); -read blocking reads a dup of the
// socket put in blocking mode with read(2), so the thread sleeps in the
// kernel instead, as libpq's does. -literal writes LIMIT 1 into the
// statement instead of binding it, as a pgbench script without variables
// sends it (the server then runs one cached generic plan instead of
// planning every execution).
//
// It prints one JSON line: {"ops": N, "ops_per_s": X, "cpu_us_per_op": Y}.
package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

const query = `SELECT "id", "category", "text", "created" FROM "kurabe"."posts" ORDER BY "id" DESC LIMIT $1`

func main() {
	dsn := flag.String("dsn", "", "PostgreSQL URL (required)")
	dur := flag.Duration("d", 5*time.Second, "how long to loop")
	clients := flag.Int("c", 1, "connections, one goroutine each")
	read := flag.String("read", "netpoll", "netpoll or blocking")
	literal := flag.Bool("literal", false, "LIMIT 1 written into the statement (no parameter), as a pgbench script without variables sends it")
	flag.Parse()
	if *dsn == "" || (*read != "netpoll" && *read != "blocking") {
		fmt.Fprintln(os.Stderr, "pgwire: give -dsn URL and -read netpoll|blocking")
		os.Exit(2)
	}
	stmt := query
	if *literal {
		stmt = query[:len(query)-2] + "1"
	}
	ctx := context.Background()
	var ops atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, *clients)
	conns := make([]io.ReadWriter, *clients)
	for i := range conns {
		c, err := dial(ctx, *dsn, *read == "blocking")
		if err != nil {
			fmt.Fprintln(os.Stderr, "pgwire:", err)
			os.Exit(1)
		}
		conns[i] = c
	}
	var ru0 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	start := time.Now()
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, err := loop(c, stmt, start, *dur)
			if err != nil {
				errs <- err
			}
			ops.Add(n)
		}()
	}
	wg.Wait()
	el := time.Since(start)
	var ru1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	close(errs)
	for err := range errs {
		fmt.Fprintln(os.Stderr, "pgwire:", err)
		os.Exit(1)
	}
	cpu := time.Duration(ru1.Utime.Nano()+ru1.Stime.Nano()-ru0.Utime.Nano()-ru0.Stime.Nano()) * time.Nanosecond
	n := ops.Load()
	fmt.Printf("{\"ops\": %d, \"ops_per_s\": %.1f, \"cpu_us_per_op\": %.2f}\n", n, float64(n)/el.Seconds(), float64(cpu.Microseconds())/float64(n))
}

// dial connects with pgconn and returns the raw socket, or with blocking a
// blocking file descriptor of it.
func dial(ctx context.Context, dsn string, blocking bool) (io.ReadWriter, error) {
	pc, err := pgconn.Connect(ctx, dsn)
	if err != nil {
		return nil, err
	}
	if err := pc.SyncConn(ctx); err != nil {
		return nil, err
	}
	hc, err := pc.Hijack()
	if err != nil {
		return nil, err
	}
	if !blocking {
		return hc.Conn, nil
	}
	sc, ok := hc.Conn.(syscall.Conn)
	if !ok {
		return nil, errors.New("not a socket")
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil, err
	}
	var fd int
	var derr error
	rc.Control(func(f uintptr) { fd, derr = syscall.Dup(int(f)) })
	if derr != nil {
		return nil, derr
	}
	if err := syscall.SetNonblock(fd, false); err != nil {
		return nil, err
	}
	// The dup shares the socket; keep hc.Conn open so it is not shut down.
	keep = append(keep, hc.Conn)
	return rawFD(fd), nil
}

var keep []net.Conn

type rawFD int

func (f rawFD) Read(p []byte) (int, error) {
	for {
		n, err := syscall.Read(int(f), p)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return 0, err
		}
		if n == 0 {
			return 0, io.EOF
		}
		return n, nil
	}
}

func (f rawFD) Write(p []byte) (int, error) {
	w := 0
	for w < len(p) {
		n, err := syscall.Write(int(f), p[w:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return w, err
		}
		w += n
	}
	return w, nil
}

func msg(b []byte, typ byte, body func([]byte) []byte) []byte {
	b = append(b, typ, 0, 0, 0, 0)
	at := len(b) - 4
	b = body(b)
	binary.BigEndian.PutUint32(b[at:], uint32(len(b)-at))
	return b
}

func loop(c io.ReadWriter, stmt string, start time.Time, dur time.Duration) (int64, error) {
	r := bufio.NewReaderSize(c, 8192)
	// Parse the statement once (parameter type left to the server: bigint).
	parse := msg(nil, 'P', func(b []byte) []byte {
		b = append(b, "s1\x00"...)
		b = append(b, stmt...)
		b = append(b, 0, 0, 0)
		return b
	})
	parse = msg(parse, 'S', func(b []byte) []byte { return b })
	if _, err := c.Write(parse); err != nil {
		return 0, err
	}
	if _, err := readUntilReady(r); err != nil {
		return 0, err
	}
	// Bind: unnamed portal, statement s1, one binary parameter (int8 1),
	// every result column binary; Execute all rows; Sync.
	q := msg(nil, 'B', func(b []byte) []byte {
		b = append(b, 0)
		b = append(b, "s1\x00"...)
		if stmt == query {
			b = append(b, 0, 1, 0, 1) // one format: binary
			b = append(b, 0, 1, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 1)
		} else {
			b = append(b, 0, 0, 0, 0) // no parameters
		}
		b = append(b, 0, 1, 0, 1) // results: all binary
		return b
	})
	q = msg(q, 'E', func(b []byte) []byte { return append(b, 0, 0, 0, 0, 0) })
	q = msg(q, 'S', func(b []byte) []byte { return b })
	var n int64
	for time.Since(start) < dur {
		if _, err := c.Write(q); err != nil {
			return n, err
		}
		rows, err := readUntilReady(r)
		if err != nil {
			return n, err
		}
		if rows != 1 {
			return n, fmt.Errorf("%d rows, want 1", rows)
		}
		n++
	}
	return n, nil
}

// readUntilReady reads messages up to ReadyForQuery and returns the number
// of DataRows, having walked each one's field lengths.
func readUntilReady(r *bufio.Reader) (int, error) {
	var hdr [5]byte
	rows := 0
	for {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return rows, err
		}
		size := int(binary.BigEndian.Uint32(hdr[1:])) - 4
		var body []byte
		var err error
		if size <= r.Size() {
			body, err = r.Peek(size)
			if err != nil {
				return rows, err
			}
		}
		switch hdr[0] {
		case 'D':
			nf := int(binary.BigEndian.Uint16(body))
			p := 2
			for range nf {
				l := int(int32(binary.BigEndian.Uint32(body[p:])))
				p += 4
				if l > 0 {
					p += l
				}
			}
			rows++
		case 'E':
			return rows, fmt.Errorf("server error: %q", body)
		}
		if _, err := r.Discard(size); err != nil {
			return rows, err
		}
		if hdr[0] == 'Z' {
			return rows, nil
		}
	}
}
