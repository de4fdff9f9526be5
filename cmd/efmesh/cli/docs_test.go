package cli

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/efmesh/efmesh/jsonapi"
	"github.com/efmesh/efmesh/project"
)

// repoRoot is the repository's root, from this package.
const repoRoot = "../../.."

// A codeBlock is one fenced block of a Markdown page.
type codeBlock struct {
	file  string // relative to the repository's root
	line  int    // the opening fence's line, 1-based
	info  string // the info string's first word: sh, sql, yaml, …
	lines []string
}

func (b codeBlock) String() string { return fmt.Sprintf("%s:%d", b.file, b.line) }

// docPages are the pages whose code blocks TestDocs checks: the README and
// every page of docs/ but the generated command reference (the commands'
// own help, kept by TestCLIReference).
func docPages(t *testing.T) []string {
	t.Helper()
	pages := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(repoRoot, "docs"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repoRoot, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() && rel == "docs/reference/cli" {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(rel, ".md") {
			pages = append(pages, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pages
}

// codeBlocks reads the fenced blocks of a page; an unclosed fence is an
// error.
func codeBlocks(file, text string) ([]codeBlock, error) {
	var blocks []codeBlock
	var cur *codeBlock
	for i, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, "```") {
			if cur != nil {
				cur.lines = append(cur.lines, line)
			}
			continue
		}
		if cur != nil {
			blocks = append(blocks, *cur)
			cur = nil
			continue
		}
		info, _, _ := strings.Cut(strings.TrimSpace(strings.TrimPrefix(line, "```")), " ")
		cur = &codeBlock{file: file, line: i + 1, info: info}
	}
	if cur != nil {
		return nil, fmt.Errorf("%s: the code block has no closing ```", cur)
	}
	return blocks, nil
}

// notRun is the first line of a block that cannot run here, with why.
var notRun = regexp.MustCompile(`^# not run: \S`)

// TestDocs runs or parses every code block of the README and docs/ (the
// conventions are in docs/README.md, "How the code blocks here are
// checked"):
//   - sh and console blocks: their efmesh commands run in order, against the
//     real CLI in a scratch copy of examples/hospital, as a script of
//     TestScript's kind (one per page), each exiting 0 or as its comment's
//     "(exit N)" says;
//   - sql blocks parse as a model, an audit, macros, a header property or a
//     model's body; yaml blocks parse as efmesh.yaml or as a unit-test file;
//     json blocks are JSON; text blocks are output, not run.
func TestDocs(t *testing.T) {
	scripts := t.TempDir()
	for _, page := range docPages(t) {
		b, err := os.ReadFile(filepath.Join(repoRoot, page))
		if err != nil {
			t.Fatal(err)
		}
		blocks, err := codeBlocks(page, string(b))
		if err != nil {
			t.Error(err)
			continue
		}
		if page == "README.md" && len(blocks) > 0 {
			// The README's first block is the set-up of a fresh clone:
			// the hospital example's apply (TestScript's examples cover
			// it) and scripts/test, the suite this test is part of.
			blocks = blocks[1:]
		}
		var script []string
		for _, blk := range blocks {
			if len(blk.lines) > 0 && notRun.MatchString(blk.lines[0]) {
				continue
			}
			switch blk.info {
			case "sh", "console":
				lines, problems := scriptLines(blk)
				script = append(script, lines...)
				for _, p := range problems {
					t.Error(p)
				}
			case "sql":
				problems := checkSQL(blk)
				if w, _ := firstWord(blk.lines); len(problems) == 0 && strings.EqualFold(w, "MODEL") {
					problems = planModel(t, blk)
				}
				for _, p := range problems {
					t.Error(p)
				}
			case "yaml":
				for _, p := range checkYAML(blk) {
					t.Error(p)
				}
			case "json":
				if !json.Valid([]byte(strings.Join(blk.lines, "\n"))) {
					t.Errorf("%s: the json block is not JSON", blk)
				}
			case "text":
			case "":
				t.Errorf("%s: a code block without an info string: say what it is (sh, console, sql, yaml, json, text)", blk)
			default:
				t.Errorf("%s: a %s block: TestDocs checks sh, console, sql, yaml and json blocks and shows text ones; mark it text, or # not run: why", blk, blk.info)
			}
		}
		if len(script) > 0 {
			name := strings.NewReplacer("/", "-", ".md", ".txtar").Replace(page)
			body := "# The shell blocks of " + page + ", in a copy of examples/hospital.\nexample hospital\n" + strings.Join(script, "\n") + "\n"
			if err := os.WriteFile(filepath.Join(scripts, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Run("shell", func(t *testing.T) {
		testscript.Run(t, scriptParams(scripts))
	})
}

// promisedExit is the exit code a command's comment promises.
var promisedExit = regexp.MustCompile(`\(exit (\d+)\)\s*$`)

// scriptLines turns a shell block into script lines: `cd DIR` and
// `exits N efmesh args…`, each after a comment naming its line in the page.
func scriptLines(blk codeBlock) (lines, problems []string) {
	for i, raw := range blk.lines {
		where := fmt.Sprintf("%s:%d", blk.file, blk.line+1+i)
		line := strings.TrimSpace(raw)
		if blk.info == "console" {
			cmd, ok := strings.CutPrefix(line, "$ ")
			if !ok {
				continue // output
			}
			line = cmd
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		words, comment, err := shellWords(line)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v: write one efmesh command a line, or start the block with # not run: why", where, err))
			continue
		}
		code := 0
		if m := promisedExit.FindStringSubmatch(comment); m != nil {
			code, _ = strconv.Atoi(m[1])
		}
		switch {
		case words[0] == "cd" && len(words) == 2:
			lines = append(lines, "# "+where, "cd "+scriptQuote(words[1]))
		case words[0] == "efmesh":
			quoted := make([]string, len(words))
			for k, w := range words {
				quoted[k] = scriptQuote(w)
			}
			lines = append(lines, "# "+where, "exits "+strconv.Itoa(code)+" "+strings.Join(quoted, " "))
		default:
			problems = append(problems, fmt.Sprintf("%s: %q is not an efmesh command: a shell block runs efmesh and cd only; start the block with # not run: why", where, words[0]))
		}
	}
	return lines, problems
}

// shellWords splits a line as a POSIX shell does a simple command with
// quoted words, and returns its comment; anything more (pipes,
// redirections, variables, substitutions) is an error.
func shellWords(line string) (words []string, comment string, err error) {
	var w strings.Builder
	inWord := false
	rs := []rune(line)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words, inWord = append(words, w.String()), false
				w.Reset()
			}
		case c == '#' && !inWord:
			comment = string(rs[i+1:])
			i = len(rs)
		case c == '\'':
			j := slices.Index(rs[i+1:], '\'')
			if j < 0 {
				return nil, "", fmt.Errorf("an unclosed ' quote")
			}
			w.WriteString(string(rs[i+1 : i+1+j]))
			i, inWord = i+1+j, true
		case c == '"':
			i++
			for ; i < len(rs) && rs[i] != '"'; i++ {
				if rs[i] == '$' || rs[i] == '`' {
					return nil, "", fmt.Errorf("%q inside double quotes is a shell expansion", rs[i])
				}
				if rs[i] == '\\' && i+1 < len(rs) && strings.ContainsRune(`"\$`+"`", rs[i+1]) {
					i++
				}
				w.WriteRune(rs[i])
			}
			if i == len(rs) {
				return nil, "", fmt.Errorf(`an unclosed " quote`)
			}
			inWord = true
		case c == '\\' && i+1 < len(rs):
			i++
			w.WriteRune(rs[i])
			inWord = true
		case strings.ContainsRune("|&;<>()$`", c):
			return nil, "", fmt.Errorf("%q is shell syntax, not part of a simple command", c)
		default:
			w.WriteRune(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	if len(words) == 0 {
		return nil, "", fmt.Errorf("no command")
	}
	return words, comment, nil
}

// scriptQuote quotes a word for a script: inside single quotes only the
// quote is special, written twice.
func scriptQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// firstWord is a block's first word outside comments, and the text.
func firstWord(lines []string) (string, string) {
	text := strings.Join(lines, "\n")
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "--") {
			continue
		}
		f := strings.FieldsFunc(l, func(r rune) bool { return r == ' ' || r == '(' || r == ',' })
		if len(f) > 0 {
			return f[0], text
		}
	}
	return "", text
}

// checkSQL parses a sql block as what its first word says it is.
func checkSQL(blk codeBlock) []string {
	word, text := firstWord(blk.lines)
	var diags []project.Diagnostic
	what := "model"
	switch {
	case strings.EqualFold(word, "MODEL"):
		_, diags = project.ParseModel("models/doc.sql", []byte(text))
	case strings.EqualFold(word, "AUDIT"):
		what = "audit"
		_, diags = project.ParseAudit("audits/doc.sql", []byte(text))
	case strings.EqualFold(word, "MACRO"):
		what = "macro file"
		_, diags = project.ParseMacros("macros/doc.sql", []byte(text))
	case word == "name":
		what = "header property"
		_, diags = project.ParseModel("models/doc.sql", []byte("MODEL (\n"+text+"\n);\nSELECT 1 AS x\n"))
	case slices.Contains(project.PropertyNames(), word):
		// A property parses in the header of some model: one with a
		// body, one of a kind without (SEED, EXTERNAL), or a source's
		// (freshness).
		what = "header property"
		for _, wrap := range []string{"MODEL (\nname doc.example,\n%s\n);\nSELECT 1 AS x\n", "MODEL (\nname doc.example,\n%s\n);\n",
			"MODEL (\nname doc.example,\nkind EXTERNAL (table raw.example),\ncolumns (loaded_at TIMESTAMP),\n%s\n);\n"} {
			_, d := project.ParseModel("models/doc.sql", []byte(fmt.Sprintf(wrap, text)))
			if len(problems(blk, what, d)) == 0 {
				return nil
			}
			if diags == nil {
				diags = d // the first header's problems are the ones shown
			}
		}
	default:
		what = "model body"
		_, diags = project.ParseModel("models/doc.sql", []byte("MODEL (name doc.example);\n"+text+"\n"))
	}
	return problems(blk, what, diags)
}

// checkYAML parses a yaml block as efmesh.yaml, or as a unit-test file
// when its first line is a comment naming one (# tests/x.yaml).
func checkYAML(blk codeBlock) []string {
	text := []byte(strings.Join(blk.lines, "\n") + "\n")
	if len(blk.lines) > 0 && strings.HasPrefix(blk.lines[0], "# tests/") {
		_, diags := project.ParseTests("tests/doc.yaml", text)
		return problems(blk, "unit-test file", diags)
	}
	_, diags := project.ParseConfig("efmesh.yaml", text)
	return problems(blk, "efmesh.yaml", diags)
}

func problems(blk codeBlock, what string, diags []project.Diagnostic) []string {
	var out []string
	for _, d := range diags {
		if d.Severity == project.SeverityError {
			out = append(out, fmt.Sprintf("%s: the %s block does not parse as a %s: %d:%d: %s", blk, blk.info, what, d.Range.Start.Line, d.Range.Start.Column, d.Message))
		}
	}
	return out
}

// planModel plans a whole model block in a copy of examples/hospital, as
// the file of the model of its name (beside the others when none has it):
// the plan must find no error in that file. (An error it makes in the
// models that read it is the example's business, not the block's.)
func planModel(t *testing.T, blk codeBlock) []string {
	t.Helper()
	text := strings.Join(blk.lines, "\n") + "\n"
	m, _ := project.ParseModel("models/doc.sql", []byte(text))
	dir := copyExample(t, "hospital")
	rel := "models/" + m.Schema + "/" + m.Table + ".sql"
	if err := os.MkdirAll(filepath.Join(dir, "models", m.Schema), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(rel)), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, dir, "plan", "dev", "--json")
	if code == ExitOK {
		return nil
	}
	var payload struct {
		Diagnostics []jsonapi.Diagnostic `json:"diagnostics"`
	}
	if err := json.Unmarshal([]byte(out), &payload); err != nil || len(payload.Diagnostics) == 0 {
		return []string{fmt.Sprintf("%s: efmesh plan dev of the model block in examples/hospital: exit %d\n%s%s", blk, code, out, errs)}
	}
	var problems []string
	for _, d := range payload.Diagnostics {
		if d.File == rel && d.Severity == "error" {
			problems = append(problems, fmt.Sprintf("%s: the model block does not plan in examples/hospital: %d:%d: %s", blk, d.Line, d.Column, d.Message))
		}
	}
	return problems
}

// TestDocsCheckersFail: each of TestDocs's checks refuses what it must, so
// a page that breaks one cannot pass.
func TestDocsCheckersFail(t *testing.T) {
	block := func(info string, lines ...string) codeBlock {
		return codeBlock{file: "docs/x.md", line: 1, info: info, lines: lines}
	}
	for _, c := range []struct {
		blk  codeBlock
		want string
	}{
		{block("sql", "kind FULLL"), "does not parse as a header property"},
		{block("sql", "MODEL (name med.x, kind FULL, bogus 1);", "SELECT 1 AS x"), "does not parse as a model"},
		{block("sql", "AUDIT (name x, blocking maybe);", "SELECT * FROM @this"), "does not parse as a audit"},
		{block("yaml", "name: x", "bogus: 1"), "does not parse as a efmesh.yaml"},
		{block("yaml", "# tests/x.yaml", "t:", "  model: 3", "  bogus: 1"), "does not parse as a unit-test file"},
	} {
		var got []string
		if c.blk.info == "sql" {
			got = checkSQL(c.blk)
		} else {
			got = checkYAML(c.blk)
		}
		if len(got) == 0 || !strings.Contains(got[0], c.want) {
			t.Errorf("%q: got %q, want a problem with %q", c.blk.lines, got, c.want)
		}
	}
	for line, want := range map[string]string{
		"efmesh plan dev | cat":        "'|' is shell syntax",
		"efmesh plan $ENV":             "'$' is shell syntax",
		"ls models":                    `"ls" is not an efmesh command`,
		`efmesh query "SELECT $x"`:     "shell expansion",
		"efmesh query 'SELECT 1":       "unclosed",
		"go build ./cmd/efmesh # (x)":  `"go" is not an efmesh command`,
		"efmesh render && efmesh plan": "'&' is shell syntax",
	} {
		_, problems := scriptLines(block("sh", line))
		if len(problems) != 1 || !strings.Contains(problems[0], want) {
			t.Errorf("%q: got %q, want a problem with %q", line, problems, want)
		}
	}
	lines, problems := scriptLines(block("console", "$ efmesh apply dev   # no terminal, no --yes (exit 2)", "Plan for environment dev:", "$ cd 'my project'"))
	want := []string{"# docs/x.md:2", "exits 2 'efmesh' 'apply' 'dev'", "# docs/x.md:4", "cd 'my project'"}
	if len(problems) > 0 || !slices.Equal(lines, want) {
		t.Errorf("console block: got %q (%q), want %q", lines, problems, want)
	}
	if _, err := codeBlocks("docs/x.md", "text\n```sh\nefmesh plan dev\n"); err == nil {
		t.Error("an unclosed block was read")
	}
}
