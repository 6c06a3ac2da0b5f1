package premium

import (
	"go.uber.org/fx"

	"tandem/core"
)

// Module provides the premium use cases and contributes the service as a
// user-data owner and a shared-data one (an
// inherited premium's put at an unpair). The repository and verifier are bound by adapters; Partners
// and the Policy by bootstrap.
var Module = fx.Module("premium",
	fx.Provide(NewService),
	fx.Provide(fx.Annotate(func(s *Service) core.UserData { return s }, fx.ResultTags(`group:"userdata"`))),
	fx.Provide(fx.Annotate(func(s *Service) core.SharedData { return s }, fx.ResultTags(`group:"shared"`))),
)
