// This file holds the images flow on the two other blob stores: a
// directory on disk and an S3 bucket (presigned URLs).

package tests

import (
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "golang.org/x/image/webp" // decodes the WEBP sent, to compare

	"tandem/adapters/imaging/imagingtest"
	"tandem/modules/images"
)

// The same flow on the two other blob stores.

func TestImagesOnDisk(t *testing.T) {
	parallel(t)
	for _, p := range profiles(t) {
		t.Run(p.name, func(t *testing.T) {
			parallel(t)
			dir := t.TempDir()
			h := newHarness(t, p, withEnv("TANDEM_BLOBS", "file:"+dir), withEnv("TANDEM_IMAGES_RATE_LIMIT", "1000"))
			u := h.newUser("a@x.io")
			onDisk := func() []string {
				var out []string
				_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
					if err == nil && !d.IsDir() {
						rel, _ := filepath.Rel(dir, path)
						out = append(out, filepath.ToSlash(rel))
					}
					return err
				})
				return out
			}
			pngB := pngFile(t)
			expect(t, h.upload(u, filePart("a.png", "image/png", pngB), filePart("b.gif", "image/gif", gifFile(t))), 415, "")
			if files := onDisk(); len(files) != 0 {
				t.Fatalf("a refused upload left %v", files)
			}
			up := h.mustUpload(u, filePart("a.png", "image/png", pngB))
			key := up.Files[0].Data.Key
			if files := onDisk(); len(files) != 1 || files[0] != key {
				t.Fatalf("on disk: %v", files)
			}
			st, err := os.Stat(filepath.Join(dir, filepath.FromSlash(key)))
			if err != nil || st.Mode().Perm() != 0o640 {
				t.Fatalf("%v %v", st, err)
			}
			expectFile(t, h.fetch(up.Files[0].Data.URL), "image/png", pngB)
			expect(t, h.do(req{Method: "DELETE", Path: imagesPath(u) + "/group/" + up.GroupID, Token: u.Token}), 200, "")
			if files := onDisk(); len(files) != 0 {
				t.Fatalf("left %v", files)
			}
			expect(t, h.fetch(up.Files[0].Data.URL), 404, "")
		})
	}
}

// TestImagesOnS3 uploads, fetches through a presigned URL and deletes on an
// S3 server: the in-process fake, and a real SeaweedFS under CI.
func TestImagesOnS3(t *testing.T) {
	parallel(t)
	for _, srv := range s3Servers(t) {
		for _, p := range profiles(t) {
			t.Run(srv.name+"/"+p.name, func(t *testing.T) {
				bucket := srv.make(t)
				h := newHarness(t, p, withEnv("TANDEM_BLOBS", srv.blobs(bucket)), withEnv("TANDEM_IMAGES_RATE_LIMIT", "1000"))
				u := h.newUser("a@x.io")
				jpegB := jpegFile(t)
				up := h.mustUpload(u, filePart("a.jpg", "image/jpeg", jpegB), filePart("b.webp", "image/webp", webpFile))
				key := up.Files[0].Data.Key
				if !srv.has(t, bucket, key) {
					t.Fatalf("%s is not in the bucket", key)
				}

				r := h.fetch(up.Files[0].Data.URL)
				loc := r.Header.Get("Location")
				if r.Status != 302 || !strings.HasPrefix(loc, srv.url+"/"+bucket+"/"+key+"?") ||
					!strings.Contains(loc, "X-Amz-Signature=") || !strings.Contains(loc, "X-Amz-Expires=900") {
					t.Fatalf("%d %q", r.Status, loc)
				}
				res, err := http.Get(loc)
				if err != nil {
					t.Fatal(err)
				}
				got, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if res.StatusCode != 200 || res.Header.Get("Content-Type") != "image/jpeg" {
					t.Fatalf("presigned GET: %d %q", res.StatusCode, res.Header.Get("Content-Type"))
				}
				samePicture(t, got, jpegB, 40)
				big := h.mustUpload(u, filePart("big.jpg", "image/jpeg", imagingtest.Photo(800, 600))).Files[0].Data
				thumbKey := images.ThumbKey(big.Key, 320)
				r = h.fetch(big.URL + "?w=320") // made on the first request, stored beside the file
				if loc := r.Header.Get("Location"); r.Status != 302 || !strings.HasPrefix(loc, srv.url+"/"+bucket+"/"+thumbKey+"?") ||
					!srv.has(t, bucket, thumbKey) {
					t.Fatalf("thumbnail: %d %q", r.Status, loc)
				}

				recs, _ := h.listed(u, "")
				for _, id := range ids(recs) {
					expect(t, h.do(req{Method: "DELETE", Path: imagesPath(u) + "/" + id, Token: u.Token}), 200, "")
				}
				for _, key := range []string{up.Files[0].Data.Key, up.Files[1].Data.Key, big.Key, thumbKey} {
					if srv.has(t, bucket, key) {
						t.Fatalf("%s is still in the bucket", key)
					}
				}
				expect(t, h.fetch(up.Files[0].Data.URL), 404, errBody("not_found", "file not found"))
			})
		}
	}
}
