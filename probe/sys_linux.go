package probe

import (
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// oDirect opens a file bypassing the page cache.
const oDirect = unix.O_DIRECT

// dropCache asks the kernel to forget f's cached pages (which must be
// clean: written and synced), so the next read goes to the disk.
func dropCache(f *os.File) error {
	return unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
}

// fsInfo returns the type of the filesystem holding dir and the bytes
// free to an unprivileged user there.
func fsInfo(dir string) (fsType string, free int64, err error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return "", 0, err
	}
	names := map[int64]string{
		0xEF53: "ext4", 0x01021994: "tmpfs", 0x58465342: "xfs", 0x9123683E: "btrfs",
		0x794c7630: "overlayfs", 0x6969: "nfs", 0x2FC12FC1: "zfs", 0x65735546: "fuse",
		0xF2F52010: "f2fs", 0x4d44: "vfat", 0x5346544e: "ntfs",
	}
	name, ok := names[int64(st.Type)]
	if !ok {
		name = "0x" + strconv.FormatInt(int64(st.Type), 16)
	}
	return name, int64(st.Bavail) * int64(st.Bsize), nil
}

// deviceOf returns the device number of the filesystem holding dir, 0
// when it cannot be read.
func deviceOf(dir string) uint64 {
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		return 0
	}
	return st.Dev
}

// availableMemory is MemAvailable of /proc/meminfo in bytes (memory the
// page cache can use without swapping), 0 when unknown.
func availableMemory() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "MemAvailable:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
