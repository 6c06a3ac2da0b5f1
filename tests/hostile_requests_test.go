// This file holds the hostile table's raw-request families: injected
// headers and multipart uploads the upload must refuse whole.

package tests

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"testing"
)

// headerRows send, raw, a request the attacker may make (an event of their
// own) with a header section no two parsers read alike.
func (w *world) headerRows() []hostile {
	body := []byte(`{"action":"create","title":"smuggled","startDate":"2025-06-20"}`)
	line := "POST /api/users/user/" + w.A.ID + "/events HTTP/1.1\r\nHost: x\r\n"
	auth := "Authorization: Bearer " + w.A.Token + "\r\n"
	ct := "Content-Type: application/json\r\n"
	var rows []hostile
	for _, c := range []struct{ name, head string }{
		{"bare CR in a value", line + auth + ct + "X-Note: a\rb\r\n"},
		{"NUL in a value", line + auth + ct + "X-Note: a\x00b\r\n"},
		{"obs-fold line", line + auth + ct + "X-Note: a\r\n folded\r\n"},
		{"folded Authorization", line + "Authorization: Bearer\r\n " + w.A.Token + "\r\n" + ct},
		{"space before the colon", line + auth + ct + "X-Note : a\r\n"},
		{"name of non-token characters", line + auth + ct + "X(Note): a\r\n"},
		{"bare CR splitting a header", line + auth[:len(auth)-2] + "\rX-API-Key: test-service-key\r\n" + ct},
		{"two Content-Types", line + auth + "Content-Type: text/plain\r\n" + ct},
		{"two Authorizations", line + auth + "Authorization: Bearer " + forgedTok + "\r\n" + ct},
		{"two Hosts", line + "Host: evil.example\r\n" + auth + ct},
	} {
		rows = append(rows, hostile{scenario: scenario{name: "header injection/" + c.name}, raw: c.head, rawBody: body})
	}
	return rows
}

// uploadRows are multipart bodies the upload must refuse whole.
func (w *world) uploadRows(t *testing.T) []hostile {
	path := imagesPath(w.A)
	jpeg := jpegFile(t)
	mp := func(name string, status int, parts ...part) hostile {
		body, ct := multipartBody(t, parts...)
		return hostile{scenario: scenario{name: "upload/" + name, status: status,
			req: req{Method: "POST", Path: path, Token: w.A.Token, Body: body, Headers: map[string]string{"Content-Type": ct}}}}
	}
	five := []part{}
	for i := range 5 {
		five = append(five, filePart(fmt.Sprintf("%d.jpg", i), "image/jpeg", jpeg))
	}
	fields := []part{filePart("a.jpg", "image/jpeg", jpeg)}
	for i := range 9 {
		fields = append(fields, part{name: fmt.Sprintf("f%d", i), data: []byte(sqlMeta)})
	}
	cut, cutType := multipartBody(t, filePart("a.jpg", "image/jpeg", jpeg))
	cut = cut[:bytes.LastIndex(cut, []byte("\r\n--"))] // the file, without its closing boundary
	rows := []hostile{
		mp("five files", 400, five...),
		mp("a file over the limit", 413, filePart("big.jpg", "image/jpeg", append(jpeg, make([]byte, 1<<20)...))),
		mp("a GIF", 415, filePart("a.gif", "image/gif", gifFile(t))),
		mp("HTML declared as JPEG", 415, filePart("x.jpg", "image/jpeg", []byte("<html><script>alert(1)</script></html>"))),
		mp("a part named photo", 400, part{name: "photo", filename: "a.jpg", contentType: "image/jpeg", data: jpeg}),
		mp("nine fields", 400, fields...),
		mp("no file", 400, part{name: "note", data: []byte("x")}),
		mp("SQL and traversal in the file name, not an image", 415, filePart("../../x' OR 1=1;--.jpg", "image/jpeg", []byte(sqlMeta))),
		{scenario: scenario{name: "upload/cut before its closing boundary", status: 400,
			req: req{Method: "POST", Path: path, Token: w.A.Token, Body: cut, Headers: map[string]string{"Content-Type": cutType}}}},
		{scenario: scenario{name: "upload/no boundary", status: 400,
			req: req{Method: "POST", Path: path, Token: w.A.Token, Body: cut, Headers: map[string]string{"Content-Type": "multipart/form-data"}}}},
		{scenario: scenario{name: "upload/as JSON", status: 415,
			req: req{Method: "POST", Path: path, Token: w.A.Token, Body: map[string]any{"file": base64.StdEncoding.EncodeToString(jpeg)}}}},
		{scenario: scenario{name: "upload/gzip", status: 415,
			req: req{Method: "POST", Path: path, Token: w.A.Token, Body: cut, Headers: map[string]string{"Content-Type": cutType, "Content-Encoding": "gzip"}}}},
	}
	return rows
}
