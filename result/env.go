package result

import (
	"bufio"
	"kurabe/probe"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
)

// Environment is the machine a run happened on.
type Environment struct {
	OS          string            `json:"os"`
	Kernel      string            `json:"kernel,omitempty"`
	CPU         string            `json:"cpu,omitempty"`
	Cores       int               `json:"cores"`
	MemoryBytes int64             `json:"memory_bytes,omitempty"`
	GoVersion   string            `json:"go_version"`
	Hostname    string            `json:"hostname,omitempty"`
	Filesystems map[string]string `json:"filesystems,omitempty"` // data directory -> filesystem type
	Probe       *probe.Result     `json:"disk_probe,omitempty"`  // kurabe probe's figures, when given
	// ProbeElsewhere is set when a directory of the stores is not on the
	// filesystem the probe measured (another type, or another device):
	// the probe's ceiling cannot judge those stores.
	ProbeElsewhere *OtherDisk `json:"disk_probe_elsewhere,omitempty"`
}

// OtherDisk is a directory of the stores that is not on the probed
// filesystem, and its filesystem's type.
type OtherDisk struct {
	Dir        string `json:"dir"`
	Filesystem string `json:"filesystem"`
}

// FsyncsPerSec is the disk's rate of fsync'd appends, 0 when not probed
// or when the probe was of another filesystem than the stores'.
func (e Environment) FsyncsPerSec() float64 {
	if e.Probe == nil || e.ProbeElsewhere != nil {
		return 0
	}
	return e.Probe.FsyncsPerSec
}

// CheckProbe sets ProbeElsewhere to the first of dirs (the stores'
// directories) that is not on the filesystem the probe measured: of
// another type (a probe of tmpfs, a store on ext4), or on another device
// (two ext4 disks). A probe without a device number (made before kurabe
// recorded one) is compared by its directory's device, when that still
// exists.
func (e *Environment) CheckProbe(dirs []string) {
	if e.Probe == nil {
		return
	}
	probeDev := e.Probe.Device
	if probeDev == 0 {
		if _, err := os.Stat(e.Probe.Dir); err == nil {
			probeDev = deviceOf(e.Probe.Dir)
		}
	}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		fs, dev := fsType(d), deviceOf(d)
		if fs != e.Probe.Filesystem || probeDev != 0 && dev != 0 && dev != probeDev {
			e.ProbeElsewhere = &OtherDisk{Dir: d, Filesystem: fs}
			return
		}
	}
}

// deviceOf is the device number of the filesystem holding dir or, when
// dir does not exist yet, its nearest existing parent; 0 when unknown.
func deviceOf(dir string) uint64 {
	for d := dir; ; {
		var st syscall.Stat_t
		if err := syscall.Stat(d, &st); err == nil {
			return uint64(st.Dev)
		}
		parent := d[:max(strings.LastIndexByte(d, '/'), 0)]
		if parent == d || parent == "" {
			return 0
		}
		d = parent
	}
}

// CollectEnv reads the environment, and the filesystem type of each dir.
func CollectEnv(dirs ...string) Environment {
	e := Environment{OS: runtime.GOOS + "/" + runtime.GOARCH, Cores: runtime.NumCPU(), GoVersion: runtime.Version()}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		e.Kernel = strings.TrimSpace(string(b))
	}
	e.CPU = procField("/proc/cpuinfo", "model name")
	if m := procField("/proc/meminfo", "MemTotal"); m != "" {
		kb, _ := strconv.ParseInt(strings.TrimSuffix(m, " kB"), 10, 64)
		e.MemoryBytes = kb * 1024
	}
	e.Hostname, _ = os.Hostname()
	for _, d := range dirs {
		if d == "" {
			continue
		}
		if e.Filesystems == nil {
			e.Filesystems = map[string]string{}
		}
		e.Filesystems[d] = fsType(d)
	}
	return e
}

func procField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// fsType names the filesystem holding dir (or its nearest existing parent).
func fsType(dir string) string {
	var st syscall.Statfs_t
	for d := dir; ; {
		if err := syscall.Statfs(d, &st); err == nil {
			break
		}
		parent := d[:max(strings.LastIndexByte(d, '/'), 0)]
		if parent == d || parent == "" {
			return "unknown"
		}
		d = parent
	}
	names := map[int64]string{
		0xEF53: "ext4", 0x01021994: "tmpfs", 0x58465342: "xfs", 0x9123683E: "btrfs",
		0x794c7630: "overlayfs", 0x6969: "nfs", 0x2FC12FC1: "zfs", 0x65735546: "fuse",
		0xF2F52010: "f2fs", 0x4d44: "vfat", 0x5346544e: "ntfs",
	}
	if n, ok := names[int64(st.Type)]; ok {
		return n
	}
	return "0x" + strconv.FormatInt(int64(st.Type), 16)
}
