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
	return withDates(memoriesPath(u)+"/date-range", from, to)
}

// memoryBody is the exact JSON of a memory record; created and updated are
// milliseconds.
func memoryBody(id, title, description, date string, images []string, created, updated int64) string {
	if images == nil {
		images = []string{}
	}
	return jsonStr(map[string]any{"id": id, "title": title, "description": description, "date": date,
		"images": images, "createdAt": created, "updatedAt": updated})
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
	return jsonArray(t, r), r.Header.Get("X-Next-Cursor")
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
		for _, r := range pages(t, 2, func(q string) response { return h.get(memoriesPath(u)+"?"+q, u.Token) }) {
			seen = append(seen, jsonArray(t, r)...)
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

func (b brokenInbox) AddActivity(context.Context, notifications.Activity, func(notifications.Collected) notifications.Collected) (notifications.Collected, error) {
	b.tries.Add(1)
	return notifications.Collected{}, core.Internal(errInboxGone)
}

func TestAFailedNotificationDoesNotFailTheMemory(t *testing.T) {
	parallel(t)
	for _, p := range profiles(t) {
		t.Run(p.name, func(t *testing.T) {
			parallel(t)
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
		valid := map[string]any{"action": "create", "title": "T", "date": "2025-06-01"}
		create := func(edit map[string]any) req { return POST(memoriesPath(u), edited(valid, edit)) }
		pic := "http://localhost:8080/files/u/" + u.ID + "/0123456789abcdef0123456789abcdef.jpg"
		many := make([]string, 21)
		for i := range many {
			many[i] = pic + strings.Repeat("x", i)
		}
		notFound := errBody("not_found", "memory not found")
		badDate := func(msg string) string { return errBody("invalid_date", msg) }
		put := func(id string, body any) req { return PUT(memoryPath(u, id), body) }
		created := h.Clock.Now().UnixMilli() - 2
		unchanged := func(t *testing.T, h *harness) {
			expect(t, h.get(memoriesPath(u), u.Token), 200, "["+memoryBody(seedID, "Seed", "", "2025-06-01", nil, created, created)+"]")
			expect(t, h.get(memoryPath(other, theirs), other.Token), 200,
				memoryBody(theirs, "Not yours", "", "2025-06-01", nil, created+1, created+1))
		}
		runScenarios(t, h, afterEach(unchanged, signedIn(u, []scenario{
			{name: "create without action", req: create(map[string]any{"action": nil}), status: 400, want: errInvalid("action is required: create")},
			{name: "create with another action", req: create(map[string]any{"action": "update"}), status: 400,
				want: errInvalid(`unknown action \"update\": use create`)},
			{name: "create without title", req: create(map[string]any{"title": nil}), status: 400, want: errInvalid("title is required")},
			{name: "create with a blank title", req: create(map[string]any{"title": " "}), status: 400, want: errInvalid("title is required")},
			{name: "title of 201", req: create(map[string]any{"title": strings.Repeat("t", 201)}), status: 400,
				want: errInvalid("title must be at most 200 characters")},
			{name: "description of 5001", req: create(map[string]any{"description": strings.Repeat("d", 5001)}), status: 400,
				want: errInvalid("description must be at most 5000 characters")},
			{name: "create without date", req: create(map[string]any{"date": nil}), status: 400, want: errInvalid("date is required (YYYY-MM-DD)")},
			{name: "impossible date", req: create(map[string]any{"date": "2025-02-30"}), status: 400,
				want: badDate("date must be a date in the form YYYY-MM-DD")},
			{name: "date not YYYY-MM-DD", req: create(map[string]any{"date": "01/06/2025"}), status: 400,
				want: badDate("date must be a date in the form YYYY-MM-DD")},
			{name: "date in the future", req: create(map[string]any{"date": "2025-06-17"}), status: 400,
				want: badDate("date must not be in the future")},
			{name: "date before 1900", req: create(map[string]any{"date": "1899-12-31"}), status: 400,
				want: badDate("date must be between 1900-01-01 and 9999-12-31")},
			{name: "21 images", req: create(map[string]any{"images": many}), status: 400, want: errInvalid("images may hold at most 20 addresses")},
			{name: "an image elsewhere", req: create(map[string]any{"images": []string{"https://tracker.example/p.gif"}}), status: 400,
				want: errInvalid("images must be addresses of uploaded images (http://localhost:8080/files/...)")},
			{name: "an image not a URL", req: create(map[string]any{"images": []string{"me.jpg"}}), status: 400,
				want: errInvalid("images must be http or https addresses")},
			{name: "images not an array", req: create(map[string]any{"images": pic}), status: 400, want: errInvalid("field images must be an array")},
			{name: "an image not a string", req: create(map[string]any{"images": []any{7}}), status: 400,
				want: errInvalid("field images must be a string")},
			{name: "title not a string", req: create(map[string]any{"title": 7}), status: 400, want: errInvalid("field title must be a string")},
			{name: "malformed JSON", req: POST(memoriesPath(u), `{"action":"create",`), status: 400, want: errInvalid("malformed JSON")},
			{name: "a JSON array", req: POST(memoriesPath(u), `[]`), status: 400, want: errInvalid("request body must be a JSON object")},
			{name: "not JSON", req: POST(memoriesPath(u), "x").asText(), status: 415, want: errNotJSON},
			{name: "create for another user", req: POST(memoriesPath(other), valid), status: 403, want: errNotYours},
			{name: "create without a token", req: create(nil).anonymous(), status: 401, want: errNoToken},
			{name: "list of another user", req: GET(memoriesPath(other)), status: 403, want: errNotYours},
			{name: "list without a token", req: GET(memoriesPath(u)).anonymous(), status: 401, want: errNoToken},
			{name: "list with a bad limit", req: GET(memoriesPath(u) + "?limit=0"), status: 400,
				want: errInvalid("limit must be a whole number from 1 to 500")},
			{name: "list with a forged cursor", req: GET(memoriesPath(u) + "?limit=2&cursor=forged"), status: 400,
				want: errInvalid("cursor is not one this server handed out")},
			{name: "count without date", req: GET(memoriesPath(u) + "/count"), status: 400, want: errInvalid("date is required (YYYY-MM-DD)")},
			{name: "count with a bad date", req: GET(memoriesPath(u) + "/count?date=2025-13-01"), status: 400,
				want: badDate("date must be a date in the form YYYY-MM-DD")},
			{name: "count of another user", req: GET(memoriesPath(other) + "/count?date=2025-06-01"), status: 403, want: errNotYours},
			{name: "range without startDate", req: GET(memoriesPath(u) + "/date-range?endDate=2025-06-01"), status: 400,
				want: errInvalid("startDate is required (YYYY-MM-DD)")},
			{name: "range without endDate", req: GET(memoriesPath(u) + "/date-range?startDate=2025-06-01"), status: 400,
				want: errInvalid("endDate is required (YYYY-MM-DD)")},
			{name: "range with a bad startDate", req: GET(memoryRangePath(u, "2025-6-1", "2025-06-30")), status: 400,
				want: badDate("startDate must be a date in the form YYYY-MM-DD")},
			{name: "range with an impossible endDate", req: GET(memoryRangePath(u, "2025-06-01", "2025-06-31")), status: 400,
				want: badDate("endDate must be a date in the form YYYY-MM-DD")},
			{name: "range with start after end", req: GET(memoryRangePath(u, "2025-06-02", "2025-06-01")), status: 400,
				want: errInvalid("startDate must not be after endDate")},
			{name: "range with a forged cursor", req: GET(memoryRangePath(u, "2025-06-01", "2025-06-02") + "&limit=1&cursor=x"), status: 400,
				want: errInvalid("cursor is not one this server handed out")},
			{name: "range of another user", req: GET(memoryRangePath(other, "2025-06-01", "2025-06-02")), status: 403, want: errNotYours},
			{name: "read an unknown memory", req: GET(memoryPath(u, "no-such-id")), status: 404, want: notFound},
			{name: "read a stranger's memory", req: GET(memoryPath(u, theirs)), status: 404, want: notFound},
			{name: "read through another user's path", req: GET(memoryPath(other, theirs)), status: 403, want: errNotYours},
			{name: "read without a token", req: GET(memoryPath(u, seedID)).anonymous(), status: 401, want: errNoToken},
			{name: "update with nothing", req: put(seedID, map[string]any{}), status: 400,
				want: errInvalid("send title and/or description to change")},
			{name: "update only nulls", req: put(seedID, `{"title":null}`), status: 400, want: errInvalid("send title and/or description to change")},
			{name: "update the date", req: put(seedID, map[string]any{"title": "x", "date": "2025-01-01"}), status: 400,
				want: errInvalid("date and images cannot be changed: send title and/or description")},
			{name: "update the images", req: put(seedID, map[string]any{"title": "x", "images": []string{"http://localhost:8080/files/u/x.jpg"}}), status: 400,
				want: errInvalid("date and images cannot be changed: send title and/or description")},
			{name: "update to a blank title", req: put(seedID, map[string]any{"title": " "}), status: 400, want: errInvalid("title is required")},
			{name: "update with description of 5001", req: put(seedID, map[string]any{"description": strings.Repeat("d", 5001)}), status: 400,
				want: errInvalid("description must be at most 5000 characters")},
			{name: "update with malformed JSON", req: put(seedID, `{"title":`), status: 400, want: errInvalid("malformed JSON")},
			{name: "update an unknown memory", req: put("no-such-id", map[string]any{"title": "x"}), status: 404, want: notFound},
			{name: "update a stranger's memory", req: put(theirs, map[string]any{"title": "x"}), status: 404, want: notFound},
			{name: "update without a memory id", req: PUT(memoriesPath(u)+"/", map[string]any{"title": "x"}), status: 405, want: errNotAllowed},
			{name: "update through another user's path", req: PUT(memoryPath(other, theirs), map[string]any{"title": "x"}), status: 403,
				want: errNotYours},
			{name: "delete an unknown memory", req: DELETE(memoryPath(u, "no-such-id")), status: 404, want: notFound},
			{name: "delete a stranger's memory", req: DELETE(memoryPath(u, theirs)), status: 404, want: notFound},
			{name: "delete without a memory id", req: DELETE(memoriesPath(u) + "/"), status: 405, want: errNotAllowed},
			{name: "delete through another user's path", req: DELETE(memoryPath(other, theirs)), status: 403, want: errNotYours},
			{name: "delete without a token", req: DELETE(memoryPath(u, seedID)).anonymous(), status: 401, want: errNoToken},
		})))
	})
}

func TestAccountDeletionTakesTheMemoriesAlong(t *testing.T) {
	eachProfileWith(t, func(t *testing.T, h *harness, repo memories.Repository) {
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
