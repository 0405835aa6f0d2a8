// Package transport is the one HTTP path every downstream client uses: each call gets its service's
// timeout capped by the invocation deadline, reads are retried per
// docs/errors.md "Retries and deadlines", the status, headers and latency the SDK clients would
// hide are recorded, and every failure becomes an *errmap.Error carrying the facts errmap maps. A
// paid request or a write is never retried, never follows a redirect and goes out on a connection
// of its own (writeClient), so it leaves exactly once.
package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/obs"
)

// Policy is the read retry policy.
type Policy struct {
	Attempts  int           // attempts in all, ≥ 1
	BaseDelay time.Duration // full-jitter base
	MaxDelay  time.Duration // cap of one backoff, and the longest Retry-After honoured
}

// Margin is kept free before the invocation deadline so a tool can still answer in time.
const Margin = 750 * time.Millisecond

// MaxBody bounds what is read of any response body.
const MaxBody = 8 << 20

// Service is one downstream: its base URL, failure source, timeout and retry policy.
type Service struct {
	Source     errmap.Source
	BaseURL    string
	Timeout    time.Duration
	TimeoutVar string
	Retry      Policy
	HTTP       *http.Client
	// UserAgent identifies the endpoint to downstream operators.
	UserAgent string
	// ReadError reads this service's own error answers (its body format, its codes) into
	// classified facts; StatusError applies it. Without one, errmap reads the body generically.
	ReadError func(errmap.Facts) errmap.Facts

	writeOnce sync.Once
	write     *http.Client // see writeClient
}

// NewHTTPClient is the shared client for reads: connections reused across warm invocations, no
// client-wide timeout (each attempt has its own), no redirects to other hosts.
func NewHTTPClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 16
	tr.ResponseHeaderTimeout = 0
	return &http.Client{
		Transport: tr,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 3 || req.URL.Host != via[0].URL.Host {
				return http.ErrUseLastResponse
			}
			return nil
		},
	}
}

// writeClient is the client for requests that are not reads (paid requests, API and sponsor
// writes, sendTransaction). It derives from s.HTTP (same dialer, proxy and TLS settings) with
// two differences that make such a request leave at most once:
//
//   - Keep-alives are off, so every request gets a fresh connection. net/http's Transport
//     silently replays a request it deems "replayable" (a GET or HEAD without body, or ANY
//     method carrying an Idempotency-Key or X-Idempotency-Key header) when a reused pooled
//     connection breaks after the request was written; it never replays one sent on a fresh
//     connection. Request.Close alone is not enough: it closes the connection after the
//     request but does not stop the Transport from picking an idle pooled one for it.
//     HTTP/2 is off for the same reason (one stream, one connection, nothing to replay).
//   - Redirects are never followed: following a 307/308 resends the method, body and
//     headers (a payment signature included), and a 301/302/303 turns into another request
//     the caller never chose. The 3xx is returned for the caller to report as an outcome.
func (s *Service) writeClient() *http.Client {
	s.writeOnce.Do(func() {
		tr, ok := s.HTTP.Transport.(*http.Transport) // NewHTTPClient's
		if !ok {
			tr = http.DefaultTransport.(*http.Transport)
		}
		tr = tr.Clone()
		tr.DisableKeepAlives = true
		tr.MaxIdleConnsPerHost = -1
		tr.ForceAttemptHTTP2 = false
		tr.Protocols = new(http.Protocols)
		tr.Protocols.SetHTTP1(true)
		tr.ResponseHeaderTimeout = 0
		s.write = &http.Client{
			Transport: tr,
			CheckRedirect: func(*http.Request, []*http.Request) error {
				return http.ErrUseLastResponse
			},
		}
	})
	return s.write
}

// Request is one logical call.
type Request struct {
	Method string
	Path   string // appended to BaseURL, with its query
	Body   []byte
	Header http.Header
	// Route names the call in logs and metrics ("GET /resources/{id}/meta"), without ids.
	Route string
	// Read marks a call that is safe to retry automatically. A paid request or a write is
	// sent with Read false: whoever sends it decides what an ambiguous outcome means.
	Read bool
}

// Response is a completed HTTP exchange (any status).
type Response struct {
	Status   int
	Header   http.Header
	Body     []byte
	Attempts int
	// Write is set for a request sent with Read false: a failure read from it means the tool's own
	// operation reached the service. A preparatory non-read request (the unpaid x402 probe) clears it.
	Write bool
	// nonRead marks the answer to a request that was not a read (and so not redirected).
	nonRead bool
}

// OK reports a 2xx status.
func (r *Response) OK() bool { return r.Status >= 200 && r.Status < 300 }

// Do sends req, retrying reads. An HTTP response of any status is returned as a Response;
// only a transport failure (refused, reset, timed out, deadline spent) is an error.
func (s *Service) Do(ctx context.Context, req Request) (*Response, error) {
	start := time.Now()
	attempts := 1
	if req.Read && s.Retry.Attempts > 1 {
		attempts = s.Retry.Attempts
	}
	call := obs.Call{Service: string(s.Source), Route: req.Route}
	defer func() {
		call.Latency = time.Since(start)
		obs.Record(ctx, call)
	}()
	for attempt := 1; ; attempt++ {
		call.Attempts = attempt
		resp, err := s.once(ctx, req)
		if err == nil {
			call.Status, call.Outcome = resp.Status, "ok"
			if !resp.OK() {
				call.Outcome = "status"
			}
			resp.Attempts, resp.Write = attempt, !req.Read
			if attempt >= attempts || !slices.Contains([]int{408, 425, 429, 500, 502, 503, 504}, resp.Status) {
				return resp, nil
			}
			delay, ok := s.backoff(attempt, resp.Header)
			if !ok || !Sleep(ctx, delay) {
				return resp, nil
			}
			continue
		}
		call.Outcome = "network"
		if errmapTransport(err) == errmap.TransportTimeout {
			call.Outcome = "timeout"
		}
		delay, _ := s.backoff(attempt, nil)
		if attempt >= attempts || ctx.Err() != nil || !Sleep(ctx, delay) {
			return nil, s.transportError(err, !req.Read)
		}
	}
}

// once sends one attempt within min(service timeout, time left before the deadline margin).
func (s *Service) once(ctx context.Context, req Request) (*Response, error) {
	timeout := s.Timeout
	if dl, ok := ctx.Deadline(); ok {
		left := time.Until(dl) - Margin
		if left <= 0 {
			return nil, deadlineSpent
		}
		if timeout <= 0 || left < timeout {
			timeout = left
		}
	}
	actx := ctx
	if timeout > 0 {
		var cancel context.CancelFunc
		actx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	var body io.Reader
	if req.Body != nil {
		body = bytes.NewReader(req.Body)
	}
	hreq, err := http.NewRequestWithContext(actx, req.Method, s.BaseURL+req.Path, body)
	if err != nil {
		return nil, err
	}
	// A paid or writing request goes out on a fresh connection that is closed afterwards and
	// never follows a redirect (writeClient says why).
	hreq.Close = !req.Read
	client := s.HTTP
	if !req.Read {
		client = s.writeClient()
	}
	for k, vs := range req.Header {
		for _, v := range vs {
			hreq.Header.Add(k, v)
		}
	}
	if req.Body != nil && hreq.Header.Get("Content-Type") == "" {
		hreq.Header.Set("Content-Type", "application/json")
	}
	if hreq.Header.Get("Accept") == "" {
		hreq.Header.Set("Accept", "application/json")
	}
	if s.UserAgent != "" {
		hreq.Header.Set("User-Agent", s.UserAgent)
	}
	hresp, err := client.Do(hreq)
	if err != nil {
		return nil, err
	}
	defer hresp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(hresp.Body, MaxBody))
	if err != nil {
		return nil, err
	}
	return &Response{Status: hresp.StatusCode, Header: hresp.Header, Body: data, nonRead: !req.Read}, nil
}

// deadlineSpent means the invocation has no time left for another attempt.
var deadlineSpent = fmt.Errorf("invocation deadline reached: %w", context.DeadlineExceeded)

// backoff is the delay before attempt+1: Retry-After when the policy allows waiting that long,
// full jitter otherwise; ok is false when the server asks for longer, so the failure surfaces.
func (s *Service) backoff(attempt int, h http.Header) (time.Duration, bool) {
	if secs, err := strconv.Atoi(strings.TrimSpace(h.Get("Retry-After"))); err == nil && secs >= 0 {
		d := time.Duration(secs) * time.Second
		if d > s.Retry.MaxDelay {
			return 0, false
		}
		return d, true
	}

	ceil := s.Retry.BaseDelay << (attempt - 1)
	if ceil > s.Retry.MaxDelay || ceil <= 0 {
		ceil = s.Retry.MaxDelay
	}
	if ceil <= 0 {
		return 0, true
	}
	return rand.N(ceil + 1), true
}

// Sleep waits d unless the context ends first or waiting would cross the deadline margin,
// so a loop that sleeps between attempts always leaves time to answer.
func Sleep(ctx context.Context, d time.Duration) bool {
	if dl, ok := ctx.Deadline(); ok && time.Until(dl)-Margin <= d {
		return false
	}
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

func errmapTransport(err error) errmap.Transport {
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return errmap.TransportTimeout
	}
	return errmap.TransportNetwork
}

// NotSent reports a transport failure that proves the request never left: the deadline was spent
// before sending, or no connection could be opened.
func NotSent(err error) bool {
	if errors.Is(err, deadlineSpent) {
		return true
	}
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// MayHaveActed reports a failed request that is not a read after which the service may have acted
// on it: a transport failure once the request may have left, a 5xx, a redirect (never followed:
// the server may have acted before answering it), or a status in also.
func MayHaveActed(err error, also ...int) bool {
	f, _ := errmap.FactsOf(err)
	if f.Transport != errmap.TransportNone {
		return !NotSent(err)
	}
	return f.Status >= 500 || (f.Status >= 300 && f.Status < 400) || slices.Contains(also, f.Status)
}

// transportError maps a failure without a response. Only a write or payment (write) that may
// have left starts the tool's own operation.
func (s *Service) transportError(err error, write bool) *errmap.Error {
	kind := errmapTransport(err)
	started := write && !NotSent(err)
	detail := "connection failed"
	switch {
	case errors.Is(err, deadlineSpent): // a timeout, never a network failure
		detail = "the invocation deadline was reached before the request could be sent"
	case kind == errmap.TransportTimeout:
		detail = "request timed out"
	case NotSent(err):
		detail = "connection refused or unreachable"
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		detail = "connection closed before a response"
	}
	return &errmap.Error{Err: err, Facts: errmap.Facts{
		Source:           s.Source,
		Transport:        kind,
		TimeoutVar:       s.TimeoutVar,
		Detail:           detail,
		ExecutionStarted: started,
	}}
}

// StatusError is the failure of a completed exchange with a non-2xx status, its body read by
// the service's ReadError. A 3xx to a request that is not a read says the redirect was not
// followed; whether the request took effect is for the caller to say.
func (s *Service) StatusError(resp *Response) *errmap.Error {
	f := s.facts(resp)
	if resp.nonRead && resp.Status >= 300 && resp.Status < 400 {
		// The body of a redirect says nothing about the request; the detail must say why it
		// was not followed.
		f.Detail = "the service answered a redirect (HTTP " + strconv.Itoa(resp.Status) + ") that was not followed because the request is not safe to repeat"
		f.ExecutionStarted = true
		return &errmap.Error{Err: fmt.Errorf("%s: HTTP %d redirect not followed", s.Source, resp.Status), Facts: f}
	}
	f.Body = resp.Body
	if s.ReadError != nil {
		f = s.ReadError(f)
	}
	return &errmap.Error{Err: fmt.Errorf("%s: HTTP %d", s.Source, resp.Status), Facts: f}
}

// Malformed is a 2xx answer whose body is not what the route promises.
func (s *Service) Malformed(resp *Response, what string) *errmap.Error {
	f := s.facts(resp)
	f.Code, f.Category, f.Detail = errmap.CodeMalformedResponse, errmap.CategoryServer, "unexpected response shape: "+what
	return &errmap.Error{Err: fmt.Errorf("%s: malformed response: %s", s.Source, what), Facts: f}
}

func (s *Service) facts(resp *Response) errmap.Facts {
	return errmap.Facts{Source: s.Source, Status: resp.Status, Header: resp.Header, TimeoutVar: s.TimeoutVar, ExecutionStarted: resp.Write}
}

// The JSON clients (the MindVault API, Horizon, Stellar RPC) read answers the same way: a
// 2xx body must be the one JSON value its route promises. json.Unmarshal alone would take
// null, or an array where an object belongs, as a zero value; a client must report such an
// answer as MALFORMED_RESPONSE instead of passing the zero value on as the service's word.

// DecodeObject decodes b, which must be one JSON object, into v.
func DecodeObject(b []byte, v any) error { return decodeJSON(b, '{', "not a JSON object", v) }

// DecodeArray decodes b, which must be one JSON array, into v.
func DecodeArray(b []byte, v any) error { return decodeJSON(b, '[', "not a JSON array", v) }

func decodeJSON(b []byte, open byte, wrong string, v any) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != open {
		return errors.New(wrong)
	}
	return json.Unmarshal(b, v)
}

// Get is a GET of path: a read, retried per the service's policy. route names it in logs and
// metrics.
func Get(path, route string) Request {
	return Request{Method: http.MethodGet, Path: path, Route: route, Read: true}
}

// Fetch sends req and returns its answer when the status is 2xx; any other status is the
// service's StatusError.
func (s *Service) Fetch(ctx context.Context, req Request) (*Response, error) {
	resp, err := s.Do(ctx, req)
	if err != nil {
		return nil, err
	}
	if !resp.OK() {
		return nil, s.StatusError(resp)
	}
	return resp, nil
}

// Object fetches req and decodes its answer, one JSON object, into a T that valid accepts (nil
// accepts any); any other 2xx answer is MALFORMED_RESPONSE.
func Object[T any](ctx context.Context, s *Service, req Request, valid func(*T) bool, wrong string) (*T, error) {
	resp, err := s.Fetch(ctx, req)
	if err != nil {
		return nil, err
	}
	return DecodeAnswer(s, resp, valid, wrong)
}

// DecodeAnswer decodes a 2xx answer, one JSON object, into a T that valid accepts (valid nil
// accepts any); any other answer is MALFORMED_RESPONSE, saying what is wrong with it.
func DecodeAnswer[T any](s *Service, resp *Response, valid func(*T) bool, wrong string) (*T, error) {
	v := new(T)
	if DecodeObject(resp.Body, v) != nil || (valid != nil && !valid(v)) {
		return nil, s.Malformed(resp, wrong)
	}
	return v, nil
}
