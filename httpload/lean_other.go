//go:build !linux

package httpload

import "syscall"

// leanSupported is false: the lean path's raw socket calls are written
// for Linux; elsewhere every request goes through fasthttp.
const leanSupported = false

func rawSend(uintptr, []byte) (int, syscall.Errno) { return 0, syscall.ENOSYS }
func rawRead(uintptr, []byte) (int, syscall.Errno) { return 0, syscall.ENOSYS }
