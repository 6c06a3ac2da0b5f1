package tests

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"go.uber.org/fx"

	"tandem/adapters/sqlstore"
)

// BenchmarkAuthenticatedRequest measures one authenticated API request over
// loopback HTTP (GET profile: token check through the warm 5 s cache, then
// one account read), per profile.
func BenchmarkAuthenticatedRequest(b *testing.B) {
	benchScenario(b, func(h *harness) scenario {
		u := h.newUser("bench@x.io")
		return scenario{req: GET("/api/users/user/" + u.ID).by(u), status: 200}
	})
}

// homeCouples is how many couples share the database in BenchmarkHome.
const homeCouples = 10_000

// BenchmarkHome measures the home screen of a couple with a full day
// (relationship, today's question answered by the partner, events, messages,
// premium) among homeCouples couples, on the SQL profiles: the median
// request time and the statements each call runs (p50-ms, stmts/op). The
// other couples are accounts and partnerships written straight into the
// tables: signing up 20,000 accounts through argon2id would take minutes.
func BenchmarkHome(b *testing.B) { benchHome(b, 0) }

// BenchmarkHomeYearAhead is BenchmarkHome for a couple whose year ahead is
// full: 300 events each, one a day. The next event reads one event per
// partner: the time and the statements are BenchmarkHome's.
func BenchmarkHomeYearAhead(b *testing.B) { benchHome(b, 300) }

// benchHome measures the home call of BenchmarkHome; each partner also has
// an event on each of the ahead days after the dinner's.
func benchHome(b *testing.B, ahead int) {
	for _, p := range profiles(b) {
		if p.sql == "" {
			continue
		}
		b.Run(p.name, func(b *testing.B) {
			var db *sqlstore.DB
			h := newHarness(b, p, withFx(fx.Populate(&db)), withUnboundedWrites()) // 300 events a partner at one instant
			seedCouples(b, db, homeCouples)
			a, c := h.newUser("home-a@x.io"), h.newUser("home-b@x.io")
			h.pair(a, c)
			expect(b, h.post(relationshipPath(a), a.Token, map[string]any{"action": "start", "date": "2025-01-01"}), 200, "")
			expect(b, h.post(dqPath(c), c.Token, map[string]any{"action": "answer", "text": "Paris"}), 200, "")
			day := h.Clock.Now().AddDate(0, 0, 2).Format("2006-01-02")
			h.createEvent(c, map[string]any{"title": "Dinner", "startDate": day, "endDate": day})
			for i := range ahead {
				later := h.Clock.Now().AddDate(0, 0, 3+i).Format("2006-01-02")
				h.createEvent(a, map[string]any{"title": "Mine", "startDate": later})
				h.createEvent(c, map[string]any{"title": "Theirs", "startDate": later})
			}
			h.sendMessage(c, "see you tonight")
			expect(b, h.post(premiumPath(c), c.Token, map[string]any{"action": "create", "plan": "9.99",
				"startDate": h.Clock.Now().UnixMilli(), "endDate": h.Clock.Now().AddDate(0, 1, 0).UnixMilli()}), 200, "")
			home := req{Method: "GET", Path: homePath(a), Token: a.Token}
			expect(b, h.do(home), 200, "")

			var took []time.Duration
			before := db.Statements()
			b.ReportAllocs()
			for b.Loop() {
				start := time.Now()
				if r := h.do(home); r.Status != 200 {
					b.Fatalf("status %d", r.Status)
				}
				took = append(took, time.Since(start))
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(db.Statements()-before)/float64(len(took)), "stmts/op")
		})
	}
}

// seedCouples writes n paired couples straight into the tables, in one
// transaction.
func seedCouples(b *testing.B, db *sqlstore.DB, n int) {
	b.Helper()
	tx, err := db.Beginx()
	if err != nil {
		b.Fatal(err)
	}
	defer tx.Rollback()
	acct := tx.Rebind(`INSERT INTO accounts (id, email, password_hash, verified, created_at, updated_at) VALUES (?, ?, 'x', 1, 0, 0)`)
	pship := tx.Rebind(`INSERT INTO partnerships (id, user_a, user_b, created_at) VALUES (?, ?, ?, 0)`)
	member := tx.Rebind(`INSERT INTO partnership_members (user_id, partnership_id, partner_id) VALUES (?, ?, ?)`)
	for i := range n {
		x, y, pid := fmt.Sprintf("seed-a-%d", i), fmt.Sprintf("seed-b-%d", i), fmt.Sprintf("seed-p-%d", i)
		for _, s := range []struct {
			q    string
			args []any
		}{
			{acct, []any{x, x + "@seed.io"}}, {acct, []any{y, y + "@seed.io"}},
			{pship, []any{pid, x, y}}, {member, []any{x, pid, y}}, {member, []any{y, pid, x}},
		} {
			if _, err := tx.Exec(s.q, s.args...); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}

// The calendar's three hot operations over loopback HTTP, per profile, for
// a user with 500 events (bench/ measures the same with wrk from outside).
const benchEvents = 500

func seedEvents(h *harness, u user) []string {
	ids := make([]string, benchEvents)
	first := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range ids {
		day := first.AddDate(0, 0, i).Format("2006-01-02")
		ids[i] = h.createEvent(u, map[string]any{"title": fmt.Sprintf("Event %d", i), "startDate": day, "endDate": day,
			"eventType": "date", "importanceLevel": "Medium"})["id"].(string)
	}
	return ids
}

func BenchmarkEventGet(b *testing.B) {
	benchScenario(b, func(h *harness) scenario {
		u := h.newUser("bench@x.io")
		ids := seedEvents(h, u)
		return scenario{req: GET(eventPath(u, ids[benchEvents/2])).by(u), status: 200}
	})
}

func BenchmarkEventList20(b *testing.B) {
	benchScenario(b, func(h *harness) scenario {
		u := h.newUser("bench@x.io")
		seedEvents(h, u)
		return scenario{req: GET(eventsPath(u) + "?limit=20").by(u), status: 200}
	})
}

func BenchmarkEventCreate(b *testing.B) {
	benchScenario(b, func(h *harness) scenario {
		u := h.newUser("bench@x.io")
		return scenario{req: POST(eventsPath(u), map[string]any{"action": "create", "title": "Dinner",
			"description": "At the usual place", "startDate": "2026-02-14", "endDate": "2026-02-14", "startTime": "19:30",
			"endTime": "21:00", "location": "Home", "eventType": "date", "importanceLevel": "Medium"}).by(u), status: 200}
	})
}
