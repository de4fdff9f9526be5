package analysis

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
)

// FingerprintVersionError stops a plan over a state store whose snapshots
// were made by another fingerprint algorithm: an older one is carried over
// by `efmesh migrate`; a newer one belongs to a newer efmesh.
type FingerprintVersionError struct {
	Have int    // the store's version that differs
	Want int    // FingerprintVersion
	What string // which snapshot, when one was named
}

func (e *FingerprintVersionError) Error() string {
	what := "the state store holds snapshots"
	if e.What != "" {
		what = "snapshot " + e.What + " was"
	}
	if e.Have > e.Want {
		return fmt.Sprintf("%s made by fingerprint version %d, this efmesh uses version %d; run an efmesh at least as new", what, e.Have, e.Want)
	}
	return fmt.Sprintf("%s made by fingerprint version %d, this efmesh uses version %d; run \"efmesh migrate\" to carry them over (models whose definition did not change keep their data)",
		what, e.Have, e.Want)
}

// CheckFingerprintVersions refuses a store with snapshots of another
// fingerprint version, when the store can list them (one query).
func CheckFingerprintVersions(ctx context.Context, st state.Reader) error {
	m, ok := st.(state.FingerprintMigrator)
	if !ok {
		return nil
	}
	vs, err := m.FingerprintVersions(ctx)
	if err != nil {
		return err
	}
	for i := len(vs) - 1; i >= 0; i-- { // a newer version is the stronger refusal
		if vs[i] != FingerprintVersion {
			return &FingerprintVersionError{Have: vs[i], Want: FingerprintVersion}
		}
	}
	return nil
}

// Versioned is a model's identity under one fingerprint version.
type Versioned struct {
	Fingerprint string
	OwnHash     string
}

// FingerprintsAt returns the identity every analyzed model (and, keyed
// "<env>:<model>", every model of a redacted environment whose physics
// differ) has under fingerprint version v, one this efmesh still knows
// (OldestFingerprintVersion through FingerprintVersion). Models without a
// fingerprint (broken ones) are absent.
func FingerprintsAt(a *Analysis, v int) (map[string]Versioned, error) {
	if v < OldestFingerprintVersion || v > FingerprintVersion {
		return nil, fmt.Errorf("fingerprint version %d is not one this efmesh knows (%d through %d)", v, OldestFingerprintVersion, FingerprintVersion)
	}
	out := map[string]Versioned{}
	base, err := identitiesAt(a, nil, v)
	if err != nil {
		return nil, err
	}
	for n, id := range base {
		out[n] = id
	}
	envs := make([]string, 0, len(a.Project.Config.Environments))
	for env := range a.Project.Config.Environments {
		envs = append(envs, env)
	}
	sort.Strings(envs)
	for _, env := range envs {
		va, err := RedactedVariant(a, env)
		if err != nil {
			return nil, err
		}
		if va == a {
			continue
		}
		ids, err := identitiesAt(va, base, v)
		if err != nil {
			return nil, err
		}
		for n, id := range ids {
			if id != base[n] {
				out[env+":"+n] = id
			}
		}
	}
	return out, nil
}

// identitiesAt computes own hashes and fingerprints at version v over a
// (parents first). In a redacted variant, a model with a policy derives
// its own hash from the unredacted one (base) as redactedVariant does.
func identitiesAt(a *Analysis, base map[string]Versioned, v int) (map[string]Versioned, error) {
	out := map[string]Versioned{}
	for _, pm := range a.Project.Models {
		info := a.Models[pm.Name]
		if info == nil || info.Fingerprint == "" {
			continue
		}
		var own string
		if cols := a.redacted[pm.Name]; len(cols) > 0 && base != nil {
			h := sha256.Sum256([]byte(base[pm.Name].OwnHash + "\x00redact\x00" + strings.Join(cols, ",")))
			own = hex.EncodeToString(h[:])
		} else {
			m := a.Project.ByName[pm.Name] // the model as written
			content := ""
			if m.Kind.Name == project.KindSeed {
				b, err := os.ReadFile(AbsPath(a.Project.Root, m.Kind.Path))
				if err != nil {
					return nil, fmt.Errorf("seed of %s: %w", m.Name, err)
				}
				s := sha256.Sum256(b)
				content = hex.EncodeToString(s[:])
			}
			own = ownHashAt(v, m, info.Canonical, content)
			if v == FingerprintVersion && own != a.Models[pm.Name].OwnHash && base == nil {
				return nil, fmt.Errorf("%s: the own hash of fingerprint version %d does not reproduce the analysis; this is a bug in efmesh", m.Name, v)
			}
		}
		parents := make(map[string]string, len(info.Parents))
		for p := range info.Parents {
			id, ok := out[p]
			if !ok {
				return nil, fmt.Errorf("%s: parent %s has no fingerprint at version %d", pm.Name, p, v)
			}
			parents[p] = id.Fingerprint
		}
		out[pm.Name] = Versioned{Fingerprint: fingerprintAt(v, own, parents), OwnHash: own}
	}
	return out, nil
}
