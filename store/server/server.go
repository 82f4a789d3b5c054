// Package server runs throwaway database servers for managed stores: it
// finds the installed server programs, prepares a data directory owned by
// an unprivileged user when kurabe runs as root (PostgreSQL and MariaDB
// refuse to run as root), starts the server as an ordinary child process on
// a free loopback port, waits until it accepts connections and stops it.
//
// Servers write their output to a log file in their directory; errors quote
// its last lines, so a server that would not start says why. They do not
// name the file, which is removed with the directory unless kurabe keeps
// it: the caller, which knows, names it when it stays.
package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"kurabe/store"
)

// Find returns the path of a server program: from PATH, or from one of the
// directories given (glob patterns allowed, e.g. /usr/lib/postgresql/*/bin).
// When it is nowhere, the error names the Debian package that has it.
func Find(name, debianPackage string, dirs ...string) (string, error) {
	for _, pattern := range dirs {
		matches, _ := filepath.Glob(filepath.Join(pattern, name))
		// The newest version sorts last.
		for i := len(matches) - 1; i >= 0; i-- {
			if fi, err := os.Stat(matches[i]); err == nil && fi.Mode()&0o111 != 0 {
				return matches[i], nil
			}
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("%s not found (%w); install it with: apt-get install %s", name, ErrMissing, debianPackage)
}

// User is who a server runs as. A nil *User means kurabe's own user.
type User struct {
	Name     string
	Uid, Gid uint32
}

// Unprivileged returns the first of the named users that exists when
// kurabe runs as root, and nil (run as ourselves) otherwise.
func Unprivileged(names ...string) (*User, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	for _, n := range names {
		u, err := user.Lookup(n)
		if err != nil {
			continue
		}
		uid, _ := strconv.ParseUint(u.Uid, 10, 32)
		gid, _ := strconv.ParseUint(u.Gid, 10, 32)
		return &User{Name: n, Uid: uint32(uid), Gid: uint32(gid)}, nil
	}
	return nil, fmt.Errorf("running as root, and none of the users %s exists to run the server as; create one (useradd -r %s) or run kurabe as an ordinary user", strings.Join(names, ", "), names[0])
}

// PrepareDir creates dir for the server and hands it to u. Every directory
// above it must be reachable by u; if one is not, the error says which.
func PrepareDir(dir string, u *User) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("cannot create %s: %v", dir, err)
	}
	if u == nil {
		return nil
	}
	abs, _ := filepath.Abs(dir)
	for p := filepath.Dir(abs); ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		st := fi.Sys().(*syscall.Stat_t)
		if fi.Mode().Perm()&0o001 == 0 && st.Uid != u.Uid {
			return fmt.Errorf("the server runs as user %s, who cannot enter %s; give --dir under a directory others can enter, such as /tmp or /var/tmp", u.Name, p)
		}
		if p == "/" {
			break
		}
	}
	return filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, int(u.Uid), int(u.Gid))
	})
}

// Chown hands path (a file kurabe wrote for the server) to u.
func Chown(path string, u *User) error {
	if u == nil {
		return nil
	}
	return os.Chown(path, int(u.Uid), int(u.Gid))
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("no free loopback port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func command(ctx context.Context, u *User, prog string, args []string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Env = append(os.Environ(), "LC_ALL=C", "LANG=C")
	// Its own process group keeps the terminal's Ctrl-C to kurabe, which
	// stops the server in order. The parent-death signal ends it should
	// kurabe die without stopping it (kill -9, the OOM killer); the kernel
	// sends it when the thread that started the program ends, and Go ends
	// a thread only for a goroutine that exits locked to it, which none
	// that starts servers does.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if u != nil {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: u.Uid, Gid: u.Gid}
		cmd.Env = append(cmd.Env, "HOME=/tmp", "USER="+u.Name)
	}
	return cmd
}

// live holds the process groups of the programs kurabe started and has
// not yet waited for: each runs in a group of its own (Setpgid), so that a
// Ctrl-C at the terminal reaches kurabe alone, which stops them in order;
// KillAll ends them when kurabe must exit at once.
var live sync.Map // pgid -> struct{}, or the *Process of a server

// start starts cmd and records its process group.
func start(cmd *exec.Cmd) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	live.Store(cmd.Process.Pid, struct{}{})
	return nil
}

// wait waits for cmd and forgets its process group.
func wait(cmd *exec.Cmd) error {
	err := cmd.Wait()
	live.Delete(cmd.Process.Pid)
	return err
}

// KillAll kills the process groups of every program kurabe started and
// has not waited for (servers, and initdb or mariadb-install-db still at
// work), and waits up to timeout for them to be gone, so that their
// directories can be removed. It returns how many groups it killed.
func KillAll(timeout time.Duration) int {
	var groups []int
	live.Range(func(k, v any) bool {
		groups = append(groups, k.(int))
		if p, ok := v.(*Process); ok {
			p.Stopping()
		}
		syscall.Kill(-k.(int), syscall.SIGKILL)
		return true
	})
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		gone := true
		for _, g := range groups {
			if _, ok := live.Load(g); ok {
				gone = false // its waiter has not reaped it yet
			}
		}
		if gone {
			break
		}
	}
	return len(groups)
}

// Run runs a one-off program (initdb, mariadb-install-db) as u and returns
// its output in the error when it fails.
func Run(ctx context.Context, u *User, prog string, args ...string) error {
	if out, err := Output(ctx, u, prog, args...); err != nil {
		return fmt.Errorf("%s failed: %v\n%s", filepath.Base(prog), err, tail(out, 15))
	}
	return nil
}

// Output runs a one-off program as u that answers a question (postgres
// -C, mariadbd --help) and returns what it wrote to stdout and stderr,
// with its exit error, which may be the answer.
func Output(ctx context.Context, u *User, prog string, args ...string) ([]byte, error) {
	cmd := command(ctx, u, prog, args)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := start(cmd)
	if err == nil {
		err = wait(cmd)
	}
	return out.Bytes(), err
}

// Process is a running server.
type Process struct {
	cmd  *exec.Cmd
	Log  string
	done chan struct{}
	err  error
	// died is closed when the server exits without having been asked to
	// (Stop): killed (kill -9, the OOM killer) or crashed.
	died     chan struct{}
	stopping atomic.Bool
}

// Start starts a server as u with its output going to logPath.
func Start(u *User, logPath, prog string, args ...string) (*Process, error) {
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer log.Close()
	cmd := command(context.Background(), u, prog, args)
	cmd.Stdout, cmd.Stderr = log, log
	if err := start(cmd); err != nil {
		return nil, fmt.Errorf("cannot start %s: %v", filepath.Base(prog), err)
	}
	p := &Process{cmd: cmd, Log: logPath, done: make(chan struct{}), died: make(chan struct{})}
	live.Store(cmd.Process.Pid, p) // KillAll's kill is no death
	go func() {
		p.err = wait(cmd)
		close(p.done)
		if !p.stopping.Load() {
			close(p.died)
		}
	}()
	return p, nil
}

// Pid returns the server's process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// WaitReady calls try until it succeeds, the server exits, or timeout
// passes. The error quotes the end of the server's log, without naming
// the file (see the package comment).
func (p *Process) WaitReady(ctx context.Context, timeout time.Duration, try func(ctx context.Context) error) error {
	deadline := time.Now().Add(timeout)
	var last error
	for {
		select {
		case <-p.done:
			return fmt.Errorf("%s exited while starting (%v); its log ends:\n%s", filepath.Base(p.cmd.Path), p.err, p.LogTail(15))
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		tctx, cancel := context.WithTimeout(ctx, time.Second)
		last = try(tctx)
		cancel()
		if last == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not accept connections within %v (last error: %v); its log ends:\n%s", filepath.Base(p.cmd.Path), timeout, last, p.LogTail(15))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Stop asks the server to shut down (SIGTERM), and kills it and its process
// group if it has not exited within timeout.
func (p *Process) Stop(timeout time.Duration) error {
	p.Stopping()
	select {
	case <-p.done:
		return nil
	default:
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	// A server stopped with SIGSTOP would hold the signal until killed:
	// it may go on to shut down.
	wake(p.cmd.Process.Pid)
	select {
	case <-p.done:
		return nil
	case <-time.After(timeout):
		syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
		return fmt.Errorf("%s did not stop within %v and was killed", filepath.Base(p.cmd.Path), timeout)
	}
}

// Stopping says that kurabe is about to stop the server (a signal of its
// own, before Stop), so that its exit is not taken for a death.
func (p *Process) Stopping() { p.stopping.Store(true) }

// Died returns a channel that is closed when the server exits without
// having been asked to (Stop, Stopping): killed or crashed.
func (p *Process) Died() <-chan struct{} { return p.died }

// ExitState says how the server ended, once it has exited (ok): the
// signal that killed it (0 when it exited by itself), its exit status
// otherwise, and whether it dumped core.
func (p *Process) ExitState() (sig syscall.Signal, status int, core, ok bool) {
	if !p.Exited() || p.cmd.ProcessState == nil {
		return 0, 0, false, false
	}
	st := p.cmd.ProcessState
	if ws, isWS := st.Sys().(syscall.WaitStatus); isWS && ws.Signaled() {
		return ws.Signal(), 0, ws.CoreDump(), true
	}
	return 0, st.ExitCode(), false, true
}

// SignalName is a signal's name, SIGKILL for 9; "" for one it does not
// know.
func SignalName(sig syscall.Signal) string { return unix.SignalName(sig) }

// wake continues a server stopped with SIGSTOP: its process group, and
// its children one by one, since PostgreSQL's each run in a session of
// their own.
func wake(pid int) {
	syscall.Kill(-pid, syscall.SIGCONT)
	for _, c := range children(pid) {
		syscall.Kill(c, syscall.SIGCONT)
	}
}

// children lists the processes whose parent is pid.
func children(pid int) []int {
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

// Death is how p ended when it died without being asked to (Died is
// closed), for driver's store.Death; nil while it runs. log names the
// server's log file in it, "" when the file goes with kurabe's temporary
// directory.
func (p *Process) Death(driver, log string) *store.Death {
	select {
	case <-p.Died():
	default:
		return nil
	}
	sig, status, core, _ := p.ExitState()
	return &store.Death{Server: driver, Signal: int(sig), SignalName: SignalName(sig), Status: status, CoreDumped: core,
		Log: log, LogTail: p.LogLines(store.DeathTail)}
}

// Exited reports whether the server has exited.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// LogLines returns the last n lines of the server's log, as they are.
func (p *Process) LogLines(n int) []string {
	b, _ := os.ReadFile(p.Log)
	b = bytes.TrimRight(b, "\n")
	if len(b) == 0 {
		return nil
	}
	lines := strings.Split(string(b), "\n")
	return lines[max(len(lines)-n, 0):]
}

// LogTail returns the last n lines of the server's log.
func (p *Process) LogTail(n int) string {
	b, _ := os.ReadFile(p.Log)
	return tail(b, n)
}

func tail(b []byte, n int) string {
	lines := bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "  " + string(bytes.Join(lines, []byte("\n  ")))
}

// DirSize returns the bytes allocated to the files under dir.
func DirSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if fi, err := d.Info(); err == nil {
			if st, ok := fi.Sys().(*syscall.Stat_t); ok {
				n += st.Blocks * 512
			} else {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// ErrMissing marks a server program that is not installed, so tests can
// skip (or fail, in CI) with the install hint.
var ErrMissing = errors.New("server not installed")
