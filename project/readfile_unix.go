//go:build unix

package project

import (
	"io/fs"
	"syscall"
)

// ReadFile reads the file at abs as os.ReadFile does, with the same
// errors, in half its system calls: a project's files are read by the
// thousand, and an os.File of a regular file still asks the poller to
// watch it (an epoll_ctl that fails, four fcntl to set and unset
// non-blocking mode) before it reads. Here it is openat, fstat, the
// reads and close.
func ReadFile(abs string) ([]byte, error) {
	var st syscall.Stat_t
	src, _, err := readFile(abs, &st)
	return src, err
}

// readFile is ReadFile that also fills st with the open file's fstat,
// taken before the first read; statErr is that fstat's error (st is then
// zero and the read went on without a size).
func readFile(abs string, st *syscall.Stat_t) (src []byte, statErr, err error) {
	var fd int
	for {
		fd, err = syscall.Open(abs, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, nil, &fs.PathError{Op: "open", Path: abs, Err: err}
	}
	defer syscall.Close(fd)
	size := 0
	if err := syscall.Fstat(fd, st); err != nil {
		statErr = &fs.PathError{Op: "stat", Path: abs, Err: err}
		*st = syscall.Stat_t{}
	} else if st.Mode&syscall.S_IFMT == syscall.S_IFREG && st.Size > 0 && int64(int(st.Size)) == st.Size {
		size = int(st.Size)
	}
	// One byte more than the size, so a file read whole is known to be
	// at its end by the read of nothing that follows (model files are
	// small: no 512-byte floor as os.ReadFile has, but for files whose
	// size is not known).
	n := size + 1
	if size == 0 {
		n = 512
	}
	buf := make([]byte, 0, n)
	for {
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, statErr, &fs.PathError{Op: "read", Path: abs, Err: err}
		}
		if n <= 0 {
			return buf, statErr, nil
		}
		buf = buf[:len(buf)+n]
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
	}
}
