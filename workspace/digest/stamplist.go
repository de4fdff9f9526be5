package digest

import (
	"encoding/binary"
	"errors"
)

// stampList is the stamps of a project's files in a compact binary form
// (gob calls MarshalBinary): every path shares a long prefix with the one
// before it (sorted, in the same folders), so each keeps only what
// differs, and hashes are raw bytes. A no-op plan decodes it on every
// run: one string per file, no reflection per field.
type stampList []Stamp

const (
	stampMissing = 1 << iota
	stampHashed
	stampRacy
)

func (l stampList) MarshalBinary() ([]byte, error) {
	out := binary.AppendUvarint(nil, uint64(len(l)))
	prev := ""
	for _, s := range l {
		n := 0
		for n < len(prev) && n < len(s.Path) && prev[n] == s.Path[n] {
			n++
		}
		out = binary.AppendUvarint(out, uint64(n))
		out = binary.AppendUvarint(out, uint64(len(s.Path)-n))
		out = append(out, s.Path[n:]...)
		var flags byte
		if s.Missing {
			flags |= stampMissing
		}
		if s.Racy {
			flags |= stampRacy
		}
		if s.Hash != "" {
			if len(s.Hash) != 32 {
				return nil, errors.New("digest: a stamp's hash is not 32 bytes")
			}
			flags |= stampHashed
		}
		out = append(out, flags)
		out = binary.AppendVarint(out, s.Size)
		out = binary.AppendVarint(out, s.ModTime)
		if s.Hash != "" {
			out = append(out, s.Hash...)
		}
		prev = s.Path
	}
	return out, nil
}

var errStampList = errors.New("digest: a malformed list of stamps")

func (l *stampList) UnmarshalBinary(b []byte) error {
	uv := func() (uint64, bool) {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return 0, false
		}
		b = b[n:]
		return v, true
	}
	sv := func() (int64, bool) {
		v, n := binary.Varint(b)
		if n <= 0 {
			return 0, false
		}
		b = b[n:]
		return v, true
	}
	count, ok := uv()
	if !ok || count > uint64(len(b)) {
		return errStampList
	}
	// Every path and hash is written into one buffer, turned into one
	// string at the end, of which each stamp keeps a slice: two
	// allocations for the list instead of two per file.
	out := make(stampList, count)
	type span struct{ path, n, hash int }
	spans := make([]span, count)
	var paths, hashes []byte
	prevAt, prevLen := 0, 0
	for i := range out {
		shared, ok1 := uv()
		rest, ok2 := uv()
		if !ok1 || !ok2 || shared > uint64(prevLen) || rest+1 > uint64(len(b)) {
			return errStampList
		}
		at := len(paths)
		paths = append(paths, paths[prevAt:prevAt+int(shared)]...)
		paths = append(paths, b[:rest]...)
		b = b[rest:]
		flags := b[0]
		b = b[1:]
		size, ok1 := sv()
		mtime, ok2 := sv()
		if !ok1 || !ok2 {
			return errStampList
		}
		out[i] = Stamp{Size: size, ModTime: mtime, Missing: flags&stampMissing != 0, Racy: flags&stampRacy != 0}
		spans[i] = span{path: at, n: len(paths) - at, hash: -1}
		if flags&stampHashed != 0 {
			if len(b) < 32 {
				return errStampList
			}
			spans[i].hash = len(hashes)
			hashes = append(hashes, b[:32]...)
			b = b[32:]
		}
		prevAt, prevLen = at, len(paths)-at
	}
	if len(b) != 0 {
		return errStampList
	}
	allPaths, allHashes := string(paths), string(hashes)
	for i, sp := range spans {
		out[i].Path = allPaths[sp.path : sp.path+sp.n]
		if sp.hash >= 0 {
			out[i].Hash = allHashes[sp.hash : sp.hash+32]
		}
	}
	*l = out
	return nil
}

// pathList is a sorted list of paths in the same compact form (each path
// keeps what differs from the one before it).
type pathList []string

func (l pathList) MarshalBinary() ([]byte, error) {
	out := binary.AppendUvarint(nil, uint64(len(l)))
	prev := ""
	for _, p := range l {
		n := 0
		for n < len(prev) && n < len(p) && prev[n] == p[n] {
			n++
		}
		out = binary.AppendUvarint(out, uint64(n))
		out = binary.AppendUvarint(out, uint64(len(p)-n))
		out = append(out, p[n:]...)
		prev = p
	}
	return out, nil
}

func (l *pathList) UnmarshalBinary(b []byte) error {
	count, n := binary.Uvarint(b)
	if n <= 0 || count > uint64(len(b)) {
		return errStampList
	}
	b = b[n:]
	// One buffer for every path, as stampList's.
	out := make(pathList, count)
	ends := make([]int, count)
	var paths []byte
	prevAt, prevLen := 0, 0
	for i := range out {
		shared, n1 := binary.Uvarint(b)
		if n1 <= 0 {
			return errStampList
		}
		rest, n2 := binary.Uvarint(b[n1:])
		if n2 <= 0 || shared > uint64(prevLen) || rest > uint64(len(b)-n1-n2) {
			return errStampList
		}
		b = b[n1+n2:]
		at := len(paths)
		paths = append(paths, paths[prevAt:prevAt+int(shared)]...)
		paths = append(paths, b[:rest]...)
		b = b[rest:]
		ends[i] = len(paths)
		prevAt, prevLen = at, len(paths)-at
	}
	if len(b) != 0 {
		return errStampList
	}
	all := string(paths)
	start := 0
	for i, end := range ends {
		out[i] = all[start:end]
		start = end
	}
	*l = out
	return nil
}
