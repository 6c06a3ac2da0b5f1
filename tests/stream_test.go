package tests

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"tandem/adapters/bus/natsbus/natstest"
)

// The live partner stream: GET /api/users/user/{userId}/stream, Server-Sent
// Events. These tests open real streams over HTTP on every storage profile,
// on the local bus and on NATS (an in-process server; CI also runs the
// multi-process ones against the machine's server).

func streamPath(u user) string { return "/api/users/user/" + u.ID + "/stream" }

// sseEvent is one event of a stream; a comment line comes as Type ":".
type sseEvent struct{ ID, Type, Data string }

// sse is an open stream, read by a goroutine until it ends.
type sse struct {
	t      testing.TB
	events chan sseEvent
	closed chan struct{}
	cancel context.CancelFunc

	mu       sync.Mutex
	invalid  []string // events not as the document's LiveEvent says (checkLiveEvent)
	reported bool
}

// openStream opens u's stream (resuming after lastID when not empty) and
// fails unless it is a 200 text/event-stream.
func (h *harness) openStream(u user, lastID string) *sse {
	h.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	hr, err := http.NewRequestWithContext(ctx, "GET", h.base+streamPath(u), nil)
	if err != nil {
		h.t.Fatal(err)
	}
	hr.Header.Set("Authorization", "Bearer "+u.Token)
	if lastID != "" {
		hr.Header.Set("Last-Event-ID", lastID)
	}
	res, err := http.DefaultClient.Do(hr)
	if err != nil {
		cancel()
		h.t.Fatal(err)
	}
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/event-stream; charset=utf-8" ||
		res.Header.Get("Cache-Control") != "no-store" {
		cancel()
		h.t.Fatalf("stream: %d %v", res.StatusCode, res.Header)
	}
	s := &sse{t: h.t, events: make(chan sseEvent, 256), closed: make(chan struct{}), cancel: cancel}
	go s.read(res)
	h.t.Cleanup(cancel)
	h.t.Cleanup(s.reportInvalid) // before cancel: what was read by then

	s.comment(time.Second) // ": connected": the stream is registered
	return s
}

func (s *sse) read(res *http.Response) {
	defer close(s.closed)
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	var e sseEvent
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if e.Type != "" {
				s.check(e)
				s.events <- e
			}
			e = sseEvent{}
		case strings.HasPrefix(line, ":"):
			s.events <- sseEvent{Type: ":", Data: strings.TrimSpace(line[1:])}
		case strings.HasPrefix(line, "id: "):
			e.ID = line[4:]
		case strings.HasPrefix(line, "event: "):
			e.Type = line[7:]
		case strings.HasPrefix(line, "data: "):
			e.Data = line[6:]
		}
	}
}

// check notes an event that is not the document's LiveEvent; the read
// goroutine may outlive its test, so reportInvalid fails the test from it.
func (s *sse) check(e sseEvent) {
	if err := checkLiveEvent(e); err != nil {
		s.mu.Lock()
		if !s.reported {
			s.invalid = append(s.invalid, err.Error())
		}
		s.mu.Unlock()
	}
}

func (s *sse) reportInvalid() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reported = true
	for _, msg := range s.invalid {
		s.t.Errorf("openapi: %s", msg)
	}
}

// next is the next event that is not a comment, within d.
func (s *sse) next(d time.Duration) sseEvent {
	s.t.Helper()
	timeout := time.After(d)
	for {
		select {
		case e := <-s.events:
			if e.Type != ":" {
				return e
			}
		case <-timeout:
			s.t.Fatalf("no event within %v", d)
		}
	}
}

// expectEvent fails unless the next event of this type, within d, has
// exactly this JSON. Events of other types before it are passed over (a
// message also brings the partner a notification.created); tests that mean
// "nothing else" say so with none.
func (s *sse) expectEvent(d time.Duration, typ, data string) sseEvent {
	s.t.Helper()
	deadline := time.Now().Add(d)
	e := s.next(d)
	for e.Type != typ && e.Type != "end" && time.Now().Before(deadline) {
		e = s.next(time.Until(deadline))
	}
	control := typ == "end" || typ == "reset" // not replayable: no id
	if e.Type != typ || (e.ID == "") != control {
		s.t.Fatalf("event %+v, want a %s", e, typ)
	}
	expect(s.t, response{Status: 200, Body: []byte(e.Data)}, 200, data)
	return e
}

// comment is the next comment line's text, within d.
func (s *sse) comment(d time.Duration) string {
	s.t.Helper()
	timeout := time.After(d)
	for {
		select {
		case e := <-s.events:
			if e.Type == ":" {
				return e.Data
			}
		case <-timeout:
			s.t.Fatalf("no comment within %v", d)
		}
	}
}

// none fails if an event (not a comment) arrives within d.
func (s *sse) none(d time.Duration) {
	s.t.Helper()
	timeout := time.After(d)
	for {
		select {
		case e := <-s.events:
			if e.Type != ":" {
				s.t.Fatalf("unexpected event %+v", e)
			}
		case <-timeout:
			return
		}
	}
}

// ends fails unless the stream says why it ends and then closes, within d.
func (s *sse) ends(d time.Duration, reason string) {
	s.t.Helper()
	s.expectEvent(d, "end", `{"reason":"`+reason+`"}`)
	select {
	case <-s.closed:
	case <-time.After(d):
		s.t.Fatal("the stream stayed open after its end event")
	}
}

// buses are the TANDEM_BUS settings every stream test runs on: local, and
// NATS on an in-process server (each harness its own subject prefix).
func buses(t *testing.T) map[string]func() option {
	srv := natstest.Start(t)
	return map[string]func() option{
		"local": func() option { return withEnv("TANDEM_BUS", "local") },
		"nats":  func() option { return withNATS(srv.URL()) },
	}
}

var natsPrefixes atomic.Int64

// withNATS puts a harness on the NATS server at url, under a prefix of its
// own unless shared is given (processes of one deployment share one).
func withNATS(url string, shared ...string) option {
	prefix := fmt.Sprintf("t%d_%d", os.Getpid(), natsPrefixes.Add(1))
	if len(shared) > 0 {
		prefix = shared[0]
	}
	return withEnv("TANDEM_BUS", url+"?prefix="+prefix)
}

// eachProfileAndBus runs fn on every storage profile, on each bus.
func eachProfileAndBus(t *testing.T, fn func(t *testing.T, h *harness), opts ...option) {
	for name, bus := range buses(t) {
		t.Run(name, func(t *testing.T) {
			parallel(t)
			eachProfile(t, fn, append([]option{bus()}, opts...)...)
		})
	}
}

func TestStreamDeliversMessagesToBothPartnersOnly(t *testing.T) {
	eachProfileAndBus(t, func(t *testing.T, h *harness) {
		ann, bob, cid := h.newUser("ann@x.io"), h.newUser("bob@x.io"), h.newUser("cid@x.io")
		h.pair(ann, bob)
		annS, bobS, cidS := h.openStream(ann, ""), h.openStream(bob, ""), h.openStream(cid, "")

		at := h.Clock.Now().UnixMilli()
		id := h.sendMessage(ann, "hi bob")
		want := messageJSON(id, "hi bob", ann, at)
		a := annS.expectEvent(time.Second, "message.sent", want)
		b := bobS.expectEvent(time.Second, "message.sent", want)
		if a.ID == b.ID {
			t.Fatalf("one id %s for two readers' events", a.ID)
		}
		// the stream's JSON is the REST read's
		expect(t, h.keyed("GET", "/api/messages/list", bob, nil), 200, "["+want+"]")

		at = h.Clock.Now().UnixMilli()
		id = h.sendMessage(bob, "hi ann")
		want = messageJSON(id, "hi ann", bob, at)
		bobS.expectEvent(time.Second, "message.sent", want)
		annS.expectEvent(time.Second, "message.sent", want)
		cidS.none(200 * time.Millisecond) // a stranger hears nothing of them
	})
}

func TestStreamGuards(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		ann, bob := h.newUser("ann@x.io"), h.newUser("bob@x.io")
		runScenarios(t, h, []scenario{
			{name: "no token", req: GET(streamPath(ann)), status: 401,
				want: errBody("unauthorized", "authentication required: send Authorization: Bearer <token>")},
			{name: "another user's stream", req: GET(streamPath(ann)).by(bob), status: 403,
				want: errBody("forbidden", "you may only act on your own account")},
			{name: "an overlong Last-Event-ID", req: GET(streamPath(ann)).by(ann).with("Last-Event-ID", strings.Repeat("x", 65)),
				status: 400, want: errInvalid("Last-Event-ID must be at most 64 characters")},
			{name: "a POST", req: POST(streamPath(ann), map[string]any{}).by(ann), status: 405, want: errNotAllowed},
		})
		expect(t, h.post("/api/auth/logout", ann.Token, map[string]any{}), 200, "")
		expect(t, h.get(streamPath(ann), ann.Token), 401, "")
	})
}

// A client that comes back with the id of the last event it saw, whatever
// its type, gets what it missed from the change feed, in order, each once;
// an id that is no cursor of the feed (an earlier release's) gets a reset
// event, telling it to refetch over REST, and then the live events.
func TestStreamResumesFromLastEventID(t *testing.T) {
	eachProfileAndBus(t, func(t *testing.T, h *harness) {
		ann, bob := h.newUser("ann@x.io"), h.newUser("bob@x.io")
		h.pair(ann, bob)
		bobS := h.openStream(bob, "")
		first := bobS.expectEvent(time.Second, "message.sent", messageJSON(h.sendMessage(ann, "one"), "one", ann, h.Clock.Now().UnixMilli()-1))
		bobS.cancel()

		at := h.Clock.Now().UnixMilli()
		two, three := h.sendMessage(ann, "two"), h.sendMessage(ann, "three")
		again := h.openStream(bob, first.ID)
		again.expectChange(time.Second, messageChange(two, "two", ann, at))
		again.expectChange(time.Second, messageChange(three, "three", ann, at+1))
		again.noneBut(100*time.Millisecond, liveOrInbox) // each once

		lost := h.openStream(bob, "0190aaaa-0000-7000-8000-000000000000")
		lost.expectEvent(time.Second, "reset", `{}`)
		lost.none(100 * time.Millisecond)
		at = h.Clock.Now().UnixMilli()
		four := h.sendMessage(ann, "four")
		lost.expectEvent(time.Second, "message.sent", messageJSON(four, "four", ann, at))
	})
}

func TestStreamHeartbeat(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		ann := h.newUser("ann@x.io")
		s := h.openStream(ann, "")
		if got := s.comment(2 * time.Second); got != "heartbeat" {
			t.Fatalf("comment %q", got)
		}
	}, withEnv("TANDEM_STREAM_HEARTBEAT", "100ms"))
}

// drain is every event (not comments) that arrives until none has for quiet.
func (s *sse) drain(quiet time.Duration) []sseEvent {
	var out []sseEvent
	for {
		select {
		case e := <-s.events:
			if e.Type != ":" {
				out = append(out, e)
			}
		case <-time.After(quiet):
			return out
		}
	}
}

// lastOf is the data of the last event of type typ in es; it fails when none.
func lastOf(t *testing.T, es []sseEvent, typ string) string {
	t.Helper()
	for i := len(es) - 1; i >= 0; i-- {
		if es[i].Type == typ {
			if es[i].ID == "" {
				t.Fatalf("a %s event without an id", typ)
			}
			return es[i].Data
		}
	}
	t.Fatalf("no %s event among %+v", typ, es)
	return ""
}

// sameAsREST fails unless a stream event's data is exactly the JSON of r.
func sameAsREST(t *testing.T, data string, r response) {
	t.Helper()
	expect(t, response{Status: 200, Body: []byte(data)}, 200, string(r.Body))
}

// A couple's life over their streams: each event is the REST read of the
// reader it reaches, and a stranger's stream stays silent throughout.
func TestStreamCarriesTheCouplesLife(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		ann, bob, cid := h.newUser("ann@x.io"), h.newUser("bob@x.io"), h.newUser("cid@x.io")
		annS, bobS, cidS := h.openStream(ann, ""), h.openStream(bob, ""), h.openStream(cid, "")
		quiet := 150 * time.Millisecond

		h.pair(ann, bob)
		sameAsREST(t, lastOf(t, annS.drain(quiet), "pairing.changed"), h.pairingStatus(ann))
		sameAsREST(t, lastOf(t, bobS.drain(quiet), "pairing.changed"), h.pairingStatus(bob))

		expect(t, h.post(relationshipPath(ann), ann.Token, map[string]any{"action": "start", "date": "2024-02-14"}), 200, "")
		sameAsREST(t, lastOf(t, annS.drain(quiet), "relationship.changed"), h.get(relationshipPath(ann), ann.Token))
		bobSaw := bobS.drain(quiet)
		sameAsREST(t, lastOf(t, bobSaw, "relationship.changed"), h.get(relationshipPath(bob), bob.Token))
		lastOf(t, bobSaw, "notification.created") // the partner is told the relationship started

		ev := h.createEvent(ann, map[string]any{"title": "Dinner", "startDate": "2026-02-14"})
		one := eventsPath(ann) + "/" + ev["id"].(string)
		sameAsREST(t, lastOf(t, annS.drain(quiet), "event.created"), h.get(one, ann.Token))
		bobSaw = bobS.drain(quiet)
		sameAsREST(t, lastOf(t, bobSaw, "event.created"), h.get(eventsPath(bob)+"/"+ev["id"].(string), bob.Token))
		inbox := h.get("/api/users/user/"+bob.ID+"/notifications", bob.Token).JSON(t)["notifications"].([]any)
		expect(t, response{Status: 200, Body: []byte(lastOf(t, bobSaw, "notification.created"))}, 200, jsonStr(inbox[0]))

		expect(t, h.do(req{Method: "DELETE", Path: one, Token: ann.Token}), 200, "")
		want := `{"id":` + jsonStr(ev["id"]) + `}`
		expect(t, response{Status: 200, Body: []byte(lastOf(t, annS.drain(quiet), "event.deleted"))}, 200, want)
		expect(t, response{Status: 200, Body: []byte(lastOf(t, bobS.drain(quiet), "event.deleted"))}, 200, want)

		expect(t, h.post(pairingPath(ann)+"/unpair", ann.Token, map[string]any{}), 200, "")
		expect(t, response{Status: 200, Body: []byte(lastOf(t, annS.drain(quiet), "partnership.ended"))}, 200, `{"partnerId":"`+bob.ID+`"}`)
		expect(t, response{Status: 200, Body: []byte(lastOf(t, bobS.drain(quiet), "partnership.ended"))}, 200, `{"partnerId":"`+ann.ID+`"}`)

		// after the unpair, ann's calendar is hers alone
		h.createEvent(ann, map[string]any{"title": "Alone", "startDate": "2026-03-01"})
		lastOf(t, annS.drain(quiet), "event.created")
		bobS.none(quiet)
		cidS.none(quiet)
	})
}
