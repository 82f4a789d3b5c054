package httpload

import (
	"math"
	"slices"
	"time"

	"kurabe/hist"
	"kurabe/result"
)

// clientStats is what one client counted. Only its goroutine writes it;
// Stats reads it after the engine's phase has ended.
type clientStats struct {
	requests, responses, failed, non2xx int64
	status                              [600]int64 // by code; [0] counts codes outside 100-599
	length                              lengthStats
	bodyIn, bodyOut                     int64
	// connect, processing and total hold the requests that connected;
	// kept holds the total (which is also the processing time) of those
	// that did not, and noConnect counts them (their connect time is 0).
	connect, processing, waiting, total *hist.Recorder
	kept                                *hist.Recorder
	noConnect                           uint64
	// failedTotal holds the total of the responses that failed (a
	// status, an expectation, an extraction): a URL's successful
	// requests are its responses less these.
	failedTotal *hist.Recorder
	write, read moments
	targets     []targetStats
	server      []byte
}

type targetStats struct {
	requests, failed int64
	length           lengthStats
	lat              moments
	rec              *hist.Recorder // when the workload keeps one per target
}

func newClientStats(targets int, detailed bool) clientStats {
	s := clientStats{
		connect: hist.NewRecorder(), processing: hist.NewRecorder(), waiting: hist.NewRecorder(), total: hist.NewRecorder(),
		kept: hist.NewRecorder(), failedTotal: hist.NewRecorder(),
		length: lengthStats{set: make([]int64, 256)}, targets: make([]targetStats, targets),
	}
	for i := range s.targets {
		if detailed {
			s.targets[i].rec = hist.NewRecorder()
			s.targets[i].length.set = make([]int64, 64)
		}
	}
	return s
}

// moments accumulates durations for a mean and standard deviation.
type moments struct {
	n        int64
	sum, sq  float64 // ns, ns²
	min, max int64
}

func (m *moments) add(d time.Duration) {
	v := int64(d)
	if m.n == 0 || v < m.min {
		m.min = v
	}
	if v > m.max {
		m.max = v
	}
	m.n++
	f := float64(v)
	m.sum += f
	m.sq += f * f
}

func (m *moments) merge(o *moments) {
	if o.n == 0 {
		return
	}
	if m.n == 0 || o.min < m.min {
		m.min = o.min
	}
	m.max = max(m.max, o.max)
	m.n += o.n
	m.sum += o.sum
	m.sq += o.sq
}

func (m *moments) result() result.Moments {
	if m.n == 0 {
		return result.Moments{}
	}
	mean := m.sum / float64(m.n)
	return result.Moments{
		Count: m.n, Mean: us(mean), StdDev: us(math.Sqrt(max(m.sq/float64(m.n)-mean*mean, 0))),
		Min: us(float64(m.min)), Max: us(float64(m.max)),
	}
}

func us(ns float64) float64 { return math.Round(ns) / 1e3 }

// lengthStats counts body lengths: minimum, maximum, mean, and the distinct
// lengths in a small open-addressed set that fills to three quarters, after
// which only "more than" is known.
type lengthStats struct {
	n, sum, min, max int64
	set              []int64 // length+1 per slot, 0 free; nil: distinct lengths not tracked
	used             int
	more             bool
}

func (l *lengthStats) add(v int64) {
	if l.n == 0 || v < l.min {
		l.min = v
	}
	if v > l.max {
		l.max = v
	}
	l.n++
	l.sum += v
	if l.set == nil || l.more {
		return
	}
	k := v + 1
	mask := len(l.set) - 1
	for i := int(uint64(k)*0x9E3779B97F4A7C15>>40) & mask; ; i = (i + 1) & mask {
		switch l.set[i] {
		case k:
			return
		case 0:
			if l.used >= len(l.set)*3/4 {
				l.more = true
				return
			}
			l.set[i] = k
			l.used++
			return
		}
	}
}

// mergeLengths sums lengthStats of several clients.
func mergeLengths(ls []*lengthStats) result.BodyLength {
	var out result.BodyLength
	var sum int64
	distinct := map[int64]bool{}
	tracked := true
	for _, l := range ls {
		if l.n == 0 {
			continue
		}
		if out.Count == 0 || l.min < out.Min {
			out.Min = l.min
		}
		out.Max = max(out.Max, l.max)
		out.Count += l.n
		sum += l.sum
		if l.set == nil {
			tracked = false
		}
		for _, k := range l.set {
			if k != 0 {
				distinct[k] = true
			}
		}
		out.MoreThan = out.MoreThan || l.more
	}
	if out.Count > 0 {
		out.Mean = math.Round(float64(sum)/float64(out.Count)*100) / 100
	}
	if tracked {
		out.Distinct = len(distinct)
	}
	return out
}

func summarize(recs []*hist.Recorder, buckets bool) result.Latency {
	return summarizeZeros(recs, 0, buckets)
}

// summarizeZeros summarizes recs and zeros values of 0.
func summarizeZeros(recs []*hist.Recorder, zeros uint64, buckets bool) result.Latency {
	var s hist.Snapshot
	for _, r := range recs {
		r.AddTo(&s)
	}
	if zeros > 0 {
		s.Merge(hist.FromBuckets([]hist.Bucket{{0, int64(zeros)}}, 0, 0, 0))
	}
	l := result.Summarize(&s)
	if !buckets {
		l.Buckets = nil
	}
	return l
}

// less summarizes the values of recs less those of sub, a part of them.
func less(recs, sub []*hist.Recorder) result.Latency {
	var all, part, s hist.Snapshot
	for _, r := range recs {
		r.AddTo(&all)
	}
	for _, r := range sub {
		r.AddTo(&part)
	}
	s.Delta(&all, &part)
	l := result.Summarize(&s)
	l.Buckets = nil
	return l
}

// Stats gathers every client's counts into the result's HTTP figures. Call
// it after the engine's phase has ended.
func (w *Workload) Stats() *result.HTTPStats {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := &result.HTTPStats{Mode: "urls", KeepAlive: !w.cfg.Close}
	if w.cfg.Flow != nil {
		out.Mode = "flow"
	} else if len(w.targets) > 1 {
		out.Order = w.order()
	}
	var status [600]int64
	var lengths []*lengthStats
	var connect, processing, waiting, total, failedTotal []*hist.Recorder
	var noConnect uint64
	var dialM, tlsM, writeM, readM moments
	for _, c := range w.clients {
		s := &c.stats
		out.Requests += s.requests
		out.Responses += s.responses
		out.Failed += s.failed
		out.Non2xx += s.non2xx
		out.BodyBytes += s.bodyIn
		out.RequestBodyBytes += s.bodyOut
		out.BytesReceived += c.sess.tm.in
		out.BytesSent += c.sess.tm.out
		out.Connections += c.sess.tm.dials
		out.Reconnects += c.sess.tm.reconnects
		out.Resent += c.sess.tm.resent
		for i, n := range s.status {
			status[i] += n
		}
		lengths = append(lengths, &s.length)
		connect = append(connect, s.connect)
		processing = append(processing, s.processing, s.kept)
		waiting = append(waiting, s.waiting)
		total = append(total, s.total, s.kept)
		failedTotal = append(failedTotal, s.failedTotal)
		noConnect += s.noConnect
		dialM.merge(&c.sess.tm.dialTime)
		tlsM.merge(&c.sess.tm.tlsTime)
		writeM.merge(&s.write)
		readM.merge(&s.read)
		if out.Server == "" && len(s.server) > 0 {
			out.Server = string(s.server)
		}
	}
	for code, n := range status {
		if n > 0 {
			out.Status = append(out.Status, result.StatusCount{Code: code, Count: n})
		}
	}
	out.Length = mergeLengths(lengths)
	out.Connect = summarizeZeros(connect, noConnect, false)
	out.Processing = summarize(processing, false)
	out.Waiting = summarize(waiting, false)
	out.Total = summarize(total, true)
	out.TCPConnect, out.TLS, out.Write, out.Read = dialM.result(), tlsM.result(), writeM.result(), readM.result()

	for i := range w.numTargets() {
		t := result.HTTPTarget{}
		if f := w.cfg.Flow; f != nil {
			st := &f.Steps[i]
			t.Name, t.Method, t.URL, t.Line = st.Name, st.Method, RedactURL(st.URL.String()), st.Line
		} else {
			tg := &w.targets[i]
			t.Name, t.Method, t.URL, t.Line = tg.name, tg.Method, RedactURL(tg.URL), tg.Line
		}
		var ls []*lengthStats
		var recs []*hist.Recorder
		var m moments
		for _, c := range w.clients {
			ts := &c.stats.targets[i]
			t.Requests += ts.requests
			t.Failed += ts.failed
			ls = append(ls, &ts.length)
			m.merge(&ts.lat)
			if ts.rec != nil {
				recs = append(recs, ts.rec)
			}
		}
		t.Length = mergeLengths(ls)
		if w.numTargets() == 1 {
			// One URL or step is every response: its lengths are the
			// run's, whose distinct lengths are tracked (a target's are
			// only with a histogram of its own).
			t.Length = out.Length
		}
		if len(recs) > 0 {
			t.Latency = summarize(recs, false)
		} else if w.numTargets() == 1 && !w.cfg.OpenLoop {
			// One URL keeps no histogram of its own: its successful
			// requests are the responses less the failed ones.
			t.Latency = less(total, failedTotal)
		} else if r := m.result(); r.Count > 0 {
			t.Latency = result.Latency{Count: uint64(r.Count), Mean: r.Mean, StdDev: r.StdDev, Min: r.Min, Max: r.Max, SumNs: uint64(m.sum)}
		}
		out.Targets = append(out.Targets, t)
	}
	slices.SortStableFunc(out.Status, func(a, b result.StatusCount) int { return a.Code - b.Code })
	return out
}

func (w *Workload) numTargets() int {
	if w.cfg.Flow != nil {
		return len(w.cfg.Flow.Steps)
	}
	return len(w.targets)
}
