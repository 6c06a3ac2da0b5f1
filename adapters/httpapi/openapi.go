package httpapi

import (
	_ "embed"

	"github.com/gofiber/fiber/v2"
)

// OpenAPI is the API document, kept beside the handlers it describes; a test
// in tests/ fails when it and the router disagree.
//
//go:embed openapi.json
var OpenAPI []byte

type docsHandler struct{}

func NewDocsHandler() *docsHandler { return &docsHandler{} }

func (docsHandler) Register(r fiber.Router) {
	r.Get("/openapi.json", func(c *fiber.Ctx) error {
		c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
		return c.Send(OpenAPI)
	})
}
