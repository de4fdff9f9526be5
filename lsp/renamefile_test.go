package lsp

import (
	"encoding/json"
	"testing"
)

func TestMovedPath(t *testing.T) {
	for _, tc := range []struct {
		rel, old, new, want string
		ok                  bool
	}{
		{"models/stg/orders.sql", "stg.orders", "core.sales", "models/core/sales.sql", true},
		{"models/stg/orders.sql", "stg.orders", "stg.sales", "models/stg/sales.sql", true},
		{"models/orders.sql", "stg.orders", "core.sales", "models/sales.sql", true},
		{"models/stg/Orders.sql", "stg.orders", "stg.sales", "models/stg/sales.sql", true},
		{"wh/raw/stg/orders.sql", "raw.stg.orders", "raw.core.orders", "wh/raw/core/orders.sql", true},
		{"models/stg/orders.sql", "stg.orders", "a.b.sales", "models/stg/sales.sql", true},
		{"models/stg/misc.sql", "stg.orders", "stg.sales", "", false},
		{"models/orders.sql", "raw.orders", "stg.orders", "", false},
	} {
		got, ok := movedPath(tc.rel, tc.old, tc.new)
		if got != tc.want || ok != tc.ok {
			t.Errorf("movedPath(%q, %q, %q) = %q, %v; want %q, %v", tc.rel, tc.old, tc.new, got, ok, tc.want, tc.ok)
		}
	}
}

func TestResourceRename(t *testing.T) {
	for _, tc := range []struct {
		params string
		want   bool
	}{
		{`{"capabilities":{"workspace":{"workspaceEdit":{"documentChanges":true,"resourceOperations":["create","rename"]}}}}`, true},
		{`{"capabilities":{"workspace":{"workspaceEdit":{"documentChanges":true,"resourceOperations":["create"]}}}}`, false},
		{`{"capabilities":{"workspace":{"workspaceEdit":{"resourceOperations":["rename"]}}}}`, false},
		{`{"capabilities":{"workspace":{"workspaceEdit":{"documentChanges":true,"resourceOperations":"rename"}}}}`, false},
		{`{"capabilities":{}}`, false},
		{``, false},
	} {
		if got := resourceRename(json.RawMessage(tc.params)); got != tc.want {
			t.Errorf("resourceRename(%s) = %v, want %v", tc.params, got, tc.want)
		}
	}
}
