package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/efmesh/efmesh/jsonapi"
	"github.com/efmesh/efmesh/workspace"
)

func (a *app) formatCmd() *cobra.Command {
	var check bool
	cmd := &cobra.Command{
		Use: "format [--check] [paths…]",
		Example: `  efmesh format
  efmesh format models/mart
  efmesh format --check
  efmesh format --check --json`,
		Short: "Lay out model and audit files in the one canonical layout",
		Long: `Format rewrites model and audit files (all of the project's, or those in
the given files and folders) in one canonical layout: the MODEL (AUDIT)
header one property per line, keywords upper case, each clause on its own
line, one select column per line past 100 characters, blank lines of a
query kept (at most one). Comments, macros, strings and quoted identifiers
are kept as written. A file whose model fingerprint (audit query) the
layout would change is never written: it is reported and format exits 1.
A named file that is not formatted (a unit-test file) is reported as
skipped. With --check nothing is written; the files that would change are
listed and format exits 1 when there are any.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			files, err := workspace.Format(a.ctx, a.dir, args, !check)
			if err != nil {
				return err
			}
			failed := false
			for _, f := range files {
				failed = failed || f.Problem != "" || check && f.Changed
			}
			if a.json {
				// The files that changed, would change or were left alone.
				listed := []workspace.FormattedFile{}
				for _, f := range files {
					if f.Changed || f.Problem != "" || f.Skipped != "" {
						listed = append(listed, f)
					}
				}
				a.writeJSON(jsonapi.Format{APIVersion: APIVersion, Check: check, Files: workspace.JSONFormattedFiles(listed), Models: len(files)})
			} else {
				for _, f := range files {
					switch {
					case f.Problem != "":
						fmt.Fprintf(a.stderr, "%s: %s\n", f.File, f.Problem)
					case f.Skipped != "":
						fmt.Fprintf(a.stderr, "%s: skipped: %s\n", f.File, f.Skipped)
					case check && f.Changed:
						fmt.Fprintf(a.stdout, "would format %s\n", f.File)
					case f.Written:
						fmt.Fprintf(a.stdout, "formatted %s\n", f.File)
					}
				}
			}
			if failed {
				return &exitError{code: ExitError}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&check, "check", false, "write nothing; list the files that would change and exit 1 if any")
	return cmd
}
