package images_test

import (
	"context"
	"strings"
	"testing"

	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/images"
)

// TestAddressesMoveWithThePublicURL: the records keep keys; every image the
// service hands out (upload, get, list, group, update, delete, export) has
// the address of its key under the service's own TANDEM_PUBLIC_URL, so the
// same records served under another address (a restore on another host)
// name that host.
func TestAddressesMoveWithThePublicURL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	up := f.upload(t, "user-1", pngBytes, jpegBytes)
	fresh := f.upload(t, "user-1", webpBytes)

	moved := settings
	moved.PublicURL = "https://new.example/tandem"
	ids := &coretest.SeqIDs{}
	for range 10 { // past the ids the first service handed out
		ids.New()
	}
	svc := images.NewService(f.repo, f.blobs, rawImages{}, f.orphans, &storageLimits{}, moved, f.clock, ids, nil)
	at := func(what string, imgs ...images.Image) {
		t.Helper()
		if len(imgs) == 0 {
			t.Fatalf("%s: no image", what)
		}
		for _, img := range imgs {
			if img.URL != moved.URLOf(img.Key) || !strings.HasPrefix(img.URL, "https://new.example/tandem/files/u/user-1/") {
				t.Fatalf("%s: %s has URL %q, want %q", what, img.ID, img.URL, moved.URLOf(img.Key))
			}
		}
	}
	img, err := svc.Get(ctx, "user-1", up.Images[0].ID)
	must(t, err)
	at("get", img)
	list, _, err := svc.List(ctx, "user-1", core.Page{})
	must(t, err)
	at("list", list...)
	group, err := svc.Group(ctx, "user-1", up.GroupID)
	must(t, err)
	at("group", group...)
	export, err := svc.ExportUser(ctx, "user-1")
	must(t, err)
	at("export", export.([]images.Image)...)

	// The upload answered the old address; after the move the file's
	// address is the new one, and only it names the file.
	_, err = svc.Update(ctx, "user-1", up.Images[0].ID, images.Update{URL: fresh.Images[0].URL, Key: fresh.Images[0].Key})
	coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
	updated, err := svc.Update(ctx, "user-1", up.Images[0].ID, images.Update{URL: moved.URLOf(fresh.Images[0].Key), Key: fresh.Images[0].Key})
	must(t, err)
	at("update", updated)
	regrouped, err := svc.UpdateGroup(ctx, "user-1", up.GroupID, []images.Update{
		{ID: up.Images[1].ID, URL: moved.URLOf(up.Images[1].Key), Key: up.Images[1].Key}})
	must(t, err)
	at("group update", regrouped...)
	deleted, err := svc.Delete(ctx, "user-1", up.Images[1].ID)
	must(t, err)
	at("delete", deleted)
	uploaded, err := svc.Upload(ctx, "user-1", []images.File{file(pngBytes)})
	must(t, err)
	at("upload", uploaded.Images...)
	gone, err := svc.DeleteGroup(ctx, "user-1", uploaded.GroupID)
	must(t, err)
	at("group delete", gone...)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
