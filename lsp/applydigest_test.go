package lsp

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/efmesh/efmesh/internal/testkit"
	"github.com/efmesh/efmesh/workspace"
)

// logRecorder keeps the messages of the records logged through it, at
// every level.
type logRecorder struct {
	mu   sync.Mutex
	msgs []string
}

func (r *logRecorder) Enabled(context.Context, slog.Level) bool { return true }

func (r *logRecorder) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, rec.Message)
	return nil
}

func (r *logRecorder) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *logRecorder) WithGroup(string) slog.Handler      { return r }

// take returns the messages logged since the last take.
func (r *logRecorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.msgs
	r.msgs = nil
	return out
}

// answered reports which digest msgs say an apply was answered from: ""
// for none.
func answered(msgs []string) string {
	for _, m := range msgs {
		switch {
		case strings.HasPrefix(m, "apply answered from the no-op digest"):
			return "no-op"
		case strings.HasPrefix(m, "apply answered from the fingerprints digest"):
			return "fingerprints"
		}
	}
	return ""
}

// TestApplyAnswersFromTheDigest: the editor's apply is the CLI's
// (workspace.Apply), fast paths included. The first apply of dev builds
// and leaves the environment's no-op digest behind; the apply after it,
// of the unchanged project, is answered from that digest (nothing loaded,
// nothing written) with the plan the full path makes; the plan the CLI
// makes next (workspace.Plan, as `efmesh plan dev` calls it) is answered
// from the digest the editor's apply left; and prod, which only promotes
// what dev built, is applied from the fingerprints digest, as `efmesh
// apply prod` applies it. An edit saved to disk takes the full path again.
func TestApplyAnswersFromTheDigest(t *testing.T) {
	t.Setenv("EFMESH_NOW", "2026-02-01T06:00:00Z")
	root := writeProject(t, smallProject)
	logs := &logRecorder{}
	c := newTestClient(t, root, clientOptions{logger: slog.New(logs)})
	c.open("models/a.sql")
	c.waitIdle()
	apply := func(args map[string]any) applyResult {
		t.Helper()
		var res applyResult
		c.mustCall("workspace/executeCommand", map[string]any{"command": cmdApply, "arguments": []any{args}}, &res)
		return res
	}

	first := apply(map[string]any{"env": "dev"})
	if !first.Applied || len(first.Built) != 2 {
		t.Fatalf("first apply of dev: %+v", first)
	}
	if by := answered(logs.take()); by != "" {
		t.Fatalf("the first apply of dev was answered from the %s digest, want the full path", by)
	}

	again := apply(map[string]any{"env": "dev"})
	if by := answered(logs.take()); by != "no-op" {
		t.Fatalf("the apply after an apply was answered by %q, want the no-op digest", by)
	}
	if again.Applied || len(again.Built) != 0 || len(again.Promoted) != 0 {
		t.Fatalf("the apply after an apply changed something: %+v", again)
	}
	// The digest's plan is the full path's.
	w, err := workspace.Open(context.Background(), root, workspace.OpenOptions{Env: "dev"})
	if err != nil {
		t.Fatal(err)
	}
	full, err := w.Plan(context.Background(), "dev")
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if want := workspace.PlanText(full); again.Summary != want {
		t.Fatalf("the digest's plan:\n%s\nthe full path's:\n%s", again.Summary, want)
	}

	// The CLI's plan reads the digest the editor's apply left.
	plan, err := workspace.Plan(context.Background(), workspace.Loading{Dir: root}, "dev",
		workspace.PlanRequest{Noop: &workspace.NoopRequest{Env: "dev"}, Text: true})
	if err != nil {
		t.Fatal(err)
	}
	if plan.Answer != workspace.ByNoopDigest || plan.Text != again.Summary {
		t.Fatalf("efmesh plan dev after the editor's apply: answered by the %s, text %q", plan.Answer, plan.Text)
	}

	prod := apply(map[string]any{"env": "prod", "confirm": true})
	if by := answered(logs.take()); by != "fingerprints" {
		t.Fatalf("the apply of prod was answered by %q, want the fingerprints digest", by)
	}
	if !prod.Applied || len(prod.Built) != 0 || !slices.Equal(prod.Promoted, []string{"s.a", "s.b"}) {
		t.Fatalf("the apply of prod: %+v", prod)
	}

	// A change on disk: the digest no longer answers.
	testkit.WriteFile(t, root, "models/b.sql", "MODEL (name s.b, kind VIEW);\nSELECT x, 2 AS y FROM @ref(s.a)\n")
	changed := apply(map[string]any{"env": "dev"})
	if by := answered(logs.take()); by != "" {
		t.Fatalf("the apply of a changed project was answered from the %s digest", by)
	}
	if !changed.Applied || !slices.Equal(changed.Built, []string{"s.b"}) {
		t.Fatalf("the apply of a changed project: %+v", changed)
	}
}
