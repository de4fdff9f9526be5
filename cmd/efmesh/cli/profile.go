package cli

import (
	"fmt"
	"io"
	"os"
	"runtime/metrics"
	"runtime/pprof"
	"strings"
	"sync"
	"time"
)

// Profiling a whole process, as the benchmark runs it: the environment
// names the files, so the command line and its output stay the same.
//
//	EFMESH_CPUPROFILE=cpu.prof   the CPU profile of the whole command
//	EFMESH_MEMPROFILE=heap.prof  the Go heap at its peak: rewritten each
//	                             time the live heap grows past its last
//	                             high by an eighth; at the end one line on
//	                             stderr: the process's peak RSS beside the
//	                             most memory the Go runtime held
//
// DuckDB's own memory is outside the Go heap: the difference between the
// two numbers is DuckDB's (and the binary's mapped code).
const (
	envCPUProfile = "EFMESH_CPUPROFILE"
	envMemProfile = "EFMESH_MEMPROFILE"
)

// startProfiles starts what the environment asks for and returns the
// function that finishes the profiles; problems go to stderr and never
// fail the command.
func startProfiles(stderr io.Writer) (stop func()) {
	var stops []func()
	if path := os.Getenv(envCPUProfile); path != "" {
		if f, err := os.Create(path); err != nil {
			fmt.Fprintf(stderr, "efmesh: %s: %v\n", envCPUProfile, err)
		} else if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			fmt.Fprintf(stderr, "efmesh: %s: %v\n", envCPUProfile, err)
		} else {
			stops = append(stops, func() { pprof.StopCPUProfile(); f.Close() })
		}
	}
	if path := os.Getenv(envMemProfile); path != "" {
		stops = append(stops, watchHeap(path, stderr))
	}
	return func() {
		for _, s := range stops {
			s()
		}
	}
}

// watchHeap writes the heap profile to path whenever the live heap reaches
// a new high (by an eighth), so the file shows what was held at the peak.
func watchHeap(path string, stderr io.Writer) (stop func()) {
	var mu sync.Mutex
	write := func() {
		mu.Lock()
		defer mu.Unlock()
		f, err := os.Create(path)
		if err == nil {
			err = pprof.Lookup("heap").WriteTo(f, 0)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Fprintf(stderr, "efmesh: %s: %v\n", envMemProfile, err)
		}
	}
	var goHigh uint64 // the most the Go runtime held, less what it released
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
		var high uint64
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			last := false
			select {
			case <-done:
				last = true // the last GC may have seen the highest heap
			case <-t.C:
			}
			metrics.Read(sample)
			goHigh = max(goHigh, sample[1].Value.Uint64()-sample[2].Value.Uint64())
			if live := sample[0].Value.Uint64(); live > high+high/8 {
				high = live
				write()
			}
			if last {
				return
			}
		}
	}()
	return func() {
		close(done)
		<-finished
		fmt.Fprintf(stderr, "efmesh: peak RSS %s, Go runtime at most %.0f MB\n", peakRSS(), float64(goHigh)/(1<<20))
	}
}

// peakRSS is the process's peak resident memory so far (Linux: VmHWM).
func peakRSS() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}
