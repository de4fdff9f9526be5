package project

import (
	"errors"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
)

// Globs in efmesh.yaml are slash-separated and relative to the project
// root. A "**" segment matches any number of folders, including none; other
// segments follow path.Match. Wildcards do not match names that start with a
// dot (.git, editor backup files) unless the pattern segment does too, as in
// a shell.

// ValidateGlob reports why pattern cannot be used as a project glob.
func ValidateGlob(pattern string) error {
	if strings.TrimSpace(pattern) == "" {
		return errors.New("empty pattern")
	}
	if strings.HasPrefix(pattern, "/") || (len(pattern) > 1 && pattern[1] == ':') {
		return errors.New("patterns are relative to the project root")
	}
	for _, seg := range globSegments(pattern) {
		if seg == ".." {
			return errors.New("patterns must stay inside the project root")
		}
		if seg == "**" {
			continue
		}
		if _, err := path.Match(seg, ""); err != nil {
			return errors.New("syntax error in pattern")
		}
	}
	return nil
}

// globSegments splits a pattern into segments, dropping "." and empty ones
// so "./models//*.sql" means models/*.sql.
func globSegments(pattern string) []string {
	var out []string
	for _, s := range strings.Split(pattern, "/") {
		if s != "" && s != "." {
			out = append(out, s)
		}
	}
	return out
}

// MatchGlob reports whether the slash-separated relative path name matches
// pattern. The language server uses it to tell whether a newly opened file
// belongs to the project.
func MatchGlob(pattern, name string) bool {
	return matchSegments(globSegments(pattern), strings.Split(name, "/"))
}

func matchSegments(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			// Collapse runs of ** and try every split point.
			for len(pat) > 0 && pat[0] == "**" {
				pat = pat[1:]
			}
			for i := 0; i <= len(name); i++ {
				if matchSegments(pat, name[i:]) {
					return true
				}
				if i < len(name) && strings.HasPrefix(name[i], ".") {
					return false // ** does not enter hidden folders
				}
			}
			return false
		}
		if len(name) == 0 || !matchSegment(pat[0], name[0]) {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}

func matchSegment(pat, name string) bool {
	if strings.HasPrefix(name, ".") && !strings.HasPrefix(pat, ".") {
		return false
	}
	// The usual shapes, a literal name and *.sql, without path.Match: a
	// loader matches every file of the project.
	if !hasMeta(pat) {
		return pat == name
	}
	if len(pat) > 1 && pat[0] == '*' && !hasMeta(pat[1:]) {
		return strings.HasSuffix(name, pat[1:])
	}
	ok, err := path.Match(pat, name)
	return ok && err == nil
}

// hasMeta reports whether a segment holds glob syntax.
func hasMeta(seg string) bool { return strings.ContainsAny(seg, `*?[\`) }

// walkProblem is a folder or file that could not be read while expanding
// globs; it is reported, and loading goes on without it.
type walkProblem struct {
	name string
	err  error
}

// expandGlobs returns the files of fsys matching any of patterns, sorted and
// deduplicated. Each pattern's walk (WalkGlob) starts at its literal prefix
// and stops as deep as the pattern can reach, so "models/*.sql" never walks
// the tree.
func expandGlobs(fsys fs.FS, patterns []string) ([]string, []walkProblem) {
	var problems []walkProblem
	seen := map[string]bool{}
	var out []string
	for _, pattern := range patterns {
		if ValidateGlob(pattern) != nil {
			continue // reported by ParseConfig
		}
		segs := globSegments(pattern)
		_ = WalkGlob(fsys, pattern, func(name string, d fs.DirEntry, err error) error {
			if err != nil {
				// A missing base is a folder the project has not created yet.
				if !errors.Is(err, fs.ErrNotExist) {
					problems = append(problems, walkProblem{name, err})
				}
				return nil
			}
			if !d.IsDir() && !seen[name] && matchSegments(segs, strings.Split(name, "/")) {
				seen[name] = true
				out = append(out, name)
			}
			return nil
		})
	}
	sort.Strings(out)
	return out, problems
}

// WalkGlob walks what a listing of pattern (a valid project glob) reads
// of fsys, the one walk of the project's globs: from the pattern's literal
// folder (the segments before the first wildcard, never the last one),
// into no hidden folder the pattern does not name, no deeper than a
// pattern without ** can reach. fn is called as fs.WalkDir calls it, for
// each folder the walk enters (the literal folder first) and each file in
// them, matching or not; a literal folder that cannot be read, or does not
// exist (fs.ErrNotExist), is passed to fn with its error and a nil entry.
func WalkGlob(fsys fs.FS, pattern string, fn fs.WalkDirFunc) error {
	segs := globSegments(pattern)
	literal := 0
	for literal < len(segs)-1 && !hasMeta(segs[literal]) {
		literal++
	}
	base := "."
	if literal > 0 {
		base = strings.Join(segs[:literal], "/")
	}
	maxDepth := len(segs)
	if slices.Contains(segs, "**") {
		maxDepth = -1
	}
	wantsHidden := strings.Contains("/"+pattern, "/.")
	return fs.WalkDir(fsys, base, func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return fn(name, d, err)
		}
		if d.IsDir() {
			depth := 0
			if name != "." {
				depth = strings.Count(name, "/") + 1
			}
			if name != base && strings.HasPrefix(d.Name(), ".") && !wantsHidden {
				return fs.SkipDir
			}
			if maxDepth >= 0 && depth >= maxDepth {
				return fs.SkipDir
			}
		}
		return fn(name, d, nil)
	})
}
