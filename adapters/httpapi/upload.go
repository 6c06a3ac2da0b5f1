package httpapi

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"mime/multipart"
	"os"

	"tandem/core"
	"tandem/modules/images"
)

// spoolMemory is how much of one uploaded file stays in memory; the rest
// waits in a temporary file, so uploads in flight never hold their images.
const spoolMemory = 256 << 10

// upload is the files of one multipart body, read as they arrived.
type upload struct {
	files []images.File
	temps []*os.File
}

// readUpload reads the multipart body part by part: each file through the
// per-file limit, the whole through the body limit (the capped stream of
// settleBody). It stops reading at the first file over the limit or the
// first one past the most an upload may carry; the service refuses those
// with its own answer (it checks count and size before reading any file).
// Parts without a file name are skipped.
func readUpload(body io.Reader, boundary string, fileLimit int) (*upload, error) {
	up := &upload{}
	mr := multipart.NewReader(body, boundary)
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return up, nil
		}
		if err != nil {
			return up, err
		}
		if p.FileName() == "" {
			if _, err := io.Copy(io.Discard, p); err != nil {
				return up, err
			}
			continue
		}
		if p.FormName() != filePart {
			return up, core.Invalid("invalid_request", "send each image in a part named file, not "+p.FormName())
		}
		if len(up.files) == images.MaxPerUpload {
			up.files = append(up.files, images.File{Open: openBytes(nil)}) // one too many: never read
			return up, nil
		}
		f, err := up.spool(p, fileLimit)
		if err != nil {
			return up, err
		}
		up.files = append(up.files, f)
		if f.Size > int64(fileLimit) {
			return up, nil
		}
	}
}

// spool keeps one file, at most limit+1 bytes of it: one byte more than
// the limit is enough for the service to refuse it.
func (up *upload) spool(p io.Reader, limit int) (images.File, error) {
	r := io.LimitReader(p, int64(limit)+1)
	head := make([]byte, min(spoolMemory, limit+1))
	n, err := io.ReadFull(r, head)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return images.File{Size: int64(n), Open: openBytes(head[:n])}, nil
	}
	if err != nil {
		return images.File{}, err
	}
	tmp, err := os.CreateTemp("", "tandem-upload-*")
	if err != nil {
		return images.File{}, core.Internal(err)
	}
	up.temps = append(up.temps, tmp)
	if _, err := tmp.Write(head); err != nil {
		return images.File{}, core.Internal(err)
	}
	rest, err := io.Copy(tmp, r)
	if err != nil {
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) { // the disk, not the client
			return images.File{}, core.Internal(err)
		}
		return images.File{}, err
	}
	size := int64(n) + rest
	return images.File{Size: size, Open: func() (io.ReadCloser, error) {
		return io.NopCloser(io.NewSectionReader(tmp, 0, size)), nil
	}}, nil
}

// close removes the temporary files.
func (up *upload) close() {
	for _, f := range up.temps {
		_ = f.Close()
		_ = os.Remove(f.Name())
	}
}

func openBytes(b []byte) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
}
