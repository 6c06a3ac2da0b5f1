// This file holds the tests of uploads: the rules, and nothing left behind
// when storing fails.

package images_test

import (
	"bytes"
	"context"
	"io"
	"testing"

	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/images"
)

func TestUploadRules(t *testing.T) {
	t.Parallel()
	big := append(append([]byte{}, pngBytes...), make([]byte, maxBytes-len(pngBytes)+1)...)
	edge := big[:maxBytes]
	cases := []struct {
		name    string
		files   [][]byte
		kind    core.Kind
		code    string
		formats []images.Format
	}{
		{name: "one png", files: [][]byte{pngBytes}, formats: []images.Format{images.PNG}},
		{name: "four of every format", files: [][]byte{jpegBytes, pngBytes, webpBytes, jpegBytes},
			formats: []images.Format{images.JPEG, images.PNG, images.WEBP, images.JPEG}},
		{name: "exactly the size limit", files: [][]byte{edge}, formats: []images.Format{images.PNG}},
		{name: "no file", files: nil, kind: core.KindInvalid, code: "invalid_request"},
		{name: "five files", files: [][]byte{pngBytes, pngBytes, pngBytes, pngBytes, pngBytes}, kind: core.KindInvalid, code: "invalid_request"},
		{name: "one byte over the limit", files: [][]byte{big}, kind: core.KindTooLarge, code: "payload_too_large"},
		{name: "a gif", files: [][]byte{gifBytes}, kind: core.KindUnsupported, code: "unsupported_media_type"},
		{name: "text", files: [][]byte{[]byte("just some text, named photo.png")}, kind: core.KindUnsupported, code: "unsupported_media_type"},
		{name: "empty file", files: [][]byte{{}}, kind: core.KindUnsupported, code: "unsupported_media_type"},
		{name: "a bad later file stores nothing", files: [][]byte{pngBytes, jpegBytes, gifBytes}, kind: core.KindUnsupported, code: "unsupported_media_type"},
		{name: "a large later file stores nothing", files: [][]byte{pngBytes, big}, kind: core.KindTooLarge, code: "payload_too_large"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			in := make([]images.File, len(tc.files))
			for i, b := range tc.files {
				in[i] = file(b)
			}
			up, err := f.svc.Upload(context.Background(), "user-1", in)
			if tc.code != "" {
				coretest.WantErr(t, err, tc.kind, tc.code)
				if ids, keys := f.stored(t, "user-1"); len(ids)+len(keys) != 0 {
					t.Fatalf("a refused upload stored %v %v", ids, keys)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if up.GroupID == "" || len(up.Images) != len(tc.files) {
				t.Fatalf("%+v", up)
			}
			for i, img := range up.Images {
				owner, format, ok := images.ParseKey(img.Key)
				if !ok || owner != "user-1" || format != tc.formats[i] || img.URL != "https://api.test/files/"+img.Key ||
					img.GroupID != up.GroupID || img.Seq != i || img.UserID != "user-1" || !img.CreatedAt.Equal(f.clock.Now()) {
					t.Fatalf("image %d: %+v", i, img)
				}
				if !bytes.Equal(f.blob(t, img.Key), tc.files[i]) {
					t.Fatalf("image %d: stored bytes differ", i)
				}
				got, err := f.svc.Get(context.Background(), "user-1", img.ID)
				if err != nil || got != img {
					t.Fatalf("read back %+v %v", got, err)
				}
			}
		})
	}
}

func TestUploadLeavesNothingWhenStoringFails(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	three := []images.File{file(pngBytes), file(jpegBytes), file(webpBytes)}

	t.Run("the third file cannot be written", func(t *testing.T) {
		f := newFixture(t)
		f.blobs.failPut = 3
		_, err := f.svc.Upload(ctx, "user-1", three)
		coretest.WantErr(t, err, core.KindUnavailable, "unavailable")
		if ids, keys := f.stored(t, "user-1"); len(ids)+len(keys) != 0 {
			t.Fatalf("left %v %v", ids, keys)
		}
	})
	t.Run("the records cannot be written", func(t *testing.T) {
		f := newFixture(t)
		svc := images.NewService(failingCreate{f.repo}, f.blobs, rawImages{}, f.orphans, &storageLimits{}, settings, f.clock, &coretest.SeqIDs{}, nil)
		_, err := svc.Upload(ctx, "user-1", three)
		coretest.WantErr(t, err, core.KindUnavailable, "unavailable")
		if ids, keys := f.stored(t, "user-1"); len(ids)+len(keys) != 0 {
			t.Fatalf("left %v %v", ids, keys)
		}
	})
	t.Run("a cleanup that fails is reported", func(t *testing.T) {
		f := newFixture(t)
		f.blobs.failPut = 2
		var first string
		svc := images.NewService(f.repo, &firstKeyFails{flakyBlobs: f.blobs, first: &first}, rawImages{}, f.orphans, &storageLimits{}, settings, f.clock, &coretest.SeqIDs{}, nil)
		_, err := svc.Upload(ctx, "user-1", three)
		coretest.WantErr(t, err, core.KindUnavailable, "unavailable")
		if len(f.orphans.keys) != 1 || f.orphans.keys[0] != first {
			t.Fatalf("reported %v, want [%s]", f.orphans.keys, first)
		}
	})
}

// firstKeyFails refuses to delete the first key it stored.
type firstKeyFails struct {
	*flakyBlobs
	first *string
}

func (b *firstKeyFails) Put(ctx context.Context, key, ct string, r io.Reader, size int64) error {
	if *b.first == "" {
		*b.first = key
		b.failDelete[key] = true
	}
	return b.flakyBlobs.Put(ctx, key, ct, r, size)
}
