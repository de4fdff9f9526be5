package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestEveryCommandHasExamples: every command's --help shows 2 to 4
// examples, each a line starting with "efmesh ".
func TestEveryCommandHasExamples(t *testing.T) {
	a := &app{ctx: context.Background(), stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		// help and completion are cobra's own; a help topic (efmesh
		// help environments) runs nothing, so it has no example.
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" || c.IsAdditionalHelpTopicCommand() {
			return
		}
		n := 0
		for _, l := range strings.Split(c.Example, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "efmesh ") {
				n++
			}
		}
		if n < 2 || n > 4 {
			t.Errorf("%q has %d example(s) in its Example (want 2 to 4 lines starting with \"efmesh \"):\n%s", c.CommandPath(), n, c.Example)
		}
		// cobra prints Example under its own "Examples:" heading; a
		// second list in Long would show twice.
		if strings.Contains(c.Long, "\nExamples:") {
			t.Errorf("%q lists examples in its Long text too; keep them in Example only", c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(a.rootCmd(nil))
}

// TestVersionFlag: efmesh --version prints what efmesh version prints.
func TestVersionFlag(t *testing.T) {
	dir := t.TempDir()
	cmd := mustRun(t, dir, "version")
	flag := mustRun(t, dir, "--version")
	if cmd != flag || !strings.HasPrefix(flag, "efmesh ") {
		t.Errorf("efmesh --version printed %q, efmesh version %q", flag, cmd)
	}
}

// TestUsageOnBadArgs: a missing or extra argument, or a bad flag, is exit 1
// with the error, the command's usage line and where its examples are.
func TestUsageOnBadArgs(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args      []string
		err, used string
	}{
		{[]string{"plan"}, "accepts 1 arg(s), received 0", "efmesh plan <env> [flags]"},
		{[]string{"plan", "dev", "prod"}, "accepts 1 arg(s), received 2", "efmesh plan <env> [flags]"},
		{[]string{"diff", "dev"}, "accepts 2 arg(s), received 1", "efmesh diff <envA> <envB> [flags]"},
		{[]string{"lineage", "a.b", "c.d"}, "accepts at most 1 arg(s), received 2", "efmesh lineage <model[.column[.field]]> | --select <selector> [flags]"},
		{[]string{"show"}, "accepts 1 arg(s), received 0", "efmesh show <model> [flags]"},
		{[]string{"lineage"}, "lineage needs a model, model.column or --select", "efmesh lineage <model[.column[.field]]> | --select <selector> [flags]"},
		{[]string{"version", "extra"}, `unknown command "extra" for "efmesh version"`, "efmesh version [flags]"},
		{[]string{"init", "a", "b"}, "accepts at most 1 arg(s), received 2", "efmesh init [dir] [flags]"},
		{[]string{"status", "dev", "--bogus"}, "unknown flag: --bogus", "efmesh status <env> [flags]"},
	} {
		code, out, errs := run(t, dir, tc.args...)
		cmd := strings.Fields(tc.used)[1]
		want := "efmesh: " + tc.err + "\nusage: " + tc.used + "\nrun 'efmesh " + cmd + " --help' for examples\n"
		if code != ExitError || out != "" || errs != want {
			t.Errorf("efmesh %s: exit %d, stdout %q, stderr:\n%s\nwant exit 1 and stderr:\n%s", strings.Join(tc.args, " "), code, out, errs, want)
		}
	}
}

// TestCompletion: cobra's __complete (what the shell scripts of efmesh
// completion call) offers the project's model names where a command takes
// a model, and its environments — prod, those of efmesh.yaml and those of
// the state store — where it takes an environment.
func TestCompletion(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"efmesh.yaml":    "name: compl\nstart: 2026-01-01\nenvironments: {staging: {redacted: true}}\n",
		"data/items.csv": "id,ts\n1,2026-01-01T08:00:00Z\n",
		"models/raw/items.sql": `MODEL (
  name raw.items,
  kind EXTERNAL (files 'data/items.csv', format csv, header true),
  columns (id INTEGER, ts TIMESTAMP)
);
`,
		"models/core/items.sql":  "MODEL (name core.items, kind FULL);\nSELECT id FROM @ref(raw.items)\n",
		"models/mart/counts.sql": "MODEL (name mart.counts, kind VIEW);\nSELECT count(*) AS n FROM @ref(core.items)\n",
	})
	complete := func(args ...string) []string {
		t.Helper()
		out := mustRun(t, dir, append([]string{"__complete"}, args...)...)
		var got []string
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			if !strings.HasPrefix(l, ":") {
				got = append(got, l)
			}
		}
		return got
	}
	models := []string{"core.items", "mart.counts", "raw.items"}
	check := func(want []string, args ...string) {
		t.Helper()
		if got := complete(args...); !slices.Equal(got, want) {
			t.Errorf("efmesh __complete %q: got %q, want %q", args, got, want)
		}
	}

	// Before any apply: prod and efmesh.yaml's environments; no store is made.
	check([]string{"prod", "staging"}, "plan", "")
	if _, err := os.Stat(filepath.Join(dir, ".efmesh", "state.db")); err == nil {
		t.Error("completion created the state store")
	}
	mustRun(t, dir, "apply", "dev", "--yes")
	envs := []string{"dev", "prod", "staging"}
	for _, args := range [][]string{
		{"plan", ""}, {"apply", ""}, {"run", ""}, {"status", ""}, {"audit", ""},
		{"render", "core.items", "--env", ""}, {"restate", ""},
	} {
		check(envs, args...)
	}
	check([]string{"prod", "staging"}, "diff", "dev", "")
	for _, args := range [][]string{
		{"render", ""}, {"lineage", ""}, {"graph", ""}, {"restate", "dev", "--model", ""},
		{"plan", "dev", "--forward-only", ""}, {"audit", "dev", "--model", ""}, {"compact", "--model", ""},
	} {
		check(models, args...)
	}
	check([]string{"core.items", "raw.items"}, "graph", "mart.counts", "")
	// One model argument only: nothing after it.
	check(nil, "render", "core.items", "")
}

// TestCompletionScripts: efmesh completion writes the script of each shell,
// calling back into efmesh __complete.
func TestCompletionScripts(t *testing.T) {
	dir := t.TempDir()
	for _, shell := range []string{"bash", "zsh", "fish"} {
		if out := mustRun(t, dir, "completion", shell); !strings.Contains(out, "__complete") {
			t.Errorf("efmesh completion %s: no call to __complete in:\n%.300s", shell, out)
		}
	}
}
