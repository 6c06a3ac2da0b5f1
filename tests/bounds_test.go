package tests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"tandem/adapters/purchases/appstore/appstoretest"
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
	"* query since":  "a cursor must be one the server handed out",
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
