package cli

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
)

// TestSubcommandsTable: the table that builds one command at a time names
// each command as the command names itself, once.
func TestSubcommandsTable(t *testing.T) {
	a := &app{ctx: context.Background(), stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}
	seen := map[string]bool{}
	for _, c := range subcommands {
		if got := c.build(a).Name(); got != c.name {
			t.Errorf("the table names %q the command that calls itself %q", c.name, got)
		}
		if seen[c.name] {
			t.Errorf("%q is in the table twice", c.name)
		}
		seen[c.name] = true
	}
}

// TestLazyCommandTree: a command line builds the command it runs and no
// other; one it cannot read that way (help, completion, an unknown
// command, a flag the root does not have) builds them all, as does efmesh
// alone, and efmesh --version builds none.
func TestLazyCommandTree(t *testing.T) {
	a := &app{ctx: context.Background(), stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}
	for _, tc := range []struct {
		args []string
		want string // the commands built, space-separated; "all" for every one
	}{
		{[]string{"plan", "dev"}, "plan"},
		{[]string{"-C", "x", "--log-level", "debug", "apply", "dev", "--yes"}, "apply"},
		{[]string{"--project=x", "--json", "-Cy", "--lock-timeout", "1s", "status", "dev"}, "status"},
		{[]string{"create-test", "m"}, "create-test"},
		{[]string{"--version"}, ""},
		{[]string{"-C", "x", "-v"}, ""},
		{nil, "all"},
		{[]string{"--help"}, "all"},
		{[]string{"help", "plan"}, "all"},
		{[]string{"completion", "bash"}, "all"},
		{[]string{"__complete", "pl"}, "all"},
		{[]string{"plam", "dev"}, "all"},
		{[]string{"--yes", "apply", "dev"}, "all"},
		{[]string{"--", "plan"}, "all"},
		{[]string{"man", "--out", "x"}, "all"}, // a page of every command
	} {
		var names []string
		for _, c := range a.rootCmd(tc.args).Commands() {
			// help and completion are cobra's; the help topics
			// (efmesh help environments) come with every command.
			if c.Name() != "help" && c.Name() != "completion" && !c.IsAdditionalHelpTopicCommand() {
				names = append(names, c.Name())
			}
		}
		got := strings.Join(names, " ")
		if tc.want == "all" {
			if len(names) != len(subcommands) {
				t.Errorf("%q built %d commands, want all %d", tc.args, len(names), len(subcommands))
			}
			continue
		}
		if got != tc.want {
			t.Errorf("%q built %q, want %q", tc.args, got, tc.want)
		}
	}
}

// TestVersionAlone: efmesh --version, with no other command built, prints
// what efmesh version prints; an unknown command still suggests the near one.
func TestVersionAlone(t *testing.T) {
	ctx := context.Background()
	var flag, cmd, errb bytes.Buffer
	if code := Run(ctx, []string{"--version"}, strings.NewReader(""), &flag, io.Discard); code != 0 {
		t.Fatalf("--version: exit %d", code)
	}
	if code := Run(ctx, []string{"version"}, strings.NewReader(""), &cmd, io.Discard); code != 0 {
		t.Fatalf("version: exit %d", code)
	}
	if flag.String() != cmd.String() || !strings.HasPrefix(flag.String(), "efmesh ") {
		t.Fatalf("--version printed %q, version %q", flag.String(), cmd.String())
	}
	if code := Run(ctx, []string{"plam", "dev"}, strings.NewReader(""), io.Discard, &errb); code != 1 || !strings.Contains(errb.String(), "plan") {
		t.Fatalf("an unknown command: exit %d, %q", code, errb.String())
	}
}
