package advice

import (
	"go.uber.org/fx"

	"tandem/core"
)

// Module provides the daily-advice use case and contributes the service as a
// user-data owner. Storage is bound by the adapter modules, Users by
// bootstrap/wire_advice.go.
var Module = fx.Module("advice",
	fx.Provide(NewService),
	fx.Provide(fx.Annotate(func(s *Service) core.UserData { return s }, fx.ResultTags(`group:"userdata"`))),
)
