package project_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/macro"
	"github.com/efmesh/efmesh/project"
)

// section returns the part of doc from the line heading to the next
// heading of the same or a higher level, or "" when heading is missing.
func section(doc, heading string) string {
	level := heading[:strings.Index(heading, " ")+1]
	i := strings.Index(doc, "\n"+heading+"\n")
	if i < 0 {
		return ""
	}
	rest := doc[i+len(heading)+2:]
	end := len(rest)
	for _, h := range []string{"\n# ", "\n## ", "\n### "} {
		if len(h)-2 > len(level)-1 {
			break
		}
		if j := strings.Index(rest, h); j >= 0 && j < end {
			end = j
		}
	}
	return rest[:end]
}

func readDoc(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("../docs/reference/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestModelsDocumented: docs/reference/models.md has a section with an example for
// every header property, kind and macro the parser knows (the primitives,
// every built-in of macro.Builtins and every run variable), lists every
// option of every kind in the kind's section, and names every audit.
func TestModelsDocumented(t *testing.T) {
	doc := readDoc(t, "models.md")
	has := func(what, heading string) string {
		t.Helper()
		s := section(doc, heading)
		if s == "" {
			t.Errorf("docs/reference/models.md: %s has no section %q", what, heading)
		} else if !strings.Contains(s, "```sql\n") {
			t.Errorf("docs/reference/models.md: section %q of %s has no example (a ```sql block)", heading, what)
		}
		return s
	}
	for _, p := range project.PropertyNames() {
		has("header property "+p, "### `"+p+"`")
	}
	for _, k := range project.KindNames() {
		s := has("kind "+k, "### `"+k+"`")
		for _, o := range project.KindOptions(k) {
			if !strings.Contains(s, "- `"+o+"`") {
				t.Errorf("docs/reference/models.md: option %s of kind %s is not listed (\"- `%s`…\") in its section", o, k, o)
			}
		}
	}
	for _, m := range project.MacroNames() {
		heading := "### `@" + m + "`"
		if m == "ref" {
			heading = "### `@ref(schema.table)`"
		}
		has("macro @"+m, heading)
	}
	// The macro language: every built-in (macro.Builtins) and every run
	// variable has its own section with an example.
	for _, b := range macro.Builtins {
		has("built-in macro @"+b.Name, "### `@"+b.Name+"`")
	}
	for _, v := range project.RunVariableNames() {
		has("run variable @"+v, "### `@"+v+"`")
	}
	for _, h := range []string{"### Calls and arguments", "### Lambdas", "### `@{name}`", "### Project macros",
		"### What `efmesh render` shows", "### Macros and fingerprints", "### Limits"} {
		if section(doc, h) == "" {
			t.Errorf("docs/reference/models.md: no section %q", h)
		}
	}
	audits := section(doc, "### `audits`")
	for _, a := range project.AuditNames() {
		if !strings.Contains(audits, "`"+a+"(") {
			t.Errorf("docs/reference/models.md: audit %s is not named (`%s(…`) in the audits section", a, a)
		}
	}
}

// TestConfigDocumented: docs/reference/config.md has a row for every key efmesh.yaml
// accepts, in the section of where it is.
func TestConfigDocumented(t *testing.T) {
	doc := readDoc(t, "config.md")
	for where, keys := range project.ConfigKeys() {
		heading := "## Top level"
		if where != "" {
			heading = "## `" + strings.TrimSuffix(where, ".<name>") + "`"
		}
		s := section(doc, heading)
		if s == "" {
			t.Errorf("docs/reference/config.md: no section %q", heading)
			continue
		}
		for _, k := range keys {
			if !strings.Contains(s, "| `"+k+"` |") {
				t.Errorf("docs/reference/config.md: key %s of %s has no row (| `%s` | …) in section %q", k, heading, k, heading)
			}
		}
	}
}

// TestConfigKeysComplete: ConfigKeys lists what the parser accepts, as the
// parser's own unknown-key messages say.
func TestConfigKeysComplete(t *testing.T) {
	keys := project.ConfigKeys()
	for where, yaml := range map[string]string{
		"":                    "bogus: 1\n",
		"engine":              "engine: {bogus: 1}\n",
		"state":               "state: {bogus: 1}\n",
		"janitor":             "janitor: {bogus: 1}\n",
		"defaults":            "defaults: {bogus: 1}\n",
		"environments.<name>": "environments: {dev: {bogus: 1}}\n",
		"attach.<name>":       "attach: {app: {path: x, bogus: 1}}\n",
		"lint":                "lint: {bogus: 1}\n",
	} {
		_, diags := project.ParseConfig("efmesh.yaml", []byte(yaml))
		var known []string
		for _, d := range diags {
			if _, list, ok := strings.Cut(d.Message, "(known: "); ok && strings.Contains(d.Message, `unknown key "bogus"`) {
				known = strings.Split(strings.TrimSuffix(list, ")"), ", ")
			}
		}
		want := slices.Sorted(slices.Values(keys[where]))
		slices.Sort(known)
		if !slices.Equal(known, want) {
			t.Errorf("%q: the parser knows %q, ConfigKeys says %q", where, known, want)
		}
	}
	if len(keys) != 8 {
		t.Errorf("ConfigKeys has %d sections; this test checks 8", len(keys))
	}
}
