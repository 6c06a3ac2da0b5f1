package httpapi_test

import (
	"bytes"
	"encoding/json"
	"image"
	"image/jpeg"
	"mime/multipart"
	"net/textproto"
	"strings"
	"testing"

	"tandem/modules/images"
)

type imageRecord struct {
	ID        string `json:"_id"`
	UserID    string `json:"userId"`
	URL       string `json:"url"`
	Key       string `json:"key"`
	GroupID   string `json:"groupId"`
	CreatedAt int64  `json:"createdAt"`
}

// jpegBytes is a real 4x4 JPEG: uploads are decoded and stored re-encoded.
var jpegBytes = func() []byte {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, image.NewGray(image.Rect(0, 0, 4, 4)), nil); err != nil {
		panic(err)
	}
	return b.Bytes()
}()

// FuzzImageBodies: any body of PUT .../images/{id} and PUT
// .../images/group/{groupId} (the update flow that points images at
// uploaded files) gets a 200 or a 4xx with the error body; afterwards each
// of the user's images holds a key of the user's own (u/<user>/<32
// hex>.<ext>, never a path out of it), its url is that key's address, no
// two images share a file and every file is served, and the partner's
// images are untouched. ID1, ID2, KEY1, KEY2, URL2, GROUP and PKEY in a body
// stand for the user's two images, their group and the partner's key.
func FuzzImageBodies(f *testing.F) {
	f.Add([]byte(`{"url":"URL2","key":"KEY2"}`), false)
	f.Add([]byte(`{"url":"URL2","key":"KEY1"}`), false)
	f.Add([]byte(`{"url":"https://tandem.example/files/PKEY","key":"PKEY"}`), false)
	f.Add([]byte(`{"url":"URL2","key":"u/../KEY2"}`), false)
	f.Add([]byte(`{"images":[{"_id":"ID1","url":"URL2","key":"KEY2"},{"_id":"ID2","url":"URL2","key":"KEY1"}]}`), true)
	f.Add([]byte(`{"images":[{"_id":"ID1","url":"URL2","key":"KEY2"},{"_id":"ID1","url":"URL2","key":"KEY2"}]}`), true)
	f.Fuzz(func(t *testing.T, body []byte, group bool) {
		a := apiForFuzz(t)
		a.mu.Lock()
		defer a.mu.Unlock()
		mine := a.imagesOf(t, a.user)
		if len(mine) < 2 {
			a.uploadTwo(t, a.user)
			mine = a.imagesOf(t, a.user)
		}
		theirs := a.imagesOf(t, a.partner)
		if len(theirs) == 0 {
			a.uploadTwo(t, a.partner)
			theirs = a.imagesOf(t, a.partner)
		}
		r := strings.NewReplacer("ID1", mine[0].ID, "ID2", mine[1].ID, "KEY1", mine[0].Key, "KEY2", mine[1].Key,
			"URL2", mine[1].URL, "GROUP", mine[0].GroupID, "PKEY", theirs[0].Key)
		body = []byte(r.Replace(string(body)))
		base := "/api/users/user/" + a.user.ID + "/images/"
		if group {
			a.send(t, "PUT", base+"group/"+mine[0].GroupID, a.user.Token, body)
		} else {
			a.send(t, "PUT", base+mine[0].ID, a.user.Token, body)
		}
		after := a.imagesOf(t, a.user)
		keys := map[string]bool{}
		for _, img := range after {
			owner, _, ok := images.ParseKey(img.Key)
			if !ok || owner != a.user.ID || img.URL != fuzzPublicURL+"/files/"+img.Key || keys[img.Key] || img.UserID != a.user.ID {
				t.Fatalf("image %+v after %s", img, body)
			}
			keys[img.Key] = true
			a.must(t, "GET", "/files/"+img.Key, "", nil)
		}
		if got := a.imagesOf(t, a.partner); string(jsonOf(got)) != string(jsonOf(theirs)) {
			t.Fatalf("the partner's images changed: %+v to %+v", theirs, got)
		}
	})
}

// imagesOf lists u's images (the list is of JSON-encoded records).
func (a *fuzzAPI) imagesOf(t *testing.T, u fuzzUser) []imageRecord {
	t.Helper()
	var raw []string
	if err := json.Unmarshal(a.must(t, "GET", "/api/users/user/"+u.ID+"/images", u.Token, nil), &raw); err != nil {
		t.Fatal(err)
	}
	out := make([]imageRecord, len(raw))
	for i, s := range raw {
		out[i] = decodeAs[imageRecord](t, []byte(s))
	}
	return out
}

// uploadTwo uploads two small JPEGs for u as one group.
func (a *fuzzAPI) uploadTwo(t *testing.T, u fuzzUser) {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for _, name := range []string{"a.jpg", "b.jpg"} {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", `form-data; name="file"; filename="`+name+`"`)
		h.Set("Content-Type", "image/jpeg")
		p, _ := w.CreatePart(h)
		_, _ = p.Write(jpegBytes)
	}
	_ = w.Close()
	st, res, err := a.do("POST", "/api/users/user/"+u.ID+"/images", u.Token, b.Bytes(), map[string]string{"Content-Type": w.FormDataContentType()})
	if err != nil || st != 200 {
		t.Fatalf("upload: %d %s %v", st, res, err)
	}
}
