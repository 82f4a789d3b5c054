package muxsock

import (
	"syscall"
	"unsafe"
)

// read and write go to the kernel without the runtime's system-call
// bookkeeping (entersyscall), which would let the scheduler hand the
// processor to another thread: the descriptor is non-blocking (Go sets
// every socket so), so neither call can block.
func read(fd int, p []byte) (int, error) {
	n, _, e := syscall.RawSyscall(syscall.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

func write(fd int, p []byte) (int, error) {
	n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}
