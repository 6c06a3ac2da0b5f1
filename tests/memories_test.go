package tests

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/fx"

	"tandem/adapters/push/mempush"
	"tandem/core"
	"tandem/modules/memories"
	"tandem/modules/notifications"
)

// Memories, end to end: every endpoint and error, the stored effect read back
// through the API, privacy from the partner, the partner's notification and
// paging.

func memoriesPath(u user) string { return "/api/users/user/" + u.ID + "/memories" }

func memoryPath(u user, id string) string { return memoriesPath(u) + "/" + id }

func memoryRangePath(u user, from, to string) string {
	return memoriesPath(u) + "/date-range?startDate=" + url.QueryEscape(from) + "&endDate=" + url.QueryEscape(to)
}

// memoryBody is the exact JSON of a memory record; created and updated are
// milliseconds.
func memoryBody(id, title, description, date string, images []string, created, updated int64) string {
	if images == nil {
		images = []string{}
	}
	b, err := json.Marshal(map[string]any{"id": id, "title": title, "description": description, "date": date,
		"images": images, "createdAt": created, "updatedAt": updated})
	if err != nil {
		panic(err)
	}
	return string(b)
}

// createMemory creates a memory from fields (action create added), returns
// its id and moves the clock on a millisecond, so creation times differ.
func (h *harness) createMemory(u user, fields map[string]any) string {
	h.t.Helper()
	r := h.post(memoriesPath(u), u.Token, withAction(fields))
	expect(h.t, r, 200, "")
	h.Clock.Advance(time.Millisecond)
	return r.JSON(h.t)["id"].(string)
}

// listMemories decodes a bare array of memories and the next cursor.
func listMemories(t *testing.T, h *harness, u user, path string) ([]map[string]any, string) {
	t.Helper()
	r := h.get(path, u.Token)
	expect(t, r, 200, "")
	var out []map[string]any
	if err := json.Unmarshal(r.Body, &out); err != nil {
		t.Fatal(err)
	}
	return out, r.Header.Get("X-Next-Cursor")
}

func joinField(ms []map[string]any, field string) string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i], _ = m[field].(string)
	}
	return strings.Join(out, ",")
}

func TestMemoriesCreateListReadUpdateDelete(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		u := h.newUser("a@x.io")
		expect(t, h.get(memoriesPath(u), u.Token), 200, `[]`)
		up := h.mustUpload(u, filePart("a.jpg", "image/jpeg", jpegFile(t)), filePart("b.webp", "image/webp", webpFile))
		pics := []string{up.Files[0].Data.URL, up.Files[1].Data.URL}

		// every field: trimmed, repeats dropped, the uploaded images' addresses
		t0 := h.Clock.Now().UnixMilli()
		r := h.post(memoriesPath(u), u.Token, map[string]any{"action": "create", "title": " First trip ",
			"description": " snow everywhere ", "date": "2025-06-01", "images": []string{pics[0], pics[1], pics[0]}})
		expect(t, r, 200, memoryBody("<string>", "First trip", "snow everywhere", "2025-06-01", pics, t0, t0))
		tripID := r.JSON(t)["id"].(string)

		// only the required fields; tomorrow's UTC date is accepted
		h.Clock.Advance(time.Millisecond)
		t1 := h.Clock.Now().UnixMilli()
		r = h.post(memoriesPath(u), u.Token, map[string]any{"action": "create", "title": "Dentist", "date": "2025-06-16", "images": nil})
		expect(t, r, 200, memoryBody("<string>", "Dentist", "", "2025-06-16", nil, t1, t1))
		dentistID := r.JSON(t)["id"].(string)
		h.Clock.Advance(time.Millisecond)
		oldID := h.createMemory(u, map[string]any{"title": "Christmas", "date": "2024-12-24"})
		t2 := t1 + 1

		trip := memoryBody(tripID, "First trip", "snow everywhere", "2025-06-01", pics, t0, t0)
		dentist := memoryBody(dentistID, "Dentist", "", "2025-06-16", nil, t1, t1)
		old := memoryBody(oldID, "Christmas", "", "2024-12-24", nil, t2, t2)
		// read back: the list newest date first, and each one
		expect(t, h.get(memoriesPath(u), u.Token), 200, "["+dentist+","+trip+","+old+"]")
		expect(t, h.get(memoryPath(u, tripID), u.Token), 200, trip)
		expect(t, h.get(memoryPath(u, oldID), u.Token), 200, old)

		// PUT title and description: the complete record, stored as answered
		h.Clock.Advance(time.Hour)
		later := h.Clock.Now().UnixMilli()
		r = h.do(req{Method: "PUT", Path: memoryPath(u, tripID), Token: u.Token, Body: map[string]any{"title": "Trip", "description": ""}})
		trip = memoryBody(tripID, "Trip", "", "2025-06-01", pics, t0, later)
		expect(t, r, 200, trip)
		expect(t, h.get(memoryPath(u, tripID), u.Token), 200, trip)
		// null fields are left alone
		r = h.do(req{Method: "PUT", Path: memoryPath(u, tripID), Token: u.Token, Body: `{"title":null,"description":"so cold"}`})
		trip = memoryBody(tripID, "Trip", "so cold", "2025-06-01", pics, t0, later)
		expect(t, r, 200, trip)
		// the whole record sent back, date and images as they are: only the text changes
		record := h.get(memoryPath(u, tripID), u.Token).JSON(t)
		record["title"] = "Trip north"
		r = h.do(req{Method: "PUT", Path: memoryPath(u, tripID), Token: u.Token, Body: record})
		trip = memoryBody(tripID, "Trip north", "so cold", "2025-06-01", pics, t0, later)
		expect(t, r, 200, trip)
		expect(t, h.get(memoryPath(u, tripID), u.Token), 200, trip)

		// DELETE is permanent
		expect(t, h.do(req{Method: "DELETE", Path: memoryPath(u, dentistID), Token: u.Token}), 200,
			`{"message":"memory deleted","deletedId":"`+dentistID+`"}`)
		expect(t, h.get(memoryPath(u, dentistID), u.Token), 404, errBody("not_found", "memory not found"))
		expect(t, h.do(req{Method: "DELETE", Path: memoryPath(u, dentistID), Token: u.Token}), 404, errBody("not_found", "memory not found"))
		expect(t, h.get(memoriesPath(u), u.Token), 200, "["+trip+","+old+"]")

		// the export carries the user's memories, as listed
		data := h.get("/api/users/user/"+u.ID+"/export", u.Token).JSON(t)["data"].(map[string]any)
		got, _ := json.Marshal(data["memories"])
		want := "[" + trip + "," + old + "]"
		var a, b any
		_ = json.Unmarshal(got, &a)
		_ = json.Unmarshal([]byte(want), &b)
		if err := match("$", b, a); err != nil {
			t.Fatalf("export: %v\n%s", err, got)
		}
	})
}

func TestMemoriesPagesCountAndDateRange(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		u := h.newUser("a@x.io")
		for _, day := range []string{"2025-01-05", "2025-01-01", "2025-01-03", "2025-01-03", "2025-01-02"} {
			h.createMemory(u, map[string]any{"title": "on " + day, "date": day})
		}
		all, next := listMemories(t, h, u, memoriesPath(u))
		if joinField(all, "date") != "2025-01-05,2025-01-03,2025-01-03,2025-01-02,2025-01-01" || next != "" {
			t.Fatalf("unpaged %s %q", joinField(all, "date"), next)
		}
		if all[1]["createdAt"].(float64) <= all[2]["createdAt"].(float64) {
			t.Fatal("on one date the latest created comes first")
		}
		// pages of two through X-Next-Cursor, the same order
		var seen []map[string]any
		cursor := ""
		for range 5 {
			q := "?limit=2"
			if cursor != "" {
				q += "&cursor=" + url.QueryEscape(cursor)
			}
			page, next := listMemories(t, h, u, memoriesPath(u)+q)
			seen = append(seen, page...)
			if cursor = next; cursor == "" {
				break
			}
		}
		if joinField(seen, "id") != joinField(all, "id") {
			t.Fatalf("pages %s, want %s", joinField(seen, "id"), joinField(all, "id"))
		}
		if _, next := listMemories(t, h, u, memoriesPath(u)+"?limit=5"); next != "" {
			t.Fatal("a cursor after the last page")
		}

		// count of one date
		expect(t, h.get(memoriesPath(u)+"/count?date=2025-01-03", u.Token), 200, `{"count":2,"date":"2025-01-03"}`)
		expect(t, h.get(memoriesPath(u)+"/count?date=2025-01-04", u.Token), 200, `{"count":0,"date":"2025-01-04"}`)

		// date range: inclusive, newest first, paged
		inRange, next := listMemories(t, h, u, memoryRangePath(u, "2025-01-02", "2025-01-03"))
		if joinField(inRange, "id") != joinField(all[1:4], "id") || next != "" {
			t.Fatalf("range %s %q", joinField(inRange, "date"), next)
		}
		first, next := listMemories(t, h, u, memoryRangePath(u, "2025-01-02", "2025-01-03")+"&limit=2")
		rest, last := listMemories(t, h, u, memoryRangePath(u, "2025-01-02", "2025-01-03")+"&limit=2&cursor="+url.QueryEscape(next))
		if joinField(first, "id") != joinField(all[1:3], "id") || joinField(rest, "id") != joinField(all[3:4], "id") || last != "" {
			t.Fatalf("range pages %s | %s %q", joinField(first, "date"), joinField(rest, "date"), last)
		}
		expect(t, h.get(memoryRangePath(u, "2025-01-05", "2025-01-05"), u.Token), 200, "["+mustJSON(t, all[0])+"]")
		expect(t, h.get(memoryRangePath(u, "2030-01-01", "2030-12-31"), u.Token), 200, `[]`)
		expect(t, h.get(memoryRangePath(u, "1900-01-01", "9999-12-31"), u.Token), 200, "")
	})
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestMemoriesArePrivateAndNotifyThePartner(t *testing.T) {
	eachProfileWithPushes(t, func(t *testing.T, h *harness, pushes *mempush.Outbox) {
		me, partner, solo := h.newUser("a@x.io"), h.newUser("b@x.io"), h.newUser("c@x.io")
		h.registerDevice(me, "ExponentPushToken[me]", "ios", "expo")
		h.pair(me, partner)
		at := h.Clock.Now()
		theirs := h.createMemory(partner, map[string]any{"title": "Our picnic", "date": "2025-06-01"})

		// the partner's memory: a notification for me (partnerActivity), pushed to my device; it never names the memory
		expect(t, h.get(notifPath(me, "/notifications"), me.Token), 200, `{"success":true,"notifications":[`+
			notificationJSON("<string>", "New memory", "Your partner added a memory.", "partnerActivity", false, at)+`]}`)
		if p := pushes.To(me.ID); len(p) != 1 || p[0].Message.Title != "New memory" || p[0].Message.Category != "partnerActivity" {
			t.Fatalf("pushes %+v", p)
		}
		expect(t, h.get(notifPath(partner, "/notifications"), partner.Token), 200, `{"success":true,"notifications":[]}`)
		// but not the memory itself: memories are private
		expect(t, h.get(memoryPath(me, theirs), me.Token), 404, errBody("not_found", "memory not found"))
		expect(t, h.do(req{Method: "PUT", Path: memoryPath(me, theirs), Token: me.Token, Body: map[string]any{"title": "x"}}),
			404, errBody("not_found", "memory not found"))
		expect(t, h.do(req{Method: "DELETE", Path: memoryPath(me, theirs), Token: me.Token}), 404, errBody("not_found", "memory not found"))
		expect(t, h.get(memoriesPath(me), me.Token), 200, `[]`)
		expect(t, h.get(memoriesPath(me)+"/count?date=2025-06-01", me.Token), 200, `{"count":0,"date":"2025-06-01"}`)
		if ms, _ := listMemories(t, h, partner, memoriesPath(partner)); len(ms) != 1 || ms[0]["title"] != "Our picnic" {
			t.Fatalf("the partner's own list %v", ms)
		}

		// with partnerActivity off the notification is saved (counted in the unread entry), not pushed
		expect(t, h.do(req{Method: "PATCH", Path: notifPath(me, "/notification-settings"), Token: me.Token,
			Body: map[string]any{"partnerActivity": false}}), 200, "")
		h.Clock.Advance(time.Hour)
		h.createMemory(partner, map[string]any{"title": "Sunset", "date": "2025-06-02"})
		if n := h.unreadCount(t, me); n != 1 {
			t.Fatalf("unread %d", n)
		}
		expect(t, h.get(notifPath(me, "/notifications"), me.Token), 200, `{"success":true,"notifications":[`+
			notificationJSON("<string>", "New memories", "Your partner added 2 memories.", "partnerActivity", false, h.Clock.Now().Add(-time.Millisecond))+`]}`)
		if p := pushes.To(me.ID); len(p) != 1 {
			t.Fatalf("pushed with partnerActivity off: %d", len(p))
		}

		// without a partner nobody hears of it
		h.createMemory(solo, map[string]any{"title": "Alone", "date": "2025-06-01"})
		expect(t, h.get(notifPath(solo, "/notifications"), solo.Token), 200, `{"success":true,"notifications":[]}`)
		if n := h.unreadCount(t, me); n != 1 {
			t.Fatalf("unread %d", n)
		}
	})
}

// brokenInbox fails to save any notification, as a database that lost its
// notifications table would, and counts the attempts.
type brokenInbox struct {
	notifications.Repository
	tries *atomic.Int32
}

var errInboxGone = errors.New("notifications table gone")

func (b brokenInbox) AddNotification(context.Context, notifications.Notification) error {
	b.tries.Add(1)
	return core.Internal(errInboxGone)
}

func (b brokenInbox) AddActivity(context.Context, notifications.Activity, notifications.Notification, time.Duration) (notifications.Notification, bool, error) {
	b.tries.Add(1)
	return notifications.Notification{}, false, core.Internal(errInboxGone)
}

func TestAFailedNotificationDoesNotFailTheMemory(t *testing.T) {
	for _, p := range profiles(t) {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			var tries atomic.Int32
			h := newHarness(t, p, withFx(fx.Decorate(func(r notifications.Repository) notifications.Repository {
				return brokenInbox{Repository: r, tries: &tries}
			})))
			me, partner := h.newUser("a@x.io"), h.newUser("b@x.io")
			h.pair(me, partner)
			now := h.Clock.Now().UnixMilli()
			r := h.post(memoriesPath(partner), partner.Token, map[string]any{"action": "create", "title": "Kept", "date": "2025-06-01"})
			expect(t, r, 200, memoryBody("<string>", "Kept", "", "2025-06-01", nil, now, now))
			if tries.Load() != 1 {
				t.Fatalf("%d notifications tried", tries.Load())
			}
			id := r.JSON(t)["id"].(string)
			expect(t, h.get(memoriesPath(partner), partner.Token), 200, "["+memoryBody(id, "Kept", "", "2025-06-01", nil, now, now)+"]")
		})
	}
}

func TestMemoryErrors(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		u, other := h.newUser("a@x.io"), h.newUser("b@x.io")
		seedID := h.createMemory(u, map[string]any{"title": "Seed", "date": "2025-06-01"})
		theirs := h.createMemory(other, map[string]any{"title": "Not yours", "date": "2025-06-01"})
		create := func(edit map[string]any) map[string]any {
			b := map[string]any{"action": "create", "title": "T", "date": "2025-06-01"}
			for k, v := range edit {
				if v == nil {
					delete(b, k)
				} else {
					b[k] = v
				}
			}
			return b
		}
		pic := "http://localhost:8080/files/u/" + u.ID + "/0123456789abcdef0123456789abcdef.jpg"
		many := make([]string, 21)
		for i := range many {
			many[i] = pic + strings.Repeat("x", i)
		}
		notFound := errBody("not_found", "memory not found")
		forbidden := errBody("forbidden", "you may only act on your own account")
		noToken := errBody("unauthorized", "authentication required: send Authorization: Bearer <token>")
		notAllowed := `{"success":false,"error":"method not allowed on this route","code":"method_not_allowed","message":"method not allowed on this route"}`
		invalid := func(msg string) string { return errBody("invalid_request", msg) }
		badDate := func(msg string) string { return errBody("invalid_date", msg) }
		post := func(body any) req { return req{Method: "POST", Path: memoriesPath(u), Body: body} }
		put := func(id string, body any) req { return req{Method: "PUT", Path: memoryPath(u, id), Body: body} }
		get := func(path string) req { return req{Method: "GET", Path: path} }
		cases := []struct {
			name   string
			r      req
			status int
			body   string
		}{
			{"create without action", post(create(map[string]any{"action": nil})), 400, invalid("action is required: create")},
			{"create with another action", post(create(map[string]any{"action": "update"})), 400, invalid(`unknown action \"update\": use create`)},
			{"create without title", post(create(map[string]any{"title": nil})), 400, invalid("title is required")},
			{"create with a blank title", post(create(map[string]any{"title": " "})), 400, invalid("title is required")},
			{"title of 201", post(create(map[string]any{"title": strings.Repeat("t", 201)})), 400, invalid("title must be at most 200 characters")},
			{"description of 5001", post(create(map[string]any{"description": strings.Repeat("d", 5001)})), 400,
				invalid("description must be at most 5000 characters")},
			{"create without date", post(create(map[string]any{"date": nil})), 400, invalid("date is required (YYYY-MM-DD)")},
			{"impossible date", post(create(map[string]any{"date": "2025-02-30"})), 400, badDate("date must be a date in the form YYYY-MM-DD")},
			{"date not YYYY-MM-DD", post(create(map[string]any{"date": "01/06/2025"})), 400, badDate("date must be a date in the form YYYY-MM-DD")},
			{"date in the future", post(create(map[string]any{"date": "2025-06-17"})), 400, badDate("date must not be in the future")},
			{"date before 1900", post(create(map[string]any{"date": "1899-12-31"})), 400, badDate("date must be between 1900-01-01 and 9999-12-31")},
			{"21 images", post(create(map[string]any{"images": many})), 400, invalid("images may hold at most 20 addresses")},
			{"an image elsewhere", post(create(map[string]any{"images": []string{"https://tracker.example/p.gif"}})), 400,
				invalid("images must be addresses of uploaded images (http://localhost:8080/files/...)")},
			{"an image not a URL", post(create(map[string]any{"images": []string{"me.jpg"}})), 400, invalid("images must be http or https addresses")},
			{"images not an array", post(create(map[string]any{"images": pic})), 400, invalid("field images must be an array")},
			{"an image not a string", post(create(map[string]any{"images": []any{7}})), 400, invalid("field images must be a string")},
			{"title not a string", post(create(map[string]any{"title": 7})), 400, invalid("field title must be a string")},
			{"malformed JSON", post(`{"action":"create",`), 400, invalid("malformed JSON")},
			{"a JSON array", post(`[]`), 400, invalid("request body must be a JSON object")},
			{"not JSON", req{Method: "POST", Path: memoriesPath(u), Body: "x", Headers: map[string]string{"Content-Type": "text/plain"}}, 415,
				errBody("unsupported_media_type", "send the body as application/json")},
			{"create for another user", req{Method: "POST", Path: memoriesPath(other), Body: create(nil)}, 403, forbidden},
			{"create without a token", req{Method: "POST", Path: memoriesPath(u), Body: create(nil), Token: "-"}, 401, noToken},
			{"list of another user", get(memoriesPath(other)), 403, forbidden},
			{"list without a token", req{Method: "GET", Path: memoriesPath(u), Token: "-"}, 401, noToken},
			{"list with a bad limit", get(memoriesPath(u) + "?limit=0"), 400, invalid("limit must be a whole number from 1 to 500")},
			{"list with a forged cursor", get(memoriesPath(u) + "?limit=2&cursor=forged"), 400, invalid("cursor is not one this server handed out")},
			{"count without date", get(memoriesPath(u) + "/count"), 400, invalid("date is required (YYYY-MM-DD)")},
			{"count with a bad date", get(memoriesPath(u) + "/count?date=2025-13-01"), 400, badDate("date must be a date in the form YYYY-MM-DD")},
			{"count of another user", get(memoriesPath(other) + "/count?date=2025-06-01"), 403, forbidden},
			{"range without startDate", get(memoriesPath(u) + "/date-range?endDate=2025-06-01"), 400, invalid("startDate is required (YYYY-MM-DD)")},
			{"range without endDate", get(memoriesPath(u) + "/date-range?startDate=2025-06-01"), 400, invalid("endDate is required (YYYY-MM-DD)")},
			{"range with a bad startDate", get(memoryRangePath(u, "2025-6-1", "2025-06-30")), 400,
				badDate("startDate must be a date in the form YYYY-MM-DD")},
			{"range with an impossible endDate", get(memoryRangePath(u, "2025-06-01", "2025-06-31")), 400,
				badDate("endDate must be a date in the form YYYY-MM-DD")},
			{"range with start after end", get(memoryRangePath(u, "2025-06-02", "2025-06-01")), 400, invalid("startDate must not be after endDate")},
			{"range with a forged cursor", get(memoryRangePath(u, "2025-06-01", "2025-06-02") + "&limit=1&cursor=x"), 400,
				invalid("cursor is not one this server handed out")},
			{"range of another user", get(memoryRangePath(other, "2025-06-01", "2025-06-02")), 403, forbidden},
			{"read an unknown memory", get(memoryPath(u, "no-such-id")), 404, notFound},
			{"read a stranger's memory", get(memoryPath(u, theirs)), 404, notFound},
			{"read through another user's path", get(memoryPath(other, theirs)), 403, forbidden},
			{"read without a token", req{Method: "GET", Path: memoryPath(u, seedID), Token: "-"}, 401, noToken},
			{"update with nothing", put(seedID, map[string]any{}), 400, invalid("send title and/or description to change")},
			{"update only nulls", put(seedID, `{"title":null}`), 400, invalid("send title and/or description to change")},
			{"update the date", put(seedID, map[string]any{"title": "x", "date": "2025-01-01"}), 400,
				invalid("date and images cannot be changed: send title and/or description")},
			{"update the images", put(seedID, map[string]any{"title": "x", "images": []string{"http://localhost:8080/files/u/x.jpg"}}), 400,
				invalid("date and images cannot be changed: send title and/or description")},
			{"update to a blank title", put(seedID, map[string]any{"title": " "}), 400, invalid("title is required")},
			{"update with description of 5001", put(seedID, map[string]any{"description": strings.Repeat("d", 5001)}), 400,
				invalid("description must be at most 5000 characters")},
			{"update with malformed JSON", put(seedID, `{"title":`), 400, invalid("malformed JSON")},
			{"update an unknown memory", put("no-such-id", map[string]any{"title": "x"}), 404, notFound},
			{"update a stranger's memory", put(theirs, map[string]any{"title": "x"}), 404, notFound},
			{"update without a memory id", req{Method: "PUT", Path: memoriesPath(u) + "/", Body: map[string]any{"title": "x"}}, 405, notAllowed},
			{"update through another user's path", req{Method: "PUT", Path: memoryPath(other, theirs), Body: map[string]any{"title": "x"}}, 403, forbidden},
			{"delete an unknown memory", req{Method: "DELETE", Path: memoryPath(u, "no-such-id")}, 404, notFound},
			{"delete a stranger's memory", req{Method: "DELETE", Path: memoryPath(u, theirs)}, 404, notFound},
			{"delete without a memory id", req{Method: "DELETE", Path: memoriesPath(u) + "/"}, 405, notAllowed},
			{"delete through another user's path", req{Method: "DELETE", Path: memoryPath(other, theirs)}, 403, forbidden},
			{"delete without a token", req{Method: "DELETE", Path: memoryPath(u, seedID), Token: "-"}, 401, noToken},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				switch tc.r.Token {
				case "":
					tc.r.Token = u.Token
				case "-":
					tc.r.Token = ""
				}
				expect(t, h.do(tc.r), tc.status, tc.body)
			})
		}
		// nothing was written by any refused request
		created := h.Clock.Now().UnixMilli() - 2
		expect(t, h.get(memoriesPath(u), u.Token), 200, "["+memoryBody(seedID, "Seed", "", "2025-06-01", nil, created, created)+"]")
		expect(t, h.get(memoryPath(other, theirs), other.Token), 200,
			memoryBody(theirs, "Not yours", "", "2025-06-01", nil, created+1, created+1))
	})
}

func TestAccountDeletionTakesTheMemoriesAlong(t *testing.T) {
	for _, p := range profiles(t) {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			var repo memories.Repository
			h := newHarness(t, p, withFx(fx.Populate(&repo)))
			leaver, partner := h.newUser("a@x.io"), h.newUser("b@x.io")
			h.pair(leaver, partner)
			h.createMemory(leaver, map[string]any{"title": "Gone", "date": "2025-03-01"})
			h.createMemory(leaver, map[string]any{"title": "Gone too", "date": "2025-03-02"})
			kept := h.createMemory(partner, map[string]any{"title": "Kept", "date": "2025-03-01"})

			expect(t, h.do(req{Method: "DELETE", Path: "/api/users/user/" + leaver.ID, Token: leaver.Token}), 200, "")
			left, _, err := repo.List(context.Background(), leaver.ID, memories.AllDates, core.Page{})
			if err != nil || len(left) != 0 {
				t.Fatalf("left %v %v", left, err)
			}
			if ms, _ := listMemories(t, h, partner, memoriesPath(partner)); len(ms) != 1 || ms[0]["id"] != kept {
				t.Fatalf("the partner's memories %v", ms)
			}
		})
	}
}
