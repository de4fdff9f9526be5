package workspace

import (
	"context"

	"github.com/efmesh/efmesh/connect"
	"github.com/efmesh/efmesh/planner"
)

// NoWarehouseError is an adoption with no warehouse to adopt from.
type NoWarehouseError struct{ Path string }

func (e *NoWarehouseError) Error() string {
	return "there is no warehouse to adopt from (" + e.Path + " does not exist)"
}

// Adopt records in the state store the physical tables efmesh built in
// the warehouse for this checkout's model versions (planner.Adopt), after
// a state store was deleted or replaced, under the janitor's lock (a
// janitor must not remove what is being adopted), taken before the
// warehouse is opened, as apply takes its lock. The warehouse is only
// read. dryRun says what would be recorded and records nothing.
func (w *Workspace) Adopt(ctx context.Context, dryRun bool) (*planner.Adoption, error) {
	st, err := w.OpenStore(ctx)
	if err != nil {
		return nil, err
	}
	if !dryRun {
		lk, err := planner.AcquireLock(ctx, st, planner.JanitorLock, 0)
		if err != nil {
			return nil, err
		}
		defer lk.Release()
	}
	wh, err := connect.ReadWarehouse(ctx, w.Project, w.opts.Warehouse...)
	if err != nil {
		return nil, err
	}
	if wh == nil {
		return nil, &NoWarehouseError{Path: connect.WarehousePath(w.Project)}
	}
	defer wh.Close()
	return planner.Adopt(ctx, w.Analysis, st, wh, w.opts.now(), dryRun)
}
