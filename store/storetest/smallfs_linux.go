package storetest

import (
	"os"
	"strconv"
	"syscall"
	"testing"
)

// SmallFS mounts a tmpfs of size bytes on a fresh directory and returns
// it, unmounted when the test ends: a real file system that fills, for
// tests of what a store does when a write finds no space. It skips the
// test where mounting is not permitted (not root, or in a container
// without the capability).
func SmallFS(t testing.TB, size int64) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+strconv.FormatInt(size, 10)+",mode=755"); err != nil {
		t.Skipf("cannot mount a %d-byte tmpfs to fill (%v): this test needs root with CAP_SYS_ADMIN", size, err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmounting the test's tmpfs %s: %v", dir, err)
		}
	})
	return dir
}

// Fill writes a file of zeros into dir until the file system is full
// except for about leave bytes, and returns its path: removing it makes
// room again.
func Fill(t testing.TB, dir string, leave int64) string {
	t.Helper()
	var fs syscall.Statfs_t
	if err := syscall.Statfs(dir, &fs); err != nil {
		t.Fatal(err)
	}
	free := int64(fs.Bavail) * int64(fs.Bsize)
	p := dir + "/filler"
	if err := os.WriteFile(p, make([]byte, max(free-leave, 0)), 0o644); err != nil {
		t.Fatalf("filling %s: %v", dir, err)
	}
	return p
}
