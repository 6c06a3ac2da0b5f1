package tests

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// The feed's kinds beyond messages and memories (issue 47): each write
// reaches the feed of every reader who may read its record, with the JSON
// that reader's REST read returns, and no one else's.

// feedWant is one change a feed must hold: a put holds what the reader's
// GET of path returns now; a delete holds no data.
type feedWant struct {
	kind, id, op string
	path         string // a put's REST read (the reader's)
	list         string // when the read is a list: the key of its items ("" for a bare array); the put is the item of the id
}

// readOf is the body of reader's REST read of w: the whole body, or the
// item of w.id of its list.
func (h *harness) readOf(reader user, w feedWant) string {
	h.t.Helper()
	read := h.get(w.path, reader.Token)
	expect(h.t, read, 200, "")
	if w.list == "" && read.Body[0] != '[' {
		return strings.TrimSpace(string(read.Body))
	}
	raw := json.RawMessage(read.Body)
	if w.list != "" {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(read.Body, &obj); err != nil {
			h.t.Fatal(err)
		}
		raw = obj[w.list]
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		h.t.Fatal(err)
	}
	for _, it := range items {
		var id struct{ ID string }
		if json.Unmarshal(it, &id) == nil && id.ID == w.id {
			return string(it)
		}
	}
	h.t.Fatalf("%s lists no %s: %s", w.path, w.id, read.Body)
	return ""
}

// wantFeed fails unless got is exactly want, in order, each put's data
// being the body of the reader's REST read.
func (h *harness) wantFeed(reader user, got []feedChange, want []feedWant) {
	h.t.Helper()
	if len(got) != len(want) {
		h.t.Fatalf("%s's feed: %s, want %d changes", reader.ID, jsonStr(got), len(want))
	}
	for i, w := range want {
		c := got[i]
		if c.Kind != w.kind || c.ID != w.id || c.Op != w.op {
			h.t.Fatalf("%s's change %d: %s %s %s, want %s %s %s", reader.ID, i, c.Kind, c.ID, c.Op, w.kind, w.id, w.op)
		}
		if w.op == "delete" {
			if c.Data != nil {
				h.t.Fatalf("%s's change %d: a delete with data %s", reader.ID, i, c.Data)
			}
			continue
		}
		if read := h.readOf(reader, w); string(c.Data) != read {
			h.t.Fatalf("%s's change %d: data %s, the REST read %s", reader.ID, i, c.Data, read)
		}
	}
}

// An event's create, update and delete reach its owner's feed and the
// partner's, each as their own single read shows it (isPartnerEvent), and
// never a stranger's.
func TestChangesFeedCarriesEventsToBothPartners(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		ann, bob, eve := h.newUser("ann@x.io"), h.newUser("bob@x.io"), h.newUser("eve@x.io")
		h.pair(ann, bob)
		anns, bobs, eves := h.cursorOf(ann), h.cursorOf(bob), h.cursorOf(eve)
		kept := h.createEvent(ann, map[string]any{"title": "Dinner", "startDate": "2025-07-01"})["id"].(string)
		expect(t, h.do(req{Method: "PUT", Path: eventPath(ann, kept), Token: ann.Token, Body: map[string]any{"title": "Late dinner"}}), 200, "")
		gone := h.createEvent(ann, map[string]any{"title": "Oops", "startDate": "2025-07-02"})["id"].(string)
		expect(t, h.do(req{Method: "DELETE", Path: eventPath(ann, gone), Token: ann.Token}), 200, `{"success":true}`)
		got, _ := h.catchUp(ann, anns, 100)
		h.wantFeed(ann, got, []feedWant{{kind: "event", id: kept, op: "put", path: eventPath(ann, kept)}, {kind: "event", id: gone, op: "delete"}})
		got, _ = h.catchUp(bob, bobs, 100)
		h.wantFeed(bob, got, []feedWant{{kind: "event", id: kept, op: "put", path: eventPath(bob, kept)}, {kind: "event", id: gone, op: "delete"}})
		if got, _ := h.catchUpAll(eve, eves, 100); len(got) != 0 {
			t.Fatalf("a stranger's feed: %s", jsonStr(got))
		}
		// a refused write records nothing: the partner may not change ann's event
		expect(t, h.do(req{Method: "PUT", Path: eventPath(bob, kept), Token: bob.Token, Body: map[string]any{"title": "Mine"}}), 404, "")
		if got, _ := h.catchUp(bob, bobs, 100); len(got) != 2 {
			t.Fatalf("a refused update reached the feed: %s", jsonStr(got))
		}
	})
}

// A mood's check-in reaches the owner's feed and the partner's, with the
// mood as their list shows it; a second check-in the same day is a put of
// the same mood (its id kept).
func TestChangesFeedCarriesMoodsToBothPartners(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		ann, bob, eve := h.newUser("ann@x.io"), h.newUser("bob@x.io"), h.newUser("eve@x.io")
		h.pair(ann, bob)
		anns, bobs, eves := h.cursorOf(ann), h.cursorOf(bob), h.cursorOf(eve)
		id := h.checkIn(ann, map[string]any{"mood": "low"})["id"].(string)
		first, _ := h.catchUp(bob, bobs, 100)
		h.Clock.Advance(time.Minute)
		h.checkIn(ann, map[string]any{"mood": "great", "note": "better"})
		got, _ := h.catchUp(ann, anns, 100) // two puts of one record, collapsed to the last
		h.wantFeed(ann, got, []feedWant{{kind: "mood", id: id, op: "put", path: moodsPath(ann), list: "moods"}})
		got, _ = h.catchUp(bob, bobs, 100)
		h.wantFeed(bob, got, []feedWant{{kind: "mood", id: id, op: "put", path: moodsPath(bob), list: "moods"}})
		if len(first) != 1 || first[0].ID != id || !strings.Contains(string(first[0].Data), `"mood":"low"`) {
			t.Fatalf("the first check-in in bob's feed: %s", jsonStr(first))
		}
		if got, _ := h.catchUpAll(eve, eves, 100); len(got) != 0 {
			t.Fatalf("a stranger's feed: %s", jsonStr(got))
		}
	})
}
