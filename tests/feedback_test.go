package tests

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// Feedback, end to end: sending, the user's own history, the
// administrators' list (401/403 for others), paging, the rate limit, export.

func feedbackPath(u user) string { return "/api/users/user/" + u.ID + "/feedback" }

const adminFeedbackPath = "/api/admin/feedback"

// sendFeedback sends msg as u and returns the new feedback id.
func (h *harness) sendFeedback(u user, msg string) string {
	h.t.Helper()
	r := h.post(feedbackPath(u), u.Token, map[string]any{"feedbackMessage": msg})
	expect(h.t, r, 200, `{"success":true,"feedbackId":"<string>","message":"Thank you for your feedback"}`)
	return r.JSON(h.t)["feedbackId"].(string)
}

// feedbackItem is one listed feedback message, exactly.
func feedbackItem(id, msg string, u user, date string, at time.Time) string {
	return fmt.Sprintf(`{"feedbackId":%q,"feedbackMessage":%q,"userId":%q,"createdAt":%q,"timestamp":%d}`,
		id, msg, u.ID, date, at.UnixMilli())
}

func feedbackList(items ...string) string {
	return `{"success":true,"feedback":[` + strings.Join(items, ",") + `]}`
}

func TestFeedbackSendAndOwnHistory(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		ann, bob := h.newUser("ann@x.io"), h.newUser("bob@x.io")
		expect(t, h.get(feedbackPath(ann), ann.Token), 200, feedbackList())

		t1 := h.Clock.Now() // 2025-06-15 12:00 UTC
		first := h.sendFeedback(ann, "  The daily question is lovely.  ")
		h.Clock.Advance(12 * time.Hour) // 16/06/2025 00:00 UTC
		t2 := h.Clock.Now()
		second := h.sendFeedback(ann, "Could the advice come with a notification?")
		h.sendFeedback(bob, "Dark mode, please!")

		// newest first, trimmed, dd/mm/yyyy in UTC; bob's is not ann's
		a1 := feedbackItem(first, "The daily question is lovely.", ann, "15/06/2025", t1)
		a2 := feedbackItem(second, "Could the advice come with a notification?", ann, "16/06/2025", t2)
		expect(t, h.get(feedbackPath(ann), ann.Token), 200, feedbackList(a2, a1))

		// pages
		r := h.get(feedbackPath(ann)+"?limit=1", ann.Token)
		expect(t, r, 200, feedbackList(a2))
		next := r.Header.Get("X-Next-Cursor")
		r = h.get(feedbackPath(ann)+"?limit=1&cursor="+next, ann.Token)
		expect(t, r, 200, feedbackList(a1))
		if c := r.Header.Get("X-Next-Cursor"); next == "" || c != "" {
			t.Fatalf("cursors %q then %q", next, c)
		}

		// the export holds ann's feedback
		data := h.get("/api/users/user/"+ann.ID+"/export", ann.Token).JSON(t)["data"].(map[string]any)
		sameJSON(t, data["feedback"], fmt.Sprintf(`[{"feedbackId":%q,"feedbackMessage":"Could the advice come with a notification?",`+
			`"userId":%q,"createdAt":"16/06/2025","timestamp":%d},{"feedbackId":%q,"feedbackMessage":"The daily question is lovely.",`+
			`"userId":%q,"createdAt":"15/06/2025","timestamp":%d}]`, second, ann.ID, t2.UnixMilli(), first, ann.ID, t1.UnixMilli()))
	})
}

func TestFeedbackAdminListing(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		boss, ann, bob := h.newUser("boss@x.io"), h.newUser("ann@x.io"), h.newUser("bob@x.io")
		expect(t, h.get(adminFeedbackPath, boss.Token), 200, feedbackList())
		var items []string // newest first
		for i, u := range []user{ann, bob, ann} {
			msg := fmt.Sprintf("note %d", i)
			id := h.sendFeedback(u, msg)
			items = append([]string{feedbackItem(id, msg, u, "15/06/2025", h.Clock.Now())}, items...)
			h.Clock.Advance(time.Minute)
		}

		expect(t, h.get(adminFeedbackPath, ""), 401,
			errBody("unauthorized", "authentication required: send Authorization: Bearer <token>"))
		expect(t, h.get(adminFeedbackPath, ann.Token), 403, errBody("forbidden", "administrators only"))
		expect(t, h.get(adminFeedbackPath, boss.Token), 200, feedbackList(items...))

		r := h.get(adminFeedbackPath+"?limit=2", boss.Token)
		expect(t, r, 200, feedbackList(items[:2]...))
		r = h.get(adminFeedbackPath+"?limit=2&cursor="+r.Header.Get("X-Next-Cursor"), boss.Token)
		expect(t, r, 200, feedbackList(items[2]))
		if r.Header.Get("X-Next-Cursor") != "" {
			t.Fatal("a cursor after the last page")
		}
		expect(t, h.get(adminFeedbackPath+"?limit=501", boss.Token), 400,
			errBody("invalid_request", "limit must be a whole number from 1 to 500"))
		expect(t, h.get(adminFeedbackPath+"?limit=2&cursor=%25", boss.Token), 400,
			errBody("invalid_request", "cursor is not one this server handed out"))

		// a deleted account's feedback leaves the administrators' list too
		expect(t, h.do(req{Method: "DELETE", Path: "/api/users/user/" + bob.ID, Token: bob.Token}), 200, "")
		expect(t, h.get(adminFeedbackPath, boss.Token), 200, feedbackList(items[0], items[2]))
	}, withEnv("TANDEM_ADMIN_EMAILS", "boss@x.io"))
}

func TestFeedbackErrors(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		ann, bob := h.newUser("ann@x.io"), h.newUser("bob@x.io")
		send := func(u user, msg any) req { return POST(feedbackPath(u), map[string]any{"feedbackMessage": msg}) }
		nothingStored := func(t *testing.T, h *harness) {
			expect(t, h.get(feedbackPath(ann), ann.Token), 200, feedbackList())
			expect(t, h.get(feedbackPath(bob), bob.Token), 200, feedbackList())
		}
		runScenarios(t, h, afterEach(nothingStored, signedIn(ann, []scenario{
			{name: "feedbackMessage missing", req: POST(feedbackPath(ann), map[string]any{}), status: 400,
				want: errInvalid("feedbackMessage is required")},
			{name: "feedbackMessage null", req: send(ann, nil), status: 400, want: errInvalid("feedbackMessage is required")},
			{name: "feedbackMessage blank", req: send(ann, " \n "), status: 400, want: errInvalid("feedbackMessage is required")},
			{name: "feedbackMessage of 5001 characters", req: send(ann, strings.Repeat("x", 5001)), status: 400,
				want: errInvalid("feedbackMessage must be at most 5000 characters")},
			{name: "feedbackMessage not a string", req: send(ann, 5), status: 400, want: errInvalid("field feedbackMessage must be a string")},
			{name: "empty body", req: POST(feedbackPath(ann), ""), status: 400, want: errInvalid("request body is empty")},
			{name: "malformed JSON", req: POST(feedbackPath(ann), `{"feedbackMessage":`), status: 400, want: errInvalid("malformed JSON")},
			{name: "no token", req: send(ann, "x").anonymous(), status: 401, want: errNoToken},
			{name: "someone else's path", req: send(bob, "x"), status: 403, want: errNotYours},
			{name: "someone else's history", req: GET(feedbackPath(bob)), status: 403, want: errNotYours},
			{name: "history limit 0", req: GET(feedbackPath(ann) + "?limit=0"), status: 400,
				want: errInvalid("limit must be a whole number from 1 to 500")},
		})))

		// 20 messages an hour per user, then 429 with Retry-After; refused ones are not stored
		for i := range 20 {
			h.sendFeedback(ann, fmt.Sprintf("idea %d", i))
		}
		r := h.post(feedbackPath(ann), ann.Token, map[string]any{"feedbackMessage": "one more"})
		expect(t, r, 429, errBody("rate_limited", "too many requests, try again later"))
		if r.Header.Get("Retry-After") == "" {
			t.Fatal("429 without Retry-After")
		}
		if n := len(h.get(feedbackPath(ann), ann.Token).JSON(t)["feedback"].([]any)); n != 20 {
			t.Fatalf("%d stored", n)
		}
		h.sendFeedback(bob, "bob is not limited by ann")
		h.Clock.Advance(time.Hour)
		h.sendFeedback(ann, "an hour later")
	})
}
