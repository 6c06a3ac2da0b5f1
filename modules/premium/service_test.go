package premium_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"go.uber.org/mock/gomock"

	"tandem/adapters/memory"
	"tandem/adapters/purchases"
	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/premium"
)

var policy = premium.Policy{
	FreeLimits:      premium.Limits{"projects": 3, "storage": "1GB"},
	PremiumLimits:   premium.Limits{"projects": 100, "storage": "100GB"},
	FreeFeatures:    []string{"messages", "events"},
	PremiumFeatures: []string{"hd_photos", "custom_themes"},
}

// fixture is a Service on memory fakes with a fixed clock (2025-06-15 12:00 UTC).
type fixture struct {
	svc      *premium.Service
	repo     *memory.PremiumRepo
	partners *coretest.Couples
	clock    *coretest.FixedClock
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{repo: memory.NewPremiumRepo(), partners: coretest.NewCouples(), clock: coretest.NewClock(time.Time{})}
	f.svc = premium.NewService(f.repo, f.partners, purchases.NewTrust(), purchases.NewTrust(), policy, f.clock, nil)
	return f
}

// draft is a month of premium from now.
func (f *fixture) draft(plan string) premium.Draft {
	now := f.clock.Now()
	return premium.Draft{Plan: plan, StartDate: now, EndDate: now.AddDate(0, 1, 0)}
}

func (f *fixture) subscribe(t *testing.T, user string, d premium.Draft) {
	t.Helper()
	if err := f.svc.Subscribe(context.Background(), user, d); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) status(t *testing.T, user string) premium.Status {
	t.Helper()
	st, err := f.svc.Status(context.Background(), user)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestSubscribeRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	start := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	end := start.AddDate(1, 0, 0)
	cases := []struct {
		name    string
		draft   premium.Draft
		errCode string // "" when accepted
		want    premium.Subscription
	}{
		{name: "all fields", draft: premium.Draft{Plan: " 9.99 ", StartDate: start, EndDate: end, BillingID: "gp-1",
			Platform: "android", Meta: json.RawMessage(`{ "store": "play" }`)},
			want: premium.Subscription{Plan: "9.99", BillingID: "gp-1", Platform: core.PlatformAndroid, Meta: json.RawMessage(`{"store":"play"}`)}},
		{name: "optional fields left out", draft: premium.Draft{Plan: "9.99", StartDate: start, EndDate: end},
			want: premium.Subscription{Plan: "9.99", Meta: json.RawMessage(`{}`)}},
		{name: "web platform", draft: premium.Draft{Plan: "1", StartDate: start, EndDate: end, Platform: "web"},
			want: premium.Subscription{Plan: "1", Platform: core.PlatformWeb, Meta: json.RawMessage(`{}`)}},
		{name: "blank plan", draft: premium.Draft{Plan: "  ", StartDate: start, EndDate: end}, errCode: "invalid_request"},
		{name: "plan of 65", draft: premium.Draft{Plan: strings.Repeat("9", 65), StartDate: start, EndDate: end}, errCode: "invalid_request"},
		{name: "end at start", draft: premium.Draft{Plan: "9.99", StartDate: start, EndDate: start}, errCode: "invalid_request"},
		{name: "end before start", draft: premium.Draft{Plan: "9.99", StartDate: end, EndDate: start}, errCode: "invalid_request"},
		{name: "no dates", draft: premium.Draft{Plan: "9.99"}, errCode: "invalid_request"},
		{name: "unknown platform", draft: premium.Draft{Plan: "9.99", StartDate: start, EndDate: end, Platform: "palm"}, errCode: "invalid_request"},
		{name: "meta not an object", draft: premium.Draft{Plan: "9.99", StartDate: start, EndDate: end, Meta: json.RawMessage(`[1]`)}, errCode: "invalid_request"},
		{name: "meta over 4 KB", draft: premium.Draft{Plan: "9.99", StartDate: start, EndDate: end,
			Meta: json.RawMessage(`{"k":"` + strings.Repeat("x", 4096) + `"}`)}, errCode: "invalid_request"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			err := f.svc.Subscribe(ctx, "u1", tc.draft)
			got, gerr := f.repo.Get(ctx, "u1")
			if tc.errCode != "" {
				coretest.WantErr(t, err, core.KindInvalid, tc.errCode)
				coretest.WantErr(t, gerr, core.KindNotFound, "not_found") // nothing written
				return
			}
			if err != nil || gerr != nil {
				t.Fatal(err, gerr)
			}
			now := f.clock.Now()
			if got.Plan != tc.want.Plan || got.BillingID != tc.want.BillingID || got.Platform != tc.want.Platform ||
				string(got.Meta) != string(tc.want.Meta) || !got.StartDate.Equal(start) || !got.EndDate.Equal(end) ||
				!got.IsActive || got.Cancelled || !got.LastRenewed.Equal(now) || !got.CreatedAt.Equal(now) {
				t.Fatalf("stored %+v", got)
			}
		})
	}
}

func TestSubscribeAgainReplacesAndReactivates(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	d := f.draft("9.99")
	d.BillingID, d.Meta = "first", json.RawMessage(`{"a":1}`)
	f.subscribe(t, "u1", d)
	if err := f.svc.Cancel(ctx, "u1"); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(time.Hour)
	f.subscribe(t, "u1", f.draft("19.99"))
	got, _ := f.repo.Get(ctx, "u1")
	if got.Plan != "19.99" || !got.IsActive || got.Cancelled || got.BillingID != "" || string(got.Meta) != "{}" ||
		!got.LastRenewed.Equal(f.clock.Now()) {
		t.Fatalf("replaced %+v", got)
	}
	if st := f.status(t, "u1"); !st.IsPremium || st.Source != premium.SourceDirect {
		t.Fatalf("status %+v", st)
	}
}

func TestDirectPremiumExpiresByTheClock(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	now := f.clock.Now()
	f.subscribe(t, "u1", premium.Draft{Plan: "9.99", StartDate: now.Add(-time.Hour), EndDate: now.Add(time.Hour)})

	st := f.status(t, "u1")
	if !st.IsPremium || st.Source != premium.SourceDirect || st.PartnerID != "" || st.Inherited ||
		st.Subscription == nil {
		t.Fatalf("before the end: %+v", st)
	}
	f.clock.Advance(time.Hour) // exactly endDate: no job ran, the read decides
	st = f.status(t, "u1")
	if st.IsPremium || st.Source != premium.SourceNone || st.Subscription == nil || !st.Subscription.IsActive {
		t.Fatalf("at the end: %+v", st)
	}
	if st := f.status(t, "nobody"); st.IsPremium || st.Source != premium.SourceNone || st.Subscription != nil {
		t.Fatalf("no subscription: %+v", st)
	}
}

func TestUpdateRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ptr := func(s string) *string { return &s }
	tptr := func(t time.Time) *time.Time { return &t }
	base := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name        string
		patch       premium.Patch
		errCode     string
		check       func(t *testing.T, s premium.Subscription)
		wantRenewed bool
	}{
		{name: "plan only", patch: premium.Patch{Plan: ptr("19.99")}, check: func(t *testing.T, s premium.Subscription) {
			if s.Plan != "19.99" || s.BillingID != "b1" || string(s.Meta) != `{"a":1}` || s.Platform != core.PlatformIOS {
				t.Fatalf("%+v", s)
			}
		}},
		{name: "later end renews", patch: premium.Patch{EndDate: tptr(base.AddDate(0, 2, 0))}, wantRenewed: true,
			check: func(t *testing.T, s premium.Subscription) {
				if !s.EndDate.Equal(base.AddDate(0, 2, 0)) {
					t.Fatalf("%+v", s)
				}
			}},
		{name: "earlier end is no renewal", patch: premium.Patch{EndDate: tptr(base.AddDate(0, 0, 10))}},
		{name: "platform, billing and meta", patch: premium.Patch{Platform: ptr("web"), BillingID: ptr("b2"), Meta: json.RawMessage(`{"b": 2}`)},
			check: func(t *testing.T, s premium.Subscription) {
				if s.Platform != core.PlatformWeb || s.BillingID != "b2" || string(s.Meta) != `{"b":2}` {
					t.Fatalf("%+v", s)
				}
			}},
		{name: "meta null clears it", patch: premium.Patch{Meta: json.RawMessage(`null`)}, check: func(t *testing.T, s premium.Subscription) {
			if string(s.Meta) != "{}" {
				t.Fatalf("%+v", s)
			}
		}},
		{name: "nothing to update", patch: premium.Patch{}, errCode: "invalid_request"},
		{name: "end before start", patch: premium.Patch{EndDate: tptr(base.Add(-time.Hour))}, errCode: "invalid_request"},
		{name: "start after end", patch: premium.Patch{StartDate: tptr(base.AddDate(1, 0, 0))}, errCode: "invalid_request"},
		{name: "empty plan", patch: premium.Patch{Plan: ptr("")}, errCode: "invalid_request"},
		{name: "bad platform", patch: premium.Patch{Platform: ptr("beos")}, errCode: "invalid_request"},
		{name: "meta array", patch: premium.Patch{Meta: json.RawMessage(`[]`)}, errCode: "invalid_request"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.subscribe(t, "u1", premium.Draft{Plan: "9.99", StartDate: base, EndDate: base.AddDate(0, 1, 0),
				BillingID: "b1", Platform: "ios", Meta: json.RawMessage(`{"a":1}`)})
			before, _ := f.repo.Get(ctx, "u1")
			f.clock.Advance(time.Hour)
			err := f.svc.Update(ctx, "u1", tc.patch)
			after, _ := f.repo.Get(ctx, "u1")
			if tc.errCode != "" {
				coretest.WantErr(t, err, core.KindInvalid, tc.errCode)
				if !after.UpdatedAt.Equal(before.UpdatedAt) || after.Plan != before.Plan {
					t.Fatal("a refused update wrote")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.check != nil {
				tc.check(t, after)
			}
			if renewed := after.LastRenewed.Equal(f.clock.Now()); renewed != tc.wantRenewed {
				t.Fatalf("lastRenewed %v", after.LastRenewed)
			}
			if !after.IsActive || after.Cancelled || !after.UpdatedAt.Equal(f.clock.Now()) || !after.CreatedAt.Equal(before.CreatedAt) {
				t.Fatalf("%+v", after)
			}
		})
	}

	t.Run("without a premium: 404 not_found", func(t *testing.T) {
		f := newFixture(t)
		coretest.WantErr(t, f.svc.Update(ctx, "u1", premium.Patch{Plan: ptr("1")}), core.KindNotFound, "not_found")
	})
	t.Run("update neither reactivates nor cancels", func(t *testing.T) {
		f := newFixture(t)
		f.subscribe(t, "u1", f.draft("9.99"))
		if err := f.svc.Cancel(ctx, "u1"); err != nil {
			t.Fatal(err)
		}
		if err := f.svc.Update(ctx, "u1", premium.Patch{Plan: ptr("4.99")}); err != nil {
			t.Fatal(err)
		}
		got, _ := f.repo.Get(ctx, "u1")
		if got.IsActive || !got.Cancelled || got.Plan != "4.99" {
			t.Fatalf("%+v", got)
		}
	})
}

func TestCancelDeactivates(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	coretest.WantErr(t, f.svc.Cancel(ctx, "u1"), core.KindNotFound, "not_found")
	f.subscribe(t, "u1", f.draft("9.99"))
	for range 2 { // cancelling again changes nothing
		if err := f.svc.Cancel(ctx, "u1"); err != nil {
			t.Fatal(err)
		}
		got, _ := f.repo.Get(ctx, "u1")
		if got.IsActive || !got.Cancelled || got.Plan != "9.99" {
			t.Fatalf("%+v", got)
		}
	}
	if st := f.status(t, "u1"); st.IsPremium || st.Subscription == nil || !st.Subscription.Cancelled {
		t.Fatalf("%+v", st)
	}
}

func TestLimitsAndFeatureChecks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	f.subscribe(t, "payer", f.draft("9.99"))
	f.partners.Pair("payer", "partner")
	cases := []struct {
		user, feature string
		want          premium.Access
	}{
		{"free", "messages", premium.Access{HasAccess: true, Known: true}},
		{"free", "hd_photos", premium.Access{HasAccess: false, Known: true}},
		{"payer", "hd_photos", premium.Access{HasAccess: true, Known: true}},
		{"partner", "custom_themes", premium.Access{HasAccess: true, Known: true}},
		{"payer", "teleportation", premium.Access{}},
		{"free", " events ", premium.Access{HasAccess: true, Known: true}},
	}
	for _, tc := range cases {
		got, err := f.svc.Check(ctx, tc.user, tc.feature)
		if err != nil || got != tc.want {
			t.Fatalf("%s/%s: %+v %v", tc.user, tc.feature, got, err)
		}
	}
	_, err := f.svc.Check(ctx, "free", " ")
	coretest.WantErr(t, err, core.KindInvalid, "invalid_request")

	for user, want := range map[string]any{"free": 3, "payer": 100, "partner": 100} {
		isPremium, limits, err := f.svc.Limits(ctx, user)
		if err != nil || limits["projects"] != want || isPremium != (want == 100) {
			t.Fatalf("%s: %v %v %v", user, isPremium, limits, err)
		}
	}
}

func TestExportAndPurge(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	if v, err := f.svc.ExportUser(ctx, "u1"); v.(*premium.Subscription) != nil || err != nil {
		t.Fatalf("nothing to export: %v %v", v, err)
	}
	d := f.draft("9.99")
	d.Meta = json.RawMessage(`{"a":1}`)
	f.subscribe(t, "u1", d)
	v, err := f.svc.ExportUser(ctx, "u1")
	if err != nil {
		t.Fatal(err)
	}
	if sub := v.(*premium.Subscription); sub.UserID != "u1" || sub.Plan != "9.99" || !sub.IsActive ||
		string(sub.Meta) != `{"a":1}` || !sub.EndDate.Equal(d.EndDate) {
		t.Fatalf("export %+v", sub)
	}
	var owner core.UserData = f.svc
	if owner.Section() != "premium" {
		t.Fatal(owner.Section())
	}
	for range 2 {
		if err := owner.PurgeUser(ctx, "u1"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.repo.Get(ctx, "u1"); !core.IsKind(err, core.KindNotFound) {
		t.Fatalf("purged: %v", err)
	}
}

// The two interactions below are the point of their tests, so they use gomock.

func TestOwnPremiumDoesNotConsultThePartner(t *testing.T) {
	t.Parallel()
	ctrl := gomock.NewController(t)
	partners := NewMockPartners(ctrl) // any call fails the test
	repo := memory.NewPremiumRepo()
	clock := coretest.NewClock(time.Time{})
	svc := premium.NewService(repo, partners, purchases.NewTrust(), purchases.NewTrust(), policy, clock, nil)
	now := clock.Now()
	// the write asks once: its feed's readers (a partner whose premium it
	// may change, and the partnership they inherit it through)
	partners.EXPECT().PartnershipOf(gomock.Any(), "u1").Return("", "", false, nil).Times(1)
	if err := svc.Subscribe(context.Background(), "u1", premium.Draft{Plan: "9.99", StartDate: now, EndDate: now.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if st, err := svc.Status(context.Background(), "u1"); err != nil || st.Source != premium.SourceDirect {
		t.Fatalf("%+v %v", st, err)
	}
	// Once it lapses, the partner is asked exactly once per read.
	clock.Advance(time.Hour)
	partners.EXPECT().PartnerOf(gomock.Any(), "u1").Return("", false, nil).Times(1)
	if st, err := svc.Status(context.Background(), "u1"); err != nil || st.IsPremium {
		t.Fatalf("%+v %v", st, err)
	}
}

func TestWritesStoreWhatTheVerifierVouchesFor(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ctrl := gomock.NewController(t)
	verifier := NewMockPurchaseVerifier(ctrl)
	repo := memory.NewPremiumRepo()
	clock := coretest.NewClock(time.Time{})
	svc := premium.NewService(repo, coretest.NewCouples(), verifier, purchases.NewTrust(), policy, clock, nil)
	now := clock.Now()
	claimed := premium.Draft{Plan: "9.99", StartDate: now, EndDate: now.AddDate(1, 0, 0), BillingID: "receipt", Platform: "ios"}
	storeEnd := now.AddDate(0, 1, 0) // the store only vouches for a month

	verifier.EXPECT().Verify(gomock.Any(), premium.Purchase{UserID: "u1", Plan: "9.99", StartDate: now,
		EndDate: claimed.EndDate, BillingID: "receipt", Platform: core.PlatformIOS}).
		DoAndReturn(func(_ context.Context, p premium.Purchase) (premium.Purchase, error) {
			p.EndDate = storeEnd
			return p, nil
		})
	if err := svc.Subscribe(ctx, "u1", claimed); err != nil {
		t.Fatal(err)
	}
	got, _ := repo.Get(ctx, "u1")
	if !got.EndDate.Equal(storeEnd) {
		t.Fatalf("stored %v, want the store's %v", got.EndDate, storeEnd)
	}

	refused := core.Invalid("invalid_purchase", "premium.storeRefusedPurchase", "the store refused the purchase")
	verifier.EXPECT().Verify(gomock.Any(), gomock.Any()).Return(premium.Purchase{}, refused).Times(2)
	coretest.WantErr(t, svc.Subscribe(ctx, "u2", claimed), core.KindInvalid, "invalid_purchase")
	if _, err := repo.Get(ctx, "u2"); !core.IsKind(err, core.KindNotFound) {
		t.Fatal("a refused purchase was stored")
	}
	plan := "99.99"
	coretest.WantErr(t, svc.Update(ctx, "u1", premium.Patch{Plan: &plan}), core.KindInvalid, "invalid_purchase")
	if got, _ := repo.Get(ctx, "u1"); got.Plan != "9.99" {
		t.Fatal("a refused update was stored")
	}
	// Invalid input never reaches the store; cancelling needs no verification.
	coretest.WantErr(t, svc.Subscribe(ctx, "u3", premium.Draft{Plan: ""}), core.KindInvalid, "invalid_request")
	if err := svc.Cancel(ctx, "u1"); err != nil {
		t.Fatal(err)
	}
	unavailable := core.Unavailable("unavailable", "premium.storeCannotReached", "the store cannot be reached")
	verifier.EXPECT().Verify(gomock.Any(), gomock.Any()).Return(premium.Purchase{}, unavailable)
	if err := svc.Subscribe(ctx, "u4", claimed); !errors.Is(err, unavailable) {
		t.Fatalf("got %v", err)
	}
}
