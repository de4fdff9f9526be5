package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"

	"go.lsp.dev/protocol"
)

// progress reports work-done progress of a long command ($/progress). A
// client that supports none gets none: every method is then a no-op.
type progress struct {
	s     *Server
	token any // json.RawMessage from the client, or a string we created
}

var progressSeq atomic.Int64

// beginProgress starts a progress report with the client's token, or
// creates one when the client supports server-initiated progress.
func (s *Server) beginProgress(ctx context.Context, token json.RawMessage, title string) *progress {
	p := &progress{s: s}
	switch {
	case len(token) > 0 && string(token) != "null":
		p.token = token
	default:
		s.mu.Lock()
		ok := s.client.workDoneProgress
		s.mu.Unlock()
		if !ok {
			return p
		}
		t := fmt.Sprintf("efmesh-%d", progressSeq.Add(1))
		if err := s.call(ctx, protocol.MethodWorkDoneProgressCreate, map[string]any{"token": t}, nil); err != nil {
			return p
		}
		p.token = t
	}
	p.send(map[string]any{"kind": "begin", "title": title, "cancellable": false, "percentage": 0})
	return p
}

func (p *progress) send(value map[string]any) {
	if p.token == nil {
		return
	}
	p.s.notify(protocol.MethodProgress, map[string]any{"token": p.token, "value": value})
}

// report sends a message and a percentage (0–100).
func (p *progress) report(msg string, pct int) {
	p.send(map[string]any{"kind": "report", "message": msg, "percentage": max(0, min(pct, 100))})
}

// end closes the report with a final message.
func (p *progress) end(msg string) {
	p.send(map[string]any{"kind": "end", "message": msg})
	p.token = nil
}
