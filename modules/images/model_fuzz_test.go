package images_test

import (
	"bytes"
	"regexp"
	"testing"

	"tandem/core"
	"tandem/modules/images"
)

// FuzzDetect: the image sniffing decides by the first SniffLen bytes only,
// answers a format only when the bytes start with its documented magic
// number (JPEG FF D8 FF, PNG 89 50 4E 47 0D 0A 1A 0A, WEBP RIFF....WEBP),
// and always answers one when they do.
func FuzzDetect(f *testing.F) {
	f.Add([]byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00"))
	f.Add([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"))
	f.Add([]byte("RIFF\x24\x00\x00\x00WEBPVP8 "))
	f.Add([]byte("GIF89a\x01\x00\x01\x00"))
	f.Add([]byte("RIFF\x24\x00\x00\x00WAVE"))
	f.Add([]byte{0xff, 0xd8})
	f.Fuzz(func(t *testing.T, head []byte) {
		got, ok := images.Detect(head)
		short, shortOK := images.Detect(head[:min(len(head), images.SniffLen)])
		if got != short || ok != shortOK {
			t.Fatalf("Detect(%x) = %v, %v but on its first %d bytes %v, %v", head, got, ok, images.SniffLen, short, shortOK)
		}
		jpeg := bytes.HasPrefix(head, []byte{0xFF, 0xD8, 0xFF})
		png := bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n"))
		webp := len(head) >= 12 && string(head[:4]) == "RIFF" && string(head[8:12]) == "WEBP"
		var want images.Format
		switch {
		case jpeg:
			want = images.JPEG
		case png:
			want = images.PNG
		case webp:
			want = images.WEBP
		}
		if ok != (jpeg || png || webp) || got != want {
			t.Fatalf("Detect(%x) = %v, %v; want %v", head, got, ok, want)
		}
	})
}

// keyShape is the documented key: u/<owner>/<32 lowercase hex>.<ext>, the
// owner 1 to 64 of [A-Za-z0-9_-].
var keyShape = regexp.MustCompile(`^u/[A-Za-z0-9_-]{1,64}/[0-9a-f]{32}\.(jpg|png|webp)$`)

// FuzzParseKey: a file key (a client sends it back in image updates, and it
// is the path of GET /files/...) is accepted only in the form NewKey makes,
// so no traversal ("..", "//", "%2e", backslashes) can name another file; a
// key NewKey makes parses back to its owner and format.
func FuzzParseKey(f *testing.F) {
	f.Add("u/0190a1b2-0000-7000-8000-000000000001/0123456789abcdef0123456789abcdef.jpg", "user-1", uint8(0))
	f.Add("u/../0123456789abcdef0123456789abcdef.png", "a_b", uint8(1))
	f.Add("u/x/0123456789ABCDEF0123456789abcdef.webp", "", uint8(2))
	f.Add("u/x/0123456789abcdef0123456789abcdef.jpg/../../etc", "x/y", uint8(3))
	f.Fuzz(func(t *testing.T, key, owner string, which uint8) {
		o, format, ok := images.ParseKey(key)
		if ok && (!keyShape.MatchString(key) || key[2:2+len(o)+1] != o+"/" || !bytes.HasSuffix([]byte(key), []byte("."+format.Ext))) {
			t.Fatalf("ParseKey(%q) = %q, %v: accepted outside u/<owner>/<32 hex>.<ext>", key, o, format)
		}
		if !regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`).MatchString(owner) {
			return
		}
		want := []images.Format{images.JPEG, images.PNG, images.WEBP}[which%3]
		k := images.NewKey(owner, want)
		if o, got, ok := images.ParseKey(k); !ok || o != owner || got != want || !bytes.HasPrefix([]byte(k), []byte(images.OwnerPrefix(owner))) {
			t.Fatalf("NewKey(%q) = %q, which parses as %q, %v, %v", owner, k, o, got, ok)
		}
	})
}

// FuzzParsePosition: the images list cursor parses only in the form
// Position.String makes, so a parsed cursor re-encodes to the same string.
func FuzzParsePosition(f *testing.F) {
	f.Add(images.Position{CreatedAt: core.FromMillis(1750000000000), ID: "img-1"}.String())
	f.Add(core.EncodeCursor("1750000000000"))
	f.Add(core.EncodeCursor("-0", "img-1"))
	f.Fuzz(func(t *testing.T, s string) {
		p, err := images.ParsePosition(s)
		if err != nil {
			if e := core.As(err); e.Kind != core.KindInvalid || e.Code != "invalid_request" {
				t.Fatalf("ParsePosition(%q): %v, want 400 invalid_request", s, err)
			}
			return
		}
		if p.String() != s || p.ID == "" {
			t.Fatalf("ParsePosition(%q) = %+v, which encodes as %q", s, p, p.String())
		}
	})
}
