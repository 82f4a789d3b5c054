package httpload

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The test servers. All listen on 127.0.0.1 and are closed by the test.

// counting answers "ok" and counts requests.
func counting(t testing.TB) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		io.WriteString(w, "ok")
	}))
	t.Cleanup(ts.Close)
	return ts, &n
}

// erroring answers 503 to every 4th request and 404 to every 10th (the
// 20th, 40th, ... are 503s), 200 otherwise.
func erroring(t testing.TB) *httptest.Server {
	var n atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch i := n.Add(1); {
		case i%4 == 0:
			w.WriteHeader(http.StatusServiceUnavailable)
		case i%10 == 0:
			w.WriteHeader(http.StatusNotFound)
		}
		io.WriteString(w, "body")
	}))
	t.Cleanup(ts.Close)
	return ts
}

// varying answers bodies of 10 to 19 bytes in turn, as a dynamic page
// whose length changes with its content.
func varying(t testing.TB) *httptest.Server {
	var n atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(bytes.Repeat([]byte("x"), 10+int(n.Add(1)%10)))
	}))
	t.Cleanup(ts.Close)
	return ts
}

// slow answers after d.
func slow(t testing.TB, d time.Duration) *httptest.Server {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(d)
		io.WriteString(w, "late")
	}))
	t.Cleanup(ts.Close)
	return ts
}

// stalling answers at once, except that it stalls for d once, after the
// request at which: every request that arrives during the stall waits
// until it ends, as a server in a garbage collection pause or waiting on
// a lock would.
func stalling(t testing.TB, after int64, d time.Duration) *httptest.Server {
	var n atomic.Int64
	var mu sync.Mutex
	var until time.Time
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == after {
			mu.Lock()
			until = time.Now().Add(d)
			mu.Unlock()
		}
		mu.Lock()
		wait := time.Until(until)
		mu.Unlock()
		if wait > 0 {
			time.Sleep(wait)
		}
		io.WriteString(w, "ok")
	}))
	t.Cleanup(ts.Close)
	return ts
}

// tokenAPI is a Data-API-style service: POST /api/login answers a token
// in JSON; /api/find and /api/logout refuse requests without a valid one.
type tokenAPI struct {
	*httptest.Server
	logins, finds, logouts, rejected atomic.Int64
	mu                               sync.Mutex
	live                             map[string]bool
}

func newTokenAPI(t testing.TB) *tokenAPI {
	a := &tokenAPI{live: map[string]bool{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/login", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		if r.Form.Get("user") == "" {
			http.Error(w, `{"error":"no user"}`, http.StatusBadRequest)
			return
		}
		tok := fmt.Sprintf("tok-%s-%d", r.Form.Get("user"), a.logins.Add(1))
		a.mu.Lock()
		a.live[tok] = true
		a.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Session", tok)
		json.NewEncoder(w).Encode(map[string]any{"ok": true, "token": tok})
	})
	check := func(w http.ResponseWriter, r *http.Request) (string, bool) {
		tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		a.mu.Lock()
		ok := a.live[tok]
		a.mu.Unlock()
		if !ok {
			a.rejected.Add(1)
			http.Error(w, `{"error":"bad token"}`, http.StatusUnauthorized)
		}
		return tok, ok
	}
	mux.HandleFunc("GET /api/find", func(w http.ResponseWriter, r *http.Request) {
		if _, ok := check(w, r); !ok {
			return
		}
		a.finds.Add(1)
		off, _ := strconv.Atoi(r.URL.Query().Get("offset"))
		lim, _ := strconv.Atoi(r.URL.Query().Get("limit"))
		items := []map[string]int{}
		for i := range lim {
			items = append(items, map[string]int{"id": off + i})
		}
		json.NewEncoder(w).Encode(map[string]any{"data": map[string]any{"items": items, "total": 120000}})
	})
	mux.HandleFunc("POST /api/logout", func(w http.ResponseWriter, r *http.Request) {
		tok, ok := check(w, r)
		if !ok {
			return
		}
		a.logouts.Add(1)
		a.mu.Lock()
		delete(a.live, tok)
		a.mu.Unlock()
		io.WriteString(w, `{"ok":true}`)
	})
	a.Server = httptest.NewServer(mux)
	t.Cleanup(a.Close)
	return a
}

// canned is a minimal HTTP/1.1 server that answers every request on a
// kept-alive connection with the same bytes, allocating nothing per
// request, so that benchmarks in this process count only the client's
// allocations (net/http's server allocates several times per request).
// It handles requests without bodies only.
func canned(t testing.TB, body string) string {
	resp := []byte("HTTP/1.1 200 OK\r\nServer: canned\r\nContent-Type: text/plain\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReaderSize(c, 64<<10)
				for {
					// A request ends at its empty line.
					for {
						line, err := r.ReadSlice('\n')
						if err != nil {
							return
						}
						if len(line) <= 2 {
							break
						}
					}
					if _, err := c.Write(resp); err != nil {
						return
					}
				}
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}
