// Package funcurl adapts an http.Handler to buffered Lambda Function URL invocations (the JSON
// shape of API Gateway HTTP API payload 2.0, so both front doors work). aws-lambda-go's lambdaurl
// supports only RESPONSE_STREAM mode, and the endpoint always answers one small JSON document, so a
// buffered adapter keeps the deployment simple.
package funcurl

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/mindvault/mcp-endpoint/internal/mcp"
)

// Handler returns a Lambda handler that serves each Function URL event through h.
func Handler(h http.Handler) func(context.Context, events.LambdaFunctionURLRequest) (events.LambdaFunctionURLResponse, error) {
	return func(ctx context.Context, ev events.LambdaFunctionURLRequest) (events.LambdaFunctionURLResponse, error) {
		if lc, ok := lambdacontext.FromContext(ctx); ok && lc.AwsRequestID != "" {
			ctx = mcp.WithRequestID(ctx, lc.AwsRequestID)
		}
		req, err := Request(ctx, ev)
		if err != nil {
			return events.LambdaFunctionURLResponse{
				StatusCode: http.StatusBadRequest,
				Headers:    map[string]string{"content-type": "application/json"},
				Body:       `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: the event body could not be decoded"}}`,
			}, nil
		}
		w := &recorder{header: http.Header{}}
		h.ServeHTTP(w, req)
		return w.response(), nil
	}
}

// Request builds the http.Request an event describes: lower-cased headers as sent,
// base64 bodies decoded, cookies ignored (the endpoint uses none).
func Request(ctx context.Context, ev events.LambdaFunctionURLRequest) (*http.Request, error) {
	body := []byte(ev.Body)
	if ev.IsBase64Encoded {
		dec, err := base64.StdEncoding.DecodeString(ev.Body)
		if err != nil {
			return nil, fmt.Errorf("base64 body: %w", err)
		}
		body = dec
	}
	u := &url.URL{Path: cmp.Or(ev.RawPath, ev.RequestContext.HTTP.Path, "/"), RawQuery: ev.RawQueryString}
	method := cmp.Or(ev.RequestContext.HTTP.Method, http.MethodGet)
	req, err := http.NewRequestWithContext(ctx, method, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	for k, v := range ev.Headers {
		req.Header.Set(k, v)
	}
	req.Host = cmp.Or(ev.Headers["host"], ev.RequestContext.DomainName)
	req.RemoteAddr = ev.RequestContext.HTTP.SourceIP
	req.ContentLength = int64(len(body))
	req.RequestURI = u.RequestURI()
	return req, nil
}

// recorder is a minimal buffered http.ResponseWriter.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func (r *recorder) Write(p []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.body.Write(p)
}

func (r *recorder) response() events.LambdaFunctionURLResponse {
	headers := make(map[string]string, len(r.header))
	for k, v := range r.header {
		headers[strings.ToLower(k)] = strings.Join(v, ", ")
	}
	resp := events.LambdaFunctionURLResponse{StatusCode: cmp.Or(r.status, http.StatusOK), Headers: headers, Body: r.body.String()}
	if !utf8.Valid(r.body.Bytes()) {
		resp.Body = base64.StdEncoding.EncodeToString(r.body.Bytes())
		resp.IsBase64Encoded = true
	}
	return resp
}
