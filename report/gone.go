package report

import (
	"strings"
	"time"

	"kurabe/result"
)

// GoneNote is the note on phase p, during which its store's server went
// away (p.Gone), as the notes under the table say it and kurabe run says
// it on stderr when it happens: label is the store's, phase the phase as
// the table names it, later whether the store had phases after it (which
// were skipped).
func GoneNote(lang, label, phase string, p result.Phase, later bool) string {
	return goneNote(tr(lang), label, phase, p, later)
}

func goneNote(l tr, label, phase string, p result.Phase, later bool) string {
	g := p.Gone
	if !g.Died {
		// As the flag is given: --grace 5s.
		secs := func(s float64) string {
			return time.Duration(s * float64(time.Second)).Round(time.Millisecond).String()
		}
		line := l.f("note.stopped-answering", label, phase, num0(p.CutOff), secs(p.GraceSeconds), secs(g.CheckSeconds), g.Check)
		if later {
			line += l.t("gone.later")
		}
		return line
	}
	how := l.f("died.status", g.ExitStatus)
	if g.Signal != 0 {
		how = l.f("died.signal", g.Signal)
		if g.SignalName == "SIGKILL" {
			how += " (" + g.SignalName + l.t("died.sigkill") + ")"
		} else if g.SignalName != "" {
			how += " (" + g.SignalName + ")"
		}
		if g.CoreDumped {
			how += l.t("died.core")
		}
	}
	line := l.f("note.died", label, phase, how)
	if later {
		line += l.t("gone.later")
	}
	switch {
	case len(g.LogTail) == 0 && g.Log != "":
		line += l.f("died.log-empty", g.Log)
	case len(g.LogTail) == 0:
	case g.Log != "":
		line += l.f("died.log-kept", g.Log) + "\n  " + strings.Join(g.LogTail, "\n  ")
	default:
		line += l.t("died.log") + "\n  " + strings.Join(g.LogTail, "\n  ")
	}
	return line
}

// goneLater reports whether phase i of s has phases of the same repeat
// after it.
func goneLater(s result.Store, i int) bool {
	for _, q := range s.Phases[i+1:] {
		if q.Repeat == s.Phases[i].Repeat {
			return true
		}
	}
	return false
}
