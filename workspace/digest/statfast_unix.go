//go:build unix

package digest

import (
	"path/filepath"

	"golang.org/x/sys/unix"
)

// statter stamps many files by size and mtime with one fstatat per file
// relative to its open folder: no path walk from the root, no FileInfo.
type statter struct {
	dirs map[string]int
}

func newStatter() *statter { return &statter{dirs: map[string]int{}} }

// stat is stampFile(path, false) for a file that exists or not; ok is
// false when the caller must ask stampFile (an error other than a missing
// file).
func (t *statter) stat(path string) (s Stamp, ok bool) {
	dir, name := filepath.Split(path)
	fd, seen := t.dirs[dir]
	if !seen {
		var err error
		fd, err = unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			fd = -1
		}
		t.dirs[dir] = fd
	}
	if fd < 0 {
		return Stamp{}, false
	}
	var st unix.Stat_t
	switch err := unix.Fstatat(fd, name, &st, 0); err {
	case nil:
	case unix.ENOENT, unix.ENOTDIR:
		return Stamp{Path: path, Missing: true}, true
	default:
		return Stamp{}, false
	}
	sec, nsec := st.Mtim.Unix()
	return Stamp{Path: path, Size: st.Size, ModTime: sec*1e9 + nsec}, true
}

// open opens the folders of paths beforehand, so that stat only reads the
// map: then stat may be called from several goroutines at once.
func (t *statter) open(paths []Stamp) {
	for _, s := range paths {
		dir, _ := filepath.Split(s.Path)
		if _, seen := t.dirs[dir]; seen {
			continue
		}
		fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			fd = -1
		}
		t.dirs[dir] = fd
	}
}

func (t *statter) close() {
	for _, fd := range t.dirs {
		if fd >= 0 {
			unix.Close(fd)
		}
	}
}
