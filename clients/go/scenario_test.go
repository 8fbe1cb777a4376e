package pushmock_test

// The scenario every PushMock helper runs (Python, JavaScript, Go), against a real pushmock serve:
// the one at PUSHMOCK_URL, or one started for the test (PUSHMOCK_BIN or PATH). Pushes go over
// net/http with HTTP/2.

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	pushmock "github.com/pushmock/pushmock/clients/go"
)

const device = "abababababababababababababababababababababababababababababababab"

type harness struct {
	t      *testing.T
	mock   *pushmock.Client
	creds  *pushmock.Credentials
	http   *http.Client
	ctx    context.Context
	cancel context.CancelFunc
}

func setUp(t *testing.T) *harness {
	t.Helper()
	var mock *pushmock.Client
	if url := os.Getenv("PUSHMOCK_URL"); url != "" {
		mock = pushmock.New(url, pushmock.WithToken(os.Getenv("PUSHMOCK_TOKEN")))
		t.Cleanup(func() { mock.Close() })
	} else {
		mock = pushmock.Start(t).Client
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	if err := mock.Reset(ctx); err != nil {
		t.Fatalf("reset: %v", err)
	}
	creds, err := mock.Credentials(ctx)
	if err != nil {
		t.Fatalf("credentials: %v", err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM([]byte(creds.CAPEM)) {
		t.Fatalf("the served CA is not PEM")
	}
	transport := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}, ForceAttemptHTTP2: true}
	return &harness{t: t, mock: mock, creds: creds, http: &http.Client{Transport: transport}, ctx: ctx, cancel: cancel}
}

func (h *harness) post(path string, body any, headers map[string]string) (int, map[string]any) {
	h.t.Helper()
	data, _ := json.Marshal(body)
	request, _ := http.NewRequestWithContext(h.ctx, http.MethodPost, h.creds.PushURL+path, bytes.NewReader(data))
	for k, v := range headers {
		request.Header.Set(k, v)
	}
	response, err := h.http.Do(request)
	if err != nil {
		h.t.Fatalf("POST %s: %v", path, err)
	}
	defer response.Body.Close()
	if response.ProtoMajor != 2 {
		h.t.Fatalf("POST %s went over %s, not HTTP/2", path, response.Proto)
	}
	text, _ := io.ReadAll(response.Body)
	var decoded map[string]any
	_ = json.Unmarshal(text, &decoded)
	return response.StatusCode, decoded
}

func (h *harness) apns(token string, aps map[string]any, pushType, topic string) (int, map[string]any) {
	h.t.Helper()
	jwt, err := h.creds.APNSToken(h.ctx)
	if err != nil {
		h.t.Fatalf("apns token: %v", err)
	}
	return h.post("/3/device/"+token, map[string]any{"aps": aps}, map[string]string{
		"authorization": "bearer " + jwt, "apns-topic": topic, "apns-push-type": pushType, "apns-priority": "10",
	})
}

func (h *harness) alert(token, text string) (int, map[string]any) {
	return h.apns(token, map[string]any{"alert": text}, "alert", "com.example.app")
}

func (h *harness) fcm(message map[string]any) (int, map[string]any) {
	h.t.Helper()
	access, err := h.creds.FCMAccessToken(h.ctx)
	if err != nil {
		h.t.Fatalf("fcm access token: %v", err)
	}
	return h.post("/v1/projects/"+h.creds.ProjectID()+"/messages:send", map[string]any{"message": message}, map[string]string{
		"authorization": "Bearer " + access, "content-type": "application/json",
	})
}

func (h *harness) waitFor(filter pushmock.Filter, count int) []pushmock.Delivery {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(h.ctx, 5*time.Second)
	defer cancel()
	deliveries, err := h.mock.WaitFor(ctx, filter, count)
	if err != nil {
		h.t.Fatalf("wait: %v", err)
	}
	return deliveries
}

func TestAnAPNsAlertAndAnFCMMessageAreSentAndWaitedFor(t *testing.T) {
	h := setUp(t)
	cursor, err := h.mock.Cursor(h.ctx)
	if err != nil {
		t.Fatal(err)
	}
	after := fmt.Sprint(cursor)
	if status, body := h.apns(device, map[string]any{"alert": map[string]any{"title": "Hello", "body": "from Go"}}, "alert", "com.example.app"); status != 200 {
		t.Fatalf("APNs: %d %v", status, body)
	}
	status, body := h.fcm(map[string]any{"token": h.creds.FCMToken(), "notification": map[string]any{"title": "Hello"}})
	if status != 200 || !strings.HasPrefix(fmt.Sprint(body["name"]), "projects/"+h.creds.ProjectID()+"/messages/") {
		t.Fatalf("FCM: %d %v", status, body)
	}
	alerts := h.waitFor(pushmock.Filter{"service": "apns", "token": device, "after": after}, 1)
	if alerts[0].Outcome != "accepted" || alerts[0].Protocol != "HTTP/2" || !strings.Contains(string(alerts[0].Payload), `"title":"Hello"`) {
		t.Fatalf("the recorded alert: %+v", alerts[0])
	}
	messages := h.waitFor(pushmock.Filter{"service": "fcm", "after": after}, 1)
	if messages[0].DeviceToken != h.creds.FCMToken() {
		t.Fatalf("the recorded message: %+v", messages[0])
	}
}

func TestAndroidV2MessagesAreAcceptedAndToldApart(t *testing.T) {
	h := setUp(t)
	cursor, err := h.mock.Cursor(h.ctx)
	if err != nil {
		t.Fatal(err)
	}
	token := h.creds.FCMToken()
	remote := map[string]any{"token": token, "android_v2": map[string]any{"remote_notification": map[string]any{"notification": map[string]any{"title": "Goal", "body": "2-1"}}}}
	if status, body := h.fcm(remote); status != 200 {
		t.Fatalf("remote_notification: %d %v", status, body)
	}
	background := map[string]any{"token": token, "data": map[string]any{"sync": "inbox"}, "androidV2": map[string]any{"backgroundSync": map[string]any{}}}
	if status, body := h.fcm(background); status != 200 {
		t.Fatalf("backgroundSync: %d %v", status, body)
	}
	both := map[string]any{"token": token, "android": map[string]any{}, "android_v2": map[string]any{"background_sync": map[string]any{}}}
	if status, body := h.fcm(both); status != 400 || fmt.Sprint(body["error"].(map[string]any)["status"]) != "INVALID_ARGUMENT" {
		t.Fatalf("android beside android_v2: %d %v", status, body)
	}
	messages := h.waitFor(pushmock.Filter{"service": "fcm", "after": fmt.Sprint(cursor)}, 3)
	if messages[0].AndroidV2Kind() != "remote_notification" || messages[1].AndroidV2Kind() != "background_sync" || messages[2].Outcome != "rejected" {
		t.Fatalf("the recorded messages: %v", messages)
	}
	if !strings.HasSuffix(messages[0].String(), " android_v2:remote_notification") {
		t.Fatalf("String: %s", messages[0])
	}
}

func TestALiveActivityStartUpdateAndEndLandOnOneTimeline(t *testing.T) {
	h := setUp(t)
	now := time.Now().Unix()
	topic := "com.example.app.push-type.liveactivity"
	pushToStart := strings.Repeat("5a", 80)
	start := map[string]any{"event": "start", "timestamp": now, "content-state": map[string]any{"score": "0-0"}, "attributes-type": "MatchAttributes",
		"attributes": map[string]any{"home": "A", "away": "B"}, "alert": map[string]any{"title": "Kick-off", "body": "A v B"}, "input-push-token": 1}
	if status, body := h.apns(pushToStart, start, "liveactivity", topic); status != 200 {
		t.Fatalf("start: %d %v", status, body)
	}
	token := h.waitFor(pushmock.Filter{"token": pushToStart}, 1)[0].IssuedActivityToken
	if token == "" {
		t.Fatal("the start issued no activity token")
	}
	for i, event := range []string{"update", "end"} {
		if status, body := h.apns(token, map[string]any{"event": event, "timestamp": now + int64(i) + 1, "content-state": map[string]any{"score": "1-0"}}, "liveactivity", topic); status != 200 {
			t.Fatalf("%s: %d %v", event, status, body)
		}
	}
	h.waitFor(pushmock.Filter{"token": token}, 2)
	activity, err := h.mock.Activity(h.ctx, token)
	if err != nil {
		t.Fatal(err)
	}
	var events []string
	for _, entry := range activity.Timeline {
		events = append(events, entry.Event)
	}
	if strings.Join(events, ",") != "start,update,end" || activity.State != "ended" || string(activity.ContentState) != `{"score":"1-0"}` {
		t.Fatalf("the activity: %v %s %s", events, activity.State, activity.ContentState)
	}
}

func TestACount1FaultFiresOnce(t *testing.T) {
	h := setUp(t)
	err := h.mock.AddFault(h.ctx, pushmock.Fault{ID: "busy", Match: map[string]string{"service": "apns", "token": device}, Reject: &pushmock.Reject{Status: 429, Reason: "TooManyRequests"}, Count: 1})
	if err != nil {
		t.Fatal(err)
	}
	if status, body := h.alert(device, "one"); status != 429 || body["reason"] != "TooManyRequests" {
		t.Fatalf("first: %d %v", status, body)
	}
	if status, _ := h.alert(device, "two"); status != 200 {
		t.Fatalf("second: %d", status)
	}
	deliveries := h.waitFor(pushmock.Filter{"service": "apns"}, 2)
	if len(deliveries) != 2 || deliveries[0].Status != 429 || deliveries[1].Status != 200 {
		t.Fatalf("recorded: %v", deliveries)
	}
}

func TestAFaultSequenceAnswersEachStepInTurn(t *testing.T) {
	h := setUp(t)
	steps := []pushmock.FaultStep{{Reject: &pushmock.Reject{Status: 503, Reason: "ServiceUnavailable"}}, {Reject: &pushmock.Reject{Status: 429, Reason: "TooManyRequests"}}, {Accept: true}}
	if err := h.mock.AddFault(h.ctx, pushmock.Fault{ID: "retry", Match: map[string]string{"service": "apns", "token": device}, Sequence: steps}); err != nil {
		t.Fatal(err)
	}
	var statuses []int
	for n := 0; n < 4; n++ {
		status, _ := h.alert(device, fmt.Sprint(n))
		statuses = append(statuses, status)
	}
	if fmt.Sprint(statuses) != "[503 429 200 200]" {
		t.Fatalf("statuses: %v", statuses)
	}
}

func TestAnUnregisteredDeviceIsAnswered410And404Unregistered(t *testing.T) {
	h := setUp(t)
	if err := h.mock.Unregister(h.ctx, device, time.UnixMilli(1767225600000)); err != nil {
		t.Fatal(err)
	}
	if status, body := h.alert(device, "gone"); status != 410 || body["reason"] != "Unregistered" || body["timestamp"] != float64(1767225600000) {
		t.Fatalf("APNs: %d %v", status, body)
	}
	token := "Z28tZ29uZQ:APA91b" + strings.Repeat("Gone", 35)
	if err := h.mock.Unregister(h.ctx, token, time.Time{}); err != nil {
		t.Fatal(err)
	}
	status, body := h.fcm(map[string]any{"token": token, "data": map[string]any{"k": "v"}})
	if status != 404 || !strings.Contains(fmt.Sprint(body["error"]), "UNREGISTERED") {
		t.Fatalf("FCM: %d %v", status, body)
	}
}

func TestAResetClearsEverything(t *testing.T) {
	h := setUp(t)
	if err := h.mock.AddFault(h.ctx, pushmock.Fault{ID: "all", Match: map[string]string{"service": "apns"}, Reject: &pushmock.Reject{Status: 500, Reason: "InternalServerError"}}); err != nil {
		t.Fatal(err)
	}
	h.alert(device, "x")
	if err := h.mock.Reset(h.ctx); err != nil {
		t.Fatal(err)
	}
	deliveries, _ := h.mock.Deliveries(h.ctx, nil)
	cursor, _ := h.mock.Cursor(h.ctx)
	if len(deliveries) != 0 || cursor != 0 {
		t.Fatalf("after the reset: %d deliveries, cursor %d", len(deliveries), cursor)
	}
	if status, _ := h.alert(device, "after the reset"); status != 200 {
		t.Fatalf("the fault survived the reset: %d", status)
	}
}

func TestAWaitThatTimesOutSaysWhatArrived(t *testing.T) {
	h := setUp(t)
	h.alert(device, "not what the test waits for")
	ctx, cancel := context.WithTimeout(h.ctx, 600*time.Millisecond)
	defer cancel()
	began := time.Now()
	_, err := h.mock.WaitFor(ctx, pushmock.Filter{"service": "fcm"}, 1)
	took := time.Since(began)
	var timeout *pushmock.TimeoutError
	if !errors.As(err, &timeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want a *TimeoutError wrapping context.DeadlineExceeded, got %v", err)
	}
	if !strings.Contains(err.Error(), "service=fcm") || !strings.Contains(err.Error(), "0 matched") || !strings.Contains(err.Error(), "apns 200 accepted "+device) {
		t.Fatalf("the message: %v", err)
	}
	if took < 300*time.Millisecond || took > 5*time.Second {
		t.Fatalf("the wait took %s", took)
	}
}

func TestAServerThatDoesNotAnswerIsAnErrorNotASkip(t *testing.T) {
	_, err := pushmock.New("http://127.0.0.1:9").Deliveries(context.Background(), nil)
	var unreachable *pushmock.UnreachableError
	if !errors.As(err, &unreachable) || !strings.Contains(err.Error(), "not answering") {
		t.Fatalf("want an *UnreachableError, got %v", err)
	}
}

// The same names in every helper (docs/testing-from-any-language.md), in this language's casing.
func TestTheCredentialsCarryTheSharedNames(t *testing.T) {
	h := setUp(t)
	c := h.creds
	if !strings.HasPrefix(c.PushURL, "https://") || !strings.HasPrefix(c.CAPEM, "-----BEGIN CERTIFICATE-----") {
		t.Fatalf("PushURL %q, CAPEM %.30q", c.PushURL, c.CAPEM)
	}
	if ca, _ := os.ReadFile(c.CAPath); string(ca) != c.CAPEM {
		t.Fatalf("CAPath %s does not hold CAPEM", c.CAPath)
	}
	if c.APNSKeyID != "PUSHMOCK01" || c.APNSTeamID != "PMTEAM0001" || c.APNSBundleID != "com.example.app" {
		t.Fatalf("APNSKeyID %q, APNSTeamID %q, APNSBundleID %q", c.APNSKeyID, c.APNSTeamID, c.APNSBundleID)
	}
	if key, _ := os.ReadFile(c.APNSKeyPath); !strings.HasPrefix(string(key), "-----BEGIN PRIVATE KEY-----") {
		t.Fatalf("APNSKeyPath %s", c.APNSKeyPath)
	}
	if c.ProjectID() != "pushmock-demo" {
		t.Fatalf("ProjectID %q", c.ProjectID())
	}
	users, _ := os.ReadFile(c.AuthorizedUserPath)
	if !strings.Contains(string(users), `"authorized_user"`) {
		t.Fatalf("AuthorizedUserPath %s: %s", c.AuthorizedUserPath, users)
	}
	if len(c.SampleDeviceToken) != 64 || len(c.SampleFID) != 22 {
		t.Fatalf("SampleDeviceToken %q, SampleFID %q", c.SampleDeviceToken, c.SampleFID)
	}
}

func TestAWebPushToAMintedSubscriptionIsRecordedAndAnExpiredOneAnswers410(t *testing.T) {
	h := setUp(t)
	subscription, err := h.mock.CreateWebPushSubscription(h.ctx, "mozilla", "")
	if err != nil || !strings.HasPrefix(subscription.Endpoint, h.creds.PushURL+"/wpush/v1/") || subscription.Keys.P256dh == "" {
		t.Fatalf("%+v %v", subscription, err)
	}
	// A push without a payload: no encryption needed, and no VAPID for a subscription made without a key.
	push := func() int {
		request, _ := http.NewRequestWithContext(h.ctx, http.MethodPost, subscription.Endpoint, nil)
		request.Header.Set("ttl", "60")
		response, err := h.http.Do(request)
		if err != nil {
			t.Fatalf("push: %v", err)
		}
		response.Body.Close()
		return response.StatusCode
	}
	if status := push(); status != 201 {
		t.Fatalf("push: %d", status)
	}
	if delivery := h.waitFor(pushmock.Query{Service: "webpush", Token: subscription.ID}.Filter(), 1)[0]; delivery.Outcome != "accepted" {
		t.Fatalf("recorded %+v", delivery)
	}
	if err := h.mock.ExpireWebPushSubscription(h.ctx, subscription.ID); err != nil {
		t.Fatal(err)
	}
	if status := push(); status != 410 {
		t.Fatalf("after expire: %d", status)
	}
}
