package mysql

import (
	"context"
	"strings"
	"testing"

	"kurabe/store"
	"kurabe/store/storetest"
)

// TestReplayCarriesTableOptions: in a replay the log's CREATE TABLE
// statements make the tables, naming no row format, compression or
// encryption, so the store carries its table options to them: here
// page_compressed by the sessions' innodb_compression_default, row_format
// and encrypted by the managed server's innodb_default_row_format and
// innodb_encrypt_tables, through database/sql (driver=sql; the command's
// test replays through the wire client). Before, such a table was
// DYNAMIC, uncompressed and unencrypted, and Info said only "(given; not
// read back)". A statement that names its own row format keeps it.
func TestReplayCarriesTableOptions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	opened, err := openSpec(t, "mariadb:managed?page_compressed=1&row_format=compact&encrypted=1&driver=sql", store.Env{Dir: serverDir(t)})
	storetest.RequireServer(t, err)
	st := opened.(*Store)
	t.Cleanup(func() { st.Close() })
	if err := st.ForReplay(); err != nil {
		t.Fatal(err)
	}
	s, err := st.Open(ctx)
	storetest.RequireServer(t, err)
	defer s.Close()
	sq := s.(store.SQLSession)
	// MariaDB reports a page-compressed table's row format as Dynamic
	// whatever it was asked (kurabe's own tables too), so the row format
	// is seen on a table that turns compression off.
	tables := []struct {
		name, create, format string
		compressed           bool
	}{
		{"plain", "CREATE TABLE plain (id INT PRIMARY KEY, v TEXT)", "", true},
		{"nocomp", "CREATE TABLE nocomp (id INT PRIMARY KEY, v TEXT) PAGE_COMPRESSED=0", "Compact", false},
		{"own", "CREATE TABLE own (id INT PRIMARY KEY) ROW_FORMAT=REDUNDANT PAGE_COMPRESSED=0", "Redundant", false},
	}
	root := rootDB(t, st)
	for _, tc := range tables {
		if _, err := sq.Exec(ctx, tc.create); err != nil {
			t.Fatalf("%s: %v", tc.create, err)
		}
		var format, create string
		var scheme int
		err := root.QueryRow("SELECT ROW_FORMAT, CREATE_OPTIONS FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'kurabe' AND TABLE_NAME = ?", tc.name).Scan(&format, &create)
		compressed := strings.Contains(strings.ToUpper(create), "PAGE_COMPRESSED`='ON'")
		if err != nil || tc.format != "" && format != tc.format || compressed != tc.compressed {
			t.Errorf("table %s: row format %q, create options %q (%v); want row format %q, page compression %v", tc.name, format, create, err, tc.format, tc.compressed)
		}
		err = root.QueryRow("SELECT ENCRYPTION_SCHEME FROM information_schema.INNODB_TABLESPACES_ENCRYPTION WHERE NAME = ?", "kurabe/"+tc.name).Scan(&scheme)
		if err != nil || scheme != 1 {
			t.Errorf("table %s: encryption scheme %d (%v), want 1 (encrypted)", tc.name, scheme, err)
		}
	}
	info := st.Info(ctx)
	t.Logf("Info: %v", info.Options)
	for name, want := range map[string]string{"engine": "InnoDB", "row_format": "COMPACT", "page_compressed": "1", "encrypted": "1", "tables.engine": "InnoDB"} {
		if got := info.Options[name]; got != want {
			t.Errorf("Info %s=%q, want %q read back", name, got, want)
		}
	}
	if notes := st.ReplayNotes(ctx); len(notes) > 0 {
		t.Errorf("notes %q with no engine asked", notes)
	}
}

// TestForReplayRefuses: a table option with no setting that carries it to
// the log's tables, or only a global one on a server kurabe does not
// run, is refused before anything connects, saying what to use instead.
func TestForReplayRefuses(t *testing.T) {
	for _, tc := range []struct {
		spec string
		want []string
	}{
		// Global settings only, on a server someone else runs.
		{"mariadb://u@127.0.0.1:1/x?row_format=compact", []string{"innodb_default_row_format=compact on the server", "mariadb:managed?row_format=COMPACT"}},
		{"mariadb://u@127.0.0.1:1/x?encrypted=1", []string{"innodb_encrypt_tables=ON", "mariadb:managed?encrypted=1"}},
		// No setting at all.
		{"mariadb://u@127.0.0.1:1/x?engine=MyISAM&row_format=fixed", []string{"no setting gives MyISAM tables", "ROW_FORMAT=FIXED into the log's CREATE TABLE"}},
		{"mysql://u@127.0.0.1:1/x?row_format=compressed", []string{"REDUNDANT, COMPACT or DYNAMIC"}},
	} {
		st, err := openSpec(t, tc.spec, store.Env{})
		if err != nil {
			t.Fatalf("%s: %v", tc.spec, err)
		}
		r, ok := st.(store.Replayer)
		if !ok {
			t.Fatalf("%s: the store is not a store.Replayer", tc.spec)
		}
		err = r.ForReplay()
		for _, w := range tc.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v; want it refused, naming %q", tc.spec, err, w)
			}
		}
	}
	// Options that sessions carry, or that change nothing, are taken.
	for _, spec := range []string{"mariadb://u@127.0.0.1:1/x?engine=MyISAM", "mariadb://u@127.0.0.1:1/x?page_compressed=1", "mariadb://u@127.0.0.1:1/x?row_format=default"} {
		st, err := openSpec(t, spec, store.Env{})
		if err != nil {
			t.Fatal(err)
		}
		if err := st.(store.Replayer).ForReplay(); err != nil {
			t.Errorf("%s: %v; want it taken", spec, err)
		}
	}
	// A server setting of the spec that says otherwise contradicts it.
	st, err := openSpec(t, "mariadb:managed?row_format=compact&innodb_default_row_format=dynamic", store.Env{Dir: serverDir(t)})
	storetest.RequireServer(t, err)
	defer st.Close()
	if err := st.(store.Replayer).ForReplay(); err == nil || !strings.Contains(err.Error(), "row_format=COMPACT and innodb_default_row_format=dynamic disagree") {
		t.Errorf("row_format=compact with innodb_default_row_format=dynamic: %v; want them said to disagree", err)
	}
}
