// Package sqlread reads the structure of a SELECT body from sqlscan's
// tokens, tolerating broken text: the CTEs, the select items with their
// output names, the FROM sources with their aliases, the column
// references, and nested queries as scopes (Parse, Query). It also owns
// the clause keywords (IsClauseStart, IsClauseAfterFrom, IsSetOperation,
// IsJoinWord) that every package cutting SQL text into clauses reads, so
// that the set is written once.
//
// It is best effort, for an editor, a linter and a formatter that must
// say something useful about text being typed: it never fails, and what
// it cannot read it skips. It is not the authority on syntax or meaning;
// the engine's parser is (diagnostics, outlines and types come from it).
// So sqlread knows nothing of engines, projects, models or the editor: it
// imports sqlscan only, and anyone may import it.
package sqlread
