package httpapi

import (
	"github.com/gofiber/fiber/v2"
	"go.uber.org/fx"
)

// Route is one handler group; every handler file contributes one through the
// "routes" value group.
type Route interface{ Register(r fiber.Router) }

// AsRoute annotates a handler constructor for the routes group.
func AsRoute(f any) any {
	return fx.Annotate(f, fx.As(new(Route)), fx.ResultTags(`group:"routes"`))
}

// RouteFunc adapts a function to Route (used by tests to add probe routes).
type RouteFunc func(r fiber.Router)

func (f RouteFunc) Register(r fiber.Router) { f(r) }
