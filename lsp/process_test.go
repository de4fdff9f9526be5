package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"
)

// The server's lifecycle is tested on a real process: the test binary
// re-executed with childEnv set runs one session on its stdin and stdout
// and exits as `efmesh lsp` does.
const (
	childEnv = "EFMESH_LSP_TEST_CHILD"
	// childStuckEnv makes the child's whole-project check block for good
	// once started, as uninterruptible work would.
	childStuckEnv = "EFMESH_LSP_TEST_STUCK"
	// wholeCheckMarker is written to the child's stderr when its first
	// whole-project check starts.
	wholeCheckMarker = "whole-project check started"
)

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		os.Exit(serveChild())
	}
	os.Exit(m.Run())
}

func serveChild() int {
	ctx := context.Background()
	s := newServer(ctx, Options{})
	s.stopGrace = stopGrace
	stuck := os.Getenv(childStuckEnv) == "1"
	s.beforeWholeCheck = func(map[string]openDoc) {
		fmt.Fprintln(os.Stderr, wholeCheckMarker)
		if stuck {
			select {}
		}
	}
	err := s.serve(ctx, stdioConn{os.Stdin, os.Stdout})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

type stdioConn struct {
	*os.File
	out *os.File
}

func (c stdioConn) Write(p []byte) (int, error) { return c.out.Write(p) }

// lspChild is a server process under test.
type lspChild struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	marker chan struct{} // closed when the whole-project check started
	exited chan struct{} // closed when the process ended
	err    error         // cmd.Wait's, once exited is closed
}

func startChild(t *testing.T, stuck bool) *lspChild {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the re-executed server is driven over POSIX pipes and signals")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	if stuck {
		cmd.Env = append(cmd.Env, childStuckEnv+"=1")
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &lspChild{t: t, cmd: cmd, stdin: stdin, marker: make(chan struct{}), exited: make(chan struct{})}
	// Drain stdout so the server never blocks writing to it.
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	go func() {
		sc := bufio.NewScanner(stderr)
		seen := false
		for sc.Scan() {
			if !seen && strings.Contains(sc.Text(), wholeCheckMarker) {
				seen = true
				close(c.marker)
			}
		}
	}()
	go func() { c.err = cmd.Wait(); close(c.exited) }()
	t.Cleanup(func() {
		select {
		case <-c.exited:
		default:
			_ = cmd.Process.Kill()
			<-c.exited
		}
	})
	return c
}

func (c *lspChild) send(method string, id int, params any) {
	c.t.Helper()
	msg := map[string]any{"jsonrpc": "2.0", "method": method, "params": params}
	if id > 0 {
		msg["id"] = id
	}
	body, err := json.Marshal(msg)
	if err != nil {
		c.t.Fatal(err)
	}
	if _, err := io.WriteString(c.stdin, frame(string(body))); err != nil {
		c.t.Fatalf("send %s: %v", method, err)
	}
}

// initialize starts a session on root with the given client process id.
func (c *lspChild) initialize(root string, pid int) {
	c.t.Helper()
	c.send("initialize", 1, map[string]any{
		"processId":    pid,
		"rootUri":      string(uriOf(root)),
		"capabilities": map[string]any{},
	})
	c.send("initialized", 0, map[string]any{})
}

// waitBusy waits until the whole-project check runs.
func (c *lspChild) waitBusy() {
	c.t.Helper()
	select {
	case <-c.marker:
	case <-c.exited:
		c.t.Fatalf("the server ended before its whole-project check: %v", c.err)
	case <-time.After(2 * waitTimeout):
		c.t.Fatal("the whole-project check never started")
	}
}

// waitExit asserts the process ends within limit and returns its exit code.
func (c *lspChild) waitExit(limit time.Duration, what string) int {
	c.t.Helper()
	start := time.Now()
	select {
	case <-c.exited:
		c.t.Logf("%s: the server exited after %v", what, time.Since(start).Round(time.Millisecond))
		return c.cmd.ProcessState.ExitCode()
	case <-time.After(limit):
		c.t.Fatalf("%s: the server still runs after %v", what, limit)
		return -1
	}
}

// lifecycleProject is a generated project whose whole-project check takes
// a while (seconds), so the server is busy when its client goes.
func lifecycleProject(t *testing.T) string { return writeBenchProject(t, 1000) }

func TestProcessExitsWhenClientProcessIsGone(t *testing.T) {
	root := lifecycleProject(t)
	for _, stuck := range []bool{false, true} {
		t.Run(fmt.Sprintf("stuck=%v", stuck), func(t *testing.T) {
			parent := exec.Command("sleep", "600")
			if err := parent.Start(); err != nil {
				t.Skipf("no sleep command to stand for the client: %v", err)
			}
			c := startChild(t, stuck)
			c.initialize(root, parent.Process.Pid)
			c.waitBusy()
			_ = parent.Process.Kill()
			_ = parent.Wait() // reaped: the pid no longer exists
			// stdin stays open: only the process id tells.
			if code := c.waitExit(5*time.Second, "client process killed"); code != 1 {
				t.Errorf("exit code %d, want 1 (no shutdown)", code)
			}
		})
	}
}

func TestProcessExitsAtEndOfInputWhileBusy(t *testing.T) {
	root := lifecycleProject(t)
	for _, stuck := range []bool{false, true} {
		t.Run(fmt.Sprintf("stuck=%v", stuck), func(t *testing.T) {
			c := startChild(t, stuck)
			c.initialize(root, os.Getpid())
			c.waitBusy()
			c.stdin.Close()
			if code := c.waitExit(5*time.Second, "stdin closed"); code != 1 {
				t.Errorf("exit code %d, want 1 (no shutdown)", code)
			}
		})
	}
}

func TestProcessExitsPromptlyOnExit(t *testing.T) {
	root := lifecycleProject(t)
	for _, shutdown := range []bool{true, false} {
		t.Run(fmt.Sprintf("shutdown=%v", shutdown), func(t *testing.T) {
			// Stuck: even work that never yields does not keep it.
			c := startChild(t, true)
			c.initialize(root, os.Getpid())
			c.waitBusy()
			if shutdown {
				c.send("shutdown", 2, nil)
			}
			c.send("exit", 0, nil)
			want := 1
			if shutdown {
				want = 0
			}
			// stdin stays open: exit alone ends the process.
			if code := c.waitExit(time.Second+500*time.Millisecond, "exit"); code != want {
				t.Errorf("exit code %d, want %d", code, want)
			}
		})
	}
}
