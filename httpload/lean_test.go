package httpload

import (
	"bufio"
	"bytes"
	"context"
	"net"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"kurabe/engine"
)

// scripted is a raw HTTP/1.1 server that answers each request with the
// next of resps (in turn), written in pieces of at most chunk bytes with a
// pause between them, so that the client must parse across reads. A
// response that ends with "Connection: close" semantics is followed by
// closing the connection when close is set for it.
func scripted(t testing.TB, chunk int, resps ...string) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var next atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func(c net.Conn) {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					for {
						line, err := r.ReadSlice('\n')
						if err != nil {
							return
						}
						if len(line) <= 2 {
							break
						}
					}
					resp := resps[int(next.Add(1)-1)%len(resps)]
					closing := strings.HasSuffix(resp, "\x00")
					resp = strings.TrimSuffix(resp, "\x00")
					for b := []byte(resp); len(b) > 0; {
						n := min(chunk, len(b))
						if _, err := c.Write(b[:n]); err != nil {
							return
						}
						b = b[n:]
						if len(b) > 0 {
							time.Sleep(200 * time.Microsecond)
						}
					}
					if closing {
						return
					}
				}
			}(c)
		}
	}()
	return "http://" + ln.Addr().String()
}

func TestLeanFraming(t *testing.T) {
	for _, c := range []struct {
		name   string
		resp   string // "\x00" at the end: the server closes after it
		length int64
		conns  int64 // connections for 6 requests on 1 client
		head   bool
	}{
		// The common case, split into 7-byte pieces.
		{"content-length", "HTTP/1.1 200 OK\r\nServer: s\r\nContent-Length: 11\r\n\r\nhello world", 11, 1, false},
		// Chunked with an extension and a trailer.
		{"chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n6\r\n world\r\n0\r\nX-T: 1\r\n\r\n", 11, 1, false},
		// An interim 100 Continue before the response.
		{"100 continue", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc", 3, 1, false},
		// No length: the body runs to the end of the connection.
		{"until close", "HTTP/1.1 200 OK\r\n\r\nsome body\x00", 9, 6, false},
		// HTTP/1.0 closes unless asked to keep alive.
		{"http/1.0", "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok\x00", 2, 6, false},
		{"http/1.0 keep-alive", "HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\nok", 2, 1, false},
		// Connection: close on HTTP/1.1.
		{"connection close", "HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 4\r\n\r\nbyebye\x00", 4, 6, false},
		// No body on 204, nor on a HEAD whatever Content-Length says.
		{"204", "HTTP/1.1 204 No Content\r\n\r\n", 0, 1, false},
		{"head", "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n", 0, 1, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := scripted(t, 7, c.resp)
			cfg := urls(base + "/x")
			if c.head {
				cfg.Targets[0].Method = "HEAD"
			}
			ph := run(t, cfg, engine.Config{Clients: 1, Count: 6})
			h := ph.HTTP
			if ph.Errors != 0 || h.Responses != 6 {
				t.Fatalf("errors %+v, responses %d", ph.ErrorClasses, h.Responses)
			}
			if h.Length.Min != c.length || h.Length.Max != c.length || h.Connections != c.conns {
				t.Fatalf("length %+v (want %d), connections %d (want %d)", h.Length, c.length, h.Connections, c.conns)
			}
			if h.Waiting.Count != 6 || h.Read.Count != 6 {
				t.Fatalf("phases: waiting %+v read %+v", h.Waiting, h.Read)
			}
		})
	}
}

func TestLeanExpectBodyAcrossChunks(t *testing.T) {
	base := scripted(t, 5, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n")
	cfg := urls(base + "/")
	cfg.Expect.Body = regexp.MustCompile(`^hello world$`)
	ph := run(t, cfg, engine.Config{Clients: 2, Count: 10})
	if ph.Errors != 0 || ph.HTTP.BodyBytes != 110 {
		t.Fatalf("errors %+v body bytes %d", ph.ErrorClasses, ph.HTTP.BodyBytes)
	}
	cfg.Expect.Body = regexp.MustCompile(`^hello$`)
	ph = run(t, cfg, engine.Config{Clients: 1, Count: 3})
	if class(ph, "expect-body") != 3 {
		t.Fatalf("classes %+v", ph.ErrorClasses)
	}
}

func TestLeanBrokenResponses(t *testing.T) {
	for _, c := range []struct{ name, resp, class string }{
		{"closed before answering", "\x00", "closed"},
		{"cut short", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc\x00", "closed"},
		{"not http", "SSH-2.0-OpenSSH\r\n\r\n", "error"},
		{"bad length", "HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n", "error"},
		{"bad chunk", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "error"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ph := run(t, urls(scripted(t, 1<<20, c.resp)+"/"), engine.Config{Clients: 1, Count: 3})
			if class(ph, c.class) != 3 {
				t.Fatalf("classes %+v, want 3 of %s", ph.ErrorClasses, c.class)
			}
		})
	}
}

func TestLeanRequestBytes(t *testing.T) {
	cfg := DefaultConfig()
	cfg.UserAgent = "kurabe/x"
	cfg.Headers = []Header{{"X-A", "1"}, {"Host", "example.org"}, {"Cookie", "a=1"}}
	for _, c := range []struct {
		t    Target
		want string
	}{
		{Target{Method: "GET", URL: "http://h:8/p?q=1#frag"},
			"GET /p?q=1 HTTP/1.1\r\nUser-Agent: kurabe/x\r\nHost: example.org\r\nX-A: 1\r\nCookie: a=1\r\n\r\n"},
		{Target{Method: "POST", URL: "http://h:8?x", Body: []byte("a=b"), ContentType: "application/x-www-form-urlencoded"},
			"POST /?x HTTP/1.1\r\nUser-Agent: kurabe/x\r\nHost: example.org\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 3\r\nX-A: 1\r\nCookie: a=1\r\n\r\na=b"},
	} {
		r, err := buildLean(&cfg, &c.t)
		if err != nil || string(r.b) != c.want {
			t.Errorf("%s %s:\n got %q\nwant %q (%v)", c.t.Method, c.t.URL, r.b, c.want, err)
		}
	}
	close := urls("http://h/")
	close.Close = true
	if r, _ := buildLean(&close, &close.Targets[0]); !bytes.HasSuffix(r.b, []byte("Connection: close\r\n\r\n")) {
		t.Errorf("--close: %q", r.b)
	}
}

func TestClientChoice(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{urls("http://127.0.0.1:1/"), "lean"},
		{urls("https://127.0.0.1:1/"), "fasthttp (TLS)"},
		{func() Config {
			c := urls("http://127.0.0.1:1/")
			c.Headers = []Header{{"Expect", "100-continue"}}
			return c
		}(), "fasthttp (header Expect)"},
	} {
		w, err := New(c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		if !leanSupported {
			continue
		}
		if got := w.Client(); got != c.want || w.Params()["client"] != c.want || w.Store().Info(context.Background()).Options["client"] != c.want {
			t.Errorf("%v: client %q, want %q", c.cfg.Targets, got, c.want)
		}
	}
}

// FuzzLeanParser feeds a response to the parser whole and split in two:
// it must not panic, and both must agree.
func FuzzLeanParser(f *testing.F) {
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc"), 10)
	f.Add([]byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"), 30)
	f.Add([]byte("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.0 204 No\r\n\r\n"), 5)
	f.Fuzz(func(t *testing.T, data []byte, split int) {
		type outcome struct {
			done  bool
			err   bool
			code  int
			n     int64
			body  string
			close bool
		}
		parse := func(pieces ...[]byte) outcome {
			lc := &leanConn{buf: make([]byte, 0, len(data)+1)}
			lc.p.reset(false, true, true)
			for _, p := range pieces {
				lc.buf = append(lc.buf, p...)
				lc.w = len(lc.buf)
				done, err := lc.p.parse(lc)
				if done || err != nil {
					return outcome{done, err != nil, lc.p.code, lc.p.n, string(lc.p.body), lc.p.close}
				}
			}
			return outcome{}
		}
		if split < 0 || split > len(data) {
			split = len(data) / 2
		}
		whole, parts := parse(data), parse(data[:split], data[split:])
		if whole != parts {
			t.Fatalf("whole %+v, split at %d %+v", whole, split, parts)
		}
		if whole.done && int(whole.n) != len(whole.body) {
			t.Fatalf("counted %d body bytes, kept %d", whole.n, len(whole.body))
		}
	})
}

// BenchmarkClient compares the lean path and fasthttp per request, one
// client against the canned server (which allocates nothing) with a 58-byte
// and an 80 KB body, as bench/http.sh's nginx files: ns/op is the round
// trip on loopback (wake-ups included), cpu-ns/op the process's CPU per
// request (client and server: the server's share is the same for both
// paths), allocs/op the client's.
func BenchmarkClient(b *testing.B) {
	for _, size := range []int{58, 80 << 10} {
		base := canned(b, strings.Repeat("x", size))
		for _, path := range []string{"lean", "fasthttp"} {
			b.Run(path+"/"+strconv.Itoa(size), func(b *testing.B) {
				w, err := New(urls(base + "/"))
				if err != nil {
					b.Fatal(err)
				}
				if path == "fasthttp" {
					w.lean, w.why = nil, "benchmark"
				} else if w.lean == nil {
					b.Skip("no lean path here")
				}
				s, _ := w.Store().Open(context.Background())
				defer s.Close()
				c := w.NewClient(s, nil)
				b.SetBytes(int64(size))
				b.ReportAllocs()
				var ru0, ru1 syscall.Rusage
				syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
				for b.Loop() {
					if _, err := c.Do(context.Background(), 0); err != nil {
						b.Fatal(err)
					}
				}
				syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
				cpu := ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano()
				b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}
