package tests

import (
	"bytes"
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	_ "golang.org/x/image/webp" // decodes the WEBP sent, to compare

	"tandem/adapters/blob/memblob"
)

// Images and /files, end to end: uploads checked by their bytes, records
// read back, the spec's update flow, groups, the per-user rate limit, and
// the three blob stores.

func imagesPath(u user) string { return "/api/users/user/" + u.ID + "/images" }

func TestImagesUploadReadAndDelete(t *testing.T) {
	parallel(t)
	eachImageProfile(t, func(t *testing.T, h *harness, blobs *memblob.Store) {
		u := h.newUser("a@x.io")
		pngB, jpegB := pngFile(t), jpegFile(t)
		t0 := h.Clock.Now().UnixMilli()

		// one image: the group is its own
		r := h.upload(u, filePart("me.png", "image/png", pngB))
		expect(t, r, 200, `{"success":true,"files":[{"data":{"url":"<string>","key":"<string>"}}],"groupId":"<string>"}`)
		var one uploaded
		_ = json.Unmarshal(r.Body, &one)
		key1 := one.Files[0].Data.Key
		if !strings.HasPrefix(key1, "u/"+u.ID+"/") || !strings.HasSuffix(key1, ".png") || len(key1) != len("u/"+u.ID+"/")+32+4 ||
			one.Files[0].Data.URL != "http://localhost:8080/files/"+key1 {
			t.Fatalf("key %q url %q", key1, one.Files[0].Data.URL)
		}

		// three at once, each format told by its bytes (the names and types lie)
		h.Clock.Advance(time.Second)
		t1 := h.Clock.Now().UnixMilli()
		r = h.upload(u, filePart("a.gif", "image/gif", jpegB), filePart("b", "application/octet-stream", webpFile),
			filePart("c.jpg", "image/jpeg", pngB))
		file := `{"data":{"url":"<string>","key":"<string>"}}`
		expect(t, r, 200, `{"success":true,"files":[`+file+`,`+file+`,`+file+`],"groupId":"<string>"}`)
		var three uploaded
		_ = json.Unmarshal(r.Body, &three)
		for i, ext := range []string{".jpg", ".png", ".png"} { // the WEBP has transparency: stored as PNG
			if !strings.HasSuffix(three.Files[i].Data.Key, ext) {
				t.Fatalf("file %d: %s", i, three.Files[i].Data.Key)
			}
		}

		// the list: strings holding records, newest first
		recs, res := h.listed(u, "")
		if len(recs) != 4 || res.Header.Get("X-Next-Cursor") != "" || ids(recs)[3] == "" || recs[3]["key"] != key1 {
			t.Fatalf("list %s", res.Body)
		}
		id1 := ids(recs)[3]
		expect(t, h.get(imagesPath(u)+"/"+id1, u.Token), 200, imageRecord(id1, u, key1, one.GroupID, t0))
		groupIDs := h.groupIDs(u, three.GroupID) // upload order
		for i, id := range groupIDs {
			expect(t, h.get(imagesPath(u)+"/"+id, u.Token), 200, imageRecord(id, u, three.Files[i].Data.Key, three.GroupID, t1))
		}
		listed := ids(recs[:3])
		sort.Strings(listed)
		inGroup := slices.Clone(groupIDs)
		sort.Strings(inGroup)
		if !slices.Equal(listed, inGroup) {
			t.Fatalf("newest first: %v, group %v", ids(recs), groupIDs)
		}
		expect(t, h.get(imagesPath(u)+"/group/"+one.GroupID, u.Token), 200, `[`+imageRecord(id1, u, key1, one.GroupID, t0)+`]`)

		// the files are public, with the type their bytes say
		expectFile(t, h.fetch(one.Files[0].Data.URL), "image/png", pngB)
		expectFile(t, h.fetch(three.Files[0].Data.URL), "image/jpeg", jpegB)
		expectFile(t, h.fetch(three.Files[1].Data.URL), "image/png", webpFile) // stored as PNG: it has transparency
		if got := len(blobs.Keys()); got != 4 {
			t.Fatalf("%d files stored", got)
		}

		// the export holds the records
		data := h.get("/api/users/user/"+u.ID+"/export", u.Token).JSON(t)["data"].(map[string]any)
		if exp, ok := data["images"].([]any); !ok || len(exp) != 4 {
			t.Fatalf("export: %v", data["images"])
		}

		// delete one: record and file go
		expect(t, h.do(req{Method: "DELETE", Path: imagesPath(u) + "/" + id1, Token: u.Token}), 200,
			`{"success":true,"deletedId":"`+id1+`"}`)
		expect(t, h.get(imagesPath(u)+"/"+id1, u.Token), 404, errBody("not_found", "image not found"))
		expect(t, h.do(req{Method: "DELETE", Path: imagesPath(u) + "/" + id1, Token: u.Token}), 404, errBody("not_found", "image not found"))
		expect(t, h.fetch(one.Files[0].Data.URL), 404, errBody("not_found", "file not found"))

		// delete the group: every record and file go
		deleted := `["` + strings.Join(groupIDs, `","`) + `"]`
		expect(t, h.do(req{Method: "DELETE", Path: imagesPath(u) + "/group/" + three.GroupID, Token: u.Token}), 200,
			`{"success":true,"groupId":"`+three.GroupID+`","deletedIds":`+deleted+`}`)
		expect(t, h.get(imagesPath(u)+"/group/"+three.GroupID, u.Token), 404, errBody("not_found", "image group not found"))
		expect(t, h.get(imagesPath(u), u.Token), 200, `[]`)
		expect(t, h.fetch(three.Files[2].Data.URL), 404, "")
		if keys := blobs.Keys(); len(keys) != 0 {
			t.Fatalf("files left: %v", keys)
		}
	})
}

func TestImagesRefusedUploadsStoreNothing(t *testing.T) {
	parallel(t)
	eachImageProfile(t, func(t *testing.T, h *harness, blobs *memblob.Store) {
		u, other := h.newUser("a@x.io"), h.newUser("b@x.io")
		pngB := pngFile(t)
		big := append(slices.Clone(pngB), make([]byte, 5000)...) // TANDEM_UPLOAD_MAX_BYTES is 4096 here
		five := []part{}
		for range 5 {
			five = append(five, filePart("x.png", "image/png", pngB))
		}
		// upload is u's upload of a multipart body of parts
		upload := func(parts ...part) req {
			body, ct := multipartBody(t, parts...)
			return POST(imagesPath(u), body).with("Content-Type", ct)
		}
		noFile := upload(part{name: "caption", data: []byte("hello")})
		gif := upload(filePart("x.gif", "image/gif", gifFile(t)))
		const filesMsg = "send 1 to 4 images, each in a part named file"
		badFormat := errBody("unsupported_media_type", "images must be JPEG, PNG or WEBP")
		tooBig := errBody("payload_too_large", "each image must be at most 4096 bytes")
		nothingStored := func(t *testing.T, h *harness) {
			expect(t, h.get(imagesPath(u), u.Token), 200, `[]`)
			expect(t, h.get(imagesPath(other), other.Token), 200, `[]`)
			if keys := blobs.Keys(); len(keys) != 0 {
				t.Fatalf("a refused upload left files: %v", keys)
			}
		}
		runScenarios(t, h, afterEach(nothingStored, signedIn(u, []scenario{
			{name: "no file", req: noFile, status: 400, want: errInvalid(filesMsg)},
			{name: "five files", req: upload(five...), status: 400, want: errInvalid("at most 4 images per upload")},
			{name: "a part named files", req: upload(part{name: "files", filename: "x.png", contentType: "image/png", data: pngB}), status: 400,
				want: errInvalid("send each image in a part named file, not files")},
			{name: "a second part name", req: upload(filePart("x.png", "image/png", pngB),
				part{name: "image", filename: "y.png", contentType: "image/png", data: pngB}), status: 400,
				want: errInvalid("send each image in a part named file, not image")},
			{name: "a gif", req: gif, status: 415, want: badFormat},
			{name: "text named .png, sent as image/png", req: upload(filePart("photo.png", "image/png", []byte("this is text, not a picture"))),
				status: 415, want: badFormat},
			{name: "an empty file", req: upload(filePart("empty.png", "image/png", nil)), status: 415, want: badFormat},
			{name: "a bad third file", req: upload(filePart("a.png", "image/png", pngB), filePart("b.jpg", "image/jpeg", jpegFile(t)),
				filePart("c.png", "image/png", gifFile(t))), status: 415, want: badFormat},
			{name: "a file over the limit", req: upload(filePart("big.png", "image/png", big)), status: 413, want: tooBig},
			{name: "a later file over the limit", req: upload(filePart("a.png", "image/png", pngB), filePart("big.png", "image/png", big)),
				status: 413, want: tooBig},
			{name: "a JSON body", req: POST(imagesPath(u), map[string]any{"file": "aGVsbG8="}), status: 415,
				want: errBody("unsupported_media_type", "send the images as multipart/form-data, each in a part named file")},
			{name: "malformed multipart", req: POST(imagesPath(u), []byte("--x\r\nnot a part")).with("Content-Type", "multipart/form-data; boundary=x"),
				status: 400, want: errInvalid("malformed multipart body")},
			{name: "a compressed body", req: gif.with("Content-Encoding", "gzip"), status: 415,
				want: errBody("unsupported_media_type", "send the images uncompressed: no Content-Encoding")},
			{name: "no token", req: noFile.anonymous(), status: 401, want: errNoToken},
			{name: "another user's path", req: req{Method: "POST", Path: imagesPath(other), Body: gif.Body, Headers: gif.Headers}, status: 403,
				want: errNotYours},
		})))
	}, withEnv("TANDEM_UPLOAD_MAX_BYTES", "4096"))
}

func TestImagesUpdateFlowAndErrors(t *testing.T) {
	parallel(t)
	eachImageProfile(t, func(t *testing.T, h *harness, blobs *memblob.Store) {
		u, other := h.newUser("a@x.io"), h.newUser("b@x.io")
		pngB, jpegB := pngFile(t), jpegFile(t)
		old := h.mustUpload(u, filePart("old.png", "image/png", pngB))
		recs, _ := h.listed(u, "")
		oldID, t0 := ids(recs)[0], h.Clock.Now().UnixMilli()
		h.Clock.Advance(time.Minute)
		fresh := h.mustUpload(u, filePart("new.jpg", "image/jpeg", jpegB))
		theirs := h.mustUpload(other, filePart("x.png", "image/png", pngB))
		theirRecs, _ := h.listed(other, "")
		update := func(id string, body any) req { return PUT(imagesPath(u)+"/"+id, body).by(u) }
		put := func(id string, body any) response { return h.do(update(id, body)) }
		relink := func(up uploaded) map[string]any {
			return map[string]any{"url": up.Files[0].Data.URL, "key": up.Files[0].Data.Key}
		}
		neverKey := "u/" + u.ID + "/" + strings.Repeat("0", 32) + ".png"
		notUploaded := errInvalid("key is not one of your uploaded images: upload the file first")
		notFound := errBody("not_found", "image not found")
		unchanged := func(t *testing.T, h *harness) {
			expect(t, h.get(imagesPath(u)+"/"+oldID, u.Token), 200, imageRecord(oldID, u, old.Files[0].Data.Key, old.GroupID, t0))
		}
		runScenarios(t, h, afterEach(unchanged, []scenario{
			{name: "another user's key", req: update(oldID, relink(theirs)), status: 403, want: errBody("forbidden", "key is not one of your files")},
			{name: "a key never uploaded", req: update(oldID, map[string]any{"url": "http://localhost:8080/files/" + neverKey, "key": neverKey}),
				status: 400, want: notUploaded},
			{name: "a path for a key", req: update(oldID, map[string]any{"url": fresh.Files[0].Data.URL, "key": "../../etc/passwd"}),
				status: 400, want: notUploaded},
			{name: "the url of another file", req: update(oldID, map[string]any{"url": old.Files[0].Data.URL, "key": fresh.Files[0].Data.Key}),
				status: 400, want: errInvalid("url is not the address of key")},
			{name: "no url", req: update(oldID, map[string]any{"key": fresh.Files[0].Data.Key}), status: 400,
				want: errInvalid("url and key are required")},
			{name: "key not a string", req: update(oldID, map[string]any{"url": fresh.Files[0].Data.URL, "key": 7}), status: 400,
				want: errInvalid("field key must be a string")},
			{name: "malformed JSON", req: update(oldID, `{"url":`), status: 400, want: errInvalid("malformed JSON")},
			{name: "unknown image", req: update("nope", relink(fresh)), status: 404, want: notFound},
			{name: "another user's image", req: update(ids(theirRecs)[0], relink(fresh)), status: 404, want: notFound},
		}))

		// the spec's flow: upload the new file, PUT its url and key on the old image
		want := imageRecord(oldID, u, fresh.Files[0].Data.Key, old.GroupID, t0)
		expect(t, put(oldID, relink(fresh)), 200, want)
		expect(t, h.get(imagesPath(u)+"/"+oldID, u.Token), 200, want)
		recs, _ = h.listed(u, "")
		if strings.Join(ids(recs), ",") != oldID {
			t.Fatalf("the upload's own record was not merged: %v", ids(recs))
		}
		expect(t, h.get(imagesPath(u)+"/group/"+fresh.GroupID, u.Token), 404, "")
		expectFile(t, h.fetch(fresh.Files[0].Data.URL), "image/jpeg", jpegB)
		expect(t, h.fetch(old.Files[0].Data.URL), 404, "") // the old file is deleted
		expect(t, put(oldID, relink(fresh)), 200, want)    // again: nothing changes
		if got := len(blobs.Keys()); got != 2 {
			t.Fatalf("%d files, want the new one and the other user's", got)
		}
	})
}

func TestImagesGroupBulkUpdate(t *testing.T) {
	parallel(t)
	eachImageProfile(t, func(t *testing.T, h *harness, blobs *memblob.Store) {
		u := h.newUser("a@x.io")
		pngB, jpegB := pngFile(t), jpegFile(t)
		g := h.mustUpload(u, filePart("a.png", "image/png", pngB), filePart("b.png", "image/png", pngB), filePart("c.png", "image/png", pngB))
		gIDs := h.groupIDs(u, g.GroupID)
		t0 := h.Clock.Now().UnixMilli()
		h.Clock.Advance(time.Minute)
		n := h.mustUpload(u, filePart("x.jpg", "image/jpeg", jpegB), filePart("y.webp", "image/webp", webpFile))
		nIDs := h.groupIDs(u, n.GroupID)
		item := func(id string, up uploaded, i int) map[string]any {
			return map[string]any{"_id": id, "url": up.Files[i].Data.URL, "key": up.Files[i].Data.Key}
		}
		update := func(group string, body any) req { return PUT(imagesPath(u)+"/group/"+group, body).by(u) }
		put := func(group string, body any) response { return h.do(update(group, body)) }
		images := func(items ...any) map[string]any { return map[string]any{"images": items} }
		unchanged := func(t *testing.T, h *harness) {
			if !slices.Equal(h.groupIDs(u, g.GroupID), gIDs) || !slices.Equal(h.groupIDs(u, n.GroupID), nIDs) {
				t.Fatal("a refused bulk update changed a group")
			}
		}
		runScenarios(t, h, afterEach(unchanged, []scenario{
			{name: "an image of another group", req: update(g.GroupID, images(item(gIDs[0], n, 0), item(nIDs[1], g, 1))), status: 404,
				want: errBody("not_found", "image "+nIDs[1]+" is not in this group")},
			{name: "unknown group", req: update("nope", images(item(gIDs[0], n, 0))), status: 404,
				want: errBody("not_found", "image group not found")},
			{name: "a bad second url", req: update(g.GroupID, images(item(gIDs[0], n, 0),
				map[string]any{"_id": gIDs[1], "url": "http://elsewhere/x.png", "key": n.Files[1].Data.Key})), status: 400,
				want: errInvalid("url is not the address of key")},
			{name: "an image twice", req: update(g.GroupID, images(item(gIDs[0], n, 0), item(gIDs[0], n, 1))), status: 400,
				want: errInvalid("image " + gIDs[0] + " is listed twice")},
			{name: "no images field", req: update(g.GroupID, map[string]any{"files": []any{}}), status: 400,
				want: errInvalid("images is required: [{_id, url, key}]")},
			{name: "an empty list", req: update(g.GroupID, map[string]any{"images": []any{}}), status: 400,
				want: errInvalid("images must list at least one {_id, url, key}")},
			{name: "images not an array", req: update(g.GroupID, map[string]any{"images": "all"}), status: 400,
				want: errInvalid("field images must be an array")},
		}))

		// both new files move into the group, in one transaction
		r := put(g.GroupID, images(item(gIDs[2], n, 0), item(gIDs[0], n, 1)))
		expect(t, r, 200, `[`+imageRecord(gIDs[0], u, n.Files[1].Data.Key, g.GroupID, t0)+`,`+
			imageRecord(gIDs[1], u, g.Files[1].Data.Key, g.GroupID, t0)+`,`+
			imageRecord(gIDs[2], u, n.Files[0].Data.Key, g.GroupID, t0)+`]`)
		expect(t, h.get(imagesPath(u)+"/group/"+g.GroupID, u.Token), 200, string(r.Body))
		expect(t, h.get(imagesPath(u)+"/group/"+n.GroupID, u.Token), 404, "")
		expect(t, h.fetch(g.Files[0].Data.URL), 404, "")
		expect(t, h.fetch(g.Files[2].Data.URL), 404, "")
		expectFile(t, h.fetch(n.Files[1].Data.URL), "image/png", webpFile) // stored as PNG: it has transparency
		if got := len(blobs.Keys()); got != 3 {
			t.Fatalf("%d files, want 3", got)
		}
	})
}

func TestImagesListPages(t *testing.T) {
	parallel(t)
	eachImageProfile(t, func(t *testing.T, h *harness, _ *memblob.Store) {
		u := h.newUser("a@x.io")
		var want []string
		for range 5 {
			h.mustUpload(u, filePart("a.png", "image/png", pngFile(t)))
			recs, _ := h.listed(u, "?limit=1")
			want = append(want, ids(recs)[0])
			h.Clock.Advance(time.Second)
		}
		slices.Reverse(want)
		var got []string
		pages(t, 2, func(q string) response {
			recs, r := h.listed(u, "?"+q)
			got = append(got, ids(recs)...)
			return r
		})
		if !slices.Equal(got, want) {
			t.Fatalf("paged %v, want %v", got, want)
		}
		all, r := h.listed(u, "")
		if !slices.Equal(ids(all), want) || r.Header.Get("X-Next-Cursor") != "" {
			t.Fatalf("unpaged %v", ids(all))
		}
		expect(t, h.get(imagesPath(u)+"?limit=0", u.Token), 400, errBody("invalid_request", "limit must be a whole number from 1 to 500"))
		expect(t, h.get(imagesPath(u)+"?limit=2&cursor=garbage!", u.Token), 400,
			errBody("invalid_request", "cursor is not one this server handed out"))
	})
}

func TestImagesAreRateLimitedPerUser(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) { // the default: 10 requests per minute per user
		a, b := h.newUser("a@x.io"), h.newUser("b@x.io")
		up := h.mustUpload(a, filePart("a.png", "image/png", pngFile(t)))
		for range 9 {
			expect(t, h.get(imagesPath(a), a.Token), 200, "")
		}
		r := h.get(imagesPath(a), a.Token)
		expect(t, r, 429, errBody("rate_limited", "too many requests, try again later"))
		if r.Header.Get("Retry-After") == "" {
			t.Fatal("no Retry-After")
		}
		expect(t, h.upload(a, filePart("a.png", "image/png", pngFile(t))), 429, "")
		expect(t, h.get(imagesPath(b), b.Token), 200, `[]`)         // per user
		expect(t, h.fetch(up.Files[0].Data.URL), 200, "")           // files are not image endpoints
		expect(t, h.get("/api/users/user/"+a.ID, a.Token), 200, "") // nor is the profile
		h.Clock.Advance(time.Minute)
		expect(t, h.get(imagesPath(a), a.Token), 200, "")
	})
}

func TestFilesRefuseWhatIsNoKey(t *testing.T) {
	parallel(t)
	eachImageProfile(t, func(t *testing.T, h *harness, _ *memblob.Store) {
		u := h.newUser("a@x.io")
		up := h.mustUpload(u, filePart("a.png", "image/png", pngFile(t)))
		key := up.Files[0].Data.Key
		name := key[strings.LastIndex(key, "/")+1:]
		for _, path := range []string{
			"/files/u/" + u.ID + "/" + strings.Repeat("0", 32) + ".png",
			"/files/u/" + u.ID + "/" + name + "x",
			"/files/u/other/" + name,
			"/files/u/" + u.ID + "/..%2F..%2F..%2Fetc%2Fpasswd",
			"/files/u/..%2F" + u.ID + "/" + name,
			"/files/u/%2e%2e/" + name,
			"/files/" + key + "/x",
			"/files/x/" + u.ID + "/" + name,
		} {
			r := h.fetch("http://localhost:8080" + path)
			if r.Status != 404 || len(r.Body) > 0 && bytes.Equal(r.Body, pngFile(t)) {
				t.Fatalf("%s: %d", path, r.Status)
			}
		}
		expectFile(t, h.fetch(up.Files[0].Data.URL), "image/png", pngFile(t))
	})
}

func TestDeletingTheAccountDeletesImagesAndFiles(t *testing.T) {
	parallel(t)
	eachImageProfile(t, func(t *testing.T, h *harness, blobs *memblob.Store) {
		u, other := h.newUser("a@x.io"), h.newUser("b@x.io")
		mine := h.mustUpload(u, filePart("a.png", "image/png", pngFile(t)), filePart("b.jpg", "image/jpeg", jpegFile(t)))
		theirs := h.mustUpload(other, filePart("c.png", "image/png", pngFile(t)))
		expect(t, h.do(req{Method: "DELETE", Path: "/api/users/user/" + u.ID, Token: u.Token}), 200, "")
		keys := blobs.Keys()
		if len(keys) != 1 || keys[0] != theirs.Files[0].Data.Key {
			t.Fatalf("files left: %v", keys)
		}
		expect(t, h.fetch(mine.Files[0].Data.URL), 404, "")
		expectFile(t, h.fetch(theirs.Files[0].Data.URL), "image/png", pngFile(t))
	})
}
