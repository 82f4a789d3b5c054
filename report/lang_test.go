package report

import (
	"regexp"
	"strings"
	"testing"
)

// The Japanese notes are written in the polite form (です/ます) throughout:
// a sentence in the plain form among them (範囲全体で sqlite が速い right
// after …交差しません。, compare's footnote's 示す and 判定はしない) reads
// as a change of voice mid-paragraph. Labels and figures (旧のみ, 未計測,
// 遅れの p99 %s) end in nouns and are not sentences. Each Japanese text is
// cut into its sentences and clauses (at 。 and at ": ", after which a
// clause of its own starts), a parenthesis at the end set aside and every
// parenthesis read as a sentence of its own; none may end in a plain form.
func TestJapaneseIsPolite(t *testing.T) {
	plain := regexp.MustCompile(`(ない|する|した|った|だ|である|ず|速い|遅い|多い|少ない|示す|渡す|比較する)$`)
	polite := regexp.MustCompile(`(ます|です|ません|ました|ください|でした)$`)
	trailing := regexp.MustCompile(`\s*[(（][^()（）]*[)）]\s*$`)
	inner := regexp.MustCompile(`[(（]([^()（）]*)[)）]`)
	check := func(key, sentence string) {
		s := strings.TrimSpace(sentence)
		for {
			t := strings.TrimSpace(trailing.ReplaceAllString(s, ""))
			if t == s {
				break
			}
			s = t
		}
		if plain.MatchString(s) && !polite.MatchString(s) {
			t.Errorf("%q: %q is in the plain form; the notes are polite (です/ます)", key, sentence)
		}
	}
	units := regexp.MustCompile(`回/s\b`)
	for key, w := range words {
		ja := w[1]
		for _, sentence := range regexp.MustCompile(`。|: `).Split(ja, -1) {
			check(key, sentence)
		}
		for _, m := range inner.FindAllStringSubmatch(ja, -1) {
			for _, sentence := range strings.Split(m[1], "。") {
				check(key, sentence)
			}
		}
		// One unit for a count per second: 回/秒, as elsewhere.
		if units.MatchString(ja) {
			t.Errorf("%q: %q writes 回/s; the notes write 回/秒", key, ja)
		}
	}
}
