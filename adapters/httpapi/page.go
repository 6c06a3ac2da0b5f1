package httpapi

import (
	"strconv"

	"github.com/gofiber/fiber/v2"

	"tandem/core"
)

// headerNextCursor carries the cursor of the next page; bodies keep the
// spec's shapes (bare arrays included), so paging lives in headers.
const headerNextCursor = "X-Next-Cursor"

// parsePage reads ?limit= (1..500) and ?cursor=. Without limit a list
// returns everything up to core.MaxListItems.
func parsePage(c *fiber.Ctx) (core.Page, error) {
	p := core.Page{Cursor: c.Query("cursor")}
	if s := c.Query("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > core.MaxPageLimit {
			return core.Page{}, core.BadLimit(core.MaxPageLimit)
		}
		p.Limit = n
	}
	return p, nil
}

// setNextCursor announces the next page, if any.
func setNextCursor(c *fiber.Ctx, next string) {
	if next != "" {
		c.Set(headerNextCursor, next)
	}
}
