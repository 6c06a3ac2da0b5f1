package images

import (
	"context"

	"tandem/core"
)

// Service holds every image rule of the API (docs/api.md): reads and
// deletes here, the upload in upload.go, pointing images at other files in
// relink.go, and serving files and thumbnails in files.go.
type Service struct {
	repo     Repository
	blobs    Blobs
	images   Processor
	report   Reporter
	limits   Limits
	settings Settings
	clock    core.Clock
	ids      core.IDs
	bus      core.Publisher // the feed's changes (core.WriteWithChanges)
	thumbs   flights        // one rendering per missing thumbnail at a time
}

// NewService is a plain constructor, usable without fx.
func NewService(repo Repository, blobs Blobs, images Processor, report Reporter, limits Limits, settings Settings,
	clock core.Clock, ids core.IDs, bus core.Publisher) *Service {
	return &Service{repo: repo, blobs: blobs, images: images, report: report, limits: limits, settings: settings,
		clock: clock, ids: ids, bus: bus}
}

// Get returns the user's image (404 not_found for an unknown or another user's).
func (s *Service) Get(ctx context.Context, userID, imageID string) (Image, error) {
	img, err := s.repo.Get(ctx, userID, imageID)
	if core.IsKind(err, core.KindNotFound) {
		return Image{}, errNoImage()
	}
	if err != nil {
		return Image{}, err
	}
	return s.settings.addressed(img)[0], nil
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
	return s.settings.addressed(imgs...), next, nil
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
	return s.settings.addressed(imgs...), nil
}

// Delete removes the user's image and its file.
func (s *Service) Delete(ctx context.Context, userID, imageID string) (Image, error) {
	var img Image
	gone := []core.Change{core.Delete(userID, core.ChangeImage, imageID)}
	err := core.WriteWithChanges(ctx, s.bus, gone, func(ctx context.Context) (err error) {
		img, err = s.repo.Delete(ctx, userID, imageID)
		return err
	})
	if core.IsKind(err, core.KindNotFound) {
		return Image{}, errNoImage()
	}
	if err != nil {
		return Image{}, err
	}
	s.deleteBlob(ctx, img.Key)
	return s.settings.addressed(img)[0], nil
}

// DeleteGroup removes the user's images of the group and their files.
func (s *Service) DeleteGroup(ctx context.Context, userID, groupID string) ([]Image, error) {
	gone, err := s.groupDeletes(ctx, userID, groupID)
	if err != nil {
		return nil, err
	}
	var imgs []Image
	err = core.WriteWithChanges(ctx, s.bus, gone, func(ctx context.Context) (err error) {
		imgs, err = s.repo.DeleteGroup(ctx, userID, groupID)
		return err
	})
	if core.IsKind(err, core.KindNotFound) {
		return nil, errNoGroup()
	}
	if err != nil {
		return nil, err
	}
	for _, img := range imgs {
		s.deleteBlob(ctx, img.Key)
	}
	return s.settings.addressed(imgs...), nil
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

// Section, ExportUser and PurgeUser make the module a core.UserData owner.
func (s *Service) Section() string { return "images" }

// ExportUser returns the user's image records, newest first.
func (s *Service) ExportUser(ctx context.Context, userID string) (any, error) {
	imgs, err := s.repo.List(ctx, userID, nil, 0)
	if err != nil {
		return nil, err
	}
	return s.settings.addressed(imgs...), nil
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
