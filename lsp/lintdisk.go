package lsp

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/lint"
	"github.com/efmesh/efmesh/project"
)

// lintDiskVersion names the layout of the lint cache's keys and values and
// the rules' behaviour: bump it when either changes.
const lintDiskVersion = 3

// lintDisk keeps the linter's findings across sessions (in
// .efmesh/cache/lint.gob, beside the check cache), so that opening a
// project checked before lints only what changed: linting decodes each
// model's canonical form, which costs about as much as checking it. A key
// covers everything a model's findings depend on — its file, its
// canonical form, its columns, the rules' severities, the engine's
// version, and the kind and columns of every model the linter may read
// (its parents, and any model a plain table name of the canonical form
// may name). Checker goroutine only.
type lintDisk struct {
	path   string
	engine string // the engine library's version
	old    map[string][]project.Diagnostic
	used   map[string][]project.Diagnostic
	added  bool

	sev    lint.Severities // the severities sevKey was written for
	sevKey []byte

	// byTable: the models of tablesOf by the last part of their name,
	// lower case (a canonical form names a table by its parts).
	tablesOf *analysis.Analysis
	byTable  map[string][]string
}

// openLintDisk reads the lint cache at path; a missing or unreadable file
// is an empty cache.
func openLintDisk(path, engine string) *lintDisk {
	d := &lintDisk{path: path, engine: engine, old: map[string][]project.Diagnostic{}, used: map[string][]project.Diagnostic{}}
	b, err := os.ReadFile(path)
	if err != nil {
		return d
	}
	// A damaged file (or another layout's) is an empty cache, rewritten
	// by the next save.
	body, ok := analysis.Unseal("lint", lintDiskVersion, b)
	if !ok {
		return d
	}
	var m map[string][]project.Diagnostic
	if gob.NewDecoder(bytes.NewReader(body)).Decode(&m) == nil {
		d.old = m
	}
	return d
}

// key keys the findings of info, or "" when they are not cached.
func (d *lintDisk) key(a *analysis.Analysis, info *analysis.ModelInfo, sev lint.Severities) string {
	if info == nil || info.Model == nil {
		return ""
	}
	m := info.Model
	h := sha256.New()
	var n []byte
	wb := func(b []byte) {
		n = strconv.AppendInt(n[:0], int64(len(b)), 10)
		n = append(n, 0)
		h.Write(n)
		h.Write(b)
	}
	w := func(s string) { wb([]byte(s)) }
	// The same severities come with every model of a check: their part
	// of the key is written out once.
	if d.sevKey == nil || !maps.Equal(d.sev, sev) {
		var b []byte
		for _, rule := range slices.Sorted(maps.Keys(sev)) {
			b = append(b, rule...)
			b = append(b, '=')
			b = strconv.AppendInt(b, int64(sev[rule]), 10)
			b = append(b, 0)
		}
		d.sev, d.sevKey = maps.Clone(sev), b
	}
	w(strconv.Itoa(lintDiskVersion))
	w(d.engine)
	wb(d.sevKey)
	w(strconv.FormatBool(a.Outliner() != nil))
	w(m.File)
	wb(m.Source)
	if info.OwnHash != "" {
		// The own hash covers the canonical form, in 64 bytes.
		w("own " + info.OwnHash)
	} else {
		wb(info.Canonical)
	}
	cols := func(cs []engine.Column) {
		w(strconv.Itoa(len(cs)))
		for _, c := range cs {
			w(c.Name)
			w(c.Type)
		}
	}
	cols(info.Columns)
	cols(info.Inferred)
	other := func(name string) {
		w(name)
		if pi := a.Models[name]; pi != nil && pi.Model != nil {
			w(string(pi.Model.Kind.Name))
			cols(pi.Columns)
		} else {
			w("missing")
		}
	}
	for _, r := range m.Refs() {
		other(r)
	}
	// A plain table name that is a model is an error of the check's,
	// which the linter reads anyway: it resolves a source's schema and
	// table against the models. In a model the check found anything in,
	// every model whose name ends in a string of the canonical form is
	// part of the key.
	if len(info.Diagnostics) > 0 || info.Broken {
		w("named")
		for _, name := range d.named(a, info.Canonical) {
			other(name)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// named lists, sorted, the models of a whose name's last part is one of
// the strings of the canonical form (a JSON document).
func (d *lintDisk) named(a *analysis.Analysis, canonical []byte) []string {
	if len(canonical) == 0 {
		return nil
	}
	if d.tablesOf != a {
		d.tablesOf, d.byTable = a, make(map[string][]string, len(a.Models))
		for name := range a.Models {
			i := strings.LastIndexByte(name, '.')
			d.byTable[name[i+1:]] = append(d.byTable[name[i+1:]], name)
		}
	}
	var out []string
	for i := 0; i < len(canonical); i++ {
		if canonical[i] != '"' {
			continue
		}
		j := i + 1
		for j < len(canonical) && canonical[j] != '"' {
			if canonical[j] == '\\' {
				j++
			}
			j++
		}
		if j > len(canonical) {
			break
		}
		word := canonical[i+1 : j]
		key := string(word)
		if bytes.ContainsFunc(word, func(r rune) bool { return 'A' <= r && r <= 'Z' }) {
			key = strings.ToLower(key)
		}
		if names := d.byTable[key]; len(names) > 0 {
			out = append(out, names...)
		}
		i = j
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func (d *lintDisk) get(key string) ([]project.Diagnostic, bool) {
	if key == "" {
		return nil, false
	}
	found, ok := d.old[key]
	if !ok {
		found, ok = d.used[key]
	}
	if ok {
		d.used[key] = found
	}
	return found, ok
}

func (d *lintDisk) put(key string, found []project.Diagnostic) {
	if key == "" {
		return
	}
	d.used[key] = found
	d.added = true
}

// save writes the findings the last whole check used, when they differ
// from what was read, and starts the next round from them.
func (d *lintDisk) save() error {
	if !d.added && len(d.used) == len(d.old) {
		d.used = map[string][]project.Diagnostic{}
		return nil
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(d.used); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(d.path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(d.path), ".lint-*.tmp")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(analysis.Seal("lint", lintDiskVersion, buf.Bytes())); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), d.path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	d.old, d.used, d.added = d.used, map[string][]project.Diagnostic{}, false
	return nil
}
