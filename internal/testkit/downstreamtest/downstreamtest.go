// Package downstreamtest is a scripted downstream for the clients' unit tests: an HTTP server
// on 127.0.0.1 that answers each request from a list and records exactly what arrived, so a
// test checks the request a client sent as the service saw it, and how the client read the
// answer, without the sandbox's simulated state. The sandbox stays the tool for tests of
// whole workflows.
package downstreamtest

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/transport"
)

// Answer is one scripted response.
type Answer struct {
	Status int // 200 when 0
	Header http.Header
	Body   string
	// Hang holds the response until the client gives up (its timeout), to provoke a timeout.
	Hang bool
}

// JSON is a 200 answer with a JSON body.
func JSON(body string) Answer {
	return Answer{Status: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}}, Body: body}
}

// Status is an answer with status and a JSON body.
func Status(status int, body string) Answer {
	return Answer{Status: status, Header: http.Header{"Content-Type": {"application/json"}}, Body: body}
}

// Seen is one request as the server received it.
type Seen struct {
	Method string
	Path   string // escaped, as on the wire
	Query  string // raw query
	Header http.Header
	Body   string
}

// Server answers requests in order from its script; the last answer repeats.
type Server struct {
	URL     string
	mu      sync.Mutex
	answers []Answer
	seen    []Seen
}

// New starts a server with the script answers; it stops when the test ends.
func New(t testing.TB, answers ...Answer) *Server {
	t.Helper()
	if len(answers) == 0 {
		answers = []Answer{JSON(`{}`)}
	}
	s := &Server{answers: answers}
	hs := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(hs.Close)
	s.URL = hs.URL
	return s
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	i := min(len(s.seen), len(s.answers)-1)
	s.seen = append(s.seen, Seen{Method: r.Method, Path: r.URL.EscapedPath(), Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: string(body)})
	a := s.answers[i]
	s.mu.Unlock()
	if a.Hang {
		<-r.Context().Done()
		return
	}
	for k, v := range a.Header {
		w.Header()[k] = v
	}
	if a.Status == 0 {
		a.Status = http.StatusOK
	}
	w.WriteHeader(a.Status)
	_, _ = io.WriteString(w, a.Body)
}

// Requests returns what the server received so far, in order.
func (s *Server) Requests() []Seen {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Seen(nil), s.seen...)
}

// Only returns the one request the server received, failing the test otherwise.
func (s *Server) Only(t testing.TB) Seen {
	t.Helper()
	seen := s.Requests()
	if len(seen) != 1 {
		t.Fatalf("the service received %d requests, want 1", len(seen))
	}
	return seen[0]
}

// Service is a transport.Service of source src for base. Reads get two attempts, so a test
// can tell a read (retried after a 503) from a write (never retried); delays stay short.
func Service(src errmap.Source, base string) *transport.Service {
	return &transport.Service{
		Source: src, BaseURL: base, Timeout: 2 * time.Second, TimeoutVar: "MINDVAULT_HTTP_TIMEOUT_MS",
		Retry: transport.Policy{Attempts: 2, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond},
		HTTP:  transport.NewHTTPClient(), UserAgent: "downstreamtest/1",
	}
}

// Quick is Service with a short timeout, for answers that Hang.
func Quick(src errmap.Source, base string) *transport.Service {
	s := Service(src, base)
	s.Timeout = 100 * time.Millisecond
	s.Retry.Attempts = 1
	return s
}

// Refused is a base URL on 127.0.0.1 where nothing listens (a server started and closed), so
// every request fails to connect.
func Refused(t testing.TB) string {
	t.Helper()
	hs := httptest.NewServer(http.NotFoundHandler())
	url := hs.URL
	hs.Close()
	return url
}

// Diagnostic is the failure err becomes in a tool result: what an agent reads, so a test
// asserts on the public outcome rather than on how a client filled in the facts.
func Diagnostic(err error) errmap.Diagnostic {
	return errmap.FromError(err, errmap.Call{Operation: "Test failed"}).Diagnostic
}

// IsErrmap reports whether err carries an *errmap.Error, as every client failure must.
func IsErrmap(err error) bool {
	var e *errmap.Error
	return errors.As(err, &e)
}
