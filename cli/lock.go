package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"kurabe/store"
)

// storeLocks holds a command's locks on the kurabe namespaces of its
// stores (store.Locker), one per namespace however often the command
// opens a store there (--repeat, --via-http, --vary, one file given
// twice), from before it uses a store until it ends. Two kurabes on one
// namespace would empty and count each other's tables, and each report
// the other's writes as the store's losses.
type storeLocks struct {
	me   store.Holder
	held map[string]io.Closer
}

func newStoreLocks(command string) *storeLocks {
	return &storeLocks{me: store.Me(command), held: map[string]io.Closer{}}
}

// take locks st's namespace unless this command holds it already. Another
// kurabe holding it refuses the command (exit 2) with who holds it. A
// lock that cannot be taken for another reason (a server that cannot be
// reached) is left: the store's own first use fails as it would have.
func (l *storeLocks) take(ctx context.Context, st store.Store, sp store.Spec) error {
	lk, ok := st.(store.Locker)
	if !ok {
		return nil
	}
	name := lk.LockName()
	if name == "" {
		return nil
	}
	if held := l.held[name]; held != nil {
		// The lock's connection is this store's own too, as it is the
		// store's that took it: the command's stores share one.
		if sh, ok := st.(store.LockSharer); ok {
			sh.ShareLock(held)
		}
		return nil
	}
	c, err := lk.Lock(ctx, l.me)
	if errors.Is(err, store.ErrHeld) {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("store %s: %w", sp, err)}
	}
	if err != nil {
		return nil
	}
	l.held[name] = c
	return nil
}

// release lets go of every lock.
func (l *storeLocks) release() {
	for name, c := range l.held {
		c.Close()
		delete(l.held, name)
	}
}
