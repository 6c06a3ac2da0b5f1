package logpush_test

import (
	"context"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"tandem/adapters/push/logpush"
	"tandem/modules/notifications"
)

func TestSenderLogsEveryDeviceAndCountsItDelivered(t *testing.T) {
	t.Parallel()
	core, logs := observer.New(zapcore.InfoLevel)
	s := logpush.New(zap.New(core))
	m := notifications.Message{NotificationID: "n1", Title: "Hi", Body: "there", Category: "mood"}
	got := s.Push(context.Background(), m, []notifications.Device{
		{ID: "d1", UserID: "u1", Token: "ExponentPushToken[abcdefghijkl]", Provider: "expo"},
		{ID: "d2", UserID: "u1", Token: "short", Provider: "fcm"},
	})
	if len(got) != 2 || got[0].Outcome != notifications.OutcomeDelivered || got[1].Outcome != notifications.OutcomeDelivered {
		t.Fatalf("%+v", got)
	}
	lines := logs.FilterMessage("push").All()
	if len(lines) != 2 {
		t.Fatalf("%d lines", len(lines))
	}
	f := lines[0].ContextMap()
	if f["device_id"] != "d1" || f["title"] != "Hi" || f["body"] != "there" || f["category"] != "mood" ||
		f["token"] != "ExponentPush…" || f["provider"] != "expo" {
		t.Fatalf("fields %v", f)
	}
	if lines[1].ContextMap()["token"] != "short" {
		t.Fatalf("fields %v", lines[1].ContextMap())
	}
}
