package httpload

import (
	"syscall"
	"unsafe"
)

const leanSupported = true

// rawSend and rawRead are send(2) and read(2) on a non-blocking socket,
// as raw system calls: they never block, so the runtime need not hand the
// processor to another thread around them. MSG_NOSIGNAL turns a write to a
// closed connection into EPIPE rather than a signal.
func rawSend(fd uintptr, b []byte) (int, syscall.Errno) {
	n, _, e := syscall.RawSyscall6(syscall.SYS_SENDTO, fd, uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)), syscall.MSG_NOSIGNAL, 0, 0)
	return int(n), e
}

func rawRead(fd uintptr, b []byte) (int, syscall.Errno) {
	n, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)))
	return int(n), e
}

// rawPeek reports whether an idle connection has something to read: the
// end of the stream, a reset, or bytes the server sent unasked. It reads
// nothing (MSG_PEEK) and never waits (MSG_DONTWAIT).
func rawPeek(fd uintptr) bool {
	var b [1]byte
	_, _, e := syscall.RawSyscall6(syscall.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(&b[0])), 1, syscall.MSG_PEEK|syscall.MSG_DONTWAIT, 0, 0)
	return e != syscall.EAGAIN && e != syscall.EINTR
}
