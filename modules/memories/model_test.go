package memories_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"tandem/core"
	"tandem/modules/memories"
)

var settings = memories.Settings{PublicURL: "https://tandem.example"}

// img is the address of an uploaded file with key.
func img(key string) string { return settings.FilesURL() + key }

func date(t testing.TB, s string) core.Date {
	t.Helper()
	d, err := core.ParseDate(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func wantInvalid(t *testing.T, what string, err error, code, msg string) {
	t.Helper()
	if e := core.As(err); err == nil || e.Kind != core.KindInvalid || e.Code != code || (msg != "" && e.Message != msg) {
		t.Fatalf("%s: want invalid/%s %q, got %v", what, code, msg, err)
	}
}

func TestParseDay(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in, code, msg string // code "" when accepted
	}{
		{in: "2025-06-15"},
		{in: "2024-02-29"},
		{in: "1900-01-01"},
		{in: "9999-12-31"},
		{in: "", code: "invalid_request", msg: "date is required (YYYY-MM-DD)"},
		{in: "2025-02-29", code: "invalid_date", msg: "date must be a date in the form YYYY-MM-DD"},
		{in: "2025-13-01", code: "invalid_date", msg: "date must be a date in the form YYYY-MM-DD"},
		{in: "2025-6-15", code: "invalid_date", msg: "date must be a date in the form YYYY-MM-DD"},
		{in: "15/06/2025", code: "invalid_date", msg: "date must be a date in the form YYYY-MM-DD"},
		{in: "2025-06-15T00:00:00Z", code: "invalid_date", msg: "date must be a date in the form YYYY-MM-DD"},
		{in: "1899-12-31", code: "invalid_date", msg: "date must be between 1900-01-01 and 9999-12-31"},
	}
	for _, tc := range cases {
		d, err := memories.ParseDay("date", tc.in)
		if tc.code != "" {
			wantInvalid(t, tc.in, err, tc.code, tc.msg)
			continue
		}
		if err != nil || d.String() != tc.in {
			t.Fatalf("%q: %v %v", tc.in, d, err)
		}
	}
}

func TestCheckDayAllowsUpToTomorrowUTC(t *testing.T) {
	t.Parallel()
	late := time.Date(2025, 6, 15, 23, 59, 59, 0, time.UTC)
	early := time.Date(2025, 6, 15, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		day string
		now time.Time
		ok  bool
	}{
		{"2025-06-15", early, true},
		{"2025-06-16", early, true}, // already the 16th east of UTC
		{"2025-06-17", late, false},
		{"2025-06-17", early, false},
		{"1900-01-01", early, true},
		{"2025-06-16", time.Date(2025, 6, 16, 1, 0, 0, 0, time.FixedZone("UTC+14", 14*3600)), true}, // zone of now does not matter
		{"2025-06-17", time.Date(2025, 6, 16, 9, 0, 0, 0, time.FixedZone("UTC+14", 14*3600)), false},
	}
	for _, tc := range cases {
		err := memories.CheckDay(date(t, tc.day), tc.now)
		if tc.ok != (err == nil) {
			t.Fatalf("%s at %v: %v", tc.day, tc.now, err)
		}
		if !tc.ok {
			wantInvalid(t, tc.day, err, "invalid_date", "date must not be in the future")
		}
	}
}

func TestNormalizeImages(t *testing.T) {
	t.Parallel()
	long := img(strings.Repeat("k", memories.MaxImageURL-len(settings.FilesURL())))
	twenty := make([]string, memories.MaxImages)
	for i := range twenty {
		twenty[i] = img("u/x/" + strings.Repeat("a", i+1) + ".jpg")
	}
	notOurs := "images must be addresses of uploaded images (https://tandem.example/files/...)"
	cases := []struct {
		name string
		in   []string
		want []string // nil when refused
		msg  string
	}{
		{name: "none", in: nil, want: []string{}},
		{name: "empty", in: []string{}, want: []string{}},
		{name: "uploaded files, order kept", in: []string{img("u/x/b.png"), img("u/x/a.jpg")}, want: []string{img("u/x/b.png"), img("u/x/a.jpg")}},
		{name: "trimmed, repeats dropped", in: []string{" " + img("a.jpg") + " ", img("b.jpg"), img("a.jpg")}, want: []string{img("a.jpg"), img("b.jpg")}},
		{name: "exactly 2048 characters", in: []string{long}, want: []string{long}},
		{name: "twenty", in: twenty, want: twenty},
		{name: "twenty-one", in: append(slices.Clone(twenty), img("x.jpg")), msg: "images may hold at most 20 addresses"},
		{name: "2049 characters", in: []string{long + "k"}, msg: "images must be addresses of 1 to 2048 characters"},
		{name: "blank", in: []string{"  "}, msg: "images must be addresses of 1 to 2048 characters"},
		{name: "not a URL", in: []string{"a.jpg"}, msg: "images must be http or https addresses"},
		{name: "another scheme", in: []string{"ftp://tandem.example/files/a.jpg"}, msg: "images must be http or https addresses"},
		{name: "credentials in the URL", in: []string{"https://me:pw@tandem.example/files/a.jpg"}, msg: "images must be http or https addresses"},
		{name: "another host", in: []string{"https://tracker.example/files/a.jpg"}, msg: notOurs},
		{name: "plain http for an https server", in: []string{"http://tandem.example/files/a.jpg"}, msg: notOurs},
		{name: "not under /files/", in: []string{"https://tandem.example/api/a.jpg"}, msg: notOurs},
		{name: "the files folder itself", in: []string{img("")}, msg: notOurs},
		{name: "a path trick", in: []string{img("../api/x")}, msg: notOurs},
		{name: "a hidden name", in: []string{img("u/.x")}, msg: notOurs},
		{name: "a query", in: []string{img("a.jpg?size=1")}, msg: notOurs},
		{name: "an empty segment", in: []string{img("u//a.jpg")}, msg: notOurs},
		{name: "one bad among good", in: []string{img("a.jpg"), "https://tracker.example/p.gif"}, msg: notOurs},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := memories.NormalizeImages(tc.in, settings)
			if tc.want == nil {
				wantInvalid(t, tc.name, err, "invalid_request", tc.msg)
				return
			}
			if err != nil || got == nil || !slices.Equal(got, tc.want) {
				t.Fatalf("got %v %v", got, err)
			}
		})
	}
}

func TestCursorRoundTripAndForgeries(t *testing.T) {
	t.Parallel()
	m := memories.Memory{ID: "m1", Date: date(t, "2025-03-01"), CreatedAt: time.UnixMilli(1718452800123)}
	c, err := memories.ParseCursor(memories.CursorAfter(m).String())
	if err != nil || c != (memories.Cursor{Date: m.Date, CreatedAt: 1718452800123, ID: "m1"}) {
		t.Fatalf("%+v %v", c, err)
	}
	for _, forged := range []string{"x", core.EncodeCursor("2025-03-01", "1"), core.EncodeCursor("2025-02-30", "1", "m"),
		core.EncodeCursor("2025-03-01", "soon", "m"), core.EncodeCursor("2025-03-01", "1", "")} {
		_, err := memories.ParseCursor(forged)
		wantInvalid(t, forged, err, "invalid_request", "cursor is not one this server handed out")
	}
}

func TestListOrderIsNewestDateThenLatestCreated(t *testing.T) {
	t.Parallel()
	at := time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC)
	mk := func(id, day string, later time.Duration) memories.Memory {
		return memories.Memory{ID: id, Date: date(t, day), CreatedAt: at.Add(later)}
	}
	ms := []memories.Memory{mk("a", "2025-01-01", 0), mk("b", "2025-03-01", 0), mk("c", "2025-03-01", time.Second),
		mk("d", "2025-03-01", 0), mk("e", "2024-12-31", time.Hour)}
	slices.SortFunc(ms, memories.ListOrder)
	var ids []string
	for _, m := range ms {
		ids = append(ids, m.ID)
	}
	if strings.Join(ids, "") != "cdbae" {
		t.Fatalf("order %v", ids)
	}
	c := memories.CursorAfter(ms[1]) // after d
	if c.After(ms[0]) || c.After(ms[1]) || !c.After(ms[2]) || !c.After(ms[4]) {
		t.Fatal("After disagrees with ListOrder")
	}
}
