package throttle

import "go.uber.org/fx"

// Module provides the Limiter; the Repository is bound by the storage adapter.
var Module = fx.Module("throttle", fx.Provide(NewLimiter))
