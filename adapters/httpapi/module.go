package httpapi

import (
	"go.uber.org/fx"

	"tandem/adapters/web"
)

// Module serves every route contributed to the "routes" group: its own
// (health, docs, home, well-known files, the stream) here, each module's
// handler from that module's wiring (bootstrap/wire_<module>.go).
var Module = fx.Module("http",
	fx.Provide(NewServer),
	fx.Provide(NewMetrics, NewMetricsServer, NewStreams, NewDrain, NewIdempotency, (*Metrics).Traffic),
	fx.Provide(
		web.AsRoute(NewHealthHandler),
		web.AsRoute(NewDocsHandler),
		web.AsRoute(NewHomeHandler),
		web.AsRoute(NewWellKnownHandler),
		web.AsRoute(func(s *Streams) *Streams { return s }),
	),
	fx.Invoke(func(*Server, *MetricsServer) {}), // the one deliberate Invoke: start serving
)
