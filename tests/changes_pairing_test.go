package tests

import (
	"encoding/json"
	"slices"
	"testing"
)

// What a pairing and its end change besides the pairing itself (issue
// 47): a new partner reads the other's events from the moment of pairing,
// and the solo thread is listed only while unpaired. The feed must hold
// each, or an app applying it ends elsewhere than its refetch.

// A pairing, by codes or by link, puts the partner's events (those from
// before it too) in each member's feed, as the member's single read shows
// them, and deletes each member's solo thread, which the list no longer
// shows; a stranger's feed holds none of it.
func TestChangesFeedPairingPutsWhatThePartnerReads(t *testing.T) {
	for _, flow := range []struct {
		name string
		pair func(h *harness, a, b user)
	}{
		{"codes", (*harness).pairByCodes},
		{"link", (*harness).pairByLink},
	} {
		t.Run(flow.name, func(t *testing.T) {
			eachProfile(t, func(t *testing.T, h *harness) {
				ann, bob, eve := h.newUser("ann@x.io"), h.newUser("bob@x.io"), h.newUser("eve@x.io")
				brunch := h.createEvent(ann, map[string]any{"title": "Brunch", "startDate": "2025-06-20"})["id"].(string)
				dinner := h.createEvent(ann, map[string]any{"title": "Dinner", "startDate": "2025-07-01"})["id"].(string)
				gym := h.createEvent(bob, map[string]any{"title": "Gym", "startDate": "2025-07-03"})["id"].(string)
				annsNote, bobsNote := h.sendMessage(ann, "ann's note"), h.sendMessage(bob, "bob's note")
				anns, bobs, eves := h.cursorOf(ann), h.cursorOf(bob), h.cursorOf(eve)
				flow.pair(h, ann, bob)

				got, _ := h.catchUp(bob, bobs, 100)
				h.wantPaired(bob, ann, got)
				h.wantFeed(bob, got[2:], []feedWant{
					{kind: "event", id: brunch, op: "put", path: eventPath(bob, brunch)}, // ann's, in her list's order
					{kind: "event", id: dinner, op: "put", path: eventPath(bob, dinner)},
					{kind: "message", id: bobsNote, op: "delete"},
				})
				got, _ = h.catchUp(ann, anns, 100)
				h.wantPaired(ann, bob, got)
				h.wantFeed(ann, got[2:], []feedWant{
					{kind: "event", id: gym, op: "put", path: eventPath(ann, gym)},
					{kind: "message", id: annsNote, op: "delete"},
				})
				// the stored effect the feed follows: the partner's event read as one, no solo thread listed
				if e := h.get(eventPath(bob, brunch), bob.Token).JSON(t); e["isPartnerEvent"] != true {
					t.Fatalf("bob's read of ann's event: %v", e)
				}
				expect(t, h.keyed("GET", "/api/messages/list", bob, nil), 200, "[]")
				if got, _ := h.catchUpAll(eve, eves, 100); len(got) != 0 {
					t.Fatalf("a stranger's feed: %s", jsonStr(got))
				}
			})
		})
	}
}

// wantPaired fails unless got begins with u's pairing status (as GET
// .../pairing now returns it) and the partnership with partner.
func (h *harness) wantPaired(u, partner user, got []feedChange) {
	h.t.Helper()
	if len(got) < 2 {
		h.t.Fatalf("%s's feed after pairing: %s", u.ID, jsonStr(got))
	}
	h.wantFeed(u, got[:1], []feedWant{{kind: "pairing", id: u.ID, op: "put", path: pairingPath(u)}})
	if c := got[1]; c.Kind != "partnership" || c.Op != "put" || string(c.Data) != `{"partnerId":"`+partner.ID+`"}` {
		h.t.Fatalf("%s's partnership: %s", u.ID, jsonStr(c))
	}
}

// An end of the partnership (an unpair, an unlink, the partner's account
// deleted) deletes the thread's messages from each remaining member's feed
// and puts their solo thread back, each message as the list shows it
// again.
func TestChangesFeedEndOfPairingPutsTheSoloThreadBack(t *testing.T) {
	for _, end := range []struct {
		name       string
		pair       func(h *harness, a, b user)
		end        func(h *harness, ann user)
		annRemains bool
	}{
		{"unpair", (*harness).pairByCodes, func(h *harness, ann user) {
			expect(h.t, h.do(POST(pairingPath(ann)+"/unpair", nil).by(ann)), 200, "")
		}, true},
		{"unlink", (*harness).pairByLink, func(h *harness, ann user) { expect(h.t, h.connUnlink(ann), 200, "") }, true},
		{"the partner's account deleted", (*harness).pairByCodes, func(h *harness, ann user) {
			expect(h.t, h.do(DELETE(profilePath(ann)).by(ann)), 200, "")
		}, false},
	} {
		t.Run(end.name, func(t *testing.T) {
			eachProfile(t, func(t *testing.T, h *harness) {
				ann, bob := h.newUser("ann@x.io"), h.newUser("bob@x.io")
				first := h.sendMessage(bob, "bob's first")
				solo := map[string][]string{ // newest first, as listed
					ann.ID: {h.sendMessage(ann, "ann's note")},
					bob.ID: {h.sendMessage(bob, "bob's second"), first},
				}
				end.pair(h, ann, bob)
				thread := []string{h.sendMessage(ann, "hi"), h.sendMessage(bob, "hello")}
				anns, bobs := h.cursorOf(ann), h.cursorOf(bob)
				end.end(h, ann)

				readers := map[user]string{bob: bobs}
				if end.annRemains {
					readers[ann] = anns
				}
				for u, since := range readers {
					got, _ := h.catchUp(u, since, 100)
					h.wantSoloBack(u, ofKind(got, "message"), thread, solo[u.ID])
				}
			})
		})
	}
}

// wantSoloBack fails unless msgs (u's feed's messages after an end) are
// the deletes of the thread, newest first, then the puts of u's solo
// thread, each the item of u's list, which lists exactly those.
func (h *harness) wantSoloBack(u user, msgs []feedChange, thread, solo []string) {
	h.t.Helper()
	r := h.keyed("GET", "/api/messages/list", u, nil)
	expect(h.t, r, 200, "")
	var list []json.RawMessage
	if err := json.Unmarshal(r.Body, &list); err != nil || len(list) != len(solo) {
		h.t.Fatalf("%s's list after the end: %s (%v), want %d", u.ID, r.Body, err, len(solo))
	}
	if len(msgs) != len(thread)+len(solo) {
		h.t.Fatalf("%s's messages after the end: %s", u.ID, jsonStr(msgs))
	}
	newest := slices.Clone(thread)
	slices.Reverse(newest)
	for i, id := range newest {
		if c := msgs[i]; c.ID != id || c.Op != "delete" || c.Data != nil {
			h.t.Fatalf("%s's change %d: %s, want the delete of %s", u.ID, i, jsonStr(c), id)
		}
	}
	for i, id := range solo {
		if c := msgs[len(thread)+i]; c.ID != id || c.Op != "put" || string(c.Data) != string(list[i]) {
			h.t.Fatalf("%s's solo message %d: %s, want the put of %s as listed: %s", u.ID, i, jsonStr(c), id, list[i])
		}
	}
}
