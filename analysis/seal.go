package analysis

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"io"
)

// Every cache file efmesh reads back (the check cache, the lint cache, the
// no-op digest and its plan, the fingerprints digest) is sealed: a header
// naming what the file holds and the version of its layout, the content,
// then the sha256 of header and content. A file that does not open with
// the header it is read for, or whose sum does not match (a flipped bit, a
// torn write, a file of another version), is a miss, never an answer: a
// decoder that ignores what it does not know (gob skips an unknown field)
// must never see a corrupted file.

// sealMagic opens every sealed file.
const sealMagic = "efmesh cache\x00"

func sealHeader(kind string, version int) []byte {
	b := append([]byte(sealMagic), kind...)
	b = append(b, 0)
	return binary.AppendUvarint(b, uint64(version))
}

// Seal is body sealed as a cache file of kind at version.
func Seal(kind string, version int, body []byte) []byte {
	out := sealHeader(kind, version)
	out = append(out, body...)
	sum := sha256.Sum256(out)
	return append(out, sum[:]...)
}

// Unseal is the content of raw, a file sealed as kind at version; ok is
// false when raw is not such a file or is not intact.
func Unseal(kind string, version int, raw []byte) (body []byte, ok bool) {
	head := sealHeader(kind, version)
	if len(raw) < len(head)+sha256.Size || !bytes.HasPrefix(raw, head) {
		return nil, false
	}
	n := len(raw) - sha256.Size
	sum := sha256.Sum256(raw[:n])
	if !bytes.Equal(sum[:], raw[n:]) {
		return nil, false
	}
	return raw[len(head):n], true
}

// SealWriter writes a sealed file as a stream, for a content too large to
// hold in memory at once: the header at once, the content as written, the
// sum on Close (which does not close w).
type SealWriter struct {
	w   io.Writer
	h   hash.Hash
	err error
}

// NewSealWriter starts a sealed file of kind at version on w.
func NewSealWriter(w io.Writer, kind string, version int) *SealWriter {
	s := &SealWriter{w: w, h: sha256.New()}
	_, s.err = s.Write(sealHeader(kind, version))
	return s
}

func (s *SealWriter) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.w.Write(p)
	s.h.Write(p[:n])
	s.err = err
	return n, err
}

// Close writes the sum.
func (s *SealWriter) Close() error {
	if s.err != nil {
		return s.err
	}
	_, err := s.w.Write(s.h.Sum(nil))
	return err
}

// SealReader reads the content of a sealed file as a stream. What it
// yields is not vouched for until Verify says so: a caller decodes into
// values it uses only after Verify.
type SealReader struct {
	r *bufio.Reader
	h hash.Hash
}

// NewSealReader opens the content of the sealed file r; ok is false when r
// does not open with the header of kind at version.
func NewSealReader(r io.Reader, kind string, version int) (*SealReader, bool) {
	s := &SealReader{r: bufio.NewReader(r), h: sha256.New()}
	head := sealHeader(kind, version)
	got := make([]byte, len(head))
	if _, err := io.ReadFull(s.r, got); err != nil || !bytes.Equal(got, head) {
		return nil, false
	}
	s.h.Write(got)
	return s, true
}

func (s *SealReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.h.Write(p[:n])
	return n, err
}

// ReadByte makes a SealReader an io.ByteReader, so that a decoder reads no
// further than it needs (gob wraps any other reader in a buffer of its
// own, which would swallow the sum).
func (s *SealReader) ReadByte() (byte, error) {
	b, err := s.r.ReadByte()
	if err == nil {
		s.h.Write([]byte{b})
	}
	return b, err
}

// Verify reports whether what was read is the whole content and intact:
// the sum follows it, and nothing after the sum.
func (s *SealReader) Verify() bool {
	want := s.h.Sum(nil)
	got := make([]byte, sha256.Size)
	if _, err := io.ReadFull(s.r, got); err != nil || !bytes.Equal(got, want) {
		return false
	}
	_, err := s.r.ReadByte()
	return err == io.EOF
}
