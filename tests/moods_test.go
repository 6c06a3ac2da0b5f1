package tests

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"tandem/adapters/push/mempush"
	"tandem/modules/moods"
)

// Mood check-ins, end to end: one per user and local day (a second
// check-in replaces the first), the couple's list (the current partner
// only), the partner's coalesced notification in category mood, live
// events, validation, export and account deletion.

func moodsPath(u user) string { return "/api/users/user/" + u.ID + "/moods" }

// moodsRange is the list path of from..to ("" leaves a bound out).
func moodsRange(u user, from, to string) string {
	q := url.Values{}
	if from != "" {
		q.Set("from", from)
	}
	if to != "" {
		q.Set("to", to)
	}
	if len(q) == 0 {
		return moodsPath(u)
	}
	return moodsPath(u) + "?" + q.Encode()
}

// checkIn posts body as u's mood and returns the mood answered.
func (h *harness) checkIn(u user, body map[string]any) map[string]any {
	h.t.Helper()
	r := h.post(moodsPath(u), u.Token, body)
	expect(h.t, r, 200, `{"success":true,"mood":{"id":"<string>","userId":"`+u.ID+`","mood":"<string>","note":"<any>",`+
		`"date":"<string>","createdAt":"<number>","updatedAt":"<number>"}}`)
	return r.JSON(h.t)["mood"].(map[string]any)
}

// moodJSON is one mood, exactly.
func moodJSON(id string, u user, mood, note, date string, created, updated time.Time) string {
	return fmt.Sprintf(`{"id":%q,"userId":%q,"mood":%q,"note":%q,"date":%q,"createdAt":%d,"updatedAt":%d}`,
		id, u.ID, mood, note, date, created.UnixMilli(), updated.UnixMilli())
}

func moodList(from, to string, items ...string) string {
	return `{"success":true,"from":"` + from + `","to":"` + to + `","moods":[` + strings.Join(items, ",") + `]}`
}

func TestMoodCheckInAndSameDayReplacement(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		ann := h.newUser("ann@x.io")
		expect(t, h.get(moodsPath(ann), ann.Token), 200, moodList("2025-05-17", "2025-06-15"))

		created := h.Clock.Now() // 2025-06-15 12:00 UTC
		r := h.post(moodsPath(ann), ann.Token, map[string]any{"mood": "low", "note": "  long day\nat work  "})
		id, _ := r.JSON(t)["mood"].(map[string]any)["id"].(string)
		first := moodJSON(id, ann, "low", "long day\nat work", "2025-06-15", created, created)
		expect(t, r, 200, `{"success":true,"mood":`+first+`}`)
		expect(t, h.get(moodsPath(ann), ann.Token), 200, moodList("2025-05-17", "2025-06-15", first))

		// later the same day: replaced in place (same id and createdAt), the note cleared
		h.Clock.Advance(11*time.Hour + 59*time.Minute) // 23:59 UTC
		second := moodJSON(id, ann, "great", "", "2025-06-15", created, h.Clock.Now())
		expect(t, h.post(moodsPath(ann), ann.Token, map[string]any{"mood": "great"}), 200, `{"success":true,"mood":`+second+`}`)
		expect(t, h.get(moodsPath(ann), ann.Token), 200, moodList("2025-05-17", "2025-06-15", second))

		// the next day is a new mood; two check-ins at once leave one
		h.Clock.Advance(time.Minute)
		at := h.Clock.Now()
		rs := h.atOnce(POST(moodsPath(ann), map[string]any{"mood": "okay"}).by(ann),
			POST(moodsPath(ann), map[string]any{"mood": "okay"}).by(ann))
		expect(t, rs[0], 200, "")
		expect(t, rs[1], 200, "")
		next := rs[0].JSON(t)["mood"].(map[string]any)["id"].(string)
		if other := rs[1].JSON(t)["mood"].(map[string]any)["id"]; next == id || other != next {
			t.Fatalf("ids %s, then %s and %v", id, next, other)
		}
		expect(t, h.get(moodsRange(ann, "2025-06-15", "2025-06-16"), ann.Token), 200,
			moodList("2025-06-15", "2025-06-16", second, moodJSON(next, ann, "okay", "", "2025-06-16", at, at)))
	})
}

// TestMoodDayIsTheProfileTimezones: at 14:30 UTC it is 23:30 in Tokyo; an
// hour later Tokyo's next day begins (a new mood) while UTC's goes on.
func TestMoodDayIsTheProfileTimezones(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		ann, bob := h.newUser("ann@x.io"), h.newUser("bob@x.io")
		setTimezone(t, h, ann, "Asia/Tokyo")
		h.Clock.Set(time.Date(2025, 6, 15, 14, 30, 0, 0, time.UTC))
		t1 := h.Clock.Now()
		a1, b1 := h.checkIn(ann, map[string]any{"mood": "good"}), h.checkIn(bob, map[string]any{"mood": "good"})
		h.Clock.Advance(time.Hour)
		t2 := h.Clock.Now()
		a2, b2 := h.checkIn(ann, map[string]any{"mood": "low"}), h.checkIn(bob, map[string]any{"mood": "low"})
		if a1["date"] != "2025-06-15" || a2["date"] != "2025-06-16" || a1["id"] == a2["id"] {
			t.Fatalf("tokyo: %v then %v", a1, a2)
		}
		if b1["date"] != "2025-06-15" || b2["date"] != "2025-06-15" || b1["id"] != b2["id"] {
			t.Fatalf("utc: %v then %v", b1, b2)
		}
		// ann's default range ends at her own today
		expect(t, h.get(moodsPath(ann), ann.Token), 200, moodList("2025-05-18", "2025-06-16",
			moodJSON(a1["id"].(string), ann, "good", "", "2025-06-15", t1, t1),
			moodJSON(a2["id"].(string), ann, "low", "", "2025-06-16", t2, t2)))
	})
}

// TestMoodsOfTheCouple: a couple lists both partners' moods (the caller's
// first on a date) and hears of each other's check-ins, coalesced, in
// category mood; a stranger reads nothing of theirs; after unpairing
// neither sees or hears of the other's.
func TestMoodsOfTheCouple(t *testing.T) {
	eachProfileWithPushes(t, func(t *testing.T, h *harness, pushes *mempush.Outbox) {
		ann, bob, eve := h.newUser("ann@x.io"), h.newUser("bob@x.io"), h.newUser("eve@x.io")
		for _, u := range []user{ann, bob, eve} {
			h.registerDevice(u, "ExponentPushToken["+u.ID+"]", "ios", "expo")
		}
		h.pair(ann, bob)
		eveM := h.checkIn(eve, map[string]any{"mood": "awful", "note": "a stranger's"})

		at := h.Clock.Now()
		at0 := at
		annM := h.checkIn(ann, map[string]any{"mood": "great", "note": "sunny"})
		bobM := h.checkIn(bob, map[string]any{"mood": "okay"})
		annJ := moodJSON(annM["id"].(string), ann, "great", "sunny", "2025-06-15", at, at)
		bobJ := moodJSON(bobM["id"].(string), bob, "okay", "", "2025-06-15", at, at)
		expect(t, h.get(moodsPath(ann), ann.Token), 200, moodList("2025-05-17", "2025-06-15", annJ, bobJ))
		expect(t, h.get(moodsPath(bob), bob.Token), 200, moodList("2025-05-17", "2025-06-15", bobJ, annJ))
		expect(t, h.get(moodsPath(eve), eve.Token), 200, moodList("2025-05-17", "2025-06-15",
			moodJSON(eveM["id"].(string), eve, "awful", "a stranger's", "2025-06-15", at, at)))

		// each partner's phone got one push in category mood, naming neither the mood nor the note
		for _, u := range []user{ann, bob} {
			got := pushes.To(u.ID)
			if len(got) != 1 || got[0].Message.Category != "mood" || got[0].Message.Title != "Mood check-in" ||
				got[0].Message.Body != "Your partner shared how they feel today." {
				t.Fatalf("pushes to %s: %+v", u.ID, got)
			}
		}
		expect(t, h.get(notifPath(bob, "/notifications?unreadOnly=true"), bob.Token), 200, `{"success":true,"notifications":[`+
			notificationJSON("<string>", "Mood check-in", "Your partner shared how they feel today.", "mood", false, at)+`]}`)

		// more check-ins soon after: counted in the same entry, not pushed again
		h.Clock.Advance(time.Minute)
		h.checkIn(ann, map[string]any{"mood": "good"})
		h.Clock.Advance(time.Minute)
		at = h.Clock.Now()
		h.checkIn(ann, map[string]any{"mood": "great"})
		expect(t, h.get(notifPath(bob, "/notifications?unreadOnly=true"), bob.Token), 200, `{"success":true,"notifications":[`+
			notificationJSON("<string>", "Mood check-ins", "Your partner shared how they feel 3 times.", "mood", false, at)+`]}`)
		if n := len(pushes.To(bob.ID)); n != 1 {
			t.Fatalf("%d pushes to bob", n)
		}

		// moodUpdates off: still counted in the inbox, never pushed
		expect(t, h.do(req{Method: "PATCH", Path: notifPath(bob, "/notification-settings"), Token: bob.Token,
			Body: map[string]any{"moodUpdates": false}}), 200, "")
		h.Clock.Advance(time.Hour)
		annLast := h.Clock.Now()
		h.checkIn(ann, map[string]any{"mood": "good"})
		if n := len(pushes.To(bob.ID)); n != 1 {
			t.Fatalf("pushed with moodUpdates off: %d", n)
		}
		if p := pushes.To(eve.ID); len(p) != 0 {
			t.Fatalf("pushes to the stranger: %+v", p)
		}

		// after unpairing: each their own only, and a check-in tells nobody
		expect(t, h.keyed("POST", "/api/partnerConnections/unlink", bob, map[string]any{"userId": bob.ID}), 200, "")
		markAllRead(t, h, ann)
		pushed := len(pushes.To(ann.ID))
		h.Clock.Advance(time.Hour)
		h.checkIn(bob, map[string]any{"mood": "low", "note": "after"})
		expect(t, h.get(moodsPath(ann), ann.Token), 200, moodList("2025-05-17", "2025-06-15",
			moodJSON(annM["id"].(string), ann, "good", "", "2025-06-15", at0, annLast)))
		expect(t, h.get(moodsPath(bob), bob.Token), 200, moodList("2025-05-17", "2025-06-15",
			moodJSON(bobM["id"].(string), bob, "low", "after", "2025-06-15", at0, h.Clock.Now())))
		expect(t, h.get(notifPath(ann, "/notifications?unreadOnly=true"), ann.Token), 200, `{"success":true,"notifications":[]}`)
		if n := len(pushes.To(ann.ID)); n != pushed {
			t.Fatalf("the ex-partner's phone got %d pushes", n-pushed)
		}

		// re-paired with someone new: nothing of before shows
		cat := h.newUser("cat@x.io")
		h.pair(bob, cat)
		expect(t, h.get(moodsPath(cat), cat.Token), 200, moodList("2025-05-17", "2025-06-15"))
	})
}

// TestMoodLiveEvents: a check-in reaches the owner's and the partner's
// open apps, a replacement as mood.updated; after unpairing the owner's
// alone.
func TestMoodLiveEvents(t *testing.T) {
	eachProfileWith(t, func(t *testing.T, h *harness, l *liveLog) {
		ann, bob := h.newUser("ann@x.io"), h.newUser("bob@x.io")
		names := map[string]string{ann.ID: "ann", bob.ID: "bob"}
		h.pair(ann, bob)
		l.take(names)
		const note = "notification.created bob:notifications.Notification"
		h.checkIn(ann, map[string]any{"mood": "good"})
		if got := l.take(names); !slices.Equal(got, []string{"mood.created ann:moods.Mood bob:moods.Mood", note}) {
			t.Fatalf("first: %q", got)
		}
		h.checkIn(ann, map[string]any{"mood": "low"})
		if got := l.take(names); !slices.Equal(got, []string{"mood.updated ann:moods.Mood bob:moods.Mood", note}) {
			t.Fatalf("replaced: %q", got)
		}
		expect(t, h.keyed("POST", "/api/partnerConnections/unlink", bob, map[string]any{"userId": bob.ID}), 200, "")
		l.take(names)
		h.checkIn(ann, map[string]any{"mood": "okay"})
		if got := l.take(names); !slices.Equal(got, []string{"mood.updated ann:moods.Mood"}) {
			t.Fatalf("after unpairing: %q", got)
		}
	}, withLiveLog)
}

func TestMoodErrors(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		ann, bob := h.newUser("ann@x.io"), h.newUser("bob@x.io")
		h.pair(ann, bob)
		send := func(u user, body any) req { return POST(moodsPath(u), body) }
		nothingStored := func(t *testing.T, h *harness) {
			expect(t, h.get(moodsPath(ann), ann.Token), 200, moodList("2025-05-17", "2025-06-15"))
		}
		const choices = "great, good, okay, low or awful"
		runScenarios(t, h, afterEach(nothingStored, signedIn(ann, []scenario{
			{name: "mood missing", req: send(ann, map[string]any{"note": "hi"}), status: 400,
				want: errInvalid("mood is required: " + choices)},
			{name: "mood null", req: send(ann, map[string]any{"mood": nil}), status: 400, want: errInvalid("mood is required: " + choices)},
			{name: "mood unknown", req: send(ann, map[string]any{"mood": "meh"}), status: 400,
				want: errInvalid("mood must be one of " + choices)},
			{name: "mood in capitals", req: send(ann, map[string]any{"mood": "GOOD"}), status: 400,
				want: errInvalid("mood must be one of " + choices)},
			{name: "mood not a string", req: send(ann, map[string]any{"mood": 3}), status: 400,
				want: errInvalid("field mood must be a string")},
			{name: "note of 281 characters", req: send(ann, map[string]any{"mood": "good", "note": strings.Repeat("é", 281)}),
				status: 400, want: errInvalid("note must be at most 280 characters")},
			{name: "a huge note", req: send(ann, map[string]any{"mood": "good", "note": strings.Repeat("x", 100_000)}),
				status: 400, want: errInvalid("note must be at most 280 characters")},
			{name: "note not a string", req: send(ann, map[string]any{"mood": "good", "note": []string{"x"}}), status: 400,
				want: errInvalid("field note must be a string")},
			{name: "note with a control character", req: send(ann, map[string]any{"mood": "good", "note": "a\u0007b"}), status: 400,
				want: errInvalid("note must not contain control characters other than tab and newline")},
			{name: "note with a bidi override", req: send(ann, map[string]any{"mood": "good", "note": "a\u202eb"}), status: 400,
				want: errInvalid("note must not contain bidirectional override or isolate characters")},
			{name: "empty body", req: send(ann, ""), status: 400, want: errInvalid("request body is empty")},
			{name: "malformed JSON", req: send(ann, `{"mood":`), status: 400, want: errInvalid("malformed JSON")},
			{name: "not JSON", req: send(ann, `mood=good`).asText(), status: 415, want: errNotJSON},
			{name: "no token", req: send(ann, map[string]any{"mood": "good"}).anonymous(), status: 401, want: errNoToken},
			{name: "check in on another user's path (the partner's)", req: send(bob, map[string]any{"mood": "good"}), status: 403,
				want: errNotYours},
			{name: "list another user's path (the partner's)", req: GET(moodsPath(bob)), status: 403, want: errNotYours},
			{name: "list without a token", req: GET(moodsPath(ann)).anonymous(), status: 401, want: errNoToken},
			{name: "a range of 367 days", req: GET(moodsRange(ann, "2024-06-14", "2025-06-15")), status: 400,
				want: errInvalid("from and to may cover at most 366 days")},
			{name: "from alone 367 days back", req: GET(moodsRange(ann, "2024-06-14", "")), status: 400,
				want: errInvalid("from and to may cover at most 366 days")},
			{name: "from after to", req: GET(moodsRange(ann, "2025-06-02", "2025-06-01")), status: 400,
				want: errInvalid("from must not be after to")},
			{name: "a malformed from", req: GET(moodsRange(ann, "15/06/2025", "")), status: 400,
				want: errBody("invalid_date", "from must be a date in the form YYYY-MM-DD")},
			{name: "an impossible to", req: GET(moodsRange(ann, "", "2025-02-30")), status: 400,
				want: errBody("invalid_date", "to must be a date in the form YYYY-MM-DD")},
			{name: "a year beyond a DATE", req: GET(moodsRange(ann, "", "10000-01-01")), status: 400,
				want: errBody("invalid_date", "to must be a date in the form YYYY-MM-DD")},
			{name: "366 days is fine", req: GET(moodsRange(ann, "2024-06-15", "2025-06-15")), status: 200,
				want: moodList("2024-06-15", "2025-06-15")},
		})))
	})
}

func TestMoodExportAndAccountDeletion(t *testing.T) {
	eachProfileWith(t, func(t *testing.T, h *harness, repo moods.Repository) {
		ann, bob := h.newUser("ann@x.io"), h.newUser("bob@x.io")
		h.pair(ann, bob)
		d1 := h.Clock.Now()
		m1 := h.checkIn(ann, map[string]any{"mood": "good", "note": "first"})
		h.Clock.Advance(24 * time.Hour)
		d2 := h.Clock.Now()
		m2 := h.checkIn(ann, map[string]any{"mood": "low"})
		bobM := h.checkIn(bob, map[string]any{"mood": "great"})

		// the export carries ann's own moods as the list shows them, not bob's
		data := h.get("/api/users/user/"+ann.ID+"/export", ann.Token).JSON(t)["data"].(map[string]any)
		sameJSON(t, data["moods"], `[`+moodJSON(m1["id"].(string), ann, "good", "first", "2025-06-15", d1, d1)+`,`+
			moodJSON(m2["id"].(string), ann, "low", "", "2025-06-16", d2, d2)+`]`)

		expect(t, h.do(req{Method: "DELETE", Path: "/api/users/user/" + ann.ID, Token: ann.Token}), 200, "")
		left, err := repo.Range(context.Background(), ann.ID, "", moods.MinDate, moods.MaxDate)
		if err != nil || len(left) != 0 {
			t.Fatalf("left %v %v", left, err)
		}
		expect(t, h.get(moodsPath(bob), bob.Token), 200, moodList("2025-05-18", "2025-06-16",
			moodJSON(bobM["id"].(string), bob, "great", "", "2025-06-16", d2, d2)))
	})
}
