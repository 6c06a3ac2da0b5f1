package images_test

import (
	"strings"
	"testing"
	"time"

	"tandem/core"
	"tandem/modules/images"
)

func TestDetectDecidesByTheBytes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		head string
		want images.Format
		ok   bool
	}{
		{"jpeg", "\xff\xd8\xff\xe0\x00\x10JFIF\x00", images.JPEG, true},
		{"jpeg, only the magic", "\xff\xd8\xff", images.JPEG, true},
		{"png", "\x89PNG\r\n\x1a\n\x00\x00\x00\x0d", images.PNG, true},
		{"webp", "RIFF\x24\x00\x00\x00WEBP", images.WEBP, true},
		{"gif", "GIF89a\x02\x00\x02\x00\x00\x00", images.Format{}, false},
		{"text", "hello, world", images.Format{}, false},
		{"empty", "", images.Format{}, false},
		{"png cut short", "\x89PNG\r\n", images.Format{}, false},
		{"riff but wave", "RIFF\x24\x00\x00\x00WAVE", images.Format{}, false},
		{"riff cut short", "RIFF\x24\x00\x00\x00WEB", images.Format{}, false},
		{"jpeg magic not at the start", " \xff\xd8\xff", images.Format{}, false},
		{"svg", "<svg xmlns=", images.Format{}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := images.Detect([]byte(tc.head))
			if got != tc.want || ok != tc.ok {
				t.Fatalf("got %v %v", got, ok)
			}
		})
	}
}

func TestKeysCarryTheOwnerAndCannotBeGuessed(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, f := range []images.Format{images.JPEG, images.PNG, images.WEBP} {
		for range 50 {
			k := images.NewKey("0197a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", f)
			owner, format, ok := images.ParseKey(k)
			if !ok || owner != "0197a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b" || format != f || seen[k] {
				t.Fatalf("%s: %q %v %v (seen %v)", k, owner, format, ok, seen[k])
			}
			if err := images.CheckBlobKey(k); err != nil {
				t.Fatalf("%s is not a blob key: %v", k, err)
			}
			if !strings.HasPrefix(k, images.OwnerPrefix("0197a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b")) {
				t.Fatal(k)
			}
			seen[k] = true
		}
	}
	rnd := strings.Repeat("ab", 16)
	for _, k := range []string{
		"", "u/x", "u/x/" + rnd, "u/x/" + rnd + ".gif", "u/x/" + rnd + ".png.png", "v/x/" + rnd + ".png",
		"u//" + rnd + ".png", "u/../" + rnd + ".png", "u/x/" + strings.ToUpper(rnd) + ".png", "u/x/" + rnd[:30] + ".png",
		"u/x/y/" + rnd + ".png", "u/" + strings.Repeat("x", 65) + "/" + rnd + ".png", "u/x y/" + rnd + ".png",
		"/u/x/" + rnd + ".png",
	} {
		if _, _, ok := images.ParseKey(k); ok {
			t.Errorf("%q parsed as a key", k)
		}
	}
	if _, _, ok := images.ParseKey("u/user_1-A/" + rnd + ".webp"); !ok {
		t.Fatal("a valid key was refused")
	}
	if got := (images.Settings{PublicURL: "https://api.example.com"}).URLOf("u/a/b.png"); got != "https://api.example.com/files/u/a/b.png" {
		t.Fatal(got)
	}
}

func TestBlobKeyRule(t *testing.T) {
	t.Parallel()
	for _, k := range []string{"a", "u/a/b.png", "A-Z_0.9/x", strings.Repeat("a", images.MaxBlobKey)} {
		if err := images.CheckBlobKey(k); err != nil {
			t.Errorf("%q refused: %v", k, err)
		}
	}
	for _, k := range []string{"", "/a", "a/", "a//b", "..", "a/../b", ".a", "a/.tmp", `a\b`, "a b", "a/ü", "a?b", "a%2fb",
		strings.Repeat("a", images.MaxBlobKey+1)} {
		if err := images.CheckBlobKey(k); !core.IsKind(err, core.KindInvalid) {
			t.Errorf("%q accepted", k)
		}
	}
	if images.CheckBlobPrefix("u/a/") != nil || images.CheckBlobPrefix("u/a") == nil || images.CheckBlobPrefix("/") == nil {
		t.Fatal("prefix rule")
	}
}

func TestPlanRelink(t *testing.T) {
	t.Parallel()
	at := time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC)
	stored := map[string]images.Image{}
	for _, img := range []images.Image{
		{ID: "a", UserID: "u1", GroupID: "g1", Key: "ka", URL: "ua"},
		{ID: "b", UserID: "u1", GroupID: "g1", Key: "kb", URL: "ub"},
		{ID: "n", UserID: "u1", GroupID: "g2", Key: "kn", URL: "un"},
		{ID: "o", UserID: "u2", GroupID: "g3", Key: "ko", URL: "uo"},
	} {
		stored[img.ID] = img
	}
	byID := func(id string) (images.Image, bool) { img, ok := stored[id]; return img, ok }
	byKey := func(key string) (images.Image, bool) {
		for _, img := range stored {
			if img.Key == key {
				return img, true
			}
		}
		return images.Image{}, false
	}
	type change = images.Change
	cases := []struct {
		name    string
		group   string
		changes []change
		want    string // changed id:key ... | removed ids | freed keys
		kind    core.Kind
	}{
		{"adopt another image's file", "", []change{{"a", "kn"}}, "a:kn|n|ka", 0},
		{"own key: nothing moves", "g1", []change{{"a", "ka"}}, "a:ka||", 0},
		{"swap inside the group", "g1", []change{{"a", "kb"}, {"b", "ka"}}, "a:kb b:ka||", 0},
		{"move along a chain", "", []change{{"a", "kb"}, {"b", "kn"}}, "a:kb b:kn|n|ka", 0},
		{"outside the group", "g1", []change{{"n", "ka"}}, "", core.KindNotFound},
		{"another user's image", "", []change{{"o", "ka"}}, "", core.KindNotFound},
		{"unknown image", "", []change{{"zz", "ka"}}, "", core.KindNotFound},
		{"another user's key", "", []change{{"a", "ko"}}, "", core.KindInvalid},
		{"unknown key", "", []change{{"a", "kz"}}, "", core.KindInvalid},
		{"a key twice", "", []change{{"a", "kn"}, {"b", "kn"}}, "", core.KindInvalid},
		{"an image twice", "", []change{{"a", "kn"}, {"a", "kb"}}, "", core.KindInvalid},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := images.PlanRelink("u1", tc.group, tc.changes, at, byID, byKey)
			if tc.kind != 0 {
				if !core.IsKind(err, tc.kind) {
					t.Fatalf("want %v, got %v", tc.kind, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var changed, removed []string
			for i, img := range p.Changed {
				if !img.UpdatedAt.Equal(at) || p.Before[i].ID != img.ID || p.Before[i].Key != stored[img.ID].Key {
					t.Fatalf("%+v / %+v", img, p.Before[i])
				}
				if img.URL != "" {
					t.Fatalf("%s: URL %q: an address is never stored, the service renders it", img.ID, img.URL)
				}
				changed = append(changed, img.ID+":"+img.Key)
			}
			for _, img := range p.Removed {
				removed = append(removed, img.ID)
			}
			got := strings.Join(changed, " ") + "|" + strings.Join(removed, " ") + "|" + strings.Join(p.Freed, " ")
			if got != tc.want {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
		})
	}
}
