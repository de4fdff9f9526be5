package digest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/project"
)

// The warehouse's moves: an append-only log (.efmesh/cache/noop/
// warehouse.moves) of the writes efmesh made to a DuckDB warehouse file
// and which schemas each wrote, so that a digest taken before a write
// that cannot change what its plan reads (another environment's
// promotion: views in that environment's schemas) keeps answering.
//
// A digest keeps the warehouse's stamps as its plan saw them and the
// schemas its plan reads (the physical schema, the environment's view
// schemas, the EXTERNAL models' source schemas: warehouseSchemas). When
// the warehouse's stamps differ, the log is walked from the digest's
// stamps: each move whose `from` is the stamps reached so far leads to its
// `to`; the digest still answers only if the walk ends at the stamps the
// warehouse has now and no move on the way wrote a schema the digest's
// plan reads. Any write that is not logged (a table dropped by hand,
// another efmesh write, a file replaced) leaves stamps no move starts
// from: the walk breaks and the digest misses, as before.
//
// A move is logged by the process that made it, under the environment's
// lock, with the warehouse's stamps read before it opened the file and
// after it closed it.

// warehouseMove is one logged write of the warehouse.
type warehouseMove struct {
	From    []Stamp  `json:"from"`
	To      []Stamp  `json:"to"`
	Schemas []string `json:"schemas"` // lower-cased
}

// movesLimit is the log's size past which an append keeps only its newer
// half: a digest older than what is kept misses, as with no log.
const movesLimit = 256 << 10

func movesPath(root string) string {
	return filepath.Join(root, ".efmesh", "cache", "noop", "warehouse.moves")
}

// logMove appends a move of the warehouse of the project at root: from
// and to are its stamps before and after, schemas what it wrote. Moves
// that change no stamp are not logged.
func logMove(root string, from, to []Stamp, schemas []string) error {
	if slices.Equal(from, to) {
		return nil
	}
	line, err := json.Marshal(warehouseMove{From: from, To: to, Schemas: lowerSet(schemas)})
	if err != nil {
		return err
	}
	line = append(line, '\n')
	path := movesPath(root)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if fi, err := os.Stat(path); err == nil && fi.Size()+int64(len(line)) > movesLimit {
		old, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		keep := old[len(old)/2:]
		if i := bytes.IndexByte(keep, '\n'); i >= 0 {
			keep = keep[i+1:]
		}
		return writeAtomic(path, append(slices.Clip(keep), line...))
	}
	// One write of one line with O_APPEND: two processes appending at
	// once interleave whole lines.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(line); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// warehouseMovedAround reports whether the warehouse of the project at
// root went from the stamps then to the stamps now only through logged
// moves that wrote none of schemas (lower-cased). nil schemas: what the
// digest's plan reads is not known, and only equal stamps answer.
func warehouseMovedAround(root string, then, now []Stamp, schemas []string) bool {
	if slices.Equal(then, now) {
		return true
	}
	if schemas == nil {
		return false
	}
	f, err := os.Open(movesPath(root))
	if err != nil {
		return false
	}
	defer f.Close()
	at := then
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, movesLimit)
	for sc.Scan() {
		var m warehouseMove
		if json.Unmarshal(sc.Bytes(), &m) != nil || !slices.Equal(m.From, at) {
			continue // a torn line, or a move from other stamps
		}
		for _, s := range m.Schemas {
			if _, hit := slices.BinarySearch(schemas, s); hit {
				return false
			}
		}
		at = m.To
		if slices.Equal(at, now) {
			return true
		}
	}
	return false
}

// lowerSet is names lower-cased, sorted, without duplicates, never nil.
func lowerSet(names []string) []string {
	out := make([]string, 0, len(names))
	for _, n := range names {
		out = append(out, strings.ToLower(n))
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// warehouseSchemas are the schemas a plan of env of the project reads in
// the warehouse, a superset of what its presence check lists: the physical
// schema, env's view schemas of every model's schema, and the schemas of
// the EXTERNAL models' source tables.
func warehouseSchemas(d engine.Dialect, env string, models []string, proj *project.Project) []string {
	schemas := []string{analysis.PhysicalSchema}
	seen := map[string]bool{}
	for _, name := range models {
		s, _ := analysis.SplitName(name)
		if !seen[s] {
			seen[s] = true
			schemas = append(schemas, analysis.EnvSchema(d, env, s))
		}
	}
	return append(schemas, sourceSchemas(proj)...)
}

// sourceSchemas are the schemas of the tables EXTERNAL models read.
func sourceSchemas(proj *project.Project) []string {
	var out []string
	for _, m := range proj.Models {
		if m.Kind.Name != project.KindExternal || m.Kind.Table == "" {
			continue
		}
		s, _ := analysis.SplitName(m.Kind.Table)
		out = append(out, s)
	}
	return out
}

// promotionSchemas are the schemas a promotion of p into its environment
// writes: the view schemas of its models, and the schemas of views it
// drops.
func promotionSchemas(d engine.Dialect, p *planner.Plan) []string {
	var out []string
	for _, mp := range p.Models {
		s, _ := analysis.SplitName(mp.Name)
		out = append(out, analysis.EnvSchema(d, p.Env, s))
		if mp.StaleView != "" {
			vs, _ := analysis.SplitName(mp.StaleView)
			out = append(out, vs)
		}
	}
	return out
}

// planModels are the names of p's models.
func planModels(p *planner.Plan) []string {
	out := make([]string, len(p.Models))
	for i, mp := range p.Models {
		out[i] = mp.Name
	}
	return out
}

// planSchemas are warehouseSchemas of p, a plan of env made from pl,
// lower-cased; nil (not known) without an analysis.
func planSchemas(pl Planned, env string, p *planner.Plan) []string {
	if pl.Analysis == nil {
		return nil
	}
	return lowerSet(warehouseSchemas(pl.Analysis.Dialect(), env, planModels(p), pl.Project))
}
