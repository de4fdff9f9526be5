package docsite_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// chromium is the headless browser the page tests run: /usr/bin/chromium
// (scripts/test installs it). Without one the test is skipped with a
// reason, except under CI, where a missing browser is a failure.
func chromium(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"/usr/bin/chromium", "/usr/bin/chromium-browser"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	if os.Getenv("CI") != "" {
		t.Fatal("no chromium: the page tests need a headless Chromium (apt-get install chromium)")
	}
	t.Skip("no chromium: install it (apt-get install chromium) to run the page tests")
	return ""
}

func browse(t *testing.T, bin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	full := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + t.TempDir()}, args...)
	out, err := exec.CommandContext(ctx, bin, full...).Output()
	if err != nil {
		t.Fatalf("chromium %v: %v", args, err)
	}
	return string(out)
}

// dom is the page's DOM after its script ran, at the state the hash
// selects; the page says it rendered with body data-status="ok".
func dom(t *testing.T, bin, index, hash string) string {
	t.Helper()
	d := browse(t, bin, "--dump-dom", "file://"+index+"#"+hash)
	if !strings.Contains(d, `data-status="ok"`) {
		m := regexp.MustCompile(`data-status="[^"]*"`).FindString(d)
		t.Fatalf("page #%s did not render: %s", hash, m)
	}
	return d
}

// screenshot keeps a picture of the page under $EFMESH_ARTIFACTS (or the
// test's temporary directory) and logs where.
func screenshot(t *testing.T, bin, index, hash, name string) {
	t.Helper()
	dir := os.Getenv("EFMESH_ARTIFACTS")
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	browse(t, bin, "--screenshot="+path, "--window-size=1280,900", "--hide-scrollbars", "file://"+index+"#"+hash)
	if st, err := os.Stat(path); err != nil || st.Size() == 0 {
		t.Fatalf("no screenshot at %s: %v", path, err)
	}
	t.Logf("screenshot %s", path)
}

func attrs(d, re string) []string {
	var out []string
	for _, m := range regexp.MustCompile(re).FindAllStringSubmatch(d, -1) {
		out = append(out, m[1])
	}
	return out
}

func TestHospitalPageInBrowser(t *testing.T) {
	bin := chromium(t)
	site, out := hospitalSite(t)
	index := filepath.Join(out, "index.html")

	// The index lists every model.
	d := dom(t, bin, index, "")
	listed := attrs(d, `<li class="model" data-model="([^"]+)"`)
	if len(listed) != len(site.Models) {
		t.Errorf("index lists %d models, the site has %d: %v", len(listed), len(site.Models), listed)
	}

	// Search finds a model and a column.
	d = dom(t, bin, index, "search=stays")
	found := attrs(d, `<li class="result" data-model="([^"]+)"`)
	if !contains(found, "med.stays") || !contains(found, "mart.longest_stays") {
		t.Errorf("search stays found models %v", found)
	}
	if cols := attrs(d, `<li class="result" data-column="([^"]+)"`); !contains(cols, "med.stays_by_dept.stays") || contains(cols, "med.stays.stay_id") {
		t.Errorf("search stays found columns %v", cols)
	}
	d = dom(t, bin, index, "search=move_id")
	if cols := attrs(d, `<li class="result" data-column="([^"]+)"`); !contains(cols, "raw.moves.move_id") {
		t.Errorf("search move_id found columns %v", cols)
	}

	// A column's lineage lists its raw source upstream.
	d = dom(t, bin, index, "lineage=mart.longest_stays.stay_id")
	raw := attrs(d, `<li class="up" data-column="([^"]+)" data-raw="true"`)
	if !contains(raw, "raw.moves.move_id") {
		t.Errorf("lineage of mart.longest_stays.stay_id: raw sources %v", raw)
	}
	d = dom(t, bin, index, "lineage=raw.moves.move_id")
	if dn := attrs(d, `<li class="down" data-column="([^"]+)"`); !contains(dn, "mart.longest_stays.stay_id") {
		t.Errorf("downstream of raw.moves.move_id: %v", dn)
	}

	// A model's page: columns, environments.
	d = dom(t, bin, index, "model=med.stays")
	if cols := attrs(d, `<tr class="column" data-column="([^"]+)"`); !contains(cols, "stay_id") {
		t.Errorf("med.stays page columns %v", cols)
	}
	if envs := attrs(d, `<tr data-env="([^"]+)"`); !contains(envs, "dev") || !contains(envs, "prod") {
		t.Errorf("med.stays page environments %v", envs)
	}
	if !strings.Contains(d, `id="rendered"`) {
		t.Errorf("med.stays page has no rendered SQL")
	}

	d = dom(t, bin, index, "envs")
	if h := attrs(d, `<section class="env" data-env="([^"]+)" data-healthy="true"`); !contains(h, "dev") || !contains(h, "prod") {
		t.Errorf("environments page: healthy %v", h)
	}
	d = dom(t, bin, index, "plan=prod")
	if !strings.Contains(d, "No changes: prod serves the checkout.") {
		t.Errorf("plan page of prod does not say it has no changes")
	}
	d = dom(t, bin, index, "dag")
	if n := attrs(d, `<g class="node" data-model="([^"]+)"`); len(n) != len(site.Models) {
		t.Errorf("DAG draws %d models of %d", len(n), len(site.Models))
	}

	screenshot(t, bin, index, "lineage=mart.longest_stays.stay_id", "docs-hospital-lineage.png")
	screenshot(t, bin, index, "model=med.stays", "docs-hospital-model.png")
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
