package questions

import (
	"go.uber.org/fx"

	"tandem/core"
)

// Module provides the daily-question use cases and contributes the service
// as a user-data owner and a shared-data one (the feed's deletes at an
// unpair). Storage is bound by the adapter modules;
// Partnerships, Users and Notifier by bootstrap/wire_questions.go.
var Module = fx.Module("questions",
	fx.Provide(NewService),
	fx.Provide(fx.Annotate(func(s *Service) core.UserData { return s }, fx.ResultTags(`group:"userdata"`))),
	fx.Provide(fx.Annotate(func(s *Service) core.SharedData { return s }, fx.ResultTags(`group:"shared"`))),
)
