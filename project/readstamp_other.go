//go:build !linux

package project

import "os"

// ReadFileStamp reads the file at abs and returns the size and
// modification time (Unix nanoseconds) it had before the read.
func ReadFileStamp(abs string) (src []byte, size, mtime int64, err error) {
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, 0, 0, err
	}
	src, err = ReadFile(abs)
	if err != nil {
		return src, 0, 0, err
	}
	return src, fi.Size(), fi.ModTime().UnixNano(), nil
}
