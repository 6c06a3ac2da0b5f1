package httpapi

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func TestCappedReader(t *testing.T) {
	cases := []struct {
		name     string
		body     string
		limit    int
		wantErr  error
		wantRead string
	}{
		{"under the limit", "abc", 5, nil, "abc"},
		{"exactly the limit", "abcde", 5, nil, "abcde"},
		{"one byte over", "abcdef", 5, errBodyTooLarge, "abcdef"},
		{"far over", strings.Repeat("x", 1<<20), 10, errBodyTooLarge, strings.Repeat("x", 11)},
		{"empty", "", 5, nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := newCappedReader(strings.NewReader(tc.body), tc.limit)
			got, err := io.ReadAll(b)
			if !errors.Is(err, tc.wantErr) || string(got) != tc.wantRead {
				t.Fatalf("read %d bytes, %v; want %d, %v", len(got), err, len(tc.wantRead), tc.wantErr)
			}
			if b.over != (tc.wantErr != nil) || b.done == b.over {
				t.Fatalf("over %v done %v", b.over, b.done)
			}
		})
	}
}

// TestCappedReaderStopsAtTheEnd: once the body's end was read, the stream
// underneath is never read again (fasthttp's chunked stream would read the
// connection's next request).
func TestCappedReaderStopsAtTheEnd(t *testing.T) {
	src := &countingReader{r: strings.NewReader("body")}
	b := newCappedReader(src, 100)
	if _, err := io.ReadAll(b); err != nil {
		t.Fatal(err)
	}
	calls := src.calls
	for range 3 {
		if n, err := b.Read(make([]byte, 10)); n != 0 || err != io.EOF {
			t.Fatalf("read after the end: %d, %v", n, err)
		}
	}
	if src.calls != calls {
		t.Fatalf("the stream was read %d more times after its end", src.calls-calls)
	}
}

type countingReader struct {
	r     io.Reader
	calls int
}

func (c *countingReader) Read(p []byte) (int, error) {
	c.calls++
	return c.r.Read(p)
}
