package cli

import (
	"errors"
	"io"

	"github.com/spf13/cobra"

	"github.com/efmesh/efmesh/lsp"
)

func (a *app) lspCmd() *cobra.Command {
	return &cobra.Command{
		Use: "lsp",
		Example: `  efmesh lsp
  efmesh lsp --log-level debug`,
		Short: "Run the language server on stdin/stdout",
		Long: `lsp speaks the Language Server Protocol on stdin and stdout for an editor.
It finds the projects of the editor's workspace folders (the folders holding
efmesh.yaml) and checks them as you type. Its log goes to stderr and to the
editor's log.

initializationOptions: {"environment": "dev"} sets the environment code
lenses and commands compare with (default dev).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			lsp.Version = Version
			err := lsp.Serve(a.ctx, stdio{a.stdin, a.stdout}, lsp.Options{Logger: a.log})
			if errors.Is(err, lsp.ErrNoShutdown) {
				return &exitError{code: ExitError}
			}
			return err
		},
	}
}

// stdio joins stdin and stdout into the connection the server talks over.
// Closing it closes stdin when it can be closed, which ends the server's
// read of it after exit; stdout stays open for the rest of the process.
type stdio struct {
	io.Reader
	io.Writer
}

func (s stdio) Close() error {
	if c, ok := s.Reader.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
