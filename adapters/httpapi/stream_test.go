package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"go.uber.org/fx/fxtest"
	"go.uber.org/zap"

	"tandem/adapters/bus/localbus"
	"tandem/core"
)

func newTestStreams(t *testing.T, sc StreamConfig) (*Streams, *localbus.Bus) {
	t.Helper()
	bus := localbus.New()
	lc := fxtest.NewLifecycle(t)
	h, err := NewStreams(lc, Config{Stream: sc}, bus, core.NewUUIDv7(), core.SystemClock{}, zap.NewNop(), NewMetrics())
	if err != nil {
		t.Fatal(err)
	}
	return h, bus
}

func publishLive(t *testing.T, bus core.Broadcast, id, user string) {
	t.Helper()
	b, _ := json.Marshal(liveEvent{ID: id, User: user, Type: "message.sent", Data: json.RawMessage(`{"n":"` + id + `"}`)})
	if err := bus.Publish(core.TopicLive, b); err != nil {
		t.Fatal(err)
	}
}

func ids(es []liveEvent) string {
	out := ""
	for _, e := range es {
		out += e.ID + " "
	}
	return out
}

func TestStreamResumeFromTheBuffer(t *testing.T) {
	t.Parallel()
	h, bus := newTestStreams(t, StreamConfig{Heartbeat: time.Hour, ReplayMax: 3, ReplayAge: time.Minute, PerUser: 2, Max: 10, ReplayBytes: 1 << 20})
	for i := 1; i <= 5; i++ {
		publishLive(t, bus, fmt.Sprint("e", i), "ann")
	}
	publishLive(t, bus, "b1", "bob")
	cases := []struct {
		last, want string
		reset      bool
	}{
		{"", "", false}, // a fresh stream replays nothing
		{"e3", "e4 e5 ", false},
		{"e5", "", false},  // up to date
		{"e2", "", true},   // fell out of the last 3
		{"b1", "", true},   // another user's event is not ann's
		{"nope", "", true}, // never was
	}
	for _, tc := range cases {
		s, backlog, reset, err := h.attach("ann", "tok", tc.last)
		if err != nil || ids(backlog) != tc.want || reset != tc.reset {
			t.Fatalf("after %q: %q reset %v err %v", tc.last, ids(backlog), reset, err)
		}
		h.detach(s)
	}
	// past ReplayAge everything is gone, and the user with it
	h.expire(time.Now().Add(2 * time.Minute))
	if _, ok := h.users["ann"]; ok {
		t.Fatal("an idle user's buffer outlived ReplayAge")
	}
}

func TestStreamCaps(t *testing.T) {
	t.Parallel()
	h, bus := newTestStreams(t, StreamConfig{Heartbeat: time.Hour, ReplayMax: 100, ReplayAge: time.Minute, PerUser: 2, Max: 3, ReplayBytes: 1 << 20})
	first, _, _, _ := h.attach("ann", "t1", "")
	second, _, _, _ := h.attach("ann", "t2", "")
	third, _, _, _ := h.attach("ann", "t3", "") // beyond 2 per user: the oldest ends
	if !ended(first) || first.reason != "replaced" || ended(second) || ended(third) {
		t.Fatal("the per-user cap did not end the oldest stream")
	}
	h.detach(first)
	_, _, _, _ = h.attach("bob", "t4", "")
	if _, _, _, err := h.attach("cid", "t5", ""); core.KindOf(err) != core.KindUnavailable {
		t.Fatalf("beyond the process cap: %v", err)
	}
	// a stream that does not read is ended once its buffer is full, and
	// nobody else waits for it
	for i := range sendBuffer + 1 {
		publishLive(t, bus, fmt.Sprint("m", i), "ann")
	}
	if !ended(second) || second.reason != "lagging" {
		t.Fatal("a lagging stream was not ended")
	}
	h.EndSessions("t3")
	if !ended(third) || third.reason != "lagging" && third.reason != "revoked" {
		t.Fatal("EndSessions left the stream open")
	}
}

func ended(s *stream) bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// A bus message whose id or type could break the event's field lines, or
// whose data is not JSON, is dropped.
func TestDecodeLiveRefusesWhatCouldInjectLines(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{
		`{"id":"a\nevent: x","user":"u","type":"message.sent","data":{}}`,
		`{"id":"a","user":"u","type":"message.sent\ndata: x","data":{}}`,
		`{"id":"a","user":"","type":"message.sent","data":{}}`,
		`{"id":"a","user":"u","type":"message.sent","data":nope}`,
		`not json`,
	} {
		if _, ok := decodeLive([]byte(raw)); ok {
			t.Fatalf("accepted %s", raw)
		}
	}
	e, ok := decodeLive([]byte("{\"id\":\"a\",\"user\":\"u\",\"type\":\"message.sent\",\"data\":{\n \"x\": 1\n}}"))
	if !ok || string(e.Data) != `{"x":1}` {
		t.Fatalf("%v %s", ok, e.Data)
	}
}

// encodeLive writes what json.Marshal writes, for plain ids and for
// strings that need escaping.
func TestEncodeLiveIsJSONMarshal(t *testing.T) {
	t.Parallel()
	for _, e := range []liveEvent{
		{ID: "01J9ZX-a.b_c", User: "u-1", Type: "event.created", Data: json.RawMessage(`{"title":"a \"b\"","n":[1,2]}`)},
		{ID: "a\"b", User: "ü\\<&>\n\u2028", Type: "", Data: json.RawMessage(`null`)},
	} {
		want, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		if got := encodeLive(e); string(got) != string(want) {
			t.Fatalf("encodeLive\n got %s\nwant %s", got, want)
		}
	}
}

// decodeLiveInFull is decodeLive as it was before splitLive: every message
// decoded by json.Unmarshal. The fast path must give the same answer.
func decodeLiveInFull(data []byte) (liveEvent, bool) {
	var e liveEvent
	if json.Unmarshal(data, &e) != nil {
		return liveEvent{}, false
	}
	return sseSafe(e)
}

// FuzzDecodeLiveIsDecodingInFull: whatever a bus message holds, decodeLive
// accepts exactly what a full json.Unmarshal accepts, with the same event.
func FuzzDecodeLiveIsDecodingInFull(f *testing.F) {
	for _, e := range []liveEvent{
		{ID: "01J9ZX-a.b_c", User: "u-1", Type: "event.created", Data: json.RawMessage(`{"title":"a \"b\"","n":[1,2]}`)},
		{ID: "a\"b", User: "ü\\<&>\n\u2028", Type: "", Data: json.RawMessage(`null`)},
		{ID: "a", User: "u", Type: "t", Data: json.RawMessage(`{"x":1}`)},
	} {
		f.Add(encodeLive(e))
	}
	for _, raw := range []string{
		`{"id":"a","user":"u","type":"t","data":1,"extra":{}}`,
		`{"id":"a","user":"u","type":"t","data":{"x":1}`,
		`{"id":"a","user":"u","type":"t","data": {"x":1} }`,
		`{"id":"a","user":"u","type":"t","data":{"x":1}}}`,
		`{"id":"a","user":"u\u00e9","type":"t","data":[]}`,
		"{\"id\":\"a\",\"user\":\"u\xff\",\"type\":\"t\",\"data\":[]}",
		"{\"id\":\"a\",\"user\":\"u\",\"type\":\"t\",\"data\":{\n}}",
		`{"type":"t","id":"a","user":"u","data":{}}`,
	} {
		f.Add([]byte(raw))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := decodeLive(data)
		want, wantOK := decodeLiveInFull(data)
		if ok != wantOK || got.ID != want.ID || got.User != want.User || got.Type != want.Type ||
			!bytes.Equal(got.Data, want.Data) {
			t.Fatalf("%q:\n got %v %+v\nwant %v %+v", data, ok, got, wantOK, want)
		}
	})
}

// BenchmarkDecodeLive decodes an event create's bus message, as every
// process does for every live event.
func BenchmarkDecodeLive(b *testing.B) {
	data, err := json.Marshal(map[string]any{"id": "01a21272-26be-7dc3-9fc5-3c63a4720754", "title": "Dinner",
		"description": "At the usual place", "startDate": "2026-12-01", "endDate": "2026-12-01", "startTime": "19:30",
		"endTime": "21:00", "location": "Home", "eventType": "date", "importanceLevel": "Medium", "notify": "30",
		"participants": []string{}, "createdAt": 1795605800638, "updatedAt": 1795605800638, "isPartnerEvent": true})
	if err != nil {
		b.Fatal(err)
	}
	msg := encodeLive(liveEvent{ID: "01a21272-26be-7dc3-9fc5-3c63a4720755", User: "01a21272-2228-7005-8c86-04f9ae49fac2",
		Type: "event.created", Data: data})
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := decodeLive(msg); !ok {
			b.Fatal("refused")
		}
	}
}
