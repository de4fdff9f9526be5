package planner

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/efmesh/efmesh/state"
)

// Locks serialize the mutations of an environment across processes: apply,
// run and restate of one environment take its lock; janitor takes a global
// one. They live in the state store, so every process sharing the store
// sees them.

// EnvLock names the lock of an environment.
func EnvLock(env string) string { return "env:" + env }

// JanitorLock names the janitor's global lock.
const JanitorLock = "janitor"

// DefaultLockTTL is how long a lock outlives its holder's last heartbeat
// when the holder runs on another host (a holder on this host that is gone
// loses its lock at once). A live holder refreshes it every third of it.
const DefaultLockTTL = 5 * time.Minute

// LockHeldError reports a lock held by another holder.
type LockHeldError struct {
	Held state.Lock
	// Waited is how long WaitLock waited for it before giving up (0: it
	// did not wait).
	Waited time.Duration
}

func (e *LockHeldError) Error() string {
	msg := fmt.Sprintf("lock %s is held by pid %d on %s since %s (expires %s unless refreshed)",
		e.Held.Name, e.Held.PID, e.Held.Host, e.Held.AcquiredAt.UTC().Format(time.RFC3339), e.Held.ExpiresAt.UTC().Format(time.RFC3339))
	if e.Waited > 0 {
		msg += fmt.Sprintf("; gave up after %s", e.Waited)
	}
	return msg
}

// lockPoll is how often WaitLock tries a held lock again.
const lockPoll = 100 * time.Millisecond

// WaitLock takes the named lock as AcquireLock does, waiting up to wait
// while another holder has it (as a DuckDB file another process writes is
// waited for: the same timeout serves both). onWait, when not nil, is
// called once when the waiting starts. A lock still held after wait fails
// with a *LockHeldError whose Waited says so; wait <= 0 fails at once.
func WaitLock(ctx context.Context, st state.Store, name string, ttl, wait time.Duration, onWait func(held state.Lock, wait time.Duration)) (*Lock, error) {
	start := time.Now()
	for first := true; ; first = false {
		lk, err := AcquireLock(ctx, st, name, ttl)
		var held *LockHeldError
		if !errors.As(err, &held) {
			return lk, err
		}
		if time.Since(start) >= wait {
			if wait > 0 {
				held.Waited = wait
			}
			return nil, held
		}
		if first && onWait != nil {
			onWait(held.Held, wait)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w (while waiting: %v)", context.Cause(ctx), held)
		case <-time.After(min(lockPoll, wait-time.Since(start))):
		}
	}
}

// Lock is a held lock, refreshed in the background until Release.
type Lock struct {
	st   state.Store
	lock state.Lock
	ttl  time.Duration

	stop chan struct{}
	done chan struct{}
	once sync.Once
	err  error
}

// AcquireLock takes the named lock or fails with a *LockHeldError. A lock
// whose holder was a process of this host that no longer exists (a crash,
// kill -9) is reclaimed at once; one held from another host only after its
// ttl. ttl <= 0 means DefaultLockTTL. Locks use the wall clock, never an
// injected now: they arbitrate between real processes.
func AcquireLock(ctx context.Context, st state.Store, name string, ttl time.Duration) (*Lock, error) {
	if ttl <= 0 {
		ttl = DefaultLockTTL
	}
	host, _ := os.Hostname()
	var r [8]byte
	_, _ = rand.Read(r[:])
	now := time.Now().UTC()
	l := state.Lock{Name: name, Host: host, PID: os.Getpid(), AcquiredAt: now, ExpiresAt: now.Add(ttl),
		Holder: fmt.Sprintf("%s/%d/%s", host, os.Getpid(), hex.EncodeToString(r[:]))}
	stale := func(held state.Lock) bool {
		return held.Host == host && held.PID > 0 && !processAlive(held.PID)
	}
	held, ok, err := st.TryLock(ctx, l, stale)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, &LockHeldError{Held: held}
	}
	lk := &Lock{st: st, lock: l, ttl: ttl, stop: make(chan struct{}), done: make(chan struct{})}
	go lk.heartbeat()
	return lk, nil
}

// Name returns the lock's name.
func (l *Lock) Name() string { return l.lock.Name }

func (l *Lock) heartbeat() {
	defer close(l.done)
	t := time.NewTicker(l.ttl / 3)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), l.ttl/3)
			err := l.st.RefreshLock(ctx, l.lock.Name, l.lock.Holder, time.Now().UTC().Add(l.ttl))
			cancel()
			if errors.Is(err, state.ErrLockLost) {
				l.err = err
				return
			}
		}
	}
}

// Release stops the heartbeat and frees the lock. It is safe to call more
// than once; only the first call releases.
func (l *Lock) Release() error {
	var err error
	l.once.Do(func() {
		close(l.stop)
		<-l.done
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		err = l.st.Unlock(ctx, l.lock.Name, l.lock.Holder)
		if l.err != nil {
			err = fmt.Errorf("lock %s was lost while held: %w", l.lock.Name, l.err)
		}
	})
	return err
}

// ReserveLease is how far ahead an apply's reservation moves the orphan
// mark of the snapshots it is about to promote: a janitor, whatever its
// ttl, cannot claim them while the promotion runs.
const ReserveLease = time.Hour
