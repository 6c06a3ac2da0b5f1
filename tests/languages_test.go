package tests

import (
	"strings"
	"testing"

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

var languageCases = []struct {
	header, locale string
	// newMessage is the title of a message's notification, written out
	// for German so a broken catalog cannot agree with itself.
	newMessage string
}{
	{"en-US,en;q=0.9", "en", "New message"},
	{"de-DE,de;q=0.9,en;q=0.5", "de", "Neue Nachricht"},
	{"fr-FR", "fr", ""},
	{"es-ES,es;q=0.9", "es", ""},
	{"pt-BR", "pt-BR", ""},
	{"ja-JP", "ja", ""},
	{"ru-RU,ru;q=0.9", "ru", ""},
	{"it-IT,it;q=0.9,en;q=0.5", "it", "Nuovo messaggio"},
	{"nl-BE,nl;q=0.9,fr;q=0.5", "nl", "Nieuw bericht"},
	{"pl", "pl", "Nowa wiadomość"},
	{"tr-TR,tr;q=0.9,en;q=0.5", "tr", "Yeni mesaj"},
	{"ko-KR,ko;q=0.9", "ko", "새 메시지"},
	{"zh-CN,zh;q=0.9,en;q=0.5", "zh-Hans", "新消息"},
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
	for _, lc := range languageCases {
		t.Run(lc.locale, func(t *testing.T) {
			eachProfileWithPushes(t, func(t *testing.T, h *harness, pushes *mempush.Outbox) {
				me, partner := h.signUpIn("me@x.io", lc.header), h.signUpIn("partner@x.io", lc.header)

				// the verification mail and the profile
				mail, _ := h.Mail.Last("me@x.io")
				if want := texts.Translate(lc.locale, core.Msg("mail.verification.subject")); mail.Subject != want {
					t.Fatalf("mail subject %q, want %q", mail.Subject, want)
				}
				expect(t, h.get("/api/users/user/"+me.ID, me.Token), 200, `{"success":true,"userId":"`+me.ID+
					`","email":"me@x.io","displayName":"","timezone":"","locale":"`+lc.locale+`","createdAt":`+ms(h.Clock.Now())+
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
// English; Traditional Chinese: English, never Simplified); without Accept-Language a sign-up is English; the export shows
// the locale.
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
