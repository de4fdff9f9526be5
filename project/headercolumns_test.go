package project

import "testing"

func TestWithColumns(t *testing.T) {
	cols := []Column{{Name: "id", Type: "BIGINT"}, {Name: "amount", Type: "DECIMAL(10,2)"}, {Name: "my col", Type: "VARCHAR"}}
	cases := []struct{ name, src, want string }{
		{"added on its own line, after a comment",
			"MODEL (\n  name raw.a, -- the name\n  kind EXTERNAL (table s.t) -- read in place\n);\n\n-- body\n",
			"MODEL (\n  name raw.a, -- the name\n  kind EXTERNAL (table s.t), -- read in place\n  columns (id BIGINT, amount DECIMAL(10,2), \"my col\" VARCHAR)\n);\n\n-- body\n"},
		{"added on one line",
			"MODEL (name raw.a, kind EXTERNAL (table s.t));\n",
			"MODEL (name raw.a, kind EXTERNAL (table s.t), columns (id BIGINT, amount DECIMAL(10,2), \"my col\" VARCHAR));\n"},
		{"added after a trailing comma",
			"MODEL (\n  name raw.a,\n  kind EXTERNAL (table s.t),\n);\n",
			"MODEL (\n  name raw.a,\n  kind EXTERNAL (table s.t),\n  columns (id BIGINT, amount DECIMAL(10,2), \"my col\" VARCHAR)\n);\n"},
		{"added before a closing parenthesis on the line",
			"MODEL (\n  name raw.a,\n  kind EXTERNAL (table s.t));\n",
			"MODEL (\n  name raw.a,\n  kind EXTERNAL (table s.t),\n  columns (id BIGINT, amount DECIMAL(10,2), \"my col\" VARCHAR));\n"},
		{"replaced on one line",
			"MODEL (\n  name raw.a,\n  columns (x INT), -- stale\n  kind EXTERNAL (table s.t)\n);\n",
			"MODEL (\n  name raw.a,\n  columns (id BIGINT, amount DECIMAL(10,2), \"my col\" VARCHAR), -- stale\n  kind EXTERNAL (table s.t)\n);\n"},
		{"replaced one a line",
			"MODEL (\n  name raw.a,\n  kind EXTERNAL (table s.t),\n  columns (\n    x INT,\n    y TEXT\n  )\n);\n",
			"MODEL (\n  name raw.a,\n  kind EXTERNAL (table s.t),\n  columns (\n    id BIGINT,\n    amount DECIMAL(10,2),\n    \"my col\" VARCHAR\n  )\n);\n"},
		{"replaced keeping the comments of the list",
			"MODEL (\n  name raw.a,\n  kind EXTERNAL (table s.t),\n  columns (\n    -- the key\n    ID INT, -- from the source\n    gone TEXT /* dropped */\n  )\n);\n",
			"MODEL (\n  name raw.a,\n  kind EXTERNAL (table s.t),\n  columns (\n    -- the key\n    id BIGINT, -- from the source\n    amount DECIMAL(10,2),\n    \"my col\" VARCHAR\n    /* dropped */\n  )\n);\n"},
		{"a comment in a one-line list makes it one a line",
			"MODEL (name raw.a, kind EXTERNAL (table s.t), columns (id INT /* key */));\n",
			"MODEL (name raw.a, kind EXTERNAL (table s.t), columns (\n  id BIGINT, /* key */\n  amount DECIMAL(10,2),\n  \"my col\" VARCHAR\n));\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, diags := ParseModel("models/a.sql", []byte(c.src))
			if len(diags) > 0 {
				t.Fatalf("parse: %v", diags)
			}
			got, err := WithColumns(m, cols)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}

func TestWithColumnsNoHeader(t *testing.T) {
	m, _ := ParseModel("models/a.sql", []byte("SELECT 1\n"))
	if _, err := WithColumns(m, []Column{{Name: "a", Type: "INTEGER"}}); err == nil {
		t.Fatal("want an error for a file without a header")
	}
}
