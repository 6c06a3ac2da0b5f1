package partners

import (
	"go.uber.org/fx"

	"tandem/core"
)

// Module provides the partnership use cases and contributes the service as a
// user-data owner. The repository is bound by the storage adapters; other
// modules reach PartnerOf/PartnershipOf through ports bound in bootstrap.
var Module = fx.Module("partners",
	fx.Provide(NewService),
	fx.Provide(fx.Annotate(func(s *Service) core.UserData { return s }, fx.ResultTags(`group:"userdata"`))),
	fx.Provide(fx.Annotate(func(s *Service) core.Listener { return s.Listener() }, fx.ResultTags(`group:"listeners"`))),
)
