package project

// The loading API. Implemented in config.go, header.go, macros.go, load.go,
// files.go and dag.go.
//
//   func FindRoot(dir string) (string, error)
//       walks up from dir to the folder holding efmesh.yaml.
//   func ParseConfig(file string, src []byte) (Config, []Diagnostic)
//       parses efmesh.yaml; unknown keys and bad values are diagnostics with
//       line:col; fills defaults.
//   func ParseModel(file string, src []byte) (*Model, []Diagnostic)
//       parses one model file: MODEL header, body, macros.
//   func Load(root string) (*Project, error)
//       reads efmesh.yaml and every model file its globs match; the error is
//       only for I/O that makes loading impossible (no efmesh.yaml); every
//       user mistake is a Diagnostic in Project.Diagnostics.
//   func LoadWith(root string, overlay map[string][]byte) (*Project, error)
//       as Load, with file contents (absolute paths) taking precedence over disk.
//   func ReadFiles(root string, read ReadFunc, extra []string) (*Files, error)
//       the loader file by file: efmesh.yaml and every file its globs match,
//       each parsed on its own (ParseFile); Files.Project assembles them.
//       LoadWith is ReadFiles then Project; the language server keeps the
//       parses and reparses only the file an edit changed.
//   func ListFiles(root string, cfg Config) []string
//       the files ReadFiles would read besides efmesh.yaml, listing folders
//       only (the no-op plan's check that no file came or went).
//   func ParseFile(kind FileKind, rel string, src []byte) *FileParse
//       one model, test or audit file; Config.KindOf says which it is.
//   func Build(root string, cfg Config, models []*Model, diags []Diagnostic) *Project
//       checks duplicate names, unknown refs ("did you mean"), cycles, and
//       orders the DAG. Used by Load and by the language server after an edit.
//   func ParseAudit(file string, src []byte) (*CustomAudit, []Diagnostic)
//       parses one audits/*.sql file: AUDIT (name …, blocking …) and a query
//       over @this. Load fills Project.Audits from the audits globs.
//   func CheckAudits(p *Project) []Diagnostic
//       clashing audit names, and audit calls in model headers that name no
//       built-in or custom audit. Load runs it; a loader that builds the
//       Project itself (the language server) sets Audits and calls it.
//
// Helpers for the language server and the CLI:
//
//   func DefaultConfig() Config
//   func ScanMacros(file string, src []byte, from int) ([]Macro, []Diagnostic)
//       the @-macros of src[from:] (audit files use it too).
//   func MatchGlob(pattern, name string) bool; func ValidateGlob(pattern string) error
//       the ** globs of efmesh.yaml, on slash paths relative to the root.
//   func DidYouMean(word string, candidates []string) (string, bool)
//   func ValidNamePart(s string) bool
//       ^[a-z][a-z0-9_]*$: a part of a model name, or an environment name.
//   var ErrNoConfig
//       matched by errors.Is on the error of FindRoot and Load.
