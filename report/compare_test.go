package report

import (
	"bytes"
	"strings"
	"testing"

	"kurabe/result"
	"kurabe/store"
)

func writeCompare(t *testing.T, c *Comparison, lang string) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteCompare(&b, c, "text", lang); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// Whether a Mann–Whitney test can reach p ≤ 0.05 depends on both sample
// counts: 3 against 6 can (2/C(9,3) = 0.024), 3 against 3 cannot (0.1).
// The note said "with fewer than 4 samples per side the test cannot reach
// p<0.05" under every comparison, beside a significant p=0.024; it is said
// only where rows had too few to test, with their counts and the smallest
// p they allow.
func TestCompareTooFewNoteNamesTheCounts(t *testing.T) {
	cases := []struct {
		name         string
		old, new     int  // repeats a side
		untested     bool // rows too few to test, and the note about them
		wantInNote   string
		significance string
	}{
		// 3+6 reaches 0.024: tested, and nothing said about too few.
		{"3+6", 3, 6, false, "", "p=0.024 n=3+6"},
		// 6+3 the same, the other way round.
		{"6+3", 6, 3, false, "", "p=0.024 n=6+3"},
		// 3+3 cannot go below 0.1.
		{"3+3", 3, 3, true, "0.100 with n=3+3", "n=3+3 (too few samples)"},
		// 2+6: 2/C(8,2) = 0.071.
		{"2+6", 2, 6, true, "0.071 with n=2+6", "n=2+6 (too few samples)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := writeCompare(t, Compare(repeatDoc(c.old, 1000, 5000), repeatDoc(c.new, 3000, 5000)), English)
			if !strings.Contains(out, c.significance) {
				t.Errorf("want %q in:\n%s", c.significance, out)
			}
			said := strings.Contains(out, "the smallest p the test can give")
			if said != c.untested || strings.Contains(out, "fewer than 4 samples") {
				t.Errorf("rows too few to test: %v; the note says so: %v:\n%s", c.untested, said, out)
			}
			if c.untested && !strings.Contains(out, c.wantInNote) {
				t.Errorf("the note does not give the smallest p, %q:\n%s", c.wantInNote, out)
			}
			if !c.untested && strings.Contains(out, "(untested)") {
				t.Errorf("a row marked untested though the test can reach 0.05:\n%s", out)
			}
		})
	}
}

// replaySide is a replay result of n replays (pooled as repeats): the
// phase replay, taking secs each, one fingerprint that succeeds, one that
// fails every time, and one that fails in this side when failing is set.
func replaySide(n int, secs float64, failing bool) *result.Document {
	d := &result.Document{Schema: result.Schema, Kurabe: "0.0.0-test",
		Run: result.RunConfig{Workload: "replay", Ops: []string{"replay"}, Clients: 2, Count: 30}}
	st := result.Store{Label: "postgres", Info: store.Info{Driver: "postgres"}}
	for rep := range n {
		f := 1 + 0.01*float64(rep)
		ok := func(op string, us float64) result.Phase {
			return result.Phase{Op: op, Repeat: rep, Clients: 2, Ops: 10, Elapsed: secs * f, OpsPerSec: 10 / (secs * f),
				Latency: result.Latency{Count: 10, Mean: us * f, P50: us * f, P99: 2 * us * f}}
		}
		bad := result.Phase{Op: "select * from missing_table", Repeat: rep, Clients: 2, Errors: 10, Elapsed: secs * f,
			ErrorClasses: []result.ErrorClass{{Class: "other", Count: 10, First: `relation "missing_table" does not exist`}}}
		st.Phases = append(st.Phases, ok("replay", secs*1e6/30), ok("select ?", 100), bad)
		if failing {
			st.Phases = append(st.Phases, result.Phase{Op: "select ? + ?", Repeat: rep, Clients: 2, Errors: 5, Elapsed: secs * f})
		} else {
			st.Phases = append(st.Phases, ok("select ? + ?", 90))
		}
	}
	d.Stores = append(d.Stores, st)
	return d
}

// Two replays a side of four: the replay's time, said above the tables,
// had its change but no test (other rows have p=…); and a fingerprint
// whose every statement failed in both runs vanished without a word. The
// time line carries its p, as the rows do; the failed fingerprint is
// listed as failed in both, and one that failed in one run only is
// listed with that said.
func TestCompareReplayTimeTestedAndFailuresSaid(t *testing.T) {
	for _, lang := range []string{English, Japanese} {
		c := Compare(replaySide(4, 0.025, false), replaySide(4, 0.014, true))
		out := writeCompare(t, c, lang)
		want := map[string][]string{
			English: {
				"postgres: the replay took 0.025 s → 0.014 s: -44.00%, p=0.029 n=4+4",
				"failed in both runs, no operation succeeded, so nothing to compare: postgres select * from missing_table",
				"only in old: postgres select ? + ? (every operation failed in the new run)",
			},
			Japanese: {
				"postgres: リプレイの時間 0.025 s → 0.014 s: -44.00%、p=0.029 n=4+4",
				"両方の実行で失敗しました (成功した操作がなく、比較できません): postgres select * from missing_table",
				"旧のみ: postgres select ? + ? (新の実行ではすべての操作が失敗)",
			},
		}[lang]
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: want %q in:\n%s", lang, w, out)
			}
		}
	}
	// One replay a side: the time line says it could not be tested.
	out := writeCompare(t, Compare(replaySide(1, 0.025, false), replaySide(1, 0.014, false)), English)
	if !strings.Contains(out, "0.025 s → 0.014 s: -44.00% (untested), n=1+1 (too few samples)") {
		t.Errorf("one replay a side:\n%s", out)
	}
}

// An interrupt kept sqlite from starting in the old run (its store line
// says 未開始: 中断されました): compare listed every one of its settings
// as changed from nothing (busy_timeout - → 5000, …). It says sqlite did
// not run in the old run instead.
func TestCompareStoreNotStartedIsNotSettingsChange(t *testing.T) {
	old, new := repeatDoc(1, 1000, 5000), repeatDoc(1, 1000, 5000)
	opts := map[string]string{"busy_timeout": "5000", "cache_size": "-2000", "journal_mode": "delete"}
	old.Interrupted = true
	old.Stores = append(old.Stores, result.Store{Label: "sqlite", Info: store.Info{Driver: "sqlite", Target: result.NotStarted}})
	new.Stores = append(new.Stores, result.Store{Label: "sqlite", Info: store.Info{Driver: "sqlite", Target: "/tmp/k/kurabe.db", Options: opts},
		Phases: []result.Phase{{Op: "write", Ops: 10, OpsPerSec: 100, Latency: result.Latency{Count: 10, P99: 10}}}})
	for lang, want := range map[string]string{
		English:  "sqlite did not run in the old run: it was interrupted before the store started",
		Japanese: "sqlite は旧の実行では動いていません: ストアの開始前に中断されたため",
	} {
		out := writeCompare(t, Compare(old, new), lang)
		if !strings.Contains(out, want) || strings.Contains(out, "busy_timeout") {
			t.Errorf("%s: want %q and no settings listed:\n%s", lang, want, out)
		}
	}
}
