package cli

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/efmesh/efmesh/analysis"
)

// liveProgress is the status line of a long apply or run at a terminal:
// models done of the total, the batches of the backfills running, the
// time since the start and the models being built now, redrawn as they
// change and every few tenths of a second. Stop erases it, so that the
// command's one-line summary stands alone where it was. Off a terminal
// (or with --json) there is none: the log lines say what happened.
type liveProgress struct {
	w     io.Writer
	verb  string
	start time.Time

	mu      sync.Mutex
	done    int
	total   int
	running map[string]string // model → its batch, "k/n" once one is written
	began   bool              // a build began: nothing is drawn before (a plan review may be prompting)
	stopped bool
	quit    chan struct{}
	exited  chan struct{}
}

// newLiveProgress starts the status line of verb ("apply dev") on stderr
// when stderr is a terminal and the output is for people; nil otherwise
// (every method of a nil *liveProgress does nothing).
func (a *app) newLiveProgress(verb string) *liveProgress {
	f, ok := a.stderr.(*os.File)
	if a.json || !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	p := &liveProgress{w: a.stderr, verb: verb, start: time.Now(), running: map[string]string{},
		quit: make(chan struct{}), exited: make(chan struct{})}
	go p.tick()
	return p
}

func (p *liveProgress) tick() {
	defer close(p.exited)
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-p.quit:
			return
		case <-t.C:
			p.mu.Lock()
			p.draw()
			p.mu.Unlock()
		}
	}
}

// draw writes the line; p.mu is held.
func (p *liveProgress) draw() {
	if p.stopped || !p.began {
		return
	}
	var b strings.Builder
	el := time.Since(p.start).Truncate(time.Second)
	fmt.Fprintf(&b, "\r%s: %d/%d models", p.verb, p.done, p.total)
	fmt.Fprintf(&b, " · %s", el)
	if len(p.running) > 0 {
		names := make([]string, 0, len(p.running))
		for m := range p.running {
			names = append(names, m)
		}
		sort.Strings(names)
		b.WriteString(" · building ")
		for i, m := range names {
			if i == 2 {
				fmt.Fprintf(&b, " and %d more", len(names)-2)
				break
			}
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(m)
			if batch := p.running[m]; batch != "" {
				fmt.Fprintf(&b, " (batch %s)", batch)
			}
		}
	}
	b.WriteString("\033[K")
	io.WriteString(p.w, b.String())
}

// Started is ApplyOptions.Started: a model's build begins.
func (p *liveProgress) Started(model string, total int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total, p.began = total, true
	p.running[model] = ""
	p.draw()
}

// Built wraps ApplyOptions.Progress: a model is done.
func (p *liveProgress) Built(next func(done, total int, model string)) func(done, total int, model string) {
	if p == nil {
		return next
	}
	return func(done, total int, model string) {
		p.mu.Lock()
		p.done, p.total = done, total
		delete(p.running, model)
		p.draw()
		p.mu.Unlock()
		if next != nil {
			next(done, total, model)
		}
	}
}

// Batch wraps ApplyOptions.BatchProgress: a batch of a backfill is written.
func (p *liveProgress) Batch(next func(model string, k, n int, r analysis.Range)) func(model string, k, n int, r analysis.Range) {
	if p == nil {
		return next
	}
	return func(model string, k, n int, r analysis.Range) {
		p.mu.Lock()
		if _, ok := p.running[model]; ok {
			p.running[model] = fmt.Sprintf("%d/%d", k, n)
		}
		p.draw()
		p.mu.Unlock()
		if next != nil {
			next(model, k, n, r)
		}
	}
}

// Stop erases the line; the command then prints its summary.
func (p *liveProgress) Stop() {
	if p == nil {
		return
	}
	p.mu.Lock()
	if p.stopped {
		p.mu.Unlock()
		return
	}
	p.stopped = true
	began := p.began
	p.mu.Unlock()
	close(p.quit)
	<-p.exited
	if began {
		io.WriteString(p.w, "\r\033[K")
	}
}
