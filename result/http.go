package result

// HTTPStats is what `kurabe http` measured beside the engine's figures:
// every request's phases, the status codes, body lengths and bytes on the
// wire. The engine's figures (ops, latency, errors by class) count one
// operation per request, or per whole iteration of a flow; these count
// requests (every step of a flow).
//
// Phase latencies are each request's own, from its actual start (in an
// open loop, Latency in the Phase is measured from the scheduled start and
// includes waiting for a free client; these do not).
type HTTPStats struct {
	Mode  string `json:"mode"`            // "urls" or "flow"
	Order string `json:"order,omitempty"` // over several URLs: "round-robin" or "random"
	// Requests counts requests sent, whatever their outcome; Responses
	// those answered with a status line; Failed those counted as failures
	// (status, expectations, transport errors).
	Requests  int64 `json:"requests"`
	Responses int64 `json:"responses"`
	Failed    int64 `json:"failed"`
	Non2xx    int64 `json:"non_2xx"`
	// Status counts responses by status code, in code order.
	Status []StatusCount `json:"status"`
	// Length describes the response bodies' lengths: variation is a
	// statistic here, a failure only with --expect-length.
	Length BodyLength `json:"body_length"`
	// Bytes on the wire (status lines, headers and bodies) and bodies alone.
	BytesReceived    int64 `json:"bytes_received"`
	BytesSent        int64 `json:"bytes_sent"`
	BodyBytes        int64 `json:"body_bytes_received"`
	RequestBodyBytes int64 `json:"body_bytes_sent"`
	// Connections opened (with keep-alive, about one per client).
	Connections int64  `json:"connections"`
	KeepAlive   bool   `json:"keep_alive"`
	Server      string `json:"server,omitempty"` // the first response's Server header
	// Reconnects counts requests that found the kept-alive connection
	// they were to go out on closed by the server (an idle timeout, or an
	// unsolicited 408 waiting on it) before they were written, and went
	// out on a new connection instead: the server got each once. They are
	// not failures; their latency includes the reconnect. A 408 read after
	// the request was written is its answer, a failure, not a reconnect.
	Reconnects int64 `json:"reconnects,omitempty"`
	// Resent counts idempotent requests (GET, HEAD, OPTIONS, TRACE) sent a
	// second time, on a new connection, because the kept-alive connection
	// they had been written on, after sitting idle 100 ms or more, closed
	// before any byte of a response: the server may have processed both.
	// The server received Requests + Resent requests; BytesSent and
	// RequestBodyBytes count every attempt.
	Resent int64 `json:"resent,omitempty"`
	// Per request, as ab reports them: Connect is the time spent opening a
	// connection, the TLS handshake included (0 on a kept-alive one),
	// Processing the rest of the request, Waiting from the request written
	// to the first byte of the response, Total the whole request.
	Connect    Latency `json:"connect"`
	Processing Latency `json:"processing"`
	Waiting    Latency `json:"waiting"`
	Total      Latency `json:"total"`
	// The finer phases: the TCP connect alone and the TLS handshake (per
	// connection opened and handshake completed, whatever became of the
	// request that opened it), writing the request, reading the response
	// after its first byte.
	TCPConnect Moments `json:"tcp_connect"`
	TLS        Moments `json:"tls"`
	Write      Moments `json:"write"`
	Read       Moments `json:"read"`
	// Targets breaks the requests down per URL or flow step.
	Targets []HTTPTarget `json:"targets"`
}

// StatusCount is how many responses had one status code.
type StatusCount struct {
	Code  int   `json:"code"`
	Count int64 `json:"count"`
}

// BodyLength summarises response body lengths in bytes.
type BodyLength struct {
	Count    int64   `json:"count"`
	Min      int64   `json:"min"`
	Max      int64   `json:"max"`
	Mean     float64 `json:"mean"`
	Distinct int     `json:"distinct"`                // how many different lengths were seen
	MoreThan bool    `json:"distinct_more,omitempty"` // Distinct is a lower bound: more were seen than kurabe tracks
}

// Moments summarises durations without a histogram, in microseconds.
type Moments struct {
	Count  int64   `json:"count"`
	Mean   float64 `json:"mean_us"`
	StdDev float64 `json:"stddev_us"`
	Min    float64 `json:"min_us"`
	Max    float64 `json:"max_us"`
}

// HTTPTarget is one URL or flow step.
type HTTPTarget struct {
	Name     string     `json:"name"`
	Method   string     `json:"method"`
	URL      string     `json:"url"`            // as given, templates unrendered
	Line     int        `json:"line,omitempty"` // in the URL or flow file
	Requests int64      `json:"requests"`
	Failed   int64      `json:"failed"`
	Length   BodyLength `json:"body_length"`
	// Latency of the successful requests to this target (Count 0 when
	// none succeeded), from its actual start, or in an open loop from the
	// scheduled one; percentiles only when kurabe kept a histogram per
	// target (up to a few targets), else only count, mean, min and max.
	Latency Latency `json:"latency"`
}
