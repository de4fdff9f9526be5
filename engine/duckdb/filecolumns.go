package duckdb

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/efmesh/efmesh/engine"
)

// The shape check of a file source (plan, run, status --check) asks for
// the names of the files' columns on every plan. Asking DuckDB for them
// by describing `SELECT * FROM read_csv(…)` runs the CSV sniffer, which
// samples the whole file for types (tens to hundreds of milliseconds for
// a small file, on every plan) though only the names are compared. So a
// CSV file with a header answers from its header line, as the reader of
// a build binds it (csvHeaderGroups); other files are described by DuckDB
// (a parquet footer). Either answer is remembered, for the life of the
// process, by the files' stamps: every path the globs match with its size
// and modification time. A file replaced, touched, added or removed
// changes the stamps and is described again; the stamps are taken before
// the files are read, so a change while they are read is seen next time.

// fileNames remembers the column names of stamped file sets.
var fileNames = struct {
	sync.Mutex
	m map[string][]string
}{m: map[string][]string{}}

// maxFileNames bounds fileNames: past it, the memory starts over.
const maxFileNames = 256

// FileColumnNames returns the names of the columns the files of spec
// have, as the reader binds them by name (engine.FileDescriber).
func (d *DB) FileColumnNames(ctx context.Context, spec engine.FileSpec) ([]string, error) {
	key, stamped := fileStamps(spec)
	if stamped {
		fileNames.Lock()
		names, ok := fileNames.m[key]
		fileNames.Unlock()
		if ok {
			return append([]string(nil), names...), nil
		}
	}
	names, err := d.fileColumnNames(ctx, spec)
	if err != nil {
		return nil, err
	}
	if stamped {
		fileNames.Lock()
		if len(fileNames.m) >= maxFileNames {
			fileNames.m = map[string][]string{}
		}
		fileNames.m[key] = append([]string(nil), names...)
		fileNames.Unlock()
	}
	return names, nil
}

// fileColumnNames reads the names without remembering them: a CSV file's
// header line — the union of the headers, by name without case, when the
// files' headers differ, as a build reads them (combined by name) — or
// else what DuckDB describes.
func (d *DB) fileColumnNames(ctx context.Context, spec engine.FileSpec) ([]string, error) {
	spec.Columns = nil
	if spec.Format == "csv" {
		if groups, ok := csvHeaderGroups(spec.Paths, spec.Options); ok {
			var names []string
			seen := map[string]bool{}
			for _, g := range groups {
				for _, n := range g.header {
					n = strings.TrimSpace(n)
					if !seen[strings.ToLower(n)] {
						seen[strings.ToLower(n)] = true
						names = append(names, n)
					}
				}
			}
			return names, nil
		}
	}
	q, err := d.ReadFiles(spec)
	if err != nil {
		return nil, err
	}
	cols, err := d.Describe(ctx, q)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	return names, nil
}

// fileStamps is the key under which the names of spec's files are
// remembered: the format, the options and each matched file's path, size
// and modification time. stamped is false when the files cannot be
// stamped here (a URL, a "**" glob, a pattern that matches nothing or a
// file that cannot be stat'ed): they are described every time.
func fileStamps(spec engine.FileSpec) (key string, stamped bool) {
	var b strings.Builder
	b.WriteString(spec.Format)
	for _, o := range spec.Options {
		b.WriteString("\x00" + o.Name + "=" + strconv.FormatBool(o.IsString) + ":" + o.Value)
	}
	for _, p := range spec.Paths {
		if strings.Contains(p, "://") || strings.Contains(p, "**") {
			return "", false
		}
		files, err := filepath.Glob(p)
		if err != nil || len(files) == 0 {
			return "", false
		}
		sort.Strings(files)
		b.WriteString("\x01" + p)
		for _, f := range files {
			fi, err := os.Stat(f)
			if err != nil {
				return "", false
			}
			b.WriteString("\x00" + f + "\x00" + strconv.FormatInt(fi.Size(), 10) + "\x00" + strconv.FormatInt(fi.ModTime().UnixNano(), 10))
		}
	}
	return b.String(), true
}
