package httpapi

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"tandem/core"
	"tandem/modules/events"
	"tandem/modules/memories"
	"tandem/modules/messages"
	"tandem/modules/moods"
	"tandem/modules/notifications"
	"tandem/modules/partners"
	"tandem/modules/questions"
	"tandem/modules/relationship"
)

// TestRenderLiveIsTheRESTRead pins the JSON of every live record type: the
// exact body (or list item) of the REST read it stands for, and the same
// bytes as that read's handler mapper.
func TestRenderLiveIsTheRESTRead(t *testing.T) {
	at := time.UnixMilli(1750000000000).UTC()
	day := func(s string) core.Date { d, _ := core.ParseDate(s); return d }
	event := events.Event{ID: "e1", UserID: "ann", Title: "Dinner", StartDate: day("2025-07-01"), EndDate: day("2025-07-02"),
		Type: "date", Importance: "High", Participants: []string{"bob"}, CreatedAt: at, UpdatedAt: at}
	eventBody := `"id":"e1","userId":"ann","title":"Dinner","description":"","startDate":"2025-07-01","endDate":"2025-07-02",` +
		`"startTime":"","endTime":"","location":"","eventType":"date","importanceLevel":"High","notify":"",` +
		`"participants":["bob"],"createdAt":1750000000000,"updatedAt":1750000000000`
	daily := questions.Daily{ID: "d1", PartnershipID: "p1", Date: day("2025-06-15"), QuestionID: "q7", Text: "Best trip?",
		Category: "memories", CreatedAt: at}
	answerOf := func(user, text string) questions.Message {
		return questions.Message{ID: "m-" + user, DailyID: "d1", UserID: user, Kind: "answer", Text: text, CreatedAt: at}
	}
	code := partners.PairingCode{UserID: "ann", Code: "ABC234", ExpiresAt: at.Add(24 * time.Hour), CreatedAt: at}
	cases := []struct {
		name string
		rec  any
		want string
	}{
		{"message", messages.Message{ID: "m1", Scope: "p1", AuthorID: "ann", Body: "hi", CreatedAt: at},
			`{"id":"m1","body":"hi","author":"ann","createdAt":1750000000000}`},
		{"daily question, locked for a reader who has not answered", questions.View{Daily: daily,
			Conversation:      []questions.Item{{Message: questions.Message{ID: "m-ann", DailyID: "d1", UserID: "ann", Kind: "answer", CreatedAt: at}, Locked: true}},
			AnsweredByPartner: true},
			`{"question":{"id":"d1","text":"Best trip?","category":"memories","date":"2025-06-15"},` +
				`"conversation":[{"id":"m-ann","type":"answer","userId":"ann","locked":true,"timestamp":1750000000000}],` +
				`"answeredByMe":false,"answeredByPartner":true,"streak":{"current":0,"best":0}}`},
		{"daily question, answered by both", questions.View{Daily: daily,
			Conversation: []questions.Item{{Message: answerOf("ann", "Lisbon")}, {Message: answerOf("bob", "Porto")},
				{Message: questions.Message{ID: "r1", DailyID: "d1", UserID: "bob", Kind: "reaction", Reaction: "❤️", MessageID: "m-ann", CreatedAt: at}}},
			AnsweredByMe: true, AnsweredByPartner: true, Streak: questions.Streak{Current: 3, Best: 7}},
			`{"question":{"id":"d1","text":"Best trip?","category":"memories","date":"2025-06-15"},"conversation":[` +
				`{"id":"m-ann","type":"answer","userId":"ann","text":"Lisbon","timestamp":1750000000000},` +
				`{"id":"m-bob","type":"answer","userId":"bob","text":"Porto","timestamp":1750000000000},` +
				`{"id":"r1","type":"reaction","userId":"bob","reaction":"❤️","messageId":"m-ann","timestamp":1750000000000}],` +
				`"answeredByMe":true,"answeredByPartner":true,"streak":{"current":3,"best":7}}`},
		{"memory", memories.Memory{ID: "mem1", UserID: "ann", Title: "Lisbon", Description: "lost", Date: day("2025-06-01"),
			Images: []string{"http://x/files/u/ann/a.png"}, CreatedAt: at, UpdatedAt: at},
			`{"id":"mem1","title":"Lisbon","description":"lost","date":"2025-06-01","images":["http://x/files/u/ann/a.png"],` +
				`"createdAt":1750000000000,"updatedAt":1750000000000}`},
		{"memory without images", memories.Memory{ID: "mem2", UserID: "ann", Title: "t", Date: day("2025-06-01"), CreatedAt: at, UpdatedAt: at},
			`{"id":"mem2","title":"t","description":"","date":"2025-06-01","images":[],"createdAt":1750000000000,"updatedAt":1750000000000}`},
		{"mood", moods.Mood{ID: "md1", UserID: "ann", Level: moods.Great, Note: "sunny", Date: day("2025-06-15"), PartnershipID: "p1",
			CreatedAt: at, UpdatedAt: at},
			`{"id":"md1","userId":"ann","mood":"great","note":"sunny","date":"2025-06-15","createdAt":1750000000000,"updatedAt":1750000000000}`},
		{"event, the owner's read", events.Read{Event: event}, `{` + eventBody + `,"isPartnerEvent":false}`},
		{"event, the partner's read", events.Read{Event: event, Partner: true}, `{` + eventBody + `,"isPartnerEvent":true}`},
		{"pairing status, unpaired with a code", partners.Status{State: partners.StateUnpaired, MyCode: &code},
			`{"state":"unpaired","myCode":"ABC234","expiresAt":1750086400000,"partnerId":null,"incomingFrom":null,` +
				`"outgoingTo":null,"actionRequired":false}`},
		{"pairing status, pending both ways", partners.Status{State: partners.StatePending, OutgoingTo: "bob", IncomingFrom: "cid",
			ActionRequired: true},
			`{"state":"pending","myCode":null,"expiresAt":null,"partnerId":null,"incomingFrom":"cid","outgoingTo":"bob",` +
				`"actionRequired":true}`},
		{"pairing status, connected", partners.Status{State: partners.StateConnected, PartnerID: "bob"},
			`{"state":"connected","myCode":null,"expiresAt":null,"partnerId":"bob","incomingFrom":null,"outgoingTo":null,` +
				`"actionRequired":false}`},
		{"partnership ended", partners.Ended{PartnerID: "bob"}, `{"partnerId":"bob"}`},
		{"relationship, active", relationship.Duration{Days: 14, StartDate: day("2025-06-01"), Active: true},
			`{"days":14,"startDate":"2025-06-01T00:00:00Z","endDate":null,"isActive":true}`},
		{"relationship, ended", relationship.Duration{Days: 10, StartDate: day("2025-06-01"), EndDate: day("2025-06-11")},
			`{"days":10,"startDate":"2025-06-01T00:00:00Z","endDate":"2025-06-11T00:00:00Z","isActive":false}`},
		{"notification", notifications.Notification{ID: "n1", UserID: "ann", Title: "New message",
			Message: "Your partner sent you a message.", Category: "partnerActivity", CreatedAt: at},
			`{"id":"n1","title":"New message","message":"Your partner sent you a message.","category":"partnerActivity",` +
				`"read":false,"createdAt":1750000000000}`},
		{"deleted", core.Deleted{ID: "e1"}, `{"id":"e1"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := renderLive(tc.rec)
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(out)
			if err != nil || string(b) != tc.want {
				t.Fatalf("got  %s (%v)\nwant %s", b, err, tc.want)
			}
			if rest := restRead(t, tc.rec); !reflect.DeepEqual(decoded(t, out), rest) {
				t.Fatalf("the REST read renders %v", rest)
			}
		})
	}
}

// restRead is the body (or list item) the REST read of rec's type
// renders, through its handler's mapper, decoded.
func restRead(t *testing.T, rec any) any {
	t.Helper()
	var v any
	switch r := rec.(type) {
	case messages.Message: // an item of the list
		v = toMessagesJSON([]messages.Message{r})[0]
	case events.Read: // the single read: its handler's own call
		v = toEventReadJSON(r)
	case notifications.Notification: // an item of the list
		v = toNotificationsJSON([]notifications.Notification{r})[0]
	case questions.View: // the GET body less success
		v = dailyQuestionReply{Success: true, dailyQuestionToday: toDailyQuestionToday(r)}
	case memories.Memory:
		v = toMemoryJSON(r)
	case moods.Mood: // an item of the list
		v = toMoodsJSON([]moods.Mood{r})[0]
	case partners.Status:
		v = toPairingStatusJSON(r)
	case partners.Ended:
		v = partnershipEndedJSON{PartnerID: r.PartnerID}
	case relationship.Duration:
		v = toDurationJSON(r)
	case core.Deleted:
		v = deletedJSON{ID: r.ID}
	default:
		t.Fatalf("no REST read for %T", rec)
	}
	body := decoded(t, v)
	if m, ok := body.(map[string]any); ok {
		delete(m, "success")
	}
	return body
}

func decoded(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// A record nobody renders is an internal error, never a raw value: a
// module's internal type (or a pointer to a known one) cannot slip out.
func TestRenderLiveRefusesAnUnknownRecord(t *testing.T) {
	type stray struct{ Secret string }
	for _, rec := range []any{stray{Secret: "x"}, &messages.Message{Body: "x"}, events.Event{ID: "e1"}, nil,
		questions.Message{Text: "x"}, partners.Snapshot{}} {
		if out, err := renderLive(rec); !core.IsKind(err, core.KindInternal) || out != nil {
			t.Errorf("%T: %v %v", rec, out, err)
		}
	}
}
