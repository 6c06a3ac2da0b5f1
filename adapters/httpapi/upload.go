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

// What an upload may carry besides its files. mime/multipart alone would
// parse up to 10 MiB of headers per part, and any number of parts, each
// costing many times its bytes: a body of small fields or of one huge header
// took over a gigabyte of allocations and seconds of CPU.
const (
	maxPartHead = 16 << 10 // bytes read to reach one part's content: its boundary line and headers
	maxFields   = 8        // parts without a file name
)

var errPartHead = core.Invalid("invalid_request",
	"httpapi.eachMultipartPartHeadersMost", "each multipart part's headers must be at most {1|%[1]d byte|%[1]d bytes}", maxPartHead)

// headMeter bounds what the multipart reader reads while it looks for the
// next part (budget >= 0); the part's content is bounded elsewhere (-1).
type headMeter struct {
	r      io.Reader
	budget int64
}

func (m *headMeter) Read(p []byte) (int, error) {
	if m.budget < 0 {
		return m.r.Read(p)
	}
	if m.budget == 0 {
		return 0, errPartHead
	}
	n, err := m.r.Read(p[:min(int64(len(p)), m.budget)])
	m.budget -= int64(n)
	return n, err
}

// nextPart reads the next part's headers within maxPartHead. Every part
// before it has been read to its end (or the upload stopped), so what is read
// here is the boundary, the headers and the multipart reader's read-ahead.
func nextPart(mr *multipart.Reader, m *headMeter) (*multipart.Part, error) {
	m.budget = maxPartHead
	p, err := mr.NextPart()
	m.budget = -1
	if errors.Is(err, errPartHead) {
		return nil, errPartHead
	}
	return p, err
}

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
// Parts without a file name are skipped, at most maxFields of them.
func readUpload(body io.Reader, boundary string, fileLimit int) (*upload, error) {
	up := &upload{}
	meter := &headMeter{r: body, budget: -1}
	mr := multipart.NewReader(meter, boundary)
	for fields := 0; ; {
		p, err := nextPart(mr, meter)
		if errors.Is(err, io.EOF) {
			return up, nil
		}
		if err != nil {
			return up, err
		}
		if p.FileName() == "" {
			if fields++; fields > maxFields {
				return up, core.Invalid("invalid_request",
					"httpapi.sendMostFormFieldsBesides", "send at most {1|%[1]d form field|%[1]d form fields} besides the files", maxFields)
			}
			if _, err := io.Copy(io.Discard, p); err != nil {
				return up, err
			}
			continue
		}
		if p.FormName() != filePart {
			return up, core.Invalid("invalid_request", "httpapi.sendEachImagePartNamed", "send each image in a part named file, not %s", p.FormName())
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
	n, err := fill(r, head)
	if errors.Is(err, io.EOF) {
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
		return sectionFile{io.NewSectionReader(tmp, 0, size)}, nil
	}}, nil
}

// fill reads into b until it is full (nil) or the part ends (io.EOF).
// Unlike io.ReadFull it passes the part's own errors on as they are: a
// part cut off before its closing boundary reads io.ErrUnexpectedEOF, which
// io.ReadFull would make the ordinary end of a short file, so an upload
// whose body stops mid-file would store the file cut short.
func fill(r io.Reader, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := r.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// close removes the temporary files.
func (up *upload) close() {
	for _, f := range up.temps {
		_ = f.Close()
		_ = os.Remove(f.Name())
	}
}

func openBytes(b []byte) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) { return bytesFile{bytes.NewReader(b)}, nil }
}

// sectionFile and bytesFile are a spooled file as the image processor reads
// it. Unlike io.NopCloser they keep Size, so it reads the whole file into one
// allocation of its size: growing a buffer by doubling left about twice the
// file in garbage per upload.
type sectionFile struct{ *io.SectionReader }

func (sectionFile) Close() error { return nil }

type bytesFile struct{ *bytes.Reader }

func (bytesFile) Close() error { return nil }
