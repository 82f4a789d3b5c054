package report

import (
	"fmt"
	"strings"

	"kurabe/result"
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
	"store":       {"", "ストア"},
	"op":          {"", "操作"},
	"ops/s":       {"", "ops/s"},
	"errors":      {"", "エラー"},
	"lost":        {"", "消失"},
	"last/first":  {"", "最後/最初"},
	"mean":        {"", "平均"},
	"max":         {"", "最大"},
	"(read back)": {"", "(読み戻し)"},
	"repeat":      {"", "回"},
	"clients":     {"", "クライアント"},
	"workload":    {"", "ワークロード"},
	"duration":    {"", "時間"},
	"warm-up":     {"", "ウォームアップ"},
	"think":       {"", "思考時間"},
	"seed":        {"", "シード"},
	"data":        {"", "データ"},
	"kept":        {"", "保存"},
	"removed":     {"", "削除済み"},

	// A --vary table's column of a setting that was not varied but read
	// back differently between variants (synchronous under journal_mode).
	"(read back, not varied)": {"", "(読み戻し、--vary 外)"},

	"--isolate: the clients' databases beside it": {"", "--isolate: クライアントごとのデータベースは同じディレクトリに"},
	"client":                    {"", "クライアント"},
	"clients on one event loop": {"", "クライアントは1つのイベントループで実行"},
	"clients on a thread each":  {"", "クライアントごとに1スレッドで実行"},
	"clients on a thread each or on one event loop": {"", "クライアントはフェーズにより1スレッドずつ、または1つのイベントループで実行"},
	"INTERRUPTED":             {"INTERRUPTED: the figures cover only the part that ran", "中断: 数値は実行できた部分のみ"},
	"FAILED":                  {"", "失敗"},
	"run":                     {"", "実行"},
	"only in old":             {"", "旧のみ"},
	"only in new":             {"", "新のみ"},
	"old":                     {"", "旧"},
	"new":                     {"", "新"},
	"delta":                   {"", "差"},
	"significance":            {"", "有意性"},
	"too few samples":         {"", "標本不足"},
	"p99 latency":             {"", "p99 レイテンシ"},
	"throughput":              {"", "スループット"},
	"compare.footnote":        {"~ means the difference is not significant (Mann–Whitney U test, α=0.05). ± is the 95% confidence interval of the median (needs 6 or more samples per side). Values are medians over repeats.", "~ は差が有意でないことを示します (Mann–Whitney U 検定, α=0.05)。± は中央値の 95% 信頼区間です (各側 6 標本以上)。値は繰り返しの中央値です。"},
	"compare.footnote.replay": {"Replays are compared by the latency of each fingerprint's statements (mean, p50, p99; the row replay is every statement) and by the replay's time, above; not by a fingerprint's ops/s, which is its count in the log over the whole replay's time. ~ means the difference is not significant (Mann–Whitney U test, α=0.05). ± is the 95% confidence interval of the median (needs 6 or more samples per side). Values are medians over the replays.", "リプレイはフィンガープリントごとの文のレイテンシ (平均・p50・p99。replay の行はすべての文) と、上に示すリプレイ全体の時間で比較します。フィンガープリントの ops/s (ログ中の件数をリプレイ全体の時間で割ったもの) は比較しません。~ は差が有意でないことを示します (Mann–Whitney U 検定, α=0.05)。± は中央値の 95% 信頼区間です (各側 6 標本以上)。値はリプレイの中央値です。"},
	// The footnote's sentence when some rows have too few samples to
	// test: the smallest p with their counts ("0.100 with n=3+3", joined).
	"compare.too-few":        {"With n₁ and n₂ samples the smallest p the test can give is 2/C(n₁+n₂, n₁), when one side lies wholly above the other: %s, not below 0.05, so those rows show the change of the medians marked (untested), never a verdict: run with --repeat 4 or more to test it, or give each side as 4 or more results, a quoted pattern such as 'old-*.json' (kurabe http writes one run per result).", "標本数 n₁ と n₂ で検定が出せる最小の p は、一方が他方より完全に上にあるときの 2/C(n₁+n₂, n₁) で、%s です。0.05 を下回れないため、それらの行は中央値の変化を (未検定) として示し、判定はしません (検定するには --repeat 4 以上で実行するか、各側を 4 件以上の結果として 'old-*.json' のような引用したパターンで渡してください。kurabe http は結果ごとに 1 回の実行です)。"},
	"compare.too-few.replay": {"With n₁ and n₂ samples the smallest p the test can give is 2/C(n₁+n₂, n₁), when one side lies wholly above the other: %s, not below 0.05, so those rows show the change of the medians marked (untested), never a verdict: to test it, replay the log 4 or more times a side (--json old-1.json, old-2.json, …) and give each side as a quoted pattern: kurabe compare 'old-*.json' 'new-*.json'.", "標本数 n₁ と n₂ で検定が出せる最小の p は、一方が他方より完全に上にあるときの 2/C(n₁+n₂, n₁) で、%s です。0.05 を下回れないため、それらの行は中央値の変化を (未検定) として示し、判定はしません (検定するには各側でログを 4 回以上リプレイし (--json old-1.json, old-2.json, …)、各側を引用したパターンで渡してください: kurabe compare 'old-*.json' 'new-*.json')。"},
	"compare.too-few.n":      {"%s with n=%d+%d", "n=%[2]d+%[3]d では %[1]s"},
	"compare.replay-time":    {"%s: the replay took %s → %s: %s, %s", "%s: リプレイの時間 %s → %s: %s、%s"},
	// Runs paired by method and path, not by URL: each side's servers.
	"compare.by-path": {"paired by path: old %s, new %s (no URL of one run is in the other, and both asked for the same methods and paths)", "パスで対応付けました: 旧 %s、新 %s (URL は一致しませんが、両方が同じメソッドとパスを要求しました)"},
	// Phases in which no operation succeeded: in both runs, or (after a
	// name listed as only in one run) in the other.
	"compare.failed-both":   {"failed in both runs, no operation succeeded, so nothing to compare: %s", "両方の実行で失敗しました (成功した操作がなく、比較できません): %s"},
	"compare.failed-in.old": {"every operation failed in the old run", "旧の実行ではすべての操作が失敗"},
	"compare.failed-in.new": {"every operation failed in the new run", "新の実行ではすべての操作が失敗"},
	// A store an interrupt kept from starting in one run.
	"compare.not-started.old": {"%s did not run in the old run: it was interrupted before the store started, so it has no settings or figures there", "%s は旧の実行では動いていません: ストアの開始前に中断されたため、設定も数値もありません"},
	"compare.not-started.new": {"%s did not run in the new run: it was interrupted before the store started, so it has no settings or figures there", "%s は新の実行では動いていません: ストアの開始前に中断されたため、設定も数値もありません"},
	"fingerprint":             {"", "フィンガープリント"},
	"kurabe report":           {"", "kurabe レポート"},
	"Verification":            {"", "検証"},
	"verify.ok":               {"Verified: every acknowledged write (%s) was found in the store.", "確認済み: 確認応答したすべての書き込み (%s 件) がストアにありました。"},
	"verify.none":             {"No phase wrote, so there was nothing to verify.", "書き込みのフェーズがないため検証はありません。"},
	"verify.lost":             {"LOST: %s acknowledged writes are missing from the store.", "消失: 確認応答した書き込みのうち %s 件がストアにありません。"},
	"verify.extra":            {"EXTRA: the store holds %s rows more than were acknowledged.", "過剰: 確認応答より %s 行多くストアにあります。"},
	"verify.unknown":          {"Writes whose answer was lost (timeouts, lost connections), which may or may not be stored: %s; the store holds %s rows of them.", "応答が失われた書き込み (タイムアウト、切れた接続。保存されているかどうかは不明): %s 件。そのうちストアにある行は %s 行です。"},
	"verify.error":            {"A table could not be counted.", "数えられなかったテーブルがあります。"},
	"What ran":                {"", "実行内容"},
	"Environment":             {"", "環境"},
	"Stores":                  {"", "ストア"},
	"Results":                 {"", "結果"},
	"Notes":                   {"", "注記"},
	"Charts":                  {"", "グラフ"},
	"Runs side by side":       {"", "実行の比較"},
	"0 (failed)":              {"", "0 (失敗)"},
	"table":                   {"", "テーブル"},
	"acknowledged":            {"", "確認応答"},
	"before":                  {"", "前"},
	"after":                   {"", "後"},
	"extra":                   {"", "過剰"},
	"driver":                  {"", "ドライバ"},
	"version":                 {"", "バージョン"},
	"target":                  {"", "対象"},
	"effective options":       {"", "実効設定"},
	"command":                 {"", "コマンド"},
	"started":                 {"", "開始"},
	"finished":                {"", "終了"},
	"kurabe":                  {"", "kurabe"},
	"OS":                      {"", "OS"},
	"kernel":                  {"", "カーネル"},
	"CPU":                     {"", "CPU"},
	"cores":                   {"", "コア"},
	"memory":                  {"", "メモリ"},
	"Go":                      {"", "Go"},
	"host":                    {"", "ホスト"},
	"filesystems":             {"", "ファイルシステム"},
	"settings":                {"", "設定"},
	"repeats":                 {"", "繰り返し"},
	"report.intro":            {"%d runs. Each store has the same colour in every chart.", "%d 件の実行。各ストアの色はすべてのグラフで同じです。"},
	"report.intro1":           {"1 run. Each store has the same colour in every chart.", "1 件の実行。各ストアの色はすべてのグラフで同じです。"},
	"report.sidebyside":       {"ops/s of each run (the median when a run has repeats).", "各実行の ops/s (繰り返しがあれば中央値)。"},
	// A load run's column gives rows/s: one of its operations is a whole
	// data set, so its ops/s is about 1/time.
	"report.sidebyside.rows": {"ops/s of each run, rows/s of a load run (one of its operations is a whole data set, so its ops/s would follow the data set's size); the median when a run has repeats.", "各実行の ops/s。load の実行は行/秒です (その操作 1 回がデータセット全体のため、ops/s はデータセットの大きさに従うだけです)。繰り返しがあれば中央値です。"},
	"rows/s":                 {"", "行/秒"},
	"report.failed":          {"FAILED: %s", "失敗: %s"},
	"chart.throughput":       {"ops/s per store and operation", "ops/s (ストア別・操作別)"},
	"chart.latency":          {"%s: latency percentiles", "%s: レイテンシのパーセンタイル"},
	"chart.timeline":         {"%s: per second", "%s: 1 秒ごとの推移"},
	"chart.matrix":           {"%s: ops/s per setting", "%s: 設定ごとの ops/s"},
	"chart.throughput.rows":  {"rows/s loaded per store and way", "読み込んだ行/秒 (ストア別・方法別)"},
	"chart.matrix.rows":      {"%s: rows/s loaded per setting", "%s: 設定ごとの読み込み行/秒"},
	"axis.ops/s":             {"ops/s", "ops/s"},
	"axis.rows/s":            {"rows/s", "行/秒"},
	"axis.operation":         {"operation", "操作"},
	"axis.percentile":        {"percentile", "パーセンタイル"},
	"axis.latency":           {"latency (log scale)", "レイテンシ (対数目盛)"},
	"axis.time":              {"time (s)", "経過時間 (秒)"},
	"axis.p99":               {"p99 (log scale)", "p99 (対数目盛)"},
	"legend.warm-up":         {"warm-up", "ウォームアップ"},
	"legend.one-op":          {"%s (1 operation)", "%s (操作 1 回)"},
	"chart.sweep":            {"mean latency against %s, with a fitted line per store", "%s に対する平均レイテンシと各ストアの回帰直線"},
	"chart.sweep.level":      {"mean latency against %s at c=%d, with a fitted line per store", "c=%[2]d での %[1]s に対する平均レイテンシと各ストアの回帰直線"},
	"chart.sweep.cross":      {"dotted: where two stores' lines cross", "点線: 2 つのストアの直線が交わる位置"},
	"axis.mean":              {"mean latency", "平均レイテンシ"},
	"chart.clients":          {"%s: ops/s against clients", "%s: クライアント数に対する ops/s"},
	"axis.clients":           {"clients", "クライアント数"},
	"axis.total":             {"total time (s)", "合計時間 (秒)"},
	"chart.repeats":          {"median of repeats, whiskers min–max", "繰り返しの中央値、ひげは最小〜最大"},
	"open loop at %s ops/s (latency from the scheduled start)": {"", "%s ops/s の開ループ (レイテンシは予定開始時刻から)"},
	"chart.timeline.repeat1":                                   {"first repeat", "1 回目の繰り返し"},
	"the last repeat's; each repeat had its own":               {"", "最後の繰り返しのもの。繰り返しごとに別"},
	"rate": {"", "レート"},

	// How many operations, or how long, each phase ran: in the summary
	// line (n=300 per op) and the HTML's what-ran list (300 per op).
	"summary.n":        {"n=%s per op", "各操作 n=%s"},
	"summary.duration": {"duration %s per op", "各操作 時間 %s"},
	"per-op":           {"%s per op", "各操作 %s"},

	// A phase whose operations were all skipped (class skipped), in the
	// table's ops/s column.
	"skipped": {"", "スキップ"},
	// A phase's errors, some of its operations skipped (class skipped),
	// in the table's errors column.
	"errors.skipped": {"%s (+%s skipped)", "%s (+%s スキップ)"},

	// A store an interrupt kept from starting, where its target goes
	// (result.NotStarted); and the line on stderr at the first Ctrl-C.
	"store.not-started": {result.NotStarted, "未開始: 中断されました"},
	"stopping":          {"stopping after the operations under way (those a server does not answer within --grace, 5s by default, are cut off), then writing the results; press Ctrl-C again to stop at once without writing them", "実行中の操作の後に停止し (サーバーが --grace の時間 (既定 5 秒) 内に応答しない操作は打ち切ります)、結果を書き出します。書き出さずにすぐ止めるにはもう一度 Ctrl-C を押してください"},

	// kurabe http's and replay's: they have no --grace. An HTTP request
	// in flight is bounded by -s only (its watchdog); a flow's pass in
	// flight runs its remaining steps. A replayed statement is never cut
	// off: the store finishes it.
	"stopping.http":      {"stopping after the requests under way (a server that does not answer holds each up to the -s timeout, 30 s by default), then writing the report; press Ctrl-C again to stop at once without writing it", "実行中のリクエストの後に停止し (応答しないサーバーは各リクエストを -s のタイムアウト (既定 30 秒) まで待たせます)、レポートを書き出します。書き出さずにすぐ止めるにはもう一度 Ctrl-C を押してください"},
	"stopping.http.flow": {"stopping after the passes under way have run their remaining steps (a server that does not answer holds each request up to the -s timeout, 30 s by default), then writing the report; press Ctrl-C again to stop at once without writing it", "実行中のパスが残りのステップを終えた後に停止し (応答しないサーバーは各リクエストを -s のタイムアウト (既定 30 秒) まで待たせます)、レポートを書き出します。書き出さずにすぐ止めるにはもう一度 Ctrl-C を押してください"},
	"stopping.replay":    {"stopping after the statements under way, which are never cut off (a store that does not finish one holds this up), then writing the results; press Ctrl-C again to stop at once without writing them", "実行中の文の後に停止し (文は打ち切らないため、ストアが終えない文があるとその間待ちます)、結果を書き出します。書き出さずにすぐ止めるにはもう一度 Ctrl-C を押してください"},

	// The line at the first Ctrl-C of kurabe report and compare, which
	// run no operations: they write what is left, then stop.
	"stopping.report":    {"finishing the report, then stopping; press Ctrl-C again to stop at once without writing the rest", "レポートを書き終えてから停止します。残りを書き出さずにすぐ止めるにはもう一度 Ctrl-C を押してください"},
	"stopped.results":    {"stopped at once, writing no results (no table, JSON or HTML)", "すぐに停止しました。結果 (表・JSON・HTML) は書き出していません"},
	"stopped.report":     {"stopped at once; what was not yet written was not written", "すぐに停止しました。まだ書き出していなかった分は書き出していません"},
	"abandon.killed":     {"killed %d server process group(s) it had started", "起動したサーバーのプロセスグループ %d 個を終了しました"},
	"abandon.removed":    {"removed %s", "%s を削除しました"},
	"abandon.unremoved":  {"could not remove %s: %v", "%s を削除できませんでした: %v"},
	"clean.dropped":      {"dropped %s", "%s を削除しました"},
	"clean.dropped.dry":  {"would drop %s", "%s を削除します"},
	"clean.unlisted":     {"%s is not there: its entry in kurabe_meta was removed", "%s はありません。kurabe_meta の項目を消しました"},
	"clean.unlisted.dry": {"%s is not there: its entry in kurabe_meta would be removed", "%s はありません。kurabe_meta の項目を消します"},
	"clean.replaced":     {"left %s: kurabe_meta lists it, but it is not the table kurabe made (it was replaced since); drop it yourself if it may go", "%s は残しました。kurabe_meta に載っていますが、kurabe が作ったテーブルではありません (その後作り直されています)。不要なら自分で削除してください"},
	"clean.unproven":     {"left %s: an earlier kurabe listed it without recording which table it made, and it was made again or altered since, so kurabe cannot tell it is its own; drop it yourself if it may go", "%s は残しました。作ったテーブルを記録しない以前の kurabe が載せたもので、その後作り直されたか変更されているため、kurabe のものか確かめられません。不要なら自分で削除してください"},
	"clean.listkept":     {"left %s: it still lists the tables left above", "%s は残しました。上で残したテーブルをまだ載せています"},
	"clean.notmade":      {"left %s: kurabe did not make it (or an earlier kurabe did, which did not mark it); drop it yourself if it is empty and may go", "%s は残しました。kurabe が作ったものではありません (または印を付けない以前の kurabe が作りました)。空で不要なら自分で削除してください"},
	"clean.notempty":     {"left %s: something else is in it", "%s は残しました。ほかのものが入っています"},
	"clean.nothing":      {"nothing of kurabe's is here: there is no %s", "kurabe のものはありません (%s がありません)"},
	"clean.dry":          {"dry run: nothing was changed", "試しに調べただけで、何も変更していません"},
	"clean.stopping":     {"stopping the clean; press Ctrl-C again to stop at once", "削除を中止します。すぐに止めるにはもう一度 Ctrl-C を押してください"},
	"clean.stopped":      {"stopped at once; on PostgreSQL nothing was dropped (a clean is one transaction); on MariaDB/MySQL the tables dropped so far are gone, and kurabe_meta lists the others", "すぐに停止しました。PostgreSQL では何も削除していません (削除は 1 つのトランザクションです)。MariaDB/MySQL ではそれまでに削除したテーブルは消え、残りは kurabe_meta に載っています"},

	// compare's notes on a store that failed, and the clients chart's
	// caption with repeats.
	"compare.failed.old":    {"%s FAILED in the old run, so its figures there are missing: %s", "%s は旧の実行で失敗したため、その数値はありません: %s"},
	"compare.failed.new":    {"%s FAILED in the new run, so its figures there are missing: %s", "%s は新の実行で失敗したため、その数値はありません: %s"},
	"compare.settings":      {"%s ran with other settings: %s", "%s の設定が異なります: %s"},
	"compare.settings.sep":  {", ", "、"},
	"chart.clients.repeats": {"each point the median of that level's repeats", "各点はそのクライアント数での繰り返しの中央値"},

	// compare's lines above its tables on a run cut short and on runs set
	// up differently, and its delta with too few samples to test.
	"compare.interrupted.old": {"the old run was interrupted: its figures cover only the part that ran", "旧の実行は中断されました: 数値は実行できた部分のみです"},
	"compare.interrupted.new": {"the new run was interrupted: its figures cover only the part that ran", "新の実行は中断されました: 数値は実行できた部分のみです"},
	// A compared phase that skipped some of its operations in one run
	// (ycsb A's updates on the file store): "sqlite A", the count.
	"compare.partly-skipped.old": {"%s skipped %s operations in the old run (the workload does not run them on that store): its old figures are of the others", "%s は旧の実行で %s 件の操作をスキップしました (このストアではワークロードが実行しません): 旧の数値は残りの操作のものです"},
	"compare.partly-skipped.new": {"%s skipped %s operations in the new run (the workload does not run them on that store): its new figures are of the others", "%s は新の実行で %s 件の操作をスキップしました (このストアではワークロードが実行しません): 新の数値は残りの操作のものです"},
	"compare.run-settings":       {"the runs ran with other settings: %s", "実行の設定が異なります: %s"},
	"untested":                   {"", "未検定"},

	// The notes under a table (Notes). Figures keep their order in both
	// languages, so the numbers of a Japanese and an English report line up;
	// LOST, EXTRA and BEHIND stay as they are, to be found by grep.
	"note.failed":         {"%s: FAILED: %s", "%s: 失敗: %s"},
	"note.bulk-insert":    {"%s: bulk ran as multi-row INSERTs, not LOAD DATA LOCAL INFILE: the server has local_infile=OFF (SET GLOBAL local_infile=ON, or start it with --local-infile, to measure LOAD DATA)", "%s: bulk は LOAD DATA LOCAL INFILE ではなく複数行の INSERT で実行しました。サーバーが local_infile=OFF です（LOAD DATA を測るには SET GLOBAL local_infile=ON とするか、--local-infile を付けて起動してください）"},
	"note.loaded":         {"%s: data set loaded: %s rows in %s (%s rows/s)", "%s: データセットを読み込みました: %s 行を %s で (%s 行/秒)"},
	"note.loaded-each":    {"%s: data set loaded: %s rows in each of %d tables (%s in all) in %s (%s rows/s)", "%s: データセットを読み込みました: %[3]d 個のテーブルにそれぞれ %[2]s 行 (計 %[4]s 行) を %[5]s で (%[6]s 行/秒)"},
	"note.setting.chosen": {"%s: %s=%s lets the server choose, and it chose %s", "%s: %s=%s はサーバーに選ばせる指定で、サーバーは %s を選びました"},
	"note.setting":        {"%s: %s asked %s, the store runs %s: the setting did not apply as asked", "%s: %s に %s を指定しましたが、ストアでの実際の値は %s です: 指定どおりに適用されていません"},
	"note.session":        {"%s %s: %s clients could not open a session and did not run (class %s), first: %s; %d ran", "%s %s: %s クライアントがセッションを開けず、実行しませんでした (クラス %s)。最初のエラー: %s。実行したのは %d クライアント"},
	"note.error":          {"%s %s: %s error of class %s: %s", "%s %s: %s 件のエラー (クラス %s): %s"},
	"note.errors":         {"%s %s: %s errors of class %s, first: %s", "%s %s: %s 件のエラー (クラス %s)、最初のエラー: %s"},
	"note.unverified":     {"%s %s: could not verify %s: %s", "%s %s: テーブル %s を検証できませんでした: %s"},
	"note.lost":           {"%s %s: LOST %d writes: %d acknowledged, table %s grew by %d", "%s %s: LOST %d 件の書き込みが消失: 確認応答 %d 件に対し、テーブル %s の増加は %d 行"},
	"note.extra":          {"%s %s: EXTRA %d rows: %d acknowledged, table %s grew by %d", "%s %s: EXTRA %d 行が過剰: 確認応答 %d 件に対し、テーブル %s の増加は %d 行"},
	// Writes whose answer was lost (timeout, connection-lost) may have
	// been stored: "sqlite write", stored, writes, their classes.
	"note.unknown":       {"%s %s: %s of the %s writes whose answer was lost (%s) were stored", "%s %s: 応答が失われた書き込みのうち %s 件が保存されていました (全 %s 件: %s)"},
	"note.unknown.rows":  {"%s %s: %s of the %s rows of the %s writes whose answer was lost (%s) were stored", "%s %s: 応答が失われた書き込みの行のうち %s 行が保存されていました (全 %s 行、書き込み %s 件: %s)"},
	"note.extra.unknown": {"; besides them, %s rows are those of the %s writes whose answer was lost (%s), which may be stored", "。ほかに %s 行は応答が失われた書き込み %s 件 (%s) のもので、保存されていてもかまいません"},
	"note.lost.unknown":  {"; more are missing if any of the %s writes whose answer was lost (%s) were stored, since the count holds them in their place", "。応答が失われた書き込み %s 件 (%s) のどれかが保存されていれば、行数はそれを代わりに含むため、消失はさらに多くなります"},
	// The lost column where writes' answers were lost and nothing failed:
	// rows of them stored, rows they may have added.
	"cell.unknown":     {"0 (+%s of %s unknown)", "0 (+%s / 不明 %s)"},
	"note.interrupted": {"%s %s*: interrupted", "%s %s*: 中断されました"},
	"note.openloop":    {"%s %s: open loop: %s ops/s achieved of %s scheduled; %s started more than %s late; lag p99 %s; service time (from the actual start) p50 %s, p99 %s", "%s %s: 開ループ: 達成 %s ops/s (予定 %s ops/s)。%s 件が予定より %s 以上遅れて開始しました。遅れの p99 %s。サービス時間 (実際の開始から) p50 %s、p99 %s"},
	"note.behind":      {"; BEHIND: %s", "。BEHIND: %s"},
	// What the tables hold after Ctrl-C stopped a workload's load of its data set.
	"note.load-interrupted":      {"loading the data set was interrupted: its tables hold the %s rows stored before", "データセットの読み込みは中断されました: テーブルには中断前に保存した %s 行が入っています"},
	"note.load-interrupted.none": {"loading the data set was interrupted before any row was stored: its tables are empty%s", "データセットの読み込みは 1 行も保存しないうちに中断されました: テーブルは空です%s"},
	"note.reopened":              {"%s %s: sessions that lost their connection mid-phase: %s (the operation that found each lost is among the errors), reopened: %s", "%s %s: フェーズ中に接続を失ったセッション: %s 件 (それを見つけた操作はエラーに数えています)、再接続したもの: %s 件"},
	"note.reopen-tries":          {"; %s attempts to reopen failed (not counted as errors), first: %s", "。再接続の失敗 %s 回 (エラーには数えていません)、最初のエラー: %s"},
	"note.not-reopened":          {"; %s not reopened: their clients stopped, their remaining operations not run", "。%s 件は再接続できず、そのクライアントは停止し、残りの操作は実行していません"},
	// A phase during which its store's server went away (result.Gone):
	// a managed server that died (how, then the log's last lines), or a
	// server that stopped answering. "later" is added when the store had
	// phases after it, which were skipped.
	"note.died":              {"%s: the managed server died during %s: %s", "%s: 管理サーバーが %s の実行中に終了しました: %s"},
	"died.signal":            {"killed by signal %d", "シグナル %d で強制終了"},
	"died.core":              {", core dumped", "、コアダンプあり"},
	"died.status":            {"exit status %d", "終了ステータス %d"},
	"died.sigkill":           {": kill -9 sends it, and so does the kernel's out-of-memory killer; dmesg says which", ": kill -9 か、メモリ不足時にカーネルの OOM killer が送ります。どちらかは dmesg で分かります"},
	"died.log":               {"; its log's last lines:", "。ログの最後の行:"},
	"died.log-kept":          {"; its log (%s) ends:", "。ログ (%s) の最後の行:"},
	"died.log-empty":         {"; its log (%s) is empty", "。ログ (%s) は空です"},
	"note.stopped-answering": {"%s: the server stopped answering during %s (%s operations cut off after --grace %s), and a new connection got no answer within %s either (%s)", "%s: サーバーが %s の実行中に応答しなくなりました (%s 件の操作を --grace %s 後に打ち切り)。新しい接続も %s 以内に応答がありませんでした (%s)"},
	"gone.later":             {"; the store's later phases were skipped", "。このストアの以降のフェーズはスキップしました"},
	"note.cut-off":           {"%s %s: %s operations were still in flight %s after the phase's end (or the interrupt) and were cut off (counted as errors of class timeout): the server stopped answering? (--grace sets the time)", "%s %s: %s 件の操作がフェーズ終了 (または中断) の %s 後もまだ実行中で、打ち切りました (クラス timeout のエラーに数えています)。サーバーが応答しなくなった可能性があります (--grace で時間を指定)"},
	// The engine's reasons for BEHIND (result.BehindClient, BehindBusy, BehindStore).
	result.BehindClient:         {"", "kurabe 自身のプロセスがほぼ全コアを使い、レートを保てませんでした"},
	result.BehindStore:          {"", "ストアがレートに追いつけず、操作の開始が遅れるか、開始されませんでした"},
	"http.behind.timer":         {"requests started late while clients were free, and the server's service time stayed short (p99 under the lateness bound): the delay was in waking the clients (kurabe's timer, a sleeping vCPU on a loaded machine), not in the server; run again, or with more clients", "クライアントが空いているのに開始が遅れ、サーバーのサービス時間は短いままでした (p99 が遅れの基準未満): 遅れはクライアントを起こす側 (kurabe のタイマー、負荷のある機械で眠っていた vCPU) にあり、サーバーではありません。もう一度実行するか、クライアントを増やしてください"},
	"http.behind.server":        {"the server could not keep up with the rate: operations started late or not at all", "サーバーがレートに追いつけず、操作の開始が遅れるか、開始されませんでした"},
	result.BehindBusy:           {"", "予定時刻に全クライアントが処理中で、このレイテンシではクライアント数がレートに足りませんでした"},
	result.BehindTimer:          {"", "クライアントが空いているのに操作の開始が遅れ、ストアのサービス時間は短いままでした (p99 が遅れの基準未満): 遅れはクライアントを起こす側 (kurabe のタイマー、負荷のある機械で眠っていた vCPU) にあり、ストアではありません。もう一度実行するか、クライアントを増やしてください"},
	"behind.busy.ops":           {"every client was busy when operations were due", "操作の予定時刻に全クライアントが処理中でした"},
	"behind.busy.requests":      {"every client was busy when requests were due", "リクエストの予定時刻に全クライアントが処理中でした"},
	"behind.busy":               {"%s: %d clients at a mean service time of %s carry at most %s/s; give -c %d or more (%s/s × %s), or a lower rate; if the service time then grows, %s is the limit", "%s: %d クライアントは平均サービス時間 %s で最大 %s/秒しか運べません。-c %d 以上 (%s/秒 × %s) にするか、レートを下げてください。それでサービス時間が伸びるなら%sが限界です"},
	"behind.busy.bursts":        {"%s at moments: %d clients at a mean service time of %s carry %s/s on average, more than the %s/s asked, so the late starts came from bursts of slow responses that kept every client busy at once; give -c %d or more to absorb them", "%s (一時的): %d クライアントは平均サービス時間 %s で平均 %s/秒を運べ、要求の %s/秒を上回ります。遅れた開始は、遅い応答が重なって全クライアントが同時に処理中になった瞬間によるものです。吸収するには -c %d 以上にしてください"},
	"behind.busy.unmeasured":    {"%s: give more clients (-c) or a lower rate", "%s: クライアント (-c) を増やすか、レートを下げてください"},
	"the server":                {"", "サーバー"},
	"the store":                 {"", "ストア"},
	"note.notstarted":           {"; %s due before the end never started", "。%s 件は終了までに開始されませんでした"},
	"note.kinds":                {"%s %s by kind: %s", "%s %s の操作別: %s"},
	"note.kind":                 {"%s %s (p50 %s, p99 %s)", "%s %s (p50 %s、p99 %s)"},
	"note.per-op":               {"%s %s: a new connection per operation: %s ops/s including connecting, %s excluding; connecting took %s on average, operations %s without it", "%s %s: 操作ごとに新しい接続: 接続を含めて %s ops/s、除くと %s ops/s。接続に平均 %s、接続を除いた操作に平均 %s"},
	"note.per-op.rows":          {"%s %s: a new connection per statement: %s rows/s including connecting, %s excluding; connecting took %s per operation on average (all of its connections), operations %s without it", "%s %s: 文ごとに新しい接続: 接続を含めて %s 行/秒、除くと %s 行/秒。接続に操作あたり平均 %s (そのすべての接続)、接続を除いた操作に平均 %s"},
	"note.read-nothing":         {"%s %s: read nothing: the table was empty (kurabe empties its tables at the start of a run); put a writing operation first, e.g. --ops write,%s", "%s %s: 何も読めませんでした: テーブルが空でした (kurabe は実行の最初にテーブルを空にします)。書き込む操作を先に置いてください (例: --ops write,%s)"},
	"note.read-nothing.written": {"%s %s: read nothing, although writes were acknowledged before it (%d) and the store counted %d rows after them: the store answered every read with no rows", "%s %s: 何も読めませんでした。それまでに %d 件の書き込みが確認され、その後のストアの行数は %d でしたが、ストアはどの読み込みにも行を返しませんでした"},
	"note.read-nothing.kept":    {"%s %s: read nothing: the store returned no rows; kurabe does not empty this store's tables (the service owns them), so they were empty or the service answers reads with nothing; a writing operation first fills them, e.g. --ops write,%s", "%s %s: 何も読めませんでした: ストアは行を返しませんでした。kurabe はこのストアのテーブルを空にしません (サービスが所有しています) ので、テーブルが空だったか、サービスが読み込みに何も返していません。書き込む操作を先に置けば埋まります (例: --ops write,%s)"},
	"record":                    {"", "レコード"},
	"records":                   {"", "レコード"},
	"note.fit":                  {"%s: mean latency = %s %s %s per %s (R² %.3f, %d points)", "%s: 平均レイテンシ = %s %s %s/%s (R² %.3f、%d 点)"},
	"note.cross":                {"%s and %s cross at %s %s: %s is faster below, %s above", "%s と %s の直線は %s %sで交差します。それより少ないと %s が速く、多いと %s が速くなります"},
	"note.cross.none":           {"%s and %s: the lines do not cross between %s and %s %s, the range both measured; %s is faster throughout", "%s と %s: 両方が測定した範囲 (%s〜%s %s) では直線は交差しません。範囲全体で %s が速くなります"},
	"note.every-store":          {"all %d stores: %s", "全 %d ストア: %s"},
	"note.both-stores":          {"both stores: %s", "両ストア: %s"},
	"note.fit.few":              {"%s: mean latency = %s %s %s per %s, a line through %d values of %s only: too few to judge its fit (no R²; %d or more values needed)", "%s: 平均レイテンシ = %s %s %s/%s。%[7]sの値 %[6]d 個だけを通る直線で、当てはまりは判断できません (R² なし。%[8]d 個以上の値が必要)"},
	"note.cross.few":            {"%s and %s: no crossing stated: %s's line rests on %d values of %s, too few to judge", "%s と %s: 交差位置は示しません。%s の直線は%[5]sの値が %[4]d 個しかなく、判断できません"},
	"note.cross.poor":           {"%s and %s: no crossing stated: %s's line fits its points poorly (R² %.3f, below %.1f)", "%s と %s: 交差位置は示しません。%s の直線は点への当てはまりが悪いためです (R² %.3f、%.1f 未満)"},
	"note.via":                  {"%s %s through %s: %s ops/s against %s direct (%s); mean latency %s against %s: %s", "%s %s (%s 経由): %s ops/s、直接では %s ops/s (%s)。平均レイテンシ %s、直接では %s: %s"},
	"note.via.adds":             {"the %s layer adds %s per operation", "%s 層が操作あたり %s 加えます"},
	"note.via.less":             {"%s less through the %s layer, which queues requests before the store (fewer writers contend inside it)", "%[2]s 層を通すと %[1]s 短くなります。層がストアの手前で要求を待たせるためです (ストアの中で競合する書き込みが減ります)"},

	// kurabe http's own lines and tables (ab's and siege's fields stay
	// in English, as those tools print them).
	"http.client":               {"1 client", "1 クライアント"},
	"http.clients":              {"%d clients", "%d クライアント"},
	"http.n.requests":           {"n=%d requests", "n=%d リクエスト"},
	"http.n.passes":             {"n=%d passes", "n=%d パス"},
	"http.duration":             {"duration %s", "時間 %s"},
	"http.rate":                 {"open loop at %s req/s", "%s req/s の開ループ"},
	"round-robin":               {"", "ラウンドロビン"},
	"random":                    {"", "ランダム"},
	"keep-alive":                {"", "接続を再利用 (keep-alive)"},
	"a connection per request":  {"", "リクエストごとに接続"},
	"no responses":              {"", "応答なし"},
	"http.bytes":                {"%s bytes", "%s バイト"},
	"http.distinct":             {"%s distinct", "%s 種類"},
	"http.distinct.more":        {"more than %s distinct", "%s 種類超"},
	"distinct not tracked":      {"", "種類数は記録なし"},
	"http.varying":              {"varying, %s to %s bytes (mean %s, %s)", "可変、%s〜%s バイト (平均 %s、%s)"},
	"other":                     {"", "その他"},
	"none":                      {"", "なし"},
	"http.status":               {"Status codes: %s\n", "ステータスコード: %s\n"},
	"http.lengths":              {"Body lengths: %s", "本文の長さ: %s"},
	"http.lengths.failure":      {" (a body of other than %s bytes is a failure, class expect-length: --expect-length)", " (%s バイト以外の本文は失敗として数えます。種類 expect-length: --expect-length)"},
	"http.lengths.step-failure": {" (a body of another length than its step expects is a failure, class expect-length)", " (ステップが期待する長さ以外の本文は失敗として数えます。種類 expect-length)"},
	"http.lengths.not-failure":  {" (not a failure; --expect-length N makes it one)", " (失敗ではありません。--expect-length N で失敗として数えます)"},
	"http.failed":               {"Failed, %s: %s; first: %s", "失敗、%s: %s 件。最初: %s"},
	"http.per-request":          {"Per request (µs, mean): write %s, wait for the first byte %s, read %s", "リクエストごと (µs、平均): 書き込み %s、最初のバイトまでの待ち %s、読み込み %s"},
	"http.connections.none":     {"Connections: none opened", "接続: 開いた接続なし"},
	"http.connections.opened":   {"Connections: %s opened", "接続: %s 本を開きました"},
	"http.connect":              {"; TCP connect %s µs per connection (mean of %s)", "。TCP 接続 %s µs/本 (%s 本の平均)"},
	"http.connect.none":         {"; TCP connect not measured", "。TCP 接続の時間は未計測"},
	"http.tls":                  {"; TLS handshake %s µs per handshake (mean of %s)", "。TLS ハンドシェイク %s µs/回 (%s 回の平均)"},
	"http.flow":                 {"Flow: %s passes completed, %s failed, %s passes/s; a pass took mean %s ms, p50 %s, p99 %s, max %s", "フロー: 完了 %s パス、失敗 %s、%s パス/秒。パスあたり平均 %s ms、p50 %s、p99 %s、最大 %s"},
	"http.openloop":             {"Open loop: %s scheduled (%s/s), %s/s achieved; %s started more than %s ms late; lag behind the timetable p99 %s ms", "開ループ: 予定 %s 件 (%s/秒)、達成 %s/秒。%s 件が %s ms 以上遅れて開始しました。予定からの遅れ p99 %s ms"},
	"http.notstarted":           {"  %s due before the end never started", "  %s 件は終了までに開始されませんでした"},
	"http.openloop.none":        {"latency from the scheduled start and service time: not measured (no request succeeded)", "予定開始時刻からのレイテンシとサービス時間: 未計測 (成功したリクエストなし)"},
	"http.openloop.corrected":   {"latency from the scheduled start (corrected): p50 %s ms, p99 %s, max %s", "予定開始時刻からのレイテンシ (補正済み): p50 %s ms、p99 %s、最大 %s"},
	"http.openloop.service":     {"service time from the actual start (uncorrected): p50 %s ms, p99 %s, max %s", "実際の開始からのサービス時間 (未補正): p50 %s ms、p99 %s、最大 %s"},
	"http.cpu":                  {"kurabe used %s cores of CPU during the run", "kurabe が実行中に使った CPU: %s コア"},
	"url":                       {"", "URL"},
	"step":                      {"", "ステップ"},
	"requests":                  {"", "リクエスト"},
	"failed":                    {"", "失敗"},
	"body bytes":                {"", "本文バイト"},
	"http.flow.none":            {"Flow: %s passes completed, %s failed; no pass succeeded, so there is no pass latency", "フロー: 完了 %s パス、失敗 %s。成功したパスがないため、パスのレイテンシはありません"},
	"not measured":              {"", "未計測"},
	"http.reconnects":           {"Reconnects: %s (requests that found their kept-alive connection closed by the server before they were sent, and went out once on a new one; not failures, their latency includes the reconnect)", "再接続: %s 件 (送る前に keep-alive の接続がサーバーに閉じられていたため、新しい接続で一度だけ送ったリクエスト。失敗ではなく、レイテンシは再接続を含みます)"},
	"http.resent":               {"RESENT: %s requests were sent twice: GETs (or other idempotent requests) written on a kept-alive connection idle for 100 ms or more that closed before any answer, sent again on a new one; the server may have processed both, and received %s requests in all", "再送: %s 件のリクエストを二度送りました: 100 ms 以上待機していた keep-alive の接続に書いた後、応答の前に接続が閉じられた GET など冪等なリクエストを、新しい接続で送り直したものです。サーバーは両方を処理したかもしれず、受け取ったリクエストは全部で %s 件です"},
	"http.exit.resent":          {"%s requests were sent twice (the server closed their connection unanswered); the report's RESENT line says more", "%s 件のリクエストを二度送りました (サーバーが応答せずに接続を閉じたため)。報告の「再送」の行を参照してください"},
	"http.exit.failed":          {"%s of %s requests failed; the report breaks them down by class", "%[2]s 件中 %[1]s 件のリクエストが失敗しました。種類別の内訳は報告にあります"},
	"http.exit.interrupted":     {"interrupted; the figures cover only the part that ran", "中断しました。数値は実行できた部分のみです"},

	// The load workload's notes (workload/load NotesIn), keyed by their
	// English format, which that package writes itself.
	"%s load, rows/s: %s": {"", "%s の読み込み (行/秒): %s"},
	"%s %s (incomplete)":  {"", "%s %s (未完了)"},

	"autocommit against the disk: the disk probe (--disk-probe) measured %s (%s), another filesystem than the stores' %s (%s), so its %s fsync'd appends/s cannot judge these stores; run kurabe probe --dir %s --json disk.json and give that to --disk-probe": {"", "autocommit とディスク: ディスクプローブ (--disk-probe) が測ったのは %s (%s) で、ストアの %s (%s) とは別のファイルシステムのため、その fsync 付き追記 %s 回/秒 ではこのストアを判断できません。kurabe probe --dir %s --json disk.json を実行し、それを --disk-probe に渡してください"},
	"autocommit against the disk: to see how many fsyncs each row costs, run kurabe probe --dir D --json disk.json with D on the stores' disk, then this run with --disk-probe disk.json":                                                                       {"", "autocommit とディスク: 行ごとに fsync が何回分かかるかは、ストアのディスク上の D で kurabe probe --dir D --json disk.json を実行し、この実行に --disk-probe disk.json を付けると分かります"},

	"%s autocommit: %s rows/s against the disk's %s fsync'd appends/s (kurabe probe): %.1f fsyncs' time per row": {"", "%s autocommit: %s 行/秒、ディスクの fsync 付き追記は %s 回/秒 (kurabe probe): 行ごとに fsync %.1f 回分の時間"},
	"; faster than one fsync per row: concurrent commits shared fsyncs (group commit)":                           {"", "。行ごとに fsync 一回分より速くなっています: 同時のコミットが fsync を共有しました (グループコミット)"},
	"; faster than one fsync per row: commits are not synced (or the disk's cache absorbs them)":                 {"", "。行ごとに fsync 一回分より速くなっています: コミットが同期されていません (またはディスクのキャッシュが吸収しています)"},
	"; faster than one fsync per row, though the settings read back say each commit is synced (%s): the probe's figure may be low (taken on a busy machine, or too short; run kurabe probe again on an idle machine), or the disk's cache absorbs the syncs": {"", "。行ごとに fsync 一回分より速くなっていますが、読み戻した設定ではコミットごとに同期しています (%s): probe の値が低すぎる (負荷の高い時や短い計測で取った値です。空いている時に kurabe probe をやり直してください) か、ディスクのキャッシュが同期を吸収しています"},
	"; faster than one fsync per row: commits are not synced (%s)": {"", "。行ごとに fsync 一回分より速くなっています: コミットが同期されていません (%s)"},
	": about one sync per commit":                                  {"", ": コミットごとにおよそ一回同期しています"},
	": several syncs per commit (SQLite's rollback journal, journal_mode=%s, syncs the journal, then the database)":                                                                                                                                                               {"", ": コミットごとに複数回同期しています (SQLite のロールバックジャーナル (journal_mode=%s) はジャーナル、次にデータベースを同期します)"},
	", though the settings read back say commits are not synced (%s): the time is the statement's own work, not syncing":                                                                                                                                                          {"", "。ただし読み戻した設定ではコミットを同期していません (%s): この時間は同期ではなく、文そのものの処理です"},
	": more than one sync's time per commit: in WAL mode (journal_mode=wal, synchronous=%s) SQLite syncs the WAL at most once per commit; the rest is its checkpoints, which sync the database, and the statement's own work":                                                     {"", ": コミットごとに同期一回分を超える時間がかかっています: WAL モード (journal_mode=wal、synchronous=%s) の SQLite が同期するのは、コミットごとに WAL を多くて一回です。残りはデータベースを同期するチェックポイントと、文そのものの処理です"},
	": more than one sync's time per commit: PostgreSQL flushes its WAL once per commit; the rest is the statement's own work, or WAL larger than the probe's 4 KB appends (full_page_writes=on: the first change to a page after a checkpoint writes the whole page to the WAL)": {"", ": コミットごとに同期一回分を超える時間がかかっています: PostgreSQL はコミットごとに WAL を一回フラッシュします。残りは文そのものの処理か、probe の 4 KB の追記より大きい WAL です (full_page_writes=on: チェックポイントの後にページを初めて変更すると、ページ全体を WAL に書きます)"},
	": more than one sync's time per commit: PostgreSQL flushes its WAL once per commit; the rest is the statement's own work":                                                                                                                                                    {"", ": コミットごとに同期一回分を超える時間がかかっています: PostgreSQL はコミットごとに WAL を一回フラッシュします。残りは文そのものの処理です"},
	": more than one sync's time per commit: InnoDB flushes its redo log once per commit (innodb_flush_log_at_trx_commit=1), and with the binary log on, sync_binlog=1 syncs it too; the rest is the statement's own work":                                                        {"", ": コミットごとに同期一回分を超える時間がかかっています: InnoDB はコミットごとに redo ログを一回フラッシュし (innodb_flush_log_at_trx_commit=1)、バイナリログが有効なら sync_binlog=1 によりそれも同期します。残りは文そのものの処理です"},
	": more than one sync's time per commit: InnoDB flushes its redo log once per commit (innodb_flush_log_at_trx_commit=1); the rest is the statement's own work":                                                                                                                {"", ": コミットごとに同期一回分を超える時間がかかっています: InnoDB はコミットごとに redo ログを一回フラッシュします (innodb_flush_log_at_trx_commit=1)。残りは文そのものの処理です"},
	": more than one sync's time per row: the file store syncs the file once per write (sync=write); the rest is the write's own work":                                                                                                                                            {"", ": 行ごとに同期一回分を超える時間がかかっています: ファイルストアは書き込みごとにファイルを一回同期します (sync=write)。残りは書き込みそのものの処理です"},
	": more than one sync's time per row: the commit's syncs and the statement's own work, which this run does not tell apart":                                                                                                                                                    {"", ": 行ごとに同期一回分を超える時間がかかっています: コミットの同期と文そのものの処理の時間で、この実行ではその内訳は分かりません"},

	// After the clients asked for, in the lines that say what ran, when a
	// store refused some of them a session.
	"clients.ran":     {"%d ran", "実行 %d"},
	"clients.ran.min": {"as few as %d ran", "実行は最少 %d"},

	// After the clients, when each had tables of its own (--isolate):
	// a file of its own where every store keeps tables in files.
	"isolate.table":     {", each on its own table", "、それぞれ専用のテーブル"},
	"isolate.table.one": {", on its own table", "、専用のテーブル"},
	"isolate.file":      {", each on its own file", "、それぞれ専用のファイル"},
	"isolate.file.one":  {", on its own file", "、専用のファイル"},

	// What a start of kurabe replay waits for, in the lines of
	// progress.waiting: a large log read, a managed server started.
	"progress.log":   {"reading the log %s", "ログ %s を読み込んでいます"},
	"progress.start": {"%s: starting the store", "%s: ストアを起動しています"},

	// The HTML report of a kurabe http result: its table per URL or step.
	"Per URL":  {"", "URL ごと"},
	"Per step": {"", "ステップごと"},

	// kurabe replay's lines under its table (replayNotes), and the reasons
	// the replay engine gives for BEHIND, keyed by name; their figures
	// keep their order in both languages.
	"replay.mode.sessions": {"one client per session", "セッションごとのクライアント"},
	"replay.statement":     {"1 statement", "1 文"},
	"replay.statements":    {"%s statements", "%s 文"},
	"replay.session":       {"1 session", "1 セッション"},
	"replay.sessions":      {"%s sessions", "%s セッション"},
	"replay.line1":         {"1 line", "1 行"},
	"replay.lines":         {"%s lines", "%s 行"},
	"replay.line":          {"%s replay: %s of %s from %s (%s, %.3f s as logged), %s, speed %s", "%s replay: %s (%s)、ログ %s (%s、記録上 %.3f 秒)、%s、速度 %s"},
	"replay.delay":         {", delay %s", "、遅延 %s"},
	"replay.interrupted":   {"; INTERRUPTED after %.3f s", "。%.3f 秒で中断"},
	"replay.took":          {"; took %.3f s", "。所要 %.3f 秒"},
	"replay.kept":          {"; kept the log's pace", "。ログのペースを保ちました"},
	"replay.allwarmup":     {"; took %.3f s, ALL WARM-UP: every statement ran within --warmup, so nothing was measured and the pace was not judged", "。所要 %.3f 秒、ALL WARM-UP: すべての文が --warmup の間に実行されたため、何も計測されず、ペースも判定していません"},
	"replay.pace":          {"; took %.3f s against %.3f s scheduled; lag behind the schedule p50 %s, p99 %s, max %s; %s started more than %s late", "。所要 %.3f 秒 (予定 %.3f 秒)。予定からの遅れ p50 %s、p99 %s、最大 %s。%sが %s 以上遅れて開始しました"},
	"replay.unreadable1":   {"%s replay: %s line of the log could not be read and was passed over; the first: %s", "%s replay: ログの %s 行を読めず、飛ばしました。最初: %s"},
	"replay.unreadable":    {"%s replay: %s lines of the log could not be read and were passed over; the first: %s", "%s replay: ログの %s 行を読めず、飛ばしました。最初: %s"},

	"replay.interrupted.scheduled": {" of the %.3f s scheduled", " (予定 %.3f 秒のうち)"},
	"replay.interrupted.ran":       {", with %s of the %s run", "、実行 %s / %s"},
	"replay.interrupted.lag":       {"; lag behind the schedule of those that ran p50 %s, p99 %s, max %s", "。実行した文の予定からの遅れ p50 %s、p99 %s、最大 %s"},
	"replay.interrupted.noverdict": {"; no verdict on the pace, which only a replay to the log's end can give", "。ペースの判定なし (ログの最後まで再生したときだけ判定できます)"},

	"replay.behind.client":  {"kurabe could not keep the log's pace: its own process used nearly every core", "kurabe がログのペースを保てませんでした: kurabe 自身のプロセスがほぼ全コアを使いました"},
	"replay.behind.store":   {"the store could not keep the log's pace: statements started up to %s late and the replay ended %s s after the schedule", "ストアがログのペースを保てませんでした: 文の開始が最大 %s 遅れ、再生は予定より %s 秒遅く終わりました"},
	"replay.behind.clients": {"the replay could not keep the log's pace: statements started up to %s late and it ended %s s after the schedule; too few --clients for the log's concurrency, or a store slower than the logged one", "再生がログのペースを保てませんでした: 文の開始が最大 %s 遅れ、予定より %s 秒遅く終わりました。ログの同時実行数に対して --clients が少ないか、ストアが記録元より遅いためです"},
	replayDelaySuffix:       {"", " (--delay がログ自身の間隔に加わります)"},

	// A scenario's step heading.
	"\n## step %d of %d: kurabe run %s\n\n": {"", "\n## ステップ %d / %d: kurabe run %s\n\n"},

	// A scenario's lines on stderr: a flag of the command line a step
	// leaves out (with the step's reason, a usage message), a step that
	// failed, and the verdict.
	"scenario.leaves-out":  {"%s: step %d leaves out %s and keeps its own settings: %v", "%s: ステップ %d は %s を使わず、自身の設定で実行します: %v"},
	"scenario.step":        {"step %d", "ステップ %d"},
	"scenario.steps":       {"steps %d to %d", "ステップ %d〜%d"},
	"scenario.steps.two":   {"steps %d and %d", "ステップ %d と %d"},
	"scenario.interrupted": {"%s; %s: interrupted in step %d of %d, so %s did not run", "%s。%s: %[4]d ステップ中ステップ %[3]d で中断したため、%[5]s は実行されていません"},
	"scenario.step.failed": {"%s, step %d: %v", "%s、ステップ %d: %v"},
	"scenario.failed":      {"%s: %d step of %d failed (%s, said above)", "%s: %[3]d ステップ中 %[2]d ステップが失敗しました (%[4]s、上記のとおり)"},
	"scenario.failed.n":    {"%s: %d steps of %d failed (%s, said above)", "%s: %[3]d ステップ中 %[2]d ステップが失敗しました (%[4]s、上記のとおり)"},

	// kurabe run's last line when the run failed (its exit status is 1, or
	// 130 when interrupted).
	"run.exit.lost":         {"verification failed: %d writes lost, %d extra rows; acknowledged writes must all be stored", "検証に失敗しました: 書き込みの消失 %d 件、過剰な行 %d 行。確認応答した書き込みはすべて保存されていなければなりません"},
	"run.exit.lost.unknown": {"verification failed: %d writes lost, %d extra rows besides the %d that writes whose answer was lost (timeouts, lost connections) may have stored; acknowledged writes must all be stored, and no rows beyond them and those", "検証に失敗しました: 書き込みの消失 %d 件、過剰な行 %d 行 (応答が失われた書き込み (タイムアウト、切れた接続) が保存した可能性のある %d 行のほかに)。確認応答した書き込みはすべて保存され、それと応答が失われた書き込みのほかに行があってはなりません"},
	"run.exit.interrupted":  {"interrupted; the figures cover only the part that ran", "中断しました。数値は実行できた部分のみです"},
	"run.exit.failed":       {"store %s failed; see the notes under the table", "ストア %s が失敗しました。表の下の注記を参照してください"},
	// What a start that takes long waits for, on the progress line or,
	// outside a terminal, on a line of its own: "sqlite write: opening
	// 1,000 sessions", then ", 2s so far".
	"progress.waiting":     {"%s, %s so far", "%s、%s 経過"},
	"progress.setup":       {"%s: starting the store and creating its tables", "%s: ストアを起動し、テーブルを作成しています"},
	"progress.opening":     {"%s %s: opening %s", "%s %s: %sを開いています"},
	"progress.sessions":    {"%s sessions", "%s セッション"},
	"progress.again":       {" again for -c %d", " (-c %d 用にもう一度)"},
	"loading the data set": {"", "データセットを読み込んでいます"},
	// bbs's PrepareLabel, with the posts (100k).
	"putting %s posts on the board (--prefill)": {"", "掲示板に %s 件の投稿を書き込んでいます (--prefill)"},
	"run.exit.lost-work":                        {"work was lost in %s: rows the run wrote or loaded were missing, or the store did not take rows or keys it was given, so the figures are not of the work asked; see the errors under the table", "%s で作業が失われました: 実行が書き込んだ・読み込んだ行が見つからない、または渡した行やキーをストアが受け取らなかったため、数値は求めた作業のものではありません。表の下のエラーを参照してください"},
	"run.exit.nothing":                          {"every operation of %s failed, so its figures time errors; see the notes under the table", "%s の操作はすべて失敗したため、その数値はエラーの時間です。表の下の注記を参照してください"},
	"run.exit.unverified":                       {"the writes of %s could not be verified (lost ?), so nothing says they were all stored; see the notes under the table", "%s の書き込みを検証できなかったため (消失 ?)、すべて保存されたとは言えません。表の下の注記を参照してください"},
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

// Sprintf formats the words for key in lang, for a command's own lines
// (a scenario's step headings).
func Sprintf(lang, key string, args ...any) string { return tr(lang).f(key, args...) }

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
