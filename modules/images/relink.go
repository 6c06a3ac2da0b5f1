package images

import (
	"context"
	"strings"

	"tandem/core"
)

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
		return nil, core.Invalid("invalid_request", "images.imagesListLeastOneId", "images must list at least one {_id, url, key}")
	}
	if len(us) > MaxGroupUpdate {
		return nil, core.Invalid("invalid_request", "images.most100ImagesPerUpdate", "at most 100 images per update")
	}
	ids := make(map[string]bool, len(us))
	for _, u := range us {
		if strings.TrimSpace(u.ID) == "" {
			return nil, core.Invalid("invalid_request", "images.everyImageNeedsId", "every image needs its _id")
		}
		if ids[u.ID] {
			return nil, core.Invalid("invalid_request", "images.imageListedTwice", "image %s is listed twice", u.ID)
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
			return nil, core.Invalid("invalid_request", "images.urlKeyRequired", "url and key are required")
		}
		if keys[u.Key] {
			return nil, core.Invalid("invalid_request", "images.keyGivenTwice", "key %s is given twice", u.Key)
		}
		keys[u.Key] = true
		if err := s.checkFile(ctx, userID, u); err != nil {
			return nil, err
		}
		changes[i] = Change{ID: u.ID, Key: u.Key}
	}
	at := s.clock.Now()
	feed, err := s.relinkChanges(ctx, userID, groupID, changes, at)
	if err != nil {
		return nil, err
	}
	var changed []Image
	var freed []string
	err = core.WriteWithChanges(ctx, s.bus, feed, func(ctx context.Context) (err error) {
		changed, freed, err = s.repo.Relink(ctx, userID, groupID, changes, at)
		return err
	})
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
	return s.settings.addressed(changed...), nil
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
	if u.URL != s.settings.URLOf(holder.Key) {
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
