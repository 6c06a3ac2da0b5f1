package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/gofiber/fiber/v2"

	"tandem/core"
)

// BindJSON decodes the JSON body (at most TANDEM_JSON_MAX_BYTES) into dst. A missing Content-Type is accepted
// (some clients omit it); any other non-JSON type is a 415. Every decoding
// failure is a 400 that names the problem, never a 500.
func BindJSON(c *fiber.Ctx, dst any) error {
	ct := strings.ToLower(c.Get(fiber.HeaderContentType))
	if ct != "" && !strings.HasPrefix(ct, fiber.MIMEApplicationJSON) {
		return core.Unsupported("unsupported_media_type", "send the body as application/json")
	}
	body := c.Request().Body() // read within the JSON limit by limitBody; never inflated
	if len(bytes.TrimSpace(body)) == 0 {
		return core.Invalid("invalid_request", "request body is empty")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(dst); err != nil {
		return decodeError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return core.Invalid("invalid_request", "request body must hold one JSON value")
	}
	return nil
}

func decodeError(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn), errors.Is(err, io.ErrUnexpectedEOF):
		return core.Invalid("invalid_request", "malformed JSON")
	case errors.As(err, &typ):
		if typ.Field == "" {
			return core.Invalid("invalid_request", "request body must be a JSON object")
		}
		return core.Invalid("invalid_request", fmt.Sprintf("field %s must be %s", typ.Field, jsonType(typ.Type.Kind().String())))
	}
	return core.Invalid("invalid_request", "malformed JSON")
}

func jsonType(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "slice", "array":
		return "an array"
	case "map", "struct", "ptr":
		return "an object"
	}
	return "a number"
}
