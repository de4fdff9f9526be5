package analysis

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
)

// CheckCache remembers what checking a model concluded, across processes.
// A check is a pure function of the model's file, its parents' shapes, the
// set of model names (a plain table name that is a model is a finding),
// the engine's version and, for seeds, the data file: the key covers all
// of them, so a hit is exactly what checking again would produce.
type CheckCache interface {
	Get(key string) (*CachedCheck, bool)
	Put(key string, c *CachedCheck)
}

// CachedCheck is one model's check result.
type CachedCheck struct {
	OwnHash     string
	Canonical   []byte
	Columns     []engine.Column
	Inferred    []engine.Column
	Broken      bool
	Diagnostics []project.Diagnostic
	// Definition is what a snapshot records (a function of the file and
	// Inferred): a plan compares it without encoding it again.
	Definition []byte
	// FilePatterns are the files the body reads by name (ModelInfo.Files)
	// and Files their stamps taken before the check: a hit whose files
	// moved since is a miss.
	FilePatterns []string
	Files        []FileStamp
}

// checkCacheVersion names the layout of keys and values; bump it when
// either changes.
const checkCacheVersion = 5

// cacheKey keys info's check, or returns "" when the model cannot be
// cached (its schema comes from files efmesh does not hash). Precondition:
// the parents were analyzed.
func (c *checker) cacheKey(info *ModelInfo, names string) string {
	m := info.Model
	h := sha256.New()
	wb := func(b []byte) {
		h.Write([]byte(strconv.Itoa(len(b))))
		h.Write([]byte{0})
		h.Write(b)
	}
	w := func(s string) { wb([]byte(s)) }
	w(strconv.Itoa(checkCacheVersion))
	w(strconv.Itoa(FingerprintVersion))
	w(c.d.Name())
	w(engineVersion(c.wb))
	if c.server != nil {
		// The server's findings are not a static binder's: a project
		// checked offline is checked again when the server is there.
		w("bound by the server")
	}
	w(m.File)
	wb(m.Source) // not copied: a model's file may hold megabytes
	if m.Expansion != nil {
		// Positions are the written file's: the same expansion of another
		// text is another check.
		wb(m.Expansion.File)
	}
	w(strconv.FormatBool(info.loadBroken))
	w(names)
	switch m.Kind.Name {
	case project.KindExternal:
		if m.Kind.Files != "" && m.Columns == nil {
			return ""
		}
	case project.KindSeed:
		content, err := c.fileHash(m.Kind.Path)
		if err != nil {
			return ""
		}
		w(content)
	}
	// The values of the variables the body uses (only theirs: a model
	// without @var keeps its key whatever vars say).
	for _, mc := range m.Macros {
		if mc.Kind == project.MacroVar {
			v, ok := c.a.Project.Config.Variables[mc.Arg]
			w("var " + mc.Arg + " " + strconv.FormatBool(ok))
			w(v)
		}
	}
	for _, r := range m.Refs() {
		w(r)
		pi := c.a.Models[r]
		if pi == nil {
			w("missing")
			continue
		}
		w(strconv.FormatBool(pi.Fingerprint == ""))
		w(strconv.Itoa(len(pi.Columns)))
		for _, col := range pi.Columns {
			w(col.Name)
			w(col.Type)
		}
	}
	c.auditKey(m, w)
	return hex.EncodeToString(h.Sum(nil))
}

// versioned is a workbench that names the version of the engine library
// that checks (DuckDB's version(), the Postgres parser's release).
type versioned interface {
	Version(ctx context.Context) (string, error)
}

// engineVersions memoizes each dialect's engine version: the library is
// linked into the process, so its version is asked once.
var engineVersions sync.Map // dialect name → version

// engineVersion is the version of the engine library behind wb, part of
// every cache key so that an upgraded engine never reuses the checks of
// the old one; "" when the workbench cannot say.
func engineVersion(wb Workbench) string {
	name := wb.Dialect().Name()
	if v, ok := engineVersions.Load(name); ok {
		return v.(string)
	}
	vw, ok := wb.(versioned)
	if !ok {
		return ""
	}
	v, err := vw.Version(context.Background())
	if err != nil {
		return "" // not memoized: asked again next time
	}
	engineVersions.Store(name, v)
	return v
}

// modelNames is a hash of the sorted model names: every key covers it,
// hashed once here rather than per model.
func modelNames(p *project.Project) string {
	names := make([]string, 0, len(p.ByName))
	for n := range p.ByName {
		names = append(names, n)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		h.Write([]byte(n))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

func cachedOf(info *ModelInfo, files []FileStamp) *CachedCheck {
	return &CachedCheck{OwnHash: info.OwnHash, Canonical: info.Canonical, Columns: info.Columns, Inferred: info.Inferred,
		Broken: info.Broken, Diagnostics: info.Diagnostics, Definition: info.DefinitionJSON(),
		FilePatterns: info.Files, Files: files}
}

// fill restores a cached check into info; fingerprints are recomputed from
// the own hash and the parents' fingerprints of this analysis.
func (cc *CachedCheck) fill(info *ModelInfo, a *Analysis) {
	info.OwnHash, info.Canonical, info.Columns, info.Inferred = cc.OwnHash, cc.Canonical, cc.Columns, cc.Inferred
	info.Broken, info.Diagnostics, info.Files = cc.Broken, cc.Diagnostics, cc.FilePatterns
	if cc.Definition != nil {
		info.def = &definitionMemo{json: cc.Definition}
		info.def.once.Do(func() {})
	}
	parentsOK := true
	for _, r := range info.Model.Refs() {
		pi := a.Models[r]
		if pi == nil || pi.Fingerprint == "" {
			parentsOK = false
			continue
		}
		info.Parents[r] = pi.Fingerprint
	}
	if info.OwnHash != "" && parentsOK && !info.Broken {
		info.Fingerprint = FingerprintOf(info.OwnHash, info.Parents)
	}
}

// ensureParents creates the stand-ins of m's parents that a cached
// analysis skipped, so m can be bound against them.
func (c *checker) ensureParents(ctx context.Context, m *project.Model) error {
	for _, r := range m.Refs() {
		pi := c.a.Models[r]
		if pi == nil || pi.Columns == nil || c.a.standIns[r] {
			continue
		}
		if err := c.createStandIn(ctx, pi.Model, pi.Columns); err != nil {
			return err
		}
	}
	return nil
}

// FileCache is a CheckCache kept in one file (by default
// .efmesh/cache/check.gob). Entries not used by the last analysis are
// dropped when it is saved, so the file tracks the project's size.
type FileCache struct {
	path string
	mu   sync.Mutex
	old  map[string]*CachedCheck
	used map[string]*CachedCheck
	miss bool
}

// cacheEntry is one entry of a FileCache's file. The file is sealed (see
// Seal): the entry count, then that many entries, each its own gob
// message.
type cacheEntry struct {
	Key   string
	Check *CachedCheck
}

// checkFileFormat names the layout of the check cache's file; bump it
// when it changes.
const checkFileFormat = 1

// OpenFileCache reads the cache at path; a missing or unreadable file is an
// empty cache (it is only ever a speed-up).
func OpenFileCache(path string) *FileCache {
	fc := &FileCache{path: path, old: map[string]*CachedCheck{}, used: map[string]*CachedCheck{}}
	f, err := os.Open(path)
	if err != nil {
		return fc
	}
	defer f.Close()
	// Decoded entry by entry as the file is read: neither the file nor
	// one message holding every entry is ever in memory beside them.
	sr, ok := NewSealReader(f, "check", checkFileFormat)
	if !ok {
		return fc
	}
	dec := gob.NewDecoder(sr)
	var n int
	if dec.Decode(&n) != nil || n < 0 {
		return fc
	}
	m := make(map[string]*CachedCheck, min(n, 1<<16))
	for range n {
		var e cacheEntry
		if dec.Decode(&e) != nil || e.Check == nil {
			return fc
		}
		m[e.Key] = e.Check
	}
	if !sr.Verify() {
		return fc // a damaged file: no entry of it is trusted
	}
	fc.old = m
	return fc
}

// Len is the number of entries the cache was opened with.
func (fc *FileCache) Len() int {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	return len(fc.old)
}

func (fc *FileCache) Get(key string) (*CachedCheck, bool) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	c, ok := fc.old[key]
	if !ok {
		c, ok = fc.used[key]
	}
	if ok {
		fc.used[key] = c
	}
	return c, ok
}

func (fc *FileCache) Put(key string, c *CachedCheck) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	fc.used[key] = c
	fc.miss = true
}

// Save writes the cache when the last analysis added to it or stopped
// using entries, through a temporary file and a rename.
func (fc *FileCache) Save() error {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	if !fc.miss && len(fc.used) == len(fc.old) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(fc.path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(fc.path), ".check-*.tmp")
	if err != nil {
		return err
	}
	// One gob message per entry, straight into the file: gob buffers a
	// whole message, so one map of every entry would hold the whole
	// encoding (about every model's canonical form and definition
	// together) in memory at once.
	bw := bufio.NewWriterSize(tmp, 64<<10)
	sw := NewSealWriter(bw, "check", checkFileFormat)
	enc := gob.NewEncoder(sw)
	err = enc.Encode(len(fc.used))
	for k, c := range fc.used {
		if err != nil {
			break
		}
		err = enc.Encode(cacheEntry{Key: k, Check: c})
	}
	if err == nil {
		err = sw.Close()
	}
	if err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := bw.Flush(); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), fc.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}
