package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/efmesh/efmesh/planner"
)

// phrase is the text of err as the command line says it: the planner's
// errors about plan options are typed, and named here with the flags that
// set them. Context wrapped around such an error is kept.
func phrase(err error) string {
	msg := err.Error()
	var typed error
	var text string
	var (
		unknown *planner.UnknownModelError
		opt     *planner.OptionError
		rng     *planner.RestateRangeError
		recl    *planner.ReclassifyError
		hist    *planner.HistoryRebuildError
	)
	switch {
	case errors.As(err, &unknown):
		typed, text = unknown, fmt.Sprintf("--%s: unknown model %q", unknown.Option, unknown.Name)
		if unknown.Suggestion != "" {
			text += fmt.Sprintf("; did you mean %q?", unknown.Suggestion)
		}
	case errors.As(err, &opt):
		text = "--" + string(opt.Option)
		if opt.Model != "" {
			text += " " + opt.Model
		}
		text += ": " + opt.Reason
		if opt.Instead != "" {
			text += fmt.Sprintf("; %s (--%s %s)", opt.Instead, opt.InsteadOption, opt.Model)
		}
		typed = opt
	case errors.As(err, &rng):
		typed, text = rng, fmt.Sprintf("--restate %s: --from %s is not before --to %s", rng.Model, rng.From, rng.To)
	case errors.As(err, &recl):
		typed, text = recl, fmt.Sprintf("--reclassify %s=non-breaking is refused: %s", recl.Model, recl.Reason)
	case errors.As(err, &hist):
		list := strings.Join(hist.Models, ",")
		typed, text = hist, fmt.Sprintf("the plan rebuilds the history of SCD_TYPE_2 model(s) %s: the versions accumulated so far would not be carried over; "+
			"pass --rebuild-history %s to confirm (or --forward-only %s to keep the history)", strings.Join(hist.Models, ", "), list, list)
	default:
		return msg
	}
	return strings.Replace(msg, typed.Error(), text, 1)
}
