package httpapi

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"unicode"

	"tandem/adapters/web"
	"tandem/core"
	"tandem/modules/events"
)

// TestOpenAPIPartsNameTheirLimits: a limit keyword holding a name becomes the
// module constant's value, and a name that is no limit fails the merge with
// the part and the place.
func TestOpenAPIPartsNameTheirLimits(t *testing.T) {
	part := `{"components": {"schemas": {"E": {"properties": {
		"title": {"type": "string", "maxLength": "events.MaxTitle"},
		"participants": {"type": "array", "maxItems": "events.MaxParticipants", "items": {"maxLength": 3}},
		"maxLength": {"type": "string", "description": "a property may be called maxLength"}}}}}}`
	doc, err := mergeOpenAPI(fstest.MapFS{"openapi/a.json": {Data: []byte(part)}})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]map[string]any
			}
		}
	}
	if err := json.Unmarshal(doc, &got); err != nil {
		t.Fatal(err)
	}
	props := got.Components.Schemas["E"].Properties
	if props["title"]["maxLength"] != float64(events.MaxTitle) || props["participants"]["maxItems"] != float64(events.MaxParticipants) ||
		props["participants"]["items"].(map[string]any)["maxLength"] != float64(3) {
		t.Fatalf("resolved to %v", props)
	}

	bad := `{"paths": {"/a/b": {"get": {"parameters": [{"schema": {"maximum": "events.MaxTitel"}}]}}}}`
	_, err = mergeOpenAPI(fstest.MapFS{"openapi/b.json": {Data: []byte(bad)}})
	if err == nil || !strings.Contains(err.Error(), `openapi/b.json#/paths/~1a~1b/get/parameters/0/schema/maximum: "events.MaxTitel" is no limit`) {
		t.Fatalf("got %v", err)
	}
}

// TestOpenAPIPartsNameTheirPatterns: a pattern holding a package's pattern name
// becomes the module's pattern, a regular expression stays as written, and
// a name that is no pattern fails the merge with the part and the place.
func TestOpenAPIPartsNameTheirPatterns(t *testing.T) {
	part := `{"components": {"schemas": {"E": {"properties": {
		"time": {"type": "string", "pattern": "events.WallTimePattern"},
		"code": {"type": "string", "pattern": "^[a-z.]+$"}}}}}}`
	doc, err := mergeOpenAPI(fstest.MapFS{"openapi/a.json": {Data: []byte(part)}})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]map[string]any
			}
		}
	}
	if err := json.Unmarshal(doc, &got); err != nil {
		t.Fatal(err)
	}
	if props := got.Components.Schemas["E"].Properties; props["time"]["pattern"] != events.WallTimePattern || props["code"]["pattern"] != "^[a-z.]+$" {
		t.Fatalf("resolved to %v", props)
	}
	bad := `{"components": {"schemas": {"E": {"pattern": "events.WalltimePattern"}}}}`
	_, err = mergeOpenAPI(fstest.MapFS{"openapi/b.json": {Data: []byte(bad)}})
	if err == nil || !strings.Contains(err.Error(), `openapi/b.json#/components/schemas/E/pattern: "events.WalltimePattern" is no pattern`) {
		t.Fatalf("got %v", err)
	}
}

// TestOpenAPIRequestIDPatternIsItsLimit: the document states MaxRequestIDLen
// as the count of the pattern it names (web.RequestIDPattern).
func TestOpenAPIRequestIDPatternIsItsLimit(t *testing.T) {
	var doc struct {
		Components struct {
			Headers map[string]struct {
				Schema struct{ Pattern string }
			}
		}
	}
	if err := json.Unmarshal(OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	pattern := doc.Components.Headers[web.HeaderRequestID].Schema.Pattern
	if m := regexp.MustCompile(`\{1,(\d+)\}\$$`).FindStringSubmatch(pattern); m == nil || m[1] != strconv.Itoa(web.MaxRequestIDLen) {
		t.Fatalf("%s's pattern %q does not end in {1,%d}$ (web.MaxRequestIDLen)", web.HeaderRequestID, pattern, web.MaxRequestIDLen)
	}
}

// TestOpenAPIEscapesInvisibleCharacters: the patterns hold controls, format
// characters and spaces; the document's text shows them as JSON escapes,
// and they decode to the patterns themselves.
func TestOpenAPIEscapesInvisibleCharacters(t *testing.T) {
	for _, doc := range [][]byte{OpenAPI(), mustDocument(t)} {
		for i, r := range string(doc) {
			if r == 0x7f || r >= 0x80 && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || unicode.IsSpace(r)) {
				t.Fatalf("a raw %U at byte %d of the document", r, i)
			}
		}
		if !strings.Contains(string(doc), `\u202a-\u202e`) {
			t.Error("no escaped bidirectional controls: the text patterns are missing")
		}
		var v any
		if err := json.Unmarshal(doc, &v); err != nil {
			t.Fatal(err)
		}
		if !holds(v, core.TrimmedLinePattern) {
			t.Errorf("the decoded document does not hold core.TrimmedLinePattern")
		}
	}
}

// holds reports whether the decoded JSON v holds the string s.
func holds(v any, s string) bool {
	switch x := v.(type) {
	case string:
		return x == s
	case map[string]any:
		for _, c := range x {
			if holds(c, s) {
				return true
			}
		}
	case []any:
		for _, c := range x {
			if holds(c, s) {
				return true
			}
		}
	}
	return false
}

func mustDocument(t *testing.T) []byte {
	b, err := Document("http://localhost:8080")
	if err != nil {
		t.Fatal(err)
	}
	return b
}
