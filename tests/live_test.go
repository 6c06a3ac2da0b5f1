package tests

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.uber.org/fx"

	"tandem/bootstrap"
	"tandem/core"
)

// liveLog records the core.Live events the assembled app publishes on its
// bus, as "type reader:RecordType reader:RecordType" with the readers
// sorted.
type liveLog struct {
	mu  sync.Mutex
	got []string
}

func (l *liveLog) listener() core.Listener {
	return core.Listener{Name: "live-log", Handle: func(_ context.Context, e core.Event) error {
		live, ok := e.(core.Live)
		if !ok {
			return nil
		}
		readers := make([]string, 0, len(live.For))
		for u, rec := range live.For {
			readers = append(readers, fmt.Sprintf("%s:%T", u, rec))
		}
		slices.Sort(readers)
		l.mu.Lock()
		l.got = append(l.got, live.Type+" "+strings.Join(readers, " "))
		l.mu.Unlock()
		return nil
	}}
}

// take returns what was published since the last take, with the users'
// ids replaced by their names.
func (l *liveLog) take(names map[string]string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.got
	l.got = nil
	for i := range out {
		for id, name := range names {
			out[i] = strings.ReplaceAll(out[i], id+":", name+":")
		}
		// sorted by name: ids made in one millisecond sort at random
		parts := strings.Split(out[i], " ")
		slices.Sort(parts[1:])
		out[i] = strings.Join(parts, " ")
	}
	return out
}

// TestLiveEventsReachTheirReadersOnly runs a couple's day through the API
// on every profile and reads what the app publishes for the live stream:
// each event goes to exactly the users whose REST read shows its record,
// with the module's typed record. A stranger never hears of anything, and
// the ex-partner nothing after the partnership ended.
func TestLiveEventsReachTheirReadersOnly(t *testing.T) {
	eachProfileWith(t, func(t *testing.T, h *harness, l *liveLog) {
		ann, bob, eve := h.newUser("ann@x.io"), h.newUser("bob@x.io"), h.newUser("eve@x.io")
		names := map[string]string{ann.ID: "ann", bob.ID: "bob", eve.ID: "eve"}
		step := func(what string, do func(), want ...string) {
			t.Helper()
			do()
			if got := l.take(names); !slices.Equal(got, want) {
				t.Fatalf("%s:\n got  %q\n want %q", what, got, want)
			}
		}
		const (
			status = "partners.Status"
			note   = "notifications.Notification"
		)
		step("eve's code", func() { h.generateCode(eve) }, "pairing.changed eve:"+status)
		step("pairing", func() { h.pair(ann, bob) },
			"pairing.changed ann:"+status, "pairing.changed bob:"+status, // their codes
			"pairing.changed ann:"+status+" bob:"+status, // ann submits bob's code
			"pairing.changed ann:"+status+" bob:"+status) // bob submits ann's: connected
		step("a message", func() { h.sendMessage(ann, "hi") },
			"message.sent ann:messages.Message bob:messages.Message", "notification.created bob:"+note)
		var eventID string
		step("an event", func() {
			eventID = h.createEvent(ann, map[string]any{"title": "Dinner", "startDate": "2025-07-01"})["id"].(string)
		},
			"event.created ann:events.Read bob:events.Read", "notification.created bob:"+note)
		step("the event changed", func() {
			expect(t, h.do(req{Method: "PUT", Path: eventPath(ann, eventID), Token: ann.Token, Body: map[string]any{"title": "Lunch"}}), 200, "")
		}, "event.updated ann:events.Read bob:events.Read", "notification.created bob:"+note)
		step("a memory", func() { h.createMemory(ann, map[string]any{"title": "Lisbon", "date": "2025-06-01"}) },
			"memory.created ann:memories.Memory", "notification.created bob:"+note)
		step("an answer", func() {
			expect(t, h.post(dqPath(ann), ann.Token, map[string]any{"action": "answer", "text": "Lisbon"}), 200, "")
		}, "notification.created bob:"+note, "question.answered ann:questions.View bob:questions.View")
		var bobsAnswer string
		step("the partner's answer", func() {
			r := h.dqPost(bob, map[string]any{"action": "answer", "text": "Porto"})
			expect(t, r, 200, "")
			bobsAnswer = dqItems(t, r)[1]
		}, "notification.created ann:"+note, "question.answered ann:questions.View bob:questions.View")
		step("a reaction", func() {
			expect(t, h.dqPost(ann, map[string]any{"action": "react", "messageId": bobsAnswer, "reaction": "❤️"}), 200, "")
		}, "question.reacted ann:questions.View bob:questions.View")
		step("the relationship", func() {
			expect(t, h.post(relationshipPath(bob), bob.Token, map[string]any{"action": "start", "date": "2025-01-01"}), 200, "")
		}, "relationship.changed ann:relationship.Duration bob:relationship.Duration", "notification.created ann:"+note)
		step("a stranger's message", func() { h.sendMessage(eve, "alone") }, "message.sent eve:messages.Message")
		step("unpairing", func() {
			expect(t, h.keyed("POST", "/api/partnerConnections/unlink", bob, map[string]any{"userId": bob.ID}), 200, "")
		},
			"notification.created ann:"+note, "notification.created bob:"+note, // the PartnershipEnded listener
			"partnership.ended ann:partners.Ended bob:partners.Ended",
			"pairing.changed ann:"+status+" bob:"+status)
		step("a message after", func() { h.sendMessage(ann, "still there?") }, "message.sent ann:messages.Message")
		step("the event deleted after", func() {
			expect(t, h.do(req{Method: "DELETE", Path: eventPath(ann, eventID), Token: ann.Token}), 200, "")
		}, "event.deleted ann:core.Deleted")
	}, withLiveLog)
}

// withLiveLog puts a liveLog on the app's bus.
var withLiveLog = withFx(
	fx.Provide(func() *liveLog { return &liveLog{} }),
	fx.Provide(bootstrap.AsListener(func(l *liveLog) core.Listener { return l.listener() })),
)
