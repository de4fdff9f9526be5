package docsite_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/efmesh/efmesh/docsite"
	"github.com/efmesh/efmesh/internal/testkit"
	"github.com/efmesh/efmesh/workspace"
)

func get(t *testing.T, url string) string {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestServeRebuildsAndReloads serves a project's site, edits a model and
// checks that the waiting page is told to reload and gets the new model.
func TestServeRebuildsAndReloads(t *testing.T) {
	dir := testkit.WriteProject(t, map[string]string{
		"efmesh.yaml":  "name: live\nmodels: [\"models/**/*.sql\"]\n",
		"models/a.sql": "MODEL (name raw.a, kind FULL);\nSELECT 1 AS id\n",
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	build := func() (*docsite.Site, error) {
		w, err := workspace.Open(ctx, dir, workspace.OpenOptions{})
		if err != nil {
			return nil, err
		}
		defer w.Close()
		return docsite.Build(ctx, w, docsite.Options{Now: time.Now()})
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := docsite.NewServer(build)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln, dir, func(err error) { t.Logf("rebuild: %v", err) }) }()
	base := "http://" + ln.Addr().String()
	testkit.Eventually(t, 10*time.Second, "the first build", func() bool {
		res, err := http.Get(base + "/")
		if err != nil {
			return false
		}
		res.Body.Close()
		return res.StatusCode == 200
	})
	page := get(t, base+"/")
	if !strings.Contains(page, `"name":"raw.a"`) || !strings.Contains(page, `/_reload?gen=1`) {
		t.Fatalf("first page lacks raw.a or its reload URL")
	}

	reload := make(chan string, 1)
	go func() {
		res, err := http.Get(base + "/_reload?gen=1")
		if err != nil {
			reload <- err.Error()
			return
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		reload <- string(b)
	}()
	// The poll waits: nothing changed yet.
	select {
	case r := <-reload:
		t.Fatalf("reload answered %q before any change", r)
	case <-time.After(700 * time.Millisecond):
	}
	testkit.WriteFile(t, dir, "models/b.sql", "MODEL (name mart.b, kind VIEW);\nSELECT id FROM @ref(raw.a)\n")
	select {
	case r := <-reload:
		if r != "reload" {
			t.Fatalf("reload answered %q", r)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no reload 20 s after a model was added")
	}
	if page := get(t, base+"/"); !strings.Contains(page, `"name":"mart.b"`) {
		t.Errorf("the rebuilt page lacks mart.b")
	}

	// A broken model serves its error instead of the last good page.
	testkit.WriteFile(t, dir, "models/b.sql", "MODEL (name mart.b, kind VIEW);\nSELECT nope FROM @ref(raw.a)\n")
	testkit.Eventually(t, 20*time.Second, "the error page", func() bool {
		return strings.Contains(get(t, base+"/"), "build failed")
	})
	if page := get(t, base+"/"); !strings.Contains(page, "nope") {
		t.Errorf("the error page does not say what is wrong")
	}
	if got := get(t, base+"/nothing"); !strings.Contains(got, "404") {
		t.Errorf("an unknown path: %q", got)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after its context ended")
	}
}
