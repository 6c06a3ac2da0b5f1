package httpapi

import (
	"github.com/gofiber/fiber/v2"

	"tandem/adapters/web"
	"tandem/core"
	"tandem/modules/flags"
)

var _ = documentRulesOf("flags", flags.Rules)

// flagsHandler serves the flags API. Its writes are the admin module's
// audited ones, as the console's are: the same state, the same record.
type flagsHandler struct {
	svc     *flags.Service
	audited *web.AuditedFlags
}

func NewFlagsHandler(svc *flags.Service, audited *web.AuditedFlags) *flagsHandler {
	return &flagsHandler{svc: svc, audited: audited}
}

// Register: reading a flag and the list of enabled flags are public (the
// app asks before anyone signs in), answered for the caller's token, or for
// nobody without one (flags.Service.Subject); action=all and every write are
// for administrators.
func (h *flagsHandler) Register(r fiber.Router) {
	r.Get("/api/feature-flags", h.get)
	r.Post("/api/feature-flags", requireAdmin, h.post)
}

// Response bodies. Field names are the app's contract: do not rename.
type flagCheckReply struct {
	Enabled bool          `json:"enabled"`
	Message string        `json:"message"`
	FlagKey string        `json:"flagKey"`
	Flag    *flagInfoJSON `json:"flag"` // null for an unknown flag
}

type flagInfoJSON struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

type enabledFlagsReply struct {
	UserID       *string  `json:"userId"`
	EnabledFlags []string `json:"enabledFlags"`
	Platform     *string  `json:"platform"`
}

// flagJSON is a flag with every field (administrators).
type flagJSON struct {
	ID                 string   `json:"id"`
	Key                string   `json:"key"`
	Name               string   `json:"name"`
	Description        string   `json:"description"`
	IsEnabled          bool     `json:"isEnabled"`
	EnabledForPremium  bool     `json:"enabledForPremium"`
	EnabledForUserIDs  []string `json:"enabledForUserIds"`
	DisabledForUserIDs []string `json:"disabledForUserIds"`
	RolloutPercentage  int      `json:"rolloutPercentage"`
	Platforms          []string `json:"platforms"`
	CreatedBy          string   `json:"createdBy"`
	CreatedAt          int64    `json:"createdAt"`
	UpdatedAt          int64    `json:"updatedAt"`
}

type flagCreatedReply struct {
	Success bool   `json:"success"`
	Created bool   `json:"created"`
	FlagID  string `json:"flagId"`
	Message string `json:"message"`
}

type flagToggledReply struct {
	Success   bool   `json:"success"`
	FlagKey   string `json:"flagKey"`
	IsEnabled bool   `json:"isEnabled"`
	Message   string `json:"message"`
}

type flagUpdatedReply struct {
	Success bool     `json:"success"`
	Updated bool     `json:"updated"`
	Flag    flagJSON `json:"flag"`
	Message string   `json:"message"`
}

type flagDeletedReply struct {
	Success bool   `json:"success"`
	Deleted bool   `json:"deleted"`
	FlagKey string `json:"flagKey"`
	Message string `json:"message"`
}

type flagListReply struct {
	Success bool       `json:"success"`
	Flags   []flagJSON `json:"flags"`
}

// flagListingsExportJSON is the account export's part: the keys of the
// flags that list the user as enabled and as disabled.
type flagListingsExportJSON struct {
	EnabledFor  []string `json:"enabledFor"`
	DisabledFor []string `json:"disabledFor"`
}

// toFlagListingsExportJSON renders the account export's flags section (export.go).
var _ = exportSection(toFlagListingsExportJSON)

func toFlagListingsExportJSON(l flags.ExportedListings) flagListingsExportJSON {
	return flagListingsExportJSON{EnabledFor: nonNil(l.EnabledFor), DisabledFor: nonNil(l.DisabledFor)}
}

// nonNil renders a nil list as [].
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// FlagRecord is a flag as the audit log keeps it: as the API renders it.
func FlagRecord(f flags.Flag) any { return toFlagJSON(f) }

func toFlagJSON(f flags.Flag) flagJSON {
	ps := make([]string, len(f.Platforms))
	for i, p := range f.Platforms {
		ps[i] = string(p)
	}
	return flagJSON{ID: f.ID, Key: f.Key, Name: f.Name, Description: f.Description, IsEnabled: f.IsEnabled,
		EnabledForPremium: f.EnabledForPremium, EnabledForUserIDs: nonNil(f.EnabledForUserIDs),
		DisabledForUserIDs: nonNil(f.DisabledForUserIDs), RolloutPercentage: f.RolloutPercentage, Platforms: ps,
		CreatedBy: f.CreatedBy, CreatedAt: core.Millis(f.CreatedAt), UpdatedAt: core.Millis(f.UpdatedAt)}
}

func (h *flagsHandler) get(c *fiber.Ctx) error {
	ctx, userID, platform := c.UserContext(), c.Query("userId"), c.Query("platform")
	if err, ok := c.Locals(localAuthErr).(error); ok {
		return err // a token was sent and is bad: an anonymous answer would mislead the app
	}
	switch action := c.Query("action"); action {
	case "":
		d, err := h.svc.Evaluate(ctx, c.Query("flag"), userID, platform)
		if err != nil {
			return err
		}
		r := flagCheckReply{Enabled: d.Enabled, Message: reasonMessage(c, d.Reason), FlagKey: d.Key}
		if d.Flag != nil {
			r.Flag = &flagInfoJSON{Name: d.Flag.Name, Description: d.Flag.Description}
		}
		return c.JSON(r)
	case "list":
		got, err := h.svc.Enabled(ctx, userID, platform)
		if err != nil {
			return err
		}
		return c.JSON(enabledFlagsReply{UserID: orNull(got.Subject.UserID), EnabledFlags: got.Keys, Platform: orNull(platform)})
	case "all":
		if err := adminOnly(c); err != nil {
			return err
		}
		page, err := parsePage(c)
		if err != nil {
			return err
		}
		fs, next, err := h.svc.List(ctx, page)
		if err != nil {
			return err
		}
		out := make([]flagJSON, 0, len(fs))
		for _, f := range fs {
			out = append(out, toFlagJSON(f))
		}
		setNextCursor(c, next)
		return c.JSON(flagListReply{Success: true, Flags: out})
	default:
		return core.Invalid("invalid_request", "httpapi.unknownActionUseListAll", "unknown action %q: use list or all, or flag=<key> without action", action)
	}
}

// reasonMessage is the human-readable form of the step that decided a flag.
func reasonMessage(c *fiber.Ctx, r flags.Reason) string {
	switch r {
	case flags.ReasonUnknown:
		return say(c, "flags.featureFlagNotFound", "feature flag not found")
	case flags.ReasonDisabled:
		return say(c, "httpapi.featureDisabled", "feature is disabled")
	case flags.ReasonDenied:
		return say(c, "httpapi.featureDisabledUser", "feature is disabled for this user")
	case flags.ReasonAllowed:
		return say(c, "httpapi.featureEnabledUser", "feature is enabled for this user")
	case flags.ReasonPlatform:
		return say(c, "httpapi.featureNotAvailablePlatform", "feature is not available on this platform")
	case flags.ReasonPremium:
		return say(c, "httpapi.featurePremiumUsers", "feature is for premium users")
	case flags.ReasonRolledOut:
		return say(c, "httpapi.featureEnabled", "feature is enabled")
	}
	return say(c, "httpapi.featureNotYetEnabledUser", "feature is not yet enabled for this user")
}

// adminOnly is requireAdmin for the one branch (action=all) of a route that
// is otherwise public: 401 without a token, 403 for anyone else.
func adminOnly(c *fiber.Ctx) error {
	p, err := principal(c)
	if err != nil {
		return err
	}
	if !p.Admin {
		return core.Forbidden("forbidden", "admin.administratorsOnly", "administrators only")
	}
	return nil
}

// flagRequest is every POST body, told apart by action: create names the
// flag key, toggle, update and delete name flagKey.
type flagRequest struct {
	Action             *string   `json:"action"`
	Key                *string   `json:"key"`
	FlagKey            *string   `json:"flagKey"`
	Name               *string   `json:"name"`
	Description        *string   `json:"description"`
	IsEnabled          *bool     `json:"isEnabled"`
	EnabledForPremium  *bool     `json:"enabledForPremium"`
	RolloutPercentage  *float64  `json:"rolloutPercentage"`
	Platforms          *[]string `json:"platforms"`
	EnabledForUserIDs  *[]string `json:"enabledForUserIds"`
	DisabledForUserIDs *[]string `json:"disabledForUserIds"`
	CreatedBy          *string   `json:"createdBy"`
}

func (in flagRequest) draft() flags.Draft {
	d := flags.Draft{Key: str(in.Key), Name: str(in.Name), Description: str(in.Description),
		RolloutPercentage: in.RolloutPercentage, CreatedBy: str(in.CreatedBy)}
	if in.IsEnabled != nil {
		d.IsEnabled = *in.IsEnabled
	}
	if in.EnabledForPremium != nil {
		d.EnabledForPremium = *in.EnabledForPremium
	}
	if in.Platforms != nil {
		d.Platforms = *in.Platforms
	}
	if in.EnabledForUserIDs != nil {
		d.EnabledForUserIDs = *in.EnabledForUserIDs
	}
	if in.DisabledForUserIDs != nil {
		d.DisabledForUserIDs = *in.DisabledForUserIDs
	}
	return d
}

func (in flagRequest) patch() flags.Patch {
	return flags.Patch{Name: in.Name, Description: in.Description, IsEnabled: in.IsEnabled,
		EnabledForPremium: in.EnabledForPremium, RolloutPercentage: in.RolloutPercentage, Platforms: in.Platforms,
		EnabledForUserIDs: in.EnabledForUserIDs, DisabledForUserIDs: in.DisabledForUserIDs}
}

func (h *flagsHandler) post(c *fiber.Ctx) error {
	var in flagRequest
	if err := BindJSON(c, &in); err != nil {
		return err
	}
	ctx, key := c.UserContext(), str(in.FlagKey)
	switch action := str(in.Action); action {
	case "create":
		f, err := h.audited.Create(ctx, in.draft())
		if err != nil {
			return err
		}
		return c.JSON(flagCreatedReply{Success: true, Created: true, FlagID: f.ID, Message: say(c, "httpapi.featureFlagCreated", "feature flag created")})
	case "toggle":
		f, err := h.audited.Toggle(ctx, key, in.IsEnabled)
		if err != nil {
			return err
		}
		msg := say(c, "httpapi.featureFlagDisabled", "feature flag disabled")
		if f.IsEnabled {
			msg = say(c, "httpapi.featureFlagEnabled", "feature flag enabled")
		}
		return c.JSON(flagToggledReply{Success: true, FlagKey: f.Key, IsEnabled: f.IsEnabled, Message: msg})
	case "update":
		f, err := h.audited.Update(ctx, key, in.patch())
		if err != nil {
			return err
		}
		return c.JSON(flagUpdatedReply{Success: true, Updated: true, Flag: toFlagJSON(f), Message: say(c, "httpapi.featureFlagUpdated", "feature flag updated")})
	case "delete":
		if err := h.audited.Delete(ctx, key); err != nil {
			return err
		}
		return c.JSON(flagDeletedReply{Success: true, Deleted: true, FlagKey: key, Message: say(c, "httpapi.featureFlagDeleted", "feature flag deleted")})
	default:
		return checkAction(action, "create", "toggle", "update", "delete")
	}
}
