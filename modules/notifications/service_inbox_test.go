// This file holds the tests of a user's settings, inbox and devices: read
// and update, list, mark read, register, move and remove.

package notifications_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"tandem/core"
	"tandem/core/coretest"
	n "tandem/modules/notifications"
)

func TestSettingsReadAndUpdate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	st, err := f.svc.Settings(ctx, "u1")
	if err != nil || st != n.DefaultSettings("u1") {
		t.Fatalf("defaults %+v %v", st, err)
	}
	if _, err := f.repo.Settings(ctx, "u1"); !core.IsKind(err, core.KindNotFound) {
		t.Fatal("reading the defaults wrote them")
	}

	_, err = f.svc.UpdateSettings(ctx, "u1", n.Changes{Switches: n.Patch{}})
	coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
	_, err = f.svc.UpdateSettings(ctx, "u1", n.Changes{Switches: n.Patch{n.MoodUpdates: false, "sounds": true}})
	coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
	if _, err := f.repo.Settings(ctx, "u1"); !core.IsKind(err, core.KindNotFound) {
		t.Fatal("a refused update wrote")
	}

	f.clock.Advance(time.Hour)
	st, err = f.svc.UpdateSettings(ctx, "u1", n.Changes{Switches: n.Patch{n.MoodUpdates: false, n.PauseAll: true}})
	if err != nil || !st.PauseAll || len(st.On()) != 0 || !st.UpdatedAt.Equal(f.clock.Now()) || st.UserID != "u1" {
		t.Fatalf("paused %+v %v", st, err)
	}
	if got, _ := f.svc.Settings(ctx, "u1"); got != st {
		t.Fatalf("read back %+v", got)
	}
	st, err = f.svc.UpdateSettings(ctx, "u1", n.Changes{Switches: n.Patch{n.PauseAll: false}})
	want := n.AllOn()
	want.MoodUpdates = false
	if err != nil || st.PauseAll || st.Preferences != want {
		t.Fatalf("resumed %+v %v", st, err)
	}
	if other, _ := f.svc.Settings(ctx, "u2"); other != n.DefaultSettings("u2") {
		t.Fatalf("another user's settings changed: %+v", other)
	}
}

func TestInboxRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	var ids []string
	for i := range 3 {
		res, err := f.svc.Notify(ctx, "u1", "questions", fmt.Sprintf("q%d", i), "m")
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.Notification.ID)
		f.clock.Advance(time.Minute)
	}
	other, err := f.svc.Notify(ctx, "u2", "mood", "theirs", "m")
	if err != nil {
		t.Fatal(err)
	}
	count := func(user string) int {
		t.Helper()
		c, err := f.svc.UnreadCount(ctx, user)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	if c := count("u1"); c != 3 {
		t.Fatalf("unread %d", c)
	}
	if ns := f.inbox(t, "u1"); len(ns) != 3 || ns[0].ID != ids[2] || ns[2].ID != ids[0] {
		t.Fatalf("newest first: %+v", ns)
	}
	empty, next, err := f.svc.List(ctx, "nobody", true, core.Page{})
	if err != nil || empty == nil || len(empty) != 0 || next != "" {
		t.Fatalf("an empty inbox is a non-nil empty list: %#v %q %v", empty, next, err)
	}

	coretest.WantErr(t, f.svc.MarkRead(ctx, "u1", other.Notification.ID), core.KindNotFound, "not_found")
	coretest.WantErr(t, f.svc.MarkRead(ctx, "u1", "nope"), core.KindNotFound, "not_found")
	coretest.WantErr(t, f.svc.MarkRead(ctx, "u1", " "), core.KindInvalid, "invalid_request")
	if err := f.svc.MarkRead(ctx, "u1", ids[1]); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.MarkRead(ctx, "u1", ids[1]); err != nil {
		t.Fatalf("marking again: %v", err)
	}
	unread, _, _ := f.svc.List(ctx, "u1", true, core.Page{})
	if len(unread) != 2 || unread[0].ID != ids[2] || unread[1].ID != ids[0] || count("u1") != 2 {
		t.Fatalf("unread %+v", unread)
	}
	marked, err := f.svc.MarkAllRead(ctx, "u1")
	if err != nil || marked != 2 || count("u1") != 0 || count("u2") != 1 {
		t.Fatalf("mark all %d %v", marked, err)
	}
	if marked, _ := f.svc.MarkAllRead(ctx, "u1"); marked != 0 {
		t.Fatalf("again %d", marked)
	}
}

func TestDeviceRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cases := []struct {
		name string
		reg  n.Registration
		msg  string
	}{
		{"missing platform", n.Registration{Token: "t", Provider: "fcm"}, "platform is required: ios, android or web"},
		{"unknown platform", n.Registration{Token: "t", Platform: "tizen", Provider: "fcm"}, "platform must be ios, android or web"},
		{"missing provider", n.Registration{Token: "t", Platform: "ios"}, "provider is required: expo or fcm"},
		{"unknown provider", n.Registration{Token: "t", Platform: "ios", Provider: "apns"}, "provider must be expo or fcm"},
		{"missing token", n.Registration{Platform: "ios", Provider: "fcm"}, "token is required"},
		{"expo token of the wrong form", n.Registration{Token: "abc", Platform: "ios", Provider: "expo"}, "an expo token looks like ExponentPushToken[...]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			_, err := f.svc.RegisterDevice(ctx, "u1", tc.reg)
			coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
			if core.As(err).Message != tc.msg {
				t.Fatalf("message %q", core.As(err).Message)
			}
			if f.tokens(t, "u1") != "" {
				t.Fatal("a refused device was stored")
			}
		})
	}

	t.Run("the same token again is the same device; another user takes it as a new device", func(t *testing.T) {
		f := newFixture(t)
		reg := n.Registration{Token: "ExponentPushToken[abc]", Platform: "ios", Provider: "expo"}
		d1, err := f.svc.RegisterDevice(ctx, "u1", reg)
		if err != nil {
			t.Fatal(err)
		}
		want := n.Device{ID: d1.ID, UserID: "u1", Token: reg.Token, Platform: core.PlatformIOS, Provider: "expo",
			CreatedAt: f.clock.Now(), UpdatedAt: f.clock.Now()}
		if d1 != want {
			t.Fatalf("registered %+v", d1)
		}
		f.clock.Advance(time.Hour)
		again, err := f.svc.RegisterDevice(ctx, "u1", reg)
		if err != nil || again.ID != d1.ID || !again.UpdatedAt.Equal(f.clock.Now()) {
			t.Fatalf("again %+v %v", again, err)
		}
		f.clock.Advance(time.Hour)
		moved, err := f.svc.RegisterDevice(ctx, "u2", reg)
		if err != nil || moved.ID == d1.ID || moved.UserID != "u2" || !moved.CreatedAt.Equal(f.clock.Now()) {
			t.Fatalf("moved %+v %v: u1's device id must not be handed to u2", moved, err)
		}
		if f.tokens(t, "u1") != "" || f.tokens(t, "u2") != reg.Token {
			t.Fatal("not moved")
		}
		coretest.WantErr(t, f.svc.RemoveDevice(ctx, "u1", d1.ID), core.KindNotFound, "not_found")
		coretest.WantErr(t, f.svc.RemoveDevice(ctx, "u2", d1.ID), core.KindNotFound, "not_found")
		coretest.WantErr(t, f.svc.RemoveDevice(ctx, "u2", "nope"), core.KindNotFound, "not_found")
		if err := f.svc.RemoveDevice(ctx, "u2", moved.ID); err != nil {
			t.Fatal(err)
		}
		if f.tokens(t, "u2") != "" {
			t.Fatal("not removed")
		}
	})

	t.Run("a user keeps the ten most recently registered devices", func(t *testing.T) {
		f := newFixture(t)
		for i := range n.MaxDevices + 2 {
			f.register(t, "u1", fmt.Sprintf("t%02d", i))
			f.clock.Advance(time.Second)
		}
		got := f.tokens(t, "u1")
		if strings.Count(got, ",") != n.MaxDevices-1 || !strings.HasPrefix(got, "t11,") || !strings.HasSuffix(got, ",t02") {
			t.Fatalf("kept %s", got)
		}
	})
}
