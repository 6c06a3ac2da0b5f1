package feedback

import (
	"go.uber.org/fx"

	"tandem/core"
)

// Module provides the feedback use cases and contributes the service as a
// user-data owner. Storage is bound by the adapter modules; core.Limiter by
// the throttle module.
var Module = fx.Module("feedback",
	fx.Provide(NewService),
	fx.Provide(fx.Annotate(func(s *Service) core.UserData { return s }, fx.ResultTags(`group:"userdata"`))),
)
