package lsp

import (
	"fmt"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"

	"go.lsp.dev/protocol"
)

// pathOf returns the absolute, cleaned file path of a file:// URI. Other
// schemes (untitled:, git:, …) are documents the server does not know; they
// are an error, never a panic (uri.URI.Filename panics).
func pathOf(u protocol.DocumentURI) (string, error) {
	s := string(u)
	if !strings.HasPrefix(strings.ToLower(s), "file:") {
		return "", fmt.Errorf("not a file URI: %q", s)
	}
	pu, err := url.Parse(s)
	if err != nil {
		return "", fmt.Errorf("bad URI %q: %w", s, err)
	}
	p := pu.Path
	if p == "" {
		p = pu.Opaque
	}
	if p == "" {
		return "", fmt.Errorf("empty path in URI %q", s)
	}
	// file:///C:/x → /C:/x on the wire; C:\x on Windows.
	if runtime.GOOS == "windows" && len(p) >= 3 && p[0] == '/' && p[2] == ':' {
		p = p[1:]
	}
	p = filepath.FromSlash(p)
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("relative path in URI %q", s)
	}
	return filepath.Clean(p), nil
}

// uriOf returns the file:// URI of an absolute path.
func uriOf(path string) protocol.DocumentURI {
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // Windows drive paths
	}
	return protocol.DocumentURI((&url.URL{Scheme: "file", Path: p}).String())
}
