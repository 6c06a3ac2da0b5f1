// Package versions holds app version checks: one update policy per platform
// (minimum, recommended and latest version, store link, message) and the
// verdict it gives a client: update required, recommended, optional or none.
package versions

import (
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"tandem/core"
)

// Platform is where the app runs, one for every module.
type Platform = core.Platform

// The limits of a policy's texts and of what a client sends.
const (
	MaxUpdateMessage = 500   // characters
	MaxReleaseNotes  = 10000 // characters
	MaxDownloadURL   = 2048  // bytes
	MaxUserID        = 64    // characters of the optional userId of a check
	MaxDeviceField   = 200   // characters of each deviceInfo field
	MaxBuildNumber   = 999999999
)

// Policy is the update policy of one platform: versions below MinRequired
// must update, below Recommended are prompted, below Latest may update.
// From DeprecationDate on, Recommended is the minimum too.
type Policy struct {
	Platform        Platform
	MinRequired     core.Version
	Recommended     core.Version
	Latest          core.Version
	DownloadURL     string // an https link to the app store page
	UpdateMessage   string
	ReleaseNotes    string    // "" when none
	DeprecationDate time.Time // zero when none
	UpdatedAt       time.Time
}

// Validate checks every rule a stored policy satisfies.
func (p Policy) Validate() error {
	if _, err := core.ParsePlatform(string(p.Platform)); err != nil {
		return err
	}
	if p.MinRequired.Compare(p.Recommended) > 0 || p.Recommended.Compare(p.Latest) > 0 {
		return core.InvalidRequest("versions.versionsSatisfyMinRequiredVersionRecommendedVersionLatestVersion", "versions must satisfy minRequiredVersion ≤ recommendedVersion ≤ latestVersion")
	}
	if err := validateDownloadURL(p.DownloadURL); err != nil {
		return err
	}
	switch {
	case strings.TrimSpace(p.UpdateMessage) == "":
		return core.Required("updateMessage")
	case utf8.RuneCountInString(p.UpdateMessage) > MaxUpdateMessage:
		return core.TooLong("updateMessage", MaxUpdateMessage)
	case utf8.RuneCountInString(p.ReleaseNotes) > MaxReleaseNotes:
		return core.TooLong("releaseNotes", MaxReleaseNotes)
	case !p.DeprecationDate.IsZero() && (p.DeprecationDate.Unix() < 0 || p.DeprecationDate.Year() > 9999):
		return core.InvalidRequest("versions.deprecationDateMillisecondsBetween19709999", "deprecationDate must be milliseconds between 1970 and 9999")
	}
	if err := core.CheckText("updateMessage", p.UpdateMessage, true); err != nil {
		return err
	}
	return core.CheckText("releaseNotes", p.ReleaseNotes, true)
}

// DownloadURLPattern is the closest outer bound of validateDownloadURL the
// API document states: https:// and a host's first character, spaces
// around it trimmed.
const DownloadURLPattern = `^[` + core.SpaceClass + `]*[Hh][Tt][Tt][Pp][Ss]://[^\s/?#@]`

// validateDownloadURL accepts an absolute https URL with a host.
func validateDownloadURL(s string) error {
	if s == "" {
		return core.Required("downloadUrl")
	}
	u, err := url.Parse(s)
	if len(s) > MaxDownloadURL || err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil ||
		strings.ContainsAny(s, " \t\r\n") {
		return core.InvalidRequest("versions.downloadUrlHttpsURLMost2048", "downloadUrl must be an https URL of at most 2048 characters")
	}
	return nil
}

// minimumAt is the lowest version allowed at now: MinRequired, or
// Recommended once the deprecation date has come.
func (p Policy) minimumAt(now time.Time) core.Version {
	if !p.DeprecationDate.IsZero() && !now.Before(p.DeprecationDate) {
		return p.Recommended
	}
	return p.MinRequired
}

// PolicyDraft is a policy as an administrator sends it: versions as text.
type PolicyDraft struct {
	MinRequiredVersion string
	RecommendedVersion string
	LatestVersion      string
	DownloadURL        string
	UpdateMessage      string
	ReleaseNotes       string
	DeprecationDate    *time.Time // nil: none
}

// policy builds the policy d describes for platform, validated.
func (d PolicyDraft) policy(platform Platform) (Policy, error) {
	p := Policy{Platform: platform, DownloadURL: strings.TrimSpace(d.DownloadURL),
		UpdateMessage: strings.TrimSpace(d.UpdateMessage), ReleaseNotes: strings.TrimSpace(d.ReleaseNotes)}
	var err error
	if p.MinRequired, err = parseVersion("minRequiredVersion", d.MinRequiredVersion); err != nil {
		return Policy{}, err
	}
	if p.Recommended, err = parseVersion("recommendedVersion", d.RecommendedVersion); err != nil {
		return Policy{}, err
	}
	if p.Latest, err = parseVersion("latestVersion", d.LatestVersion); err != nil {
		return Policy{}, err
	}
	if d.DeprecationDate != nil {
		p.DeprecationDate = d.DeprecationDate.UTC()
	}
	return p, p.Validate()
}

// parseVersion reads a required version field; field names it in the error.
func parseVersion(field, s string) (core.Version, error) {
	if strings.TrimSpace(s) == "" {
		return core.Version{}, core.Required(field)
	}
	v, err := core.ParseVersion(s)
	if err != nil {
		return core.Version{}, core.Invalid("invalid_version", "versions.notVersionMAJORMINORPATCH", "%s %q is not a version MAJOR.MINOR.PATCH", field, s)
	}
	return v, nil
}

// DeviceInfo describes the client's device; it is checked, never stored.
type DeviceInfo struct {
	OS          string
	OSVersion   string
	DeviceModel string
	AppVersion  string
}

// Client is a version check request as sent.
type Client struct {
	Platform       string
	CurrentVersion string
	// BuildNumber is the separate build number, nil when not sent. A build
	// in the version ("1.2.3+45") is the same thing: both must agree.
	BuildNumber *int
	UserID      string // optional; only checked
	DeviceInfo  *DeviceInfo
}

// version parses the client's version and build.
func (c Client) version() (core.Version, error) {
	if strings.TrimSpace(c.CurrentVersion) == "" {
		return core.Version{}, core.Required("currentVersion")
	}
	v, err := core.ParseVersion(c.CurrentVersion)
	if err != nil {
		return core.Version{}, err
	}
	if c.BuildNumber != nil {
		n := *c.BuildNumber
		switch {
		case n < 0 || n > MaxBuildNumber:
			return core.Version{}, core.Invalid("invalid_version", "versions.buildNumberWholeNumber0", "the build number must be a whole number from 0 to 999999999")
		case v.Build != 0 && v.Build != n:
			return core.Version{}, core.Invalid("invalid_version", "versions.buildVersionBuildNumberDisagree", "the build in the version and the build number disagree")
		}
		v.Build = n
	}
	return v, nil
}

// validate checks the optional fields, which the check does not use.
func (c Client) validate() error {
	if utf8.RuneCountInString(c.UserID) > MaxUserID {
		return core.TooLong("userId", MaxUserID)
	}
	if d := c.DeviceInfo; d != nil {
		for _, f := range []string{d.OS, d.OSVersion, d.DeviceModel, d.AppVersion} {
			if utf8.RuneCountInString(f) > MaxDeviceField {
				return core.InvalidRequest("versions.eachDeviceInfoFieldMostCharacters", "each deviceInfo field must be at most {1|%[1]d character|%[1]d characters}", MaxDeviceField)
			}
		}
	}
	return nil
}

// UpdateType is the verdict of a check; UpdateNone when the client is up to date.
type UpdateType string

const (
	UpdateNone        UpdateType = ""
	UpdateOptional    UpdateType = "optional"
	UpdateRecommended UpdateType = "recommended"
	UpdateRequired    UpdateType = "required"
)

// Result is the answer of a version check.
type Result struct {
	Type        UpdateType
	Current     core.Version
	MinRequired core.Version // the minimum in force (Recommended after the deprecation date)
	Recommended core.Version
	Latest      core.Version
	Message     string // the policy's updateMessage when an update is offered, else ""
	// ReleaseNotes are the policy's notes when an update is offered; "" otherwise.
	ReleaseNotes string
	DownloadURL  string
	// DeprecationDate is the policy's, shown to clients below Recommended
	// (zero otherwise or when the policy has none).
	DeprecationDate time.Time
}

// UpdateRequired, UpdateRecommended and CanContinue mirror Type: exactly
// one kind of update is reported, and only a required one blocks the app.
func (r Result) UpdateRequired() bool    { return r.Type == UpdateRequired }
func (r Result) UpdateRecommended() bool { return r.Type == UpdateRecommended }
func (r Result) CanContinue() bool       { return r.Type != UpdateRequired }

// decide applies p to the client's version v at now. Without a policy
// (nil) nothing newer is known: no update, and every version is v.
func decide(p *Policy, v core.Version, now time.Time) Result {
	if p == nil {
		return Result{Current: v, MinRequired: v, Recommended: v, Latest: v}
	}
	r := Result{Current: v, MinRequired: p.minimumAt(now), Recommended: p.Recommended, Latest: p.Latest,
		DownloadURL: p.DownloadURL}
	switch {
	case below(v, r.MinRequired):
		r.Type = UpdateRequired
	case below(v, p.Recommended):
		r.Type = UpdateRecommended
	case below(v, p.Latest):
		r.Type = UpdateOptional
	}
	if r.Type != UpdateNone {
		r.Message, r.ReleaseNotes = p.UpdateMessage, p.ReleaseNotes
	}
	if below(v, p.Recommended) {
		r.DeprecationDate = p.DeprecationDate
	}
	return r
}

// below reports whether v is older than target. A client that sent no build
// (Build 0) is compared on MAJOR.MINOR.PATCH only, so a policy that names a
// build never forces an update on a client that cannot report one.
func below(v, target core.Version) bool {
	if v.Build == 0 {
		target.Build = 0
	}
	return v.Compare(target) < 0
}

func errNoPolicy(p Platform) error {
	return core.NotFound("not_found", "versions.noVersionPolicy", "no version policy for %s", string(p))
}
