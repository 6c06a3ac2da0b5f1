package tests

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"testing"
	"time"

	"tandem/modules/changes"
)

// The live stream follows the durable change feed (issue 47): every stream
// writes its user's changes as `change` events whose id is the feed cursor
// after them, and a Last-Event-ID that is a feed cursor resumes from the
// feed on any process, after any gap.

// messageChange is a change event's data: the feed's change of a message.
func messageChange(id, body string, author user, at int64) string {
	return `{"kind":"message","id":"` + id + `","op":"put","data":` + messageJSON(id, body, author, at) + `}`
}

// A stream writes each change of its user's feed before the bus event of
// the same write, with the feed's cursor as its id: a since= of the feed.
func TestStreamWritesTheFeedWithItsCursors(t *testing.T) {
	eachProfileAndBus(t, func(t *testing.T, h *harness) {
		ann, bob := h.newUser("ann@x.io"), h.newUser("bob@x.io")
		h.pair(ann, bob)
		s := h.openStream(bob, "")
		at := h.Clock.Now().UnixMilli()
		id := h.sendMessage(ann, "hi")
		c := s.nextOf(time.Second, "change", "message.sent") // the pairing's events may come late on NATS
		if c.Type != "change" {
			t.Fatalf("first event %+v, want the message's change", c)
		}
		sameJSON(t, json.RawMessage(c.Data), messageChange(id, "hi", ann, at))
		s.expectEvent(time.Second, "message.sent", messageJSON(id, "hi", ann, at))
		// after it: bob's activity entry of ann's message only
		if p := h.feed(bob, c.ID, ""); len(withoutKind(p.Changes, "notification")) != 0 || p.HasMore {
			t.Fatalf("the feed after the change event's id: %+v", p)
		}
		if p := h.feed(bob, h.cursorOf(bob), ""); len(p.Changes) != 0 {
			t.Fatalf("nothing after the end: %+v", p)
		}
	})
}

// A client offline across a restart of the server (a new app on the same
// database) resumes with the id of the last change it saw: it gets every
// change after it, in order, then the live ones; none twice.
func TestStreamResumesFromTheFeedAfterARestart(t *testing.T) {
	eachSharedProfile(t, func(t *testing.T, p profile) {
		first := newHarness(t, p)
		ann, bob := first.newUser("ann@x.io"), first.newUser("bob@x.io")
		first.pair(ann, bob)
		s := first.openStream(bob, "")
		one := first.sendMessage(ann, "one")
		seen := s.expectEvent(time.Second, "change", messageChange(one, "one", ann, first.Clock.Now().UnixMilli()-1))
		s.cancel()
		at := first.Clock.Now().UnixMilli()
		two, three := first.sendMessage(ann, "two"), first.sendMessage(bob, "three")
		if err := first.app.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}

		again := newHarness(t, p, sharingDB(first))
		again.Clock.Set(first.Clock.Now().Add(72 * time.Hour)) // three days offline
		s = again.openStream(bob, seen.ID)
		for _, want := range []string{messageChange(two, "two", ann, at), messageChange(three, "three", bob, at+1)} {
			e := s.nextBut(time.Second, isNotificationChange)
			if e.Type != "change" {
				t.Fatalf("resumed with %+v, want %s", e, want)
			}
			sameJSON(t, json.RawMessage(e.Data), want)
		}
		s.noneBut(100*time.Millisecond, isNotificationChange) // each once, and no reset
		at = again.Clock.Now().UnixMilli()
		four := again.sendMessage(ann, "four")
		s.expectEvent(time.Second, "change", messageChange(four, "four", ann, at))
		s.expectEvent(time.Second, "message.sent", messageJSON(four, "four", ann, at))
	})
}

// Every event's id is a feed cursor: a resume from an ordinary event's id
// is served from the feed like one from a change's, after a gap of any
// length (here more changes than one read of the feed takes), in order.
func TestStreamResumesFromAnyEventsID(t *testing.T) {
	eachProfileAndBus(t, func(t *testing.T, h *harness) {
		ann, bob := h.newUser("ann@x.io"), h.newUser("bob@x.io")
		h.pair(ann, bob)
		s := h.openStream(bob, "")
		h.sendMessage(ann, "before")
		change := s.expectEvent(time.Second, "change", "")
		live := s.expectEvent(time.Second, "message.sent", "")
		s.cancel()
		if _, err := changes.ParseCursor(live.ID); err != nil {
			t.Fatalf("the message.sent event's id %q is no feed cursor: %v", live.ID, err)
		}
		if p := h.feed(bob, live.ID, ""); len(withoutKind(p.Changes, "notification")) != 0 {
			t.Fatalf("the feed after the live event's id holds its own write: %+v", p)
		}
		n := changes.MaxLimit/2 + 10 // with their notifications, more than one read of the feed
		ids, ats := make([]string, n), make([]int64, n)
		for i := range n {
			ats[i] = h.Clock.Now().UnixMilli()
			ids[i] = h.sendMessage(ann, "m"+strconv.Itoa(i))
		}
		for _, from := range []sseEvent{live, change} {
			again := h.openStream(bob, from.ID)
			for i := range n {
				e := again.nextBut(time.Second, liveOrInbox)
				sameJSON(t, json.RawMessage(e.Data), messageChange(ids[i], "m"+strconv.Itoa(i), ann, ats[i]))
			}
			again.noneBut(100*time.Millisecond, liveOrInbox)
			again.cancel()
		}
	}, withUnboundedWrites())
}

// A cursor the feed does not serve to the caller (another user's, or one
// past the retention) is a reset, as GET .../changes says 410
// cursor_expired; the stream then follows the feed from its end.
func TestStreamResetsForACursorNotTheCallers(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		ann, bob := h.newUser("ann@x.io"), h.newUser("bob@x.io")
		h.pair(ann, bob)
		annCursor := h.cursorOf(ann)
		h.sendMessage(bob, "not for the thief")

		foreign := h.openStream(bob, annCursor)
		foreign.expectEvent(time.Second, "reset", `{}`)
		foreign.none(100 * time.Millisecond) // nothing of the feed before its end
		at := h.Clock.Now().UnixMilli()
		id := h.sendMessage(ann, "after")
		foreign.expectEvent(time.Second, "change", messageChange(id, "after", ann, at))
		foreign.cancel()

		old := h.cursorOf(bob)
		h.Clock.Advance(2 * time.Hour)
		stale := h.openStream(bob, old)
		stale.expectEvent(time.Second, "reset", `{}`)
		stale.none(100 * time.Millisecond)
	}, withEnv("TANDEM_CHANGES_RETENTION", "1h"))
}

// nextOf is the next event of one of these types within d, others passed
// over.
func (s *sse) nextOf(d time.Duration, types ...string) sseEvent {
	s.t.Helper()
	deadline := time.Now().Add(d)
	for {
		e := s.next(time.Until(deadline))
		if slices.Contains(types, e.Type) {
			return e
		}
	}
}

// isNotificationChange says whether e is the change of an inbox entry (the
// activity entry a partner's message brings, beside the message's change).
func isNotificationChange(e sseEvent) bool {
	var c struct{ Kind string }
	return e.Type == "change" && json.Unmarshal([]byte(e.Data), &c) == nil && c.Kind == "notification"
}

// expectChange fails unless the next event within d, passing over the inbox
// entries' changes and the live events, is a change with exactly this JSON.
func (s *sse) expectChange(d time.Duration, data string) sseEvent {
	s.t.Helper()
	e := s.nextBut(d, liveOrInbox)
	expect(s.t, response{Status: 200, Body: []byte(e.Data)}, 200, data)
	return e
}

// liveOrInbox says whether e is a live event (not a change: on NATS one
// published before a resume may still come after it) or an inbox entry's
// change. A reset is neither: never passed over.
func liveOrInbox(e sseEvent) bool {
	return e.Type != "change" && e.Type != "reset" || isNotificationChange(e)
}

// nextBut is the next event within d that skip does not pass over.
func (s *sse) nextBut(d time.Duration, skip func(sseEvent) bool) sseEvent {
	s.t.Helper()
	deadline := time.Now().Add(d)
	for {
		if e := s.next(time.Until(deadline)); !skip(e) {
			return e
		}
	}
}

// noneBut fails if an event (not a comment) that skip does not pass over
// arrives within d.
func (s *sse) noneBut(d time.Duration, skip func(sseEvent) bool) {
	s.t.Helper()
	timeout := time.After(d)
	for {
		select {
		case e := <-s.events:
			if e.Type != ":" && !skip(e) {
				s.t.Fatalf("unexpected event %+v", e)
			}
		case <-timeout:
			return
		}
	}
}
