package tests

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"tandem/core/coretest"
)

// The scenario of issue 47: bob goes offline (his stream closed, the
// process restarted, or he comes back on another process); meanwhile ann,
// and bob on another device, make every kind of change; bob catches up
// through the feed and, separately, through the stream's Last-Event-ID,
// and each way ends in exactly what a full REST refetch returns. A
// stranger's feed holds nothing of theirs, and once the couple unpairs,
// the ex-partner's feed holds nothing he may no longer read.

// offline is one run of the scenario.
type offline struct {
	t             *testing.T
	ann, bob, eve user
	bobElsewhere  user   // bob on another device (another token)
	since, lastID string // bob's feed cursor and the id of the last change event he saw
	left          appState
	eves          string
	evesBefore    appState
}

// runOffline runs the scenario: bob is online on online, then leave takes
// him offline and says where ann's writes, bob's other device's and his
// return go.
func runOffline(t *testing.T, online *harness, leave func() (annAt, bobAt, back *harness)) {
	o := &offline{t: t}
	o.online(online)
	annAt, bobAt, back := leave()
	o.whileAway(annAt, bobAt)
	o.catchUp(back)
	o.unpaired(annAt, bobAt, back)
	o.stranger(back)
}

// online pairs ann and bob, gives them a few records, and has bob see
// ann's message on his stream; he remembers the last change event's id,
// his cursor, and what a refetch gave him.
func (o *offline) online(h *harness) {
	t := o.t
	o.ann, o.bob, o.eve = h.newUser("ann@x.io"), h.newUser("bob@x.io"), h.newUser("eve@x.io")
	_, second := h.login("bob@x.io")
	o.bobElsewhere = user{ID: o.bob.ID, Token: second}
	h.sendMessage(o.bob, "note to self") // his solo thread, back once unpaired
	h.pair(o.ann, o.bob)
	h.sendMessage(o.bob, "hello")
	h.createEvent(o.ann, map[string]any{"title": "Brunch", "startDate": "2025-06-20"})
	h.createMemory(o.bob, map[string]any{"title": "First date", "date": "2024-02-14"})
	h.checkIn(o.ann, map[string]any{"mood": "good"})
	h.dqQuestion(o.bob)

	s := h.openStream(o.bob, "")
	h.sendMessage(o.ann, "see you tonight")
	o.since = h.cursorOf(o.bob)
	seen, lastID := s.changesUpTo(o.since)
	if len(seen) == 0 || seen[0].Kind != "message" {
		t.Fatalf("bob's stream: %s", jsonStr(seen))
	}
	s.cancel()
	o.lastID, o.left = lastID, h.refetch(o.bob)
	o.eves, o.evesBefore = h.cursorOf(o.eve), h.refetch(o.eve)
}

// whileAway makes every kind of change while bob is offline: ann through
// annAt, bob's other device through bobAt.
func (o *offline) whileAway(annAt, bobAt *harness) {
	ann, bob := o.ann, o.bobElsewhere
	annAt.sendMessage(ann, "are you there?")
	bobAt.sendMessage(bob, "on my laptop")
	o.memories(annAt, bobAt)
	o.events(annAt, bobAt)
	annAt.checkIn(ann, map[string]any{"mood": "low"}) // the day's mood replaced
	bobAt.checkIn(bob, map[string]any{"mood": "great", "note": "offline"})
	o.images(annAt, bobAt)
	o.question(annAt, bobAt)
	o.relationship(annAt, bobAt)
	expect(o.t, bobAt.do(PATCH(profilePath(bob), map[string]any{"displayName": "Bob"}).by(bob)), 200, "")
	o.premium(annAt)
	o.notifications(annAt, bobAt)
	o.repair(annAt, bobAt)
}

func (o *offline) memories(annAt, bobAt *harness) {
	ann, bob := o.ann, o.bobElsewhere
	kept := bobAt.createMemory(bob, map[string]any{"title": "Beach", "date": "2025-06-01"})
	expect(o.t, bobAt.do(PUT(memoryPath(bob, kept), map[string]any{"title": "Beach day"}).by(bob)), 200, "")
	gone := bobAt.createMemory(bob, map[string]any{"title": "Oops", "date": "2025-06-02"})
	expect(o.t, bobAt.do(DELETE(memoryPath(bob, gone)).by(bob)), 200, "")
	annAt.createMemory(ann, map[string]any{"title": "Ann's own", "date": "2025-06-03"}) // private: never bob's
}

func (o *offline) events(annAt, bobAt *harness) {
	ann, bob := o.ann, o.bobElsewhere
	kept := annAt.createEvent(ann, map[string]any{"title": "Dinner", "startDate": "2025-07-01"})["id"].(string)
	expect(o.t, annAt.do(PUT(eventPath(ann, kept), map[string]any{"title": "Late dinner"}).by(ann)), 200, "")
	gone := annAt.createEvent(ann, map[string]any{"title": "Oops", "startDate": "2025-07-02"})["id"].(string)
	expect(o.t, annAt.do(DELETE(eventPath(ann, gone)).by(ann)), 200, "")
	bobAt.createEvent(bob, map[string]any{"title": "Gym", "startDate": "2025-07-03"})
}

func (o *offline) images(annAt, bobAt *harness) {
	ann, bob := o.ann, o.bobElsewhere
	png := pngFile(o.t)
	g := bobAt.mustUpload(bob, filePart("a.png", "image/png", png), filePart("b.png", "image/png", png))
	expect(o.t, bobAt.do(DELETE(imagesPath(bob)+"/"+bobAt.groupIDs(bob, g.GroupID)[0]).by(bob)), 200, "")
	annAt.mustUpload(ann, filePart("c.png", "image/png", png)) // hers only
}

func (o *offline) question(annAt, bobAt *harness) {
	ann, bob := o.ann, o.bobElsewhere
	expect(o.t, annAt.dqPost(ann, map[string]any{"action": "answer", "text": "Paris"}), 200, "")
	r := bobAt.dqPost(bob, map[string]any{"action": "answer", "text": "Rome"})
	expect(o.t, r, 200, "")
	items := dqItems(o.t, r)
	expect(o.t, annAt.dqPost(ann, map[string]any{"action": "reply", "text": "why Rome?", "replyTo": items[1]}), 200, "")
	expect(o.t, bobAt.dqPost(bob, map[string]any{"action": "react", "messageId": items[0], "reaction": "❤️"}), 200, "")
}

// relationship starts, ends and starts again at another date: the start
// date changed.
func (o *offline) relationship(annAt, bobAt *harness) {
	ann, bob := o.ann, o.bobElsewhere
	expect(o.t, annAt.post(relationshipPath(ann), ann.Token, map[string]any{"action": "start", "date": "2024-02-14"}), 200, "")
	expect(o.t, bobAt.post(relationshipPath(bob), bob.Token, map[string]any{"action": "end", "date": "2025-02-14"}), 200, "")
	expect(o.t, annAt.post(relationshipPath(ann), ann.Token, map[string]any{"action": "start", "date": "2024-03-01"}), 200, "")
}

// premium: ann subscribes (bob inherits it) and changes her plan; the
// unpair and the new pairing take bob's inherited premium away and give
// it back.
func (o *offline) premium(annAt *harness) {
	ann, now := o.ann, annAt.Clock.Now()
	expect(o.t, annAt.post(premiumPath(ann), ann.Token, map[string]any{"action": "create", "plan": "9.99",
		"startDate": now.Add(-time.Hour).UnixMilli(), "endDate": now.AddDate(0, 1, 0).UnixMilli(),
		"billingId": "gp-" + ann.ID, "platform": "android"}), 200, "")
	expect(o.t, annAt.post(premiumPath(ann), ann.Token, map[string]any{"action": "update", "plan": "19.99"}), 200, "")
}

// notifications: ann's activity above filled bob's inbox; bob reads one
// on his other device, then all.
func (o *offline) notifications(annAt, bobAt *harness) {
	bob, list := o.bobElsewhere, notifPath(o.bobElsewhere, "/notifications")
	ns := bobAt.get(list, bob.Token).JSON(o.t)["notifications"].([]any)
	if len(ns) < 2 {
		o.t.Fatalf("bob's inbox: %v", ns)
	}
	first := ns[len(ns)-1].(map[string]any)["id"].(string)
	expect(o.t, bobAt.do(PATCH(list, map[string]any{"notificationId": first}).by(bob)), 200, "")
	annAt.sendMessage(o.ann, "call me")
	expect(o.t, bobAt.do(PATCH(list, map[string]any{"markAll": true}).by(bob)), 200, "")
}

// repair ends the partnership and makes a new one: ann unpairs, ann and
// bob pair again and each writes in the new thread. The new partnership
// lets bob read ann's events again and inherit her premium, and its first
// read of the daily question picks one: a refetch shows all three, so the
// feed must hold them.
func (o *offline) repair(annAt, bobAt *harness) {
	ann, bob := o.ann, o.bobElsewhere
	expect(o.t, annAt.do(POST(pairingPath(ann)+"/unpair", nil).by(ann)), 200, "")
	anns, bobs := annAt.generateCode(ann), bobAt.generateCode(bob)
	expect(o.t, annAt.submitCode(ann, bobs), 200, "")
	expect(o.t, bobAt.submitCode(bob, anns), 200, `{"state":"connected","message":"<string>","partnerId":"`+ann.ID+`","myCode":"`+bobs+`"}`)
	bobAt.sendMessage(bob, "together again")
	annAt.sendMessage(ann, "yes")
}

// catchUp brings bob back on back: through the feed from his cursor, page
// by page, and separately through the stream from the last change event
// he saw; each, applied to what he held, is what a refetch gives him.
func (o *offline) catchUp(back *harness) {
	t := o.t
	want := back.refetch(o.bob)
	got, cursor := back.catchUpAll(o.bob, o.since, 3)
	if len(got) <= 3 {
		t.Fatalf("the feed fits one page of 3: %s", jsonStr(got))
	}
	sameState(t, "the feed", o.left.apply(t, got), want)

	s := back.openStream(o.bob, o.lastID)
	streamed, _ := s.changesUpTo(cursor)
	s.cancel()
	sameState(t, "the stream", o.left.apply(t, streamed), want)
	o.left, o.since = want, cursor
}

// unpaired ends the partnership for good: ann unpairs and goes on
// writing. From then on bob's feed puts none of her records (only his
// own), deletes what he read through her, and ends where his refetch
// does, which holds none of the records deleted.
func (o *offline) unpaired(annAt, bobAt, back *harness) {
	t, ann := o.t, o.ann
	expect(t, annAt.do(POST(pairingPath(ann)+"/unpair", nil).by(ann)), 200, "")
	annAt.sendMessage(ann, "note to self")
	annAt.createEvent(ann, map[string]any{"title": "Alone", "startDate": "2025-07-04"})
	annAt.checkIn(ann, map[string]any{"mood": "low", "note": "after"})
	bobAt.createEvent(o.bobElsewhere, map[string]any{"title": "Run", "startDate": "2025-07-05"})

	got, _ := back.catchUpAll(o.bob, o.since, 3)
	want := back.refetch(o.bob)
	for _, c := range got {
		if c.Op == "put" && !o.bobsOwn(c) {
			t.Errorf("the ex-partner's feed puts a record he may not read: %s", jsonStr(c))
		}
		if _, ok := want[recordKey{c.Kind, c.ID}]; c.Op == "delete" && ok {
			t.Errorf("deleted from the ex-partner's feed, still in his refetch: %s %s", c.Kind, c.ID)
		}
	}
	if len(ofKind(got, "partnership")) != 1 || len(ofKind(got, "message")) == 0 {
		t.Errorf("the unpair's deletes: %s", jsonStr(got))
	}
	sameState(t, "the feed after the unpair", o.left.apply(t, got), want)
}

// bobsOwn says whether a put is of a record bob may read unpaired: one of
// the kinds only their owner reads (his feed's are his), or one of the
// couple's kinds that he wrote.
func (o *offline) bobsOwn(c feedChange) bool {
	switch c.Kind {
	case "pairing", "profile", "premium", "notification", "memory", "image":
		return true
	case "message", "event", "mood":
		var rec struct{ UserID, Author string }
		return json.Unmarshal(c.Data, &rec) == nil && rec.UserID+rec.Author == o.bob.ID
	}
	return false // question, relationship, partnership: the couple's
}

// stranger: eve, never paired, writes her own; her feed holds only her
// records, and ends where her refetch does.
func (o *offline) stranger(h *harness) {
	t, eve := o.t, o.eve
	h.sendMessage(eve, "just me")
	got, _ := h.catchUpAll(eve, o.eves, 100)
	for _, c := range got {
		if strings.Contains(string(c.Data), o.ann.ID) || strings.Contains(string(c.Data), o.bob.ID) {
			t.Errorf("a stranger's feed holds the couple's: %s", jsonStr(c))
		}
	}
	if len(got) == 0 {
		t.Error("eve's own message is not in her feed")
	}
	sameState(t, "the stranger's feed", o.evesBefore.apply(t, got), h.refetch(eve))
}

// withClock runs the app on c: the processes of one scenario share one
// time, as real ones do.
func withClock(c *coretest.FixedClock) option { return func(h *harness) { h.Clock = c } }

// On each storage profile: bob is away while the process restarts (on a
// memory store, which one process holds, he is only away).
func TestChangesOfflineCatchUpMatchesARefetch(t *testing.T) {
	parallel(t)
	for _, p := range profiles(t) {
		t.Run(p.name, func(t *testing.T) {
			parallel(t)
			first := newHarness(t, p)
			runOffline(t, first, func() (_, _, _ *harness) {
				h := first
				if p.sql != "" {
					if err := first.app.Stop(context.Background()); err != nil {
						t.Fatal(err)
					}
					h = newHarness(t, p, sharingDB(first), withClock(first.Clock))
				}
				h.Clock.Advance(72 * time.Hour) // three days offline
				return h, h, h
			})
		})
	}
}

// Across three processes on one database and NATS: bob's stream was on
// the first; ann writes through the second, bob's other device through
// the first, and bob comes back on the third.
func TestChangesOfflineCatchUpAcrossProcesses(t *testing.T) {
	parallel(t)
	eachSharedProfileAndNATS(t, func(t *testing.T, p profile, natsURL string) {
		clock := coretest.NewClock(time.Time{})
		hs := processes(t, p, 3, natsURL, withClock(clock))
		runOffline(t, hs[0], func() (_, _, _ *harness) {
			clock.Advance(72 * time.Hour) // three days offline
			return hs[1], hs[0], hs[2]
		})
	})
}
