// This file holds how the bounds test reads the document: compiled
// schemas, $ref and the walk to every field with a rule, and the JSON
// values it edits.

package tests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// boundsCompiler compiles JSON Schema 2020-12 with formats asserted,
// "idn-email" among them, and ECMA-262's \uXXXX in patterns.
func boundsCompiler() *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.UseRegexpEngine(func(s string) (jsonschema.Regexp, error) { return regexp.Compile(ecmaToGo(s)) })
	c.RegisterFormat(&jsonschema.Format{Name: "idn-email", Validate: func(v any) error {
		s, ok := v.(string)
		if !ok {
			return nil
		}
		at := strings.LastIndexByte(s, '@')
		if at < 1 || at == len(s)-1 || strings.ContainsAny(s, " \t\r\n") {
			return fmt.Errorf("not an e-mail address")
		}
		return nil
	}})
	return c
}

var ecmaEscape = regexp.MustCompile(`\\u([0-9A-Fa-f]{4})`)

// ecmaToGo rewrites a pattern's ECMA-262 \uXXXX escapes as Go's \x{XXXX}.
func ecmaToGo(s string) string { return ecmaEscape.ReplaceAllString(s, `\x{$1}`) }

// schema compiles the document's schema at pointer once.
func (b *boundsRun) schema(t *testing.T, pointer string) *jsonschema.Schema {
	if s, ok := b.compiled[pointer]; ok {
		return s
	}
	s, err := b.compiler.Compile(contractURL + "#" + pointer)
	if err != nil {
		t.Fatalf("schema %s: %v", pointer, err)
	}
	b.compiled[pointer] = s
	return s
}

func (b *boundsRun) valid(t *testing.T, pointer string, v any) bool {
	return b.schema(t, pointer).Validate(jsonValue(v)) == nil
}

// jsonValue is v as jsonschema decodes JSON (numbers as json.Number).
func errorCode(r response) string {
	var e struct{ Code string }
	_ = json.Unmarshal(r.Body, &e)
	return e.Code
}

// passed says a request got past the rules of its fields: accepted, or
// answered by what it names (not found, a conflict, wrong credentials).
func passed(r response) bool {
	if r.Status >= 200 && r.Status <= 299 || r.Status == 404 || r.Status == 409 {
		return true
	}
	return (r.Status == 401 || r.Status == 403) && errorCode(r) == "invalid_credentials"
}

func jsonValue(v any) any {
	raw, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	out, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		panic(err)
	}
	return out
}

// node is the document's value at a JSON pointer.
func (b *boundsRun) node(pointer string) any {
	var v any = b.doc
	for _, tok := range strings.Split(pointer, "/")[1:] {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case map[string]any:
			v = x[tok]
		case []any:
			i, _ := strconv.Atoi(tok)
			v = x[i]
		}
	}
	return v
}

// deref follows $ref (pointers into the document) to an object.
func (b *boundsRun) deref(v any, at string) (map[string]any, string) {
	m, _ := v.(map[string]any)
	for m != nil {
		ref, ok := m["$ref"].(string)
		if !ok {
			break
		}
		at = strings.TrimPrefix(ref, "#")
		m, _ = b.node(at).(map[string]any)
	}
	return m, at
}

// ---- fields and rules ----

// boundField is one rule of one field: where the value is in the request
// (in body, query or path; at, keys and indexes), the schema that states
// the rule and where it is in the document.
type boundField struct {
	in   string
	at   []any
	rule string
	leaf map[string]any
	ptr  string
	// top is the schema of the whole body or of the parameter, where
	// the request's value is checked as a whole.
	top string
}

func (f boundField) name() string {
	var b strings.Builder
	if f.in != "body" {
		b.WriteString(f.in + " ")
	}
	for i, k := range f.at {
		switch k := k.(type) {
		case string:
			if i > 0 {
				b.WriteString(".")
			}
			b.WriteString(k)
		case int:
			b.WriteString("[]")
		}
	}
	return b.String()
}

// walk lists the rules of schema s (at ptr) for the value v at `at`
// (present says whether the base holds one). Composition is followed:
// allOf whole, the oneOf/anyOf branches the value satisfies (every branch
// when it is absent), then or else of if by the value.
func (b *boundsRun) walk(t *testing.T, s any, ptr string, in, top string, at []any, v any, present bool) []boundField {
	var out []boundField
	m, ptr := b.deref(s, ptr)
	if m == nil {
		return nil
	}
	if raw, ok := s.(map[string]any); ok && raw["$ref"] != nil && len(raw) > 1 { // 3.1: keywords beside $ref
		sib := maps.Clone(raw)
		delete(sib, "$ref")
		out = append(out, b.walk(t, sib, "", in, top, at, v, present)...)
	}
	for i, sub := range asList(m["allOf"]) {
		out = append(out, b.walk(t, sub, fmt.Sprintf("%s/allOf/%d", ptr, i), in, top, at, v, present)...)
	}
	for _, kw := range []string{"oneOf", "anyOf"} {
		for i, sub := range asList(m[kw]) {
			p := fmt.Sprintf("%s/%s/%d", ptr, kw, i)
			if !present || b.valid(t, p, v) {
				out = append(out, b.walk(t, sub, p, in, top, at, v, present)...)
			}
		}
	}
	if m["if"] != nil && present {
		branch := "else"
		if b.valid(t, ptr+"/if", v) {
			branch = "then"
		}
		if m[branch] != nil {
			out = append(out, b.walk(t, m[branch], ptr+"/"+branch, in, top, at, v, present)...)
		}
	}
	if m["if"] != nil && !present {
		for _, branch := range []string{"then", "else"} {
			if m[branch] != nil {
				out = append(out, b.walk(t, m[branch], ptr+"/"+branch, in, top, at, v, present)...)
			}
		}
	}
	ruled := false
	for _, rule := range boundRules {
		if format, _ := m["format"].(string); rule == "format" && !checkedFormats[format] {
			continue
		}
		if _, ok := m[rule]; ok {
			ruled = true
			out = append(out, boundField{in: in, at: slices.Clone(at), rule: rule, leaf: m, ptr: ptr, top: top})
		}
	}
	if !ruled && isString(m) && len(asList(m["allOf"]))+len(asList(m["oneOf"]))+len(asList(m["anyOf"])) == 0 {
		out = append(out, boundField{in: in, at: slices.Clone(at), rule: freeRule, leaf: m, ptr: ptr, top: top})
	}
	if props, ok := m["properties"].(map[string]any); ok {
		obj, _ := v.(map[string]any)
		for _, k := range sortedKeysOf(props) {
			child, has := obj[k]
			out = append(out, b.walk(t, props[k], ptr+"/properties/"+pointerToken(k), in, top, append(slices.Clone(at), k), child, present && has)...)
		}
	}
	if items := m["items"]; items != nil {
		arr, _ := v.([]any)
		var first any
		if len(arr) > 0 {
			first = arr[0]
		}
		out = append(out, b.walk(t, items, ptr+"/items", in, top, append(slices.Clone(at), 0), first, present && len(arr) > 0)...)
	}
	return out
}

// checkedFormats are the formats the test builds values around: JSON
// Schema's, which validators assert. OpenAPI's binary and byte describe
// an encoding, not a rule.
var checkedFormats = map[string]bool{"date": true, "email": true, "idn-email": true, "uri": true}

// freeRule marks a string field whose schema states no rule: the test
// sends it a value no rule would take ("?") and expects no 400 about the
// value's shape, so a rule the server checks and the document leaves out
// fails it.
const freeRule = "no rule"

// shapeCodes are the codes of a 400 about a value's shape; a free field may
// get the others (a code that is not the mailed one, a purchase no store
// knows), which judge its meaning.
var shapeCodes = map[string]bool{"invalid_request": true, "invalid_date": true, "invalid_time": true, "invalid_version": true}

func isString(m map[string]any) bool {
	switch t := m["type"].(type) {
	case string:
		return t == "string" && m["format"] != "binary"
	}
	return false
}

func asList(v any) []any { l, _ := v.([]any); return l }

func sortedKeysOf[V any](m map[string]V) []string {
	keys := slices.Collect(maps.Keys(m))
	sort.Strings(keys)
	return keys
}

// ---- values ----

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, c := range x {
			out[k] = deepCopy(c)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, c := range x {
			out[i] = deepCopy(c)
		}
		return out
	}
	return v
}

func getAt(v any, at []any) (any, bool) {
	for _, k := range at {
		switch k := k.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil, false
			}
			if v, ok = m[k]; !ok {
				return nil, false
			}
		case int:
			l, ok := v.([]any)
			if !ok || k >= len(l) {
				return nil, false
			}
			v = l[k]
		}
	}
	return v, true
}

// setAt is a copy of v with x at `at` (an index 0 of a missing list makes one).
func setAt(v any, at []any, x any) any {
	if len(at) == 0 {
		return x
	}
	switch k := at[0].(type) {
	case string:
		m, _ := deepCopy(v).(map[string]any)
		if m == nil {
			m = map[string]any{}
		}
		m[k] = setAt(m[k], at[1:], x)
		return m
	case int:
		l, _ := deepCopy(v).([]any)
		for len(l) <= k {
			l = append(l, nil)
		}
		l[k] = setAt(l[k], at[1:], x)
		return l
	}
	return v
}

// leafWithout is the leaf schema without the rule: a value valid for it and
// invalid for the leaf breaks that rule alone.
func (b *boundsRun) leafWithout(t *testing.T, f boundField) *jsonschema.Schema {
	m := maps.Clone(f.leaf)
	delete(m, f.rule)
	if strings.Contains(fmt.Sprint(m), "$ref") {
		return nil // a leaf that names others: checked as a whole only
	}
	c := boundsCompiler()
	b.seq++
	u := fmt.Sprintf("https://tandem.test/leaf/%d.json", b.seq)
	if err := c.AddResource(u, jsonValue(m)); err != nil {
		t.Fatalf("leaf %s without %s: %v", f.ptr, f.rule, err)
	}
	s, err := c.Compile(u)
	if err != nil {
		t.Fatalf("leaf %s without %s: %v", f.ptr, f.rule, err)
	}
	return s
}

// leafOnly is the rule alone (with the leaf's type): a value it refuses
// breaks that rule, whatever the others say.
func (b *boundsRun) leafOnly(t *testing.T, f boundField) *jsonschema.Schema {
	m := map[string]any{f.rule: f.leaf[f.rule]}
	if typ, ok := f.leaf["type"]; ok {
		m["type"] = typ
	}
	c := boundsCompiler()
	b.seq++
	u := fmt.Sprintf("https://tandem.test/only/%d.json", b.seq)
	if err := c.AddResource(u, jsonValue(m)); err != nil {
		t.Fatalf("rule %s of %s: %v", f.rule, f.ptr, err)
	}
	s, err := c.Compile(u)
	if err != nil {
		t.Fatalf("rule %s of %s: %v", f.rule, f.ptr, err)
	}
	return s
}
