package docsite

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/efmesh/efmesh/planner"
)

// Server serves the site and rebuilds it when the project's files change;
// a page it serves long-polls /_reload and reloads after a rebuild.
type Server struct {
	build func() (*Site, error)

	mu      sync.Mutex
	gen     int           // the build number; bumped by every rebuild
	page    []byte        // the page of build gen (or its error page)
	changed chan struct{} // closed when gen moves on
}

// NewServer is a server of the sites build makes.
func NewServer(build func() (*Site, error)) *Server {
	return &Server{build: build, changed: make(chan struct{})}
}

// Rebuild builds the site again and wakes the pages waiting for it. A
// build that fails serves its error, so the page says what to fix.
func (s *Server) Rebuild() error {
	site, err := s.build()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gen++
	reload := "/_reload?gen=" + strconv.Itoa(s.gen)
	var page []byte
	if err == nil {
		page, err = HTML(site, reload)
	}
	if err != nil {
		page = errorPage(err, reload)
	}
	s.page = page
	close(s.changed)
	s.changed = make(chan struct{})
	return err
}

// Describe is the text of a failed build: a project's problems one a
// line, positioned (file:line:col: message), else the error.
func Describe(err error) string {
	var pe *planner.ProblemsError
	if !errors.As(err, &pe) {
		return err.Error()
	}
	lines := make([]string, 0, len(pe.Diagnostics))
	for _, d := range pe.Diagnostics {
		lines = append(lines, d.String())
	}
	return strings.Join(lines, "\n")
}

func errorPage(err error, reload string) []byte {
	site := &Site{Project: "build failed", Models: []Model{}, Envs: []Env{}, Plans: []Plan{}}
	site.Models = append(site.Models, Model{Name: "error", Kind: "error", Description: Describe(err),
		Grain: []string{}, Tags: []string{}, Columns: []Column{}, Audits: []string{}, Tests: []string{}, Versions: []Version{}, Parents: []string{}})
	page, e := HTML(site, reload)
	if e != nil {
		return []byte(err.Error())
	}
	return page
}

// ServeHTTP answers / with the page and /_reload?gen=N with "reload" once
// the build is newer than N ("wait" after 25 s, so proxies keep the
// request open; the page asks again).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/", "/index.html":
		s.mu.Lock()
		page := s.page
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write(page)
	case "/_reload":
		seen, _ := strconv.Atoi(r.URL.Query().Get("gen"))
		timer := time.NewTimer(25 * time.Second)
		defer timer.Stop()
		for {
			s.mu.Lock()
			gen, changed := s.gen, s.changed
			s.mu.Unlock()
			if gen > seen {
				_, _ = w.Write([]byte("reload"))
				return
			}
			select {
			case <-changed:
			case <-timer.C:
				_, _ = w.Write([]byte("wait"))
				return
			case <-r.Context().Done():
				return
			}
		}
	default:
		http.NotFound(w, r)
	}
}

// Serve builds the site, serves it on ln and rebuilds it whenever a file
// under root changes (polled twice a second; the warehouse, the state
// store and hidden directories are not the project's sources) until ctx
// is done. report hears every failed rebuild.
func (s *Server) Serve(ctx context.Context, ln net.Listener, root string, report func(error)) error {
	if err := s.Rebuild(); err != nil {
		report(err)
	}
	hs := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		last := stamp(root)
		tick := time.NewTicker(500 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				_ = hs.Close()
				return
			case <-tick.C:
			}
			if now := stamp(root); now != last {
				last = now
				if err := s.Rebuild(); err != nil {
					report(err)
				}
			}
		}
	}()
	return hs.Serve(ln)
}

// stamp sums up the project's source files (names, sizes, modification
// times); it changes when one is added, removed or written.
func stamp(root string) string {
	var b strings.Builder
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		switch strings.ToLower(filepath.Ext(name)) {
		case ".sql", ".yaml", ".yml", ".csv":
		default:
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		b.WriteString(path)
		b.WriteByte(0)
		b.WriteString(strconv.FormatInt(info.Size(), 10))
		b.WriteByte(0)
		b.WriteString(strconv.FormatInt(info.ModTime().UnixNano(), 10))
		b.WriteByte('\n')
		return nil
	})
	return b.String()
}
