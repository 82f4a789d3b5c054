package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"strings"

	"kurabe/store"
)

// A replay runs the log's own CREATE TABLE statements, which name no
// engine, row format or encryption unless the application's did, so the
// table options (engine, row_format, page_compressed, encrypted), which
// shape the tables kurabe creates, would shape nothing and a comparison
// of engines would compare the server's default with itself. ForReplay
// carries each to the tables the log creates, by the setting that gives a
// CREATE TABLE naming none its default: engine= and page_compressed= by
// session settings of every session (set by the driver as it connects);
// row_format= and encrypted= have only global settings, which kurabe sets
// when it starts a server and never changes on a server it does not run.
// A statement that names its own ENGINE (or ROW_FORMAT, …) keeps it: the
// log's choice wins, and ReplayNotes says where it did.

var _ store.Replayer = (*Store)(nil)

// innodbRowFormats are the values innodb_default_row_format takes.
var innodbRowFormats = []string{"REDUNDANT", "COMPACT", "DYNAMIC"}

// ForReplay readies the store for a replay (store.Replayer). It is called
// before the store's first session, so before a managed server starts.
func (s *Store) ForReplay() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.admin != nil || s.startErr != nil {
		return fmt.Errorf("%s: ForReplay after the store started", s.driver)
	}
	params := map[string]string{}
	if s.given.Get("engine") != "" {
		// default_tmp_storage_engine too: the log's temporary tables are
		// its tables as well (MySQL's default for them is InnoDB whatever
		// default_storage_engine says).
		params["default_storage_engine"] = s.opts.engine
		params["default_tmp_storage_engine"] = s.opts.engine
	}
	if s.given.Get("page_compressed") != "" {
		params["innodb_compression_default"] = onOff(s.opts.pageCompressed)
	}
	// The global settings, each with the option it carries.
	var global []carried
	if rf := s.opts.rowFormat; rf != "" && rf != "DEFAULT" {
		switch {
		case s.opts.engine != "InnoDB" || !slices.Contains(innodbRowFormats, rf):
			return fmt.Errorf("%s: row_format=%s shapes only the tables kurabe creates, and in a replay the log's CREATE TABLE statements make the tables: no setting gives %s tables created without a row format %s (InnoDB's innodb_default_row_format takes REDUNDANT, COMPACT or DYNAMIC; MyISAM and Aria have none), so the log's tables would not have it; drop row_format, or write ROW_FORMAT=%s into the log's CREATE TABLE statements",
				s.driver, rf, s.opts.engine, rf, rf)
		case s.m == nil:
			return fmt.Errorf("%s: row_format=%s shapes only the tables kurabe creates; in a replay the log's CREATE TABLE statements make the tables, and their row format is the server's innodb_default_row_format, a global setting kurabe does not change on a server it does not run: set innodb_default_row_format=%s on the server and drop row_format, or replay on %s:managed?row_format=%s, whose server kurabe starts with it",
				s.driver, rf, strings.ToLower(rf), s.driver, rf)
		}
		global = append(global, carried{setting{"innodb_default_row_format", strings.ToLower(rf)}, "row_format=" + rf})
	}
	if s.opts.encrypted {
		if s.m == nil {
			return fmt.Errorf("%s: encrypted=1 shapes only the tables kurabe creates; in a replay the log's CREATE TABLE statements make the tables, and they are encrypted when the server has innodb_encrypt_tables=ON, a global setting kurabe does not change on a server it does not run: set it on the server (with a key management plugin) and drop encrypted=1, or replay on %s:managed?encrypted=1, whose server kurabe starts with both",
				s.driver, s.driver)
		}
		global = append(global, carried{setting{"innodb_encrypt_tables", "ON"}, "encrypted=1"})
	}
	for _, g := range global {
		if err := s.m.addSetting(g.setting, g.option); err != nil {
			return err
		}
	}
	s.replay, s.replayParams = true, params
	return nil
}

// carried is a server setting and the store option it carries.
type carried struct {
	setting
	option string
}

// addSetting adds a server setting that a replay needs, unless the spec
// gave it already: with the same value, nothing to do; with another, the
// two options contradict each other.
func (m *managed) addSetting(g setting, option string) error {
	for _, s := range m.settings {
		if strings.ReplaceAll(strings.ToLower(s.name), "-", "_") != g.name {
			continue
		}
		v := strings.ToLower(s.value)
		if v == g.value || g.name == "innodb_encrypt_tables" && (v == "on" || v == "force" || v == "1") {
			return nil
		}
		return fmt.Errorf("%s: %s and %s=%s disagree: in a replay the server's %s is what the log's tables get; give one of them", m.driver, option, s.name, s.value, g.name)
	}
	m.settings = append(m.settings, g)
	return nil
}

func onOff(v bool) string {
	if v {
		return "ON"
	}
	return "OFF"
}

// replayInfo replaces the table options Info reports with what the
// replay's sessions had, read back on a connection set up as theirs
// were: the engine, and under InnoDB the row format, page compression and
// encryption a CREATE TABLE naming none gets; and the engines of the
// tables the log made in kurabe's database (tables.engine, several
// joined by commas when they differ).
func (s *Store) replayInfo(ctx context.Context, db *sql.DB, info *store.Info) {
	c, err := db.Conn(ctx)
	if err != nil {
		info.Facts["error"] = scrub(fmt.Errorf("cannot connect to read the replay's settings back: %w", err), s.secret).Error()
		s.markGiven(info.Options)
		return
	}
	defer c.Close()
	for _, name := range tableOptions {
		delete(info.Options, name)
	}
	engine, _ := variable(ctx, c, "default_storage_engine")
	if engine != "" {
		info.Options["engine"] = engine
	}
	if v, ok := variable(ctx, c, "default_tmp_storage_engine"); ok && v != "" && !strings.EqualFold(v, engine) {
		info.Options["default_tmp_storage_engine"] = v
	}
	if strings.EqualFold(engine, "InnoDB") {
		if v, ok := variable(ctx, c, "innodb_default_row_format"); ok {
			info.Options["row_format"] = strings.ToUpper(v)
		}
		if v, ok := variable(ctx, c, "innodb_compression_default"); ok {
			info.Options["page_compressed"] = boolText(v == "1" || strings.EqualFold(v, "ON"))
		}
		if v, ok := variable(ctx, c, "innodb_encrypt_tables"); ok {
			info.Options["encrypted"] = boolText(strings.EqualFold(v, "ON") || strings.EqualFold(v, "FORCE"))
		}
	}
	byEngine, err := s.logTables(ctx, c)
	if err != nil {
		info.Facts["error"] = scrub(fmt.Errorf("cannot read the log's tables: %w", err), s.secret).Error()
		return
	}
	if len(byEngine) > 0 {
		info.Options["tables.engine"] = strings.Join(slices.Sorted(maps.Keys(byEngine)), ",")
	}
}

// logTables returns the base tables in kurabe's database by engine.
func (s *Store) logTables(ctx context.Context, c *sql.Conn) (map[string][]string, error) {
	rows, err := c.QueryContext(ctx, "SELECT TABLE_NAME, COALESCE(ENGINE, '') FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME", s.opts.database)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	by := map[string][]string{}
	for rows.Next() {
		var name, engine string
		if err := rows.Scan(&name, &engine); err != nil {
			return nil, err
		}
		if name != metaTable {
			by[engine] = append(by[engine], name)
		}
	}
	return by, rows.Err()
}

// ReplayNotes says which of the log's tables in kurabe's database have
// an engine other than the one engine= asked for: the log named theirs
// (CREATE TABLE … ENGINE=, ALTER TABLE … ENGINE=), and the log's choice
// wins (store.Replayer).
func (s *Store) ReplayNotes(ctx context.Context) []string {
	s.mu.Lock()
	db, replay := s.db, s.replay
	s.mu.Unlock()
	if !replay || db == nil || s.given.Get("engine") == "" {
		return nil
	}
	c, err := db.Conn(ctx)
	if err != nil {
		return nil
	}
	defer c.Close()
	byEngine, err := s.logTables(ctx, c)
	if err != nil {
		return nil
	}
	var notes []string
	for _, engine := range slices.Sorted(maps.Keys(byEngine)) {
		if strings.EqualFold(engine, s.opts.engine) {
			continue
		}
		names := byEngine[engine]
		shown := names
		if len(shown) > 5 {
			shown = shown[:5]
		}
		list := strings.Join(shown, ", ")
		if len(names) > len(shown) {
			list += fmt.Sprintf(" and %d more", len(names)-len(shown))
		}
		what := "table " + list + " has"
		if len(names) > 1 {
			what = fmt.Sprintf("%d tables (%s) have", len(names), list)
		}
		notes = append(notes, fmt.Sprintf("engine=%s: %s engine %s, which the log named (its CREATE TABLE or ALTER TABLE … ENGINE=); a statement's own engine wins over the store's", s.opts.engine, what, engine))
	}
	return notes
}
