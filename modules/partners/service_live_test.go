// This file holds the test that every change to a pairing status is
// announced live, to whom and only when.

package partners_test

import (
	"testing"
	"time"

	"tandem/core"
	"tandem/modules/partners"
)

// TestPairingIsAnnouncedLive: every change to a pairing status is a
// pairing.changed live event for exactly the users whose status changed,
// each with their own status as their GET returns it after the change;
// the end of a partnership is a partnership.ended event for both former
// partners, each naming the other. Nobody else ever hears of it (the
// deleted account's status included), and a refused attempt announces
// nothing.
func TestPairingIsAnnouncedLive(t *testing.T) {
	t.Parallel()
	type want struct {
		typ     string
		readers []string
	}
	changed := func(users ...string) want { return want{"pairing.changed", users} }
	ended := want{typ: "partnership.ended", readers: []string{"a", "b"}}
	cases := []struct {
		name    string
		arrange func(t *testing.T, f *fixture) // e and g are partners, and x holds a code nobody uses, throughout
		act     func(t *testing.T, f *fixture) error
		want    []want
	}{
		{name: "generate-code: the user alone",
			act:  func(t *testing.T, f *fixture) error { _, err := f.svc.GenerateCode(ctx, "a"); return err },
			want: []want{changed("a")}},
		{name: "submit: the submitter (outgoing) and the code's owner (incoming)",
			arrange: func(t *testing.T, f *fixture) { f.code(t, "b") },
			act:     func(t *testing.T, f *fixture) error { _, err := f.submit("a", codeOf(t, f, "b")); return err },
			want:    []want{changed("a", "b")}},
		{name: "submit again to someone else: the one whose request it replaced too",
			arrange: func(t *testing.T, f *fixture) { f.submit("a", f.code(t, "b")); f.code(t, "c") },
			act:     func(t *testing.T, f *fixture) error { _, err := f.submit("a", codeOf(t, f, "c")); return err },
			want:    []want{changed("a", "c", "b")}},
		{name: "connected: both, and whoever waited on either",
			arrange: func(t *testing.T, f *fixture) {
				cb := f.code(t, "b")
				f.submit("a", cb)
				f.submit("w", f.code(t, "a")) // w waits on a; the connection clears it
				f.submit("v", cb)             // and v on b
			},
			act:  func(t *testing.T, f *fixture) error { _, err := f.submit("b", codeOf(t, f, "a")); return err },
			want: []want{changed("b", "a", "w", "v")}},
		{name: "link: both, and whoever waited on either",
			arrange: func(t *testing.T, f *fixture) {
				f.create("a", "zq7w-conn-code-a")
				f.submit("w", f.code(t, "a"))
			},
			act:  func(t *testing.T, f *fixture) error { _, err := f.linkWith("b", "zq7w-conn-code-a"); return err },
			want: []want{changed("b", "a", "w")}},
		{name: "unpair: ended for both, and both statuses",
			arrange: func(t *testing.T, f *fixture) { f.pairByCodes(t, "a", "b") },
			act:     func(t *testing.T, f *fixture) error { return f.svc.Unpair(ctx, "b") },
			want:    []want{ended, changed("a", "b")}},
		{name: "unlink: ended for both, and both statuses",
			arrange: func(t *testing.T, f *fixture) { f.link(t, "a", "b") },
			act:     func(t *testing.T, f *fixture) error { return f.svc.Unlink(ctx, "a") },
			want:    []want{ended, changed("a", "b")}},
		{name: "account deleted while paired: ended for both, the partner's status only",
			arrange: func(t *testing.T, f *fixture) { f.pairByCodes(t, "a", "b") },
			act:     func(t *testing.T, f *fixture) error { return f.svc.PurgeUser(ctx, "a") },
			want:    []want{ended, changed("b")}},
		{name: "account deleted while pending: the others of its requests only",
			arrange: func(t *testing.T, f *fixture) {
				f.submit("a", f.code(t, "b"))
				f.submit("c", f.code(t, "a"))
			},
			act:  func(t *testing.T, f *fixture) error { return f.svc.PurgeUser(ctx, "a") },
			want: []want{changed("b", "c")}},
		{name: "account deleted with nothing pending: nobody",
			act: func(t *testing.T, f *fixture) error { return f.svc.PurgeUser(ctx, "a") }},
		{name: "own code refused: nothing",
			arrange: func(t *testing.T, f *fixture) { f.code(t, "a") },
			act:     func(t *testing.T, f *fixture) error { _, err := f.submit("a", codeOf(t, f, "a")); return err }},
		{name: "unknown code refused: nothing",
			act: func(t *testing.T, f *fixture) error { _, err := f.submit("a", "ZZZZZZ"); return err }},
		{name: "a paired user's submit refused: nothing", arrange: func(t *testing.T, f *fixture) { f.code(t, "a") },
			act: func(t *testing.T, f *fixture) error { _, err := f.submit("e", codeOf(t, f, "a")); return err }},
		{name: "a paired owner's code refused: nothing",
			act: func(t *testing.T, f *fixture) error { _, err := f.linkWith("a", "zq7w-conn-code-e"); return err }},
		{name: "unpair while unpaired refused: nothing",
			act: func(t *testing.T, f *fixture) error { return f.svc.Unpair(ctx, "a") }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			if _, err := f.create("e", "zq7w-conn-code-e"); err != nil {
				t.Fatal(err)
			}
			f.pairByCodes(t, "e", "g")
			f.code(t, "x")
			if tc.arrange != nil {
				tc.arrange(t, f)
			}
			f.clock.Advance(time.Minute)
			f.bus.Reset()
			err := tc.act(t, f)
			if len(tc.want) == 0 {
				f.bus.WantLive(t)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var lives []core.Live
			for _, w := range tc.want {
				l := core.Live{Type: w.typ, For: map[string]any{}}
				for _, u := range w.readers {
					if w.typ == "partnership.ended" {
						other := map[string]string{"a": "b", "b": "a"}[u]
						l.For[u] = partners.Ended{PartnerID: other}
						continue
					}
					l.For[u] = f.status(t, u) // what the user's own GET returns
				}
				lives = append(lives, l)
			}
			f.bus.WantLive(t, lives...)
		})
	}
}

// codeOf is the user's current pairing code, read without generating one.
func codeOf(t *testing.T, f *fixture, user string) string {
	t.Helper()
	st := f.status(t, user)
	if st.MyCode == nil {
		t.Fatalf("%s has no code", user)
	}
	return st.MyCode.Code
}
