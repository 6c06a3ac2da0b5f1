package memory

import (
	"cmp"
	"context"
	"sync"
	"time"

	"tandem/core"
	"tandem/modules/images"
)

var _ images.Repository = (*ImageRepo)(nil)

// ImageRepo keeps images by id with a unique key index; the mutex makes
// every method as atomic as the SQL transaction, and "one image per key" as
// strict as the unique index.
type ImageRepo struct {
	mu     sync.RWMutex
	images table[string, images.Image] // unique: Key
}

func NewImageRepo() *ImageRepo {
	return &ImageRepo{images: newTable[string, images.Image](conflict("memory.imageIdKeyAlreadyStored", "image id or key already stored"),
		notFound("memory.noSuchImage", "no such image")).
		indexed(func(img images.Image) string { return img.Key })}
}

func imageOf(userID string) func(images.Image) bool {
	return func(img images.Image) bool { return img.UserID == userID }
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
		_, keyTaken := r.images.lookup(img.Key)
		if r.images.has(img.ID) || keyTaken || ids[img.ID] || keys[img.Key] {
			return r.images.conflict()
		}
		ids[img.ID], keys[img.Key] = true, true
	}
	if err := room.Allows(r.storedBytes(imgs[0].UserID)); err != nil {
		return err
	}
	for _, img := range imgs {
		img.URL = "" // not stored, as in SQL: the service renders it from the key
		r.images.put(img.ID, img)
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
	for _, img := range r.images.rows {
		if img.UserID == userID {
			n += img.Size
		}
	}
	return n
}

func (r *ImageRepo) Get(_ context.Context, userID, id string) (images.Image, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.images.findIf(id, imageOf(userID))
}

func (r *ImageRepo) ByKey(_ context.Context, key string) (images.Image, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	img, ok := r.images.lookup(key)
	if !ok {
		return images.Image{}, r.images.notFound()
	}
	return img, nil
}

func (r *ImageRepo) Held(_ context.Context, keys []string) (map[string]bool, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	held := map[string]bool{}
	for _, k := range keys {
		if _, ok := r.images.lookup(k); ok {
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
	out := r.images.scan(func(img images.Image) bool {
		// after the position in newest-first order
		return img.UserID == userID && (after == nil || newerImage(img, images.Image{CreatedAt: after.CreatedAt, ID: after.ID}) > 0)
	}, newerImage)
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return out, nil
}

func (r *ImageRepo) group(userID, groupID string) []images.Image {
	return r.images.scan(func(img images.Image) bool { return img.UserID == userID && img.GroupID == groupID },
		func(a, b images.Image) int { return cmp.Or(cmp.Compare(a.Seq, b.Seq), cmp.Compare(a.ID, b.ID)) })
}

func (r *ImageRepo) Group(_ context.Context, userID, groupID string) ([]images.Image, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.group(userID, groupID), nil
}

func (r *ImageRepo) Relink(_ context.Context, userID, groupID string, changes []images.Change, at time.Time) ([]images.Image, []string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	plan, err := images.PlanRelink(userID, groupID, changes, at, r.images.get, r.images.lookup)
	if err != nil {
		return nil, nil, err
	}
	for _, img := range plan.Removed {
		r.images.delete(img.ID)
	}
	for _, img := range plan.Changed {
		r.images.put(img.ID, img)
	}
	return plan.Changed, plan.Freed, nil
}

func (r *ImageRepo) Delete(_ context.Context, userID, id string) (images.Image, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	img, err := r.images.findIf(id, imageOf(userID))
	if err != nil {
		return images.Image{}, err
	}
	r.images.delete(id)
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
		r.images.delete(img.ID)
	}
	return imgs, nil
}

func (r *ImageRepo) DeleteByUser(_ context.Context, userID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.images.deleteWhere(func(_ string, img images.Image) bool { return img.UserID == userID })
	return nil
}
