package service

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"time"
	"unicode/utf8"

	"kurabe/store"
	"kurabe/workload/bbs"
)

// KeyInserter is implemented by sessions that report the key the store
// assigned to an inserted row. When the store's sessions have it, POST
// /posts answers with the new post's id; otherwise with "id": null, since
// reading the newest key back after the insert would race with other
// writers and cost a query. No built-in store implements it yet.
type KeyInserter interface {
	InsertKey(ctx context.Context, t *store.Table, row store.Row) (int64, error)
}

const apiHelp = "the API is POST /posts (category, text), GET /posts, GET /posts?limit=N, GET /posts/count; see docs/serve.md"

func (s *Service) headers(w http.ResponseWriter) http.Header {
	h := w.Header()
	h["Server"] = s.server
	h["X-Kurabe-Pid"] = s.pid
	return h
}

func (s *Service) handlePosts(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		s.list(w, r)
	case http.MethodPost:
		s.post(w, r)
	default:
		s.headers(w).Set("Allow", "GET, HEAD, POST")
		s.fail(w, http.StatusMethodNotAllowed, "", "method "+r.Method+" not allowed on /posts; "+apiHelp)
	}
}

// post stores one post and answers 201 once the store's Insert returned.
func (s *Service) post(w http.ResponseWriter, r *http.Request) {
	category, text, msg, status := s.readPost(w, r)
	if msg != "" {
		s.fail(w, status, "", msg)
		return
	}
	sl, err := s.pool.get(r.Context())
	if err != nil {
		s.storeFail(w, err)
		return
	}
	sl.row[0] = store.Value{}
	sl.row[1] = store.Value{Text: category}
	sl.row[2] = store.Value{Text: text}
	created := time.Now().UnixMicro()
	sl.row[3] = store.Value{Int: created}
	// The insert is not cancelled when the client goes away: a write the
	// store has begun either completes or fails on its own, and a
	// connection cancelled halfway (PostgreSQL's) would be lost to the pool.
	ctx := context.WithoutCancel(r.Context())
	id := int64(-1)
	if ki, ok := sl.sess.(KeyInserter); ok {
		id, err = ki.InsertKey(ctx, s.posts, sl.row)
	} else {
		err = sl.sess.Insert(ctx, s.posts, sl.row)
	}
	sl.row[1], sl.row[2] = store.Value{}, store.Value{}
	if err != nil {
		s.pool.put(sl, err)
		s.storeFail(w, err)
		return
	}
	b := append(sl.buf[:0], `{"id":`...)
	if id >= 0 {
		b = strconv.AppendInt(b, id, 10)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"created":`...)
	b = strconv.AppendInt(b, created, 10)
	b = append(b, "}\n"...)
	s.reply(w, http.StatusCreated, b)
	sl.buf = b[:0]
	s.pool.put(sl, nil)
}

// readPost reads category and text from a form (urlencoded or multipart)
// or a JSON object. It returns a message and status for bad input.
func (s *Service) readPost(w http.ResponseWriter, r *http.Request) (category, text []byte, msg string, status int) {
	r.Body = http.MaxBytesReader(w, r.Body, s.cfg.MaxBody)
	ct, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if r.Header.Get("Content-Type") == "" {
		ct, err = "application/x-www-form-urlencoded", nil
	}
	if err != nil {
		return nil, nil, "bad Content-Type: " + err.Error(), http.StatusBadRequest
	}
	var cat, txt *string
	switch ct {
	case "application/x-www-form-urlencoded":
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return bodyErr(err)
		}
		form, err := url.ParseQuery(string(body))
		if err != nil {
			return nil, nil, "bad form: " + err.Error(), http.StatusBadRequest
		}
		cat, txt = first(form, "category"), first(form, "text")
	case "multipart/form-data":
		if err := r.ParseMultipartForm(1 << 20); err != nil {
			return bodyErr(err)
		}
		cat, txt = first(r.MultipartForm.Value, "category"), first(r.MultipartForm.Value, "text")
	case "application/json":
		var in struct {
			Category *string `json:"category"`
			Text     *string `json:"text"`
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
				return bodyErr(err)
			}
			why := err.Error()
			if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
				// Go's message names Go's types; say it in the request's terms.
				why = te.Field + " must be a string, not a JSON " + te.Value
				if te.Field == "" {
					why = "the body must be a JSON object, not a JSON " + te.Value
				}
			}
			return nil, nil, `bad JSON: ` + why + `; want {"category":"...","text":"..."}`, http.StatusBadRequest
		}
		cat, txt = in.Category, in.Text
	default:
		return nil, nil, "Content-Type " + ct + " is not accepted; post a form (application/x-www-form-urlencoded or multipart/form-data) or JSON (application/json)", http.StatusBadRequest
	}
	switch {
	case cat == nil:
		return nil, nil, "missing category; post category=...&text=...", http.StatusBadRequest
	case txt == nil:
		return nil, nil, "missing text; post category=...&text=...", http.StatusBadRequest
	case *cat == "":
		// A post files under a category; the text may be empty.
		return nil, nil, "empty category; post a category of one or more characters, category=...&text=...", http.StatusBadRequest
	case !utf8.ValidString(*cat):
		return nil, nil, "category is not valid UTF-8", http.StatusBadRequest
	case !utf8.ValidString(*txt):
		return nil, nil, "text is not valid UTF-8", http.StatusBadRequest
	}
	return []byte(*cat), []byte(*txt), "", 0
}

func first(v url.Values, key string) *string {
	if vs, ok := v[key]; ok && len(vs) > 0 {
		return &vs[0]
	}
	return nil
}

func bodyErr(err error) ([]byte, []byte, string, int) {
	if mb, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return nil, nil, "request body larger than " + strconv.FormatInt(mb.Limit, 10) + " bytes", http.StatusRequestEntityTooLarge
	}
	return nil, nil, "cannot read the request body: " + err.Error(), http.StatusBadRequest
}

// maxLimit is the most posts GET /posts?limit=N may ask for: more than
// any board holds, and small enough that a store may size its buffers
// from it (the file store reads about 128 bytes per post asked for).
const maxLimit = bbs.MaxLatest

// list answers GET /posts (every post, oldest first) and GET
// /posts?limit=N (the newest N, newest first).
func (s *Service) list(w http.ResponseWriter, r *http.Request) {
	q := store.Query{}
	if v := r.URL.Query(); v.Has("limit") {
		raw := v.Get("limit")
		// Out of int64's range, ParseInt's n is the nearest end of it.
		n, err := strconv.ParseInt(raw, 10, 64)
		switch {
		case err != nil && !errors.Is(err, strconv.ErrRange) || n < 1:
			s.fail(w, http.StatusBadRequest, "", "limit="+strconv.Quote(raw)+": want a whole number of posts from 1 to "+strconv.Itoa(maxLimit))
			return
		case n > maxLimit:
			s.fail(w, http.StatusBadRequest, "", "limit="+strconv.Quote(raw)+": too large; ask for at most "+strconv.Itoa(maxLimit)+" posts (GET /posts, without limit, reads them all)")
			return
		}
		q = store.Query{Desc: true, Limit: int(n)}
	}
	sl, err := s.pool.get(r.Context())
	if err != nil {
		s.storeFail(w, err)
		return
	}
	b := append(sl.buf[:0], '[')
	_, err = sl.sess.Scan(r.Context(), s.posts, q, func(row store.Row) error {
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = appendPost(b, row)
		return nil
	})
	if err != nil {
		sl.buf = b[:0]
		s.pool.put(sl, err)
		s.storeFail(w, err)
		return
	}
	b = append(b, "]\n"...)
	s.reply(w, http.StatusOK, b)
	sl.buf = b[:0]
	s.pool.put(sl, nil)
}

func (s *Service) handleCount(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		s.headers(w).Set("Allow", "GET, HEAD")
		s.fail(w, http.StatusMethodNotAllowed, "", "method "+r.Method+" not allowed on /posts/count; use GET")
		return
	}
	n, err := s.st.Count(r.Context(), s.posts)
	if err != nil {
		s.storeFail(w, err)
		return
	}
	var buf [40]byte
	b := append(buf[:0], `{"count":`...)
	b = strconv.AppendInt(b, n, 10)
	s.reply(w, http.StatusOK, append(b, "}\n"...))
}

// handleRoot describes the service at GET / and answers 404 elsewhere.
func (s *Service) handleRoot(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/" {
		s.fail(w, http.StatusNotFound, "", "no such path "+strconv.Quote(r.URL.Path)+"; "+apiHelp)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		s.headers(w).Set("Allow", "GET, HEAD")
		s.fail(w, http.StatusMethodNotAllowed, "", "method "+r.Method+" not allowed on /; use GET")
		return
	}
	s.infoOnce.Do(func() { s.info = s.st.Info(context.WithoutCancel(r.Context())) })
	postalAPI := ""
	if s.postal != nil {
		postalAPI = postalHelp
	}
	b, err := json.Marshal(struct {
		Service  string     `json:"service"`
		Version  string     `json:"version"`
		Mode     string     `json:"mode"`
		Sessions int        `json:"sessions,omitempty"`
		API      string     `json:"api"`
		Postal   string     `json:"postal,omitempty"`
		Store    store.Info `json:"store"`
	}{"kurabe serve", s.cfg.Version, s.mode, s.sessions(), apiHelp, postalAPI, s.info})
	if err != nil {
		s.fail(w, http.StatusInternalServerError, "", err.Error())
		return
	}
	s.reply(w, http.StatusOK, append(b, '\n'))
}

func (s *Service) sessions() int {
	if s.mode == "persistent" {
		return s.cfg.Sessions
	}
	return 0
}

func (s *Service) reply(w http.ResponseWriter, status int, body []byte) {
	s.replyType(w, status, jsonType, body, nil)
}

// replyType answers with a body in one or two pieces (head, then rest).
func (s *Service) replyType(w http.ResponseWriter, status int, ctype []string, head, rest []byte) {
	h := s.headers(w)
	h["Content-Type"] = ctype
	h.Set("Content-Length", strconv.Itoa(len(head)+len(rest)))
	w.WriteHeader(status)
	w.Write(head)
	if len(rest) > 0 {
		w.Write(rest)
	}
}

var jsonType = []string{"application/json; charset=utf-8"}

// storeFail answers a store error: 503 when the store is overloaded (busy,
// out of connections) so a client may retry, 500 otherwise.
func (s *Service) storeFail(w http.ResponseWriter, err error) {
	class := store.Classify(err)
	status := http.StatusInternalServerError
	if class == "busy" || class == "too-many-connections" {
		status = http.StatusServiceUnavailable
	}
	s.fail(w, status, class, "store: "+err.Error())
}

// fail answers {"error": msg} (and "class" for store errors).
func (s *Service) fail(w http.ResponseWriter, status int, class, msg string) {
	b := append(make([]byte, 0, 64+len(msg)), `{"error":`...)
	b = appendString(b, []byte(msg))
	if class != "" {
		b = append(b, `,"class":`...)
		b = appendString(b, []byte(class))
	}
	s.reply(w, status, append(b, "}\n"...))
}

// appendPost appends one row of the posts table as a JSON object.
func appendPost(b []byte, row store.Row) []byte {
	b = append(b, `{"id":`...)
	b = strconv.AppendInt(b, row[0].Int, 10)
	b = append(b, `,"category":`...)
	b = appendString(b, row[1].Text)
	b = append(b, `,"text":`...)
	b = appendString(b, row[2].Text)
	b = append(b, `,"created":`...)
	b = strconv.AppendInt(b, row[3].Int, 10)
	return append(b, '}')
}

const hex = "0123456789abcdef"

// appendString appends s as a JSON string. Bytes that are not UTF-8
// become U+FFFD, as encoding/json does; U+2028 and U+2029 are escaped so
// the output is also valid JavaScript.
func appendString(b []byte, s []byte) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
