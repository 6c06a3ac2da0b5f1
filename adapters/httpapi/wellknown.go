package httpapi

import (
	"github.com/gofiber/fiber/v2"

	"tandem/core"
)

// WellKnown lists the apps the site vouches for, so that their passkeys
// (and links) are the site's: TANDEM_APPLE_APP_IDS and TANDEM_ANDROID_APPS.
type WellKnown struct {
	AppleAppIDs []string     // TEAMID.bundle.id
	AndroidApps []AndroidApp // package and signing certificates
}

// AndroidApp is one Android app: its package name and the SHA-256
// fingerprints of its signing certificates (AA:BB:..., upper case).
type AndroidApp struct {
	Package string
	SHA256  []string
}

type wellKnownHandler struct{ wk WellKnown }

func NewWellKnownHandler(cfg Config) *wellKnownHandler { return &wellKnownHandler{wk: cfg.WellKnown} }

func (h *wellKnownHandler) Register(r fiber.Router) {
	r.Get("/.well-known/apple-app-site-association", h.apple)
	r.Get("/.well-known/assetlinks.json", h.android)
}

// appleAssociation is Apple's format: the apps may use the site's passkeys
// (webcredentials) and open its links (applinks, every path).
type appleAssociation struct {
	AppLinks struct {
		Details []appleLinks `json:"details"`
	} `json:"applinks"`
	WebCredentials struct {
		Apps []string `json:"apps"`
	} `json:"webcredentials"`
}

type appleLinks struct {
	AppIDs     []string            `json:"appIDs"`
	Components []map[string]string `json:"components"`
}

func (h *wellKnownHandler) apple(c *fiber.Ctx) error {
	if len(h.wk.AppleAppIDs) == 0 {
		return core.NotFound("not_found", "httpapi.noAppsConfiguredTANDEMAPPLE", "no apps are configured (TANDEM_APPLE_APP_IDS)")
	}
	var a appleAssociation
	a.AppLinks.Details = []appleLinks{{AppIDs: h.wk.AppleAppIDs, Components: []map[string]string{{"/": "*"}}}}
	a.WebCredentials.Apps = h.wk.AppleAppIDs
	return c.JSON(a)
}

// assetLink is one statement of Google's Digital Asset Links.
type assetLink struct {
	Relation []string    `json:"relation"`
	Target   assetTarget `json:"target"`
}

type assetTarget struct {
	Namespace    string   `json:"namespace"`
	PackageName  string   `json:"package_name"`
	Fingerprints []string `json:"sha256_cert_fingerprints"`
}

func (h *wellKnownHandler) android(c *fiber.Ctx) error {
	if len(h.wk.AndroidApps) == 0 {
		return core.NotFound("not_found", "httpapi.noAppsConfiguredTANDEMANDROID", "no apps are configured (TANDEM_ANDROID_APPS)")
	}
	out := make([]assetLink, len(h.wk.AndroidApps))
	for i, app := range h.wk.AndroidApps {
		out[i] = assetLink{
			Relation: []string{"delegate_permission/common.handle_all_urls", "delegate_permission/common.get_login_creds"},
			Target:   assetTarget{Namespace: "android_app", PackageName: app.Package, Fingerprints: app.SHA256},
		}
	}
	return c.JSON(out)
}
