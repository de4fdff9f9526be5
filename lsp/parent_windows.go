//go:build windows

package lsp

import "os"

// processAlive reports whether a process pid exists: on Windows
// os.FindProcess opens the process and fails when there is none.
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	_ = p.Release()
	return true
}
