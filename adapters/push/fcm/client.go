// Package fcm delivers pushes through Firebase Cloud Messaging's HTTP v1 API.
// It authenticates as a service account: it signs an RS256 JWT assertion with
// the account's private key (crypto/rsa, no OAuth library), exchanges it at
// the account's token_uri for an access token, and reuses that token until
// shortly before it expires.
package fcm

import (
	"bytes"
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"tandem/modules/notifications"
)

const (
	// DefaultBaseURL is FCM's API host.
	DefaultBaseURL = "https://fcm.googleapis.com"
	// Scope is the OAuth2 scope of FCM sends.
	Scope = "https://www.googleapis.com/auth/firebase.messaging"
	// defaultTokenURI is Google's token endpoint, for files without token_uri.
	defaultTokenURI = "https://oauth2.googleapis.com/token"
	// refreshMargin renews an access token this long before it expires.
	refreshMargin = time.Minute
)

// Config names the Firebase project and the service account.
type Config struct {
	Project         string
	CredentialsFile string       // the service account's JSON key file
	BaseURL         string       // "" for DefaultBaseURL
	HTTPClient      *http.Client // nil: a client with a 10-second timeout
	Now             func() time.Time
}

// credentials are the fields of a service-account key file that matter here.
type credentials struct {
	ClientEmail  string `json:"client_email"`
	PrivateKey   string `json:"private_key"`
	PrivateKeyID string `json:"private_key_id"`
	TokenURI     string `json:"token_uri"`
}

var _ notifications.Pusher = (*Client)(nil)

// Client sends through FCM. A 404 or an UNREGISTERED error marks the token
// dead; a 401 renews the access token and tries once more.
type Client struct {
	project string
	base    string
	creds   credentials
	key     *rsa.PrivateKey
	http    *http.Client
	now     func() time.Time

	mu      sync.Mutex
	token   string
	expires time.Time
}

// New reads and checks the credentials file, so a bad file fails at start-up.
func New(cfg Config) (*Client, error) {
	if cfg.Project == "" {
		return nil, errors.New("fcm: project is required")
	}
	raw, err := os.ReadFile(cfg.CredentialsFile)
	if err != nil {
		return nil, fmt.Errorf("fcm: credentials: %w", err)
	}
	var creds credentials
	if err := json.Unmarshal(raw, &creds); err != nil {
		return nil, fmt.Errorf("fcm: credentials %s: not a service-account JSON key: %w", cfg.CredentialsFile, err)
	}
	if creds.ClientEmail == "" || creds.PrivateKey == "" {
		return nil, fmt.Errorf("fcm: credentials %s: client_email and private_key are required", cfg.CredentialsFile)
	}
	if creds.TokenURI == "" {
		creds.TokenURI = defaultTokenURI
	}
	key, err := parseKey(creds.PrivateKey)
	if err != nil {
		return nil, fmt.Errorf("fcm: credentials %s: %w", cfg.CredentialsFile, err)
	}
	c := &Client{project: cfg.Project, base: strings.TrimRight(cfg.BaseURL, "/"), creds: creds, key: key,
		http: cfg.HTTPClient, now: cfg.Now}
	if c.base == "" {
		c.base = DefaultBaseURL
	}
	if c.http == nil {
		c.http = &http.Client{Timeout: 10 * time.Second}
	}
	if c.now == nil {
		c.now = time.Now
	}
	return c, nil
}

// parseKey reads an RSA key in PEM, PKCS#8 (what Google issues) or PKCS#1.
func parseKey(p string) (*rsa.PrivateKey, error) {
	block, _ := pem.Decode([]byte(p))
	if block == nil {
		return nil, errors.New("private_key is not PEM")
	}
	if k, err := x509.ParsePKCS8PrivateKey(block.Bytes); err == nil {
		rk, ok := k.(*rsa.PrivateKey)
		if !ok {
			return nil, errors.New("private_key is not an RSA key")
		}
		return rk, nil
	}
	k, err := x509.ParsePKCS1PrivateKey(block.Bytes)
	if err != nil {
		return nil, errors.New("private_key is neither PKCS#8 nor PKCS#1 RSA")
	}
	return k, nil
}

// Push sends m to each device in turn (FCM v1 takes one token per request).
func (c *Client) Push(ctx context.Context, m notifications.Message, to []notifications.Device) []notifications.Delivery {
	out := make([]notifications.Delivery, len(to))
	for i, d := range to {
		out[i] = c.send(ctx, m, d.Token)
	}
	return out
}

// sendRequest is the body of messages:send. Field names are FCM's API.
type sendRequest struct {
	Message struct {
		Token        string            `json:"token"`
		Notification map[string]string `json:"notification"`
		Data         map[string]string `json:"data"`
	} `json:"message"`
}

// apiError is FCM's error body.
type apiError struct {
	Error struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Status  string `json:"status"`
		Details []struct {
			Type      string `json:"@type"`
			ErrorCode string `json:"errorCode"`
		} `json:"details"`
	} `json:"error"`
}

func (c *Client) send(ctx context.Context, m notifications.Message, token string) notifications.Delivery {
	var body sendRequest
	body.Message.Token = token
	body.Message.Notification = map[string]string{"title": m.Title, "body": m.Body}
	body.Message.Data = map[string]string{"notificationId": m.NotificationID, "category": string(m.Category)}
	raw, err := json.Marshal(body)
	if err != nil {
		return failed(fmt.Errorf("fcm: encode: %w", err))
	}
	for attempt := 1; ; attempt++ {
		status, answer, err := c.post(ctx, raw)
		if err != nil {
			return failed(err)
		}
		switch {
		case status == http.StatusOK:
			return notifications.Delivery{Outcome: notifications.OutcomeDelivered}
		case status == http.StatusUnauthorized && attempt == 1:
			c.forgetToken() // revoked or expired early: renew once
			continue
		}
		var e apiError
		_ = json.Unmarshal(answer, &e)
		code := ""
		for _, d := range e.Error.Details {
			if d.ErrorCode != "" {
				code = d.ErrorCode
			}
		}
		if status == http.StatusNotFound || code == "UNREGISTERED" {
			return notifications.Delivery{Outcome: notifications.OutcomeDeadToken}
		}
		return failed(fmt.Errorf("fcm: HTTP %d %s %s: %s", status, e.Error.Status, code, e.Error.Message))
	}
}

func failed(err error) notifications.Delivery {
	return notifications.Delivery{Outcome: notifications.OutcomeFailed, Err: err}
}

// post sends one message with a current access token.
func (c *Client) post(ctx context.Context, body []byte) (int, []byte, error) {
	token, err := c.accessToken(ctx)
	if err != nil {
		return 0, nil, err
	}
	u := c.base + "/v1/projects/" + url.PathEscape(c.project) + "/messages:send"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return 0, nil, fmt.Errorf("fcm: request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := c.http.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("fcm: send: %w", err)
	}
	defer res.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return 0, nil, fmt.Errorf("fcm: read answer: %w", err)
	}
	return res.StatusCode, answer, nil
}

// accessToken returns the cached token while it has more than refreshMargin
// left, else fetches a new one. Callers wait for one fetch at a time.
func (c *Client) accessToken(ctx context.Context) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if c.token != "" && now.Add(refreshMargin).Before(c.expires) {
		return c.token, nil
	}
	token, lifetime, err := c.fetchToken(ctx, now)
	if err != nil {
		return "", err
	}
	c.token, c.expires = token, now.Add(lifetime)
	return token, nil
}

func (c *Client) forgetToken() {
	c.mu.Lock()
	c.token = ""
	c.mu.Unlock()
}

// fetchToken exchanges a signed assertion for an access token (RFC 7523).
func (c *Client) fetchToken(ctx context.Context, now time.Time) (string, time.Duration, error) {
	assertion, err := c.assertion(now)
	if err != nil {
		return "", 0, err
	}
	form := url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:jwt-bearer"}, "assertion": {assertion}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.creds.TokenURI, strings.NewReader(form.Encode()))
	if err != nil {
		return "", 0, fmt.Errorf("fcm: token request: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	res, err := c.http.Do(req)
	if err != nil {
		return "", 0, fmt.Errorf("fcm: token: %w", err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return "", 0, fmt.Errorf("fcm: token: %w", err)
	}
	var tok struct {
		AccessToken string `json:"access_token"`
		ExpiresIn   int64  `json:"expires_in"`
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	_ = json.Unmarshal(raw, &tok)
	if res.StatusCode != http.StatusOK || tok.AccessToken == "" {
		return "", 0, fmt.Errorf("fcm: token: HTTP %d %s: %s", res.StatusCode, tok.Error, tok.Description)
	}
	if tok.ExpiresIn <= 0 {
		tok.ExpiresIn = 3600
	}
	return tok.AccessToken, time.Duration(tok.ExpiresIn) * time.Second, nil
}

// assertion is the JWT the service account signs: valid one hour, for FCM's
// scope, addressed to the token endpoint.
func (c *Client) assertion(now time.Time) (string, error) {
	header := map[string]string{"alg": "RS256", "typ": "JWT"}
	if c.creds.PrivateKeyID != "" {
		header["kid"] = c.creds.PrivateKeyID
	}
	claims := map[string]any{"iss": c.creds.ClientEmail, "scope": Scope, "aud": c.creds.TokenURI,
		"iat": now.Unix(), "exp": now.Add(time.Hour).Unix()}
	h, err := json.Marshal(header)
	if err != nil {
		return "", err
	}
	cl, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	enc := base64.RawURLEncoding
	signing := enc.EncodeToString(h) + "." + enc.EncodeToString(cl)
	sum := sha256.Sum256([]byte(signing))
	sig, err := rsa.SignPKCS1v15(rand.Reader, c.key, crypto.SHA256, sum[:])
	if err != nil {
		return "", fmt.Errorf("fcm: sign assertion: %w", err)
	}
	return signing + "." + enc.EncodeToString(sig), nil
}
