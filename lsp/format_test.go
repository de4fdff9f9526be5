package lsp

import (
	"encoding/json"
	"fmt"
	"testing"
)

// TestFormattingAdvertised: the server says it formats documents and
// ranges, so editors offer "Format Document" and format on save.
func TestFormattingAdvertised(t *testing.T) {
	root := writeProject(t, smallProject)
	c := newTestClient(t, root, clientOptions{})
	var init struct {
		Capabilities struct {
			Formatting      bool `json:"documentFormattingProvider"`
			RangeFormatting bool `json:"documentRangeFormattingProvider"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(c.initResult, &init); err != nil {
		t.Fatal(err)
	}
	if !init.Capabilities.Formatting || !init.Capabilities.RangeFormatting {
		t.Fatalf("capabilities = %+v, want both formatting providers", init.Capabilities)
	}
}

// TestChanged: the edit spans only what differs, on character boundaries.
func TestChanged(t *testing.T) {
	for _, c := range []struct{ old, new, want string }{
		{"select ä from t", "SELECT ä FROM t", "[0,14) SELECT ä FROM"},
		{"a  b", "a b", "[2,3) "},
		{"äb", "öb", "[0,2) ö"},
		{"same", "same", "[4,4) "},
	} {
		s, e, text := changed([]byte(c.old), []byte(c.new))
		got := fmt.Sprintf("[%d,%d) %s", s, e, text)
		if got != c.want {
			t.Errorf("changed(%q, %q) = %q, want %q", c.old, c.new, got, c.want)
		}
	}
}
