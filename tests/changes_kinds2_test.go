package tests

import (
	"context"
	"strings"
	"testing"
	"time"

	"tandem/modules/changes"
)

// The feed's kinds of the account and the couple (issue 47): profile,
// relationship, pairing, partnership, premium, notification.

func profilePath(u user) string { return "/api/users/user/" + u.ID }

// A profile update reaches its owner's feed as the profile's GET returns it, and no one else's: every profile route is the
// caller's own.
func TestChangesFeedCarriesTheOwnersProfile(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		ann, bob := h.newUser("ann@x.io"), h.newUser("bob@x.io")
		h.pair(ann, bob)
		anns, bobs := h.cursorOf(ann), h.cursorOf(bob)
		expect(t, h.do(req{Method: "PATCH", Path: profilePath(ann), Token: ann.Token, Body: map[string]any{"displayName": "Ann"}}), 200, "")
		expect(t, h.do(req{Method: "PATCH", Path: profilePath(ann), Token: ann.Token, Body: map[string]any{"displayName": strings.Repeat("x", 500)}}), 400, "")
		got, _ := h.catchUp(ann, anns, 100)
		h.wantFeed(ann, got, []feedWant{{kind: "profile", id: ann.ID, op: "put", path: profilePath(ann)}})
		if !strings.Contains(string(got[0].Data), `"displayName":"Ann"`) {
			t.Fatalf("the profile's put: %s", got[0].Data)
		}
		if theirs, _ := h.catchUp(bob, bobs, 100); len(theirs) != 0 {
			t.Fatalf("the partner's feed holds ann's profile: %s", jsonStr(theirs))
		}
	})
}

// A relationship's start and end reach both partners' feeds, each as
// their own GET shows it (days to their own today), keyed by the
// reader's id: one relationship per couple, as GET .../relationship.
func TestChangesFeedCarriesTheRelationshipToBothPartners(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		ann, bob, eve := h.newUser("ann@x.io"), h.newUser("bob@x.io"), h.newUser("eve@x.io")
		h.pair(ann, bob)
		anns, bobs, eves := h.cursorOf(ann), h.cursorOf(bob), h.cursorOf(eve)
		expect(t, h.post(relationshipPath(ann), ann.Token, map[string]any{"action": "start", "date": "2024-02-14"}), 200, "")
		started, _ := h.catchUp(bob, bobs, 100)
		h.wantFeed(bob, started, []feedWant{{kind: "relationship", id: bob.ID, op: "put", path: relationshipPath(bob)}})
		expect(t, h.post(relationshipPath(bob), bob.Token, map[string]any{"action": "end", "date": "2025-02-14"}), 200, "")
		expect(t, h.post(relationshipPath(bob), bob.Token, map[string]any{"action": "end"}), 404, "") // refused: nothing recorded
		for _, u := range []struct {
			user
			since string
		}{{ann, anns}, {bob, bobs}} {
			got, _ := h.catchUp(u.user, u.since, 100) // the start and the end, collapsed to the end
			h.wantFeed(u.user, got, []feedWant{{kind: "relationship", id: u.ID, op: "put", path: relationshipPath(u.user)}})
			if !strings.Contains(string(got[0].Data), `"isActive":false`) {
				t.Fatalf("%s's relationship: %s", u.ID, got[0].Data)
			}
		}
		if got, _ := h.catchUpAll(eve, eves, 100); len(got) != 0 {
			t.Fatalf("a stranger's feed: %s", jsonStr(got))
		}
	})
}

// Pairing puts both partners' status and the partnership in both feeds;
// an unpair puts the status (unpaired), deletes the partnership, and gives
// each ex-partner the delete of every record they read only through it
// (the thread's messages, the other's events and moods, the relationship),
// so that a feed applied in order ends where a REST refetch does.
func TestChangesFeedPairsAndUnpairs(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		ann, bob, eve := h.newUser("ann@x.io"), h.newUser("bob@x.io"), h.newUser("eve@x.io")
		anns, bobs, eves := h.cursorOf(ann), h.cursorOf(bob), h.cursorOf(eve)
		h.pair(ann, bob)
		for _, u := range []struct {
			user
			since   string
			partner user
		}{{ann, anns, bob}, {bob, bobs, ann}} {
			got, _ := h.catchUp(u.user, u.since, 100)
			h.wantFeed(u.user, got[:1], []feedWant{{kind: "pairing", id: u.ID, op: "put", path: pairingPath(u.user)}})
			if len(got) != 2 || got[1].Kind != "partnership" || got[1].Op != "put" || string(got[1].Data) != `{"partnerId":"`+u.partner.ID+`"}` {
				t.Fatalf("%s's feed after pairing: %s", u.ID, jsonStr(got))
			}
		}
		partnership := func(u user) string { got, _ := h.catchUp(u, anns, 100); return got[1].ID }(ann)

		// the couple shares a thread, events, moods and a relationship
		bobs = h.cursorOf(bob)
		msgs := []string{h.sendMessage(ann, "one"), h.sendMessage(bob, "two")}
		annsEvent := h.createEvent(ann, map[string]any{"title": "Dinner", "startDate": "2025-07-01"})["id"].(string)
		bobsEvent := h.createEvent(bob, map[string]any{"title": "Gym", "startDate": "2025-07-02"})["id"].(string)
		annsMood := h.checkIn(ann, map[string]any{"mood": "low"})["id"].(string)
		bobsMood := h.checkIn(bob, map[string]any{"mood": "great"})["id"].(string)
		expect(t, h.post(relationshipPath(ann), ann.Token, map[string]any{"action": "start", "date": "2024-02-14"}), 200, "")
		_, bobs = h.catchUp(bob, bobs, 100)

		expect(t, h.do(POST("/api/users/user/"+ann.ID+"/pairing/unpair", nil).by(ann)), 200, "")
		got, _ := h.catchUp(bob, bobs, 100)
		h.wantFeed(bob, got, []feedWant{
			{kind: "pairing", id: bob.ID, op: "put", path: pairingPath(bob)},
			{kind: "partnership", id: partnership, op: "delete"},
			{kind: "event", id: annsEvent, op: "delete"},                                               // by kind
			{kind: "message", id: msgs[1], op: "delete"}, {kind: "message", id: msgs[0], op: "delete"}, // the thread's, newest first
			{kind: "mood", id: annsMood, op: "delete"},
			{kind: "relationship", id: bob.ID, op: "delete"},
		})
		// what bob still reads is his own: no delete of it, and the refetch agrees
		for _, c := range got {
			if c.ID == bobsEvent || c.ID == bobsMood {
				t.Fatalf("bob's own record deleted from his feed: %s", jsonStr(got))
			}
		}
		expect(t, h.keyed("GET", "/api/messages/list", bob, nil), 200, "[]")
		expect(t, h.get(eventPath(bob, annsEvent), bob.Token), 404, "")
		expect(t, h.get(eventPath(bob, bobsEvent), bob.Token), 200, "")
		if got, _ := h.catchUpAll(eve, eves, 100); len(got) != 0 {
			t.Fatalf("a stranger's feed: %s", jsonStr(got))
		}
	})
}

// Deleting an account deletes its feed, and gives the ex-partner the
// deletes of what they read only through the partnership, as an unpair.
func TestChangesFeedOfADeletedAccount(t *testing.T) {
	eachProfileWith(t, func(t *testing.T, h *harness, feeds changes.Repository) {
		ann, bob := h.newUser("ann@x.io"), h.newUser("bob@x.io")
		h.pair(ann, bob)
		msg := h.sendMessage(ann, "one")
		event := h.createEvent(ann, map[string]any{"title": "Dinner", "startDate": "2025-07-01"})["id"].(string)
		bobs := h.cursorOf(bob)
		expect(t, h.do(DELETE("/api/users/user/"+ann.ID).by(ann)), 200, "")
		got, _ := h.catchUp(bob, bobs, 100)
		if len(got) != 4 || got[1].Kind != "partnership" || got[1].Op != "delete" ||
			got[2].Kind != "event" || got[2].ID != event || got[2].Op != "delete" || got[3].ID != msg || got[3].Op != "delete" {
			t.Fatalf("the ex-partner's feed after the account's deletion: %s", jsonStr(got))
		}
		h.wantFeed(bob, got[:1], []feedWant{{kind: "pairing", id: bob.ID, op: "put", path: pairingPath(bob)}})
		if left, err := feeds.Since(context.Background(), ann.ID, 0, 10); err != nil || len(left) != 0 {
			t.Fatalf("the deleted account's feed: %+v, %v", left, err)
		}
		if h.DB != nil {
			var heads int
			if err := h.DB.Get(&heads, h.DB.Rebind("SELECT COUNT(*) FROM change_heads WHERE user_id = ?"), ann.ID); err != nil || heads != 0 {
				t.Fatalf("the deleted account's feed head: %d rows, %v", heads, err)
			}
		}
	})
}

// A pairing request that waits puts both statuses (sent, waiting for the
// code's owner); a connect that clears a third user's request puts that
// user's status too; each as their own GET .../pairing returns it.
func TestChangesFeedCarriesRequestsThatWait(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		ann, bob, cid := h.newUser("ann@x.io"), h.newUser("bob@x.io"), h.newUser("cid@x.io")
		ca := h.generateCode(ann)
		anns, bobs, cids := h.cursorOf(ann), h.cursorOf(bob), h.cursorOf(cid)
		status := func(u user) feedWant { return feedWant{kind: "pairing", id: u.ID, op: "put", path: pairingPath(u)} }
		catchUp := func(u user, since *string, want ...feedWant) {
			t.Helper()
			var got []feedChange
			got, *since = h.catchUp(u, *since, 100)
			h.wantFeed(u, got, want)
		}
		expect(t, h.submitCode(cid, ca), 200, `{"status":"pending","message":"<string>","partnerId":"`+ann.ID+`","actionRequired":false}`)
		catchUp(cid, &cids, status(cid))
		catchUp(ann, &anns, status(ann))
		h.Clock.Advance(time.Second) // bob's request is the newer
		expect(t, h.submitCode(bob, ca), 200, "")
		catchUp(bob, &bobs, status(bob))
		catchUp(ann, &anns, status(ann)) // bob's is the newest request now
		catchUp(cid, &cids)              // cid's own request still waits: nothing

		// ann connects with bob: cid's request to ann goes with it
		expect(t, h.submitCode(ann, h.generateCode(bob)), 200, `{"state":"connected","message":"<string>","partnerId":"`+bob.ID+`","myCode":"<string>"}`)
		catchUp(cid, &cids, status(cid))
		expect(t, h.pairingStatus(cid), 200, "")
	})
}
