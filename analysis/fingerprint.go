package analysis

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strconv"
	"strings"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
)

// FingerprintVersion names the algorithm below. Changing anything that
// enters a fingerprint — the payload, its order, the canonical form — moves
// every snapshot of every user: that is an increment of this constant, never
// a silent edit (the golden tests fail first).
const FingerprintVersion = 2

// OldestFingerprintVersion is the oldest algorithm this efmesh can still
// compute: the history below (ownHashAt, fingerprintAt) is what `efmesh
// migrate` needs to recognize a snapshot of an older version whose
// definition did not change. Each version's differences are kept here,
// switched on v, never deleted while a store of that version may exist.
//
//	1  the first algorithm
//	2  the model's name enters the own hash
const OldestFingerprintVersion = 1

// ownHash hashes what belongs to the model alone: its canonical body and
// the metadata that shapes its data. Description, owner, tags, audits and
// cron stay out: changing them rebuilds nothing.
func ownHash(m *project.Model, canonical []byte, contentHash string) string {
	return ownHashAt(FingerprintVersion, m, canonical, contentHash)
}

// ownHashAt is ownHash as fingerprint version v computed it.
func ownHashAt(v int, m *project.Model, canonical []byte, contentHash string) string {
	h := sha256.New()
	// Each field is one write of k NUL len(v) NUL v NUL, assembled in one
	// buffer the fields share: the canonical form is most of the bytes, and
	// two copies of it per model were a tenth of a cold plan's garbage.
	var buf []byte
	head := func(k string, n int) {
		buf = append(buf[:0], k...)
		buf = append(buf, 0)
		buf = strconv.AppendInt(buf, int64(n), 10)
		buf = append(buf, 0)
	}
	field := func(k string, v []byte) {
		head(k, len(v))
		buf = append(append(buf, v...), 0)
		h.Write(buf)
	}
	w := func(k, v string) {
		head(k, len(v))
		buf = append(append(buf, v...), 0)
		h.Write(buf)
	}
	w("version", strconv.Itoa(v))
	// The name: two models with the same definition are two snapshots, each
	// with its own physical relation and ledger (version 2).
	if v >= 2 {
		w("name", strings.ToLower(m.Name))
	}
	w("kind", string(m.Kind.Name))
	k := m.Kind
	switch k.Name {
	case project.KindIncrementalByTimeRange:
		w("time_column", strings.ToLower(k.TimeColumn))
		w("interval", m.Interval)
	case project.KindIncrementalByUniqueKey:
		w("key", lowerJoin(k.Key))
	case project.KindSCDType2:
		w("key", lowerJoin(k.Key))
		w("valid_from", strings.ToLower(k.ValidFrom))
		w("valid_to", strings.ToLower(k.ValidTo))
	case project.KindSeed:
		w("path", k.Path)
	case project.KindExternal:
		w("table", strings.ToLower(k.Table))
		w("files", k.Files)
		w("format", strings.ToLower(k.Format))
		for _, o := range k.Options {
			w("option", strings.ToLower(o.Name)+"="+o.Value+"/"+strconv.FormatBool(o.IsString))
		}
	}
	w("grain", lowerJoin(m.Grain))
	w("columns_declared", strconv.FormatBool(m.Columns != nil))
	for _, c := range m.Columns {
		w("column", c.Name+" "+engine.NormalTypeName(c.Type))
	}
	target := m.Target
	if target == "" {
		target = "table"
	}
	w("target", target)
	w("content", contentHash)
	field("canonical", canonical)
	return hex.EncodeToString(h.Sum(nil))
}

// FingerprintOf combines a model's own hash with its parents' fingerprints.
func FingerprintOf(own string, parents map[string]string) string {
	return fingerprintAt(FingerprintVersion, own, parents)
}

// fingerprintAt is fingerprint as fingerprint version v computed it.
func fingerprintAt(v int, own string, parents map[string]string) string {
	names := make([]string, 0, len(parents))
	for n := range parents {
		names = append(names, n)
	}
	sort.Strings(names)
	h := sha256.New()
	h.Write([]byte("efmesh/" + strconv.Itoa(v) + "\x00" + own + "\x00"))
	for _, n := range names {
		h.Write([]byte(n + "=" + parents[n] + "\x00"))
	}
	return hex.EncodeToString(h.Sum(nil))
}

func lowerJoin(ss []string) string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strings.ToLower(s)
	}
	return strings.Join(out, ",")
}
