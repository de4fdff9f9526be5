package cli

import (
	"fmt"
	"io"

	"github.com/efmesh/efmesh/planner"
)

// printWarnings lists the plan's warnings after the plan.
func printWarnings(w io.Writer, p *planner.Plan) {
	for _, m := range p.Models {
		for _, wn := range m.Warnings {
			fmt.Fprintf(w, "warning: %s: %s: %s\n", m.Name, wn.Code, wn.Message)
		}
	}
}
