package httpapi

import (
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
	// Preferred is the header's first language as written ("it-IT"),
	// spoken or not; "" when it names none.
	Preferred(acceptLanguage string) string
}

const localReader = "reader"

// reader is the caller's language for this request, with the catalogs that
// speak it: locale the catalog chosen, device the tag the caller asked for.
type reader struct {
	langs  Languages
	locale string
	device string
}

// language resolves the caller's Accept-Language once per request: the
// messages of the answer (errors included) are written in it. Error codes
// and every other field never change with it. Every answer may depend on
// the header (Vary); one with a text written in it says which language
// (Content-Language, set where the text is written).
func language(langs Languages) fiber.Handler {
	return func(c *fiber.Ctx) error {
		r := &reader{langs: langs, locale: "en"}
		if h := c.Get(fiber.HeaderAcceptLanguage); h != "" {
			r.locale = langs.Match(h)
			if tag, err := core.ParseLocale(langs.Preferred(h)); err == nil {
				r.device = tag
			}
		}
		c.Locals(localReader, r)
		c.Vary(fiber.HeaderAcceptLanguage)
		return c.Next()
	}
}

// requestLocale is the caller's own language tag, as a profile stores it:
// the first of Accept-Language as written ("it-IT", "pt-PT"), the catalog
// being chosen when a text is read; "en" without one.
func requestLocale(c *fiber.Ctx) string {
	if r, ok := c.Locals(localReader).(*reader); ok && r.device != "" {
		return r.device
	}
	return "en"
}

// written marks the answer as written in the reader's language.
func (r *reader) written(c *fiber.Ctx) {
	c.Set(fiber.HeaderContentLanguage, r.locale)
}

// say is a message of an answer in the caller's language: id is its
// catalog key, format the English text, args fill it as fmt.Sprintf does.
func say(c *fiber.Ctx, id, format string, args ...any) string {
	r, ok := c.Locals(localReader).(*reader)
	if !ok {
		return english(format, args)
	}
	r.written(c)
	if r.locale == "en" {
		return english(format, args)
	}
	return r.langs.Translate(r.locale, core.Message{Key: id, Args: args, English: format})
}

// english is format filled with args (core.Format: its plural choices
// resolved), as written when there are none.
func english(format string, args []any) string { return core.Format(format, args...) }

// sayText is a message of the catalogs in the caller's language (its key
// as written, before language ran).
func sayText(c *fiber.Ctx, m core.Message) string {
	r, ok := c.Locals(localReader).(*reader)
	if !ok {
		return m.Key
	}
	r.written(c)
	return r.langs.Translate(r.locale, m)
}

// sayError is an error's message in the caller's language. English is
// written as it is, and so is a message no catalog holds (no ID).
func sayError(c *fiber.Ctx, e *core.Error) string {
	r, ok := c.Locals(localReader).(*reader)
	if !ok {
		return e.Message
	}
	if r.locale == "en" || e.ID == "" {
		c.Set(fiber.HeaderContentLanguage, "en") // no catalog holds it
		return e.Message
	}
	r.written(c)
	return r.langs.Translate(r.locale, core.Message{Key: e.ID, Args: e.Args, English: e.Format})
}
