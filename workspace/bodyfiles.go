package workspace

import (
	"github.com/efmesh/efmesh/analysis"
)

// bodyFileStamps are the files model bodies read by name (read_csv('x'),
// FROM 'x.parquet', globs and the folders they walk), stamped by size and
// mtime like EXTERNAL models' files: a changed file misses the digest, so
// the plan checks the body against it again. ok is false when a body
// reads what the digest cannot watch (a URL).
func bodyFileStamps(a *analysis.Analysis) (out []stamp, ok bool) {
	if a == nil {
		return nil, true
	}
	for _, info := range a.Models {
		if len(info.Files) == 0 {
			continue
		}
		fs, ok := analysis.StampFiles(info.Files)
		if !ok {
			return nil, false
		}
		for _, f := range fs {
			out = append(out, stamp{Path: f.Path, Size: f.Size, ModTime: f.ModTime, Missing: f.Missing})
		}
	}
	return out, true
}
