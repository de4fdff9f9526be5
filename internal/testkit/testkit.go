// Package testkit holds the helpers the tests of several packages share:
// temporary projects written from a map of files, copies of the examples,
// waiting for a condition, and the PostgreSQL server of the Postgres suites.
//
// It imports nothing of efmesh, so the tests of any package may use it
// (even a package's own internal tests). Helpers that open a real database
// live in internal/testkit/realdb. Only _test.go files import it.
package testkit

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// WriteFiles writes files (slash path → content) under dir, creating the
// folders they need.
func WriteFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for rel, body := range files {
		WriteFile(t, dir, rel, body)
	}
}

// WriteFile writes one file (slash path rel) under dir.
func WriteFile(t testing.TB, dir, rel, body string) {
	t.Helper()
	path := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// WriteProject writes files (slash path → content) into a new temporary
// folder and returns it.
func WriteProject(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	WriteFiles(t, dir, files)
	return dir
}

// CopyDir copies the project at src into dst, leaving out what a run leaves
// behind: the .efmesh folder and DuckDB files with their WAL.
func CopyDir(t testing.TB, src, dst string) {
	t.Helper()
	if err := CopyDirErr(src, dst); err != nil {
		t.Fatal(err)
	}
}

// CopyDirErr is CopyDir for a caller that is no test (a testscript
// command): it returns the error.
func CopyDirErr(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			if d.Name() == ".efmesh" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if strings.HasSuffix(d.Name(), ".duckdb") || strings.HasSuffix(d.Name(), ".wal") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
}

// CopyProject copies the project at src into a new temporary folder (see
// CopyDir) and returns it.
func CopyProject(t testing.TB, src string) string {
	t.Helper()
	dst := t.TempDir()
	CopyDir(t, src, dst)
	return dst
}

// Example copies examples/<name> of this repository into a new temporary
// folder and returns it.
func Example(t testing.TB, name string) string {
	t.Helper()
	return CopyProject(t, filepath.Join(Root(t), "examples", name))
}

// Shop32 writes the shared 32-model test project
// (cmd/efmesh/cli/testdata/projects/shop32.sh: seeds, views, incrementals,
// marts, reports and unit tests five generations deep) into a new
// temporary folder and returns it.
func Shop32(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("sh", filepath.Join(Root(t), "cmd", "efmesh", "cli", "testdata", "projects", "shop32.sh"))
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("shop32.sh: %v\n%s", err, out)
	}
	return dir
}

// Root is the repository's root: the folder of go.mod.
func Root(t testing.TB) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		t.Fatal("testkit: not inside the efmesh module")
	}
	return filepath.Dir(gomod)
}

// PostgresURL is the throwaway server named by EFMESH_TEST_POSTGRES_URL
// (scripts/test starts one). Without it the test is skipped, except in CI,
// where a missing server is a failure.
func PostgresURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("EFMESH_TEST_POSTGRES_URL")
	if u == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("EFMESH_TEST_POSTGRES_URL is not set: CI must run the Postgres suites (scripts/test starts a server)")
		}
		t.Skip("EFMESH_TEST_POSTGRES_URL is not set")
	}
	return u
}

// RandomName is prefix followed by 12 random hex digits: a name of the
// test's own in a shared server (a schema, a database).
func RandomName(prefix string) string {
	b := make([]byte, 6)
	rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// Eventually polls cond every few milliseconds until it holds, and fails
// the test, naming what it waited for, when timeout passes first.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}
