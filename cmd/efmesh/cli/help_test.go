package cli

import (
	"strings"
	"testing"
)

// efmesh help of a topic that is no command fails and names the commands
// it may have meant; help of a command prints that command's help.
func TestHelpTopics(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args     []string
		code     int
		out, err string
	}{
		{[]string{"help", "plan"}, ExitOK, "Plan diffs the project", ""},
		{[]string{"help", "env", "list"}, ExitOK, "every environment", ""},
		{[]string{"help", "pln"}, ExitError, "", "unknown help topic \"pln\""},
		{[]string{"help", "pln"}, ExitError, "", "Did you mean this?\n\tplan"},
		{[]string{"help", "nosuch"}, ExitError, "", "unknown help topic \"nosuch\""},
		{[]string{"help", "env", "lst"}, ExitError, "", "Did you mean this?\n\tlist"},
	} {
		code, out, errs := run(t, dir, c.args...)
		if code != c.code || !strings.Contains(out, c.out) || !strings.Contains(errs, c.err) {
			t.Errorf("efmesh %s: exit %d, want %d with %q on stdout and %q on stderr\nstdout: %s\nstderr: %s",
				strings.Join(c.args, " "), code, c.code, c.out, c.err, out, errs)
		}
	}
}
