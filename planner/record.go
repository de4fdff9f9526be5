package planner

import (
	"context"
	"sync"
	"time"

	"github.com/efmesh/efmesh/state"
)

// Default bounds of a batch of build records (ApplyOptions.RecordEvery,
// RecordWithin).
const (
	defaultRecordEvery  = 256
	defaultRecordWithin = time.Second
)

// recorder collects what each computed model adds to the store (built,
// refreshed) and writes it in one store transaction per batch instead of
// one or two per model: a batch is written when it holds every models or
// its first record is within old, and whatever is pending when the builds
// end, failed or not.
//
// Crash safety: a record is only ever written after its relation is
// complete, so the store never claims more than the warehouse holds. A
// crash before a batch is written loses its records, not data: those
// snapshots are stored unbuilt, and the next plan builds them again (a
// build replaces its relation whole), as if the crash had come just
// before them. The loss is bounded by the batch's size and age.
type recorder struct {
	st     state.Store
	every  int
	within time.Duration

	mu      sync.Mutex
	pending []state.BuildRecord
	first   time.Time // when the oldest pending record was added
}

func newRecorder(st state.Store, opt ApplyOptions) *recorder {
	r := &recorder{st: st, every: opt.RecordEvery, within: opt.RecordWithin}
	if r.every <= 0 {
		r.every = defaultRecordEvery
	}
	if r.within <= 0 {
		r.within = defaultRecordWithin
	}
	return r
}

// add queues b, and writes the batch when it is due.
func (r *recorder) add(ctx context.Context, b state.BuildRecord) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.pending) == 0 {
		r.first = time.Now()
	}
	r.pending = append(r.pending, b)
	if len(r.pending) >= r.every || time.Since(r.first) >= r.within {
		return r.flushLocked(ctx)
	}
	return nil
}

// flush writes what is pending. The relations are complete whatever
// stopped the apply, so a cancelled ctx does not stop the write.
func (r *recorder) flush(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.flushLocked(ctx)
}

// flushLocked is flush. Precondition: r.mu is held.
func (r *recorder) flushLocked(ctx context.Context) error {
	if len(r.pending) == 0 {
		return nil
	}
	err := r.st.RecordBuilds(context.WithoutCancel(ctx), r.pending)
	r.pending = r.pending[:0]
	return err
}
