package httpapi

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// openapiFS holds the API document in parts: 00-base.json (info, security,
// shared schemas) and one file per module with its paths and schemas, so each
// module documents itself beside its handler. A limit is written as the name
// of its module constant ("maxLength": "events.MaxTitle", see limits.go) and
// becomes the number when the parts are merged. Tests in tests/ fail when the
// merged document and the router disagree, and when a limit of the document,
// its module constant and its database column disagree.
//
//go:embed openapi/*.json
var openapiFS embed.FS

// OpenAPI is the merged OpenAPI 3.1 document, merged on first use: after
// every handler file named its module's rules (documentRulesOf).
var OpenAPI = sync.OnceValue(func() []byte {
	doc, err := mergeOpenAPI(openapiFS)
	if err != nil {
		panic(err)
	}
	return doc
})

func mergeOpenAPI(fsys fs.FS) ([]byte, error) {
	names, err := fs.Glob(fsys, "openapi/*.json")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	doc := map[string]any{}
	for _, name := range names {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		var part map[string]any
		if err := json.Unmarshal(b, &part); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if err := resolveLimits(part, name+"#"); err != nil {
			return nil, err
		}
		if err := mergeInto(doc, part, name); err != nil {
			return nil, err
		}
	}
	acceptLanguage(doc)
	b, err := json.MarshalIndent(doc, "", "  ")
	return escapeInvisible(b), err
}

// escapeInvisible writes the characters no reader sees, or that reorder
// what follows them (controls, format characters such as the bidirectional
// overrides, spaces other than " "), as JSON escapes: the document's
// patterns hold them (core.TrimmedLinePattern), and its text stays
// readable and safe to show. They only occur inside JSON strings.
func escapeInvisible(b []byte) []byte {
	var out bytes.Buffer
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == 0x7f || r >= utf8.RuneSelf && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || unicode.IsSpace(r)) {
			fmt.Fprintf(&out, `\u%04x`, r)
		} else {
			out.Write(b[:n])
		}
		b = b[n:]
	}
	return out.Bytes()
}

// acceptLanguage names the Accept-Language header on every /api/
// operation: each answer's messages follow it.
func acceptLanguage(doc map[string]any) {
	paths, _ := doc["paths"].(map[string]any)
	for path, item := range paths {
		ops, _ := item.(map[string]any)
		if !strings.HasPrefix(path, "/api/") {
			continue
		}
		for method, op := range ops {
			o, ok := op.(map[string]any)
			if !ok || method == "parameters" {
				continue
			}
			params, _ := o["parameters"].([]any)
			o["parameters"] = append(params, map[string]any{"$ref": "#/components/parameters/AcceptLanguage"})
		}
	}
}

// mergeInto merges objects key by key; the same leaf defined twice is an error.
func mergeInto(dst, src map[string]any, where string) error {
	for k, v := range src {
		old, exists := dst[k]
		if !exists {
			dst[k] = v
			continue
		}
		om, ok1 := old.(map[string]any)
		nm, ok2 := v.(map[string]any)
		if !ok1 || !ok2 {
			return fmt.Errorf("%s: %q is defined twice", where, k)
		}
		if err := mergeInto(om, nm, where+": "+k); err != nil {
			return err
		}
	}
	return nil
}

// Document is OpenAPI with servers naming the URL clients reach the API at
// (TANDEM_PUBLIC_URL), so "try it out" and generated clients call the right host.
// It is built once per URL and process: decoding and encoding the document
// took half of an app's start (the black-box tests start hundreds).
func Document(publicURL string) ([]byte, error) {
	if b, ok := documents.Load(publicURL); ok {
		return b.([]byte), nil
	}
	b, err := buildDocument(publicURL)
	if err == nil {
		documents.Store(publicURL, b)
	}
	return b, err
}

// documents holds Document's answers by public URL; callers only read them.
var documents sync.Map

func buildDocument(publicURL string) ([]byte, error) {
	var doc map[string]any
	if err := json.Unmarshal(OpenAPI(), &doc); err != nil {
		return nil, err
	}
	doc["servers"] = []map[string]string{{"url": publicURL, "description": "this deployment (TANDEM_PUBLIC_URL)"}}
	b, err := json.MarshalIndent(doc, "", "  ")
	return escapeInvisible(b), err
}
