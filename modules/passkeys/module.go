package passkeys

import (
	"go.uber.org/fx"

	"tandem/core"
)

// Module provides the passkey use cases and contributes the service as a
// user-data owner. Storage is bound by the adapter modules; Accounts and
// Ceremonies by bootstrap, so this package never imports them.
var Module = fx.Module("passkeys",
	fx.Provide(NewService),
	fx.Provide(fx.Annotate(func(s *Service) core.UserData { return s }, fx.ResultTags(`group:"userdata"`))),
)
