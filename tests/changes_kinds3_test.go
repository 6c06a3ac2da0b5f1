package tests

import (
	"strings"
	"testing"
	"time"

	"tandem/adapters/blob/memblob"
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
		if got, _ := h.catchUpAll(eve, eves, 100); len(got) != 0 {
			t.Fatalf("a stranger's feed: %s", jsonStr(got))
		}
	})
}

// Each write of an inbox entry puts it to its owner, as the list shows it
// (in the owner's language): a notification saved, an activity entry
// counted again, one marked read, and each one a mark-all marks; no one
// else's feed holds it.
func TestChangesFeedCarriesTheOwnersNotifications(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		ann, bob, eve := h.newUser("ann@x.io"), h.newUser("bob@x.io"), h.newUser("eve@x.io")
		h.pair(ann, bob)
		expect(t, h.do(req{Method: "PATCH", Path: profilePath(ann), Token: ann.Token, Body: map[string]any{"locale": "de"}}), 200, "")
		anns, bobs, eves := h.cursorOf(ann), h.cursorOf(bob), h.cursorOf(eve)
		list := notifPath(ann, "/notifications")
		put := func(id string) feedWant {
			return feedWant{kind: "notification", id: id, op: "put", path: list, list: "notifications"}
		}
		step := func(want ...feedWant) []feedChange {
			t.Helper()
			var got []feedChange
			got, anns = h.catchUpAll(ann, anns, 100)
			got = ofKind(got, "notification")
			h.wantFeed(ann, got, want)
			return got
		}
		newest := func() string {
			return h.get(list, ann.Token).JSON(t)["notifications"].([]any)[0].(map[string]any)["id"].(string)
		}

		expect(t, h.post(notifPath(ann, "/send-test-notification"), ann.Token, map[string]any{"title": "Hi", "message": "there", "category": "systemUpdates"}), 200, "")
		test := newest()
		step(put(test))
		h.sendMessage(bob, "one")
		chat := newest()
		got := step(put(chat))
		if !strings.Contains(string(got[0].Data), "Nachricht") {
			t.Fatalf("the entry is not in ann's language: %s", got[0].Data)
		}
		h.sendMessage(bob, "two") // the same entry, counted once more
		step(put(chat))
		expect(t, h.do(req{Method: "PATCH", Path: list, Token: ann.Token, Body: map[string]any{"notificationId": test}}), 200, "")
		step(put(test))
		expect(t, h.do(req{Method: "PATCH", Path: list, Token: ann.Token, Body: map[string]any{"notificationId": "nope"}}), 404, "")
		h.createEvent(bob, map[string]any{"title": "Dinner", "startDate": "2025-07-01"})
		event := newest()
		step(put(event))
		expect(t, h.do(req{Method: "PATCH", Path: list, Token: ann.Token, Body: map[string]any{"markAll": true}}), 200, "")
		step(put(event), put(chat)) // the unread ones, newest first; the test one was read already
		expect(t, h.do(req{Method: "PATCH", Path: list, Token: ann.Token, Body: map[string]any{"markAll": true}}), 200, "")
		step() // nothing was unread

		if theirs, _ := h.catchUpAll(bob, bobs, 100); len(ofKind(theirs, "notification")) != 0 {
			t.Fatalf("the partner's feed holds ann's notifications: %s", jsonStr(theirs))
		}
		if theirs, _ := h.catchUpAll(eve, eves, 100); len(theirs) != 0 {
			t.Fatalf("a stranger's feed: %s", jsonStr(theirs))
		}
	})
}

// Each image write reaches its owner's feed only, as the image's GET
// returns it: an upload puts each image, an update puts the changed image
// and deletes the upload's image whose file it took, a group update the
// same for each, a delete (one, or a group's) deletes.
func TestChangesFeedCarriesTheOwnersImages(t *testing.T) {
	eachImageProfile(t, func(t *testing.T, h *harness, _ *memblob.Store) {
		ann, bob, eve := h.newUser("ann@x.io"), h.newUser("bob@x.io"), h.newUser("eve@x.io")
		h.pair(ann, bob)
		anns, bobs, eves := h.cursorOf(ann), h.cursorOf(bob), h.cursorOf(eve)
		png := pngFile(t)
		put := func(id string) feedWant {
			return feedWant{kind: "image", id: id, op: "put", path: imagesPath(ann) + "/" + id}
		}
		del := func(id string) feedWant { return feedWant{kind: "image", id: id, op: "delete"} }
		step := func(want ...feedWant) {
			t.Helper()
			var got []feedChange
			got, anns = h.catchUp(ann, anns, 100)
			h.wantFeed(ann, got, want)
		}
		item := func(id string, up uploaded, i int) map[string]any {
			return map[string]any{"_id": id, "url": up.Files[i].Data.URL, "key": up.Files[i].Data.Key}
		}

		g := h.mustUpload(ann, filePart("a.png", "image/png", png), filePart("b.png", "image/png", png))
		gIDs := h.groupIDs(ann, g.GroupID)
		step(put(gIDs[0]), put(gIDs[1]))
		fresh := h.mustUpload(ann, filePart("c.png", "image/png", png))
		freshID := h.groupIDs(ann, fresh.GroupID)[0]
		step(put(freshID))
		expect(t, h.do(PUT(imagesPath(ann)+"/"+gIDs[0], item(gIDs[0], fresh, 0)).by(ann)), 200, "")
		step(put(gIDs[0]), del(freshID)) // the upload's own image merged into the one updated
		expect(t, h.do(PUT(imagesPath(ann)+"/"+gIDs[0], item(gIDs[0], fresh, 0)).by(bob)), 403, "")
		n := h.mustUpload(ann, filePart("d.png", "image/png", png))
		nID := h.groupIDs(ann, n.GroupID)[0]
		step(put(nID))
		expect(t, h.do(PUT(imagesPath(ann)+"/group/"+g.GroupID, map[string]any{"images": []any{item(gIDs[1], n, 0)}}).by(ann)), 200, "")
		step(put(gIDs[1]), del(nID))
		expect(t, h.do(PUT(imagesPath(ann)+"/group/"+g.GroupID, map[string]any{"images": []any{item("nope", n, 0)}}).by(ann)), 404, "")
		expect(t, h.do(req{Method: "DELETE", Path: imagesPath(ann) + "/" + gIDs[0], Token: ann.Token}), 200, "")
		step(del(gIDs[0]))
		expect(t, h.do(req{Method: "DELETE", Path: imagesPath(ann) + "/group/" + g.GroupID, Token: ann.Token}), 200, "")
		step(del(gIDs[1]))
		expect(t, h.do(req{Method: "DELETE", Path: imagesPath(ann) + "/group/" + g.GroupID, Token: ann.Token}), 404, "")
		step()

		if got, _ := h.catchUpAll(bob, bobs, 100); len(got) != 0 { // images are their owner's only
			t.Fatalf("the partner's feed: %s", jsonStr(got))
		}
		if got, _ := h.catchUpAll(eve, eves, 100); len(got) != 0 {
			t.Fatalf("a stranger's feed: %s", jsonStr(got))
		}
	})
}

// Each post to the couple's question (an answer, a reply, a reaction, a
// reaction replaced) puts the question to both partners, each as their own
// GET returns it (locked until they answer, with the streak); a stranger's
// feed stays empty.
func TestChangesFeedCarriesTheQuestionToBothPartners(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		ann, bob, eve := h.newUser("ann@x.io"), h.newUser("bob@x.io"), h.newUser("eve@x.io")
		h.pair(ann, bob)
		anns, bobs, eves := h.cursorOf(ann), h.cursorOf(bob), h.cursorOf(eve)
		qid := h.dqQuestion(ann)["id"].(string)
		step := func(steps ...func() response) {
			t.Helper()
			for _, post := range steps {
				expect(t, post(), 200, "")
				var got []feedChange
				got, anns = h.catchUp(ann, anns, 100)
				h.wantFeed(ann, got, []feedWant{{kind: "question", id: qid, op: "put", path: dqPath(ann)}})
				got, bobs = h.catchUp(bob, bobs, 100)
				h.wantFeed(bob, got, []feedWant{{kind: "question", id: qid, op: "put", path: dqPath(bob)}})
			}
		}
		post := func(u user, body map[string]any) func() response {
			return func() response { return h.dqPost(u, body) }
		}
		step(post(ann, map[string]any{"action": "answer", "text": "Paris"}))
		if got := string(h.dqGet(bob).Body); !strings.Contains(got, `"locked":true`) {
			t.Fatalf("bob reads ann's answer before his own: %s", got)
		}
		step(post(bob, map[string]any{"action": "answer", "text": "Rome"}))
		conv := h.dqGet(ann).JSON(t)["conversation"].([]any)
		bobsAnswer := conv[1].(map[string]any)["id"].(string)
		step(post(ann, map[string]any{"action": "reply", "text": "why Rome?", "replyTo": bobsAnswer}),
			post(ann, map[string]any{"action": "react", "messageId": bobsAnswer, "reaction": "❤️"}),
			post(ann, map[string]any{"action": "react", "messageId": bobsAnswer, "reaction": "😂"}))
		expect(t, h.dqPost(ann, map[string]any{"action": "answer", "text": "again"}), 409, "")
		if got, _ := h.catchUp(ann, anns, 100); len(got) != 0 {
			t.Fatalf("a refused answer in the feed: %s", jsonStr(got))
		}
		if got, _ := h.catchUpAll(eve, eves, 100); len(got) != 0 {
			t.Fatalf("a stranger's feed: %s", jsonStr(got))
		}

		// an unpair: neither reads the couple's question any more
		expect(t, h.do(POST("/api/users/user/"+ann.ID+"/pairing/unpair", nil).by(ann)), 200, "")
		for _, u := range []struct {
			user
			since string
		}{{ann, anns}, {bob, bobs}} {
			got, _ := h.catchUp(u.user, u.since, 100)
			h.wantFeed(u.user, ofKind(got, "question"), []feedWant{{kind: "question", id: qid, op: "delete"}})
			expect(t, h.dqGet(u.user), 409, "")
		}
	})
}

// The first read of a date picks the couple's question (a write): both
// partners' feeds get it, each as their own GET returns it; a later read
// records nothing, and neither does a partner's read of the same date.
func TestChangesFeedCarriesTheDaysPick(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		ann, bob := h.newUser("ann@x.io"), h.newUser("bob@x.io")
		h.pair(ann, bob)
		anns, bobs := h.cursorOf(ann), h.cursorOf(bob)
		qid := h.dqQuestion(ann)["id"].(string)
		for _, u := range []struct {
			user
			since *string
		}{{ann, &anns}, {bob, &bobs}} {
			var got []feedChange
			got, *u.since = h.catchUp(u.user, *u.since, 100)
			h.wantFeed(u.user, got, []feedWant{{kind: "question", id: qid, op: "put", path: dqPath(u.user)}})
		}
		expect(t, h.dqGet(bob), 200, "")
		expect(t, h.dqGet(ann), 200, "")
		for _, u := range []struct {
			user
			since string
		}{{ann, anns}, {bob, bobs}} {
			if got, _ := h.catchUp(u.user, u.since, 100); len(got) != 0 {
				t.Fatalf("a read that picked nothing in %s's feed: %s", u.ID, jsonStr(got))
			}
		}
	})
}
