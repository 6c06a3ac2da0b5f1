package tests

import (
	"context"
	"errors"
	"maps"
	"strings"
	"testing"
	"time"

	"go.uber.org/fx"

	"tandem/core"
	"tandem/modules/events"
)

// Calendar events, end to end: every endpoint, every row of the spec's event
// error table (as DESIGN answers it), the partner's read and the date-range rules.

func eventsPath(u user) string { return "/api/users/user/" + u.ID + "/events" }

func eventPath(u user, id string) string { return eventsPath(u) + "/" + id }

func dateRangePath(u user, from, to string) string {
	return withDates(eventsPath(u)+"/date-range", from, to)
}

// createEvent creates an event from fields (action create added) and returns
// the record the server answered.
func (h *harness) createEvent(u user, fields map[string]any) map[string]any {
	h.t.Helper()
	body := map[string]any{"action": "create"}
	maps.Copy(body, fields)
	r := h.post(eventsPath(u), u.Token, body)
	expect(h.t, r, 200, "")
	return r.JSON(h.t)
}

// eventBody is the exact JSON of an event record: the defaults of a minimal
// create, overridden by fields; created and updated are milliseconds.
func eventBody(id, userID string, created, updated int64, fields map[string]any) string {
	m := map[string]any{"id": id, "userId": userID, "title": "", "description": "", "startDate": "", "endDate": "",
		"startTime": "", "endTime": "", "location": "", "eventType": "other", "importanceLevel": "Medium", "notify": "",
		"participants": []string{}, "createdAt": created, "updatedAt": updated}
	maps.Copy(m, fields)
	return jsonStr(m)
}

// withPartnerFlag adds isPartnerEvent to an event body.
func withPartnerFlag(body string, partner bool) string {
	return body[:len(body)-1] + `,"isPartnerEvent":` + bstr(partner) + `}`
}

func TestEventsCreateListReadUpdateDelete(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		u := h.newUser("a@x.io")
		now := h.Clock.Now().UnixMilli()
		expect(t, h.get(eventsPath(u), u.Token), 200, `[]`)

		// every field
		full := map[string]any{"title": " Anniversary dinner ", "description": "table for two", "startDate": "2025-07-01",
			"endDate": "2025-07-02", "startTime": "19:30", "endTime": "01:00", "location": "Chez Nous", "eventType": "date",
			"importanceLevel": "High", "notify": "60", "participants": []string{"p1", " p2 ", "p1"}}
		r := h.post(eventsPath(u), u.Token, withAction(full))
		fullWant := map[string]any{"title": "Anniversary dinner", "description": "table for two", "startDate": "2025-07-01",
			"endDate": "2025-07-02", "startTime": "19:30", "endTime": "01:00", "location": "Chez Nous", "eventType": "date",
			"importanceLevel": "High", "notify": "60", "participants": []string{"p1", "p2"}}
		expect(t, r, 200, eventBody("<string>", u.ID, now, now, fullWant))
		fullID := r.JSON(t)["id"].(string)

		// only the required fields: the documented defaults; notify may be a JSON number
		r = h.post(eventsPath(u), u.Token, map[string]any{"action": "create", "title": "Dentist", "startDate": "2025-06-20", "notify": 15})
		minWant := map[string]any{"title": "Dentist", "startDate": "2025-06-20", "endDate": "2025-06-20", "notify": "15"}
		expect(t, r, 200, eventBody("<string>", u.ID, now, now, minWant))
		minID := r.JSON(t)["id"].(string)

		// read back: the list by date, and each one with isPartnerEvent false
		expect(t, h.get(eventsPath(u), u.Token), 200,
			"["+eventBody(minID, u.ID, now, now, minWant)+","+eventBody(fullID, u.ID, now, now, fullWant)+"]")
		expect(t, h.get(eventPath(u, fullID), u.Token), 200, withPartnerFlag(eventBody(fullID, u.ID, now, now, fullWant), false))

		// PUT a subset: the complete updated record; stored as answered
		h.Clock.Advance(time.Hour)
		later := h.Clock.Now().UnixMilli()
		r = h.do(req{Method: "PUT", Path: eventPath(u, fullID), Token: u.Token,
			Body: map[string]any{"title": "Dinner", "endDate": "2025-07-01", "endTime": "23:00", "notify": ""}})
		updated := maps.Clone(fullWant)
		maps.Copy(updated, map[string]any{"title": "Dinner", "endDate": "2025-07-01", "endTime": "23:00", "notify": ""})
		expect(t, r, 200, eventBody(fullID, u.ID, now, later, updated))
		expect(t, h.get(eventPath(u, fullID), u.Token), 200, withPartnerFlag(eventBody(fullID, u.ID, now, later, updated), false))

		// fields sent as null are left alone; empty strings clear; the list stays by date
		r = h.do(req{Method: "PUT", Path: eventPath(u, fullID), Token: u.Token,
			Body: `{"title":null,"description":"","location":"","participants":[],"startDate":"2025-06-01","endDate":"2025-06-01"}`})
		maps.Copy(updated, map[string]any{"description": "", "location": "", "participants": []string{}, "startDate": "2025-06-01", "endDate": "2025-06-01"})
		expect(t, r, 200, eventBody(fullID, u.ID, now, later, updated))
		expect(t, h.get(eventsPath(u), u.Token), 200,
			"["+eventBody(fullID, u.ID, now, later, updated)+","+eventBody(minID, u.ID, now, now, minWant)+"]")

		// DELETE is permanent
		expect(t, h.do(req{Method: "DELETE", Path: eventPath(u, fullID), Token: u.Token}), 200, `{"success":true}`)
		expect(t, h.get(eventPath(u, fullID), u.Token), 404, errBody("event_not_found", "event not found"))
		expect(t, h.do(req{Method: "DELETE", Path: eventPath(u, fullID), Token: u.Token}), 404, errBody("event_not_found", "event not found"))
		expect(t, h.get(eventsPath(u), u.Token), 200, "["+eventBody(minID, u.ID, now, now, minWant)+"]")

		// the export carries the user's events, as listed
		data := h.get("/api/users/user/"+u.ID+"/export", u.Token).JSON(t)["data"].(map[string]any)
		sameJSON(t, data["events"], "["+eventBody(minID, u.ID, now, now, minWant)+"]")
	})
}

func withAction(fields map[string]any) map[string]any {
	body := map[string]any{"action": "create"}
	maps.Copy(body, fields)
	return body
}

func TestEventsListPages(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		u := h.newUser("a@x.io")
		var want []string
		for _, day := range []string{"2025-01-05", "2025-01-01", "2025-01-03", "2025-01-03", "2025-01-02"} {
			h.createEvent(u, map[string]any{"title": "on " + day, "startDate": day})
		}
		for _, e := range listEvents(t, h, u, "") {
			want = append(want, e["startDate"].(string))
		}
		if strings.Join(want, ",") != "2025-01-01,2025-01-02,2025-01-03,2025-01-03,2025-01-05" {
			t.Fatalf("unpaged order %v", want)
		}
		var got []string
		for _, r := range pages(t, 2, func(q string) response { return h.get(eventsPath(u)+"?"+q, u.Token) }) {
			for _, e := range jsonArray(t, r) {
				got = append(got, e["startDate"].(string)+" "+e["id"].(string))
			}
		}
		if len(got) != 5 || strings.Join(want, ",") != strings.Join(firstWords(got), ",") {
			t.Fatalf("pages %v", got)
		}
		if r := h.get(eventsPath(u)+"?limit=5", u.Token); r.Header.Get("X-Next-Cursor") != "" {
			t.Fatal("a cursor after the last page")
		}
		if r := h.get(eventsPath(u), u.Token); r.Header.Get("X-Next-Cursor") != "" {
			t.Fatal("a cursor on an unpaged list")
		}
	})
}

func listEvents(t *testing.T, h *harness, u user, query string) []map[string]any {
	t.Helper()
	r := h.get(eventsPath(u)+query, u.Token)
	expect(t, r, 200, "")
	return jsonArray(t, r)
}

func firstWords(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i], _, _ = strings.Cut(s, " ")
	}
	return out
}

func TestEventsOfThePartner(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		me, partner, stranger := h.newUser("a@x.io"), h.newUser("b@x.io"), h.newUser("c@x.io")
		h.pair(me, partner)
		now := h.Clock.Now().UnixMilli()
		theirs := h.createEvent(partner, map[string]any{"title": "Their trip", "startDate": "2025-07-01", "endDate": "2025-07-05",
			"eventType": "traveling", "participants": []string{me.ID}})
		id := theirs["id"].(string)
		body := eventBody(id, partner.ID, now, now, map[string]any{"title": "Their trip", "startDate": "2025-07-01",
			"endDate": "2025-07-05", "eventType": "traveling", "participants": []string{me.ID}})

		// the partner's event through the caller's own path, marked
		expect(t, h.get(eventPath(me, id), me.Token), 200, withPartnerFlag(body, true))
		expect(t, h.get(eventPath(partner, id), partner.Token), 200, withPartnerFlag(body, false))
		// reading is all: only the owner changes or deletes it
		expect(t, h.do(req{Method: "PUT", Path: eventPath(me, id), Token: me.Token, Body: map[string]any{"title": "Mine now"}}),
			404, errBody("event_not_found", "event not found"))
		expect(t, h.do(req{Method: "DELETE", Path: eventPath(me, id), Token: me.Token}), 404, errBody("event_not_found", "event not found"))
		// the list is one's own; strangers never see it
		expect(t, h.get(eventsPath(me), me.Token), 200, `[]`)
		expect(t, h.get(eventPath(stranger, id), stranger.Token), 404, errBody("event_not_found", "event not found"))
		// the stored event is untouched
		expect(t, h.get(eventPath(partner, id), partner.Token), 200, withPartnerFlag(body, false))

		// after unlinking it is the partner's own business again
		expect(t, h.keyed("POST", "/api/partnerConnections/unlink", me, map[string]any{"userId": me.ID}), 200, "")
		expect(t, h.get(eventPath(me, id), me.Token), 404, errBody("event_not_found", "event not found"))
		expect(t, h.get(dateRangePath(me, "2025-07-01", "2025-07-05"), me.Token), 200, emptyRange("2025-07-01", "2025-07-05"))
	})
}

// rangeItem is one date-range data element.
type rangeItem struct {
	id, start, end, title, typ string
	partner                    bool
}

func (i rangeItem) json() string {
	return `{"id":"` + i.id + `","startDate":"` + i.start + `","endDate":"` + i.end + `","title":"` + i.title +
		`","eventType":"` + i.typ + `","isPartnerEvent":` + bstr(i.partner) + `}`
}

func rangeItems(items []rangeItem) string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.json()
	}
	return "[" + strings.Join(out, ",") + "]"
}

// rangeBody is the exact date-range reply; coverage "" is null.
func rangeBody(from, to, covStart, covEnd string, days int, exactMsg string, exact []rangeItem, otherMsg string, other []rangeItem) string {
	cov := `{"start":null,"end":null}`
	if covStart != "" {
		cov = `{"start":"` + covStart + `T00:00:00Z","end":"` + covEnd + `T00:00:00Z"}`
	}
	return `{"dateRange":{"requested":{"startDate":"` + from + `","endDate":"` + to + `"},"actualCoverage":` + cov + `},` +
		`"summary":{"totalEvents":` + itoa(int64(len(exact)+len(other))) + `,"exactMatches":` + itoa(int64(len(exact))) +
		`,"dateCoverageDays":` + itoa(int64(days)) + `},` +
		`"events":{"exactMatches":{"message":"` + exactMsg + `","data":` + rangeItems(exact) + `},` +
		`"otherRecents":{"message":"` + otherMsg + `","data":` + rangeItems(other) + `}}}`
}

func emptyRange(from, to string) string {
	return rangeBody(from, to, "", "", 0, "no events exactly from "+from+" to "+to, nil,
		"no events overlapping "+from+" to "+to, nil)
}

func TestEventsDateRangeRules(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		me, partner, stranger := h.newUser("a@x.io"), h.newUser("b@x.io"), h.newUser("c@x.io")
		h.pair(me, partner)
		made := map[string]rangeItem{}
		add := func(u user, title, start, end, typ string) {
			e := h.createEvent(u, map[string]any{"title": title, "startDate": start, "endDate": end, "eventType": typ})
			made[title] = rangeItem{id: e["id"].(string), start: start, end: end, title: title, typ: typ, partner: u == partner}
		}
		add(me, "exact", "2025-03-01", "2025-03-03", "date")
		add(me, "inside", "2025-03-02", "2025-03-02", "task")
		add(me, "ends on the first day", "2025-02-20", "2025-03-01", "traveling")
		add(me, "starts on the last day", "2025-03-03", "2025-03-10", "meeting")
		add(me, "before", "2025-02-01", "2025-02-28", "other")
		add(me, "after", "2025-03-04", "2025-03-04", "other")
		add(me, "longest", "2024-02-29", "2025-03-01", "reminder") // 366 days, starts at the query's lower bound
		add(partner, "partner exact", "2025-03-01", "2025-03-03", "date")
		add(partner, "partner around", "2025-02-15", "2025-03-15", "traveling")
		add(stranger, "stranger exact", "2025-03-01", "2025-03-03", "date")
		it := func(titles ...string) []rangeItem {
			out := make([]rangeItem, len(titles))
			for i, title := range titles {
				out[i] = made[title]
			}
			return out
		}
		// Order within a list: start date, then id; the two exact matches share a start date.
		exactPair := it("exact", "partner exact")
		if made["partner exact"].id < made["exact"].id {
			exactPair = it("partner exact", "exact")
		}
		cases := []struct {
			name, from, to string
			want           string
		}{
			{"exact matches, partial overlaps both ways, inclusive bounds, the partner's marked", "2025-03-01", "2025-03-03",
				rangeBody("2025-03-01", "2025-03-03", "2024-02-29", "2025-03-15", 381,
					"2 events exactly from 2025-03-01 to 2025-03-03", exactPair,
					"5 events overlapping 2025-03-01 to 2025-03-03",
					it("longest", "partner around", "ends on the first day", "inside", "starts on the last day"))},
			{"a one-day range", "2025-03-04", "2025-03-04",
				rangeBody("2025-03-04", "2025-03-04", "2025-02-15", "2025-03-15", 29,
					"1 event exactly from 2025-03-04 to 2025-03-04", it("after"),
					"2 events overlapping 2025-03-04 to 2025-03-04", it("partner around", "starts on the last day"))},
			{"only multi-day events reach into it", "2025-03-11", "2025-03-20",
				rangeBody("2025-03-11", "2025-03-20", "2025-02-15", "2025-03-15", 29,
					"no events exactly from 2025-03-11 to 2025-03-20", nil,
					"1 event overlapping 2025-03-11 to 2025-03-20", it("partner around"))},
			{"nothing there: empty lists and null coverage", "2030-01-01", "2030-12-31", emptyRange("2030-01-01", "2030-12-31")},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				expect(t, h.get(dateRangePath(me, tc.from, tc.to), me.Token), 200, tc.want)
			})
		}
		// the partner sees the same events from the other side
		r := h.get(dateRangePath(partner, "2025-03-11", "2025-03-20"), partner.Token)
		around := made["partner around"]
		around.partner = false
		expect(t, r, 200, rangeBody("2025-03-11", "2025-03-20", "2025-02-15", "2025-03-15", 29,
			"no events exactly from 2025-03-11 to 2025-03-20", nil,
			"1 event overlapping 2025-03-11 to 2025-03-20", []rangeItem{around}))
	})
}

func TestEventErrors(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		u, other := h.newUser("a@x.io"), h.newUser("b@x.io")
		seed := h.createEvent(u, map[string]any{"title": "Seed", "startDate": "2025-07-01"})
		seedID := seed["id"].(string)
		theirs := h.createEvent(other, map[string]any{"title": "Not yours", "startDate": "2025-07-01"})["id"].(string)
		create := func(edit map[string]any) req {
			return POST(eventsPath(u), edited(map[string]any{"action": "create", "title": "T", "startDate": "2025-07-01"}, edit))
		}
		notFound := errBody("event_not_found", "event not found")
		badDate := func(msg string) string { return errBody("invalid_date", msg) }
		notify := "notify must be a number of minutes before the start, from 0 to 40320 (4 weeks), or empty"
		eventTypes := "eventType must be one of date, meeting, reminder, traveling, task, other"
		rangeDates := "startDate and endDate are required (YYYY-MM-DD)"
		now := h.Clock.Now().UnixMilli()
		unchanged := func(t *testing.T, h *harness) {
			expect(t, h.get(eventsPath(u), u.Token), 200, "["+eventBody(seedID, u.ID, now, now,
				map[string]any{"title": "Seed", "startDate": "2025-07-01", "endDate": "2025-07-01"})+"]")
			expect(t, h.get(eventPath(other, theirs), other.Token), 200, withPartnerFlag(eventBody(theirs, other.ID, now, now,
				map[string]any{"title": "Not yours", "startDate": "2025-07-01", "endDate": "2025-07-01"}), false))
		}
		runScenarios(t, h, afterEach(unchanged, signedIn(u, []scenario{
			// Event create: 400 missing required fields or invalid action; 404 user not found (401/403 here)
			{name: "create without action", req: create(map[string]any{"action": nil}), status: 400, want: errInvalid("action is required: create")},
			{name: "create with another action", req: create(map[string]any{"action": "update"}), status: 400,
				want: errInvalid(`unknown action \"update\": use create`)},
			{name: "create without title", req: create(map[string]any{"title": nil}), status: 400, want: errInvalid("title is required")},
			{name: "create with a blank title", req: create(map[string]any{"title": "  "}), status: 400, want: errInvalid("title is required")},
			{name: "create without startDate", req: create(map[string]any{"startDate": nil}), status: 400,
				want: errInvalid("startDate is required (YYYY-MM-DD)")},
			{name: "title of 201", req: create(map[string]any{"title": strings.Repeat("t", 201)}), status: 400,
				want: errInvalid("title must be at most 200 characters")},
			{name: "description of 2001", req: create(map[string]any{"description": strings.Repeat("d", 2001)}), status: 400,
				want: errInvalid("description must be at most 2000 characters")},
			{name: "location of 201", req: create(map[string]any{"location": strings.Repeat("l", 201)}), status: 400,
				want: errInvalid("location must be at most 200 characters")},
			{name: "bad startDate", req: create(map[string]any{"startDate": "07/01/2025"}), status: 400,
				want: badDate("startDate must be a date in the form YYYY-MM-DD")},
			{name: "impossible endDate", req: create(map[string]any{"endDate": "2025-06-31"}), status: 400,
				want: badDate("endDate must be a date in the form YYYY-MM-DD")},
			{name: "end before start", req: create(map[string]any{"endDate": "2025-06-30"}), status: 400,
				want: badDate("endDate must not be before startDate")},
			{name: "longer than 366 days", req: create(map[string]any{"endDate": "2026-07-03"}), status: 400,
				want: badDate("an event may last at most 366 days: endDate must be at most 366 days after startDate")},
			{name: "bad startTime", req: create(map[string]any{"startTime": "7pm"}), status: 400,
				want: errBody("invalid_time", "startTime must be a time in the form HH:mm")},
			{name: "endTime before startTime", req: create(map[string]any{"startTime": "10:00", "endTime": "09:30"}), status: 400,
				want: errBody("invalid_time", "endTime must not be before startTime on a one-day event")},
			{name: "unknown eventType", req: create(map[string]any{"eventType": "party"}), status: 400, want: errInvalid(eventTypes)},
			{name: "unknown importanceLevel", req: create(map[string]any{"importanceLevel": "urgent"}), status: 400,
				want: errInvalid("importanceLevel must be one of Low, Medium, High")},
			{name: "notify not minutes", req: create(map[string]any{"notify": "1 hour"}), status: 400, want: errInvalid(notify)},
			{name: "notify over four weeks", req: create(map[string]any{"notify": 40321}), status: 400, want: errInvalid(notify)},
			{name: "notify a fraction", req: create(map[string]any{"notify": 1.5}), status: 400,
				want: errInvalid("field notify must be a string of minutes (or a whole number)")},
			{name: "21 participants", req: create(map[string]any{"participants": make([]string, 21)}), status: 400,
				want: errInvalid("participants may hold at most 20 user ids")},
			{name: "participants not an array", req: create(map[string]any{"participants": "p1"}), status: 400,
				want: errInvalid("field participants must be an array")},
			{name: "title not a string", req: create(map[string]any{"title": 7}), status: 400, want: errInvalid("field title must be a string")},
			{name: "malformed JSON", req: POST(eventsPath(u), `{"action":"create",`), status: 400, want: errInvalid("malformed JSON")},
			{name: "not JSON", req: POST(eventsPath(u), "x").asText(), status: 415, want: errNotJSON},
			{name: "create for another user", req: POST(eventsPath(other), create(nil).Body), status: 403, want: errNotYours},
			{name: "create without a token", req: create(nil).anonymous(), status: 401, want: errNoToken},
			// Event list: 400 missing user id; 404 user not found (401/403 here)
			{name: "list of another user", req: GET(eventsPath(other)), status: 403, want: errNotYours},
			{name: "list without a token", req: GET(eventsPath(u)).anonymous(), status: 401, want: errNoToken},
			{name: "list without a user id", req: GET("/api/users/user//events"), status: 404, want: errBody("not_found", "no such route")},
			{name: "list with a bad limit", req: GET(eventsPath(u) + "?limit=501"), status: 400,
				want: errInvalid("limit must be a whole number from 1 to 500")},
			{name: "list with a forged cursor", req: GET(eventsPath(u) + "?limit=2&cursor=forged"), status: 400,
				want: errInvalid("cursor is not one this server handed out")},
			// Event single read: 400 missing ids; 404 event not found
			{name: "read an unknown event", req: GET(eventPath(u, "no-such-id")), status: 404, want: notFound},
			{name: "read a stranger's event", req: GET(eventPath(u, theirs)), status: 404, want: notFound},
			{name: "read through another user's path", req: GET(eventPath(other, theirs)), status: 403, want: errNotYours},
			{name: "read without a token", req: GET(eventPath(u, seedID)).anonymous(), status: 401, want: errNoToken},
			// Event update: 400 missing ids or invalid fields; 404 event not found
			{name: "update an unknown event", req: PUT(eventPath(u, "no-such-id"), map[string]any{"title": "x"}), status: 404, want: notFound},
			{name: "update a stranger's event", req: PUT(eventPath(u, theirs), map[string]any{"title": "x"}), status: 404, want: notFound},
			{name: "update with nothing", req: PUT(eventPath(u, seedID), map[string]any{}), status: 400,
				want: errInvalid("send at least one event field to change")},
			{name: "update with an invalid field", req: PUT(eventPath(u, seedID), map[string]any{"title": "ok", "eventType": "party"}), status: 400,
				want: errInvalid(eventTypes)},
			{name: "update moving the start past the end", req: PUT(eventPath(u, seedID), map[string]any{"startDate": "2025-07-02"}), status: 400,
				want: badDate("endDate must not be before startDate")},
			{name: "update with malformed JSON", req: PUT(eventPath(u, seedID), `{"title":`), status: 400, want: errInvalid("malformed JSON")},
			{name: "update without an event id", req: PUT(eventsPath(u)+"/", map[string]any{"title": "x"}), status: 405, want: errNotAllowed},
			{name: "update through another user's path", req: PUT(eventPath(other, theirs), map[string]any{"title": "x"}), status: 403,
				want: errNotYours},
			// Event delete: 400 missing ids; 404 event not found
			{name: "delete an unknown event", req: DELETE(eventPath(u, "no-such-id")), status: 404, want: notFound},
			{name: "delete a stranger's event", req: DELETE(eventPath(u, theirs)), status: 404, want: notFound},
			{name: "delete without an event id", req: DELETE(eventsPath(u) + "/"), status: 405, want: errNotAllowed},
			{name: "delete through another user's path", req: DELETE(eventPath(other, theirs)), status: 403, want: errNotYours},
			// Event date-range: 400 missing dates, invalid format, start after end; 404 user not found (403 here)
			{name: "range without startDate", req: GET(eventsPath(u) + "/date-range?endDate=2025-03-03"), status: 400, want: errInvalid(rangeDates)},
			{name: "range without endDate", req: GET(eventsPath(u) + "/date-range?startDate=2025-03-01"), status: 400, want: errInvalid(rangeDates)},
			{name: "range without dates", req: GET(eventsPath(u) + "/date-range"), status: 400, want: errInvalid(rangeDates)},
			{name: "range with a bad startDate", req: GET(dateRangePath(u, "2025-3-1", "2025-03-03")), status: 400,
				want: badDate("startDate must be a date in the form YYYY-MM-DD")},
			{name: "range with an impossible endDate", req: GET(dateRangePath(u, "2025-03-01", "2025-02-30")), status: 400,
				want: badDate("endDate must be a date in the form YYYY-MM-DD")},
			{name: "range with start after end", req: GET(dateRangePath(u, "2025-03-05", "2025-03-01")), status: 400,
				want: errInvalid("startDate must not be after endDate")},
			{name: "range of another user", req: GET(dateRangePath(other, "2025-03-01", "2025-03-03")), status: 403, want: errNotYours},
			{name: "range without a token", req: GET(dateRangePath(u, "2025-03-01", "2025-03-03")).anonymous(), status: 401, want: errNoToken},
		})))
	})
}

// brokenEvents fails every read, as a database that lost its disk would.
type brokenEvents struct{ events.Repository }

var errDiskOnFire = errors.New("disk on fire")

func (brokenEvents) List(context.Context, string, core.Page) ([]events.Event, string, error) {
	return nil, "", core.Internal(errDiskOnFire)
}

func (brokenEvents) Overlapping(context.Context, []string, core.Date, core.Date) ([]events.Event, error) {
	return nil, errDiskOnFire
}

func TestEventsInternalErrorIsGeneric(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		u := h.newUser("a@x.io")
		internal := errBody("internal_error", "internal error")
		expect(t, h.get(eventsPath(u), u.Token), 500, internal)
		expect(t, h.get(dateRangePath(u, "2025-03-01", "2025-03-03"), u.Token), 500, internal)
	}, withFx(fx.Decorate(func(r events.Repository) events.Repository { return brokenEvents{r} })))
}

func TestAccountDeletionTakesTheEventsAlong(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		leaver, partner := h.newUser("a@x.io"), h.newUser("b@x.io")
		h.pair(leaver, partner)
		gone := h.createEvent(leaver, map[string]any{"title": "Gone", "startDate": "2025-03-01"})["id"].(string)
		kept := h.createEvent(partner, map[string]any{"title": "Kept", "startDate": "2025-03-01", "participants": []string{leaver.ID}})
		expect(t, h.get(eventPath(partner, gone), partner.Token), 200, "")

		expect(t, h.do(req{Method: "DELETE", Path: "/api/users/user/" + leaver.ID, Token: leaver.Token}), 200, "")
		expect(t, h.get(eventPath(partner, gone), partner.Token), 404, errBody("event_not_found", "event not found"))
		item := rangeItem{id: kept["id"].(string), start: "2025-03-01", end: "2025-03-01", title: "Kept", typ: "other"}
		expect(t, h.get(dateRangePath(partner, "2025-03-01", "2025-03-01"), partner.Token), 200,
			rangeBody("2025-03-01", "2025-03-01", "2025-03-01", "2025-03-01", 1, "1 event exactly from 2025-03-01 to 2025-03-01",
				[]rangeItem{item}, "no events overlapping 2025-03-01 to 2025-03-01", nil))
	})
}
