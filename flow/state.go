package flow

import (
	"math/rand/v2"
	"regexp"
	"strconv"
	"sync/atomic"
)

// genKind is how a variable draws its value.
type genKind uint8

const (
	genInt    genKind = iota // uniform integer in [lo, hi]
	genChoice                // one of a list
	genLine                  // a random line of a file
	genSeq                   // the next number of a sequence shared by all clients
	genFixed                 // one value given from outside the file (--set)
)

// Var is a variable drawn at random (or from a sequence) for every
// iteration (flow-level vars) or every request of one step (step vars).
type Var struct {
	Name   string
	index  int
	kind   genKind
	lo, hi int64    // genInt; genSeq: from and to (to < from: no wrap)
	items  []string // genChoice, genLine
	seq    *atomic.Int64
}

func (v *Var) draw(dst []byte, rng *rand.Rand) []byte {
	switch v.kind {
	case genInt:
		span := uint64(v.hi - v.lo)
		if span == ^uint64(0) {
			return strconv.AppendInt(dst, int64(rng.Uint64()), 10)
		}
		return strconv.AppendInt(dst, v.lo+int64(rng.Uint64N(span+1)), 10)
	case genChoice, genLine:
		return append(dst, v.items[rng.IntN(len(v.items))]...)
	case genFixed:
		return append(dst, v.items[0]...)
	}
	n := v.seq.Add(1) - 1
	if v.hi >= v.lo {
		n %= v.hi - v.lo + 1
	}
	return strconv.AppendInt(dst, v.lo+n, 10)
}

// extractKind is where an extraction finds its value.
type extractKind uint8

const (
	fromJSON extractKind = iota
	fromHeader
	fromRegex
)

// Extract takes a value from a response into a variable.
type Extract struct {
	Name   string // the variable
	index  int
	kind   extractKind
	path   Path           // fromJSON
	header string         // fromHeader
	re     *regexp.Regexp // fromRegex
	group  int
}

// Source describes the extraction, for messages.
func (e *Extract) Source() string {
	switch e.kind {
	case fromJSON:
		return "json " + e.path.String()
	case fromHeader:
		return "header " + e.header
	}
	return "regex " + e.re.String()
}

// Response is what an extraction reads from a response.
type Response interface {
	Body() []byte
	// Header returns the value of the named response header, or nil.
	Header(name string) []byte
}

// State is one client's variables. It is used by one goroutine; values
// live in buffers it reuses, so an iteration allocates nothing except for
// regex extractions (Go's regexp returns its submatch indexes in a new
// slice).
type State struct {
	f    *Flow
	rng  *rand.Rand
	vals [][]byte
	set  []bool
}

// NewState returns a client's state; rng is the client's own.
func (f *Flow) NewState(rng *rand.Rand) *State {
	return &State{f: f, rng: rng, vals: make([][]byte, len(f.names)), set: make([]bool, len(f.names))}
}

// Begin starts an iteration: every variable is unset, then the flow's
// vars are drawn.
func (s *State) Begin() {
	clear(s.set)
	s.Draw(s.f.Vars)
}

// Draw draws vars (a step's own, before its request).
func (s *State) Draw(vars []Var) {
	for i := range vars {
		v := &vars[i]
		s.vals[v.index] = v.draw(s.vals[v.index][:0], s.rng)
		s.set[v.index] = true
	}
}

// Ready reports whether every variable the step uses has a value in this
// iteration; an always-step after a failed extraction does not.
func (s *State) Ready(st *Step) bool {
	for _, i := range st.uses {
		if !s.set[i] {
			return false
		}
	}
	return true
}

// Value returns a variable's current value, for tests and messages.
func (s *State) Value(name string) (string, bool) {
	for i, n := range s.f.names {
		if n == name && s.set[i] {
			return string(s.vals[i]), true
		}
	}
	return "", false
}

// Extract runs the step's extractions on a response. It returns the first
// that found nothing, or nil when all found a value.
func (s *State) Extract(st *Step, r Response) *Extract {
	for i := range st.Extract {
		e := &st.Extract[i]
		dst := s.vals[e.index][:0]
		ok := false
		switch e.kind {
		case fromJSON:
			var v []byte
			var isString bool
			if v, isString, ok = e.path.Lookup(r.Body()); ok {
				if isString {
					var err error
					dst, err = AppendUnescaped(dst, v)
					ok = err == nil
				} else {
					dst = append(dst, v...)
				}
			}
		case fromHeader:
			if v := r.Header(e.header); v != nil {
				dst, ok = append(dst, v...), true
			}
		case fromRegex:
			body := r.Body()
			if m := e.re.FindSubmatchIndex(body); m != nil && m[2*e.group] >= 0 {
				dst, ok = append(dst, body[m[2*e.group]:m[2*e.group+1]]...), true
			}
		}
		s.vals[e.index] = dst
		if !ok {
			return e
		}
		s.set[e.index] = true
	}
	return nil
}
