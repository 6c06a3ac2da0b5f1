package mempush_test

import (
	"context"
	"sync"
	"testing"

	"tandem/adapters/push/mempush"
	"tandem/modules/notifications"
)

func TestOutboxRecordsEveryDelivery(t *testing.T) {
	t.Parallel()
	o := mempush.New()
	m := notifications.Message{NotificationID: "n1", Title: "t", Body: "b", Category: "mood"}
	a := notifications.Device{ID: "d1", UserID: "u1", Token: "a"}
	b := notifications.Device{ID: "d2", UserID: "u2", Token: "b"}
	got := o.Push(context.Background(), m, []notifications.Device{a, b})
	if len(got) != 2 || got[0].Outcome != notifications.OutcomeDelivered || got[1].Outcome != notifications.OutcomeDelivered {
		t.Fatalf("%+v", got)
	}
	all := o.All()
	if len(all) != 2 || all[0] != (mempush.Push{Message: m, Device: a}) || all[1].Device != b {
		t.Fatalf("%+v", all)
	}
	all[0].Device.Token = "changed"
	if o.All()[0].Device.Token != "a" {
		t.Fatal("All exposes the outbox's own slice")
	}
	if to := o.To("u2"); len(to) != 1 || to[0].Device != b {
		t.Fatalf("%+v", to)
	}
	if to := o.To("nobody"); len(to) != 0 {
		t.Fatalf("%+v", to)
	}
}

func TestOutboxConcurrent(t *testing.T) {
	t.Parallel()
	o := mempush.New()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				o.Push(context.Background(), notifications.Message{}, []notifications.Device{{UserID: "u"}})
				_ = o.To("u")
			}
		})
	}
	wg.Wait()
	if n := len(o.All()); n != 400 {
		t.Fatalf("%d", n)
	}
}
