package tests

import (
	"testing"
	"time"
)

// TestStreamCarriesEveryKindOfEvent: the events TestStreamCarriesTheCouplesLife
// does not provoke (moods, memories, an event update, the daily question)
// reach the stream too; sse.read checks each against the document's
// LiveEvent.
func TestStreamCarriesEveryKindOfEvent(t *testing.T) {
	parallel(t)
	h := newHarness(t, profile{name: "memory"})
	ann, bob := h.newUser("ann@x.io"), h.newUser("bob@x.io")
	h.pair(ann, bob)
	annS := h.openStream(ann, "")
	quiet := 150 * time.Millisecond

	h.checkIn(ann, map[string]any{"mood": "good"})
	lastOf(t, annS.drain(quiet), "mood.created")
	h.checkIn(ann, map[string]any{"mood": "low"})
	lastOf(t, annS.drain(quiet), "mood.updated")

	id := h.createMemory(ann, map[string]any{"title": "Trip", "date": "2025-05-01"})
	lastOf(t, annS.drain(quiet), "memory.created")
	expect(t, h.do(req{Method: "PUT", Path: memoryPath(ann, id), Token: ann.Token, Body: map[string]any{"title": "Trip!"}}), 200, "")
	lastOf(t, annS.drain(quiet), "memory.updated")
	expect(t, h.do(req{Method: "DELETE", Path: memoryPath(ann, id), Token: ann.Token}), 200, "")
	lastOf(t, annS.drain(quiet), "memory.deleted")

	ev := h.createEvent(ann, map[string]any{"title": "Dinner", "startDate": "2026-02-14"})
	lastOf(t, annS.drain(quiet), "event.created")
	expect(t, h.do(req{Method: "PUT", Path: eventsPath(ann) + "/" + ev["id"].(string), Token: ann.Token, Body: map[string]any{"title": "Supper", "notify": 30}}), 200, "")
	lastOf(t, annS.drain(quiet), "event.updated")

	expect(t, h.dqPost(ann, map[string]any{"action": "answer", "text": "Lisbon"}), 200, "")
	lastOf(t, annS.drain(quiet), "question.answered")
	r := h.dqPost(bob, map[string]any{"action": "answer", "text": "Our first dance"})
	expect(t, r, 200, "")
	bobsAnswer := dqItems(t, r)[1]
	expect(t, h.dqPost(ann, map[string]any{"action": "reply", "text": "ha"}), 200, "")
	lastOf(t, annS.drain(quiet), "question.replied")
	expect(t, h.dqPost(ann, map[string]any{"action": "react", "messageId": bobsAnswer, "reaction": "❤️"}), 200, "")
	lastOf(t, annS.drain(quiet), "question.reacted")
}
