package cli

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
)

// Profiling of whole processes, for the numbers scripts/bench measures:
// EFMESH_CPUPROFILE=file writes a CPU profile of the command, and
// EFMESH_MEMPROFILE=file an allocation profile taken when it ends. Unset,
// they cost nothing. A profile that cannot be written is a warning, never a
// failed command.
const (
	cpuProfileEnv = "EFMESH_CPUPROFILE"
	memProfileEnv = "EFMESH_MEMPROFILE"
)

// startProfiles starts what the environment asks for and returns the
// function that writes and closes the profiles.
func startProfiles(stderr io.Writer) (stop func()) {
	var stops []func()
	if path := os.Getenv(cpuProfileEnv); path != "" {
		f, err := os.Create(path)
		if err == nil {
			err = pprof.StartCPUProfile(f)
			if err != nil {
				f.Close()
			}
		}
		if err != nil {
			fmt.Fprintf(stderr, "efmesh: warning: %s: %v\n", cpuProfileEnv, err)
		} else {
			stops = append(stops, func() {
				pprof.StopCPUProfile()
				f.Close()
			})
		}
	}
	if path := os.Getenv(memProfileEnv); path != "" {
		runtime.MemProfileRate = 64 << 10
		stops = append(stops, func() {
			f, err := os.Create(path)
			if err == nil {
				err = pprof.Lookup("allocs").WriteTo(f, 0)
				if cerr := f.Close(); err == nil {
					err = cerr
				}
			}
			if err != nil {
				fmt.Fprintf(stderr, "efmesh: warning: %s: %v\n", memProfileEnv, err)
			}
		})
	}
	return func() {
		for _, s := range stops {
			s()
		}
	}
}
