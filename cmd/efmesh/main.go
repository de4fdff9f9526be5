// Command efmesh plans and applies SQL model projects; see the README.
package main

import (
	"context"
	"os"

	"github.com/efmesh/efmesh/cmd/efmesh/cli"
)

func main() { os.Exit(cli.Run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
