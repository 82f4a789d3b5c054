package cli

import (
	"fmt"
	"io"
	"runtime"
)

func (a *App) version(w io.Writer) error {
	_, err := fmt.Fprintf(w, "kurabe %s (%s %s/%s)\n", Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return err
}
