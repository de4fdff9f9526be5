package analysis

import (
	"strings"
	"testing"
)

// TestStarUnionColdAnalysis: @STAR and @UNION are rendered with the
// columns of the models they read, which only the parents' checks know;
// a first analysis (no check cache, every body parsed in one batch) must
// not judge them before, whatever the names' order (a.union sorts before
// its parents).
func TestStarUnionColdAnalysis(t *testing.T) {
	a := analyzeFiles(t, map[string]string{
		"models/shop/orders.sql":  "MODEL (name shop.orders, kind FULL);\nSELECT 1 AS order_id, 'ada' AS customer, 19.9 AS amount",
		"models/shop/refunds.sql": "MODEL (name shop.refunds, kind FULL);\nSELECT 2 AS order_id, 'ada' AS customer, -5.0 AS amount, 'damaged' AS reason",
		"models/a/union.sql":      "MODEL (name a.union, kind FULL);\n@UNION('all', @ref(shop.orders), @ref(shop.refunds))",
		"models/a/star.sql":       "MODEL (name a.star, kind FULL);\nSELECT @STAR(@ref(shop.refunds), exclude := [reason], prefix := 'r_') FROM @ref(shop.refunds)",
	})
	mustClean(t, a)
	for name, want := range map[string][]string{
		"a.union": {"order_id", "customer", "amount", "reason"},
		"a.star":  {"r_order_id", "r_customer", "r_amount"},
	} {
		var got []string
		for _, c := range a.Models[name].Columns {
			got = append(got, c.Name)
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s yields %v, want %v", name, got, want)
		}
	}
}
