// Package result is kurabe's result document: everything a run measured,
// with enough detail (histograms, per-second series, settings, environment)
// to render any report again later without re-running.
//
// Latencies are stored in microseconds with fractions, plus the histogram's
// buckets in nanoseconds so percentiles can be recomputed and runs merged.
package result

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"kurabe/hist"
	"kurabe/outfile"
	"kurabe/store"
)

// Schema is the version of the document's layout. A reader refuses newer
// versions rather than misreading them.
const Schema = 1

// Document is one run.
type Document struct {
	Schema int    `json:"schema"`
	Kurabe string `json:"kurabe"`
	// Command is the command line after "kurabe", as typed ("run",
	// "--store", ...), with passwords hidden. Older documents recorded it
	// without the command's name.
	Command     []string    `json:"command"`
	Started     time.Time   `json:"started"`
	Finished    time.Time   `json:"finished"`
	Interrupted bool        `json:"interrupted"`
	Seed        uint64      `json:"seed"`
	Run         RunConfig   `json:"run"`
	Env         Environment `json:"environment"`
	Stores      []Store     `json:"stores"`
	// Scenario is the scenario file the run came from, when it did.
	Scenario *Scenario `json:"scenario,omitempty"`
}

// Scenario says which scenario file a run came from, and which of its
// steps it was.
type Scenario struct {
	File  string `json:"file"`            // as given to kurabe run
	Title string `json:"title,omitempty"` // the file's title
	Step  int    `json:"step"`            // from 1
	Steps int    `json:"steps"`           // the file's steps; 1 without steps
}

// RunConfig is what the user asked for.
type RunConfig struct {
	Workload string            `json:"workload"`
	Params   map[string]string `json:"params"`
	Ops      []string          `json:"ops"`
	Clients  int               `json:"clients"`
	Levels   []int             `json:"client_levels,omitempty"` // -c 1,2,4,8: every phase ran at each
	Count    int64             `json:"n,omitempty"`             // operations per phase
	Duration Duration          `json:"duration,omitempty"`      // or time per phase
	Warmup   Duration          `json:"warmup"`                  // excluded from results
	Think    string            `json:"think,omitempty"`         // delay between a client's operations
	Rate     string            `json:"rate,omitempty"`          // open loop: -R, ops/s or FROM:TO
	Dir      string            `json:"data_dir"`                // where stores without a path lived
	DirKept  bool              `json:"data_dir_kept"`           // false: removed after the run
	Vary     []Axis            `json:"vary,omitempty"`          // options varied over every store
	Repeat   int               `json:"repeat,omitempty"`        // times the whole comparison ran (--repeat)
	Isolate  bool              `json:"isolate,omitempty"`       // each client had tables of its own (--isolate)
}

// Axis is one varied option and its values (--vary NAME=V1,V2).
type Axis struct {
	Name   string   `json:"name"`
	Values []string `json:"values"`
}

// Setting is one option's value in a variant.
type Setting struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Store is one store's results.
type Store struct {
	Label   string    `json:"label"`
	Spec    string    `json:"spec"`              // as given, credentials removed
	Variant []Setting `json:"variant,omitempty"` // the varied options' values for this store
	// Via is "http" (or "cgi") when the workload reached the store
	// through kurabe serve (--via-http); Of is then the label of the
	// direct run. Info is then the HTTP client's (the http store that
	// reached kurabe serve: its address, keepalive and timeout), and
	// Served the store kurabe serve served, with its settings as it read
	// them back, as a direct run's Info has them (journal_mode,
	// page_compressed). Documents written before Served have none.
	Via    string      `json:"via,omitempty"`
	Of     string      `json:"of,omitempty"`
	Info   store.Info  `json:"info"`
	Served *store.Info `json:"served,omitempty"`
	Phases []Phase     `json:"phases"`
	Notes  []string    `json:"notes,omitempty"` // what the workload said about how this store ran it
	Error  string      `json:"error,omitempty"` // why the store could not run
	// Prepared is the data the workload loaded before its phases.
	Prepared []Prepared `json:"prepared,omitempty"`
}

// Prepared is one load of a workload's data set into a store.
type Prepared struct {
	Repeat int   `json:"repeat,omitempty"`
	Rows   int64 `json:"rows"` // in all tables
	// Tables is how many tables the data set went into, each a copy, when
	// isolated clients (--isolate) have tables of their own; Rows is then
	// their sum. 0 or 1: one table.
	Tables  int     `json:"tables,omitempty"`
	Seconds float64 `json:"seconds"`
}

// Phase is one measured operation (or mix) on one store.
type Phase struct {
	Op     string `json:"op"`
	Repeat int    `json:"repeat,omitempty"` // which run of --repeat, from 0
	// Sweep and SweepValue: the quantity a sweep of phases varies, such as
	// records read per request, and its value here.
	Sweep        string       `json:"sweep,omitempty"`
	SweepValue   float64      `json:"sweep_value,omitempty"`
	Interrupted  bool         `json:"interrupted,omitempty"`
	Clients      int          `json:"clients"`
	Elapsed      float64      `json:"elapsed_s"` // measured wall time, warm-up excluded
	Ops          int64        `json:"ops"`       // successful operations
	OpsPerSec    float64      `json:"ops_per_s"`
	Errors       int64        `json:"errors"`
	ErrorClasses []ErrorClass `json:"error_classes,omitempty"`
	Latency      Latency      `json:"latency"` // of successful operations
	Kinds        []Kind       `json:"kinds"`
	BytesRead    int64        `json:"bytes_read"`
	BytesWritten int64        `json:"bytes_written"`
	// ClientFinish is when each client finished, in seconds from the start;
	// FinishRatio is last over first. A ratio far above 1 means the store
	// served clients one after another rather than side by side.
	ClientFinish []float64 `json:"client_finish_s"`
	FinishRatio  float64   `json:"finish_ratio"`
	SessionOpen  Latency   `json:"session_open"` // time to open each client's session
	// SessionErrors counts the clients that could not open a session, by
	// class; Clients is then the number that ran.
	SessionErrors []ErrorClass `json:"session_errors,omitempty"`
	// SessionsLost counts the sessions that lost their connection during
	// the phase (the server ended it or it broke): the operation that
	// found it lost is counted as failed, and its client reopened the
	// session with a backoff; SessionsReopened of them were. A client
	// whose session was not reopened stopped, its remaining operations not
	// run. ReopenFailures counts the attempts that failed (not operation
	// errors), ReopenError says the first.
	SessionsLost     int64  `json:"sessions_lost,omitempty"`
	SessionsReopened int64  `json:"sessions_reopened,omitempty"`
	ReopenFailures   int64  `json:"reopen_failures,omitempty"`
	ReopenError      string `json:"reopen_error,omitempty"`
	// CutOff counts the operations still in flight GraceSeconds after the
	// phase's end (or an interrupt), then cancelled and counted as failed
	// (class timeout): a server that stopped answering.
	CutOff       int64   `json:"cut_off,omitempty"`
	GraceSeconds float64 `json:"grace_s,omitempty"`
	// With a connection per operation (connect=per-op): the time spent
	// connecting, the latency without it, and ops/s without it, like
	// pgbench's tps "without initial connection time".
	// ProcessCPU is the cores kurabe's own process used during the phase
	// (user + system time over wall time), the store's work included when
	// the store runs inside kurabe (file, SQLite).
	ProcessCPU float64 `json:"process_cpu_cores"`
	// ClientIO is how the clients waited for their sessions' replies:
	// "threads" (a thread each, blocked in poll(2) on its socket, as
	// pgbench -j C), "loop" (coroutines of one thread woken by one epoll
	// set, as one pgbench thread serves its connections), or empty: a
	// goroutine each in Go's network poller.
	ClientIO string `json:"client_io,omitempty"`
	// Multiplexed is how results before client_io said "loop"; ReadFile
	// turns it into ClientIO.
	Multiplexed bool `json:"multiplexed,omitempty"`
	// OpenLoop holds the open loop's figures when the phase ran at a rate;
	// Latency is then measured from each operation's scheduled start.
	OpenLoop             *OpenLoop `json:"open_loop,omitempty"`
	Connect              *Latency  `json:"connect,omitempty"`
	LatencyExclConnect   *Latency  `json:"latency_excl_connect,omitempty"`
	OpsPerSecExclConnect float64   `json:"ops_per_s_excl_connect,omitempty"`
	WarmupOps            int64     `json:"warmup_ops,omitempty"`
	Series               []Second  `json:"series"`
	Verify               []Verify  `json:"verify,omitempty"`

	// Gone, when set, says the store's server went away during this phase
	// (or as it ended) and the store's later phases of the repeat were
	// skipped: a managed server that died, or a server that stopped
	// answering.
	Gone *Gone `json:"gone,omitempty"`
	// Skipped, when set, says why the phase did not run (its store's
	// server had gone in an earlier one): it has no figures.
	Skipped string `json:"skipped,omitempty"`

	// HTTP holds what kurabe http measured beside the engine's figures.
	HTTP *HTTPStats `json:"http,omitempty"`
	// Replay holds what kurabe replay measured beside these figures.
	Replay *Replay `json:"replay,omitempty"`
}

// Gone is how a store's server went away during a phase (Phase.Gone).
type Gone struct {
	// Died: a server kurabe ran as its own child process exited without
	// being asked to: killed by Signal (9, SIGKILL), or, with Signal 0,
	// exited with ExitStatus. LogTail holds the last lines of its log, and
	// Log its file when the data directory is kept (else it is gone).
	Died       bool     `json:"died,omitempty"`
	Signal     int      `json:"signal,omitempty"`
	SignalName string   `json:"signal_name,omitempty"`
	ExitStatus int      `json:"exit_status,omitempty"`
	CoreDumped bool     `json:"core_dumped,omitempty"`
	Log        string   `json:"log,omitempty"`
	LogTail    []string `json:"log_tail,omitempty"`
	// Otherwise it stopped answering: the phase's operations were cut off
	// (Phase.CutOff, after Phase.GraceSeconds), and a new connection got
	// no answer within CheckSeconds either: Check is its error.
	CheckSeconds float64 `json:"check_s,omitempty"`
	Check        string  `json:"check,omitempty"`
}

// OpenLoop is what an open-loop phase (a rate) measured beside latency.
type OpenLoop struct {
	Rate      float64 `json:"rate"`              // ops/s asked for (at the start of a ramp)
	RampTo    float64 `json:"ramp_to,omitempty"` // ops/s at the end of a ramp
	Scheduled int64   `json:"scheduled"`         // operations the timetable held
	// ScheduledRate is the timetable's mean rate over the measured part
	// (Rate, or the middle of a ramp); Achieved is what was started, per
	// second of the timetable (-d, or n/Rate, or until the end of the
	// last one's slot when they started later).
	ScheduledRate float64 `json:"scheduled_rate"`
	Achieved      float64 `json:"achieved_rate"` // operations started per second
	// NotStarted counts operations due before the phase ended that no
	// client had started by then.
	NotStarted int64 `json:"not_started,omitempty"`
	// AllBusy counts operations due while every client was in an
	// operation: those that started late straight after their client's
	// previous one, and those never started. Clients are one operation
	// in flight each, so these waited for a client, not for a clock.
	AllBusy     int64   `json:"all_busy,omitempty"`
	Late        int64   `json:"late"` // started more than LateAfterUs behind schedule
	LateAfterUs float64 `json:"late_after_us"`
	// Service is the uncorrected latency, from each operation's actual
	// start; Lag is how far actual starts fell behind the timetable.
	Service Latency `json:"service_time"`
	Lag     Latency `json:"lag"`
	Behind  bool    `json:"behind"`         // the rate was not kept
	Note    string  `json:"note,omitempty"` // why, when it can tell: BehindClient, BehindBusy, BehindTimer or BehindStore
}

// NotStarted is the target of a store that an interrupt kept from
// starting (Store.Info.Target). Reports translate it.
const NotStarted = "not started: interrupted"

// Why an open loop fell behind (OpenLoop.Note). Reports translate them.
const (
	BehindClient = "kurabe could not keep the rate: its own process used nearly every core"
	BehindStore  = "the store could not keep up with the rate: operations started late or not at all"
	// BehindBusy: operations were due while every client was in one; at
	// the latency measured, the clients (-c) could not carry the rate.
	// Reports say how many the rate needs (OpenLoop.ClientsNeeded).
	BehindBusy = "every client was busy when operations were due: too few clients for the rate at this latency"
	// BehindTimer: operations started late while clients were free, and
	// the service time stayed below the lateness bound: the time went
	// to waking the clients (kurabe's timer, a sleeping vCPU), not to
	// the store, which kept up with what it was given.
	BehindTimer = "operations started late while clients were free, and the store's service time stayed short (p99 under the lateness bound): the delay was in waking the clients (kurabe's timer, a sleeping vCPU on a loaded machine), not in the store; run again, or with more clients"
)

// PeakRate is the highest rate of the timetable: Rate, or the end of a
// ramp that rises.
func (o *OpenLoop) PeakRate() float64 { return max(o.Rate, o.RampTo) }

// ClientsNeeded is how many clients carry the timetable's peak rate at
// the mean service time measured (rate × latency, rounded up, and more
// than clients, which were all busy), and what
// the clients given carry at that latency (clients ÷ latency, per
// second); 0, 0 when no operation succeeded.
func (o *OpenLoop) ClientsNeeded(clients int) (need int, carry float64) {
	if o.Service.Count == 0 || o.Service.Mean <= 0 {
		return 0, 0
	}
	secs := o.Service.Mean / 1e6
	// Every client was busy, so the clients given were too few whatever
	// rate × latency says (the latency varies around its mean): at least
	// one more.
	return max(int(math.Ceil(o.PeakRate()*secs-1e-9)), clients+1), float64(clients) / secs
}

// MeanRate is the timetable's mean rate over the measured part: Rate, or
// the middle of a ramp (what ScheduledRate records; results written
// before it give it thus too).
func (o *OpenLoop) MeanRate() float64 {
	if o.RampTo > 0 {
		return (o.Rate + o.RampTo) / 2
	}
	return o.Rate
}

// Kind is the share of one kind of operation in a phase (several in a mix).
type Kind struct {
	Name         string       `json:"name"`
	Ops          int64        `json:"ops"`
	Errors       int64        `json:"errors"`
	ErrorClasses []ErrorClass `json:"error_classes,omitempty"`
	Latency      Latency      `json:"latency"`
	BytesRead    int64        `json:"bytes_read"`
	BytesWritten int64        `json:"bytes_written"`
}

// ErrorClass counts errors of one class and keeps the first message.
type ErrorClass struct {
	Class string `json:"class"`
	Count int64  `json:"count"`
	First string `json:"first"`
}

// Second is one interval of a phase's timeline, normally a second; the
// intervals' ends fall on whole seconds from the end of the warm-up.
type Second struct {
	T         float64 `json:"t_s"` // end of the interval, seconds since the phase started (warm-up included)
	Warmup    bool    `json:"warmup,omitempty"`
	Ops       int64   `json:"ops"`
	OpsPerSec float64 `json:"ops_per_s"`
	Errors    int64   `json:"errors"`
	P50       float64 `json:"p50_us"`
	P99       float64 `json:"p99_us"`
	Max       float64 `json:"max_us"`
}

// Verify compares acknowledged writes with what a table holds.
//
// A write that failed after its request may have reached the store (its
// answer was lost: cut off after --grace, its connection lost or reset)
// may have been stored or not. Unknown counts the rows such writes may
// have added (one each; a load's chunk, its rows), warm-up included, and
// UnknownClasses the writes by class. The rows the table gained beyond
// the acknowledged ones are theirs up to Unknown (UnknownStored); only
// rows beyond those are Extra, which fails the run. Lost, acknowledged
// rows missing, fails it whatever Unknown is: a count cannot tell an
// acknowledged row lost from an unknown one stored, so rows of unknown
// writes never make up for lost ones, they only go unseen in the net
// count.
type Verify struct {
	Table          string       `json:"table"`
	Before         int64        `json:"before"`
	After          int64        `json:"after"`
	Acked          int64        `json:"acked"` // rows the store acknowledged adding, warm-up included
	Lost           int64        `json:"lost"`
	Extra          int64        `json:"extra"`                     // rows beyond Acked and Unknown
	Unknown        int64        `json:"unknown,omitempty"`         // rows writes whose answer was lost may have added
	UnknownStored  int64        `json:"unknown_stored,omitempty"`  // of them, rows the table gained beyond Acked
	UnknownClasses []ClassCount `json:"unknown_classes,omitempty"` // those writes, by class
	Error          string       `json:"error,omitempty"`           // counting failed
}

// Judge sets Lost, Extra and UnknownStored from Before, After, Acked and
// Unknown.
func (v *Verify) Judge() {
	v.Lost, v.Extra, v.UnknownStored = 0, 0, 0
	d := v.After - v.Before
	if d < v.Acked {
		v.Lost = v.Acked - d
		return
	}
	v.UnknownStored = min(d-v.Acked, v.Unknown)
	v.Extra = d - v.Acked - v.UnknownStored
}

// UnknownWrites is how many writes' answers were lost (UnknownClasses).
func (v Verify) UnknownWrites() int64 {
	var n int64
	for _, c := range v.UnknownClasses {
		n += c.Count
	}
	return n
}

// ClassCount counts operations of one error class.
type ClassCount struct {
	Class string `json:"class"`
	Count int64  `json:"count"`
}

// AddClassCount adds n operations of class to cs.
func AddClassCount(cs []ClassCount, class string, n int64) []ClassCount {
	for i := range cs {
		if cs[i].Class == class {
			cs[i].Count += n
			return cs
		}
	}
	return append(cs, ClassCount{Class: class, Count: n})
}

// Latency summarises a histogram, in microseconds.
type Latency struct {
	Count   uint64        `json:"count"`
	Mean    float64       `json:"mean_us"`
	StdDev  float64       `json:"stddev_us"`
	Min     float64       `json:"min_us"`
	P50     float64       `json:"p50_us"`
	P90     float64       `json:"p90_us"`
	P95     float64       `json:"p95_us"`
	P99     float64       `json:"p99_us"`
	P999    float64       `json:"p99_9_us"`
	Max     float64       `json:"max_us"`
	SumNs   uint64        `json:"sum_ns"`
	Buckets []hist.Bucket `json:"buckets_ns,omitempty"` // [lowest value, count]
}

func us(ns float64) float64 { return float64(int64(ns)) / 1e3 }

// Summarize turns a histogram into a Latency.
func Summarize(s *hist.Snapshot) Latency {
	if s.Count == 0 {
		return Latency{}
	}
	return Latency{
		Count: s.Count, Mean: us(s.Mean()), StdDev: us(s.StdDev()), Min: us(float64(s.Min)),
		P50: us(s.Quantile(0.5)), P90: us(s.Quantile(0.9)), P95: us(s.Quantile(0.95)),
		P99: us(s.Quantile(0.99)), P999: us(s.Quantile(0.999)), Max: us(float64(s.Max)),
		SumNs: s.Sum, Buckets: s.Buckets(),
	}
}

// Histogram rebuilds the histogram behind a Latency.
func (l Latency) Histogram() *hist.Snapshot {
	return hist.FromBuckets(l.Buckets, l.SumNs, int64(l.Min*1e3), int64(l.Max*1e3))
}

// Level is the client level phase p ran at: the clients asked for, those
// that could not open a session included (Phase.Clients counts the ones
// that ran), so that a level keeps its name when a client failed. Old
// documents without per-phase clients fall back to the run's.
func (d *Document) Level(p Phase) int {
	n := p.Clients
	for _, c := range p.SessionErrors {
		n += int(c.Count)
	}
	if n == 0 {
		n = d.Run.Clients
	}
	return n
}

// Unknown sums, over all stores and phases, the rows writes whose answer
// was lost may have added and the rows of them the tables hold.
func (d *Document) Unknown() (unknown, stored int64) {
	for _, s := range d.Stores {
		for _, p := range s.Phases {
			for _, v := range p.Verify {
				unknown += v.Unknown
				stored += v.UnknownStored
			}
		}
	}
	return unknown, stored
}

// Lost sums lost writes over all stores and phases: acknowledged rows
// missing, and rows no write explains (Verify.Extra).
func (d *Document) Lost() (lost, extra int64) {
	for _, s := range d.Stores {
		for _, p := range s.Phases {
			for _, v := range p.Verify {
				lost += v.Lost
				extra += v.Extra
			}
		}
	}
	return lost, extra
}

// Duration is a time.Duration written as a string such as "30s".
type Duration time.Duration

func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := time.ParseDuration(s)
	*d = Duration(v)
	return err
}

// WriteFile writes the document atomically (see WriteAtomic).
func WriteFile(path string, d *Document) error {
	b, err := json.MarshalIndent(d, "", " ")
	if err != nil {
		return err
	}
	return WriteAtomic(path, func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
}

// WriteAtomic writes a file through outfile.Write: a regular file through
// a temporary file renamed over it (the file a symbolic link names), a
// device or FIFO directly.
func WriteAtomic(path string, write func(io.Writer) error) error {
	return outfile.Write(path, write)
}

// NewerError is ReadFile's error for a result written by a newer kurabe.
type NewerError struct{ msg string }

func (e *NewerError) Error() string { return e.msg }

// ReadFile reads a result document.
func ReadFile(path string) (*Document, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var d Document
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("%s is not a kurabe result: %v", path, err)
	}
	// Every result kurabe has written carries a schema from 1 up: JSON
	// without one is some other document, not an old result, and only a
	// newer schema calls for a newer kurabe.
	switch {
	case d.Schema < 1:
		return nil, fmt.Errorf("%s is not a kurabe result: it has no \"schema\" of 1 or more", path)
	case d.Schema > Schema:
		return nil, &NewerError{fmt.Sprintf("%s has result schema %d, newer than this kurabe reads (1 to %d); upgrade kurabe", path, d.Schema, Schema)}
	}
	for i := range d.Stores {
		for j := range d.Stores[i].Phases {
			if p := &d.Stores[i].Phases[j]; p.Multiplexed {
				p.ClientIO, p.Multiplexed = "loop", false
			}
		}
	}
	return &d, nil
}
