package images

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"time"

	"tandem/core"
)

// File serves GET /files/{key}[?w=], which needs no token: the key is the
// secret. Only the file of a stored image is served (404 for anything
// else), or its thumbnail of width w (one of ThumbWidths; 0 for the file),
// made on the first request for it. A width not below the image's own, and
// any width of a WEBP stored before uploads were re-encoded, serve the file.
// A store that can presign (S3) is redirected to, others stream the bytes.
func (s *Service) File(ctx context.Context, key string, w int) (Download, error) {
	_, format, ok := ParseKey(key)
	if !ok {
		return Download{}, errNoFile()
	}
	if w != 0 && !slices.Contains(ThumbWidths, w) {
		return Download{}, errWidth()
	}
	img, err := s.repo.ByKey(ctx, key)
	if err != nil {
		if core.IsKind(err, core.KindNotFound) {
			return Download{}, errNoFile()
		}
		return Download{}, err
	}
	if w != 0 && format != WEBP && (img.Width == 0 || w < img.Width) {
		if key, err = s.thumbnail(ctx, key, format, w); err != nil {
			return Download{}, err
		}
	}
	return s.serve(ctx, key, format)
}

// thumbRenderTimeout bounds one rendering, which outlives the request that
// started it: others may be waiting for the same thumbnail.
const thumbRenderTimeout = 30 * time.Second

// thumbnail returns the key of the thumbnail, rendering and storing it when
// it is missing; concurrent first requests render it once.
func (s *Service) thumbnail(ctx context.Context, key string, format Format, w int) (string, error) {
	thumb := ThumbKey(key, w)
	if ok, err := s.exists(ctx, thumb); ok || err != nil {
		return thumb, err
	}
	err := s.thumbs.do(thumb, func() error {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), thumbRenderTimeout)
		defer cancel()
		if ok, err := s.exists(ctx, thumb); ok || err != nil {
			return err // another flight of this process finished it just before
		}
		return s.renderThumb(ctx, key, thumb, format, w)
	})
	return thumb, err
}

func (s *Service) exists(ctx context.Context, key string) (bool, error) {
	rc, _, err := s.blobs.Open(ctx, key)
	if core.IsKind(err, core.KindNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, rc.Close()
}

func (s *Service) renderThumb(ctx context.Context, key, thumb string, format Format, w int) error {
	rc, _, err := s.blobs.Open(ctx, key)
	if core.IsKind(err, core.KindNotFound) {
		return errNoFile()
	}
	if err != nil {
		return err
	}
	p, err := s.images.Thumbnail(ctx, rc, format, w)
	rc.Close()
	if err != nil {
		return err
	}
	return s.blobs.Put(ctx, thumb, p.Format.ContentType, bytes.NewReader(p.Data), int64(len(p.Data)))
}

// serve redirects to the file or streams it.
func (s *Service) serve(ctx context.Context, key string, format Format) (Download, error) {
	etag := `"` + key[strings.LastIndexByte(key, '/')+1:] + `"`
	if p, ok := s.blobs.(Presigner); ok {
		u, err := p.PresignGet(ctx, key, PresignTTL)
		if err != nil {
			return Download{}, err
		}
		return Download{RedirectURL: u, ETag: etag}, nil
	}
	body, info, err := s.blobs.Open(ctx, key)
	if core.IsKind(err, core.KindNotFound) {
		return Download{}, errNoFile()
	}
	if err != nil {
		return Download{}, err
	}
	return Download{Body: body, Size: info.Size, ContentType: format.ContentType, ETag: etag}, nil
}
