package tests

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"tandem/modules/questions"
)

// The shared daily question, end to end: the question of each partner's
// today, the locked answer, replies and reactions, the partner's
// notification, history, export, and every error.

func dqPath(u user) string { return "/api/users/user/" + u.ID + "/daily-question" }

func (h *harness) dqGet(u user) response {
	h.t.Helper()
	return h.get(dqPath(u), u.Token)
}

func (h *harness) dqPost(u user, body map[string]any) response {
	h.t.Helper()
	return h.post(dqPath(u), u.Token, body)
}

// dqQuestion reads the question object of the caller's today.
func (h *harness) dqQuestion(u user) map[string]any {
	h.t.Helper()
	r := h.dqGet(u)
	expect(h.t, r, 200, "")
	return r.JSON(h.t)["question"].(map[string]any)
}

// dqBody is the exact GET body: question {id, text, category, date} (the id,
// text and category as "<string>" when not given), the items, the flags and
// the streak, its numbers as "<number>" (withStreak makes them exact).
func dqBody(q map[string]any, date string, items []string, me, partner bool) string {
	id, text, cat := `"<string>"`, `"<string>"`, `"<string>"`
	if q != nil {
		id, text, cat = jsonStr(q["id"]), jsonStr(q["text"]), jsonStr(q["category"])
	}
	return fmt.Sprintf(`{"success":true,"question":{"id":%s,"text":%s,"category":%s,"date":%q},"conversation":[%s],`+
		`"answeredByMe":%v,"answeredByPartner":%v,%s}`, id, text, cat, date, strings.Join(items, ","), me, partner, anyStreak)
}

// anyStreak is the streak member of dqBody.
const anyStreak = `"streak":{"current":"<number>","best":"<number>"}`

// withStreak is body (a dqBody) with the streak current/best.
func withStreak(body string, current, best int) string {
	return strings.Replace(body, anyStreak, fmt.Sprintf(`"streak":{"current":%d,"best":%d}`, current, best), 1)
}

// dqItem is one conversation item; fields holds the optional keys as JSON
// members (`"text":"hi"`, `"locked":true`...).
func dqItem(id, typ string, u user, at time.Time, fields ...string) string {
	if id == "" {
		id = "<string>"
	}
	s := fmt.Sprintf(`{"id":%q,"type":%q,"userId":%q,"timestamp":%d`, id, typ, u.ID, at.UnixMilli())
	for _, f := range fields {
		s += "," + f
	}
	return s + "}"
}

// dqItems returns the ids of the conversation of r, in order.
func dqItems(t *testing.T, r response) []string {
	t.Helper()
	var ids []string
	for _, it := range r.JSON(t)["conversation"].([]any) {
		ids = append(ids, it.(map[string]any)["id"].(string))
	}
	return ids
}

func TestDailyQuestionConversation(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		ann, bob := h.newUser("ann@x.io"), h.newUser("bob@x.io")
		h.pair(ann, bob)
		const today = "2025-06-15"

		// the first to ask picks; both see the same question
		r := h.dqGet(ann)
		expect(t, r, 200, withStreak(dqBody(nil, today, nil, false, false), 0, 0))
		q := r.JSON(t)["question"].(map[string]any)
		expect(t, h.dqGet(bob), 200, withStreak(dqBody(q, today, nil, false, false), 0, 0))

		// ann answers (trimmed); bob sees it locked, without text
		h.Clock.Advance(time.Minute)
		t1 := h.Clock.Now()
		r = h.dqPost(ann, map[string]any{"action": "answer", "text": "  The night we got lost in Lisbon  "})
		annAnswer := dqItem("", "answer", ann, t1, `"text":"The night we got lost in Lisbon"`)
		expect(t, r, 200, withStreak(dqBody(q, today, []string{annAnswer}, true, false), 0, 0))
		annID := dqItems(t, r)[0]
		annAnswer = dqItem(annID, "answer", ann, t1, `"text":"The night we got lost in Lisbon"`)
		lockedAnswer := dqItem(annID, "answer", ann, t1, `"locked":true`)
		expect(t, h.dqGet(bob), 200, dqBody(q, today, []string{lockedAnswer}, false, true))
		expect(t, h.dqGet(ann), 200, dqBody(q, today, []string{annAnswer}, true, false))

		// bob may neither reply nor react before answering; ann may not answer twice
		expect(t, h.dqPost(bob, map[string]any{"action": "reply", "text": "ha"}), 409,
			errBody("conflict", "answer today's question first"))
		expect(t, h.dqPost(bob, map[string]any{"action": "react", "messageId": annID, "reaction": "❤️"}), 409,
			errBody("conflict", "answer today's question first"))
		expect(t, h.dqPost(ann, map[string]any{"action": "answer", "text": "another"}), 409,
			errBody("conflict", "you have already answered today's question"))

		// bob answers: everything opens for him
		h.Clock.Advance(time.Minute)
		t2 := h.Clock.Now()
		r = h.dqPost(bob, map[string]any{"action": "answer", "text": "Our first dance"})
		bobAnswer := dqItem("", "answer", bob, t2, `"text":"Our first dance"`)
		expect(t, r, 200, withStreak(dqBody(q, today, []string{annAnswer, bobAnswer}, true, true), 1, 1)) // both answered today
		bobID := dqItems(t, r)[1]
		bobAnswer = dqItem(bobID, "answer", bob, t2, `"text":"Our first dance"`)

		// replies (several, replyTo optional) and reactions; a second reaction replaces the first
		h.Clock.Advance(time.Minute)
		t3 := h.Clock.Now()
		r = h.dqPost(bob, map[string]any{"action": "reply", "text": "You held the map upside down", "replyTo": annID})
		expect(t, r, 200, "")
		replyID := dqItems(t, r)[2]
		h.Clock.Advance(time.Minute)
		t3b := h.Clock.Now()
		expect(t, h.dqPost(bob, map[string]any{"action": "reply", "text": "Still proud of us"}), 200, "")
		h.Clock.Advance(time.Minute)
		expect(t, h.dqPost(ann, map[string]any{"action": "react", "messageId": replyID, "reaction": "😂"}), 200, "")
		h.Clock.Advance(time.Minute)
		t4 := h.Clock.Now()
		r = h.dqPost(ann, map[string]any{"action": "react", "messageId": replyID, "reaction": "🥰"})
		ids := dqItems(t, r)
		want := []string{annAnswer, bobAnswer,
			dqItem(replyID, "reply", bob, t3, `"text":"You held the map upside down"`, `"replyTo":"`+annID+`"`),
			dqItem(ids[3], "reply", bob, t3b, `"text":"Still proud of us"`),
			dqItem(ids[4], "reaction", ann, t4, `"reaction":"🥰"`, `"messageId":"`+replyID+`"`)}
		expect(t, r, 200, withStreak(dqBody(q, today, want, true, true), 1, 1))
		expect(t, h.dqGet(ann), 200, withStreak(dqBody(q, today, want, true, true), 1, 1))
		expect(t, h.dqGet(bob), 200, withStreak(dqBody(q, today, want, true, true), 1, 1))

		// ann's answer notified bob, bob's answer notified ann (category questions), nothing else did
		expect(t, h.get(notifPath(bob, "/notifications"), bob.Token), 200, `{"success":true,"notifications":[`+
			notificationJSON("<string>", "Your partner answered",
				"Your partner answered today's question. Answer it too to see what they said.", "questions", false, t1)+`]}`)
		expect(t, h.get(notifPath(ann, "/notifications"), ann.Token), 200, `{"success":true,"notifications":[`+
			notificationJSON("<string>", "Your partner answered",
				"Your partner answered today's question too: see what they said.", "questions", false, t2)+`]}`)

		// the export holds the caller's own items with their question
		data := h.get("/api/users/user/"+ann.ID+"/export", ann.Token).JSON(t)["data"].(map[string]any)
		wantExport := fmt.Sprintf(`[{"id":%q,"date":%q,"question":%s,"type":"answer","userId":%q,"text":"The night we got lost in Lisbon","timestamp":%d},`+
			`{"id":%q,"date":%q,"question":%s,"type":"reaction","userId":%q,"reaction":"🥰","messageId":%q,"timestamp":%d}]`,
			annID, today, jsonStr(q["text"]), ann.ID, t1.UnixMilli(), ids[4], today, jsonStr(q["text"]), ann.ID, replyID, t4.UnixMilli())
		sameJSON(t, data["questions"], wantExport)
	})
}

func TestDailyQuestionEachPartnersTodayIsInTheirTimezone(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		ann, bob := h.newUser("ann@x.io"), h.newUser("bob@x.io")
		h.pair(ann, bob)
		setTimezone(t, h, ann, "Pacific/Kiritimati") // UTC+14: already June 16
		setTimezone(t, h, bob, "Pacific/Honolulu")   // UTC-10: still June 15
		now := h.Clock.Now()                         // 2025-06-15 12:00 UTC

		annQ, bobQ := h.dqQuestion(ann), h.dqQuestion(bob)
		if annQ["date"] != "2025-06-16" || bobQ["date"] != "2025-06-15" || annQ["id"] == bobQ["id"] {
			t.Fatalf("ann %v, bob %v", annQ, bobQ)
		}
		r := h.dqPost(ann, map[string]any{"action": "answer", "text": "Sunrise"})
		annID := dqItems(t, r)[0]
		expect(t, h.dqGet(bob), 200, dqBody(bobQ, "2025-06-15", nil, false, false)) // not bob's date yet

		// a day later bob reaches June 16 and finds ann's question and her (locked) answer
		h.Clock.Advance(24 * time.Hour)
		expect(t, h.dqGet(bob), 200, dqBody(annQ, "2025-06-16",
			[]string{dqItem(annID, "answer", ann, now, `"locked":true`)}, false, true))
		// ann has moved on to June 17 meanwhile: a new question
		if q := h.dqQuestion(ann); q["date"] != "2025-06-17" || q["id"] == annQ["id"] {
			t.Fatalf("ann's next day %v", q)
		}
	})
}

func TestDailyQuestionHistory(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		ann, bob := h.newUser("ann@x.io"), h.newUser("bob@x.io")
		h.pair(ann, bob)
		histPath := func(u user, q string) string { return dqPath(u) + "/history" + q }
		expect(t, h.get(histPath(ann, ""), ann.Token), 200, `{"success":true,"questions":[]}`)

		var qs []map[string]any // by day
		var answeredAt time.Time
		for day := range 4 {
			qs = append(qs, h.dqQuestion(ann))
			if day == 1 {
				answeredAt = h.Clock.Now()
				expect(t, h.dqPost(bob, map[string]any{"action": "answer", "text": "day two"}), 200, "")
			}
			h.Clock.Advance(24 * time.Hour)
		}
		seen := map[any]bool{}
		for _, q := range qs {
			seen[q["text"]] = true
		}
		if len(seen) != 4 {
			t.Fatalf("a question repeated within four days: %v", qs)
		}
		item := func(q map[string]any, date string, conv string, me, partner bool) string {
			s := strings.Replace(dqBody(q, date, nil, me, partner), ","+anyStreak, "", 1) // the streak is not one question's
			s = strings.Replace(s, `"conversation":[]`, `"conversation":[`+conv+`]`, 1)
			return strings.Replace(s, `{"success":true,`, `{`, 1)
		}
		// today (June 19) was not opened: the history holds the four opened dates, newest first
		day2 := item(qs[1], "2025-06-16", dqItem("<string>", "answer", bob, answeredAt, `"locked":true`), false, true)
		r := h.get(histPath(ann, "?limit=2"), ann.Token)
		expect(t, r, 200, `{"success":true,"questions":[`+item(qs[3], "2025-06-18", "", false, false)+","+
			item(qs[2], "2025-06-17", "", false, false)+`]}`)
		next := r.Header.Get("X-Next-Cursor")
		if next == "" {
			t.Fatal("no next cursor")
		}
		r = h.get(histPath(ann, "?limit=2&cursor="+next), ann.Token)
		expect(t, r, 200, `{"success":true,"questions":[`+day2+","+item(qs[0], "2025-06-15", "", false, false)+`]}`)
		if c := r.Header.Get("X-Next-Cursor"); c != "" {
			t.Fatalf("cursor after the last page: %q", c)
		}
		all := h.get(histPath(bob, ""), bob.Token)
		expect(t, all, 200, "")
		if got := all.JSON(t)["questions"].([]any); len(got) != 4 ||
			got[2].(map[string]any)["answeredByMe"] != true {
			t.Fatalf("bob's history %s", all.Body)
		}
	})
}

func TestDailyQuestionErrors(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		ann, bob, cat := h.newUser("ann@x.io"), h.newUser("bob@x.io"), h.newUser("cat@x.io")
		h.pair(ann, bob)
		notPaired := errBody("not_paired", "the daily question is for couples: pair with your partner first")
		post := func(body any) req { return POST(dqPath(ann), body) }
		limit := errInvalid("limit must be a whole number from 1 to 100")
		noHistory := func(t *testing.T, h *harness) {
			expect(t, h.get(dqPath(ann)+"/history", ann.Token), 200, `{"success":true,"questions":[]}`)
		}
		runScenarios(t, h, afterEach(noHistory, signedIn(ann, []scenario{
			{name: "unpaired GET", req: GET(dqPath(cat)).by(cat), status: 409, want: notPaired},
			{name: "unpaired answer", req: POST(dqPath(cat), map[string]any{"action": "answer", "text": "hi"}).by(cat), status: 409, want: notPaired},
			{name: "unpaired history", req: GET(dqPath(cat) + "/history").by(cat), status: 409, want: notPaired},
			{name: "no token", req: GET(dqPath(ann)).anonymous(), status: 401, want: errNoToken},
			{name: "the partner's path", req: GET(dqPath(bob)), status: 403, want: errNotYours},
			{name: "the partner's history", req: GET(dqPath(bob) + "/history"), status: 403, want: errNotYours},
			{name: "reply before anyone opened the date", req: post(map[string]any{"action": "reply", "text": "x"}), status: 409,
				want: errBody("conflict", "answer today's question first")},
			{name: "no action", req: post(map[string]any{"text": "x"}), status: 400, want: errInvalid("action is required: answer, reply, react")},
			{name: "unknown action", req: post(map[string]any{"action": "edit", "text": "x"}), status: 400,
				want: errInvalid(`unknown action \"edit\": use answer, reply, react`)},
			{name: "empty answer", req: post(map[string]any{"action": "answer", "text": "   "}), status: 400, want: errInvalid("text is required")},
			{name: "answer without text", req: post(map[string]any{"action": "answer"}), status: 400, want: errInvalid("text is required")},
			{name: "answer of 2001 characters", req: post(map[string]any{"action": "answer", "text": strings.Repeat("x", 2001)}), status: 400,
				want: errInvalid("text must be at most 2000 characters")},
			{name: "text not a string", req: post(map[string]any{"action": "answer", "text": 42}), status: 400, want: errInvalid("field text must be a string")},
			{name: "answer with a messageId", req: post(map[string]any{"action": "answer", "text": "x", "messageId": "m"}), status: 400,
				want: errInvalid("an answer takes text only")},
			{name: "reaction without messageId", req: post(map[string]any{"action": "react", "reaction": "👍"}), status: 400,
				want: errInvalid("messageId is required")},
			{name: "reaction too long", req: post(map[string]any{"action": "react", "messageId": "m", "reaction": strings.Repeat("😀", 17)}), status: 400,
				want: errInvalid("reaction must be at most 16 characters")},
			{name: "reaction missing", req: post(map[string]any{"action": "react", "messageId": "m"}), status: 400, want: errInvalid("reaction is required")},
			{name: "malformed JSON", req: post(`{"action":`), status: 400, want: errInvalid("malformed JSON")},
			{name: "not JSON", req: POST(dqPath(ann), "x").asText(), status: 415, want: errNotJSON},
			{name: "history limit 0", req: GET(dqPath(ann) + "/history?limit=0"), status: 400, want: limit},
			{name: "history limit 101", req: GET(dqPath(ann) + "/history?limit=101"), status: 400, want: limit},
			{name: "history limit not a number", req: GET(dqPath(ann) + "/history?limit=ten"), status: 400, want: limit},
			{name: "history bad cursor", req: GET(dqPath(ann) + "/history?cursor=%25%25"), status: 400,
				want: errInvalid("cursor is not one this server handed out")},
		})))
		// nothing was written, not even today's pick; then the message-id rules
		expect(t, h.dqGet(ann), 200, dqBody(nil, "2025-06-15", nil, false, false))
		r := h.dqPost(ann, map[string]any{"action": "answer", "text": "mine"})
		expect(t, r, 200, "")
		annID := dqItems(t, r)[0]
		expect(t, h.dqPost(ann, map[string]any{"action": "react", "messageId": "nope", "reaction": "👍"}), 404,
			errBody("not_found", "no such message in today's conversation"))
		expect(t, h.dqPost(ann, map[string]any{"action": "reply", "text": "x", "replyTo": "nope"}), 404,
			errBody("not_found", "no such message in today's conversation"))
		h.Clock.Advance(time.Second)
		r = h.dqPost(ann, map[string]any{"action": "react", "messageId": annID, "reaction": "👍"})
		reactionID := dqItems(t, r)[1]
		expect(t, h.dqPost(ann, map[string]any{"action": "react", "messageId": reactionID, "reaction": "👍"}), 400,
			errInvalid("you can reply and react to answers and replies only"))
		if n := len(dqItems(t, h.dqGet(ann))); n != 2 {
			t.Fatalf("%d items after the refused requests", n)
		}
		// yesterday's items are not today's: after midnight they cannot be targeted
		h.Clock.Advance(24 * time.Hour)
		expect(t, h.dqPost(ann, map[string]any{"action": "answer", "text": "a new day"}), 200, "")
		expect(t, h.dqPost(ann, map[string]any{"action": "react", "messageId": annID, "reaction": "👍"}), 404,
			errBody("not_found", "no such message in today's conversation"))
	})
}

func TestDailyQuestionFollowsThePartnership(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		ann, bob, cat := h.newUser("ann@x.io"), h.newUser("bob@x.io"), h.newUser("cat@x.io")
		h.pair(ann, bob)
		first := h.dqQuestion(ann)
		expect(t, h.dqPost(ann, map[string]any{"action": "answer", "text": "with bob"}), 200, "")

		// unpaired: the question is gone for both
		expect(t, h.keyed("POST", "/api/partnerConnections/unlink", ann, map[string]any{"userId": ann.ID}), 200, "")
		for _, u := range []user{ann, bob} {
			expect(t, h.dqGet(u), 409, errBody("not_paired", "the daily question is for couples: pair with your partner first"))
		}
		// a new couple starts a new conversation and a new history
		h.pair(ann, cat)
		r := h.dqGet(cat)
		expect(t, r, 200, dqBody(nil, "2025-06-15", nil, false, false))
		if q := r.JSON(t)["question"].(map[string]any); q["id"] == first["id"] {
			t.Fatalf("the new couple got the old couple's question record")
		}
		expect(t, h.get(dqPath(ann)+"/history", ann.Token), 200, "")
		if n := len(h.get(dqPath(ann)+"/history", ann.Token).JSON(t)["questions"].([]any)); n != 1 {
			t.Fatalf("the new couple's history holds %d", n)
		}
		// ann's old answer is still hers: it is in her export
		data := h.get("/api/users/user/"+ann.ID+"/export", ann.Token).JSON(t)["data"].(map[string]any)
		if items, ok := data["questions"].([]any); !ok || len(items) != 1 {
			t.Fatalf("export %v", data["questions"])
		}
	})
}

func TestAccountDeletionTakesTheDailyQuestionItemsAlong(t *testing.T) {
	eachProfileWith(t, func(t *testing.T, h *harness, repo questions.Repository) {
		ann, bob := h.newUser("ann@x.io"), h.newUser("bob@x.io")
		h.pair(ann, bob)
		annID := dqItems(t, h.dqPost(ann, map[string]any{"action": "answer", "text": "mine"}))[0]
		h.Clock.Advance(time.Second)
		expect(t, h.dqPost(bob, map[string]any{"action": "answer", "text": "his"}), 200, "")
		h.Clock.Advance(time.Second)
		expect(t, h.dqPost(bob, map[string]any{"action": "react", "messageId": annID, "reaction": "❤️"}), 200, "")
		h.Clock.Advance(time.Second)
		expect(t, h.dqPost(bob, map[string]any{"action": "reply", "text": "to you", "replyTo": annID}), 200, "")

		expect(t, h.do(req{Method: "DELETE", Path: "/api/users/user/" + ann.ID, Token: ann.Token}), 200, "")
		ctx := context.Background()
		if mine, err := repo.MessagesByUser(ctx, ann.ID); err != nil || len(mine) != 0 {
			t.Fatalf("ann's items after deletion: %v %v", mine, err)
		}
		// bob keeps his answer and reply; his reaction to ann's answer went with it
		his, err := repo.MessagesByUser(ctx, bob.ID)
		if err != nil || len(his) != 2 || his[0].Message.Text != "his" || his[1].Message.Text != "to you" {
			t.Fatalf("bob's items: %+v %v", his, err)
		}
		expect(t, h.dqGet(bob), 409, errBody("not_paired", "the daily question is for couples: pair with your partner first"))
	})
}
