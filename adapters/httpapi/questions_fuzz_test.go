package httpapi_test

import (
	"slices"
	"testing"
	"time"

	"tandem/modules/questions"
)

type questionView struct {
	Question struct {
		ID, Text, Category, Date string
	} `json:"question"`
	Conversation []struct {
		ID        string `json:"id"`
		Type      string `json:"type"`
		UserID    string `json:"userId"`
		Text      string `json:"text"`
		Reaction  string `json:"reaction"`
		ReplyTo   string `json:"replyTo"`
		MessageID string `json:"messageId"`
		Locked    bool   `json:"locked"`
	} `json:"conversation"`
	AnsweredByMe      bool `json:"answeredByMe"`
	AnsweredByPartner bool `json:"answeredByPartner"`
}

// FuzzQuestionBody: any body of POST .../daily-question (answer, reply,
// react) gets a 200 or a 4xx with the error body; the conversation holds
// only what the rules allow: one answer per user, answers and replies of
// 1-2000 characters (trimmed, tab and newline allowed, no other control or
// bidi characters), reactions of 1-16 characters to an answer or reply of
// the same conversation, replies pointing only at such an item, and the
// partner's words locked until the reader has answered.
func FuzzQuestionBody(f *testing.F) {
	f.Add([]byte(`{"action":"answer","text":"Our first trip"}`), false)
	f.Add([]byte(`{"action":"reply","text":" me too \n"}`), false)
	f.Add([]byte(`{"action":"react","messageId":"x","reaction":"❤️"}`), true)
	f.Add([]byte(`{"action":"answer","text":"x","reaction":"y"}`), false)
	f.Add([]byte(`{"action":"answer","text":""}`), true)
	f.Fuzz(func(t *testing.T, body []byte, asPartner bool) {
		a := apiForFuzz(t)
		a.mu.Lock()
		defer a.mu.Unlock()
		u, other := a.user, a.partner
		if asPartner {
			u, other = other, u
		}
		path := "/api/users/user/" + u.ID + "/daily-question/"
		if v := decodeAs[questionView](t, a.must(t, "GET", path, u.Token, nil)); len(v.Conversation) > 40 {
			a.advance(t, 24*time.Hour) // a new date, a new conversation: keep each read small
			u.Token, other.Token = a.user.Token, a.partner.Token
			if asPartner {
				u.Token, other.Token = other.Token, u.Token
			}
		}
		if st, _ := a.send(t, "POST", path, u.Token, body); st != 200 {
			return
		}
		mine := decodeAs[questionView](t, a.must(t, "GET", path, u.Token, nil))
		theirs := decodeAs[questionView](t, a.must(t, "GET", "/api/users/user/"+other.ID+"/daily-question/", other.Token, nil))
		checkConversation(t, u.ID, mine)
		checkConversation(t, other.ID, theirs)
	})
}

func checkConversation(t *testing.T, reader string, v questionView) {
	t.Helper()
	answers := map[string]int{}
	var ids, targets []string
	for _, it := range v.Conversation {
		ids = append(ids, it.ID)
		if it.Type != "reaction" {
			targets = append(targets, it.ID)
		}
	}
	for i, id := range ids {
		if slices.Index(ids, id) != i {
			t.Fatalf("item id %q twice in the conversation", id)
		}
	}
	for _, it := range v.Conversation {
		switch it.Type {
		case "answer", "reply":
			if it.Type == "answer" {
				answers[it.UserID]++
			}
			if it.Locked {
				if it.Text != "" || it.UserID == reader || v.AnsweredByMe {
					t.Fatalf("item %+v locked wrongly for %s", it, reader)
				}
				continue
			}
			if it.UserID != reader && !v.AnsweredByMe {
				t.Fatalf("the partner's %s is readable before %s answered", it.Type, reader)
			}
			textRule(t, "text", it.Text, 1, questions.MaxText, true, true)
			if it.ReplyTo != "" && (it.Type != "reply" || !slices.Contains(targets, it.ReplyTo)) {
				t.Fatalf("reply to %q, which is no answer or reply here", it.ReplyTo)
			}
		case "reaction":
			textRule(t, "reaction", it.Reaction, 1, questions.MaxReaction, false, true)
			if !slices.Contains(targets, it.MessageID) {
				t.Fatalf("reaction to %q, which is no answer or reply here", it.MessageID)
			}
		default:
			t.Fatalf("item type %q", it.Type)
		}
	}
	for user, n := range answers {
		if n > 1 {
			t.Fatalf("%s answered %d times", user, n)
		}
	}
}
