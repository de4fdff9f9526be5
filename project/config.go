package project

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// DefaultConfig returns the settings of an efmesh.yaml that sets nothing.
func DefaultConfig() Config {
	return Config{
		Models:  []string{"models/**/*.sql"},
		Tests:   []string{"tests/**/*.yaml"},
		Audits:  []string{"audits/**/*.sql"},
		Macros:  []string{"macros/**/*.sql"},
		Engine:  EngineConfig{Type: engineTypes[0], Path: defaultWarehouseFile},
		State:   StateConfig{Type: stateTypes[0], Path: ".efmesh/state.db"},
		Janitor: JanitorConfig{TTL: 168 * time.Hour},
	}
}

var (
	configKeys  = []string{"name", "models", "tests", "audits", "macros", "start", "engine", "state", "lake", "environments", "janitor", "attach", "defaults", "vars", "lint"}
	backendKeys = []string{"type", "path", "url"}
	envKeys     = []string{"redacted", "vars"}
	attachKeys  = []string{"type", "path"}
	janitorKeys = []string{"ttl"}
	// engineKeys are the keys engine: takes besides backendKeys; the
	// engine case of parseConfig reads each.
	engineKeys = []string{"memory_limit", "threads", "lock_timeout"}
	// defaultsKeys are the header properties efmesh.yaml can default.
	defaultsKeys = []string{"cron"}
)

// ParseConfig parses efmesh.yaml. Every unknown key and bad value is a
// Diagnostic positioned on the key or value; settings that are absent or
// wrong keep their defaults, so loading goes on.
//
// It walks the YAML syntax tree rather than decoding into the struct: a
// decoder stops at the first problem and forgets where values were.
func ParseConfig(file string, src []byte) (Config, []Diagnostic) {
	// Editors on Windows may start the file with a byte-order mark; YAML
	// would read it as part of the first key. It is parsed without it, and
	// positions are moved back onto the file as it is.
	bom := []byte("\xef\xbb\xbf")
	if !bytes.HasPrefix(src, bom) {
		return parseConfig(file, src)
	}
	cfg, diags := parseConfig(file, src[len(bom):])
	for i := range diags {
		d := &diags[i]
		d.Range = RangeAt(src, d.Range.Start.Offset+len(bom), d.Range.End.Offset+len(bom))
		for j := range d.Fixes {
			for k := range d.Fixes[j].Edits {
				d.Fixes[j].Edits[k].Start += len(bom)
				d.Fixes[j].Edits[k].End += len(bom)
			}
		}
	}
	return cfg, diags
}

func parseConfig(file string, src []byte) (cfg Config, diags []Diagnostic) {
	cfg = DefaultConfig()
	p := &configParser{file: file, src: src, li: newLineIndex(src)}
	defer func() {
		// The YAML parser is third-party code fed with whatever is in the
		// editor; a panic there must not take the language server down.
		if r := recover(); r != nil {
			cfg = DefaultConfig()
			diags = append(p.diags, NewDiagnostic(file, src, 0, 0, SeverityError, CodeConfig, fmt.Sprintf("%s could not be parsed: %v", ConfigFile, r)))
		}
	}()

	f, err := parser.ParseBytes(src, 0)
	if err != nil {
		p.syntaxError(err)
		return cfg, p.diags
	}
	if len(f.Docs) == 0 || f.Docs[0] == nil || f.Docs[0].Body == nil {
		return cfg, nil
	}
	if len(f.Docs) > 1 {
		p.errorf(f.Docs[1], CodeConfig, "%s holds one YAML document", ConfigFile)
	}
	root := unwrap(f.Docs[0].Body)
	if isNull(root) {
		return cfg, p.diags
	}
	p.fields(root, ConfigFile, configKeys, func(key string, v ast.Node) {
		switch key {
		case "name":
			if s, ok := p.str(v, "name"); ok {
				cfg.Name = s
			}
		case "models":
			cfg.Models = p.globs(v, key, cfg.Models)
		case "tests":
			cfg.Tests = p.globs(v, key, cfg.Tests)
		case "audits":
			cfg.Audits = p.globs(v, key, cfg.Audits)
		case "macros":
			cfg.Macros = p.globs(v, key, cfg.Macros)
		case "start":
			if s, ok := p.str(v, "start"); ok {
				if _, err := ParseTime(s); err != nil {
					p.errorf(v, CodeConfig, "start %q is not a date: write YYYY-MM-DD or YYYY-MM-DD HH:MM:SS", s)
				} else {
					cfg.Start = s
				}
			}
		case "engine":
			var memLimit string
			var lockTimeout *time.Duration
			threads := 0
			t, path, url := p.backend(v, "engine", engineTypes, cfg.Engine.Path, map[string]func(ast.Node){
				"memory_limit": func(v ast.Node) {
					if s, ok := p.str(v, "engine memory_limit"); ok {
						if !validMemoryLimit(s) {
							p.errorf(v, CodeConfig, "engine memory_limit %q is not a size: write a number and a unit (B, KB, MB, GB, TB, KiB, MiB, GiB, TiB), such as 512MB or 2GB", s)
							return
						}
						memLimit = s
					}
				},
				"threads": func(v ast.Node) {
					n, ok := unwrap(v).(*ast.IntegerNode)
					if !ok {
						p.errorf(v, CodeConfig, "engine threads must be a whole number from 1 to 1023, found %s", describeNode(v))
						return
					}
					if x, ok := n.Value.(uint64); ok && x > 0 && x < 1024 {
						threads = int(x)
					} else if x, ok := n.Value.(int64); ok && x > 0 && x < 1024 {
						threads = int(x)
					} else {
						p.errorf(v, CodeConfig, "engine threads must be a whole number from 1 to 1023, found %s", n.GetToken().Value)
					}
				},
				"lock_timeout": func(v ast.Node) {
					s, ok := p.str(v, "engine lock_timeout")
					if !ok {
						return
					}
					d, err := time.ParseDuration(s)
					if err != nil || d < 0 {
						p.errorf(v, CodeConfig, "engine lock_timeout %q must be a duration such as 10s, 2m or 0s (do not wait)", s)
						return
					}
					lockTimeout = &d
				},
			})
			cfg.Engine = EngineConfig{Type: t, Path: path, URL: url, MemoryLimit: memLimit, Threads: threads, LockTimeout: lockTimeout}
		case "state":
			t, path, url := p.backend(v, "state", stateTypes, cfg.State.Path, nil)
			cfg.State = StateConfig{Type: t, Path: path, URL: url}
		case "lake":
			if s, ok := p.str(v, "lake"); ok {
				cfg.Lake = s
			}
		case "environments":
			cfg.Environments, cfg.EnvironmentsTTL = p.environments(v)
		case "attach":
			cfg.Attach = p.attach(v)
		case "defaults":
			p.fields(v, "defaults", defaultsKeys, func(_ string, v ast.Node) {
				s, ok := p.str(v, "defaults cron")
				if !ok {
					return
				}
				if _, err := ParseCron(s); err != nil {
					p.errorf(v, CodeConfig, "defaults cron %v", err)
					return
				}
				cfg.Defaults.Cron = strings.TrimSpace(s)
			})
		case "janitor":
			p.fields(v, "janitor", janitorKeys, func(_ string, v ast.Node) {
				s, ok := p.str(v, "janitor ttl")
				if !ok {
					return
				}
				d, err := time.ParseDuration(s)
				if err != nil || d <= 0 {
					p.errorf(v, CodeConfig, "janitor ttl %q must be a positive duration such as 168h", s)
					return
				}
				cfg.Janitor.TTL = d
			})
		case "vars":
			cfg.Variables, cfg.VariableRanges = p.variables(v, "vars")
		case "lint":
			cfg.Lint = p.lint(v)
		}
	})
	cfg.Vars = p.refs
	return cfg, p.diags
}

// globs reads a list of glob patterns (or a single one) and reports bad
// patterns on their entry; bad entries are dropped.
func (p *configParser) globs(n ast.Node, key string, def []string) []string {
	var items []ast.Node
	switch v := unwrap(n).(type) {
	case *ast.SequenceNode:
		items = v.Values
	case *ast.StringNode:
		items = []ast.Node{v}
	default:
		p.errorf(n, CodeConfig, "%s must be a list of glob patterns, found %s", key, describeNode(n))
		return def
	}
	out := []string{}
	for _, it := range items {
		s, ok := p.str(it, key+" entry")
		if !ok {
			continue
		}
		if err := ValidateGlob(s); err != nil {
			p.errorf(it, CodeGlob, "bad glob %q in %s: %v", s, key, err)
			continue
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// backend reads engine: or state: ({type, path, url}). The first of types is
// the default; it is file-based and takes path, while urlBackend takes url.
func (p *configParser) backend(n ast.Node, where string, types []string, defPath string, extra map[string]func(ast.Node)) (typ, path, url string) {
	typ = types[0]
	var typeNode, pathNode, urlNode ast.Node
	keys := backendKeys
	for k := range extra {
		keys = append(keys[:len(keys):len(keys)], k)
	}
	slices.Sort(keys[len(backendKeys):])
	p.fields(n, where, keys, func(key string, v ast.Node) {
		if f, ok := extra[key]; ok {
			f(v)
			return
		}
		s, ok := p.str(v, where+" "+key)
		if !ok {
			return
		}
		switch key {
		case "type":
			t := strings.ToLower(s)
			if !slices.Contains(types, t) {
				d := p.errorf(v, CodeConfig, "unknown %s type %q (known: %s)", where, s, strings.Join(types, ", "))
				if sug, ok := DidYouMean(t, types); ok {
					start, end := p.nodeRange(v)
					d.Fixes = []Fix{{Title: "Change to " + sug, Edits: []TextEdit{{File: p.file, Start: start, End: end, NewText: sug}}}}
				}
				return
			}
			typ, typeNode = t, v
		case "path":
			path, pathNode = s, v
		case "url":
			url, urlNode = s, v
			p.vars(v, where+" url")
		}
	})
	if typ == urlBackend {
		if pathNode != nil {
			p.errorf(pathNode, CodeConfig, "a %s %s takes url, not path", typ, where)
			path = ""
		}
		if url == "" {
			p.errorf(typeNode, CodeConfig, "a %s %s needs url: %s://…", typ, where, typ)
		}
		return typ, path, url
	}
	if urlNode != nil {
		p.errorf(urlNode, CodeConfig, "a %s %s takes path, not url", typ, where)
		url = ""
	}
	if path == "" {
		path = defPath
	}
	return typ, path, url
}

// environments reads environments: {ttl: 7d, <env>: {…}}: the key ttl is
// the idle time after which the janitor deletes an environment, every
// other key an environment's settings.
func (p *configParser) environments(n ast.Node) (map[string]EnvConfig, time.Duration) {
	es, ok := entries(unwrap(n))
	if !ok {
		p.errorf(n, CodeConfig, "environments must be a mapping of environment names to settings, found %s", describeNode(n))
		return nil, 0
	}
	out := map[string]EnvConfig{}
	var ttl time.Duration
	for _, e := range es {
		name := keyString(e.Key)
		if name == "ttl" {
			s, ok := p.str(e.Value, "environments ttl")
			if !ok {
				continue
			}
			d, err := ParseDuration(s)
			if err != nil || d <= 0 {
				p.errorf(e.Value, CodeConfig, "environments ttl %q must be a positive duration such as 7d, 36h or 90m", s)
				continue
			}
			ttl = d
			continue
		}
		if !ValidNamePart(name) {
			p.errorf(e.Key, CodeConfig, "invalid environment name %q: it must start with a letter and hold only a-z, 0-9 and _", name)
			continue
		}
		if why := EnvNameTooLong(name); why != "" {
			p.errorf(e.Key, CodeConfig, "invalid environment name: %s", why)
			continue
		}
		var env EnvConfig
		p.fields(e.Value, "environments."+name, envKeys, func(key string, v ast.Node) {
			switch key {
			case "redacted":
				if b, ok := p.boolean(v, "redacted"); ok {
					env.Redacted = b
				}
			case "vars":
				env.Variables, env.VariableRanges = p.variables(v, "environments."+name+".vars")
			}
		})
		out[name] = env
	}
	return out, ttl
}

// variables reads vars: {name: value}, the values @var(name) renders. A
// value is a scalar: a string, or a number or boolean taken as written
// (it renders as a string literal either way); a list, a mapping or null
// is an error on it, and a name that is not a valid identifier on the key.
func (p *configParser) variables(n ast.Node, where string) (map[string]string, map[string]Range) {
	es, ok := entries(unwrap(n))
	if !ok {
		p.errorf(n, CodeConfig, "%s must be a mapping of variable names to values, found %s", where, describeNode(n))
		return nil, nil
	}
	out := map[string]string{}
	at := map[string]Range{}
	for _, e := range es {
		name := keyString(e.Key)
		if !ValidNamePart(strings.ToLower(name)) {
			p.errorf(e.Key, CodeConfig, "invalid variable name %q in %s: it must start with a letter and hold only a-z, 0-9 and _", name, where)
			continue
		}
		switch v := unwrap(e.Value).(type) {
		case *ast.StringNode:
			out[strings.ToLower(name)] = v.Value
		case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode:
			out[strings.ToLower(name)] = v.GetToken().Value
		default:
			p.errorf(e.Value, CodeConfig, "variable %s in %s must be a string, a number or a boolean, found %s", name, where, describeNode(e.Value))
			continue
		}
		start, _ := p.nodeRange(e.Key)
		_, end := p.nodeRange(e.Value)
		at[strings.ToLower(name)] = p.li.rng(start, end)
	}
	return out, at
}

// ParseDuration reads a Go duration (168h, 90m) or a whole number of days
// (7d).
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if d, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(d)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("%q is not a number of days", s)
		}
		// Past 106,751 days (292 years) the product wraps, to a negative
		// or a tiny positive duration: a janitor ttl of 213504d would be
		// minutes.
		if n > int(math.MaxInt64/(24*time.Hour)) {
			return 0, fmt.Errorf("%q is more days than a duration holds (%d)", s, math.MaxInt64/(24*time.Hour))
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	return time.ParseDuration(s)
}

// validMemoryLimit accepts DuckDB sizes: a number and a unit (KB, MB, GB,
// TB, KiB, MiB, GiB, TiB), optionally spaced.
func validMemoryLimit(s string) bool {
	s = strings.ToUpper(strings.TrimSpace(s))
	i, dots := 0, 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		if s[i] == '.' {
			dots++
		}
		i++
	}
	if i == 0 || dots > 1 || s[:i] == "." {
		return false
	}
	switch strings.TrimSpace(s[i:]) {
	case "KB", "MB", "GB", "TB", "KIB", "MIB", "GIB", "TIB", "B":
		return true
	}
	return false
}

// attach reads attach: {name: {type: duckdb|sqlite|…, path: …}}, the
// databases exports write into. path is a file (relative to the project
// root) or the type's connection string.
func (p *configParser) attach(n ast.Node) map[string]AttachConfig {
	es, ok := entries(unwrap(n))
	if !ok {
		p.errorf(n, CodeConfig, "attach must be a mapping of names to {type, path}, found %s", describeNode(n))
		return nil
	}
	out := map[string]AttachConfig{}
	for _, e := range es {
		name := keyString(e.Key)
		if !ValidNamePart(name) {
			p.errorf(e.Key, CodeConfig, "invalid attach name %q: it must start with a letter and hold only a-z, 0-9 and _", name)
			continue
		}
		ac := AttachConfig{Type: DefaultAttachType}
		var pathSet bool
		p.fields(e.Value, "attach."+name, attachKeys, func(key string, v ast.Node) {
			s, ok := p.str(v, "attach."+name+"."+key)
			if !ok {
				return
			}
			switch key {
			case "type":
				t := strings.ToLower(s)
				if !slices.Contains(AttachTypes, t) {
					p.errorf(v, CodeConfig, "unknown attach type %q (known: %s)", s, strings.Join(AttachTypes, ", "))
					return
				}
				ac.Type = t
			case "path":
				ac.Path, pathSet = s, true
			}
		})
		if !pathSet {
			p.errorf(e.Key, CodeConfig, "attach.%s needs path: a database file or connection string", name)
			continue
		}
		out[name] = ac
	}
	return out
}
