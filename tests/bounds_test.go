package tests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"tandem/adapters/purchases/appstore/appstoretest"
	"tandem/adapters/purchases/play"
	"tandem/adapters/purchases/play/playtest"
)

// The document's limits, enforced: every rule the served /openapi.json
// states on a request field (maxLength, minLength, maximum, minimum, pattern,
// format, enum, const, maxItems, minItems), on every operation's JSON or
// multipart body, query and path parameters, is sent values just outside
// it on top of a request the server accepts: each must get a 400 with the
// error body (a path parameter that names nothing may get its 404), and
// nothing may be stored. The base request itself must be accepted, so the
// test cannot pass by everything being refused. Then the values at the
// rule (the longest string, the largest number, every enum value, strings
// a pattern allows at its edges) must get past the field rules: accepted,
// or answered for what they name (404, 409, wrong credentials). And a
// string field that states no rule is sent "?", which must not get a 400
// about its shape. So the test fails when the server lacks a rule the
// document states, and when the document leaves out, or states looser, a
// rule of the server.
//
// The requests are built from the document's own request examples (each
// named example of a body is a base of its own; query parameters take their
// example, or their examples of one name together), and every field with a
// rule must appear in one of them. A fixture per operation (boundsFixtures)
// supplies what only a running world knows: the caller, path ids, the ids
// and proofs in a body.
//
// It runs on memory and on the first SQL profile, not on every one: the
// rules are checked by the handlers and modules before any repository is
// asked, so a store cannot change the answer; the SQL run is there because
// some rules are checked inside a repository's transaction (a flag's patch
// in Update's callback), where "nothing stored" means a rollback.

// boundRules are the schema keywords the test builds values around.
var boundRules = []string{"maxLength", "minLength", "maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum",
	"pattern", "format", "enum", "const", "maxItems", "minItems"}

// notByItself are the fields a value inside the document's rule may still
// be refused for, with the reason the field's prose gives: the rule is the
// closest outer bound of the server's, which no JSON Schema keyword states
// exactly, or another field takes part in it. Values outside run as for
// any field; the values at the rule do not. A key is "METHOD path field"
// or "METHOD path#example field"; a field named here for every operation
// is "* field".
var notByItself = map[string]string{
	"* query cursor": "a cursor must be one the server handed out",
	"PATCH /api/users/user/{userId} timezone":                            "the zone must exist in the IANA database",
	"POST /api/partnerConnections/create connectionCode":                 "the code must be hard to guess (zxcvbn, love phrases)",
	"POST /api/users/user/{userId}/pairing targetCode":                   "the code must be a live one of another user",
	"POST /api/users/user/{userId}/memories images[]":                    "the address must be one of the caller's uploaded files",
	"PUT /api/admin/version-policy/{platform} minRequiredVersion":        "minRequiredVersion ≤ recommendedVersion ≤ latestVersion",
	"PUT /api/admin/version-policy/{platform} recommendedVersion":        "minRequiredVersion ≤ recommendedVersion ≤ latestVersion",
	"PUT /api/admin/version-policy/{platform} latestVersion":             "minRequiredVersion ≤ recommendedVersion ≤ latestVersion",
	"PUT /api/admin/version-policy/{platform} downloadUrl":               "an https URL without user info or spaces",
	"POST /api/version-check#withBuild currentVersion":                   "a build in the version must be currentBuildNumber",
	"POST /api/users/user/{userId}/premiums signedTransactionInfo":       "a proof is what the store signed",
	"POST /api/users/user/{userId}/premiums purchaseToken":               "a proof is a purchase the store knows",
	"POST /api/users/user/{userId}/premiums productId":                   "a proof is a purchase the store knows",
	"POST /api/users/user/{userId}/premiums startDate":                   "endDate must be after startDate",
	"POST /api/users/user/{userId}/premiums endDate":                     "endDate must be after startDate",
	"PUT /api/users/user/{userId}/images/{imageId} url":                  "the address an upload answered for key",
	"PUT /api/users/user/{userId}/images/{imageId} key":                  "one of the caller's uploaded files",
	"PUT /api/users/user/{userId}/images/group/{groupId} images[].url":   "the address an upload answered for key",
	"PUT /api/users/user/{userId}/images/group/{groupId} images[].key":   "one of the caller's uploaded files",
	"POST /api/feature-flags action":                                     "each action takes its own fields (the operation's description)",
	"POST /api/user/{userId}/relationship action":                        "start takes a date",
	"POST /api/users/user/{userId}/pairing action":                       "submit-code takes targetCode",
	"GET /api/version-check#withBuild query version":                     "a build in the version must be buildNumber",
	"POST /api/auth/passkeys/register/verify id":                         "the bytes are the authenticator's answer to this ceremony",
	"POST /api/auth/passkeys/register/verify rawId":                      "the bytes are the authenticator's answer to this ceremony",
	"POST /api/auth/passkeys/register/verify response.clientDataJSON":    "the bytes are the authenticator's answer to this ceremony",
	"POST /api/auth/passkeys/register/verify response.attestationObject": "the bytes are the authenticator's answer to this ceremony",
	"POST /api/auth/passkeys/signin/verify id":                           "the bytes are the authenticator's answer to this ceremony",
	"POST /api/auth/passkeys/signin/verify rawId":                        "the bytes are the authenticator's answer to this ceremony",
	"POST /api/auth/passkeys/signin/verify response.clientDataJSON":      "the bytes are the authenticator's answer to this ceremony",
	"POST /api/auth/passkeys/signin/verify response.authenticatorData":   "the bytes are the authenticator's answer to this ceremony",
	"POST /api/auth/passkeys/signin/verify response.signature":           "the bytes are the authenticator's answer to this ceremony",
	"POST /api/auth/passkeys/signin/verify response.userHandle":          "the bytes are the authenticator's answer to this ceremony",
}

func notAlone(op, example, field string) bool {
	return notByItself["* "+field] != "" || notByItself[op+" "+field] != "" || notByItself[op+"#"+example+" "+field] != ""
}

// TestOpenAPIBoundsAreEnforced walks the served document and sends, for
// every (operation, field, rule) it finds, the values just outside and at
// the rule (see above); it logs how many triples it checked.
func TestOpenAPIBoundsAreEnforced(t *testing.T) {
	parallel(t)
	ps := profiles(t)
	if len(ps) > 2 {
		ps = ps[:2] // memory and SQLite: see above
	}
	signer := appstoretest.New()
	for _, p := range ps {
		t.Run(p.name, func(t *testing.T) {
			parallel(t)
			store := playtest.New(t)
			h := newHarness(t, p, append(slices.Clone(hostileEnv), withPasskeys(), withUnboundedWrites(),
				withStores(t, signer, store))...)
			b := newBoundsRun(t, h)
			b.signer, b.play = signer, store
			b.run(t)
		})
	}
}

// withStores verifies purchases as production does, against the test App
// Store root and a local Google Play, and takes a client's word in
// development (trust): every body of the premium write is accepted.
func withStores(t *testing.T, signer *appstoretest.Signer, store *playtest.Server) option {
	dir := t.TempDir()
	root, creds := filepath.Join(dir, "root.pem"), filepath.Join(dir, "play.json")
	if os.WriteFile(root, signer.RootPEM(), 0o600) != nil || os.WriteFile(creds, store.Credentials(), 0o600) != nil {
		t.Fatal("cannot write the stores' files")
	}
	plans := "&plan.tandem.monthly=9.99&plan.tandem.yearly=59.99"
	return withEnv("TANDEM_PURCHASES", "trust,appstore?bundle="+appBundle+"&env=Production&root="+root+plans+
		",play?package="+playtest.Package+"&credentials="+creds+"&endpoint="+store.URL()+"&secret="+playSecret+plans)
}

// boundsRun is one walk of the document against one app.
type boundsRun struct {
	signer   *appstoretest.Signer
	play     *playtest.Server
	h        *harness
	w        *world
	doc      map[string]any
	compiler *jsonschema.Compiler
	compiled map[string]*jsonschema.Schema
	seq      int
	// what was checked: triples and values sent
	triples map[string]bool
	sent    int
	free    int  // values sent to fields that state no rule
	loginAs user // the account the login base signs in as
}

func newBoundsRun(t *testing.T, h *harness) *boundsRun {
	raw := h.get("/openapi.json", "")
	expect(t, raw, 200, "")
	b := &boundsRun{h: h, compiled: map[string]*jsonschema.Schema{}, triples: map[string]bool{}}
	if err := json.Unmarshal(raw.Body, &b.doc); err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw.Body))
	if err != nil {
		t.Fatal(err)
	}
	b.compiler = boundsCompiler()
	if err := b.compiler.AddResource(contractURL, doc); err != nil {
		t.Fatal(err)
	}
	b.w = newWorld(t, h)
	b.loginAs = h.newUser("login-bounds@x.io")
	return b
}

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

// ---- requests ----

// boundsCall is how one operation is called with one base: who calls, with
// the service key or not, the path's ids, the fields of body or query only
// this world knows (set over the example's), whose stored data a refused
// request must leave as it was, and the clock's move before each request
// (the routes with a per-minute budget).
type boundsCall struct {
	as      user
	keyed   bool
	path    map[string]string
	fill    map[string]any
	watch   []user
	advance time.Duration
}

// boundsFixture makes an operation's call; fresh ones are made again for
// every request that may be accepted (it changes what the next one meets:
// a pairing, a deleted flag, a changed password).
type boundsFixture struct {
	fresh bool
	// base is the base request's status when it is no 2xx: a well-formed
	// request about something that is not there (the fixture says why).
	base int
	call func(b *boundsRun, t *testing.T, example string) boundsCall
}

// boundsBase is one base request of an operation: an example's body and
// the query, as values.
type boundsBase struct {
	name  string
	body  any // nil: no body
	query map[string]any
	path  map[string]any
}

// boundsOp is one operation of the document.
type boundsOp struct {
	key, method, path string
	params            []map[string]any // dereferenced
	paramPtrs         []string
	bodyPtr           string // the body schema, "" without one
	media             string
	examples          map[string]any // body examples by name ("" for a single one)
}

func (b *boundsRun) operations() []boundsOp {
	var ops []boundsOp
	paths, _ := b.doc["paths"].(map[string]any)
	for _, path := range sortedKeysOf(paths) {
		item, _ := paths[path].(map[string]any)
		for _, method := range []string{"get", "post", "put", "patch", "delete"} {
			raw, ok := item[method].(map[string]any)
			if !ok {
				continue
			}
			at := "/paths/" + pointerToken(path) + "/" + method
			op := boundsOp{key: strings.ToUpper(method) + " " + path, method: strings.ToUpper(method), path: path}
			lists := []struct {
				l  []any
				at string
			}{{asList(item["parameters"]), "/paths/" + pointerToken(path) + "/parameters"}, {asList(raw["parameters"]), at + "/parameters"}}
			for _, ps := range lists {
				for i, p := range ps.l {
					m, ptr := b.deref(p, fmt.Sprintf("%s/%d", ps.at, i))
					if m["in"] == "header" || m["in"] == "cookie" {
						continue // headers are not fields of this test (the idempotency key has its own)
					}
					op.params = append(op.params, m)
					op.paramPtrs = append(op.paramPtrs, ptr)
				}
			}
			if rb, rbAt := b.deref(raw["requestBody"], at+"/requestBody"); rb != nil {
				content, _ := rb["content"].(map[string]any)
				for _, media := range []string{"application/json", "multipart/form-data"} {
					mt, ok := content[media].(map[string]any)
					if !ok {
						continue
					}
					op.media = media
					op.bodyPtr = rbAt + "/content/" + pointerToken(media) + "/schema"
					op.examples = map[string]any{}
					if ex, ok := mt["example"]; ok {
						op.examples[""] = ex
					}
					if exs, ok := mt["examples"].(map[string]any); ok {
						for name, e := range exs {
							em, _ := b.deref(e, "")
							op.examples[name] = em["value"]
						}
					}
					break
				}
			}
			ops = append(ops, op)
		}
	}
	return ops
}

// bases are the operation's base requests: one per body example, each
// with the query's examples; without a body, one per name of the query's
// named examples (a parameter's lone example joins each).
func (b *boundsRun) bases(op boundsOp) []boundsBase {
	common := map[string]any{}
	named := map[string]map[string]any{}
	paths := map[string]any{}
	for _, p := range op.params {
		name, _ := p["name"].(string)
		target := common
		if p["in"] == "path" {
			target = paths
		}
		if ex, ok := p["example"]; ok {
			target[name] = ex
		}
		if exs, ok := p["examples"].(map[string]any); ok && p["in"] != "path" {
			for n, e := range exs {
				em, _ := b.deref(e, "")
				if named[n] == nil {
					named[n] = map[string]any{}
				}
				named[n][name] = em["value"]
			}
		}
	}
	var out []boundsBase
	if op.bodyPtr != "" {
		for _, name := range sortedKeysOf(op.examples) {
			out = append(out, boundsBase{name: name, body: op.examples[name], query: maps.Clone(common), path: paths})
		}
		return out
	}
	if len(named) == 0 {
		return []boundsBase{{query: common, path: paths}}
	}
	for _, name := range sortedKeysOf(named) {
		q := maps.Clone(common)
		maps.Copy(q, named[name])
		out = append(out, boundsBase{name: name, query: q, path: paths})
	}
	return out
}

// fields lists the rules of a base: its body's, its query's, its path's.
func (b *boundsRun) fields(t *testing.T, op boundsOp, base boundsBase, all bool) []boundField {
	var out []boundField
	if op.bodyPtr != "" {
		out = append(out, b.walk(t, b.node(op.bodyPtr), op.bodyPtr, "body", op.bodyPtr, nil, base.body, !all)...)
	}
	for i, p := range op.params {
		name, _ := p["name"].(string)
		in, _ := p["in"].(string)
		values := base.query
		if in == "path" {
			values = base.path
		}
		v, has := values[name]
		ptr := op.paramPtrs[i] + "/schema"
		out = append(out, b.walk(t, p["schema"], ptr, in, ptr, []any{name}, v, has && !all)...)
	}
	return out
}

// request builds the HTTP request of a base with body (or query) changed.
func (b *boundsRun) request(t *testing.T, op boundsOp, call boundsCall, body any, query, path map[string]any) req {
	p := op.path
	for k, v := range path { // the example's, or a changed one
		p = strings.ReplaceAll(p, "{"+k+"}", url.PathEscape(queryText(v)))
	}
	for k, v := range call.path {
		p = strings.ReplaceAll(p, "{"+k+"}", v)
	}
	if len(query) > 0 {
		q := url.Values{}
		for _, k := range sortedKeysOf(query) {
			q.Set(k, queryText(query[k]))
		}
		p += "?" + q.Encode()
	}
	r := req{Method: op.method, Path: p, Token: call.as.Token}
	switch {
	case op.media == "multipart/form-data":
		var parts []part
		files, _ := body.(map[string]any)["file"].([]any)
		for i := range files {
			parts = append(parts, filePart(fmt.Sprintf("%d.jpg", i), "image/jpeg", jpegFile(t)))
		}
		raw, ct := multipartBody(t, parts...)
		r.Body, r.Headers = raw, map[string]string{"Content-Type": ct}
	case body != nil:
		raw, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		r.Body = raw
	}
	if call.keyed {
		r = r.withKey()
	}
	return r
}

func queryText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	raw, _ := json.Marshal(v)
	return string(raw)
}

// filled is a base with the call's fill set over the example's values.
func filled(base boundsBase, call boundsCall) boundsBase {
	out := boundsBase{name: base.name, body: deepCopy(base.body), query: maps.Clone(base.query), path: maps.Clone(base.path)}
	for k, v := range call.fill {
		if m, ok := out.body.(map[string]any); ok {
			if _, has := m[k]; has {
				m[k] = deepCopy(v)
				continue
			}
		}
		if _, has := out.query[k]; has {
			out.query[k] = v
		}
		if _, has := out.path[k]; has {
			out.path[k] = v
		}
	}
	return out
}

// with is the base with value v at field f.
func (base boundsBase) with(f boundField, v any) boundsBase {
	out := boundsBase{name: base.name, body: deepCopy(base.body), query: maps.Clone(base.query), path: maps.Clone(base.path)}
	switch f.in {
	case "body":
		out.body = setAt(out.body, f.at, v)
	case "query":
		out.query[f.at[0].(string)] = v
	case "path":
		out.path[f.at[0].(string)] = v
	}
	return out
}

func (base boundsBase) value(f boundField) (any, bool) {
	switch f.in {
	case "body":
		return getAt(base.body, f.at)
	case "query":
		v, ok := base.query[f.at[0].(string)]
		return v, ok
	}
	v, ok := base.path[f.at[0].(string)]
	return v, ok
}

// whole is the value the field's top schema checks: the body, or the
// parameter's value.
func (base boundsBase) whole(f boundField) any {
	if f.in == "body" {
		return base.body
	}
	v, _ := base.value(f)
	return v
}

// ---- the run ----

func (b *boundsRun) run(t *testing.T) {
	var missing []string
	for _, op := range b.operations() {
		fx, known := boundsFixtures[op.key]
		bases := b.bases(op)
		// every rule the document states must be reached by some base
		stated := map[string]bool{}
		for _, f := range b.fields(t, op, boundsBase{query: map[string]any{}, path: map[string]any{}}, true) {
			if f.rule != freeRule {
				stated[f.name()+" "+f.rule] = true
			}
		}
		if len(stated) == 0 {
			continue
		}
		if !known {
			missing = append(missing, op.key)
			continue
		}
		reached := map[string]bool{}
		for _, base := range bases {
			t.Run(op.key+"#"+base.name, func(t *testing.T) {
				for _, k := range b.runBase(t, op, fx, base) {
					reached[k] = true
				}
			})
		}
		for _, k := range sortedKeysOf(stated) {
			if !reached[k] {
				t.Errorf("%s: no request example holds %s: add one to the document (a body example, or a parameter's)", op.key, k)
			}
		}
	}
	if len(missing) > 0 {
		t.Errorf("operations with rules but no fixture in boundsFixtures: %s", strings.Join(missing, ", "))
	}
	t.Logf("%d (operation, field, rule) triples checked, %d fields without a rule probed, with %d requests", len(b.triples), b.free, b.sent)
	if len(b.triples) < 150 {
		t.Errorf("only %d triples: the walk lost its way", len(b.triples))
	}
}

// runBase checks every rule of one base; it returns the "field rule" keys
// it reached.
func (b *boundsRun) runBase(t *testing.T, op boundsOp, fx boundsFixture, raw boundsBase) []string {
	call := fx.call(b, t, raw.name)
	base := filled(raw, call)
	if op.bodyPtr != "" && !b.valid(t, op.bodyPtr, base.body) {
		t.Fatalf("the base body is not valid for the document: %s", clip([]byte(jsonStr(base.body))))
	}
	fields := b.fields(t, op, base, false)
	var reached []string
	before := b.snapshot(t, call)
	for _, f := range fields {
		cur, present := base.value(f)
		if !present || f.rule == freeRule {
			continue
		}
		values := b.keep(t, f, base, cur, outsideValues(f, cur), false)
		if len(values) == 0 {
			t.Errorf("%s %s: no value just outside the rule %v could be built from %v", f.name(), f.rule, f.leaf[f.rule], cur)
			continue
		}
		reached = append(reached, f.name()+" "+f.rule)
		b.triples[op.key+" "+f.name()+" "+f.rule] = true
		for _, v := range values {
			r := b.send(t, op, call, base.with(f, v))
			b.expectRefused(t, op, f, v, r)
		}
	}
	if after := b.snapshot(t, call); after != before {
		t.Errorf("a refused request changed stored data:\n%s", firstDiff(before, after))
	}
	// The base itself is accepted, and so is every value at a rule.
	accept := func(f *boundField, v any) {
		c := call
		if fx.fresh {
			c = fx.call(b, t, raw.name)
		}
		sent, what := filled(raw, c), ""
		if f != nil {
			sent = sent.with(*f, v)
			what = fmt.Sprintf("%s %s %v: %s", f.name(), f.rule, f.leaf[f.rule], clip([]byte(jsonStr(v))))
		}
		r := b.send(t, op, c, sent)
		switch {
		case f == nil && fx.base != 0 && r.Status != fx.base:
			t.Errorf("the base request %s %s: %d, want %d: %s", op.method, op.path, r.Status, fx.base, clip(r.Body))
		case f == nil && fx.base == 0 && (r.Status < 200 || r.Status > 299):
			t.Errorf("the base request %s %s: %d %s", op.method, op.path, r.Status, clip(r.Body))
		case f != nil && !passed(r):
			t.Errorf("%s: the document allows it, the server answered %d %s", what, r.Status, clip(r.Body))
		}
	}
	accept(nil, nil)
	for _, f := range fields {
		cur, present := base.value(f)
		if !present || f.rule == freeRule && f.in == "path" {
			continue
		}
		if f.rule == freeRule {
			c := call
			if fx.fresh {
				c = fx.call(b, t, raw.name)
			}
			b.free++
			if r := b.send(t, op, c, filled(raw, c).with(f, "?")); r.Status == 400 && shapeCodes[errorCode(r)] {
				t.Errorf("%s states no rule, yet \"?\" got %d %s: state the server's rule in the document", f.name(), r.Status, clip(r.Body))
			}
			continue
		}
		if notAlone(op.key, raw.name, f.name()) {
			continue
		}
		for _, v := range b.keep(t, f, base, cur, insideValues(f, cur), true) {
			accept(&f, v)
		}
	}
	return reached
}

// keep are the values of vs that break (outside) or keep (inside) f's rule
// while the request stays valid otherwise (outside: invalid as a whole;
// inside: valid as a whole), without repeats and without the base's. An
// outside value breaks the rule and, where one can, no other rule of the
// field (a minLength 1 whose pattern refuses "" too breaks both); at most
// four. Of the values at a rule one is enough, but for enum values and a
// pattern's edges.
func (b *boundsRun) keep(t *testing.T, f boundField, base boundsBase, cur any, vs []any, inside bool) []any {
	leaf, only := b.schema(t, f.ptr), b.leafOnly(t, f)
	other := b.leafWithout(t, f)
	var alone, along []any
	seen := map[string]bool{jsonStr(cur): true}
	for _, v := range vs {
		if v == nil {
			continue
		}
		if v == "" && f.in == "query" {
			continue // an empty query value is an absent one to this server, as to most
		}
		key := jsonStr(v)
		if seen[key] {
			continue
		}
		seen[key] = true
		wholeOK := b.valid(t, f.top, base.with(f, v).whole(f))
		switch {
		case inside && leaf.Validate(jsonValue(v)) == nil && wholeOK:
			alone = append(alone, v)
		case !inside && only.Validate(jsonValue(v)) != nil && !wholeOK:
			if other == nil || other.Validate(jsonValue(v)) == nil {
				alone = append(alone, v)
			} else {
				along = append(along, v)
			}
		}
	}
	switch {
	case inside && f.rule != "enum" && f.rule != "pattern" && len(alone) > 1:
		return alone[:1]
	case inside:
		return alone
	case len(alone) == 0:
		alone = along
	}
	return alone[:min(len(alone), 4)]
}

func (b *boundsRun) send(t *testing.T, op boundsOp, call boundsCall, base boundsBase) response {
	t.Helper()
	if call.advance > 0 {
		b.h.Clock.Advance(call.advance)
	}
	b.sent++
	r, err := b.h.send(b.h.request(b.request(t, op, call, base.body, base.query, base.path)))
	if err != nil {
		t.Fatalf("%s %s: %v", op.method, op.path, err)
	}
	return r
}

// expectRefused: a 400 with the error body (its code, but where the spec
// shows none).
func (b *boundsRun) expectRefused(t *testing.T, op boundsOp, f boundField, v any, r response) {
	t.Helper()
	what := fmt.Sprintf("%s %s %v: %s", f.name(), f.rule, f.leaf[f.rule], clip([]byte(jsonStr(v))))
	if f.in == "path" && r.Status == 404 {
		return // a path that names nothing (its prose says which answer)
	}
	if r.Status != 400 {
		t.Errorf("%s: the document refuses it, the server answered %d %s", what, r.Status, clip(r.Body))
		return
	}
	var e struct {
		Success *bool   `json:"success"`
		Error   string  `json:"error"`
		Code    *string `json:"code"`
		Message string  `json:"message"`
	}
	if err := json.Unmarshal(r.Body, &e); err != nil || e.Success == nil || *e.Success || e.Error == "" || e.Error != e.Message {
		t.Errorf("%s: not the error body: %s", what, clip(r.Body))
	}
	if e.Code == nil || *e.Code == "" {
		t.Errorf("%s: no code: %s", what, clip(r.Body))
	}
}

// snapshot is what a refused request may not change: the world's (four
// users, the flags, the version policies), the call's users' exports and
// the mails sent.
func (b *boundsRun) snapshot(t *testing.T, call boundsCall) string {
	var s strings.Builder
	s.WriteString(b.w.snapshot(t))
	for _, u := range call.watch {
		r := b.h.get("/api/users/user/"+u.ID+"/export", u.Token)
		fmt.Fprintf(&s, "%s %d %s\n", u.ID, r.Status, r.Body)
	}
	fmt.Fprintf(&s, "mails %d\n", len(b.h.Mail.All()))
	return s.String()
}

// ---- fixtures ----

// fresh is a new verified user of its own.
func (b *boundsRun) fresh(prefix string) user {
	b.seq++
	return b.h.newUser(fmt.Sprintf("%s-%d@x.io", prefix, b.seq))
}

// freshPair is two new users paired with each other.
func (b *boundsRun) freshPair() (user, user) {
	x, y := b.fresh("pair-a"), b.fresh("pair-b")
	b.h.pair(x, y)
	return x, y
}

// mine is a call as the world's attacker A on A's own paths (A is paired
// with C and holds an event, a memory and two uploaded images).
func mine(ids map[string]string) func(b *boundsRun, t *testing.T, _ string) boundsCall {
	return func(b *boundsRun, t *testing.T, _ string) boundsCall {
		w := b.w
		path := map[string]string{"userId": w.A.ID, "eventId": w.aEvent, "memoryId": w.aMemory, "imageId": w.aImage,
			"groupId": w.aGroup}
		maps.Copy(path, ids)
		return boundsCall{as: w.A, path: path}
	}
}

// fileURL is the address an upload answered for key.
func fileURL(key string) string { return "http://localhost:8080/files/" + key }

var boundsFixtures = map[string]boundsFixture{
	"GET /api/admin/feedback": {call: func(b *boundsRun, t *testing.T, _ string) boundsCall {
		return boundsCall{as: b.w.admin}
	}},
	"GET /api/admin/version-policy/{platform}": {call: func(b *boundsRun, t *testing.T, _ string) boundsCall {
		return boundsCall{as: b.w.admin}
	}},
	"PUT /api/admin/version-policy/{platform}": {call: func(b *boundsRun, t *testing.T, _ string) boundsCall {
		return boundsCall{as: b.w.admin}
	}},
	"POST /api/auth/login/email": {call: func(b *boundsRun, t *testing.T, _ string) boundsCall {
		return boundsCall{fill: map[string]any{"email": "login-bounds@x.io", "password": pw}, watch: []user{b.loginAs}}
	}},
	// each registration needs its own challenge, and a passkey is
	// registered once
	"POST /api/auth/passkeys/register/verify": {fresh: true, call: func(b *boundsRun, t *testing.T, _ string) boundsCall {
		u := b.fresh("passkey")
		ch, uh := challengeOf(t, b.h.post("/api/auth/passkeys/register/options", u.Token, nil))
		return boundsCall{as: u, fill: newSoftKey(t).create(ch, uh), watch: []user{u}}
	}},
	"POST /api/auth/passkeys/signin/verify": {fresh: true, call: func(b *boundsRun, t *testing.T, _ string) boundsCall {
		b.h.Clock.Advance(16 * time.Minute) // past the 10 failed passkey sign-ins an IP has in 15 minutes
		u := b.fresh("passkey")
		k := newSoftKey(t)
		b.h.registerPasskey(t, u, k)
		return boundsCall{fill: k.get(b.h.signInOptions(t)), watch: []user{u}}
	}},
	// signing up twice with one address sends a code twice: a new one
	// each time; a verification is used once
	"POST /api/auth/signup/email": {fresh: true, call: func(b *boundsRun, t *testing.T, example string) boundsCall {
		b.seq++
		email := fmt.Sprintf("signup-%d@x.io", b.seq)
		if example != "verify" {
			return boundsCall{fill: map[string]any{"email": email}}
		}
		r := b.h.post("/api/auth/signup/email", "", map[string]any{"email": email, "password": pw})
		expect(t, r, 200, "")
		return boundsCall{fill: map[string]any{"userId": r.JSON(t)["userId"], "verificationCode": b.h.Mail.Code(email)}}
	}},
	// a reset's steps each need their own user and code
	"POST /api/auth/reset": {fresh: true, call: func(b *boundsRun, t *testing.T, example string) boundsCall {
		u := b.fresh("reset")
		email := fmt.Sprintf("reset-%d@x.io", b.seq)
		if example == "request" {
			return boundsCall{fill: map[string]any{"email": email}, watch: []user{u}}
		}
		expect(t, b.h.post("/api/auth/reset", "", map[string]any{"email": email}), 200, "")
		code := b.h.Mail.Code(email)
		fill := map[string]any{"userId": u.ID, "code": code}
		if example != "verify" { // an update needs the code verified first
			r := b.h.post("/api/auth/reset", "", map[string]any{"userId": u.ID, "code": code})
			expect(t, r, 200, "")
			fill["resetToken"] = r.JSON(t)["resetToken"]
		}
		return boundsCall{fill: fill, watch: []user{u}}
	}},
	"GET /api/feature-flags": {call: func(b *boundsRun, t *testing.T, _ string) boundsCall {
		return boundsCall{as: b.w.admin, fill: map[string]any{"userId": b.w.A.ID, "flag": "hostile_flag"}}
	}},
	// a flag is created once per key, deleted once
	"POST /api/feature-flags": {fresh: true, call: func(b *boundsRun, t *testing.T, example string) boundsCall {
		b.seq++
		key := fmt.Sprintf("bounds-%d", b.seq)
		if example != "create" {
			expect(t, b.h.post("/api/feature-flags", b.w.admin.Token, map[string]any{"action": "create", "key": key, "name": "Bounds"}), 200, "")
		}
		return boundsCall{as: b.w.admin, fill: map[string]any{"key": key, "flagKey": key,
			"enabledForUserIds": []any{b.w.A.ID}, "disabledForUserIds": []any{b.w.C.ID}}}
	}},
	"GET /api/messages/list": {call: func(b *boundsRun, t *testing.T, _ string) boundsCall {
		return boundsCall{as: b.w.A, keyed: true}
	}},
	"POST /api/messages/send": {call: func(b *boundsRun, t *testing.T, _ string) boundsCall {
		return boundsCall{as: b.w.A, keyed: true}
	}},
	// an unpaired user's code: L creates it again and again
	"POST /api/partnerConnections/create": {call: func(b *boundsRun, t *testing.T, _ string) boundsCall {
		return boundsCall{as: b.w.L, keyed: true, fill: map[string]any{"userId": b.w.L.ID}, watch: []user{b.w.L}}
	}},
	// a link pairs: two new users each time
	"POST /api/partnerConnections/link": {fresh: true, call: func(b *boundsRun, t *testing.T, _ string) boundsCall {
		x, y := b.fresh("owner"), b.fresh("linker")
		b.seq++
		code := fmt.Sprintf("Tidal-Meadow-%d-Quartz", b.seq)
		expect(t, b.h.connCreate(x, code), 200, "")
		return boundsCall{as: y, keyed: true, fill: map[string]any{"userId": y.ID, "connectionCode": code}, watch: []user{x, y}}
	}},
	// the milestones of the victim's relationship, started in the world
	"GET /api/user/{userId}/relationship/milestones": {call: func(b *boundsRun, t *testing.T, _ string) boundsCall {
		return boundsCall{as: b.w.V, path: map[string]string{"userId": b.w.V.ID}}
	}},
	// a relationship starts and ends once
	"POST /api/user/{userId}/relationship": {fresh: true, call: func(b *boundsRun, t *testing.T, example string) boundsCall {
		x, y := b.freshPair()
		if example == "end" {
			expect(t, b.h.post(relationshipPath(x), x.Token, map[string]any{"action": "start", "date": "2024-02-14"}), 200, "")
		}
		return boundsCall{as: x, path: map[string]string{"userId": x.ID}, watch: []user{x, y}}
	}},
	"PATCH /api/users/user/{userId}": {call: mine(nil)},
	// a user answers once a day; a reply and a reaction need an answer
	"POST /api/users/user/{userId}/daily-question": {fresh: true, call: func(b *boundsRun, t *testing.T, example string) boundsCall {
		x, y := b.freshPair()
		c := boundsCall{as: x, path: map[string]string{"userId": x.ID}, watch: []user{x, y}}
		if example != "answer" {
			r := b.h.post(dqPath(x), x.Token, map[string]any{"action": "answer", "text": "by the lake"})
			expect(t, r, 200, "")
			conv := r.JSON(t)["conversation"].([]any)
			id := conv[len(conv)-1].(map[string]any)["id"]
			c.fill = map[string]any{"messageId": id, "replyTo": id}
		}
		return c
	}},
	"GET /api/users/user/{userId}/daily-question/history": {call: mine(nil)},
	"POST /api/users/user/{userId}/devices": {call: func(b *boundsRun, t *testing.T, _ string) boundsCall {
		c := mine(nil)(b, t, "")
		c.advance = time.Minute // 20 registrations a minute
		return c
	}},
	"GET /api/users/user/{userId}/events":            {call: mine(nil)},
	"POST /api/users/user/{userId}/events":           {call: mine(nil)},
	"GET /api/users/user/{userId}/events/date-range": {call: mine(nil)},
	"PUT /api/users/user/{userId}/events/{eventId}":  {call: mine(nil)},
	"GET /api/users/user/{userId}/feedback":          {call: mine(nil)},
	"POST /api/users/user/{userId}/feedback":         {call: mine(nil)},
	"GET /api/users/user/{userId}/images":            {call: mine(nil)},
	"POST /api/users/user/{userId}/images":           {call: mine(nil)},
	"PUT /api/users/user/{userId}/images/group/{groupId}": {call: func(b *boundsRun, t *testing.T, _ string) boundsCall {
		c := mine(nil)(b, t, "")
		c.fill = map[string]any{"images": []any{map[string]any{"_id": b.w.aImage, "url": fileURL(b.w.aKey), "key": b.w.aKey}}}
		return c
	}},
	"PUT /api/users/user/{userId}/images/{imageId}": {call: func(b *boundsRun, t *testing.T, _ string) boundsCall {
		c := mine(nil)(b, t, "")
		c.fill = map[string]any{"url": fileURL(b.w.aKey), "key": b.w.aKey}
		return c
	}},
	"GET /api/users/user/{userId}/memories": {call: mine(nil)},
	"POST /api/users/user/{userId}/memories": {call: func(b *boundsRun, t *testing.T, _ string) boundsCall {
		c := mine(nil)(b, t, "")
		c.fill = map[string]any{"images": []any{fileURL(b.w.aKey)}}
		return c
	}},
	"GET /api/users/user/{userId}/memories/count":          {call: mine(nil)},
	"GET /api/users/user/{userId}/memories/date-range":     {call: mine(nil)},
	"PUT /api/users/user/{userId}/memories/{memoryId}":     {call: mine(nil)},
	"GET /api/users/user/{userId}/moods":                   {call: mine(nil)},
	"POST /api/users/user/{userId}/moods":                  {call: mine(nil)},
	"PATCH /api/users/user/{userId}/notification-settings": {call: mine(nil)},
	"PUT /api/users/user/{userId}/notification-settings":   {call: mine(nil)},
	"GET /api/users/user/{userId}/notifications":           {call: mine(nil)},
	"PATCH /api/users/user/{userId}/notifications": {call: func(b *boundsRun, t *testing.T, _ string) boundsCall {
		c := mine(nil)(b, t, "")
		b.h.Clock.Advance(time.Minute)
		expect(t, b.h.post("/api/users/user/"+b.w.A.ID+"/send-test-notification", b.w.A.Token,
			map[string]any{"title": "t", "message": "m", "category": "questions"}), 200, "")
		inbox := b.h.get("/api/users/user/"+b.w.A.ID+"/notifications", b.w.A.Token).JSON(t)["notifications"].([]any)
		c.fill = map[string]any{"notificationId": inbox[0].(map[string]any)["id"]}
		return c
	}},
	// a code submitted pairs: new users each time
	"POST /api/users/user/{userId}/pairing": {fresh: true, call: func(b *boundsRun, t *testing.T, _ string) boundsCall {
		x, y := b.fresh("inviter"), b.fresh("invitee")
		return boundsCall{as: y, path: map[string]string{"userId": y.ID}, fill: map[string]any{"targetCode": b.h.generateCode(x)},
			watch: []user{x, y}}
	}},
	// a new password ends the other sessions: a user of its own each time
	"POST /api/users/user/{userId}/password": {fresh: true, call: func(b *boundsRun, t *testing.T, _ string) boundsCall {
		u := b.fresh("password")
		return boundsCall{as: u, path: map[string]string{"userId": u.ID}, fill: map[string]any{"currentPassword": pw}, watch: []user{u}}
	}},
	"GET /api/users/user/{userId}/premiums": {call: mine(nil)},
	// a subscription is created, changed, cancelled: a user of its own; a
	// store's proof is signed (App Store) or known (Google Play) anew
	"POST /api/users/user/{userId}/premiums": {fresh: true, call: func(b *boundsRun, t *testing.T, example string) boundsCall {
		u := b.fresh("premium")
		now := b.h.Clock.Now().Truncate(time.Millisecond)
		fill := map[string]any{"startDate": now.UnixMilli(), "endDate": now.AddDate(1, 0, 0).UnixMilli()}
		switch example {
		case "appStore":
			tx := appleTx(fmt.Sprintf("3%09d", b.seq), now.Add(-time.Hour), now.AddDate(0, 1, 0), now)
			fill["signedTransactionInfo"] = b.signer.Transaction(tx)
		case "play":
			token := fmt.Sprintf("bounds-token-%d", b.seq)
			b.play.Put(token, playtest.Subscription("tandem.monthly", play.SubscriptionStateActive, now.Add(-time.Hour), now.AddDate(0, 1, 0)))
			fill["purchaseToken"], fill["productId"] = token, "tandem.monthly"
		}
		return boundsCall{as: u, path: map[string]string{"userId": u.ID}, watch: []user{u}, fill: fill}
	}},
	"POST /api/users/user/{userId}/send-test-notification": {call: func(b *boundsRun, t *testing.T, _ string) boundsCall {
		c := mine(nil)(b, t, "")
		c.advance = time.Minute // 20 test pushes a minute
		return c
	}},
	// A signed in with no provider: a well-formed unlink finds no link
	"DELETE /api/users/user/{userId}/signin/{provider}": {base: 404, call: mine(nil)},
	"GET /api/version-check":                            {call: func(*boundsRun, *testing.T, string) boundsCall { return boundsCall{} }},
	"POST /api/version-check":                           {call: func(*boundsRun, *testing.T, string) boundsCall { return boundsCall{} }},
	"GET /files/u/{owner}/{name}": {call: func(b *boundsRun, t *testing.T, _ string) boundsCall {
		parts := strings.Split(b.w.aKey, "/") // u/<owner>/<name>
		return boundsCall{path: map[string]string{"owner": parts[1], "name": parts[2]}}
	}},
}
