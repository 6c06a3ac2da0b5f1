package relationship

import (
	"go.uber.org/fx"

	"tandem/core"
)

// Module provides the relationship use cases, the milestone push job, their
// PartnershipEnded and TimezoneChanged listeners, the user-data owner and the shared-data one.
// The repositories are bound by the storage adapters; Partnerships, Users,
// Notifier and MilestoneNotifier by bootstrap.
var Module = fx.Module("relationship",
	fx.Provide(NewService, NewMilestonePushes),
	fx.Provide(
		fx.Annotate(func(s *Service) core.Listener { return s.Listener() }, fx.ResultTags(`group:"listeners"`)),
		fx.Annotate(func(p *MilestonePushes) core.Listener { return p.Listener() }, fx.ResultTags(`group:"listeners"`)),
		fx.Annotate(func(s *Service) core.UserData { return s }, fx.ResultTags(`group:"userdata"`)),
		fx.Annotate(func(s *Service) core.SharedData { return s }, fx.ResultTags(`group:"shared"`)),
	),
)
