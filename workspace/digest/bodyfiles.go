package digest

import (
	"github.com/efmesh/efmesh/analysis"
)

// bodyFileStamps are the files model bodies read by name (read_csv('x'),
// FROM 'x.parquet', globs and the folders they walk), stamped by size and
// mtime like EXTERNAL models' files: a changed file misses the digest, so
// the plan checks the body against it again. ok is false when a body
// reads what the digest cannot watch (a URL).
func bodyFileStamps(a *analysis.Analysis) (out []Stamp, ok bool) {
	if a == nil {
		return nil, true
	}
	var patterns []string
	for _, info := range a.Models {
		patterns = append(patterns, info.Files...)
	}
	// The same stamps, racy rule included, as the EXTERNAL models' files.
	return patternStamps(patterns)
}
