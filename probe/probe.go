// Package probe measures the disk under a directory, the figures a data
// store's speed is bounded by: sequential write and read in MB/s (10^6
// bytes), and fsync'd 4 KB appends per second, the ceiling of any store
// that makes each commit durable with one fsync (a store that syncs k
// times per commit reaches at most 1/k of it).
//
// Each measurement runs for a bounded time (Duration, 3 s by default), on
// files it creates in the directory (.kurabe-probe-*) and removes before
// returning, whatever happens.
//
// Trade-offs:
//
//   - Sequential I/O bypasses the page cache with O_DIRECT in 1 MiB
//     aligned blocks when the filesystem allows it. When it refuses (tmpfs,
//     some network and FUSE filesystems, or --cached), the write goes
//     through the cache and is synced each time the file is full, before
//     it is written over, and at the end, all inside the timed part (else
//     a small file rewritten in the cache would give the cache's speed);
//     before reading, the file's clean pages are dropped with
//     posix_fadvise, which the kernel may not take in full: when the file
//     fits in the memory available, the note says the read figure may be
//     the cache's. Result.Direct and Result.Note say which happened.
//   - The written data is random, so a device or filesystem that compresses
//     or deduplicates cannot flatter the write.
//   - The sequential file is at most MaxBytes (1 GiB) and at most a quarter
//     of the free space; a disk that fills it before the time is up goes on
//     writing it again from the start (overwriting allocated blocks, which
//     is a little cheaper than extending a file), and reading wraps round
//     to the start too.
//   - Appends are 4096-byte write(2)s each followed by fsync(2) on a file
//     opened with O_APPEND, as a write-ahead log appends: each fsync also
//     carries the file's new size to the disk.
//   - On tmpfs nothing reaches a disk; the figures are memory's, and the
//     note says so.
package probe

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"kurabe/numfmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
	"unsafe"

	"kurabe/hist"
)

// Config says where and how long to probe.
type Config struct {
	Dir      string
	Duration time.Duration // per measurement
	MaxBytes int64         // size limit of the sequential file
	Block    int           // sequential block size, a multiple of 4096
	// Cached makes the sequential I/O go through the page cache even where
	// O_DIRECT works (synced after writing, the cache dropped before
	// reading), to compare the two.
	Cached bool
	// Created, if set, is told of each file the probe creates, before it
	// writes to it, so that a process ending at once (kurabe's second
	// Ctrl-C) can remove what Run would have.
	Created func(path string)
}

// DefaultConfig probes the system's temporary directory, where kurabe run
// puts stores given without a path, for 3 s per measurement.
func DefaultConfig() Config {
	return Config{Dir: os.TempDir(), Duration: 3 * time.Second, MaxBytes: 1 << 30, Block: 1 << 20}
}

// Validate says what to change in a bad configuration.
func (c Config) Validate() error {
	switch {
	case c.Dir == "":
		return errors.New("give a directory to probe")
	case c.Duration <= 0:
		return fmt.Errorf("duration %v: want a positive time per measurement, e.g. 3s", c.Duration)
	case c.Block < 4096 || c.Block%4096 != 0:
		return fmt.Errorf("block size %d: want a multiple of 4096 bytes", c.Block)
	case c.MaxBytes < int64(c.Block):
		return fmt.Errorf("size limit %d: want at least one block (%d bytes)", c.MaxBytes, c.Block)
	}
	return nil
}

// AppendSize is the size of each fsync'd append.
const AppendSize = 4096

// Result is what the probe measured.
type Result struct {
	Dir        string `json:"dir"`
	Filesystem string `json:"filesystem"`
	// Device is the device number of the filesystem holding Dir (0 where
	// unknown), so that kurabe run --disk-probe can tell a probe of
	// another filesystem of the same type.
	Device  uint64    `json:"device,omitempty"`
	Started time.Time `json:"started"`
	// Direct is true when the sequential write and read bypassed the page
	// cache with O_DIRECT; Note says how they ran otherwise, and anything
	// else that qualifies the figures.
	Direct bool   `json:"direct"`
	Note   string `json:"note,omitempty"`

	BlockBytes   int     `json:"block_bytes"`
	WriteBytes   int64   `json:"write_bytes"`
	WriteSeconds float64 `json:"write_s"`
	WriteMBps    float64 `json:"write_mb_s"` // 10^6 bytes per second
	// WriteSyncs counts the syncs inside the timed write: through the
	// page cache, one each time the file was full (before it was written
	// again from the start) and one at the end, so that every byte
	// written reached the disk within WriteSeconds; with O_DIRECT, one.
	WriteSyncs  int     `json:"write_syncs,omitempty"`
	ReadBytes   int64   `json:"read_bytes"`
	ReadSeconds float64 `json:"read_s"`
	ReadMBps    float64 `json:"read_mb_s"`

	Fsyncs        int64   `json:"fsyncs"`
	FsyncSeconds  float64 `json:"fsync_s"`
	FsyncsPerSec  float64 `json:"fsyncs_per_s"` // 4 KB appends, each followed by fsync
	FsyncP50Us    float64 `json:"fsync_p50_us"`
	FsyncP99Us    float64 `json:"fsync_p99_us"`
	FsyncMaxUs    float64 `json:"fsync_max_us"`
	FsyncMeanUs   float64 `json:"fsync_mean_us"`
	AppendBytes   int     `json:"append_bytes"`
	TotalSeconds  float64 `json:"total_s"`
	FilesRemoved  bool    `json:"files_removed"`
	RemoveFailure string  `json:"remove_failure,omitempty"`
}

// Run probes cfg.Dir. An error means a measurement could not be made; the
// files are removed either way.
func Run(ctx context.Context, cfg Config) (res Result, err error) {
	if err := cfg.Validate(); err != nil {
		return res, err
	}
	start := time.Now()
	res = Result{Dir: cfg.Dir, Started: start.UTC(), BlockBytes: cfg.Block, AppendBytes: AppendSize}
	fsType, free, err := fsInfo(cfg.Dir)
	if err != nil {
		return res, fmt.Errorf("probe %s: %v; give an existing directory", cfg.Dir, err)
	}
	res.Filesystem = fsType
	res.Device = deviceOf(cfg.Dir)
	limit := min(cfg.MaxBytes, free/4/int64(cfg.Block)*int64(cfg.Block))
	if limit < int64(cfg.Block) {
		return res, fmt.Errorf("probe %s: only %d bytes free; the probe writes up to a quarter of the free space and needs at least %d", cfg.Dir, free, 4*cfg.Block)
	}

	var files []string
	defer func() {
		res.FilesRemoved = true
		for _, f := range files {
			if rerr := os.Remove(f); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
				res.FilesRemoved = false
				res.RemoveFailure = rerr.Error()
			}
		}
		res.TotalSeconds = time.Since(start).Seconds()
	}()
	newFile := func(kind string, flags int) (*os.File, error) {
		var b [6]byte
		rand.Read(b[:])
		name := filepath.Join(cfg.Dir, fmt.Sprintf(".kurabe-probe-%s-%d-%x", kind, os.Getpid(), b))
		f, err := os.OpenFile(name, os.O_CREATE|os.O_EXCL|flags, 0o600)
		if err == nil || !errors.Is(err, os.ErrExist) {
			files = append(files, name)
			if cfg.Created != nil {
				cfg.Created(name)
			}
		}
		return f, err
	}

	if err := sequential(ctx, cfg, limit, &res, newFile); err != nil {
		return res, err
	}
	if err := appends(ctx, cfg, &res, newFile); err != nil {
		return res, err
	}
	if cfg.Cached {
		res.Note = join(res.Note, "sequential I/O went through the page cache as asked: the write synced each time the file was full and at the end, inside the timed part, the cache dropped before reading")
	}
	if fsType == "tmpfs" {
		res.Note = join(res.Note, "tmpfs keeps files in memory: these are memory's figures, not a disk's")
	}
	return res, nil
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// alignedBlock returns a block of n random bytes aligned to 4096 bytes in
// memory, as O_DIRECT requires.
func alignedBlock(n int) []byte {
	buf := make([]byte, n+4096)
	off := 0
	if r := int(uintptr(unsafe.Pointer(&buf[0])) & 4095); r != 0 {
		off = 4096 - r
	}
	b := buf[off : off+n : off+n]
	rand.Read(b)
	return b
}

type opener func(kind string, flags int) (*os.File, error)

// sequential writes a file of up to limit bytes for cfg.Duration, then
// reads it back for cfg.Duration.
func sequential(ctx context.Context, cfg Config, limit int64, res *Result, open opener) error {
	block := alignedBlock(cfg.Block)
	direct := oDirect != 0 && !cfg.Cached
	flags := os.O_RDWR
	if direct {
		flags |= oDirect
	}
	f, err := open("seq", flags)
	if err != nil && direct {
		res.Note = join(res.Note, "the filesystem refused O_DIRECT ("+errText(err)+"): sequential I/O went through the page cache, the write synced each time the file was full and at the end, inside the timed part, the cache dropped before reading")
		direct = false
		f, err = open("seq", os.O_RDWR)
	}
	if err != nil {
		return fmt.Errorf("probe: cannot create a file in %s: %v; give a writable directory", cfg.Dir, err)
	}
	defer f.Close()

	t0 := time.Now()
	var written, woff int64
	for time.Since(t0) < cfg.Duration {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := f.WriteAt(block, woff)
		written += int64(n)
		if woff += int64(n); woff >= limit {
			woff = 0 // the file is as large as allowed: write it again from the start
			if !direct && err == nil {
				// Through the page cache, rewriting the file would only
				// dirty the same pages again, and the figure would be
				// the cache's: sync what was written, inside the timed
				// part, before writing over it.
				if err := f.Sync(); err != nil {
					return fmt.Errorf("probe: syncing %s: %v", f.Name(), err)
				}
				res.WriteSyncs++
			}
		}
		if err != nil && direct && written == 0 {
			// Some filesystems accept the flag and refuse the write.
			res.Note = join(res.Note, "the filesystem refused an O_DIRECT write ("+errText(err)+"): sequential I/O went through the page cache, the write synced each time the file was full and at the end, inside the timed part, the cache dropped before reading")
			f.Close()
			direct = false
			if f, err = open("seq-cached", os.O_RDWR); err != nil {
				return fmt.Errorf("probe: cannot create a file in %s: %v", cfg.Dir, err)
			}
			defer f.Close()
			t0, written, woff, res.WriteSyncs = time.Now(), 0, 0, 0
			continue
		}
		if err != nil {
			return fmt.Errorf("probe: writing %s: %v", f.Name(), err)
		}
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("probe: syncing %s: %v", f.Name(), err)
	}
	res.WriteSyncs++
	elapsed := time.Since(t0)
	if written == 0 {
		return fmt.Errorf("probe: wrote nothing to %s in %v", f.Name(), cfg.Duration)
	}
	res.Direct = direct
	res.WriteBytes, res.WriteSeconds = written, elapsed.Seconds()
	res.WriteMBps = round(float64(written) / 1e6 / elapsed.Seconds())

	// Read the file back, wrapping round to its start until the time is up.
	if !direct {
		if err := dropCache(f); err != nil {
			res.Note = join(res.Note, "could not drop the page cache before reading ("+errText(err)+"): the read figure may be the cache's")
		}
	}
	t0 = time.Now()
	var read, off int64
	for time.Since(t0) < cfg.Duration {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := f.ReadAt(block, off)
		read += int64(n)
		off += int64(n)
		if err == io.EOF || off >= min(written, limit) {
			off = 0
			if !direct {
				dropCache(f)
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("probe: reading %s: %v", f.Name(), err)
		}
	}
	elapsed = time.Since(t0)
	if size, avail := min(written, limit), availableMemory(); !direct && avail > 0 && size < avail {
		// Dropping the file's pages is advice the kernel may not take
		// in full, and a file that fits in memory may be read from it.
		res.Note = join(res.Note, fmt.Sprintf("the read figure may be the page cache's, not the disk's: the file (%s MiB) fits in the memory available (%s MiB), and the read was not direct; give --max-mib above %s, or probe without --cached where O_DIRECT works, for the disk's", group(float64(size>>20)), group(float64(avail>>20)), strconv.FormatInt(avail>>20, 10)))
	}
	res.ReadBytes, res.ReadSeconds = read, elapsed.Seconds()
	res.ReadMBps = round(float64(read) / 1e6 / elapsed.Seconds())
	return nil
}

// appends writes 4 KB to the end of a file and fsyncs it, over and over,
// for cfg.Duration.
func appends(ctx context.Context, cfg Config, res *Result, open opener) error {
	f, err := open("fsync", os.O_WRONLY|os.O_APPEND)
	if err != nil {
		return fmt.Errorf("probe: cannot create a file in %s: %v; give a writable directory", cfg.Dir, err)
	}
	defer f.Close()
	block := alignedBlock(AppendSize)
	rec := hist.NewRecorder()
	t0 := time.Now()
	var n int64
	for time.Since(t0) < cfg.Duration {
		if err := ctx.Err(); err != nil {
			return err
		}
		s := time.Now()
		if _, err := f.Write(block); err != nil {
			return fmt.Errorf("probe: appending to %s: %v", f.Name(), err)
		}
		if err := f.Sync(); err != nil {
			return fmt.Errorf("probe: fsync of %s: %v", f.Name(), err)
		}
		rec.Record(int64(time.Since(s)))
		n++
	}
	elapsed := time.Since(t0)
	var snap hist.Snapshot
	rec.AddTo(&snap)
	res.Fsyncs, res.FsyncSeconds = n, elapsed.Seconds()
	res.FsyncsPerSec = round(float64(n) / elapsed.Seconds())
	res.FsyncP50Us = round(snap.Quantile(0.5) / 1e3)
	res.FsyncP99Us = round(snap.Quantile(0.99) / 1e3)
	res.FsyncMaxUs = round(float64(snap.Max) / 1e3)
	res.FsyncMeanUs = round(snap.Mean() / 1e3)
	return nil
}

func errText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

func round(x float64) float64 {
	if x >= 100 {
		return float64(int64(x + 0.5))
	}
	return float64(int64(x*100+0.5)) / 100
}

// Lines describes the result for a terminal, one line per figure.
func (r Result) Lines() []string {
	how := "O_DIRECT"
	if !r.Direct {
		how = "through the page cache"
	}
	synced := "synced"
	switch {
	case r.WriteSyncs == 1:
		synced = "synced at the end (timed)"
	case r.WriteSyncs > 1:
		synced = fmt.Sprintf("synced each time the file was full (%d syncs, timed)", r.WriteSyncs)
	}
	lines := []string{
		fmt.Sprintf("disk probe of %s (%s)", r.Dir, r.Filesystem),
		fmt.Sprintf("sequential write  %s MB/s   %s MB in %.2f s, %d KiB blocks, %s, %s", group(r.WriteMBps), group(float64(r.WriteBytes)/1e6), r.WriteSeconds, r.BlockBytes>>10, how, synced),
		fmt.Sprintf("sequential read   %s MB/s   %s MB in %.2f s, %s", group(r.ReadMBps), group(float64(r.ReadBytes)/1e6), r.ReadSeconds, how),
		fmt.Sprintf("fsync'd 4 KB appends  %s/s   p50 %s  p99 %s  max %s   %s in %.2f s", group(r.FsyncsPerSec), us(r.FsyncP50Us), us(r.FsyncP99Us), us(r.FsyncMaxUs), group(float64(r.Fsyncs)), r.FsyncSeconds),
	}
	if r.Note != "" {
		lines = append(lines, "note: "+r.Note)
	}
	if !r.FilesRemoved {
		lines = append(lines, "WARNING: could not remove the probe's files: "+r.RemoveFailure)
	}
	return lines
}

func us(v float64) string {
	if v >= 1000 {
		return strconv.FormatFloat(v/1000, 'f', 2, 64) + "ms"
	}
	return strconv.FormatFloat(v, 'f', 0, 64) + "µs"
}

// group writes v with thousands separators, whole above 10 and with one
// decimal below.
func group(v float64) string {
	if v < 10 {
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return numfmt.GroupFloat(v)
}

// Marshal is the result as indented JSON with a final newline.
func (r Result) Marshal() ([]byte, error) {
	b, err := json.MarshalIndent(r, "", " ")
	return append(b, '\n'), err
}

// ReadFile reads a result written by kurabe probe --json, for a run that
// records the disk's figures in its environment.
func ReadFile(path string) (*Result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: not a kurabe probe result: %v", path, err)
	}
	if r.FsyncsPerSec <= 0 && r.WriteMBps <= 0 {
		return nil, fmt.Errorf("%s: not a kurabe probe result: it holds no figures", path)
	}
	return &r, nil
}
