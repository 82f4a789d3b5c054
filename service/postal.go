package service

// The postal data set served in the two API styles of the study that
// compared them (docs/serve.md):
//
//   - a one-request XML find, GET /xml/find?skip=S&max=M, as FileMaker's
//     XML web publishing answers -findall -skip -max: one request, no
//     session, the whole page as XML;
//   - a token API, as FileMaker's Data API: POST /api/login gives a
//     token, GET /api/find?offset=&limit= reads a page as JSON with it,
//     POST /api/logout ends it.
//
// Tokens live in files, one per token, in a directory every process of
// the service shares (Postal.TokenDir), as PHP's default session handler
// keeps sessions: so a token given by one CGI process is honoured by the
// next, and logging out in one process is seen by all. The store was not
// the place: kurabe's store interface only inserts and scans, so a logout
// could not delete a token, and every request would scan a growing table.
// A file is named by the SHA-256 of its token, so a listing of the
// directory gives no token away, and holds the token's expiry and user.
// Token files are not synced to disk: a crash of the machine may log
// everyone out, as with PHP's sessions.
//
// Both finds read the table in key order through Session.Scan, with the
// pooled session and its buffer, and encode each row by appending into
// that buffer: no reflection per row.

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	mrand "math/rand/v2"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"kurabe/dataset/postal"
	"kurabe/store"
)

// PostalRecords is the number of records in the postal data set shipped
// with kurabe (dataset/postal's tests check it against the file).
const PostalRecords = 120720

// Postal configures the postal APIs. Fields left zero take the defaults
// below; Password and TokenDir are required.
type Postal struct {
	// User and Password are the one account of the token API; User
	// defaults to "kurabe". The password is never logged or echoed.
	User     string
	Password string
	// TokenDir holds one file per live token; every process of the
	// service must see the same directory (CGI mode).
	TokenDir string
	// TokenTTL is how long a token is valid after login; 0 means 15 min.
	TokenTTL time.Duration
	// MaxRecords caps max and limit of one find; 0 means 5000.
	MaxRecords int
	// ByOffset reads a page with OFFSET (the store walks past the skipped
	// rows) instead of from the key skip+1 (an index seek): keys are the
	// row numbers 1..N, so both give the same rows.
	ByOffset bool
	// Records is how many records the table holds, reported as the total
	// of every find. LoadPostal sets it; a CGI host passes it to its
	// children. 0 means count the table on first use.
	Records int64
	// File is a KEN_ALL file (as kurabe dataset import reads it) that
	// LoadPostal loads instead of the data set shipped with kurabe.
	File string
}

// Defaults of Postal.
const (
	DefaultPostalUser = "kurabe"
	DefaultTokenTTL   = 15 * time.Minute
	DefaultMaxRecords = 5000
	tokenBytes        = 32
	tokenLen          = 43  // base64url of 32 bytes, unpadded
	tokenSweepOneIn   = 128 // sweep expired tokens on about one login in 128
)

// postalAPI is the state of the postal routes.
type postalAPI struct {
	cfg     Postal
	table   *store.Table
	xmlTags [][2]string // per column: "<name>", "</name>"
	jsonKey []string    // per column: `"name":` (with a comma but for the first)

	total   atomic.Int64 // records; -1 until known
	countMu sync.Mutex
}

func newPostalAPI(cfg Postal) (*postalAPI, error) {
	if cfg.User == "" {
		cfg.User = DefaultPostalUser
	}
	switch {
	case cfg.Password == "":
		return nil, errors.New("service: the postal token API needs a password")
	case cfg.TokenDir == "":
		return nil, errors.New("service: the postal token API needs a directory for its tokens")
	case cfg.TokenTTL < 0:
		return nil, fmt.Errorf("service: token lifetime %v; want a positive duration", cfg.TokenTTL)
	case cfg.MaxRecords < 0:
		return nil, fmt.Errorf("service: at most %d records per find; want 1 or more", cfg.MaxRecords)
	case cfg.Records < 0:
		return nil, fmt.Errorf("service: %d postal records; want 0 or more", cfg.Records)
	}
	if cfg.TokenTTL == 0 {
		cfg.TokenTTL = DefaultTokenTTL
	}
	if cfg.MaxRecords == 0 {
		cfg.MaxRecords = DefaultMaxRecords
	}
	if err := os.MkdirAll(cfg.TokenDir, 0o700); err != nil {
		return nil, fmt.Errorf("service: token directory: %v; choose a writable directory", err)
	}
	t := postal.Table()
	t.ID = 1 // the posts table is 0; sessions cache per table ID
	p := &postalAPI{cfg: cfg, table: t}
	for i, c := range t.Columns {
		p.xmlTags = append(p.xmlTags, [2]string{"<" + c.Name + ">", "</" + c.Name + ">"})
		key := `"` + c.Name + `":`
		if i > 0 {
			key = "," + key
		}
		p.jsonKey = append(p.jsonKey, key)
	}
	p.total.Store(-1) // unknown: counted on first use
	if cfg.Records > 0 {
		p.total.Store(cfg.Records)
	}
	return p, nil
}

const postalHelp = "the postal APIs are GET /xml/find?skip=S&max=M, POST /api/login (user, password), GET /api/find?offset=S&limit=M with Authorization: Bearer TOKEN, POST /api/logout; see docs/serve.md"

// postalRoutes registers the postal APIs; when they are off, their paths
// answer 404 with how to turn them on.
func (s *Service) postalRoutes(mux *http.ServeMux) {
	if s.postal == nil {
		off := func(w http.ResponseWriter, r *http.Request) {
			s.fail(w, http.StatusNotFound, "", "no such path "+strconv.Quote(r.URL.Path)+": the postal APIs are off; start kurabe serve with --dataset postal")
		}
		mux.HandleFunc("/xml/", off)
		mux.HandleFunc("/api/", off)
		return
	}
	mux.HandleFunc("/xml/find", s.xmlFind)
	mux.HandleFunc("/api/login", s.apiLogin)
	mux.HandleFunc("/api/find", s.apiFind)
	mux.HandleFunc("/api/logout", s.apiLogout)
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, http.StatusNotFound, "", "no such path "+strconv.Quote(r.URL.Path)+"; "+postalHelp)
	})
	mux.HandleFunc("/xml/", func(w http.ResponseWriter, r *http.Request) {
		s.xmlFail(w, http.StatusNotFound, "no such path "+strconv.Quote(r.URL.Path)+"; "+postalHelp)
	})
}

// PostalLoad says how LoadPostal found or filled the postal table.
type PostalLoad struct {
	Records int64
	Loaded  bool   // false: the table already held the records
	Path    string // how they went in: "the store's bulk path" or "batches of 1000"
	Had     int64  // records the table held before it was loaded anew
}

// LoadPostal makes sure the store's postal table holds the postal data
// set shipped with kurabe, or its first rows records when rows > 0. A
// table that already holds that many records is left alone (the data set
// is read-only here); otherwise the table is set up anew, empty, and
// loaded through the store's bulk path when it has one, else in batches.
// A table of another count (a newer KEN_ALL imported with kurabe dataset
// import, a load cut short) is replaced, and PostalLoad.Had says how many
// records it held. The caller times it.
func (s *Service) LoadPostal(ctx context.Context, rows int) (PostalLoad, error) {
	p := s.postal
	if p == nil {
		return PostalLoad{}, errors.New("service: the postal APIs are off (Config.Postal is nil)")
	}
	want := int64(PostalRecords)
	if p.cfg.File != "" {
		n, err := countRecords(p.cfg.File)
		if err != nil {
			return PostalLoad{}, err
		}
		want = n
	}
	if rows > 0 && int64(rows) < want {
		want = int64(rows)
	}
	had, err := s.st.Count(ctx, p.table)
	if err == nil && had == want {
		p.total.Store(had)
		return PostalLoad{Records: had}, nil
	}
	if err != nil {
		had = 0 // no table yet
	}
	if err := s.st.Setup(ctx, []*store.Table{p.table}); err != nil {
		return PostalLoad{}, err
	}
	ld := PostalLoad{Loaded: true, Had: had}
	r, closer, err := postal.OpenFile(p.cfg.File)
	if err != nil {
		return ld, err
	}
	defer closer.Close()
	n, how, err := postal.LoadStore(ctx, s.st, p.table, r, want)
	ld.Path = how
	if err != nil {
		return ld, fmt.Errorf("loading the postal data set: %w", err)
	}
	if n != want {
		return ld, fmt.Errorf("loading the postal data set: %d records went in, want %d", n, want)
	}
	if c, err := s.st.Count(ctx, p.table); err != nil {
		return ld, fmt.Errorf("counting the postal table after loading: %w", err)
	} else if c != want {
		return ld, fmt.Errorf("the postal table holds %d records after loading %d", c, want)
	}
	ld.Records = want
	p.total.Store(want)
	return ld, nil
}

// countRecords reads a KEN_ALL file through and returns its record count,
// refusing a file with malformed rows.
func countRecords(file string) (int64, error) {
	r, closer, err := postal.OpenFile(file)
	if err != nil {
		return 0, err
	}
	defer closer.Close()
	n, errs, err := postal.Summary(r, 1)
	if err != nil {
		return 0, err
	}
	if len(errs) > 0 {
		return 0, fmt.Errorf("%v (and maybe more malformed rows): kurabe dataset import %s lists them", errs[0], file)
	}
	return int64(n), nil
}

// count returns the number of records, counting the table once when no
// one said.
func (p *postalAPI) count(ctx context.Context, st store.Store) (int64, error) {
	if n := p.total.Load(); n >= 0 {
		return n, nil
	}
	p.countMu.Lock()
	defer p.countMu.Unlock()
	if n := p.total.Load(); n >= 0 {
		return n, nil
	}
	n, err := st.Count(ctx, p.table)
	if err != nil {
		return 0, err
	}
	p.total.Store(n)
	return n, nil
}

// page reads a find's two parameters, the first record to return (0 or
// more) and how many (1 to the cap). It returns a message for bad ones.
func (p *postalAPI) page(r *http.Request, skipName, maxName, usage string) (skip, max int, msg string) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return 0, 0, "bad query string: " + err.Error() + "; " + usage
	}
	get := func(name string) (string, bool) {
		v, ok := q[name]
		if !ok || len(v) == 0 || v[0] == "" {
			return "", false
		}
		return v[0], true
	}
	sv, ok := get(skipName)
	if !ok {
		return 0, 0, skipName + " is missing; " + usage
	}
	skip, err = strconv.Atoi(sv)
	if err != nil || skip < 0 {
		return 0, 0, skipName + "=" + strconv.Quote(sv) + ": want a whole number of records to skip, 0 or more; " + usage
	}
	mv, ok := get(maxName)
	if !ok {
		return 0, 0, maxName + " is missing; " + usage
	}
	max, err = strconv.Atoi(mv)
	if err != nil || max < 1 {
		return 0, 0, maxName + "=" + strconv.Quote(mv) + ": want a whole number of records, 1 to " + strconv.Itoa(p.cfg.MaxRecords) + "; " + usage
	}
	if max > p.cfg.MaxRecords {
		return 0, 0, maxName + "=" + mv + " is over this service's cap of " + strconv.Itoa(p.cfg.MaxRecords) + " records per request (kurabe serve --max-records); ask for fewer, page by page"
	}
	return skip, max, ""
}

func (p *postalAPI) query(skip, max int) store.Query {
	if p.cfg.ByOffset {
		return store.Query{Offset: skip, Limit: max}
	}
	from := int64(skip) + 1
	if from <= 0 { // skip=MaxInt64: past any table
		from = math.MaxInt64
	}
	return store.Query{HasFrom: true, From: from, Limit: max}
}

const xmlUsage = "ask GET /xml/find?skip=S&max=M (S records to skip, M records to return)"

// xmlFind answers GET /xml/find?skip=S&max=M: max records from the
// skip+1st in key order, and the total, as one XML document.
func (s *Service) xmlFind(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		s.headers(w).Set("Allow", "GET, HEAD")
		s.xmlFail(w, http.StatusMethodNotAllowed, "method "+r.Method+" not allowed on /xml/find; use GET")
		return
	}
	p := s.postal
	skip, max, msg := p.page(r, "skip", "max", xmlUsage)
	if msg != "" {
		s.xmlFail(w, http.StatusBadRequest, msg)
		return
	}
	total, err := p.count(r.Context(), s.st)
	if err != nil {
		s.xmlStoreFail(w, err)
		return
	}
	sl, err := s.pool.get(r.Context())
	if err != nil {
		s.xmlStoreFail(w, err)
		return
	}
	b := sl.buf[:0]
	cols := p.table.Columns
	n, err := sl.sess.Scan(r.Context(), p.table, p.query(skip, max), func(row store.Row) error {
		b = append(b, "<record>"...)
		for i, v := range row {
			b = append(b, p.xmlTags[i][0]...)
			if cols[i].Kind == store.Int {
				b = strconv.AppendInt(b, v.Int, 10)
			} else {
				b = appendXMLText(b, v.Text)
			}
			b = append(b, p.xmlTags[i][1]...)
		}
		b = append(b, "</record>\n"...)
		return nil
	})
	if err != nil {
		sl.buf = b[:0]
		s.pool.put(sl, err)
		s.xmlStoreFail(w, err)
		return
	}
	b = append(b, "</postal>\n"...)
	// The root element carries the count, known only after the scan, so
	// it goes out as a second piece ahead of the records.
	var hb [160]byte
	head := append(hb[:0], `<?xml version="1.0" encoding="UTF-8"?>`+"\n"+`<postal total="`...)
	head = strconv.AppendInt(head, total, 10)
	head = append(head, `" skip="`...)
	head = strconv.AppendInt(head, int64(skip), 10)
	head = append(head, `" max="`...)
	head = strconv.AppendInt(head, int64(max), 10)
	head = append(head, `" count="`...)
	head = strconv.AppendInt(head, int64(n), 10)
	head = append(head, "\">\n"...)
	s.replyType(w, http.StatusOK, xmlType, head, b)
	sl.buf = b[:0]
	s.pool.put(sl, nil)
}

var xmlType = []string{"application/xml; charset=utf-8"}

// xmlFail answers <error status="N">msg</error>: the XML API's clients
// read XML, errors included.
func (s *Service) xmlFail(w http.ResponseWriter, status int, msg string) {
	b := append(make([]byte, 0, 96+len(msg)), `<?xml version="1.0" encoding="UTF-8"?>`+"\n"+`<error status="`...)
	b = strconv.AppendInt(b, int64(status), 10)
	b = append(b, `">`...)
	b = appendXMLText(b, []byte(msg))
	b = append(b, "</error>\n"...)
	s.replyType(w, status, xmlType, b, nil)
}

func (s *Service) xmlStoreFail(w http.ResponseWriter, err error) {
	status := http.StatusInternalServerError
	if c := store.Classify(err); c == "busy" || c == "too-many-connections" {
		status = http.StatusServiceUnavailable
	}
	s.xmlFail(w, status, "store: "+err.Error())
}

// appendXMLText appends s as XML character data. &, < and > are escaped,
// and \r as &#xD; so it survives line-end normalisation; the characters
// XML 1.0 cannot carry at all (other control characters, U+FFFE, U+FFFF,
// bytes that are not UTF-8) become U+FFFD, as appendString does for bytes
// that are not UTF-8.
func appendXMLText(b []byte, s []byte) []byte {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			var esc string
			switch {
			case c == '&':
				esc = "&amp;"
			case c == '<':
				esc = "&lt;"
			case c == '>':
				esc = "&gt;"
			case c == '\r':
				esc = "&#xD;"
			case c < 0x20 && c != '\t' && c != '\n':
				esc = "\uFFFD"
			default:
				i++
				continue
			}
			b = append(b, s[start:i]...)
			b = append(b, esc...)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		if (r == utf8.RuneError && size == 1) || r == 0xFFFE || r == 0xFFFF {
			b = append(b, s[start:i]...)
			b = append(b, "\uFFFD"...)
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(b, s[start:]...)
}

// apiFind answers GET /api/find?offset=S&limit=M with a valid token:
// {"total":N,"offset":S,"limit":M,"count":K,"items":[{...},...]}.
func (s *Service) apiFind(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		s.headers(w).Set("Allow", "GET, HEAD")
		s.fail(w, http.StatusMethodNotAllowed, "", "method "+r.Method+" not allowed on /api/find; use GET")
		return
	}
	p := s.postal
	if _, ok := s.authorize(w, r); !ok {
		return
	}
	skip, max, msg := p.page(r, "offset", "limit", "ask GET /api/find?offset=S&limit=M (S records to skip, M records to return)")
	if msg != "" {
		s.fail(w, http.StatusBadRequest, "", msg)
		return
	}
	total, err := p.count(r.Context(), s.st)
	if err != nil {
		s.storeFail(w, err)
		return
	}
	sl, err := s.pool.get(r.Context())
	if err != nil {
		s.storeFail(w, err)
		return
	}
	b := append(sl.buf[:0], `{"total":`...)
	b = strconv.AppendInt(b, total, 10)
	b = append(b, `,"offset":`...)
	b = strconv.AppendInt(b, int64(skip), 10)
	b = append(b, `,"limit":`...)
	b = strconv.AppendInt(b, int64(max), 10)
	b = append(b, `,"items":[`...)
	cols := p.table.Columns
	n, err := sl.sess.Scan(r.Context(), p.table, p.query(skip, max), func(row store.Row) error {
		if b[len(b)-1] != '[' {
			b = append(b, ',')
		}
		b = append(b, '{')
		for i, v := range row {
			b = append(b, p.jsonKey[i]...)
			if cols[i].Kind == store.Int {
				b = strconv.AppendInt(b, v.Int, 10)
			} else {
				b = appendString(b, v.Text)
			}
		}
		b = append(b, '}')
		return nil
	})
	if err != nil {
		sl.buf = b[:0]
		s.pool.put(sl, err)
		s.storeFail(w, err)
		return
	}
	b = append(b, `],"count":`...)
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, "}\n"...)
	s.reply(w, http.StatusOK, b)
	sl.buf = b[:0]
	s.pool.put(sl, nil)
}

// apiLogin answers POST /api/login (user and password, as a form or a
// JSON object) with {"token":"...","expires_in":SECONDS}.
func (s *Service) apiLogin(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		s.headers(w).Set("Allow", "POST")
		s.fail(w, http.StatusMethodNotAllowed, "", "method "+r.Method+" not allowed on /api/login; POST user=...&password=...")
		return
	}
	user, pass, msg, status := s.readLogin(w, r)
	if msg != "" {
		s.fail(w, status, "", msg)
		return
	}
	p := s.postal
	// Compare digests in constant time, so neither the lengths nor the
	// common prefix of a guess show in the response time.
	uh, wantU := sha256.Sum256([]byte(user)), sha256.Sum256([]byte(p.cfg.User))
	ph, wantP := sha256.Sum256([]byte(pass)), sha256.Sum256([]byte(p.cfg.Password))
	if subtle.ConstantTimeCompare(uh[:], wantU[:])&subtle.ConstantTimeCompare(ph[:], wantP[:]) != 1 {
		s.unauthorized(w, "wrong user or password")
		return
	}
	tok, err := p.newToken(user)
	if err != nil {
		s.fail(w, http.StatusInternalServerError, "", err.Error())
		return
	}
	b := append(make([]byte, 0, 96), `{"token":"`...)
	b = append(b, tok...)
	b = append(b, `","expires_in":`...)
	b = strconv.AppendInt(b, int64((p.cfg.TokenTTL+time.Second-1)/time.Second), 10) // whole seconds, rounded up
	b = append(b, "}\n"...)
	s.headers(w).Set("Cache-Control", "no-store")
	s.reply(w, http.StatusOK, b)
}

// apiLogout answers POST /api/logout with a valid token: the token is
// gone for every process of the service.
func (s *Service) apiLogout(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost && r.Method != http.MethodDelete {
		s.headers(w).Set("Allow", "POST, DELETE")
		s.fail(w, http.StatusMethodNotAllowed, "", "method "+r.Method+" not allowed on /api/logout; use POST")
		return
	}
	file, ok := s.authorize(w, r)
	if !ok {
		return
	}
	if err := os.Remove(file); err != nil {
		if errors.Is(err, os.ErrNotExist) { // logged out by a request in between
			s.unauthorized(w, "token not valid (expired or logged out); log in again with POST /api/login")
			return
		}
		s.fail(w, http.StatusInternalServerError, "", "removing the token: "+err.Error())
		return
	}
	s.reply(w, http.StatusOK, []byte(`{"logged_out":true}`+"\n"))
}

// authorize checks the request's token (Authorization: Bearer TOKEN, or
// X-Auth-Token: TOKEN) and answers 401 when it is missing, unknown or
// expired. It returns the token's file.
func (s *Service) authorize(w http.ResponseWriter, r *http.Request) (string, bool) {
	tok := ""
	if a := r.Header.Get("Authorization"); a != "" {
		scheme, rest, _ := strings.Cut(a, " ")
		if !strings.EqualFold(scheme, "Bearer") {
			s.unauthorized(w, "Authorization "+strconv.Quote(scheme)+" is not a bearer token; send Authorization: Bearer TOKEN, with the token from POST /api/login")
			return "", false
		}
		tok = strings.TrimSpace(rest)
	} else {
		tok = strings.TrimSpace(r.Header.Get("X-Auth-Token"))
	}
	if tok == "" {
		s.unauthorized(w, "no token: log in with POST /api/login, then send Authorization: Bearer TOKEN (or X-Auth-Token: TOKEN)")
		return "", false
	}
	file, ok := s.postal.checkToken(tok)
	if !ok {
		s.unauthorized(w, "token not valid (expired or logged out); log in again with POST /api/login")
		return "", false
	}
	return file, true
}

func (s *Service) unauthorized(w http.ResponseWriter, msg string) {
	s.headers(w).Set("WWW-Authenticate", `Bearer realm="kurabe"`)
	s.fail(w, http.StatusUnauthorized, "", msg)
}

// readLogin reads user and password from a form (urlencoded or multipart)
// or a JSON object; other fields are ignored.
func (s *Service) readLogin(w http.ResponseWriter, r *http.Request) (user, pass string, msg string, status int) {
	r.Body = http.MaxBytesReader(w, r.Body, min(s.cfg.MaxBody, 64<<10))
	ctype := r.Header.Get("Content-Type")
	ct, _, err := mime.ParseMediaType(ctype)
	if ctype == "" {
		ct, err = "application/x-www-form-urlencoded", nil
	}
	if err != nil {
		return "", "", "bad Content-Type: " + err.Error(), http.StatusBadRequest
	}
	var u, pw *string
	switch ct {
	case "application/x-www-form-urlencoded":
		body, err := io.ReadAll(r.Body)
		if err != nil {
			_, _, m, st := bodyErr(err)
			return "", "", m, st
		}
		form, err := url.ParseQuery(string(body))
		if err != nil {
			return "", "", "bad form: " + err.Error(), http.StatusBadRequest
		}
		u, pw = first(form, "user"), first(form, "password")
	case "multipart/form-data":
		if err := r.ParseMultipartForm(64 << 10); err != nil {
			_, _, m, st := bodyErr(err)
			return "", "", m, st
		}
		u, pw = first(r.MultipartForm.Value, "user"), first(r.MultipartForm.Value, "password")
	case "application/json":
		var in struct {
			User     *string `json:"user"`
			Password *string `json:"password"`
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
				_, _, m, st := bodyErr(err)
				return "", "", m, st
			}
			// The decoder's message may quote the body; it holds a password.
			return "", "", `bad JSON; want {"user":"...","password":"..."}`, http.StatusBadRequest
		}
		u, pw = in.User, in.Password
	default:
		return "", "", "Content-Type " + ct + " is not accepted; post a form (application/x-www-form-urlencoded or multipart/form-data) or JSON (application/json)", http.StatusBadRequest
	}
	switch {
	case u == nil:
		return "", "", "missing user; post user=...&password=...", http.StatusBadRequest
	case pw == nil:
		return "", "", "missing password; post user=...&password=...", http.StatusBadRequest
	}
	return *u, *pw, "", 0
}

// newToken makes a token for user and writes its file. The file is
// written under a temporary name and renamed into place, so no process
// ever reads a token file half written (a sweep would take it for a
// broken one and remove it).
func (p *postalAPI) newToken(user string) (string, error) {
	var raw [tokenBytes]byte
	rand.Read(raw[:]) // never fails (crypto/rand)
	tok := base64.RawURLEncoding.EncodeToString(raw[:])
	expires := time.Now().Add(p.cfg.TokenTTL).UnixNano()
	f, err := os.CreateTemp(p.cfg.TokenDir, ".new-*") // mode 0600
	if err != nil {
		return "", fmt.Errorf("storing the token: %v", err)
	}
	_, err = f.WriteString(strconv.FormatInt(expires, 10) + " " + user + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), p.tokenFile(tok))
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("storing the token: %v", err)
	}
	if mrand.IntN(tokenSweepOneIn) == 0 {
		p.sweepTokens()
	}
	return tok, nil
}

// tokenFile is where tok's file is: its SHA-256 in hex.
func (p *postalAPI) tokenFile(tok string) string {
	sum := sha256.Sum256([]byte(tok))
	var name [2 * sha256.Size]byte
	for i, c := range sum {
		name[2*i], name[2*i+1] = hex[c>>4], hex[c&0xf]
	}
	return filepath.Join(p.cfg.TokenDir, string(name[:]))
}

// checkToken reports whether tok is live and returns its file. An expired
// token's file is removed.
func (p *postalAPI) checkToken(tok string) (string, bool) {
	if len(tok) != tokenLen {
		return "", false
	}
	file := p.tokenFile(tok)
	var buf [128]byte
	f, err := os.Open(file)
	if err != nil {
		return "", false
	}
	n, _ := io.ReadFull(f, buf[:])
	f.Close()
	if !p.live(buf[:n], time.Now().UnixNano()) {
		os.Remove(file)
		return "", false
	}
	return file, true
}

// live reports whether a token file's content has not expired at now.
func (p *postalAPI) live(content []byte, now int64) bool {
	i := bytes.IndexByte(content, ' ')
	if i < 0 {
		return false
	}
	exp, err := strconv.ParseInt(string(content[:i]), 10, 64)
	return err == nil && now < exp
}

// sweepTokens removes the files of expired tokens (tokens that were never
// logged out), and temporary files of logins that died before renaming
// theirs. Logins call it now and then.
func (p *postalAPI) sweepTokens() {
	ents, err := os.ReadDir(p.cfg.TokenDir)
	if err != nil {
		return
	}
	now := time.Now().UnixNano()
	var buf [128]byte
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".new-") {
			if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > time.Minute {
				os.Remove(filepath.Join(p.cfg.TokenDir, e.Name()))
			}
			continue
		}
		if len(e.Name()) != 2*sha256.Size || !e.Type().IsRegular() {
			continue
		}
		file := filepath.Join(p.cfg.TokenDir, e.Name())
		f, err := os.Open(file)
		if err != nil {
			continue
		}
		n, _ := io.ReadFull(f, buf[:])
		f.Close()
		if !p.live(buf[:n], now) {
			os.Remove(file)
		}
	}
}
