package storetest

import (
	"context"
	"testing"
	"time"

	"tandem/core"
	"tandem/modules/versions"
)

// VersionRepository checks a versions.Repository implementation.
func VersionRepository(t *testing.T, newRepo func(t *testing.T) versions.Repository) {
	ctx := context.Background()
	now := time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC)
	ver := func(s string) core.Version {
		v, err := core.ParseVersion(s)
		if err != nil {
			panic(err)
		}
		return v
	}
	policy := func(platform versions.Platform, min, rec, latest string) versions.Policy {
		return versions.Policy{Platform: platform, MinRequired: ver(min), Recommended: ver(rec), Latest: ver(latest),
			DownloadURL: "https://apps.example.com/tandem?id=1&x=é", UpdateMessage: "Please update ✨",
			ReleaseNotes: "Line one\nLine two", DeprecationDate: time.UnixMilli(1767225600123).UTC(), UpdatedAt: now}
	}
	same := func(t *testing.T, got, want versions.Policy) {
		t.Helper()
		if got.Platform != want.Platform || got.MinRequired != want.MinRequired || got.Recommended != want.Recommended ||
			got.Latest != want.Latest || got.DownloadURL != want.DownloadURL || got.UpdateMessage != want.UpdateMessage ||
			got.ReleaseNotes != want.ReleaseNotes || !got.DeprecationDate.Equal(want.DeprecationDate) ||
			got.DeprecationDate.IsZero() != want.DeprecationDate.IsZero() || !got.UpdatedAt.Equal(want.UpdatedAt) {
			t.Fatalf("got  %+v\nwant %+v", got, want)
		}
	}

	t.Run("put, get, a platform without a policy", func(t *testing.T) {
		r := newRepo(t)
		p := policy(core.PlatformIOS, "1.0.0", "1.2.0+7", "999999999.2.3+123456789")
		must(t, r.Put(ctx, p))
		got, err := r.Get(ctx, core.PlatformIOS)
		must(t, err)
		same(t, got, p)
		_, err = r.Get(ctx, core.PlatformAndroid)
		wantKind(t, err, core.KindNotFound)
	})

	t.Run("put replaces every field and touches only its platform", func(t *testing.T) {
		r := newRepo(t)
		must(t, r.Put(ctx, policy(core.PlatformIOS, "1.0.0", "1.1.0", "1.2.0")))
		must(t, r.Put(ctx, policy(core.PlatformWeb, "3.0.0", "3.0.0", "3.0.0")))
		next := versions.Policy{Platform: core.PlatformIOS, MinRequired: ver("2.0.0"), Recommended: ver("2.1.0"),
			Latest: ver("2.2.0"), DownloadURL: "https://apps.example.com/new", UpdateMessage: "New",
			UpdatedAt: now.Add(time.Hour)} // no notes, no deprecation date
		must(t, r.Put(ctx, next))
		got, err := r.Get(ctx, core.PlatformIOS)
		must(t, err)
		same(t, got, next)
		web, err := r.Get(ctx, core.PlatformWeb)
		must(t, err)
		same(t, web, policy(core.PlatformWeb, "3.0.0", "3.0.0", "3.0.0"))
	})
}
