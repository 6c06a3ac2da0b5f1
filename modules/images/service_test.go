package images_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/mock/gomock"

	"tandem/adapters/blob/memblob"
	"tandem/adapters/memory"
	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/images"
)

const maxBytes = 1000

var settings = images.Settings{PublicURL: "https://api.test", MaxFileBytes: maxBytes}

// Test files: the format is in the leading bytes only.
var (
	pngBytes  = append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{1}, 60)...)
	jpegBytes = append([]byte("\xff\xd8\xff\xe0"), bytes.Repeat([]byte{2}, 60)...)
	webpBytes = append([]byte("RIFF\x1a\x00\x00\x00WEBPVP8L"), bytes.Repeat([]byte{3}, 14)...)
	gifBytes  = []byte("GIF89a\x02\x00\x02\x00\x80\x00\x00")
)

func file(b []byte) images.File {
	return images.File{Size: int64(len(b)), Open: func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(b)), nil
	}}
}

// orphans is a recording Reporter.
type orphans struct {
	mu   sync.Mutex
	keys []string
}

func (o *orphans) OrphanedBlob(_ context.Context, key string, _ error) {
	o.mu.Lock()
	o.keys = append(o.keys, key)
	o.mu.Unlock()
}

// flakyBlobs fails the nth Put (1-based) and any Delete of a key in failDelete.
type flakyBlobs struct {
	*memblob.Store
	mu         sync.Mutex
	puts       int
	failPut    int
	failDelete map[string]bool
}

func (f *flakyBlobs) Put(ctx context.Context, key, ct string, r io.Reader, size int64) error {
	f.mu.Lock()
	f.puts++
	n := f.puts
	f.mu.Unlock()
	if n == f.failPut {
		// a half-written file is the worst case the service must clean up
		_ = f.Store.Put(ctx, key, ct, io.LimitReader(r, 3), 3)
		return core.Unavailable("unavailable", "images.fileStoreUnavailable", "the file store is unavailable")
	}
	return f.Store.Put(ctx, key, ct, r, size)
}

func (f *flakyBlobs) Delete(ctx context.Context, key string) error {
	if f.failDelete[key] {
		return errors.New("disk on fire")
	}
	return f.Store.Delete(ctx, key)
}

// failingCreate is an image repo whose Create fails (the database went away).
type failingCreate struct{ *memory.ImageRepo }

func (failingCreate) Create(context.Context, []images.Image, core.Room) error {
	return core.Unavailable("unavailable", "images.databaseUnavailable", "the database is unavailable")
}

type fixture struct {
	svc     *images.Service
	repo    *memory.ImageRepo
	blobs   *flakyBlobs
	orphans *orphans
	clock   *coretest.FixedClock
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{repo: memory.NewImageRepo(), blobs: &flakyBlobs{Store: memblob.New(), failDelete: map[string]bool{}},
		orphans: &orphans{}, clock: coretest.NewClock(time.Time{})}
	f.svc = images.NewService(f.repo, f.blobs, rawImages{}, f.orphans, &storageLimits{}, settings, f.clock, &coretest.SeqIDs{}, nil)
	return f
}

func (f *fixture) upload(t *testing.T, user string, files ...[]byte) images.Uploaded {
	t.Helper()
	in := make([]images.File, len(files))
	for i, b := range files {
		in[i] = file(b)
	}
	up, err := f.svc.Upload(context.Background(), user, in)
	if err != nil {
		t.Fatal(err)
	}
	return up
}

// stored is everything the fixture holds: image ids newest first, and blob keys.
func (f *fixture) stored(t *testing.T, user string) (ids []string, keys []string) {
	t.Helper()
	imgs, err := f.repo.List(context.Background(), user, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, img := range imgs {
		ids = append(ids, img.ID)
	}
	keys = f.blobs.Keys()
	slices.Sort(keys)
	return ids, keys
}

func (f *fixture) blob(t *testing.T, key string) []byte {
	t.Helper()
	rc, _, err := f.blobs.Open(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, _ := io.ReadAll(rc)
	return b
}

func TestListPagesNewestFirst(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	var want []string
	for range 3 {
		up := f.upload(t, "user-1", pngBytes, jpegBytes)
		want = append([]string{up.Images[1].ID, up.Images[0].ID}, want...) // one upload, one ms: id descending
		f.clock.Advance(time.Second)
	}
	f.upload(t, "user-2", pngBytes)

	all, next, err := f.svc.List(ctx, "user-1", core.Page{})
	if err != nil || next != "" || strings.Join(idsOf(all), ",") != strings.Join(want, ",") {
		t.Fatalf("all: %v %q %v, want %v", idsOf(all), next, err, want)
	}
	var got []string
	page := core.Page{Limit: 4}
	for i := 0; ; i++ {
		imgs, next, err := f.svc.List(ctx, "user-1", page)
		if err != nil || i > 3 {
			t.Fatal(err)
		}
		got = append(got, idsOf(imgs)...)
		if next == "" {
			break
		}
		page.Cursor = next
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("paged %v, want %v", got, want)
	}
	if imgs, next, err := f.svc.List(ctx, "user-1", core.Page{Limit: 6}); len(imgs) != 6 || next != "" || err != nil {
		t.Fatalf("an exact last page has no next cursor: %d %q %v", len(imgs), next, err)
	}
	for _, bad := range []string{"nope!", core.EncodeCursor("x", "id-1"), core.EncodeCursor("1"), core.EncodeCursor("1", "")} {
		_, _, err := f.svc.List(ctx, "user-1", core.Page{Limit: 2, Cursor: bad})
		coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
	}
	if imgs, _, err := f.svc.List(ctx, "nobody", core.Page{}); err != nil || imgs == nil || len(imgs) != 0 {
		t.Fatalf("an empty list is empty, not nil: %v %v", imgs, err)
	}
}

func idsOf(imgs []images.Image) []string {
	out := make([]string, len(imgs))
	for i, img := range imgs {
		out[i] = img.ID
	}
	return out
}

func TestDeleteRemovesRecordAndFile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	single := f.upload(t, "user-1", pngBytes).Images[0]
	group := f.upload(t, "user-1", pngBytes, jpegBytes)
	theirs := f.upload(t, "user-2", pngBytes)

	_, err := f.svc.Delete(ctx, "user-1", theirs.Images[0].ID)
	coretest.WantErr(t, err, core.KindNotFound, "not_found")
	_, err = f.svc.DeleteGroup(ctx, "user-1", theirs.GroupID)
	coretest.WantErr(t, err, core.KindNotFound, "not_found")
	_, err = f.svc.Group(ctx, "user-1", theirs.GroupID)
	coretest.WantErr(t, err, core.KindNotFound, "not_found")

	got, err := f.svc.Delete(ctx, "user-1", single.ID)
	if err != nil || got != single {
		t.Fatalf("%+v %v", got, err)
	}
	_, err = f.svc.Delete(ctx, "user-1", single.ID)
	coretest.WantErr(t, err, core.KindNotFound, "not_found")
	_, err = f.svc.File(ctx, single.Key, 0)
	coretest.WantErr(t, err, core.KindNotFound, "not_found")

	deleted, err := f.svc.DeleteGroup(ctx, "user-1", group.GroupID)
	if err != nil || !slices.Equal(deleted, group.Images) {
		t.Fatalf("%+v %v", deleted, err)
	}
	_, err = f.svc.DeleteGroup(ctx, "user-1", group.GroupID)
	coretest.WantErr(t, err, core.KindNotFound, "not_found")
	ids, keys := f.stored(t, "user-1")
	if len(ids) != 0 || strings.Join(keys, ",") != theirs.Images[0].Key {
		t.Fatalf("left %v %v", ids, keys)
	}

	// a file that cannot be deleted is reported; the image is gone all the same
	img := f.upload(t, "user-1", webpBytes).Images[0]
	f.blobs.failDelete[img.Key] = true
	if _, err := f.svc.Delete(ctx, "user-1", img.ID); err != nil {
		t.Fatal(err)
	}
	if strings.Join(f.orphans.keys, ",") != img.Key {
		t.Fatalf("reported %v", f.orphans.keys)
	}
}

func TestFileServesStoredImagesOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	img := f.upload(t, "user-1", webpBytes).Images[0]
	d, err := f.svc.File(ctx, img.Key, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(d.Body)
	d.Body.Close()
	if !bytes.Equal(b, webpBytes) || d.Size != int64(len(webpBytes)) || d.ContentType != "image/webp" || d.RedirectURL != "" {
		t.Fatalf("%+v", d)
	}
	orphan := "u/user-1/" + strings.Repeat("f", 32) + ".png" // a file without an image is not served
	if err := f.blobs.Put(ctx, orphan, "image/png", bytes.NewReader(pngBytes), int64(len(pngBytes))); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{orphan, "u/user-1/../../etc/passwd", "", "u/user-1/" + strings.Repeat("f", 32) + ".gif"} {
		_, err := f.svc.File(ctx, key, 0)
		coretest.WantErr(t, err, core.KindNotFound, "not_found")
	}
}

func TestExportAndPurge(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	var owner core.UserData = f.svc
	if owner.Section() != "images" {
		t.Fatal(owner.Section())
	}
	if v, err := owner.ExportUser(ctx, "user-1"); err != nil || len(v.([]images.Image)) != 0 {
		t.Fatalf("nothing to export: %v %v", v, err)
	}
	up := f.upload(t, "user-1", pngBytes)
	img := up.Images[0]
	theirs := f.upload(t, "user-2", pngBytes).Images[0]
	orphan := images.OwnerPrefix("user-1") + strings.Repeat("e", 32) + ".jpg" // e.g. left by a crash
	if err := f.blobs.Put(ctx, orphan, "image/jpeg", bytes.NewReader(jpegBytes), int64(len(jpegBytes))); err != nil {
		t.Fatal(err)
	}
	v, err := owner.ExportUser(ctx, "user-1")
	if err != nil {
		t.Fatal(err)
	}
	if got := v.([]images.Image); len(got) != 1 || got[0] != img {
		t.Fatalf("export\n got %+v\nwant %+v", got, img)
	}
	for range 2 {
		if err := owner.PurgeUser(ctx, "user-1"); err != nil {
			t.Fatal(err)
		}
	}
	ids, keys := f.stored(t, "user-1")
	if len(ids) != 0 || strings.Join(keys, ",") != theirs.Key {
		t.Fatalf("left %v %v", ids, keys)
	}
}

// The interactions below are the point of their tests, so they use gomock.

func TestARefusedUploadTouchesNoStore(t *testing.T) {
	t.Parallel()
	ctrl := gomock.NewController(t)
	repo, blobs, report := NewMockRepository(ctrl), NewMockBlobs(ctrl), NewMockReporter(ctrl) // any call fails the test
	svc := images.NewService(repo, blobs, rawImages{}, report, &storageLimits{}, settings, coretest.NewClock(time.Time{}), &coretest.SeqIDs{}, nil)
	for _, files := range [][]images.File{
		nil,
		{file(pngBytes), file(pngBytes), file(pngBytes), file(pngBytes), file(pngBytes)},
		{file(pngBytes), file(gifBytes)},
		{file(pngBytes), file(make([]byte, maxBytes+1))},
	} {
		if _, err := svc.Upload(context.Background(), "user-1", files); err == nil {
			t.Fatal("accepted")
		}
	}
}

func TestAPresigningStoreIsRedirectedTo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ctrl := gomock.NewController(t)
	presigner := NewMockPresigner(ctrl)
	store := &presigning{Store: memblob.New(), Presigner: presigner}
	repo := memory.NewImageRepo()
	svc := images.NewService(repo, store, rawImages{}, &orphans{}, &storageLimits{}, settings, coretest.NewClock(time.Time{}), &coretest.SeqIDs{}, nil)
	up, err := svc.Upload(ctx, "user-1", []images.File{file(pngBytes)})
	if err != nil {
		t.Fatal(err)
	}
	key := up.Images[0].Key
	presigner.EXPECT().PresignGet(gomock.Any(), key, images.PresignTTL).Return("https://s3.test/b/"+key+"?X-Amz-Signature=x", nil)
	d, err := svc.File(ctx, key, 0)
	if err != nil || d.RedirectURL != "https://s3.test/b/"+key+"?X-Amz-Signature=x" || d.Body != nil {
		t.Fatalf("%+v %v", d, err)
	}
	// unknown keys are answered from the records, without presigning
	_, err = svc.File(ctx, "u/user-1/"+strings.Repeat("0", 32)+".png", 0)
	coretest.WantErr(t, err, core.KindNotFound, "not_found")
}

type presigning struct {
	*memblob.Store
	images.Presigner
}

// rawImages stands in for the image processor in the rules' tests: it
// stores the bytes as sent and makes a thumbnail by prefixing them, so the
// tests can tell which file was served. adapters/imaging has its own tests.
type rawImages struct{}

func (rawImages) Original(_ context.Context, r io.Reader, format images.Format) (images.Processed, error) {
	data, err := io.ReadAll(r)
	return images.Processed{Data: data, Format: format, Width: 1000, Height: 750, BlurHash: "LKO2?U%2Tw=w]~RBVZRi};RPxuwH"}, err
}

func (rawImages) Thumbnail(_ context.Context, r io.Reader, format images.Format, width int) (images.Processed, error) {
	data, err := io.ReadAll(r)
	prefix := []byte("thumb-" + strconv.Itoa(width) + ":")
	return images.Processed{Data: append(prefix, data...), Format: format, Width: width}, err
}
