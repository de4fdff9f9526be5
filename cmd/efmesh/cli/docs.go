package cli

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/efmesh/efmesh/docsite"
)

func (a *app) docsCmd() *cobra.Command {
	var (
		out   string
		serve bool
		port  int
	)
	cmd := &cobra.Command{
		Use: "docs [--out DIR] [--serve [--port N]]",
		Example: `  efmesh docs
  efmesh docs --out public/docs
  efmesh docs --serve
  efmesh docs --serve --port 8090`,
		Short: "Write a static site of the project: models, columns, lineage, environments, plans",
		Long: `Docs writes a static site of the project into --out (default site/):
index.html, one self-contained page (no network; open it from disk), and
site.json, the same data for other tools. It holds a page per model
(description, kind, grain, owner, tags, columns and types, the SQL as
written and rendered, audits, unit tests, the version each environment
serves, interval coverage, freshness of sources), a search over models and
columns, the DAG, the lineage of every column upstream and downstream,
the environments (last apply, last run, health) and the plan of the
checkout against each environment.

Links select a state in the URL: index.html#model=mart.daily_census,
#search=stay, #lineage=mart.daily_census.patients, #dag, #envs, #plan=prod.

With --serve, docs serves the site on localhost and rebuilds it when a
file of the project changes; an open page reloads itself.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !serve && cmd.Flags().Changed("port") {
				return &usageError{cmd: cmd, err: fmt.Errorf("--port goes with --serve (the written site needs no server)")}
			}
			if !serve {
				site, err := a.buildSite()
				if err != nil {
					return err
				}
				if err := docsite.Write(out, site); err != nil {
					return err
				}
				fmt.Fprintf(a.stderr, "wrote %s (%d models)\n", filepath.Join(out, "index.html"), len(site.Models))
				return nil
			}
			if port < 0 || port > 65535 {
				return &usageError{cmd: cmd, err: fmt.Errorf("--port %d: a port is 0 to 65535", port)}
			}
			ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
			if err != nil {
				return err
			}
			srv := docsite.NewServer(a.buildSite)
			p, err := a.loadProject("")
			if err != nil {
				ln.Close()
				return err
			}
			fmt.Fprintf(a.stderr, "serving http://%s/ (Ctrl-C stops)\n", ln.Addr())
			err = srv.Serve(a.ctx, ln, p.Root, func(err error) {
				fmt.Fprintf(a.stderr, "efmesh: docs: %s\n", docsite.Describe(err))
			})
			if errors.Is(err, http.ErrServerClosed) {
				return nil
			}
			return err
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "site", "the directory to write the site into")
	cmd.Flags().BoolVar(&serve, "serve", false, "serve the site on localhost, rebuilt as files change")
	cmd.Flags().IntVar(&port, "port", 8080, "the port of --serve (0: any free port)")
	a.registerVars(cmd)
	return cmd
}

// buildSite opens the project with its state store and gathers the site.
func (a *app) buildSite() (*docsite.Site, error) {
	w, err := a.open(true, nil, false)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	return docsite.Build(a.ctx, w, docsite.Options{Now: a.now(), Store: w.Store, Plans: true, Render: true})
}
