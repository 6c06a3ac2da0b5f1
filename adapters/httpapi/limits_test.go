package httpapi

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

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

// TestOpenAPIPartsNameTheirPatterns: a pattern holding a docPatterns name
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

// TestOpenAPIRequestIDPatternIsItsLimit: the document states maxRequestIDLen
// in a pattern, which cannot name it.
func TestOpenAPIRequestIDPatternIsItsLimit(t *testing.T) {
	var doc struct {
		Components struct {
			Headers map[string]struct {
				Schema struct{ Pattern string }
			}
		}
	}
	if err := json.Unmarshal(OpenAPI, &doc); err != nil {
		t.Fatal(err)
	}
	pattern := doc.Components.Headers[headerRequestID].Schema.Pattern
	if m := regexp.MustCompile(`\{1,(\d+)\}\$$`).FindStringSubmatch(pattern); m == nil || m[1] != strconv.Itoa(maxRequestIDLen) {
		t.Fatalf("%s's pattern %q does not end in {1,%d}$ (maxRequestIDLen)", headerRequestID, pattern, maxRequestIDLen)
	}
}
