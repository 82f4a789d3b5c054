package load

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"kurabe/numfmt"
	"kurabe/result"
	"kurabe/store"
)

// Rate is one load phase's rows per second.
type Rate struct {
	Store, Way string
	// Driver and Options are the store's, its settings as read back:
	// what a commit syncs depends on them (SQLite's journal_mode).
	Driver  string
	Options map[string]string
	// GroupCommit says the store can sync several clients' commits at
	// once (PostgreSQL, MariaDB/MySQL); SQLite and the file store cannot.
	GroupCommit bool
	Clients     int
	Repeat      int
	Rows        int64
	Seconds     float64
	RowsPerSec  float64
	Complete    bool // every chunk loaded without error
	// Sync is what the store's settings, as read back, say of syncing a
	// commit: SyncOn when they say every commit is synced to disk,
	// SyncOff when they say it is not, SyncUnknown when they do not
	// tell; SyncSettings names them ("fsync=on synchronous_commit=on").
	Sync         int
	SyncSettings string
}

// What a store's settings say of syncing a commit (Rate.Sync).
const (
	SyncUnknown = iota
	SyncOn
	SyncOff
)

// commitSync reads from a store's settings, as read back, whether each
// commit is synced to disk, and the settings that say so.
func commitSync(info store.Info) (int, string) {
	o := info.Options
	both := func(names ...string) (string, bool) {
		var parts []string
		for _, n := range names {
			v, ok := o[n]
			if !ok {
				return "", false
			}
			parts = append(parts, n+"="+v)
		}
		return strings.Join(parts, " "), true
	}
	switch info.Driver {
	case "postgres":
		set, ok := both("fsync", "synchronous_commit")
		switch {
		case !ok:
		case strings.ToLower(o["fsync"]) == "off" || strings.ToLower(o["synchronous_commit"]) == "off":
			return SyncOff, set
		case strings.ToLower(o["fsync"]) == "on":
			return SyncOn, set // on, local, remote_write, remote_apply all flush the WAL locally
		}
	case "mariadb", "mysql":
		set, ok := both("engine", "innodb_flush_log_at_trx_commit")
		switch {
		case !ok:
		case !strings.EqualFold(o["engine"], "InnoDB"):
			return SyncOff, set // MyISAM and Aria do not sync at commit
		case o["innodb_flush_log_at_trx_commit"] == "1":
			return SyncOn, set
		case o["innodb_flush_log_at_trx_commit"] == "0" || o["innodb_flush_log_at_trx_commit"] == "2":
			return SyncOff, set
		}
	case "sqlite":
		set, ok := both("synchronous")
		switch v := strings.ToLower(o["synchronous"]); {
		case !ok:
		case v == "full" || v == "extra":
			return SyncOn, set
		case v == "off":
			return SyncOff, set
		}
	case "file":
		set, ok := both("sync")
		switch {
		case !ok:
		case o["sync"] == "write":
			return SyncOn, set
		default:
			return SyncOff, set
		}
	}
	return SyncUnknown, ""
}

// Rates reads the rows per second of every load phase of a result: the
// rows the store acknowledged, as the phase's check counted them (a chunk
// cut short counts the rows it committed), or without a check the rows of
// the operations that succeeded (each a chunk of the data set, the last
// one short), over the phase's elapsed time.
func Rates(d *result.Document) []Rate {
	rows, chunk, ok := sizes(d)
	if !ok {
		return nil
	}
	chunks := (rows + chunk - 1) / chunk
	var out []Rate
	for _, s := range d.Stores {
		for _, p := range s.Phases {
			r := Rate{Store: s.Label, Way: p.Op, Driver: s.Info.Driver, Options: s.Info.Options, Clients: p.Clients, Repeat: p.Repeat, Seconds: p.Elapsed}
			switch s.Info.Driver {
			case "postgres", "mysql", "mariadb":
				r.GroupCommit = true
			}
			r.Sync, r.SyncSettings = commitSync(s.Info)
			r.Rows, _ = PhaseRows(d, p)
			r.Complete = p.Ops == chunks && p.Errors == 0 && !p.Interrupted
			if p.Elapsed > 0 {
				r.RowsPerSec = float64(r.Rows) / p.Elapsed
			}
			out = append(out, r)
		}
	}
	return out
}

// sizes are a load run's rows and rows per chunk, as its parameters say;
// ok is false for a result of another workload.
func sizes(d *result.Document) (rows, chunk int64, ok bool) {
	if d.Run.Workload != "load" {
		return 0, 0, false
	}
	rows, _ = strconv.ParseInt(d.Run.Params["rows"], 10, 64)
	chunk, _ = strconv.ParseInt(d.Run.Params["chunk_rows"], 10, 64)
	return rows, chunk, rows > 0 && chunk > 0
}

// PhaseRows is how many rows a phase of a load run loaded: the rows the
// store acknowledged, as the phase's check counted them (the committed
// ones of a chunk cut short, an interrupted autocommit, included), or
// without a check the rows of the operations that succeeded. ok is false
// for a result of another workload.
func PhaseRows(d *result.Document, p result.Phase) (rows int64, ok bool) {
	all, chunk, ok := sizes(d)
	if !ok {
		return 0, false
	}
	if acked, ok := ackedRows(p); ok {
		return acked, true
	}
	return min(p.Ops*chunk, all), true
}

// Notes are the lines a report prints under a load run's table: rows per
// second per store and way, and, given the disk's rate of fsync'd appends
// from kurabe probe (0 when there is none), each autocommit rate held
// against it: a store that syncs k times per commit loads at most 1/k of
// that rate with one client. The lines are English; NotesIn writes them in
// another language.
func Notes(d *result.Document, fsyncsPerSec float64) []string {
	return NotesIn(d, fsyncsPerSec, fmt.Sprintf)
}

// NotesIn is Notes with each sentence put into words by say, which is
// given the English format and its arguments: fmt.Sprintf writes English,
// a report's translator another language. (This package cannot import the
// report package, which imports it, so the words table lives there and
// arrives as a function.)
func NotesIn(d *result.Document, fsyncsPerSec float64, say func(format string, args ...any) string) []string {
	var out []string
	var line []string
	last := ""
	flush := func() {
		if len(line) > 0 {
			out = append(out, say("%s load, rows/s: %s", last, strings.Join(line, " · ")))
		}
		line = nil
	}
	levels, repeats := len(d.Run.Levels) > 1, d.Run.Repeat > 1
	var autos []Rate
	for _, r := range Rates(d) {
		if r.Store != last {
			flush()
			last = r.Store
		}
		way := r.Way
		if levels {
			way += " c=" + strconv.Itoa(r.Clients)
		}
		if repeats {
			way += " #" + strconv.Itoa(r.Repeat+1)
		}
		switch {
		case r.Rows == 0:
			line = append(line, way+" -")
		case r.Complete:
			line = append(line, way+" "+group(r.RowsPerSec))
		default:
			line = append(line, say("%s %s (incomplete)", way, group(r.RowsPerSec)))
		}
		if r.Way == "autocommit" && r.Complete {
			autos = append(autos, r)
		}
	}
	flush()
	if o := d.Env.ProbeElsewhere; o != nil && d.Env.Probe != nil && len(autos) > 0 {
		// A ceiling of another filesystem (tmpfs's hundreds of thousands
		// of fsyncs a second against a disk's store) would draw a wrong
		// conclusion: say why none is drawn, and which probe to make.
		pr := d.Env.Probe
		// The run's temporary data directory is gone once the run ends:
		// the probe to make is of its parent, on the same filesystem.
		probeDir := o.Dir
		if o.Dir == d.Run.Dir && !d.Run.DirKept {
			probeDir = filepath.Dir(o.Dir)
		}
		out = append(out, say("autocommit against the disk: the disk probe (--disk-probe) measured %s (%s), another filesystem than the stores' %s (%s), so its %s fsync'd appends/s cannot judge these stores; run kurabe probe --dir %s --json disk.json and give that to --disk-probe",
			pr.Dir, pr.Filesystem, o.Dir, o.Filesystem, group(pr.FsyncsPerSec), probeDir))
		return out
	}
	if fsyncsPerSec <= 0 {
		if len(autos) > 0 {
			out = append(out, say("autocommit against the disk: to see how many fsyncs each row costs, run kurabe probe --dir D --json disk.json with D on the stores' disk, then this run with --disk-probe disk.json"))
		}
		return out
	}
	for _, r := range autos {
		per := fsyncsPerSec / r.RowsPerSec
		line := say("%s autocommit: %s rows/s against the disk's %s fsync'd appends/s (kurabe probe): %.1f fsyncs' time per row", r.Store, group(r.RowsPerSec), group(fsyncsPerSec), per)
		switch {
		case per < 0.8 && r.Clients > 1 && r.GroupCommit:
			line += say("; faster than one fsync per row: concurrent commits shared fsyncs (group commit)")
		case per < 0.8 && r.Sync == SyncOn:
			// The settings say every commit is synced: the figure to
			// doubt is the probe's, or the disk's word that it synced.
			line += say("; faster than one fsync per row, though the settings read back say each commit is synced (%s): the probe's figure may be low (taken on a busy machine, or too short; run kurabe probe again on an idle machine), or the disk's cache absorbs the syncs", r.SyncSettings)
		case per < 0.8 && r.Sync == SyncOff:
			line += say("; faster than one fsync per row: commits are not synced (%s)", r.SyncSettings)
		case per < 0.8:
			line += say("; faster than one fsync per row: commits are not synced (or the disk's cache absorbs them)")
		case r.Sync == SyncOff:
			// As slow as syncing, though nothing is synced: the time is
			// the statement's, which a count of syncs would misname.
			line += say(", though the settings read back say commits are not synced (%s): the time is the statement's own work, not syncing", r.SyncSettings)
		case per < 1.5:
			line += say(": about one sync per commit")
		default:
			line += slowCommit(r, say)
		}
		out = append(out, line)
	}
	return out
}

// slowCommit says why an autocommit row took the time of more than one
// fsync, as far as the store's settings read back tell: what its commit
// syncs (SQLite's rollback journal syncs the journal, then the database;
// PostgreSQL flushes its WAL once, InnoDB its redo log once, and the
// binary log too with sync_binlog=1), and otherwise only what was
// measured, never another store's reason.
func slowCommit(r Rate, say func(format string, args ...any) string) string {
	o := r.Options
	switch r.Driver {
	case "sqlite":
		switch j := strings.ToLower(o["journal_mode"]); j {
		case "delete", "truncate", "persist":
			return say(": several syncs per commit (SQLite's rollback journal, journal_mode=%s, syncs the journal, then the database)", j)
		case "wal":
			return say(": more than one sync's time per commit: in WAL mode (journal_mode=wal, synchronous=%s) SQLite syncs the WAL at most once per commit; the rest is its checkpoints, which sync the database, and the statement's own work", o["synchronous"])
		}
	case "postgres":
		if strings.EqualFold(o["full_page_writes"], "on") {
			return say(": more than one sync's time per commit: PostgreSQL flushes its WAL once per commit; the rest is the statement's own work, or WAL larger than the probe's 4 KB appends (full_page_writes=on: the first change to a page after a checkpoint writes the whole page to the WAL)")
		}
		return say(": more than one sync's time per commit: PostgreSQL flushes its WAL once per commit; the rest is the statement's own work")
	case "mariadb", "mysql":
		if !strings.EqualFold(o["engine"], "InnoDB") || o["innodb_flush_log_at_trx_commit"] != "1" {
			break
		}
		if o["sync_binlog"] == "1" {
			return say(": more than one sync's time per commit: InnoDB flushes its redo log once per commit (innodb_flush_log_at_trx_commit=1), and with the binary log on, sync_binlog=1 syncs it too; the rest is the statement's own work")
		}
		return say(": more than one sync's time per commit: InnoDB flushes its redo log once per commit (innodb_flush_log_at_trx_commit=1); the rest is the statement's own work")
	case "file":
		if o["sync"] == "write" {
			return say(": more than one sync's time per row: the file store syncs the file once per write (sync=write); the rest is the write's own work")
		}
	}
	return say(": more than one sync's time per row: the commit's syncs and the statement's own work, which this run does not tell apart")
}

// group writes v whole, with thousands separators.
func group(v float64) string { return numfmt.GroupFloat(v) }

// ackedRows sums the rows the store acknowledged in a phase's tables, as
// its check counted them; false when there is no check or a count failed.
func ackedRows(p result.Phase) (int64, bool) {
	var n int64
	for _, v := range p.Verify {
		if v.Error != "" {
			return 0, false
		}
		n += v.Acked
	}
	return n, len(p.Verify) > 0
}
