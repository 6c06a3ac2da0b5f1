package tests

import (
	"strings"
	"testing"
	"time"
)

// The feed's kinds premium, notification, image and question (issue 47).

// ofKind are the changes of got of kind.
func ofKind(got []feedChange, kind string) []feedChange {
	var out []feedChange
	for _, c := range got {
		if c.Kind == kind {
			out = append(out, c)
		}
	}
	return out
}

// A subscription's write puts its owner's premium as the subscription read
// returns it, and the partner's when the partner's premium changes with it
// (shared); an unpair puts the premium an ex-partner inherited; a
// stranger's feed stays empty.
func TestChangesFeedCarriesPremiumToTheOwnerAndASharingPartner(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		ann, bob, eve := h.newUser("ann@x.io"), h.newUser("bob@x.io"), h.newUser("eve@x.io")
		h.pair(ann, bob)
		anns, bobs, eves := h.cursorOf(ann), h.cursorOf(bob), h.cursorOf(eve)
		now := h.Clock.Now()
		create := func(u user) {
			expect(t, h.post(premiumPath(u), u.Token, map[string]any{"action": "create", "plan": "9.99", "startDate": now.Add(-time.Hour).UnixMilli(),
				"endDate": now.AddDate(0, 1, 0).UnixMilli(), "billingId": "gp-" + u.ID, "platform": "android"}), 200, "")
		}
		put := func(u user) feedWant {
			return feedWant{kind: "premium", id: u.ID, op: "put", path: premiumPath(u) + "?action=subscription"}
		}
		step := func(wantAnn, wantBob []feedWant) {
			t.Helper()
			var got []feedChange
			got, anns = h.catchUp(ann, anns, 100)
			h.wantFeed(ann, ofKind(got, "premium"), wantAnn)
			got, bobs = h.catchUp(bob, bobs, 100)
			h.wantFeed(bob, ofKind(got, "premium"), wantBob)
		}

		create(ann) // bob inherits it
		step([]feedWant{put(ann)}, []feedWant{put(bob)})
		if got := h.premiumGet(bob, "action=subscription"); !strings.Contains(string(got.Body), `"isPartnerInherited":true`) {
			t.Fatalf("bob's premium: %s", got.Body)
		}
		create(bob) // bob's own now: ann's read is unchanged
		step(nil, []feedWant{put(bob)})
		expect(t, h.post(premiumPath(ann), ann.Token, map[string]any{"action": "cancel"}), 200, "")
		step([]feedWant{put(ann)}, nil) // ann inherits bob's; bob's read is his own
		expect(t, h.post(premiumPath(ann), ann.Token, map[string]any{"action": "update", "plan": strings.Repeat("x", 5000)}), 400, "")
		step(nil, nil)

		expect(t, h.do(POST("/api/users/user/"+ann.ID+"/pairing/unpair", nil).by(ann)), 200, "")
		step([]feedWant{put(ann)}, nil) // ann's own cancelled one, no longer bob's
		if got := h.premiumGet(ann, "action=subscription"); !strings.Contains(string(got.Body), `"isPremium":false`) {
			t.Fatalf("ann's premium after the unpair: %s", got.Body)
		}
		if got, _ := h.catchUp(eve, eves, 100); len(got) != 0 {
			t.Fatalf("a stranger's feed: %s", jsonStr(got))
		}
	})
}
