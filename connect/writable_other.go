//go:build !unix

package connect

import "os"

// writable reports whether the file at path may be written: its mode
// (elsewhere than Unix, no access check).
func writable(path string) bool {
	fi, err := os.Stat(path)
	return err != nil || fi.Mode().Perm()&0o200 != 0
}
