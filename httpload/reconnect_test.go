package httpload

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"kurabe/engine"
	"kurabe/flow"
	"kurabe/result"
)

// paths runs f on the lean client and on fasthttp (the path TLS and flows
// take) for the same configuration.
func paths(t *testing.T, cfg Config, f func(t *testing.T, w *Workload)) {
	for _, path := range []string{"lean", "fasthttp"} {
		t.Run(path, func(t *testing.T) {
			w, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if path == "fasthttp" {
				w.lean, w.why = nil, "test"
			} else if w.lean == nil {
				t.Skip("no lean path here")
			}
			f(t, w)
		})
	}
}

// runW drives an existing workload with the engine.
func runW(t testing.TB, w *Workload, ec engine.Config) result.Phase {
	t.Helper()
	if ec.Seed == 0 {
		ec.Seed = 1
	}
	ph, err := engine.RunPhase(context.Background(), ec, w.Store(), w, 0)
	if err != nil {
		t.Fatal(err)
	}
	ph.HTTP = w.Stats()
	return ph
}

// rawServer is an HTTP/1.1 server on 127.0.0.1 that reads each request
// (its head, and its body by Content-Length) and hands the head to answer
// with the connection's request count (from 1); answer writes the
// response and says whether to keep the connection. It counts
// connections, requests and body bytes received.
type rawServer struct {
	url                        string
	conns, requests, bodyBytes atomic.Int64
}

func newRawServer(t *testing.T, answer func(c net.Conn, head string, n int) bool) *rawServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	s := &rawServer{url: "http://" + ln.Addr().String()}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.conns.Add(1)
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for n := 1; ; n++ {
					var head strings.Builder
					for {
						line, err := r.ReadString('\n')
						if err != nil {
							return
						}
						head.WriteString(line)
						if line == "\r\n" {
							break
						}
					}
					if i := strings.Index(strings.ToLower(head.String()), "content-length: "); i >= 0 {
						rest := head.String()[i+len("content-length: "):]
						n, _ := strconv.Atoi(rest[:strings.Index(rest, "\r")])
						if _, err := io.CopyN(io.Discard, r, int64(n)); err != nil {
							return
						}
						s.bodyBytes.Add(int64(n))
					}
					s.requests.Add(1)
					if !answer(c, head.String(), n) {
						return
					}
				}
			}()
		}
	}()
	return s
}

// A server that closes the connection after a request that asked for it
// (Connection: close) without saying so in its response, as Python's
// http.server does: with --close, or -H "Connection: close", every request
// must go out on a new connection, and none must be lost.
func TestCloseWithoutEcho(t *testing.T) {
	srv := newRawServer(t, func(c net.Conn, head string, _ int) bool {
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
		return !strings.Contains(strings.ToLower(head), "connection: close")
	})
	for _, how := range []string{"--close", "header"} {
		cfg := urls(srv.url + "/")
		if how == "--close" {
			cfg.Close = true
		} else {
			cfg.Headers = []Header{{"Connection", "close"}}
		}
		paths(t, cfg, func(t *testing.T, w *Workload) {
			c0, r0 := srv.conns.Load(), srv.requests.Load()
			ph := runW(t, w, engine.Config{Clients: 1, Count: 10})
			h := ph.HTTP
			if ph.Errors != 0 || h.Responses != 10 || h.Connections != 10 || h.Reconnects != 0 {
				t.Fatalf("%s: errors %+v, responses %d, connections %d, reconnects %d", how, ph.ErrorClasses, h.Responses, h.Connections, h.Reconnects)
			}
			if c, r := srv.conns.Load()-c0, srv.requests.Load()-r0; c != 10 || r != 10 {
				t.Fatalf("%s: the server saw %d connections and %d requests, want 10 and 10", how, c, r)
			}
		})
	}
}

// A server or proxy that times idle connections out with an unsolicited
// "408 Request Timeout" and Connection: close (HAProxy, Google's front
// end): the 408 answers none of kurabe's requests; the next request finds
// it waiting before it is written (the idle peek) and goes out on a new
// connection, counted as a reconnect and not as a failure, and the server
// sees each request once. (A 408 read after the write is a failure:
// TestWritten408IsAFailureNotResent.)
func TestUnsolicited408Reconnects(t *testing.T) {
	srv := newRawServer(t, func(c net.Conn, _ string, _ int) bool {
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
		time.Sleep(50 * time.Millisecond) // idle: the proxy gives up on the connection
		io.WriteString(c, "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
		return false
	})
	paths(t, urls(srv.url+"/"), func(t *testing.T, w *Workload) {
		r0 := srv.requests.Load()
		s, _ := w.Store().Open(context.Background())
		c := w.NewClient(s, newRand())
		for i := range 4 {
			if i > 0 {
				time.Sleep(200 * time.Millisecond) // the 408 has come and the connection is closed
			}
			if _, err := c.Do(context.Background(), 0); err != nil {
				t.Fatalf("request %d: %v", i+1, err)
			}
		}
		s.Close()
		h := w.Stats()
		if h.Requests != 4 || h.Failed != 0 || h.Reconnects != 3 || srv.requests.Load()-r0 != 4 {
			t.Fatalf("requests %d failed %d (%+v) reconnects %d; the server saw %d", h.Requests, h.Failed, h.Status, h.Reconnects, srv.requests.Load()-r0)
		}
	})
}

// An HTTP/1.0 response without Connection: keep-alive ends the connection,
// even when the server keeps it open.
func TestHTTP10ClosesWithoutKeepAlive(t *testing.T) {
	srv := newRawServer(t, func(c net.Conn, _ string, _ int) bool {
		io.WriteString(c, "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok")
		return true
	})
	paths(t, urls(srv.url+"/"), func(t *testing.T, w *Workload) {
		ph := runW(t, w, engine.Config{Clients: 1, Count: 6})
		if ph.Errors != 0 || ph.HTTP.Connections != 6 || ph.HTTP.Reconnects != 0 {
			t.Fatalf("errors %+v, connections %d, reconnects %d", ph.ErrorClasses, ph.HTTP.Connections, ph.HTTP.Reconnects)
		}
	})
}

// A server that closes idle kept-alive connections (Node and Apache after
// 5 s; here net/http after 100 ms): each request that finds its connection
// closed is sent again on a new one, is not a failure, and is counted as a
// reconnect; its latency includes the new connection.
func TestIdleCloseReconnects(t *testing.T) {
	var served atomic.Int64
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		io.WriteString(w, "ok")
	}))
	ts.Config.IdleTimeout = 100 * time.Millisecond
	ts.Start()
	t.Cleanup(ts.Close)

	check := func(t *testing.T, w *Workload) {
		s0 := served.Load()
		s, _ := w.Store().Open(context.Background())
		c := w.NewClient(s, newRand())
		for i := range 4 {
			if i > 0 {
				time.Sleep(300 * time.Millisecond) // the server has closed the connection
			}
			if _, err := c.Do(context.Background(), 0); err != nil {
				t.Fatalf("request %d: %v", i+1, err)
			}
		}
		s.Close()
		h := w.Stats()
		if h.Requests != 4 || h.Failed != 0 || h.Reconnects != 3 || h.Resent != 0 || h.Connections != 4 || served.Load()-s0 != 4 {
			t.Fatalf("requests %d failed %d reconnects %d resent %d connections %d; the server served %d", h.Requests, h.Failed, h.Reconnects, h.Resent, h.Connections, served.Load()-s0)
		}
		// Every request connected: the reconnects' connect time is theirs.
		if h.Connect.Count != 4 || h.Connect.Min <= 0 || h.Waiting.Count != 4 {
			t.Fatalf("connect %+v waiting %+v", h.Connect, h.Waiting)
		}
	}
	paths(t, urls(ts.URL+"/"), check)
	// A POST too: found closed before it was written, it reached no
	// server, so it goes out on a new connection whatever its method.
	post := urls(ts.URL + "/")
	post.Targets[0].Method, post.Targets[0].Body = "POST", []byte("a=1")
	t.Run("post", func(t *testing.T) { paths(t, post, check) })

	// The same in a flow, which goes through fasthttp.
	f, err := flow.Parse("idle.yaml", []byte("steps:\n  - url: /a\n"), flow.Options{Base: ts.URL})
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Flow = f
	w, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("flow", func(t *testing.T) { check(t, w) })

	// And over TLS, where the server's close_notify is not a response.
	tlsSrv := httptest.NewUnstartedServer(ts.Config.Handler)
	tlsSrv.Config.IdleTimeout = 100 * time.Millisecond
	tlsSrv.StartTLS()
	t.Cleanup(tlsSrv.Close)
	if w, err = New(urls(tlsSrv.URL + "/")); err != nil {
		t.Fatal(err)
	}
	t.Run("tls", func(t *testing.T) { check(t, w) })
}

// A request that fails on a new connection is a failure, sent once: a
// server that accepts and closes without answering sees one connection
// per request, not two.
func TestNoReconnectOnAFreshConnection(t *testing.T) {
	srv := newRawServer(t, func(net.Conn, string, int) bool { return false })
	paths(t, urls(srv.url+"/"), func(t *testing.T, w *Workload) {
		c0, r0 := srv.conns.Load(), srv.requests.Load()
		ph := runW(t, w, engine.Config{Clients: 1, Count: 3})
		if class(ph, "closed") != 3 || ph.HTTP.Reconnects != 0 {
			t.Fatalf("classes %+v, reconnects %d", ph.ErrorClasses, ph.HTTP.Reconnects)
		}
		if c, r := srv.conns.Load()-c0, srv.requests.Load()-r0; c != 3 || r != 3 {
			t.Fatalf("the server saw %d connections and %d requests, want 3 and 3", c, r)
		}
		for _, e := range ph.ErrorClasses {
			if strings.Contains(e.First, "fasthttp") {
				t.Errorf("message names fasthttp: %q", e.First)
			}
		}
	})
}

// Once a byte of the response has come, a closed connection is a failure:
// the server answered, part way.
func TestNoReconnectAfterPartOfAResponse(t *testing.T) {
	srv := newRawServer(t, func(c net.Conn, _ string, n int) bool {
		if n == 1 {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
			return true
		}
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Le")
		return false
	})
	paths(t, urls(srv.url+"/"), func(t *testing.T, w *Workload) {
		r0 := srv.requests.Load()
		ph := runW(t, w, engine.Config{Clients: 1, Count: 2})
		if ph.Ops != 1 || ph.Errors != 1 || ph.HTTP.Reconnects != 0 || srv.requests.Load()-r0 != 2 {
			t.Fatalf("ops %d, classes %+v, reconnects %d, requests %d", ph.Ops, ph.ErrorClasses, ph.HTTP.Reconnects, srv.requests.Load()-r0)
		}
	})
}

// With TLS and a connection per request, the wait for the first byte is
// measured (above TLS, after the request), not left out as it was when
// TLS's close_notify, written after the response, counted as the request's
// write and swallowed the server's time.
func TestTLSCloseMeasuresWaiting(t *testing.T) {
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(3 * time.Millisecond)
		io.WriteString(w, "secure")
	}))
	defer ts.Close()
	cfg := urls(ts.URL)
	cfg.Close = true
	ph := run(t, cfg, engine.Config{Clients: 1, Count: 10})
	h := ph.HTTP
	if ph.Errors != 0 || h.Connections != 10 || h.TLS.Count != 10 {
		t.Fatalf("errors %+v connections %d tls %+v", ph.ErrorClasses, h.Connections, h.TLS)
	}
	if h.Waiting.Count != 10 || h.Read.Count != 10 || h.Waiting.Min < 3000 || h.Write.Max >= 3000 {
		t.Fatalf("waiting %+v (want 10 of at least 3000 µs), read %+v, write %+v", h.Waiting, h.Read, h.Write)
	}
}

// Nothing listening: the clients pause between refused connects (1 ms
// doubling to 100 ms) instead of spinning, and every attempt is a failure.
func TestRefusedConnectsBackOff(t *testing.T) {
	ts, _ := counting(t)
	addr := ts.URL
	ts.Close()
	paths(t, urls(addr+"/"), func(t *testing.T, w *Workload) {
		ph := runW(t, w, engine.Config{Clients: 2, Duration: time.Second})
		n := class(ph, "connect")
		// Without the pause: tens of thousands. With it: 1+2+...+64 ms,
		// then one every 100 ms, about 16 per client.
		if n < 10 || n > 60 || n != ph.Errors || ph.HTTP.Failed != n {
			t.Fatalf("%d connect failures in 1 s on 2 clients; classes %+v", n, ph.ErrorClasses)
		}
		if err := w.Preflight(context.Background()); err == nil ||
			err.Error() != "nothing listens on "+strings.TrimPrefix(addr, "http://")+" (connection refused): start the server or check the URL" {
			t.Fatalf("preflight: %v", err)
		}
	})
	live, _ := counting(t)
	w, err := New(urls(live.URL))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Preflight(context.Background()); err != nil {
		t.Fatalf("preflight against a live server: %v", err)
	}
}

// dropping is a named fault fake: a server that reads every third request
// it receives (in full, body included) and then closes the connection
// without answering, as a crashing handler or a proxy dropping requests
// does. It counts the requests it dropped.
func dropping(t *testing.T) (*rawServer, *atomic.Int64) {
	var seen, dropped atomic.Int64
	srv := newRawServer(t, func(c net.Conn, _ string, _ int) bool {
		if seen.Add(1)%3 == 0 {
			dropped.Add(1)
			return false
		}
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
		return true
	})
	return srv, &dropped
}

// postFlow is a flow of one POST step against base.
func postFlow(t *testing.T, base string) Config {
	f, err := flow.Parse("post.yaml", []byte("steps:\n  - url: /posts\n    method: POST\n    body: category=test&text=hogehoge\n"), flow.Options{Base: base})
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Flow = f
	return cfg
}

// A POST the server read and then dropped without answering is a
// "closed" failure and is never sent again: the server must see each POST
// once, every drop must be a failure, and the bytes sent must be those
// of the POSTs the server got. kurabe used to resend it on a new
// connection, so the drops vanished from the report and the server
// handled a third of the POSTs twice.
func TestDroppedPostIsAFailureNotResent(t *testing.T) {
	srv, dropped := dropping(t)
	const body = "category=test&text=hogehoge"
	cfg := urls(srv.url + "/posts")
	cfg.Targets[0].Method, cfg.Targets[0].Body = "POST", []byte(body)
	check := func(t *testing.T, w *Workload) {
		r0, b0, d0 := srv.requests.Load(), srv.bodyBytes.Load(), dropped.Load()
		ph := runW(t, w, engine.Config{Clients: 1, Count: 30})
		h := ph.HTTP
		got, drops := srv.requests.Load()-r0, dropped.Load()-d0
		if got != 30 || h.Requests != 30 || h.Resent != 0 {
			t.Fatalf("the server got %d POSTs for %d requests (resent %d), want 30", got, h.Requests, h.Resent)
		}
		closed := class(ph, "closed") + class(ph, "step 1: closed")
		if drops == 0 || closed != drops || h.Failed != drops || ph.Errors != drops {
			t.Fatalf("the server dropped %d, kurabe counts %d closed and %d failed (%+v)", drops, closed, h.Failed, ph.ErrorClasses)
		}
		if b := srv.bodyBytes.Load() - b0; h.RequestBodyBytes != b || b != 30*int64(len(body)) {
			t.Fatalf("body bytes sent %d, the server got %d, want %d", h.RequestBodyBytes, b, 30*len(body))
		}
	}
	paths(t, cfg, check)
	w, err := New(postFlow(t, srv.url))
	if err != nil {
		t.Fatal(err)
	}
	t.Run("flow", func(t *testing.T) { check(t, w) })
}

// GETs the server read and dropped on a busy connection are failures
// too; should one be resent (a connection that happened to sit idle
// 100 ms), it is counted: every drop is a failure or a resend, and the
// server got the requests plus the resent ones.
func TestDroppedGetsAreCounted(t *testing.T) {
	srv, dropped := dropping(t)
	paths(t, urls(srv.url+"/"), func(t *testing.T, w *Workload) {
		r0, d0 := srv.requests.Load(), dropped.Load()
		ph := runW(t, w, engine.Config{Clients: 3, Count: 60})
		h := ph.HTTP
		got, drops := srv.requests.Load()-r0, dropped.Load()-d0
		if h.Requests != 60 || got != h.Requests+h.Resent {
			t.Fatalf("the server got %d requests; kurabe sent %d and resent %d", got, h.Requests, h.Resent)
		}
		if drops == 0 || class(ph, "closed")+h.Resent != drops || h.Failed != class(ph, "closed") {
			t.Fatalf("the server dropped %d; kurabe counts %d closed, %d resent (%+v)", drops, class(ph, "closed"), h.Resent, ph.ErrorClasses)
		}
	})
}

// A request written on a connection that sat idle (here 150 ms) and then
// closed without any answer may have crossed the server's idle timeout:
// a GET is sent again on a new connection and counted as resent, a POST
// is a "closed" failure, sent once.
func TestIdleConnectionClosedAfterTheWrite(t *testing.T) {
	srv := newRawServer(t, func(c net.Conn, _ string, n int) bool {
		if n == 2 {
			return false // read the second request, close unanswered
		}
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
		return true
	})
	do := func(t *testing.T, w *Workload) (*result.HTTPStats, error) {
		s, _ := w.Store().Open(context.Background())
		c := w.NewClient(s, newRand())
		if _, err := c.Do(context.Background(), 0); err != nil {
			t.Fatal(err)
		}
		time.Sleep(150 * time.Millisecond)
		_, err := c.Do(context.Background(), 0)
		s.Close()
		return w.Stats(), err
	}
	paths(t, urls(srv.url+"/"), func(t *testing.T, w *Workload) {
		r0 := srv.requests.Load()
		h, err := do(t, w)
		if err != nil || h.Failed != 0 || h.Resent != 1 || h.Reconnects != 0 || srv.requests.Load()-r0 != 3 {
			t.Fatalf("GET: %v; failed %d resent %d reconnects %d; the server got %d", err, h.Failed, h.Resent, h.Reconnects, srv.requests.Load()-r0)
		}
	})
	post := urls(srv.url + "/")
	post.Targets[0].Method, post.Targets[0].Body = "POST", []byte("a=1")
	paths(t, post, func(t *testing.T, w *Workload) {
		r0 := srv.requests.Load()
		h, err := do(t, w)
		if err == nil || h.Failed != 1 || h.Resent != 0 || srv.requests.Load()-r0 != 2 || h.RequestBodyBytes != 6 {
			t.Fatalf("POST: %v; failed %d resent %d; the server got %d; body bytes %d", err, h.Failed, h.Resent, srv.requests.Load()-r0, h.RequestBodyBytes)
		}
	})
}

// A 408 with Connection: close read after the request was written is the
// server's answer to that request: an "http 408" failure, sent once,
// whatever the method. kurabe used to take it for an unsolicited 408 sent
// before the request came, resent the request (a POST the server had read)
// and counted it as a reconnect, so the server got every POST twice and
// the report showed no failure.
func TestWritten408IsAFailureNotResent(t *testing.T) {
	srv := newRawServer(t, func(c net.Conn, _ string, n int) bool {
		if n == 2 {
			io.WriteString(c, "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
			return false
		}
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
		return true
	})
	post := urls(srv.url + "/posts")
	post.Targets[0].Method, post.Targets[0].Body = "POST", []byte("a=1")
	check := func(t *testing.T, w *Workload) {
		r0 := srv.requests.Load()
		ph := runW(t, w, engine.Config{Clients: 1, Count: 20})
		h := ph.HTTP
		// Each connection answers its first POST and 408s its second:
		// 10 successes, 10 failures, 20 POSTs received.
		if got := srv.requests.Load() - r0; got != 20 || h.Reconnects != 0 || h.Resent != 0 {
			t.Fatalf("the server got %d POSTs for 20 requests; reconnects %d, resent %d", got, h.Reconnects, h.Resent)
		}
		n408 := class(ph, "http 408") + class(ph, "step 1: http 408")
		if h.Failed != 10 || ph.Errors != 10 || n408 != 10 {
			t.Fatalf("failed %d, errors %d (%+v); want 10 failures of class http 408", h.Failed, ph.Errors, ph.ErrorClasses)
		}
	}
	paths(t, post, check)
	w, err := New(postFlow(t, srv.url))
	if err != nil {
		t.Fatal(err)
	}
	t.Run("flow", func(t *testing.T) { check(t, w) })
}

// The idle peek on the fasthttp path (a request's first write on a
// kept-alive connection that sat idle) allocates nothing: it used to
// allocate three times a request (the connection's SyscallConn and an
// escaping closure).
func TestIdlePeekDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts mean nothing under the race detector")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err == nil {
			io.Copy(io.Discard, c)
			c.Close()
		}
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tm := &timing{epoch: time.Now()}
	tc := newTimedConn(c, tm, nil, false)
	b := []byte("x")
	write := func() {
		tm.begin()
		tm.probe = true
		if _, err := tc.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	write()
	if a := testing.AllocsPerRun(200, write); a != 0 {
		t.Fatalf("%v allocations per probed write, want 0", a)
	}
	if tm.probe || tm.idleClosed || tm.sent != 1 {
		t.Fatalf("probe %v idleClosed %v sent %d: the peek did not run or found the open connection closed", tm.probe, tm.idleClosed, tm.sent)
	}
}
