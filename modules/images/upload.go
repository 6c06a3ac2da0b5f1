package images

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"tandem/core"
)

// Upload stores 1 to MaxPerUpload images as one group, all or nothing. Every
// file is checked first (size: 413, format by its bytes: 415), and then the
// room the files take within the user's storage limit (403 limit_reached for
// the whole upload), so a refused upload writes nothing; when storing fails
// part way, or a concurrent upload took the room meanwhile (the repository
// checks again as it inserts), the files already written are deleted again.
func (s *Service) Upload(ctx context.Context, userID string, files []File) (Uploaded, error) {
	if len(files) == 0 {
		return Uploaded{}, errFileCount()
	}
	if len(files) > MaxPerUpload {
		return Uploaded{}, core.Invalid("invalid_request", "images.most4ImagesPerUpload", "at most 4 images per upload")
	}
	if !validOwner(userID) {
		return Uploaded{}, core.Invalid("invalid_request", "images.invalidUserId", "invalid user id")
	}
	kinds := make([]Format, len(files))
	for i, f := range files {
		if f.Size > s.settings.MaxFileBytes {
			return Uploaded{}, core.TooLarge("payload_too_large",
				"images.eachImageMostBytes", "each image must be at most {1|%[1]d byte|%[1]d bytes}", int(s.settings.MaxFileBytes))
		}
		format, err := sniff(f)
		if err != nil {
			return Uploaded{}, err
		}
		kinds[i] = format
	}
	processed, total, err := s.process(ctx, files, kinds)
	if err != nil {
		return Uploaded{}, err
	}
	limit, err := s.checkRoom(ctx, userID, total)
	if err != nil {
		return Uploaded{}, err
	}

	now, groupID := s.clock.Now(), s.ids.New()
	imgs := make([]Image, len(files))
	for i, p := range processed {
		key := NewKey(userID, p.Format)
		imgs[i] = Image{ID: s.ids.New(), UserID: userID, GroupID: groupID, Seq: i, Key: key, Size: int64(len(p.Data)), Width: p.Width, Height: p.Height, BlurHash: p.BlurHash,
			CreatedAt: now, UpdatedAt: now}
	}
	for i, p := range processed {
		if err := s.blobs.Put(ctx, imgs[i].Key, p.Format.ContentType, bytes.NewReader(p.Data), int64(len(p.Data))); err != nil {
			s.discard(ctx, imgs[:i+1]) // the failed Put may have left a file too
			return Uploaded{}, err
		}
	}
	if err := core.WriteWithChanges(ctx, s.bus, s.puts(userID, imgs...), func(ctx context.Context) error {
		return s.repo.Create(ctx, imgs, limit.Room(total))
	}); err != nil {
		s.discard(ctx, imgs)
		return Uploaded{}, err
	}
	return Uploaded{GroupID: groupID, Images: s.settings.addressed(imgs...)}, nil
}

// checkRoom refuses an upload of total bytes that would pass the user's
// storage limit before any file is written, and returns the limit for the
// insert to check again.
func (s *Service) checkRoom(ctx context.Context, userID string, total int64) (StorageLimit, error) {
	limit, err := s.limits.MaxStorage(ctx, userID)
	if err != nil || limit.Bytes == NoLimit {
		return limit, err
	}
	used, err := s.repo.StoredBytes(ctx, userID)
	if err != nil {
		return StorageLimit{}, err
	}
	if !limit.fits(used, total) {
		return StorageLimit{}, errLimit(limit)
	}
	return limit, nil
}

// sniff reads the first bytes of f and decides its format (415 otherwise).
func sniff(f File) (Format, error) {
	rc, err := f.Open()
	if err != nil {
		return Format{}, core.Internal(fmt.Errorf("images: open upload: %w", err))
	}
	defer rc.Close()
	head := make([]byte, SniffLen)
	n, err := io.ReadFull(rc, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return Format{}, core.Internal(fmt.Errorf("images: read upload: %w", err))
	}
	format, ok := Detect(head[:n])
	if !ok {
		return Format{}, errFormat()
	}
	return format, nil
}

// process turns each upload into the file to store (upright, without
// metadata) and sums their sizes: what is stored is what counts.
func (s *Service) process(ctx context.Context, files []File, kinds []Format) ([]Processed, int64, error) {
	out, total := make([]Processed, len(files)), int64(0)
	for i, f := range files {
		rc, err := f.Open()
		if err != nil {
			return nil, 0, core.Internal(fmt.Errorf("images: open upload: %w", err))
		}
		out[i], err = s.images.Original(ctx, rc, kinds[i])
		rc.Close()
		if err != nil {
			return nil, 0, err
		}
		total += int64(len(out[i].Data))
	}
	return out, total, nil
}

// discardTimeout bounds the clean-up of a failed upload: a store that does
// not answer must not hold the request for ever (what is left is logged
// and swept later).
const discardTimeout = 2 * time.Second

// discard deletes the files of images that will not be stored; it outlives
// a cancelled request, so a client hanging up leaves nothing behind, but
// not a store that does not answer.
func (s *Service) discard(ctx context.Context, imgs []Image) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), discardTimeout)
	defer cancel()
	for _, img := range imgs {
		s.deleteBlob(ctx, img.Key)
	}
}
