package tests

import (
	"context"
	"fmt"
	"testing"
	"time"

	"go.uber.org/fx"

	"tandem/core"
	"tandem/modules/advice"
)

// Daily advice, end to end: one record per user and day in the user's
// timezone, stable all day, new the next day; the spec's 500 on failure.

func advicePath(u user) string { return "/api/users/user/" + u.ID + "/advice" }

// adviceRecord reads the caller's advice, checking the record's exact shape.
func (h *harness) adviceRecord(u user, created time.Time) map[string]any {
	h.t.Helper()
	r := h.get(advicePath(u), u.Token)
	expect(h.t, r, 200, fmt.Sprintf(`{"_creationTime":%d,"_id":"<string>","advice":"<string>","theme":"<string>"}`,
		created.UnixMilli()))
	m := r.JSON(h.t)
	if !advice.Theme(m["theme"].(string)).Valid() {
		h.t.Fatalf("theme %v", m["theme"])
	}
	return m
}

func TestAdviceIsOnePerDayInTheUsersTimezone(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		ann, bob := h.newUser("ann@x.io"), h.newUser("bob@x.io")
		first := h.Clock.Now() // 2025-06-15 12:00 UTC
		a := h.adviceRecord(ann, first)

		// stable for the rest of the day: same id, text, theme and creation time
		h.Clock.Advance(11*time.Hour + 59*time.Minute)
		if again := h.adviceRecord(ann, first); fmt.Sprint(again) != fmt.Sprint(a) {
			t.Fatalf("later the same day %v, was %v", again, a)
		}
		// another user's advice is theirs
		b := h.adviceRecord(bob, h.Clock.Now())
		if b["_id"] == a["_id"] {
			t.Fatal("two users share one advice record")
		}
		// after midnight (UTC, ann's zone is unset) a new one
		h.Clock.Advance(time.Minute)
		next := h.adviceRecord(ann, h.Clock.Now())
		if next["_id"] == a["_id"] || next["advice"] == a["advice"] {
			t.Fatalf("the next day %v, was %v", next, a)
		}

		// in Kiritimati (UTC+14) the day turns at 10:00 UTC
		setTimezone(t, h, bob, "Pacific/Kiritimati")
		h.Clock.Set(time.Date(2025, 6, 20, 9, 59, 0, 0, time.UTC))
		before := h.adviceRecord(bob, h.Clock.Now())
		h.Clock.Set(time.Date(2025, 6, 20, 10, 0, 0, 0, time.UTC))
		after := h.adviceRecord(bob, h.Clock.Now())
		if before["_id"] == after["_id"] || before["advice"] == after["advice"] {
			t.Fatalf("bob's midnight: %v then %v", before, after)
		}

		// the export holds the user's advice, newest first
		data := h.get("/api/users/user/"+ann.ID+"/export", ann.Token).JSON(t)["data"].(map[string]any)
		sameJSON(t, data["advice"], fmt.Sprintf(`[{"_id":%q,"_creationTime":%d,"advice":%s,"theme":%s,"date":"2025-06-16"},`+
			`{"_id":%q,"_creationTime":%d,"advice":%s,"theme":%s,"date":"2025-06-15"}]`,
			next["_id"], int64(next["_creationTime"].(float64)), jsonStr(next["advice"]), jsonStr(next["theme"]),
			a["_id"], first.UnixMilli(), jsonStr(a["advice"]), jsonStr(a["theme"])))
	})
}

func TestAccountDeletionTakesTheAdviceAlong(t *testing.T) {
	eachProfileWith(t, func(t *testing.T, h *harness, repo advice.Repository) {
		ann, bob := h.newUser("ann@x.io"), h.newUser("bob@x.io")
		h.adviceRecord(ann, h.Clock.Now())
		h.adviceRecord(bob, h.Clock.Now())
		expect(t, h.do(req{Method: "DELETE", Path: "/api/users/user/" + ann.ID, Token: ann.Token}), 200, "")
		ctx := context.Background()
		if ds, err := repo.ListByUser(ctx, ann.ID); err != nil || len(ds) != 0 {
			t.Fatalf("ann's advice after deletion: %v %v", ds, err)
		}
		if ds, err := repo.ListByUser(ctx, bob.ID); err != nil || len(ds) != 1 {
			t.Fatalf("bob's advice: %v %v", ds, err)
		}
	})
}

func TestAdviceErrors(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		ann, bob := h.newUser("ann@x.io"), h.newUser("bob@x.io")
		nothingForBob := func(t *testing.T, h *harness) { // the refused read produced nothing
			data := h.get("/api/users/user/"+bob.ID+"/export", bob.Token).JSON(t)["data"].(map[string]any)
			sameJSON(t, data["advice"], `[]`)
		}
		runScenarios(t, h, afterEach(nothingForBob, signedIn(ann, []scenario{
			{name: "no token", req: GET(advicePath(ann)).anonymous(), status: 401, want: errNoToken},
			{name: "someone else's advice", req: GET(advicePath(bob)), status: 403, want: errNotYours},
			{name: "POST is no route", req: POST(advicePath(ann), map[string]any{}), status: 405, want: errNotAllowed},
		})))
	})
}

// brokenAdvice fails to store, as a database that lost its disk would.
type brokenAdvice struct{ advice.Repository }

func (brokenAdvice) Open(context.Context, string, core.Date, func([]advice.Daily) (advice.Daily, error)) (advice.Daily, error) {
	return advice.Daily{}, errDiskOnFire
}

func TestAdviceFailureIsA500WithError(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		u := h.newUser("a@x.io")
		expect(t, h.get(advicePath(u), u.Token), 500, errBody("internal_error", "internal error"))
	}, withFx(fx.Decorate(func(r advice.Repository) advice.Repository { return brokenAdvice{r} })))
}
