package service

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/cgi"
	"os"
	"strconv"
	"strings"

	"kurabe/store"
)

// CGI says how to start the process that answers one request. The host
// side speaks RFC 3875 through net/http/cgi, as a web server running a CGI
// script does: the request line and headers go in the child's environment
// (REQUEST_METHOD, REQUEST_URI, CONTENT_TYPE, HTTP_*), the body on its
// standard input, and the child writes a CGI response (a Status header,
// the other headers, a blank line, the body) on its standard output. The
// child runs ServeCGI.
type CGI struct {
	Path   string    // the executable; empty means this program (os.Executable)
	Args   []string  // arguments after the program name that make it run ServeCGI
	Env    []string  // extra environment, "KEY=value", such as the store spec
	Dir    string    // the children's working directory; empty means the current one
	Stderr io.Writer // the children's standard error; nil discards it
}

// cgiHost returns the handler that starts one process per request.
func (s *Service) cgiHost() (http.Handler, error) {
	c := *s.cfg.CGI
	if c.Path == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, errors.New("service: cannot find this program to run it per request: " + err.Error())
		}
		c.Path = exe
	}
	if c.Dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, errors.New("service: " + err.Error())
		}
		c.Dir = wd
	}
	if c.Stderr == nil {
		c.Stderr = io.Discard
	}
	h := &cgi.Handler{Path: c.Path, Root: "/", Dir: c.Dir, Args: c.Args, Env: c.Env, Logger: s.cfg.Log, Stderr: c.Stderr}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tooLarge := func() {
			s.fail(w, http.StatusRequestEntityTooLarge, "", "request body larger than "+strconv.FormatInt(s.cfg.MaxBody, 10)+" bytes")
		}
		if r.ContentLength > s.cfg.MaxBody {
			tooLarge()
			return
		}
		if r.ContentLength < 0 {
			// A body of unknown length (chunked): CGI passes its length
			// to the child in CONTENT_LENGTH, so it is read here first,
			// as a web server in front of CGI scripts does.
			body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBody))
			if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
				tooLarge()
				return
			}
			if err != nil {
				s.fail(w, http.StatusBadRequest, "", "cannot read the request body: "+err.Error())
				return
			}
			r.Body, r.ContentLength, r.TransferEncoding = io.NopCloser(bytes.NewReader(body)), int64(len(body)), nil
		}
		h.ServeHTTP(w, r)
	}), nil
}

// ServeCGI is the child's side of CGI mode: it answers the one request a
// CGI host described in env (a process environment, "KEY=value") and
// stdin, writing the CGI response to stdout, with a store it opens with
// open and closes again, and no pool. A store that cannot be opened is
// answered with a 500 (503 when it is busy or out of connections), as a
// script that cannot reach its database answers. An error means no
// response could be written.
func ServeCGI(ctx context.Context, open func(context.Context) (store.Store, error), cfg Config, env []string, stdin io.Reader, stdout io.Writer) error {
	vars := make(map[string]string, len(env))
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars[k] = v
		}
	}
	if vars["GATEWAY_INTERFACE"] == "" {
		return errors.New("service: not started by a CGI host (no GATEWAY_INTERFACE in the environment)")
	}
	req, err := cgi.RequestFromMap(vars)
	if err != nil {
		return errors.New("service: " + err.Error())
	}
	req.Body = http.NoBody
	if req.ContentLength > 0 {
		req.Body = io.NopCloser(io.LimitReader(stdin, req.ContentLength))
	}
	out := &cgiResponse{w: bufio.NewWriter(stdout), h: http.Header{}}
	cfg.Sessions, cfg.CGI = 1, nil
	st, openErr := open(ctx)
	s, err := New(st, cfg)
	if err != nil {
		return err
	}
	s.mode = "cgi"
	if openErr != nil {
		s.storeFail(out, openErr)
	} else {
		s.mux.ServeHTTP(out, req.WithContext(ctx))
		s.Close()
		st.Close()
	}
	if !out.wrote {
		out.WriteHeader(http.StatusOK)
	}
	if err := out.w.Flush(); err != nil {
		return errors.New("service: writing the CGI response: " + err.Error())
	}
	return out.err
}

// cgiResponse writes a CGI response: "Status: 201 Created", the headers, a
// blank line, the body.
type cgiResponse struct {
	w     *bufio.Writer
	h     http.Header
	wrote bool
	err   error
}

func (r *cgiResponse) Header() http.Header { return r.h }

func (r *cgiResponse) WriteHeader(code int) {
	if r.wrote {
		return
	}
	r.wrote = true
	r.w.WriteString("Status: " + strconv.Itoa(code) + " " + http.StatusText(code) + "\r\n")
	if err := r.h.Write(r.w); err != nil && r.err == nil {
		r.err = err
	}
	r.w.WriteString("\r\n")
}

func (r *cgiResponse) Write(p []byte) (int, error) {
	if !r.wrote {
		r.WriteHeader(http.StatusOK)
	}
	n, err := r.w.Write(p)
	if err != nil && r.err == nil {
		r.err = err
	}
	return n, err
}
