// This file holds the bounds test's fixtures: for each operation, the
// caller, the ids and the state a valid request needs.

package tests

import (
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	"tandem/adapters/purchases/play"
	"tandem/adapters/purchases/play/playtest"
)

// ---- fixtures ----

// fresh is a new verified user of its own.
func (b *boundsRun) fresh(prefix string) user {
	b.seq++
	return b.h.newUser(fmt.Sprintf("%s-%d@x.io", prefix, b.seq))
}

// freshPair is two new users paired with each other.
func (b *boundsRun) freshPair() (user, user) {
	x, y := b.fresh("pair-a"), b.fresh("pair-b")
	b.h.pair(x, y)
	return x, y
}

// mine is a call as the world's attacker A on A's own paths (A is paired
// with C and holds an event, a memory and two uploaded images).
func mine(ids map[string]string) func(b *boundsRun, t *testing.T, _ string) boundsCall {
	return func(b *boundsRun, t *testing.T, _ string) boundsCall {
		w := b.w
		path := map[string]string{"userId": w.A.ID, "eventId": w.aEvent, "memoryId": w.aMemory, "imageId": w.aImage,
			"groupId": w.aGroup}
		maps.Copy(path, ids)
		return boundsCall{as: w.A, path: path}
	}
}

// fileURL is the address an upload answered for key.
func fileURL(key string) string { return "http://localhost:8080/files/" + key }

var boundsFixtures = map[string]boundsFixture{
	"GET /api/admin/feedback": {call: func(b *boundsRun, t *testing.T, _ string) boundsCall {
		return boundsCall{as: b.w.admin}
	}},
	"GET /api/admin/version-policy/{platform}": {call: func(b *boundsRun, t *testing.T, _ string) boundsCall {
		return boundsCall{as: b.w.admin}
	}},
	"PUT /api/admin/version-policy/{platform}": {call: func(b *boundsRun, t *testing.T, _ string) boundsCall {
		return boundsCall{as: b.w.admin}
	}},
	"POST /api/auth/login/email": {call: func(b *boundsRun, t *testing.T, _ string) boundsCall {
		return boundsCall{fill: map[string]any{"email": "login-bounds@x.io", "password": pw}, watch: []user{b.loginAs}}
	}},
	// each registration needs its own challenge, and a passkey is
	// registered once
	"POST /api/auth/passkeys/register/verify": {fresh: true, call: func(b *boundsRun, t *testing.T, _ string) boundsCall {
		u := b.fresh("passkey")
		ch, uh := challengeOf(t, b.h.post("/api/auth/passkeys/register/options", u.Token, nil))
		return boundsCall{as: u, fill: newSoftKey(t).create(ch, uh), watch: []user{u}}
	}},
	"POST /api/auth/passkeys/signin/verify": {fresh: true, call: func(b *boundsRun, t *testing.T, _ string) boundsCall {
		b.h.Clock.Advance(16 * time.Minute) // past the 10 failed passkey sign-ins an IP has in 15 minutes
		u := b.fresh("passkey")
		k := newSoftKey(t)
		b.h.registerPasskey(t, u, k)
		return boundsCall{fill: k.get(b.h.signInOptions(t)), watch: []user{u}}
	}},
	// signing up twice with one address sends a code twice: a new one
	// each time; a verification is used once
	"POST /api/auth/signup/email": {fresh: true, call: func(b *boundsRun, t *testing.T, example string) boundsCall {
		b.seq++
		email := fmt.Sprintf("signup-%d@x.io", b.seq)
		if example != "verify" {
			return boundsCall{fill: map[string]any{"email": email}}
		}
		r := b.h.post("/api/auth/signup/email", "", map[string]any{"email": email, "password": pw})
		expect(t, r, 200, "")
		return boundsCall{fill: map[string]any{"userId": r.JSON(t)["userId"], "verificationCode": b.h.Mail.Code(email)}}
	}},
	// a reset's steps each need their own user and code
	"POST /api/auth/reset": {fresh: true, call: func(b *boundsRun, t *testing.T, example string) boundsCall {
		u := b.fresh("reset")
		email := fmt.Sprintf("reset-%d@x.io", b.seq)
		if example == "request" {
			return boundsCall{fill: map[string]any{"email": email}, watch: []user{u}}
		}
		expect(t, b.h.post("/api/auth/reset", "", map[string]any{"email": email}), 200, "")
		code := b.h.Mail.Code(email)
		fill := map[string]any{"userId": u.ID, "code": code}
		if example != "verify" { // an update needs the code verified first
			r := b.h.post("/api/auth/reset", "", map[string]any{"userId": u.ID, "code": code})
			expect(t, r, 200, "")
			fill["resetToken"] = r.JSON(t)["resetToken"]
		}
		return boundsCall{fill: fill, watch: []user{u}}
	}},
	"GET /api/feature-flags": {call: func(b *boundsRun, t *testing.T, _ string) boundsCall {
		return boundsCall{as: b.w.admin, fill: map[string]any{"userId": b.w.A.ID, "flag": "hostile_flag"}}
	}},
	// a flag is created once per key, deleted once
	"POST /api/feature-flags": {fresh: true, call: func(b *boundsRun, t *testing.T, example string) boundsCall {
		b.seq++
		key := fmt.Sprintf("bounds-%d", b.seq)
		if example != "create" {
			expect(t, b.h.post("/api/feature-flags", b.w.admin.Token, map[string]any{"action": "create", "key": key, "name": "Bounds"}), 200, "")
		}
		return boundsCall{as: b.w.admin, fill: map[string]any{"key": key, "flagKey": key,
			"enabledForUserIds": []any{b.w.A.ID}, "disabledForUserIds": []any{b.w.C.ID}}}
	}},
	"GET /api/messages/list": {call: func(b *boundsRun, t *testing.T, _ string) boundsCall {
		return boundsCall{as: b.w.A, keyed: true}
	}},
	"POST /api/messages/send": {call: func(b *boundsRun, t *testing.T, _ string) boundsCall {
		return boundsCall{as: b.w.A, keyed: true}
	}},
	// an unpaired user's code: L creates it again and again
	"POST /api/partnerConnections/create": {call: func(b *boundsRun, t *testing.T, _ string) boundsCall {
		return boundsCall{as: b.w.L, keyed: true, fill: map[string]any{"userId": b.w.L.ID}, watch: []user{b.w.L}}
	}},
	// a link pairs: two new users each time
	"POST /api/partnerConnections/link": {fresh: true, call: func(b *boundsRun, t *testing.T, _ string) boundsCall {
		x, y := b.fresh("owner"), b.fresh("linker")
		b.seq++
		code := fmt.Sprintf("Tidal-Meadow-%d-Quartz", b.seq)
		expect(t, b.h.connCreate(x, code), 200, "")
		return boundsCall{as: y, keyed: true, fill: map[string]any{"userId": y.ID, "connectionCode": code}, watch: []user{x, y}}
	}},
	// the milestones of the victim's relationship, started in the world
	"GET /api/user/{userId}/relationship/milestones": {call: func(b *boundsRun, t *testing.T, _ string) boundsCall {
		return boundsCall{as: b.w.V, path: map[string]string{"userId": b.w.V.ID}}
	}},
	// a relationship starts and ends once
	"POST /api/user/{userId}/relationship": {fresh: true, call: func(b *boundsRun, t *testing.T, example string) boundsCall {
		x, y := b.freshPair()
		if example == "end" {
			expect(t, b.h.post(relationshipPath(x), x.Token, map[string]any{"action": "start", "date": "2024-02-14"}), 200, "")
		}
		return boundsCall{as: x, path: map[string]string{"userId": x.ID}, watch: []user{x, y}}
	}},
	"PATCH /api/users/user/{userId}": {call: mine(nil)},
	// a user answers once a day; a reply and a reaction need an answer
	"POST /api/users/user/{userId}/daily-question": {fresh: true, call: func(b *boundsRun, t *testing.T, example string) boundsCall {
		x, y := b.freshPair()
		c := boundsCall{as: x, path: map[string]string{"userId": x.ID}, watch: []user{x, y}}
		if example != "answer" {
			r := b.h.post(dqPath(x), x.Token, map[string]any{"action": "answer", "text": "by the lake"})
			expect(t, r, 200, "")
			conv := r.JSON(t)["conversation"].([]any)
			id := conv[len(conv)-1].(map[string]any)["id"]
			c.fill = map[string]any{"messageId": id, "replyTo": id}
		}
		return c
	}},
	"GET /api/users/user/{userId}/daily-question/history": {call: mine(nil)},
	"POST /api/users/user/{userId}/devices": {call: func(b *boundsRun, t *testing.T, _ string) boundsCall {
		c := mine(nil)(b, t, "")
		c.advance = time.Minute // 20 registrations a minute
		return c
	}},
	"GET /api/users/user/{userId}/events":            {call: mine(nil)},
	"POST /api/users/user/{userId}/events":           {call: mine(nil)},
	"GET /api/users/user/{userId}/events/date-range": {call: mine(nil)},
	"PUT /api/users/user/{userId}/events/{eventId}":  {call: mine(nil)},
	"GET /api/users/user/{userId}/feedback":          {call: mine(nil)},
	"POST /api/users/user/{userId}/feedback":         {call: mine(nil)},
	"GET /api/users/user/{userId}/images":            {call: mine(nil)},
	"POST /api/users/user/{userId}/images":           {call: mine(nil)},
	"PUT /api/users/user/{userId}/images/group/{groupId}": {call: func(b *boundsRun, t *testing.T, _ string) boundsCall {
		c := mine(nil)(b, t, "")
		c.fill = map[string]any{"images": []any{map[string]any{"_id": b.w.aImage, "url": fileURL(b.w.aKey), "key": b.w.aKey}}}
		return c
	}},
	"PUT /api/users/user/{userId}/images/{imageId}": {call: func(b *boundsRun, t *testing.T, _ string) boundsCall {
		c := mine(nil)(b, t, "")
		c.fill = map[string]any{"url": fileURL(b.w.aKey), "key": b.w.aKey}
		return c
	}},
	"GET /api/users/user/{userId}/memories": {call: mine(nil)},
	"POST /api/users/user/{userId}/memories": {call: func(b *boundsRun, t *testing.T, _ string) boundsCall {
		c := mine(nil)(b, t, "")
		c.fill = map[string]any{"images": []any{fileURL(b.w.aKey)}}
		return c
	}},
	"GET /api/users/user/{userId}/memories/count":          {call: mine(nil)},
	"GET /api/users/user/{userId}/memories/date-range":     {call: mine(nil)},
	"PUT /api/users/user/{userId}/memories/{memoryId}":     {call: mine(nil)},
	"GET /api/users/user/{userId}/moods":                   {call: mine(nil)},
	"GET /api/users/user/{userId}/changes":                 {call: mine(nil)},
	"POST /api/users/user/{userId}/moods":                  {call: mine(nil)},
	"PATCH /api/users/user/{userId}/notification-settings": {call: mine(nil)},
	"PUT /api/users/user/{userId}/notification-settings":   {call: mine(nil)},
	"GET /api/users/user/{userId}/notifications":           {call: mine(nil)},
	"PATCH /api/users/user/{userId}/notifications": {call: func(b *boundsRun, t *testing.T, _ string) boundsCall {
		c := mine(nil)(b, t, "")
		b.h.Clock.Advance(time.Minute)
		expect(t, b.h.post("/api/users/user/"+b.w.A.ID+"/send-test-notification", b.w.A.Token,
			map[string]any{"title": "t", "message": "m", "category": "questions"}), 200, "")
		inbox := b.h.get("/api/users/user/"+b.w.A.ID+"/notifications", b.w.A.Token).JSON(t)["notifications"].([]any)
		c.fill = map[string]any{"notificationId": inbox[0].(map[string]any)["id"]}
		return c
	}},
	// a code submitted pairs: new users each time
	"POST /api/users/user/{userId}/pairing": {fresh: true, call: func(b *boundsRun, t *testing.T, _ string) boundsCall {
		x, y := b.fresh("inviter"), b.fresh("invitee")
		return boundsCall{as: y, path: map[string]string{"userId": y.ID}, fill: map[string]any{"targetCode": b.h.generateCode(x)},
			watch: []user{x, y}}
	}},
	// a new password ends the other sessions: a user of its own each time
	"POST /api/users/user/{userId}/password": {fresh: true, call: func(b *boundsRun, t *testing.T, _ string) boundsCall {
		u := b.fresh("password")
		return boundsCall{as: u, path: map[string]string{"userId": u.ID}, fill: map[string]any{"currentPassword": pw}, watch: []user{u}}
	}},
	"GET /api/users/user/{userId}/premiums": {call: mine(nil)},
	// a subscription is created, changed, cancelled: a user of its own; a
	// store's proof is signed (App Store) or known (Google Play) anew
	"POST /api/users/user/{userId}/premiums": {fresh: true, call: func(b *boundsRun, t *testing.T, example string) boundsCall {
		u := b.fresh("premium")
		now := b.h.Clock.Now().Truncate(time.Millisecond)
		fill := map[string]any{"startDate": now.UnixMilli(), "endDate": now.AddDate(1, 0, 0).UnixMilli()}
		switch example {
		case "appStore":
			tx := appleTx(fmt.Sprintf("3%09d", b.seq), now.Add(-time.Hour), now.AddDate(0, 1, 0), now)
			fill["signedTransactionInfo"] = b.signer.Transaction(tx)
		case "play":
			token := fmt.Sprintf("bounds-token-%d", b.seq)
			b.play.Put(token, playtest.Subscription("tandem.monthly", play.SubscriptionStateActive, now.Add(-time.Hour), now.AddDate(0, 1, 0)))
			fill["purchaseToken"], fill["productId"] = token, "tandem.monthly"
		}
		return boundsCall{as: u, path: map[string]string{"userId": u.ID}, watch: []user{u}, fill: fill}
	}},
	"POST /api/users/user/{userId}/send-test-notification": {call: func(b *boundsRun, t *testing.T, _ string) boundsCall {
		c := mine(nil)(b, t, "")
		c.advance = time.Minute // 20 test pushes a minute
		return c
	}},
	// A signed in with no provider: a well-formed unlink finds no link
	"DELETE /api/users/user/{userId}/signin/{provider}": {base: 404, call: mine(nil)},
	"GET /api/version-check":                            {call: func(*boundsRun, *testing.T, string) boundsCall { return boundsCall{} }},
	"POST /api/version-check":                           {call: func(*boundsRun, *testing.T, string) boundsCall { return boundsCall{} }},
	"GET /files/u/{owner}/{name}": {call: func(b *boundsRun, t *testing.T, _ string) boundsCall {
		parts := strings.Split(b.w.aKey, "/") // u/<owner>/<name>
		return boundsCall{path: map[string]string{"owner": parts[1], "name": parts[2]}}
	}},
}
