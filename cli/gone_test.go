package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"kurabe/result"
	"kurabe/store/server"
	"kurabe/store/storetest"
)

// goneRun is a kurabe process whose managed server the test makes go
// away mid-phase.
type goneRun struct {
	cmd    *exec.Cmd
	done   chan error
	out    lockedBuffer // stdout and stderr
	stdout lockedBuffer
	err    lockedBuffer // stderr alone
	tmp    string       // its TMPDIR, which the server can enter
	json   string
}

// startGoneRun starts kurabe with args (its store a managed server) in
// a temporary directory of its own, its result in out.json there. The
// process is killed when ctx ends: a test without the fix must not hang.
func startGoneRun(t *testing.T, ctx context.Context, args ...string) *goneRun {
	t.Helper()
	bin := kurabeBinary(t)
	tmp, err := os.MkdirTemp("", "kurabe-gone-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	os.Chmod(tmp, 0o755) // the server runs as another user when the test is root
	r := &goneRun{tmp: tmp, done: make(chan error, 1), json: filepath.Join(tmp, "out.json")}
	r.cmd = exec.CommandContext(ctx, bin, append(args, "--json", r.json)...)
	r.cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	r.cmd.Stdout, r.cmd.Stderr = multiWriter{&r.out, &r.stdout}, multiWriter{&r.out, &r.err}
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { r.done <- r.cmd.Wait() }()
	return r
}

type multiWriter []*lockedBuffer

func (m multiWriter) Write(b []byte) (int, error) {
	for _, w := range m {
		w.Write(b)
	}
	return len(b), nil
}

// await polls ready until it gives the server's pid (kurabe's child),
// failing the test if kurabe ends first or ctx does.
func (r *goneRun) await(t *testing.T, ctx context.Context, ready func() int) int {
	t.Helper()
	for {
		select {
		case err := <-r.done:
			if strings.Contains(r.out.String(), "apt-get install") {
				storetest.RequireServer(t, fmt.Errorf("%w: %s", server.ErrMissing, r.out.String()))
			}
			t.Fatalf("kurabe ended before its phase ran: %v\n%s", err, r.out.String())
		case <-ctx.Done():
			t.Fatalf("the phase did not begin in time\n%s", r.out.String())
		case <-time.After(20 * time.Millisecond):
		}
		if pid := ready(); pid > 0 {
			return pid
		}
	}
}

// postmasterWriting returns the postmaster's pid once one of its
// backends runs an INSERT (its process title says so): the write phase
// is under way.
func postmasterWriting(tmp string) func() int {
	return func() int {
		files, _ := filepath.Glob(filepath.Join(tmp, "kurabe-*", "1-postgres", "pgdata", "postmaster.pid"))
		if len(files) != 1 {
			return 0
		}
		b, err := os.ReadFile(files[0])
		if err != nil {
			return 0
		}
		pid, _ := strconv.Atoi(strings.SplitN(string(b), "\n", 2)[0])
		for _, c := range childPids(pid) {
			if cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", c)); strings.Contains(string(cmd), "INSERT") {
				return pid
			}
		}
		return 0
	}
}

// mariadbWriting returns mariadbd's pid once the write phase's table
// has rows.
func mariadbWriting(tmp string) func() int {
	return func() int {
		dirs, _ := filepath.Glob(filepath.Join(tmp, "kurabe-*", "1-mariadb"))
		if len(dirs) != 1 {
			return 0
		}
		b, err := os.ReadFile(filepath.Join(dirs[0], "mysqld.pid"))
		if err != nil {
			return 0
		}
		// InnoDB makes the table's file at 64 KiB or more; the first
		// rows written do not grow it at once, so this waits for the
		// table, then a moment for rows.
		if _, err := os.Stat(filepath.Join(dirs[0], "data", "kurabe", "posts.ibd")); err != nil {
			return 0
		}
		time.Sleep(time.Second)
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		return pid
	}
}

func childPids(pid int) []int {
	var out []int
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, t := range tasks {
		b, _ := os.ReadFile(t)
		for _, f := range strings.Fields(string(b)) {
			if c, err := strconv.Atoi(f); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// finish waits for kurabe to exit with code, and reads its result.
func (r *goneRun) finish(t *testing.T, ctx context.Context, code int) *result.Document {
	t.Helper()
	select {
	case err := <-r.done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != code {
			t.Fatalf("exit: %v, want %d\n%s", err, code, r.out.String())
		}
	case <-ctx.Done():
		<-r.done // CommandContext killed it
		t.Fatalf("kurabe did not finish in time\n%s", r.out.String())
	}
	doc, err := result.ReadFile(r.json)
	if err != nil {
		t.Fatalf("no result: %v\n%s", err, r.out.String())
	}
	return doc
}

// TestManagedServerDeathSkipsLaterPhases: a managed server killed
// mid-phase (kill -9 of kurabe's child, as the OOM killer would) is
// named as dead once, on stderr and under the table, with how it ended
// and its log's last lines; the phase stops, the store's later phases
// are skipped for that reason, and the run fails. Before, the clients
// tried to reopen their sessions until the phase's end, and the next
// phase failed the store on connecting, with nothing saying the server
// had died.
func TestManagedServerDeathSkipsLaterPhases(t *testing.T) {
	for _, tc := range []struct {
		driver string
		lang   string
		says   string // on stderr and under the table
		ready  func(tmp string) func() int
	}{
		{"postgres", "en", "postgres: the managed server died during write: killed by signal 9 (SIGKILL", postmasterWriting},
		{"mariadb", "ja", "mariadb: 管理サーバーが write の実行中に終了しました: シグナル 9 で強制終了 (SIGKILL", mariadbWriting},
	} {
		t.Run(tc.driver, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			// A long phase: before, the run went on for all of it.
			r := startGoneRun(t, ctx, "run", "--store", tc.driver+":managed", "--ops", "write,read-all,mix", "-d", "60s", "-c", "2", "-q", "--lang", tc.lang)
			pid := r.await(t, ctx, tc.ready(r.tmp))
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			doc := r.finish(t, ctx, ExitFailed)
			if n := strings.Count(r.err.String(), tc.says); n != 1 {
				t.Errorf("stderr says %q %d times, want once:\n%s", tc.says, n, r.err.String())
			}
			if !strings.Contains(r.stdout.String(), tc.says) {
				t.Errorf("the notes do not say %q:\n%s", tc.says, r.out.String())
			}
			ps := doc.Stores[0].Phases
			if len(ps) != 3 {
				t.Fatalf("%d phases, want write and the two skipped: %+v", len(ps), ps)
			}
			g := ps[0].Gone
			if g == nil || !g.Died || g.Signal != 9 || g.SignalName != "SIGKILL" || len(g.LogTail) == 0 {
				t.Errorf("write's gone: %+v, want died of signal 9 with the log's last lines", g)
			}
			for _, p := range ps[1:] {
				if !strings.Contains(p.Skipped, "the managed server died during write") || p.Ops != 0 || p.Errors != 0 {
					t.Errorf("%s: skipped %q, ops %d, errors %d; want skipped for the death", p.Op, p.Skipped, p.Ops, p.Errors)
				}
			}
			if doc.Stores[0].Error != "" {
				t.Errorf("store error %q: the death is the reason, not a failure to connect", doc.Stores[0].Error)
			}
		})
	}
}

// TestStoppedServerSkipsLaterPhases: a server that stops answering mid
// phase (SIGSTOP) has the phase's operations cut off after --grace; a
// new connection that gets no answer within --grace either shows it is
// still gone, and the store's later phases are skipped for that reason,
// rather than each fail after the connect timeout. Before, the next
// phase failed the store on connecting.
func TestStoppedServerSkipsLaterPhases(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	r := startGoneRun(t, ctx, "run", "--store", "postgres:managed", "--ops", "write,read-all,mix", "-d", "2s", "--grace", "1s", "-c", "2", "-q")
	pid := r.await(t, ctx, postmasterWriting(r.tmp))
	// The whole server: each of PostgreSQL's processes runs in a session
	// of its own.
	stopped := append([]int{pid}, childPids(pid)...)
	t.Cleanup(func() {
		for _, p := range stopped {
			syscall.Kill(p, syscall.SIGCONT)
		}
	})
	for _, p := range stopped {
		syscall.Kill(p, syscall.SIGSTOP)
	}
	doc := r.finish(t, ctx, ExitFailed)
	says := "postgres: the server stopped answering during write ("
	if n := strings.Count(r.err.String(), says); n != 1 {
		t.Errorf("stderr says %q %d times, want once:\n%s", says, n, r.err.String())
	}
	ps := doc.Stores[0].Phases
	if len(ps) != 3 {
		t.Fatalf("%d phases, want write and the two skipped: %+v\n%s", len(ps), ps, r.out.String())
	}
	if g := ps[0].Gone; g == nil || g.Died || g.Check == "" || ps[0].CutOff == 0 {
		t.Errorf("write: gone %+v, cut off %d; want stopped answering, with the check's error", g, ps[0].CutOff)
	}
	want := fmt.Sprintf("the server stopped answering during write (%d operations cut off after --grace 1s)", ps[0].CutOff)
	for _, p := range ps[1:] {
		if p.Skipped != want {
			t.Errorf("%s: skipped %q, want %q", p.Op, p.Skipped, want)
		}
	}
	if doc.Stores[0].Error != "" {
		t.Errorf("store error %q: the stopped server is the reason", doc.Stores[0].Error)
	}
}
