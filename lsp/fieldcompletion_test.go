package lsp

import (
	"slices"
	"testing"
)

func TestDottedBefore(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string
	}{
		{"SELECT p.st.", []string{"p", "st"}},
		{"SELECT P.St.", []string{"p", "st"}},
		{`SELECT p."Käufer"."A b".`, []string{"p", "Käufer", "A b"}},
		{"SELECT st.", []string{"st"}},
		{"SELECT .", nil},
		{"SELECT p.st", nil},
	} {
		got, ok := dottedBefore([]byte(c.text), len(c.text))
		if ok != (c.want != nil) || !slices.Equal(got, c.want) {
			t.Errorf("dottedBefore(%q) = %q, %v; want %q", c.text, got, ok, c.want)
		}
	}
}
