package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// chromium finds a headless browser; CI must have one (scripts/test
// installs it), elsewhere the test is skipped.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is required in CI (scripts/test installs it)")
	}
	t.Skip("chromium not installed")
	return ""
}

// dumpDOM loads url in headless Chromium and returns the DOM after scripts ran.
func dumpDOM(t *testing.T, browser, url string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+t.TempDir(), "--dump-dom", url)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, out)
	}
	return string(out)
}

func TestGraphHTMLInChromium(t *testing.T) {
	dir := copyExample(t, "hospital")
	page := filepath.Join(t.TempDir(), "graph.html")
	mustRun(t, dir, "graph", "--html", "-o", page)
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(html), "http://") && !strings.Contains(string(html), "http://www.w3.org/2000/svg") || strings.Contains(string(html), "https://") {
		t.Fatal("the page references the network")
	}
	browser := chromium(t)
	dom := dumpDOM(t, browser, "file://"+page+"#model=med.stays")
	if !strings.Contains(dom, `data-status="ok"`) {
		t.Fatalf("the page did not render cleanly:\n%.2000s", dom)
	}
	out := mustRun(t, dir, "graph", "--json")
	for _, m := range []string{"raw.moves", "med.moves_clean", "med.stays", "med.stays_by_dept", "ref.departments", "mart.daily_census", "mart.longest_stays"} {
		if !strings.Contains(out, `"`+m+`"`) {
			t.Fatalf("graph --json lacks %s", m)
		}
		if !strings.Contains(dom, `data-model="`+m+`"`) {
			t.Fatalf("the page does not draw %s", m)
		}
	}
	// The deep link clicked med.stays: its SQL is shown.
	if !strings.Contains(dom, "lead(m.moved_at) OVER") || !strings.Contains(dom, `class="node k-FULL selected"`) {
		t.Fatalf("clicking a model does not show its SQL:\n%.3000s", dom)
	}
}
