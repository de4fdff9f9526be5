//go:build !unix

package planner

// processAlive cannot tell on this platform: a lock of this host is then
// reclaimed by its ttl only, as one of another host is.
func processAlive(pid int) bool { return true }
