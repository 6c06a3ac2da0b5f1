package tests

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/fx"

	"tandem/adapters/push/mempush"
	"tandem/modules/relationship"
)

// Relationship milestones end to end: the list, and the job that tells
// both partners on a milestone's morning.

func milestonesPath(u user, query string) string {
	return "/api/user/" + u.ID + "/relationship/milestones" + query
}

// milestone is one milestone as listed.
func milestone(date string, days int, label, kind string) string {
	return fmt.Sprintf(`{"date":%q,"days":%d,"label":%q,"kind":%q}`, date, days, label, kind)
}

func milestonesJSON(items ...string) string {
	return `{"success":true,"milestones":[` + strings.Join(items, ",") + `]}`
}

func TestRelationshipMilestones(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) { // the clock stands at 2025-06-15 12:00 UTC
		a, b := h.newUser("a@x.io"), h.newUser("b@x.io")
		h.pair(a, b)
		expect(t, h.post(relationshipPath(b), b.Token, map[string]any{"action": "start", "date": "2025-03-07"}), 200, "")

		// today is day 100; 2026-03-07 is both day 365 and the first anniversary
		first := []string{
			milestone("2025-06-15", 100, "100 days", "days"),
			milestone("2025-09-23", 200, "200 days", "days"),
			milestone("2026-03-07", 365, "1 year", "anniversary"),
			milestone("2026-03-07", 365, "365 days", "days"),
			milestone("2026-07-20", 500, "500 days", "days"),
			milestone("2027-03-07", 730, "2 years", "anniversary"),
			milestone("2027-12-02", 1000, "1,000 days", "days"),
		}
		runScenarios(t, h, []scenario{
			{name: "five by default", req: GET(milestonesPath(a, "")).by(a), status: 200, want: milestonesJSON(first[:5]...)},
			{name: "the partner reads the same", req: GET(milestonesPath(b, "")).by(b), status: 200, want: milestonesJSON(first[:5]...)},
			{name: "limit 1", req: GET(milestonesPath(a, "?limit=1")).by(a), status: 200, want: milestonesJSON(first[0])},
			{name: "limit 7", req: GET(milestonesPath(a, "?limit=7")).by(a), status: 200, want: milestonesJSON(first...)},
			{name: "limit 50", req: GET(milestonesPath(a, "?limit=50")).by(a), status: 200,
				after: func(t *testing.T, h *harness) {
					list := h.get(milestonesPath(a, "?limit=50"), a.Token).JSON(t)["milestones"].([]any)
					last := list[len(list)-1].(map[string]any)
					if len(list) != 50 || last["date"] != "2059-03-07" || last["label"] != "34 years" {
						t.Fatalf("%d milestones, the last %v", len(list), last)
					}
				}},
		})

		// one instant, two todays: it is already June 16 in Kiritimati, and
		// day 100 is yesterday there
		setTimezone(t, h, a, "Pacific/Kiritimati")
		expect(t, h.get(milestonesPath(a, "?limit=2"), a.Token), 200, milestonesJSON(first[1], first[2]))
		expect(t, h.get(milestonesPath(b, "?limit=2"), b.Token), 200, milestonesJSON(first[0], first[1]))
	})
}

func TestRelationshipMilestonesErrors(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		a, b, c, d, single := h.newUser("a@x.io"), h.newUser("b@x.io"), h.newUser("c@x.io"), h.newUser("d@x.io"), h.newUser("e@x.io")
		h.pair(a, b)
		h.pair(c, d)
		expect(t, h.post(relationshipPath(a), a.Token, map[string]any{"action": "start", "date": "2025-03-07"}), 200, "")
		expect(t, h.post(relationshipPath(c), c.Token, map[string]any{"action": "start", "date": "2025-01-01"}), 200, "")
		expect(t, h.post(relationshipPath(c), c.Token, map[string]any{"action": "end"}), 200, "")
		badLimit := errInvalid("limit must be a whole number from 1 to 50")
		noActive := errBody("not_found", "no active relationship")
		unchanged := func(t *testing.T, h *harness) {
			expect(t, h.get(milestonesPath(a, "?limit=1"), a.Token), 200, milestonesJSON(milestone("2025-06-15", 100, "100 days", "days")))
		}
		runScenarios(t, h, afterEach(unchanged, signedIn(a, []scenario{
			{name: "limit 0", req: GET(milestonesPath(a, "?limit=0")), status: 400, want: badLimit},
			{name: "limit 51", req: GET(milestonesPath(a, "?limit=51")), status: 400, want: badLimit},
			{name: "negative limit", req: GET(milestonesPath(a, "?limit=-1")), status: 400, want: badLimit},
			{name: "a word", req: GET(milestonesPath(a, "?limit=five")), status: 400, want: badLimit},
			{name: "a fraction", req: GET(milestonesPath(a, "?limit=2.5")), status: 400, want: badLimit},
			{name: "a huge number", req: GET(milestonesPath(a, "?limit=99999999999999999999")), status: 400, want: badLimit},
			{name: "another user's path", req: GET(milestonesPath(b, "")), status: 403, want: errNotYours},
			{name: "another user's path with a bad limit", req: GET(milestonesPath(b, "?limit=0")), status: 403, want: errNotYours},
			{name: "no token", req: GET(milestonesPath(a, "")).anonymous(), status: 401, want: errNoToken},
			{name: "unpaired", req: GET(milestonesPath(single, "")).by(single), status: 409,
				want: errBody("not_paired", "you need a partner for this")},
			{name: "ended: no active relationship", req: GET(milestonesPath(d, "")).by(d), status: 404, want: noActive},
		})))

		// paired, nothing started yet: the relationship GET's 404
		e, f := h.newUser("f@x.io"), h.newUser("g@x.io")
		h.pair(e, f)
		expect(t, h.get(milestonesPath(e, ""), e.Token), 404, noActive)
		expect(t, h.get(relationshipPath(e), e.Token), 404, errBody("not_found", "no relationship"))
	})
}

// milestoneApp is what the milestone push tests take from the app.
type milestoneApp struct {
	fx.In
	Job    *relationship.MilestonePushes
	Pushes *mempush.Outbox
}

// milestonePushes are the milestone pushes to u.
func milestonePushes(pushes *mempush.Outbox, u user) []mempush.Push {
	var out []mempush.Push
	for _, p := range pushes.To(u.ID) {
		if strings.HasSuffix(p.Message.Title, " together today") {
			out = append(out, p)
		}
	}
	return out
}

// milestonesInInbox lists the milestone notifications in u's inbox.
func (h *harness) milestonesInInbox(t *testing.T, u user) []any {
	t.Helper()
	var out []any
	for _, x := range h.get(notifPath(u, "/notifications"), u.Token).JSON(t)["notifications"].([]any) {
		if strings.HasSuffix(x.(map[string]any)["title"].(string), " together today") {
			out = append(out, x)
		}
	}
	return out
}

// TestMilestonePushOnTheMorning: a in Berlin, b in New York, day 100 on
// 2025-06-16: each is told at 09:00 their time, once; b, with
// partnerActivity off, finds it in the inbox unpushed.
func TestMilestonePushOnTheMorning(t *testing.T) {
	eachProfileWith(t, func(t *testing.T, h *harness, app milestoneApp) {
		ctx := context.Background()
		a, b := h.newUser("a@x.io"), h.newUser("b@x.io")
		h.pair(a, b)
		setTimezone(t, h, a, "Europe/Berlin")
		setTimezone(t, h, b, "America/New_York")
		h.registerDevice(a, "ExponentPushToken[a]", "ios", "expo")
		h.registerDevice(b, "ExponentPushToken[b]", "android", "expo")
		expect(t, h.do(PATCH(notifPath(b, "/notification-settings"), map[string]any{"partnerActivity": false}).by(b)), 200, "")
		expect(t, h.post(relationshipPath(a), a.Token, map[string]any{"action": "start", "date": "2025-03-08"}), 200, "")

		run := func(at time.Time) int {
			t.Helper()
			h.Clock.Set(at)
			n, err := app.Job.SendDue(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		run(time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC)) // day 99
		if n := run(time.Date(2025, 6, 16, 6, 59, 0, 0, time.UTC)); n != 0 {
			t.Fatalf("told before 09:00 in Berlin: %d", n)
		}
		if n := run(time.Date(2025, 6, 16, 7, 0, 0, 0, time.UTC)); n != 1 { // 09:00 in Berlin
			t.Fatalf("09:00 in Berlin: %d told", n)
		}
		got := milestonePushes(app.Pushes, a)
		if len(got) != 1 || got[0].Message.Title != "100 days together today" ||
			got[0].Message.Body != "Day 100 since you got together on 8 March 2025." || got[0].Message.Category != "partnerActivity" {
			t.Fatalf("pushes to a %+v", got)
		}
		if n := run(time.Date(2025, 6, 16, 12, 59, 0, 0, time.UTC)); n != 0 || len(h.milestonesInInbox(t, b)) != 0 {
			t.Fatalf("b told before 09:00 in New York: %d", n)
		}
		if n := run(time.Date(2025, 6, 16, 13, 0, 0, 0, time.UTC)); n != 1 { // 09:00 in New York
			t.Fatalf("09:00 in New York: %d told", n)
		}
		for _, at := range []time.Time{time.Date(2025, 6, 16, 18, 0, 0, 0, time.UTC), time.Date(2025, 6, 17, 13, 0, 0, 0, time.UTC)} {
			if n := run(at); n != 0 {
				t.Fatalf("again at %s: %d", at, n)
			}
		}
		if len(milestonePushes(app.Pushes, a)) != 1 || len(milestonePushes(app.Pushes, b)) != 0 {
			t.Fatal("a pushed once, b (partnerActivity off) never")
		}
		expect(t, h.get(notifPath(a, "/notifications?limit=1"), a.Token), 200, `{"success":true,"notifications":[`+
			notificationJSON("<string>", "100 days together today", "Day 100 since you got together on 8 March 2025.",
				"partnerActivity", false, time.Date(2025, 6, 16, 7, 0, 0, 0, time.UTC))+`]}`)
		if len(h.milestonesInInbox(t, a)) != 1 || len(h.milestonesInInbox(t, b)) != 1 {
			t.Fatal("each has it once in the inbox")
		}

		// ended: the 200th day passes unannounced
		expect(t, h.post(relationshipPath(b), b.Token, map[string]any{"action": "end"}), 200, "")
		if n := run(time.Date(2025, 9, 24, 18, 0, 0, 0, time.UTC)); n != 0 {
			t.Fatalf("told of an ended relationship: %d", n)
		}
	}, withEnv("TANDEM_REMINDER_INTERVAL", "24h")) // only the test runs the job
}

// TestMilestonePushOnceAcrossThreeInstances: three app instances on one
// database (a SQLite file; MySQL when TANDEM_TEST_MYSQL_DSN is set) run the
// job at the same moment on the day of twelve couples' 100th day; each
// partner is told once.
func TestMilestonePushOnceAcrossThreeInstances(t *testing.T) {
	eachSharedProfile(t, func(t *testing.T, p profile) {
		quiet := withEnv("TANDEM_REMINDER_INTERVAL", "24h") // only the test runs the job
		apps := make([]milestoneApp, 3)
		first := newHarness(t, p, quiet, withFx(fx.Populate(&apps[0])))
		hs := []*harness{first,
			newHarness(t, p, quiet, sharingDB(first), withFx(fx.Populate(&apps[1]))),
			newHarness(t, p, quiet, sharingDB(first), withFx(fx.Populate(&apps[2])))}
		var users []user // enough that the three jobs overlap
		for i := range 24 {
			u := hs[i%3].newUser(fmt.Sprintf("u%d@x.io", i)) // each instance serves some
			hs[i%3].registerDevice(u, fmt.Sprintf("ExponentPushToken[u%d]", i), "android", "expo")
			users = append(users, u)
		}
		for i := 0; i < len(users); i += 2 {
			hs[i%3].pair(users[i], users[i+1])
			expect(t, hs[i%3].post(relationshipPath(users[i]), users[i].Token,
				map[string]any{"action": "start", "date": "2025-03-07"}), 200, "")
		}
		for _, h := range hs { // 2025-06-15 is day 100; 09:00 UTC has passed
			h.Clock.Set(time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC))
		}
		for round, want := range []int{len(users), 0} { // the second finds nothing to send
			var wg sync.WaitGroup
			var sent atomic.Int64
			start := make(chan struct{})
			for _, app := range apps {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					n, err := app.Job.SendDue(context.Background())
					if err != nil {
						t.Error(err)
					}
					sent.Add(int64(n))
				}()
			}
			close(start)
			wg.Wait()
			if sent.Load() != int64(want) {
				t.Fatalf("round %d: the three jobs sent %d, want %d", round, sent.Load(), want)
			}
			for _, u := range users {
				pushed := 0
				for _, app := range apps {
					pushed += len(milestonePushes(app.Pushes, u))
				}
				if pushed != 1 || len(first.milestonesInInbox(t, u)) != 1 {
					t.Fatalf("round %d: %s got %d pushes, %d in the inbox", round, u.ID, pushed, len(first.milestonesInInbox(t, u)))
				}
			}
		}
	})
}

// BenchmarkRelationshipMilestones measures GET milestones (partnership
// lookup, latest relationship, the caller's timezone, the rule), per
// profile.
func BenchmarkRelationshipMilestones(b *testing.B) {
	benchScenario(b, func(h *harness) scenario {
		u, v := h.newUser("a@x.io"), h.newUser("b@x.io")
		h.pair(u, v)
		expect(h.t, h.post(relationshipPath(u), u.Token, map[string]any{"action": "start", "date": "2025-03-07"}), 200, "")
		return scenario{req: GET(milestonesPath(v, "?limit=2")).by(v), status: 200, want: milestonesJSON(
			milestone("2025-06-15", 100, "100 days", "days"), milestone("2025-09-23", 200, "200 days", "days"))}
	})
}
