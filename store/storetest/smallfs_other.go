//go:build !linux

package storetest

import "testing"

// SmallFS needs Linux (a tmpfs mount); elsewhere it skips the test.
func SmallFS(t testing.TB, size int64) string {
	t.Skip("a small tmpfs to fill needs Linux")
	return ""
}

// Fill is SmallFS's companion; elsewhere it skips the test.
func Fill(t testing.TB, dir string, leave int64) string {
	t.Skip("a small tmpfs to fill needs Linux")
	return ""
}
