package analysis

import (
	"context"
	"unicode/utf8"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
)

// frontier binds bodies along the DAG's frontier: a body is submitted to
// the workbench's queue as soon as the last of its parents is checked, so
// the engine binds the next models while the checker goes through the
// ones already bound, instead of every level waiting for the one before
// and for the checks of its own models. It binds exactly what predescribe
// binds (the same bodies, rendered against the same stand-ins) and, like
// it, hands the columns to body; a body the engine refuses is left to
// body, which binds it again and reports each error as without the queue.
type frontier struct {
	c      *checker
	p      *project.Project
	q      engine.DescribeQueue
	cancel context.CancelFunc
	broken map[string]bool
	// waiting counts, per model position, its parents not checked yet;
	// children lists the positions of the models that ref a name.
	waiting  map[int]int
	children map[string][]int
	pending  map[*project.Model]engine.PendingColumns
	// fenced is the number of stand-in tables the queue's transactions
	// were last told about.
	fenced int
}

// newFrontier starts a frontier for the models of the levels of waves when
// the workbench binds through a queue and the check starts from nothing
// (precanonicalize parsed every body: no cache entry spares a bind), else
// returns nil. broken names the files with loader errors.
func (c *checker) newFrontier(ctx context.Context, p *project.Project, waves [][]int, broken map[string]bool) (*frontier, error) {
	qd, ok := c.wb.(engine.QueueDescriber)
	if !ok || c.eng == nil || c.binder != nil || c.precanon == nil || len(waves) < 2 {
		return nil, nil
	}
	qctx, cancel := context.WithCancel(ctx)
	f := &frontier{c: c, p: p, q: qd.DescribeQueue(qctx), cancel: cancel, broken: broken,
		waiting: map[int]int{}, children: map[string][]int{}, pending: map[*project.Model]engine.PendingColumns{},
		fenced: len(c.a.standInTables)}
	var ready []int
	for _, wave := range waves {
		for _, i := range wave {
			m := p.Models[i]
			n := 0
			seen := map[string]bool{}
			for _, r := range m.Refs() {
				if _, known := p.ByName[r]; !known || seen[r] {
					continue
				}
				seen[r] = true
				f.children[r] = append(f.children[r], i)
				n++
			}
			if n == 0 {
				ready = append(ready, i)
			}
			f.waiting[i] = n
		}
	}
	for _, i := range ready {
		if err := f.submit(ctx, i); err != nil {
			f.close()
			return nil, err
		}
	}
	return f, nil
}

// checked tells the frontier that model m is checked (or answered by the
// cache): the children whose last parent it was are submitted.
func (f *frontier) checked(ctx context.Context, m *project.Model) error {
	if f == nil || f.p.ByName[m.Name] != m {
		return nil
	}
	for _, i := range f.children[m.Name] {
		f.waiting[i]--
		if f.waiting[i] == 0 {
			if err := f.submit(ctx, i); err != nil {
				return err
			}
		}
	}
	return nil
}

// submit queues the body of the model at position i when its check will
// bind it (predescribe's conditions).
func (f *frontier) submit(ctx context.Context, i int) error {
	c, m := f.c, f.p.Models[i]
	if m.Kind.Name == project.KindSeed || m.Kind.Name == project.KindExternal || !m.Kind.Name.HasBody() {
		return nil
	}
	if pre, ok := c.precanon[m]; !ok || pre.err != nil || f.broken[m.File] {
		return nil
	}
	if err := c.ensureParents(ctx, m); err != nil {
		return err
	}
	for _, r := range m.Refs() {
		if pi := c.a.Models[r]; pi == nil || pi.Fingerprint == "" || pi.Columns == nil {
			return nil
		}
	}
	if m.BodyStart > len(m.Source) || !utf8.Valid(m.Source[m.BodyStart:]) {
		return nil
	}
	if n := len(c.a.standInTables); n != f.fenced {
		// A stand-in created since: the queue's connections must see it.
		f.q.Fence()
		f.fenced = n
	}
	f.pending[m] = f.q.Submit(c.bindRender(m).SQL)
	return nil
}

// await hands m's columns, once bound, to its check (c.predesc).
func (f *frontier) await(m *project.Model) {
	if f == nil {
		return
	}
	pc, ok := f.pending[m]
	if !ok {
		return
	}
	delete(f.pending, m)
	if cols, err := pc.Wait(); err == nil {
		if f.c.predesc == nil {
			f.c.predesc = map[*project.Model]predescribed{}
		}
		f.c.predesc[m] = predescribed{cols: cols}
	}
}

// close stops the queue, once: what is still queued is dropped, and no
// connection is in use after it.
func (f *frontier) close() {
	if f == nil || f.q == nil {
		return
	}
	f.cancel()
	f.q.Close()
	f.q = nil
}
