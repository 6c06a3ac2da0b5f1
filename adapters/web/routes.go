// Package web is what the HTTP API (adapters/httpapi) and the administrators'
// console (adapters/console) share on their one Fiber server: the route and
// header groups they contribute to it, the status of each core error kind,
// the request's id and client address, the per-IP rate limit, the traffic
// record and the audited writes' types. Neither adapter imports the other;
// both import this (tests/architecture_test.go).
package web

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

// Headers sets the response headers of one part of the site (the console's
// /admin). Each runs for the whole app, before the body limits, the
// breaker and authentication, so that their errors carry the headers too.
type Headers fiber.Handler

// AsHeaders annotates a Headers constructor for the "headers" group.
func AsHeaders(f any) any {
	return fx.Annotate(f, fx.ResultTags(`group:"headers"`))
}

// RouteFunc adapts a function to Route (used by tests to add probe routes).
type RouteFunc func(r fiber.Router)

func (f RouteFunc) Register(r fiber.Router) { f(r) }
