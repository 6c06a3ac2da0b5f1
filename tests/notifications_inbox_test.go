// This file holds the inbox over HTTP: the list in pages, marking read one
// or all, and the inbox routes' errors.

package tests

import (
	"strings"
	"testing"
	"time"
)

func TestInboxListsPagesAndMarksRead(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		u, other := h.newUser("a@x.io"), h.newUser("b@x.io")
		cats := []string{"mood", "events", "questions", "notes", "systemUpdates"}
		var ids []string
		var times []time.Time
		for _, c := range cats {
			r := h.post(notifPath(u, "/send-test-notification"), u.Token, map[string]any{"title": "T " + c, "message": "M " + c, "category": c})
			expect(t, r, 200, "")
			times = append(times, h.Clock.Now())
			h.Clock.Advance(time.Second)
		}
		r := h.get(notifPath(u, "/notifications"), u.Token)
		list := r.JSON(t)["notifications"].([]any)
		for i := range list {
			ids = append(ids, list[len(list)-1-i].(map[string]any)["id"].(string)) // oldest first
		}
		item := func(i int, read bool) string {
			return notificationJSON(ids[i], "T "+cats[i], "M "+cats[i], cats[i], read, times[i])
		}
		items := func(read map[int]bool, idx ...int) string {
			var parts []string
			for _, i := range idx {
				parts = append(parts, item(i, read[i]))
			}
			return `{"success":true,"notifications":[` + strings.Join(parts, ",") + `]}`
		}
		none := map[int]bool{}
		expect(t, r, 200, items(none, 4, 3, 2, 1, 0))
		if r.Header.Get("X-Next-Cursor") != "" {
			t.Fatal("an unpaged list has no cursor")
		}

		// pages of two, by the X-Next-Cursor header
		var paged []string
		for _, r := range pages(t, 2, func(q string) response { return h.get(notifPath(u, "/notifications?"+q), u.Token) }) {
			var page []string
			for _, n := range r.JSON(t)["notifications"].([]any) {
				page = append(page, n.(map[string]any)["category"].(string))
			}
			paged = append(paged, strings.Join(page, ","))
		}
		if strings.Join(paged, "|") != "systemUpdates,notes|questions,events|mood" {
			t.Fatalf("pages %v", paged)
		}

		// mark one read, then the rest
		expect(t, h.do(req{Method: "PATCH", Path: notifPath(u, "/notifications"), Token: u.Token, Body: map[string]any{"notificationId": ids[1]}}),
			200, `{"success":true,"message":"notification marked as read"}`)
		expect(t, h.do(req{Method: "PATCH", Path: notifPath(u, "/notifications"), Token: u.Token, Body: map[string]any{"notificationId": ids[1]}}),
			200, `{"success":true,"message":"notification marked as read"}`) // again is harmless
		expect(t, h.get(notifPath(u, "/notifications"), u.Token), 200, items(map[int]bool{1: true}, 4, 3, 2, 1, 0))
		expect(t, h.get(notifPath(u, "/notifications?unreadOnly=true"), u.Token), 200, items(none, 4, 3, 2, 0))
		expect(t, h.get(notifPath(u, "/notifications?unreadOnly=true&limit=3"), u.Token), 200, items(none, 4, 3, 2))
		expect(t, h.get(notifPath(u, "/notifications?unreadOnly=false&limit=1"), u.Token), 200, items(none, 4))
		if n := h.unreadCount(t, u); n != 4 {
			t.Fatalf("unread %d", n)
		}

		// another user's notification is not found, and stays unread
		expect(t, h.sendTest(other, "mood"), 200, "")
		otherID := h.get(notifPath(other, "/notifications"), other.Token).JSON(t)["notifications"].([]any)[0].(map[string]any)["id"].(string)
		expect(t, h.do(req{Method: "PATCH", Path: notifPath(u, "/notifications"), Token: u.Token, Body: map[string]any{"notificationId": otherID}}),
			404, errBody("not_found", "notification not found"))
		expect(t, h.do(req{Method: "PATCH", Path: notifPath(u, "/notifications"), Token: u.Token, Body: map[string]any{"notificationId": "nope"}}),
			404, errBody("not_found", "notification not found"))

		expect(t, h.do(req{Method: "PATCH", Path: notifPath(u, "/notifications"), Token: u.Token, Body: map[string]any{"markAll": true}}),
			200, `{"success":true,"message":"4 notifications marked as read","count":4}`)
		expect(t, h.do(req{Method: "PATCH", Path: notifPath(u, "/notifications"), Token: u.Token, Body: map[string]any{"markAll": true}}),
			200, `{"success":true,"message":"0 notifications marked as read","count":0}`)
		expect(t, h.get(notifPath(u, "/notifications?unreadOnly=true"), u.Token), 200, `{"success":true,"notifications":[]}`)
		if n := h.unreadCount(t, u); n != 0 {
			t.Fatalf("unread %d", n)
		}
		if n := h.unreadCount(t, other); n != 1 {
			t.Fatalf("the other user's unread %d", n)
		}
		expect(t, h.do(req{Method: "PATCH", Path: notifPath(other, "/notifications"), Token: other.Token, Body: map[string]any{"markAll": true}}),
			200, `{"success":true,"message":"1 notification marked as read","count":1}`)

		// the export carries the inbox, newest first
		data := h.get("/api/users/user/"+u.ID+"/export", u.Token).JSON(t)["data"].(map[string]any)
		exported := data["notifications"].(map[string]any)["notifications"].([]any)
		if len(exported) != 5 || exported[0].(map[string]any)["id"] != ids[4] || exported[4].(map[string]any)["read"] != true {
			t.Fatalf("export %v", exported)
		}
	})
}

func TestInboxErrors(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		u, other := h.newUser("a@x.io"), h.newUser("b@x.io")
		expect(t, h.sendTest(u, "mood"), 200, "")
		list := notifPath(u, "/notifications")
		limitMsg := errInvalid("limit must be a whole number from 1 to 500")
		unmarked := func(t *testing.T, h *harness) {
			if n := h.unreadCount(t, u); n != 1 {
				t.Fatalf("a refused request marked: %d unread", n)
			}
		}
		runScenarios(t, h, afterEach(unmarked, signedIn(u, []scenario{
			{name: "limit 0", req: GET(list + "?limit=0"), status: 400, want: limitMsg},
			{name: "limit 501", req: GET(list + "?limit=501"), status: 400, want: limitMsg},
			{name: "limit not a number", req: GET(list + "?limit=ten"), status: 400, want: limitMsg},
			{name: "forged cursor", req: GET(list + "?limit=2&cursor=bm9wZQ"), status: 400,
				want: errInvalid("cursor is not one this server handed out")},
			{name: "unreadOnly not a boolean", req: GET(list + "?unreadOnly=yes"), status: 400, want: errInvalid("unreadOnly must be true or false")},
			{name: "neither id nor markAll", req: PATCH(list, map[string]any{}), status: 400,
				want: errInvalid("send notificationId, or markAll: true")},
			{name: "markAll false", req: PATCH(list, map[string]any{"markAll": false}), status: 400,
				want: errInvalid("send notificationId, or markAll: true")},
			{name: "both", req: PATCH(list, map[string]any{"markAll": true, "notificationId": "x"}), status: 400,
				want: errInvalid("send either notificationId or markAll: true, not both")},
			{name: "empty id", req: PATCH(list, map[string]any{"notificationId": ""}), status: 400, want: errInvalid("notificationId is required")},
			{name: "markAll not a boolean", req: PATCH(list, map[string]any{"markAll": "true"}), status: 400,
				want: errInvalid("field markAll must be a boolean")},
			{name: "id not a string", req: PATCH(list, map[string]any{"notificationId": 7}), status: 400,
				want: errInvalid("field notificationId must be a string")},
			{name: "malformed JSON", req: PATCH(list, `{"markAll":tru}`), status: 400, want: errInvalid("malformed JSON")},
			{name: "no token", req: GET(notifPath(u, "/notifications/unread")).anonymous(), status: 401, want: errNoToken},
			{name: "someone else's count", req: GET(notifPath(other, "/notifications/unread")), status: 403, want: errNotYours},
			{name: "someone else's list", req: GET(notifPath(other, "/notifications")), status: 403, want: errNotYours},
			{name: "marking someone else's", req: PATCH(notifPath(other, "/notifications"), map[string]any{"markAll": true}), status: 403,
				want: errNotYours},
		})))
	})
}
