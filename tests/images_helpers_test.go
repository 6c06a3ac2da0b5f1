// This file holds the image tests' kit: tiny images of each format,
// multipart bodies, upload, list and fetch helpers, the checks of a served
// file and of a picture, and eachImageProfile.

package tests

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"
	"testing"
	"time"

	_ "golang.org/x/image/webp" // decodes the WEBP sent, to compare

	"tandem/adapters/blob/memblob"
)

// tiny 2x2 test images, encoded by the standard library.
func testImage() image.Image {
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	img.Set(1, 1, color.RGBA{B: 255, A: 255})
	return img
}

func pngFile(t testing.TB) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, testImage()); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func jpegFile(t testing.TB) []byte {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, testImage(), nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func gifFile(t testing.TB) []byte {
	var b bytes.Buffer
	if err := gif.Encode(&b, testImage(), nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// webpFile is a 1x1 lossless WEBP: the RIFF header, "WEBP", one VP8L chunk.
var webpFile = []byte("RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00\x2f\x00\x00\x00\x10\x07\x10\x11\x11\x88\x88\xfe\x07\x00")

// part is one part of a multipart body.
type part struct {
	name, filename, contentType string
	data                        []byte
}

func filePart(filename, contentType string, data []byte) part {
	return part{name: "file", filename: filename, contentType: contentType, data: data}
}

func multipartBody(t testing.TB, parts ...part) ([]byte, string) {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for _, p := range parts {
		hdr := textproto.MIMEHeader{}
		if p.filename != "" {
			hdr.Set("Content-Disposition", `form-data; name="`+p.name+`"; filename="`+p.filename+`"`)
			hdr.Set("Content-Type", p.contentType)
		} else {
			hdr.Set("Content-Disposition", `form-data; name="`+p.name+`"`)
		}
		pw, err := w.CreatePart(hdr)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = pw.Write(p.data)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), w.FormDataContentType()
}

func (h *harness) upload(u user, parts ...part) response {
	h.t.Helper()
	body, ct := multipartBody(h.t, parts...)
	return h.do(req{Method: "POST", Path: imagesPath(u), Token: u.Token, Body: body, Headers: map[string]string{"Content-Type": ct}})
}

// uploaded is an upload's answer.
type uploaded struct {
	Files []struct {
		Data struct{ URL, Key string } `json:"data"`
	} `json:"files"`
	GroupID string `json:"groupId"`
}

func (h *harness) mustUpload(u user, parts ...part) uploaded {
	h.t.Helper()
	r := h.upload(u, parts...)
	expect(h.t, r, 200, "")
	var up uploaded
	if err := json.Unmarshal(r.Body, &up); err != nil {
		h.t.Fatal(err)
	}
	return up
}

// imageRecord is the exact record of an image.
func imageRecord(id string, u user, key, groupID string, createdAt int64) string {
	return `{"_id":"` + id + `","userId":"` + u.ID + `","url":"http://localhost:8080/files/` + key + `","key":"` + key +
		`","groupId":"` + groupID + `","createdAt":` + itoa(createdAt) + `,"width":"<number>","height":"<number>","blurhash":"<string>"}`
}

// listed decodes GET .../images: an array of strings, each a JSON record.
func (h *harness) listed(u user, query string) ([]map[string]any, response) {
	h.t.Helper()
	r := h.get(imagesPath(u)+query, u.Token)
	expect(h.t, r, 200, "")
	var raw []any
	if err := json.Unmarshal(r.Body, &raw); err != nil || raw == nil {
		h.t.Fatalf("not an array: %s", r.Body)
	}
	out := make([]map[string]any, len(raw))
	for i, v := range raw {
		s, ok := v.(string)
		if !ok {
			h.t.Fatalf("element %d is not a string: %s", i, r.Body)
		}
		if err := json.Unmarshal([]byte(s), &out[i]); err != nil {
			h.t.Fatalf("element %d is not a JSON record: %q", i, s)
		}
	}
	return out, r
}

func ids(recs []map[string]any) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i], _ = r["_id"].(string)
	}
	return out
}

// groupIDs reads GET .../images/group/{groupId} and returns the ids in order.
func (h *harness) groupIDs(u user, groupID string) []string {
	h.t.Helper()
	r := h.get(imagesPath(u)+"/group/"+groupID, u.Token)
	expect(h.t, r, 200, "")
	var recs []map[string]any
	if err := json.Unmarshal(r.Body, &recs); err != nil {
		h.t.Fatal(err)
	}
	return ids(recs)
}

// fetch reads a /files URL without following redirects.
func (h *harness) fetch(fileURL string) response {
	h.t.Helper()
	path := strings.TrimPrefix(fileURL, "http://localhost:8080")
	c := &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Get(h.base + path)
	if err != nil {
		h.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return response{Status: res.StatusCode, Header: res.Header, Body: b}
}

// expectFile checks a served file: the headers of a personal photo, and
// the picture that was uploaded as sent (the service stores it re-encoded:
// the same pixels for PNG, close ones for JPEG).
func expectFile(t testing.TB, r response, contentType string, sent []byte) {
	t.Helper()
	if r.Status != 200 || r.Header.Get("Content-Type") != contentType || r.Header.Get("ETag") == "" ||
		r.Header.Get("Cache-Control") != "private, max-age=86400" || r.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("file: %d %v, %d bytes", r.Status, r.Header, len(r.Body))
	}
	tolerance := 0
	if contentType == "image/jpeg" {
		tolerance = 40
	}
	samePicture(t, r.Body, sent, tolerance)
}

// samePicture decodes both images and compares them pixel by pixel, each
// channel within tolerance (of 255).
func samePicture(t testing.TB, got, want []byte, tolerance int) {
	t.Helper()
	g, _, err := image.Decode(bytes.NewReader(got))
	if err != nil {
		t.Fatalf("served file does not decode: %v", err)
	}
	w, _, err := image.Decode(bytes.NewReader(want))
	if err != nil {
		t.Fatalf("sent file does not decode: %v", err)
	}
	if g.Bounds().Size() != w.Bounds().Size() {
		t.Fatalf("served %v, sent %v", g.Bounds().Size(), w.Bounds().Size())
	}
	gb, wb := g.Bounds(), w.Bounds()
	for y := 0; y < gb.Dy(); y++ {
		for x := 0; x < gb.Dx(); x++ {
			if d := colorDistance(g.At(gb.Min.X+x, gb.Min.Y+y), w.At(wb.Min.X+x, wb.Min.Y+y)); d > tolerance {
				t.Fatalf("pixel %d,%d differs by %d", x, y, d)
			}
		}
	}
}

func colorDistance(a, b color.Color) int {
	ar, ag, ab, aa := a.RGBA()
	br, bg, bb, ba := b.RGBA()
	d := 0
	for _, p := range [][2]uint32{{ar, br}, {ag, bg}, {ab, bb}, {aa, ba}} {
		diff := int(p[0]>>8) - int(p[1]>>8)
		d = max(d, diff, -diff)
	}
	return d
}

// eachImageProfile runs fn on every storage profile with the memory blob
// store at hand, and a rate limit no scenario reaches unless it sets one.
func eachImageProfile(t *testing.T, fn func(t *testing.T, h *harness, blobs *memblob.Store), opts ...option) {
	eachProfileWith(t, fn, append([]option{withEnv("TANDEM_IMAGES_RATE_LIMIT", "1000")}, opts...)...)
}
