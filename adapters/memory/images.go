package memory

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	"tandem/core"
	"tandem/modules/images"
)

var _ images.Repository = (*ImageRepo)(nil)

// ImageRepo keeps images by id with a key index; the mutex makes every
// method as atomic as the SQL transaction, and "one image per key" as strict
// as the unique index.
type ImageRepo struct {
	mu    sync.RWMutex
	byID  map[string]images.Image
	byKey map[string]string // blob key -> image id
}

func NewImageRepo() *ImageRepo {
	return &ImageRepo{byID: map[string]images.Image{}, byKey: map[string]string{}}
}

func errImageConflict() error {
	return core.Conflict("conflict", "memory.imageIdKeyAlreadyStored", "image id or key already stored")
}

// Create sums and inserts under the write lock, so concurrent uploads never
// pass max.
func (r *ImageRepo) Create(_ context.Context, imgs []images.Image, room core.Room) error {
	if len(imgs) == 0 {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	ids, keys := map[string]bool{}, map[string]bool{}
	for _, img := range imgs {
		_, idTaken := r.byID[img.ID]
		_, keyTaken := r.byKey[img.Key]
		if idTaken || keyTaken || ids[img.ID] || keys[img.Key] {
			return errImageConflict()
		}
		ids[img.ID], keys[img.Key] = true, true
	}
	if err := room.Allows(r.storedBytes(imgs[0].UserID)); err != nil {
		return err
	}
	for _, img := range imgs {
		img.URL = "" // not stored, as in SQL: the service renders it from the key
		r.byID[img.ID] = img
		r.byKey[img.Key] = img.ID
	}
	return nil
}

func (r *ImageRepo) StoredBytes(_ context.Context, userID string) (int64, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.storedBytes(userID), nil
}

// storedBytes sums the sizes of the user's images; the caller holds the lock.
func (r *ImageRepo) storedBytes(userID string) int64 {
	var n int64
	for _, img := range r.byID {
		if img.UserID == userID {
			n += img.Size
		}
	}
	return n
}

func (r *ImageRepo) Get(_ context.Context, userID, id string) (images.Image, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	img, ok := r.byID[id]
	if !ok || img.UserID != userID {
		return images.Image{}, core.NotFound("not_found", "memory.noSuchImage", "no such image")
	}
	return img, nil
}

func (r *ImageRepo) ByKey(_ context.Context, key string) (images.Image, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	id, ok := r.byKey[key]
	if !ok {
		return images.Image{}, core.NotFound("not_found", "memory.noSuchImage", "no such image")
	}
	return r.byID[id], nil
}

func (r *ImageRepo) Held(_ context.Context, keys []string) (map[string]bool, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	held := map[string]bool{}
	for _, k := range keys {
		if _, ok := r.byKey[k]; ok {
			held[k] = true
		}
	}
	return held, nil
}

// newerImage orders like the SQL query: created_at, then id, descending.
func newerImage(a, b images.Image) int {
	if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
		return c
	}
	return cmp.Compare(b.ID, a.ID)
}

func (r *ImageRepo) List(_ context.Context, userID string, after *images.Position, n int) ([]images.Image, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := []images.Image{}
	for _, img := range r.byID {
		if img.UserID != userID {
			continue
		}
		if after != nil && newerImage(img, images.Image{CreatedAt: after.CreatedAt, ID: after.ID}) <= 0 {
			continue // at or before the position in newest-first order
		}
		out = append(out, img)
	}
	slices.SortFunc(out, newerImage)
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return out, nil
}

func (r *ImageRepo) group(userID, groupID string) []images.Image {
	out := []images.Image{}
	for _, img := range r.byID {
		if img.UserID == userID && img.GroupID == groupID {
			out = append(out, img)
		}
	}
	slices.SortFunc(out, func(a, b images.Image) int {
		if c := cmp.Compare(a.Seq, b.Seq); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return out
}

func (r *ImageRepo) Group(_ context.Context, userID, groupID string) ([]images.Image, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.group(userID, groupID), nil
}

func (r *ImageRepo) Relink(_ context.Context, userID, groupID string, changes []images.Change, at time.Time) ([]images.Image, []string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	plan, err := images.PlanRelink(userID, groupID, changes, at,
		func(id string) (images.Image, bool) { img, ok := r.byID[id]; return img, ok },
		func(key string) (images.Image, bool) {
			id, ok := r.byKey[key]
			return r.byID[id], ok
		})
	if err != nil {
		return nil, nil, err
	}
	for _, img := range plan.Removed {
		delete(r.byID, img.ID)
		delete(r.byKey, img.Key)
	}
	for _, img := range plan.Before {
		delete(r.byKey, img.Key)
	}
	for _, img := range plan.Changed {
		r.byID[img.ID] = img
		r.byKey[img.Key] = img.ID
	}
	return plan.Changed, plan.Freed, nil
}

func (r *ImageRepo) Delete(_ context.Context, userID, id string) (images.Image, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	img, ok := r.byID[id]
	if !ok || img.UserID != userID {
		return images.Image{}, core.NotFound("not_found", "memory.noSuchImage", "no such image")
	}
	delete(r.byID, id)
	delete(r.byKey, img.Key)
	return img, nil
}

func (r *ImageRepo) DeleteGroup(_ context.Context, userID, groupID string) ([]images.Image, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	imgs := r.group(userID, groupID)
	if len(imgs) == 0 {
		return nil, core.NotFound("not_found", "memory.noSuchGroup", "no such group")
	}
	for _, img := range imgs {
		delete(r.byID, img.ID)
		delete(r.byKey, img.Key)
	}
	return imgs, nil
}

func (r *ImageRepo) DeleteByUser(_ context.Context, userID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, img := range r.byID {
		if img.UserID == userID {
			delete(r.byID, id)
			delete(r.byKey, img.Key)
		}
	}
	return nil
}
