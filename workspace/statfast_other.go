//go:build !unix

package workspace

// statter stamps many files; elsewhere than Unix, one stampFile each.
type statter struct{}

func newStatter() *statter { return &statter{} }

func (t *statter) stat(path string) (stamp, bool) {
	s, err := stampFile(path, false)
	return s, err == nil
}

func (t *statter) open([]stamp) {}

func (t *statter) close() {}
