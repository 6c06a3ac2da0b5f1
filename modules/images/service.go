package images

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"tandem/core"
)

// Service holds every image rule of the spec and DESIGN.md.
type Service struct {
	repo     Repository
	blobs    Blobs
	images   Processor
	report   Reporter
	limits   Limits
	settings Settings
	clock    core.Clock
	ids      core.IDs
	thumbs   flights // one rendering per missing thumbnail at a time
}

// NewService is a plain constructor, usable without fx.
func NewService(repo Repository, blobs Blobs, images Processor, report Reporter, limits Limits, settings Settings,
	clock core.Clock, ids core.IDs) *Service {
	return &Service{repo: repo, blobs: blobs, images: images, report: report, limits: limits, settings: settings,
		clock: clock, ids: ids}
}

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
		return Uploaded{}, core.Invalid("invalid_request", "at most 4 images per upload")
	}
	if !validOwner(userID) {
		return Uploaded{}, core.Invalid("invalid_request", "invalid user id")
	}
	kinds := make([]Format, len(files))
	for i, f := range files {
		if f.Size > s.settings.MaxFileBytes {
			return Uploaded{}, core.TooLarge("payload_too_large",
				"each image must be at most "+strconv.FormatInt(s.settings.MaxFileBytes, 10)+" bytes")
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
		imgs[i] = Image{ID: s.ids.New(), UserID: userID, GroupID: groupID, Seq: i, Key: key,
			URL: s.settings.URLOf(key), Size: int64(len(p.Data)), Width: p.Width, Height: p.Height, BlurHash: p.BlurHash,
			CreatedAt: now, UpdatedAt: now}
	}
	for i, p := range processed {
		if err := s.blobs.Put(ctx, imgs[i].Key, p.Format.ContentType, bytes.NewReader(p.Data), int64(len(p.Data))); err != nil {
			s.discard(ctx, imgs[:i+1]) // the failed Put may have left a file too
			return Uploaded{}, err
		}
	}
	if err := s.repo.Create(ctx, imgs, limit.Bytes); err != nil {
		s.discard(ctx, imgs)
		if isLimit(err) {
			return Uploaded{}, errLimit(limit)
		}
		return Uploaded{}, err
	}
	return Uploaded{GroupID: groupID, Images: imgs}, nil
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

// deleteBlob deletes a file no image holds any more, and its thumbnails; a
// failure is reported, not returned: the records already changed and the
// caller's request succeeded (the sweep removes what is left).
func (s *Service) deleteBlob(ctx context.Context, key string) {
	for _, k := range append([]string{key}, thumbKeys(key)...) {
		if err := s.blobs.Delete(ctx, k); err != nil {
			s.report.OrphanedBlob(ctx, k, err)
		}
	}
}

func thumbKeys(key string) []string {
	keys := make([]string, len(ThumbWidths))
	for i, w := range ThumbWidths {
		keys[i] = ThumbKey(key, w)
	}
	return keys
}

// Get returns the user's image (404 not_found for an unknown or another user's).
func (s *Service) Get(ctx context.Context, userID, imageID string) (Image, error) {
	img, err := s.repo.Get(ctx, userID, imageID)
	if core.IsKind(err, core.KindNotFound) {
		return Image{}, errNoImage()
	}
	return img, err
}

// List returns one page of the user's images, newest first, and the cursor
// of the next page ("" on the last page, and always without a limit).
func (s *Service) List(ctx context.Context, userID string, page core.Page) ([]Image, string, error) {
	var after *Position
	if page.Cursor != "" {
		p, err := ParsePosition(page.Cursor)
		if err != nil {
			return nil, "", err
		}
		after = &p
	}
	n := page.Size()
	fetch := n
	if page.Paged() {
		fetch = n + 1 // one more tells whether a next page exists
	}
	imgs, err := s.repo.List(ctx, userID, after, fetch)
	if err != nil {
		return nil, "", err
	}
	next := ""
	if page.Paged() && len(imgs) > n {
		imgs = imgs[:n]
		last := imgs[n-1]
		next = Position{CreatedAt: last.CreatedAt, ID: last.ID}.String()
	}
	return imgs, next, nil
}

// Group returns the user's images of the group, in upload order.
func (s *Service) Group(ctx context.Context, userID, groupID string) ([]Image, error) {
	imgs, err := s.repo.Group(ctx, userID, groupID)
	if err != nil {
		return nil, err
	}
	if len(imgs) == 0 {
		return nil, errNoGroup()
	}
	return imgs, nil
}

// Update points the image at another uploaded file of the user (the spec's
// flow: upload the new file, then PUT its url and key). The image that the
// upload created for that file is merged into this one, and this image's
// previous file is deleted.
func (s *Service) Update(ctx context.Context, userID, imageID string, u Update) (Image, error) {
	u.ID = imageID
	changed, err := s.relink(ctx, userID, "", []Update{u})
	if err != nil {
		return Image{}, err
	}
	return changed[0], nil
}

// UpdateGroup applies several such updates to images of one group, all or
// nothing, and returns the whole group as it then stands.
func (s *Service) UpdateGroup(ctx context.Context, userID, groupID string, us []Update) ([]Image, error) {
	if len(us) == 0 {
		return nil, core.Invalid("invalid_request", "images must list at least one {_id, url, key}")
	}
	if len(us) > MaxGroupUpdate {
		return nil, core.Invalid("invalid_request", "at most 100 images per update")
	}
	ids := make(map[string]bool, len(us))
	for _, u := range us {
		if strings.TrimSpace(u.ID) == "" {
			return nil, core.Invalid("invalid_request", "every image needs its _id")
		}
		if ids[u.ID] {
			return nil, core.Invalid("invalid_request", "image "+u.ID+" is listed twice")
		}
		ids[u.ID] = true
	}
	if _, err := s.Group(ctx, userID, groupID); err != nil {
		return nil, err
	}
	if _, err := s.relink(ctx, userID, groupID, us); err != nil {
		return nil, err
	}
	return s.Group(ctx, userID, groupID)
}

// relink checks each update's url and key (the key must be one of the
// caller's files and the url its address), then lets the repository apply
// them in one transaction and deletes the files no image holds any more.
func (s *Service) relink(ctx context.Context, userID, groupID string, us []Update) ([]Image, error) {
	changes := make([]Change, len(us))
	keys := make(map[string]bool, len(us))
	for i, u := range us {
		if u.Key == "" || u.URL == "" {
			return nil, core.Invalid("invalid_request", "url and key are required")
		}
		if keys[u.Key] {
			return nil, core.Invalid("invalid_request", "key "+u.Key+" is given twice")
		}
		keys[u.Key] = true
		if err := s.checkFile(ctx, userID, u); err != nil {
			return nil, err
		}
		changes[i] = Change{ID: u.ID, Key: u.Key}
	}
	changed, freed, err := s.repo.Relink(ctx, userID, groupID, changes, s.clock.Now())
	switch {
	case core.IsKind(err, core.KindNotFound) && groupID != "":
		return nil, errNotInGroup(notFoundID(ctx, s.repo, userID, groupID, changes))
	case core.IsKind(err, core.KindNotFound):
		return nil, errNoImage()
	case core.IsKind(err, core.KindInvalid):
		return nil, errKeyUnknown() // the file's image was deleted meanwhile
	case err != nil:
		return nil, err
	}
	for _, key := range freed {
		s.deleteBlob(ctx, key)
	}
	return changed, nil
}

// checkFile answers 403 for a key of another user and 400 for one that is no
// uploaded file or whose url is not its address.
func (s *Service) checkFile(ctx context.Context, userID string, u Update) error {
	owner, _, ok := ParseKey(u.Key)
	if !ok {
		return errKeyUnknown()
	}
	if owner != userID {
		return errKeyNotYours()
	}
	holder, err := s.repo.ByKey(ctx, u.Key)
	if core.IsKind(err, core.KindNotFound) {
		return errKeyUnknown()
	}
	if err != nil {
		return err
	}
	if holder.UserID != userID {
		return errKeyNotYours()
	}
	if u.URL != holder.URL {
		return errURLMismatch()
	}
	return nil
}

// notFoundID names the first changed image that is not in the group.
func notFoundID(ctx context.Context, repo Repository, userID, groupID string, changes []Change) string {
	imgs, err := repo.Group(ctx, userID, groupID)
	if err != nil {
		return changes[0].ID
	}
	in := make(map[string]bool, len(imgs))
	for _, img := range imgs {
		in[img.ID] = true
	}
	for _, c := range changes {
		if !in[c.ID] {
			return c.ID
		}
	}
	return changes[0].ID
}

// Delete removes the user's image and its file.
func (s *Service) Delete(ctx context.Context, userID, imageID string) (Image, error) {
	img, err := s.repo.Delete(ctx, userID, imageID)
	if core.IsKind(err, core.KindNotFound) {
		return Image{}, errNoImage()
	}
	if err != nil {
		return Image{}, err
	}
	s.deleteBlob(ctx, img.Key)
	return img, nil
}

// DeleteGroup removes the user's images of the group and their files.
func (s *Service) DeleteGroup(ctx context.Context, userID, groupID string) ([]Image, error) {
	imgs, err := s.repo.DeleteGroup(ctx, userID, groupID)
	if core.IsKind(err, core.KindNotFound) {
		return nil, errNoGroup()
	}
	if err != nil {
		return nil, err
	}
	for _, img := range imgs {
		s.deleteBlob(ctx, img.Key)
	}
	return imgs, nil
}

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

// Section, ExportUser and PurgeUser make the module a core.UserData owner.
func (s *Service) Section() string { return "images" }

// ExportUser returns the user's image records, newest first.
func (s *Service) ExportUser(ctx context.Context, userID string) (any, error) {
	return s.repo.List(ctx, userID, nil, 0)
}

// PurgeUser deletes the user's records, then every file under the user's
// prefix (left-behind files included); running it again finishes the job.
func (s *Service) PurgeUser(ctx context.Context, userID string) error {
	if err := s.repo.DeleteByUser(ctx, userID); err != nil {
		return err
	}
	if !validOwner(userID) {
		return nil // no key can carry this id: there are no files
	}
	return s.blobs.DeletePrefix(ctx, OwnerPrefix(userID))
}
