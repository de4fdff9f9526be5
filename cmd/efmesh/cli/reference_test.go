package cli

import (
	"context"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra/doc"

	"github.com/efmesh/efmesh/docs"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite docs/reference/cli from the commands")

// cliPages is where the command reference lives, from this package.
const cliPages = "../../../docs/reference/cli"

// regenerate is what a reader of a failure runs.
const regenerate = "go test ./cmd/efmesh/cli -run TestCLIReference -update-docs"

// genCLIPages writes the Markdown page of every command into dir.
func genCLIPages(t *testing.T, dir string) {
	t.Helper()
	a := &app{ctx: context.Background(), stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}
	root := a.rootCmd(nil)
	disableAutoGenTag(root)
	note := "<!-- Generated from efmesh's commands by `" + regenerate + "`: edit the command's help, not this page. -->\n\n"
	err := doc.GenMarkdownTreeCustom(root, dir, func(string) string { return note }, func(name string) string { return name })
	if err != nil {
		t.Fatal(err)
	}
}

// TestCLIReference: docs/reference/cli has one page per command, exactly
// what the commands' help generates (cobra's doc generator); -update-docs
// rewrites them.
func TestCLIReference(t *testing.T) {
	fresh := t.TempDir()
	genCLIPages(t, fresh)
	want := readPages(t, fresh)
	if *updateDocs {
		if err := os.RemoveAll(cliPages); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(cliPages, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, text := range want {
			if err := os.WriteFile(filepath.Join(cliPages, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	have := readPages(t, cliPages)
	for name, text := range want {
		if old, ok := have[name]; !ok {
			t.Errorf("docs/reference/cli/%s is missing; regenerate the pages: %s", name, regenerate)
		} else if old != text {
			t.Errorf("docs/reference/cli/%s is out of date with the command's help; regenerate the pages: %s", name, regenerate)
		}
	}
	for name := range have {
		if _, ok := want[name]; !ok {
			t.Errorf("docs/reference/cli/%s is no command's page; regenerate the pages: %s", name, regenerate)
		}
	}
	for _, page := range []string{"efmesh.md", "efmesh_plan.md", "efmesh_env_list.md", "efmesh_man.md"} {
		if _, ok := want[page]; !ok {
			t.Errorf("the generator wrote no %s", page)
		}
	}
}

func readPages(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("%v; generate the pages: %s", err, regenerate)
	}
	pages := map[string]string{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		pages[e.Name()] = string(b)
	}
	return pages
}

// TestManPages: efmesh man --out DIR writes a man page per command, and
// refuses to run without --out.
func TestManPages(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "man", "man1")
	stdout := mustRun(t, dir, "man", "--out", out)
	if !strings.HasPrefix(stdout, "Wrote ") {
		t.Errorf("efmesh man printed %q", stdout)
	}
	for page, want := range map[string]string{
		"efmesh.1":          "efmesh - Plan and apply SQL model projects",
		"efmesh-plan.1":     "efmesh-plan - Show what apply would change in an environment",
		"efmesh-env-list.1": "efmesh-env-list - ",
		"efmesh-man.1":      "efmesh-man - Write efmesh's man pages",
	} {
		b, err := os.ReadFile(filepath.Join(out, page))
		if err != nil {
			t.Error(err)
			continue
		}
		if !strings.Contains(string(b), ".SH NAME") || !strings.Contains(string(b), want) {
			t.Errorf("%s has no NAME section with %q:\n%s", page, want, b)
		}
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, " "+strconv.Itoa(len(entries))+" man pages") {
		t.Errorf("efmesh man says %q; the folder has %d files", stdout, len(entries))
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "efmesh") || filepath.Ext(e.Name()) != ".1" {
			t.Errorf("efmesh man wrote %s", e.Name())
		}
	}
	var payload struct {
		APIVersion int    `json:"apiVersion"`
		Dir        string `json:"dir"`
		Pages      int    `json:"pages"`
	}
	out2 := filepath.Join(dir, "again")
	if err := json.Unmarshal([]byte(mustRun(t, dir, "man", "--out", out2, "--json")), &payload); err != nil {
		t.Fatal(err)
	}
	if payload.APIVersion != APIVersion || payload.Dir != out2 || payload.Pages != len(entries) {
		t.Errorf("efmesh man --json: %+v, want %d pages in %s", payload, len(entries), out2)
	}
	code, _, errs := run(t, dir, "man")
	if code != ExitError || !strings.Contains(errs, "--out") || !strings.Contains(errs, "usage: efmesh man") {
		t.Errorf("efmesh man without --out: exit %d, stderr %q", code, errs)
	}
}

// TestHelpTopicsAreConcepts: every page of docs/concepts is a help topic
// (efmesh help <name>) that prints the page's text, and the root's help
// lists them; a topic never hides a command of the same name.
func TestHelpTopicsAreConcepts(t *testing.T) {
	dir := t.TempDir()
	entries, err := os.ReadDir("../../../docs/concepts")
	if err != nil {
		t.Fatal(err)
	}
	var pages []string
	for _, e := range entries {
		pages = append(pages, strings.TrimSuffix(e.Name(), ".md"))
	}
	var topics []string
	for _, tp := range docs.Topics() {
		topics = append(topics, tp.Name)
	}
	if !slices.Equal(pages, topics) {
		t.Errorf("docs/concepts has %q, the help topics are %q", pages, topics)
	}
	for _, name := range []string{"environments", "intervals", "macros", "selectors"} {
		if !slices.Contains(topics, name) {
			t.Errorf("no help topic %q (docs/concepts/%s.md)", name, name)
		}
	}
	rootHelp := mustRun(t, dir, "--help")
	for _, tp := range docs.Topics() {
		out := mustRun(t, dir, "help", tp.Name)
		if !strings.HasPrefix(out, tp.Title+"\n") {
			t.Errorf("efmesh help %s starts %q, want the page's title %q", tp.Name, firstLine(out), tp.Title)
		}
		// The page's first paragraph, as plain text.
		para, _, _ := strings.Cut(plainText(tp.Body), "\n\n")
		if !strings.Contains(out, para) {
			t.Errorf("efmesh help %s lacks the page's first paragraph %q:\n%s", tp.Name, para, out)
		}
		if strings.Contains(out, "```") || strings.Contains(out, "](") {
			t.Errorf("efmesh help %s prints Markdown marks:\n%s", tp.Name, out)
		}
		if !strings.Contains(rootHelp, "efmesh "+tp.Name) {
			t.Errorf("efmesh --help does not list the topic %s", tp.Name)
		}
		for _, c := range subcommands {
			if c.name == tp.Name {
				t.Errorf("docs/concepts/%s.md is named like the command %s: efmesh help %s would be ambiguous", tp.Name, c.name, c.name)
			}
		}
	}
	if out := mustRun(t, dir, "help", "lineage"); !strings.Contains(out, "Usage:") {
		t.Errorf("efmesh help lineage does not print the lineage command's help:\n%s", out)
	}
}
