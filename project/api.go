package project

// The loading API. Implemented in config.go, header.go, macros.go, load.go
// and dag.go.
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
//   func Build(root string, cfg Config, models []*Model, diags []Diagnostic) *Project
//       checks duplicate names, unknown refs ("did you mean"), cycles, and
//       orders the DAG. Used by Load and by the language server after an edit.
