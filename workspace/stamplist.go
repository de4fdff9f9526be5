package workspace

import (
	"encoding/binary"
	"errors"
)

// stampList is the stamps of a project's files in a compact binary form
// (gob calls MarshalBinary): every path shares a long prefix with the one
// before it (sorted, in the same folders), so each keeps only what
// differs, and hashes are raw bytes. A no-op plan decodes it on every
// run: one string per file, no reflection per field.
type stampList []stamp

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
				return nil, errors.New("workspace: a stamp's hash is not 32 bytes")
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

var errStampList = errors.New("workspace: a malformed list of stamps")

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
	out := make(stampList, count)
	prev := ""
	for i := range out {
		shared, ok1 := uv()
		rest, ok2 := uv()
		if !ok1 || !ok2 || shared > uint64(len(prev)) || rest+1 > uint64(len(b)) {
			return errStampList
		}
		path := prev[:shared] + string(b[:rest])
		b = b[rest:]
		flags := b[0]
		b = b[1:]
		size, ok1 := sv()
		mtime, ok2 := sv()
		if !ok1 || !ok2 {
			return errStampList
		}
		s := stamp{Path: path, Size: size, ModTime: mtime, Missing: flags&stampMissing != 0, Racy: flags&stampRacy != 0}
		if flags&stampHashed != 0 {
			if len(b) < 32 {
				return errStampList
			}
			s.Hash = string(b[:32])
			b = b[32:]
		}
		out[i] = s
		prev = path
	}
	if len(b) != 0 {
		return errStampList
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
	out := make(pathList, count)
	prev := ""
	for i := range out {
		shared, n1 := binary.Uvarint(b)
		if n1 <= 0 {
			return errStampList
		}
		rest, n2 := binary.Uvarint(b[n1:])
		if n2 <= 0 || shared > uint64(len(prev)) || rest > uint64(len(b)-n1-n2) {
			return errStampList
		}
		b = b[n1+n2:]
		out[i] = prev[:shared] + string(b[:rest])
		b = b[rest:]
		prev = out[i]
	}
	if len(b) != 0 {
		return errStampList
	}
	*l = out
	return nil
}
