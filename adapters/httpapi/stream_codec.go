// This file is the live stream's codec: a liveEvent as a bus message on
// core.TopicLive, and the checks that keep its id, type and data to one SSE
// line each. The JSON is hand-written for speed (every process decodes every
// live event), with encoding/json as fallback and reference: encodeLive
// writes what json.Marshal writes, and decodeLive accepts exactly what
// json.Unmarshal accepts, with the same event (both pinned by
// stream_codec_test.go).

package httpapi

import (
	"bytes"
	"encoding/json"
)

// liveEvent is one event for one reader, as it travels on core.TopicLive:
// every process hears it and writes it to the reader's streams it serves,
// with the feed's cursor as its SSE id (stream_feed.go).
type liveEvent struct {
	ID   string          `json:"id"`
	User string          `json:"user"`
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"`
}

// encodeLive writes a bus message as json.Marshal would, but takes its
// data as it is: it comes straight from json.Marshal, and marshaling it
// again as a RawMessage checked and compacted it a second time (3% of an
// event create).
func encodeLive(e liveEvent) []byte {
	b := make([]byte, 0, len(e.ID)+len(e.User)+len(e.Type)+len(e.Data)+40)
	b = append(b, `{"id":`...)
	b = appendJSONString(b, e.ID)
	b = append(b, `,"user":`...)
	b = appendJSONString(b, e.User)
	b = append(b, `,"type":`...)
	b = appendJSONString(b, e.Type)
	b = append(b, `,"data":`...)
	b = append(b, e.Data...)
	return append(b, '}')
}

// appendJSONString appends s as a JSON string. Ids and types are plain
// ASCII, which goes as it is; anything else takes encoding/json's way.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' || c >= 0x80 {
			q, _ := json.Marshal(s) // a string always marshals
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// decodeLive reads a bus message; its id and type go into SSE field lines
// and its data onto one data line, so none may hold a line break. A message
// as encodeLive writes it is split without decoding its data, which is
// only validated (json.Unmarshal, scanning the data twice, was 7% of an
// event create's CPU); any other is decoded in full, with the same result.
func decodeLive(data []byte) (liveEvent, bool) {
	e, ok := splitLive(data)
	if !ok && json.Unmarshal(data, &e) != nil {
		return liveEvent{}, false
	}
	return sseSafe(e)
}

// sseSafe checks a decoded event's fields for SSE lines. Its data is valid
// JSON (json.Valid or Unmarshal checked it), where a line break can only be
// white space: compacting removes it. Most data (json.Marshal's) has none,
// and is kept as it is.
func sseSafe(e liveEvent) (liveEvent, bool) {
	if !fieldSafe(e.ID) || !fieldSafe(e.Type) || e.User == "" {
		return liveEvent{}, false
	}
	if bytes.ContainsAny(e.Data, "\r\n") {
		var compact bytes.Buffer
		if json.Compact(&compact, e.Data) != nil {
			return liveEvent{}, false
		}
		e.Data = compact.Bytes()
	}
	return e, true
}

// splitLive reads {"id":…,"user":…,"type":…,"data":…} in that order with
// plain strings (no escapes, ASCII), and data a valid JSON value with
// nothing around it: encodeLive's layout. false means "decode it in full".
func splitLive(b []byte) (e liveEvent, ok bool) {
	fields := []struct {
		key string
		to  *string
	}{{`{"id":`, &e.ID}, {`,"user":`, &e.User}, {`,"type":`, &e.Type}}
	for _, f := range fields {
		if b, ok = bytes.CutPrefix(b, []byte(f.key)); !ok {
			return liveEvent{}, false
		}
		if *f.to, b, ok = plainJSONString(b); !ok {
			return liveEvent{}, false
		}
	}
	if b, ok = bytes.CutPrefix(b, []byte(`,"data":`)); !ok || len(b) < 2 || b[len(b)-1] != '}' {
		return liveEvent{}, false
	}
	e.Data = b[:len(b)-1]
	if isJSONSpace(e.Data[0]) || isJSONSpace(e.Data[len(e.Data)-1]) || !json.Valid(e.Data) {
		return liveEvent{}, false
	}
	e.Data = bytes.Clone(e.Data) // queued for the streams: not the bus's buffer
	return e, true
}

// plainJSONString reads a JSON string at the start of b that needs no
// unescaping: printable ASCII without a backslash.
func plainJSONString(b []byte) (string, []byte, bool) {
	if len(b) == 0 || b[0] != '"' {
		return "", nil, false
	}
	for i := 1; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return string(b[1:i]), b[i+1:], true
		case c < 0x20 || c == '\\' || c >= 0x80:
			return "", nil, false
		}
	}
	return "", nil, false
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func fieldSafe(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.' || r == '_') {
			return false
		}
	}
	return s != "" && len(s) <= 64
}
