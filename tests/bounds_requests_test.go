// This file holds the bounds test's requests: the operations, their bases
// from the document's examples, and one field's value put in a base.

package tests

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

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
