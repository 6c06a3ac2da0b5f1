package admin

import "go.uber.org/fx"

// Module provides the console's audit log and overview; storage is bound
// by the adapter modules.
var Module = fx.Module("admin", fx.Provide(NewService))
