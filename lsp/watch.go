package lsp

import (
	"context"
	"encoding/json"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"go.lsp.dev/protocol"
)

// watchPoll is how often the server looks at the project's files itself
// when the client cannot watch them for it (no dynamic registration of
// workspace/didChangeWatchedFiles, as in Neovim 0.7).
const watchPoll = 2 * time.Second

// watchedGlobs are the files the client is asked to watch, and the
// server's own poll looks at: models, macros and audits (.sql), tests,
// efmesh.yaml (.yaml, .yml) and seeds (.csv).
var watchedGlobs = []string{"**/*.sql", "**/*.yaml", "**/*.yml", "**/*.csv"}

// watchedFile reports whether a path is one the watch covers.
func watchedFile(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".sql", ".yaml", ".yml", ".csv":
		return true
	}
	return false
}

// stamp is what the poll compares of a file.
type stamp struct {
	mod  time.Time
	size int64
}

// stamps lists the watched files under root with their stamps, leaving
// out hidden folders (.git, .efmesh) and node_modules.
func stamps(ctx context.Context, root string) map[string]stamp {
	out := map[string]stamp{}
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			return filepath.SkipAll
		}
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !watchedFile(path) {
			return nil
		}
		if fi, err := d.Info(); err == nil {
			out[path] = stamp{mod: fi.ModTime(), size: fi.Size()}
		}
		return nil
	})
	return out
}

// diffStamps is the file events that turn before into after.
func diffStamps(before, after map[string]stamp) []*protocol.FileEvent {
	var evs []*protocol.FileEvent
	for path, st := range after {
		old, ok := before[path]
		switch {
		case !ok:
			evs = append(evs, &protocol.FileEvent{URI: uriOf(path), Type: protocol.FileChangeTypeCreated})
		case old != st:
			evs = append(evs, &protocol.FileEvent{URI: uriOf(path), Type: protocol.FileChangeTypeChanged})
		}
	}
	for path := range before {
		if _, ok := after[path]; !ok {
			evs = append(evs, &protocol.FileEvent{URI: uriOf(path), Type: protocol.FileChangeTypeDeleted})
		}
	}
	return evs
}

// watchFolders polls the workspace folders every interval and hands what
// changed on disk to didChangeWatchedFiles, as a client that watches
// files would. It runs until the session ends.
func (s *Server) watchFolders(interval time.Duration) {
	s.goSafe("watch the project files", func() {
		s.mu.Lock()
		folders := append([]string(nil), s.folders...)
		s.mu.Unlock()
		prev := make([]map[string]stamp, len(folders))
		for i, f := range folders {
			prev[i] = stamps(s.ctx, f)
		}
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-s.ctx.Done():
				return
			case <-t.C:
			}
			var evs []*protocol.FileEvent
			for i, f := range folders {
				cur := stamps(s.ctx, f)
				evs = append(evs, diffStamps(prev[i], cur)...)
				prev[i] = cur
			}
			if len(evs) == 0 || s.ctx.Err() != nil {
				continue
			}
			params, err := json.Marshal(&protocol.DidChangeWatchedFilesParams{Changes: evs})
			if err != nil {
				continue
			}
			s.serial.Lock()
			err = s.didChangeWatchedFiles(s.ctx, params)
			s.serial.Unlock()
			if err != nil {
				s.log.Debug("watching the project files", "err", err)
			}
		}
	})
}
