package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/fx"

	"tandem/adapters/sqlstore"
	"tandem/core"
	"tandem/modules/events"
)

func homePath(u user) string { return "/api/users/user/" + u.ID + "/home" }

// sameAs fails unless part (a value of the home answer) is, as JSON, what
// want holds.
func sameAs(t *testing.T, name string, part, want any) {
	t.Helper()
	a, _ := json.Marshal(part)
	b, _ := json.Marshal(want)
	if string(a) != string(b) {
		t.Fatalf("home %s:\n got  %s\n want %s", name, a, b)
	}
}

func TestHomeIsEachModulesOwnRead(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		a, b, stranger := h.newUser("a@x.io"), h.newUser("b@x.io"), h.newUser("s@x.io")
		adviceNow := h.Clock.Now()

		// Alone: no couple's parts.
		expect(t, h.get(homePath(a), a.Token), 200, `{"success":true,"partner":null,"pairingState":"unpaired",`+
			`"relationship":null,"nextMilestone":null,"question":null,"streak":{"current":0,"best":0},`+
			`"moods":{"mine":null,"partner":null},"nextEvent":null,"unreadNotifications":0,"latestMessage":null,`+
			`"premium":{"isPremium":false,"source":"none"},"advice":{"_creationTime":`+itoa(adviceNow.UnixMilli())+
			`,"_id":"<string>","advice":"<string>","theme":"<string>"}}`)
		expect(t, h.get(homePath(a), stranger.Token), 403, errNotYours)
		expect(t, h.get(homePath(a), ""), 401, "")

		// A couple's day.
		expect(t, h.do(req{Method: "PATCH", Path: "/api/users/user/" + b.ID, Token: b.Token,
			Body: map[string]any{"displayName": "Bea"}}), 200, "")
		h.pair(a, b)
		expect(t, h.post(relationshipPath(a), a.Token, map[string]any{"action": "start", "date": "2025-01-01"}), 200, "")
		expect(t, h.post(dqPath(b), b.Token, map[string]any{"action": "answer", "text": "Paris"}), 200, "")
		later := h.Clock.Now().AddDate(0, 0, 3).Format("2006-01-02")
		soon := h.Clock.Now().AddDate(0, 0, 1).Format("2006-01-02")
		h.createEvent(b, map[string]any{"title": "Later", "startDate": later, "endDate": later})
		next := h.createEvent(a, map[string]any{"title": "Soon", "startDate": soon, "endDate": soon, "startTime": "09:30"})
		long := strings.Repeat("é", 150)
		h.sendMessage(b, long)
		expect(t, h.post(premiumPath(b), b.Token, map[string]any{"action": "create", "plan": "9.99",
			"startDate": h.Clock.Now().UnixMilli(), "endDate": h.Clock.Now().AddDate(0, 1, 0).UnixMilli()}), 200, "")

		expect(t, h.post("/api/users/user/"+b.ID+"/moods", b.Token, map[string]any{"mood": "great", "note": "sunny"}), 200, "")
		r := h.get(homePath(a), a.Token)
		expect(t, r, 200, `{"success":true,"partner":{"id":"`+b.ID+`","displayName":"Bea"},"pairingState":"connected",`+
			`"relationship":"<any>","nextMilestone":"<any>","question":"<any>","streak":{"current":0,"best":0},`+
			`"moods":{"mine":null,"partner":"<any>"},"nextEvent":"<any>","unreadNotifications":"<number>",`+
			`"latestMessage":"<any>","premium":{"isPremium":true,"source":"partner"},"advice":"<any>"}`)
		home := r.JSON(t)
		rel := h.get(relationshipPath(a), a.Token).JSON(t)
		sameAs(t, "relationship", home["relationship"], rel)
		ms := h.get("/api/user/"+a.ID+"/relationship/milestones?limit=1", a.Token).JSON(t)["milestones"].([]any)
		sameAs(t, "nextMilestone", home["nextMilestone"], ms[0])
		listed := h.get("/api/users/user/"+a.ID+"/moods", a.Token).JSON(t)["moods"].([]any)
		sameAs(t, "partner's mood", home["moods"].(map[string]any)["partner"], listed[0])
		dq := h.get(dqPath(a), a.Token).JSON(t)
		q := dq["question"].(map[string]any)
		sameAs(t, "question", home["question"], map[string]any{"id": q["id"], "text": q["text"], "date": q["date"],
			"answeredByMe": false, "answeredByPartner": true, "locked": true})
		sameAs(t, "nextEvent", home["nextEvent"], next) // the nearer of the two, the caller's or the partner's
		sameAs(t, "unreadNotifications", home["unreadNotifications"], float64(h.unreadCount(t, a)))
		msg := home["latestMessage"].(map[string]any)
		if msg["text"] != strings.Repeat("é", 140) || msg["author"] != b.ID {
			t.Fatalf("latest message %v", msg)
		}
		sameAs(t, "advice", home["advice"], h.adviceRecord(a, adviceNow))

		// A widget refreshing: the weak ETag answers 304 until something changes.
		etag := r.Header.Get("ETag")
		if !strings.HasPrefix(etag, `W/"`) {
			t.Fatalf("ETag %q", etag)
		}
		cached := h.do(req{Method: "GET", Path: homePath(a), Token: a.Token, Headers: map[string]string{"If-None-Match": etag}})
		if cached.Status != 304 || len(cached.Body) != 0 {
			t.Fatalf("If-None-Match: %d %s", cached.Status, cached.Body)
		}
		h.Clock.Advance(time.Minute)
		h.sendMessage(b, "again")
		fresh := h.do(req{Method: "GET", Path: homePath(a), Token: a.Token, Headers: map[string]string{"If-None-Match": etag}})
		if fresh.Status != 200 || fresh.Header.Get("ETag") == etag {
			t.Fatalf("after a message: %d %s", fresh.Status, fresh.Header.Get("ETag"))
		}
	})
}

// TestHomeFollowsThePartnership: after an unpairing the home answer holds
// nothing of the former couple (partner, relationship, question, thread,
// shared premium, moods), a solo thread shows its own newest message, and a
// new partner's home starts empty: each part is still the module's own read
// as the partnership changes under it.
func TestHomeFollowsThePartnership(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		a, b, c := h.newUser("a@x.io"), h.newUser("b@x.io"), h.newUser("c@x.io")
		h.pair(a, b)
		expect(t, h.post(relationshipPath(a), a.Token, map[string]any{"action": "start", "date": "2025-01-01"}), 200, "")
		expect(t, h.post(dqPath(b), b.Token, map[string]any{"action": "answer", "text": "Paris"}), 200, "")
		expect(t, h.post(premiumPath(b), b.Token, map[string]any{"action": "create", "plan": "9.99",
			"startDate": h.Clock.Now().UnixMilli(), "endDate": h.Clock.Now().AddDate(0, 1, 0).UnixMilli()}), 200, "")
		expect(t, h.post("/api/users/user/"+b.ID+"/moods", b.Token, map[string]any{"mood": "great"}), 200, "")
		h.sendMessage(b, "ours")
		paired := h.get(homePath(a), a.Token).JSON(t)
		if paired["latestMessage"] == nil || paired["relationship"] == nil || paired["question"] == nil {
			t.Fatalf("paired home %v", paired)
		}

		expect(t, h.keyed("POST", "/api/partnerConnections/unlink", b, map[string]any{"userId": b.ID}), 200, "")
		alone := `{"success":true,"partner":null,"pairingState":"unpaired","relationship":null,"nextMilestone":null,` +
			`"question":null,"streak":{"current":0,"best":0},"moods":{"mine":null,"partner":null},"nextEvent":null,` +
			`"unreadNotifications":"<number>","latestMessage":%s,"premium":{"isPremium":false,"source":"none"},"advice":"<any>"}`
		expect(t, h.get(homePath(a), a.Token), 200, fmt.Sprintf(alone, "null"))
		solo := h.sendMessage(a, "just me")
		r := h.get(homePath(a), a.Token)
		expect(t, r, 200, fmt.Sprintf(alone, `{"id":"`+solo+`","text":"just me","author":"`+a.ID+`","createdAt":"<number>"}`))
		sameAs(t, "unreadNotifications", r.JSON(t)["unreadNotifications"], float64(h.unreadCount(t, a)))
		expect(t, h.get(homePath(b), b.Token), 200, `{"success":true,"partner":null,"pairingState":"unpaired",`+
			`"relationship":null,"nextMilestone":null,"question":null,"streak":{"current":0,"best":0},`+
			`"moods":{"mine":"<any>","partner":null},"nextEvent":null,"unreadNotifications":"<number>","latestMessage":null,`+
			`"premium":{"isPremium":true,"source":"direct"},"advice":"<any>"}`)

		h.pair(a, c)
		expect(t, h.get(homePath(c), c.Token), 200, `{"success":true,"partner":{"id":"`+a.ID+`","displayName":""},`+
			`"pairingState":"connected","relationship":null,"nextMilestone":null,"question":"<any>",`+
			`"streak":{"current":0,"best":0},"moods":{"mine":null,"partner":null},"nextEvent":null,`+
			`"unreadNotifications":"<number>","latestMessage":null,"premium":{"isPremium":false,"source":"none"},"advice":"<any>"}`)
	})
}

// TestHomeReadsInAtMostSixStatements counts the statements of a couple's
// home call on the SQL profiles (the budget: six), the session
// already cached as in production.
func TestHomeReadsInAtMostSixStatements(t *testing.T) {
	parallel(t)
	for _, p := range profiles(t) {
		if p.sql == "" {
			continue
		}
		t.Run(p.name, func(t *testing.T) {
			parallel(t)
			var db *sqlstore.DB
			h := newHarness(t, p, withFx(fx.Populate(&db)))
			a, b := h.newUser("a@x.io"), h.newUser("b@x.io")
			h.pair(a, b)
			expect(t, h.post(relationshipPath(a), a.Token, map[string]any{"action": "start", "date": "2025-01-01"}), 200, "")
			expect(t, h.post(dqPath(b), b.Token, map[string]any{"action": "answer", "text": "Paris"}), 200, "")
			h.sendMessage(b, "hello")
			expect(t, h.get(homePath(a), a.Token), 200, "") // opens today's advice: a write, once a day
			before := db.Statements()
			expect(t, h.get(homePath(a), a.Token), 200, "")
			if n := db.Statements() - before; n > 6 {
				t.Fatalf("a home call ran %d statements, want at most 6", n)
			}
		})
	}
}

// eventReads counts the events the repository hands out.
type eventReads struct {
	events.Repository
	n atomic.Int64
}

func (r *eventReads) Overlapping(ctx context.Context, userIDs []string, from, to core.Date) ([]events.Event, error) {
	evs, err := r.Repository.Overlapping(ctx, userIDs, from, to)
	r.n.Add(int64(len(evs)))
	return evs, err
}

func (r *eventReads) List(ctx context.Context, userID string, page core.Page) ([]events.Event, string, error) {
	evs, next, err := r.Repository.List(ctx, userID, page)
	r.n.Add(int64(len(evs)))
	return evs, next, err
}

func (r *eventReads) Next(ctx context.Context, userIDs []string, from, to core.Date) (events.Event, bool, error) {
	e, ok, err := r.Repository.Next(ctx, userIDs, from, to)
	if ok {
		r.n.Add(1)
	}
	return e, ok, err
}

// TestHomeReadsOneEventPerPartner: the home screen's next event reads at
// most one event of each partner, however many the year ahead holds. It
// read the whole year of both (the date range, up to 1,000 events) to show
// one, and a soak's home calls cost more with every event created.
func TestHomeReadsOneEventPerPartner(t *testing.T) {
	own := func(*testing.T) (*eventReads, option) {
		reads := &eventReads{}
		decorate := withFx(fx.Decorate(func(r events.Repository) events.Repository { reads.Repository = r; return reads }))
		return reads, func(h *harness) { decorate(h); withUnboundedWrites()(h) } // 21 events each at one instant
	}
	eachProfileOwn(t, own, func(t *testing.T, h *harness, reads *eventReads) {
		a, b := h.newUser("a@x.io"), h.newUser("b@x.io")
		h.pair(a, b)
		day := func(d int) string { return h.Clock.Now().AddDate(0, 0, d).Format("2006-01-02") }
		h.createEvent(a, map[string]any{"title": "Over", "startDate": day(-20), "endDate": day(-1)})
		for i := range 20 {
			h.createEvent(a, map[string]any{"title": "Mine", "startDate": day(5 + 15*i)})
			h.createEvent(b, map[string]any{"title": "Theirs", "startDate": day(6 + 15*i)})
		}
		next := h.createEvent(b, map[string]any{"title": "Soon", "startDate": day(2), "startTime": "18:00"})
		h.createEvent(a, map[string]any{"title": "Same day, later", "startDate": day(2), "startTime": "19:00"})

		reads.n.Store(0)
		home := h.get(homePath(a), a.Token).JSON(t)
		sameAs(t, "nextEvent", home["nextEvent"], next)
		if n := reads.n.Load(); n > 2 {
			t.Fatalf("a home call read %d events, want at most one per partner", n)
		}
	})
}
