package tests

import (
	"strings"
	"testing"
	"unicode"

	"tandem/adapters/i18n"
	"tandem/adapters/push/mempush"
	"tandem/bootstrap"
	"tandem/core"
	"tandem/modules/questions"
)

// Every text a person reads, in their language: a couple signs up in a
// language (Accept-Language), pairs, and the partner's message reaches the
// other's inbox and phone in it; the verification mail, the daily question
// and an error's message too. The catalogs' own content is tested in
// adapters/i18n; here, that each text reaches its reader in the reader's
// language, and that a change of locale rewrites what was stored.

// texts renders what the scenarios expect, from the same catalogs.
var texts = i18n.MustLoad(bootstrap.Sources())

// languageCase is a device's Accept-Language, the tag its sign-up stores
// (the device's own, spoken or not) and the catalog its texts are read in.
type languageCase struct {
	header, stored, locale string
	// newMessage is the title of a message's notification, written out
	// for German so a broken catalog cannot agree with itself.
	newMessage string
}

// languageCases are every catalog present (a new catalog file is a new
// case), read by a device that names it, then devices that name a region
// or a language without a catalog: the tag is stored as sent, the closest
// catalog chosen at read time.
func languageCases() []languageCase {
	var out []languageCase
	for _, l := range texts.Languages() {
		out = append(out, languageCase{header: l, stored: l, locale: l})
	}
	return append(out,
		languageCase{"en-US,en;q=0.9", "en-US", "en", "New message"},
		languageCase{"de-DE,de;q=0.9,en;q=0.5", "de-DE", "de", "Neue Nachricht"},
		languageCase{"pt-PT", "pt-PT", "pt-BR", ""},
		languageCase{"es-MX,es;q=0.9", "es-MX", "es-419", ""},
		languageCase{"it-IT,it;q=0.9,en;q=0.8", "it-IT", texts.Supported("it"), ""},
		languageCase{"hy-AM,en;q=0.5", "hy-AM", "en", ""}, // Armenian: not read in Russian
		languageCase{"nl-BE,nl;q=0.9,fr;q=0.5", "nl-BE", "nl", "Nieuw bericht"},
		languageCase{"pl", "pl", "pl", "Nowa wiadomość"},
		languageCase{"tr-TR,tr;q=0.9,en;q=0.5", "tr-TR", "tr", "Yeni mesaj"},
		languageCase{"az-AZ,en;q=0.5", "az-AZ", "tr", ""}, // Azerbaijani: read in Turkish
		languageCase{"ko-KR,ko;q=0.9", "ko-KR", "ko", "새 메시지"},
		languageCase{"zh-CN,zh;q=0.9,en;q=0.5", "zh-CN", "zh-Hans", "新消息"},
		languageCase{"zh-TW,zh;q=0.9,en;q=0.5", "zh-TW", "en", ""}, // Traditional: not read in Simplified
	)
}

// signUpIn signs up and verifies email with the Accept-Language header.
func (h *harness) signUpIn(email, acceptLanguage string) user {
	h.t.Helper()
	lang := map[string]string{"Accept-Language": acceptLanguage}
	r := h.do(req{Method: "POST", Path: "/api/auth/signup/email", Body: map[string]any{"email": email, "password": pw},
		Headers: lang})
	expect(h.t, r, 200, "")
	id := r.JSON(h.t)["userId"].(string)
	v := h.do(req{Method: "POST", Path: "/api/auth/signup/email", Headers: lang,
		Body: map[string]any{"userId": id, "verificationCode": h.Mail.Code(email)}})
	expect(h.t, v, 200, "")
	return user{ID: id, Token: v.JSON(h.t)["token"].(string)}
}

func TestEveryTextInTheReadersLanguage(t *testing.T) {
	parallel(t)
	for _, lc := range languageCases() {
		t.Run(lc.header, func(t *testing.T) {
			eachProfileWithPushes(t, func(t *testing.T, h *harness, pushes *mempush.Outbox) {
				me, partner := h.signUpIn("me@x.io", lc.header), h.signUpIn("partner@x.io", lc.header)

				// the verification mail and the profile
				mail, _ := h.Mail.Last("me@x.io")
				if want := texts.Translate(lc.locale, core.Msg("mail.verification.subject")); mail.Subject != want {
					t.Fatalf("mail subject %q, want %q", mail.Subject, want)
				}
				expect(t, h.get("/api/users/user/"+me.ID, me.Token), 200, `{"success":true,"userId":"`+me.ID+
					`","email":"me@x.io","displayName":"","timezone":"","locale":"`+lc.stored+`","createdAt":`+ms(h.Clock.Now())+
					`,"signInMethods":["password"]}`)

				// the partner's message: the inbox and the push
				h.registerDevice(me, "ExponentPushToken[me]", "ios", "expo")
				h.pair(me, partner)
				h.sendMessage(partner, "Dinner at eight?")
				title, body := texts.Note(lc.locale, core.Msg("activity.messageSent", 1))
				if lc.newMessage != "" && title != lc.newMessage {
					t.Fatalf("the catalog says %q for a new message, want %q", title, lc.newMessage)
				}
				inbox := h.get(notifPath(me, "/notifications"), me.Token).JSON(t)["notifications"].([]any)
				if len(inbox) != 1 || inbox[0].(map[string]any)["title"] != title || inbox[0].(map[string]any)["message"] != body {
					t.Fatalf("inbox %v, want %q %q", inbox, title, body)
				}
				got := pushes.To(me.ID)
				if len(got) != 1 || got[0].Message.Title != title || got[0].Message.Body != body {
					t.Fatalf("pushes %+v, want %q %q", got, title, body)
				}

				// the daily question, in the reader's language
				q := h.get(dqPath(me), me.Token)
				expect(t, q, 200, "")
				qText := q.JSON(t)["question"].(map[string]any)["text"].(string)
				if !isBankText(lc.locale, qText) {
					t.Fatalf("daily question %q is not a %s question of the bank", qText, lc.locale)
				}

				// an error: the message in the caller's language, the code as always
				bad := h.do(req{Method: "PATCH", Path: "/api/users/user/" + me.ID, Token: me.Token,
					Body: map[string]any{"locale": "not a tag!"}, Headers: map[string]string{"Accept-Language": lc.header}})
				wantMsg := texts.Translate(lc.locale, core.Message{Key: "core.localeBCP47LanguageTag",
					English: "locale must be a BCP 47 language tag such as en, de or pt-BR"})
				expect(t, bad, 400, `{"success":false,"error":"locale must be a BCP 47 language tag such as en, de or pt-BR",`+
					`"code":"invalid_request","message":`+jsonStr(wantMsg)+`}`)
				if lc.locale != "en" && strings.Contains(wantMsg, "must be") {
					t.Fatalf("%s error message is English: %q", lc.locale, wantMsg)
				}
				if got := bad.Header.Get("Content-Language"); got != lc.locale {
					t.Fatalf("Content-Language %q, want %q", got, lc.locale)
				}
				if !strings.Contains(bad.Header.Get("Vary"), "Accept-Language") {
					t.Fatalf("Vary %q names no Accept-Language", bad.Header.Get("Vary"))
				}

				// what the code fills in at run time is in the caller's
				// language too: a JSON type, a connection code's weakness
				for _, r := range []struct {
					req         req
					id, english string
					args        []any
				}{
					{req{Method: "PATCH", Path: "/api/users/user/" + me.ID, Token: me.Token, Body: map[string]any{"displayName": 7}},
						"httpapi.fieldString", "field %s must be a string", []any{"displayName"}},
					{req{Method: "POST", Path: "/api/partnerConnections/create", Token: me.Token,
						Body: map[string]any{"userId": me.ID, "connectionCode": "password"}, Headers: map[string]string{"X-API-Key": testAPIKey}},
						"partners.weakCode.password", "connectionCode is too easy to guess: it contains a common password", nil},
				} {
					if r.req.Headers == nil {
						r.req.Headers = map[string]string{}
					}
					r.req.Headers["Accept-Language"] = lc.header
					got := h.do(r.req)
					want := texts.Translate(lc.locale, core.Message{Key: r.id, Args: r.args, English: r.english})
					expect(t, got, 400, `{"success":false,"error":`+jsonStr(core.Format(r.english, r.args...))+`,"code":"invalid_request","message":`+jsonStr(want)+`}`)
					if run := englishRun(want, r.english); lc.locale != "en" && run != "" {
						t.Fatalf("%s: %q holds the English %q", lc.locale, want, run)
					}
				}

				// a change of locale rewrites what is stored: English now
				expect(t, h.do(req{Method: "PATCH", Path: "/api/users/user/" + me.ID, Token: me.Token,
					Body: map[string]any{"locale": "en"}}), 200, "")
				inbox = h.get(notifPath(me, "/notifications"), me.Token).JSON(t)["notifications"].([]any)
				if inbox[0].(map[string]any)["title"] != "New message" || inbox[0].(map[string]any)["message"] != "Your partner sent you a message." {
					t.Fatalf("after the change to en: %v", inbox[0])
				}
			})
		})
	}
}

// englishRun is the first run of two or more words of english that text
// holds ("" when none): an English fragment inside a translation.
func englishRun(text, english string) string {
	words := func(s string) []string {
		return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) })
	}
	tw, ew := words(text), words(english)
	for i := 0; i+1 < len(tw); i++ {
		for j := 0; j+1 < len(ew); j++ {
			if tw[i] == ew[j] && tw[i+1] == ew[j+1] {
				return tw[i] + " " + tw[i+1]
			}
		}
	}
	return ""
}

// isBankText: s is the text of a bank question in locale.
func isBankText(locale, s string) bool {
	for _, q := range questions.Bank {
		if texts.Translate(locale, core.Msg(questions.TextKey(q.ID))) == s {
			return locale == "en" || s != q.Text
		}
	}
	return false
}

// TestLocaleOnTheProfile: a malformed tag is a 400 that changes nothing; a
// well-formed one Tandem does not speak is kept as written (canonical case)
// and read in the closest language (pt-PT: Brazilian Portuguese; Finnish:
// English; Traditional Chinese: English, never Simplified); without
// Accept-Language a sign-up is English; the export shows the locale.
func TestLocaleOnTheProfile(t *testing.T) {
	parallel(t)
	eachProfileWithPushes(t, func(t *testing.T, h *harness, pushes *mempush.Outbox) {
		me, partner := h.newUser("me@x.io"), h.newUser("partner@x.io")
		profile := "/api/users/user/" + me.ID
		if got := h.get(profile, me.Token).JSON(t)["locale"]; got != "en" {
			t.Fatalf("a sign-up without Accept-Language: locale %v", got)
		}
		for _, bad := range []any{"", "x", "de--DE", "toolongtag", "de-DE-" + strings.Repeat("a", 40), "<script>", 7, true} {
			r := h.do(req{Method: "PATCH", Path: profile, Token: me.Token, Body: map[string]any{"locale": bad}})
			expect(t, r, 400, "")
			if r.JSON(t)["code"] != "invalid_request" {
				t.Fatalf("locale %v: %s", bad, r.Body)
			}
		}
		// the partner-to-be, a stranger: another's locale is not theirs to set
		r := h.do(req{Method: "PATCH", Path: profile, Token: partner.Token, Body: map[string]any{"locale": "ru"}})
		if r.Status != 403 && r.Status != 404 {
			t.Fatalf("a stranger set another's locale: %d %s", r.Status, r.Body)
		}
		if got := h.get(profile, me.Token).JSON(t)["locale"]; got != "en" {
			t.Fatalf("a refused locale was stored: %v", got)
		}
		for in, kept := range map[string]string{"pt_pt": "pt-PT", "DE-at": "de-AT", "zh-hant-tw": "zh-Hant-TW", "fi": "fi"} {
			r := h.do(req{Method: "PATCH", Path: profile, Token: me.Token, Body: map[string]any{"locale": in}})
			expect(t, r, 200, "")
			if r.JSON(t)["locale"] != kept || h.get(profile, me.Token).JSON(t)["locale"] != kept {
				t.Fatalf("locale %q answered %v, want %q kept", in, r.JSON(t)["locale"], kept)
			}
		}
		h.pair(me, partner)
		for _, lr := range [][2]string{{"pt-PT", "pt-BR"}, {"fi", "en"}, {"it-CH", "it"}, {"zh-TW", "en"}, {"zh-SG", "zh-Hans"}, {"de-AT", "de"}} {
			locale, reads := lr[0], lr[1]
			expect(t, h.do(req{Method: "PATCH", Path: profile, Token: me.Token, Body: map[string]any{"locale": locale}}), 200, "")
			h.sendMessage(partner, "hi")
			title, _ := texts.Note(reads, core.Msg("activity.messageSent", 1))
			if inbox := h.get(notifPath(me, "/notifications"), me.Token).JSON(t)["notifications"].([]any); inbox[0].(map[string]any)["title"] != title {
				t.Fatalf("%s reads %v, want %q (%s)", locale, inbox[0], title, reads)
			}
			markAllRead(t, h, me)
		}
		export := h.get(profile+"/export", me.Token).JSON(t)
		if acc, _ := export["account"].(map[string]any); acc == nil || acc["locale"] != "de-AT" {
			t.Fatalf("export account %v", export["account"])
		}
	})
}
