package flags

import (
	"go.uber.org/fx"

	"tandem/core"
)

// Module provides the feature-flag use cases and contributes the service as
// a user-data owner (a user's place in flag lists). Storage is bound by the
// adapter modules and Premium by bootstrap/wire_flags.go.
var Module = fx.Module("flags",
	fx.Provide(NewService),
	fx.Provide(fx.Annotate(func(s *Service) core.UserData { return s }, fx.ResultTags(`group:"userdata"`))),
)
