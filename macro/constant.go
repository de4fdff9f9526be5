package macro

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/efmesh/efmesh/sqlscan"
)

// A constant is a value known before the query runs: what @IF, @FILTER and
// @SQL read. Literals, @var(name), comparisons, BETWEEN, arithmetic, ||, AND, OR,
// NOT, IN (…), IS [NOT] NULL and parentheses are evaluated; anything else
// (a column, a function) is not a constant.

type constKind uint8

const (
	cNull constKind = iota
	cBool
	cNumber
	cString
)

type constant struct {
	kind constKind
	b    bool
	n    float64
	s    string
}

func (c constant) describe() string {
	switch c.kind {
	case cNull:
		return "NULL"
	case cBool:
		return strings.ToUpper(strconv.FormatBool(c.b))
	case cNumber:
		return "the number " + strconv.FormatFloat(c.n, 'g', -1, 64)
	}
	return "the string '" + c.s + "'"
}

// constant evaluates v.
func (x *expander) constant(v value) (constant, error) {
	if v.isList || v.lam != nil {
		return constant{}, errors.New("a list or a lambda is no single value")
	}
	src := []byte(v.sql.String())
	p := &constParser{x: x, src: src, toks: sqlscan.Tokens(src, 0)}
	if len(p.toks) == 0 {
		return constant{}, errors.New("it is empty")
	}
	c, err := p.or()
	if err != nil {
		return constant{}, err
	}
	if p.i < len(p.toks) {
		return constant{}, fmt.Errorf("unexpected %s", p.toks[p.i].Text(src))
	}
	return c, nil
}

type constParser struct {
	x    *expander
	src  []byte
	toks []sqlscan.Token
	i    int
}

func (p *constParser) peekWord(w string) bool {
	return p.i < len(p.toks) && p.toks[p.i].Is(p.src, w)
}

func (p *constParser) peekOp(op string) bool {
	return p.i < len(p.toks) && (p.toks[p.i].Kind == sqlscan.Op || p.toks[p.i].Kind == sqlscan.Punct) && p.toks[p.i].Text(p.src) == op
}

func (p *constParser) or() (constant, error) {
	l, err := p.and()
	for err == nil && p.peekWord("or") {
		p.i++
		var r constant
		if r, err = p.and(); err == nil {
			l = logic(l, r, false)
		}
	}
	return l, err
}

func (p *constParser) and() (constant, error) {
	l, err := p.not()
	for err == nil && p.peekWord("and") {
		p.i++
		var r constant
		if r, err = p.not(); err == nil {
			l = logic(l, r, true)
		}
	}
	return l, err
}

// logic is three-valued AND (and) or OR.
func logic(l, r constant, and bool) constant {
	lb, rb := l.kind == cBool, r.kind == cBool
	if and {
		if lb && !l.b || rb && !r.b {
			return constant{kind: cBool}
		}
		if lb && rb {
			return constant{kind: cBool, b: true}
		}
		return constant{}
	}
	if lb && l.b || rb && r.b {
		return constant{kind: cBool, b: true}
	}
	if lb && rb {
		return constant{kind: cBool}
	}
	return constant{}
}

func (p *constParser) not() (constant, error) {
	if p.peekWord("not") {
		p.i++
		c, err := p.not()
		if err != nil || c.kind == cNull {
			return c, err
		}
		if c.kind != cBool {
			return c, fmt.Errorf("NOT of %s", c.describe())
		}
		return constant{kind: cBool, b: !c.b}, nil
	}
	return p.comparison()
}

func (p *constParser) comparison() (constant, error) {
	l, err := p.additive()
	if err != nil {
		return l, err
	}
	switch {
	case p.peekWord("is"):
		p.i++
		neg := p.peekWord("not")
		if neg {
			p.i++
		}
		var res bool
		switch {
		case p.peekWord("null"):
			res = l.kind == cNull
		case p.peekWord("true"):
			res = l.kind == cBool && l.b
		case p.peekWord("false"):
			res = l.kind == cBool && !l.b
		default:
			return l, errors.New("expected NULL, TRUE or FALSE after IS")
		}
		p.i++
		return constant{kind: cBool, b: res != neg}, nil
	case p.peekWord("between"), p.peekWord("not") && p.i+1 < len(p.toks) && p.toks[p.i+1].Is(p.src, "between"):
		neg := p.peekWord("not")
		if neg {
			p.i++
		}
		p.i++
		lo, err := p.additive()
		if err != nil {
			return lo, err
		}
		if !p.peekWord("and") {
			return lo, errors.New("expected AND in BETWEEN … AND …")
		}
		p.i++
		hi, err := p.additive()
		if err != nil {
			return hi, err
		}
		if l.kind == cNull || lo.kind == cNull || hi.kind == cNull {
			return constant{}, nil
		}
		a, ok1 := compare(l, lo)
		b, ok2 := compare(l, hi)
		if !ok1 || !ok2 {
			return l, fmt.Errorf("cannot compare %s with %s and %s", l.describe(), lo.describe(), hi.describe())
		}
		return constant{kind: cBool, b: (a >= 0 && b <= 0) != neg}, nil
	case p.peekWord("in"), p.peekWord("not") && p.i+1 < len(p.toks) && p.toks[p.i+1].Is(p.src, "in"):
		neg := p.peekWord("not")
		if neg {
			p.i++
		}
		p.i++
		if !p.peekOp("(") && !p.peekOp("[") {
			return l, errors.New("expected ( after IN")
		}
		closer := map[string]string{"(": ")", "[": "]"}[p.toks[p.i].Text(p.src)]
		p.i++
		found, sawNull := false, l.kind == cNull
		for !p.peekOp(closer) {
			r, err := p.or()
			if err != nil {
				return r, err
			}
			if r.kind == cNull {
				sawNull = true
			} else if eq, ok := compare(l, r); ok && eq == 0 {
				found = true
			}
			if p.peekOp(",") {
				p.i++
			} else if !p.peekOp(closer) {
				return r, errors.New("expected , or " + closer + " in the IN list")
			}
		}
		p.i++
		if found {
			return constant{kind: cBool, b: !neg}, nil
		}
		if sawNull {
			return constant{}, nil
		}
		return constant{kind: cBool, b: neg}, nil
	}
	for _, op := range []string{"=", "==", "<>", "!=", "<", "<=", ">", ">="} {
		if !p.peekOp(op) {
			continue
		}
		p.i++
		r, err := p.additive()
		if err != nil {
			return r, err
		}
		if l.kind == cNull || r.kind == cNull {
			return constant{}, nil
		}
		c, ok := compare(l, r)
		if !ok {
			return l, fmt.Errorf("cannot compare %s with %s", l.describe(), r.describe())
		}
		var res bool
		switch op {
		case "=", "==":
			res = c == 0
		case "<>", "!=":
			res = c != 0
		case "<":
			res = c < 0
		case "<=":
			res = c <= 0
		case ">":
			res = c > 0
		case ">=":
			res = c >= 0
		}
		return constant{kind: cBool, b: res}, nil
	}
	return l, nil
}

// compare orders two constants of one kind; a string and a number compare
// as numbers when the string is one (as the engines cast it).
func compare(l, r constant) (int, bool) {
	if l.kind == cString && r.kind == cNumber {
		if f, err := strconv.ParseFloat(strings.TrimSpace(l.s), 64); err == nil {
			l = constant{kind: cNumber, n: f}
		}
	}
	if r.kind == cString && l.kind == cNumber {
		if f, err := strconv.ParseFloat(strings.TrimSpace(r.s), 64); err == nil {
			r = constant{kind: cNumber, n: f}
		}
	}
	if l.kind != r.kind {
		return 0, false
	}
	switch l.kind {
	case cNumber:
		switch {
		case l.n < r.n:
			return -1, true
		case l.n > r.n:
			return 1, true
		}
		return 0, true
	case cString:
		return strings.Compare(l.s, r.s), true
	case cBool:
		switch {
		case l.b == r.b:
			return 0, true
		case !l.b:
			return -1, true
		}
		return 1, true
	}
	return 0, false
}

func (p *constParser) additive() (constant, error) {
	l, err := p.multiplicative()
	for err == nil && (p.peekOp("+") || p.peekOp("-") || p.peekOp("||")) {
		op := p.toks[p.i].Text(p.src)
		p.i++
		var r constant
		if r, err = p.multiplicative(); err != nil {
			break
		}
		if l.kind == cNull || r.kind == cNull {
			l = constant{}
			continue
		}
		if op == "||" {
			l = constant{kind: cString, s: l.text() + r.text()}
			continue
		}
		if l.kind != cNumber || r.kind != cNumber {
			return l, fmt.Errorf("%s %s %s is no arithmetic", l.describe(), op, r.describe())
		}
		if op == "+" {
			l.n += r.n
		} else {
			l.n -= r.n
		}
	}
	return l, err
}

func (c constant) text() string {
	switch c.kind {
	case cNumber:
		return strconv.FormatFloat(c.n, 'f', -1, 64)
	case cBool:
		return strconv.FormatBool(c.b)
	}
	return c.s
}

func (p *constParser) multiplicative() (constant, error) {
	l, err := p.unary()
	for err == nil && (p.peekOp("*") || p.peekOp("/") || p.peekOp("%")) {
		op := p.toks[p.i].Text(p.src)
		p.i++
		var r constant
		if r, err = p.unary(); err != nil {
			break
		}
		if l.kind == cNull || r.kind == cNull {
			l = constant{}
			continue
		}
		if l.kind != cNumber || r.kind != cNumber {
			return l, fmt.Errorf("%s %s %s is no arithmetic", l.describe(), op, r.describe())
		}
		switch op {
		case "*":
			l.n *= r.n
		case "/":
			if r.n == 0 {
				return l, errors.New("division by zero")
			}
			l.n /= r.n
		case "%":
			if r.n == 0 {
				return l, errors.New("division by zero")
			}
			l.n = math.Mod(l.n, r.n)
		}
	}
	return l, err
}

func (p *constParser) unary() (constant, error) {
	if p.peekOp("-") {
		p.i++
		c, err := p.unary()
		if err != nil || c.kind == cNull {
			return c, err
		}
		if c.kind != cNumber {
			return c, fmt.Errorf("- %s is no arithmetic", c.describe())
		}
		c.n = -c.n
		return c, nil
	}
	return p.primary()
}

func (p *constParser) primary() (constant, error) {
	if p.i >= len(p.toks) {
		return constant{}, errors.New("it ends too soon")
	}
	t := p.toks[p.i]
	text := t.Text(p.src)
	switch t.Kind {
	case sqlscan.Number:
		p.i++
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return constant{}, fmt.Errorf("bad number %s", text)
		}
		return constant{kind: cNumber, n: f}, nil
	case sqlscan.String:
		p.i++
		return constant{kind: cString, s: t.Value(p.src)}, nil
	case sqlscan.Macro:
		if sqlscan.MacroName(p.src, t) == "var" {
			p.i++
			r := sqlscan.ParseRef(p.src, t.Start)
			name := r.Name()
			v, ok := p.x.env.Vars[name]
			if !ok {
				return constant{}, fmt.Errorf("@var(%s) has no value: set it under vars in efmesh.yaml", name)
			}
			if p.x.vars == nil {
				p.x.vars = map[string]string{}
			}
			p.x.vars[name] = v
			return constant{kind: cString, s: v}, nil
		}
	case sqlscan.Ident:
		switch strings.ToLower(text) {
		case "true", "false":
			p.i++
			return constant{kind: cBool, b: strings.EqualFold(text, "true")}, nil
		case "null":
			p.i++
			return constant{}, nil
		}
	case sqlscan.Punct:
		if text == "(" {
			p.i++
			c, err := p.or()
			if err != nil {
				return c, err
			}
			if !p.peekOp(")") {
				return c, errors.New("expected )")
			}
			p.i++
			return c, nil
		}
	}
	return constant{}, fmt.Errorf("%s is not a value known before the query runs", text)
}
