package tests

import (
	"testing"
)

// Names, titles and message texts refuse control characters (a long text
// may hold tab and newline) and the bidirectional override and isolate
// characters that make a text show something other than what it holds: 400
// invalid_request naming the field, and nothing stored.

const (
	rlo = "\u202E" // RIGHT-TO-LEFT OVERRIDE: "invoice\u202Efdp.exe" shows as "invoiceexe.pdf"
	lri = "\u2066" // LEFT-TO-RIGHT ISOLATE
)

func TestSecurityTextRefusesControlAndBidiCharacters(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		u := h.newUser("a@x.io")
		profile := "/api/users/user/" + u.ID
		controlMsg := func(field string) string {
			return field + " must not contain control characters (tab and newline included)"
		}
		longControlMsg := func(field string) string {
			return field + " must not contain control characters other than tab and newline"
		}
		bidiMsg := func(field string) string {
			return field + " must not contain bidirectional override or isolate characters"
		}
		event := func(fields map[string]any) map[string]any {
			body := map[string]any{"action": "create", "title": "Dinner", "startDate": "2025-06-20"}
			for k, v := range fields {
				body[k] = v
			}
			return body
		}
		memory := func(fields map[string]any) map[string]any {
			body := map[string]any{"action": "create", "title": "Beach", "date": "2025-06-01"}
			for k, v := range fields {
				body[k] = v
			}
			return body
		}
		cases := []struct {
			name string
			send func() response
			want string
		}{
			{"displayName with a newline", func() response {
				return h.do(req{Method: "PATCH", Path: profile, Token: u.Token, Body: map[string]any{"displayName": "Ann\nAdmin"}})
			}, controlMsg("displayName")},
			{"displayName with a right-to-left override", func() response {
				return h.do(req{Method: "PATCH", Path: profile, Token: u.Token, Body: map[string]any{"displayName": "Ann" + rlo + "nimda"}})
			}, bidiMsg("displayName")},
			{"memory title with an escape sequence", func() response {
				return h.post(memoriesPath(u), u.Token, memory(map[string]any{"title": "\x1b[2Jhi"}))
			}, controlMsg("title")},
			{"memory title with a tab", func() response {
				return h.post(memoriesPath(u), u.Token, memory(map[string]any{"title": "a\tb"}))
			}, controlMsg("title")},
			{"memory description with NUL", func() response {
				return h.post(memoriesPath(u), u.Token, memory(map[string]any{"description": "a\x00b"}))
			}, longControlMsg("description")},
			{"memory title with an isolate", func() response {
				return h.post(memoriesPath(u), u.Token, memory(map[string]any{"title": "a" + lri + "b"}))
			}, bidiMsg("title")},
			{"message body with a bell", func() response {
				return h.keyed("POST", "/api/messages/send", u, map[string]any{"body": "ding\x07"})
			}, longControlMsg("body")},
			{"message body with a right-to-left override", func() response {
				return h.keyed("POST", "/api/messages/send", u, map[string]any{"body": "see invoice" + rlo + "fdp.exe"})
			}, bidiMsg("body")},
			{"event title with a carriage return", func() response {
				return h.post(eventsPath(u), u.Token, event(map[string]any{"title": "Dinner\rBreakfast"}))
			}, controlMsg("title")},
			{"event location with a right-to-left override", func() response {
				return h.post(eventsPath(u), u.Token, event(map[string]any{"location": "Main St" + rlo}))
			}, bidiMsg("location")},
			{"event description with a vertical tab", func() response {
				return h.post(eventsPath(u), u.Token, event(map[string]any{"description": "a\vb"}))
			}, longControlMsg("description")},
		}
		for _, tc := range cases {
			r := tc.send()
			if r.Status != 400 {
				t.Fatalf("%s: status %d: %s", tc.name, r.Status, r.Body)
			}
			expect(t, r, 400, errBody("invalid_request", tc.want))
		}

		// nothing was stored
		expect(t, h.get(profile, u.Token), 200,
			`{"success":true,"userId":"`+u.ID+`","email":"a@x.io","displayName":"","timezone":"","locale":"en","createdAt":"<number>","signInMethods":["password"]}`)
		expect(t, h.get(memoriesPath(u), u.Token), 200, `[]`)
		expect(t, h.keyed("GET", "/api/messages/list", u, nil), 200, `[]`)
		expect(t, h.get(eventsPath(u), u.Token), 200, `[]`)

		// what a person writes still passes: tab and newlines in long texts,
		// right-to-left scripts with their marks, emoji
		expect(t, h.do(req{Method: "PATCH", Path: profile, Token: u.Token, Body: map[string]any{"displayName": "שרה\u200F 🌷"}}), 200,
			`{"success":true,"userId":"`+u.ID+`","email":"a@x.io","displayName":"שרה\u200F 🌷","timezone":"","locale":"en","createdAt":"<number>","signInMethods":["password"]}`)
		h.createMemory(u, map[string]any{"title": "Café ☕", "date": "2025-06-01", "description": "line one\n\tline two"})
		if got := h.thread(u); got != "" {
			t.Fatalf("thread %q", got)
		}
		h.sendMessage(u, "line one\r\nline two\tend")
		if got := h.thread(u); got != "line one\r\nline two\tend" {
			t.Fatalf("thread %q", got)
		}
		ms, _ := listMemories(t, h, u, memoriesPath(u))
		if len(ms) != 1 || ms[0]["description"] != "line one\n\tline two" {
			t.Fatalf("memories %v", ms)
		}
	})
}
