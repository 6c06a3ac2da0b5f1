package versions_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"tandem/adapters/memory"
	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/versions"
)

// fixture is a Service on the memory repository with a fixed clock
// (2025-06-15 12:00 UTC).
type fixture struct {
	svc   *versions.Service
	repo  *memory.VersionRepo
	clock *coretest.FixedClock
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{repo: memory.NewVersionRepo(), clock: coretest.NewClock(time.Time{})}
	f.svc = versions.NewService(f.repo, f.clock)
	return f
}

func (f *fixture) set(t *testing.T, platform string, d versions.PolicyDraft) versions.Policy {
	t.Helper()
	p, err := f.svc.SetPolicy(context.Background(), platform, d)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func intp(n int) *int { return &n }

// draft is min 1.2.0, recommended 1.4.0, latest 1.5.0+20.
func draft(deprecation *time.Time) versions.PolicyDraft {
	return versions.PolicyDraft{MinRequiredVersion: "1.2.0", RecommendedVersion: "v1.4", LatestVersion: "1.5.0+20",
		DownloadURL: " https://apps.apple.com/app/id1 ", UpdateMessage: " A new version is out ", ReleaseNotes: "Faster.",
		DeprecationDate: deprecation}
}

func TestCheckRules(t *testing.T) {
	t.Parallel()
	now := coretest.NewClock(time.Time{}).Now()
	tomorrow, today := now.Add(24*time.Hour), now
	type want struct {
		typ         versions.UpdateType
		current     string
		min         string
		deprecation time.Time
	}
	cases := []struct {
		name        string
		deprecation *time.Time // of the policy
		version     string
		build       *int
		want        want
	}{
		{name: "below the minimum: required", version: "1.1.9", want: want{versions.UpdateRequired, "1.1.9", "1.2.0", time.Time{}}},
		{name: "far below: required", version: "0.0.1", want: want{versions.UpdateRequired, "0.0.1", "1.2.0", time.Time{}}},
		{name: "at the minimum: recommended", version: "1.2.0", want: want{versions.UpdateRecommended, "1.2.0", "1.2.0", time.Time{}}},
		{name: "below recommended: recommended", version: "1.3.99", want: want{versions.UpdateRecommended, "1.3.99", "1.2.0", time.Time{}}},
		{name: "at recommended: optional", version: "1.4.0", want: want{versions.UpdateOptional, "1.4.0", "1.2.0", time.Time{}}},
		{name: "latest without a build counts as latest", version: "1.5.0", want: want{versions.UpdateNone, "1.5.0", "1.2.0", time.Time{}}},
		{name: "latest with an older build: optional", version: "1.5.0", build: intp(19), want: want{versions.UpdateOptional, "1.5.0+19", "1.2.0", time.Time{}}},
		{name: "the latest build: none", version: "1.5.0+20", want: want{versions.UpdateNone, "1.5.0+20", "1.2.0", time.Time{}}},
		{name: "a newer build: none", version: "1.5.0", build: intp(21), want: want{versions.UpdateNone, "1.5.0+21", "1.2.0", time.Time{}}},
		{name: "build in the version agreeing with the number", version: "1.5.0+21", build: intp(21), want: want{versions.UpdateNone, "1.5.0+21", "1.2.0", time.Time{}}},
		{name: "newer than latest: none", version: "2.0.0", want: want{versions.UpdateNone, "2.0.0", "1.2.0", time.Time{}}},
		{name: "short and v-prefixed versions are read", version: "v1.4", want: want{versions.UpdateOptional, "1.4.0", "1.2.0", time.Time{}}},
		{name: "minor beats patch numerically", version: "1.10.0", want: want{versions.UpdateNone, "1.10.0", "1.2.0", time.Time{}}},

		{name: "deprecation ahead: shown below recommended", deprecation: &tomorrow, version: "1.3.0",
			want: want{versions.UpdateRecommended, "1.3.0", "1.2.0", tomorrow}},
		{name: "deprecation ahead: shown when required", deprecation: &tomorrow, version: "1.0.0",
			want: want{versions.UpdateRequired, "1.0.0", "1.2.0", tomorrow}},
		{name: "deprecation ahead: not shown at recommended", deprecation: &tomorrow, version: "1.4.0",
			want: want{versions.UpdateOptional, "1.4.0", "1.2.0", time.Time{}}},
		{name: "deprecation reached: recommended becomes the minimum", deprecation: &today, version: "1.3.0",
			want: want{versions.UpdateRequired, "1.3.0", "1.4.0", today}},
		{name: "deprecation reached: recommended itself may continue", deprecation: &today, version: "1.4.0",
			want: want{versions.UpdateOptional, "1.4.0", "1.4.0", time.Time{}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.set(t, "ios", draft(tc.deprecation))
			f.set(t, "android", versions.PolicyDraft{MinRequiredVersion: "9.0.0", RecommendedVersion: "9.0.0",
				LatestVersion: "9.0.0", DownloadURL: "https://play.google.com/x", UpdateMessage: "android"})
			r, err := f.svc.Check(context.Background(), versions.Client{Platform: "ios", CurrentVersion: tc.version,
				BuildNumber: tc.build, UserID: "u1", DeviceInfo: &versions.DeviceInfo{OS: "iOS", OSVersion: "18.1"}})
			if err != nil {
				t.Fatal(err)
			}
			w := tc.want
			if r.Type != w.typ || r.Current.String() != w.current || r.MinRequired.String() != w.min ||
				r.Recommended.String() != "1.4.0" || r.Latest.String() != "1.5.0+20" ||
				r.DownloadURL != "https://apps.apple.com/app/id1" || !r.DeprecationDate.Equal(w.deprecation) {
				t.Fatalf("got %+v, want %+v", r, w)
			}
			offered := w.typ != versions.UpdateNone
			if (r.Message == "A new version is out") != offered || (r.ReleaseNotes == "Faster.") != offered ||
				(!offered && (r.Message != "" || r.ReleaseNotes != "")) {
				t.Fatalf("message %q notes %q", r.Message, r.ReleaseNotes)
			}
		})
	}
}

func TestCheckWithoutAPolicyOffersNoUpdate(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.set(t, "ios", draft(nil)) // another platform's policy does not apply
	r, err := f.svc.Check(context.Background(), versions.Client{Platform: "web", CurrentVersion: "0.1.0", BuildNumber: intp(3)})
	if err != nil {
		t.Fatal(err)
	}
	if r.Type != versions.UpdateNone || !r.CanContinue() || r.UpdateRequired() || r.UpdateRecommended() ||
		r.Current.String() != "0.1.0+3" || r.MinRequired != r.Current || r.Recommended != r.Current || r.Latest != r.Current ||
		r.Message != "" || r.ReleaseNotes != "" || r.DownloadURL != "" || !r.DeprecationDate.IsZero() {
		t.Fatalf("%+v", r)
	}
}

func TestCheckRefusesBadInput(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 65)
	cases := []struct {
		name string
		c    versions.Client
		code string
		msg  string
	}{
		{"no platform", versions.Client{CurrentVersion: "1.0.0"}, "invalid_request", "platform is required: ios, android or web"},
		{"unknown platform", versions.Client{Platform: "symbian", CurrentVersion: "1.0.0"}, "invalid_request", "platform must be ios, android or web"},
		{"no version", versions.Client{Platform: "ios", CurrentVersion: " "}, "invalid_request", "currentVersion is required"},
		{"one number", versions.Client{Platform: "ios", CurrentVersion: "1"}, "invalid_version", `"1" is not a version MAJOR.MINOR.PATCH`},
		{"letters", versions.Client{Platform: "ios", CurrentVersion: "1.2.x"}, "invalid_version", `"1.2.x" is not a version MAJOR.MINOR.PATCH`},
		{"pre-release", versions.Client{Platform: "ios", CurrentVersion: "1.2.3-beta"}, "invalid_version", ""},
		{"four numbers", versions.Client{Platform: "ios", CurrentVersion: "1.2.3.4"}, "invalid_version", ""},
		{"negative build number", versions.Client{Platform: "ios", CurrentVersion: "1.2.3", BuildNumber: intp(-1)}, "invalid_version",
			"the build number must be a whole number from 0 to 999999999"},
		{"builds disagree", versions.Client{Platform: "ios", CurrentVersion: "1.2.3+4", BuildNumber: intp(5)}, "invalid_version",
			"the build in the version and the build number disagree"},
		{"long userId", versions.Client{Platform: "ios", CurrentVersion: "1.2.3", UserID: long}, "invalid_request", "userId must be at most 64 characters"},
		{"long device field", versions.Client{Platform: "ios", CurrentVersion: "1.2.3",
			DeviceInfo: &versions.DeviceInfo{DeviceModel: strings.Repeat("m", 201)}}, "invalid_request", "each deviceInfo field must be at most 200 characters"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			repo := &policyReads{} // bad input reads nothing
			_, err := versions.NewService(repo, coretest.NewClock(time.Time{})).Check(context.Background(), tc.c)
			coretest.WantErrMessage(t, err, core.KindInvalid, tc.code, tc.msg)
			if repo.reads != 0 {
				t.Fatalf("%d reads for bad input", repo.reads)
			}
		})
	}
}

// TestCheckIsOneRead: the hot public path reads the platform's policy once
// and writes nothing (policyReads refuses writes).
func TestCheckIsOneRead(t *testing.T) {
	t.Parallel()
	repo := &policyReads{err: core.NotFound("not_found", "versions.none", "none")}
	r, err := versions.NewService(repo, coretest.NewClock(time.Time{})).Check(context.Background(),
		versions.Client{Platform: "android", CurrentVersion: "1.0.0", UserID: "u1"})
	if err != nil || !r.CanContinue() || repo.reads != 1 || repo.platform != core.PlatformAndroid {
		t.Fatalf("%+v %v, %d reads of %q", r, err, repo.reads, repo.platform)
	}

	repo = &policyReads{err: core.Unavailable("unavailable", "versions.databaseUnavailable", "the database is unavailable")}
	_, err = versions.NewService(repo, coretest.NewClock(time.Time{})).Check(context.Background(),
		versions.Client{Platform: "ios", CurrentVersion: "1.0.0"})
	coretest.WantErr(t, err, core.KindUnavailable, "unavailable") // a failing store is not "no policy"
	if repo.reads != 1 {
		t.Fatalf("%d reads", repo.reads)
	}
}

// policyReads is a Repository that answers every read with err, counts the
// reads and refuses writes.
type policyReads struct {
	err      error
	reads    int
	platform versions.Platform
}

func (r *policyReads) Get(_ context.Context, p versions.Platform) (versions.Policy, error) {
	r.reads++
	r.platform = p
	return versions.Policy{}, r.err
}

func (r *policyReads) Put(context.Context, versions.Policy) error {
	return errors.New("policyReads: a check must not write")
}

func TestSetPolicyStoresANormalisedPolicy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	dep := time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("CET", 3600))
	p := f.set(t, "android", draft(&dep))
	got, err := f.svc.Policy(ctx, "android")
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []versions.Policy{p, got} {
		if x.Platform != core.PlatformAndroid || x.MinRequired.String() != "1.2.0" || x.Recommended.String() != "1.4.0" ||
			x.Latest.String() != "1.5.0+20" || x.DownloadURL != "https://apps.apple.com/app/id1" ||
			x.UpdateMessage != "A new version is out" || x.ReleaseNotes != "Faster." || !x.DeprecationDate.Equal(dep) ||
			x.DeprecationDate.Location() != time.UTC || !x.UpdatedAt.Equal(f.clock.Now()) {
			t.Fatalf("%+v", x)
		}
	}

	// replacing drops what the new draft leaves out
	f.clock.Advance(time.Hour)
	f.set(t, "android", versions.PolicyDraft{MinRequiredVersion: "2.0.0", RecommendedVersion: "2.0.0", LatestVersion: "2.0.0",
		DownloadURL: "https://play.google.com/store/apps/details?id=x", UpdateMessage: "v2"})
	got, _ = f.svc.Policy(ctx, "android")
	if got.ReleaseNotes != "" || !got.DeprecationDate.IsZero() || got.Latest.String() != "2.0.0" || !got.UpdatedAt.Equal(f.clock.Now()) {
		t.Fatalf("replaced %+v", got)
	}
	_, err = f.svc.Policy(ctx, "web")
	coretest.WantErrMessage(t, err, core.KindNotFound, "not_found", "no version policy for web")
	_, err = f.svc.Policy(ctx, "palm")
	coretest.WantErrMessage(t, err, core.KindInvalid, "invalid_request", "platform must be ios, android or web")
}

func TestSetPolicyRefusesBadInputAndWritesNothing(t *testing.T) {
	t.Parallel()
	mod := func(fn func(d *versions.PolicyDraft)) versions.PolicyDraft {
		d := draft(nil)
		fn(&d)
		return d
	}
	cases := []struct {
		name     string
		platform string
		d        versions.PolicyDraft
		code     string
		msg      string
	}{
		{"unknown platform", "palm", draft(nil), "invalid_request", "platform must be ios, android or web"},
		{"missing min", "ios", mod(func(d *versions.PolicyDraft) { d.MinRequiredVersion = "" }), "invalid_request", "minRequiredVersion is required"},
		{"missing recommended", "ios", mod(func(d *versions.PolicyDraft) { d.RecommendedVersion = "" }), "invalid_request", "recommendedVersion is required"},
		{"missing latest", "ios", mod(func(d *versions.PolicyDraft) { d.LatestVersion = "" }), "invalid_request", "latestVersion is required"},
		{"bad min", "ios", mod(func(d *versions.PolicyDraft) { d.MinRequiredVersion = "one" }), "invalid_version",
			`minRequiredVersion "one" is not a version MAJOR.MINOR.PATCH`},
		{"bad latest", "ios", mod(func(d *versions.PolicyDraft) { d.LatestVersion = "1.2.3.4" }), "invalid_version",
			`latestVersion "1.2.3.4" is not a version MAJOR.MINOR.PATCH`},
		{"min above recommended", "ios", mod(func(d *versions.PolicyDraft) { d.MinRequiredVersion = "1.4.1" }), "invalid_request",
			"versions must satisfy minRequiredVersion ≤ recommendedVersion ≤ latestVersion"},
		{"recommended above latest", "ios", mod(func(d *versions.PolicyDraft) { d.RecommendedVersion = "1.6.0" }), "invalid_request",
			"versions must satisfy minRequiredVersion ≤ recommendedVersion ≤ latestVersion"},
		{"http url", "ios", mod(func(d *versions.PolicyDraft) { d.DownloadURL = "http://x.io" }), "invalid_request",
			"downloadUrl must be an https URL of at most 2048 characters"},
		{"no message", "ios", mod(func(d *versions.PolicyDraft) { d.UpdateMessage = "" }), "invalid_request", "updateMessage is required"},
		{"deprecation before 1970", "ios", mod(func(d *versions.PolicyDraft) { x := time.Unix(-1, 0); d.DeprecationDate = &x }),
			"invalid_request", "deprecationDate must be milliseconds between 1970 and 9999"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			_, err := f.svc.SetPolicy(context.Background(), tc.platform, tc.d)
			coretest.WantErrMessage(t, err, core.KindInvalid, tc.code, tc.msg)
			for _, p := range []versions.Platform{core.PlatformIOS, core.PlatformAndroid, core.PlatformWeb} {
				if _, err := f.repo.Get(context.Background(), p); !core.IsKind(err, core.KindNotFound) {
					t.Fatalf("%s written: %v", p, err)
				}
			}
		})
	}
}
