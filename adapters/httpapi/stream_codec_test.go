package httpapi

import (
	"bytes"
	"encoding/json"
	"testing"
)

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
