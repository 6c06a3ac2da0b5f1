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
