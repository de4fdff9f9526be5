package digest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/connect"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
)

// The no-op digest: what a project looked like when a plan of an
// environment found nothing to change, so that the next plan of an
// unchanged project is recognised by stat calls and one small read of the
// state store, without parsing a file, decoding a snapshot or opening
// DuckDB.
//
// It is a local file (.efmesh/cache/noop/<env>.digest) keyed by the state
// store's token of the environment (state.EnvVersioned): another machine's
// apply, a run, a janitor or a migration moves the token, so the digest
// stops answering. It holds, as they were read by the plan:
//
//   - every file the plan read (efmesh.yaml, model, test and audit files,
//     seed data) with its size, mtime and content hash: a file whose
//     mtime moved but whose content hash did not is still unchanged;
//   - the list of the files the globs match (a new or removed file);
//   - the request: environment, --var overrides (the vars of efmesh.yaml
//     are in its hash), and the clock, valid until the next hour boundary
//     (no interval, daily or hourly, can fall due before it) or the next
//     firing of a FULL model's cron if sooner (validUntil);
//   - the efmesh binary (size, mtime), which stands for efmesh's and the
//     engine's versions;
//   - the warehouse file's size and mtime, which the plan checks the store
//     against;
//   - the state file's stamps when they are known to move with any write
//     (storeStamps): then the token is not read at all;
//   - the plan's text, to print it again, and the hash of the plan's JSON,
//     kept beside the digest (<env>.plan.json), read for --json only.
//
// Anything else (another selection, a preview, a restatement, verdicts)
// is not a plain plan: the front end asks for the full path.

// noopFormat names the digest's layout; bump it when the layout changes.
const noopFormat = 8

// NoopRequest is a plain plan request (no selection, preview, restatement
// or verdicts) whose no-op answer a digest may give: the environment, the
// --var overrides and the plan's clock.
type Request struct {
	Env  string
	Vars map[string]string
	Now  time.Time
}

// key hashes what of the request a digest must match besides the clock.
func (r Request) key() string {
	h := sha256.New()
	w := func(s string) {
		h.Write([]byte(strconv.Itoa(len(s))))
		h.Write([]byte{0})
		h.Write([]byte(s))
	}
	w(r.Env)
	names := make([]string, 0, len(r.Vars))
	for n := range r.Vars {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		w(n)
		w(r.Vars[n])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// NoopHit is a no-op plan answered from the digest.
type Hit struct {
	// Text is the plan as WritePlan writes it, kept in the digest: a hit
	// prints it without decoding the plan.
	Text string
	// UnusedVars are the --var overrides nothing reads, as the full path
	// found them.
	UnusedVars []project.UnusedVar
	// ByStamps: the state store was recognised by its file's stamps, its
	// token not read.
	ByStamps bool
	// applyNoop: the digest's ApplyNoop.
	applyNoop bool
	jsonPath  string
	jsonSum   string
}

// Plan decodes the plan the digest holds (for --json, or a caller that
// needs the models): the plan the full path made, as it made it.
func (h Hit) Plan() (*planner.Plan, error) {
	sealed, err := os.ReadFile(h.jsonPath)
	if err != nil {
		return nil, fmt.Errorf("digest: the no-op digest's plan: %w", err)
	}
	raw, ok := analysis.Unseal("plan", noopFormat, sealed)
	if !ok {
		return nil, fmt.Errorf("digest: the no-op digest's plan %s is damaged", h.jsonPath)
	}
	if sum := sha256.Sum256(raw); hex.EncodeToString(sum[:]) != h.jsonSum {
		return nil, fmt.Errorf("digest: the no-op digest's plan %s is not the one the digest names", h.jsonPath)
	}
	var p planner.Plan
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, fmt.Errorf("digest: the no-op digest's plan: %w", err)
	}
	return &p, nil
}

// stamp is one file as a plan saw it: Missing when it did not exist.
type Stamp struct {
	Path    string
	Size    int64
	ModTime int64
	Hash    string // sha256 of the content, 32 bytes; "" when not hashed
	Missing bool
	// Racy: the mtime was not safely older than the moment the file was
	// read (racyWindow), so a same-size write within the same tick of the
	// file system's clock would keep it: the file is compared by its
	// content hash, whatever its stamps say.
	Racy bool
}

// racy reports whether a file whose mtime is modTime, read at at, may be
// written again without its mtime moving: a timestamp with a
// sub-millisecond part comes from a fine clock (racyStore), any other from
// a coarse file system (racyDir). One rule for every stamped file: model,
// seed, audit and data files, efmesh.yaml, folders, the state file.
func racy(modTime int64, at time.Time) bool {
	window := racyStore
	if modTime%int64(time.Millisecond) == 0 {
		window = racyDir
	}
	return at.Sub(time.Unix(0, modTime)) < window
}

type noopDigest struct {
	Format  int
	Request string
	Saw     projectSeen
	Store   string
	// StoreFiles are the state file's stamps (the database and its WAL)
	// as they were when the store's token was last read equal to Store:
	// nil when unknown, or when the store is not a file.
	StoreFiles []Stamp
	UnusedVars []project.UnusedVar
	PlanSum    string // sha256 of the plan's JSON (noopJSONPath)
	// ApplyNoop: an apply of this plan writes nothing either (no audit
	// files to record, planner.Plan.RecordsAuditSources), so a plain apply
	// may be answered from the digest (LookupLocked). false: not known.
	ApplyNoop bool
}

// projectSeen is what the plan a digest was taken from saw of the
// project and around it: the clock's window in which the plan stands,
// the binary, every file it read, the listing of the globs (and their
// folders), and the warehouse's files. Both digests (the no-op digest
// and the fingerprints digest) hold while it does (holds).
type projectSeen struct {
	Now       time.Time
	Until     time.Time // the clock after which the plan may differ
	Binary    Stamp
	Globs     [3][]string
	Listed    pathList
	Dirs      []Stamp
	Files     stampList
	Warehouse []Stamp
	// Schemas are the warehouse's schemas the plan reads, lower-cased
	// (warehouseSchemas): a logged move of the warehouse that wrote none
	// of them keeps the digest (moves.go). nil: not known.
	Schemas []string
}

// holds reports whether the project at root is still what s saw at the
// clock now: within the clock's window, the same binary, every file as
// stamped, the same listing (the folders as stamped, or the globs listing
// the same files), and the warehouse's files as stamped or moved only
// around what the plan read (a logged move). It returns the project as
// far as efmesh.yaml says (its root and settings: the file is one of the
// stamped), and the warehouse's stamps now. touched: a file was touched,
// not changed, or the folders were stamped anew (s has them); a digest
// rewritten with s checks by stat only next time.
func (s *projectSeen) holds(root string, now time.Time) (proj *project.Project, wh []Stamp, touched, ok bool) {
	if now.Before(s.Now) || !now.Before(s.Until) {
		return nil, nil, false, false
	}
	if bin, err := binaryStamp(); err != nil || bin != s.Binary {
		return nil, nil, false, false
	}
	if !sameFiles(s.Files, &touched) {
		return nil, nil, false, false
	}
	if !s.sameDirs() {
		cfg := project.Config{Models: s.Globs[0], Tests: s.Globs[1], Audits: s.Globs[2]}
		if !slices.Equal(project.ListFiles(root, cfg), s.Listed) {
			return nil, nil, false, false
		}
		// The folders stamped now, once settled, and the listing still
		// the same after: the next check stats the folders, not the
		// listing.
		if dirs := globDirs(root, s.Globs, time.Now()); dirs != nil && slices.Equal(project.ListFiles(root, cfg), s.Listed) {
			s.Dirs = dirs
			touched = true
		}
	}
	src, err := os.ReadFile(filepath.Join(root, project.ConfigFile))
	if err != nil {
		return nil, nil, false, false
	}
	proj = &project.Project{Root: root}
	proj.Config, _ = project.ParseConfig(project.ConfigFile, src)
	wh, watchable := WarehouseStamps(proj)
	if !watchable || !warehouseMovedAround(root, s.Warehouse, wh, s.Schemas) {
		return nil, nil, false, false
	}
	return proj, wh, touched, true
}

// The digest's file is a gob stream of two values: the stamps, decoded on
// every plan, then the plan's text, printed on a hit. The plan's JSON is a
// file of its own beside it, read only when asked for (NoopHit.Plan): a
// hit reads one small file.
func noopPath(root, env string) string {
	return filepath.Join(root, ".efmesh", "cache", "noop", env+".digest")
}

func noopJSONPath(digest string) string {
	return strings.TrimSuffix(digest, ".digest") + ".plan.json"
}

// recorder stamps every file the loader reads: stat before the read,
// hash of the bytes read. A file written after its stat has another stamp
// on the next check, and a content other than what was hashed.
type Recorder struct {
	mu    sync.Mutex
	files []Stamp
}

func (r *Recorder) Read(abs string) ([]byte, error) {
	src, size, mtime, err := project.ReadFileStamp(abs)
	if err != nil {
		return src, err
	}
	read := time.Now()
	sum := sha256.Sum256(src)
	r.mu.Lock()
	r.files = append(r.files, Stamp{Path: abs, Size: size, ModTime: mtime, Hash: string(sum[:]), Racy: racy(mtime, read)})
	r.mu.Unlock()
	return src, nil
}

// stampInput stamps path, a file a plan reads, now: hashed when hash says
// so or when its stamps are racy (then compared by content next time).
func stampInput(path string, hash bool) (Stamp, error) {
	s, err := stampFile(path, false)
	if err != nil || s.Missing {
		return s, err
	}
	if racy(s.ModTime, time.Now()) {
		h, err := stampFile(path, true)
		if err != nil {
			return Stamp{}, err
		}
		h.Racy = true
		return h, nil
	}
	if hash {
		return stampFile(path, true)
	}
	return s, nil
}

// stampFile stamps path now; hash says whether to hash its content.
func stampFile(path string, hash bool) (Stamp, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Stamp{Path: path, Missing: true}, nil
	}
	if err != nil {
		return Stamp{}, err
	}
	s := Stamp{Path: path, Size: fi.Size(), ModTime: fi.ModTime().UnixNano()}
	if hash {
		src, err := os.ReadFile(path)
		if err != nil {
			return Stamp{}, err
		}
		sum := sha256.Sum256(src)
		s.Hash = string(sum[:])
	}
	return s, nil
}

// same reports whether the file at s.Path is still what s says: the same
// size and mtime, or else the same content hash (touched, not changed:
// touched is then set, to refresh the digest).
func (s Stamp) same(st *statter, touched *bool) bool {
	now, ok := st.stat(s.Path)
	var err error
	if !ok {
		now, err = stampFile(s.Path, false)
	}
	if err != nil || now.Missing != s.Missing || now.Size != s.Size {
		return false
	}
	if s.Missing || (now.ModTime == s.ModTime && !s.Racy) {
		return true
	}
	if s.Hash == "" {
		return false
	}
	now, err = stampFile(s.Path, true)
	if err != nil || now.Hash != s.Hash {
		return false
	}
	*touched = true
	return true
}

func binaryStamp() (Stamp, error) {
	exe, err := os.Executable()
	if err != nil {
		return Stamp{}, err
	}
	return stampFile(exe, false)
}

// externalStamps are the data files EXTERNAL models read, and the folders
// their globs walk, stamped by size and mtime (data files are not hashed:
// they may be large): a file replaced, touched, added or removed under a
// glob misses the digest, as the plan describes the files and compares
// their columns with the declared ones. ok is false when a model reads
// files the digest cannot watch (a URL).
func externalStamps(p *project.Project) (out []Stamp, ok bool) {
	var patterns []string
	for _, m := range p.Models {
		if m.Kind.Name != project.KindExternal || m.Kind.Files == "" {
			continue
		}
		patterns = append(patterns, analysis.AbsPath(p.Root, m.Kind.Files))
	}
	return patternStamps(patterns)
}

// usesLake reports whether p keeps data in its lake: a lake folder named
// in efmesh.yaml, or a model of target parquet (in the default lake folder
// when efmesh.yaml names none).
func usesLake(p *project.Project) bool {
	if p.Config.Lake != "" {
		return true
	}
	for _, m := range p.Models {
		if planner.TargetOf(m) == "parquet" {
			return true
		}
	}
	return false
}

// SourcesVersion is what moves when the files an EXTERNAL model of p reads
// change (a file replaced, added or removed): their stamps, hashed. ""
// when they cannot be watched (a URL, a glob whose folder is missing): a
// cache keyed by it must not keep its answer.
func SourcesVersion(p *project.Project) string {
	stamps, ok := externalStamps(p)
	if !ok {
		return ""
	}
	h := sha256.New()
	for _, s := range stamps {
		fmt.Fprintf(h, "%s\x00%d\x00%d\x00%v\n", s.Path, s.Size, s.ModTime, s.Missing)
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// patternStamps stamps the files and globs of patterns (absolute paths)
// as analysis.WalkPatterns names them: a literal path is one stamp, a glob
// the stamps of its literal folder, of every folder under it and of every
// file it matches. ok is false when a pattern cannot be watched (a URL, a
// glob whose folder is missing).
func patternStamps(patterns []string) (out []Stamp, ok bool) {
	ok = analysis.WalkPatterns(patterns, func(path string, dir bool) error {
		if !dir {
			s, err := stampInput(path, false)
			if err != nil {
				return err
			}
			out = append(out, s)
			return nil
		}
		// A folder: its stamps or, racy, a miss (no hash: compared as
		// changed until a plan stamps it settled).
		s, err := stampFile(path, false)
		if err != nil {
			return err
		}
		if s.Missing {
			return errUnwatched // a glob whose folder is missing
		}
		if racy(s.ModTime, time.Now()) {
			s.Racy = true
		}
		out = append(out, s)
		return nil
	})
	if !ok {
		return nil, false
	}
	return out, true
}

// errUnwatched stops a walk that found what a digest cannot watch.
var errUnwatched = errors.New("digest: not watchable")

// warehouseStamps are the DuckDB warehouse's files; ok is false for a
// warehouse the digest cannot watch (PostgreSQL).
func WarehouseStamps(p *project.Project) ([]Stamp, bool) {
	if !connect.EngineKind(p).Capabilities().InProcess {
		return nil, false
	}
	path := connect.WarehousePath(p)
	if path == ":memory:" {
		return nil, true // empty in every process
	}
	var out []Stamp
	for _, f := range []string{path, path + ".wal"} {
		s, err := stampFile(f, false)
		if err != nil {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// storeStamps are the SQLite state file's stamps: the database and its
// write-ahead log, which every committed write changes (a WAL frame
// appended, a checkpoint written back, the log removed); ok is false for
// a store that is not a file (PostgreSQL).
func StoreStamps(p *project.Project) ([]Stamp, bool) {
	if !connect.StoreIsFile(p) {
		return nil, false
	}
	path := connect.StorePath(p)
	var out []Stamp
	for _, f := range []string{path, path + "-wal"} {
		s, err := stampFile(f, false)
		if err != nil {
			return nil, false
		}
		if s.Size == 0 && f != path {
			// An empty log holds no frame, as a missing one (a reader
			// opening the store creates it).
			s = Stamp{Path: f, Missing: true}
		}
		out = append(out, s)
	}
	return out, true
}

// racyStore is how long after a write a file's mtime may still be shared
// by the next write: the file system's clock ticks (Linux's coarse clock
// ticks every 1 to 10 ms); a timestamp without a sub-millisecond part
// comes from a coarser file system, trusted only after racyDir.
const racyStore = 20 * time.Millisecond

// settledStamps reports whether stamps, taken at now, would change with
// the next write to their files: each mtime is older than the clock's
// tick, so a later write stamps a later mtime.
func Settled(stamps []Stamp, now time.Time) bool {
	for _, s := range stamps {
		if s.Missing {
			continue
		}
		if racy(s.ModTime, now) {
			return false
		}
	}
	return true
}

func StoreToken(ctx context.Context, st state.Reader, env string) (string, bool) {
	v, ok := st.(state.EnvVersioned)
	if !ok {
		return "", false
	}
	tok, err := v.EnvironmentVersion(ctx, env)
	return tok, err == nil
}

// validUntil is the first moment a plan made at now may say something
// else with nothing changed: the next hour boundary (no interval, daily or
// hourly, falls due before it), or sooner, the next firing of a FULL
// model's cron (the plan names the FULL models due for a refresh).
func validUntil(p *project.Project, now time.Time) time.Time {
	until := hourEnd(now)
	for _, m := range p.Models {
		if m.Kind.Name != project.KindFull {
			continue
		}
		c, err := project.ParseCron(p.Config.CronOf(m))
		if err != nil {
			continue
		}
		if next := c.Next(now); !next.IsZero() && next.Before(until) {
			until = next
		}
	}
	return until
}

// hourEnd is the end of the hour holding t: no interval (hourly or daily)
// falls due between t and it.
func hourEnd(t time.Time) time.Time { return t.UTC().Truncate(time.Hour).Add(time.Hour) }

// Lookup answers a plain plan request from the environment's no-op
// digest when the project holding dir, the state store and the warehouse
// are as they were when a plan last found nothing to change: ok is false
// otherwise, and the caller makes the full plan. It never errors: any
// doubt is a miss.
//
// The store is recognised by its file's stamps when the digest has them;
// else its token is read (a read-only open) and, when it matches and the
// file's stamps are settled, they are kept for the next plan.
func Lookup(ctx context.Context, dir string, req Request) (hit Hit, ok bool) {
	return quickPlan(ctx, dir, req, false, nil)
}

// Settle is Lookup for a process that has just written the store
// (an apply, once its store is closed): on a hit it waits for the state
// file's stamps to settle (racyStore, at most) so that the digest keeps
// them, and the next plan reads no token.
func Settle(ctx context.Context, dir string, req Request) bool {
	_, ok := quickPlan(ctx, dir, req, true, nil)
	return ok
}

// quickPlan is Lookup; with under, a store the caller holds the
// environment's lock in, the store's token is read from it whatever the
// stamps say, and the digest is not written.
func quickPlan(ctx context.Context, dir string, req Request, settle bool, under state.Reader) (hit Hit, ok bool) {
	if analysis.ValidateEnv(req.Env) != nil {
		return hit, false
	}
	root, err := project.FindRoot(dir)
	if err != nil {
		return hit, false
	}
	path := noopPath(root, req.Env)
	d, dec, ok := loadDigest(path, root, req)
	if !ok {
		return hit, false
	}
	p, wh, touched, ok := d.Saw.holds(root, req.Now)
	if !ok {
		return hit, false
	}
	if !slices.Equal(wh, d.Saw.Warehouse) { // moved around what the plan reads
		d.Saw.Warehouse = wh
		touched = true
	}
	files, fileStore := StoreStamps(p)
	byStamps := under == nil && fileStore && d.StoreFiles != nil && slices.Equal(files, d.StoreFiles)
	if under != nil {
		if tok, ok := StoreToken(ctx, under, req.Env); !ok || tok != d.Store {
			return hit, false
		}
		touched = false
	} else if !byStamps {
		d.StoreFiles = nil
		if settle && fileStore {
			if wait := time.Until(latestMtime(files).Add(racyStore)); wait > 0 && wait <= racyStore {
				time.Sleep(wait)
			}
		}
		st, err := connect.ReadOnlyStore(ctx, p)
		if err != nil || st == nil {
			return hit, false
		}
		tok, ok := StoreToken(ctx, st, req.Env)
		st.Close()
		if !ok || tok != d.Store {
			return hit, false
		}
		// The stamps taken before the token was read, and the same after
		// it: the token is that file's, and settled stamps move with the
		// next write.
		if after, ok := StoreStamps(p); ok && slices.Equal(files, after) && Settled(files, time.Now()) {
			d.StoreFiles = files
			touched = true
		}
	}
	var text string
	if dec.Decode(&text) != nil {
		return hit, false
	}
	if touched { // stat-only next time
		for i, s := range d.Saw.Files {
			if s.Hash == "" {
				continue
			}
			if now, err := stampFile(s.Path, false); err != nil || (now.Size == s.Size && now.ModTime == s.ModTime && !s.Racy) {
				continue
			}
			if now, err := stampInput(s.Path, true); err == nil && now.Hash == s.Hash {
				d.Saw.Files[i] = now
			}
		}
		_ = writeDigestRaw(path, &d, text)
	}
	return Hit{Text: text, UnusedVars: d.UnusedVars, ByStamps: byStamps, applyNoop: d.ApplyNoop, jsonPath: noopJSONPath(path), jsonSum: d.PlanSum}, true
}

// loadDigest reads the digest at path, without checking a file: ok when
// it is a digest of req's request (projectSeen.holds checks the rest). dec
// reads on to the plan's text.
func loadDigest(path, root string, req Request) (d noopDigest, dec *gob.Decoder, ok bool) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return d, nil, false
	}
	body, ok := analysis.Unseal("noop", noopFormat, raw)
	if !ok {
		return d, nil, false
	}
	dec = gob.NewDecoder(bytes.NewReader(body))
	if dec.Decode(&d) != nil || d.Format != noopFormat || d.Request != req.key() {
		return d, nil, false
	}
	// efmesh.yaml is always the first stamp: a digest without it vouches
	// for nothing.
	if len(d.Saw.Files) == 0 || d.Saw.Files[0].Path != filepath.Join(root, project.ConfigFile) {
		return d, nil, false
	}
	return d, dec, true
}

// latestMtime is the latest mtime of stamps.
func latestMtime(stamps []Stamp) time.Time {
	var t int64
	for _, s := range stamps {
		if !s.Missing && s.ModTime > t {
			t = s.ModTime
		}
	}
	return time.Unix(0, t)
}

// Before is what a plan saw of the store and the warehouse before it
// read them: a digest of the plan takes these, not what is there after it
// (another writer may have moved them meanwhile).
type Before struct {
	Env string
	// Store is the store's token of Env (state.EnvVersioned).
	Store string
	// Warehouse are the warehouse's stamps (WarehouseStamps).
	Warehouse []Stamp
}

// Watch is what a plan of env of p is about to read of the store st and
// of the warehouse, for Remember; nil for a store or a warehouse the
// digest cannot watch.
func Watch(ctx context.Context, st state.Reader, p *project.Project, env string) *Before {
	tok, ok := StoreToken(ctx, st, env)
	if !ok {
		return nil
	}
	wh, ok := WarehouseStamps(p)
	if !ok {
		return nil
	}
	return &Before{Env: env, Store: tok, Warehouse: wh}
}

// Planned is what a plan was made from, as Remember needs it.
type Planned struct {
	Project  *project.Project
	Analysis *analysis.Analysis
	// Loaded are the stamps of the files the project was loaded from
	// (Recorder.Stamped); nil: not stamped, never remembered.
	Loaded *Loaded
	// Before is what the plan saw of the store and the warehouse (Watch).
	Before *Before
	// Selected: the plan was of a selection (never remembered).
	Selected   bool
	UnusedVars []project.UnusedVar
	// Text is the plan as the front ends print it, kept to be printed
	// again on a hit.
	Text string
}

// Forget removes the no-op digest of env of the project at root: a plan
// that follows takes the full path until a digest is remembered again.
func Forget(root, env string) error {
	if err := os.Remove(noopPath(root, env)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// Remember saves p, the plan of a plain request made from pl, as the
// environment's no-op digest when it changes nothing, so that the next
// plain plan of an unchanged project is answered by Lookup. A plan with
// changes removes the digest. A project whose plan depends on what the
// digest cannot watch (a PostgreSQL warehouse, a lake's files, an EXTERNAL
// model whose columns come from its files) is not remembered.
func Remember(req Request, pl Planned, p *planner.Plan) error {
	root := pl.Project.Root
	b := pl.Before
	if p.HasChanges || len(p.LeftOut) > 0 || p.Preview != nil || pl.Selected || pl.Loaded == nil || b == nil || b.Env != req.Env {
		return Forget(root, req.Env)
	}
	files := slices.Clone(pl.Loaded.files)
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	// efmesh.yaml first: Lookup reads it once the stamps held.
	cfgPath := filepath.Join(root, project.ConfigFile)
	slices.SortStableFunc(files, func(a, b Stamp) int {
		switch {
		case a.Path == cfgPath && b.Path != cfgPath:
			return -1
		case b.Path == cfgPath && a.Path != cfgPath:
			return 1
		}
		return 0
	})
	files = append(files, pl.Loaded.seeds...)
	for _, m := range pl.Project.Models {
		if m.Kind.Name == project.KindExternal && m.Columns == nil {
			return Forget(root, req.Env)
		}
	}
	// The EXTERNAL models' data files as Open stamped them, before the
	// plan (or the apply) read them: stamped now, they could vouch for a
	// file replaced after the plan checked the one before.
	files = append(files, pl.Loaded.external...)
	// The files model bodies read by name (read_csv('…')): the analysis
	// names them once it has parsed the bodies.
	body, watchable := bodyFileStamps(pl.Analysis)
	if !watchable {
		return Forget(root, req.Env)
	}
	files = append(files, body...)
	if usesLake(pl.Project) {
		// The lake's parquet files are relations the plan checks, and
		// the digest does not stamp them.
		return Forget(root, req.Env)
	}
	bin, err := binaryStamp()
	if err != nil {
		return nil
	}
	cfg := pl.Project.Config
	dirs := globDirs(root, [3][]string{cfg.Models, cfg.Tests, cfg.Audits}, time.Now())
	if dirs != nil && !slices.Equal(project.ListFiles(root, cfg), pl.Loaded.listed) {
		dirs = nil // a file came or went since Open listed them
	}
	d := &noopDigest{
		Format:  noopFormat,
		Request: req.key(),
		Saw: projectSeen{
			Now:       req.Now.UTC(),
			Until:     validUntil(pl.Project, req.Now),
			Binary:    bin,
			Globs:     [3][]string{cfg.Models, cfg.Tests, cfg.Audits},
			Listed:    pl.Loaded.listed,
			Dirs:      dirs,
			Files:     files,
			Warehouse: b.Warehouse,
			Schemas:   planSchemas(pl, req.Env, p),
		},
		Store:      b.Store,
		UnusedVars: pl.UnusedVars,
		ApplyNoop:  !p.RecordsAuditSources(),
	}
	if err := rememberFingerprints(pl.Project, req, p, d); err != nil {
		return err
	}
	return writeDigest(noopPath(root, req.Env), d, p, pl.Text)
}

// writeDigest writes d atomically (a rename), so a concurrent Lookup
// reads the old digest or the new one.
func writeDigest(path string, d *noopDigest, p *planner.Plan, text string) error {
	// The plan in JSON, its own format: gob would not keep an empty
	// slice apart from a nil one, which the plan's JSON tells apart.
	planJSON, err := json.Marshal(p)
	if err != nil {
		return err
	}
	// The JSON first: a digest names the JSON by its hash, so a digest
	// next to another plan's JSON answers no --json.
	if err := writeAtomic(noopJSONPath(path), analysis.Seal("plan", noopFormat, planJSON)); err != nil {
		return err
	}
	sum := sha256.Sum256(planJSON)
	d.PlanSum = hex.EncodeToString(sum[:])
	return writeDigestRaw(path, d, text)
}

// writeDigestRaw writes the digest's two values: the stamps and the
// plan's text.
func writeDigestRaw(path string, d *noopDigest, text string) error {
	var buf bytes.Buffer
	enc := gob.NewEncoder(&buf)
	if err := enc.Encode(d); err != nil {
		return err
	}
	if err := enc.Encode(text); err != nil {
		return err
	}
	return writeAtomic(path, analysis.Seal("noop", noopFormat, buf.Bytes()))
}

// loadedFiles are the stamps of what Open read: the project's files as the
// loader read them, the glob's listing and the seeds' data files (stamped
// before the analysis read them).
type Loaded struct {
	files    []Stamp
	listed   []string
	seeds    []Stamp
	external []Stamp
}

// loaded turns what the loader read into the project's stamps, and stamps
// the seeds' and the EXTERNAL models' data files, which the analysis and
// the plan read next.
func (r *Recorder) Stamped(p *project.Project) *Loaded {
	r.mu.Lock()
	defer r.mu.Unlock()
	l := &Loaded{files: slices.Clone(r.files)}
	cfgPath := filepath.Join(p.Root, project.ConfigFile)
	for _, s := range l.files {
		if s.Path == cfgPath {
			continue
		}
		if rel, err := filepath.Rel(p.Root, s.Path); err == nil {
			l.listed = append(l.listed, filepath.ToSlash(rel))
		}
	}
	sort.Strings(l.listed)
	for _, m := range p.Models {
		if m.Kind.Name != project.KindSeed {
			continue
		}
		path := analysis.AbsPath(p.Root, m.Kind.Path)
		if strings.Contains(path, "://") {
			return nil // remote data: not watched
		}
		s, err := stampInput(path, true)
		if err != nil {
			return nil
		}
		l.seeds = append(l.seeds, s)
	}
	// Every stamp is taken before the read it vouches for: the EXTERNAL
	// models' data files here, before the analysis or a plan reads them.
	ext, watchable := externalStamps(p)
	if !watchable {
		return nil // files the digest cannot watch (a URL)
	}
	l.external = ext
	return l
}

// racyDir is how recent a folder's mtime may be and still be trusted to
// move on the next change: a file added within the same tick of a coarse
// clock would not move it.
const racyDir = 2 * time.Second

// globDirs stamps the folders the project's globs list (the walk of
// project.WalkGlob, which project.ListFiles walks too), so that a check finds the listing unchanged by stat calls
// alone: a file added, removed or renamed moves its folder's mtime. A base
// that does not exist is stamped missing. nil: a folder changed too recently to be trusted
// (racyDir), or could not be read; the check lists the files instead.
func globDirs(root string, globs [3][]string, now time.Time) []Stamp {
	seen := map[string]bool{}
	var out []Stamp
	add := func(rel string) bool {
		abs := filepath.Join(root, filepath.FromSlash(rel))
		if seen[abs] {
			return true
		}
		seen[abs] = true
		s, err := stampFile(abs, false)
		// A folder is trusted only once older than racyDir, whatever its
		// clock: adding a file is the change it stands for.
		if err != nil || (!s.Missing && now.Sub(time.Unix(0, s.ModTime)) < racyDir) {
			return false
		}
		out = append(out, s)
		return true
	}
	fsys := os.DirFS(root)
	for _, patterns := range globs {
		for _, pattern := range patterns {
			ok := true
			err := project.WalkGlob(fsys, pattern, func(name string, d fs.DirEntry, err error) error {
				switch {
				case d == nil && errors.Is(err, fs.ErrNotExist):
					// No file matches below a folder that does not
					// exist, and creating it (or any of its parents)
					// makes it exist: its missing stamp says so without
					// any clock, where a parent's mtime would move with
					// every file written beside it (the warehouse, its
					// WAL).
					ok = add(name)
					return nil
				case err != nil:
					return err
				case !d.IsDir():
					return nil
				}
				if !add(name) {
					ok = false
					return fs.SkipAll
				}
				return nil
			})
			if err != nil || !ok {
				return nil
			}
		}
	}
	if out == nil {
		out = []Stamp{} // no folder to watch is not "list the files"
	}
	return out
}

// sameDirs reports whether every folder the globs list is as the digest
// stamped it: then the listing is too. false: list the files.
func (s *projectSeen) sameDirs() bool {
	if s.Dirs == nil {
		return false
	}
	for _, d := range s.Dirs {
		now, err := stampFile(d.Path, false)
		if err != nil || now != d {
			return false
		}
	}
	return true
}

// rememberPromoted writes the no-op digest of req.Env right after
// QuickApplyPromotion promoted q's plan into it, under the environment's
// lock: the plan of req.Env is then every model unchanged at the
// fingerprint promoted (planner.Settled's plan), against the store's token
// read now and the warehouse's stamps after the promotion. Anything that
// fails leaves no digest.
func rememberPromoted(ctx context.Context, st state.Reader, req Request, q promotionHit, d engine.Dialect, warehouse []Stamp, text func(*planner.Plan) string) {
	tok, ok := StoreToken(ctx, st, req.Env)
	if !ok {
		return
	}
	fd := q.digest
	p := &planner.Plan{Env: req.Env, Models: make([]planner.ModelPlan, len(q.plan.Models))}
	for i, mp := range q.plan.Models {
		p.Models[i] = planner.ModelPlan{
			Name:          mp.Name,
			Kind:          mp.Kind,
			Change:        planner.Unchanged,
			Fingerprint:   mp.Fingerprint,
			PhysicalTable: mp.PhysicalTable,
			Incremental:   planner.Incremental{Backfill: []analysis.Range{}},
			Explain:       []string{},
		}
	}
	saw := fd.Saw
	saw.Warehouse = warehouse
	saw.Schemas = lowerSet(append(slices.Clone(fd.Saw.Schemas), promotionSchemas(d, p)...))
	nd := &noopDigest{
		Format:     noopFormat,
		Request:    req.key(),
		Saw:        saw,
		Store:      tok,
		UnusedVars: fd.UnusedVars,
	}
	if text == nil {
		return
	}
	_ = writeDigest(noopPath(q.proj.Root, req.Env), nd, p, text(p))
}

// sameFiles reports whether every file of files is still what its stamp
// says (stamp.same); touched is set when one was touched, not changed.
// The files are checked by several goroutines at once (a stat is a system
// call that waits on the kernel, and a project has thousands of files),
// each stopping at the first file that changed.
func sameFiles(files []Stamp, touched *bool) bool {
	st := newStatter()
	defer st.close()
	st.open(files)
	workers := min(runtime.GOMAXPROCS(0), 8, (len(files)+sameFilesChunk-1)/sameFilesChunk)
	if workers <= 1 {
		for _, s := range files {
			if !s.same(st, touched) {
				return false
			}
		}
		return true
	}
	var changed, anyTouched atomic.Bool
	var wg sync.WaitGroup
	per := (len(files) + workers - 1) / workers
	for lo := 0; lo < len(files); lo += per {
		part := files[lo:min(lo+per, len(files))]
		wg.Add(1)
		go func() {
			defer wg.Done()
			t := false
			for i, s := range part {
				if i%64 == 0 && changed.Load() {
					return
				}
				if !s.same(st, &t) {
					changed.Store(true)
					return
				}
			}
			if t {
				anyTouched.Store(true)
			}
		}()
	}
	wg.Wait()
	if changed.Load() {
		return false
	}
	if anyTouched.Load() {
		*touched = true
	}
	return true
}

// sameFilesChunk is the fewest files worth a goroutine of their own.
const sameFilesChunk = 256
