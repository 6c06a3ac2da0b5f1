package console

import (
	"go.uber.org/fx"

	"tandem/adapters/web"
)

// Module serves the console on the API's server: its routes join the
// "routes" group and its headers the "headers" group that httpapi.Module's
// server collects. Its Config, its Secret, the Settings that keep one and
// the "probes" are bound in bootstrap.
var Module = fx.Module("console",
	fx.Provide(
		web.AsRoute(NewHandler),
		web.AsHeaders(func() web.Headers { return headers }),
	),
)
