package bootstrap

import (
	"context"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"tandem/core"
	"tandem/modules/accounts"
	"tandem/modules/advice"
	"tandem/modules/events"
	"tandem/modules/flags"
	"tandem/modules/idempotency"
	"tandem/modules/images"
	"tandem/modules/memories"
	"tandem/modules/messages"
	"tandem/modules/moods"
	"tandem/modules/notifications"
	"tandem/modules/partners"
	"tandem/modules/passkeys"
	"tandem/modules/premium"
	"tandem/modules/questions"
	"tandem/modules/relationship"
)

// connect joins what modules contribute through value groups once the graph
// is built: event listeners to the bus, user-data owners to account deletion
// and export. Doing it here, not in constructors, keeps the graph acyclic
// (a module may both publish events and listen to them).
var connect = fx.Invoke(fx.Annotate(
	func(bus *core.Bus, listeners []core.Listener, acc *accounts.Service, owners []core.UserData, keys *passkeys.Service, n *Notifier) {
		bus.Subscribe(listeners...)
		acc.AddDataOwners(owners...)
		acc.UsePasskeys(keys) // passkeys are sign-in methods too (the profile, unlinking the last provider)
		acc.UseNotifier(n)    // a way in added is shown in a notification
	},
	fx.ParamTags(``, `group:"listeners"`, ``, `group:"userdata"`, ``, ``),
))

// ports binds the small interfaces a module declares in its ports.go to the
// services of other modules that implement them, and the modules' settings.
var ports = fx.Provide(
	func(p *partners.Service) premium.Partners { return p },
	func(p *partners.Service) relationship.Partnerships { return p },
	func(a *accounts.Service) relationship.Users { return a },
	func(n *Notifier) relationship.Notifier { return n },
	func(n *Notifier) relationship.MilestoneNotifier { return n },
	func(p *partners.Service) events.Partners { return p },
	func(a *accounts.Service) events.Users { return a },
	func(n *Notifier) events.Notifier { return n },
	func(n *Notifier) events.PartnerNotifier { return n },
	func(c Config) premium.Policy { return c.Premium },
	func(p *premium.Service) flags.Premium { return premiumStatus{p} },
	func(p *partners.Service) memories.Partners { return p },
	func(n *Notifier) memories.Notifier { return n },
	func(p *premium.Service) memories.Limits { return premiumLimits{p} },
	func(p *premium.Service) images.Limits { return premiumLimits{p} },
	func(c Config) memories.Settings {
		return memories.Settings{PublicURL: c.HTTP.PublicURL, Budget: c.WriteBudgets.Memories}
	},
	func(c Config) messages.Settings { return messages.Settings{Budget: c.WriteBudgets.Messages} },
	func(c Config) events.Settings { return events.Settings{Budget: c.WriteBudgets.Events} },
	func(c Config) moods.Settings { return moods.Settings{Budget: c.WriteBudgets.Moods} },
	func(p *partners.Service) messages.Partnerships { return p },
	func(n *Notifier) messages.Notifier { return n },
	func(p *partners.Service) questions.Partnerships { return p },
	func(a *accounts.Service) questions.Users { return a },
	func(n *Notifier) questions.Notifier { return n },
	func(a *accounts.Service) advice.Users { return a },
	func(a *accounts.Service) moods.Users { return a },
	func(p *partners.Service) moods.Partnerships { return p },
	func(n *Notifier) moods.Notifier { return n },
	func(a *accounts.Service) passkeys.Accounts { return passkeyAccounts{a} },
	func(a *accounts.Service) notifications.Users { return a },
	func(q *questions.Service) notifications.DailyQuestions { return q },
	func(c Config) notifications.ReceiptSettings {
		return notifications.ReceiptSettings{Delay: c.PushReceiptDelay}
	},
	func(n *Notifier) partners.Notifier { return n },
	func(c Config) partners.Settings {
		return partners.Settings{FailsPerUser: c.PairingFailsUser, FailsPerIP: c.PairingFailsIP,
			ConnectionCodeTTL: c.ConnectionCodeTTL}
	},
	func(c Config) idempotency.Settings {
		// A running key is renewed by its request every third of the
		// lease: one whose request is gone (a dead process, a claim that
		// met a hung database) frees its key within the lease.
		return idempotency.Settings{Lease: idempotency.DefaultLease, Budget: c.WriteBudgets.IdempotencyKeys}
	},
	func(c Config) images.Settings {
		return images.Settings{PublicURL: c.HTTP.PublicURL, MaxFileBytes: int64(c.UploadLimit), SweepGrace: c.SweepGrace}
	},
)

// Notifier is what the modules that trigger notifications (events reminders,
// memories, questions...) declare in their ports.go: bind each with
// `func(n *Notifier) <module>.Notifier { return n }`. A failed push or save
// is logged here and never fails the action that triggered it.
type Notifier struct {
	svc *notifications.Service
	log *zap.Logger
}

func newNotifier(svc *notifications.Service, log *zap.Logger) *Notifier {
	return &Notifier{svc: svc, log: log}
}

func (n *Notifier) Notify(ctx context.Context, userID, category string, text core.Message) error {
	if _, err := n.svc.Tell(ctx, userID, category, text); err != nil {
		n.log.Warn("notification failed", zap.String("user_id", userID), zap.String("category", category), zap.Error(err))
	}
	return nil
}

// NotifyActivity tells userID of their partner's activity, coalesced by the
// notifications module; like Notify, a failure is logged, never returned.
func (n *Notifier) NotifyActivity(ctx context.Context, userID, fromUserID, kind string) error {
	a := notifications.Activity{UserID: userID, From: fromUserID, Kind: notifications.ActivityKind(kind)}
	if _, err := n.svc.NotifyActivity(ctx, a); err != nil {
		n.log.Warn("notification failed", zap.String("user_id", userID), zap.String("activity", kind), zap.Error(err))
	}
	return nil
}

var notifier = fx.Provide(newNotifier, func(log *zap.Logger) accounts.Reporter { return afterCommitLog{log} })

// afterCommitLog logs what failed after an account change committed (a
// notice mail not queued): the change stands, an operator should know.
type afterCommitLog struct{ log *zap.Logger }

func (a afterCommitLog) AfterCommitFailed(_ context.Context, what string, err error) {
	a.log.Warn("accounts: "+what+" failed after the commit", zap.Error(err))
}
