package tests

import (
	"cmp"
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"tandem/core/coretest"
	"tandem/modules/changes"
)

// The scenario of issue 47: bob goes offline (his stream closed, the
// process restarted, or he comes back on another process); meanwhile ann,
// and bob on another device, make every kind of change; bob catches up
// through the feed and, separately, through the stream's Last-Event-ID,
// and each way ends in exactly what a full REST refetch returns. A
// stranger's feed holds nothing of theirs, and once the couple unpairs,
// the ex-partner's feed holds nothing he may no longer read.

// recordKey is a record as the feed names it.
type recordKey struct{ Kind, ID string }

// appState is what an app holds: each record's JSON, normalised.
type appState map[recordKey]string

// normalJSON is raw decoded and encoded again: the keys in order.
func normalJSON(t testing.TB, raw []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("not JSON: %v: %s", err, raw)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// apply is s after cs, applied in order as the app does: a put replaces
// the record, a delete removes it.
func (s appState) apply(t testing.TB, cs []feedChange) appState {
	t.Helper()
	out := maps.Clone(s)
	for _, c := range cs {
		k := recordKey{c.Kind, c.ID}
		switch {
		case c.Op == "put" && c.Data != nil:
			out[k] = normalJSON(t, c.Data)
		case c.Op == "delete" && c.Data == nil:
			delete(out, k)
		default:
			t.Fatalf("a change the app cannot apply: %s", jsonStr(c))
		}
	}
	return out
}

// sameState fails unless got is want, naming each record that differs.
func sameState(t testing.TB, how string, got, want appState) {
	t.Helper()
	keys := slices.Collect(maps.Keys(got))
	for k := range want {
		if _, ok := got[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b recordKey) int { return strings.Compare(a.Kind+" "+a.ID, b.Kind+" "+b.ID) })
	for _, k := range keys {
		g, inGot := got[k]
		w, inWant := want[k]
		switch {
		case !inWant:
			t.Errorf("%s: %s %s is held, the refetch has none: %s", how, k.Kind, k.ID, g)
		case !inGot:
			t.Errorf("%s: %s %s is missing, the refetch has %s", how, k.Kind, k.ID, w)
		case g != w:
			t.Errorf("%s: %s %s is %s, the refetch has %s", how, k.Kind, k.ID, g, w)
		}
	}
}

// refetch is u's full REST refetch: every record of every kind the feed
// names, keyed as the feed keys it, each as the read the feed's data is.
func (h *harness) refetch(u user) appState {
	h.t.Helper()
	s := appState{}
	h.refetchItems(u, s)
	for kind, path := range map[string]string{"memory": memoriesPath(u), "event": eventsPath(u), "image": imagesPath(u)} {
		for _, id := range h.listedIDs(h.get(path, u.Token)) {
			s[recordKey{kind, id}] = h.readJSON(u, path+"/"+id)
		}
	}
	for _, id := range h.partnersEvents(u) {
		s[recordKey{"event", id}] = h.readJSON(u, eventPath(u, id))
	}
	h.refetchOnes(u, s)
	return s
}

// partnersEvents are the ids of the partner's events u reads: the list
// is the caller's own, the date range (here all of the scenario's dates)
// has the partner's too.
func (h *harness) partnersEvents(u user) []string {
	h.t.Helper()
	var rng struct {
		Events map[string]struct {
			Data []struct {
				ID             string
				IsPartnerEvent bool
			}
		}
	}
	r := h.get(withDates(eventsPath(u)+"/date-range", "2000-01-01", "2099-12-31"), u.Token)
	expect(h.t, r, 200, "")
	if err := json.Unmarshal(r.Body, &rng); err != nil || len(rng.Events) != 2 {
		h.t.Fatalf("the date range: %v: %s", err, r.Body)
	}
	var ids []string
	for _, cat := range rng.Events {
		for _, e := range cat.Data {
			if e.IsPartnerEvent {
				ids = append(ids, e.ID)
			}
		}
	}
	return ids
}

// refetchItems adds the kinds whose list items are the records.
func (h *harness) refetchItems(u user, s appState) {
	h.t.Helper()
	for kind, r := range map[string]response{
		"message":      h.keyed("GET", "/api/messages/list", u, nil),
		"mood":         h.get(moodsPath(u), u.Token),
		"notification": h.get(notifPath(u, "/notifications"), u.Token),
	} {
		for _, item := range h.listedItems(r) {
			var id struct{ ID string }
			if err := json.Unmarshal(item, &id); err != nil || id.ID == "" {
				h.t.Fatalf("a %s without an id: %s", kind, item)
			}
			s[recordKey{kind, id.ID}] = normalJSON(h.t, item)
		}
	}
}

// refetchOnes adds the kinds of one record per reader (or per couple).
func (h *harness) refetchOnes(u user, s appState) {
	h.t.Helper()
	s[recordKey{"profile", u.ID}] = h.readJSON(u, profilePath(u))
	s[recordKey{"premium", u.ID}] = h.readJSON(u, premiumPath(u)+"?action=subscription")
	s[recordKey{"pairing", u.ID}] = h.readJSON(u, pairingPath(u))
	if r := h.get(relationshipPath(u), u.Token); r.Status != 404 && r.Status != 409 { // none, not_paired
		expect(h.t, r, 200, "")
		s[recordKey{"relationship", u.ID}] = normalJSON(h.t, r.Body)
	}
	if r := h.dqGet(u); r.Status != 409 { // 409 not_paired
		expect(h.t, r, 200, "")
		s[recordKey{"question", r.JSON(h.t)["question"].(map[string]any)["id"].(string)}] = normalJSON(h.t, r.Body)
	}
	partner, _ := h.get(pairingPath(u), u.Token).JSON(h.t)["partnerId"].(string)
	if partner != "" {
		s[recordKey{"partnership", h.partnershipOf(u)}] = jsonStr(map[string]string{"partnerId": partner})
	}
}

// exportedMessage is a message of the export: it names its partnership.
type exportedMessage struct {
	CreatedAt     int64
	PartnershipID *string
}

// partnershipOf is the id of u's partnership, which no read but the
// export names: the partnershipId of u's newest message (the scenario has
// u write one in each partnership).
func (h *harness) partnershipOf(u user) string {
	h.t.Helper()
	var export struct {
		Data struct{ Messages []exportedMessage }
	}
	if err := json.Unmarshal(h.get(profilePath(u)+"/export", u.Token).Body, &export); err != nil {
		h.t.Fatal(err)
	}
	ms := export.Data.Messages
	if len(ms) == 0 {
		h.t.Fatalf("%s wrote no message", u.ID)
	}
	newest := slices.MaxFunc(ms, func(a, b exportedMessage) int { return cmp.Compare(a.CreatedAt, b.CreatedAt) })
	if newest.PartnershipID == nil {
		h.t.Fatalf("%s wrote no message in the partnership", u.ID)
	}
	return *newest.PartnershipID
}

// readJSON is u's read of path, normalised.
func (h *harness) readJSON(u user, path string) string {
	h.t.Helper()
	r := h.get(path, u.Token)
	expect(h.t, r, 200, "")
	return normalJSON(h.t, r.Body)
}

// listedItems are the items of a list answer (a bare array, or the one
// array of its object), which must be its only page.
func (h *harness) listedItems(r response) []json.RawMessage {
	h.t.Helper()
	expect(h.t, r, 200, "")
	if next := r.Header.Get("X-Next-Cursor"); next != "" {
		h.t.Fatalf("a refetch of more than one page: %s", r.Body)
	}
	var items []json.RawMessage
	if json.Unmarshal(r.Body, &items) == nil {
		return items
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(r.Body, &obj); err != nil {
		h.t.Fatal(err)
	}
	for _, v := range obj {
		if json.Unmarshal(v, &items) == nil {
			return items
		}
	}
	h.t.Fatalf("no list in %s", r.Body)
	return nil
}

// listedIDs are the ids of a list's items (the images' are JSON strings
// of records keyed _id).
func (h *harness) listedIDs(r response) []string {
	h.t.Helper()
	var ids []string
	for _, item := range h.listedItems(r) {
		var s string
		if json.Unmarshal(item, &s) == nil {
			item = json.RawMessage(s)
		}
		var id struct {
			ID    string `json:"id"`
			Under string `json:"_id"`
		}
		if err := json.Unmarshal(item, &id); err != nil {
			h.t.Fatal(err)
		}
		ids = append(ids, id.ID+id.Under)
	}
	return ids
}

// seqOf is the position of a feed cursor (a change event's id).
func seqOf(t testing.TB, cursor string) int64 {
	t.Helper()
	c, err := changes.ParseCursor(cursor)
	if err != nil {
		t.Fatalf("%q is no feed cursor: %v", cursor, err)
	}
	return c.Seq
}

// changesUpTo reads s's change events until the one at head's position,
// passing the others over, and returns them with the last one's id.
func (s *sse) changesUpTo(head string) ([]feedChange, string) {
	s.t.Helper()
	var got []feedChange
	last, end := "", seqOf(s.t, head)
	for last == "" || seqOf(s.t, last) < end {
		e := s.nextOf(2*time.Second, "change", "reset")
		if e.Type == "reset" {
			s.t.Fatalf("a reset after %d changes", len(got))
		}
		var c feedChange
		if err := json.Unmarshal([]byte(e.Data), &c); err != nil {
			s.t.Fatal(err)
		}
		got, last = append(got, c), e.ID
	}
	return got, last
}

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
	for server, url := range natsServers(t) {
		for _, p := range profiles(t) {
			if p.sql == "" {
				continue // a memory store is one process's own
			}
			t.Run(server+"/"+p.name, func(t *testing.T) {
				parallel(t)
				clock := coretest.NewClock(time.Time{})
				hs := processes(t, p, 3, url, withClock(clock))
				runOffline(t, hs[0], func() (_, _, _ *harness) {
					clock.Advance(72 * time.Hour) // three days offline
					return hs[1], hs[0], hs[2]
				})
			})
		}
	}
}
