package images_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/images"
)

// storageLimits is a fake Limits: the limit set for a user, NoLimit for
// anyone else; err fails every call.
type storageLimits struct {
	mu  sync.Mutex
	m   map[string]images.StorageLimit
	err error
}

func (l *storageLimits) MaxStorage(_ context.Context, userID string) (images.StorageLimit, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return images.StorageLimit{}, l.err
	}
	if lim, ok := l.m[userID]; ok {
		return lim, nil
	}
	return images.StorageLimit{Bytes: images.NoLimit}, nil
}

func (l *storageLimits) set(userID string, bytes int64, label string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		l.m = map[string]images.StorageLimit{}
	}
	l.m[userID] = images.StorageLimit{Bytes: bytes, Label: label}
}

// limitedService is a service on the fixture's stores with limits in place.
func limitedService(f *fixture, repo images.Repository, limits images.Limits) *images.Service {
	return images.NewService(repo, f.blobs, rawImages{}, f.orphans, limits, settings, f.clock, &coretest.SeqIDs{}, nil)
}

func files(bs ...[]byte) []images.File {
	out := make([]images.File, len(bs))
	for i, b := range bs {
		out[i] = file(b)
	}
	return out
}

func TestUploadStopsAtTheStorageLimit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p, j := int64(len(pngBytes)), int64(len(jpegBytes))
	for _, tc := range []struct {
		name   string
		limit  int64
		before [][]byte // stored first, without a limit
		upload [][]byte
		fits   bool
	}{
		{"exactly up to the limit", 2*p + j, [][]byte{pngBytes}, [][]byte{pngBytes, jpegBytes}, true},
		{"one byte over", 2*p + j - 1, [][]byte{pngBytes}, [][]byte{pngBytes, jpegBytes}, false},
		{"several files passing it are refused whole", 4 * p, [][]byte{pngBytes, pngBytes}, [][]byte{pngBytes, jpegBytes, pngBytes}, false},
		{"a full store takes nothing more", 2 * p, [][]byte{pngBytes, pngBytes}, [][]byte{pngBytes}, false},
		{"zero allows none", 0, nil, [][]byte{pngBytes}, false},
		{"no limit configured", images.NoLimit, [][]byte{pngBytes, pngBytes}, [][]byte{pngBytes, pngBytes, pngBytes, pngBytes}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f, limits := newFixture(t), &storageLimits{}
			svc := limitedService(f, f.repo, limits)
			if len(tc.before) > 0 {
				if _, err := svc.Upload(ctx, "me", files(tc.before...)); err != nil {
					t.Fatal(err)
				}
			}
			limits.set("me", tc.limit, "1GB")
			ids, keys := f.stored(t, "me")
			puts := f.blobs.puts
			_, err := svc.Upload(ctx, "me", files(tc.upload...))
			if tc.fits {
				if got, _ := f.stored(t, "me"); err != nil || len(got) != len(ids)+len(tc.upload) {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			coretest.WantErr(t, err, core.KindForbidden, images.CodeLimitReached)
			if msg := core.As(err).Message; msg != "storage limit reached: 1GB" {
				t.Fatalf("message %q", msg)
			}
			if gotIDs, gotKeys := f.stored(t, "me"); len(gotIDs) != len(ids) || len(gotKeys) != len(keys) || f.blobs.puts != puts {
				t.Fatalf("a refused upload wrote: %v %v, %d puts", gotIDs, gotKeys, f.blobs.puts-puts)
			}
		})
	}
}

func TestDeletingImagesGivesTheRoomBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f, limits := newFixture(t), &storageLimits{}
	svc := limitedService(f, f.repo, limits)
	limits.set("me", 3*int64(len(pngBytes)), "204B")
	one, err := svc.Upload(ctx, "me", files(pngBytes))
	if err != nil {
		t.Fatal(err)
	}
	group, err := svc.Upload(ctx, "me", files(pngBytes, jpegBytes))
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name string
		do   func() error
		want string // "" or the code of the refusal
	}{
		{"full", func() error { _, err := svc.Upload(ctx, "me", files(pngBytes)); return err }, images.CodeLimitReached},
		{"another user has their own room", func() error { _, err := svc.Upload(ctx, "you", files(pngBytes)); return err }, ""},
		{"a deleted image frees its bytes", func() error {
			if _, err := svc.Delete(ctx, "me", one.Images[0].ID); err != nil {
				return err
			}
			_, err := svc.Upload(ctx, "me", files(webpBytes))
			return err
		}, ""},
		{"full again", func() error { _, err := svc.Upload(ctx, "me", files(pngBytes)); return err }, images.CodeLimitReached},
		{"a deleted group frees its bytes", func() error {
			if _, err := svc.DeleteGroup(ctx, "me", group.GroupID); err != nil {
				return err
			}
			_, err := svc.Upload(ctx, "me", files(pngBytes, jpegBytes))
			return err
		}, ""},
		{"a purge frees everything", func() error {
			if err := svc.PurgeUser(ctx, "me"); err != nil {
				return err
			}
			_, err := svc.Upload(ctx, "me", files(pngBytes, jpegBytes, pngBytes))
			return err
		}, ""},
	}
	for _, st := range steps {
		err := st.do()
		if (st.want == "") != (err == nil) || (err != nil && core.As(err).Code != st.want) {
			t.Fatalf("%s: %v", st.name, err)
		}
	}
}

// staleUsage reports no stored bytes, as a check that raced a concurrent
// upload would: the repository's own check must still refuse.
type staleUsage struct{ images.Repository }

func (staleUsage) StoredBytes(context.Context, string) (int64, error) { return 0, nil }

func TestAnUploadThatLosesTheRaceLeavesNoFile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f, limits := newFixture(t), &storageLimits{}
	svc := limitedService(f, staleUsage{f.repo}, limits)
	if _, err := svc.Upload(ctx, "me", files(pngBytes)); err != nil {
		t.Fatal(err)
	}
	limits.set("me", int64(len(pngBytes)), "68B")
	ids, keys := f.stored(t, "me")
	_, err := svc.Upload(ctx, "me", files(pngBytes, jpegBytes))
	coretest.WantErr(t, err, core.KindForbidden, images.CodeLimitReached)
	if gotIDs, gotKeys := f.stored(t, "me"); len(gotIDs) != len(ids) || len(gotKeys) != len(keys) {
		t.Fatalf("left %v %v", gotIDs, gotKeys)
	}
}

func TestAFailedStorageLimitLookupWritesNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	broken := errors.New("database on fire")
	svc := limitedService(f, f.repo, &storageLimits{err: core.Internal(broken)})
	_, err := svc.Upload(context.Background(), "me", files(pngBytes))
	if ids, keys := f.stored(t, "me"); !errors.Is(err, broken) || len(ids)+len(keys) != 0 {
		t.Fatalf("got %v, stored %v %v", err, ids, keys)
	}
}

func TestConcurrentUploadsAtTheLimitEndWithinIt(t *testing.T) {
	t.Parallel()
	f, limits := newFixture(t), &storageLimits{}
	svc := limitedService(f, f.repo, limits)
	size := int64(len(pngBytes))
	limits.set("me", 5*size, "340B")
	const tries = 16
	var wg sync.WaitGroup
	errs := make([]error, tries)
	for i := range tries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = svc.Upload(context.Background(), "me", files(pngBytes))
		}()
	}
	wg.Wait()
	refused := 0
	for _, err := range errs {
		if err != nil {
			coretest.WantErr(t, err, core.KindForbidden, images.CodeLimitReached)
			refused++
		}
	}
	ids, keys := f.stored(t, "me")
	if len(ids) != 5 || len(keys) != 5 || refused != tries-5 {
		t.Fatalf("stored %d images and %d files, refused %d", len(ids), len(keys), refused)
	}
}

func TestStorageLimitRoom(t *testing.T) {
	t.Parallel()
	if (images.StorageLimit{Bytes: images.NoLimit}).Room(1<<40) != nil {
		t.Fatal("no limit is no rule")
	}
	limit := images.StorageLimit{Bytes: 100, Label: "100 bytes"}
	for _, tc := range []struct {
		held, adding int64
		fits         bool
	}{{0, 100, true}, {60, 40, true}, {61, 40, false}, {100, 0, true}, {0, 101, false}} {
		err := limit.Room(tc.adding).Allows(tc.held)
		if tc.fits != (err == nil) || err != nil && (core.As(err).Code != images.CodeLimitReached ||
			core.As(err).Message != "storage limit reached: 100 bytes") {
			t.Errorf("held %d adding %d: %v", tc.held, tc.adding, err)
		}
	}
}
