package sqlstore_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"tandem/adapters/sqlstore"
)

// TestMigration00045StoresImageKeys: 00045 drops images.url (the address is
// rendered from the key) and turns each address of an uploaded file in
// memories.images into its key, whatever host and path it was minted
// under; every other address stays as it was, in its place. Its Down
// writes the paths (/files/KEY) back, and Up again makes keys of them.
func TestMigration00045StoresImageKeys(t *testing.T) {
	const hex = "0123456789abcdef0123456789abcdef"
	o64 := strings.Repeat("o", 64)
	rows := []struct{ before, after string }{ // interleaved: the order must hold
		{"https://old.example/files/u/u1/" + hex + ".jpg", "u/u1/" + hex + ".jpg"},
		{"https://old.example/files/not/a/key.jpg", ""}, // not a key the upload mints: kept
		{"http://LOCALHOST:8080/base/files/u/u-2_x/" + hex + ".png", "u/u-2_x/" + hex + ".png"},
		{"https://old.example/files/u/u1/" + strings.ToUpper(hex) + ".jpg", ""}, // upper-case hex
		{"HTTPS://x.example/files/u/" + o64 + "/" + hex + ".webp", "u/" + o64 + "/" + hex + ".webp"},
		{"https://old.example/files/u/u1/" + hex + ".gif", ""},           // no image format
		{"https://old.example/files/u/a/b/" + hex + ".jpg", ""},          // the owner holds a slash
		{"https://old.example/files/u/o" + o64 + "/" + hex + ".jpg", ""}, // an owner of 65
		{"ftp://old.example/files/u/u1/" + hex + ".jpg", ""},
		{"https://old.example/other/u/u1/" + hex + ".jpg", ""},
		{"https://old.example/files/u/u1/" + hex + ".jpg?w=320", ""},
		{"/files/u/u2/" + hex + ".png", "u/u2/" + hex + ".png"}, // the path the Down writes
	}
	var before, after []string
	for _, r := range rows {
		if r.after == "" {
			r.after = r.before
		}
		before, after = append(before, r.before), append(after, r.after)
	}
	eachDialect(t, func(t *testing.T, newDB func(*testing.T) *sqlstore.DB) {
		ctx := context.Background()
		db := newDB(t)
		p := gooseProvider(t, db)
		if _, err := p.DownTo(ctx, 44); err != nil {
			t.Fatal(err)
		}
		list, _ := json.Marshal(before)
		for _, q := range []struct {
			sql  string
			args []any
		}{
			{"INSERT INTO images (id, user_id, group_id, seq, blob_key, url, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
				[]any{"i1", "u1", "g1", 0, "u/u1/" + hex + ".jpg", "https://old.example/files/u/u1/" + hex + ".jpg", 1, 1}},
			{"INSERT INTO memories (id, user_id, title, description, memory_date, images, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
				[]any{"m1", "u1", "Trip", "", "2025-06-01", string(list), 1, 1}},
			{"INSERT INTO memories (id, user_id, title, description, memory_date, images, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
				[]any{"m2", "u1", "Nothing", "", "2025-06-02", "[]", 1, 1}},
		} {
			if _, err := db.Exec(q.sql, q.args...); err != nil {
				t.Fatal(err)
			}
		}
		memoriesAre := func(when string, m1 []string) {
			t.Helper()
			for id, want := range map[string][]string{"m1": m1, "m2": {}} {
				got, err := sqlstore.NewMemoryRepo(db).Get(ctx, "u1", id)
				if err != nil || !slices.Equal(got.Images, want) {
					t.Fatalf("%s: %s holds %q (%v),\nwant %q", when, id, got.Images, err, want)
				}
			}
		}
		if _, err := p.Up(ctx); err != nil {
			t.Fatal(err)
		}
		memoriesAre("after 00045", after)
		img, err := sqlstore.NewImageRepo(db).Get(ctx, "u1", "i1")
		if err != nil || img.Key != "u/u1/"+hex+".jpg" || img.URL != "" {
			t.Fatalf("image %+v %v", img, err)
		}
		if hasColumn(t, db, "images", "url") {
			t.Fatal("images.url is still there")
		}

		if _, err := p.DownTo(ctx, 44); err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, a := range after {
			if !strings.Contains(a, "://") {
				a = "/files/" + a
			}
			paths = append(paths, a)
		}
		memoriesAre("after its Down", paths)
		var url string
		if err := db.Get(&url, "SELECT url FROM images WHERE id = 'i1'"); err != nil || url != "/files/u/u1/"+hex+".jpg" {
			t.Fatalf("the Down's url %q %v", url, err)
		}
		if _, err := p.Up(ctx); err != nil {
			t.Fatal(err)
		}
		memoriesAre("up again", after)
	})
}

func hasColumn(t *testing.T, db *sqlstore.DB, table, column string) bool {
	t.Helper()
	q := "SELECT COUNT(*) FROM pragma_table_info(?) WHERE name = ?"
	if db.Dialect == sqlstore.MySQL {
		q = "SELECT COUNT(*) FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = ? AND column_name = ?"
	}
	var n int
	if err := db.Get(&n, q, table, column); err != nil {
		t.Fatal(err)
	}
	return n > 0
}
