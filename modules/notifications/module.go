package notifications

import (
	"go.uber.org/fx"

	"tandem/core"
)

// Module provides the notification use cases, the receipt and daily
// reminder jobs, its listener (partnership started and ended, timezone
// changed, account deleted) and its user-data owner. The repositories are
// bound by the storage adapters; the Pusher, ReceiptReader and ReceiptLog
// by bootstrap from TANDEM_PUSH; Users, DailyQuestions and ReceiptSettings
// by bootstrap/wire_notifications.go.
var Module = fx.Module("notifications",
	fx.Provide(NewService, NewReceipts, NewReminders),
	fx.Provide(
		fx.Annotate(func(s *Service) core.Listener { return s.Listener() }, fx.ResultTags(`group:"listeners"`)),
		fx.Annotate(func(s *Service) core.UserData { return s }, fx.ResultTags(`group:"userdata"`)),
	),
)
