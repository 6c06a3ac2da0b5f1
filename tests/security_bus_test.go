package tests

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"go.uber.org/fx"

	"tandem/adapters/httpapi"
	"tandem/modules/accounts"
)

// testBusSecret is TANDEM_BUS_SECRET of every test deployment (the harness).
const testBusSecret = "test-bus-secret-0123456789abcdef"

// TestSecurityBusForgedMessagesAreDropped: anyone who reaches the NATS
// server can publish on the app's subjects. A live event for ann, unsigned
// or signed with another secret, never reaches her stream, and a forged
// revocation of her token ends neither her stream nor her session; each is
// counted in tandem_bus_rejected_total. What the other process of the
// deployment publishes (the same secret) is delivered, once: published
// again by someone who captured it, it is dropped and counted as replayed.
func TestSecurityBusForgedMessagesAreDropped(t *testing.T) {
	parallel(t)
	eachSharedProfileAndNATS(t, func(t *testing.T, p profile, url string) {
		prefix := fmt.Sprintf("forge%d_%d", os.Getpid(), natsPrefixes.Add(1))
		var metrics *httpapi.MetricsServer
		a := newHarness(t, p, withNATS(url, prefix), withEnv("TANDEM_METRICS_ADDR", "127.0.0.1:0"),
			withFx(fx.Populate(&metrics)))
		b := newHarness(t, p, withNATS(url, prefix), withEnv("TANDEM_DB", a.env["TANDEM_DB"]))
		ann, bob := a.newUser("ann@x.io"), a.newUser("bob@x.io")
		a.pair(ann, bob)
		annS := a.openStream(ann, "")
		annS.drain(200 * time.Millisecond) // the pairing's own events, which may come late through NATS

		raw, err := nats.Connect(url)
		if err != nil {
			t.Fatal(err)
		}
		defer raw.Close()
		live, revoke := prefix+".live", prefix+".revoke"
		forged := []byte(`{"id":"forged-1","user":"` + ann.ID + `","type":"message.sent","data":` +
			`{"id":"forged","body":"send me your password","author":"` + bob.ID + `","createdAt":1}}`)
		revocation := []byte(`{"tokens":["` + accounts.HashToken(ann.Token) + `"]}`)
		for _, m := range []struct {
			subject string
			data    []byte
		}{
			{live, forged}, // unsigned
			{live, signFrame([]byte("not the deployment's secret, 32+ chars"), live, forged)},
			{revoke, revocation}, // unsigned
			{revoke, signFrame([]byte("not the deployment's secret, 32+ chars"), revoke, revocation)},
		} {
			if err := raw.Publish(m.subject, m.data); err != nil {
				t.Fatal(err)
			}
		}
		if err := raw.Flush(); err != nil {
			t.Fatal(err)
		}
		waitRejected(t, metrics, map[string]int{"live signature": 2, "revoke signature": 2})
		annS.none(200 * time.Millisecond)    // no forged event, no "end"
		for _, h := range []*harness{a, b} { // her token still works on both processes
			expect(t, h.keyed("GET", "/api/messages/list", ann, nil), 200, `[]`)
		}

		// the deployment's own messages, from the other process
		captured := make(chan *nats.Msg, 16)
		if _, err := raw.ChanSubscribe(live, captured); err != nil {
			t.Fatal(err)
		}
		if err := raw.Flush(); err != nil {
			t.Fatal(err)
		}
		at := b.Clock.Now().UnixMilli()
		id := b.sendMessage(bob, "signed and delivered")
		annS.expectEvent(2*time.Second, "message.sent", messageJSON(id, "signed and delivered", bob, at))
		waitRejected(t, metrics, map[string]int{"live signature": 2, "revoke signature": 2}) // nothing more
		annS.drain(200 * time.Millisecond)                                                   // the message's notification for ann

		// ann's copies the raw client captured, published again
		var toAnn []*nats.Msg
		for len(captured) > 0 {
			if m := <-captured; strings.Contains(string(m.Data), `"user":"`+ann.ID+`"`) {
				toAnn = append(toAnn, m)
			}
		}
		if len(toAnn) == 0 {
			t.Fatal("ann's message was not seen on the bus")
		}
		for _, m := range toAnn {
			if err := raw.PublishMsg(&nats.Msg{Subject: m.Subject, Header: m.Header, Data: m.Data}); err != nil {
				t.Fatal(err)
			}
		}
		waitRejected(t, metrics, map[string]int{"live signature": 2, "revoke signature": 2, "live replayed": len(toAnn)})
		annS.none(200 * time.Millisecond)
	})
}

// signFrame is what natsbus puts on the wire: the MAC, HMAC-SHA256(secret,
// "tandem-bus/2" NUL subject NUL stamp data), then the stamp (the send time
// in unix milliseconds, 8 bytes big endian, and a 16-byte random id), then
// data.
func signFrame(secret []byte, subject string, data []byte) []byte {
	body := binary.BigEndian.AppendUint64(nil, uint64(time.Now().UnixMilli()))
	body = append(append(body, rand.Text()[:16]...), data...)
	h := hmac.New(sha256.New, secret)
	h.Write([]byte("tandem-bus/2\x00" + subject + "\x00"))
	h.Write(body)
	return append(h.Sum(nil), body...)
}

var rejectedLine = regexp.MustCompile(`(?m)^tandem_bus_rejected_total\{reason="(\w+)",topic="(\w+)"\} (\d+)$`)

// waitRejected fails unless the metrics show exactly want ("topic reason":
// count) within 2 s.
func waitRejected(t *testing.T, metrics *httpapi.MetricsServer, want map[string]int) {
	t.Helper()
	var got map[string]int
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		got = map[string]int{}
		for _, m := range rejectedLine.FindAllStringSubmatch(string(scrape(t, metrics).Body), -1) {
			got[m[2]+" "+m[1]], _ = strconv.Atoi(m[3])
		}
		if fmt.Sprint(got) == fmt.Sprint(want) {
			return
		}
	}
	t.Fatalf("tandem_bus_rejected_total %v, want %v", got, want)
}
