package storetest

import (
	"context"
	"errors"
	"strings"
	"testing"

	"kurabe/store"
)

// RunLock checks a store's lock on its namespace (store.Locker) with two
// stores that open opens on one namespace, as two kurabes would: while
// the first holds the lock the second is refused with a *store.HeldError
// whose message contains each of want, and once the first lets go the
// second takes it.
func RunLock(t *testing.T, open func(t *testing.T) store.Store, want ...string) {
	t.Helper()
	ctx := context.Background()
	first, second := open(t), open(t)
	l1, ok1 := first.(store.Locker)
	l2, ok2 := second.(store.Locker)
	if !ok1 || !ok2 {
		t.Fatalf("%T is not a store.Locker", first)
	}
	if l1.LockName() == "" || l1.LockName() != l2.LockName() {
		t.Fatalf("LockName: %q and %q, want one name, not empty", l1.LockName(), l2.LockName())
	}
	held, err := l1.Lock(ctx, store.Me("kurabe test"))
	if err != nil {
		t.Fatalf("first Lock: %v", err)
	}
	_, err = l2.Lock(ctx, store.Me("kurabe other"))
	var he *store.HeldError
	if !errors.As(err, &he) || !errors.Is(err, store.ErrHeld) {
		held.Close()
		t.Fatalf("second Lock while the first holds it: %v, want a *store.HeldError", err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("refusal %q does not contain %q", err, w)
		}
	}
	if err := held.Close(); err != nil {
		t.Fatalf("closing the first lock: %v", err)
	}
	again, err := l2.Lock(ctx, store.Me("kurabe other"))
	if err != nil {
		t.Fatalf("second Lock after the first let go: %v", err)
	}
	again.Close()
}
