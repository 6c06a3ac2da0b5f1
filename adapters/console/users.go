package console

import (
	"context"
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"

	"tandem/adapters/web"
	"tandem/core"
	"tandem/modules/accounts"
	"tandem/modules/admin"
	"tandem/modules/premium"
)

func (h *handler) registerUsers(r fiber.Router) {
	r.Get("/users", h.usersPage)
	r.Get("/users/:id", h.userPage)
	r.Post("/users/:id/sessions/:sid/revoke", h.revokeSession)
	r.Get("/users/:id/delete", h.confirmDelete)
	r.Post("/users/:id/delete", h.deleteUser)
	for _, a := range userActions {
		r.Post("/users/:id/"+a.path, h.userAction(a))
	}
}

// userAction is one button of a user's page: a POST to its path that
// makes the change through the audited write, then a confirmation.
type userAction struct {
	path string
	do   func(a *admin.AuditedAccounts, ctx context.Context, userID string) (admin.Account, error)
	done string // the confirmation shown on the user's page
}

// userActions are the user page's actions, each audited by
// admin.AuditedAccounts (their refusals are its own).
var userActions = []userAction{
	{"verify", (*admin.AuditedAccounts).Verify, "E-mail verified: every earlier way in ended, the owner was mailed what went."},
	{"block", (*admin.AuditedAccounts).Block, "Account blocked: every session ended, and it cannot sign in until unblocked."},
	{"unblock", (*admin.AuditedAccounts).Unblock, "Account unblocked: it can sign in again."},
	{"end-sessions", (*admin.AuditedAccounts).EndSessions, "Every session ended; the user signs in again with any way in."},
	{"reset", (*admin.AuditedAccounts).StartReset, "Password reset started: the reset code was mailed to the account's address."},
	{"grant", (*admin.AuditedAccounts).Grant, "Administrator role granted (it takes effect once the e-mail is verified)."},
	{"revoke", (*admin.AuditedAccounts).Revoke, "Administrator role revoked."},
}

// actionDone is the confirmation of ?done=, only ever one of the actions'
// own texts: a link cannot make the page say something else.
func actionDone(path string) string {
	for _, a := range userActions {
		if a.path == path {
			return a.done
		}
	}
	return ""
}

// userAction makes the change; a refusal (forbidden, conflict, too many
// mails) is shown on the user's page with its status, anything else is
// the error page's.
func (h *handler) userAction(a userAction) fiber.Handler {
	return func(c *fiber.Ctx) error {
		acc, err := a.do(h.AuditedAccounts, c.UserContext(), c.Params("id"))
		if err == nil {
			return back(c, "/admin/users/"+url.PathEscape(acc.ID), url.Values{"done": {a.path}})
		}
		e := core.As(err)
		switch e.Kind {
		case core.KindForbidden, core.KindConflict, core.KindRateLimited:
		default:
			return err
		}
		v, lerr := h.lookup(c.UserContext(), c.Params("id"))
		if lerr != nil {
			return err
		}
		if e.RetryAfter > 0 {
			c.Set(fiber.HeaderRetryAfter, web.RetryAfter(e.RetryAfter))
		}
		c.Status(web.StatusOf(e.Kind))
		return h.render(c, "user", fiber.Map{"Title": v.Account.Email, "User": v, "Error": e.Message})
	}
}

// userRow is one account in the users page's list.
type userRow struct {
	accounts.Account
	Admin bool
}

// usersPage lists the accounts newest first, or finds them: ?q= is an
// account id or the start of an e-mail (accounts.Service.Search), ?cursor=
// the next page of either. A query or cursor refused is shown with the
// form, as a 400.
func (h *handler) usersPage(c *fiber.Ctx) error {
	q := strings.TrimSpace(c.Query("q"))
	data := fiber.Map{"Title": "Users", "Q": q, "Deleted": c.Query("deleted")}
	var (
		as   []accounts.Account
		next string
		err  error
	)
	if q == "" {
		as, next, err = h.Accounts.List(c.UserContext(), consolePage(c))
	} else {
		as, next, err = h.Accounts.Search(c.UserContext(), q, consolePage(c))
	}
	if core.IsKind(err, core.KindInvalid) {
		c.Status(fiber.StatusBadRequest)
		data["Error"] = core.As(err).Message
		return h.render(c, "users", data)
	}
	if err != nil {
		return err
	}
	rows := make([]userRow, len(as))
	for i, a := range as {
		rows[i] = userRow{Account: a, Admin: h.Accounts.IsAdmin(a)}
	}
	data["Searched"], data["Users"], data["Next"] = q != "", rows, next
	return h.render(c, "users", data)
}

// userView is what the user page shows of one account.
type userView struct {
	Account accounts.Account
	Admin   bool
	// Configured: an administrator by TANDEM_ADMIN_EMAILS, which the
	// console can neither grant nor revoke.
	Configured bool
	Partner    *person
	Premium    premium.Status
	// PremiumPartner is the partner whose subscription the account shares.
	PremiumPartner *person
	Sessions       []accounts.Token
	// SignInMethods: password, the linked providers, passkey.
	SignInMethods []string
	Self          bool // the signed-in administrator's own account
}

// userPage shows one account: a 404 page when there is none.
func (h *handler) userPage(c *fiber.Ctx) error {
	v, err := h.lookup(c.UserContext(), c.Params("id"))
	if err != nil {
		return err
	}
	return h.render(c, "user", fiber.Map{"Title": v.Account.Email, "User": v, "Revoked": c.Query("revoked"),
		"Done": actionDone(c.Query("done"))})
}

// lookup composes the account, its partner, premium and sessions: a read
// across modules, composed here as the API's profile reads are.
func (h *handler) lookup(ctx context.Context, userID string) (userView, error) {
	a, err := h.Accounts.Profile(ctx, userID)
	if err != nil {
		return userView{}, err
	}
	v := userView{Account: a, Admin: h.Accounts.IsAdmin(a), Configured: h.Accounts.IsConfiguredAdmin(a)}
	if p, ok := core.PrincipalFrom(ctx); ok {
		v.Self = p.UserID == a.ID
	}
	partnerID, _, err := h.Partners.PartnerOf(ctx, a.ID)
	if err != nil {
		return userView{}, err
	}
	if v.Premium, err = h.Premium.Status(ctx, a.ID); err != nil {
		return userView{}, err
	}
	name, err := h.people(ctx, partnerID, v.Premium.PartnerID)
	if err != nil {
		return userView{}, err
	}
	v.Partner, v.PremiumPartner = name(partnerID), name(v.Premium.PartnerID)
	if v.Sessions, err = h.Accounts.Sessions(ctx, a.ID); err != nil {
		return userView{}, err
	}
	if v.SignInMethods, err = h.Accounts.SignInMethods(ctx, a); err != nil {
		return userView{}, err
	}
	return v, nil
}

func (h *handler) revokeSession(c *fiber.Ctx) error {
	sid := c.Params("sid")
	a, err := h.AuditedAccounts.RevokeSession(c.UserContext(), c.Params("id"), sid)
	if err != nil {
		return err
	}
	return back(c, "/admin/users/"+url.PathEscape(a.ID), url.Values{"revoked": {sid}})
}

func (h *handler) confirmDelete(c *fiber.Ctx) error {
	a, err := h.Accounts.Profile(c.UserContext(), c.Params("id"))
	if err != nil {
		return err
	}
	return h.render(c, "delete", fiber.Map{"Title": "Delete account", "Account": a})
}

// deleteUser deletes the account through the API's deletion (every
// module's data, then the account) once the administrator has typed its
// e-mail again; an administrator's account is refused.
func (h *handler) deleteUser(c *fiber.Ctx) error {
	a, err := h.AuditedAccounts.Delete(c.UserContext(), c.Params("id"), formValue(c, "confirm"))
	if err != nil {
		return err
	}
	return back(c, "/admin/users", url.Values{"deleted": {a.Email}})
}
