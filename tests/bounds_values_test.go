// This file holds the values the bounds test sends: just outside each rule,
// at it, and strings drawn from a pattern's edges.

package tests

import (
	"encoding/json"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// outsideValues are values that break f's rule, each meant to break that
// rule alone; the caller keeps those the leaf refuses and its other rules
// accept. cur is the base's value.
func outsideValues(f boundField, cur any) []any {
	s, _ := cur.(string)
	n := number(f.leaf[f.rule])
	var out []any
	switch f.rule {
	case "maxLength":
		out = append(out, lengthen(s, int(n)+1)...)
	case "minLength":
		if r := []rune(s); len(r) >= int(n) && n > 0 {
			out = append(out, string(r[:int(n)-1]))
		}
		out = append(out, strings.Repeat("a", max(int(n)-1, 0)))
	case "maximum":
		out = append(out, n+1, n+0.5)
	case "exclusiveMaximum":
		out = append(out, n)
	case "minimum":
		out = append(out, n-1, n-0.5)
	case "exclusiveMinimum":
		out = append(out, n)
	case "pattern":
		out = append(out, patternMisses(s)...)
	case "format":
		out = append(out, formatMisses(f.leaf["format"].(string), s)...)
	case "enum", "const":
		allowed := asList(f.leaf["enum"])
		if f.rule == "const" {
			allowed = []any{f.leaf["const"]}
		}
		for _, a := range allowed {
			switch a := a.(type) {
			case string:
				out = append(out, strings.ToUpper(a), strings.ToUpper(a[:1])+a[1:], a+"x", " "+a, "")
			case float64:
				out = append(out, a+1, a-1)
			case bool:
				out = append(out, !a)
			}
		}
	case "maxItems":
		l, _ := cur.([]any)
		out = append(out, longerList(l, int(n)+1, true), longerList(l, int(n)+1, false))
	case "minItems":
		l, _ := cur.([]any)
		if len(l) >= int(n) && n > 0 {
			out = append(out, slices.Clone(l[:int(n)-1]))
		}
	}
	return out
}

// insideValues are values at f's rule that the document allows.
func insideValues(f boundField, cur any) []any {
	s, _ := cur.(string)
	n := number(f.leaf[f.rule])
	var out []any
	switch f.rule {
	case "maxLength":
		out = append(out, lengthen(s, int(n))...)
	case "minLength":
		if r := []rune(s); len(r) > int(n) {
			out = append(out, string(r[:int(n)]))
		}
	case "maximum", "minimum":
		out = append(out, n)
	case "pattern":
		out = append(out, patternSamples(f.leaf["pattern"].(string))...)
	case "enum":
		out = append(out, asList(f.leaf["enum"])...)
	case "maxItems": // distinct items: a list of one item n times is refused for its repeats
		l, _ := cur.([]any)
		out = append(out, longerList(l, int(n), true))
	case "minItems":
		l, _ := cur.([]any)
		if len(l) > int(n) {
			out = append(out, slices.Clone(l[:int(n)]))
		}
	}
	return out
}

func number(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case json.Number:
		f, _ := x.Float64()
		return f
	}
	return 0
}

// lengthen is s grown to n characters, by repeating one of its own (its
// last, its first) or a plain letter or digit: the choice that keeps the
// field's other rules is the caller's.
func lengthen(s string, n int) []any {
	r := []rune(s)
	if len(r) >= n {
		if n >= 0 && len(r) > n {
			return []any{string(r[:n])}
		}
		return []any{s}
	}
	var fills []rune
	if len(r) > 0 {
		fills = append(fills, r[len(r)-1], r[0])
	}
	fills = append(fills, 'a', '0', 'x')
	var out []any
	for _, c := range fills {
		if unicode.IsSpace(c) {
			continue
		}
		grow := strings.Repeat(string(c), n-len(r))
		out = append(out, s+grow, grow+s)
		if len(r) > 1 { // inside: "a@x.io" grows in its local part
			out = append(out, string(r[:1])+grow+string(r[1:]))
		}
	}
	return out
}

// longerList is l grown (or cut) to n items: copies of its items, made
// distinct (a suffix on strings) when distinct says so.
func longerList(l []any, n int, distinct bool) []any {
	if len(l) == 0 {
		return nil
	}
	out := make([]any, 0, n)
	for i := 0; len(out) < n; i++ {
		v := deepCopy(l[i%len(l)])
		if distinct && i >= len(l) {
			s, ok := v.(string)
			if !ok {
				return nil // no distinct copies of an object
			}
			v = s + "-" + strconv.Itoa(i)
		}
		out = append(out, v)
	}
	return out
}

// patternMisses are near misses of s: one character changed, added or
// dropped at either end, cases changed, cut short, grown long.
func patternMisses(s string) []any {
	r := []rune(s)
	var out []any
	for _, c := range []string{"_", "-", ".", " ", "!", "A", "a", "0", "é", "\t", "\u0001", "\u202e", "/", "+", ":", "\n"} {
		out = append(out, c+s, s+c)
		if len(r) > 0 {
			out = append(out, c+string(r[1:]), string(r[:len(r)-1])+c)
		}
		if len(r) > 2 {
			mid := len(r) / 2
			out = append(out, string(r[:mid])+c+string(r[mid+1:]))
		}
	}
	out = append(out, "", strings.ToUpper(s), strings.ToLower(s))
	if len(r) > 1 {
		out = append(out, string(r[:len(r)-1]), string(r[1:]), string(r[:1]))
	}
	for _, n := range []int{65, 256, 1025} {
		if len(r) > 0 && len(r) < n {
			out = append(out, s+strings.Repeat(string(r[len(r)-1]), n-len(r)))
		}
	}
	return out
}

// formatMisses are near misses of s in a format.
func formatMisses(format, s string) []any {
	switch format {
	case "date":
		out := []any{"2025-02-30", "2025-13-01", "2025-1-01", "20250101"}
		if len(s) == 10 {
			out = append(out, s[:8]+"32", s+"T00:00:00Z", s[:9])
		}
		return out
	case "email", "idn-email":
		return []any{strings.Replace(s, "@", "", 1), s + "@", "@" + s, "a@", "@x.io", strings.Replace(s, "@", " @", 1), "plain"}
	case "uri":
		return []any{"not a uri", "://x"}
	}
	return nil
}

// patternSamples are strings pattern matches at its edges: each class's
// lowest and highest character, each repeat at its least and its most (a
// few for an open one), each alternative.
func patternSamples(pattern string) []any {
	re, err := syntax.Parse(ecmaToGo(pattern), syntax.Perl)
	if err != nil {
		return nil
	}
	re = re.Simplify()
	var out []any
	for _, mode := range []sampleMode{{}, {high: true}, {high: true, most: true}, {most: true}} {
		out = append(out, sample(re, mode, 0))
		for alt := 1; alt < 4; alt++ {
			out = append(out, sample(re, sampleMode{high: mode.high, most: mode.most, alt: alt}, 0))
		}
	}
	return out
}

type sampleMode struct {
	high, most bool
	alt        int // which alternative of each alternation (cycled)
}

func sample(re *syntax.Regexp, m sampleMode, depth int) string {
	switch re.Op {
	case syntax.OpLiteral:
		return string(re.Rune)
	case syntax.OpCharClass:
		return string(classRune(re.Rune, m.high))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		if m.high {
			return "z"
		}
		return "a"
	case syntax.OpCapture:
		return sample(re.Sub[0], m, depth)
	case syntax.OpConcat:
		var b strings.Builder
		for _, s := range re.Sub {
			b.WriteString(sample(s, m, depth+1))
		}
		return b.String()
	case syntax.OpAlternate:
		return sample(re.Sub[(m.alt+depth)%len(re.Sub)], m, depth+1)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := re.Min, re.Max
		switch re.Op {
		case syntax.OpStar:
			lo, hi = 0, -1
		case syntax.OpPlus:
			lo, hi = 1, -1
		case syntax.OpQuest:
			lo, hi = 0, 1
		}
		n := lo
		if m.most {
			n = hi
			if hi < 0 {
				n = lo + 3
			}
		}
		var b strings.Builder
		for range n {
			b.WriteString(sample(re.Sub[0], m, depth+1))
		}
		return b.String()
	}
	return "" // anchors, empty matches
}

// classRune is the lowest (or highest) character of a class that JSON and
// every store keep: no surrogate, no noncharacter beyond the BMP's last.
func classRune(ranges []rune, high bool) rune {
	ok := func(r rune) bool { return utf8.ValidRune(r) && r <= 0xFFFD }
	if !high {
		for i := 0; i < len(ranges); i += 2 {
			for r := ranges[i]; r <= ranges[i+1]; r++ {
				if ok(r) {
					return r
				}
			}
		}
	}
	for i := len(ranges) - 2; i >= 0; i -= 2 {
		for r := min(ranges[i+1], 0xFFFD); r >= ranges[i]; r-- {
			if ok(r) {
				return r
			}
		}
	}
	return 'a'
}
