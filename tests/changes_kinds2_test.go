package tests

import (
	"strings"
	"testing"
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
		if got, _ := h.catchUp(eve, eves, 100); len(got) != 0 {
			t.Fatalf("a stranger's feed: %s", jsonStr(got))
		}
	})
}
