package tests

import (
	"encoding/json"
	"strings"
	"testing"
)

// The passkey ceremonies as the document types them, for the apps that
// build the bodies by hand (iOS): the options the server sends, exactly;
// the answers it takes; the document's examples.

// TestPasskeyOptionsAreExactlyAsDocumented pins every member of both
// options (the harness validates each answer against the document too).
func TestPasskeyOptionsAreExactlyAsDocumented(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		ann := h.newUser("ann@example.com")
		params := `[{"type":"public-key","alg":-7},{"type":"public-key","alg":-35},{"type":"public-key","alg":-36},` +
			`{"type":"public-key","alg":-257},{"type":"public-key","alg":-258},{"type":"public-key","alg":-259},` +
			`{"type":"public-key","alg":-37},{"type":"public-key","alg":-38},{"type":"public-key","alg":-39},{"type":"public-key","alg":-8}]`
		creation := func(exclude string) string {
			return `{"success":true,"options":{"publicKey":{"rp":{"name":"Tandem","id":"` + passkeyRP + `"},` +
				`"user":{"name":"ann@example.com","displayName":"ann@example.com","id":"` + b64.EncodeToString([]byte(ann.ID)) + `"},` +
				`"challenge":"<string>","pubKeyCredParams":` + params + `,"timeout":300000,` + exclude +
				`"authenticatorSelection":{"requireResidentKey":true,"residentKey":"required"},"attestation":"none"}}}`
		}
		expect(t, h.post("/api/auth/passkeys/register/options", ann.Token, nil), 200, creation(""))
		k := newSoftKey(t)
		h.registerPasskey(t, ann, k)
		expect(t, h.post("/api/auth/passkeys/register/options", ann.Token, nil), 200,
			creation(`"excludeCredentials":[{"type":"public-key","id":"`+b64.EncodeToString(k.id)+`","transports":["internal"]}],`))
		expect(t, h.post("/api/auth/passkeys/signin/options", "", nil), 200,
			`{"success":true,"options":{"publicKey":{"challenge":"<string>","timeout":300000,"rpId":"`+passkeyRP+`","userVerification":"preferred"}}}`)
	}, withPasskeys())
}

// TestPasskeyAnswersMatchTheDocument: the answers the passkey tests post
// (a browser's toJSON()) are what the verify routes document; the
// document's examples validate; bodies the server refuses do not.
func TestPasskeyAnswersMatchTheDocument(t *testing.T) {
	parallel(t)
	c, err := loadContract()
	if err != nil {
		t.Fatal(err)
	}
	const registration, assertion = "/components/schemas/PasskeyRegistrationCredential", "/components/schemas/PasskeyAssertionCredential"
	k := newSoftKey(t)
	challenge := b64.EncodeToString([]byte("a challenge of thirty-two bytes."))
	created := k.create(challenge, b64.EncodeToString([]byte("01a22566-01c9-7d5e-a1ee-afc956839b33")))
	got := k.get(challenge)
	valid := func(pointer string, v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return c.bodies.validate(pointer, b)
	}
	if err := valid(registration, created); err != nil {
		t.Errorf("a registration answer: %v", err)
	}
	if err := valid(assertion, got); err != nil {
		t.Errorf("a sign-in answer: %v", err)
	}

	// The document's examples.
	for _, ex := range []struct{ path, pointer string }{
		{"/api/auth/passkeys/register/verify", registration},
		{"/api/auth/passkeys/signin/verify", assertion},
	} {
		media := c.doc.Paths.Find(ex.path).Post.RequestBody.Value.Content.Get("application/json")
		if media.Example == nil {
			t.Errorf("%s: no example", ex.path)
		} else if err := valid(ex.pointer, media.Example); err != nil {
			t.Errorf("%s: the example: %v", ex.path, err)
		}
	}
	for _, ex := range []struct{ path, pointer string }{
		{"/api/auth/passkeys/register/options", "/components/schemas/PasskeyCreationOptionsReply"},
		{"/api/auth/passkeys/signin/options", "/components/schemas/PasskeyRequestOptionsReply"},
	} {
		media := c.doc.Paths.Find(ex.path).Post.Responses.Status(200).Value.Content.Get("application/json")
		if media.Example == nil {
			t.Errorf("%s: no example", ex.path)
		} else if err := valid(ex.pointer, media.Example); err != nil {
			t.Errorf("%s: the example: %v", ex.path, err)
		}
	}

	// Refused by the document as by the server.
	edit := func(v map[string]any, f func(m map[string]any)) map[string]any {
		b, _ := json.Marshal(v)
		var out map[string]any
		_ = json.Unmarshal(b, &out)
		f(out)
		return out
	}
	response := func(m map[string]any) map[string]any { return m["response"].(map[string]any) }
	for name, v := range map[string]struct {
		pointer string
		body    map[string]any
	}{
		"standard base64 (+ and /)": {registration, edit(created, func(m map[string]any) {
			response(m)["clientDataJSON"] = strings.NewReplacer("-", "+", "_", "/").Replace(response(m)["clientDataJSON"].(string)) + "+/"
		})},
		"a padded id":             {registration, edit(created, func(m map[string]any) { m["id"] = m["id"].(string) + "=" })},
		"no attestation object":   {registration, edit(created, func(m map[string]any) { delete(response(m), "attestationObject") })},
		"another type":            {registration, edit(created, func(m map[string]any) { m["type"] = "password" })},
		"no user handle":          {assertion, edit(got, func(m map[string]any) { delete(response(m), "userHandle") })},
		"no signature":            {assertion, edit(got, func(m map[string]any) { delete(response(m), "signature") })},
		"a sign-in's answer":      {registration, got},
		"a registration's answer": {assertion, created},
	} {
		if err := valid(v.pointer, v.body); err == nil {
			t.Errorf("%s: the document takes it", name)
		}
	}
}
