package project

import (
	"fmt"
	"sort"
	"unicode/utf8"
)

// Severity of a Diagnostic. The values match the LSP's DiagnosticSeverity.
type Severity int

const (
	SeverityError   Severity = 1
	SeverityWarning Severity = 2
	SeverityInfo    Severity = 3
	SeverityHint    Severity = 4
)

func (s Severity) String() string {
	switch s {
	case SeverityError:
		return "error"
	case SeverityWarning:
		return "warning"
	case SeverityInfo:
		return "info"
	case SeverityHint:
		return "hint"
	}
	return "unknown"
}

// Pos is a position in a file. Offset is a 0-based byte offset; Line is
// 1-based; Column is 1-based and counts Unicode characters (not bytes, not
// UTF-16 units). The LSP converts Offset to UTF-16 itself (lsp/position.go):
// this is the one place positions for humans are computed.
type Pos struct {
	Offset int `json:"offset"`
	Line   int `json:"line"`
	Column int `json:"column"`
}

// Range is a half-open span [Start, End) of a file.
type Range struct {
	Start Pos `json:"start"`
	End   Pos `json:"end"`
}

// TextEdit replaces the bytes [Start, End) of File with NewText.
type TextEdit struct {
	File    string `json:"file"`
	Start   int    `json:"start"`
	End     int    `json:"end"`
	NewText string `json:"newText"`
}

// Fix is a suggested change that resolves a Diagnostic (an LSP quick fix).
type Fix struct {
	Title string     `json:"title"`
	Edits []TextEdit `json:"edits"`
}

// Diagnostic is a problem in the user's files. The CLI prints it as
// file:line:col: severity: message; the language server publishes the same
// value. File is slash-separated and relative to the project root.
type Diagnostic struct {
	File     string
	Range    Range
	Severity Severity
	Code     string
	Message  string
	Fixes    []Fix
	// Related are other places that explain the problem: the definition
	// of the macro whose expansion it is in.
	Related []Related
	// inSource: the range and fixes are still offsets of an expanded
	// model's Source (Model.Diagnostic); Model.MapDiagnostic moves them.
	inSource bool
}

// Related is a place that explains a Diagnostic.
type Related struct {
	File    string
	Range   Range
	Message string
}

func (d Diagnostic) String() string {
	return fmt.Sprintf("%s:%d:%d: %s: %s", d.File, d.Range.Start.Line, d.Range.Start.Column, d.Severity, d.Message)
}

// Diagnostic codes. They are stable: editors and CI filter on them.
const (
	CodeConfig          = "config"
	CodeConfigUnknown   = "config-unknown-key"
	CodeGlob            = "bad-glob"
	CodeHeaderSyntax    = "header-syntax"
	CodeHeaderMissing   = "header-missing"
	CodeUnknownProperty = "unknown-property"
	CodeBadValue        = "bad-value"
	CodeMissingProperty = "missing-property"
	CodeDuplicateModel  = "duplicate-model"
	CodeUnknownRef      = "unknown-ref"
	CodeCycle           = "cycle"
	CodeBadMacro        = "bad-macro"
	CodeUnknownVar      = "unknown-var"
	CodeSyntax          = "syntax-error"
	CodeUnknownColumn   = "unknown-column"
	CodeUnknownTable    = "unknown-table"
	CodeUnknownFunction = "unknown-function"
	CodeBinder          = "binder-error"
	CodeContract        = "contract-mismatch"
	CodePlainModelName  = "plain-model-name"
	CodeFile            = "file-error"
)

// HasErrors reports whether any diagnostic is an error.
func HasErrors(ds []Diagnostic) bool {
	for _, d := range ds {
		if d.Severity == SeverityError {
			return true
		}
	}
	return false
}

// SortDiagnostics orders diagnostics by file, then position.
func SortDiagnostics(ds []Diagnostic) {
	sort.SliceStable(ds, func(i, j int) bool {
		if ds[i].File != ds[j].File {
			return ds[i].File < ds[j].File
		}
		return ds[i].Range.Start.Offset < ds[j].Range.Start.Offset
	})
}

// PosAt computes the Pos of a byte offset in src. Offsets past the end are
// clamped; an offset inside a multi-byte character counts as that character.
func PosAt(src []byte, offset int) Pos {
	if offset < 0 {
		offset = 0
	}
	if offset > len(src) {
		offset = len(src)
	}
	line, col := 1, 1
	for i := 0; i < offset; {
		r, size := utf8.DecodeRune(src[i:])
		if r == '\n' {
			line++
			col = 1
		} else {
			col++
		}
		i += size
	}
	return Pos{Offset: offset, Line: line, Column: col}
}

// RangeAt is PosAt for both ends of [start, end).
func RangeAt(src []byte, start, end int) Range {
	if end < start {
		end = start
	}
	return Range{Start: PosAt(src, start), End: PosAt(src, end)}
}

// NewDiagnostic positions a problem at src[start:end] of file.
func NewDiagnostic(file string, src []byte, start, end int, sev Severity, code, msg string) Diagnostic {
	return Diagnostic{File: file, Range: RangeAt(src, start, end), Severity: sev, Code: code, Message: msg}
}
