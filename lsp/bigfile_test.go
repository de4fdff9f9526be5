package lsp

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
)

// bigModel is a generated model of n select items (about 30 bytes each).
func bigModel(name string, n int) string {
	var b strings.Builder
	b.WriteString("MODEL (name " + name + ", kind FULL);\nSELECT\n")
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, "  %d + 1 AS column_%06d", i, i)
	}
	b.WriteString("\n")
	return b.String()
}

// TestBigModelDoesNotStall: with a 6 MB model (200,000 select items) open,
// the model gets a note instead of the binder's check, formatting and
// hover on it answer, and another file's edit still gets its
// diagnostics.
func TestBigModelDoesNotStall(t *testing.T) {
	files := map[string]string{}
	for k, v := range smallProject {
		files[k] = v
	}
	files["models/big.sql"] = bigModel("s.big", 200_000)
	if len(files["models/big.sql"]) < 6_000_000 {
		t.Fatalf("the big model is only %d bytes", len(files["models/big.sql"]))
	}
	root := writeProject(t, files)
	c := newTestClient(t, root, clientOptions{})
	start := time.Now()
	c.open("models/big.sql")
	c.waitFor("the note on the big model", func() bool {
		for _, d := range c.diagnostics("models/big.sql") {
			if d.Code == codeTooBig && d.Severity == protocol.DiagnosticSeverityInformation {
				return true
			}
		}
		return false
	})
	t.Logf("big model opened → its note: %v", time.Since(start).Round(time.Millisecond))

	var edits []protocol.TextEdit
	start = time.Now()
	c.mustCall("textDocument/formatting", map[string]any{"textDocument": map[string]any{"uri": c.uri("models/big.sql")}, "options": map[string]any{"tabSize": 2, "insertSpaces": true}}, &edits)
	if len(edits) != 0 {
		t.Errorf("formatting the big model gave %d edits", len(edits))
	}
	var h json.RawMessage
	c.mustCall("textDocument/hover", c.docPos("models/big.sql", "column_100000"), &h)
	t.Logf("format + hover on the big model: %v", time.Since(start).Round(time.Millisecond))

	c.open("models/b.sql")
	start = time.Now()
	c.replace("models/b.sql", "SELECT x FROM", "SELECT nope FROM")
	c.waitFor("the unknown column in b.sql", func() bool {
		for _, d := range c.diagnostics("models/b.sql") {
			if strings.Contains(d.Message, "nope") {
				return true
			}
		}
		return false
	})
	t.Logf("edit of another file → its diagnostics: %v", time.Since(start).Round(time.Millisecond))
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.Logf("heap in use after GC: %d MB", ms.HeapInuse>>20)
	if status, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(status), "\n") {
			if strings.HasPrefix(line, "VmHWM:") || strings.HasPrefix(line, "VmRSS:") {
				t.Log(strings.Join(strings.Fields(line), " "))
			}
		}
	}
	// The generous bound of the issue (500 MB): the check of the big
	// model's body alone used to take gigabytes.
	if ms.HeapInuse > 500<<20 {
		t.Errorf("heap in use %d MB with the big model open", ms.HeapInuse>>20)
	}
}
