// Package pushmock is a test helper for PushMock, the local stand-in for Apple's APNs and Firebase
// Cloud Messaging: it queries, waits for and asserts on the pushes PushMock recorded, sets faults
// and devices, and starts a server for a test. Standard library only.
//
//	mock := pushmock.Start(t)
//	after, _ := mock.Cursor(ctx)
//	// … the code under test sends a push to mock.PushURL …
//	pushes, err := mock.WaitFor(ctx, pushmock.Filter{"service": "apns", "after": after}, 1)
package pushmock

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Filter narrows deliveries by the inspection API's query parameters, by name: service, token,
// topic, outcome, reason, status, project, pushType, text, after… Query says the same with types.
type Filter map[string]string

// Filter returns f itself, so that a Filter is a Matcher.
func (f Filter) Filter() Filter { return f }

// Matcher is what Deliveries and WaitFor take: a Filter or a Query (nil matches every delivery).
type Matcher interface{ Filter() Filter }

// Query narrows deliveries with typed fields; zero values are left out.
type Query struct {
	Service  string // apns, fcm, oauth, broadcast, iid or webpush
	Outcome  string // accepted, dropped or rejected
	Reason   string // the rejection's reason (APNs) or status (FCM)
	Status   int    // the HTTP status answered
	Token    string // the device or registration token
	Topic    string // the apns-topic, or the FCM topic
	Project  string // the FCM project
	PushType string // the apns-push-type
	Text     string // any text in the request
	After    int64  // only deliveries newer than this id (a Cursor)
}

// Filter returns the query's parameters.
func (q Query) Filter() Filter {
	filter := Filter{}
	set := func(name, value string) {
		if value != "" {
			filter[name] = value
		}
	}
	set("service", q.Service)
	set("outcome", q.Outcome)
	set("reason", q.Reason)
	set("token", q.Token)
	set("topic", q.Topic)
	set("project", q.Project)
	set("pushType", q.PushType)
	set("text", q.Text)
	if q.Status != 0 {
		filter["status"] = strconv.Itoa(q.Status)
	}
	if q.After != 0 {
		filter["after"] = strconv.FormatInt(q.After, 10)
	}
	return filter
}

func filterOf(matcher Matcher) Filter {
	if matcher == nil {
		return Filter{}
	}
	return matcher.Filter()
}

// Delivery is one recorded request: accepted, dropped by the device, or rejected. Raw holds every
// field the API returned.
type Delivery struct {
	ID                  int64           `json:"id"`
	Service             string          `json:"service"`
	Outcome             string          `json:"outcome"`
	Status              int             `json:"status"`
	Reason              string          `json:"reason"`
	Explanation         string          `json:"explanation"`
	DeviceToken         string          `json:"deviceToken"`
	Topic               string          `json:"topic"`
	PushType            string          `json:"pushType"`
	Protocol            string          `json:"protocol"`
	Payload             json.RawMessage `json:"payload"`
	IssuedActivityToken string          `json:"issuedActivityToken"`
	Diagnostics         []string        `json:"diagnostics"`
	Raw                 map[string]any  `json:"-"`
}

// UnmarshalJSON keeps every field in Raw too.
func (d *Delivery) UnmarshalJSON(data []byte) error {
	type plain Delivery
	if err := json.Unmarshal(data, (*plain)(d)); err != nil {
		return err
	}
	return json.Unmarshal(data, &d.Raw)
}

// String is one line: service, status, reason, outcome and target (and an FCM message's
// android_v2 kind).
func (d Delivery) String() string {
	target := d.DeviceToken
	if target == "" {
		target = d.Topic
	}
	reason := ""
	if d.Reason != "" {
		reason = " " + d.Reason
	}
	kind := ""
	if v2 := d.AndroidV2Kind(); v2 != "" {
		kind = " android_v2:" + v2
	}
	return fmt.Sprintf("%s %d%s %s %s%s", d.Service, d.Status, reason, d.Outcome, target, kind)
}

// AndroidV2Kind is, for an FCM message sent with android_v2 (AndroidConfigV2), the member of its
// union it sets: "remote_notification" or "background_sync"; else "".
func (d Delivery) AndroidV2Kind() string {
	var payload struct {
		Message map[string]json.RawMessage `json:"message"`
	}
	if json.Unmarshal(d.Payload, &payload) != nil {
		return ""
	}
	raw, ok := payload.Message["android_v2"]
	if !ok {
		raw = payload.Message["androidV2"]
	}
	var config map[string]json.RawMessage
	if json.Unmarshal(raw, &config) != nil {
		return ""
	}
	set := func(names ...string) bool {
		for _, name := range names {
			if value, ok := config[name]; ok && string(value) != "null" {
				return true
			}
		}
		return false
	}
	switch {
	case set("remote_notification", "remoteNotification"):
		return "remote_notification"
	case set("background_sync", "backgroundSync"):
		return "background_sync"
	}
	return ""
}

// APIError is an error answer of the inspection API.
type APIError struct {
	Method, Path string
	Status       int
	Body         string
}

func (e *APIError) Error() string {
	return fmt.Sprintf("%s %s: %d %s", e.Method, e.Path, e.Status, strings.TrimSpace(e.Body))
}

// UnreachableError says PushMock did not answer at all.
type UnreachableError struct {
	URL string
	Err error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("PushMock is not answering at %s: %v", e.URL, e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// TimeoutError is a wait that ended before enough deliveries matched. It wraps
// context.DeadlineExceeded, and its message says what did arrive.
type TimeoutError struct {
	Count   int
	Filter  Filter
	Matched []Delivery
	Arrived []Delivery
}

func (e *TimeoutError) Error() string {
	keys := make([]string, 0, len(e.Filter))
	for k := range e.Filter {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, k+"="+e.Filter[k])
	}
	wanted := strings.Join(parts, ", ")
	if wanted == "" {
		wanted = "no filter"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "waited for %d deliveries matching %s; %d matched", e.Count, wanted, len(e.Matched))
	if len(e.Arrived) == 0 {
		b.WriteString("; nothing arrived at all: is the code under test pointed at this PushMock?")
	} else {
		fmt.Fprintf(&b, "; what arrived (%d):", len(e.Arrived))
		start := 0
		if len(e.Arrived) > 10 {
			start = len(e.Arrived) - 10
		}
		for _, d := range e.Arrived[start:] {
			fmt.Fprintf(&b, "\n  #%d %s", d.ID, d)
		}
	}
	return b.String()
}

// Unwrap makes errors.Is(err, context.DeadlineExceeded) true.
func (e *TimeoutError) Unwrap() error { return context.DeadlineExceeded }

// Client is a PushMock's inspection API.
type Client struct {
	InspectionURL string
	Token         string
	HTTP          *http.Client
	credentials   *Credentials
}

// Option configures a Client.
type Option func(*Client)

// WithToken sets the inspection token.
func WithToken(token string) Option { return func(c *Client) { c.Token = token } }

// WithHTTPClient sets the HTTP client used for the inspection API.
func WithHTTPClient(client *http.Client) Option { return func(c *Client) { c.HTTP = client } }

// New returns a client for the inspection API at inspectionURL (http://127.0.0.1:2198).
func New(inspectionURL string, opts ...Option) *Client {
	c := &Client{InspectionURL: strings.TrimRight(inspectionURL, "/"), HTTP: &http.Client{Transport: &http.Transport{Proxy: nil}}}
	for _, opt := range opts {
		opt(c)
	}
	return c
}

func (c *Client) do(ctx context.Context, method, path string, body any, out any, timeoutIsData bool) (int, error) {
	var reader io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return 0, err
		}
		reader = bytes.NewReader(data)
	}
	request, err := http.NewRequestWithContext(ctx, method, c.InspectionURL+path, reader)
	if err != nil {
		return 0, err
	}
	request.Header.Set("x-pushmock-client", "pushmock-go")
	request.Header.Set("accept", "application/json")
	if body != nil {
		request.Header.Set("content-type", "application/json")
	}
	if c.Token != "" {
		request.Header.Set("authorization", "Bearer "+c.Token)
	}
	response, err := c.HTTP.Do(request)
	if err != nil {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		return 0, &UnreachableError{URL: c.InspectionURL, Err: err}
	}
	defer response.Body.Close()
	data, err := io.ReadAll(response.Body)
	if err != nil {
		return 0, err
	}
	if response.StatusCode >= 400 && !(timeoutIsData && response.StatusCode == http.StatusRequestTimeout) {
		return response.StatusCode, &APIError{Method: method, Path: path, Status: response.StatusCode, Body: string(data)}
	}
	if out != nil && len(data) > 0 {
		if err := json.Unmarshal(data, out); err != nil {
			return response.StatusCode, fmt.Errorf("%s %s: %w", method, path, err)
		}
	}
	return response.StatusCode, nil
}

func encode(filter Filter, extra map[string]string) string {
	values := url.Values{}
	for k, v := range filter {
		values.Set(k, v)
	}
	for k, v := range extra {
		values.Set(k, v)
	}
	if len(values) == 0 {
		return ""
	}
	return "?" + values.Encode()
}

type list struct {
	Deliveries []Delivery `json:"deliveries"`
	NewestID   *int64     `json:"newestId"`
}

func reversed(deliveries []Delivery) []Delivery {
	out := make([]Delivery, len(deliveries))
	for i, d := range deliveries {
		out[len(deliveries)-1-i] = d
	}
	return out
}

// Ready reports whether /readyz says ready.
func (c *Client) Ready(ctx context.Context) bool {
	var health struct{ Status string }
	_, err := c.do(ctx, http.MethodGet, "/readyz", nil, &health, false)
	return err == nil && health.Status == "ready"
}

// Deliveries returns the deliveries matching matcher (a Filter or a Query), oldest first.
func (c *Client) Deliveries(ctx context.Context, matcher Matcher) ([]Delivery, error) {
	filter := filterOf(matcher)
	var answer list
	if _, err := c.do(ctx, http.MethodGet, "/api/v1/deliveries"+encode(filter, map[string]string{"limit": "1000"}), nil, &answer, false); err != nil {
		return nil, err
	}
	return reversed(answer.Deliveries), nil
}

// Cursor returns the newest delivery's id (0 when none): pass it as the filter's "after".
func (c *Client) Cursor(ctx context.Context) (int64, error) {
	var answer list
	if _, err := c.do(ctx, http.MethodGet, "/api/v1/deliveries?limit=1", nil, &answer, false); err != nil {
		return 0, err
	}
	if answer.NewestID == nil {
		return 0, nil
	}
	return *answer.NewestID, nil
}

// WaitFor waits until count deliveries match matcher (a Filter or a Query) and returns them, oldest first. It waits until
// ctx's deadline (5 s when ctx has none); then it returns a *TimeoutError saying what arrived.
func (c *Client) WaitFor(ctx context.Context, matcher Matcher, count int) ([]Delivery, error) {
	filter := filterOf(matcher)
	timeout := 5 * time.Second
	if deadline, ok := ctx.Deadline(); ok {
		timeout = time.Until(deadline) - 100*time.Millisecond
		if timeout < 0 {
			timeout = 0
		}
	}
	extra := map[string]string{"count": strconv.Itoa(count), "timeout": strconv.FormatInt(timeout.Milliseconds(), 10) + "ms"}
	var answer list
	if _, err := c.do(ctx, http.MethodGet, "/api/v1/deliveries/wait"+encode(filter, extra), nil, &answer, true); err != nil {
		return nil, err
	}
	matched := reversed(answer.Deliveries)
	if len(matched) >= count {
		return matched, nil
	}
	since := Filter{}
	if after, ok := filter["after"]; ok {
		since["after"] = after
	}
	arrivedCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	arrived, _ := c.Deliveries(arrivedCtx, since)
	return matched, &TimeoutError{Count: count, Filter: filter, Matched: matched, Arrived: arrived}
}

// Reset puts deliveries, faults, devices, activities and tokens back to the configuration.
func (c *Client) Reset(ctx context.Context) error {
	_, err := c.do(ctx, http.MethodPost, "/api/v1/reset", map[string]any{}, nil, false)
	return err
}

// Fault is a fault rule: a match and one action.
type Fault struct {
	ID    string            `json:"id,omitempty"`
	Match map[string]string `json:"match"`
	// Target "upstream" changes the relay upstream's answer (passthrough mode) instead of
	// PushMock's own: a delay, GoAway or ResetStream, not Reject.
	Target            string  `json:"target,omitempty"`
	Reject            *Reject `json:"reject,omitempty"`
	DelayMilliseconds int     `json:"delayMilliseconds,omitempty"`
	Delay             *Delay  `json:"delay,omitempty"`
	GoAway            string  `json:"goAway,omitempty"`
	ResetStream       bool    `json:"resetStream,omitempty"`
	Count             int     `json:"count,omitempty"`
	Probability       float64 `json:"probability,omitempty"`
	// Sequence, instead of one action: steps used in turn, one per matching request.
	Sequence []FaultStep `json:"sequence,omitempty"`
}

// FaultStep is one step of a fault sequence: exactly one action, or Accept (answered as usual).
type FaultStep struct {
	Reject            *Reject `json:"reject,omitempty"`
	DelayMilliseconds int     `json:"delayMilliseconds,omitempty"`
	Delay             *Delay  `json:"delay,omitempty"`
	GoAway            string  `json:"goAway,omitempty"`
	ResetStream       bool    `json:"resetStream,omitempty"`
	Accept            bool    `json:"accept,omitempty"`
}

// Delay is a delay drawn for each request from the server's seeded generator (faultSeed), in
// milliseconds: Distribution "uniform" (MinMilliseconds, MaxMilliseconds), "normal"
// (MeanMilliseconds, StandardDeviationMilliseconds) or "logNormal" (MedianMilliseconds, Sigma).
type Delay struct {
	Distribution                  string   `json:"distribution"`
	MinMilliseconds               *int     `json:"minMilliseconds,omitempty"`
	MaxMilliseconds               *int     `json:"maxMilliseconds,omitempty"`
	MeanMilliseconds              *int     `json:"meanMilliseconds,omitempty"`
	StandardDeviationMilliseconds *int     `json:"standardDeviationMilliseconds,omitempty"`
	MedianMilliseconds            *int     `json:"medianMilliseconds,omitempty"`
	Sigma                         *float64 `json:"sigma,omitempty"`
}

// Reject answers with a status and reason, and a Retry-After of RetryAfter seconds when it is set.
type Reject struct {
	Status     int    `json:"status"`
	Reason     string `json:"reason"`
	RetryAfter *int   `json:"retryAfter,omitempty"`
}

// AddFault adds a fault rule.
func (c *Client) AddFault(ctx context.Context, fault Fault) error {
	if fault.Match == nil {
		fault.Match = map[string]string{}
	}
	_, err := c.do(ctx, http.MethodPut, "/api/v1/faults", fault, nil, false)
	return err
}

// RemoveFaults removes every fault.
func (c *Client) RemoveFaults(ctx context.Context) error {
	_, err := c.do(ctx, http.MethodDelete, "/api/v1/faults", nil, nil, false)
	return err
}

// SetDevice sets what PushMock knows of a device token (state, bundleId, environment, project,
// lastActiveAt, liveActivity, appRunning…).
func (c *Client) SetDevice(ctx context.Context, token string, record map[string]any) error {
	_, err := c.do(ctx, http.MethodPut, "/api/v1/devices/"+url.PathEscape(token), record, nil, false)
	return err
}

// Unregister makes APNs answer 410 Unregistered for token, and FCM 404 UNREGISTERED; since, when
// not zero, is the unregistration time.
func (c *Client) Unregister(ctx context.Context, token string, since time.Time) error {
	record := map[string]any{"state": "unregistered"}
	if !since.IsZero() {
		record["unregisteredAt"] = since.UnixMilli()
	}
	return c.SetDevice(ctx, token, record)
}

// WebPushSubscription is a minted Web Push subscription. Endpoint, ExpirationTime and Keys are
// what a browser's PushSubscription.toJSON() gives: hand them to the code under test.
type WebPushSubscription struct {
	ID             string `json:"id"`
	Service        string `json:"service"`
	Endpoint       string `json:"endpoint"`
	ExpirationTime *int64 `json:"expirationTime"`
	Keys           struct {
		P256dh string `json:"p256dh"`
		Auth   string `json:"auth"`
	} `json:"keys"`
	State                string `json:"state"`
	ApplicationServerKey string `json:"applicationServerKey,omitempty"`
	CreatedAt            int64  `json:"createdAt"`
}

// CreateWebPushSubscription mints a Web Push subscription for service ("apple", "mozilla" or
// "google"), made with applicationServerKey (your VAPID public key, base64url) unless it is empty.
func (c *Client) CreateWebPushSubscription(ctx context.Context, service, applicationServerKey string) (WebPushSubscription, error) {
	body := map[string]any{"service": service}
	if applicationServerKey != "" {
		body["applicationServerKey"] = applicationServerKey
	}
	var subscription WebPushSubscription
	_, err := c.do(ctx, http.MethodPost, "/api/v1/web-push/subscriptions", body, &subscription, false)
	return subscription, err
}

// ExpireWebPushSubscription makes pushes to the subscription get the service's 410 from now on.
func (c *Client) ExpireWebPushSubscription(ctx context.Context, id string) error {
	_, err := c.do(ctx, http.MethodPost, "/api/v1/web-push/subscriptions/"+url.PathEscape(id)+"/expire", map[string]any{}, nil, false)
	return err
}

// Activity is a simulated Live Activity with its timeline.
type Activity struct {
	State        string          `json:"state"`
	ContentState json.RawMessage `json:"contentState"`
	Timeline     []struct {
		Event         string `json:"event"`
		DeviceOutcome string `json:"deviceOutcome"`
		Reason        string `json:"reason"`
	} `json:"timeline"`
	Raw map[string]any `json:"-"`
}

// Activity returns the simulated Live Activity of a push token (or id).
func (c *Client) Activity(ctx context.Context, token string) (*Activity, error) {
	var raw json.RawMessage
	if _, err := c.do(ctx, http.MethodGet, "/api/v1/activities/"+url.PathEscape(token), nil, &raw, false); err != nil {
		return nil, err
	}
	var activity Activity
	if err := json.Unmarshal(raw, &activity); err != nil {
		return nil, err
	}
	_ = json.Unmarshal(raw, &activity.Raw)
	return &activity, nil
}

// Credentials are the development credentials a PushMock runs with, written to files.
type Credentials struct {
	PushURL            string            `json:"pushUrl"`
	CAPEM              string            `json:"caPem"`
	ServiceAccount     map[string]string `json:"serviceAccount"`
	Samples            map[string]string `json:"samples"`
	APNS               struct{ KeyID, TeamID, P8, BundleID string }
	CAPath             string `json:"-"`
	ServiceAccountPath string `json:"-"`
	APNSKeyPath        string `json:"-"`
	AuthorizedUserPath string `json:"-"`
	// The same names as the other helpers', flat: APNS's fields and the samples.
	APNSKeyID, APNSTeamID, APNSBundleID string            `json:"-"`
	SampleDeviceToken, SampleFID        string            `json:"-"`
	AuthorizedUser                      map[string]string `json:"authorizedUser"`
	client                              *Client
	folder                              string
}

// Credentials fetches (once) the development credentials and writes them to files.
func (c *Client) Credentials(ctx context.Context) (*Credentials, error) {
	if c.credentials != nil {
		return c.credentials, nil
	}
	var creds Credentials
	var raw struct {
		APNS struct {
			KeyID    string `json:"keyId"`
			TeamID   string `json:"teamId"`
			P8       string `json:"p8"`
			BundleID string `json:"bundleId"`
		} `json:"apns"`
	}
	var data json.RawMessage
	if _, err := c.do(ctx, http.MethodGet, "/api/v1/credentials", nil, &data, false); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, &creds); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, err
	}
	creds.APNS.KeyID, creds.APNS.TeamID, creds.APNS.P8, creds.APNS.BundleID = raw.APNS.KeyID, raw.APNS.TeamID, raw.APNS.P8, raw.APNS.BundleID
	creds.APNSKeyID, creds.APNSTeamID, creds.APNSBundleID = raw.APNS.KeyID, raw.APNS.TeamID, raw.APNS.BundleID
	creds.SampleDeviceToken, creds.SampleFID = creds.Samples["apnsDeviceToken"], creds.Samples["fid"]
	folder, err := os.MkdirTemp("", "pushmock-credentials-")
	if err != nil {
		return nil, err
	}
	write := func(name, text string) (string, error) {
		if text == "" {
			return "", nil
		}
		path := filepath.Join(folder, name)
		return path, os.WriteFile(path, []byte(text), 0o600)
	}
	if creds.CAPath, err = write("ca.pem", creds.CAPEM); err != nil {
		return nil, err
	}
	if creds.APNSKeyPath, err = write("apns-key.p8", creds.APNS.P8); err != nil {
		return nil, err
	}
	account, _ := json.MarshalIndent(creds.ServiceAccount, "", "  ")
	if creds.ServiceAccountPath, err = write("service-account.json", string(account)); err != nil {
		return nil, err
	}
	if len(creds.AuthorizedUser) > 0 {
		users, _ := json.MarshalIndent(creds.AuthorizedUser, "", "  ")
		if creds.AuthorizedUserPath, err = write("authorized-user.json", string(users)); err != nil {
			return nil, err
		}
	}
	creds.client = c
	creds.folder = folder
	c.credentials = &creds
	return &creds, nil
}

// Close removes the files Credentials wrote (a Server's Stop closes its Client). Credentials
// fetches and writes them again if asked after.
func (c *Client) Close() error {
	if c.credentials == nil {
		return nil
	}
	folder := c.credentials.folder
	c.credentials = nil
	return os.RemoveAll(folder)
}

// ProjectID is the development service account's project.
func (cr *Credentials) ProjectID() string { return cr.ServiceAccount["project_id"] }

// FCMToken is a real-shaped registration token (the sample one).
func (cr *Credentials) FCMToken() string { return cr.Samples["fcmRegistrationToken"] }

// APNSToken is a provider token signed with the development APNs key.
func (cr *Credentials) APNSToken(ctx context.Context) (string, error) {
	var issued struct{ Token string }
	_, err := cr.client.do(ctx, http.MethodGet, "/api/v1/credentials/apns-token", nil, &issued, false)
	return issued.Token, err
}

// FCMAccessToken is an access token for the development service account.
func (cr *Credentials) FCMAccessToken(ctx context.Context) (string, error) {
	var issued struct{ Token string }
	_, err := cr.client.do(ctx, http.MethodGet, "/api/v1/credentials/fcm-access-token", nil, &issued, false)
	return issued.Token, err
}

// IsTimeout reports whether err is a wait that timed out.
func IsTimeout(err error) bool {
	var timeout *TimeoutError
	return errors.As(err, &timeout)
}
