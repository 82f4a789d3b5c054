//go:build !linux

package engine

import (
	"runtime"
	"sync/atomic"

	"kurabe/store"
)

// Without epoll and a raw poll(2), clients always run in goroutines of
// their own (IOPoller).
type muxClient struct{}

func (*muxClient) pass()                {}
func (*muxClient) await(f func())       { f() }
func (*muxClient) forget()              {}
func (*muxClient) Wait(int, bool) error { return nil }

type threadWaiter struct{ cut *atomic.Bool }

func (threadWaiter) Wait(int, bool) error { return nil }

func newMuxClients(n int) []*muxClient { return make([]*muxClient, n) }

func multiplex([]*worker, func(int) store.Waiter) bool { return false }

func unmultiplex([]*worker) {}

func runThreads(int, func(int)) { panic("engine: clients on threads need Linux") }

func baseProcs() int { return runtime.GOMAXPROCS(0) }

func runMux([]*muxClient, *atomic.Bool, *atomic.Bool, func(int)) error { return nil }
