package lsp

import (
	"context"
	"time"
)

// parentPoll is how often the server checks that its client's process
// (initialize's processId) is still alive.
const parentPoll = time.Second

// watchParent calls gone once the process pid no longer exists, polling
// every parentPoll until ctx ends. A platform that cannot tell
// (processAlive always true) never calls it.
func watchParent(ctx context.Context, pid int, gone func()) {
	if pid <= 0 {
		return
	}
	t := time.NewTicker(parentPoll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if !processAlive(pid) {
				gone()
				return
			}
		}
	}
}
