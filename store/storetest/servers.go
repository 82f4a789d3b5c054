package storetest

import (
	"errors"
	"os"
	"testing"

	"kurabe/store/server"
)

// RequireServer skips the test when err says a server program is not
// installed, or fails it when KURABE_REQUIRE_SERVERS is set (as the test
// command sets it after installing the servers), so CI never skips quietly.
func RequireServer(t testing.TB, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if errors.Is(err, server.ErrMissing) && os.Getenv("KURABE_REQUIRE_SERVERS") == "" {
		t.Skipf("skipped: %v (scripts/test installs it)", err)
	}
	t.Fatal(err)
}
