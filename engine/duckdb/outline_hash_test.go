package duckdb

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// outlineDocs are canonical forms of queries with every kind of value the
// serializer writes (escaped and non-ASCII strings among them), and
// hand-written documents with what it might.
func outlineDocs(t *testing.T) [][]byte {
	db := open(t)
	var docs [][]byte
	for _, q := range []string{
		`SELECT a, b + 1 AS "x<y>&z", 'it''s "quoted" \ é ' || c AS s, 1.5e3 AS f, -2 AS n, NULL AS z, true AS t FROM s.t WHERE a > 0 GROUP BY ALL`,
		"SELECT * EXCLUDE (a), sum(b) OVER (PARTITION BY c ORDER BY d) FROM (SELECT 1 AS a) AS q JOIN r USING (a)",
		"WITH c AS (SELECT [1, 2] AS l, {'f': 1} AS st) SELECT l[1], st['f'], 'tab\there\nline\u2028 😀' FROM c",
		"SELECT x FROM t WHERE x IN (SELECT y FROM u) QUALIFY row_number() OVER () = 1 ORDER BY ALL LIMIT 3",
	} {
		canon, err := db.Canonicalize(q)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, canon)
	}
	return append(docs,
		[]byte(`{"a":[],"b":{},"c":null,"d":[null,false,true,0,-1.25e-7,12E+3],"e":"\u0001\u007f\ufffd","e":"dup"}`),
		[]byte(" \n{ \"k\" : [ 1 , 2 ] , \"s\":\"\\ud83d\\ude00\\ud800\"} trailing"),
		[]byte("{\"bad\":\"\xff\xfe\"}"),
		[]byte(`{"n":01}`), []byte(`{"n":1.}`), []byte(`{"a":tru}`), []byte(`{"a":1,}`), []byte(`[1]`), []byte(`null`), []byte(``),
	)
}

// TestDecodeTreeIsDecoder checks that the outline's reader decodes exactly
// what encoding/json's Decoder (UseNumber) decodes, and fails where it
// fails.
func TestDecodeTreeIsDecoder(t *testing.T) {
	for _, doc := range outlineDocs(t) {
		dec := json.NewDecoder(bytes.NewReader(doc))
		dec.UseNumber()
		var want map[string]any
		werr := dec.Decode(&want)
		got, err := decodeTree(doc)
		if (err != nil) != (werr != nil) || !reflect.DeepEqual(got, want) {
			t.Errorf("decodeTree(%s):\n got %#v, %v\nwant %#v, %v", doc, got, err, want, werr)
		}
	}
}

// TestAppendJSONIsMarshal checks that the outline's encoder writes exactly
// json.Marshal's bytes, so outline hashes do not move.
func TestAppendJSONIsMarshal(t *testing.T) {
	for _, doc := range outlineDocs(t) {
		dec := json.NewDecoder(bytes.NewReader(doc))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			continue
		}
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		memo := new(tree)
		for _, tr := range []*tree{nil, memo, memo} { // the last from the memo
			if got := tr.appendJSON(nil, v); !bytes.Equal(got, want) {
				t.Errorf("appendJSON:\n got %s\nwant %s", got, want)
			}
		}
	}
}

// BenchmarkOutline measures outlining one model's canonical form, as an
// editor's initial load does for every model.
func BenchmarkOutline(b *testing.B) {
	db, err := Open("")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	canon, err := db.Canonicalize("SELECT p.id, p.grp, p.amount + 1 AS amount, sum(p.amount) OVER (PARTITION BY p.grp ORDER BY p.ts) AS c01, p.label, p.ts FROM m.model_00001 AS p WHERE p.id >= 0 AND p.ts >= $start")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := Outline(canon); err != nil {
			b.Fatal(err)
		}
	}
}
