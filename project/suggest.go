package project

import (
	"fmt"
	"regexp"
	"strings"
)

// namePart is the shape of each dot-separated part of a model name and of an
// environment name. Names reach SQL only through a quoting helper, but the
// restriction keeps physical names (<schema>__<table>__<fp>) unambiguous.
var namePart = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// PhysicalSchema is the schema of efmesh's physical relations: no model
// and no environment may be named like it.
const PhysicalSchema = "_efmesh"

// ReservedSchema says why a model schema or an environment name cannot be
// used ("" when it can): efmesh's physical schema, or a name holding "__",
// which separates environment and schema in the schema of an environment's
// views (<env>__<schema>), so a model schema dev__raw would share its
// relations with environment dev's views of schema raw.
func ReservedSchema(name string) string {
	n := strings.ToLower(name)
	switch {
	case n == PhysicalSchema:
		return n + " is efmesh's schema of physical tables"
	case strings.Contains(n, "__"):
		i := strings.Index(n, "__")
		return fmt.Sprintf(`"__" separates environment and schema in the schemas of environment views (%s is where environment %s keeps its views of schema %s)`, n, n[:i], n[i+2:])
	}
	return ""
}

// MaxEnvName is the longest environment name, in bytes (a name is a-z,
// 0-9 and _, so characters too). Everything named after an environment
// stays within its limits with room to spare: the schema of its views,
// <env>__<schema>, keeps 29 bytes for the model schema within PostgreSQL's
// 63-byte identifiers (longer ones are cut and hashed, but stay readable
// up to there); its files (.efmesh/run-<env>.log, the no-op digest
// <env>.digest) stay far below the 255-byte file names of common file
// systems, which a 300-character name once exceeded halfway through an
// apply.
const MaxEnvName = 32

// EnvNameTooLong says why an environment name is too long ("" when it is
// not), quoting its start only.
func EnvNameTooLong(name string) string {
	if len(name) <= MaxEnvName {
		return ""
	}
	return fmt.Sprintf("%q is %d characters long, where an environment name has at most %d (it prefixes the schemas of its views, <env>__<schema>, and names its files)", name[:MaxEnvName]+"…", len(name), MaxEnvName)
}

// ValidNamePart reports whether s is a valid part of a model name or a valid
// environment name.
func ValidNamePart(s string) bool { return namePart.MatchString(s) }

// DidYouMean returns the candidate closest to word by edit distance
// (transpositions count as one edit), if one is close enough to be a likely
// typo. Ties go to the candidate that sorts first, so suggestions are stable.
func DidYouMean(word string, candidates []string) (string, bool) {
	best, bestDist := "", -1
	limit := min(max(1, (len([]rune(word))+2)/3), 3)
	lw := strings.ToLower(word)
	for _, c := range candidates {
		if c == word {
			continue
		}
		d := editDistance(lw, strings.ToLower(c))
		if d > limit {
			continue
		}
		if bestDist < 0 || d < bestDist || (d == bestDist && c < best) {
			best, bestDist = c, d
		}
	}
	if bestDist >= 0 {
		return best, true
	}
	// A word cut short (INCREMENTAL_BY_TIME) is far by edit distance but
	// plain to a reader: suggest the one candidate it begins.
	if len(lw) >= 3 {
		var only string
		for _, c := range candidates {
			if strings.HasPrefix(strings.ToLower(c), lw) && c != word {
				if only != "" {
					return "", false
				}
				only = c
			}
		}
		return only, only != ""
	}
	return "", false
}

// editDistance is the optimal string alignment distance between a and b
// (Levenshtein plus adjacent transpositions), over runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// Three rolling rows: the transposition step looks two rows back.
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
