package planner

import (
	"fmt"
	"testing"
)

func TestWindowFunctions(t *testing.T) {
	tests := []struct{ canonical, want string }{
		{`{"node":{"select_list":[{"class":"WINDOW","function_name":"sum"},{"class":"WINDOW","function_name":"rank"},{"class":"WINDOW","function_name":"sum"}]}}`, "[rank sum]"},
		{`{"SelectStmt":{"targetList":[{"ResTarget":{"val":{"FuncCall":{"funcname":[{"String":{"sval":"pg_catalog"}},{"String":{"sval":"lag"}}],"over":{}}}}}]}}`, "[lag]"},
		{`{"SelectStmt":{"targetList":[{"ResTarget":{"val":{"FuncCall":{"funcname":[{"String":{"sval":"count"}}]}}}}]}}`, "[]"},
		{``, "[]"},
	}
	for _, tt := range tests {
		if got := fmt.Sprint(windowFunctions([]byte(tt.canonical))); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.canonical, got, tt.want)
		}
	}
}
