package accounts

import (
	"context"
	"fmt"
	"strings"
	"time"

	"tandem/core"
)

// Profile is what a person says about themselves: read and changed by the
// profile routes, stored with the account, shown by the console. A new
// field is its line here, its rule in Patch, and its Field.
type Profile struct {
	DisplayName string
	Nickname    string // "" for none
	Timezone    string // IANA name, "" for UTC
	// Locale is the BCP 47 tag the person reads in ("" for an account made
	// before there was one: English). It may name a language Tandem does not
	// speak; texts then take the closest one (core.Translator).
	Locale string
}

// The profile's limits, in characters.
const (
	MaxDisplayName = 100
	MaxNickname    = 40
)

// ProfileField is one field of a profile as an operator reads it: its API
// name and its value ("" for none).
type ProfileField struct{ Name, Value string }

// Fields are the profile's fields, in the API's order.
func (p Profile) Fields() []ProfileField {
	return []ProfileField{{"displayName", p.DisplayName}, {"nickname", p.Nickname}, {"timezone", p.Timezone},
		{"locale", p.Locale}}
}

// Profile returns the caller's account.
func (s *Service) Profile(ctx context.Context, userID string) (Account, error) {
	return s.account(ctx, userID)
}

// ProfileRead is the profile as its owner reads it (GET
// /api/users/user/{userId}): the account with its sign-in methods.
type ProfileRead struct {
	Account Account
	Methods []string
}

// ProfilePatch holds the fields a PATCH may change; nil means unchanged.
type ProfilePatch struct {
	DisplayName *string
	Nickname    *string
	Timezone    *string
	Locale      *string // a BCP 47 tag (core.ParseLocale)
}

func (s *Service) UpdateProfile(ctx context.Context, userID string, p ProfilePatch) (Account, error) {
	a, err := s.account(ctx, userID)
	if err != nil {
		return Account{}, err
	}
	before := a.Timezone
	if a.Profile, err = p.apply(a.Profile); err != nil {
		return Account{}, err
	}
	a.UpdatedAt = s.clock.Now()
	ids, n, err := s.waysOf(ctx, userID)
	if err != nil {
		return Account{}, err
	}
	put := profilePut(userID, profileOf(a, ids, n)) // the feed: the owner's profile (changes.go)
	if err := core.WriteWithChanges(ctx, s.bus, put, func(ctx context.Context) error { return s.repo.UpdateProfile(ctx, a) }); err != nil {
		return Account{}, err
	}
	if a.Timezone != before {
		s.bus.Publish(ctx, core.TimezoneChanged{UserID: userID, Timezone: a.Timezone})
	}
	return a, nil
}

// apply is to with p's changes, each checked by its field's rule.
func (p ProfilePatch) apply(to Profile) (Profile, error) {
	var err error
	if p.DisplayName != nil {
		if to.DisplayName, err = checkName("displayName", *p.DisplayName, MaxDisplayName); err != nil {
			return Profile{}, err
		}
	}
	if p.Nickname != nil {
		if to.Nickname, err = checkName("nickname", *p.Nickname, MaxNickname); err != nil {
			return Profile{}, err
		}
	}
	if p.Timezone != nil {
		if err := ValidateTimezone(*p.Timezone); err != nil {
			return Profile{}, err
		}
		to.Timezone = *p.Timezone
	}
	if p.Locale != nil {
		if to.Locale, err = core.ParseLocale(*p.Locale); err != nil {
			return Profile{}, err
		}
	}
	return to, nil
}

// checkName is the rule of the profile's names (displayName, nickname):
// trimmed, at most max characters, one line of text (core.CheckText).
func checkName(field, s string, max int) (string, error) {
	name := strings.TrimSpace(s)
	if len([]rune(name)) > max {
		return "", core.TooLong(field, max)
	}
	if err := core.CheckText(field, name, false); err != nil {
		return "", err
	}
	return name, nil
}

// Location is the user's timezone (UTC when unset), for modules that count days.
func (s *Service) Location(ctx context.Context, userID string) (*time.Location, error) {
	a, err := s.account(ctx, userID)
	if err != nil {
		return nil, err
	}
	if a.Timezone == "" {
		return time.UTC, nil
	}
	loc, err := time.LoadLocation(a.Timezone)
	if err != nil {
		return time.UTC, nil
	}
	return loc, nil
}

// Locale is the tag the user reads in ("en" when the account has none), for
// the modules that write to them.
func (s *Service) Locale(ctx context.Context, userID string) (string, error) {
	a, err := s.account(ctx, userID)
	if err != nil || a.Locale == "" {
		return "en", err
	}
	return a.Locale, nil
}

// Exists answers whether the account exists.
func (s *Service) Exists(ctx context.Context, userID string) (bool, error) {
	_, err := s.repo.Get(ctx, userID)
	if core.IsKind(err, core.KindNotFound) {
		return false, nil
	}
	return err == nil, err
}

// Delete purges the user's data in every module, then the account, then
// announces AccountDeleted. Purges are idempotent: a failure leaves the
// account in place and the deletion can simply be retried.
func (s *Service) Delete(ctx context.Context, userID string) error {
	if _, err := s.account(ctx, userID); err != nil {
		return err
	}
	for _, o := range s.owners {
		if err := o.PurgeUser(ctx, userID); err != nil {
			return fmt.Errorf("purge %s: %w", o.Section(), err)
		}
	}
	revoked, err := s.repo.Delete(ctx, userID)
	if err != nil {
		return err
	}
	s.cache.Forget(revoked...)
	s.wakeRevoker() // the identities' grants were queued for revocation with the account's deletion
	s.bus.Publish(ctx, core.AccountDeleted{UserID: userID})
	return nil
}

// Export gathers the account and every module's data of the user.
func (s *Service) Export(ctx context.Context, userID string) (Account, map[string]any, error) {
	a, err := s.account(ctx, userID)
	if err != nil {
		return Account{}, nil, err
	}
	out := make(map[string]any, len(s.owners))
	for _, o := range s.owners {
		v, err := o.ExportUser(ctx, userID)
		if err != nil {
			return Account{}, nil, fmt.Errorf("export %s: %w", o.Section(), err)
		}
		if v != nil { // nil: the owner has no section (the change feed)
			out[o.Section()] = v
		}
	}
	return a, out, nil
}

// Remember records a as the request's read memo answer for its account:
// a batch read (the home screen's) answers at once what the reads that
// follow (profiles, timezones) would ask. Without a memo it does nothing.
func Remember(ctx context.Context, a Account) { core.Remember(ctx, accountKey(a.ID), a, nil) }

func accountKey(userID string) string { return "accounts.account:" + userID }

func (s *Service) account(ctx context.Context, userID string) (Account, error) {
	if strings.TrimSpace(userID) == "" {
		return Account{}, core.Required("userId")
	}
	a, err := core.Memo(ctx, accountKey(userID), func() (Account, error) { return s.repo.Get(ctx, userID) })
	if core.IsKind(err, core.KindNotFound) {
		return Account{}, errUserNotFound()
	}
	return a, err
}

// Rules are the limits and patterns the API document names ("accounts.MaxEmail"):
// it states them by reading these, so a rule is written once, here.
var Rules = core.Rules{
	Limits: map[string]int{
		"MaxEmail":       MaxEmail,
		"MinPassword":    MinPassword,
		"MaxPassword":    MaxPassword,
		"MaxDisplayName": MaxDisplayName,
		"MaxNickname":    MaxNickname,
		"MaxTimezone":    MaxTimezone,
	},
	Patterns: map[string]string{
		"TimezonePattern": TimezonePattern,
	},
}
