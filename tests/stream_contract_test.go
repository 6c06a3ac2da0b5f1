package tests

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
)

// Every event a stream test reads (sse.read) is checked against the
// document's LiveEvent: {event: the SSE event line, data: its data line
// decoded}, a oneOf told apart by event. liveEventsSeen counts them by type.

const liveEventSchema = "/components/schemas/LiveEvent"

var liveEventsSeen sync.Map // event type -> struct{}

// checkLiveEvent is nil when e, decoded, is a LiveEvent of the document.
func checkLiveEvent(e sseEvent) error {
	c, err := loadContract()
	if err != nil {
		return err
	}
	var data any
	if err := json.Unmarshal([]byte(e.Data), &data); err != nil {
		return fmt.Errorf("stream event %s: data is not JSON: %v: %.200s", e.Type, err, e.Data)
	}
	liveEventsSeen.Store(e.Type, struct{}{})
	if err := c.bodies.check(liveEventSchema, map[string]any{"event": e.Type, "data": data}); err != nil {
		return fmt.Errorf("stream event %s is not a LiveEvent of the document: %v\ndata: %.300s", e.Type, err, e.Data)
	}
	return nil
}

// liveEventTypes is the LiveEvent discriminator's mapping: event -> schema.
func liveEventTypes(t *testing.T) map[string]string {
	c, err := loadContract()
	if err != nil {
		t.Fatal(err)
	}
	live := c.doc.Components.Schemas["LiveEvent"]
	if live == nil || live.Value.Discriminator == nil || live.Value.Discriminator.PropertyName != "event" {
		t.Fatal("components.schemas.LiveEvent is not a oneOf with the discriminator event")
	}
	mapping := map[string]string{}
	for name, ref := range live.Value.Discriminator.Mapping {
		mapping[name] = ref.Ref
	}
	return mapping
}

// TestStreamLiveEventDocumented pins the union to the x-events map: the same
// event types, each variant's data the schema x-events names; and the
// check itself refuses an unknown event and wrong data.
func TestStreamLiveEventDocumented(t *testing.T) {
	mapping := liveEventTypes(t)
	c, _ := loadContract()
	op := c.doc.Paths.Find("/api/users/user/{userId}/stream").Get
	var xevents map[string]struct {
		Ref string `json:"$ref"`
	}
	raw, err := json.Marshal(op.Responses.Value("200").Value.Content["text/event-stream"].Extensions["x-events"])
	if err != nil || json.Unmarshal(raw, &xevents) != nil || len(xevents) == 0 {
		t.Fatalf("the stream's x-events: %v %s", err, raw)
	}
	var names []string
	for name := range mapping {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		x, ok := xevents[name]
		if !ok {
			t.Errorf("LiveEvent maps %s, which x-events does not list", name)
			continue
		}
		variant := c.doc.Components.Schemas[strings.TrimPrefix(mapping[name], "#/components/schemas/")]
		if variant == nil {
			t.Errorf("LiveEvent maps %s to %s, which is not in components", name, mapping[name])
			continue
		}
		data := variant.Value.Properties["data"]
		if data == nil || data.Ref != x.Ref {
			t.Errorf("%s: LiveEvent's data is %v, x-events says %s", name, data, x.Ref)
		}
		if x.Ref == "" {
			t.Errorf("x-events' %s is not a named schema", name)
		}
	}
	for name := range xevents {
		if _, ok := mapping[name]; !ok {
			t.Errorf("x-events lists %s, which LiveEvent does not map", name)
		}
	}
	if checkLiveEvent(sseEvent{Type: "partnership.ended", Data: `{"partnerId":"u1"}`}) != nil {
		t.Error("a partnership.ended as documented is refused")
	}
	if checkLiveEvent(sseEvent{Type: "partnership.ended", Data: `{}`}) == nil {
		t.Error("a partnership.ended without partnerId passes")
	}
	if checkLiveEvent(sseEvent{Type: "no.such.event", Data: `{}`}) == nil {
		t.Error("an undocumented event passes")
	}
	if checkLiveEvent(sseEvent{Type: "reset", Data: `{}`}) != nil || checkLiveEvent(sseEvent{Type: "end", Data: `{"reason":"shutdown"}`}) != nil {
		t.Error("the control events as the server writes them are refused")
	}
}

// printUnseenLiveEvents names the LiveEvent types no stream test read
// (TestMain, after a whole-package run): documented, and so far unchecked.
func printUnseenLiveEvents() {
	c, err := loadContract()
	if err != nil || c.doc.Components.Schemas["LiveEvent"] == nil || c.doc.Components.Schemas["LiveEvent"].Value.Discriminator == nil {
		return
	}
	var unseen []string
	for name := range c.doc.Components.Schemas["LiveEvent"].Value.Discriminator.Mapping {
		if _, ok := liveEventsSeen.Load(name); !ok {
			unseen = append(unseen, name)
		}
	}
	sort.Strings(unseen)
	if len(unseen) > 0 {
		fmt.Printf("openapi: live events documented but read by no stream test: %s\n", strings.Join(unseen, ", "))
	}
}
