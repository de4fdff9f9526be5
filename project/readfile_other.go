//go:build !unix

package project

import "os"

// ReadFile reads the file at abs: os.ReadFile.
func ReadFile(abs string) ([]byte, error) { return os.ReadFile(abs) }
