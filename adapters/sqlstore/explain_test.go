package sqlstore_test

import (
	"context"
	"database/sql"
	"strings"
	"sync"
	"testing"

	"tandem/adapters/sqlstore"
	"tandem/adapters/sqlstore/sqltest"
	"tandem/adapters/storetest"
	"tandem/core"
	"tandem/modules/accounts"
	"tandem/modules/admin"
	"tandem/modules/advice"
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
	"tandem/modules/premium"
	"tandem/modules/questions"
	"tandem/modules/relationship"
	"tandem/modules/throttle"
	"tandem/modules/versions"
)

// TestEveryQueryHasAnIndex runs every repository contract suite on each
// dialect and EXPLAINs each SELECT, UPDATE and DELETE they issue, on the live
// data: a full table scan with no usable index fails the test. On SQLite
// that is what EXPLAIN QUERY PLAN calls "SCAN <table>" without an index: a
// partial index the query's terms do not imply shows up here.
func TestEveryQueryHasAnIndex(t *testing.T) {
	for _, d := range sqltest.Dialects(t) {
		t.Run(string(d), func(t *testing.T) {
			var mu sync.Mutex
			checked := map[string]bool{}
			newDB := func(t *testing.T) *sqlstore.DB {
				db := sqltest.Open(t, d)
				sqlstore.SetObserver(db, func(q string, args []any) {
					verb := strings.ToUpper(strings.Fields(q)[0])
					if verb != "SELECT" && verb != "UPDATE" && verb != "DELETE" {
						return
					}
					mu.Lock()
					seen := checked[q]
					checked[q] = true
					mu.Unlock()
					if !seen {
						explain(t, db, q, args)
					}
				})
				return db
			}
			everyContractSuite(t, newDB)
			if len(checked) < 10 {
				t.Fatalf("only %d statements seen", len(checked))
			}
		})
	}
}

// everyContractSuite runs every repository contract suite on the databases
// newDB opens.
func everyContractSuite(t *testing.T, newDB func(t *testing.T) *sqlstore.DB) {
	storetest.ThrottleRepository(t, func(t *testing.T) throttle.Repository { return sqlstore.NewThrottleRepo(newDB(t)) })
	storetest.IdempotencyRepository(t, func(t *testing.T) idempotency.Repository { return sqlstore.NewIdempotencyRepo(newDB(t)) })
	storetest.AccountRepository(t, func(t *testing.T) accounts.Repository { return sqlstore.NewAccountRepo(newDB(t)) })
	storetest.MailOutbox(t, func(t *testing.T) storetest.AccountStore { return sqlstore.NewAccountRepo(newDB(t)) })
	storetest.PartnerRepository(t, func(t *testing.T) partners.Repository { return sqlstore.NewPartnerRepo(newDB(t)) })
	storetest.PremiumRepository(t, func(t *testing.T) premium.Repository { return sqlstore.NewPremiumRepo(newDB(t)) })
	storetest.RelationshipRepository(t, func(t *testing.T) relationship.Repository {
		return sqlstore.NewRelationshipRepo(newDB(t))
	})
	storetest.MilestoneRepository(t, func(t *testing.T) storetest.RelationshipStore {
		return sqlstore.NewRelationshipRepo(newDB(t))
	})
	storetest.EventRepository(t, func(t *testing.T) events.Repository { return sqlstore.NewEventRepo(newDB(t)) })
	storetest.NotificationRepository(t, func(t *testing.T) notifications.Repository {
		return sqlstore.NewNotificationRepo(newDB(t))
	})
	storetest.TicketRepository(t, func(t *testing.T) notifications.TicketRepository { return sqlstore.NewTicketRepo(newDB(t)) })
	storetest.DailyReminderRepository(t, func(t *testing.T) notifications.DailyReminderRepository {
		return sqlstore.NewDailyReminderRepo(newDB(t))
	})
	storetest.ImageRepository(t, func(t *testing.T) images.Repository { return sqlstore.NewImageRepo(newDB(t)) })
	storetest.MemoryRepository(t, func(t *testing.T) memories.Repository { return sqlstore.NewMemoryRepo(newDB(t)) })
	storetest.MessageRepository(t, func(t *testing.T) messages.Repository { return sqlstore.NewMessageRepo(newDB(t)) })
	storetest.QuestionRepository(t, func(t *testing.T) questions.Repository { return sqlstore.NewQuestionRepo(newDB(t)) })
	storetest.VersionRepository(t, func(t *testing.T) versions.Repository { return sqlstore.NewVersionRepo(newDB(t)) })
	storetest.FlagRepository(t, func(t *testing.T) flags.Repository { return sqlstore.NewFlagRepo(newDB(t)) })
	storetest.AdviceRepository(t, func(t *testing.T) advice.Repository { return sqlstore.NewAdviceRepo(newDB(t)) })
	storetest.FeedbackRepository(t, func(t *testing.T) feedback.Repository { return sqlstore.NewFeedbackRepo(newDB(t)) })
	storetest.MoodRepository(t, func(t *testing.T) moods.Repository { return sqlstore.NewMoodRepo(newDB(t)) })
	storetest.AuditLog(t, func(t *testing.T) admin.AuditLog { return sqlstore.NewAuditRepo(newDB(t)) })
	storetest.Stats(t, func(t *testing.T) storetest.StatsStores { return statsStores(newDB(t)) })
	t.Run("home read model", func(t *testing.T) {
		db := newDB(t)
		if err := sqlstore.NewHomeRepo(db).Prefetch(core.WithReadMemo(context.Background()), seedHome(t, db)); err != nil {
			t.Fatal(err)
		}
	})
}

func explain(t *testing.T, db *sqlstore.DB, q string, args []any) {
	if db.Dialect == sqlstore.SQLite {
		explainSQLite(t, db, q, args)
		return
	}
	// Without its lock: MariaDB reads a table it finds by a constant key
	// while it plans, and the FOR UPDATE would make that read wait for
	// the very transaction about to run q (the plan is the same).
	q = strings.Replace(q, " FOR UPDATE", "", 1)
	rows, err := db.Queryx("EXPLAIN "+q, args...)
	if err != nil {
		t.Errorf("EXPLAIN %s: %v", q, err)
		return
	}
	defer rows.Close()
	for rows.Next() {
		row := map[string]any{}
		if err := rows.MapScan(row); err != nil {
			t.Errorf("EXPLAIN %s: %v", q, err)
			return
		}
		typ, keys, extra := text(row["type"]), text(row["possible_keys"]), text(row["Extra"])
		if typ == "ALL" && keys == "" && !strings.Contains(extra, "Impossible") {
			t.Errorf("full scan of %s without a usable index: %s", text(row["table"]), q)
		}
	}
}

// explainSQLite fails on a plan step that scans a whole table: "SCAN t",
// with no index after it (SEARCH, and SCAN ... USING INDEX, read one).
func explainSQLite(t *testing.T, db *sqlstore.DB, q string, args []any) {
	rows, err := db.Queryx("EXPLAIN QUERY PLAN "+q, args...)
	if err != nil {
		t.Errorf("EXPLAIN QUERY PLAN %s: %v", q, err)
		return
	}
	defer rows.Close()
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Errorf("EXPLAIN QUERY PLAN %s: %v", q, err)
			return
		}
		if f := strings.Fields(detail); len(f) == 2 && f[0] == "SCAN" {
			t.Errorf("full scan of %s without a usable index: %s", f[1], q)
		}
	}
}

func text(v any) string {
	switch x := v.(type) {
	case []byte:
		return string(x)
	case string:
		return x
	case sql.NullString:
		return x.String
	}
	return ""
}
