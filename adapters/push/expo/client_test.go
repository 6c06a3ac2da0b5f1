package expo_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"tandem/adapters/push/expo"
	"tandem/adapters/push/expo/expotest"
	"tandem/modules/notifications"
)

func start(t *testing.T) (*expotest.Server, *expo.Client) {
	t.Helper()
	f := expotest.Start(t)
	return f, expo.New(f.SendURL(), f.Client())
}

func devices(tokens ...string) []notifications.Device {
	out := make([]notifications.Device, len(tokens))
	for i, tok := range tokens {
		out[i] = notifications.Device{ID: fmt.Sprint(i), UserID: "u1", Token: tok, Provider: "expo"}
	}
	return out
}

func outcomes(ds []notifications.Delivery) string {
	s := ""
	for _, d := range ds {
		s += [...]string{"F", "D", "X"}[d.Outcome]
	}
	return s
}

var msg = notifications.Message{NotificationID: "n1", Title: "Hello", Body: "World", Category: "mood"}

func TestTicketsDecideEachDelivery(t *testing.T) {
	t.Parallel()
	f, c := start(t)
	got := c.Push(context.Background(), msg, devices("ExponentPushToken[a]", "ExponentPushToken[gone]", "ExponentPushToken[toobig]"))
	if outcomes(got) != "DXF" || got[2].Err == nil || !strings.Contains(got[2].Err.Error(), "MessageTooBig") {
		t.Fatalf("%s %v", outcomes(got), got)
	}
	if got[0].Ticket != "ticket-0" || got[1].Ticket != "" || got[2].Ticket != "" {
		t.Fatalf("tickets %q %q %q: an accepted push carries its ticket id", got[0].Ticket, got[1].Ticket, got[2].Ticket)
	}
	batches := f.Batches()
	if len(batches) != 1 || len(batches[0]) != 3 {
		t.Fatalf("batches %v", batches)
	}
	want := `{"body":"World","data":{"category":"mood","notificationId":"n1"},"sound":"default","title":"Hello","to":"ExponentPushToken[a]"}`
	if b, _ := json.Marshal(batches[0][0]); string(b) != want {
		t.Fatalf("message\n got %s\nwant %s", b, want)
	}
}

func TestAtMostOneHundredPerRequest(t *testing.T) {
	t.Parallel()
	f, c := start(t)
	tokens := make([]string, 250)
	for i := range tokens {
		tokens[i] = fmt.Sprintf("ExponentPushToken[%d]", i)
	}
	tokens[150] = "ExponentPushToken[gone]"
	got := c.Push(context.Background(), msg, devices(tokens...))
	if len(got) != 250 || got[150].Outcome != notifications.OutcomeDeadToken || got[149].Outcome != notifications.OutcomeDelivered ||
		got[249].Outcome != notifications.OutcomeDelivered {
		t.Fatalf("%s", outcomes(got))
	}
	batches := f.Batches()
	if len(batches) != 3 || len(batches[0]) != 100 || len(batches[1]) != 100 || len(batches[2]) != 50 ||
		batches[1][50]["to"] != "ExponentPushToken[gone]" {
		t.Fatalf("batch sizes %d", len(batches))
	}
}

func TestAFailedRequestFailsItsWholeBatch(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		status int
		body   string
		drop   bool
		errHas string
	}{
		{"HTTP error with Expo's error body", 400, `{"errors":[{"code":"PUSH_TOO_MANY_EXPERIENCE_IDS","message":"mixed projects"}]}`, false, "PUSH_TOO_MANY_EXPERIENCE_IDS"},
		{"server error without a body", 503, ``, false, "HTTP 503"},
		{"answer that is not JSON", 200, `<html>`, false, "not JSON"},
		{"fewer tickets than messages", 0, ``, true, "1 tickets for 2 messages"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, c := start(t)
			if tc.drop {
				f.DropLastTicket()
			} else {
				f.FailWith(tc.status, tc.body)
			}
			got := c.Push(context.Background(), msg, devices("ExponentPushToken[a]", "ExponentPushToken[gone]"))
			if outcomes(got) != "FF" || got[0].Err == nil || !strings.Contains(got[0].Err.Error(), tc.errHas) {
				t.Fatalf("%s %v", outcomes(got), got)
			}
		})
	}
}

func TestUnreachableExpoFailsEveryDevice(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	got := expo.New(url, nil).Push(context.Background(), msg, devices("ExponentPushToken[a]"))
	if outcomes(got) != "F" || got[0].Err == nil {
		t.Fatalf("%v", got)
	}
	_, c := start(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got := c.Push(ctx, msg, devices("ExponentPushToken[a]")); outcomes(got) != "F" {
		t.Fatalf("cancelled: %v", got)
	}
	if got := c.Push(context.Background(), msg, nil); len(got) != 0 {
		t.Fatalf("no devices: %v", got)
	}
}

func TestReceiptsURLIsBesideTheSendURL(t *testing.T) {
	t.Parallel()
	cases := []struct{ send, want string }{
		{expo.DefaultURL, "https://exp.host/--/api/v2/push/getReceipts"},
		{"http://127.0.0.1:9/--/api/v2/push/send", "http://127.0.0.1:9/--/api/v2/push/getReceipts"},
		{"https://proxy.local/expo/send?key=1", "https://proxy.local/expo/getReceipts"},
		{"https://proxy.local/push", "https://proxy.local/getReceipts"},
	}
	for _, tc := range cases {
		if got := expo.ReceiptsURL(tc.send); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.send, got, tc.want)
		}
	}
}

func TestReceiptsAreReadByID(t *testing.T) {
	t.Parallel()
	f, c := start(t)
	got, err := c.Receipts(context.Background(), []string{"ok-1", "gone-2", "big-3", "pending-4"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]notifications.Receipt{
		"ok-1":   {Status: notifications.ReceiptOK},
		"gone-2": {Status: notifications.ReceiptDeadToken, Error: "DeviceNotRegistered: not a registered push notification recipient"},
		"big-3":  {Status: notifications.ReceiptFailed, Error: "error MessageTooBig: too big"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("receipts %v\nwant %v", got, want)
	}
	asked, sent := f.Asked(), f.Batches()
	if len(asked) != 1 || strings.Join(asked[0], ",") != "ok-1,gone-2,big-3,pending-4" || len(sent) != 0 {
		t.Fatalf("asked %v, sent %v", asked, sent)
	}
}

func TestAtMostOneThousandReceiptsPerRequest(t *testing.T) {
	t.Parallel()
	f, c := start(t)
	ids := make([]string, 2500)
	for i := range ids {
		ids[i] = fmt.Sprintf("ok-%d", i)
	}
	got, err := c.Receipts(context.Background(), ids)
	if err != nil || len(got) != 2500 {
		t.Fatalf("%d receipts, %v", len(got), err)
	}
	asked := f.Asked()
	if len(asked) != 3 || len(asked[0]) != 1000 || len(asked[1]) != 1000 || len(asked[2]) != 500 || asked[2][499] != "ok-2499" {
		t.Fatalf("requests of %d ids", len(asked))
	}
}

func TestAFailedReceiptRequestIsAnError(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		status int
		body   string
		errHas string
	}{
		{"HTTP error with Expo's error body", 429, `{"errors":[{"code":"TOO_MANY_REQUESTS","message":"slow down"}]}`, "TOO_MANY_REQUESTS"},
		{"server error without a body", 502, ``, "HTTP 502"},
		{"answer that is not JSON", 200, `<html>`, "not JSON"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, c := start(t)
			f.FailWith(tc.status, tc.body)
			got, err := c.Receipts(context.Background(), []string{"ok-1"})
			if err == nil || !strings.Contains(err.Error(), tc.errHas) || got != nil {
				t.Fatalf("%v %v", got, err)
			}
		})
	}
}

// TestOnlyExpoLikeTicketIDsAreKept: an id no receipt check could store
// (over 64 bytes, or not printable ASCII) leaves the delivery without one.
func TestOnlyExpoLikeTicketIDsAreKept(t *testing.T) {
	t.Parallel()
	_, c := start(t)
	got := c.Push(context.Background(), msg, devices("ExponentPushToken[long]", "ExponentPushToken[a]"))
	if outcomes(got) != "DD" || got[0].Ticket != "" || got[1].Ticket != "ticket-1" {
		t.Fatalf("%s %+v", outcomes(got), got)
	}
}
