package pushmock_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	pushmock "github.com/pushmock/pushmock/clients/go"
)

// A Query is a typed Filter: zero fields are left out.
func ExampleQuery() {
	query := pushmock.Query{Service: "apns", Outcome: "rejected", Reason: "BadDeviceToken", After: 42}
	fmt.Println(query.Filter())
	// Output: map[after:42 outcome:rejected reason:BadDeviceToken service:apns]
}

// The server at PUSHMOCK_URL, or one started for the example (PUSHMOCK_BIN or pushmock on PATH);
// a push sent to it as the code under test would send it, trusting the development CA; and the
// delivery waited for.
func ExampleClient_WaitFor() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	mock := pushmock.New(os.Getenv("PUSHMOCK_URL"), pushmock.WithToken(os.Getenv("PUSHMOCK_TOKEN")))
	defer mock.Close()
	if os.Getenv("PUSHMOCK_URL") == "" {
		server, err := pushmock.StartServer()
		if err != nil {
			fmt.Println(err)
			return
		}
		defer server.Stop()
		mock = server.Client
	}
	after, _ := mock.Cursor(ctx)
	credentials, err := mock.Credentials(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM([]byte(credentials.CAPEM))
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}, ForceAttemptHTTP2: true}}
	token, _ := credentials.APNSToken(ctx)
	request, _ := http.NewRequestWithContext(ctx, http.MethodPost, credentials.PushURL+"/3/device/"+strings.Repeat("ef", 32), strings.NewReader(`{"aps":{"alert":"from the example"}}`))
	request.Header.Set("authorization", "bearer "+token)
	request.Header.Set("apns-topic", "com.example.app")
	response, err := client.Do(request)
	if err != nil {
		fmt.Println(err)
		return
	}
	response.Body.Close()
	deliveries, err := mock.WaitFor(ctx, pushmock.Query{Service: "apns", Token: strings.Repeat("ef", 32), After: after}, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(response.StatusCode, deliveries[0].Outcome)
	// Output: 200 accepted
}
