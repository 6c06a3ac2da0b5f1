// Package expo delivers pushes through Expo's push API: a JSON array of
// messages POSTed to /--/api/v2/push/send, answered by one ticket per
// message; and reads the receipts of the accepted ones later, from
// /--/api/v2/push/getReceipts.
package expo

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"time"

	"tandem/modules/notifications"
)

// DefaultURL is Expo's push endpoint.
const DefaultURL = "https://exp.host/--/api/v2/push/send"

// maxBatch is the most messages Expo takes in one request.
const maxBatch = 100

// maxTicketID bounds the ticket ids kept for a receipt check (Expo's are
// UUIDs); a longer or non-ASCII one is not Expo's and is not kept.
const maxTicketID = 64

var (
	_ notifications.Pusher        = (*Client)(nil)
	_ notifications.ReceiptReader = (*Client)(nil)
)

// Client sends to Expo. A ticket with status "ok" counts as delivered (Expo
// accepted it) and carries the ticket id, whose receipt Receipts reads
// later; a DeviceNotRegistered ticket marks the token dead.
type Client struct {
	url      string
	receipts string
	http     *http.Client
}

// New returns a client for the send URL sendURL ("" for DefaultURL); its
// receipts come from ReceiptsURL(sendURL). A nil hc gets a client with a
// 10-second timeout.
func New(sendURL string, hc *http.Client) *Client {
	if sendURL == "" {
		sendURL = DefaultURL
	}
	if hc == nil {
		hc = &http.Client{Timeout: 10 * time.Second}
	}
	return &Client{url: sendURL, receipts: ReceiptsURL(sendURL), http: hc}
}

// ReceiptsURL is the getReceipts endpoint beside a send URL: its last path
// segment replaced (https://exp.host/--/api/v2/push/send gives
// https://exp.host/--/api/v2/push/getReceipts); query and fragment dropped.
func ReceiptsURL(sendURL string) string {
	u, err := url.Parse(sendURL)
	if err != nil {
		return sendURL
	}
	u.Path = path.Join(path.Dir(u.Path), "getReceipts")
	u.RawPath, u.RawQuery, u.Fragment = "", "", ""
	return u.String()
}

// message is one Expo push message. Field names are Expo's API.
type message struct {
	To    string            `json:"to"`
	Title string            `json:"title"`
	Body  string            `json:"body"`
	Sound string            `json:"sound"`
	Data  map[string]string `json:"data"`
}

// ticket is Expo's answer for one message.
type ticket struct {
	Status  string `json:"status"` // ok | error
	ID      string `json:"id"`
	Message string `json:"message"`
	Details struct {
		Error string `json:"error"` // DeviceNotRegistered, MessageTooBig, MessageRateExceeded...
	} `json:"details"`
}

type response struct {
	Data   []ticket  `json:"data"`
	Errors apiErrors `json:"errors"`
}

// Push sends m to every device, at most 100 per request.
func (c *Client) Push(ctx context.Context, m notifications.Message, to []notifications.Device) []notifications.Delivery {
	out := make([]notifications.Delivery, 0, len(to))
	for start := 0; start < len(to); start += maxBatch {
		batch := to[start:min(start+maxBatch, len(to))]
		out = append(out, c.send(ctx, m, batch)...)
	}
	return out
}

func (c *Client) send(ctx context.Context, m notifications.Message, to []notifications.Device) []notifications.Delivery {
	msgs := make([]message, len(to))
	for i, d := range to {
		msgs[i] = message{To: d.Token, Title: m.Title, Body: m.Body, Sound: "default",
			Data: map[string]string{"notificationId": m.NotificationID, "category": string(m.Category)}}
	}
	tickets, err := c.post(ctx, msgs)
	out := make([]notifications.Delivery, len(to))
	for i := range out {
		switch {
		case err != nil:
			out[i] = notifications.Delivery{Outcome: notifications.OutcomeFailed, Err: err}
		case tickets[i].Status == "ok":
			out[i] = notifications.Delivery{Outcome: notifications.OutcomeDelivered, Ticket: ticketID(tickets[i].ID)}
		case tickets[i].Details.Error == "DeviceNotRegistered":
			out[i] = notifications.Delivery{Outcome: notifications.OutcomeDeadToken}
		default:
			out[i] = notifications.Delivery{Outcome: notifications.OutcomeFailed,
				Err: fmt.Errorf("expo: ticket %s %s: %s", tickets[i].Status, tickets[i].Details.Error, tickets[i].Message)}
		}
	}
	return out
}

// ticketID is id when it can be kept for a receipt check, else "".
func ticketID(id string) string {
	if len(id) > maxTicketID {
		return ""
	}
	for i := 0; i < len(id); i++ {
		if id[i] <= ' ' || id[i] > '~' {
			return ""
		}
	}
	return id
}

// post sends the batch and returns one ticket per message.
func (c *Client) post(ctx context.Context, msgs []message) ([]ticket, error) {
	var r response
	if err := c.call(ctx, c.url, msgs, &r, &r.Errors); err != nil {
		return nil, err
	}
	if len(r.Data) != len(msgs) {
		return nil, fmt.Errorf("expo: %d tickets for %d messages", len(r.Data), len(msgs))
	}
	return r.Data, nil
}

// apiErrors is Expo's request-level error list.
type apiErrors []struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// call POSTs in as JSON to u and decodes the answer into out; a status
// other than 200 is an error naming Expo's first error (decoded into errs).
func (c *Client) call(ctx context.Context, u string, in, out any, errs *apiErrors) error {
	body, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("expo: encode: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("expo: request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	res, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("expo: send: %w", err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, 4<<20))
	if err != nil {
		return fmt.Errorf("expo: read answer: %w", err)
	}
	if err := json.Unmarshal(raw, out); err != nil && res.StatusCode == http.StatusOK {
		return fmt.Errorf("expo: answer is not JSON: %w", err)
	}
	if res.StatusCode != http.StatusOK {
		if len(*errs) > 0 {
			return fmt.Errorf("expo: HTTP %d: %s: %s", res.StatusCode, (*errs)[0].Code, (*errs)[0].Message)
		}
		return fmt.Errorf("expo: HTTP %d", res.StatusCode)
	}
	return nil
}

// maxReceipts is the most ids Expo takes in one getReceipts request.
const maxReceipts = 1000

// receiptsResponse is getReceipts' answer: a receipt per id that has one.
type receiptsResponse struct {
	Data   map[string]ticket `json:"data"`
	Errors apiErrors         `json:"errors"`
}

// Receipts asks getReceipts about ids, at most 1000 per request. A receipt
// "ok" is ReceiptOK, DeviceNotRegistered is ReceiptDeadToken, any other
// error ReceiptFailed; an id Expo does not answer has no receipt yet.
func (c *Client) Receipts(ctx context.Context, ids []string) (map[string]notifications.Receipt, error) {
	out := make(map[string]notifications.Receipt, len(ids))
	for start := 0; start < len(ids); start += maxReceipts {
		batch := ids[start:min(start+maxReceipts, len(ids))]
		var r receiptsResponse
		if err := c.call(ctx, c.receipts, map[string][]string{"ids": batch}, &r, &r.Errors); err != nil {
			return nil, err
		}
		for _, id := range batch {
			t, ok := r.Data[id]
			switch {
			case !ok:
			case t.Status == "ok":
				out[id] = notifications.Receipt{Status: notifications.ReceiptOK}
			case t.Details.Error == "DeviceNotRegistered":
				out[id] = notifications.Receipt{Status: notifications.ReceiptDeadToken, Error: "DeviceNotRegistered: " + t.Message}
			default:
				out[id] = notifications.Receipt{Status: notifications.ReceiptFailed,
					Error: fmt.Sprintf("%s %s: %s", t.Status, t.Details.Error, t.Message)}
			}
		}
	}
	return out, nil
}
