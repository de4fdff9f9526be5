package lsp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

type readOnly struct{ io.Reader }

func (readOnly) Write(p []byte) (int, error) { return len(p), nil }
func (readOnly) Close() error                { return nil }

// TestStreamRecoversFromLyingLength: a frame whose Content-Length counts
// characters instead of bytes (too short) or is too long costs that frame
// only; the messages after it are read.
func TestStreamRecoversFromLyingLength(t *testing.T) {
	body := func(id int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///é.sql"},"position":{"line":0,"character":0}}}`, id)
	}
	good := func(id int) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body(id)), body(id)) }
	text := body(2)
	short := fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len([]rune(text)), text) // é counted once, not twice
	long := fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(text)+40, text)
	for name, input := range map[string]string{
		"short": good(1) + short + good(3) + good(4),
		"long":  good(1) + long + good(3) + good(4) + good(5),
	} {
		var reports int
		s := newStream(readOnly{bytes.NewBufferString(input)}, func(error) { reports++ })
		var ids []string
		for {
			msg, _, err := s.Read(context.Background())
			if err != nil {
				break
			}
			if c, ok := msg.(*jsonrpc2.Call); ok {
				ids = append(ids, fmt.Sprint(c.ID()))
			}
		}
		want := "[1 3 4]"
		if name == "long" {
			want = "[1 4 5]" // the long frame swallowed the start of #3
		}
		if fmt.Sprint(ids) != want || reports == 0 {
			t.Errorf("%s: read calls %v (%d reported), want %s", name, ids, reports, want)
		}
	}
}

// TestStreamHeaderNonASCII: bytes that change length when lower-cased do
// not shift where the header is read.
func TestStreamHeaderNonASCII(t *testing.T) {
	body := `{"jsonrpc":"2.0","id":7,"method":"shutdown"}`
	for _, junk := range []string{"ȺContent-Length:\r\n\r\n", "xȺȺ"} {
		input := junk + fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
		s := newStream(readOnly{bytes.NewBufferString(input)}, func(error) {})
		msg, _, err := s.Read(context.Background())
		if c, ok := msg.(*jsonrpc2.Call); err != nil || !ok || fmt.Sprint(c.ID()) != "7" {
			t.Errorf("%q: %v, %v", junk, msg, err)
		}
	}
}
