package storetest

import (
	"errors"
	"syscall"

	"kurabe/store/muxsock"
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
	ts := syscall.Timespec{Sec: 30}
	for {
		n, e := muxsock.Poll(fd, write, false, &ts)
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
