package cli

import (
	"github.com/efmesh/efmesh/jsonapi"

	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/efmesh/efmesh/docs"
)

// manCmd is efmesh man --out DIR: a man page per command, from the same
// command tree the help and docs/reference/cli are made of.
func (a *app) manCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "man --out DIR",
		Short: "Write efmesh's man pages (section 1) into a folder",
		Long: `Man writes one man page per command (efmesh.1, efmesh-plan.1, …) into
the folder --out names, creating it. Install them where man looks, e.g.
/usr/local/share/man/man1, or read one with man -l.`,
		Example: `  efmesh man --out man
  efmesh man --out /usr/local/share/man/man1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return &usageError{cmd: cmd, err: fmt.Errorf("--out: say which folder to write the man pages into")}
			}
			if err := os.MkdirAll(out, 0o755); err != nil {
				return fmt.Errorf("man: %w", err)
			}
			all := cmd.Root() // every command: rootCmd builds them all for man
			disableAutoGenTag(all)
			header := &doc.GenManHeader{Title: "EFMESH", Section: "1", Source: "efmesh " + Version, Manual: "efmesh manual"}
			if err := doc.GenManTree(all, header, out); err != nil {
				return fmt.Errorf("man: %w", err)
			}
			n := countPages(all)
			if a.json {
				a.writeJSON(jsonapi.Man{APIVersion: APIVersion, Dir: out, Pages: n})
				return nil
			}
			fmt.Fprintf(a.stdout, "Wrote %d man pages to %s.\n", n, out)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "folder to write the man pages into (created if missing)")
	return cmd
}

// countPages is how many pages the doc generators write for c and the
// commands below it: one per available command, help topics aside.
func countPages(c *cobra.Command) int {
	n := 1
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() && !sub.IsAdditionalHelpTopicCommand() {
			n += countPages(sub)
		}
	}
	return n
}

// disableAutoGenTag keeps the generated pages free of the day they were
// made, so that generating twice gives the same bytes.
func disableAutoGenTag(c *cobra.Command) {
	c.DisableAutoGenTag = true
	for _, sub := range c.Commands() {
		disableAutoGenTag(sub)
	}
}

// topicCmds are the help topics, `efmesh help environments` and the rest:
// commands that do not run, whose help is a concept page of docs/concepts
// (embedded), printed as plain text.
func topicCmds() []*cobra.Command {
	var cmds []*cobra.Command
	for _, t := range docs.Topics() {
		cmds = append(cmds, &cobra.Command{
			Use:   t.Name,
			Short: t.Title,
			Long:  t.Title + "\n\n" + plainText(t.Body) + "\n\n(docs/concepts/" + t.Name + ".md)",
		})
	}
	return cmds
}

var (
	mdImage = regexp.MustCompile(`!\[[^\]]*\]\([^)]*\)`)
	mdLink  = regexp.MustCompile(`\[([^\]]+)\]\([^)]*\)`)
)

// plainText is Markdown as a terminal shows it: headings underlined, code
// blocks indented without their fences, links as their text, no
// backticks or emphasis marks.
func plainText(md string) string {
	var b strings.Builder
	inCode := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "```") {
			inCode = !inCode
			continue
		}
		if inCode {
			if line != "" {
				b.WriteString("    " + line)
			}
			b.WriteString("\n")
			continue
		}
		if h, ok := strings.CutPrefix(line, "## "); ok {
			h = inline(h)
			b.WriteString(h + "\n" + strings.Repeat("-", len([]rune(h))) + "\n")
			continue
		}
		b.WriteString(inline(line) + "\n")
	}
	return strings.TrimSpace(b.String())
}

// inline removes a line's Markdown marks.
func inline(s string) string {
	s = mdImage.ReplaceAllString(s, "")
	s = mdLink.ReplaceAllString(s, "$1")
	s = strings.ReplaceAll(s, "**", "")
	return strings.ReplaceAll(s, "`", "")
}
