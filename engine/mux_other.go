//go:build !linux

package engine

import "sync/atomic"

// Without epoll, clients always run in goroutines of their own.
type muxClient struct{}

func (*muxClient) pass() {}

func multiplex([]*worker) ([]*muxClient, bool) { return nil, false }

func unmultiplex([]*worker) {}

func runMux([]*muxClient, *atomic.Bool, func(int)) error { return nil }
