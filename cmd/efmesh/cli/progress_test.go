package cli

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/efmesh/efmesh/analysis"
)

// syncBuffer is a bytes.Buffer the ticker and the test may both use.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestLiveProgress follows the status line of an apply through its
// models and batches to its erasure, and checks that no line is drawn
// before a build begins (the plan's review may be prompting).
func TestLiveProgress(t *testing.T) {
	var out syncBuffer
	p := &liveProgress{w: &out, verb: "apply dev", start: time.Now(), running: map[string]string{},
		quit: make(chan struct{}), exited: make(chan struct{})}
	go p.tick()
	time.Sleep(300 * time.Millisecond) // a tick passes before any build
	if s := out.String(); s != "" {
		t.Fatalf("drawn before a build began: %q", s)
	}
	var built []string
	done := p.Built(func(d, n int, m string) { built = append(built, m) })
	batch := p.Batch(nil)
	p.Started("shop.orders", 2)
	done(1, 2, "shop.orders")
	p.Started("shop.daily", 2)
	day := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	batch("shop.daily", 1, 3, analysis.Range{Start: day, End: day.AddDate(0, 0, 1)})
	last := lastLine(out.String())
	for _, want := range []string{"apply dev: 1/2 models", "building shop.daily (batch 1/3)"} {
		if !strings.Contains(last, want) {
			t.Errorf("status line %q lacks %q", last, want)
		}
	}
	done(2, 2, "shop.daily")
	if last := lastLine(out.String()); !strings.Contains(last, "2/2 models") || strings.Contains(last, "building") {
		t.Errorf("status line after the last model: %q", last)
	}
	p.Stop()
	p.Stop() // twice is harmless
	if s := out.String(); !strings.HasSuffix(s, "\r\033[K") {
		t.Errorf("the line is not erased at the end: %q", s[max(0, len(s)-40):])
	}
	if strings.Join(built, ",") != "shop.orders,shop.daily" {
		t.Errorf("the wrapped Progress saw %v", built)
	}
}

func lastLine(s string) string {
	s = strings.TrimSuffix(s, "\033[K")
	if i := strings.LastIndex(s, "\r"); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// TestLiveProgressOffTerminal: off a terminal there is no status line, and
// the nil one passes the callbacks it wraps through.
func TestLiveProgressOffTerminal(t *testing.T) {
	a := &app{stderr: &bytes.Buffer{}}
	p := a.newLiveProgress("apply dev")
	if p != nil {
		t.Fatal("a status line on a buffer")
	}
	called := false
	p.Built(func(int, int, string) { called = true })(1, 1, "m")
	p.Started("m", 1)
	p.Stop()
	if !called {
		t.Error("the wrapped Progress was not called")
	}
}
