package relationship

import (
	"go.uber.org/fx"

	"tandem/core"
)

// Module provides the relationship use cases, its PartnershipEnded listener
// and its user-data owner. The repository is bound by the storage adapters;
// Partnerships, Users and Notifier by bootstrap.
var Module = fx.Module("relationship",
	fx.Provide(NewService),
	fx.Provide(
		fx.Annotate(func(s *Service) core.Listener { return s.Listener() }, fx.ResultTags(`group:"listeners"`)),
		fx.Annotate(func(s *Service) core.UserData { return s }, fx.ResultTags(`group:"userdata"`)),
	),
)
