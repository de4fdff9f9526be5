package planner

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/efmesh/efmesh/state"
	"github.com/efmesh/efmesh/state/sqlite"
)

func lockStore(t *testing.T) state.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// deadPID returns the pid of a process that has exited and been reaped.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func TestLocks(t *testing.T) {
	host, _ := os.Hostname()
	ctx := context.Background()
	now := time.Now().UTC()
	tests := []struct {
		name     string
		held     state.Lock // planted before AcquireLock; zero = none
		wantHeld bool
	}{
		{"free", state.Lock{}, false},
		{"live process of this host", state.Lock{Host: host, PID: os.Getpid(), ExpiresAt: now.Add(time.Hour)}, true},
		{"dead process of this host is reclaimed at once", state.Lock{Host: host, PID: -1, ExpiresAt: now.Add(time.Hour)}, false},
		{"another host within its ttl", state.Lock{Host: "elsewhere", PID: 1, ExpiresAt: now.Add(time.Hour)}, true},
		{"another host after its ttl", state.Lock{Host: "elsewhere", PID: 1, ExpiresAt: now.Add(-time.Second)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := lockStore(t)
			if tt.held.Host != "" {
				h := tt.held
				if h.PID == -1 {
					h.PID = deadPID(t)
				}
				h.Name, h.Holder, h.AcquiredAt = EnvLock("dev"), "planted", now.Add(-time.Minute)
				if _, ok, err := st.TryLock(ctx, h, nil); err != nil || !ok {
					t.Fatalf("planting the lock: %v %v", ok, err)
				}
			}
			lk, err := AcquireLock(ctx, st, EnvLock("dev"), time.Minute)
			var held *LockHeldError
			if tt.wantHeld {
				if !errors.As(err, &held) || held.Held.Holder != "planted" {
					t.Fatalf("AcquireLock = %v, want a LockHeldError", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("AcquireLock: %v", err)
			}
			// Held now: another acquirer of this process is refused; the
			// janitor's lock is another lock.
			if _, err := AcquireLock(ctx, st, EnvLock("dev"), time.Minute); !errors.As(err, &held) || held.Held.PID != os.Getpid() {
				t.Fatalf("second AcquireLock = %v", err)
			}
			jl, err := AcquireLock(ctx, st, JanitorLock, time.Minute)
			if err != nil {
				t.Fatalf("janitor lock: %v", err)
			}
			jl.Release()
			if err := lk.Release(); err != nil {
				t.Fatalf("Release: %v", err)
			}
			if err := lk.Release(); err != nil {
				t.Fatalf("second Release: %v", err)
			}
			again, err := AcquireLock(ctx, st, EnvLock("dev"), time.Minute)
			if err != nil {
				t.Fatalf("AcquireLock after Release: %v", err)
			}
			again.Release()
		})
	}
}

// TestLockHeartbeat: a held lock is refreshed, so it outlives its ttl.
func TestLockHeartbeat(t *testing.T) {
	st := lockStore(t)
	ctx := context.Background()
	lk, err := AcquireLock(ctx, st, EnvLock("dev"), 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer lk.Release()
	// More than twice the ttl, with slack for a loaded machine: the
	// heartbeat runs every third of it.
	time.Sleep(4500 * time.Millisecond)
	other := state.Lock{Name: EnvLock("dev"), Holder: "other", Host: "elsewhere", PID: 1, AcquiredAt: time.Now().UTC(), ExpiresAt: time.Now().UTC().Add(time.Minute)}
	if _, ok, err := st.TryLock(ctx, other, nil); err != nil || ok {
		t.Fatalf("a heartbeating lock was taken after its ttl: %v %v", ok, err)
	}
}
