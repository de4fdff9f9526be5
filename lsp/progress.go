package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"

	"go.lsp.dev/protocol"

	"github.com/efmesh/efmesh/jsonapi"
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
		if err := s.call(ctx, protocol.MethodWorkDoneProgressCreate, progressCreate{Token: t}, nil); err != nil {
			return p
		}
		p.token = t
	}
	p.send(jsonapi.ProgressBegin{Kind: "begin", Title: title})
	return p
}

// progressCreate is window/workDoneProgress/create's params.
type progressCreate struct {
	Token string `json:"token"`
}

// progressParams is $/progress's params: the value is one of
// jsonapi.ProgressBegin, ProgressReport and ProgressEnd.
type progressParams struct {
	Token any `json:"token"`
	Value any `json:"value"`
}

func (p *progress) send(value any) {
	if p.token == nil {
		return
	}
	p.s.notify(protocol.MethodProgress, progressParams{Token: p.token, Value: value})
}

// report sends a message and a percentage (0–100).
func (p *progress) report(msg string, pct int) {
	p.send(jsonapi.ProgressReport{Kind: "report", Message: msg, Percentage: max(0, min(pct, 100))})
}

// end closes the report with a final message.
func (p *progress) end(msg string) {
	p.send(jsonapi.ProgressEnd{Kind: "end", Message: msg})
	p.token = nil
}
