package notifications

import (
	"go.uber.org/fx"

	"tandem/core"
)

// Module provides the notification use cases, its listener (partnership
// ended, account deleted) and its user-data owner. The repository is bound by
// the storage adapters, the Pusher by bootstrap from TANDEM_PUSH.
var Module = fx.Module("notifications",
	fx.Provide(NewService),
	fx.Provide(
		fx.Annotate(func(s *Service) core.Listener { return s.Listener() }, fx.ResultTags(`group:"listeners"`)),
		fx.Annotate(func(s *Service) core.UserData { return s }, fx.ResultTags(`group:"userdata"`)),
	),
)
