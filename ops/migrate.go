package ops

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/state"
)

// FingerprintMigration reports what MigrateFingerprints did.
type FingerprintMigration struct {
	From []int `json:"from"` // the older versions the store held
	To   int   `json:"to"`
	// Remapped snapshots are named by their current fingerprint: the
	// project still defines them exactly so (their data is kept).
	Remapped int `json:"remapped"`
	// Restamped snapshots keep their name but are marked current: their
	// definition is not the project's any more (a plan compares them as
	// it compares any previous version).
	Restamped int `json:"restamped"`
}

// MigrateFingerprints carries the store's snapshots of older fingerprint
// versions over to planner.FingerprintVersion. A snapshot whose fingerprint the
// analyzed project reproduces under its old version has an unchanged
// definition: it is renamed to the model's current fingerprint, with its
// physical relation, ledger and pointers, so the next plan finds nothing
// to rebuild. Any other keeps its fingerprint (a name no current model can
// take) under the current version stamp; when its own definition is the
// model's, its own hash becomes the current one, so a plan sees a change
// moved by parents only. All in one store transaction. A newer version is
// refused.
func MigrateFingerprints(ctx context.Context, a *analysis.Analysis, st state.Store) (*FingerprintMigration, error) {
	m, ok := st.(state.FingerprintMigrator)
	if !ok {
		return nil, errors.New("this state store cannot migrate fingerprints")
	}
	res := &FingerprintMigration{To: analysis.FingerprintVersion}
	vs, err := m.FingerprintVersions(ctx)
	if err != nil {
		return nil, err
	}
	for _, v := range vs {
		if v > analysis.FingerprintVersion {
			return nil, &analysis.FingerprintVersionError{Have: v, Want: analysis.FingerprintVersion}
		}
		if v < analysis.FingerprintVersion {
			res.From = append(res.From, v)
		}
	}
	if len(res.From) == 0 {
		return res, nil
	}
	if a.Errors() {
		return nil, &planner.ProblemsError{Diagnostics: a.Diagnostics}
	}
	usage, err := st.Usage(ctx)
	if err != nil {
		return nil, err
	}
	fps := make([]string, len(usage))
	for i, u := range usage {
		fps[i] = u.Fingerprint
	}
	heads, err := st.SnapshotHeads(ctx, fps)
	if err != nil {
		return nil, err
	}
	current, err := analysis.FingerprintsAt(a, analysis.FingerprintVersion)
	if err != nil {
		return nil, err
	}
	// old fingerprint -> the model key whose old identity it is
	matches := map[string]string{}
	owns := map[string]string{}
	for _, v := range res.From {
		if v < analysis.OldestFingerprintVersion {
			continue // nothing to recognize it by: restamped below
		}
		ids, err := analysis.FingerprintsAt(a, v)
		if err != nil {
			return nil, err
		}
		for key, id := range ids {
			matches[fmt.Sprintf("%d/%s", v, id.Fingerprint)] = key
			owns[fmt.Sprintf("%d/%s", v, id.OwnHash)] = key
		}
	}
	renamed := map[string]string{}
	var rs []state.Refingerprint
	old := make([]state.Snapshot, 0, len(heads))
	for _, s := range heads {
		if s.FingerprintVersion < analysis.FingerprintVersion {
			old = append(old, s)
		}
	}
	slices.SortFunc(old, func(x, y state.Snapshot) int { return strings.Compare(x.Fingerprint, y.Fingerprint) })
	for _, s := range old {
		key, ok := matches[fmt.Sprintf("%d/%s", s.FingerprintVersion, s.Fingerprint)]
		if !ok || !sameModel(key, s.Name) {
			continue
		}
		to := current[key].Fingerprint
		if _, taken := heads[to]; taken {
			continue // the current snapshot exists already: this one is restamped
		}
		renamed[s.Fingerprint] = to
	}
	for _, s := range old {
		r := state.Refingerprint{From: s.Fingerprint, To: s.Fingerprint, Version: analysis.FingerprintVersion, OwnHash: s.OwnHash}
		if to, ok := renamed[s.Fingerprint]; ok {
			key := matches[fmt.Sprintf("%d/%s", s.FingerprintVersion, s.Fingerprint)]
			r.To, r.OwnHash = to, current[key].OwnHash
			res.Remapped++
		} else {
			if key, ok := owns[fmt.Sprintf("%d/%s", s.FingerprintVersion, s.OwnHash)]; ok && sameModel(key, s.Name) {
				r.OwnHash = current[key].OwnHash
			}
			res.Restamped++
		}
		r.Parents = make(map[string]string, len(s.Parents))
		for p, fp := range s.Parents {
			if to, ok := renamed[fp]; ok {
				fp = to
			}
			r.Parents[p] = fp
		}
		rs = append(rs, r)
	}
	if err := m.Refingerprint(ctx, rs); err != nil {
		return nil, err
	}
	return res, nil
}

// sameModel reports whether an identity key ("model" or "env:model")
// names the model of a snapshot.
func sameModel(key, name string) bool {
	if i := strings.IndexByte(key, ':'); i >= 0 {
		key = key[i+1:]
	}
	return key == name
}
