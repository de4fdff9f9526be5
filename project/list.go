package project

import (
	"os"
	"slices"
)

// ListFiles returns the slash paths, relative to root, of the files cfg's
// model, test and audit globs match, sorted: the files ReadFiles reads
// besides efmesh.yaml. It lists folders and reads no file, so a caller can
// tell cheaply whether the set of a project's files moved.
func ListFiles(root string, cfg Config) []string {
	rels, _ := listFiles(root, cfg)
	return rels
}

func listFiles(root string, cfg Config) ([]string, []walkProblem) {
	fsys := os.DirFS(root)
	var rels []string
	var problems []walkProblem
	seen := map[string]bool{}
	for _, globs := range [][]string{cfg.Models, cfg.Tests, cfg.Audits, cfg.Macros} {
		files, pr := expandGlobs(fsys, globs)
		problems = append(problems, pr...)
		for _, rel := range files {
			if !seen[rel] {
				seen[rel] = true
				rels = append(rels, rel)
			}
		}
	}
	slices.Sort(rels)
	return rels, problems
}
