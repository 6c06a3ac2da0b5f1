// Package webauthn is the passkeys module's relying party
// (passkeys.Ceremonies) on github.com/go-webauthn/webauthn: it builds the
// ceremonies' options, keeps their session data as JSON and verifies the
// clients' answers. The rules (who, when, how often) are the module's.
package webauthn

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/go-webauthn/webauthn/protocol"
	wa "github.com/go-webauthn/webauthn/webauthn"

	"tandem/modules/passkeys"
)

var _ passkeys.Ceremonies = (*RP)(nil)

// Config is TANDEM_PASSKEYS: the relying party id (a domain), its display
// name, and the origins the clients' answers may come from: web origins
// (https://..., http://localhost...) and the apps' opaque ones
// (android:apk-key-hash:...).
type Config struct {
	RPID        string
	DisplayName string
	Origins     []string
}

// RP is the relying party.
type RP struct{ w *wa.WebAuthn }

// New checks cfg through the library's own validation.
func New(cfg Config) (*RP, error) {
	c := &wa.Config{RPID: cfg.RPID, RPDisplayName: cfg.DisplayName}
	if c.RPDisplayName == "" {
		c.RPDisplayName = cfg.RPID
	}
	for _, o := range cfg.Origins {
		if strings.HasPrefix(o, "http://") || strings.HasPrefix(o, "https://") {
			c.RPOrigins = append(c.RPOrigins, o)
		} else {
			c.RPOpaqueOrigins = append(c.RPOpaqueOrigins, o)
		}
	}
	w, err := wa.New(c)
	if err != nil {
		return nil, err
	}
	return &RP{w: w}, nil
}

// user is a passkey holder as the library sees one: the WebAuthn user
// handle is the account id, which sign-in reads back.
type user struct {
	h     passkeys.Holder
	creds []wa.Credential
}

func (u user) WebAuthnID() []byte                   { return []byte(u.h.UserID) }
func (u user) WebAuthnName() string                 { return u.h.Name }
func (u user) WebAuthnDisplayName() string          { return u.h.DisplayName }
func (u user) WebAuthnCredentials() []wa.Credential { return u.creds }

func newUser(h passkeys.Holder, keys []passkeys.Passkey) (user, error) {
	u := user{h: h, creds: make([]wa.Credential, 0, len(keys))}
	for _, k := range keys {
		c, err := credential(k)
		if err != nil {
			return user{}, err
		}
		u.creds = append(u.creds, c)
	}
	return u, nil
}

// credential is the library's record of k: its details, with the columns
// (id, key, counter) authoritative.
func credential(k passkeys.Passkey) (wa.Credential, error) {
	var c wa.Credential
	if len(k.Details) > 0 {
		if err := json.Unmarshal(k.Details, &c); err != nil {
			return wa.Credential{}, fmt.Errorf("passkey %s: details: %w", k.ID, err)
		}
	}
	c.ID, c.PublicKey, c.Authenticator.SignCount = k.CredentialID, k.PublicKey, k.SignCount
	return c, nil
}

// passkey is what is stored of c: details without the columns' values.
func passkey(c *wa.Credential) (passkeys.Passkey, error) {
	p := passkeys.Passkey{CredentialID: c.ID, PublicKey: c.PublicKey, SignCount: c.Authenticator.SignCount}
	d := *c
	d.ID, d.PublicKey = nil, nil
	d.Authenticator.SignCount, d.Authenticator.CloneWarning = 0, false
	b, err := json.Marshal(d)
	if err != nil {
		return passkeys.Passkey{}, err
	}
	p.Details = b
	return p, nil
}

func options(v any, s *wa.SessionData) (passkeys.Options, error) {
	js, err := json.Marshal(v)
	if err != nil {
		return passkeys.Options{}, err
	}
	sess, err := json.Marshal(s)
	if err != nil {
		return passkeys.Options{}, err
	}
	return passkeys.Options{JSON: js, Challenge: s.Challenge, Session: sess}, nil
}

// BeginRegistration asks for a discoverable credential (a passkey signs in
// without a name typed), user verification preferred, none of the user's
// authenticators again.
func (rp *RP) BeginRegistration(h passkeys.Holder, existing []passkeys.Passkey) (passkeys.Options, error) {
	u, err := newUser(h, existing)
	if err != nil {
		return passkeys.Options{}, err
	}
	exclude := make([]protocol.CredentialDescriptor, len(u.creds))
	for i := range u.creds {
		exclude[i] = u.creds[i].Descriptor()
	}
	cc, s, err := rp.w.BeginRegistration(u,
		wa.WithResidentKeyRequirement(protocol.ResidentKeyRequirementRequired),
		wa.WithExclusions(exclude),
		wa.WithConveyancePreference(protocol.PreferNoAttestation))
	if err != nil {
		return passkeys.Options{}, err
	}
	return options(cc, s)
}

func (rp *RP) ParseRegistration(body []byte) (passkeys.Answer, error) {
	p, err := protocol.ParseCredentialCreationResponseBytes(body)
	if err != nil {
		return passkeys.Answer{}, err
	}
	return passkeys.Answer{Challenge: p.Response.CollectedClientData.Challenge, CredentialID: p.RawID, Parsed: p}, nil
}

// finishing is what both Finish steps start from: the library's user and
// the ceremony's session.
func finishing(h passkeys.Holder, keys []passkeys.Passkey, sess []byte) (user, wa.SessionData, error) {
	u, err := newUser(h, keys)
	if err != nil {
		return user{}, wa.SessionData{}, err
	}
	var s wa.SessionData
	if err := json.Unmarshal(sess, &s); err != nil {
		return user{}, wa.SessionData{}, fmt.Errorf("session data: %w", err)
	}
	return u, s, nil
}

func (rp *RP) FinishRegistration(h passkeys.Holder, existing []passkeys.Passkey, sess []byte, a passkeys.Answer) (passkeys.Passkey, error) {
	u, s, err := finishing(h, existing, sess)
	if err != nil {
		return passkeys.Passkey{}, err
	}
	p, ok := a.Parsed.(*protocol.ParsedCredentialCreationData)
	if !ok {
		return passkeys.Passkey{}, errors.New("not a registration answer")
	}
	c, err := rp.w.CreateCredential(u, s, p)
	if err != nil {
		return passkeys.Passkey{}, err
	}
	return passkey(c)
}

// BeginSignIn asks for any discoverable credential of this relying party.
func (rp *RP) BeginSignIn() (passkeys.Options, error) {
	ca, s, err := rp.w.BeginDiscoverableLogin(wa.WithUserVerification(protocol.VerificationPreferred))
	if err != nil {
		return passkeys.Options{}, err
	}
	return options(ca, s)
}

func (rp *RP) ParseSignIn(body []byte) (passkeys.Answer, error) {
	p, err := protocol.ParseCredentialRequestResponseBytes(body)
	if err != nil {
		return passkeys.Answer{}, err
	}
	return passkeys.Answer{Challenge: p.Response.CollectedClientData.Challenge, CredentialID: p.RawID,
		UserHandle: p.Response.UserHandle, Parsed: p}, nil
}

// FinishSignIn verifies the assertion; the library updates the counter and
// flags and warns of a counter that did not move forward, which refuses
// the sign-in (the module checks the counter again under the row's lock).
func (rp *RP) FinishSignIn(h passkeys.Holder, key passkeys.Passkey, sess []byte, a passkeys.Answer) (passkeys.Passkey, error) {
	u, s, err := finishing(h, []passkeys.Passkey{key}, sess)
	if err != nil {
		return passkeys.Passkey{}, err
	}
	p, ok := a.Parsed.(*protocol.ParsedCredentialAssertionData)
	if !ok {
		return passkeys.Passkey{}, errors.New("not a sign-in answer")
	}
	_, c, err := rp.w.ValidatePasskeyLogin(func(_, _ []byte) (wa.User, error) { return u, nil }, s, p)
	if err != nil {
		return passkeys.Passkey{}, err
	}
	if c.Authenticator.CloneWarning {
		return passkeys.Passkey{}, errors.New("the signature counter did not move forward: a cloned authenticator?")
	}
	out, err := passkey(c)
	if err != nil {
		return passkeys.Passkey{}, err
	}
	out.ID, out.UserID, out.CreatedAt, out.LastUsedAt = key.ID, key.UserID, key.CreatedAt, key.LastUsedAt
	return out, nil
}
