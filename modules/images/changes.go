package images

import (
	"context"
	"time"

	"tandem/core"
)

// The feed's images (issue 47): each write of an image puts it, or deletes
// it, to its owner only (every image route is the caller's own), as GET
// .../images/{imageId} returns it: an upload puts each image, an update
// (one, or a group's) puts each changed image and deletes the image whose
// file it took over, a delete deletes.

// puts are the feed's puts of imgs for their owner, as the reads address them.
func (s *Service) puts(userID string, imgs ...Image) []core.Change {
	out := make([]core.Change, 0, len(imgs))
	for _, img := range s.settings.addressed(imgs...) {
		out = append(out, core.Put(userID, core.ChangeImage, img.ID, img))
	}
	return out
}

// groupDeletes are the deletes of the user's images of the group, read
// before the write (none for a group that is not the user's: the write
// refuses it).
func (s *Service) groupDeletes(ctx context.Context, userID, groupID string) ([]core.Change, error) {
	imgs, err := s.repo.Group(ctx, userID, groupID)
	if err != nil {
		return nil, err
	}
	out := make([]core.Change, len(imgs))
	for i, img := range imgs {
		out[i] = core.Delete(userID, core.ChangeImage, img.ID)
	}
	return out, nil
}

// relinkChanges are the feed's changes of a relink: the plan the store
// applies (PlanRelink), made before the write from the same rows (the
// changed images and the holders of their new keys): a put of each changed
// image, a delete of each image removed. A plan that fails is the write's
// error to give: no changes then.
func (s *Service) relinkChanges(ctx context.Context, userID, groupID string, changes []Change, at time.Time) ([]core.Change, error) {
	byID, byKey := map[string]Image{}, map[string]Image{}
	for _, c := range changes {
		img, err := s.repo.Get(ctx, userID, c.ID)
		switch {
		case err == nil:
			byID[img.ID] = img
		case !core.IsKind(err, core.KindNotFound):
			return nil, err
		}
		holder, err := s.repo.ByKey(ctx, c.Key)
		switch {
		case err == nil:
			byKey[holder.Key] = holder
		case !core.IsKind(err, core.KindNotFound):
			return nil, err
		}
	}
	plan, err := PlanRelink(userID, groupID, changes, at,
		func(id string) (Image, bool) { img, ok := byID[id]; return img, ok },
		func(key string) (Image, bool) { img, ok := byKey[key]; return img, ok })
	if err != nil {
		return nil, nil
	}
	out := s.puts(userID, plan.Changed...)
	for _, img := range plan.Removed {
		out = append(out, core.Delete(userID, core.ChangeImage, img.ID))
	}
	return out, nil
}
