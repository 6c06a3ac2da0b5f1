package httpapi

import (
	"fmt"

	"github.com/gofiber/fiber/v2"

	"tandem/core"
)

// Languages is what the API needs of the catalogs (adapters/i18n): a
// message in a locale, and the supported locale that best serves a
// request's Accept-Language.
type Languages interface {
	core.Translator
	// Match is the supported locale closest to an Accept-Language header's
	// preferences; "en" when there is none, or none is close.
	Match(acceptLanguage string) string
}

const localReader = "reader"

// reader is the caller's language for this request, with the catalogs that
// speak it.
type reader struct {
	langs  Languages
	locale string
}

// language resolves the caller's Accept-Language once per request: the
// messages of the answer (errors included) are written in it. Error codes
// and every other field never change with it.
func language(langs Languages) fiber.Handler {
	return func(c *fiber.Ctx) error {
		r := &reader{langs: langs, locale: "en"}
		if h := c.Get(fiber.HeaderAcceptLanguage); h != "" {
			r.locale = langs.Match(h)
		}
		c.Locals(localReader, r)
		return c.Next()
	}
}

// requestLocale is the locale language chose ("en" before it ran).
func requestLocale(c *fiber.Ctx) string {
	if r, ok := c.Locals(localReader).(*reader); ok {
		return r.locale
	}
	return "en"
}

// say is a message of an answer in the caller's language: format is the
// English text and its catalog key, args fill it as fmt.Sprintf does
// (English, before language ran).
func say(c *fiber.Ctx, format string, args ...any) string {
	if _, ok := c.Locals(localReader).(*reader); !ok && len(args) > 0 {
		return fmt.Sprintf(format, args...)
	}
	return sayText(c, core.Msg(format, args...))
}

// sayText is a message of the catalogs in the caller's language (its key
// as written, before language ran).
func sayText(c *fiber.Ctx, m core.Message) string {
	r, ok := c.Locals(localReader).(*reader)
	if !ok {
		return m.Key
	}
	return r.langs.Translate(r.locale, m)
}

// sayError is an error's message in the caller's language: e's own when it
// reached the body as written, else the generic text renderError put there
// (a 5xx hides its cause). English is written as it is.
func sayError(c *fiber.Ctx, e *core.Error, rendered string) string {
	r, ok := c.Locals(localReader).(*reader)
	if !ok || r.locale == "en" {
		return rendered
	}
	if rendered != e.Message {
		return r.langs.Translate(r.locale, core.Msg(rendered))
	}
	key := e.Format
	if key == "" {
		key = e.Message
	}
	return r.langs.Translate(r.locale, core.Msg(key, e.Args...))
}
