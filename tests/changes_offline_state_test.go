package tests

import (
	"cmp"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"tandem/modules/changes"
)

// What an app holds, and a full REST refetch of it, for the offline
// scenario of issue 47 (changes_offline_test.go): each record keyed as the
// feed keys it, each as the read whose JSON the feed's put carries.
// recordKey is a record as the feed names it.
type recordKey struct{ Kind, ID string }

// appState is what an app holds: each record's JSON, normalised.
type appState map[recordKey]string

// normalJSON is raw decoded and encoded again: the keys in order.
func normalJSON(t testing.TB, raw []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("not JSON: %v: %s", err, raw)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// apply is s after cs, applied in order as the app does: a put replaces
// the record, a delete removes it.
func (s appState) apply(t testing.TB, cs []feedChange) appState {
	t.Helper()
	out := maps.Clone(s)
	for _, c := range cs {
		k := recordKey{c.Kind, c.ID}
		switch {
		case c.Op == "put" && c.Data != nil:
			out[k] = normalJSON(t, c.Data)
		case c.Op == "delete" && c.Data == nil:
			delete(out, k)
		default:
			t.Fatalf("a change the app cannot apply: %s", jsonStr(c))
		}
	}
	return out
}

// sameState fails unless got is want, naming each record that differs.
func sameState(t testing.TB, how string, got, want appState) {
	t.Helper()
	keys := slices.Collect(maps.Keys(got))
	for k := range want {
		if _, ok := got[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b recordKey) int { return strings.Compare(a.Kind+" "+a.ID, b.Kind+" "+b.ID) })
	for _, k := range keys {
		g, inGot := got[k]
		w, inWant := want[k]
		switch {
		case !inWant:
			t.Errorf("%s: %s %s is held, the refetch has none: %s", how, k.Kind, k.ID, g)
		case !inGot:
			t.Errorf("%s: %s %s is missing, the refetch has %s", how, k.Kind, k.ID, w)
		case g != w:
			t.Errorf("%s: %s %s is %s, the refetch has %s", how, k.Kind, k.ID, g, w)
		}
	}
}

// refetch is u's full REST refetch: every record of every kind the feed
// names, keyed as the feed keys it, each as the read the feed's data is.
func (h *harness) refetch(u user) appState {
	h.t.Helper()
	s := appState{}
	h.refetchItems(u, s)
	for kind, path := range map[string]string{"memory": memoriesPath(u), "event": eventsPath(u), "image": imagesPath(u)} {
		for _, id := range h.listedIDs(h.get(path, u.Token)) {
			s[recordKey{kind, id}] = h.readJSON(u, path+"/"+id)
		}
	}
	for _, id := range h.partnersEvents(u) {
		s[recordKey{"event", id}] = h.readJSON(u, eventPath(u, id))
	}
	h.refetchOnes(u, s)
	return s
}

// partnersEvents are the ids of the partner's events u reads: the list
// is the caller's own, the date range (here all of the scenario's dates)
// has the partner's too.
func (h *harness) partnersEvents(u user) []string {
	h.t.Helper()
	var rng struct {
		Events map[string]struct {
			Data []struct {
				ID             string
				IsPartnerEvent bool
			}
		}
	}
	r := h.get(withDates(eventsPath(u)+"/date-range", "2000-01-01", "2099-12-31"), u.Token)
	expect(h.t, r, 200, "")
	if err := json.Unmarshal(r.Body, &rng); err != nil || len(rng.Events) != 2 {
		h.t.Fatalf("the date range: %v: %s", err, r.Body)
	}
	var ids []string
	for _, cat := range rng.Events {
		for _, e := range cat.Data {
			if e.IsPartnerEvent {
				ids = append(ids, e.ID)
			}
		}
	}
	return ids
}

// refetchItems adds the kinds whose list items are the records.
func (h *harness) refetchItems(u user, s appState) {
	h.t.Helper()
	for kind, r := range map[string]response{
		"message":      h.keyed("GET", "/api/messages/list", u, nil),
		"mood":         h.get(moodsPath(u), u.Token),
		"notification": h.get(notifPath(u, "/notifications"), u.Token),
	} {
		for _, item := range h.listedItems(r) {
			var id struct{ ID string }
			if err := json.Unmarshal(item, &id); err != nil || id.ID == "" {
				h.t.Fatalf("a %s without an id: %s", kind, item)
			}
			s[recordKey{kind, id.ID}] = normalJSON(h.t, item)
		}
	}
}

// refetchOnes adds the kinds of one record per reader (or per couple).
func (h *harness) refetchOnes(u user, s appState) {
	h.t.Helper()
	s[recordKey{"profile", u.ID}] = h.readJSON(u, profilePath(u))
	s[recordKey{"premium", u.ID}] = h.readJSON(u, premiumPath(u)+"?action=subscription")
	s[recordKey{"pairing", u.ID}] = h.readJSON(u, pairingPath(u))
	if r := h.get(relationshipPath(u), u.Token); r.Status != 404 && r.Status != 409 { // none, not_paired
		expect(h.t, r, 200, "")
		s[recordKey{"relationship", u.ID}] = normalJSON(h.t, r.Body)
	}
	if r := h.dqGet(u); r.Status != 409 { // 409 not_paired
		expect(h.t, r, 200, "")
		s[recordKey{"question", r.JSON(h.t)["question"].(map[string]any)["id"].(string)}] = normalJSON(h.t, r.Body)
	}
	partner, _ := h.get(pairingPath(u), u.Token).JSON(h.t)["partnerId"].(string)
	if partner != "" {
		s[recordKey{"partnership", h.partnershipOf(u)}] = jsonStr(map[string]string{"partnerId": partner})
	}
}

// exportedMessage is a message of the export: it names its partnership.
type exportedMessage struct {
	CreatedAt     int64
	PartnershipID *string
}

// partnershipOf is the id of u's partnership, which no read but the
// export names: the partnershipId of u's newest message (the scenario has
// u write one in each partnership).
func (h *harness) partnershipOf(u user) string {
	h.t.Helper()
	var export struct {
		Data struct{ Messages []exportedMessage }
	}
	if err := json.Unmarshal(h.get(profilePath(u)+"/export", u.Token).Body, &export); err != nil {
		h.t.Fatal(err)
	}
	ms := export.Data.Messages
	if len(ms) == 0 {
		h.t.Fatalf("%s wrote no message", u.ID)
	}
	newest := slices.MaxFunc(ms, func(a, b exportedMessage) int { return cmp.Compare(a.CreatedAt, b.CreatedAt) })
	if newest.PartnershipID == nil {
		h.t.Fatalf("%s wrote no message in the partnership", u.ID)
	}
	return *newest.PartnershipID
}

// readJSON is u's read of path, normalised.
func (h *harness) readJSON(u user, path string) string {
	h.t.Helper()
	r := h.get(path, u.Token)
	expect(h.t, r, 200, "")
	return normalJSON(h.t, r.Body)
}

// listedItems are the items of a list answer (a bare array, or the one
// array of its object), which must be its only page.
func (h *harness) listedItems(r response) []json.RawMessage {
	h.t.Helper()
	expect(h.t, r, 200, "")
	if next := r.Header.Get("X-Next-Cursor"); next != "" {
		h.t.Fatalf("a refetch of more than one page: %s", r.Body)
	}
	var items []json.RawMessage
	if json.Unmarshal(r.Body, &items) == nil {
		return items
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(r.Body, &obj); err != nil {
		h.t.Fatal(err)
	}
	for _, v := range obj {
		if json.Unmarshal(v, &items) == nil {
			return items
		}
	}
	h.t.Fatalf("no list in %s", r.Body)
	return nil
}

// listedIDs are the ids of a list's items (the images' are JSON strings
// of records keyed _id).
func (h *harness) listedIDs(r response) []string {
	h.t.Helper()
	var ids []string
	for _, item := range h.listedItems(r) {
		var s string
		if json.Unmarshal(item, &s) == nil {
			item = json.RawMessage(s)
		}
		var id struct {
			ID    string `json:"id"`
			Under string `json:"_id"`
		}
		if err := json.Unmarshal(item, &id); err != nil {
			h.t.Fatal(err)
		}
		ids = append(ids, id.ID+id.Under)
	}
	return ids
}

// seqOf is the position of a feed cursor (a change event's id).
func seqOf(t testing.TB, cursor string) int64 {
	t.Helper()
	c, err := changes.ParseCursor(cursor)
	if err != nil {
		t.Fatalf("%q is no feed cursor: %v", cursor, err)
	}
	return c.Seq
}

// changesUpTo reads s's change events until the one at head's position,
// passing the others over, and returns them with the last one's id.
func (s *sse) changesUpTo(head string) ([]feedChange, string) {
	s.t.Helper()
	var got []feedChange
	last, end := "", seqOf(s.t, head)
	for last == "" || seqOf(s.t, last) < end {
		e := s.nextOf(2*time.Second, "change", "reset")
		if e.Type == "reset" {
			s.t.Fatalf("a reset after %d changes", len(got))
		}
		var c feedChange
		if err := json.Unmarshal([]byte(e.Data), &c); err != nil {
			s.t.Fatal(err)
		}
		got, last = append(got, c), e.ID
	}
	return got, last
}
