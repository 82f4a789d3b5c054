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

// RunLockLost checks what a store whose lock is held by a server
// connection (store.LockSharer) does when the server ends that
// connection: kill ends the connection that holds the lock, and returns
// once the server has let the lock go. The store takes the lock again at
// its next use of the connection (here a count), so a second kurabe is
// still refused; should the second kurabe take it first, the store's
// next use fails, saying the lock was lost to it, and so does every use
// after, though the second let it go again.
func RunLockLost(t *testing.T, open func(t *testing.T) store.Store, kill func(t *testing.T)) {
	t.Helper()
	ctx := context.Background()
	first, second := open(t), open(t)
	held, err := first.(store.Locker).Lock(ctx, store.Me("kurabe test"))
	if err != nil {
		t.Fatalf("first Lock: %v", err)
	}
	defer held.Close()
	tb := Table()
	if err := first.Setup(ctx, []*store.Table{tb}); err != nil {
		t.Fatal(err)
	}
	kill(t)
	if _, err := first.Count(ctx, tb); err != nil {
		t.Fatalf("count after the server ended the lock's connection: %v, want the lock taken again and the count made", err)
	}
	if l, err := second.(store.Locker).Lock(ctx, store.Me("kurabe other")); !errors.Is(err, store.ErrHeld) {
		if l != nil {
			l.Close()
		}
		t.Fatalf("second Lock after the first took its lock again: %v, want it refused", err)
	}
	kill(t)
	other, err := second.(store.Locker).Lock(ctx, store.Me("kurabe other"))
	if err != nil {
		t.Fatalf("second Lock once the first's connection was ended: %v", err)
	}
	_, err = first.Count(ctx, tb)
	if !errors.Is(err, store.ErrHeld) || !strings.Contains(err.Error(), "was lost") {
		t.Errorf("count after another kurabe took the lost lock: %v, want it refused, saying the lock was lost to it", err)
	}
	other.Close()
	if _, err := first.Count(ctx, tb); !errors.Is(err, store.ErrHeld) {
		t.Errorf("count after the other let go again: %v, want it still refused (the tables may have been the other's)", err)
	}
}
