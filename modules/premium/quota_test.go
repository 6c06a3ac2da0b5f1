package premium_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"tandem/adapters/memory"
	"tandem/adapters/purchases"
	"tandem/core/coretest"
	"tandem/modules/premium"
)

func TestParseSize(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want int64 // -1: refused
	}{
		{"1GB", 1 << 30},
		{"100GB", 100 << 30},
		{"500MB", 500 << 20},
		{"64KB", 64 << 10},
		{"2TB", 2 << 40},
		{"1 GiB", 1 << 30},
		{" 10mb ", 10 << 20},
		{"1024", 1024},
		{"1024B", 1024},
		{"0MB", 0},
		{"", -1},
		{"GB", -1},
		{"1.5GB", -1},
		{"-1GB", -1},
		{"1PB", -1},
		{"1 G B", -1},
		{"99999999999TB", -1}, // overflows int64
	} {
		got, err := premium.ParseSize(tc.in)
		if (tc.want < 0) != (err != nil) || (err == nil && got != tc.want) {
			t.Fatalf("%q: %d %v", tc.in, got, err)
		}
	}
}

func TestLimitsQuota(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		limits premium.Limits
		want   premium.Quota
		ok     bool
	}{
		{"the defaults as configured", premium.Limits{"memories": json.Number("100"), "storage": "1GB", "projects": json.Number("3")},
			premium.Quota{Memories: 100, Storage: 1 << 30, Label: "1GB"}, true},
		{"numbers from Go and plain JSON", premium.Limits{"memories": 3, "storage": float64(2048)},
			premium.Quota{Memories: 3, Storage: 2048, Label: "2048 bytes"}, true},
		{"absent keys are not enforced", premium.Limits{"projects": 3},
			premium.Quota{Memories: premium.NoLimit, Storage: premium.NoLimit}, true},
		{"zero forbids all", premium.Limits{"memories": json.Number("0"), "storage": "0MB"},
			premium.Quota{Memories: 0, Storage: 0, Label: "0MB"}, true},
		{"the label is trimmed", premium.Limits{"storage": " 5 MB "}, premium.Quota{Memories: premium.NoLimit, Storage: 5 << 20, Label: "5 MB"}, true},
		{"negative memories", premium.Limits{"memories": json.Number("-1")}, premium.Quota{}, false},
		{"fractional memories", premium.Limits{"memories": 2.5}, premium.Quota{}, false},
		{"memories as text", premium.Limits{"memories": "100"}, premium.Quota{}, false},
		{"storage without a number", premium.Limits{"storage": "lots"}, premium.Quota{}, false},
		{"storage as a boolean", premium.Limits{"storage": true}, premium.Quota{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.limits.Quota()
			if tc.ok != (err == nil) || got != tc.want {
				t.Fatalf("%+v %v", got, err)
			}
		})
	}
}

func TestQuotaFollowsThePremiumState(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := coretest.NewClock(time.Time{})
	partners := coretest.NewCouples()
	policy := premium.Policy{
		FreeLimits:    premium.Limits{"memories": json.Number("3"), "storage": "1MB"},
		PremiumLimits: premium.Limits{"memories": json.Number("30"), "storage": "1GB"},
	}
	svc := premium.NewService(memory.NewPremiumRepo(), partners, purchases.NewTrust(), purchases.NewTrust(), policy, clock, nil)
	now := clock.Now()
	if err := svc.Subscribe(ctx, "payer", premium.Draft{Plan: "9.99", StartDate: now, EndDate: now.AddDate(0, 1, 0)}); err != nil {
		t.Fatal(err)
	}
	partners.Pair("payer", "partner")
	free := premium.Quota{Memories: 3, Storage: 1 << 20, Label: "1MB"}
	paid := premium.Quota{Memories: 30, Storage: 1 << 30, Label: "1GB"}
	for user, want := range map[string]premium.Quota{"free": free, "payer": paid, "partner": paid} {
		if got, err := svc.Quota(ctx, user); err != nil || got != want {
			t.Fatalf("%s: %+v %v", user, got, err)
		}
	}
	clock.Advance(32 * 24 * time.Hour) // the subscription has ended
	for _, user := range []string{"payer", "partner"} {
		if got, err := svc.Quota(ctx, user); err != nil || got != free {
			t.Fatalf("%s after the end: %+v %v", user, got, err)
		}
	}
}
