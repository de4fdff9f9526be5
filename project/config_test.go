package project

import (
	"fmt"
	"maps"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseConfig(t *testing.T) {
	src := `# the hospital
name: hospital
models: ["models/**/*.sql", "more/*.sql"]
tests: tests/*.yaml
audits: []
start: 2026-01-01
engine: {type: postgres, url: "postgres://localhost/db"}
state:
  type: sqlite
  path: state/x.db
lake: lake
environments:
  safe: {redacted: true}
  dev:
janitor: {ttl: 36h}
defaults: {cron: '@hourly'}
`
	cfg, diags := ParseConfig("efmesh.yaml", []byte(src))
	if len(diags) > 0 {
		t.Fatalf("diagnostics: %v", diagStrings(diags))
	}
	want := Config{
		Name:         "hospital",
		Models:       []string{"models/**/*.sql", "more/*.sql"},
		Tests:        []string{"tests/*.yaml"},
		Audits:       []string{},
		Macros:       []string{"macros/**/*.sql"},
		Start:        "2026-01-01",
		Engine:       EngineConfig{Type: "postgres", URL: "postgres://localhost/db"},
		State:        StateConfig{Type: "sqlite", Path: "state/x.db"},
		Lake:         "lake",
		Environments: map[string]EnvConfig{"safe": {Redacted: true}, "dev": {}},
		Janitor:      JanitorConfig{TTL: 36 * time.Hour},
		Defaults:     ModelDefaults{Cron: "@hourly"},
	}
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("got  %+v\nwant %+v", cfg, want)
	}
}

func TestParseConfigDefaults(t *testing.T) {
	for _, src := range []string{"", "# nothing\n", "name: x\nengine:\n", "engine: {path: w.duckdb}\n", "\ufeffname: bom\nengine: {path: w.duckdb}\n"} {
		cfg, diags := ParseConfig("efmesh.yaml", []byte(src))
		if len(diags) > 0 {
			t.Fatalf("%q: diagnostics: %v", src, diagStrings(diags))
		}
		want := DefaultConfig()
		want.Name = cfg.Name
		if strings.Contains(src, "w.duckdb") {
			want.Engine.Path = "w.duckdb"
		}
		if !reflect.DeepEqual(cfg, want) {
			t.Errorf("%q: got %+v\nwant %+v", src, cfg, want)
		}
	}
}

func TestParseConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{
			name: "unknown top-level key",
			src:  "name: x\nmodel: [a]\n",
			want: []string{`2:1: config-unknown-key: unknown key "model" in efmesh.yaml (known: name, models, tests, audits, macros, start, engine, state, lake, environments, janitor, attach, defaults, vars, lint)`},
		},
		{
			name: "unknown nested key",
			src:  "engine:\n  type: duckdb\n  pth: x.db\nenvironments:\n  dev: {redacted: true, colour: blue}\n",
			want: []string{
				`3:3: config-unknown-key: unknown key "pth" in engine (known: type, path, url, lock_timeout, memory_limit, threads)`,
				`5:25: config-unknown-key: unknown key "colour" in environments.dev (known: redacted, vars)`,
			},
		},
		{
			name: "wrong types",
			src:  "name: [a]\nmodels: 3\nlake: true\nengine: duckdb\nenvironments: {dev: {redacted: 'yes'}}\njanitor: {ttl: 5}\n",
			want: []string{
				`1:7: config: name must be a string, found a list`,
				`2:9: config: models must be a list of glob patterns, found a number`,
				`3:7: config: lake must be a string, found a boolean`,
				`4:9: config: engine must be a mapping of type, path, url, lock_timeout, memory_limit, threads, found "duckdb"`,
				`5:32: config: redacted must be true or false, found "yes"`,
				`6:16: config: janitor ttl "5" must be a positive duration such as 168h`,
			},
		},
		{
			name: "bad values",
			src:  "start: 2026-02-30\nengine: {type: duckdbb}\nstate: {type: postgres}\nenvironments:\n  Prod: {}\n  ok_1: {}\njanitor:\n  ttl: 7d\n",
			want: []string{
				`1:8: config: start "2026-02-30" is not a date: write YYYY-MM-DD or YYYY-MM-DD HH:MM:SS`,
				`2:16: config: unknown engine type "duckdbb" (known: duckdb, postgres)`,
				`3:15: config: a postgres state needs url: postgres://…`,
				`5:3: config: invalid environment name "Prod": it must start with a letter and hold only a-z, 0-9 and _`,
				`8:8: config: janitor ttl "7d" must be a positive duration such as 168h`,
			},
		},
		{
			name: "environments ttl",
			src:  "environments:\n  ttl: 7 days\n  dev: {redacted: true}\n",
			want: []string{
				`2:8: config: environments ttl "7 days" must be a positive duration such as 7d, 36h or 90m`,
			},
		},
		{
			// A name past MaxEnvName would not fit the names made from it.
			name: "environment name too long",
			src:  "environments:\n  " + strings.Repeat("e", 33) + ": {}\n  " + strings.Repeat("e", 32) + ": {}\n",
			want: []string{
				`2:3: config: invalid environment name: "` + strings.Repeat("e", 32) + `…" is 33 characters long, where an environment name has at most 32 (it prefixes the schemas of its views, <env>__<schema>, and names its files)`,
			},
		},
		{
			// 213504 days once wrapped to a ttl of minutes.
			name: "environments ttl past a duration",
			src:  "environments:\n  ttl: 213504d\njanitor: {ttl: 106752d}\n",
			want: []string{
				`2:8: config: environments ttl "213504d" must be a positive duration such as 7d, 36h or 90m`,
				`3:16: config: janitor ttl "106752d" must be a positive duration such as 168h`,
			},
		},
		{
			name: "path and url by type",
			src:  "engine: {type: postgres, path: x, url: 'postgres://h/d'}\nstate: {url: 'postgres://h/d'}\n",
			want: []string{
				`1:32: config: a postgres engine takes url, not path`,
				`2:14: config: a sqlite state takes path, not url`,
			},
		},
		{
			name: "bad globs",
			src:  "models:\n  - 'models/[a.sql'\n  - /abs/*.sql\n  - ../x/*.sql\n  - ok/*.sql\n",
			want: []string{
				`2:5: bad-glob: bad glob "models/[a.sql" in models: syntax error in pattern`,
				`3:5: bad-glob: bad glob "/abs/*.sql" in models: patterns are relative to the project root`,
				`4:5: bad-glob: bad glob "../x/*.sql" in models: patterns must stay inside the project root`,
			},
		},
		{
			name: "syntax error",
			src:  "name: x\nmodels: [a, b\n",
			want: []string{`2:9: config: invalid YAML: sequence end token ']' not found`},
		},
		{
			name: "duplicate key",
			src:  "name: x\nname: y\n",
			want: []string{`2:1: config: invalid YAML: mapping key "name" already defined at [1:1]`},
		},
		{
			name: "not a mapping",
			src:  "- a\n- b\n",
			want: []string{`1:1: config: efmesh.yaml must be a mapping of name, models, tests, audits, macros, start, engine, state, lake, environments, janitor, attach, defaults, vars, lint, found a list`},
		},
		{
			name: "unknown key after non-ASCII text",
			src:  "name: \"héllo wörld\"\nengine: {type: duckdb, pathé: x}\n",
			want: []string{`2:24: config-unknown-key: unknown key "pathé" in engine (known: type, path, url, lock_timeout, memory_limit, threads)`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, diags := ParseConfig("efmesh.yaml", []byte(tt.src))
			got := diagStrings(diags)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// A bad default cron is positioned on its value; unknown default keys on
// their key. The effective cron of a model falls back to the project's
// default, then to @daily.
func TestConfigDefaultCron(t *testing.T) {
	_, diags := ParseConfig("efmesh.yaml", []byte("defaults:\n  cron: '0 25 * * *'\n  owner: x\n"))
	got := diagStrings(diags)
	want := []string{
		`2:9: config: defaults cron "0 25 * * *": end of range (25) above maximum (23): 25`,
		`3:3: config-unknown-key: unknown key "owner" in defaults (known: cron)`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	_, diags = ParseConfig("efmesh.yaml", []byte("defaults:\n  cron: '0 0 31 4 *'\n"))
	got = diagStrings(diags)
	want = []string{`2:9: config: defaults cron "0 0 31 4 *" never fires: none of its months has its day of the month`}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("a cron that never fires: got  %q\nwant %q", got, want)
	}
	cfg := DefaultConfig()
	if c := cfg.CronOf(&Model{}); c != "@daily" {
		t.Errorf("no default: %q", c)
	}
	cfg.Defaults.Cron = "@hourly"
	if c := cfg.CronOf(&Model{}); c != "@hourly" {
		t.Errorf("project default: %q", c)
	}
	if c := cfg.CronOf(&Model{Cron: "5 4 * * *"}); c != "5 4 * * *" {
		t.Errorf("own cron: %q", c)
	}
	c, err := ParseCron("30 6 * * 1-5")
	if err != nil {
		t.Fatal(err)
	}
	fri := time.Date(2026, 1, 2, 7, 0, 0, 0, time.UTC) // a Friday
	if n := c.Next(fri); !n.Equal(time.Date(2026, 1, 5, 6, 30, 0, 0, time.UTC)) {
		t.Errorf("next weekday 06:30 after Friday 07:00: %s", n)
	}
}

func TestParseConfigKeyRangeAndFix(t *testing.T) {
	// With a byte-order mark too: ranges and fixes are on the file as is.
	for _, src := range []string{"engine:\n  type: duckdb\n  paht: x.db\n", "\ufeffengine:\n  type: duckdb\n  paht: x.db\n"} {
		_, diags := ParseConfig("efmesh.yaml", []byte(src))
		if len(diags) != 1 {
			t.Fatalf("diagnostics: %v", diagStrings(diags))
		}
		d := diags[0]
		if got := src[d.Range.Start.Offset:d.Range.End.Offset]; got != "paht" || d.Range.Start.Line != 3 || d.Range.Start.Column != 3 {
			t.Errorf("range covers %q at %d:%d", got, d.Range.Start.Line, d.Range.Start.Column)
		}
		if len(d.Fixes) != 1 || d.Fixes[0].Edits[0].NewText != "path" || src[d.Fixes[0].Edits[0].Start:d.Fixes[0].Edits[0].End] != "paht" {
			t.Errorf("fixes: %+v", d.Fixes)
		}
	}
}

func TestEngineTuning(t *testing.T) {
	cfg, diags := ParseConfig(ConfigFile, []byte("engine: {type: duckdb, memory_limit: 512MB, threads: 2}\n"))
	if len(diags) != 0 || cfg.Engine.MemoryLimit != "512MB" || cfg.Engine.Threads != 2 {
		t.Fatalf("cfg = %+v, diags = %v", cfg.Engine, diags)
	}
	_, diags = ParseConfig(ConfigFile, []byte("engine: {memory_limit: lots, threads: -1}\n"))
	if len(diags) != 2 || diags[0].Range.Start.Column != 24 {
		t.Fatalf("diags = %v", diags)
	}
}

func TestParseConfigEnvironmentsTTL(t *testing.T) {
	for src, want := range map[string]time.Duration{
		"environments: {ttl: 7d}\n":                            7 * 24 * time.Hour,
		"environments:\n  ttl: 36h\n  dev: {redacted: true}\n": 36 * time.Hour,
		"name: x\n": 0,
	} {
		cfg, diags := ParseConfig("efmesh.yaml", []byte(src))
		if len(diags) > 0 {
			t.Fatalf("%q: %v", src, diags)
		}
		if cfg.EnvironmentsTTL != want {
			t.Errorf("%q: ttl %s, want %s", src, cfg.EnvironmentsTTL, want)
		}
		if _, ok := cfg.Environments["ttl"]; ok {
			t.Errorf("%q: ttl read as an environment", src)
		}
	}
}

func TestParseConfigVars(t *testing.T) {
	src := "vars:\n  country: FR\n  Limit: 3\n  on: true\nenvironments:\n  dev:\n    vars: {country: DE}\n"
	cfg, diags := ParseConfig("efmesh.yaml", []byte(src))
	if len(diags) > 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	if want := map[string]string{"country": "FR", "limit": "3", "on": "true"}; !maps.Equal(cfg.Variables, want) {
		t.Errorf("vars = %v, want %v", cfg.Variables, want)
	}
	if got := cfg.Environments["dev"].Variables; !maps.Equal(got, map[string]string{"country": "DE"}) {
		t.Errorf("dev vars = %v", got)
	}
	for env, want := range map[string]string{"": "FR", "prod": "FR", "dev": "DE"} {
		if got := EffectiveVariables(cfg, env, nil)["country"]; got != want {
			t.Errorf("%q: country = %q, want %q", env, got, want)
		}
	}
	if got := EffectiveVariables(cfg, "dev", map[string]string{"Country": "IT"})["country"]; got != "IT" {
		t.Errorf("--var: country = %q, want IT", got)
	}
}

func TestParseConfigVarsErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"vars: [a]\n", "1:7: vars must be a mapping of variable names to values, found a list"},
		{"vars:\n  country: [FR]\n", "2:12: variable country in vars must be a string, a number or a boolean, found a list"},
		{"vars:\n  country:\n", "2:11: variable country in vars must be a string, a number or a boolean, found null"},
		{"vars:\n  1x: a\n", `2:3: invalid variable name "1x" in vars`},
		{"environments:\n  dev:\n    vars: {c: {a: 1}}\n", "3:15: variable c in environments.dev.vars must be a string, a number or a boolean, found a mapping"},
	} {
		_, diags := ParseConfig("efmesh.yaml", []byte(tc.src))
		var got []string
		for _, d := range diags {
			got = append(got, fmt.Sprintf("%d:%d: %s", d.Range.Start.Line, d.Range.Start.Column, d.Message))
		}
		if len(got) != 1 || !strings.HasPrefix(got[0], tc.want) {
			t.Errorf("%q: diagnostics = %q, want one starting %q", tc.src, got, tc.want)
		}
	}
}

func TestParseVarFlags(t *testing.T) {
	got, err := ParseVarFlags([]string{"country=IT", "note=a=b"})
	if err != nil || !maps.Equal(got, map[string]string{"country": "IT", "note": "a=b"}) {
		t.Errorf("ParseVarFlags = %v, %v", got, err)
	}
	for _, bad := range []string{"country", "=x", "1x=y"} {
		if _, err := ParseVarFlags([]string{bad}); err == nil {
			t.Errorf("ParseVarFlags(%q): no error", bad)
		}
	}
}

func TestUnusedOverrides(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Variables = map[string]string{"country": "FR", "spare": "x"}
	cfg.Environments = map[string]EnvConfig{"dev": {Variables: map[string]string{"region": "US"}}}
	m, _ := ParseModel("models/a.sql", []byte("MODEL (name s.a);\nSELECT @var(country) AS c, @var(limit) AS l"))
	p := Build("/root", cfg, []*Model{m}, nil)
	got := UnusedOverrides(p, map[string]string{"country": "IT", "limit": "1", "spare": "y", "region": "EU", "contry": "DE", "zzz": "1"})
	want := []UnusedVar{{Name: "contry", Suggestion: "country"}, {Name: "zzz"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("UnusedOverrides = %v, want %v", got, want)
	}
}

func TestAuditVarDiagnostics(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Variables = map[string]string{"region": "EU"}
	m, _ := ParseModel("models/a.sql", []byte("MODEL (name s.a);\nSELECT 1 AS x"))
	good, _ := ParseAudit("audits/good.sql", []byte("AUDIT (name good);\nSELECT * FROM @this WHERE x = @var(region)"))
	bad, _ := ParseAudit("audits/bad.sql", []byte("AUDIT (name bad);\nSELECT * FROM @this WHERE x = @var(regio)"))
	p := Assemble("/root", cfg, []*Model{m}, nil, nil, []*CustomAudit{good, bad}, nil)
	var got []string
	for _, d := range p.Diagnostics {
		got = append(got, fmt.Sprintf("%s:%d:%d: %s", d.File, d.Range.Start.Line, d.Range.Start.Column, d.Message))
	}
	if len(got) != 1 || !strings.HasPrefix(got[0], `audits/bad.sql:2:31: unknown variable "regio"`) || !strings.Contains(got[0], `did you mean "region"`) {
		t.Errorf("diagnostics = %q, want one unknown variable on audits/bad.sql:2:31", got)
	}
	if vs := UsedVariables(p); !reflect.DeepEqual(vs, []string{"regio", "region"}) {
		t.Errorf("UsedVariables = %v", vs)
	}
}
