package analysis

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/efmesh/efmesh/project"
)

// A FileStamp is one file (or folder a glob walks) a body reads, as the
// check saw it: a file replaced, grown, touched, added or removed under a
// glob has another stamp.
type FileStamp struct {
	Path    string
	Size    int64
	ModTime int64
	Missing bool
}

// bodyFiles are the files a model's body reads by name (the outline's
// Files), resolved against the project root. They are inputs of the
// model like its parents: their stamps are part of what a cached check
// holds, and the no-op digest stamps them.
func (a *Analysis) bodyFiles(canonical []byte) []string {
	if len(canonical) == 0 || a.outliner == nil || !mayReadFiles(canonical) {
		return nil
	}
	o := a.outline(canonical)
	if o == nil {
		return nil
	}
	out := make([]string, 0, len(o.Files))
	for _, f := range o.Files {
		out = append(out, AbsPath(a.Project.Root, f))
	}
	return out
}

// mayReadFiles says, from the canonical form's text alone, whether the
// body could read a file by name: a table function, or a table whose name
// holds a dot, a slash or an escape (DuckDB reads FROM 'x.csv' as a table
// named x.csv). Only such bodies are outlined for their files: decoding
// every model's outline on a cold plan cost as much as binding it. It may
// answer true for a body that reads no file, never false for one that does.
func mayReadFiles(canonical []byte) bool {
	if bytes.Contains(canonical, []byte(`"TABLE_FUNCTION"`)) {
		return true
	}
	key := []byte(`"table_name"`)
	for rest := canonical; ; {
		i := bytes.Index(rest, key)
		if i < 0 {
			return false
		}
		rest = bytes.TrimLeft(rest[i+len(key):], " \t\r\n")
		rest = bytes.TrimPrefix(rest, []byte(":"))
		rest = bytes.TrimLeft(rest, " \t\r\n")
		if !bytes.HasPrefix(rest, []byte(`"`)) {
			continue
		}
		end := bytes.IndexByte(rest[1:], '"')
		if end < 0 {
			return true
		}
		if bytes.ContainsAny(rest[1:1+end], "./\\") {
			return true
		}
		rest = rest[1+end:]
	}
}

// StampFiles stamps the files and globs of patterns (absolute paths, as
// ModelInfo.Files gives them) as WalkPatterns names them: a literal path
// is one stamp, a glob the stamps of its literal folder, of every folder
// under it and of every file it matches. ok is false when a pattern cannot
// be watched (a URL).
func StampFiles(patterns []string) (out []FileStamp, ok bool) {
	ok = WalkPatterns(patterns, func(path string, _ bool) error {
		s, err := stampOne(path)
		if err != nil {
			return err
		}
		out = append(out, s)
		return nil
	})
	if !ok {
		return nil, false
	}
	return out, true
}

// WalkPatterns calls visit for what the file patterns of model bodies
// (absolute paths, as ModelInfo.Files gives them) name, the one walk of
// them: a literal path once (dir false; it may not exist); for a glob, its
// literal folder (dir true) and, when that folder exists, every folder
// under it (dir true) and every file under it the glob matches. ok is
// false when a pattern is a URL, or visit or the walk fails.
func WalkPatterns(patterns []string, visit func(path string, dir bool) error) (ok bool) {
	for _, pattern := range patterns {
		if strings.Contains(pattern, "://") {
			return false
		}
		pattern = filepath.ToSlash(pattern)
		segs := strings.Split(pattern, "/")
		literal := 0
		for literal < len(segs) && !strings.ContainsAny(segs[literal], `*?[\`) {
			literal++
		}
		if literal == len(segs) {
			if visit(filepath.FromSlash(pattern), false) != nil {
				return false
			}
			continue
		}
		base := filepath.FromSlash(strings.Join(segs[:literal], "/"))
		rest := strings.Join(segs[literal:], "/")
		if visit(base, true) != nil {
			return false
		}
		if _, err := os.Stat(base); os.IsNotExist(err) {
			continue
		}
		err := filepath.WalkDir(base, func(name string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(base, name)
			if err != nil || rel == "." {
				return err
			}
			if !d.IsDir() && !project.MatchGlob(rest, filepath.ToSlash(rel)) {
				return nil
			}
			return visit(name, d.IsDir())
		})
		if err != nil {
			return false
		}
	}
	return true
}

func stampOne(path string) (FileStamp, error) {
	fi, err := os.Stat(path)
	if os.IsNotExist(err) {
		return FileStamp{Path: path, Missing: true}, nil
	}
	if err != nil {
		return FileStamp{}, err
	}
	return FileStamp{Path: path, Size: fi.Size(), ModTime: fi.ModTime().UnixNano()}, nil
}

// fresh reports whether the files a cached check read are still as it
// stamped them.
func (cc *CachedCheck) fresh() bool {
	if len(cc.Files) == 0 {
		return true
	}
	now, ok := StampFiles(cc.FilePatterns)
	return ok && slices.Equal(now, cc.Files)
}
