//go:build linux

package project

import "syscall"

// ReadFileStamp reads the file at abs as ReadFile does and returns the
// size and modification time (Unix nanoseconds) it had before the read:
// the fstat of the open file, so that a stamp and the bytes it vouches for
// come from one open (a write after it shows as another stamp on the next
// look), in the system calls of ReadFile alone.
func ReadFileStamp(abs string) (src []byte, size, mtime int64, err error) {
	var st syscall.Stat_t
	src, statErr, err := readFile(abs, &st)
	if err != nil {
		return src, 0, 0, err
	}
	if statErr != nil {
		return src, 0, 0, statErr
	}
	return src, st.Size, st.Mtim.Nano(), nil
}
