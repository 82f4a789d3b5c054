package server

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestFindMissingNamesPackage(t *testing.T) {
	_, err := Find("kurabe-no-such-server", "kurabe-pkg", "/nonexistent/*/bin")
	if !errors.Is(err, ErrMissing) || !strings.Contains(err.Error(), "apt-get install kurabe-pkg") {
		t.Fatalf("err = %v", err)
	}
	if p, err := Find("sh", "dash"); err != nil || !strings.HasSuffix(p, "/sh") {
		t.Fatalf("Find(sh) = %q, %v", p, err)
	}
}

func TestStartWaitStop(t *testing.T) {
	dir := t.TempDir()
	p, err := Start(nil, filepath.Join(dir, "log"), "/bin/sh", "-c", "echo starting; sleep 60")
	if err != nil {
		t.Fatal(err)
	}
	tries := 0
	err = p.WaitReady(context.Background(), 5*time.Second, func(context.Context) error {
		tries++
		if tries < 3 {
			return errors.New("not yet")
		}
		return nil
	})
	if err != nil || tries != 3 {
		t.Fatalf("WaitReady: %v after %d tries", err, tries)
	}
	if err := p.Stop(5 * time.Second); err != nil || !p.Exited() {
		t.Fatalf("Stop: %v, exited %v", err, p.Exited())
	}
}

func TestWaitReadyReportsExitWithLog(t *testing.T) {
	dir := t.TempDir()
	p, err := Start(nil, filepath.Join(dir, "log"), "/bin/sh", "-c", "echo 'FATAL: bad setting foo'; exit 3")
	if err != nil {
		t.Fatal(err)
	}
	err = p.WaitReady(context.Background(), 5*time.Second, func(context.Context) error { return errors.New("refused") })
	if err == nil || !strings.Contains(err.Error(), "FATAL: bad setting foo") || !strings.Contains(err.Error(), "exited") {
		t.Fatalf("err = %v", err)
	}
}

func TestFreePortAndDirSize(t *testing.T) {
	if p, err := FreePort(); err != nil || p <= 0 {
		t.Fatalf("FreePort = %d, %v", p, err)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a"), make([]byte, 100_000), 0o644)
	if n := DirSize(dir); n < 100_000 {
		t.Fatalf("DirSize = %d", n)
	}
}
