// Package replay runs the statements of a server's log against a store,
// at the log's pace or faster, and measures them per statement
// fingerprint. Its sub-packages read the logs: pglog PostgreSQL's server
// log, mylog MariaDB's and MySQL's general query log; both yield the
// same Events (a session connected, sent a statement with its
// parameters, disconnected), which Load gathers into sessions.
//
// Trade-offs, and why:
//
//   - The log is held in memory once parsed (about the size of its
//     statements), so that sessions can be started at their times and
//     cut into transactions for --clients. The parsers themselves stream.
//   - Time is a schedule, not a series of pauses: a statement is due at
//     its offset in the log divided by the speed, and a client that falls
//     behind runs at once rather than pausing again, so a slow store
//     shows as lag (how late each statement started) and a late end,
//     never as a longer log. A session starts no earlier than the
//     sessions that had ended when it began in the log have ended, so
//     work that depended on another connection's finds it done.
//   - Latency is each statement's service time, from its actual start,
//     as pg_stat_statements counts it; lag is reported apart.
//   - Figures per fingerprint would need a histogram per client and
//     fingerprint (up to 75 KiB each) if clients kept them; instead each
//     client measures into its own histograms for the whole and hands batches of
//     (fingerprint, latency, bytes, error) to one aggregator, one channel
//     send per 256 statements, which keeps one histogram per fingerprint
//     (the MaxFingerprints most frequent; the rest share one). The live
//     per-second series reads the clients' own histograms.
//   - Statements go through store.SQLSession as text in the log's
//     dialect: nothing is translated, so a PostgreSQL log needs a
//     PostgreSQL store. Bare BEGIN, COMMIT and ROLLBACK go through
//     Begin, Commit and Rollback, which every SQL store has (MySQL cannot
//     prepare them); texts of several statements are split, since a
//     prepared statement holds one.
package replay
