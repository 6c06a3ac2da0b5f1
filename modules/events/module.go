package events

import (
	"go.uber.org/fx"

	"tandem/core"
)

// Module provides the calendar-event use cases and contributes the service
// as a user-data owner and a shared-data one (the feed's deletes at an unpair). Storage is bound by the adapter modules; Partners,
// Users and the notifiers by bootstrap/wire_events.go, so this package never
// imports them.
var Module = fx.Module("events",
	fx.Provide(NewService, NewReminders),
	fx.Provide(fx.Annotate(func(s *Service) core.UserData { return s }, fx.ResultTags(`group:"userdata"`))),
	fx.Provide(fx.Annotate(func(s *Service) core.SharedData { return s }, fx.ResultTags(`group:"shared"`))),
)
