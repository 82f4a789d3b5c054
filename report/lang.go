package report

import (
	"fmt"
	"strings"
)

// Languages of reports. Only words change with the language: numbers are
// formatted the same in both (1,234 and 1.25ms), so a Japanese and an
// English report of one run show identical figures.
const (
	English  = "en"
	Japanese = "ja"
)

// Langs lists the languages, for flag help and validation.
var Langs = []string{English, Japanese}

// words is every label and heading that changes with the language, keyed by
// its English text or, for sentences, a short name: {English, Japanese},
// where an empty English means the key itself. A key missing here prints as
// itself; a test checks that each key the reports use is present.
var words = map[string][2]string{
	"store":             {"", "ストア"},
	"op":                {"", "操作"},
	"ops/s":             {"", "ops/s"},
	"errors":            {"", "エラー"},
	"lost":              {"", "消失"},
	"last/first":        {"", "最後/最初"},
	"mean":              {"", "平均"},
	"max":               {"", "最大"},
	"(read back)":       {"", "(読み戻し)"},
	"repeat":            {"", "回"},
	"clients":           {"", "クライアント"},
	"workload":          {"", "ワークロード"},
	"per op":            {"", "操作ごと"},
	"duration":          {"", "時間"},
	"warm-up":           {"", "ウォームアップ"},
	"think":             {"", "思考時間"},
	"seed":              {"", "シード"},
	"data":              {"", "データ"},
	"kept":              {"", "保存"},
	"removed":           {"", "削除済み"},
	"client":            {"", "クライアント"},
	"INTERRUPTED":       {"INTERRUPTED: the figures cover only the part that ran", "中断: 数値は実行できた部分のみ"},
	"FAILED":            {"", "失敗"},
	"run":               {"", "実行"},
	"only in old":       {"", "旧のみ"},
	"only in new":       {"", "新のみ"},
	"old":               {"", "旧"},
	"new":               {"", "新"},
	"delta":             {"", "差"},
	"significance":      {"", "有意性"},
	"too few samples":   {"", "標本不足"},
	"p99 latency":       {"", "p99 レイテンシ"},
	"throughput":        {"", "スループット"},
	"compare.footnote":  {"~ means the difference is not significant (Mann–Whitney U test, α=0.05). With fewer than 4 samples per side the test cannot reach p<0.05, so such rows always show ~. ± is the 95% confidence interval of the median (needs 6 or more samples per side). Values are medians over repeats.", "~ は差が有意でないことを示す (Mann–Whitney U 検定, α=0.05)。各側 4 標本未満では p<0.05 に届かないため常に ~。± は中央値の 95% 信頼区間 (各側 6 標本以上)。値は繰り返しの中央値。"},
	"kurabe report":     {"", "kurabe レポート"},
	"Verification":      {"", "検証"},
	"verify.ok":         {"Verified: every acknowledged write (%s) was found in the store.", "確認済み: 確認応答したすべての書き込み (%s 件) がストアにありました。"},
	"verify.none":       {"No phase wrote, so there was nothing to verify.", "書き込みのフェーズがないため検証はありません。"},
	"verify.lost":       {"LOST: %s acknowledged writes are missing from the store.", "消失: 確認応答した書き込みのうち %s 件がストアにありません。"},
	"verify.extra":      {"EXTRA: the store holds %s rows more than were acknowledged.", "過剰: 確認応答より %s 行多くストアにあります。"},
	"verify.error":      {"A table could not be counted.", "数えられなかったテーブルがあります。"},
	"What ran":          {"", "実行内容"},
	"Environment":       {"", "環境"},
	"Stores":            {"", "ストア"},
	"Results":           {"", "結果"},
	"Notes":             {"", "注記"},
	"Charts":            {"", "グラフ"},
	"Runs side by side": {"", "実行の比較"},
	"table":             {"", "テーブル"},
	"acknowledged":      {"", "確認応答"},
	"before":            {"", "前"},
	"after":             {"", "後"},
	"extra":             {"", "過剰"},
	"driver":            {"", "ドライバ"},
	"version":           {"", "バージョン"},
	"target":            {"", "対象"},
	"effective options": {"", "実効設定"},
	"command":           {"", "コマンド"},
	"started":           {"", "開始"},
	"finished":          {"", "終了"},
	"kurabe":            {"", "kurabe"},
	"OS":                {"", "OS"},
	"kernel":            {"", "カーネル"},
	"CPU":               {"", "CPU"},
	"cores":             {"", "コア"},
	"memory":            {"", "メモリ"},
	"Go":                {"", "Go"},
	"host":              {"", "ホスト"},
	"filesystems":       {"", "ファイルシステム"},
	"settings":          {"", "設定"},
	"repeats":           {"", "繰り返し"},
	"report.intro":      {"%d run(s). Each store has the same colour in every chart.", "%d 件の実行。各ストアの色はすべてのグラフで同じです。"},
	"report.sidebyside": {"ops/s of each run (the median when a run has repeats).", "各実行の ops/s (繰り返しがあれば中央値)。"},
	"report.failed":     {"FAILED: %s", "失敗: %s"},
	"chart.throughput":  {"ops/s per store and operation", "ops/s (ストア別・操作別)"},
	"chart.latency":     {"%s: latency percentiles", "%s: レイテンシのパーセンタイル"},
	"chart.timeline":    {"%s: per second", "%s: 1 秒ごとの推移"},
	"chart.matrix":      {"%s: ops/s per setting", "%s: 設定ごとの ops/s"},
	"axis.ops/s":        {"ops/s", "ops/s"},
	"axis.operation":    {"operation", "操作"},
	"axis.percentile":   {"percentile", "パーセンタイル"},
	"axis.latency":      {"latency (log scale)", "レイテンシ (対数目盛)"},
	"axis.time":         {"time (s)", "経過時間 (秒)"},
	"axis.p99":          {"p99 (log scale)", "p99 (対数目盛)"},
	"legend.warm-up":    {"warm-up", "ウォームアップ"},
	"chart.sweep":       {"mean latency against %s, with a fitted line per store", "%s に対する平均レイテンシと各ストアの回帰直線"},
	"chart.sweep.cross": {"dotted: where two stores' lines cross", "点線: 2 つのストアの直線が交わる位置"},
	"axis.mean":         {"mean latency", "平均レイテンシ"},
	"chart.clients":     {"%s: ops/s against clients", "%s: クライアント数に対する ops/s"},
	"axis.clients":      {"clients", "クライアント数"},
	"axis.total":        {"total time (s)", "合計時間 (秒)"},
	"chart.repeats":     {"median of repeats, whiskers min–max", "繰り返しの中央値、ひげは最小〜最大"},
	"open loop at %s ops/s (latency from the scheduled start)": {"", "%s ops/s の開ループ (レイテンシは予定開始時刻から)"},
	"chart.timeline.repeat1":                                   {"first repeat", "1 回目の繰り返し"},
}

// tr is a language: it turns an English key into that language's words.
type tr string

// t returns the words for key.
func (l tr) t(key string) string {
	w, ok := words[key]
	switch {
	case ok && l == Japanese:
		return w[1]
	case ok && w[0] != "":
		return w[0]
	}
	return key
}

// f formats the words for key with args.
func (l tr) f(key string, args ...any) string { return fmt.Sprintf(l.t(key), args...) }

// CheckLang returns an error naming the choices when lang is not a known
// language.
func CheckLang(lang string) error {
	for _, l := range Langs {
		if l == lang {
			return nil
		}
	}
	return fmt.Errorf("unknown language %q; choose from %s", lang, strings.Join(Langs, ", "))
}

// DefaultLang picks the language from the locale variables, as a program
// reading messages does: LC_ALL, then LC_MESSAGES, then LANG; the first one
// set decides. Japanese when it starts with "ja", English otherwise.
func DefaultLang(getenv func(string) string) string {
	for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if v := getenv(k); v != "" {
			if strings.HasPrefix(v, "ja") {
				return Japanese
			}
			return English
		}
	}
	return English
}
