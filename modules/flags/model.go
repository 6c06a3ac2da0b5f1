// Package flags holds server-side feature flags: their rules (global switch,
// user allow and deny lists, platforms, premium, gradual rollout) and the
// evaluation of a flag for one user on one platform.
package flags

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"tandem/core"
)

// The limits of a flag.
const (
	MaxKey         = 64
	MaxName        = 100  // characters
	MaxDescription = 1000 // characters
	MaxCreatedBy   = 255  // characters
	MaxUserID      = 64   // characters of one listed (or queried) user id
	MaxListedUsers = 1000 // ids in each of enabledForUserIds and disabledForUserIds
	// MaxRollout is a rollout of everyone: rolloutPercentage runs from 0 to
	// it, and a user's Bucket is below it.
	MaxRollout = 100
	// MaxFlags bounds how many flags exist, so that evaluating every flag
	// for a user (action=list) and listing them all stay bounded reads.
	MaxFlags = core.MaxListItems
)

// CodeTooMany is the code of RoomFor's refusal (the service words it).
const CodeTooMany = "too_many_flags"

// RoomFor is the rule of at most max flags: one more while fewer exist.
func RoomFor(max int) core.Room {
	return func(held int64) error {
		if held >= int64(max) {
			return core.Conflict(CodeTooMany, "flags.tooManyFlags", "too many flags")
		}
		return nil
	}
}

func isTooMany(err error) bool {
	return core.IsKind(err, core.KindConflict) && core.As(err).Code == CodeTooMany
}

// Flag is one feature flag. Platforms empty means every platform.
type Flag struct {
	ID                 string
	Key                string
	Name               string
	Description        string
	IsEnabled          bool
	EnabledForPremium  bool
	EnabledForUserIDs  []string // never nil once validated
	DisabledForUserIDs []string // never nil once validated
	RolloutPercentage  int      // 0 to 100
	Platforms          []Platform
	CreatedBy          string
	CreatedAt          time.Time
	UpdatedAt          time.Time
}

// Validate checks every rule a stored flag satisfies. The key is checked
// with the rule from before keys had to start with a letter or digit, so a
// flag stored then can still be changed and deleted.
func (f Flag) Validate() error {
	if err := validStoredKey(f.Key); err != nil {
		return err
	}
	switch {
	case f.Name == "":
		return core.Required("name")
	case utf8.RuneCountInString(f.Name) > MaxName:
		return core.TooLong("name", MaxName)
	case utf8.RuneCountInString(f.Description) > MaxDescription:
		return core.TooLong("description", MaxDescription)
	case utf8.RuneCountInString(f.CreatedBy) > MaxCreatedBy:
		return core.TooLong("createdBy", MaxCreatedBy)
	case f.RolloutPercentage < 0 || f.RolloutPercentage > MaxRollout:
		return errRollout()
	}
	if err := checkText(f); err != nil {
		return err
	}
	for _, p := range f.Platforms {
		if _, err := core.ParsePlatform(string(p)); err != nil {
			return err
		}
	}
	if _, err := NormalizeUserIDs("enabledForUserIds", f.EnabledForUserIDs); err != nil {
		return err
	}
	if _, err := NormalizeUserIDs("disabledForUserIds", f.DisabledForUserIDs); err != nil {
		return err
	}
	for _, id := range f.EnabledForUserIDs {
		if slices.Contains(f.DisabledForUserIDs, id) {
			return core.InvalidRequest("flags.userBothEnabledForUserIdsDisabledForUserIds", "user %q is in both enabledForUserIds and disabledForUserIds", id)
		}
	}
	return nil
}

// checkText refuses control and bidirectional override characters in the
// flag's texts (core.CheckText); only the description may hold line breaks.
func checkText(f Flag) error {
	if err := core.CheckText("name", f.Name, false); err != nil {
		return err
	}
	if err := core.CheckText("description", f.Description, true); err != nil {
		return err
	}
	return core.CheckText("createdBy", f.CreatedBy, false)
}

// KeyPattern is ValidateKey's rule as the API document states it (with
// maxLength MaxKey); StoredKeyPattern is validStoredKey's, its bound MaxKey.
const KeyPattern = `^[a-z0-9][a-z0-9_.-]*$`

var StoredKeyPattern = `^[a-z0-9_.-]{1,` + strconv.Itoa(MaxKey) + `}$`

// ValidateKey accepts a new flag's key: 1 to 64 characters of a-z, 0-9, _,
// . and -, the first a-z or 0-9. The first character rule keeps "." and
// ".." (which clients and proxies collapse as path segments) out of the
// console's /admin/flags/{key} URLs.
func ValidateKey(key string) error {
	if err := validStoredKey(key); err != nil {
		return err
	}
	if c := key[0]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
		return errBadKey()
	}
	return nil
}

// validStoredKey is the rule keys were created under before ValidateKey
// asked for a leading letter or digit: lookups, updates and cursors accept
// it so that a flag stored under it is not stranded.
func validStoredKey(key string) error {
	if len(key) == 0 || len(key) > MaxKey {
		return errBadKey()
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-') {
			return errBadKey()
		}
	}
	return nil
}

// Platform is where the app runs, one for every module.
type Platform = core.Platform

// NormalizePlatforms checks the platforms and drops repeats, keeping the
// first place; never nil.
func NormalizePlatforms(ps []string) ([]Platform, error) {
	out := make([]Platform, 0, len(ps))
	for _, s := range ps {
		p, err := core.ParsePlatform(s)
		if err != nil {
			return nil, core.InvalidRequest("flags.platformsMayHoldOnlyIos", "platforms may hold only ios, android and web")
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out, nil
}

// NormalizeUserIDs trims the ids, drops repeats, sorts them (byte order,
// as every store returns them) and checks them: at most MaxListedUsers, each
// 1 to MaxUserID characters without what core.CheckText refuses; field
// names the list in errors. Never nil for
// a valid list.
func NormalizeUserIDs(field string, ids []string) ([]string, error) {
	if len(ids) > MaxListedUsers {
		return nil, core.InvalidRequest("flags.mayHoldMostUserIds", "%s may hold at most {2|%[2]d user id|%[2]d user ids}", field, MaxListedUsers)
	}
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		id = strings.TrimSpace(id)
		if id == "" || utf8.RuneCountInString(id) > MaxUserID {
			return nil, core.InvalidRequest("flags.holdUserIds1Characters", "%s must hold user ids of 1 to {2|%[2]d character|%[2]d characters}", field, MaxUserID)
		}
		if err := core.CheckText(field, id, false); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// ParseRollout accepts a whole number from 0 to 100 (JSON sends numbers as
// float64; 50.0 is 50, 12.5 is refused).
func ParseRollout(x float64) (int, error) {
	if math.IsNaN(x) || x != math.Trunc(x) || x < 0 || x > MaxRollout {
		return 0, errRollout()
	}
	return int(x), nil
}

// Bucket places a user in one of 100 buckets of a flag: the first 8 bytes
// of SHA-256("flagKey:userId") as a big-endian number, mod 100. It depends
// on nothing else, so every call and every process agrees, and a user is in
// the rollout at p percent when Bucket < p: raising p never drops anyone.
func Bucket(flagKey, userID string) int {
	sum := sha256.Sum256([]byte(flagKey + ":" + userID))
	return int(binary.BigEndian.Uint64(sum[:8]) % MaxRollout)
}

// Listing is where a user stands in a flag's user lists.
type Listing uint8

const (
	Unlisted       Listing = iota
	ListedEnabled          // in enabledForUserIds
	ListedDisabled         // in disabledForUserIds
)

// Rule is a flag as evaluated for one user: its settings (lists left out)
// and where that user is listed.
type Rule struct {
	Flag    Flag
	Listing Listing
}

// Reason says which step of the evaluation decided.
type Reason string

const (
	ReasonUnknown      Reason = "unknown"
	ReasonDisabled     Reason = "disabled"
	ReasonDenied       Reason = "denied"
	ReasonAllowed      Reason = "allowed"
	ReasonPlatform     Reason = "platform"
	ReasonPremium      Reason = "premium"
	ReasonRolledOut    Reason = "rolled_out"
	ReasonNotRolledOut Reason = "not_rolled_out"
)

// Subject is who asks: a user id ("" for an anonymous caller) and a
// platform ("" when not given).
type Subject struct {
	UserID   string
	Platform Platform
}

// Evaluate decides a rule for s, in the documented order: unknown (nil) off;
// disabled off; denied off; allowed on; platforms set and s's platform not
// in them off; premium only and s not premium off; else on when s's bucket is
// below the rollout percentage. isPremium is called only when that step is
// reached. An anonymous subject is in no list, not premium, and in the
// rollout only at 100 percent, since it has no stable bucket.
func Evaluate(r *Rule, s Subject, isPremium func() (bool, error)) (bool, Reason, error) {
	switch {
	case r == nil:
		return false, ReasonUnknown, nil
	case !r.Flag.IsEnabled:
		return false, ReasonDisabled, nil
	case s.UserID != "" && r.Listing == ListedDisabled:
		return false, ReasonDenied, nil
	case s.UserID != "" && r.Listing == ListedEnabled:
		return true, ReasonAllowed, nil
	case len(r.Flag.Platforms) > 0 && !slices.Contains(r.Flag.Platforms, s.Platform):
		return false, ReasonPlatform, nil
	}
	if r.Flag.EnabledForPremium {
		premium := false
		if s.UserID != "" {
			var err error
			if premium, err = isPremium(); err != nil {
				return false, "", err
			}
		}
		if !premium {
			return false, ReasonPremium, nil
		}
	}
	in := r.Flag.RolloutPercentage >= MaxRollout || (s.UserID != "" && Bucket(r.Flag.Key, s.UserID) < r.Flag.RolloutPercentage)
	if in {
		return true, ReasonRolledOut, nil
	}
	return false, ReasonNotRolledOut, nil
}

// MaxPreviewSample bounds a rollout preview's sample.
const MaxPreviewSample = 100000

// Preview counts how many of n sample users f enables on platform: users
// "sample-1" to "sample-n", on no list, premium or not as premium says.
// Their buckets spread like real ids do, so an administrator sees what a
// rollout percentage means before saving it.
func Preview(f Flag, n int, platform Platform, premium bool) int {
	n = min(max(n, 0), MaxPreviewSample)
	rule := Rule{Flag: f}
	on := 0
	for i := 1; i <= n; i++ {
		s := Subject{UserID: "sample-" + strconv.Itoa(i), Platform: platform}
		ok, _, _ := Evaluate(&rule, s, func() (bool, error) { return premium, nil })
		if ok {
			on++
		}
	}
	return on
}

// Draft is a create request as sent. Absent booleans are false; an absent
// rolloutPercentage is 100 (everyone the other rules admit); absent lists
// and platforms are empty; an absent or blank createdBy is the caller's
// e-mail.
type Draft struct {
	Key                string
	Name               string
	Description        string
	IsEnabled          bool
	EnabledForPremium  bool
	RolloutPercentage  *float64
	Platforms          []string
	EnabledForUserIDs  []string
	DisabledForUserIDs []string
	CreatedBy          string
}

// Patch is an update request; nil fields stay as they are. The key, id and
// creator never change.
type Patch struct {
	Name               *string
	Description        *string
	IsEnabled          *bool
	EnabledForPremium  *bool
	RolloutPercentage  *float64
	Platforms          *[]string
	EnabledForUserIDs  *[]string
	DisabledForUserIDs *[]string
}

func (p Patch) empty() bool {
	return p.Name == nil && p.Description == nil && p.IsEnabled == nil && p.EnabledForPremium == nil &&
		p.RolloutPercentage == nil && p.Platforms == nil && p.EnabledForUserIDs == nil && p.DisabledForUserIDs == nil
}

// apply returns f with p's fields, validated as a whole.
func (p Patch) apply(f Flag) (Flag, error) {
	var err error
	if p.Name != nil {
		f.Name = strings.TrimSpace(*p.Name)
	}
	if p.Description != nil {
		f.Description = strings.TrimSpace(*p.Description)
	}
	if p.IsEnabled != nil {
		f.IsEnabled = *p.IsEnabled
	}
	if p.EnabledForPremium != nil {
		f.EnabledForPremium = *p.EnabledForPremium
	}
	if p.RolloutPercentage != nil {
		if f.RolloutPercentage, err = ParseRollout(*p.RolloutPercentage); err != nil {
			return Flag{}, err
		}
	}
	if p.Platforms != nil {
		if f.Platforms, err = NormalizePlatforms(*p.Platforms); err != nil {
			return Flag{}, err
		}
	}
	if p.EnabledForUserIDs != nil {
		if f.EnabledForUserIDs, err = NormalizeUserIDs("enabledForUserIds", *p.EnabledForUserIDs); err != nil {
			return Flag{}, err
		}
	}
	if p.DisabledForUserIDs != nil {
		if f.DisabledForUserIDs, err = NormalizeUserIDs("disabledForUserIds", *p.DisabledForUserIDs); err != nil {
			return Flag{}, err
		}
	}
	if f.Platforms == nil {
		f.Platforms = []Platform{}
	}
	if f.EnabledForUserIDs == nil {
		f.EnabledForUserIDs = []string{}
	}
	if f.DisabledForUserIDs == nil {
		f.DisabledForUserIDs = []string{}
	}
	return f, f.Validate()
}

// flag builds the flag d describes (without id, creator and times), validated.
func (d Draft) flag() (Flag, error) {
	if d.Key == "" {
		return Flag{}, core.Required("key")
	}
	if err := ValidateKey(d.Key); err != nil {
		return Flag{}, err
	}
	rollout := float64(MaxRollout)
	if d.RolloutPercentage != nil {
		rollout = *d.RolloutPercentage
	}
	p := Patch{Name: &d.Name, Description: &d.Description, IsEnabled: &d.IsEnabled,
		EnabledForPremium: &d.EnabledForPremium, RolloutPercentage: &rollout, Platforms: &d.Platforms,
		EnabledForUserIDs: &d.EnabledForUserIDs, DisabledForUserIDs: &d.DisabledForUserIDs}
	return p.apply(Flag{Key: d.Key})
}

// Cursor is a position in the key order of the flags: a page continues after it.
type Cursor struct{ Key string }

// String is the opaque form handed to clients.
func (c Cursor) String() string { return core.EncodeCursor(c.Key) }

// ParseCursor reverses Cursor.String; anything else is a 400.
func ParseCursor(s string) (Cursor, error) {
	parts, err := core.DecodeCursor(s, 1)
	if err != nil {
		return Cursor{}, err
	}
	if validStoredKey(parts[0]) != nil {
		return Cursor{}, core.Invalid("invalid_request", "core.cursorNotOneServerHanded", "cursor is not one this server handed out")
	}
	return Cursor{Key: parts[0]}, nil
}

// PageOf cuts fs, read in key order with one more than page.Size() asked
// for, to the page, and returns the next cursor when the caller pages and
// more follow. Repositories share it so every store pages alike.
func PageOf(fs []Flag, page core.Page) ([]Flag, string) {
	return core.CutPage(fs, page, func(f Flag) string { return Cursor{Key: f.Key}.String() })
}

func errBadKey() error {
	return core.InvalidRequest("flags.key164CharactersZ", "key must be 1 to 64 characters of a-z, 0-9, _, . and -, starting with a-z or 0-9")
}

func errRollout() error {
	return core.InvalidRequest("flags.rolloutPercentageWholeNumber0100", "rolloutPercentage must be a whole number from 0 to 100")
}

func errNotFound() error {
	return core.NotFound("not_found", "flags.featureFlagNotFound", "feature flag not found")
}

func errKeyTaken() error {
	return core.Conflict("conflict", "flags.featureFlagKeyAlreadyExists", "a feature flag with this key already exists")
}

func errTooMany() error {
	return core.Conflict("conflict", "flags.thereAlreadyFeatureFlagsDelete", "there {1|is already %[1]d feature flag|are already %[1]d feature flags}: delete one first", MaxFlags)
}
