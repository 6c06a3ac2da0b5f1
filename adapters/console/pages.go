package console

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"tandem/core"
	"tandem/modules/feedback"
	"tandem/modules/flags"
	"tandem/modules/versions"
)

// consolePlatforms are the platforms a policy or a flag can name.
var consolePlatforms = []core.Platform{core.PlatformIOS, core.PlatformAndroid, core.PlatformWeb}

// consolePageSize is how many rows a console list shows per page.
const consolePageSize = 50

// defaultPreviewSample is the rollout preview's sample when none is asked.
const defaultPreviewSample = 1000

func (h *handler) registerPages(r fiber.Router) {
	r.Get("/", h.overview)
	r.Get("/flags", h.flagsPage)
	r.Post("/flags", h.createFlag)
	r.Get("/flags/:key", h.flagPage)
	r.Post("/flags/:key", h.updateFlag)
	r.Get("/versions", h.versionsPage)
	r.Post("/versions/:platform", h.setPolicy)
	r.Get("/feedback", h.feedbackPage)
	r.Post("/feedback/:id/handled", h.markHandled)
	r.Post("/flags/:key/delete", h.deleteFlag)
	h.registerUsers(r)
	r.Get("/audit", h.auditPage)
	r.Get("/traffic", h.trafficPage)
	r.Get("/backups", h.backupsPage)
	r.Get("/settings", h.settingsPage)
}

// consolePage is the page asked for: the console's size, from ?cursor=.
func consolePage(c *fiber.Ctx) core.Page {
	return core.Page{Limit: consolePageSize, Cursor: c.Query("cursor")}
}

// probeResult is one line of the overview's readiness list.
type probeResult struct {
	Name   string
	OK     bool
	Detail string
}

func (h *handler) overview(c *fiber.Ctx) error {
	o, err := h.Admin.Overview(c.UserContext())
	if err != nil {
		return err
	}
	return h.render(c, "overview", fiber.Map{"Title": "Overview", "Counts": o, "Probes": h.probe(c.UserContext())})
}

// probe checks every dependency, each within its own short deadline, so a
// hung dependency shows as down instead of hanging the page.
func (h *handler) probe(ctx context.Context) []probeResult {
	out := make([]probeResult, len(h.Probes))
	for i, p := range h.Probes {
		pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		err := p.Check(pctx)
		cancel()
		out[i] = probeResult{Name: p.Name, OK: err == nil, Detail: "ready"}
		if err != nil {
			out[i].Detail = core.As(err).Message
		}
	}
	return out
}

func (h *handler) flagsPage(c *fiber.Ctx) error {
	fs, next, err := h.Flags.List(c.UserContext(), consolePage(c))
	if err != nil {
		return err
	}
	return h.render(c, "flags", fiber.Map{"Title": "Feature flags", "Flags": fs, "Next": next, "Platforms": consolePlatforms,
		"Deleted": c.Query("deleted")})
}

func (h *handler) flagPage(c *fiber.Ctx) error {
	f, err := h.Flags.Get(c.UserContext(), c.Params("key"))
	if err != nil {
		return err
	}
	return h.render(c, "flag", fiber.Map{"Title": "Flag " + f.Key, "Flag": f, "Platforms": consolePlatforms,
		"Preview": previewOf(c, f), "Saved": c.Query("saved") != ""})
}

// rolloutPreview is how many of Sample sample users a rule enables: as
// stored, and with the percentage being tried (?rollout=).
type rolloutPreview struct {
	Sample, Stored, Tried, TriedPct int
	Platform                        string
	Premium                         bool
}

func previewOf(c *fiber.Ctx, f flags.Flag) rolloutPreview {
	p := rolloutPreview{Sample: queryInt(c, "sample", defaultPreviewSample), TriedPct: queryInt(c, "rollout", f.RolloutPercentage),
		Platform: c.Query("platform"), Premium: c.Query("premium") == "on"}
	p.Sample = min(max(p.Sample, 1), flags.MaxPreviewSample)
	p.TriedPct = min(max(p.TriedPct, 0), 100)
	platform := core.Platform(p.Platform)
	p.Stored = flags.Preview(f, p.Sample, platform, p.Premium)
	tried := f
	tried.RolloutPercentage = p.TriedPct
	p.Tried = flags.Preview(tried, p.Sample, platform, p.Premium)
	return p
}

func queryInt(c *fiber.Ctx, name string, def int) int {
	n, err := strconv.Atoi(c.Query(name))
	if err != nil {
		return def
	}
	return n
}

func (h *handler) createFlag(c *fiber.Ctx) error {
	rollout, err := formRollout(c)
	if err != nil {
		return err
	}
	d := flags.Draft{Key: formValue(c, "key"), Name: formValue(c, "name"), Description: formValue(c, "description"),
		IsEnabled: formValue(c, "isEnabled") == "on", EnabledForPremium: formValue(c, "enabledForPremium") == "on",
		RolloutPercentage: rollout, Platforms: formMulti(c, "platforms"),
		EnabledForUserIDs: formList(c, "enabledForUserIds"), DisabledForUserIDs: formList(c, "disabledForUserIds")}
	if _, err := h.AuditedFlags.Create(c.UserContext(), d); err != nil {
		return err
	}
	return back(c, "/admin/flags/"+url.PathEscape(strings.TrimSpace(d.Key)), url.Values{"saved": {"1"}})
}

// updateFlag saves the flag page's form. The page is only ever shown for a
// flag that exists: an unknown (or malformed) key is answered before
// anything is recorded.
func (h *handler) updateFlag(c *fiber.Ctx) error {
	key := c.Params("key")
	if _, err := h.Flags.Get(c.UserContext(), key); err != nil {
		return err
	}
	rollout, err := formRollout(c)
	if err != nil {
		return err
	}
	name, desc := formValue(c, "name"), formValue(c, "description")
	on, premiumOnly := formValue(c, "isEnabled") == "on", formValue(c, "enabledForPremium") == "on"
	platforms, allowed, denied := formMulti(c, "platforms"), formList(c, "enabledForUserIds"), formList(c, "disabledForUserIds")
	p := flags.Patch{Name: &name, Description: &desc, IsEnabled: &on, EnabledForPremium: &premiumOnly, RolloutPercentage: rollout,
		Platforms: &platforms, EnabledForUserIDs: &allowed, DisabledForUserIDs: &denied}
	if _, err := h.AuditedFlags.Update(c.UserContext(), key, p); err != nil {
		return err
	}
	return back(c, "/admin/flags/"+url.PathEscape(key), url.Values{"saved": {"1"}})
}

// formRollout reads rolloutPercentage; blank is absent (the service's default).
func formRollout(c *fiber.Ctx) (*float64, error) {
	s := strings.TrimSpace(formValue(c, "rolloutPercentage"))
	if s == "" {
		return nil, nil
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, core.Invalid("invalid_request", "console.rolloutPercentageNumber0100", "rolloutPercentage must be a number from 0 to 100")
	}
	return &x, nil
}

// formMulti is every value of a repeated field (checkboxes).
func formMulti(c *fiber.Ctx, name string) []string {
	out := []string{}
	for _, v := range c.Request().PostArgs().PeekMulti(name) {
		out = append(out, string(v))
	}
	return out
}

// formList splits a text area of user ids on commas and white space.
func formList(c *fiber.Ctx, name string) []string {
	sep := func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\r' || r == '\t' }
	return append([]string{}, strings.FieldsFunc(formValue(c, name), sep)...) // never nil: an empty list clears it
}

// platformPolicy is one platform's row of the versions page.
type platformPolicy struct {
	Platform        string
	Policy          *versions.Policy
	DeprecationDate string
}

func (h *handler) versionsPage(c *fiber.Ctx) error {
	var rows []platformPolicy
	for _, pl := range consolePlatforms {
		p, err := h.Versions.Policy(c.UserContext(), string(pl))
		switch {
		case core.IsKind(err, core.KindNotFound):
			rows = append(rows, platformPolicy{Platform: string(pl)})
		case err != nil:
			return err
		default:
			row := platformPolicy{Platform: string(pl), Policy: &p}
			if !p.DeprecationDate.IsZero() { // a date field's value, in the form HTML requires
				row.DeprecationDate = p.DeprecationDate.UTC().Format(time.DateOnly)
			}
			rows = append(rows, row)
		}
	}
	return h.render(c, "versions", fiber.Map{"Title": "Version policies", "Policies": rows, "Saved": c.Query("saved")})
}

func (h *handler) setPolicy(c *fiber.Ctx) error {
	platform := c.Params("platform")
	d := versions.PolicyDraft{MinRequiredVersion: formValue(c, "minRequiredVersion"), RecommendedVersion: formValue(c, "recommendedVersion"),
		LatestVersion: formValue(c, "latestVersion"), DownloadURL: formValue(c, "downloadUrl"), UpdateMessage: formValue(c, "updateMessage"),
		ReleaseNotes: formValue(c, "releaseNotes")}
	if s := strings.TrimSpace(formValue(c, "deprecationDate")); s != "" {
		t, err := time.Parse(time.DateOnly, s)
		if err != nil {
			return core.Invalid("invalid_request", "console.deprecationDateDateYYYYMMDD", "deprecationDate must be a date, YYYY-MM-DD")
		}
		d.DeprecationDate = &t
	}
	if _, err := h.AuditedPolicies.SetPolicy(c.UserContext(), platform, d); err != nil {
		return err
	}
	return back(c, "/admin/versions", url.Values{"saved": {platform}})
}

// feedbackRow is one message on the feedback page, with its author.
type feedbackRow struct {
	feedback.Feedback
	Author *person
}

func (h *handler) feedbackPage(c *fiber.Ctx) error {
	state, err := feedback.ParseState(c.Query("state"))
	if err != nil {
		return err
	}
	fs, next, err := h.Feedback.ListByState(c.UserContext(), state, consolePage(c))
	if err != nil {
		return err
	}
	authors := make([]string, len(fs))
	for i, f := range fs {
		authors[i] = f.UserID
	}
	name, err := h.people(c.UserContext(), authors...)
	if err != nil {
		return err
	}
	rows := make([]feedbackRow, len(fs))
	for i, f := range fs {
		rows[i] = feedbackRow{Feedback: f, Author: name(f.UserID)}
	}
	return h.render(c, "feedback", fiber.Map{"Title": "Feedback", "Feedback": rows, "State": string(state), "Next": next})
}

func (h *handler) markHandled(c *fiber.Ctx) error {
	if _, err := h.AuditedFeedback.MarkHandled(c.UserContext(), c.Params("id")); err != nil {
		return err
	}
	return back(c, "/admin/feedback", url.Values{"state": {formValue(c, "state")}})
}

// person is a user a page names: by e-mail, linked to their user page
// (the "person" template); by id alone once the account is gone.
type person struct{ ID, Email string }

// people reads the e-mails of the users a page names, in one read, and
// returns how to name each (nil for no user).
func (h *handler) people(ctx context.Context, ids ...string) (func(id string) *person, error) {
	emails, err := h.Accounts.Emails(ctx, ids)
	if err != nil {
		return nil, err
	}
	return func(id string) *person {
		if id == "" {
			return nil
		}
		return &person{ID: id, Email: emails[id]}
	}, nil
}

func (h *handler) auditPage(c *fiber.Ctx) error {
	es, next, err := h.Admin.Audit(c.UserContext(), consolePage(c))
	if err != nil {
		return err
	}
	return h.render(c, "audit", fiber.Map{"Title": "Audit log", "Entries": es, "Next": next})
}
