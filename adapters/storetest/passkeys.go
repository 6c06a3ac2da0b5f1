package storetest

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"tandem/core"
	"tandem/modules/passkeys"
)

// PasskeyRepository checks a passkeys.Repository implementation.
func PasskeyRepository(t *testing.T, newRepo func(t *testing.T) passkeys.Repository) {
	s := passkeySuite{newRepo: newRepo}
	t.Run("create and read back every field, by user and by credential id", s.createAndRead)
	t.Run("a credential id is registered once, to anyone", s.uniqueCredential)
	t.Run("a user holds at most max passkeys", s.maxPerUser)
	t.Run("record use runs the decision on the stored passkey and writes its answer", s.recordUse)
	t.Run("concurrent uses with one counter value: one passes", s.concurrentUses)
	t.Run("delete takes only the owner's passkey", s.deleteOwn)
	t.Run("delete by user removes passkeys and challenges, idempotent", s.deleteByUser)
	t.Run("a challenge is taken once", s.challengeOnce)
	t.Run("a refused challenge is kept unless the decision spends it", s.challengeRefused)
	t.Run("concurrent takes of one challenge: one finds it", s.concurrentTakes)
	t.Run("purge removes expired challenges only", s.purge)
}

// passkeySuite holds PasskeyRepository's helpers and subtests.
type passkeySuite struct {
	newRepo func(t *testing.T) passkeys.Repository
}

func (passkeySuite) key(id, user string, cred byte) passkeys.Passkey {
	return passkeys.Passkey{ID: id, UserID: user, CredentialID: bytes.Repeat([]byte{cred, 0x00, 0xff}, 22),
		PublicKey: []byte{0xa5, 0x01, 0x02, cred}, SignCount: 7, Details: []byte(`{"transport":["internal"]}`),
		CreatedAt: now}
}

func (passkeySuite) ids(ps []passkeys.Passkey) string {
	out := ""
	for _, p := range ps {
		out += p.ID + ","
	}
	return out
}

func samePasskey(a, b passkeys.Passkey) bool {
	return a.ID == b.ID && a.UserID == b.UserID && bytes.Equal(a.CredentialID, b.CredentialID) &&
		bytes.Equal(a.PublicKey, b.PublicKey) && a.SignCount == b.SignCount && bytes.Equal(a.Details, b.Details) &&
		a.CreatedAt.Equal(b.CreatedAt) && a.LastUsedAt.Equal(b.LastUsedAt)
}

func (s passkeySuite) createAndRead(t *testing.T) {
	r := s.newRepo(t)
	a := s.key("k1", "u1", 1)
	a.CreatedAt = time.UnixMilli(1749988800123).UTC()
	b := s.key("k2", "u1", 2)
	b.CreatedAt = a.CreatedAt.Add(time.Second)
	must(t, r.Create(ctx, b, 20))
	must(t, r.Create(ctx, a, 20))
	must(t, r.Create(ctx, s.key("k3", "u2", 3), 20))
	got, err := r.List(ctx, "u1")
	must(t, err)
	if len(got) != 2 || !samePasskey(got[0], a) || !samePasskey(got[1], b) || !got[0].LastUsedAt.IsZero() {
		t.Fatalf("list: %+v", got)
	}
	one, err := r.ByCredential(ctx, b.CredentialID)
	must(t, err)
	if !samePasskey(one, b) {
		t.Fatalf("by credential: %+v", one)
	}
	_, err = r.ByCredential(ctx, []byte("nobody"))
	wantCode(t, err, core.KindNotFound, "passkey_not_found")
	none, err := r.List(ctx, "u9")
	must(t, err)
	if len(none) != 0 {
		t.Fatalf("a user without passkeys: %+v", none)
	}
}

func (s passkeySuite) uniqueCredential(t *testing.T) {
	r := s.newRepo(t)
	must(t, r.Create(ctx, s.key("k1", "u1", 1), 20))
	wantCode(t, r.Create(ctx, s.key("k2", "u2", 1), 20), core.KindConflict, "passkey_exists")
	if ps, _ := r.List(ctx, "u2"); len(ps) != 0 {
		t.Fatalf("the refused passkey was stored: %+v", ps)
	}
}

func (s passkeySuite) maxPerUser(t *testing.T) {
	r := s.newRepo(t)
	for i := range 3 {
		must(t, r.Create(ctx, s.key(fmt.Sprint("k", i), "u1", byte(i)), 3))
	}
	wantCode(t, r.Create(ctx, s.key("k9", "u1", 9), 3), core.KindConflict, "too_many_passkeys")
	must(t, r.Create(ctx, s.key("k8", "u2", 8), 3))
}

func (s passkeySuite) recordUse(t *testing.T) {
	r := s.newRepo(t)
	k := s.key("k1", "u1", 1)
	must(t, r.Create(ctx, k, 20))
	used := now.Add(time.Hour)
	signed := k
	signed.SignCount, signed.Details = 8, []byte(`{"flags":1}`)
	got, err := r.RecordUse(ctx, "k1", passkeys.Use(signed, used))
	must(t, err)
	want := k
	want.SignCount, want.Details, want.LastUsedAt = 8, signed.Details, used
	stored, _ := r.ByCredential(ctx, k.CredentialID)
	if !samePasskey(got, want) || !samePasskey(stored, want) {
		t.Fatalf("after use: returned %+v, stored %+v", got, stored)
	}
	_, err = r.RecordUse(ctx, "k1", passkeys.Use(signed, used.Add(time.Minute))) // the same counter again
	wantCode(t, err, core.KindUnauthorized, "invalid_credentials")
	if stored, _ := r.ByCredential(ctx, k.CredentialID); !samePasskey(stored, want) {
		t.Fatalf("a refused use wrote %+v", stored)
	}
	_, err = r.RecordUse(ctx, "nope", passkeys.Use(signed, used))
	wantCode(t, err, core.KindNotFound, "passkey_not_found")
}

func (s passkeySuite) concurrentUses(t *testing.T) {
	r := s.newRepo(t)
	k := s.key("k1", "u1", 1)
	must(t, r.Create(ctx, k, 20))
	signed := k
	signed.SignCount = 9
	use := func() error { _, err := r.RecordUse(ctx, "k1", passkeys.Use(signed, now)); return err }
	onePasses(t, core.KindUnauthorized, race(use, use, use, use))
}

func (s passkeySuite) deleteOwn(t *testing.T) {
	r := s.newRepo(t)
	must(t, r.Create(ctx, s.key("k1", "u1", 1), 20))
	wantCode(t, r.Delete(ctx, "u2", "k1"), core.KindNotFound, "passkey_not_found")
	must(t, r.Delete(ctx, "u1", "k1"))
	wantCode(t, r.Delete(ctx, "u1", "k1"), core.KindNotFound, "passkey_not_found")
	if ps, _ := r.List(ctx, "u1"); len(ps) != 0 {
		t.Fatalf("left: %+v", ps)
	}
}

func (s passkeySuite) challenge(id, user string, p passkeys.Purpose, ttl time.Duration) passkeys.Challenge {
	return passkeys.Challenge{ID: passkeys.ChallengeID(id), UserID: user, Purpose: p,
		Session: []byte(`{"challenge":"` + id + `"}`), ExpiresAt: now.Add(ttl)}
}

func (s passkeySuite) deleteByUser(t *testing.T) {
	r := s.newRepo(t)
	must(t, r.Create(ctx, s.key("k1", "u1", 1), 20))
	must(t, r.Create(ctx, s.key("k2", "u2", 2), 20))
	must(t, r.CreateChallenge(ctx, s.challenge("c1", "u1", passkeys.PurposeRegister, time.Minute)))
	must(t, r.CreateChallenge(ctx, s.challenge("c2", "", passkeys.PurposeSignIn, time.Minute)))
	must(t, r.DeleteByUser(ctx, "u1"))
	must(t, r.DeleteByUser(ctx, "u1"))
	if ps, _ := r.List(ctx, "u1"); len(ps) != 0 {
		t.Fatalf("left: %+v", ps)
	}
	if ps, _ := r.List(ctx, "u2"); s.ids(ps) != "k2," {
		t.Fatalf("another user's: %+v", ps)
	}
	_, err := r.TakeChallenge(ctx, passkeys.ChallengeID("c1"), passkeys.Spend(passkeys.PurposeRegister, "u1", now))
	wantCode(t, err, core.KindNotFound, "challenge_not_found")
	_, err = r.TakeChallenge(ctx, passkeys.ChallengeID("c2"), passkeys.Spend(passkeys.PurposeSignIn, "", now))
	must(t, err)
}

func (s passkeySuite) challengeOnce(t *testing.T) {
	r := s.newRepo(t)
	want := s.challenge("c1", "u1", passkeys.PurposeRegister, time.Minute)
	must(t, r.CreateChallenge(ctx, want))
	must(t, r.CreateChallenge(ctx, s.challenge("c2", "", passkeys.PurposeSignIn, time.Minute)))
	got, err := r.TakeChallenge(ctx, want.ID, passkeys.Spend(passkeys.PurposeRegister, "u1", now))
	must(t, err)
	if got.ID != want.ID || got.UserID != "u1" || got.Purpose != want.Purpose || string(got.Session) != string(want.Session) ||
		!got.ExpiresAt.Equal(want.ExpiresAt) {
		t.Fatalf("took %+v", got)
	}
	_, err = r.TakeChallenge(ctx, want.ID, passkeys.Spend(passkeys.PurposeRegister, "u1", now))
	wantCode(t, err, core.KindNotFound, "challenge_not_found")
	got, err = r.TakeChallenge(ctx, passkeys.ChallengeID("c2"), passkeys.Spend(passkeys.PurposeSignIn, "", now))
	must(t, err)
	if got.UserID != "" {
		t.Fatalf("a sign-in challenge has no user: %+v", got)
	}
}

func (s passkeySuite) challengeRefused(t *testing.T) {
	r := s.newRepo(t)
	c := s.challenge("c1", "u1", passkeys.PurposeRegister, time.Minute)
	must(t, r.CreateChallenge(ctx, c))
	// Another user, another purpose: refused and kept.
	_, err := r.TakeChallenge(ctx, c.ID, passkeys.Spend(passkeys.PurposeRegister, "u2", now))
	wantCode(t, err, core.KindInvalid, "invalid_challenge")
	_, err = r.TakeChallenge(ctx, c.ID, passkeys.Spend(passkeys.PurposeSignIn, "", now))
	wantCode(t, err, core.KindUnauthorized, "invalid_credentials")
	// Expired: refused and spent.
	_, err = r.TakeChallenge(ctx, c.ID, passkeys.Spend(passkeys.PurposeRegister, "u1", now.Add(time.Minute)))
	wantCode(t, err, core.KindInvalid, "invalid_challenge")
	_, err = r.TakeChallenge(ctx, c.ID, passkeys.Spend(passkeys.PurposeRegister, "u1", now))
	wantCode(t, err, core.KindNotFound, "challenge_not_found")
}

func (s passkeySuite) concurrentTakes(t *testing.T) {
	r := s.newRepo(t)
	c := s.challenge("c1", "", passkeys.PurposeSignIn, time.Minute)
	must(t, r.CreateChallenge(ctx, c))
	take := func() error {
		_, err := r.TakeChallenge(ctx, c.ID, passkeys.Spend(passkeys.PurposeSignIn, "", now))
		return err
	}
	onePasses(t, core.KindNotFound, race(take, take, take, take))
}

func (s passkeySuite) purge(t *testing.T) {
	r := s.newRepo(t)
	must(t, r.CreateChallenge(ctx, s.challenge("old", "u1", passkeys.PurposeRegister, -time.Second)))
	must(t, r.CreateChallenge(ctx, s.challenge("due", "", passkeys.PurposeSignIn, 0)))
	must(t, r.CreateChallenge(ctx, s.challenge("new", "", passkeys.PurposeSignIn, time.Second)))
	must(t, r.PurgeChallenges(ctx, now))
	for id, want := range map[string]bool{"old": false, "due": false, "new": true} {
		_, err := r.TakeChallenge(ctx, passkeys.ChallengeID(id), func(passkeys.Challenge) (bool, error) { return false, nil })
		if found := err == nil; found != want {
			t.Errorf("%s: found %v, want %v (%v)", id, found, want, err)
		}
	}
}

// onePasses fails t unless exactly one of errs is nil and the others are
// of kind k.
func onePasses(t *testing.T, k core.Kind, errs []error) {
	t.Helper()
	ok := 0
	for _, err := range errs {
		if err == nil {
			ok++
		} else if !core.IsKind(err, k) {
			t.Fatal(err)
		}
	}
	if ok != 1 {
		t.Fatalf("%d of %d passed: %v", ok, len(errs), errs)
	}
}
