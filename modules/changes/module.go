package changes

import (
	"go.uber.org/fx"

	"tandem/core"
)

// Module provides the feed's use cases and contributes the service as a
// user-data owner (an account's deletion deletes its feed); its Repository
// is bound by the adapter modules and its Settings by bootstrap.
var Module = fx.Module("changes",
	fx.Provide(NewService),
	fx.Provide(fx.Annotate(func(s *Service) core.UserData { return s }, fx.ResultTags(`group:"userdata"`))),
)
