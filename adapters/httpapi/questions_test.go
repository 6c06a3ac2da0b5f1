package httpapi

import (
	"testing"

	"tandem/core"
	"tandem/modules/questions"
)

// TestQuestionRequestMapsTheActionToOnePost: the handler tells the three
// posts apart and refuses the fields of another action.
func TestQuestionRequestMapsTheActionToOnePost(t *testing.T) {
	cases := []struct {
		name string
		in   questionRequest
		want questions.Post
		err  string
	}{
		{"answer", questionRequest{Action: "answer", Text: "hi"}, questions.Answer{Text: "hi"}, ""},
		{"reply", questionRequest{Action: "reply", Text: "r", ReplyTo: "id-2"}, questions.Reply{Text: "r", ReplyTo: "id-2"}, ""},
		{"react", questionRequest{Action: "react", MessageID: "id-2", Reaction: "👍"}, questions.React{MessageID: "id-2", Reaction: "👍"}, ""},
		{"blank fields of another action are no fields", questionRequest{Action: "answer", Text: "x", Reaction: " "}, questions.Answer{Text: "x"}, ""},
		{"answer with a reaction", questionRequest{Action: "answer", Text: "x", Reaction: "👍"}, nil, "an answer takes text only"},
		{"reply with a messageId", questionRequest{Action: "reply", Text: "x", MessageID: "id-2"}, nil, "a reply takes text and, optionally, replyTo"},
		{"react with text", questionRequest{Action: "react", MessageID: "id-2", Reaction: "👍", Text: "x"}, nil, "a reaction takes messageId and reaction"},
		{"no action", questionRequest{Text: "x"}, nil, "action is required: answer, reply, react"},
		{"unknown action", questionRequest{Action: "delete"}, nil, `unknown action "delete": use answer, reply, react`},
	}
	for _, tc := range cases {
		got, err := tc.in.post()
		if tc.err != "" {
			if e := core.As(err); err == nil || e.Code != "invalid_request" || e.Message != tc.err {
				t.Errorf("%s: got %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: got %#v %v, want %#v", tc.name, got, err, tc.want)
		}
	}
}
