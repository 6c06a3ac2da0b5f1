package storetest

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"tandem/core"
	"tandem/modules/images"
)

// ImageRepository checks an images.Repository implementation.
func ImageRepository(t *testing.T, newRepo func(t *testing.T) images.Repository) {
	s := imageSuite{newRepo: newRepo}
	t.Run("create, get, by key; another user's is not found", s.createAndGet)
	t.Run("create is all or nothing; ids and keys are unique", s.createAllOrNothing)
	t.Run("create within max sums the owner's sizes; a refused upload stores nothing", s.createWithinMax)
	t.Run("deletes, relinks and purge give the bytes back", s.bytesGivenBack)
	t.Run("concurrent uploads end at most at max", s.concurrentUploads)
	t.Run("list is newest first, pages after a position, and is the user's", s.listPages)
	t.Run("a group reads in upload order and is the user's", s.group)
	t.Run("relink adopts another image's file", s.relinkAdopts)
	t.Run("relink to the image's own key changes nothing but the time", s.relinkOwnKey)
	t.Run("relink swaps keys inside a group and frees what nobody holds", s.relinkSwaps)
	t.Run("relink refuses, all or nothing", s.relinkRefuses)
	t.Run("concurrent relinks onto one file leave it one image", s.concurrentRelinks)
	t.Run("delete returns the image; another user's is not found", s.deleteImage)
	t.Run("delete group returns it in order; another user's is not found", s.deleteGroup)
	t.Run("delete by user is idempotent and touches only the user", s.deleteUser)
}

// imageSuite holds ImageRepository's helpers and subtests.
type imageSuite struct {
	newRepo func(t *testing.T) images.Repository
}

// img is an image as the service hands it to Create: with its URL, which
// a repository does not store (same checks that every read has none).
func (imageSuite) img(id, user, group string, seq int, at time.Time) images.Image {
	key := "u/" + user + "/" + id + ".png"
	return images.Image{ID: id, UserID: user, GroupID: group, Seq: seq, Key: key,
		URL: "http://files.test/files/" + key, Size: 100, CreatedAt: at, UpdatedAt: at,
		Width: 4000 + len(id), Height: 3000, BlurHash: "LEHV6nWB2yk8pyo0adR*.7kCMdnj" + id}
}

// same compares a read image with the one stored, URL aside: a read never
// has one (images.Repository: the address is rendered from the key, so a
// restore under another TANDEM_PUBLIC_URL serves it from there).
func (imageSuite) same(t *testing.T, got, want images.Image) {
	t.Helper()
	if got.URL != "" {
		t.Fatalf("%s: read back with URL %q: a repository stores the key, never the address", got.ID, got.URL)
	}
	if got.ID != want.ID || got.UserID != want.UserID || got.GroupID != want.GroupID || got.Seq != want.Seq ||
		got.Key != want.Key || got.Size != want.Size || got.Width != want.Width ||
		got.Height != want.Height || got.BlurHash != want.BlurHash ||
		!got.CreatedAt.Equal(want.CreatedAt) || !got.UpdatedAt.Equal(want.UpdatedAt) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
}

func (imageSuite) ids(imgs []images.Image) string {
	out := make([]string, len(imgs))
	for i, x := range imgs {
		out[i] = x.ID
	}
	return strings.Join(out, ",")
}

func (imageSuite) create(t *testing.T, r images.Repository, imgs ...images.Image) {
	t.Helper()
	must(t, r.Create(ctx, imgs, nil))
}

func (s imageSuite) list(t *testing.T, r images.Repository, user string) string {
	t.Helper()
	got, err := r.List(ctx, user, nil, 0)
	must(t, err)
	return s.ids(got)
}

func (imageSuite) stored(t *testing.T, r images.Repository, user string) int64 {
	t.Helper()
	n, err := r.StoredBytes(ctx, user)
	must(t, err)
	return n
}

func (s imageSuite) sized(id, user string, size int64) images.Image {
	x := s.img(id, user, "g-"+id, 0, now)
	x.Size = size
	return x
}

func (s imageSuite) createAndGet(t *testing.T) {
	r := s.newRepo(t)
	a := s.img("a", "u1", "g1", 0, time.UnixMilli(1718452800123).UTC()) // milliseconds survive
	s.create(t, r, a, s.img("b", "u1", "g1", 1, a.CreatedAt))
	got, err := r.Get(ctx, "u1", "a")
	must(t, err)
	s.same(t, got, a)
	_, err = r.Get(ctx, "u2", "a")
	wantKind(t, err, core.KindNotFound)
	_, err = r.Get(ctx, "u1", "zz")
	wantKind(t, err, core.KindNotFound)
	got, err = r.ByKey(ctx, a.Key)
	must(t, err)
	s.same(t, got, a)
	_, err = r.ByKey(ctx, "u/u1/none.png")
	wantKind(t, err, core.KindNotFound)
	held, err := r.Held(ctx, []string{"u/u1/none.png", a.Key})
	must(t, err)
	if len(held) != 1 || !held[a.Key] {
		t.Fatalf("held %v, want only %s", held, a.Key)
	}
	held, err = r.Held(ctx, nil)
	must(t, err)
	if len(held) != 0 {
		t.Fatalf("held of no keys: %v", held)
	}
}

func (s imageSuite) createAllOrNothing(t *testing.T) {
	r := s.newRepo(t)
	s.create(t, r, s.img("a", "u1", "g1", 0, now))
	taken := s.img("c", "u1", "g2", 1, now)
	taken.Key = s.img("a", "u1", "", 0, now).Key
	wantKind(t, r.Create(ctx, []images.Image{s.img("b", "u1", "g2", 0, now), taken}, nil), core.KindConflict)
	wantKind(t, createWithin(r, 1000, s.img("a", "u2", "g3", 0, now)), core.KindConflict) // same id
	if got := s.list(t, r, "u1") + "|" + s.list(t, r, "u2"); got != "a|" {
		t.Fatalf("stored %s", got)
	}
}

func (s imageSuite) createWithinMax(t *testing.T) {
	r := s.newRepo(t)
	s.create(t, r, s.sized("o", "u2", 900))
	for _, tc := range []struct {
		name string
		imgs []images.Image
		max  int64
		fits bool
	}{
		{"the other user's bytes do not count", []images.Image{s.sized("a", "u1", 200)}, 300, true},
		{"up to max exactly", []images.Image{s.sized("b", "u1", 60), s.sized("c", "u1", 40)}, 300, true},
		{"one byte over", []images.Image{s.sized("d", "u1", 1)}, 300, false},
		{"several files passing it are refused whole", []images.Image{s.sized("e", "u1", 50), s.sized("f", "u1", 60)}, 400, false},
		{"a higher max fits", []images.Image{s.sized("e", "u1", 50), s.sized("f", "u1", 50)}, 400, true},
		{"no limit", []images.Image{s.sized("g", "u1", 5000)}, images.NoLimit, true},
		{"zero", []images.Image{s.sized("h", "u3", 1)}, 0, false},
	} {
		err := createWithin(r, tc.max, tc.imgs...)
		if tc.fits {
			must(t, err)
			continue
		}
		wantCode(t, err, core.KindForbidden, images.CodeLimitReached)
		for _, x := range tc.imgs {
			if _, err := r.Get(ctx, x.UserID, x.ID); !core.IsKind(err, core.KindNotFound) {
				t.Fatalf("%s: %s was stored", tc.name, x.ID)
			}
		}
	}
	if got := s.list(t, r, "u1"); got != "g,f,e,c,b,a" {
		t.Fatalf("stored %s", got)
	}
	if u1, u2, u3 := s.stored(t, r, "u1"), s.stored(t, r, "u2"), s.stored(t, r, "u3"); u1 != 5400 || u2 != 900 || u3 != 0 {
		t.Fatalf("stored bytes %d %d %d", u1, u2, u3)
	}
}

func (s imageSuite) bytesGivenBack(t *testing.T) {
	r := s.newRepo(t)
	a, b, c := s.img("a", "u1", "g1", 0, now), s.img("b", "u1", "g1", 1, now), s.sized("c", "u1", 250)
	s.create(t, r, a, b)
	s.create(t, r, c)
	s.create(t, r, s.sized("o", "u2", 900))
	steps := []struct {
		name string
		do   func() error
		want int64
	}{
		{"stored", func() error { return nil }, 450},
		{"a adopts c's file: a's file is freed, c's size moves to a", func() error {
			_, _, err := r.Relink(ctx, "u1", "", []images.Change{{ID: "a", Key: c.Key}}, now)
			return err
		}, 350},
		{"delete b", func() error { _, err := r.Delete(ctx, "u1", "b"); return err }, 250},
		{"a new upload fits the room given back", func() error { return createWithin(r, 500, s.sized("d", "u1", 250)) }, 500},
		{"delete d's group", func() error { _, err := r.DeleteGroup(ctx, "u1", "g-d"); return err }, 250},
		{"purge", func() error { return r.DeleteByUser(ctx, "u1") }, 0},
		{"after the purge the whole limit is free", func() error { return createWithin(r, 500, s.sized("e", "u1", 500)) }, 500},
	}
	for _, st := range steps {
		must(t, st.do())
		if got := s.stored(t, r, "u1"); got != st.want {
			t.Fatalf("%s: stored %d, want %d", st.name, got, st.want)
		}
	}
	if got := s.stored(t, r, "u2"); got != 900 {
		t.Fatalf("the other user's bytes changed: %d", got)
	}
}

func (s imageSuite) concurrentUploads(t *testing.T) {
	r := s.newRepo(t)
	const tries = 12
	s.create(t, r, s.sized("s", "u1", 200))
	created := concurrentlyAllowed(t, tries, func(i int) error {
		return createWithin(r, 700, s.sized(fmt.Sprintf("c%02d", i), "u1", 100))
	})
	if got := s.stored(t, r, "u1"); created != 5 || got != 700 {
		t.Fatalf("created %d, stored %d bytes, want 5 and 700", created, got)
	}
}

func (s imageSuite) listPages(t *testing.T) {
	r := s.newRepo(t)
	s.create(t, r, s.img("a1", "u1", "g1", 0, now), s.img("a2", "u1", "g1", 1, now))
	s.create(t, r, s.img("b1", "u1", "g2", 0, now.Add(time.Minute)))
	s.create(t, r, s.img("c1", "u1", "g3", 0, now.Add(-time.Minute)), s.img("c2", "u1", "g3", 1, now.Add(-time.Minute)))
	s.create(t, r, s.img("x1", "u2", "g4", 0, now))
	if got := s.list(t, r, "u1"); got != "b1,a2,a1,c2,c1" {
		t.Fatalf("order %s", got)
	}
	page, err := r.List(ctx, "u1", nil, 2)
	must(t, err)
	if s.ids(page) != "b1,a2" {
		t.Fatalf("first page %s", s.ids(page))
	}
	var pages []string
	after := &images.Position{CreatedAt: page[1].CreatedAt, ID: page[1].ID}
	for {
		page, err = r.List(ctx, "u1", after, 2)
		must(t, err)
		if len(page) == 0 {
			break
		}
		pages = append(pages, s.ids(page))
		last := page[len(page)-1]
		after = &images.Position{CreatedAt: last.CreatedAt, ID: last.ID}
	}
	if got := strings.Join(pages, "|"); got != "a1,c2|c1" {
		t.Fatalf("pages %s", got)
	}
	if got := s.list(t, r, "u3"); got != "" {
		t.Fatalf("nobody's list %q", got)
	}
	if got, err := r.List(ctx, "u3", nil, 0); err != nil || got == nil {
		t.Fatalf("want an empty, non-nil list: %v %v", got, err)
	}
}

func (s imageSuite) group(t *testing.T) {
	r := s.newRepo(t)
	s.create(t, r, s.img("z", "u1", "g1", 0, now), s.img("y", "u1", "g1", 1, now), s.img("x", "u1", "g1", 2, now))
	s.create(t, r, s.img("w", "u1", "g2", 0, now))
	got, err := r.Group(ctx, "u1", "g1")
	must(t, err)
	if s.ids(got) != "z,y,x" {
		t.Fatalf("group %s", s.ids(got))
	}
	s.same(t, got[1], s.img("y", "u1", "g1", 1, now))
	for _, q := range [][2]string{{"u2", "g1"}, {"u1", "nope"}} {
		got, err := r.Group(ctx, q[0], q[1])
		if err != nil || got == nil || len(got) != 0 {
			t.Fatalf("%v: %v %v", q, got, err)
		}
	}
}

func (s imageSuite) relinkAdopts(t *testing.T) {
	r := s.newRepo(t)
	a, b := s.img("a", "u1", "g1", 0, now), s.img("b", "u1", "g2", 0, now.Add(time.Minute))
	b.Size, b.Width, b.Height, b.BlurHash = 700, 640, 480, "L00000fQfQfQfQfQfQfQfQfQfQfQ"
	s.create(t, r, a, s.img("a2", "u1", "g1", 1, now))
	s.create(t, r, b)
	later := now.Add(time.Hour)
	changed, freed, err := r.Relink(ctx, "u1", "", []images.Change{{ID: "a", Key: b.Key}}, later)
	must(t, err)
	want := a
	want.Key, want.Size, want.UpdatedAt = b.Key, b.Size, later
	want.Width, want.Height, want.BlurHash = b.Width, b.Height, b.BlurHash // the file's, not the old one's
	if len(changed) != 1 || strings.Join(freed, ",") != a.Key {
		t.Fatalf("changed %+v freed %v", changed, freed)
	}
	s.same(t, changed[0], want)
	got, _ := r.Get(ctx, "u1", "a")
	s.same(t, got, want)
	holder, _ := r.ByKey(ctx, b.Key)
	s.same(t, holder, want)
	_, err = r.ByKey(ctx, a.Key)
	wantKind(t, err, core.KindNotFound)
	if got := s.list(t, r, "u1"); got != "a2,a" { // b was merged into a
		t.Fatalf("list %s", got)
	}
}

func (s imageSuite) relinkOwnKey(t *testing.T) {
	r := s.newRepo(t)
	a := s.img("a", "u1", "g1", 0, now)
	s.create(t, r, a)
	changed, freed, err := r.Relink(ctx, "u1", "g1", []images.Change{{ID: "a", Key: a.Key}}, now.Add(time.Hour))
	must(t, err)
	if len(freed) != 0 || changed[0].Key != a.Key || !changed[0].UpdatedAt.Equal(now.Add(time.Hour)) {
		t.Fatalf("%+v %v", changed, freed)
	}
}

func (s imageSuite) relinkSwaps(t *testing.T) {
	r := s.newRepo(t)
	a, b, c := s.img("a", "u1", "g1", 0, now), s.img("b", "u1", "g1", 1, now), s.img("c", "u1", "g1", 2, now)
	n := s.img("n", "u1", "g9", 0, now)
	s.create(t, r, a, b, c)
	s.create(t, r, n)
	changes := []images.Change{{ID: "a", Key: b.Key}, {ID: "b", Key: a.Key}, {ID: "c", Key: n.Key}}
	changed, freed, err := r.Relink(ctx, "u1", "g1", changes, now)
	must(t, err)
	if s.ids(changed) != "a,b,c" || strings.Join(freed, ",") != c.Key {
		t.Fatalf("changed %s freed %v", s.ids(changed), freed)
	}
	group, _ := r.Group(ctx, "u1", "g1")
	if group[0].Key != b.Key || group[1].Key != a.Key || group[2].Key != n.Key {
		t.Fatalf("group %+v", group)
	}
	if got := s.list(t, r, "u1"); got != "c,b,a" {
		t.Fatalf("list %s", got)
	}
}

func (s imageSuite) relinkRefuses(t *testing.T) {
	r := s.newRepo(t)
	a, b, n := s.img("a", "u1", "g1", 0, now), s.img("b", "u1", "g1", 1, now), s.img("n", "u1", "g2", 0, now)
	o := s.img("o", "u2", "g3", 0, now)
	s.create(t, r, a, b)
	s.create(t, r, n)
	s.create(t, r, o)
	cases := []struct {
		name    string
		group   string
		changes []images.Change
		kind    core.Kind
	}{
		{"unknown image", "", []images.Change{{ID: "zz", Key: n.Key}}, core.KindNotFound},
		{"another user's image", "", []images.Change{{ID: "o", Key: n.Key}}, core.KindNotFound},
		{"image outside the group", "g1", []images.Change{{ID: "a", Key: b.Key}, {ID: "n", Key: a.Key}}, core.KindNotFound},
		{"another user's key", "", []images.Change{{ID: "a", Key: o.Key}}, core.KindInvalid},
		{"a key nobody holds", "", []images.Change{{ID: "a", Key: "u/u1/gone.png"}}, core.KindInvalid},
		{"second change fails", "g1", []images.Change{{ID: "a", Key: n.Key}, {ID: "b", Key: "u/u1/gone.png"}}, core.KindInvalid},
		{"a key twice", "", []images.Change{{ID: "a", Key: n.Key}, {ID: "b", Key: n.Key}}, core.KindInvalid},
		{"an image twice", "", []images.Change{{ID: "a", Key: n.Key}, {ID: "a", Key: b.Key}}, core.KindInvalid},
	}
	for _, tc := range cases {
		_, _, err := r.Relink(ctx, "u1", tc.group, tc.changes, now.Add(time.Hour))
		if !core.IsKind(err, tc.kind) {
			t.Fatalf("%s: want %v, got %v", tc.name, tc.kind, err)
		}
	}
	for _, want := range []images.Image{a, b, n} {
		got, err := r.Get(ctx, "u1", want.ID)
		must(t, err)
		s.same(t, got, want)
	}
	got, _ := r.Get(ctx, "u2", "o")
	s.same(t, got, o)
}

func (s imageSuite) concurrentRelinks(t *testing.T) {
	r := s.newRepo(t)
	shared := s.img("s", "u1", "gs", 0, now)
	s.create(t, r, shared)
	const n = 6
	for i := range n {
		s.create(t, r, s.img(fmt.Sprintf("t%d", i), "u1", fmt.Sprintf("g%d", i), 0, now))
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, errs[i] = r.Relink(ctx, "u1", "", []images.Change{{ID: fmt.Sprintf("t%d", i), Key: shared.Key}}, now)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		must(t, err)
	}
	all, err := r.List(ctx, "u1", nil, 0)
	must(t, err)
	if len(all) != 1 || all[0].Key != shared.Key || all[0].URL != "" {
		t.Fatalf("left %+v", all) // each relink merged the previous holder away
	}
}

func (s imageSuite) deleteImage(t *testing.T) {
	r := s.newRepo(t)
	a := s.img("a", "u1", "g1", 0, now)
	s.create(t, r, a, s.img("b", "u1", "g1", 1, now))
	_, err := r.Delete(ctx, "u2", "a")
	wantKind(t, err, core.KindNotFound)
	got, err := r.Delete(ctx, "u1", "a")
	must(t, err)
	s.same(t, got, a)
	_, err = r.Delete(ctx, "u1", "a")
	wantKind(t, err, core.KindNotFound)
	_, err = r.ByKey(ctx, a.Key)
	wantKind(t, err, core.KindNotFound)
	if got := s.list(t, r, "u1"); got != "b" {
		t.Fatalf("list %s", got)
	}
}

func (s imageSuite) deleteGroup(t *testing.T) {
	r := s.newRepo(t)
	s.create(t, r, s.img("b", "u1", "g1", 1, now), s.img("a", "u1", "g1", 0, now))
	s.create(t, r, s.img("c", "u1", "g2", 0, now))
	_, err := r.DeleteGroup(ctx, "u2", "g1")
	wantKind(t, err, core.KindNotFound)
	got, err := r.DeleteGroup(ctx, "u1", "g1")
	must(t, err)
	if s.ids(got) != "a,b" {
		t.Fatalf("deleted %s", s.ids(got))
	}
	_, err = r.DeleteGroup(ctx, "u1", "g1")
	wantKind(t, err, core.KindNotFound)
	if got := s.list(t, r, "u1"); got != "c" {
		t.Fatalf("list %s", got)
	}
}

func (s imageSuite) deleteUser(t *testing.T) {
	r := s.newRepo(t)
	s.create(t, r, s.img("a", "u1", "g1", 0, now), s.img("b", "u1", "g1", 1, now))
	s.create(t, r, s.img("c", "u2", "g2", 0, now))
	must(t, r.DeleteByUser(ctx, "u1"))
	must(t, r.DeleteByUser(ctx, "u1"))
	if got := s.list(t, r, "u1") + "|" + s.list(t, r, "u2"); got != "|c" {
		t.Fatalf("left %s", got)
	}
	// the keys are free again
	s.create(t, r, s.img("a", "u1", "g1", 0, now))
	if !slices.Contains([]string{"a"}, s.list(t, r, "u1")) {
		t.Fatal("could not store again")
	}
}

// createWithin stores imgs under the module's rule for a user allowed max
// bytes (images.NoLimit: any number), as the service does.
func createWithin(r images.Repository, max int64, imgs ...images.Image) error {
	var n int64
	for _, img := range imgs {
		n += img.Size
	}
	limit := images.StorageLimit{Bytes: max, Label: fmt.Sprint(max, " bytes")}
	return r.Create(ctx, imgs, limit.Room(n))
}
