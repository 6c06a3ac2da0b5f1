package tests

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"go.uber.org/fx"

	"tandem/adapters/imaging/imagingtest"
	"tandem/modules/images"
)

// Photos end to end on the three blob stores: what is stored has no
// metadata and stands upright, the header is checked before any decoding,
// thumbnails are made once and stored beside the file, files revalidate.

// photoStore is one blob store as the test sees it from outside the app.
type photoStore struct {
	name  string
	read  func(t *testing.T, key string) ([]byte, bool)
	puts  func(key string) int // writes of key so far
	keys  func(t *testing.T) []string
	setup func(t *testing.T) []option
}

// countingBlobs counts the writes of each key of a store that is not S3
// (S3's writes are counted at its HTTP door).
type countingBlobs struct {
	images.Blobs
	mu   sync.Mutex
	puts map[string]int
}

func (c *countingBlobs) Put(ctx context.Context, key, ct string, r io.Reader, size int64) error {
	c.mu.Lock()
	c.puts[key]++
	c.mu.Unlock()
	return c.Blobs.Put(ctx, key, ct, r, size)
}

func (c *countingBlobs) count(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.puts[key]
}

func counted(c **countingBlobs) option {
	return withFx(fx.Decorate(func(b images.Blobs) images.Blobs {
		*c = &countingBlobs{Blobs: b, puts: map[string]int{}}
		return *c
	}))
}

func memoryPhotos() photoStore {
	var c *countingBlobs
	return photoStore{name: "memory",
		setup: func(*testing.T) []option { return []option{counted(&c)} },
		read: func(t *testing.T, key string) ([]byte, bool) {
			rc, _, err := c.Blobs.Open(context.Background(), key)
			if err != nil {
				return nil, false
			}
			defer rc.Close()
			b, _ := io.ReadAll(rc)
			return b, true
		},
		puts: func(key string) int { return c.count(key) },
		keys: func(t *testing.T) []string {
			var out []string
			_ = c.Blobs.Walk(context.Background(), "", func(k string, _ int64) error { out = append(out, k); return nil })
			return out
		},
	}
}

func diskPhotos() photoStore {
	var c *countingBlobs
	var dir string
	s := memoryPhotos()
	s.name = "disk"
	s.setup = func(t *testing.T) []option {
		dir = t.TempDir()
		return []option{withEnv("TANDEM_BLOBS", "file:"+dir), counted(&c)}
	}
	s.read = func(t *testing.T, key string) ([]byte, bool) {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(key)))
		return b, err == nil
	}
	s.puts = func(key string) int { return c.count(key) }
	s.keys = func(t *testing.T) []string {
		var out []string
		_ = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(dir, path)
				out = append(out, filepath.ToSlash(rel))
			}
			return err
		})
		return out
	}
	return s
}

func s3Photos() photoStore {
	backend := s3mem.New()
	var mu sync.Mutex
	puts := map[string]int{}
	return photoStore{name: "s3",
		setup: func(t *testing.T) []option {
			if err := backend.CreateBucket("photos"); err != nil {
				t.Fatal(err)
			}
			fake := gofakes3.New(backend).Server()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == "PUT" {
					mu.Lock()
					puts[strings.TrimPrefix(r.URL.Path, "/photos/")]++
					mu.Unlock()
				}
				fake.ServeHTTP(w, r)
			}))
			t.Cleanup(srv.Close)
			endpoint := strings.TrimPrefix(srv.URL, "http://")
			return []option{withEnv("TANDEM_BLOBS", "s3://photos?endpoint="+endpoint+"&region=us-east-1&secure=false")}
		},
		read: func(t *testing.T, key string) ([]byte, bool) {
			obj, err := backend.GetObject("photos", key, nil)
			if err != nil {
				return nil, false
			}
			defer obj.Contents.Close()
			b, _ := io.ReadAll(obj.Contents)
			return b, true
		},
		puts: func(key string) int { mu.Lock(); defer mu.Unlock(); return puts[key] },
		keys: func(t *testing.T) []string {
			list, err := backend.ListBucket("photos", nil, gofakes3.ListBucketPage{})
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, c := range list.Contents {
				out = append(out, c.Key)
			}
			return out
		},
	}
}

// fetchPhoto reads a file url, following S3's redirect.
func (h *harness) fetchPhoto(t *testing.T, url string) response {
	t.Helper()
	r := h.fetch(url)
	if r.Status != 302 {
		return r
	}
	res, err := http.Get(r.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return response{Status: res.StatusCode, Header: res.Header, Body: b}
}

// TestPhotos is not parallel: the heap check needs the process to itself.
func TestPhotos(t *testing.T) {
	for _, p := range profiles(t) {
		for _, store := range []photoStore{memoryPhotos(), diskPhotos(), s3Photos()} {
			t.Run(p.name+"/"+store.name, func(t *testing.T) {
				opts := append(store.setup(t), withEnv("TANDEM_IMAGES_RATE_LIMIT", "1000"))
				h := newHarness(t, p, opts...)
				photoChecks(t, h, store)
			})
		}
	}
}

func photoChecks(t *testing.T, h *harness, store photoStore) {
	u := h.newUser("photos@x.io")

	// A phone photo: stored 64x32 with EXIF orientation 6 (turn right), GPS,
	// XMP and a comment. Stored upright, 32x64, with none of it.
	up := h.mustUpload(u, filePart("p.jpg", "image/jpeg", imagingtest.JPEG(64, 32, 6, true)))
	key := up.Files[0].Data.Key
	rec := h.get(imagesPath(u)+"/group/"+up.GroupID, u.Token)
	expect(t, rec, 200, `[{"_id":"<string>","userId":"`+u.ID+`","url":"<string>","key":"`+key+
		`","groupId":"`+up.GroupID+`","createdAt":"<number>","width":32,"height":64,"blurhash":"<string>"}]`)
	stored, ok := store.read(t, key)
	if !ok || !strings.HasSuffix(key, ".jpg") {
		t.Fatalf("%s not stored", key)
	}
	if imagingtest.HasEXIF(stored) || bytes.Contains(stored, []byte(imagingtest.XMPNamespace)) ||
		bytes.Contains(stored, []byte(imagingtest.Comment)) || bytes.Contains(stored, []byte("GPS")) {
		t.Fatalf("metadata survived: markers % x", imagingtest.Markers(stored))
	}
	at, size := imagingtest.Pixel(t, stored)
	if size.X != 32 || size.Y != 64 || !imagingtest.Near(at(2, 2), imagingtest.Green, 40) ||
		!imagingtest.Near(at(28, 60), imagingtest.Blue, 40) || !imagingtest.Near(at(4, 60), imagingtest.Red, 40) {
		t.Fatalf("not upright: %v, top-left %v", size, at(2, 2))
	}
	served := h.fetchPhoto(t, up.Files[0].Data.URL)
	if served.Status != 200 || !bytes.Equal(served.Body, stored) {
		t.Fatalf("served %d, %d bytes", served.Status, len(served.Body))
	}

	// Declared 200,000 x 200,000: refused from the header, nothing decoded.
	huge := imagingtest.PNGDeclaring(200000, 200000)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := h.upload(u, filePart("huge.png", "image/png", huge))
	runtime.ReadMemStats(&after)
	expect(t, r, 413, errBody("payload_too_large", "images may have at most 50 megapixels"))
	if grown := after.TotalAlloc - before.TotalAlloc; grown > 64<<20 {
		t.Fatalf("refusing a declared 200,000 x 200,000 PNG allocated %d MB", grown>>20)
	}

	// WEBP: opaque becomes JPEG, with transparency PNG.
	webps := h.mustUpload(u, filePart("o.webp", "image/webp", imagingtest.WEBP(40, 20, false)),
		filePart("a.webp", "image/webp", imagingtest.WEBP(40, 20, true)))
	if !strings.HasSuffix(webps.Files[0].Data.Key, ".jpg") || !strings.HasSuffix(webps.Files[1].Data.Key, ".png") {
		t.Fatalf("webp stored as %s and %s", webps.Files[0].Data.Key, webps.Files[1].Data.Key)
	}

	// Thumbnails: 20 first requests at once make one, stored beside the file.
	photo := h.mustUpload(u, filePart("big.jpg", "image/jpeg", imagingtest.Photo(800, 600)))
	url, pkey := photo.Files[0].Data.URL, photo.Files[0].Data.Key
	thumbKey := images.ThumbKey(pkey, 320)
	bodies := make([][]byte, 20)
	var wg sync.WaitGroup
	for i := range bodies {
		wg.Go(func() {
			if r := h.fetchPhoto(t, url+"?w=320"); r.Status == 200 {
				bodies[i] = r.Body
			}
		})
	}
	wg.Wait()
	thumb, ok := store.read(t, thumbKey)
	if !ok || store.puts(thumbKey) != 1 {
		t.Fatalf("thumbnail %s stored %d times", thumbKey, store.puts(thumbKey))
	}
	for _, b := range bodies {
		if !bytes.Equal(b, thumb) {
			t.Fatal("a request got something else than the stored thumbnail")
		}
	}
	if _, size := imagingtest.Pixel(t, thumb); size.X != 320 || size.Y != 240 {
		t.Fatalf("thumbnail %v", size)
	}
	if r := h.fetchPhoto(t, url+"?w=320"); !bytes.Equal(r.Body, thumb) || store.puts(thumbKey) != 1 {
		t.Fatal("a stored thumbnail was made again")
	}
	original, _ := store.read(t, pkey)
	if r := h.fetchPhoto(t, url+"?w=1280"); !bytes.Equal(r.Body, original) { // never wider than the photo
		t.Fatal("w=1280 of an 800 px photo is not the photo")
	}
	for _, w := range []string{"100", "321", "0320", "-320", "320.0", "abc"} {
		expect(t, h.fetch(url+"?w="+w), 400, errBody("invalid_request", "w must be one of 160, 320, 640, 1280"))
	}

	// Revalidation: the ETag answers 304 (S3 answers with its own ETag).
	if r := h.fetch(url + "?w=320"); r.Status == 200 {
		etag := r.Header.Get("ETag")
		res := h.do(req{Method: "GET", Path: strings.TrimPrefix(url, "http://localhost:8080") + "?w=320",
			Headers: map[string]string{"If-None-Match": etag}})
		if res.Status != 304 || len(res.Body) != 0 || res.Header.Get("Cache-Control") != "private, max-age=86400" {
			t.Fatalf("If-None-Match: %d %v", res.Status, res.Header)
		}
	} else if r.Status != 302 || !strings.Contains(r.Header.Get("Location"), "/photos/"+thumbKey+"?") {
		t.Fatalf("thumbnail on S3: %d %s", r.Status, r.Header.Get("Location"))
	}

	// Deleting the images deletes their files and thumbnails.
	recs, _ := h.listed(u, "")
	for _, id := range ids(recs) {
		expect(t, h.do(req{Method: "DELETE", Path: imagesPath(u) + "/" + id, Token: u.Token}), 200, "")
	}
	if keys := store.keys(t); len(keys) != 0 {
		t.Fatalf("left in the store: %v", keys)
	}
	expect(t, h.fetch(url+"?w=320"), 404, errBody("not_found", "file not found"))
}
