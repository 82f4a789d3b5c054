package cli

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"kurabe/store"
	"kurabe/store/postgres"
	"kurabe/store/storetest"
)

func TestCleanRefusesBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"clean"}, "give the store to clean"},
		{[]string{"clean", "--store", "postgres:managed"}, "nothing to clean"},
		{[]string{"clean", "--store", "sqlite:/tmp/x.db"}, "remove those yourself"},
		{[]string{"clean", "--stor", "x"}, "did you mean --store?"},
		{[]string{"clean", "--store", "postgres://u@127.0.0.1/db", "--lang", "fr"}, "--lang"},
	} {
		_, errs, code := runCLI(t, testApp(), c.args...)
		if code != ExitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, errs, c.want)
		}
	}
}

// The tester's steps on PostgreSQL, through the command line: kurabe runs
// crud in a database; its user drops kurabe's crud, makes a crud of their
// own with their data, and keeps a table of theirs beside it in schema
// kurabe. The next run is refused and the user's row survives; kurabe
// clean (first --dry-run) drops only kurabe's tables, leaves the user's
// crud and says why, and once the user has dropped it, drops kurabe_meta;
// the schema, which kurabe made, goes when nothing else is in it.
func TestCleanPostgres(t *testing.T) {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "kurabe-clean-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	sp, _ := store.ParseSpec("postgres:managed")
	server, err := postgres.Open(ctx, sp, store.Env{Dir: dir})
	storetest.RequireServer(t, err)
	defer server.Close()
	if err := server.Setup(ctx, nil); err != nil {
		storetest.RequireServer(t, err)
	}
	addr := strings.TrimPrefix(server.Info(ctx).Target, "managed ")
	admin, err := pgx.Connect(ctx, "postgres://kurabe@"+addr+"/postgres")
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "CREATE DATABASE appdb"); err != nil {
		t.Fatal(err)
	}
	dsn := "postgres://kurabe@" + addr + "/appdb"
	user, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer user.Close(ctx)
	exec := func(stmts ...string) {
		t.Helper()
		for _, q := range stmts {
			if _, err := user.Exec(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
	}
	keep := func() {
		t.Helper()
		var important string
		if err := user.QueryRow(ctx, "SELECT important FROM kurabe.crud WHERE id = 1").Scan(&important); err != nil || important != "keep me" {
			t.Fatalf("the user's row: %q, %v", important, err)
		}
	}

	if _, errs, code := runCLI(t, testApp(), "run", "-q", "-w", "crud", "--store", dsn, "-n", "20"); code != ExitOK {
		t.Fatalf("first run: exit %d: %s", code, errs)
	}
	exec("DROP TABLE kurabe.crud", "CREATE TABLE kurabe.crud (id int PRIMARY KEY, important text)", "INSERT INTO kurabe.crud VALUES (1, 'keep me')",
		"CREATE TABLE kurabe.notes (id int PRIMARY KEY, note text)")
	out, errs, code := runCLI(t, testApp(), "run", "-q", "-w", "crud", "--store", dsn, "-n", "20")
	if code == ExitOK || !strings.Contains(out+errs, "replaced since") {
		t.Fatalf("run over the user's crud: exit %d\n%s\n%s\nwant a failure saying it was replaced since kurabe made it", code, out, errs)
	}
	keep()

	for _, dry := range []bool{true, false} {
		args := []string{"clean", "--store", dsn}
		if dry {
			args = append(args, "--dry-run")
		}
		out, errs, code = runCLI(t, testApp(), args...)
		if code != ExitFailed || !strings.Contains(out, "left kurabe.crud: kurabe_meta lists it, but it is not the table kurabe made") ||
			!strings.Contains(out, "left kurabe.kurabe_meta") || !strings.Contains(errs, "clean left 1 table") {
			t.Fatalf("clean (dry run %v): exit %d\n%s\n%s", dry, code, out, errs)
		}
		if dry != strings.Contains(out, "dry run: nothing was changed") {
			t.Errorf("clean (dry run %v) says:\n%s", dry, out)
		}
		keep()
	}
	exec("DROP TABLE kurabe.crud")
	out, errs, code = runCLI(t, testApp(), "clean", "--store", dsn, "--lang", "ja")
	if code != ExitOK || !strings.Contains(out, "kurabe.crud はありません") || !strings.Contains(out, "kurabe.kurabe_meta を削除しました") || !strings.Contains(out, "schema kurabe は残しました。ほかのものが入っています") {
		t.Fatalf("clean after the user dropped their crud: exit %d\n%s\n%s", code, out, errs)
	}
	var n int
	if err := user.QueryRow(ctx, "SELECT count(*) FROM kurabe.notes").Scan(&n); err != nil {
		t.Fatalf("the user's kurabe.notes: %v", err)
	}
	exec("DROP TABLE kurabe.notes")
	out, errs, code = runCLI(t, testApp(), "clean", "--store", dsn)
	if code != ExitOK || !strings.Contains(out, "nothing of kurabe's is here") || !strings.Contains(out, "dropped schema kurabe") {
		t.Fatalf("clean of the empty schema: exit %d\n%s\n%s", code, out, errs)
	}
}
