// Command efmesh plans and applies SQL model projects; see the README.
package main

import (
	"context"
	"os"

	"github.com/efmesh/efmesh/cmd/efmesh/cli"
)

func main() {
	ctx, _ := cli.WithSignals(context.Background())
	os.Exit(cli.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
