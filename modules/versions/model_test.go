package versions_test

import (
	"strings"
	"testing"

	"tandem/core"
	"tandem/modules/versions"
)

func TestPolicyValidate(t *testing.T) {
	t.Parallel()
	v := func(s string) core.Version {
		x, err := core.ParseVersion(s)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	valid := func() versions.Policy {
		return versions.Policy{Platform: core.PlatformIOS, MinRequired: v("1.0.0"), Recommended: v("1.1.0"),
			Latest: v("1.2.0"), DownloadURL: "https://apps.apple.com/app/id1", UpdateMessage: "Update"}
	}
	cases := []struct {
		name   string
		change func(p *versions.Policy)
		msg    string // "" when valid
	}{
		{"valid", func(*versions.Policy) {}, ""},
		{"all three equal", func(p *versions.Policy) { p.MinRequired, p.Recommended = p.Latest, p.Latest }, ""},
		{"builds order equal versions", func(p *versions.Policy) {
			p.MinRequired, p.Recommended = v("1.2.0+1"), v("1.2.0+2")
			p.Latest = v("1.2.0+2")
		}, ""},
		{"min above recommended", func(p *versions.Policy) { p.MinRequired = v("1.1.1") },
			"versions must satisfy minRequiredVersion ≤ recommendedVersion ≤ latestVersion"},
		{"recommended above latest", func(p *versions.Policy) { p.Recommended = v("1.3.0") },
			"versions must satisfy minRequiredVersion ≤ recommendedVersion ≤ latestVersion"},
		{"by build too", func(p *versions.Policy) { p.Latest, p.Recommended = v("1.2.0+1"), v("1.2.0+2") },
			"versions must satisfy minRequiredVersion ≤ recommendedVersion ≤ latestVersion"},
		{"no platform", func(p *versions.Policy) { p.Platform = "" }, "platform is required: ios, android or web"},
		{"no url", func(p *versions.Policy) { p.DownloadURL = "" }, "downloadUrl is required"},
		{"http url", func(p *versions.Policy) { p.DownloadURL = "http://apps.apple.com/x" }, "downloadUrl must be an https URL of at most 2048 characters"},
		{"no host", func(p *versions.Policy) { p.DownloadURL = "https:///x" }, "downloadUrl must be an https URL of at most 2048 characters"},
		{"relative", func(p *versions.Policy) { p.DownloadURL = "/store" }, "downloadUrl must be an https URL of at most 2048 characters"},
		{"market scheme", func(p *versions.Policy) { p.DownloadURL = "market://details?id=x" }, "downloadUrl must be an https URL of at most 2048 characters"},
		{"credentials", func(p *versions.Policy) { p.DownloadURL = "https://u:p@x.io/" }, "downloadUrl must be an https URL of at most 2048 characters"},
		{"too long", func(p *versions.Policy) { p.DownloadURL = "https://x.io/" + strings.Repeat("a", 2048) }, "downloadUrl must be an https URL of at most 2048 characters"},
		{"blank message", func(p *versions.Policy) { p.UpdateMessage = "  " }, "updateMessage is required"},
		{"message of 501", func(p *versions.Policy) { p.UpdateMessage = strings.Repeat("é", 501) }, "updateMessage must be at most 500 characters"},
		{"message of 500", func(p *versions.Policy) { p.UpdateMessage = strings.Repeat("é", 500) }, ""},
		{"notes of 10001", func(p *versions.Policy) { p.ReleaseNotes = strings.Repeat("x", 10001) }, "releaseNotes must be at most 10000 characters"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := valid()
			tc.change(&p)
			err := p.Validate()
			if tc.msg == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if e := core.As(err); err == nil || e.Kind != core.KindInvalid || e.Code != "invalid_request" || e.Message != tc.msg {
				t.Fatalf("got %v, want %q", err, tc.msg)
			}
		})
	}
}

func TestResultFlagsMirrorTheType(t *testing.T) {
	t.Parallel()
	cases := []struct {
		typ                        versions.UpdateType
		required, recommended, can bool
	}{
		{versions.UpdateNone, false, false, true},
		{versions.UpdateOptional, false, false, true},
		{versions.UpdateRecommended, false, true, true},
		{versions.UpdateRequired, true, false, false},
	}
	for _, tc := range cases {
		r := versions.Result{Type: tc.typ}
		if r.UpdateRequired() != tc.required || r.UpdateRecommended() != tc.recommended || r.CanContinue() != tc.can {
			t.Errorf("%q: %v %v %v", tc.typ, r.UpdateRequired(), r.UpdateRecommended(), r.CanContinue())
		}
	}
}
