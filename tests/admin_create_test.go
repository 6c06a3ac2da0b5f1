package tests

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"go.uber.org/fx"

	"tandem/bootstrap"
	"tandem/modules/admin"
)

// commandIn is command with stdin given (admin create reads its password
// there when it is not a terminal).
func commandIn(env map[string]string, stdin string, args ...string) (string, error) {
	var out, errs bytes.Buffer
	err := bootstrap.RunStdio(context.Background(), args, func(k string) (string, bool) {
		if k == "TANDEM_LOG_LEVEL" {
			return "fatal", true
		}
		v, ok := env[k]
		return v, ok
	}, bootstrap.Stdio{In: strings.NewReader(stdin), Out: &out, Err: &errs})
	return out.String(), err
}

// `tandem admin create EMAIL` on SQLite, the password piped on stdin: the
// account is made with the address verified and the grant stored (through
// the audit log, by cli); it logs in over HTTP and signs in to the console
// as an administrator. Run again it says nothing changed; a bad address or
// password is one clear line and writes nothing.
func TestAdminCreateMakesAnAdministratorWhoSignsIn(t *testing.T) {
	parallel(t)
	d := newDeployment(t)
	env := d.env()
	const secret = "s3cret admin pass"

	for _, tc := range []struct{ stdin, email, want string }{
		{secret + "\n", "not-an-address", "admin create not-an-address: "},
		{"short\n", "root@example.com", "password must be 8 to 128 characters"},
		{"", "root@example.com", "no password"},
		{"\n", "root@example.com", "no password"},
	} {
		if out, err := commandIn(env, tc.stdin, "admin", "create", tc.email); err == nil || !strings.Contains(err.Error(), tc.want) || out != "" {
			t.Fatalf("admin create %s with %q: %q, %v; want an error with %q", tc.email, tc.stdin, out, err, tc.want)
		}
	}

	out, err := commandIn(env, secret+"\r\n", "admin", "create", " Root@Example.com")
	if want := "root@example.com: account created with the address verified and the password; administrator granted\n"; err != nil || out != want {
		t.Fatalf("admin create: %q, %v; want %q", out, err, want)
	}
	out, err = commandIn(env, secret+"\n", "admin", "create", "root@example.com")
	if want := "root@example.com: account already verified with this password; already an administrator; nothing changed\n"; err != nil || out != want {
		t.Fatalf("admin create again: %q, %v; want %q", out, err, want)
	}

	var audit *admin.Service
	h := d.serve(t, withFx(fx.Populate(&audit)))
	r := h.post("/api/auth/login/email", "", map[string]any{"email": "root@example.com", "password": secret})
	expect(t, r, 200, "")
	root := user{ID: r.JSON(t)["userId"].(string), Token: r.JSON(t)["token"].(string)}
	profile := h.get("/api/users/user/"+root.ID, root.Token)
	expect(t, profile, 200, "")
	if profile.JSON(t)["email"] != "root@example.com" {
		t.Fatalf("profile %s", profile.Body)
	}
	h.console(t).mustSignInWith("root@example.com", secret)
	// nothing was made of the refused runs
	expect(t, h.post("/api/auth/login/email", "", map[string]any{"email": "not-an-address", "password": secret}), 401, "")

	var grants []admin.Entry
	for _, e := range auditEntries(t, audit) {
		if e.Action == "admin.grant" {
			grants = append(grants, e)
		}
	}
	if len(grants) != 1 || grants[0].Actor != admin.CLIActor || grants[0].Target != "user:"+root.ID || grants[0].Outcome != admin.OutcomeDone {
		t.Fatalf("the grant in the audit log: %+v", grants)
	}
}

// admin create on addresses that have an account already: a verified one
// keeps its id and gets the new password (the old one stops working) and
// the grant; an unverified sign-up (anyone may have typed the address) is
// replaced by a new verified account.
func TestAdminCreateOnExistingAccounts(t *testing.T) {
	parallel(t)
	d := newDeployment(t)
	env := d.env()
	h := d.serve(t)
	ann := h.newUser("ann@example.com")
	r := h.post("/api/auth/signup/email", "", map[string]any{"email": "squat@example.com", "password": pw})
	expect(t, r, 200, "")
	squatter := r.JSON(t)["userId"].(string)

	const secret = "a new admin password"
	out, err := commandIn(env, secret+"\n", "admin", "create", "ann@example.com")
	if want := "ann@example.com: password set (1 sessions ended); administrator granted\n"; err != nil || out != want {
		t.Fatalf("admin create ann: %q, %v; want %q", out, err, want)
	}
	expect(t, h.post("/api/auth/login/email", "", map[string]any{"email": "ann@example.com", "password": pw}), 401, "")
	r = h.post("/api/auth/login/email", "", map[string]any{"email": "ann@example.com", "password": secret})
	expect(t, r, 200, "")
	if r.JSON(t)["userId"] != ann.ID {
		t.Fatalf("ann's account changed id: %s", r.Body)
	}
	h.console(t).mustSignInWith("ann@example.com", secret)

	out, err = commandIn(env, secret+"\n", "admin", "create", "squat@example.com")
	if want := "squat@example.com: an unverified sign-up of the address deleted; account created with the address verified and the password; administrator granted\n"; err != nil || out != want {
		t.Fatalf("admin create squat: %q, %v; want %q", out, err, want)
	}
	r = h.post("/api/auth/login/email", "", map[string]any{"email": "squat@example.com", "password": secret})
	expect(t, r, 200, "")
	if r.JSON(t)["userId"] == squatter {
		t.Fatal("the unverified sign-up was kept")
	}
	expect(t, h.post("/api/auth/login/email", "", map[string]any{"email": "squat@example.com", "password": pw}), 401, "")
}

// A configured administrator (TANDEM_ADMIN_EMAILS) who signed up has no
// password (it is dropped at verification: passwordRequired); the
// console's sign-in says so and how to set one, rather than "invalid
// e-mail or password". Everyone else keeps the generic refusal: a wrong
// password of an administrator who has one, an unknown address, a
// configured address with no account. After admin create, the sign-in works.
func TestConsoleExplainsAnAdministratorWithoutPassword(t *testing.T) {
	parallel(t)
	d := newDeployment(t)
	env := d.env()
	env["TANDEM_ADMIN_EMAILS"] = bossEmail + ",other-boss@example.com,ghost-boss@example.com"
	h := d.serve(t, withAdmins(env["TANDEM_ADMIN_EMAILS"]))
	r := h.post("/api/auth/signup/email", "", map[string]any{"email": bossEmail, "password": pw})
	expect(t, r, 200, "")
	v := h.post("/api/auth/signup/email", "", map[string]any{"userId": r.JSON(t)["userId"], "verificationCode": h.Mail.Code(bossEmail)})
	expect(t, v, 200, "")
	if v.JSON(t)["passwordRequired"] != true {
		t.Fatalf("a configured administrator's sign-up kept its password: %s", v.Body)
	}
	h.newUser("other-boss@example.com") // sets a password after verification

	const explained = "this administrator has no password yet"
	c := h.console(t)
	page := c.signIn(bossEmail, pw)
	expectPage(t, page, 401, explained)
	if !strings.Contains(string(page.Body), "tandem admin create EMAIL") {
		t.Fatalf("the page does not say how to set a password: %s", page.Body)
	}
	for _, tc := range []struct{ email, password string }{
		{"other-boss@example.com", "wrong-password-1"}, // an administrator with a password
		{"ghost-boss@example.com", pw},                 // configured, no account
		{"nobody@example.com", pw},                     // no account
	} {
		page := h.console(t).signIn(tc.email, tc.password)
		expectPage(t, page, 401, "invalid e-mail or password")
		if strings.Contains(string(page.Body), explained) {
			t.Fatalf("%s: the console explained a missing password", tc.email)
		}
	}

	if out, err := commandIn(env, "the boss's password\n", "admin", "create", bossEmail); err != nil ||
		!strings.Contains(out, "password set (") {
		t.Fatalf("admin create: %q, %v", out, err)
	}
	h.console(t).mustSignInWith(bossEmail, "the boss's password")
}
