package transport

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mindvault/mcp-endpoint/errmap"
)

// TestExecutionStarted: a failure marks the tool's operation as started only for a write or
// a payment (Read false) that may have reached the service; a read, a refused connection
// and a request stopped by the deadline before sending never do.
func TestExecutionStarted(t *testing.T) {
	answer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/drop" {
			conn, _, _ := w.(http.Hijacker).Hijack()
			_ = conn.Close()
			return
		}
		w.WriteHeader(http.StatusInternalServerError)
	}))
	t.Cleanup(answer.Close)
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()

	spent, cancel := context.WithDeadline(context.Background(), time.Now().Add(Margin/2))
	defer cancel()

	cases := []struct {
		name    string
		url     string
		path    string
		ctx     context.Context
		read    bool
		started bool
	}{
		{"write answered 500", answer.URL, "/", context.Background(), false, true},
		{"read answered 500", answer.URL, "/", context.Background(), true, false},
		{"write dropped after it was read", answer.URL, "/drop", context.Background(), false, true},
		{"read dropped", answer.URL, "/drop", context.Background(), true, false},
		{"write refused at connect", closedURL, "/", context.Background(), false, false},
		{"write with no time left to send", answer.URL, "/", spent, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := service(tc.url)
			s.Retry.Attempts = 1
			resp, err := s.Do(tc.ctx, Request{Method: http.MethodPost, Path: tc.path, Body: []byte(`{}`), Read: tc.read})
			if err == nil {
				err = s.StatusError(resp)
				if m := s.Malformed(resp, "x"); m.Facts.ExecutionStarted != tc.started {
					t.Errorf("Malformed: executionStarted = %v, want %v", m.Facts.ExecutionStarted, tc.started)
				}
			}
			var e *errmap.Error
			if !errors.As(err, &e) {
				t.Fatalf("want *errmap.Error, got %v", err)
			}
			if e.Facts.ExecutionStarted != tc.started {
				t.Fatalf("executionStarted = %v, want %v (%+v)", e.Facts.ExecutionStarted, tc.started, e.Facts)
			}
		})
	}
}
