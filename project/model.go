package project

// KindName is a model kind, as written in the MODEL header (upper case).
type KindName string

const (
	KindFull                   KindName = "FULL"
	KindView                   KindName = "VIEW"
	KindIncrementalByTimeRange KindName = "INCREMENTAL_BY_TIME_RANGE"
	KindIncrementalByUniqueKey KindName = "INCREMENTAL_BY_UNIQUE_KEY"
	KindSCDType2               KindName = "SCD_TYPE_2"
	KindSeed                   KindName = "SEED"
	KindExternal               KindName = "EXTERNAL"
	KindEmbedded               KindName = "EMBEDDED"
)

// WithArticle is the kind after its indefinite article, as a message
// reads it: "an INCREMENTAL_BY_TIME_RANGE", "an SCD_TYPE_2", "a FULL".
func (k KindName) WithArticle() string {
	if k == "" {
		return "a"
	}
	switch k[0] {
	case 'A', 'E', 'I', 'O', 'U':
		return "an " + string(k)
	}
	if k == KindSCDType2 {
		return "an " + string(k)
	}
	return "a " + string(k)
}

// Kind is a model's kind with its arguments. Only the fields of the given
// Name are meaningful.
type Kind struct {
	Name KindName `json:"name"`

	// INCREMENTAL_BY_TIME_RANGE
	TimeColumn string `json:"timeColumn,omitempty"`
	BatchSize  int    `json:"batchSize,omitempty"` // intervals per batch; 0 = all in one
	Lookback   int    `json:"lookback,omitempty"`  // intervals re-read at the tail

	// INCREMENTAL_BY_UNIQUE_KEY, SCD_TYPE_2
	Key       []string `json:"key,omitempty"`
	ValidFrom string   `json:"validFrom,omitempty"` // SCD_TYPE_2; default valid_from
	ValidTo   string   `json:"validTo,omitempty"`   // SCD_TYPE_2; default valid_to

	// SEED: path relative to the project root.
	Path string `json:"path,omitempty"`

	// EXTERNAL: exactly one of Table ("schema.table") or Files (a glob
	// relative to the project root, or a URL).
	Table  string `json:"table,omitempty"`
	Files  string `json:"files,omitempty"`
	Format string `json:"format,omitempty"` // parquet | csv | json; inferred from Files' extension when empty
	// Options are further reader options of EXTERNAL files
	// (union_by_name true, header true, delim ',' …), in header order.
	Options []Option `json:"options,omitempty"`
}

// Option is a name/value pair of a kind or property argument list. Value is
// the literal as written: strings unquoted, other values verbatim.
type Option struct {
	Name     string `json:"name"`
	Value    string `json:"value"`
	IsString bool   `json:"isString,omitempty"`
}

// Export is the export (attach name, table schema.table) property.
type Export struct {
	Attach string `json:"attach"` // a name under attach: in efmesh.yaml
	Schema string `json:"schema"`
	Table  string `json:"table"`
}

// Answerables are the values of the answerable property, best first: a
// model's effective passport is the worst value over its ancestry.
var Answerables = []string{"full", "sampled", "partial", "none"}

// Materialized reports whether the kind owns a physical relation that is
// rebuilt when its snapshot changes.
func (k KindName) Materialized() bool {
	switch k {
	case KindFull, KindIncrementalByTimeRange, KindIncrementalByUniqueKey, KindSCDType2, KindSeed:
		return true
	}
	return false
}

// Virtual reports whether the kind has no physical relation and no
// environment views: its consumers read it in place (an EMBEDDED model is
// inlined as a subquery, an EXTERNAL one is its source read with the
// declared columns enforced).
func (k KindName) Virtual() bool {
	return k == KindEmbedded || k == KindExternal
}

// HasBody reports whether a model of the kind has a SELECT body.
func (k KindName) HasBody() bool {
	return k != KindSeed && k != KindExternal
}

// Column is a declared column of the `columns (...)` contract.
type Column struct {
	Name  string `json:"name"`
	Type  string `json:"type"` // as written, e.g. "DECIMAL(10, 2)", "STRUCT(a INT)"
	Range Range  `json:"-"`    // the whole "name TYPE" entry
}

// AuditCall is one entry of `audits (...)`, e.g. not_null(stay_id) or
// warn(unique(id)). Args are the raw argument texts (identifiers or string
// literals with quotes removed); wrappers nest in Inner.
type AuditCall struct {
	Name  string     `json:"name"`
	Args  []string   `json:"args,omitempty"`
	Inner *AuditCall `json:"inner,omitempty"` // for warn/per_interval/whole
	Text  string     `json:"text"`            // the entry as written
	Range Range      `json:"-"`
}

// MacroKind is the kind of an @-macro in a body.
type MacroKind string

const (
	MacroRef   MacroKind = "ref"
	MacroStart MacroKind = "start"
	MacroEnd   MacroKind = "end"
	MacroThis  MacroKind = "this"
	// MacroVar is @var(name): a variable of efmesh.yaml, rendered as a
	// string literal; Arg is the lower-cased name.
	MacroVar MacroKind = "var"
	// The run's variables beside @start and @end: the bounds as 'YYYY-MM-DD'
	// and 'YYYY-MM-DD HH:MM:SS' strings, the day of the run, the model's
	// physical relation and the environment.
	MacroStartDS     MacroKind = "start_ds"
	MacroEndDS       MacroKind = "end_ds"
	MacroStartTS     MacroKind = "start_ts"
	MacroEndTS       MacroKind = "end_ts"
	MacroExecutionDS MacroKind = "execution_ds"
	MacroThisModel   MacroKind = "this_model"
	MacroEnv         MacroKind = "env"
	// MacroStar is @STAR(relation, …) and MacroUnion @UNION(type, …): their
	// columns come from the binder, so they are rendered with the schemas
	// of the models they read. Start and End span the whole call.
	MacroStar  MacroKind = "star"
	MacroUnion MacroKind = "union"
)

// Macro is one occurrence of @ref(x), @start, @end or @this in a file.
// Start/End are byte offsets in the whole file; for refs, ArgStart/ArgEnd
// span the model name inside the parentheses.
type Macro struct {
	Kind     MacroKind `json:"kind"`
	Arg      string    `json:"arg,omitempty"` // the referenced model name, lower-cased
	Start    int       `json:"start"`
	End      int       `json:"end"`
	ArgStart int       `json:"argStart,omitempty"`
	ArgEnd   int       `json:"argEnd,omitempty"`
	// Aliased reports, for @ref and @this, whether the SQL right after the
	// macro names it (AS x, "x", or a bare word that is not a keyword a
	// table reference can be followed by, x(a, b) included). A relation
	// without one is rendered with an implicit alias, its table name, so
	// that it stays reachable as a qualifier whatever it renders to.
	Aliased bool `json:"aliased,omitempty"`
	// Scope numbers the query part the macro stands in: the innermost
	// subquery, and within it the SELECT of a set operation (UNION,
	// INTERSECT, EXCEPT); 0 is the top level's first. Other parentheses (a
	// parenthesized join) do not start one. Refs of one
	// FROM share it; a subquery's or another UNION branch's differ.
	Scope int `json:"scope,omitempty"`
}

// Property is a header property as written, for navigation and hover.
type Property struct {
	Name       string // lower case
	Range      Range  // name through the end of its value
	ValueRange Range
}

// Model is one parsed model file. A model with header errors is still
// returned with whatever could be parsed, so the editor keeps working.
type Model struct {
	Name   string // "schema.table", lower case
	Schema string
	Table  string
	File   string // slash path relative to the project root
	Source []byte // the whole file

	Kind        Kind
	Interval    string // "day" | "hour"; empty unless set (INCREMENTAL_BY_TIME_RANGE defaults to day)
	Start       string // as written, without quotes: 2026-01-01 or 2026-01-01 06:00:00
	Cron        string
	Grain       []string
	Columns     []Column // nil when not declared
	Audits      []AuditCall
	Target      string // "table" (default) | "parquet" | "ducklake"
	Description string
	Owner       string
	Tags        []string
	// Answerable and Caveats are the model's declared passport: what its
	// data may be believed to answer (one of Answerables; "" = full) and
	// the limits a consumer must know. Outside the fingerprint.
	Answerable string
	Caveats    []string
	// Redact lists the columns (lower case) a redacted environment never
	// writes: it gets its own physics without them.
	Redact []string
	// Export, when set, copies the model into an attached database after
	// it is promoted to prod and its audits passed.
	Export *Export
	// Freshness, on an EXTERNAL model, is how old its source's newest row
	// may be (status --check, run). Outside the fingerprint.
	Freshness *Freshness

	Header     Range      // the MODEL (...) block, including a trailing ';'; empty at 1:1 when missing
	NameRange  Range      // the name value; empty at 1:1 when missing
	Properties []Property // in header order
	Body       string     // the SQL after the header (may be empty for SEED/EXTERNAL)
	BodyStart  int        // byte offset of Body in Source
	// OpenComment is the offset of a /* in the body that is never closed,
	// -1 (or 0 in a Model not made by ParseModel) when there is none.
	OpenComment int
	Macros      []Macro // every @-macro in Body, in order (offsets into Source)
	// Expansion is set when the body called macros: Source, Body, Macros
	// and every offset into them are then of the expanded text, and
	// Expansion maps them back to the file as written.
	Expansion *Expansion
	// expand: the body calls macros the assembly expands; expandHeader:
	// so does the header, which ends at headerEnd.
	expand       bool
	expandHeader bool
	headerEnd    int
}

// Refs returns the distinct model names the body references, in order of
// first appearance.
func (m *Model) Refs() []string {
	var out []string
	seen := map[string]bool{}
	for _, mc := range m.Macros {
		if mc.Kind == MacroRef && !seen[mc.Arg] {
			seen[mc.Arg] = true
			out = append(out, mc.Arg)
		}
	}
	return out
}

// Property returns the named header property, if present.
func (m *Model) Property(name string) (Property, bool) {
	for _, p := range m.Properties {
		if p.Name == name {
			return p, true
		}
	}
	return Property{}, false
}
