// This file holds the tests of updates: an image pointed at a new upload,
// and a group updated all or nothing.

package images_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/images"
)

func TestUpdatePointsTheImageAtANewUpload(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	setup := func(t *testing.T) (*fixture, images.Image, images.Image, images.Image) {
		f := newFixture(t)
		old := f.upload(t, "user-1", pngBytes).Images[0]
		f.clock.Advance(time.Minute)
		fresh := f.upload(t, "user-1", jpegBytes).Images[0]
		other := f.upload(t, "user-2", webpBytes).Images[0]
		f.clock.Advance(time.Minute)
		return f, old, fresh, other
	}
	t.Run("the spec's flow: upload new, PUT its url and key", func(t *testing.T) {
		f, old, fresh, _ := setup(t)
		got, err := f.svc.Update(ctx, "user-1", old.ID, images.Update{URL: fresh.URL, Key: fresh.Key})
		if err != nil {
			t.Fatal(err)
		}
		want := old
		want.Key, want.URL, want.Size, want.UpdatedAt = fresh.Key, fresh.URL, fresh.Size, f.clock.Now()
		if got != want {
			t.Fatalf("got %+v\nwant %+v", got, want)
		}
		ids, keys := f.stored(t, "user-1")
		if strings.Join(ids, ",") != old.ID { // the upload's own record merged into the image
			t.Fatalf("records %v", ids)
		}
		if slices.Contains(keys, old.Key) || !slices.Contains(keys, fresh.Key) {
			t.Fatalf("files %v: the old file must go, the new stay", keys)
		}
		if again, err := f.svc.Update(ctx, "user-1", old.ID, images.Update{URL: fresh.URL, Key: fresh.Key}); err != nil || again.Key != fresh.Key {
			t.Fatalf("repeating the PUT: %+v %v", again, err)
		}
	})

	cases := []struct {
		name  string
		id    func(old, fresh, other images.Image) string
		u     func(old, fresh, other images.Image) images.Update
		kind  core.Kind
		code  string
		msg   string
		owner string
	}{
		{name: "unknown image", id: func(o, _, _ images.Image) string { return "nope" },
			u: func(_, n, _ images.Image) images.Update { return images.Update{URL: n.URL, Key: n.Key} }, kind: core.KindNotFound, code: "not_found", msg: "image not found"},
		{name: "another user's image", id: func(_, _, x images.Image) string { return x.ID },
			u: func(_, n, _ images.Image) images.Update { return images.Update{URL: n.URL, Key: n.Key} }, kind: core.KindNotFound, code: "not_found", msg: "image not found"},
		{name: "another user's key", u: func(_, _, x images.Image) images.Update { return images.Update{URL: x.URL, Key: x.Key} },
			kind: core.KindForbidden, code: "forbidden", msg: "key is not one of your files"},
		{name: "a key never uploaded", u: func(_, n, _ images.Image) images.Update {
			k := "u/user-1/" + strings.Repeat("0", 32) + ".png"
			return images.Update{URL: settings.URLOf(k), Key: k}
		}, kind: core.KindInvalid, code: "invalid_request", msg: "key is not one of your uploaded images: upload the file first"},
		{name: "not a key", u: func(_, n, _ images.Image) images.Update { return images.Update{URL: n.URL, Key: "../../etc/passwd"} },
			kind: core.KindInvalid, code: "invalid_request", msg: "key is not one of your uploaded images: upload the file first"},
		{name: "url of another key", u: func(o, n, _ images.Image) images.Update { return images.Update{URL: o.URL, Key: n.Key} },
			kind: core.KindInvalid, code: "invalid_request", msg: "url is not the address of key"},
		{name: "missing url", u: func(_, n, _ images.Image) images.Update { return images.Update{Key: n.Key} },
			kind: core.KindInvalid, code: "invalid_request", msg: "url and key are required"},
		{name: "missing key", u: func(_, n, _ images.Image) images.Update { return images.Update{URL: n.URL} },
			kind: core.KindInvalid, code: "invalid_request", msg: "url and key are required"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, old, fresh, other := setup(t)
			id := old.ID
			if tc.id != nil {
				id = tc.id(old, fresh, other)
			}
			_, err := f.svc.Update(ctx, "user-1", id, tc.u(old, fresh, other))
			coretest.WantErr(t, err, tc.kind, tc.code)
			if core.As(err).Message != tc.msg {
				t.Fatalf("message %q", core.As(err).Message)
			}
			ids, keys := f.stored(t, "user-1")
			if len(ids) != 2 || len(keys) != 3 {
				t.Fatalf("a refused update changed %v %v", ids, keys)
			}
			if got, _ := f.svc.Get(ctx, "user-1", old.ID); got != old {
				t.Fatalf("changed: %+v", got)
			}
		})
	}
}

func TestUpdateGroupIsAllOrNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	setup := func(t *testing.T) (*fixture, images.Uploaded, images.Uploaded) {
		f := newFixture(t)
		group := f.upload(t, "user-1", pngBytes, jpegBytes, webpBytes)
		f.clock.Advance(time.Minute)
		fresh := f.upload(t, "user-1", jpegBytes, pngBytes)
		return f, group, fresh
	}
	u := func(img, to images.Image) images.Update { return images.Update{ID: img.ID, URL: to.URL, Key: to.Key} }

	t.Run("two images get new files; the group reads back whole", func(t *testing.T) {
		f, g, n := setup(t)
		f.clock.Advance(time.Minute)
		got, err := f.svc.UpdateGroup(ctx, "user-1", g.GroupID, []images.Update{u(g.Images[2], n.Images[0]), u(g.Images[0], n.Images[1])})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(idsOf(got), ",") != strings.Join(idsOf(g.Images), ",") ||
			got[0].Key != n.Images[1].Key || got[1] != g.Images[1] || got[2].Key != n.Images[0].Key ||
			got[2].URL != n.Images[0].URL || !got[2].UpdatedAt.Equal(f.clock.Now()) {
			t.Fatalf("group %+v", got)
		}
		ids, keys := f.stored(t, "user-1")
		if len(ids) != 3 || len(keys) != 3 || slices.Contains(keys, g.Images[0].Key) || slices.Contains(keys, g.Images[2].Key) {
			t.Fatalf("left %v %v", ids, keys)
		}
	})

	cases := []struct {
		name  string
		group func(g images.Uploaded) string
		us    func(g, n images.Uploaded) []images.Update
		kind  core.Kind
		msg   string
	}{
		{"an image of another group", nil, func(g, n images.Uploaded) []images.Update {
			return []images.Update{u(g.Images[0], n.Images[0]), u(n.Images[1], g.Images[1])}
		}, core.KindNotFound, "image id-7 is not in this group"},
		{"unknown group", func(images.Uploaded) string { return "nope" }, func(g, n images.Uploaded) []images.Update {
			return []images.Update{u(g.Images[0], n.Images[0])}
		}, core.KindNotFound, "image group not found"},
		{"the second key is bad", nil, func(g, n images.Uploaded) []images.Update {
			bad := u(g.Images[1], n.Images[1])
			bad.URL = "https://elsewhere/x.png"
			return []images.Update{u(g.Images[0], n.Images[0]), bad}
		}, core.KindInvalid, "url is not the address of key"},
		{"an image twice", nil, func(g, n images.Uploaded) []images.Update {
			return []images.Update{u(g.Images[0], n.Images[0]), u(g.Images[0], n.Images[1])}
		}, core.KindInvalid, "image id-2 is listed twice"},
		{"a key twice", nil, func(g, n images.Uploaded) []images.Update {
			return []images.Update{u(g.Images[0], n.Images[0]), u(g.Images[1], n.Images[0])}
		}, core.KindInvalid, "key " + "%KEY%" + " is given twice"},
		{"no _id", nil, func(g, n images.Uploaded) []images.Update {
			return []images.Update{{URL: n.Images[0].URL, Key: n.Images[0].Key}}
		}, core.KindInvalid, "every image needs its _id"},
		{"nothing to update", nil, func(g, n images.Uploaded) []images.Update { return nil },
			core.KindInvalid, "images must list at least one {_id, url, key}"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, g, n := setup(t)
			group := g.GroupID
			if tc.group != nil {
				group = tc.group(g)
			}
			_, err := f.svc.UpdateGroup(ctx, "user-1", group, tc.us(g, n))
			want := strings.ReplaceAll(tc.msg, "%KEY%", n.Images[0].Key)
			if !core.IsKind(err, tc.kind) || core.As(err).Message != want {
				t.Fatalf("want %v %q, got %v", tc.kind, want, err)
			}
			ids, keys := f.stored(t, "user-1")
			if len(ids) != 5 || len(keys) != 5 {
				t.Fatalf("a refused update changed %v %v", ids, keys)
			}
			if got, _ := f.svc.Group(ctx, "user-1", g.GroupID); !slices.Equal(got, g.Images) {
				t.Fatalf("group changed: %+v", got)
			}
		})
	}
}
