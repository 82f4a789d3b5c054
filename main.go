// Command kurabe compares data stores under the same workload.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"kurabe/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() { <-ctx.Done(); stop() }() // a second Ctrl-C kills at once
	os.Exit(cli.Main(ctx, os.Args[1:], os.Stdout, os.Stderr))
}
