package premium_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"tandem/core"
	"tandem/modules/premium"
)

func TestParsePlatform(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in string
		ok bool
	}{{"", true}, {"ios", true}, {"android", true}, {"web", true}, {"IOS", false}, {"windows", false}} {
		p, err := premium.ParsePlatform(tc.in)
		if tc.ok != (err == nil) || (tc.ok && string(p) != tc.in) {
			t.Fatalf("%q: %q %v", tc.in, p, err)
		}
		if !tc.ok && core.KindOf(err) != core.KindInvalid {
			t.Fatalf("%q: kind %v", tc.in, core.KindOf(err))
		}
	}
}

func TestNormalizeMeta(t *testing.T) {
	t.Parallel()
	big := `{"k":"` + strings.Repeat("x", premium.MaxMeta) + `"}`
	exact := `{"k":"` + strings.Repeat("x", premium.MaxMeta-8) + `"}`
	cases := []struct {
		name, in, want string
		ok             bool
	}{
		{"absent is an empty object", "", "{}", true},
		{"null is an empty object", "null", "{}", true},
		{"object is compacted", "{ \"a\" : [1, 2],\n \"b\": {\"c\": true} }", `{"a":[1,2],"b":{"c":true}}`, true},
		{"exactly 4 KB", exact, exact, true},
		{"over 4 KB", big, "", false},
		{"array", "[1]", "", false},
		{"string", `"x"`, "", false},
		{"number", "3", "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var raw json.RawMessage
			if tc.in != "" {
				raw = json.RawMessage(tc.in)
			}
			got, err := premium.NormalizeMeta(raw)
			if tc.ok != (err == nil) || (tc.ok && string(got) != tc.want) {
				t.Fatalf("got %s, %v", got, err)
			}
			if !tc.ok && core.KindOf(err) != core.KindInvalid {
				t.Fatalf("kind %v", core.KindOf(err))
			}
		})
	}
}

func TestPurchaseValidate(t *testing.T) {
	t.Parallel()
	start := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	ok := premium.Purchase{UserID: "u", Plan: "9.99", StartDate: start, EndDate: start.Add(time.Millisecond)}
	cases := []struct {
		name  string
		edit  func(p *premium.Purchase)
		valid bool
	}{
		{"one millisecond long", func(*premium.Purchase) {}, true},
		{"64 multibyte characters", func(p *premium.Purchase) { p.Plan = strings.Repeat("é", 64) }, true},
		{"epoch start", func(p *premium.Purchase) { p.StartDate = time.UnixMilli(0) }, true},
		{"empty plan", func(p *premium.Purchase) { p.Plan = "" }, false},
		{"65 characters", func(p *premium.Purchase) { p.Plan = strings.Repeat("p", 65) }, false},
		{"end equals start", func(p *premium.Purchase) { p.EndDate = p.StartDate }, false},
		{"end before start", func(p *premium.Purchase) { p.EndDate = p.StartDate.Add(-time.Hour) }, false},
		{"missing dates", func(p *premium.Purchase) { p.StartDate, p.EndDate = time.Time{}, time.Time{} }, false},
		{"billing id of 256", func(p *premium.Purchase) { p.BillingID = strings.Repeat("b", 256) }, false},
		{"unknown platform", func(p *premium.Purchase) { p.Platform = "symbian" }, false},
	}
	for _, tc := range cases {
		p := ok
		tc.edit(&p)
		err := p.Validate()
		if tc.valid != (err == nil) {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !tc.valid && core.KindOf(err) != core.KindInvalid {
			t.Fatalf("%s: kind %v", tc.name, core.KindOf(err))
		}
	}
}

func TestGrantsIsDecidedByTheClock(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC)
	active := premium.Subscription{IsActive: true, StartDate: now.Add(-time.Hour), EndDate: now.Add(time.Hour)}
	cases := []struct {
		name string
		edit func(s *premium.Subscription)
		at   time.Time
		want bool
	}{
		{"active and running", func(*premium.Subscription) {}, now, true},
		{"one millisecond before the end", func(*premium.Subscription) {}, now.Add(time.Hour - time.Millisecond), true},
		{"at the end", func(*premium.Subscription) {}, now.Add(time.Hour), false},
		{"inactive", func(s *premium.Subscription) { s.IsActive = false }, now, false},
		{"cancelled", func(s *premium.Subscription) { s.Cancelled = true }, now, false},
	}
	for _, tc := range cases {
		s := active
		tc.edit(&s)
		if got := s.Grants(tc.at); got != tc.want {
			t.Fatalf("%s: %v", tc.name, got)
		}
	}
}
