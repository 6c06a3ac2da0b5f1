package httpapi_test

import (
	"net/url"
	"testing"

	"tandem/core"
	"tandem/modules/versions"
)

type policyRecord struct {
	Platform           string  `json:"platform"`
	MinRequiredVersion string  `json:"minRequiredVersion"`
	RecommendedVersion string  `json:"recommendedVersion"`
	LatestVersion      string  `json:"latestVersion"`
	DownloadURL        string  `json:"downloadUrl"`
	UpdateMessage      string  `json:"updateMessage"`
	ReleaseNotes       *string `json:"releaseNotes"`
	DeprecationDate    *int64  `json:"deprecationDate"`
	UpdatedAt          int64   `json:"updatedAt"`
}

type checkRecord struct {
	UpdateRequired     bool    `json:"updateRequired"`
	UpdateRecommended  bool    `json:"updateRecommended"`
	CanContinue        bool    `json:"canContinue"`
	UpdateType         *string `json:"updateType"`
	CurrentVersion     string  `json:"currentVersion"`
	MinRequiredVersion string  `json:"minRequiredVersion"`
	RecommendedVersion string  `json:"recommendedVersion"`
	LatestVersion      string  `json:"latestVersion"`
}

// FuzzVersionBodies: any body of POST /api/version-check and of PUT
// /api/admin/version-policy/ios gets a 200 or a 4xx with the error body; a
// stored policy satisfies its rules (min ≤ recommended ≤ latest, each a
// canonical version; an https downloadUrl with a host, ≤ 2048 bytes; an
// updateMessage of 1-500 and notes ≤ 10000 characters without control or
// bidi characters; a deprecation date in years 1970-9999); a check's
// verdict is one update type that its booleans mirror and that the
// versions it names order.
func FuzzVersionBodies(f *testing.F) {
	f.Add([]byte(`{"platform":"ios","currentVersion":"1.2.3"}`), false)
	f.Add([]byte(`{"platform":"android","currentVersion":"v1.2+7","currentBuildNumber":7,"userId":"u","deviceInfo":{"os":"Android","osVersion":"14","deviceModel":"Pixel","appVersion":"1.2"}}`), false)
	f.Add([]byte(`{"platform":"ios","currentVersion":"1.2.3","currentBuildNumber":"5"}`), false)
	f.Add([]byte(`{"minRequiredVersion":"1.0.0","recommendedVersion":"1.2.0","latestVersion":"1.3.0+9","downloadUrl":"https://apps.apple.com/app/id1","updateMessage":"Please update","releaseNotes":"Fixes","deprecationDate":1767225600000}`), true)
	f.Add([]byte(`{"minRequiredVersion":"2.0.0","recommendedVersion":"1.2.0","latestVersion":"1.3.0","downloadUrl":"http://x","updateMessage":""}`), true)
	f.Fuzz(func(t *testing.T, body []byte, policy bool) {
		a := apiForFuzz(t)
		a.mu.Lock()
		defer a.mu.Unlock()
		if policy {
			st, b := a.send(t, "PUT", "/api/admin/version-policy/ios", a.admin.Token, body)
			if st == 200 {
				p := decodeAs[policyRecord](t, b)
				checkPolicy(t, p)
				if stored := a.must(t, "GET", "/api/admin/version-policy/ios", a.admin.Token, nil); string(stored) != string(b) {
					t.Fatalf("answered %s, stored %s", b, stored)
				}
			}
			return
		}
		st, b := a.send(t, "POST", "/api/version-check", "", body)
		if st != 200 {
			return
		}
		c := decodeAs[checkRecord](t, b)
		typ := ""
		if c.UpdateType != nil {
			typ = *c.UpdateType
		}
		if c.UpdateRequired != (typ == "required") || c.UpdateRecommended != (typ == "recommended") || c.CanContinue != (typ != "required") {
			t.Fatalf("verdict %s", b)
		}
		cur, min, rec, latest := version(t, c.CurrentVersion), version(t, c.MinRequiredVersion), version(t, c.RecommendedVersion), version(t, c.LatestVersion)
		below := func(v, target core.Version) bool {
			if v.Build == 0 {
				target.Build = 0
			}
			return v.Compare(target) < 0
		}
		want := ""
		switch {
		case below(cur, min):
			want = "required"
		case below(cur, rec):
			want = "recommended"
		case below(cur, latest):
			want = "optional"
		}
		if typ != want {
			t.Fatalf("verdict %q for %s, want %q", typ, b, want)
		}
	})
}

func version(t *testing.T, s string) core.Version {
	t.Helper()
	v, err := core.ParseVersion(s)
	if err != nil || v.String() != s {
		t.Fatalf("version %q is not canonical: %v", s, err)
	}
	return v
}

func checkPolicy(t *testing.T, p policyRecord) {
	t.Helper()
	min, rec, latest := version(t, p.MinRequiredVersion), version(t, p.RecommendedVersion), version(t, p.LatestVersion)
	if min.Compare(rec) > 0 || rec.Compare(latest) > 0 {
		t.Fatalf("versions %s, %s, %s are out of order", min, rec, latest)
	}
	u, err := url.Parse(p.DownloadURL)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil || len(p.DownloadURL) > versions.MaxDownloadURL {
		t.Fatalf("downloadUrl %q", p.DownloadURL)
	}
	textRule(t, "updateMessage", p.UpdateMessage, 1, versions.MaxUpdateMessage, true, true)
	if p.ReleaseNotes != nil {
		textRule(t, "releaseNotes", *p.ReleaseNotes, 1, versions.MaxReleaseNotes, true, true)
	}
	if d := p.DeprecationDate; d != nil && (*d < 0 || *d > 253402300799999) {
		t.Fatalf("deprecationDate %d", *d)
	}
}
