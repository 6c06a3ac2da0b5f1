package tests

import (
	"bytes"
	"fmt"
	"mime"
	"sort"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"tandem/adapters/httpapi"
)

// Issue 45: a contract every generator accepts, and a reader can use. The
// document keeps to forms oapi-codegen and ogen both take (scripts/goclients.sh
// generates and compiles both clients), every JSON or event-stream answer
// shows an example that matches its schema, and every component, parameter
// and request body says what it is. make lint-api holds the same rules for
// the examples and descriptions (redocly.yaml, .spectral.yaml).

// TestOpenAPIDocumentIsReadyForGeneratorsAndReaders fails on any such problem
// in the served document.
func TestOpenAPIDocumentIsReadyForGeneratorsAndReaders(t *testing.T) {
	parallel(t)
	problems, err := documentProblems(httpapi.OpenAPI())
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) > 0 {
		t.Fatalf("%d problems:\n%s", len(problems), strings.Join(problems, "\n"))
	}
}

// TestDocumentProblemsFindsEachKind keeps the check honest: a small document
// with one of each problem yields each.
func TestDocumentProblemsFindsEachKind(t *testing.T) {
	parallel(t)
	doc := `{
	  "openapi": "3.1.0", "info": {"title": "t", "version": "1"},
	  "paths": {"/a/{id}": {
	    "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
	    "post": {
	      "operationId": "a",
	      "requestBody": {"content": {"application/json": {"schema": {"oneOf": [
	        {"type": "object", "required": ["userId"], "properties": {"userId": {"type": "string"}}},
	        {"type": "object", "required": ["userId", "code"], "properties": {"userId": {"type": "string"}, "code": {"type": "string"}, "type": {"const": "x"}}}
	      ]}}}},
	      "responses": {
	        "200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/A"}}}},
	        "201": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/A"}, "example": {"n": "seven"}}}},
	        "202": {"description": "ok", "content": {"image/png": {}}}
	      }
	    }
	  }},
	  "components": {"schemas": {"A": {"type": "object", "properties": {"n": {"type": ["string", "integer"]}, "m": {"type": ["integer", "null"]}, "k": {"type": "integer"}}, "required": ["k"]}}}
	}`
	problems, err := documentProblems([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(problems, "\n")
	for _, want := range []string{
		"/components/schemas/A/properties/n: type [string integer]",
		"/paths/~1a~1{id}/post/requestBody/content/application~1json/schema/oneOf/1/properties/type: const without a type",
		"/paths/~1a~1{id}/post/requestBody/content/application~1json/schema: oneOf without a discriminator, and variant 0 has no property of its own",
		"/paths/~1a~1{id}/post/responses/200/content/application~1json: no example",
		"/paths/~1a~1{id}/post/responses/201/content/application~1json/example: does not match its schema",
		"/components/schemas/A: no description",
		"/paths/~1a~1{id}/parameters/0: no description",
		"/paths/~1a~1{id}/post/requestBody: no description",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	for _, wrong := range []string{"properties/m", "202", "properties/k"} {
		if strings.Contains(got, wrong) {
			t.Errorf("a problem named %q, which is fine:\n%s", wrong, got)
		}
	}
}

// documentProblems lists what keeps an OpenAPI document from generators or
// readers, each as "pointer: what".
func documentProblems(raw []byte) ([]string, error) {
	decoded, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	doc, _ := decoded.(map[string]any)
	schemas, err := compileDocument(raw)
	if err != nil {
		return nil, err
	}
	var problems []string
	add := func(at, format string, args ...any) {
		problems = append(problems, at+": "+fmt.Sprintf(format, args...))
	}
	walkSchemas(doc, doc, "", "", add)
	checkExamples(doc, schemas, add)
	checkDescriptions(doc, add)
	sort.Strings(problems)
	return problems, nil
}

// walkSchemas checks the forms of every schema in the document: a type list
// only as [T, "null"] (both generators read it as nullable T; any other list
// stops both), a type beside every const (ogen's output does not compile
// without), and a oneOf that a generator can tell apart: a discriminator, a
// different JSON type per variant, or a property of its own in each object
// variant (what ogen infers from; it skips the operation otherwise).
// container names the keys whose values are maps of names, not schemas.
func walkSchemas(doc, v any, at, parentKey string, add func(at, format string, args ...any)) {
	switch n := v.(type) {
	case []any:
		for i, x := range n {
			walkSchemas(doc, x, fmt.Sprintf("%s/%d", at, i), "", add)
		}
	case map[string]any:
		container := map[string]bool{"properties": true, "schemas": true, "$defs": true, "patternProperties": true,
			"x-events": true, "mapping": true, "paths": true, "responses": true, "content": true, "headers": true,
			"parameters": true, "requestBodies": true, "securitySchemes": true, "examples": true}[parentKey]
		if !container {
			if types, ok := n["type"].([]any); ok && !(len(types) == 2 && types[1] == "null") {
				add(at, "type %v: use oneOf of typed schemas (or [T, \"null\"] for a nullable T)", types)
			}
			if _, ok := n["const"]; ok && n["type"] == nil {
				add(at, "const without a type")
			}
			if variants, ok := n["oneOf"].([]any); ok && n["discriminator"] == nil {
				if i := undistinguished(doc, variants); i >= 0 {
					add(at, "oneOf without a discriminator, and variant %d has no property of its own", i)
				}
			}
		}
		for k, x := range n {
			if !container && (k == "example" || k == "examples") {
				continue // values, not schemas
			}
			walkSchemas(doc, x, at+"/"+pointerToken(k), k, add)
		}
	}
}

// undistinguished is the index of a oneOf variant that neither its JSON type
// nor a property of its own tells apart from the others, or -1.
func undistinguished(doc any, variants []any) int {
	types := map[string]int{}
	props := make([]map[string]bool, len(variants))
	for i, v := range variants {
		s := resolveRef(doc, v)
		t, _ := s["type"].(string)
		types[t]++
		props[i] = map[string]bool{}
		if p, ok := s["properties"].(map[string]any); ok {
			for name := range p {
				props[i][name] = true
			}
		}
	}
	for i, v := range variants {
		if t, _ := resolveRef(doc, v)["type"].(string); t != "" && t != "object" && types[t] == 1 {
			continue
		}
		own := false
		for name := range props[i] {
			shared := false
			for j := range variants {
				shared = shared || j != i && props[j][name]
			}
			own = own || !shared
		}
		if !own {
			return i
		}
	}
	return -1
}

// resolveRef follows a local $ref ("#/components/schemas/X").
func resolveRef(doc, v any) map[string]any {
	m, _ := v.(map[string]any)
	for m != nil {
		ref, ok := m["$ref"].(string)
		if !ok {
			return m
		}
		var at any = doc
		for _, tok := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
			next, _ := at.(map[string]any)
			at = next[strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")]
		}
		m, _ = at.(map[string]any)
	}
	return m
}

// checkExamples: every JSON or event-stream answer, in an operation or in
// components/responses, has an example (or named examples), and each matches
// the media type's schema. Files (images) show none: their bytes are no
// example a reader could use.
func checkExamples(doc map[string]any, schemas *bodySchemas, add func(at, format string, args ...any)) {
	var responses []string // pointers to response objects
	paths, _ := doc["paths"].(map[string]any)
	for path, item := range paths {
		ops, _ := item.(map[string]any)
		for method, op := range ops {
			o, _ := op.(map[string]any)
			rs, _ := o["responses"].(map[string]any)
			for status := range rs {
				responses = append(responses, "/paths/"+pointerToken(path)+"/"+method+"/responses/"+pointerToken(status))
			}
		}
	}
	components, _ := doc["components"].(map[string]any)
	named, _ := components["responses"].(map[string]any)
	for name := range named {
		responses = append(responses, "/components/responses/"+pointerToken(name))
	}
	for _, at := range responses {
		r := pointerValue(doc, at)
		if _, ref := r["$ref"]; ref {
			continue // checked where it points
		}
		content, _ := r["content"].(map[string]any)
		for mt, m := range content {
			media, _ := m.(map[string]any)
			base, _, _ := mime.ParseMediaType(mt)
			if !isJSON(mt) && base != "text/event-stream" {
				continue
			}
			mat := at + "/content/" + pointerToken(mt)
			values := map[string]any{}
			if ex, ok := media["example"]; ok {
				values[mat+"/example"] = ex
			}
			named, _ := media["examples"].(map[string]any)
			for name, ex := range named {
				e, _ := ex.(map[string]any)
				values[mat+"/examples/"+pointerToken(name)+"/value"] = e["value"]
			}
			if len(values) == 0 {
				add(mat, "no example")
			}
			if _, ok := media["schema"]; !ok {
				continue
			}
			for where, v := range values {
				if err := schemas.check(mat+"/schema", v); err != nil {
					add(where, "does not match its schema: %v", err)
				}
			}
		}
	}
}

// checkDescriptions: every component (schema, parameter, request body,
// response, header) and every parameter and request body written in place
// says what it is.
func checkDescriptions(doc map[string]any, add func(at, format string, args ...any)) {
	described := func(at string, v any) {
		m, _ := v.(map[string]any)
		if _, ref := m["$ref"]; ref {
			return
		}
		if d, _ := m["description"].(string); strings.TrimSpace(d) == "" {
			add(at, "no description")
		}
	}
	components, _ := doc["components"].(map[string]any)
	for _, kind := range []string{"schemas", "parameters", "requestBodies", "responses", "headers"} {
		named, _ := components[kind].(map[string]any)
		for name, v := range named {
			described("/components/"+kind+"/"+pointerToken(name), v)
		}
	}
	paths, _ := doc["paths"].(map[string]any)
	for path, item := range paths {
		ops, _ := item.(map[string]any)
		for key, op := range ops {
			at := "/paths/" + pointerToken(path) + "/" + key
			if key == "parameters" {
				params, _ := op.([]any)
				for i, p := range params {
					described(fmt.Sprintf("%s/%d", at, i), p)
				}
				continue
			}
			o, _ := op.(map[string]any)
			params, _ := o["parameters"].([]any)
			for i, p := range params {
				described(fmt.Sprintf("%s/parameters/%d", at, i), p)
			}
			if body, ok := o["requestBody"]; ok {
				described(at+"/requestBody", body)
			}
		}
	}
}

// pointerValue is the object at a JSON pointer of doc (nil when there is none).
func pointerValue(doc any, pointer string) map[string]any {
	at := doc
	for _, tok := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		m, _ := at.(map[string]any)
		at = m[strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")]
	}
	m, _ := at.(map[string]any)
	return m
}
