package flags

import (
	"context"
	"strings"
	"unicode/utf8"

	"tandem/core"
)

// Service holds every feature-flag rule of the API (docs/api.md).
type Service struct {
	repo    Repository
	premium Premium
	clock   core.Clock
	ids     core.IDs
}

// NewService is a plain constructor, usable without fx.
func NewService(repo Repository, premium Premium, clock core.Clock, ids core.IDs) *Service {
	return &Service{repo: repo, premium: premium, clock: clock, ids: ids}
}

// Decision is one flag evaluated for one caller. Flag is nil for an
// unknown key.
type Decision struct {
	Key     string
	Enabled bool
	Reason  Reason
	Flag    *Flag // name and description; lists left out
}

// Evaluate decides whether the flag is on for the subject that userID and
// platform (both optional) resolve to (see Subject). An unknown key is off,
// not an error; a named userID that is no account is simply in no list and
// not premium.
func (s *Service) Evaluate(ctx context.Context, key, userID, platform string) (Decision, error) {
	if key == "" {
		return Decision{}, core.InvalidRequest("flags.flagRequiredKeyFeatureFlag", "flag is required: the key of a feature flag")
	}
	sub, err := s.Subject(ctx, userID, platform)
	if err != nil {
		return Decision{}, err
	}
	if ValidateKey(key) != nil {
		// no flag can have this key: it is unknown, so off, like any other
		return Decision{Key: key, Reason: ReasonUnknown}, nil
	}
	r, err := s.repo.RuleFor(ctx, key, sub.UserID)
	if core.IsKind(err, core.KindNotFound) {
		return Decision{Key: key, Reason: ReasonUnknown}, nil
	}
	if err != nil {
		return Decision{}, err
	}
	on, why, err := Evaluate(&r, sub, func() (bool, error) { return s.premium.IsPremium(ctx, sub.UserID) })
	if err != nil {
		return Decision{}, err
	}
	return Decision{Key: key, Enabled: on, Reason: why, Flag: &r.Flag}, nil
}

// EnabledFlags is the answer of Enabled: whom the flags were evaluated for
// ("" for an anonymous caller) and the keys of those that are on.
type EnabledFlags struct {
	Subject Subject
	Keys    []string // key order; never nil
}

// Enabled returns the keys of every flag that is on for the subject that
// userID and platform (both optional) resolve to (see Subject), in key
// order. Premium is asked at most once.
func (s *Service) Enabled(ctx context.Context, userID, platform string) (EnabledFlags, error) {
	sub, err := s.Subject(ctx, userID, platform)
	if err != nil {
		return EnabledFlags{}, err
	}
	rules, err := s.repo.RulesFor(ctx, sub.UserID)
	if err != nil {
		return EnabledFlags{}, err
	}
	var premium *bool
	isPremium := func() (bool, error) {
		if premium == nil {
			p, err := s.premium.IsPremium(ctx, sub.UserID)
			if err != nil {
				return false, err
			}
			premium = &p
		}
		return *premium, nil
	}
	out := EnabledFlags{Subject: sub, Keys: []string{}}
	for i := range rules {
		on, _, err := Evaluate(&rules[i], sub, isPremium)
		if err != nil {
			return EnabledFlags{}, err
		}
		if on {
			out.Keys = append(out.Keys, rules[i].Flag.Key)
		}
	}
	return out, nil
}

// Subject resolves whom a public read evaluates for, from the caller in ctx
// and the userID the query names (optional). An answer for a user tells
// whether they are premium and where they are listed, so:
//   - a signed-in caller gets their own answer; naming another user is 403,
//     except for administrators, who may evaluate for anyone;
//   - an anonymous caller is evaluated as nobody (in no list, not premium,
//     in a rollout only at 100 percent) whatever userID names: the app may
//     ask before anyone signs in, but never learns about a stranger.
func (s *Service) Subject(ctx context.Context, userID, platform string) (Subject, error) {
	if utf8.RuneCountInString(userID) > MaxUserID {
		return Subject{}, core.TooLong("userId", MaxUserID)
	}
	var sub Subject
	if platform != "" {
		p, err := core.ParsePlatform(platform)
		if err != nil {
			return Subject{}, err
		}
		sub.Platform = p
	}
	caller, ok := core.PrincipalFrom(ctx)
	switch {
	case !ok:
	case userID == "" || userID == caller.UserID:
		sub.UserID = caller.UserID
	case caller.Admin:
		sub.UserID = userID
	default:
		return Subject{}, core.Forbidden("forbidden", "flags.mayOnlyEvaluateFeatureFlags", "you may only evaluate feature flags for yourself")
	}
	return sub, nil
}

// List returns the flags with every field in key order (administrators),
// and the cursor of the next page, if any.
func (s *Service) List(ctx context.Context, page core.Page) ([]Flag, string, error) {
	if page.Cursor != "" {
		if _, err := ParseCursor(page.Cursor); err != nil {
			return nil, "", err
		}
	}
	fs, next, err := s.repo.List(ctx, page)
	if err != nil {
		return nil, "", err
	}
	if fs == nil {
		fs = []Flag{}
	}
	return fs, next, nil
}

// Get returns one flag with every field (administrators); 404 not_found
// when no flag has the key.
func (s *Service) Get(ctx context.Context, key string) (Flag, error) {
	if err := requireKey(key); err != nil {
		return Flag{}, err
	}
	f, err := s.repo.Get(ctx, key)
	return f, notFound(err)
}

// Create stores a new flag (administrators). createdBy is as sent, else
// the e-mail of the calling administrator. 409 conflict when the key is
// taken or MaxFlags flags exist.
func (s *Service) Create(ctx context.Context, d Draft) (Flag, error) {
	f, err := d.flag()
	if err != nil {
		return Flag{}, err
	}
	f.CreatedBy = strings.TrimSpace(d.CreatedBy)
	if f.CreatedBy == "" {
		if p, ok := core.PrincipalFrom(ctx); ok {
			f.CreatedBy = p.Email
		}
	}
	if err := f.Validate(); err != nil {
		return Flag{}, err
	}
	now := s.clock.Now()
	f.ID, f.CreatedAt, f.UpdatedAt = s.ids.New(), now, now
	switch err := s.repo.Create(ctx, f, RoomFor(MaxFlags)); {
	case isTooMany(err):
		return Flag{}, errTooMany()
	case core.IsKind(err, core.KindConflict):
		return Flag{}, errKeyTaken()
	case err != nil:
		return Flag{}, err
	}
	return f, nil
}

// Toggle sets the flag's global switch (administrators); isEnabled is required.
func (s *Service) Toggle(ctx context.Context, key string, isEnabled *bool) (Flag, error) {
	if err := requireKey(key); err != nil {
		return Flag{}, err
	}
	if isEnabled == nil {
		return Flag{}, core.InvalidRequest("flags.isEnabledRequiredTrueFalse", "isEnabled is required: true or false")
	}
	return s.update(ctx, key, Patch{IsEnabled: isEnabled})
}

// Update changes the given fields of the flag (administrators), checked
// together, all or nothing, and returns it complete.
func (s *Service) Update(ctx context.Context, key string, p Patch) (Flag, error) {
	if err := requireKey(key); err != nil {
		return Flag{}, err
	}
	if p.empty() {
		return Flag{}, core.InvalidRequest("flags.sendLeastOneNameDescription", "send at least one of name, description, isEnabled, enabledForPremium, "+
			"rolloutPercentage, platforms, enabledForUserIds, disabledForUserIds")
	}
	return s.update(ctx, key, p)
}

func (s *Service) update(ctx context.Context, key string, p Patch) (Flag, error) {
	now := s.clock.Now()
	f, err := s.repo.Update(ctx, key, func(f *Flag) error {
		next, err := p.apply(*f)
		if err != nil {
			return err
		}
		next.UpdatedAt = now
		*f = next
		return nil
	})
	return f, notFound(err)
}

// Delete removes the flag for good (administrators); it is then unknown,
// so off, everywhere.
func (s *Service) Delete(ctx context.Context, key string) error {
	if err := requireKey(key); err != nil {
		return err
	}
	return notFound(s.repo.Delete(ctx, key))
}

// Section, ExportUser and PurgeUser make the module a core.UserData owner:
// a user's data here is their place in flag lists.
func (s *Service) Section() string { return "featureFlags" }

// ExportedListings is the export: the keys of the flags that name the user
// in enabledForUserIds and in disabledForUserIds.
type ExportedListings struct {
	EnabledFor  []string
	DisabledFor []string
}

func (s *Service) ExportUser(ctx context.Context, userID string) (any, error) {
	rules, err := s.repo.RulesFor(ctx, userID)
	if err != nil {
		return nil, err
	}
	out := ExportedListings{EnabledFor: []string{}, DisabledFor: []string{}}
	for _, r := range rules {
		switch r.Listing {
		case ListedEnabled:
			out.EnabledFor = append(out.EnabledFor, r.Flag.Key)
		case ListedDisabled:
			out.DisabledFor = append(out.DisabledFor, r.Flag.Key)
		}
	}
	return out, nil
}

// PurgeUser removes the user from every flag's lists.
func (s *Service) PurgeUser(ctx context.Context, userID string) error {
	return s.repo.Unlist(ctx, userID)
}

func requireKey(key string) error {
	if key == "" {
		return core.Required("flagKey")
	}
	return validStoredKey(key) // a flag stored under the older rule stays reachable
}

// notFound gives a repository's not-found the module's message; other
// errors (an invalid patch, a database failure) pass unchanged.
func notFound(err error) error {
	if core.IsKind(err, core.KindNotFound) {
		return errNotFound()
	}
	return err
}
