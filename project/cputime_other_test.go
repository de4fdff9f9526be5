//go:build !unix

package project

import "time"

// cpuTime is 0 where getrusage is not: the benchmarks' cpu-ms/op is then 0.
func cpuTime() time.Duration { return 0 }
