package console

import (
	"go.uber.org/fx"

	"tandem/adapters/httpapi"
)

// Module serves the console on the API's server: its routes join the
// "routes" group and its headers the "headers" group of httpapi.Module.
// Its Secret, the Settings that keep one and the "probes" are bound in
// bootstrap.
var Module = fx.Module("console",
	fx.Provide(
		httpapi.AsRoute(NewHandler),
		httpapi.AsHeaders(func() httpapi.Headers { return headers }),
	),
)
