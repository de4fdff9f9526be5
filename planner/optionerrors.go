package planner

import (
	"fmt"
	"strings"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/project"
)

// Errors about the options of a plan (what to restate, to keep forward
// only, whose history to rebuild, what to reclassify) are typed: the
// planner knows no command line, so each front end phrases them with its
// own names for the options (the CLI with its flags). Their Error is the
// neutral wording.

// Option is an option of a plan that names models.
type Option string

const (
	OptionRestate        Option = "restate"
	OptionForwardOnly    Option = "forward-only"
	OptionRebuildHistory Option = "rebuild-history"
	OptionReclassify     Option = "reclassify"
)

// UnknownModelError is an option naming a model the project lacks.
type UnknownModelError struct {
	Option     Option
	Name       string
	Suggestion string // the near name, or ""
}

func (e *UnknownModelError) Error() string {
	return fmt.Sprintf("%s: unknown model %q%s", e.Option, e.Name, suggest(e.Suggestion))
}

// OptionError is an option a model cannot take.
type OptionError struct {
	Option Option
	// Model is the model the option names; empty when Reason starts with
	// it.
	Model  string
	Reason string
	// Instead is what to do instead ("rebuild its history instead"), done
	// with InsteadOption on Model; empty when there is no advice.
	Instead       string
	InsteadOption Option
}

func (e *OptionError) Error() string {
	head := string(e.Option)
	if e.Model != "" {
		head += " " + e.Model
	}
	msg := head + ": " + e.Reason
	if e.Instead != "" {
		msg += "; " + e.Instead
	}
	return msg
}

// RestateRangeError is a range to restate that ends before it starts.
type RestateRangeError struct {
	Model    string
	From, To string // RFC 3339
}

func (e *RestateRangeError) Error() string {
	return fmt.Sprintf("restate %s: the start %s is not before the end %s", e.Model, e.From, e.To)
}

// ReclassifyError refuses an operator verdict that the AST contradicts.
type ReclassifyError struct {
	Model, Reason string
}

func (e *ReclassifyError) Error() string {
	return fmt.Sprintf("reclassifying %s as non-breaking is refused: %s", e.Model, e.Reason)
}

// HistoryRebuildError refuses a plan that rebuilds SCD_TYPE_2 history the
// operator did not confirm.
type HistoryRebuildError struct {
	Models []string
}

func (e *HistoryRebuildError) Error() string {
	return fmt.Sprintf("the plan rebuilds the history of SCD_TYPE_2 model(s) %s: the versions accumulated so far would not be carried over; "+
		"confirm the rebuild of their history (or keep it, changing them forward only)", strings.Join(e.Models, ", "))
}

// suggest is the "did you mean" tail of a message.
func suggest(s string) string {
	if s == "" {
		return ""
	}
	return fmt.Sprintf("; did you mean %q?", s)
}

// nearModel returns the model name nearest to name, by the project's one
// "did you mean" rule, or "".
func nearModel(name string, models map[string]*analysis.ModelInfo) string {
	names := make([]string, 0, len(models))
	for n := range models {
		names = append(names, n)
	}
	s, _ := project.DidYouMean(name, names)
	return s
}
