package tests

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"math/rand/v2"
	"sync"
	"testing"

	"tandem/adapters/blob/memblob"
	"tandem/adapters/imaging"
	"tandem/modules/images"
)

// Issue 9, "the advertised limits are not enforced": a free user stored 105
// memories against memories: 100 and uploaded past storage: "1GB". The
// limits of the caller's premium state are now a wall: 403 limit_reached,
// nothing written, room given back by deletes, and a burst at the wall ends
// at the limit exactly.

const (
	// smallFree allows 3 memories and 1 KiB of files: four 256-byte uploads.
	smallFree    = `{"projects":3,"storage":"1KB","imagesPerUpload":4,"memories":3}`
	smallPremium = `{"projects":100,"storage":"2KB","imagesPerUpload":4,"memories":5}`
	limitFile    = 256
)

func limitError(msg string) string {
	return `{"success":false,"error":"` + msg + `","code":"limit_reached","message":"` + msg + `"}`
}

// limitPNG is a PNG that the server stores in exactly limitFile bytes (it
// stores uploads re-encoded, and the stored size is what counts): a noise
// picture, which no encoder shrinks, of a size found by asking the same
// processor.
func limitPNG(t testing.TB) part {
	limitOnce.Do(func() { limitBytes = findLimitPNG() })
	if limitBytes == nil {
		t.Fatalf("no noise PNG is stored in %d bytes", limitFile)
	}
	return filePart("p.png", "image/png", limitBytes)
}

var (
	limitOnce  sync.Once
	limitBytes []byte
)

func findLimitPNG() []byte {
	p := imaging.New(imaging.Config{})
	rng := rand.New(rand.NewPCG(7, 7))
	for h := 1; h <= 8; h++ {
		for w := 1; w <= 64; w++ {
			img := image.NewRGBA(image.Rect(0, 0, w, h))
			for i := range img.Pix {
				img.Pix[i] = uint8(rng.UintN(256))
				if i%4 == 3 {
					img.Pix[i] = 255
				}
			}
			var b bytes.Buffer
			_ = png.Encode(&b, img)
			out, err := p.Original(context.Background(), bytes.NewReader(b.Bytes()), images.PNG)
			if err == nil && len(out.Data) == limitFile {
				return b.Bytes()
			}
		}
	}
	return nil
}

func newMemory(u user) req {
	return req{Method: "POST", Path: memoriesPath(u), Token: u.Token,
		Body: map[string]any{"action": "create", "title": "Beach", "date": "2025-06-01"}}
}

func memoryCount(t *testing.T, h *harness, u user) int {
	t.Helper()
	ms, _ := listMemories(t, h, u, memoriesPath(u))
	return len(ms)
}

func TestSecurityMemoryLimitIsAWall(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		u, other := h.newUser("a@x.io"), h.newUser("b@x.io")
		var ids []string
		for range 3 {
			ids = append(ids, h.createMemory(u, map[string]any{"title": "Beach", "date": "2025-06-01"}))
		}
		wall := limitError("memory limit reached: 3 memories")
		expect(t, h.do(newMemory(u)), 403, wall)
		expect(t, h.do(newMemory(u)), 403, wall)
		if n := memoryCount(t, h, u); n != 3 {
			t.Fatalf("%d memories after refusals", n)
		}
		// another user's count is their own
		expect(t, h.do(newMemory(other)), 200, "")

		// a deleted memory frees its place, once
		expect(t, h.do(req{Method: "DELETE", Path: memoryPath(u, ids[0]), Token: u.Token}), 200, "")
		expect(t, h.do(newMemory(u)), 200, "")
		expect(t, h.do(newMemory(u)), 403, wall)
		if n := memoryCount(t, h, u); n != 3 {
			t.Fatalf("%d memories", n)
		}
	}, withEnv("TANDEM_LIMITS_FREE", smallFree))
}

func TestSecurityMemoryBurstAtTheWallEndsAtTheLimit(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		u := h.newUser("a@x.io")
		h.createMemory(u, map[string]any{"title": "Beach", "date": "2025-06-01"})
		h.createMemory(u, map[string]any{"title": "Beach", "date": "2025-06-01"})
		burst := make([]req, 12)
		for i := range burst {
			burst[i] = newMemory(u)
		}
		created := 0
		for _, r := range h.atOnce(burst...) {
			switch r.Status {
			case 200:
				created++
			case 403:
				expect(t, r, 403, limitError("memory limit reached: 3 memories"))
			default:
				t.Fatalf("status %d: %s", r.Status, r.Body)
			}
		}
		if n := memoryCount(t, h, u); created != 1 || n != 3 {
			t.Fatalf("%d created, %d stored; want 1 and 3", created, n)
		}
	}, withEnv("TANDEM_LIMITS_FREE", smallFree))
}

func TestSecurityStorageLimitIsAWall(t *testing.T) {
	parallel(t)
	eachImageProfile(t, func(t *testing.T, h *harness, blobs *memblob.Store) {
		u, other := h.newUser("a@x.io"), h.newUser("b@x.io")
		f := limitPNG(t)
		wall := limitError("storage limit reached: 1KB")
		stored := func(images, files int) {
			t.Helper()
			recs, _ := h.listed(u, "")
			if len(recs) != images || len(blobs.Keys()) != files {
				t.Fatalf("%d images and %d files, want %d and %d", len(recs), len(blobs.Keys()), images, files)
			}
		}

		two := h.mustUpload(u, f, f) // 512 of 1024 bytes
		// three more files would pass the limit: the whole upload is refused
		expect(t, h.upload(u, f, f, f), 403, wall)
		stored(2, 2)
		h.mustUpload(u, f, f) // exactly at the limit
		expect(t, h.upload(u, f), 403, wall)
		stored(4, 4)
		// another user's room is their own
		h.mustUpload(other, f, f, f, f)
		expect(t, h.upload(other, f), 403, wall)

		// deleting an image gives its bytes back, deleting a group all of them
		recs, _ := h.listed(u, "")
		for _, rec := range recs {
			if rec["groupId"] != two.GroupID {
				expect(t, h.do(req{Method: "DELETE", Path: imagesPath(u) + "/" + rec["_id"].(string), Token: u.Token}), 200, "")
				break
			}
		}
		h.mustUpload(u, f)
		expect(t, h.upload(u, f), 403, wall)
		expect(t, h.do(req{Method: "DELETE", Path: imagesPath(u) + "/group/" + two.GroupID, Token: u.Token}), 200, "")
		expect(t, h.upload(u, f, f, f), 403, wall)
		h.mustUpload(u, f, f)
		expect(t, h.upload(u, f), 403, wall)
		recs, _ = h.listed(u, "")
		if len(recs) != 4 || len(blobs.Keys()) != 8 {
			t.Fatalf("%d images, %d files of both users", len(recs), len(blobs.Keys()))
		}
	}, withEnv("TANDEM_LIMITS_FREE", smallFree))
}

func TestSecurityStorageBurstAtTheWallEndsAtTheLimit(t *testing.T) {
	parallel(t)
	eachImageProfile(t, func(t *testing.T, h *harness, blobs *memblob.Store) {
		u := h.newUser("a@x.io")
		f := limitPNG(t)
		h.mustUpload(u, f, f, f) // room for one more file
		body, ct := multipartBody(t, f)
		created := 0
		for _, r := range h.rawAtOnce(12, req{Method: "POST", Path: imagesPath(u), Token: u.Token, Body: body,
			Headers: map[string]string{"Content-Type": ct}}) {
			switch r.Status {
			case 200:
				created++
			case 403:
				expect(t, r, 403, limitError("storage limit reached: 1KB"))
			default:
				t.Fatalf("status %d: %s", r.Status, r.Body)
			}
		}
		recs, _ := h.listed(u, "")
		if created != 1 || len(recs) != 4 || len(blobs.Keys()) != 4 {
			t.Fatalf("%d created, %d images, %d files; want 1, 4, 4", created, len(recs), len(blobs.Keys()))
		}
	}, withEnv("TANDEM_LIMITS_FREE", smallFree))
}

func TestSecurityPremiumUsersGetThePremiumLimits(t *testing.T) {
	parallel(t)
	eachImageProfile(t, func(t *testing.T, h *harness, blobs *memblob.Store) {
		payer, partner := h.newUser("payer@x.io"), h.newUser("partner@x.io")
		f := limitPNG(t)
		for _, u := range []user{payer, partner} {
			for range 3 {
				h.createMemory(u, map[string]any{"title": "Beach", "date": "2025-06-01"})
			}
			h.mustUpload(u, f, f, f, f)
			expect(t, h.do(newMemory(u)), 403, limitError("memory limit reached: 3 memories"))
			expect(t, h.upload(u, f), 403, limitError("storage limit reached: 1KB"))
		}

		// premium, direct for the payer and inherited by the partner
		h.pair(payer, partner)
		now := h.Clock.Now()
		expect(t, h.post(premiumPath(payer), payer.Token, map[string]any{"action": "create", "plan": "9.99",
			"startDate": now.UnixMilli(), "endDate": now.AddDate(0, 1, 0).UnixMilli()}), 200, "")
		for _, u := range []user{payer, partner} {
			expect(t, h.do(newMemory(u)), 200, "")
			expect(t, h.do(newMemory(u)), 200, "")
			expect(t, h.do(newMemory(u)), 403, limitError("memory limit reached: 5 memories"))
			h.mustUpload(u, f, f, f, f) // 2 KiB
			expect(t, h.upload(u, f), 403, limitError("storage limit reached: 2KB"))
			if n := memoryCount(t, h, u); n != 5 {
				t.Fatalf("%d memories", n)
			}
		}

		// the premium ends with the partnership: the partner is back to the free wall
		expect(t, h.keyed("POST", "/api/partnerConnections/unlink", partner, map[string]any{"userId": partner.ID}), 200, "")
		expect(t, h.do(newMemory(partner)), 403, limitError("memory limit reached: 3 memories"))
		expect(t, h.upload(partner, f), 403, limitError("storage limit reached: 1KB"))
		expect(t, h.upload(payer, f), 403, limitError("storage limit reached: 2KB"))
		if n := memoryCount(t, h, partner); n != 5 {
			t.Fatalf("the partner's memories: %d", n) // kept, but no more until under the limit
		}
	}, withEnv("TANDEM_LIMITS_FREE", smallFree), withEnv("TANDEM_LIMITS_PREMIUM", smallPremium))
}

// rawAtOnce sends n copies of r (a []byte body with its own Content-Type)
// from goroutines released together, and returns the responses.
func (h *harness) rawAtOnce(n int, r req) []response {
	h.t.Helper()
	rs := make([]req, n)
	for i := range rs {
		rs[i] = r
	}
	return h.atOnce(rs...)
}
