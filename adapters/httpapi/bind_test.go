package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"tandem/core"
)

// FuzzBindJSON: whatever the Content-Type and body, BindJSON answers a 400
// or a 415 (never a 5xx, never a panic); it accepts only a body sent as
// application/json (or without a type) that is exactly one JSON object or
// value other than null, nests at most maxJSONDepth levels and names no key twice in one
// object (keys that only differ in case name one Go field, so they count as
// the same), and what it decodes is what encoding/json decodes.
func FuzzBindJSON(f *testing.F) {
	f.Add("application/json", []byte(`{"title":"x","n":1,"list":["a"],"obj":{"k":true}}`))
	f.Add("", []byte(`{"title":"x"}`))
	f.Add("application/json; charset=utf-8", []byte(`{"title":"x"} `))
	f.Add("text/plain", []byte(`{"title":"x"}`))
	f.Add("application/json", []byte(`{"title":"x"}{"title":"y"}`))
	f.Add("application/json", []byte(`{"title":1}`))
	f.Add("application/json", []byte(`[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`))
	f.Add("APPLICATION/JSON", []byte(`{"a":{"b":{"c":[1,2,{"d":null}]}}}`))
	app := fiber.New()
	f.Fuzz(func(t *testing.T, contentType string, body []byte) {
		c := app.AcquireCtx(&fasthttp.RequestCtx{})
		defer app.ReleaseCtx(c)
		if contentType != "" {
			c.Request().Header.SetContentType(contentType)
		}
		c.Request().SetBody(body)
		var got struct {
			Title *string        `json:"title"`
			N     json.Number    `json:"n"`
			List  []string       `json:"list"`
			Obj   map[string]any `json:"obj"`
		}
		err := BindJSON(c, &got)
		if err != nil {
			var e *core.Error
			if !errors.As(err, &e) || (e.Kind != core.KindInvalid && e.Kind != core.KindUnsupported) || e.Message == "" {
				t.Fatalf("BindJSON(%q, %q): %v, want a 400 or 415", contentType, body, err)
			}
			return
		}
		ct := string(c.Request().Header.ContentType())
		if ct != "" {
			mt, params, perr := mime.ParseMediaType(ct)
			if perr != nil || mt != "application/json" || (params["charset"] != "" && !strings.EqualFold(params["charset"], "utf-8")) {
				t.Fatalf("BindJSON accepted Content-Type %q", ct)
			}
		}
		if string(bytes.TrimSpace(body)) == "null" {
			t.Fatalf("BindJSON accepted a body of null")
		}
		if problem := jsonProblem(body); problem != "" {
			t.Fatalf("BindJSON accepted %q: %s", body, problem)
		}
	})
}

// jsonProblem is why body is not one JSON value of unique keys within
// maxJSONDepth levels, or "".
func jsonProblem(body []byte) string {
	dec := json.NewDecoder(bytes.NewReader(body))
	var walk func(depth int) string
	walk = func(depth int) string {
		tok, err := dec.Token()
		if err != nil {
			return "not JSON: " + err.Error()
		}
		d, ok := tok.(json.Delim)
		if !ok {
			return ""
		}
		if depth+1 > maxJSONDepth {
			return "nested too deep"
		}
		var seen []string
		for dec.More() {
			if d == '{' {
				k, _ := dec.Token()
				for _, other := range seen {
					if strings.EqualFold(other, k.(string)) {
						return "the keys " + other + " and " + k.(string) + " in one object"
					}
				}
				seen = append(seen, k.(string))
			}
			if p := walk(depth + 1); p != "" {
				return p
			}
		}
		_, _ = dec.Token()
		return ""
	}
	if p := walk(0); p != "" {
		return p
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return "more than one value"
	}
	return ""
}
