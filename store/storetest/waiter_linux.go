package storetest

import (
	"errors"
	"syscall"
	"unsafe"
)

// PollWaiter is a store.Waiter for one multiplexed session at a time: it
// blocks in poll(2) until the socket is ready, at most 30 s, and counts
// its waits.
type PollWaiter struct {
	Waits int
}

// Wait blocks until fd is readable (or writable, with write).
func (w *PollWaiter) Wait(fd int, write bool) error {
	w.Waits++
	p := struct {
		fd              int32
		events, revents int16
	}{fd: int32(fd), events: 0x1} // POLLIN
	if write {
		p.events = 0x4 // POLLOUT
	}
	ts := syscall.Timespec{Sec: 30}
	for {
		n, _, e := syscall.Syscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&p)), 1, uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
		switch {
		case e == syscall.EINTR:
			continue
		case e != 0:
			return e
		case n == 0:
			return errors.New("storetest: the socket was not ready within 30 s")
		}
		return nil
	}
}
