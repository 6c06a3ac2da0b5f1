package tests

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"testing"
	"time"

	"github.com/fxamacker/cbor/v2"
)

// The relying party of the passkey tests without a browser (the browser
// test has its own: http://localhost:PORT).
const (
	passkeyRP     = "tandem.test"
	passkeyOrigin = "https://tandem.test"
)

func withPasskeys() option {
	return withEnv("TANDEM_PASSKEYS", "rp="+passkeyRP+"&name=Tandem&origin="+passkeyOrigin)
}

var b64 = base64.RawURLEncoding

// softKey is a software authenticator: one P-256 passkey with a counter,
// answering create and get as a browser's toJSON() writes them.
type softKey struct {
	t       *testing.T
	key     *ecdsa.PrivateKey
	id      []byte
	user    string // the user handle it was registered with
	counter uint32
	origin  string
}

func newSoftKey(t *testing.T) *softKey {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	id := make([]byte, 32)
	_, _ = rand.Read(id)
	return &softKey{t: t, key: k, id: id, origin: passkeyOrigin}
}

// challengeOf reads options.publicKey.challenge (and, for a registration,
// the user handle) from an options answer.
func challengeOf(t *testing.T, r response) (challenge, userHandle string) {
	t.Helper()
	expect(t, r, 200, "")
	var o struct {
		Options struct {
			PublicKey struct {
				Challenge string `json:"challenge"`
				User      struct {
					ID string `json:"id"`
				} `json:"user"`
			} `json:"publicKey"`
		} `json:"options"`
	}
	if err := json.Unmarshal(r.Body, &o); err != nil || o.Options.PublicKey.Challenge == "" {
		t.Fatalf("no challenge in %s (%v)", r.Body, err)
	}
	return o.Options.PublicKey.Challenge, o.Options.PublicKey.User.ID
}

func (k *softKey) clientData(typ, challenge string) []byte {
	b, _ := json.Marshal(map[string]any{"type": typ, "challenge": challenge, "origin": k.origin, "crossOrigin": false})
	return b
}

func (k *softKey) authData(flags byte, attested bool) []byte {
	rp := sha256.Sum256([]byte(passkeyRP))
	out := append([]byte{}, rp[:]...)
	out = append(out, flags)
	out = binary.BigEndian.AppendUint32(out, k.counter)
	if attested {
		out = append(out, make([]byte, 16)...) // AAGUID
		out = binary.BigEndian.AppendUint16(out, uint16(len(k.id)))
		out = append(out, k.id...)
		x, y := k.key.X.FillBytes(make([]byte, 32)), k.key.Y.FillBytes(make([]byte, 32))
		cose, err := cbor.Marshal(map[int]any{1: 2, 3: -7, -1: 1, -2: x, -3: y})
		if err != nil {
			k.t.Fatal(err)
		}
		out = append(out, cose...)
	}
	return out
}

// create answers registration options with a "none" attestation.
func (k *softKey) create(challenge, userHandle string) map[string]any {
	uh, err := b64.DecodeString(userHandle)
	if err != nil {
		k.t.Fatalf("user handle %q: %v", userHandle, err)
	}
	k.user = string(uh)
	att, err := cbor.Marshal(map[string]any{"fmt": "none", "attStmt": map[string]any{}, "authData": k.authData(0x45, true)})
	if err != nil {
		k.t.Fatal(err)
	}
	return map[string]any{"id": b64.EncodeToString(k.id), "rawId": b64.EncodeToString(k.id), "type": "public-key",
		"authenticatorAttachment": "platform", "clientExtensionResults": map[string]any{},
		"response": map[string]any{"clientDataJSON": b64.EncodeToString(k.clientData("webauthn.create", challenge)),
			"attestationObject": b64.EncodeToString(att), "transports": []string{"internal"}}}
}

// get answers sign-in options: the counter moves on by one.
func (k *softKey) get(challenge string) map[string]any {
	k.counter++
	auth := k.authData(0x05, false)
	cd := k.clientData("webauthn.get", challenge)
	sum := sha256.Sum256(cd)
	digest := sha256.Sum256(append(append([]byte{}, auth...), sum[:]...))
	sig, err := ecdsa.SignASN1(rand.Reader, k.key, digest[:])
	if err != nil {
		k.t.Fatal(err)
	}
	return map[string]any{"id": b64.EncodeToString(k.id), "rawId": b64.EncodeToString(k.id), "type": "public-key",
		"authenticatorAttachment": "platform", "clientExtensionResults": map[string]any{},
		"response": map[string]any{"clientDataJSON": b64.EncodeToString(cd), "authenticatorData": b64.EncodeToString(auth),
			"signature": b64.EncodeToString(sig), "userHandle": b64.EncodeToString([]byte(k.user))}}
}

// registerPasskey registers k for u and returns the passkey's id.
func (h *harness) registerPasskey(t *testing.T, u user, k *softKey) string {
	t.Helper()
	ch, uh := challengeOf(t, h.post("/api/auth/passkeys/register/options", u.Token, nil))
	r := h.post("/api/auth/passkeys/register/verify", u.Token, k.create(ch, uh))
	expect(t, r, 200, `{"success":true,"passkey":{"id":"<string>","credentialId":"`+b64.EncodeToString(k.id)+`","createdAt":"<number>","lastUsedAt":null},"message":"passkey registered"}`)
	return r.JSON(t)["passkey"].(map[string]any)["id"].(string)
}

func (h *harness) signInOptions(t *testing.T) string {
	t.Helper()
	ch, _ := challengeOf(t, h.post("/api/auth/passkeys/signin/options", "", nil))
	return ch
}

var errPasskeyCredentials = errBody("invalid_credentials", "the passkey could not be verified")

func TestPasskeyRegisterAndSignIn(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		ann := h.newUser("ann@example.com")
		k := newSoftKey(t)
		id := h.registerPasskey(t, ann, k)
		if k.user != ann.ID {
			t.Fatalf("the user handle is %q, want the account id %q", k.user, ann.ID)
		}
		r := h.post("/api/auth/passkeys/signin/verify", "", k.get(h.signInOptions(t)))
		expect(t, r, 200, `{"success":true,"code":"signin_success","userId":"`+ann.ID+`","token":"<string>","message":"signed in"}`)
		token := r.JSON(t)["token"].(string)
		expect(t, h.get("/api/users/user/"+ann.ID, token), 200, "")
		list := h.get("/api/users/user/"+ann.ID+"/passkeys", token)
		expect(t, list, 200, `{"success":true,"passkeys":[{"id":"`+id+`","credentialId":"<string>","createdAt":"<number>","lastUsedAt":"<number>"}]}`)

		// A second sign-in moves the counter on; a replayed counter (a clone) is refused.
		expect(t, h.post("/api/auth/passkeys/signin/verify", "", k.get(h.signInOptions(t))), 200, "")
		k.counter--
		expect(t, h.post("/api/auth/passkeys/signin/verify", "", k.get(h.signInOptions(t))), 401, errPasskeyCredentials)
	}, withPasskeys())
}

func TestPasskeyRefusals(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		ann, ben := h.newUser("ann@example.com"), h.newUser("ben@example.com")
		k := newSoftKey(t)
		annKey := h.registerPasskey(t, ann, k)
		ch, uh := challengeOf(t, h.post("/api/auth/passkeys/register/options", ben.Token, nil))
		benKey := newSoftKey(t)
		benAnswer := benKey.create(ch, uh)
		invalidChallenge := errBody("invalid_challenge", "the challenge is unknown, used or expired: ask for new options")
		used := h.signInOptions(t)
		expect(t, h.post("/api/auth/passkeys/signin/verify", "", k.get(used)), 200, "")
		expired := h.signInOptions(t)
		expiredReg, expiredUH := challengeOf(t, h.post("/api/auth/passkeys/register/options", ann.Token, nil))

		runScenarios(t, h, []scenario{
			{name: "register options without a token", req: req{Method: "POST", Path: "/api/auth/passkeys/register/options", Token: noAuth},
				status: 401, want: errNoToken},
			{name: "register verify without a token", req: req{Method: "POST", Path: "/api/auth/passkeys/register/verify", Token: noAuth, Body: benAnswer},
				status: 401, want: errNoToken},
			{name: "another user's registration challenge", req: req{Method: "POST", Path: "/api/auth/passkeys/register/verify", Token: ann.Token, Body: benAnswer},
				status: 400, want: invalidChallenge},
			{name: "the registration challenge's own user", req: req{Method: "POST", Path: "/api/auth/passkeys/register/verify", Token: ben.Token, Body: benAnswer},
				status: 200},
			{name: "a registration challenge used twice", req: req{Method: "POST", Path: "/api/auth/passkeys/register/verify", Token: ben.Token, Body: benAnswer},
				status: 400, want: invalidChallenge},
			{name: "a sign-in challenge used twice", req: req{Method: "POST", Path: "/api/auth/passkeys/signin/verify", Body: k.get(used)},
				status: 401, want: errPasskeyCredentials},
			{name: "a made-up sign-in challenge", req: req{Method: "POST", Path: "/api/auth/passkeys/signin/verify", Body: k.get(b64.EncodeToString([]byte("made-up challenge of 32 bytes!!!")))},
				status: 401, want: errPasskeyCredentials},
			{name: "a sign-in answer that is not one", req: req{Method: "POST", Path: "/api/auth/passkeys/signin/verify", Body: map[string]any{"id": "x"}},
				status: 400, want: errBody("invalid_request", "the passkey answer could not be read")}, // a shape error spends no attempt
			{name: "a sign-in body that is not JSON", req: req{Method: "POST", Path: "/api/auth/passkeys/signin/verify", Body: "{"},
				status: 400, want: errBody("invalid_request", "malformed JSON")},
			{name: "list another user's passkeys", req: req{Method: "GET", Path: "/api/users/user/" + ann.ID + "/passkeys", Token: ben.Token},
				status: 403, want: errNotYours},
			{name: "delete another user's passkey through their path", req: req{Method: "DELETE", Path: "/api/users/user/" + ann.ID + "/passkeys/" + annKey, Token: ben.Token},
				status: 403, want: errNotYours},
			{name: "delete another user's passkey id through one's own path", req: req{Method: "DELETE", Path: "/api/users/user/" + ben.ID + "/passkeys/" + annKey, Token: ben.Token},
				status: 404, want: errBody("passkey_not_found", "no such passkey"),
				after: func(t *testing.T, h *harness) {
					expect(t, h.get("/api/users/user/"+ann.ID+"/passkeys", ann.Token), 200, `{"success":true,"passkeys":[{"id":"`+annKey+`","credentialId":"<string>","createdAt":"<number>","lastUsedAt":"<number>"}]}`)
				}},
		})

		t.Run("expired challenges", func(t *testing.T) {
			h.Clock.Advance(5*time.Minute + time.Second)
			expect(t, h.post("/api/auth/passkeys/signin/verify", "", k.get(expired)), 401, errPasskeyCredentials)
			_, fresh := h.login("ann@example.com") // adding a passkey needs a recent sign-in
			expect(t, h.post("/api/auth/passkeys/register/verify", fresh, newSoftKey(t).create(expiredReg, expiredUH)), 400, invalidChallenge)
		})

		t.Run("a deleted passkey signs in no more", func(t *testing.T) {
			r := h.do(req{Method: "DELETE", Path: "/api/users/user/" + ann.ID + "/passkeys/" + annKey, Token: ann.Token})
			expect(t, r, 200, `{"success":true,"deletedId":"`+annKey+`"}`)
			expect(t, h.post("/api/auth/passkeys/signin/verify", "", k.get(h.signInOptions(t))), 401, errPasskeyCredentials)
			expect(t, h.get("/api/users/user/"+ann.ID+"/passkeys", ann.Token), 200, `{"success":true,"passkeys":[]}`)
		})

		t.Run("deleting the account removes its passkeys", func(t *testing.T) {
			expect(t, h.do(req{Method: "DELETE", Path: "/api/users/user/" + ben.ID, Token: ben.Token}), 200, "")
			expect(t, h.post("/api/auth/passkeys/signin/verify", "", benKey.get(h.signInOptions(t))), 401, errPasskeyCredentials)
			again := h.newUser("ben@example.com")
			expect(t, h.get("/api/users/user/"+again.ID+"/passkeys", again.Token), 200, `{"success":true,"passkeys":[]}`)
			again2 := h.registerPasskey(t, again, benKey) // the credential id is free again
			if again2 == "" {
				t.Fatal("no id")
			}
		})
	}, withPasskeys())
}

func TestPasskeySignInIsRateLimitedPerIP(t *testing.T) {
	parallel(t)
	h := newHarness(t, profiles(t)[0], withPasskeys())
	k := newSoftKey(t)
	for i := range 10 {
		r := h.post("/api/auth/passkeys/signin/verify", "", k.get(h.signInOptions(t)))
		expect(t, r, 401, errPasskeyCredentials)
		_ = i
	}
	r := h.post("/api/auth/passkeys/signin/verify", "", k.get(h.signInOptions(t)))
	expect(t, r, 429, "")
	if r.JSON(t)["code"] != "rate_limited" || r.Header.Get("Retry-After") == "" {
		t.Fatalf("want rate_limited with Retry-After: %s", r.Body)
	}
}

func TestPasskeysOffAnswer404(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		ann := h.newUser("ann@example.com")
		off := errBody("passkeys_disabled", "passkeys are not enabled on this server")
		runScenarios(t, h, []scenario{
			{name: "register options", req: req{Method: "POST", Path: "/api/auth/passkeys/register/options", Token: ann.Token}, status: 404, want: off},
			{name: "register verify", req: req{Method: "POST", Path: "/api/auth/passkeys/register/verify", Token: ann.Token, Body: map[string]any{"id": "x"}}, status: 404, want: off},
			{name: "sign-in options", req: req{Method: "POST", Path: "/api/auth/passkeys/signin/options", Token: noAuth}, status: 404, want: off},
			{name: "sign-in verify", req: req{Method: "POST", Path: "/api/auth/passkeys/signin/verify", Token: noAuth, Body: map[string]any{"id": "x"}}, status: 404, want: off},
			{name: "the list still answers", req: req{Method: "GET", Path: "/api/users/user/" + ann.ID + "/passkeys", Token: ann.Token}, status: 200, want: `{"success":true,"passkeys":[]}`},
			{name: "no association files", req: req{Method: "GET", Path: "/.well-known/assetlinks.json", Token: noAuth}, status: 404},
		})
	})
}

func TestWellKnownAssociationFiles(t *testing.T) {
	parallel(t)
	fp := "14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"
	h := newHarness(t, profile{name: "memory"}, withPasskeys(),
		withEnv("TANDEM_APPLE_APP_IDS", "ABCDE12345.app.tandem,ABCDE12345.app.tandem.beta"),
		withEnv("TANDEM_ANDROID_APPS", "package=app.tandem&sha256="+fp+",package=app.tandem.beta&sha256="+fp+"&sha256="+fp[:len(fp)-2]+"E6"))
	for _, tc := range []struct{ path, want string }{
		{"/.well-known/apple-app-site-association",
			`{"applinks":{"details":[{"appIDs":["ABCDE12345.app.tandem","ABCDE12345.app.tandem.beta"],"components":[{"/":"*"}]}]},` +
				`"webcredentials":{"apps":["ABCDE12345.app.tandem","ABCDE12345.app.tandem.beta"]}}`},
		{"/.well-known/assetlinks.json",
			`[{"relation":["delegate_permission/common.handle_all_urls","delegate_permission/common.get_login_creds"],` +
				`"target":{"namespace":"android_app","package_name":"app.tandem","sha256_cert_fingerprints":["` + fp + `"]}},` +
				`{"relation":["delegate_permission/common.handle_all_urls","delegate_permission/common.get_login_creds"],` +
				`"target":{"namespace":"android_app","package_name":"app.tandem.beta","sha256_cert_fingerprints":["` + fp + `","` + fp[:len(fp)-2] + `E6"]}}]`},
	} {
		r := h.get(tc.path, "")
		if r.Status != 200 || string(r.Body) != tc.want+"\n" {
			t.Fatalf("%s: %d\n%s\nwant\n%s", tc.path, r.Status, r.Body, tc.want)
		}
		if ct := r.Header.Get("Content-Type"); ct != "application/json" {
			t.Fatalf("%s: content type %q", tc.path, ct)
		}
	}
}

func TestPasskeyCeremoniesAreRateLimitedPerIP(t *testing.T) {
	parallel(t)
	h := newHarness(t, profile{name: "memory"}, withPasskeys(), withEnv("TANDEM_RATE_LIMIT_IP", "5"))
	for range 5 {
		expect(t, h.post("/api/auth/passkeys/signin/options", "", nil), 200, "")
	}
	r := h.post("/api/auth/passkeys/signin/options", "", nil)
	expect(t, r, 429, "")
	if r.JSON(t)["code"] != "rate_limited" || r.Header.Get("Retry-After") == "" {
		t.Fatalf("want rate_limited with Retry-After: %s", r.Body)
	}
	// One budget for every auth route: the login is out of it too.
	expect(t, h.post("/api/auth/login/email", "", map[string]any{"email": "a@example.com", "password": "wrong-password"}), 429, "")
}

// TestPasskeyCeremoniesAcrossProcesses: a ceremony begun on one process
// finishes on another (the challenges are in the database), and a
// challenge spent on one is spent for all.
func TestPasskeyCeremoniesAcrossProcesses(t *testing.T) {
	eachSharedProfile(t, func(t *testing.T, p profile) {
		one := newHarness(t, p, withPasskeys())
		two := newHarness(t, p, withPasskeys(), sharingDB(one))
		ann := one.newUser("ann@example.com")
		k := newSoftKey(t)
		ch, uh := challengeOf(t, one.post("/api/auth/passkeys/register/options", ann.Token, nil))
		expect(t, two.post("/api/auth/passkeys/register/verify", ann.Token, k.create(ch, uh)), 200, "")
		signIn := two.signInOptions(t)
		answer := k.get(signIn)
		expect(t, one.post("/api/auth/passkeys/signin/verify", "", answer), 200, "")
		expect(t, two.post("/api/auth/passkeys/signin/verify", "", answer), 401, errPasskeyCredentials)
	})
}
