// This file holds the tests of premium inherited from the partner: derived
// from the partner's subscription, and ended with the partnership or with
// that subscription.

package premium_test

import (
	"context"
	"encoding/json"
	"testing"

	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/premium"
)

func TestInheritedPremiumIsDerivedFromThePartner(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	type state struct {
		own     string // "", "active", "expired", "cancelled"
		partner string
		paired  bool
	}
	cases := []struct {
		name       string
		s          state
		wantSource premium.Source
		wantPlan   string // plan of the subscription shown, "" for none
	}{
		{"partner's active subscription is shared", state{"", "active", true}, premium.SourcePartner, "partner"},
		{"own active wins over the partner's", state{"active", "active", true}, premium.SourceDirect, "own"},
		{"own expired, partner's active: partner", state{"expired", "active", true}, premium.SourcePartner, "partner"},
		{"own cancelled, partner's active: partner", state{"cancelled", "active", true}, premium.SourcePartner, "partner"},
		{"partner's cancelled is not shared", state{"", "cancelled", true}, premium.SourceNone, ""},
		{"partner's expired is not shared", state{"", "expired", true}, premium.SourceNone, ""},
		{"own expired, partner's expired: own shown", state{"expired", "expired", true}, premium.SourceNone, "own"},
		{"not paired: nothing to inherit", state{"", "active", false}, premium.SourceNone, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			now := f.clock.Now()
			put := func(user, plan, kind string) {
				switch kind {
				case "":
					return
				case "expired":
					f.subscribe(t, user, premium.Draft{Plan: plan, StartDate: now.AddDate(0, -2, 0), EndDate: now.AddDate(0, -1, 0)})
				default:
					d := f.draft(plan)
					d.BillingID, d.Meta = "bill-"+plan, json.RawMessage(`{"private":true}`)
					f.subscribe(t, user, d)
				}
				if kind == "cancelled" {
					if err := f.svc.Cancel(ctx, user); err != nil {
						t.Fatal(err)
					}
				}
			}
			put("me", "own", tc.s.own)
			put("them", "partner", tc.s.partner)
			if tc.s.paired {
				f.partners.Pair("me", "them")
			}
			st := f.status(t, "me")
			if st.Source != tc.wantSource || st.IsPremium != (tc.wantSource != premium.SourceNone) {
				t.Fatalf("status %+v", st)
			}
			if (tc.wantSource == premium.SourcePartner) != (st.PartnerID == "them" && st.Inherited) {
				t.Fatalf("partnerId %q inherited %v", st.PartnerID, st.Inherited)
			}
			switch {
			case tc.wantPlan == "" && st.Subscription != nil:
				t.Fatalf("subscription %+v", st.Subscription)
			case tc.wantPlan != "" && (st.Subscription == nil || st.Subscription.Plan != tc.wantPlan):
				t.Fatalf("subscription %+v", st.Subscription)
			case st.Inherited && (st.Subscription.BillingID != "" || string(st.Subscription.Meta) != "{}"):
				t.Fatalf("the partner's billing data leaked: %+v", st.Subscription)
			}
		})
	}
}

func TestInheritedPremiumEndsWithThePartnershipAndThePartnersSubscription(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	f.subscribe(t, "them", f.draft("9.99"))
	f.partners.Pair("me", "them")
	if st := f.status(t, "me"); st.Source != premium.SourcePartner || st.PartnerID != "them" {
		t.Fatalf("paired: %+v", st)
	}
	if _, err := f.repo.Get(ctx, "me"); !core.IsKind(err, core.KindNotFound) {
		t.Fatalf("inherited premium was written: %v", err)
	}

	f.partners.Unpair("me", "them")
	if st := f.status(t, "me"); st.IsPremium || st.Source != premium.SourceNone || st.PartnerID != "" {
		t.Fatalf("after the partnership: %+v", st)
	}
	if st := f.status(t, "them"); !st.IsPremium || st.Source != premium.SourceDirect {
		t.Fatalf("the payer keeps theirs: %+v", st)
	}

	f.partners.Pair("me", "them")
	if err := f.svc.Cancel(ctx, "them"); err != nil {
		t.Fatal(err)
	}
	if st := f.status(t, "me"); st.IsPremium {
		t.Fatalf("after the partner cancelled: %+v", st)
	}
	coretest.WantErr(t, f.svc.Cancel(ctx, "me"), core.KindNotFound, "not_found") // nothing of one's own to cancel
}
