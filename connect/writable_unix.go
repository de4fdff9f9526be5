//go:build unix

package connect

import (
	"errors"
	"io/fs"
	"path/filepath"
	"syscall"
)

// writable reports whether this process may write the file at path and
// create files beside it (DuckDB writes its log there): the access check
// the kernel makes, so a file made immutable is read-only for root too. A
// file that does not exist is judged by its folder.
func writable(path string) bool {
	const wOK = 2
	if err := syscall.Access(path, wOK); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	return syscall.Access(filepath.Dir(path), wOK) == nil
}
