package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/efmesh/efmesh/lsp"
)

// TestEditorPlanTextIsTheCLIs: the editor's efmesh.plan shows, for the same
// project, exactly the text `efmesh plan` prints (one formatter, in
// workspace), on a plan that adds, changes and removes models.
func TestEditorPlanTextIsTheCLIs(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"efmesh.yaml":        "name: shop\n",
		"models/orders.sql":  "MODEL (name raw.orders, kind FULL);\nSELECT 1 AS order_id, 'ann' AS customer, 2.5 AS amount\n",
		"models/revenue.sql": "MODEL (name mart.revenue, kind FULL);\nSELECT o.customer, sum(o.amount) AS revenue FROM @ref(raw.orders) AS o GROUP BY ALL\n",
		"models/top.sql":     "MODEL (name mart.top, kind VIEW);\nSELECT r.customer FROM @ref(mart.revenue) AS r ORDER BY r.revenue DESC LIMIT 1\n",
		"models/old.sql":     "MODEL (name mart.old, kind VIEW);\nSELECT o.order_id FROM @ref(raw.orders) AS o\n",
	})
	mustRun(t, dir, "apply", "dev", "--yes")
	editFile(t, dir, "models/revenue.sql", func(s string) string { return s[:len(s)-len(" GROUP BY ALL\n")] + " WHERE o.amount > 0 GROUP BY ALL\n" })
	if err := os.Remove(filepath.Join(dir, "models", "old.sql")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "models", "count.sql"), []byte("MODEL (name mart.count, kind VIEW);\nSELECT count(*) AS n FROM @ref(raw.orders)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cli := mustRun(t, dir, "plan", "dev")

	editor := editorPlan(t, dir, "dev")

	if editor != cli {
		t.Fatalf("the editor's plan text differs from the CLI's:\neditor:\n%s\ncli:\n%s", editor, cli)
	}
	for _, want := range []string{"+ mart.count", "~ mart.revenue", "- mart.old"} {
		if !strings.Contains(cli, want) {
			t.Errorf("the plan lacks %q:\n%s", want, cli)
		}
	}
}

// TestEditorPlanSeesTheWarehouse: the editor's efmesh.plan checks the state
// store against the warehouse as `efmesh plan` does: a physical table
// dropped behind efmesh's back is rebuilt in both plans, with one text.
func TestEditorPlanSeesTheWarehouse(t *testing.T) {
	dir := writeProject(t, threeLevels())
	mustRun(t, dir, "apply", "dev", "--yes")
	mid := physicalOf(t, dir, "dev", "m.mid")
	query(t, dir, "DROP TABLE "+mid)
	cli := mustRun(t, dir, "plan", "dev")
	if !strings.Contains(cli, "! m.mid  unchanged     missing → rebuild "+mid) {
		t.Fatalf("the CLI's plan after DROP TABLE %s does not rebuild m.mid:\n%s", mid, cli)
	}
	if editor := editorPlan(t, dir, "dev"); editor != cli {
		t.Fatalf("the editor's plan text differs from the CLI's:\neditor:\n%s\ncli:\n%s", editor, cli)
	}
}

// editorPlan runs efmesh.plan for env on the project in dir through a real
// language server and client, and returns the plan's text.
func editorPlan(t *testing.T, dir, env string) string {
	t.Helper()
	plan, _, err := editorSession(t, dir, env, "")
	if err != nil {
		t.Fatalf("workspace/executeCommand: %v", err)
	}
	return plan
}

// editorSession runs efmesh.plan for env on the project in dir through a
// real language server and client: the plan's text, the diagnostics the
// server published, as "file:line: message" (file relative to dir),
// waiting for one that contains waitFor when it is set, and the error the
// plan answers.
func editorSession(t *testing.T, dir, env, waitFor string) (string, []string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a, b := net.Pipe()
	served := make(chan error, 1)
	go func() { served <- lsp.Serve(ctx, b, lsp.Options{}) }()
	conn := jsonrpc2.NewConn(jsonrpc2.NewStream(a))
	uri := "file://" + filepath.ToSlash(dir)
	var mu sync.Mutex
	diags := map[string][]string{}
	conn.Go(ctx, func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		if req.Method() == "textDocument/publishDiagnostics" {
			var p struct {
				URI         string `json:"uri"`
				Diagnostics []struct {
					Range struct {
						Start struct{ Line int } `json:"start"`
					} `json:"range"`
					Message string `json:"message"`
				} `json:"diagnostics"`
			}
			if json.Unmarshal(req.Params(), &p) == nil {
				var ds []string
				for _, d := range p.Diagnostics {
					ds = append(ds, fmt.Sprintf("%s:%d: %s", strings.TrimPrefix(strings.TrimPrefix(p.URI, uri), "/"), d.Range.Start.Line+1, d.Message))
				}
				mu.Lock()
				diags[p.URI] = ds
				mu.Unlock()
			}
		}
		return reply(ctx, nil, nil) // registrations, progress: accepted, ignored
	})
	published := func() []string {
		mu.Lock()
		defer mu.Unlock()
		var out []string
		for _, ds := range diags {
			out = append(out, ds...)
		}
		sort.Strings(out)
		return out
	}
	call := func(method string, params, result any) error {
		_, err := conn.Call(ctx, method, params, result)
		return err
	}
	if err := call("initialize", map[string]any{"processId": nil, "rootUri": uri,
		"workspaceFolders": []any{map[string]any{"uri": uri, "name": "shop"}}, "capabilities": map[string]any{}}, nil); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if err := conn.Notify(ctx, "initialized", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	var plan struct {
		Summary string `json:"summary"`
	}
	planErr := call("workspace/executeCommand", map[string]any{"command": "efmesh.plan", "arguments": []any{map[string]any{"root": dir, "env": env}}}, &plan)
	for deadline := time.Now().Add(10 * time.Second); waitFor != "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if strings.Contains(strings.Join(published(), "\n"), waitFor) {
			break
		}
	}
	if err := call("shutdown", nil, nil); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	_ = conn.Notify(ctx, "exit", nil)
	if err := <-served; err != nil {
		t.Errorf("the language server: %v", err)
	}
	conn.Close()

	return plan.Summary, published(), planErr
}
