package httpapi

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/textproto"
	"os"
	"strings"
	"testing"

	"tandem/modules/images"
)

const fuzzBoundary = "fuzzboundary"

// multipartOf builds a body of parts: name:filename=content each.
func multipartOf(parts ...[3]string) []byte {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	_ = w.SetBoundary(fuzzBoundary)
	for _, p := range parts {
		h := textproto.MIMEHeader{}
		cd := `form-data; name="` + p[0] + `"`
		if p[1] != "" {
			cd += `; filename="` + p[1] + `"`
		}
		h.Set("Content-Disposition", cd)
		pw, _ := w.CreatePart(h)
		_, _ = pw.Write([]byte(p[2]))
	}
	_ = w.Close()
	return b.Bytes()
}

// FuzzReadUpload: whatever the multipart body, the upload reader never
// panics and never returns more than its limits: at most MaxPerUpload
// files plus one unread marker of "too many", each at most the file limit
// plus the one byte that tells "too large", and it stops reading at the
// first file past either; every file it returns holds exactly the bytes of
// its part (as mime/multipart reads them), readable again; more than
// maxFields fields or a part header over maxPartHead is a 400; and it leaves
// no temporary file behind once closed.
func FuzzReadUpload(f *testing.F) {
	f.Add(multipartOf([3]string{"file", "a.jpg", "\xff\xd8\xff jpeg"}), uint16(64))
	f.Add(multipartOf([3]string{"file", "a.jpg", "1"}, [3]string{"file", "b.png", "22"}, [3]string{"file", "c", "333"},
		[3]string{"file", "d", "4444"}, [3]string{"file", "e", "55555"}), uint16(3))
	f.Add(multipartOf([3]string{"note", "", "hello"}, [3]string{"file", "a.jpg", strings.Repeat("x", 100)}), uint16(10))
	f.Add(multipartOf([3]string{"photo", "a.jpg", "x"}), uint16(10))
	f.Add(multipartOf([3]string{"f1", "", ""}, [3]string{"f2", "", ""}, [3]string{"f3", "", ""}, [3]string{"f4", "", ""},
		[3]string{"f5", "", ""}, [3]string{"f6", "", ""}, [3]string{"f7", "", ""}, [3]string{"f8", "", ""}, [3]string{"f9", "", ""}), uint16(10))
	f.Add([]byte("--"+fuzzBoundary+"\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a\"\r\n\r\nabc\r\n--"+fuzzBoundary+"--"), uint16(0))
	f.Add([]byte("--"+fuzzBoundary+"\r\nX: "+strings.Repeat("h", maxPartHead)+"\r\n\r\nabc"), uint16(5))
	f.Fuzz(func(t *testing.T, body []byte, limit uint16) {
		fileLimit := int(limit)
		up, err := readUpload(bytes.NewReader(body), fuzzBoundary, fileLimit)
		defer func() {
			up.close()
			for _, tmp := range up.temps {
				if _, err := os.Stat(tmp.Name()); !errors.Is(err, os.ErrNotExist) {
					t.Fatalf("temporary file %s left behind", tmp.Name())
				}
			}
		}()
		if len(up.files) > images.MaxPerUpload+1 {
			t.Fatalf("%d files", len(up.files))
		}
		for i, f := range up.files {
			if f.Size > int64(fileLimit)+1 {
				t.Fatalf("file %d of %d bytes, limit %d", i, f.Size, fileLimit)
			}
			if (f.Size > int64(fileLimit) || i == images.MaxPerUpload) && i != len(up.files)-1 {
				t.Fatalf("reading went on after file %d (%d bytes, limit %d)", i, f.Size, fileLimit)
			}
		}
		n := len(up.files)
		stopped := n > 0 && (up.files[n-1].Size > int64(fileLimit) || n == images.MaxPerUpload+1)
		want, fields, oerr := partsOf(body)
		switch {
		case err != nil:
			if err.Error() == "" {
				t.Fatalf("error without text")
			}
			return
		case stopped: // the rest was never read: only what was must match
		case fields > maxFields:
			t.Fatalf("%d fields accepted", fields)
		case oerr != nil:
			t.Fatalf("readUpload accepted what mime/multipart refuses: %v", oerr)
		case n != len(want):
			t.Fatalf("%d files read, the body holds %d", n, len(want))
		}
		for i, f := range up.files {
			if i == images.MaxPerUpload {
				break // the marker of a fifth file, never read
			}
			got := readAll(t, f)
			if i >= len(want) {
				if stopped && oerr != nil {
					continue // the part itself is cut off: mime/multipart reads none of it
				}
				t.Fatalf("file %d holds %q, and the body has %d files", i, got, len(want))
			}
			if !bytes.HasPrefix(want[i], got) || (f.Size <= int64(fileLimit) && len(got) != len(want[i])) {
				t.Fatalf("file %d holds %q, its part %q", i, got, want[i])
			}
			if again := readAll(t, f); !bytes.Equal(again, got) {
				t.Fatalf("file %d reads %q, then %q", i, got, again)
			}
		}
	})
}

func readAll(t *testing.T, f images.File) []byte {
	t.Helper()
	r, err := f.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil || int64(len(b)) != f.Size {
		t.Fatalf("read %d bytes of %d: %v", len(b), f.Size, err)
	}
	return b
}

// partsOf reads body with mime/multipart alone: the contents of the parts
// with a file name, and how many parts had none.
func partsOf(body []byte) (files [][]byte, fields int, err error) {
	mr := multipart.NewReader(bytes.NewReader(body), fuzzBoundary)
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return files, fields, nil
		}
		if err != nil {
			return files, fields, err
		}
		b, err := io.ReadAll(p)
		if err != nil {
			return files, fields, fmt.Errorf("part: %w", err)
		}
		if p.FileName() == "" {
			fields++
			continue
		}
		files = append(files, b)
	}
}

// TestUploadedFilesTellTheirSize: in memory or spooled, a file opens as a
// reader with its Size, which the image processor reads into one
// allocation of that size.
func TestUploadedFilesTellTheirSize(t *testing.T) {
	t.Parallel()
	for _, n := range []int{10, spoolMemory + 10} {
		up, err := readUpload(bytes.NewReader(multipartOf([3]string{filePart, "a.png", strings.Repeat("x", n)})), fuzzBoundary, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		defer up.close()
		rc, err := up.files[0].Open()
		if err != nil {
			t.Fatal(err)
		}
		s, ok := rc.(interface{ Size() int64 })
		if !ok || s.Size() != int64(n) || up.files[0].Size != int64(n) {
			t.Errorf("%d bytes: a %T telling its size: %v", n, rc, ok)
		}
		if b, err := io.ReadAll(rc); err != nil || len(b) != n {
			t.Errorf("%d bytes: read %d, %v", n, len(b), err)
		}
		rc.Close()
	}
}
