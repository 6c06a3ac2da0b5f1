package httpapi

import (
	"encoding/json"
	"testing"
	"time"

	"tandem/core"
	"tandem/modules/advice"
	"tandem/modules/events"
	"tandem/modules/feedback"
	"tandem/modules/flags"
	"tandem/modules/images"
	"tandem/modules/memories"
	"tandem/modules/messages"
	"tandem/modules/moods"
	"tandem/modules/notifications"
	"tandem/modules/partners"
	"tandem/modules/premium"
	"tandem/modules/questions"
	"tandem/modules/relationship"
)

// TestExportSectionsRenderLikeTheAPI pins the JSON of every export section:
// each module's typed records, rendered by its handler file's mappers.
func TestExportSectionsRenderLikeTheAPI(t *testing.T) {
	at := time.UnixMilli(1750000000000).UTC()
	day := func(s string) core.Date { d, _ := core.ParseDate(s); return d }
	code, partner := "ABC234", "u2"
	allOn := `{"pauseAll":false,"dailyReminders":true,"moodUpdates":true,"habitsReminder":true,` +
		`"eventsNotification":true,"gamesNotification":true,"partnerActivity":true,"systemUpdates":true,"dailyReminderTime":"20:00"}`
	cases := []struct {
		name string
		in   any
		want string
	}{
		{"events empty", []events.Event{}, `[]`},
		{"events", []events.Event{{ID: "e1", UserID: "u1", Title: "Dentist", StartDate: day("2025-01-01"),
			EndDate: day("2025-01-01"), Type: "date", Importance: "Medium", CreatedAt: at, UpdatedAt: at}},
			`[{"id":"e1","userId":"u1","title":"Dentist","description":"","startDate":"2025-01-01","endDate":"2025-01-01",` +
				`"startTime":"","endTime":"","location":"","eventType":"date","importanceLevel":"Medium","notify":"",` +
				`"participants":[],"createdAt":1750000000000,"updatedAt":1750000000000}]`},
		{"memories empty", []memories.Memory{}, `[]`},
		{"memories", []memories.Memory{{ID: "m1", UserID: "u1", Title: "Lisbon", Description: "lost", Date: day("2025-06-01"),
			CreatedAt: at, UpdatedAt: at}},
			`[{"id":"m1","title":"Lisbon","description":"lost","date":"2025-06-01","images":[],` +
				`"createdAt":1750000000000,"updatedAt":1750000000000}]`},
		{"messages", []messages.ExportedMessage{
			{Message: messages.Message{ID: "m2", Scope: "p1", AuthorID: "u1", Body: "to bob", CreatedAt: at}, PartnershipID: "p1"},
			{Message: messages.Message{ID: "m1", Scope: "user:u1", AuthorID: "u1", Body: "alone", CreatedAt: at}}},
			`[{"id":"m2","body":"to bob","author":"u1","createdAt":1750000000000,"partnershipId":"p1"},` +
				`{"id":"m1","body":"alone","author":"u1","createdAt":1750000000000,"partnershipId":null}]`},
		{"moods empty", []moods.Mood{}, `[]`},
		{"moods", []moods.Mood{{ID: "d1", UserID: "u1", Level: moods.Low, Note: "long day", Date: day("2025-06-15"),
			PartnershipID: "p1", CreatedAt: at, UpdatedAt: at.Add(time.Second)}},
			`[{"id":"d1","userId":"u1","mood":"low","note":"long day","date":"2025-06-15",` +
				`"createdAt":1750000000000,"updatedAt":1750000001000}]`},
		{"questions empty", []questions.Entry(nil), `[]`},
		{"questions", []questions.Entry{
			{Daily: questions.Daily{ID: "d1", Date: day("2025-06-15"), Text: "Best trip?"},
				Message: questions.Message{ID: "q1", DailyID: "d1", UserID: "u1", Kind: "answer", Text: "Lisbon", CreatedAt: at}},
			{Daily: questions.Daily{ID: "d1", Date: day("2025-06-15"), Text: "Best trip?"},
				Message: questions.Message{ID: "q2", DailyID: "d1", UserID: "u1", Kind: "reaction", Reaction: "👍", MessageID: "q0",
					CreatedAt: at}}},
			`[{"id":"q1","type":"answer","userId":"u1","text":"Lisbon","timestamp":1750000000000,` +
				`"date":"2025-06-15","question":"Best trip?"},` +
				`{"id":"q2","type":"reaction","userId":"u1","reaction":"👍","messageId":"q0","timestamp":1750000000000,` +
				`"date":"2025-06-15","question":"Best trip?"}]`},
		{"advice empty", []advice.Daily(nil), `[]`},
		{"advice", []advice.Daily{{ID: "a1", UserID: "u1", Date: day("2025-06-15"), Text: "Listen.", Theme: "communication",
			CreatedAt: at}},
			`[{"_creationTime":1750000000000,"_id":"a1","advice":"Listen.","theme":"communication","date":"2025-06-15"}]`},
		{"feedback empty", []feedback.Feedback{}, `[]`},
		{"feedback", []feedback.Feedback{{ID: "f1", UserID: "u1", Message: "lovely", CreatedAt: at}},
			`[{"feedbackId":"f1","feedbackMessage":"lovely","userId":"u1","createdAt":"15/06/2025","timestamp":1750000000000}]`},
		{"images empty", []images.Image(nil), `[]`},
		{"images", []images.Image{{ID: "i1", UserID: "u1", URL: "https://x/files/u/u1/a.png", Key: "u/u1/a.png", GroupID: "g1",
			CreatedAt: at, Width: 640, Height: 480, BlurHash: "LKO2?U%2Tw=w"}},
			`[{"_id":"i1","userId":"u1","url":"https://x/files/u/u1/a.png","key":"u/u1/a.png","groupId":"g1",` +
				`"createdAt":1750000000000,"width":640,"height":480,"blurhash":"LKO2?U%2Tw=w"}]`},
		{"relationship empty", []relationship.ExportedRelationship{}, `[]`},
		{"relationship", []relationship.ExportedRelationship{
			{Relationship: relationship.Relationship{StartDate: day("2025-02-01"), Active: true}, PartnerID: "bob"},
			{Relationship: relationship.Relationship{StartDate: day("2024-01-01"), EndDate: day("2025-01-01")}, PartnerID: "bob"}},
			`[{"startDate":"2025-02-01","endDate":null,"isActive":true,"partnerId":"bob"},` +
				`{"startDate":"2024-01-01","endDate":"2025-01-01","isActive":false,"partnerId":"bob"}]`},
		{"premium none", (*premium.Subscription)(nil), `null`},
		{"premium", &premium.Subscription{UserID: "u1", Plan: "9.99", StartDate: at, EndDate: at.Add(time.Hour), IsActive: true,
			LastRenewed: at, Meta: json.RawMessage(`{"a":1}`), CreatedAt: at, UpdatedAt: at},
			`{"plan":"9.99","startDate":1750000000000,"endDate":1750003600000,"isActive":true,"cancelled":false,` +
				`"billingId":"","platform":"","lastRenewed":1750000000000,"meta":{"a":1},"createdAt":1750000000000,"store":null,"storeRef":"","productId":"","state":""}`},
		{"flags empty", flags.ExportedListings{}, `{"enabledFor":[],"disabledFor":[]}`},
		{"flags", flags.ExportedListings{EnabledFor: []string{"a", "b"}, DisabledFor: []string{"c"}},
			`{"enabledFor":["a","b"],"disabledFor":["c"]}`},
		{"partners empty", partners.Export{}, `{"connectionCode":null,"pairingCode":null,"partnerId":null}`},
		{"partners", partners.Export{ConnectionCode: &code, PairingCode: &code, PartnerID: &partner},
			`{"connectionCode":"ABC234","pairingCode":"ABC234","partnerId":"u2"}`},
		{"notifications empty", notifications.Export{Settings: notifications.DefaultSettings("u1")},
			`{"settings":` + allOn + `,"notifications":[],"devices":[]}`},
		{"notifications", notifications.Export{Settings: notifications.DefaultSettings("u1"),
			Notifications: []notifications.Notification{{ID: "n1", UserID: "u1", Title: "Hi", Message: "there",
				Category: "mood", Read: true, CreatedAt: at}},
			Devices: []notifications.DeviceInfo{{ID: "d1", Platform: "ios", Provider: "expo", RegisteredAt: at}}},
			`{"settings":` + allOn + `,"notifications":[{"id":"n1","title":"Hi","message":"there","category":"mood",` +
				`"read":true,"createdAt":1750000000000}],` +
				`"devices":[{"id":"d1","platform":"ios","provider":"expo","registeredAt":1750000000000}]}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := toExportJSON(map[string]any{"s": tc.in})
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(out["s"])
			if err != nil || string(b) != tc.want {
				t.Fatalf("got  %s (%v)\nwant %s", b, err, tc.want)
			}
		})
	}
}

// A section nobody renders is an internal error, never a raw value.
func TestExportRefusesAnUnknownSection(t *testing.T) {
	type stray struct{ Secret string }
	_, err := toExportJSON(map[string]any{"stray": stray{Secret: "x"}})
	if !core.IsKind(err, core.KindInternal) {
		t.Fatalf("got %v", err)
	}
}
