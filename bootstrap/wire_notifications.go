package bootstrap

import (
	"go.uber.org/fx"

	"tandem/adapters/httpapi"
	"tandem/adapters/memory"
	"tandem/adapters/sqlstore"
	"tandem/adapters/web"
	"tandem/modules/accounts"
	"tandem/modules/notifications"
	"tandem/modules/questions"
)

// wireNotifications: the notifications, their stores (notifications,
// push tickets, daily reminders), ports, settings and routes. The push
// vendor (Pusher, ReceiptReader, ReceiptLog) is chosen by pusher
// (push.go, TANDEM_PUSH); the Notifier the other modules tell is
// notifier.go.
func wireNotifications(db DBKind) fx.Option {
	return fx.Options(
		notifications.Module,
		repos(db, memory.NewNotificationRepo, sqlstore.NewNotificationRepo, new(notifications.Repository)),
		repos(db, memory.NewTicketRepo, sqlstore.NewTicketRepo, new(notifications.TicketRepository)),
		repos(db, memory.NewDailyReminderRepo, sqlstore.NewDailyReminderRepo, new(notifications.DailyReminderRepository)),
		fx.Provide(
			func(a *accounts.Service) notifications.Users { return a },
			func(q *questions.Service) notifications.DailyQuestions { return q },
			func(c Config) notifications.ReceiptSettings {
				return notifications.ReceiptSettings{Delay: c.PushReceiptDelay}
			},
			// The module's other ports bound here, one line each.
			web.AsRoute(httpapi.NewNotificationsHandler),
		),
	)
}
