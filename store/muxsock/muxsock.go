// Package muxsock reads and writes a socket by its file descriptor and
// hands every wait to a waiter (the engine's event loop) instead of Go's
// network poller, for the wire drivers' multiplexed mode
// (store.Multiplexed).
//
// Why: a goroutine parked by the poller costs a round of the runtime's
// thread wake-ups for every reply, about 5 µs of CPU here, more than the
// rest of a query's client work; one thread serving every connection, as
// pgbench does, wakes once for all the replies that are in.
package muxsock

import (
	"io"
	"net"
	"os"
	"syscall"
)

// Waiter parks the caller until fd is ready (store.Waiter).
type Waiter interface {
	Wait(fd int, write bool) error
}

// Sock is a connected socket's descriptor with a waiter. It is used from
// one coroutine at a time, and owns the descriptor until Release.
type Sock struct {
	fd    int
	w     Waiter
	fresh bool // a request went out and nothing was read since
}

// Take moves nc's socket out of Go's network poller and returns it as a
// Sock with w. The poller must let go of it: while its epoll set holds
// the socket, every reply would also wake one of the runtime's idle
// threads, the very cost this package is for. So Take duplicates the
// descriptor and closes nc, which takes the socket off the poller (the
// socket itself stays open on the duplicate). It returns false, with nc
// untouched, when nc is not a plain TCP or Unix socket (TLS, a wrapper).
// Release gives the socket back as a new net.Conn.
func Take(nc net.Conn, w Waiter) (*Sock, bool) {
	var sc syscall.Conn
	switch c := nc.(type) {
	case *net.TCPConn:
		sc = c
	case *net.UnixConn:
		sc = c
	default:
		return nil, false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil, false
	}
	fd := -1
	var derr error
	if err := rc.Control(func(f uintptr) { fd, derr = dup(int(f)) }); err != nil || derr != nil {
		return nil, false
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return nil, false
	}
	nc.Close()
	return &Sock{fd: fd, w: w}, true
}

// Release returns the socket to Go's poller as a net.Conn and closes the
// Sock's descriptor. On an error the socket is closed.
func (s *Sock) Release() (net.Conn, error) {
	f := os.NewFile(uintptr(s.fd), "socket")
	s.fd = -1
	nc, err := net.FileConn(f) // a duplicate, registered with the poller
	f.Close()
	return nc, err
}

// Shutdown ends the connection both ways (shutdown(2)), for a connection
// found broken while multiplexed: the server sees it end at once (and
// drops what the session held, such as a transaction's locks), while the
// descriptor stays open until Release, so its number is not reused while
// the loop may still watch it.
func (s *Sock) Shutdown() {
	if s.fd >= 0 {
		syscall.Shutdown(s.fd, syscall.SHUT_RDWR)
	}
}

// dup duplicates fd with close-on-exec set.
func dup(fd int) (int, error) {
	nfd, _, e := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_DUPFD_CLOEXEC, 0)
	if e != 0 {
		return -1, e
	}
	return int(nfd), nil
}

// Read reads what is there, waiting when nothing is. Right after a write
// it waits first: the reply cannot have come yet, and the read that would
// find nothing is a system call saved per request.
func (s *Sock) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if s.fresh {
		s.fresh = false
		if err := s.w.Wait(s.fd, false); err != nil {
			return 0, err
		}
	}
	for {
		n, err := read(s.fd, p)
		switch err {
		case nil:
			if n == 0 {
				return 0, io.EOF
			}
			return n, nil
		case syscall.EINTR:
		case syscall.EAGAIN:
			if err := s.w.Wait(s.fd, false); err != nil {
				return 0, err
			}
		default:
			return 0, err
		}
	}
}

// Write writes all of p, waiting while the socket's buffer is full.
func (s *Sock) Write(p []byte) (int, error) {
	w := 0
	for w < len(p) {
		n, err := write(s.fd, p[w:])
		switch err {
		case nil:
			if n == 0 {
				return w, io.ErrShortWrite
			}
			w += n
		case syscall.EINTR:
		case syscall.EAGAIN:
			if err := s.w.Wait(s.fd, true); err != nil {
				return w, err
			}
		default:
			return w, err
		}
	}
	s.fresh = true
	return w, nil
}
