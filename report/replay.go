package report

import (
	"regexp"
	"strings"
	"time"

	"kurabe/result"
)

// replayNotes are the lines a replay adds under its table, in every
// report of it as in what kurabe replay printed: the log read, the pace
// kept or not (BEHIND), lines of the log that could not be read, and the
// replay's own notes. The figures are the document's (result.Replay), so
// a report of the JSON says what the live run did.
func replayNotes(l tr, label string, p result.Phase) []string {
	r := p.Replay
	if r == nil || p.Op != "replay" {
		return nil
	}
	mode := l.t("replay.mode.sessions")
	if r.Mode == "clients" {
		mode = l.count(p.Clients, "http.client", "http.clients")
	}
	line := l.f("replay.line", label, l.count64(r.Statements, "replay.statement", "replay.statements"),
		l.count64(int64(r.Sessions), "replay.session", "replay.sessions"), r.Log, l.count64(r.Lines, "replay.line1", "replay.lines"), r.LogSpan, mode, r.Speed)
	if r.Delay != "" {
		line += l.f("replay.delay", r.Delay)
	}
	switch {
	case p.Interrupted:
		// Stopped before the log's end: its time is the interrupt's, so
		// no verdict on the pace, only how far it got.
		ran := p.Ops + p.Errors + p.WarmupOps
		line += l.f("replay.interrupted", r.Wall)
		if r.Lag != nil {
			line += l.f("replay.interrupted.scheduled", r.Scheduled)
		}
		line += l.f("replay.interrupted.ran", num0(ran), l.count64(r.Statements, "replay.statement", "replay.statements"))
		if r.Lag != nil && r.Lag.Count > 0 {
			line += l.f("replay.interrupted.lag", usDur(r.Lag.P50), usDur(r.Lag.P99), usDur(r.Lag.Max))
		}
		if r.Lag != nil {
			line += l.t("replay.interrupted.noverdict")
		}
	case p.Ops+p.Errors == 0 && p.WarmupOps > 0:
		// Everything ran in the warm-up: no figures, no verdict.
		line += l.f("replay.allwarmup", r.Wall)
	case r.Lag != nil:
		line += l.f("replay.pace", r.Wall, r.Scheduled, usDur(r.Lag.P50), usDur(r.Lag.P99), usDur(r.Lag.Max),
			l.count64(r.Late, "replay.statement", "replay.statements"), usDur(r.LateAfterUs))
		if r.Behind {
			line += l.f("note.behind", replayBehind(l, r.Note))
		} else {
			line += l.t("replay.kept")
		}
	default:
		line += l.f("replay.took", r.Wall)
	}
	out := []string{line}
	if r.Unreadable > 0 {
		key := "replay.unreadable"
		if r.Unreadable == 1 {
			key = "replay.unreadable1"
		}
		out = append(out, l.f(key, label, num0(r.Unreadable), strings.Join(r.FirstUnreadable, "; ")))
	}
	for _, n := range r.Notes {
		out = append(out, label+" replay: "+n) // the replay's own words, quoted as they are
	}
	return out
}

// count64 is count for an int64, grouped (1,234 statements) as kurabe
// replay's lines have always written it; many takes a %s.
func (l tr) count64(n int64, one, many string) string {
	if n == 1 {
		return l.t(one)
	}
	return l.f(many, num0(n))
}

func usDur(us float64) string {
	return time.Duration(us * 1e3).Round(time.Microsecond).String()
}

// replayBehinds are the reasons the replay engine gives for BEHIND
// (replay.runner.stats), with their figures, keyed for translation. The
// figures are taken from the note as it stands, so they read the same in
// both languages; a note of another shape is quoted as it is.
var replayBehinds = []struct {
	re  *regexp.Regexp
	key string
}{
	{regexp.MustCompile(`^kurabe could not keep the log's pace: its own process used nearly every core$`), "replay.behind.client"},
	{regexp.MustCompile(`^the replay could not keep the log's pace: statements started up to (\S+) late and it ended (\S+) s after the schedule; too few --clients for the log's concurrency, or a store slower than the logged one$`), "replay.behind.clients"},
	{regexp.MustCompile(`^the store could not keep the log's pace: statements started up to (\S+) late and the replay ended (\S+) s after the schedule$`), "replay.behind.store"},
}

// replayDelaySuffix ended the BEHIND note of documents written before
// --delay became part of the schedule; it is still translated in them.
const replayDelaySuffix = " (--delay adds to the log's own pauses)"

func replayBehind(l tr, note string) string {
	if l != Japanese {
		return note
	}
	base, delay := strings.CutSuffix(note, replayDelaySuffix)
	for _, b := range replayBehinds {
		m := b.re.FindStringSubmatch(base)
		if m == nil {
			continue
		}
		args := make([]any, len(m)-1)
		for i, s := range m[1:] {
			args[i] = s
		}
		s := l.f(b.key, args...)
		if delay {
			s += l.t(replayDelaySuffix)
		}
		return s
	}
	return note
}
