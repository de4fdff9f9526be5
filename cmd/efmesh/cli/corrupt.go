package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/efmesh/efmesh/connect"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/jsonapi"
	"github.com/efmesh/efmesh/project"
)

// printCorrupt reports a damaged warehouse file positioned at the file, as
// `efmesh.duckdb: error: …`, with what to do about it.
func (a *app) printCorrupt(ce *engine.CorruptError) {
	file := a.warehouseFile(ce.Database)
	msg := "the warehouse file is corrupt: " + ce.Detail
	if ce.Relation.Name != "" {
		msg = fmt.Sprintf("the warehouse file is corrupt: reading %s: %s", ce.Relation, ce.Detail)
	}
	hint := corruptHint(file)
	if a.json {
		a.writeJSON(jsonapi.Corrupt{APIVersion: APIVersion, Error: msg, File: file, Relation: relationText(ce.Relation), Hint: hint})
		return
	}
	fmt.Fprintf(a.stderr, "%s: error: %s\n  %s\n", file, msg, hint)
}

// printCorruptBeside reports a damaged warehouse file on stderr beside a
// command's own output (status prints the problem in its report, or its
// --json payload on stdout).
func (a *app) printCorruptBeside(ce *engine.CorruptError) {
	json := a.json
	a.json = false
	defer func() { a.json = json }()
	a.printCorrupt(ce)
}

func relationText(r engine.Relation) string {
	if r.Name == "" {
		return ""
	}
	return r.String()
}

// corruptHint is what to do about a damaged warehouse file. Deleting it is
// safe for what efmesh builds: the state store then finds each relation
// missing, and the next apply of each environment builds it again.
func corruptHint(file string) string {
	return fmt.Sprintf("Restore %[1]s from a backup, or rebuild it: "+
		"delete %[1]s (and %[1]s.wal) and run `efmesh apply <env>` for each environment "+
		"(`efmesh env list`): the plan finds every table missing and builds it again, "+
		"incremental models over their whole history. Tables efmesh does not build "+
		"(sources loaded into the file by other tools) are lost with the file.", file)
}

// warehouseFile names the damaged file as the user wrote it: relative to
// the project root when inside it; the project's warehouse when the engine
// did not say which file it read.
func (a *app) warehouseFile(path string) string {
	root, err := project.FindRoot(a.dir)
	if err != nil {
		if path == "" {
			return "warehouse"
		}
		return path
	}
	if path == "" {
		p := &project.Project{Root: root}
		if src, err := os.ReadFile(filepath.Join(root, project.ConfigFile)); err == nil {
			p.Config, _ = project.ParseConfig(project.ConfigFile, src)
		}
		path = connect.WarehousePath(p)
	}
	if abs, err := filepath.Abs(path); err == nil {
		if rel, err := filepath.Rel(root, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel)
		}
	}
	return path
}
