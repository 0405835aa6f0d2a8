package errmap

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"
)

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

type panicky struct{}

func (*panicky) Error() string { panic("boom") }

func TestFromError(t *testing.T) {
	call := Call{Guides: testGuides, Operation: "Browse failed", Tool: "mindvault_browse", Source: SourceAPI, Secrets: []string{"call-secret-123"}}
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	cancelledCall := call
	cancelledCall.Cancelled = true
	clientErr := &Error{Facts: Facts{Guides: testGuides, Source: SourceHorizon, Operation: "Balance failed", Status: 503, Body: []byte(`{"title":"Service Unavailable","type":"x"}`)}}
	cases := []struct {
		name   string
		err    error
		call   Call
		code   string
		src    Source
		op     string
		detail string
	}{
		{"*Error", clientErr, call, CodeServerError, SourceHorizon, "Balance failed", "Service Unavailable"},
		{"wrapped *Error", fmt.Errorf("wallet info: %w", clientErr), call, CodeServerError, SourceHorizon, "Balance failed", "Service Unavailable"},
		{"*Error gaps filled", &Error{Facts: Facts{Guides: testGuides, Status: 404}}, call, CodeNotFound, SourceAPI, "Browse failed", "no response body"},
		{"*Error wrapping a deadline", &Error{Facts: Facts{Guides: testGuides, Source: SourceRPC}, Err: context.DeadlineExceeded}, call, CodeTimeout, SourceRPC, "Browse failed", "request timed out"},
		{"*Error wrapping a refused dial", &Error{Facts: Facts{Guides: testGuides, Source: SourceSponsor, Operation: "Wallet setup failed"}, Err: refused}, call, CodeNetworkError, SourceSponsor, "Wallet setup failed", "dial tcp: connect: connection refused"},
		{"*Error facts keep their detail", &Error{Facts: Facts{Guides: testGuides, Source: SourceRegistry, Code: CodeNotFound, UpstreamDetail: "NotFound (Error(Contract, #2))", Upstream: Upstream{ContractError: 2, ContractErrorName: "NotFound"}}, Err: errors.New("HostError: Error(Contract, #2) data:[secret-arg]")}, call, CodeNotFound, SourceRegistry, "Browse failed", "NotFound (Error(Contract, #2))"},
		{"deadline", context.DeadlineExceeded, call, CodeTimeout, SourceAPI, "Browse failed", "request timed out"},
		{"wrapped deadline", fmt.Errorf("GET /resources: %w", context.DeadlineExceeded), call, CodeTimeout, SourceAPI, "Browse failed", "GET /resources: context deadline exceeded"},
		// The caller going away is CANCELLED, never a TIMEOUT or a broken connection.
		{"cancelled", context.Canceled, call, CodeCancelled, SourceAPI, "Browse failed", "request cancelled by the caller"},
		{"wrapped cancel", &url.Error{Op: "Get", URL: "https://api.example/resources", Err: context.Canceled}, call, CodeCancelled, SourceAPI, "Browse failed", "request cancelled by the caller"},
		{"cancel under a deadline is a timeout", fmt.Errorf("%w: %w", context.Canceled, context.DeadlineExceeded), call, CodeTimeout, SourceAPI, "Browse failed", "context canceled: context deadline exceeded"},
		{"*Error a transport saw as network", &Error{Facts: Facts{Guides: testGuides, Source: SourceAPI, Transport: TransportNetwork, Detail: "connection failed"}, Err: &url.Error{Op: "Get", URL: "u", Err: context.Canceled}}, call, CodeCancelled, SourceAPI, "Browse failed", "request cancelled by the caller"},
		{"*Error a classifier saw as timeout", &Error{Facts: Facts{Guides: testGuides, Source: SourceCredentials, Transport: TransportTimeout}, Err: fmt.Errorf("send: %w", context.Canceled)}, call, CodeCancelled, SourceCredentials, "Browse failed", "request cancelled by the caller"},
		{"call cancelled: a poll that gave up", &Error{Facts: Facts{Guides: testGuides, Source: SourceRPC, Transport: TransportTimeout, Detail: "confirmation did not arrive"}, Err: errors.New("gave up")}, cancelledCall, CodeCancelled, SourceRPC, "Browse failed", "confirmation did not arrive"},
		{"call cancelled: a plain error", errors.New("boom"), cancelledCall, CodeCancelled, SourceAPI, "Browse failed", "boom"},
		{"call cancelled: a downstream answer stays", &Error{Facts: Facts{Guides: testGuides, Source: SourceAPI, Status: 402}}, cancelledCall, CodePaymentRequired, SourceAPI, "Browse failed", "no response body"},
		{"call not cancelled: a poll that gave up", &Error{Facts: Facts{Guides: testGuides, Source: SourceRPC, Transport: TransportTimeout, Detail: "confirmation did not arrive"}, Err: errors.New("gave up")}, call, CodeTimeout, SourceRPC, "Browse failed", "confirmation did not arrive"},
		{"os deadline", fmt.Errorf("read: %w", os.ErrDeadlineExceeded), call, CodeTimeout, SourceAPI, "Browse failed", "read: i/o timeout"},
		{"net.OpError refused", refused, call, CodeNetworkError, SourceAPI, "Browse failed", "dial tcp: connect: connection refused"},
		{"net timeout", &net.OpError{Op: "read", Net: "tcp", Err: timeoutErr{}}, call, CodeTimeout, SourceAPI, "Browse failed", "read tcp: i/o timeout"},
		{"url.Error", &url.Error{Op: "Get", URL: "https://api.example/resources?api_key=k-123456", Err: refused}, call, CodeNetworkError, SourceAPI, "Browse failed", `Get "https://api.example/resources?api_key=[REDACTED]": dial tcp: connect: connection refused`},
		{"dns", &net.DNSError{Err: "no such host", Name: "horizon.example"}, call, CodeNetworkError, SourceAPI, "Browse failed", "lookup horizon.example: no such host"},
		{"unexpected EOF", fmt.Errorf("decode: %w", io.ErrUnexpectedEOF), call, CodeNetworkError, SourceAPI, "Browse failed", "decode: unexpected EOF"},
		{"reset", fmt.Errorf("read: %w", syscall.ECONNRESET), call, CodeNetworkError, SourceAPI, "Browse failed", "read: connection reset by peer"},
		{"tls", x509.UnknownAuthorityError{}, call, CodeNetworkError, SourceAPI, "Browse failed", "x509: certificate signed by unknown authority"},
		{"plain", errors.New("decode xdr: bad\nunion arm call-secret-123 " + testSeed), call, CodeUnknown, SourceAPI, "Browse failed", "decode xdr: bad union arm [REDACTED] [REDACTED]"},
		{"plain no call", errors.New("boom"), Call{Guides: testGuides}, CodeUnknown, SourceRequest, "Request failed", "boom"},
		{"nil", nil, call, CodeUnknown, SourceAPI, "Browse failed", "no error was reported"},
		{"typed nil *Error", fmt.Errorf("x: %w", (*Error)(nil)), call, CodeUnknown, SourceAPI, "Browse failed", "x: <nil>"},
		{"panicking Error method", &panicky{}, call, CodeUnknown, SourceAPI, "Browse failed", "unexpected failure"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := FromError(c.err, c.call)
			checkFailure(t, got)
			d := got.Diagnostic
			if d.Code != c.code || d.Source != string(c.src) || d.Operation != c.op || d.Detail != c.detail {
				t.Errorf("got %s %s %q %q\nwant %s %s %q %q", d.Code, d.Source, d.Operation, d.Detail, c.code, c.src, c.op, c.detail)
			}
			assertAbsent(t, got, "call-secret-123")
			assertAbsent(t, got, testSeed)
			assertAbsent(t, got, "secret-arg")
		})
	}
}

func TestFromErrorSecretsMerged(t *testing.T) {
	e := &Error{Facts: Facts{Guides: testGuides, Source: SourceAPI, Status: 500, Body: []byte(`{"error":"own-secret-1 and call-secret-2"}`), Secrets: []string{"own-secret-1"}}}
	got := FromError(e, Call{Guides: testGuides, Secrets: []string{"call-secret-2"}})
	checkFailure(t, got)
	assertAbsent(t, got, "own-secret-1")
	assertAbsent(t, got, "call-secret-2")
	if len(e.Facts.Secrets) != 1 {
		t.Error("FromError mutated the error's facts")
	}
	kept := FromError(&Error{Facts: Facts{Guides: testGuides, Source: SourceHorizon, Operation: "Own op", Tool: "mindvault_own", Status: 400}}, Call{Guides: testGuides, Operation: "Call op", Tool: "mindvault_call", Source: SourceAPI})
	if kept.Diagnostic.Operation != "Own op" || kept.Diagnostic.Source != "horizon" || !strings.Contains(kept.Diagnostic.Next, "mindvault_own") {
		t.Errorf("call overrode the error's own facts: %+v", kept.Diagnostic)
	}
}

func TestErrorMethods(t *testing.T) {
	cause := errors.New("underlying")
	e := &Error{Err: cause, Facts: Facts{Guides: testGuides, Source: SourceAPI, Operation: "Preview failed", Status: 500,
		Body: []byte(`{"error":"boom ` + testAPIKey + `","stack":"very long internal stack"}`)}}
	s := e.Error()
	if s != "Preview failed: boom [REDACTED] (api, server)" {
		t.Errorf("Error() = %q", s)
	}
	if strings.Contains(s, "stack") || strings.Contains(s, testAPIKey) {
		t.Errorf("Error() leaks: %q", s)
	}
	if !errors.Is(e, cause) || e.Unwrap() != cause {
		t.Error("Unwrap broken")
	}
	var nilErr *Error
	if nilErr.Error() != "<nil>" || nilErr.Unwrap() != nil {
		t.Error("nil receiver")
	}
	var target *Error
	if !errors.As(fmt.Errorf("x: %w", e), &target) || target != e {
		t.Error("errors.As")
	}
	if got := (&Error{Facts: Facts{Guides: testGuides, Source: SourceAPI}, Err: context.DeadlineExceeded}).Error(); got != "MindVault API request failed: request timed out (api, timeout)" {
		t.Errorf("Error() = %q", got)
	}
}

// TestCancelled: a call the caller abandoned is CANCELLED (network category), its Next says
// what happened, and an unknown outcome keeps the how-to-find-out sentence and retry "no".
func TestCancelled(t *testing.T) {
	cases := []struct {
		name  string
		f     Facts
		next  string
		retry Retry
	}{
		{"read", Facts{Guides: testGuides, Source: SourceAPI, Tool: "mindvault_preview", Transport: TransportCancelled},
			"Call mindvault_preview again if you still need it: the request was cancelled before it finished (the caller went away or cancelled it).", RetrySafe},
		{"write sent", Facts{Guides: testGuides, Source: SourceRPC, Tool: "mindvault_set_price", Transport: TransportCancelled, TxHash: testTxHash, ExecutionStarted: true},
			"Check transaction " + testTxHash + " with mindvault_tx_status before retrying: the outcome is unknown.", RetryNo},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := mapT(t, c.f).Diagnostic
			if d.Code != CodeCancelled || d.Category != string(CategoryNetwork) || d.Next != c.next || d.Retry != string(c.retry) {
				t.Errorf("got %s/%s %q %s", d.Code, d.Category, d.Next, d.Retry)
			}
			if d.Detail != "request cancelled by the caller" {
				t.Errorf("detail %q", d.Detail)
			}
		})
	}
}
