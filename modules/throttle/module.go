package throttle

import (
	"go.uber.org/fx"

	"tandem/core"
)

// Module provides the Limiter, also as core.Limiter for the modules that
// guard their rules with it; the Repository is bound by the storage adapter.
var Module = fx.Module("throttle", fx.Provide(
	NewLimiter,
	func(l *Limiter) core.Limiter { return l },
))
