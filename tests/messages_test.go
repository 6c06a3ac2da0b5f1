package tests

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"tandem/core"
	"tandem/modules/messages"
)

// Messages, end to end: both credentials, the thread of the partnership (the
// user's own while unpaired), a new partner's empty thread, paging and every
// error.

// sendMessage sends body as u, returns the message's id and moves the clock
// on a millisecond, so messages have distinct times.
func (h *harness) sendMessage(u user, body string) string {
	h.t.Helper()
	now := h.Clock.Now().UnixMilli()
	r := h.keyed("POST", "/api/messages/send", u, map[string]any{"body": body})
	expect(h.t, r, 200, `{"success":true,"id":"<string>","createdAt":`+itoa(now)+`}`)
	h.Clock.Advance(time.Millisecond)
	return r.JSON(h.t)["id"].(string)
}

// messageJSON is the exact JSON of one listed message.
func messageJSON(id, body string, author user, at int64) string {
	b, err := json.Marshal(map[string]any{"id": id, "body": body, "author": author.ID, "createdAt": at})
	if err != nil {
		panic(err)
	}
	return string(b)
}

// thread lists u's messages and returns their bodies, newest first.
func (h *harness) thread(u user) string {
	h.t.Helper()
	r := h.keyed("GET", "/api/messages/list", u, nil)
	expect(h.t, r, 200, "")
	var ms []map[string]any
	if err := json.Unmarshal(r.Body, &ms); err != nil {
		h.t.Fatal(err)
	}
	return joinField(ms, "body")
}

func TestMessagesSendAndListWhileUnpaired(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		u, other := h.newUser("a@x.io"), h.newUser("b@x.io")
		expect(t, h.keyed("GET", "/api/messages/list", u, nil), 200, `[]`)
		at := h.Clock.Now().UnixMilli()
		first := h.sendMessage(u, "  note to self 📝 \n")
		second := h.sendMessage(u, "line one\nline two")
		long := strings.Repeat("é", 4000)
		third := h.sendMessage(u, long)
		expect(t, h.keyed("GET", "/api/messages/list", u, nil), 200, "["+messageJSON(third, long, u, at+2)+","+
			messageJSON(second, "line one\nline two", u, at+1)+","+messageJSON(first, "note to self 📝", u, at)+"]")
		expect(t, h.keyed("GET", "/api/messages/list", other, nil), 200, `[]`)
		// the export carries what the user wrote, with no partnership
		data := h.get("/api/users/user/"+u.ID+"/export", u.Token).JSON(t)["data"].(map[string]any)
		exported, _ := json.Marshal(data["messages"])
		var got, want any
		_ = json.Unmarshal(exported, &got)
		_ = json.Unmarshal([]byte(`[{"id":"`+third+`","body":"<string>","author":"`+u.ID+`","createdAt":`+itoa(at+2)+`,"partnershipId":null},`+
			`{"id":"`+second+`","body":"line one\nline two","author":"`+u.ID+`","createdAt":`+itoa(at+1)+`,"partnershipId":null},`+
			`{"id":"`+first+`","body":"note to self 📝","author":"`+u.ID+`","createdAt":`+itoa(at)+`,"partnershipId":null}]`), &want)
		if err := match("$", want, got); err != nil {
			t.Fatalf("export: %v\n%s", err, exported)
		}
	})
}

func TestMessagesBelongToThePartnership(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		ann, bob, cid := h.newUser("ann@x.io"), h.newUser("bob@x.io"), h.newUser("cid@x.io")
		h.sendMessage(ann, "ann alone")

		// paired: a new, empty thread, which both partners read the same
		h.pair(ann, bob)
		expect(t, h.keyed("GET", "/api/messages/list", ann, nil), 200, `[]`)
		at := h.Clock.Now().UnixMilli()
		toBob := h.sendMessage(ann, "hi bob")
		toAnn := h.sendMessage(bob, "hi ann")
		both := "[" + messageJSON(toAnn, "hi ann", bob, at+1) + "," + messageJSON(toBob, "hi bob", ann, at) + "]"
		expect(t, h.keyed("GET", "/api/messages/list", ann, nil), 200, both)
		expect(t, h.keyed("GET", "/api/messages/list", bob, nil), 200, both)
		expect(t, h.keyed("GET", "/api/messages/list", cid, nil), 200, `[]`)

		// unlinked: each is back in their own thread; the couple's is listed to neither
		expect(t, h.keyed("POST", "/api/partnerConnections/unlink", ann, map[string]any{"userId": ann.ID}), 200, "")
		if got := h.thread(ann); got != "ann alone" {
			t.Fatalf("ann after unlinking: %s", got)
		}
		if got := h.thread(bob); got != "" {
			t.Fatalf("bob after unlinking: %s", got)
		}

		// a new partner never sees the earlier couple's messages
		h.pair(ann, cid)
		if got := h.thread(cid); got != "" {
			t.Fatalf("the new partner reads %s", got)
		}
		if got := h.thread(ann); got != "" {
			t.Fatalf("ann with cid reads %s", got)
		}
		h.sendMessage(cid, "hello ann")
		if got := h.thread(ann); got != "hello ann" {
			t.Fatalf("ann with cid: %s", got)
		}
		if got := h.thread(bob); got != "" {
			t.Fatalf("bob reads %s", got)
		}
		// the earlier thread is still what each wrote: in their exports
		data := h.get("/api/users/user/"+bob.ID+"/export", bob.Token).JSON(t)["data"].(map[string]any)
		if ms, ok := data["messages"].([]any); !ok || len(ms) != 1 || ms[0].(map[string]any)["body"] != "hi ann" ||
			ms[0].(map[string]any)["partnershipId"] == nil {
			t.Fatalf("bob's export %v", data["messages"])
		}
	})
}

func TestMessagesListPages(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		u, partner := h.newUser("a@x.io"), h.newUser("b@x.io")
		h.pair(u, partner)
		for i, b := range []string{"1", "2", "3", "4", "5"} {
			h.sendMessage([]user{u, partner}[i%2], b)
		}
		var got []string
		for _, r := range pages(t, 2, func(q string) response { return h.keyed("GET", "/api/messages/list?"+q, partner, nil) }) {
			page := jsonArray(t, r)
			if len(page) > 2 {
				t.Fatalf("page of %d", len(page))
			}
			got = append(got, joinField(page, "body"))
		}
		if strings.Join(got, "|") != "5,4|3,2|1" {
			t.Fatalf("pages %v", got)
		}
		if r := h.keyed("GET", "/api/messages/list?limit=5", u, nil); r.Header.Get("X-Next-Cursor") != "" {
			t.Fatal("a cursor after the last page")
		}
		if r := h.keyed("GET", "/api/messages/list", u, nil); r.Header.Get("X-Next-Cursor") != "" {
			t.Fatal("a cursor on an unpaged list")
		}
	})
}

func TestMessageErrors(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		u := h.newUser("a@x.io")
		at := h.Clock.Now().UnixMilli()
		seed := h.sendMessage(u, "seed")
		badKey := errBadKey
		list, sendPath := "/api/messages/list", "/api/messages/send"
		send := func(body any) req { return POST(sendPath, body).withKey() }
		unchanged := func(t *testing.T, h *harness) {
			expect(t, h.keyed("GET", list, u, nil), 200, "["+messageJSON(seed, "seed", u, at)+"]")
		}
		runScenarios(t, h, afterEach(unchanged, signedIn(u, []scenario{
			{name: "list without the key", req: GET(list), status: 401, want: badKey},
			{name: "list with a wrong key", req: GET(list).with("X-API-Key", "guess"), status: 401, want: badKey},
			{name: "list with the key and no token", req: GET(list).withKey().anonymous(), status: 401, want: errNoToken},
			{name: "list with a bad token", req: GET(list).withKey().by(user{Token: "not-a-token"}), status: 401,
				want: errBody("unauthorized", "missing, invalid or expired token")},
			{name: "list with a bad limit", req: GET(list + "?limit=501").withKey(), status: 400,
				want: errInvalid("limit must be a whole number from 1 to 500")},
			{name: "list with a forged cursor", req: GET(list + "?limit=2&cursor=forged").withKey(), status: 400,
				want: errInvalid("cursor is not one this server handed out")},
			{name: "send without the key", req: POST(sendPath, map[string]any{"body": "x"}), status: 401, want: badKey},
			{name: "send with the key and no token", req: POST(sendPath, map[string]any{"body": "x"}).withKey().anonymous(), status: 401,
				want: errNoToken},
			{name: "send without a body field", req: send(map[string]any{}), status: 400, want: errInvalid("body is required")},
			{name: "send a null body", req: send(`{"body":null}`), status: 400, want: errInvalid("body is required")},
			{name: "send a blank body", req: send(map[string]any{"body": " \n\t "}), status: 400, want: errInvalid("body is required")},
			{name: "send 4001 characters", req: send(map[string]any{"body": strings.Repeat("a", 4001)}), status: 400,
				want: errInvalid("body must be at most 4000 characters")},
			{name: "send a number", req: send(map[string]any{"body": 7}), status: 400, want: errInvalid("field body must be a string")},
			{name: "send malformed JSON", req: send(`{"body":`), status: 400, want: errInvalid("malformed JSON")},
			{name: "send an empty request body", req: send(""), status: 400, want: errInvalid("request body is empty")},
			{name: "send a JSON array", req: send(`["hi"]`), status: 400, want: errInvalid("request body must be a JSON object")},
			{name: "send not JSON", req: send("hi").asText(), status: 415, want: errNotJSON},
			{name: "send with GET", req: GET(sendPath).withKey(), status: 405, want: errNotAllowed},
		})))
	})
}

func TestAccountDeletionTakesTheMessagesAlong(t *testing.T) {
	eachProfileWith(t, func(t *testing.T, h *harness, repo messages.Repository) {
		leaver, partner := h.newUser("a@x.io"), h.newUser("b@x.io")
		h.sendMessage(leaver, "solo note")
		h.pair(leaver, partner)
		h.sendMessage(leaver, "from the leaver")
		h.sendMessage(partner, "from the partner")

		expect(t, h.do(req{Method: "DELETE", Path: "/api/users/user/" + leaver.ID, Token: leaver.Token}), 200, "")
		ctx := context.Background()
		if left, _, err := repo.ByAuthor(ctx, leaver.ID, core.Page{}); err != nil || len(left) != 0 {
			t.Fatalf("the leaver's messages %v %v", left, err)
		}
		if solo, _, err := repo.List(ctx, messages.SoloScope(leaver.ID), core.Page{}); err != nil || len(solo) != 0 {
			t.Fatalf("the leaver's solo thread %v %v", solo, err)
		}
		// the partnership ended with the account: the partner is alone again,
		// and what they wrote is still theirs
		if got := h.thread(partner); got != "" {
			t.Fatalf("the partner reads %s", got)
		}
		if mine, _, err := repo.ByAuthor(ctx, partner.ID, core.Page{}); err != nil || len(mine) != 1 || mine[0].Body != "from the partner" {
			t.Fatalf("the partner's messages %v %v", mine, err)
		}
	})
}
