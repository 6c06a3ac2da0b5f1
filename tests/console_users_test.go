package tests

import (
	"context"
	"fmt"
	"html"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"tandem/modules/accounts"
)

// seedAccounts stores accounts straight in the repository (sign-up is not
// the subject), created at the harness's clock.
func seedAccounts(t *testing.T, h *harness, repo accounts.Repository, emails ...string) {
	t.Helper()
	for i, e := range emails {
		at := h.Clock.Now()
		a := accounts.Account{ID: fmt.Sprintf("seed-%03d", i), Email: e, PasswordHash: "x", Verified: true, CreatedAt: at, UpdatedAt: at}
		if err := repo.Create(context.Background(), a); err != nil {
			t.Fatal(err)
		}
	}
}

// userLink is a link to a user's page, named by the user's e-mail.
var userLink = regexp.MustCompile(`<a href="/admin/users/([^"]+)" class="user">([^<]*)</a>`)

// userLinks are the e-mails a page links to user pages, in order.
func userLinks(r response) []string {
	var out []string
	for _, m := range userLink.FindAllSubmatch(r.Body, -1) {
		out = append(out, html.UnescapeString(string(m[2])))
	}
	return out
}

var nextLink = regexp.MustCompile(`<a href="([^"]*)" id="next">`)

// nextPage is the path of a page's "Next page" link, "" when it has none.
func nextPage(r response) string {
	if m := nextLink.FindSubmatch(r.Body); m != nil {
		return html.UnescapeString(string(m[1]))
	}
	return ""
}

// The users page finds accounts by the start of their e-mail, folded as
// sign-up folds it, a page of 50 at a time in e-mail order, or by id;
// every character of the query matches itself and is shown escaped.
func TestConsoleFindsUsersByEmailPrefixOrID(t *testing.T) {
	eachProfileWith(t, func(t *testing.T, h *harness, repo accounts.Repository) {
		h.newUser(bossEmail)
		ann := h.newUser("ann@example.com")
		var pats []string
		for i := range 55 { // more than a page
			pats = append(pats, fmt.Sprintf("pat.%02d@example.com", i))
		}
		seedAccounts(t, h, repo, append(pats, "p_t@example.com", "p%t@example.com", `p\t@example.com`)...)
		c := h.console(t)
		c.mustSignIn(bossEmail)

		first := c.get("/admin/users?q=" + url.QueryEscape(" PAT."))
		expectPage(t, first, 200, `id="users"`)
		if got := userLinks(first); strings.Join(got, " ") != strings.Join(pats[:50], " ") {
			t.Fatalf("first page %v", got)
		}
		next := nextPage(first)
		if !strings.HasPrefix(next, "/admin/users?q=PAT.&cursor=") {
			t.Fatalf("next page link %q", next)
		}
		second := c.get(next)
		expectPage(t, second, 200, `id="users"`)
		if got := userLinks(second); strings.Join(got, " ") != strings.Join(pats[50:], " ") || nextPage(second) != "" {
			t.Fatalf("second page %v, next %q", got, nextPage(second))
		}

		cases := []struct {
			name, q string
			status  int
			links   []string // the accounts found, in order
			text    string   // shown on the page
		}{
			{name: "an id finds its account", q: ann.ID, status: 200, links: []string{"ann@example.com"},
				text: `<a href="/admin/users/` + ann.ID + `" class="user">`},
			{name: "a whole e-mail, in capitals", q: "ANN@Example.com", status: 200, links: []string{"ann@example.com"}},
			{name: "an underscore matches itself", q: "p_", status: 200, links: []string{"p_t@example.com"}},
			{name: "a percent sign matches itself", q: "p%", status: 200, links: []string{"p%t@example.com"}},
			{name: "a backslash matches itself", q: `p\`, status: 200, links: []string{`p\t@example.com`}},
			{name: "a lone wildcard finds nothing", q: "%", status: 200, text: `No account matches “%”.`},
			{name: "markup in the query is shown as text", q: `<b id="x">pat`, status: 200,
				text: `No account matches “&lt;b id=&#34;x&#34;&gt;pat”.`},
			{name: "longer than an e-mail", q: strings.Repeat("a", 255), status: 400, text: "q must be at most 254 bytes"},
			{name: "a control character", q: "ann\x01", status: 400, text: "q must not contain control characters"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				r := c.get("/admin/users?q=" + url.QueryEscape(tc.q))
				expectPage(t, r, tc.status, tc.text)
				expectPage(t, r, tc.status, `id="find-q"`) // the form stays, to search again
				if got := userLinks(r); strings.Join(got, " ") != strings.Join(tc.links, " ") {
					t.Fatalf("found %q, want %q", got, tc.links)
				}
				if strings.Contains(string(r.Body), `<b id="x">`) {
					t.Fatal("the query is in the page unescaped")
				}
			})
		}
		expectPage(t, c.get("/admin/users?q=pat&cursor=forged"), 400, "cursor is not one this server handed out")

		// Without a session nobody searches.
		stranger := h.console(t)
		expectRedirect(t, stranger.get("/admin/users?q=pat"), "/admin/signin")
		stranger.cookies["tandem_console"] = ann.Token
		expectRedirect(t, stranger.get("/admin/users?q=pat"), "/admin/signin")
	}, withAdmins(bossEmail))
}

// The pages link people: a user's page names the partner by e-mail, linked
// to the partner's page, and lists the user's sessions; the feedback list
// names each author by e-mail, linked to the author's page.
func TestConsoleLinksUsersPartnersFeedbackAndSessions(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		h.newUser(bossEmail)
		ann := h.newUser("ann@example.com")
		ben := h.newUser("ben@example.com")
		h.pair(ann, ben)
		h.sendFeedback(ann, "Love the daily question")
		sid := h.newestSession(t, ann)
		c := h.console(t)
		c.mustSignIn(bossEmail)

		feedback := c.get("/admin/feedback")
		expectPage(t, feedback, 200, `<a href="/admin/users/`+ann.ID+`" class="user">ann@example.com</a>`)
		if strings.Contains(string(feedback.Body), "<code>"+ann.ID+"</code>") {
			t.Fatal("the feedback list shows the author as a bare id")
		}

		page := c.get("/admin/users/" + ann.ID) // where the feedback's link goes
		expectPage(t, page, 200, `<dd id="partner"><a href="/admin/users/`+ben.ID+`" class="user">ben@example.com</a></dd>`)
		expectPage(t, page, 200, "<code>"+sid+"</code>")
		expectPage(t, page, 200, `<dt>Signs in with</dt><dd>password</dd>`)
		expectPage(t, page, 200, `<dd id="locale">en</dd>`)
		expect(t, h.do(req{Method: "PATCH", Path: "/api/users/user/" + ben.ID, Token: ben.Token,
			Body: map[string]any{"locale": "pt-PT"}}), 200, "")
		expectPage(t, c.get("/admin/users/"+ben.ID), 200, `<dd id="locale">pt-PT</dd>`)
		expectPage(t, page, 200, `action="/admin/users/`+ann.ID+`/sessions/`+sid+`/revoke"`)
		expectPage(t, c.get("/admin/users/"+ben.ID), 200,
			`<dd id="partner"><a href="/admin/users/`+ann.ID+`" class="user">ann@example.com</a></dd>`)

		// A session revoked from the user's page comes back to it.
		expectRedirect(t, c.post("/admin/users/"+ann.ID+"/sessions/"+sid+"/revoke", nil),
			"/admin/users/"+ann.ID+"?revoked="+url.QueryEscape(sid))
		expectPage(t, c.get("/admin/users/"+ann.ID+"?revoked="+url.QueryEscape(sid)), 200, `id="revoked"`)
		expectPage(t, c.get("/admin/users/no-such-user"), 404, "user not found")
	}, withAdmins(bossEmail))
}

// Every page shows an instant one way: UTC, to the minute.
func TestConsoleShowsEveryDateOneWay(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		h.Clock.Set(time.Date(2025, 6, 15, 21, 7, 0, 0, time.UTC)) // in Tokyo, the morning after
		h.newUser(bossEmail)
		ann := h.newUser("ann@example.com")
		fid := h.sendFeedback(ann, "Hello")
		c := h.console(t)
		c.mustSignIn(bossEmail)
		expectRedirect(t, c.post("/admin/flags", url.Values{"key": {"new_home"}, "name": {"New home"}}), "/admin/flags/new_home?saved=1")
		expectRedirect(t, c.post("/admin/versions/ios", url.Values{"minRequiredVersion": {"2.0.0"}, "recommendedVersion": {"2.1.0"},
			"latestVersion": {"2.2.0"}, "downloadUrl": {"https://apps.apple.com/app/tandem"}, "updateMessage": {"Please update"}}),
			"/admin/versions?saved=ios")
		expectRedirect(t, c.post("/admin/feedback/"+fid+"/handled", url.Values{"state": {"handled"}}), "/admin/feedback?state=handled")

		date := regexp.MustCompile(`\d{4}-\d{2}-\d{2}(.{0,10})`)
		shown := 0
		for _, path := range []string{"/admin/flags", "/admin/flags/new_home", "/admin/versions", "/admin/feedback",
			"/admin/users?q=ann", "/admin/users/" + ann.ID, "/admin/audit"} {
			r := c.get(path)
			expectPage(t, r, 200, "2025-06-15 21:07 UTC")
			// Form values are no dates shown, nor the states the audit log
			// recorded (as the API renders them: feedback dates dd/mm/yyyy).
			body := hiddenValues.ReplaceAllString(recorded.ReplaceAllString(string(r.Body), ""), "")
			for _, m := range date.FindAllStringSubmatch(body, -1) {
				if !regexp.MustCompile(`^ \d{2}:\d{2} UTC`).MatchString(m[1]) {
					t.Errorf("%s shows a date another way: %q", path, m[0])
				}
				shown++
			}
			for _, other := range []string{"15/06/2025", "+0000", "Jun 2025", "T21:07"} {
				if strings.Contains(body, other) {
					t.Errorf("%s shows %q", path, other)
				}
			}
		}
		if shown < 10 {
			t.Fatalf("only %d dates shown", shown)
		}
	}, withAdmins(bossEmail))
}

var (
	// hiddenValues are the value attributes of a page's fields (CSRF tokens).
	hiddenValues = regexp.MustCompile(`value="[^"]*"`)
	// recorded are the audit log's states before and after a change.
	recorded = regexp.MustCompile(`(?s)<pre>.*?</pre>`)
)
