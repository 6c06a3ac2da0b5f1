package sqlstore_test

import (
	"context"
	"testing"

	"tandem/adapters/sqlstore"
	"tandem/adapters/sqlstore/sqltest"
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

// eachDialect runs fn on every dialect under test, beside the other tests
// that use it: newDB gives each caller a migrated database of its own,
// whose repositories' statements are EXPLAINed (explained).
func eachDialect(t *testing.T, fn func(t *testing.T, newDB func(t *testing.T) *sqlstore.DB)) {
	t.Parallel()
	for _, d := range sqltest.Dialects(t) {
		t.Run(string(d), func(t *testing.T) {
			t.Parallel()
			fn(t, func(t *testing.T) *sqlstore.DB { return explained(t, sqltest.Open(t, d)) })
		})
	}
}

func TestThrottleRepository(t *testing.T) {
	eachDialect(t, func(t *testing.T, newDB func(*testing.T) *sqlstore.DB) {
		storetest.ThrottleRepository(t, func(t *testing.T) throttle.Repository {
			return sqlstore.NewThrottleRepo(newDB(t))
		})
	})
}

func TestIdempotencyRepository(t *testing.T) {
	eachDialect(t, func(t *testing.T, newDB func(*testing.T) *sqlstore.DB) {
		storetest.IdempotencyRepository(t, func(t *testing.T) idempotency.Repository {
			return sqlstore.NewIdempotencyRepo(newDB(t))
		})
	})
}

func TestMigrationsGoDownAndUpAgain(t *testing.T) {
	eachDialect(t, func(t *testing.T, newDB func(*testing.T) *sqlstore.DB) {
		db := newDB(t)
		ctx := context.Background()
		if err := sqlstore.MigrateDownAll(ctx, db); err != nil {
			t.Fatal(err)
		}
		if err := sqlstore.Migrate(ctx, db, nil); err != nil {
			t.Fatal(err)
		}
	})
}

func TestAccountRepository(t *testing.T) {
	eachDialect(t, func(t *testing.T, newDB func(*testing.T) *sqlstore.DB) {
		storetest.AccountRepository(t, func(t *testing.T) accounts.Repository {
			return sqlstore.NewAccountRepo(newDB(t))
		})
	})
}

func TestMailOutbox(t *testing.T) {
	eachDialect(t, func(t *testing.T, newDB func(*testing.T) *sqlstore.DB) {
		storetest.MailOutbox(t, func(t *testing.T) storetest.AccountStore {
			return sqlstore.NewAccountRepo(newDB(t))
		})
	})
}

func TestProviderGrants(t *testing.T) {
	eachDialect(t, func(t *testing.T, newDB func(*testing.T) *sqlstore.DB) {
		storetest.ProviderGrants(t, func(t *testing.T) storetest.GrantStore {
			return sqlstore.NewAccountRepo(newDB(t))
		})
	})
}

func TestPartnerRepository(t *testing.T) {
	eachDialect(t, func(t *testing.T, newDB func(*testing.T) *sqlstore.DB) {
		storetest.PartnerRepository(t, func(t *testing.T) partners.Repository {
			return sqlstore.NewPartnerRepo(newDB(t))
		})
	})
}

func TestPremiumRepository(t *testing.T) {
	eachDialect(t, func(t *testing.T, newDB func(*testing.T) *sqlstore.DB) {
		storetest.PremiumRepository(t, func(t *testing.T) premium.Repository {
			return sqlstore.NewPremiumRepo(newDB(t))
		})
	})
}

func TestRelationshipRepository(t *testing.T) {
	eachDialect(t, func(t *testing.T, newDB func(*testing.T) *sqlstore.DB) {
		storetest.RelationshipRepository(t, func(t *testing.T) relationship.Repository {
			return sqlstore.NewRelationshipRepo(newDB(t))
		})
	})
}

func TestMilestoneRepository(t *testing.T) {
	eachDialect(t, func(t *testing.T, newDB func(*testing.T) *sqlstore.DB) {
		storetest.MilestoneRepository(t, func(t *testing.T) storetest.RelationshipStore {
			return sqlstore.NewRelationshipRepo(newDB(t))
		})
	})
}

func TestNotificationRepository(t *testing.T) {
	eachDialect(t, func(t *testing.T, newDB func(*testing.T) *sqlstore.DB) {
		storetest.NotificationRepository(t, func(t *testing.T) notifications.Repository {
			return sqlstore.NewNotificationRepo(newDB(t))
		})
	})
}

func TestEventRepository(t *testing.T) {
	eachDialect(t, func(t *testing.T, newDB func(*testing.T) *sqlstore.DB) {
		storetest.EventRepository(t, func(t *testing.T) events.Repository { return sqlstore.NewEventRepo(newDB(t)) })
	})
}

func TestImageRepository(t *testing.T) {
	eachDialect(t, func(t *testing.T, newDB func(*testing.T) *sqlstore.DB) {
		storetest.ImageRepository(t, func(t *testing.T) images.Repository { return sqlstore.NewImageRepo(newDB(t)) })
	})
}

func TestMemoryRepository(t *testing.T) {
	eachDialect(t, func(t *testing.T, newDB func(*testing.T) *sqlstore.DB) {
		storetest.MemoryRepository(t, func(t *testing.T) memories.Repository { return sqlstore.NewMemoryRepo(newDB(t)) })
	})
}

func TestMessageRepository(t *testing.T) {
	eachDialect(t, func(t *testing.T, newDB func(*testing.T) *sqlstore.DB) {
		storetest.MessageRepository(t, func(t *testing.T) messages.Repository { return sqlstore.NewMessageRepo(newDB(t)) })
	})
}

func TestQuestionRepository(t *testing.T) {
	eachDialect(t, func(t *testing.T, newDB func(*testing.T) *sqlstore.DB) {
		storetest.QuestionRepository(t, func(t *testing.T) questions.Repository { return sqlstore.NewQuestionRepo(newDB(t)) })
	})
}

func TestVersionRepository(t *testing.T) {
	eachDialect(t, func(t *testing.T, newDB func(*testing.T) *sqlstore.DB) {
		storetest.VersionRepository(t, func(t *testing.T) versions.Repository { return sqlstore.NewVersionRepo(newDB(t)) })
	})
}

func TestFlagRepository(t *testing.T) {
	eachDialect(t, func(t *testing.T, newDB func(*testing.T) *sqlstore.DB) {
		storetest.FlagRepository(t, func(t *testing.T) flags.Repository { return sqlstore.NewFlagRepo(newDB(t)) })
	})
}

func TestAdviceRepository(t *testing.T) {
	eachDialect(t, func(t *testing.T, newDB func(*testing.T) *sqlstore.DB) {
		storetest.AdviceRepository(t, func(t *testing.T) advice.Repository { return sqlstore.NewAdviceRepo(newDB(t)) })
	})
}

func TestFeedbackRepository(t *testing.T) {
	eachDialect(t, func(t *testing.T, newDB func(*testing.T) *sqlstore.DB) {
		storetest.FeedbackRepository(t, func(t *testing.T) feedback.Repository { return sqlstore.NewFeedbackRepo(newDB(t)) })
	})
}

func TestWaysIn(t *testing.T) {
	eachDialect(t, func(t *testing.T, newDB func(t *testing.T) *sqlstore.DB) {
		storetest.WaysIn(t, func(t *testing.T) storetest.WaysInStores {
			db := newDB(t)
			return storetest.WaysInStores{Accounts: sqlstore.NewAccountRepo(db), Passkeys: sqlstore.NewPasskeyRepo(db)}
		})
	})
}

func TestPasskeyRepository(t *testing.T) {
	eachDialect(t, func(t *testing.T, newDB func(t *testing.T) *sqlstore.DB) {
		storetest.PasskeyRepository(t, func(t *testing.T) passkeys.Repository { return sqlstore.NewPasskeyRepo(newDB(t)) })
	})
}

func TestMoodRepository(t *testing.T) {
	eachDialect(t, func(t *testing.T, newDB func(*testing.T) *sqlstore.DB) {
		storetest.MoodRepository(t, func(t *testing.T) moods.Repository { return sqlstore.NewMoodRepo(newDB(t)) })
	})
}

func TestTicketRepository(t *testing.T) {
	eachDialect(t, func(t *testing.T, newDB func(*testing.T) *sqlstore.DB) {
		storetest.TicketRepository(t, func(t *testing.T) notifications.TicketRepository { return sqlstore.NewTicketRepo(newDB(t)) })
	})
}

func TestDailyReminderRepository(t *testing.T) {
	eachDialect(t, func(t *testing.T, newDB func(*testing.T) *sqlstore.DB) {
		storetest.DailyReminderRepository(t, func(t *testing.T) notifications.DailyReminderRepository {
			return sqlstore.NewDailyReminderRepo(newDB(t))
		})
	})
}

func TestAuditLog(t *testing.T) {
	eachDialect(t, func(t *testing.T, newDB func(*testing.T) *sqlstore.DB) {
		storetest.AuditLog(t, func(t *testing.T) admin.AuditLog { return sqlstore.NewAuditRepo(newDB(t)) })
	})
}

func TestStats(t *testing.T) {
	eachDialect(t, func(t *testing.T, newDB func(*testing.T) *sqlstore.DB) {
		storetest.Stats(t, func(t *testing.T) storetest.StatsStores { return statsStores(newDB(t)) })
	})
}

// statsStores are the repositories of one database.
func statsStores(db *sqlstore.DB) storetest.StatsStores {
	return storetest.StatsStores{Accounts: sqlstore.NewAccountRepo(db), Partners: sqlstore.NewPartnerRepo(db),
		Premium: sqlstore.NewPremiumRepo(db), Images: sqlstore.NewImageRepo(db), Stats: sqlstore.NewStatsRepo(db)}
}

func TestChangeRepository(t *testing.T) {
	eachDialect(t, func(t *testing.T, newDB func(*testing.T) *sqlstore.DB) {
		storetest.ChangeRepository(t, func(t *testing.T, rec changes.Recording) storetest.ChangeStore {
			db := newDB(t)
			db.RecordChangesWith(rec)
			return storetest.ChangeStore{Repo: sqlstore.NewChangeRepo(db), Messages: sqlstore.NewMessageRepo(db),
				Partners: sqlstore.NewPartnerRepo(db)}
		})
	})
}
