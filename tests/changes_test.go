package tests

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// The change feed (issue 47), end to end: the cursor without since, what
// a partner's writes put in the feed (exactly the REST read's JSON), pages,
// the cursor's binding to its user and its retention, and every refusal.

func changesPath(u user) string { return "/api/users/user/" + u.ID + "/changes" }

// feedChange is one change of the feed as the app reads it.
type feedChange struct {
	Kind string          `json:"kind"`
	ID   string          `json:"id"`
	Op   string          `json:"op"`
	Data json.RawMessage `json:"data"`
}

type feedPage struct {
	Success bool         `json:"success"`
	Changes []feedChange `json:"changes"`
	Cursor  string       `json:"cursor"`
	HasMore bool         `json:"hasMore"`
}

// feed reads u's feed after since (a query such as "&limit=2" may follow).
func (h *harness) feed(u user, since, query string) feedPage {
	h.t.Helper()
	r := h.get(changesPath(u)+"?since="+since+query, u.Token)
	expect(h.t, r, 200, `{"success":true,"changes":"<any>","cursor":"<string>","hasMore":"<bool>"}`)
	var p feedPage
	if err := json.Unmarshal(r.Body, &p); err != nil {
		h.t.Fatal(err)
	}
	return p
}

// cursorOf is u's current cursor: the feed without since.
func (h *harness) cursorOf(u user) string {
	h.t.Helper()
	r := h.get(changesPath(u), u.Token)
	expect(h.t, r, 200, `{"success":true,"changes":[],"cursor":"<string>","hasMore":false}`)
	return r.JSON(h.t)["cursor"].(string)
}

// catchUp reads u's feed from since to its end, page by page, and returns
// the changes but the notifications, and the last cursor. The inbox entries
// a partner's writes bring (partner activity) are every kind's neighbours:
// their own test reads them (catchUpAll).
func (h *harness) catchUp(u user, since string, limit int) ([]feedChange, string) {
	h.t.Helper()
	all, since := h.catchUpAll(u, since, limit)
	return withoutKind(all, "notification"), since
}

// withoutKind are the changes of got but those of kind.
func withoutKind(got []feedChange, kind string) []feedChange {
	out := []feedChange{}
	for _, c := range got {
		if c.Kind != kind {
			out = append(out, c)
		}
	}
	return out
}

// catchUpAll reads u's feed from since to its end, page by page, and
// returns every change and the last cursor.
func (h *harness) catchUpAll(u user, since string, limit int) ([]feedChange, string) {
	h.t.Helper()
	var all []feedChange
	for range 1000 {
		p := h.feed(u, since, "&limit="+itoa(int64(limit)))
		all, since = append(all, p.Changes...), p.Cursor
		if !p.HasMore {
			return all, since
		}
	}
	h.t.Fatal("the feed never ended")
	return nil, ""
}

func TestChangesFeedCarriesThePartnersMessagesAsTheListShowsThem(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		ann, bob := h.newUser("ann@x.io"), h.newUser("bob@x.io")
		h.pair(ann, bob)
		since, bobs := h.cursorOf(ann), h.cursorOf(bob)
		expect(t, h.get(changesPath(ann)+"?since="+since, ann.Token), 200,
			`{"success":true,"changes":[],"cursor":"<string>","hasMore":false}`)
		ids := []string{h.sendMessage(bob, "one"), h.sendMessage(bob, "two"), h.sendMessage(ann, "three")}
		first := h.feed(ann, since, "&limit=2")
		if !first.HasMore || len(first.Changes) != 2 {
			t.Fatalf("limit 2 of 3: %+v", first)
		}
		rest, last := h.catchUpAll(ann, first.Cursor, 100)
		// the messages, each with ann's activity entry (bob's messages) in between
		got := withoutKind(append(first.Changes, rest...), "notification")
		if len(got) != 3 || len(rest) == 0 {
			t.Fatalf("the rest: %s", jsonStr(rest))
		}
		var list []json.RawMessage
		if err := json.Unmarshal(h.keyed("GET", "/api/messages/list", ann, nil).Body, &list); err != nil {
			t.Fatal(err)
		}
		for i, id := range ids { // commit order; the list is newest first
			c := got[i]
			if c.Kind != "message" || c.ID != id || c.Op != "put" || string(c.Data) != string(list[len(list)-1-i]) {
				t.Fatalf("change %d: %+v (data %s), want the put of %s as listed: %s", i, c, c.Data, id, list[len(list)-1-i])
			}
		}
		after := h.feed(ann, last, "")
		if len(after.Changes) != 0 || after.HasMore {
			t.Fatalf("caught up: %+v", after)
		}
		if theirs, _ := h.catchUp(bob, bobs, 500); jsonStr(theirs) != jsonStr(got) { // the thread is the same for both
			t.Fatalf("bob's feed %s, ann's %s", jsonStr(theirs), jsonStr(got))
		}
	})
}

func TestChangesFeedRefusals(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		ann, bob, eve := h.newUser("ann@x.io"), h.newUser("bob@x.io"), h.newUser("eve@x.io")
		h.pair(ann, bob)
		since := h.cursorOf(ann)
		expired := errBody("cursor_expired", "this cursor has expired; refetch and start again from a new cursor")
		runScenarios(t, h, []scenario{
			{name: "no token", req: GET(changesPath(ann)), status: 401, want: errNoToken},
			{name: "another user's feed (the partner's)", req: GET(changesPath(ann) + "?since=" + since).by(bob), status: 403, want: errNotYours},
			{name: "another user's feed (a stranger's)", req: GET(changesPath(ann)).by(eve), status: 403, want: errNotYours},
			{name: "another user's cursor", req: GET(changesPath(bob) + "?since=" + since).by(bob), status: 410, want: expired},
			{name: "a cursor the server never made", req: GET(changesPath(ann) + "?since=bm90LWEtY3Vyc29y").by(ann), status: 400,
				want: errInvalid("cursor is not one this server handed out")},
			{name: "limit 0", req: GET(changesPath(ann) + "?limit=0").by(ann), status: 400, want: errInvalid("limit must be a whole number from 1 to 500")},
			{name: "limit 501", req: GET(changesPath(ann) + "?since=" + since + "&limit=501").by(ann), status: 400,
				want: errInvalid("limit must be a whole number from 1 to 500")},
			{name: "limit not a number", req: GET(changesPath(ann) + "?limit=x").by(ann), status: 400,
				want: errInvalid("limit must be a whole number from 1 to 500")},
		})
		// the stranger's feed holds nothing of the couple's
		evesCursor := h.cursorOf(eve)
		h.sendMessage(ann, "private")
		if got := h.feed(eve, evesCursor, ""); len(got.Changes) != 0 {
			t.Fatalf("a stranger's feed: %+v", got)
		}
		// past the retention (30 days) a cursor is gone: refetch
		h.Clock.Advance(30*24*time.Hour + time.Minute)
		expect(t, h.get(changesPath(ann)+"?since="+since, ann.Token), 410, expired)
		fresh := h.cursorOf(ann)
		expect(t, h.get(changesPath(ann)+"?since="+fresh, ann.Token), 200, `{"success":true,"changes":[],"cursor":"<string>","hasMore":false}`)
	})
}

// A memory's create, update and delete reach its owner's feed (collapsed
// per record to the last), never the partner's: memories are private.
func TestChangesFeedCarriesTheOwnersMemories(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		ann, bob := h.newUser("ann@x.io"), h.newUser("bob@x.io")
		h.pair(ann, bob)
		since, bobs := h.cursorOf(ann), h.cursorOf(bob)
		kept := h.createMemory(ann, map[string]any{"title": "Beach", "date": "2025-06-01"})
		expect(t, h.do(req{Method: "PUT", Path: memoriesPath(ann) + "/" + kept, Token: ann.Token,
			Body: map[string]any{"title": "Beach day"}}), 200, "")
		gone := h.createMemory(ann, map[string]any{"title": "Oops", "date": "2025-06-02"})
		expect(t, h.do(req{Method: "DELETE", Path: memoriesPath(ann) + "/" + gone, Token: ann.Token}), 200, "")
		got, _ := h.catchUp(ann, since, 100)
		read := h.get(memoriesPath(ann)+"/"+kept, ann.Token)
		expect(t, read, 200, "")
		if len(got) != 2 || got[0].Kind != "memory" || got[0].ID != kept || got[0].Op != "put" ||
			got[1].ID != gone || got[1].Op != "delete" || got[1].Data != nil {
			t.Fatalf("ann's feed: %s", jsonStr(got))
		}
		if string(got[0].Data) != strings.TrimSpace(string(read.Body)) {
			t.Fatalf("the put's data %s, the REST read %s", got[0].Data, read.Body)
		}
		if theirs, _ := h.catchUp(bob, bobs, 100); len(theirs) != 0 {
			t.Fatalf("the partner's feed holds ann's private memories: %s", jsonStr(theirs))
		}
	})
}
