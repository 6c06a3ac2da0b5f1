// Package expo delivers pushes through Expo's push API: a JSON array of
// messages POSTed to /--/api/v2/push/send, answered by one ticket per message.
package expo

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"tandem/modules/notifications"
)

// DefaultURL is Expo's push endpoint.
const DefaultURL = "https://exp.host/--/api/v2/push/send"

// maxBatch is the most messages Expo takes in one request.
const maxBatch = 100

var _ notifications.Pusher = (*Client)(nil)

// Client sends to Expo. A ticket with status "ok" counts as delivered (Expo
// accepted it); a DeviceNotRegistered ticket marks the token dead.
type Client struct {
	url  string
	http *http.Client
}

// New returns a client for url ("" for DefaultURL). A nil hc gets a client
// with a 10-second timeout.
func New(url string, hc *http.Client) *Client {
	if url == "" {
		url = DefaultURL
	}
	if hc == nil {
		hc = &http.Client{Timeout: 10 * time.Second}
	}
	return &Client{url: url, http: hc}
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
	Data   []ticket `json:"data"`
	Errors []struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"errors"`
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
			out[i] = notifications.Delivery{Outcome: notifications.OutcomeDelivered}
		case tickets[i].Details.Error == "DeviceNotRegistered":
			out[i] = notifications.Delivery{Outcome: notifications.OutcomeDeadToken}
		default:
			out[i] = notifications.Delivery{Outcome: notifications.OutcomeFailed,
				Err: fmt.Errorf("expo: ticket %s %s: %s", tickets[i].Status, tickets[i].Details.Error, tickets[i].Message)}
		}
	}
	return out
}

// post sends the batch and returns one ticket per message.
func (c *Client) post(ctx context.Context, msgs []message) ([]ticket, error) {
	body, err := json.Marshal(msgs)
	if err != nil {
		return nil, fmt.Errorf("expo: encode: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("expo: request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	res, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("expo: send: %w", err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("expo: read answer: %w", err)
	}
	var r response
	if err := json.Unmarshal(raw, &r); err != nil && res.StatusCode == http.StatusOK {
		return nil, fmt.Errorf("expo: answer is not JSON: %w", err)
	}
	if res.StatusCode != http.StatusOK {
		if len(r.Errors) > 0 {
			return nil, fmt.Errorf("expo: HTTP %d: %s: %s", res.StatusCode, r.Errors[0].Code, r.Errors[0].Message)
		}
		return nil, fmt.Errorf("expo: HTTP %d", res.StatusCode)
	}
	if len(r.Data) != len(msgs) {
		return nil, fmt.Errorf("expo: %d tickets for %d messages", len(r.Data), len(msgs))
	}
	return r.Data, nil
}
