package funcurl_test

import (
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"reflect"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/mindvault/mcp-endpoint/internal/mcp"
	"github.com/mindvault/mcp-endpoint/internal/server/funcurl"
)

func event(method, rawPath string) events.LambdaFunctionURLRequest {
	ev := events.LambdaFunctionURLRequest{RawPath: rawPath}
	ev.RequestContext.HTTP.Method = method
	ev.RequestContext.HTTP.SourceIP = "203.0.113.9"
	ev.RequestContext.DomainName = "abc.lambda-url.us-east-1.on.aws"
	return ev
}

// The event becomes the request it describes: method, path, query, headers (sent lower-cased,
// read as usual), host, client address and body (base64 decoded when flagged); cookies are
// not passed on.
func TestRequest(t *testing.T) {
	type want struct {
		method, uri, host, remote, body string
		header                          map[string]string // "" = absent
	}
	cases := []struct {
		name  string
		event func() events.LambdaFunctionURLRequest
		want  want
		fails bool
	}{
		{name: "a JSON POST", event: func() events.LambdaFunctionURLRequest {
			ev := event("POST", "/mcp")
			ev.Headers = map[string]string{"content-type": "application/json", "mcp-protocol-version": "2025-11-25", "host": "mcp.example"}
			ev.Body = `{"jsonrpc":"2.0"}`
			return ev
		}, want: want{method: "POST", uri: "/mcp", host: "mcp.example", remote: "203.0.113.9", body: `{"jsonrpc":"2.0"}`,
			header: map[string]string{"Content-Type": "application/json", "MCP-Protocol-Version": "2025-11-25"}}},
		{name: "a base64 body", event: func() events.LambdaFunctionURLRequest {
			ev := event("POST", "/mcp")
			ev.Body, ev.IsBase64Encoded = base64.StdEncoding.EncodeToString([]byte("\xff\x00bin")), true
			return ev
		}, want: want{method: "POST", uri: "/mcp", host: "abc.lambda-url.us-east-1.on.aws", remote: "203.0.113.9", body: "\xff\x00bin"}},
		{name: "a body that only looks base64", event: func() events.LambdaFunctionURLRequest {
			ev := event("POST", "/mcp")
			ev.Body = "aGVsbG8="
			return ev
		}, want: want{method: "POST", uri: "/mcp", host: "abc.lambda-url.us-east-1.on.aws", remote: "203.0.113.9", body: "aGVsbG8="}},
		{name: "query and cookies", event: func() events.LambdaFunctionURLRequest {
			ev := event("GET", "/.well-known/oauth-protected-resource/mcp")
			ev.RawQueryString = "a=1&b=two%20words"
			ev.Cookies = []string{"session=abc"}
			return ev
		}, want: want{method: "GET", uri: "/.well-known/oauth-protected-resource/mcp?a=1&b=two%20words", host: "abc.lambda-url.us-east-1.on.aws",
			remote: "203.0.113.9", header: map[string]string{"Cookie": ""}}},
		{name: "path from the request context", event: func() events.LambdaFunctionURLRequest {
			ev := event("DELETE", "")
			ev.RequestContext.HTTP.Path = "/mcp"
			return ev
		}, want: want{method: "DELETE", uri: "/mcp", host: "abc.lambda-url.us-east-1.on.aws", remote: "203.0.113.9"}},
		{name: "no path, no method", event: func() events.LambdaFunctionURLRequest {
			return event("", "")
		}, want: want{method: "GET", uri: "/", host: "abc.lambda-url.us-east-1.on.aws", remote: "203.0.113.9"}},
		{name: "bad base64", event: func() events.LambdaFunctionURLRequest {
			ev := event("POST", "/mcp")
			ev.Body, ev.IsBase64Encoded = "not base64!", true
			return ev
		}, fails: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, err := funcurl.Request(context.Background(), tc.event())
			if tc.fails {
				if err == nil {
					t.Fatal("an undecodable event became a request")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(req.Body)
			got := want{method: req.Method, uri: req.RequestURI, host: req.Host, remote: req.RemoteAddr, body: string(body)}
			if got.method != tc.want.method || got.uri != tc.want.uri || got.host != tc.want.host || got.remote != tc.want.remote || got.body != tc.want.body {
				t.Fatalf("request = %+v, want %+v", got, tc.want)
			}
			if req.URL.RequestURI() != tc.want.uri || req.ContentLength != int64(len(tc.want.body)) {
				t.Fatalf("URL %s, ContentLength %d", req.URL.RequestURI(), req.ContentLength)
			}
			for k, v := range tc.want.header {
				if g := req.Header.Get(k); g != v {
					t.Errorf("header %s = %q, want %q", k, g, v)
				}
			}
		})
	}
}

// Handler serves the event through the handler and returns what it wrote: status, headers
// lower-cased and joined, the body as text or base64 when it is not UTF-8; the invocation's
// request id becomes the request's correlation id.
func TestHandler(t *testing.T) {
	cases := []struct {
		name  string
		serve http.HandlerFunc
		event events.LambdaFunctionURLRequest
		want  events.LambdaFunctionURLResponse
	}{
		{name: "a JSON answer", serve: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Add("Vary", "Origin")
			w.Header().Add("Vary", "Accept")
			w.Header().Set("Mcp-Request-Id", mcp.RequestID(r.Context()))
			w.WriteHeader(http.StatusAccepted)
			_, _ = io.WriteString(w, `{"ok":true}`)
		}, event: event("POST", "/mcp"), want: events.LambdaFunctionURLResponse{StatusCode: 202,
			Headers: map[string]string{"content-type": "application/json", "vary": "Origin, Accept", "mcp-request-id": "aws-req-1"}, Body: `{"ok":true}`}},
		{name: "no WriteHeader is 200", serve: func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.WriteString(w, "a")
			_, _ = io.WriteString(w, "b")
		}, event: event("GET", "/"), want: events.LambdaFunctionURLResponse{StatusCode: 200, Headers: map[string]string{}, Body: "ab"}},
		{name: "nothing written is 200 and empty", serve: func(http.ResponseWriter, *http.Request) {},
			event: event("GET", "/"), want: events.LambdaFunctionURLResponse{StatusCode: 200, Headers: map[string]string{}}},
		{name: "the first status wins", serve: func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusMethodNotAllowed)
			w.WriteHeader(http.StatusOK)
		}, event: event("GET", "/mcp"), want: events.LambdaFunctionURLResponse{StatusCode: 405, Headers: map[string]string{}}},
		{name: "binary is base64", serve: func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte{0xff, 0xfe, 0x00})
		}, event: event("GET", "/"), want: events.LambdaFunctionURLResponse{StatusCode: 200, Headers: map[string]string{},
			Body: base64.StdEncoding.EncodeToString([]byte{0xff, 0xfe, 0x00}), IsBase64Encoded: true}},
		{name: "an undecodable event is a parse error", serve: func(http.ResponseWriter, *http.Request) { t.Error("the handler ran") },
			event: func() events.LambdaFunctionURLRequest {
				ev := event("POST", "/mcp")
				ev.Body, ev.IsBase64Encoded = "%%%", true
				return ev
			}(), want: events.LambdaFunctionURLResponse{StatusCode: 400, Headers: map[string]string{"content-type": "application/json"},
				Body: `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: the event body could not be decoded"}}`}},
	}
	ctx := lambdacontext.NewContext(context.Background(), &lambdacontext.LambdaContext{AwsRequestID: "aws-req-1"})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := funcurl.Handler(tc.serve)(ctx, tc.event)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("response = %#v\nwant %#v", got, tc.want)
			}
		})
	}
}

// Outside Lambda (no invocation context) no correlation id is attached: the protocol layer
// makes its own.
func TestHandlerWithoutLambdaContext(t *testing.T) {
	var id string
	_, err := funcurl.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { id = mcp.RequestID(r.Context()) }))(context.Background(), event("POST", "/mcp"))
	if err != nil || id != "" {
		t.Fatalf("id = %q, %v", id, err)
	}
}
