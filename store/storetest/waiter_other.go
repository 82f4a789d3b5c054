//go:build !linux

package storetest

import "errors"

// PollWaiter: the event loop is Linux's (epoll), and so is this test
// waiter; the Multiplexed subtest skips elsewhere.
type PollWaiter struct {
	Waits int
}

func (w *PollWaiter) Wait(fd int, write bool) error {
	return errors.New("storetest: PollWaiter needs Linux")
}
