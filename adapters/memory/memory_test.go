package memory_test

import (
	"testing"

	"tandem/adapters/memory"
	"tandem/adapters/storetest"
	"tandem/modules/accounts"
	"tandem/modules/admin"
	"tandem/modules/advice"
	"tandem/modules/changes"
	"tandem/modules/events"
	"tandem/modules/feedback"
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
	"tandem/modules/throttle"
	"tandem/modules/versions"
)

func TestThrottleRepository(t *testing.T) {
	storetest.ThrottleRepository(t, func(*testing.T) throttle.Repository { return memory.NewThrottleRepo() })
}

func TestIdempotencyRepository(t *testing.T) {
	storetest.IdempotencyRepository(t, func(*testing.T) idempotency.Repository { return memory.NewIdempotencyRepo() })
}

func TestAccountRepository(t *testing.T) {
	storetest.AccountRepository(t, func(*testing.T) accounts.Repository { return memory.NewAccountRepo() })
}

func TestPartnerRepository(t *testing.T) {
	storetest.PartnerRepository(t, func(*testing.T) partners.Repository { return memory.NewPartnerRepo() })
}

func TestPremiumRepository(t *testing.T) {
	storetest.PremiumRepository(t, func(*testing.T) premium.Repository { return memory.NewPremiumRepo() })
}

func TestRelationshipRepository(t *testing.T) {
	storetest.RelationshipRepository(t, func(*testing.T) relationship.Repository { return memory.NewRelationshipRepo() })
}

func TestMilestoneRepository(t *testing.T) {
	storetest.MilestoneRepository(t, func(*testing.T) storetest.RelationshipStore { return memory.NewRelationshipRepo() })
}

func TestNotificationRepository(t *testing.T) {
	storetest.NotificationRepository(t, func(*testing.T) notifications.Repository { return memory.NewNotificationRepo() })
}

func TestEventRepository(t *testing.T) {
	storetest.EventRepository(t, func(*testing.T) events.Repository { return memory.NewEventRepo() })
}

func TestImageRepository(t *testing.T) {
	storetest.ImageRepository(t, func(*testing.T) images.Repository { return memory.NewImageRepo() })
}

func TestMemoryRepository(t *testing.T) {
	storetest.MemoryRepository(t, func(*testing.T) memories.Repository { return memory.NewMemoryRepo() })
}

func TestMessageRepository(t *testing.T) {
	storetest.MessageRepository(t, func(*testing.T) messages.Repository { return memory.NewMessageRepo() })
}

func TestQuestionRepository(t *testing.T) {
	storetest.QuestionRepository(t, func(*testing.T) questions.Repository { return memory.NewQuestionRepo() })
}

func TestVersionRepository(t *testing.T) {
	storetest.VersionRepository(t, func(*testing.T) versions.Repository { return memory.NewVersionRepo() })
}

func TestFlagRepository(t *testing.T) {
	storetest.FlagRepository(t, func(*testing.T) flags.Repository { return memory.NewFlagRepo() })
}

func TestAdviceRepository(t *testing.T) {
	storetest.AdviceRepository(t, func(*testing.T) advice.Repository { return memory.NewAdviceRepo() })
}

func TestFeedbackRepository(t *testing.T) {
	storetest.FeedbackRepository(t, func(*testing.T) feedback.Repository { return memory.NewFeedbackRepo() })
}

func TestWaysIn(t *testing.T) {
	storetest.WaysIn(t, func(*testing.T) storetest.WaysInStores {
		p := memory.NewPasskeyRepo()
		return storetest.WaysInStores{Accounts: memory.NewAccountRepoWith(p), Passkeys: p}
	})
}

func TestPasskeyRepository(t *testing.T) {
	storetest.PasskeyRepository(t, func(*testing.T) passkeys.Repository { return memory.NewPasskeyRepo() })
}

func TestMoodRepository(t *testing.T) {
	storetest.MoodRepository(t, func(*testing.T) moods.Repository { return memory.NewMoodRepo() })
}

func TestTicketRepository(t *testing.T) {
	storetest.TicketRepository(t, func(*testing.T) notifications.TicketRepository { return memory.NewTicketRepo() })
}

func TestDailyReminderRepository(t *testing.T) {
	storetest.DailyReminderRepository(t, func(*testing.T) notifications.DailyReminderRepository { return memory.NewDailyReminderRepo() })
}

func TestProviderGrants(t *testing.T) {
	storetest.ProviderGrants(t, func(*testing.T) storetest.GrantStore { return memory.NewAccountRepo() })
}

func TestMailOutbox(t *testing.T) {
	storetest.MailOutbox(t, func(*testing.T) storetest.AccountStore { return memory.NewAccountRepo() })
}

func TestAuditLog(t *testing.T) {
	storetest.AuditLog(t, func(*testing.T) admin.AuditLog { return memory.NewAuditRepo() })
}

func TestStats(t *testing.T) {
	storetest.Stats(t, func(*testing.T) storetest.StatsStores {
		a, p, pr, i := memory.NewAccountRepo(), memory.NewPartnerRepo(), memory.NewPremiumRepo(), memory.NewImageRepo()
		return storetest.StatsStores{Accounts: a, Partners: p, Premium: pr, Images: i, Stats: memory.NewStatsRepo(a, p, pr, i)}
	})
}

func TestChangeRepository(t *testing.T) {
	storetest.ChangeRepository(t, func(_ *testing.T, rec changes.Recording) storetest.ChangeStore {
		p := memory.NewPartnerRepo()
		return storetest.ChangeStore{Repo: memory.NewChangeRepo(rec, p), Messages: memory.NewMessageRepo(), Partners: p}
	})
}
