package tests

import (
	"strings"
	"testing"
)

// TestProfileNickname: the profile's optional nickname is set and read back
// trimmed, follows displayName's rules (a name longer than 40 characters or
// with a control character is refused and nothing is stored), is removed
// with "", and the export holds it.
func TestProfileNickname(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		id, token := h.signUp("a@x.io")
		patch := func(body any) response {
			return h.do(req{Method: "PATCH", Path: "/api/users/user/" + id, Token: token, Body: body})
		}
		created := ms(h.Clock.Now())
		profile := func(nickname string) string {
			return `{"success":true,"userId":"` + id + `","email":"a@x.io","displayName":"Ann",` + nickname +
				`"timezone":"","locale":"en","createdAt":` + created + `,"signInMethods":["password"]}`
		}
		expect(t, h.get("/api/users/user/"+id, token), 200,
			`{"success":true,"userId":"`+id+`","email":"a@x.io","displayName":"","timezone":"","locale":"en","createdAt":`+created+`,"signInMethods":["password"]}`)
		expect(t, patch(map[string]any{"displayName": "Ann", "nickname": " Nan "}), 200, profile(`"nickname":"Nan",`))
		expect(t, h.get("/api/users/user/"+id, token), 200, profile(`"nickname":"Nan",`))

		forty := strings.Repeat("é", 40)
		expect(t, patch(map[string]any{"nickname": forty}), 200, profile(`"nickname":"`+forty+`",`))
		expect(t, patch(map[string]any{"nickname": forty + "x"}), 400,
			errBody("invalid_request", "nickname must be at most 40 characters"))
		expect(t, patch(map[string]any{"nickname": "Na\nn", "displayName": "Other"}), 400,
			errBody("invalid_request", "nickname must not contain control characters (tab and newline included)"))
		expect(t, patch(map[string]any{"nickname": 5}), 400, errBody("invalid_request", "field nickname must be a string"))
		expect(t, h.get("/api/users/user/"+id, token), 200, profile(`"nickname":"`+forty+`",`)) // nothing stored

		account := h.get("/api/users/user/"+id+"/export", token).JSON(t)["account"].(map[string]any)
		if account["nickname"] != forty {
			t.Fatalf("export account %v, want the nickname %q", account, forty)
		}

		expect(t, patch(map[string]any{"nickname": ""}), 200, profile(""))
		expect(t, h.get("/api/users/user/"+id, token), 200, profile(""))
		account = h.get("/api/users/user/"+id+"/export", token).JSON(t)["account"].(map[string]any)
		if _, ok := account["nickname"]; ok {
			t.Fatalf("export account %v holds a removed nickname", account)
		}
	})
}

// TestConsoleShowsTheNickname: the console's user page shows the nickname,
// "none" while there is none.
func TestConsoleShowsTheNickname(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		h.newUser(bossEmail)
		ann := h.newUser("ann@example.com")
		c := h.console(t)
		c.mustSignIn(bossEmail)
		expectPage(t, c.get("/admin/users/"+ann.ID), 200, `<dd id="nickname">none</dd>`)
		expect(t, h.do(req{Method: "PATCH", Path: "/api/users/user/" + ann.ID, Token: ann.Token,
			Body: map[string]any{"nickname": "Nan <3"}}), 200, "")
		expectPage(t, c.get("/admin/users/"+ann.ID), 200, `<dd id="nickname">Nan &lt;3</dd>`)
	}, withAdmins(bossEmail))
}
