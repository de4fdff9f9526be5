package project

import (
	"slices"
	"strings"
)

// The audits property: built-in audits, wrappers and one audit call.

// builtinAudits maps each built-in audit to its arity, checked at parse time
// so a wrong call is an inline error rather than a failed run. Wrappers are
// handled separately.
var builtinAudits = map[string]struct {
	min, max int // max < 0: unbounded
	usage    string
}{
	"not_null":          {1, -1, "not_null(col, …)"},
	"unique":            {1, -1, "unique(col, …)"},
	"accepted":          {2, -1, "accepted(col, 'value', …)"},
	"assert_contiguous": {1, 1, "assert_contiguous(col)"},
	"assert_no_gaps":    {1, 2, "assert_no_gaps(col[, day|hour])"},
}

// auditWrappers wrap exactly one audit call and change how it runs.
var auditWrappers = []string{"warn", "per_interval", "whole"}

func (p *headerParser) parseAudits(_ token, c *cursor) bool {
	if !c.peek().isPunct("(") {
		// A single audit, without the list parentheses.
		call, _ := p.auditCall(c.rest())
		c.i = len(c.toks)
		if call != nil {
			p.m.Audits = append(p.m.Audits, *call)
		}
		return true
	}
	items, ok := p.group(c)
	if !ok {
		return false
	}
	for _, it := range items {
		if call, _ := p.auditCall(it); call != nil {
			p.m.Audits = append(p.m.Audits, *call)
		}
	}
	return true
}

// auditCall parses one audit entry: name or name(args). It returns the call
// when its syntax is sound, even if its arguments are wrong, so hover and
// the audit runner see what was meant; ok reports whether it is valid.
func (p *headerParser) auditCall(toks []token) (call *AuditCall, ok bool) {
	s, e := span(toks)
	nt := toks[0]
	if nt.kind != tokIdent || nt.parts != 1 || nt.quoted {
		p.errorf(nt.start, nt.end, CodeBadValue, "expected an audit name, found %s", p.describe(nt))
		return nil, false
	}
	call = &AuditCall{
		Name:  strings.ToLower(nt.val),
		Text:  p.joinTokens(toks),
		Range: p.rng(s, e),
	}
	var args [][]token
	if len(toks) > 1 {
		c := newCursor(toks[1:], e)
		if !c.peek().isPunct("(") {
			t := c.peek()
			p.errorf(t.start, t.end, CodeHeaderSyntax, "expected ( or , after audit %s, found %s", nt.val, p.describe(t))
			return nil, false
		}
		var good bool
		if args, good = p.group(c); !good {
			return nil, false
		}
		if !c.done() {
			rs, re := span(c.rest())
			p.errorf(rs, re, CodeHeaderSyntax, "unexpected %s after audit %s", p.describe(c.peek()), nt.val)
			return nil, false
		}
	}

	if slices.Contains(auditWrappers, call.Name) {
		if len(args) != 1 {
			p.errorf(s, e, CodeBadValue, "%s wraps exactly one audit: %s(unique(id))", call.Name, call.Name)
			return call, false
		}
		inner, ok := p.auditCall(args[0])
		call.Inner = inner
		return call, ok
	}

	for _, a := range args {
		call.Args = append(call.Args, p.argText(a))
	}
	b, builtin := builtinAudits[call.Name]
	if !builtin {
		return call, true // a custom audit from audits/*.sql
	}
	if len(args) < b.min || (b.max >= 0 && len(args) > b.max) {
		p.errorf(s, e, CodeBadValue, "wrong number of arguments to audit %s: write %s", call.Name, b.usage)
		return call, false
	}
	ok = true
	isCol := func(a []token) bool { return len(a) == 1 && a[0].kind == tokIdent && a[0].parts == 1 }
	for i, a := range args {
		as, ae := span(a)
		switch {
		case call.Name == "accepted" && i > 0:
			if len(a) != 1 || (a[0].kind != tokString && a[0].kind != tokNumber && !a[0].is("true") && !a[0].is("false")) {
				p.errorf(as, ae, CodeBadValue, "accepted values must be literals such as 'ICU' or 42, found %s", p.describeSpan(a))
				ok = false
			}
		case call.Name == "assert_no_gaps" && i == 1:
			if len(a) != 1 || !(a[0].is("day") || a[0].is("hour")) {
				p.errorf(as, ae, CodeBadValue, "the interval of assert_no_gaps must be day or hour, found %s", p.describeSpan(a))
				ok = false
			} else {
				call.Args[i] = strings.ToLower(call.Args[i])
			}
		case !isCol(a):
			p.errorf(as, ae, CodeBadValue, "audit %s expects a column name, found %s", call.Name, p.describeSpan(a))
			ok = false
		}
	}
	return call, ok
}

// argText is an audit argument as documented on AuditCall.Args: the value of
// a lone identifier or string, else the tokens as written.
func (p *headerParser) argText(toks []token) string {
	if len(toks) == 1 && (toks[0].kind == tokIdent || toks[0].kind == tokString) {
		return toks[0].val
	}
	return p.joinTokens(toks)
}
