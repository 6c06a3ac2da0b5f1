package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"strconv"
	"strings"
	"unicode"

	"github.com/gofiber/fiber/v2"

	"tandem/core"
)

// maxJSONDepth bounds how deeply a request body may nest arrays and
// objects: the API's bodies nest three levels at most (a premium meta object
// may hold more), and encoding/json alone allows 10,000.
const maxJSONDepth = 64

// BindJSON decodes the JSON body (at most TANDEM_JSON_MAX_BYTES) into dst. A missing Content-Type is accepted
// (some clients omit it); any other type than application/json (with no
// charset but UTF-8) is a 415. The body must be one JSON value that names
// no key twice in an object and nests at most maxJSONDepth levels: with a
// repeated key encoding/json silently keeps the last value, where another
// parser in front (a proxy, a filter) may have read the first, and keys
// differing only in case fill the same field. Every decoding failure is a
// 400 that names the problem, never a 500.
func BindJSON(c *fiber.Ctx, dst any) error {
	if !jsonContentType(c.Get(fiber.HeaderContentType)) {
		return core.Unsupported("unsupported_media_type", "httpapi.sendBodyApplicationJson", "send the body as application/json")
	}
	body := c.Request().Body() // read within the JSON limit by limitBody; never inflated
	if len(bytes.TrimSpace(body)) == 0 {
		return core.Invalid("invalid_request", "httpapi.requestBodyEmpty", "request body is empty")
	}
	if string(bytes.TrimSpace(body)) == "null" { // decodes into any value as "nothing sent"
		return core.Invalid("invalid_request", "httpapi.requestBodyJSONObject", "request body must be a JSON object")
	}
	if err := checkJSONShape(body); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(dst); err != nil {
		return decodeError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return core.Invalid("invalid_request", "httpapi.requestBodyHoldOneJSON", "request body must hold one JSON value")
	}
	return nil
}

func decodeError(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn), errors.Is(err, io.ErrUnexpectedEOF):
		return core.Invalid("invalid_request", "httpapi.malformedJSON", "malformed JSON")
	case errors.As(err, &typ):
		if typ.Field == "" {
			return core.Invalid("invalid_request", "httpapi.requestBodyJSONObject", "request body must be a JSON object")
		}
		return wrongType(typ.Field, typ.Type.Kind().String())
	}
	return core.Invalid("invalid_request", "httpapi.malformedJSON", "malformed JSON")
}

// wrongType is the 400 of a field of another JSON type than its Go kind
// wants: one whole sentence per type, so that each translates as a whole.
func wrongType(field, goKind string) error {
	switch goKind {
	case "string":
		return core.Invalid("invalid_request", "httpapi.fieldString", "field %s must be a string", field)
	case "bool":
		return core.Invalid("invalid_request", "httpapi.fieldBoolean", "field %s must be a boolean", field)
	case "slice", "array":
		return core.Invalid("invalid_request", "httpapi.fieldArray", "field %s must be an array", field)
	case "map", "struct", "ptr":
		return core.Invalid("invalid_request", "httpapi.fieldObject", "field %s must be an object", field)
	}
	return core.Invalid("invalid_request", "httpapi.fieldNumber", "field %s must be a number", field)
}

// jsonContentType accepts no type, or application/json with at most a
// UTF-8 charset ("application/jsonp" or "application/json-seq" are other
// types, and JSON is UTF-8).
func jsonContentType(ct string) bool {
	if ct == "" {
		return true
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil || mt != fiber.MIMEApplicationJSON {
		return false
	}
	cs, ok := params["charset"]
	return !ok || strings.EqualFold(cs, "utf-8")
}

// checkJSONShape walks body's tokens once: a repeated key in one object
// (ignoring case, as encoding/json matches fields) or nesting past
// maxJSONDepth is a 400. Syntax errors are left to the decoder, which names
// them the same way.
func checkJSONShape(body []byte) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	type level struct {
		object bool
		keys   map[string]bool
		key    bool // the next token of an object is a key
	}
	var stack []level
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil // the end of the value, or a syntax error the decoder reports
		}
		if n := len(stack); n > 0 && stack[n-1].object {
			top := &stack[n-1]
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:n-1]
				if len(stack) == 0 {
					return nil
				}
				continue
			}
			if top.key {
				k := foldKey(tok.(string))
				if top.keys[k] {
					return core.Invalid("invalid_request", "httpapi.requestBodyNamesKeyTwice", "request body names the key %s twice in one object", clipQuote(tok.(string)))
				}
				top.keys[k] = true
				top.key = false
				continue
			}
			top.key = true
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			if len(stack) == maxJSONDepth {
				return core.Invalid("invalid_request", "httpapi.requestBodyNestsDeeperThan", "request body nests deeper than {1|%[1]d level|%[1]d levels}", maxJSONDepth)
			}
			stack = append(stack, level{object: tok == json.Delim('{'), keys: map[string]bool{}, key: true})
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		if len(stack) == 0 {
			return nil
		}
	}
}

// foldKey maps every letter of a key to one member of its case-folding
// orbit, so keys encoding/json would take for one field ("title", "Title",
// "TITLE"; "s" and "ſ") map to one string.
func foldKey(k string) string {
	return strings.Map(func(r rune) rune {
		m := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			m = min(m, f)
		}
		return m
	}, k)
}

// clipQuote quotes a client's key for an error message, at most 64 bytes of it.
func clipQuote(s string) string {
	if len(s) > 64 {
		s = strings.ToValidUTF8(s[:64], "") + "..."
	}
	return strconv.Quote(s)
}
