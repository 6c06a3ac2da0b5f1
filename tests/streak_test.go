package tests

import (
	"fmt"
	"testing"
	"time"
)

// The couple's question streak in the daily question's GET and POST bodies,
// end to end: days both partners answered in a row, on the harness clock.

// dqStreak is the streak of a daily question body as "current/best".
func dqStreak(t *testing.T, r response) string {
	t.Helper()
	expect(t, r, 200, "")
	s, ok := r.JSON(t)["streak"].(map[string]any)
	if !ok {
		t.Fatalf("no streak in %s", r.Body)
	}
	return fmt.Sprintf("%v/%v", s["current"], s["best"])
}

func TestDailyQuestionStreak(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		ann, bob, cat := h.newUser("ann@x.io"), h.newUser("bob@x.io"), h.newUser("cat@x.io")
		h.pair(ann, bob)
		answer := func(u user) response {
			t.Helper()
			return h.dqPost(u, map[string]any{"action": "answer", "text": "mine"})
		}
		want := func(what string, got string, streak string) {
			t.Helper()
			if got != streak {
				t.Fatalf("%s: streak %s, want %s", what, got, streak)
			}
		}

		// June 15: nothing yet; one answer is no day; both answers are
		want("before any answer", dqStreak(t, h.dqGet(ann)), "0/0")
		want("ann's answer", dqStreak(t, answer(ann)), "0/0")
		want("bob's answer", dqStreak(t, answer(bob)), "1/1")
		r := h.dqGet(ann)
		q := r.JSON(t)["question"].(map[string]any)
		expect(t, r, 200, withStreak(dqBody(q, "2025-06-15", []string{`"<any>"`, `"<any>"`}, true, true), 1, 1))

		// June 16 and 17: the streak is alive before today is answered, and grows
		for _, day := range []struct{ before, after string }{{"1/1", "2/2"}, {"2/2", "3/3"}} {
			h.Clock.Advance(24 * time.Hour)
			want("bob before the day's answers", dqStreak(t, h.dqGet(bob)), day.before)
			want("ann's answer", dqStreak(t, answer(ann)), day.before)
			want("bob's answer", dqStreak(t, answer(bob)), day.after)
		}
		want("ann on June 17", dqStreak(t, h.dqGet(ann)), "3/3")

		// June 18 passes with ann's answer only: on June 19 current is 0, best is kept
		h.Clock.Advance(24 * time.Hour)
		want("ann alone on June 18", dqStreak(t, answer(ann)), "3/3")
		h.Clock.Advance(24 * time.Hour)
		want("ann on June 19", dqStreak(t, h.dqGet(ann)), "0/3")
		want("bob on June 19", dqStreak(t, h.dqGet(bob)), "0/3")
		want("ann's answer on June 19", dqStreak(t, answer(ann)), "0/3")
		want("ann's reply", dqStreak(t, h.dqPost(ann, map[string]any{"action": "reply", "text": "anyone?"})), "0/3")
		want("bob's answer on June 19", dqStreak(t, answer(bob)), "1/3")
		h.Clock.Advance(24 * time.Hour)
		want("June 20, not yet answered", dqStreak(t, h.dqGet(ann)), "1/3")

		// the streak is the partnership's: a new couple starts at 0
		expect(t, h.keyed("POST", "/api/partnerConnections/unlink", ann, map[string]any{"userId": ann.ID}), 200, "")
		h.pair(ann, cat)
		want("ann with cat", dqStreak(t, h.dqGet(ann)), "0/0")
		want("cat's answer", dqStreak(t, answer(cat)), "0/0")
		want("ann's answer with cat", dqStreak(t, answer(ann)), "1/1")
		expect(t, h.dqGet(bob), 409, errBody("not_paired", "the daily question is for couples: pair with your partner first"))
	})
}

// TestDailyQuestionStreakAcrossTheDateLine: partners a date apart (UTC+14
// and UTC-10) answer each date near its midnight; a date stays open while
// the partner behind is still on it, so the one ahead never sees a broken
// streak for a date the other has not finished.
func TestDailyQuestionStreakAcrossTheDateLine(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		ann, bob := h.newUser("ann@x.io"), h.newUser("bob@x.io")
		h.pair(ann, bob)
		setTimezone(t, h, ann, "Pacific/Kiritimati")
		setTimezone(t, h, bob, "Pacific/Honolulu")
		answer := func(u user, date string) string {
			t.Helper()
			r := h.dqPost(u, map[string]any{"action": "answer", "text": "mine"})
			if d := r.JSON(t)["question"].(map[string]any)["date"]; d != date {
				t.Fatalf("answered %v, want %s", d, date)
			}
			return dqStreak(t, r)
		}
		at := func(utc string) {
			v, err := time.Parse(time.DateTime, utc)
			if err != nil {
				t.Fatal(err)
			}
			h.Clock.Set(v)
		}
		at("2025-06-15 09:55:00") // ann's June 15 23:55, bob's June 14 23:55
		if got := answer(ann, "2025-06-15"); got != "0/0" {
			t.Fatalf("ann's first answer: %s", got)
		}
		at("2025-06-16 09:50:00") // bob's June 15 23:50, ann's June 16 23:50
		if got := answer(bob, "2025-06-15"); got != "1/1" {
			t.Fatalf("bob completes June 15: %s", got)
		}
		if got := answer(ann, "2025-06-16"); got != "1/1" {
			t.Fatalf("ann's June 16: %s", got)
		}
		at("2025-06-16 10:05:00") // ann's June 17 begins; June 16 is still bob's today
		for _, u := range []user{ann, bob} {
			if got := dqStreak(t, h.dqGet(u)); got != "1/1" {
				t.Fatalf("%s while bob is on June 16: %s", u.ID, got)
			}
		}
		at("2025-06-17 09:59:00")
		if got := answer(bob, "2025-06-16"); got != "2/2" {
			t.Fatalf("bob completes June 16: %s", got)
		}
		at("2025-06-18 10:01:00") // ann skipped her June 17; bob's June 18 begins
		if got := dqStreak(t, h.dqGet(ann)); got != "0/2" {
			t.Fatalf("after the missed June 17: %s", got)
		}
	})
}
