package httpapi_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"tandem/core"
	"tandem/modules/flags"
)

type flagRecord struct {
	ID                 string   `json:"id"`
	Key                string   `json:"key"`
	Name               string   `json:"name"`
	Description        string   `json:"description"`
	IsEnabled          bool     `json:"isEnabled"`
	EnabledForPremium  bool     `json:"enabledForPremium"`
	EnabledForUserIDs  []string `json:"enabledForUserIds"`
	DisabledForUserIDs []string `json:"disabledForUserIds"`
	RolloutPercentage  int      `json:"rolloutPercentage"`
	Platforms          []string `json:"platforms"`
	CreatedBy          string   `json:"createdBy"`
	CreatedAt          int64    `json:"createdAt"`
	UpdatedAt          int64    `json:"updatedAt"`
}

var flagKey = regexp.MustCompile(`^[a-z0-9_.-]{1,64}$`)

// FuzzFlagBody: any body of POST /api/feature-flags (create, toggle,
// update, delete, by an administrator) gets a 200 or a 4xx with the error
// body; afterwards every stored flag satisfies the documented rules (key
// [a-z0-9_.-]{1,64}; name 1-100, description ≤ 1000, createdBy ≤ 255,
// trimmed, no control or bidi characters; rollout a whole 0 to 100;
// platforms unique among ios, android, web; each user list at most 1000
// unique, sorted, trimmed ids of 1 to 64 characters without control or
// bidi characters, the two lists
// disjoint), and the public evaluation of each answers without error.
func FuzzFlagBody(f *testing.F) {
	f.Add([]byte(`{"action":"create","key":"new_onboarding","name":"New onboarding"}`))
	f.Add([]byte(`{"action":"create","key":"beta.v2","name":" Beta ","description":"d","isEnabled":true,"enabledForPremium":true,"rolloutPercentage":50.0,"platforms":["ios","ios","web"],"enabledForUserIds":[" b","a","b"],"disabledForUserIds":["c"],"createdBy":"me"}`))
	f.Add([]byte(`{"action":"update","flagKey":"fuzz_seed","rolloutPercentage":12.5}`))
	f.Add([]byte(`{"action":"update","flagKey":"fuzz_seed","enabledForUserIds":["x"],"disabledForUserIds":["x "]}`))
	f.Add([]byte(`{"action":"toggle","flagKey":"fuzz_seed","isEnabled":true}`))
	f.Add([]byte(`{"action":"delete","flagKey":"fuzz_seed"}`))
	f.Add([]byte(`{"action":"create","key":"Bad Key","name":"x"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		a := apiForFuzz(t)
		a.mu.Lock()
		defer a.mu.Unlock()
		tok := a.admin.Token
		if st, _, _ := a.do("POST", "/api/feature-flags", tok, []byte(`{"action":"create","key":"fuzz_seed","name":"Seed","isEnabled":true}`), nil); st != 200 && st != 409 {
			t.Fatalf("seed flag: %d", st)
		}
		a.send(t, "POST", "/api/feature-flags", tok, body)
		all := decodeAs[struct{ Flags []flagRecord }](t, a.must(t, "GET", "/api/feature-flags?action=all", tok, nil))
		for _, fl := range all.Flags {
			checkFlag(t, fl)
			a.must(t, "GET", "/api/feature-flags?flag="+fl.Key+"&platform=ios", a.user.Token, nil)
			if fl.Key != "fuzz_seed" {
				a.must(t, "POST", "/api/feature-flags", tok, jsonOf(map[string]string{"action": "delete", "flagKey": fl.Key}))
			}
		}
	})
}

func checkFlag(t *testing.T, fl flagRecord) {
	t.Helper()
	if !flagKey.MatchString(fl.Key) {
		t.Fatalf("key %q", fl.Key)
	}
	textRule(t, "name", fl.Name, 1, flags.MaxName, false, true)
	textRule(t, "description", fl.Description, 0, flags.MaxDescription, true, true)
	textRule(t, "createdBy", fl.CreatedBy, 0, flags.MaxCreatedBy, false, false)
	if fl.RolloutPercentage < 0 || fl.RolloutPercentage > 100 {
		t.Fatalf("rollout %d", fl.RolloutPercentage)
	}
	for i, p := range fl.Platforms {
		if !slices.Contains([]string{"ios", "android", "web"}, p) || slices.Index(fl.Platforms, p) != i {
			t.Fatalf("platforms %q", fl.Platforms)
		}
	}
	for _, ids := range [][]string{fl.EnabledForUserIDs, fl.DisabledForUserIDs} {
		if ids == nil || len(ids) > flags.MaxListedUsers || !slices.IsSorted(ids) || len(slices.Compact(slices.Clone(ids))) != len(ids) {
			t.Fatalf("user list %q", ids)
		}
		for _, id := range ids {
			if id == "" || strings.TrimSpace(id) != id || utf8.RuneCountInString(id) > flags.MaxUserID || core.CheckText("id", id, false) != nil {
				t.Fatalf("user id %q", id)
			}
		}
	}
	for _, id := range fl.EnabledForUserIDs {
		if slices.Contains(fl.DisabledForUserIDs, id) {
			t.Fatalf("%q is in both lists", id)
		}
	}
}
