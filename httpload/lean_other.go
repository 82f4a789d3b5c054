//go:build !linux

package httpload

import "syscall"

// leanSupported is false: the lean path's raw socket calls are written
// for Linux; elsewhere every request goes through fasthttp.
const leanSupported = false

func rawSend(uintptr, []byte) (int, syscall.Errno) { return 0, syscall.ENOSYS }
func rawRead(uintptr, []byte) (int, syscall.Errno) { return 0, syscall.ENOSYS }

// rawPeek finds no idle connection closed: a request sent on one fails
// before any answer and is handled as such (leanConn.roundTrip).
func rawPeek(uintptr) bool { return false }
