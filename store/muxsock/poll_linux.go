package muxsock

import (
	"syscall"
	"unsafe"
)

// Poll waits until fd is ready to read (or, with write, to write): ppoll(2)
// on the one descriptor, for at most timeout (nil: no limit). With raw the
// call skips the runtime's system-call bookkeeping, so the calling
// goroutine keeps its processor while it is blocked (a signal ends the
// wait with EINTR). It returns how many descriptors are ready: 0 when the
// time ran out.
func Poll(fd int, write, raw bool, timeout *syscall.Timespec) (int, syscall.Errno) {
	p := struct {
		fd              int32
		events, revents int16
	}{fd: int32(fd), events: 0x1} // POLLIN
	if write {
		p.events = 0x4 // POLLOUT
	}
	// Each call converts its pointers in the call expression itself, so
	// the compiler keeps p and timeout alive and in place for the call.
	var n uintptr
	var e syscall.Errno
	if raw {
		n, _, e = syscall.RawSyscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&p)), 1, uintptr(unsafe.Pointer(timeout)), 0, 0, 0)
	} else {
		n, _, e = syscall.Syscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&p)), 1, uintptr(unsafe.Pointer(timeout)), 0, 0, 0)
	}
	return int(n), e
}
