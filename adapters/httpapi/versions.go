package httpapi

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"tandem/adapters/web"
	"tandem/core"
	"tandem/modules/versions"
)

var _ = documentRulesOf("versions", versions.Rules)

// versionsHandler serves the version checks and policies. A policy is set
// through the admin module's audited write, as the console's and the
// command line's are.
type versionsHandler struct {
	svc      *versions.Service
	policies *web.AuditedPolicies
}

func NewVersionsHandler(svc *versions.Service, policies *web.AuditedPolicies) *versionsHandler {
	return &versionsHandler{svc: svc, policies: policies}
}

// Register: the checks are public (the app asks before anyone signs in);
// the policy routes are for administrators.
func (h *versionsHandler) Register(r fiber.Router) {
	r.Post("/api/version-check", h.checkPost)
	r.Get("/api/version-check", h.checkGet)
	r.Get("/api/admin/version-policy/:platform", requireAdmin, h.policy)
	r.Put("/api/admin/version-policy/:platform", requireAdmin, h.setPolicy)
}

// versionCheckReply is the spec's version check result. updateType,
// releaseNotes and deprecationDate are null when they do not apply. Field
// names are the app's contract: do not rename.
type versionCheckReply struct {
	UpdateRequired     bool    `json:"updateRequired"`
	UpdateRecommended  bool    `json:"updateRecommended"`
	CanContinue        bool    `json:"canContinue"`
	UpdateType         *string `json:"updateType"`
	CurrentVersion     string  `json:"currentVersion"`
	MinRequiredVersion string  `json:"minRequiredVersion"`
	RecommendedVersion string  `json:"recommendedVersion"`
	LatestVersion      string  `json:"latestVersion"`
	UpdateMessage      string  `json:"updateMessage"`
	ReleaseNotes       *string `json:"releaseNotes"`
	DownloadURL        string  `json:"downloadUrl"`
	DeprecationDate    *int64  `json:"deprecationDate"`
}

func toVersionCheckReply(r versions.Result) versionCheckReply {
	out := versionCheckReply{UpdateRequired: r.UpdateRequired(), UpdateRecommended: r.UpdateRecommended(),
		CanContinue: r.CanContinue(), CurrentVersion: r.Current.String(), MinRequiredVersion: r.MinRequired.String(),
		RecommendedVersion: r.Recommended.String(), LatestVersion: r.Latest.String(), UpdateMessage: r.Message,
		DownloadURL: r.DownloadURL}
	if r.Type != versions.UpdateNone {
		t := string(r.Type)
		out.UpdateType = &t
	}
	if r.ReleaseNotes != "" {
		out.ReleaseNotes = &r.ReleaseNotes
	}
	if !r.DeprecationDate.IsZero() {
		ms := core.Millis(r.DeprecationDate)
		out.DeprecationDate = &ms
	}
	return out
}

// versionPolicyJSON is a platform's stored policy. Field names are the
// app's contract: do not rename.
type versionPolicyJSON struct {
	Platform           string  `json:"platform"`
	MinRequiredVersion string  `json:"minRequiredVersion"`
	RecommendedVersion string  `json:"recommendedVersion"`
	LatestVersion      string  `json:"latestVersion"`
	DownloadURL        string  `json:"downloadUrl"`
	UpdateMessage      string  `json:"updateMessage"`
	ReleaseNotes       *string `json:"releaseNotes"`
	DeprecationDate    *int64  `json:"deprecationDate"`
	UpdatedAt          int64   `json:"updatedAt"`
}

func toVersionPolicyJSON(p versions.Policy) versionPolicyJSON {
	out := versionPolicyJSON{Platform: string(p.Platform), MinRequiredVersion: p.MinRequired.String(),
		RecommendedVersion: p.Recommended.String(), LatestVersion: p.Latest.String(), DownloadURL: p.DownloadURL,
		UpdateMessage: p.UpdateMessage, UpdatedAt: core.Millis(p.UpdatedAt)}
	if p.ReleaseNotes != "" {
		out.ReleaseNotes = &p.ReleaseNotes
	}
	if !p.DeprecationDate.IsZero() {
		ms := core.Millis(p.DeprecationDate)
		out.DeprecationDate = &ms
	}
	return out
}

type deviceInfoJSON struct {
	OS          string `json:"os"`
	OSVersion   string `json:"osVersion"`
	DeviceModel string `json:"deviceModel"`
	AppVersion  string `json:"appVersion"`
}

type versionCheckRequest struct {
	Platform           *string         `json:"platform"`
	CurrentVersion     *string         `json:"currentVersion"`
	CurrentBuildNumber json.RawMessage `json:"currentBuildNumber"`
	UserID             *string         `json:"userId"`
	DeviceInfo         *deviceInfoJSON `json:"deviceInfo"`
}

func (h *versionsHandler) checkPost(c *fiber.Ctx) error {
	var in versionCheckRequest
	if err := BindJSON(c, &in); err != nil {
		return err
	}
	build, err := buildNumber("currentBuildNumber", in.CurrentBuildNumber)
	if err != nil {
		return err
	}
	cl := versions.Client{Platform: str(in.Platform), CurrentVersion: str(in.CurrentVersion), BuildNumber: build,
		UserID: str(in.UserID)}
	if d := in.DeviceInfo; d != nil {
		cl.DeviceInfo = &versions.DeviceInfo{OS: d.OS, OSVersion: d.OSVersion, DeviceModel: d.DeviceModel, AppVersion: d.AppVersion}
	}
	r, err := h.svc.Check(c.UserContext(), cl)
	if err != nil {
		return err
	}
	return c.JSON(toVersionCheckReply(r))
}

func (h *versionsHandler) checkGet(c *fiber.Ctx) error {
	var build json.RawMessage
	if s := c.Query("buildNumber"); s != "" {
		build = json.RawMessage(s)
	}
	n, err := buildNumber("buildNumber", build)
	if err != nil {
		return err
	}
	if strings.TrimSpace(c.Query("version")) == "" {
		return core.Required("version") // the query's name, not the body's
	}
	r, err := h.svc.Check(c.UserContext(), versions.Client{Platform: c.Query("platform"),
		CurrentVersion: c.Query("version"), BuildNumber: n, UserID: c.Query("userId")})
	if err != nil {
		return err
	}
	return c.JSON(toVersionCheckReply(r))
}

// buildNumber reads a build number: a whole number of at most 9 digits;
// absent and null give nil.
func buildNumber(field string, raw json.RawMessage) (*int, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	n, err := strconv.Atoi(string(raw))
	if err != nil || len(raw) > 9 || strings.Trim(string(raw), "0123456789") != "" {
		return nil, core.Invalid("invalid_version", "httpapi.wholeNumber0999999999", "%s must be a whole number from 0 to 999999999", field)
	}
	return &n, nil
}

func (h *versionsHandler) policy(c *fiber.Ctx) error {
	p, err := h.svc.Policy(c.UserContext(), c.Params("platform"))
	if err != nil {
		return err
	}
	return c.JSON(toVersionPolicyJSON(p))
}

type versionPolicyRequest struct {
	MinRequiredVersion *string         `json:"minRequiredVersion"`
	RecommendedVersion *string         `json:"recommendedVersion"`
	LatestVersion      *string         `json:"latestVersion"`
	DownloadURL        *string         `json:"downloadUrl"`
	UpdateMessage      *string         `json:"updateMessage"`
	ReleaseNotes       *string         `json:"releaseNotes"`
	DeprecationDate    json.RawMessage `json:"deprecationDate"`
}

func (h *versionsHandler) setPolicy(c *fiber.Ctx) error {
	var in versionPolicyRequest
	if err := BindJSON(c, &in); err != nil {
		return err
	}
	dep, err := millisField("deprecationDate", in.DeprecationDate)
	if err != nil {
		return err
	}
	platform := c.Params("platform")
	d := versions.PolicyDraft{MinRequiredVersion: str(in.MinRequiredVersion), RecommendedVersion: str(in.RecommendedVersion),
		LatestVersion: str(in.LatestVersion), DownloadURL: str(in.DownloadURL), UpdateMessage: str(in.UpdateMessage),
		ReleaseNotes: str(in.ReleaseNotes), DeprecationDate: dep}
	p, err := h.policies.SetPolicy(c.UserContext(), platform, d)
	if err != nil {
		return err
	}
	return c.JSON(toVersionPolicyJSON(p))
}

// PolicyRecord is a policy as the audit log keeps it: as the API renders it.
func PolicyRecord(p versions.Policy) any { return toVersionPolicyJSON(p) }
