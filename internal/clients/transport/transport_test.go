package transport

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/obs"
)

func service(url string) *Service {
	return &Service{
		Source: errmap.SourceAPI, BaseURL: url, Timeout: 2 * time.Second, TimeoutVar: "MINDVAULT_HTTP_TIMEOUT_MS",
		Retry: Policy{Attempts: 3, BaseDelay: time.Millisecond, MaxDelay: 50 * time.Millisecond},
		HTTP:  NewHTTPClient(),
	}
}

// server answers with the statuses in order (the last one repeats) and counts requests.
func server(t *testing.T, statuses []int, header http.Header) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(n.Add(1)) - 1
		if i >= len(statuses) {
			i = len(statuses) - 1
		}
		for k, v := range header {
			w.Header()[k] = v
		}
		w.WriteHeader(statuses[i])
		_, _ = w.Write([]byte(`{"error":"x"}`))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func TestRetries(t *testing.T) {
	cases := []struct {
		name     string
		statuses []int
		header   http.Header
		read     bool
		want     int // final status
		requests int32
	}{
		{"read succeeds after 503s", []int{503, 503, 200}, nil, true, 200, 3},
		{"persistent 503 stops after attempts", []int{503}, nil, true, 503, 3},
		{"404 is not retried", []int{404}, nil, true, 404, 1},
		{"write is never retried", []int{503}, nil, false, 503, 1},
		{"short Retry-After is honoured", []int{429, 200}, http.Header{"Retry-After": {"0"}}, true, 200, 2},
		{"long Retry-After surfaces at once", []int{429}, http.Header{"Retry-After": {"30"}}, true, 429, 1},
		{"408 425 502 are retried", []int{408, 425, 502, 200}, nil, true, 502, 3},
		{"504 is retried", []int{504, 200}, nil, true, 200, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv, n := server(t, tc.statuses, tc.header)
			ctx, trace := obs.WithTrace(context.Background())
			resp, err := service(srv.URL).Do(ctx, Request{Method: "GET", Path: "/", Route: "GET /", Read: tc.read})
			if err != nil {
				t.Fatal(err)
			}
			if resp.Status != tc.want || n.Load() != tc.requests || resp.Attempts != int(tc.requests) {
				t.Fatalf("status %d after %d requests (attempts %d); want %d after %d", resp.Status, n.Load(), resp.Attempts, tc.want, tc.requests)
			}
			calls := trace.Calls()
			if len(calls) != 1 || calls[0].Attempts != int(tc.requests) || calls[0].Status != tc.want {
				t.Fatalf("trace = %+v", calls)
			}
		})
	}
}

func TestTransportFailures(t *testing.T) {
	// A closed listener: connection refused, retried, then NETWORK.
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	_, err := service(url).Do(context.Background(), Request{Method: "GET", Route: "GET /", Read: true})
	var e *errmap.Error
	if !errors.As(err, &e) || e.Facts.Transport != errmap.TransportNetwork || e.Facts.Source != errmap.SourceAPI {
		t.Fatalf("refused: %v", err)
	}

	// A slow server: each attempt times out at the service timeout.
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}))
	defer slow.Close()
	s := service(slow.URL)
	s.Timeout = 50 * time.Millisecond
	start := time.Now()
	_, err = s.Do(context.Background(), Request{Method: "GET", Route: "GET /", Read: true})
	if !errors.As(err, &e) || e.Facts.Transport != errmap.TransportTimeout || e.Facts.TimeoutVar != "MINDVAULT_HTTP_TIMEOUT_MS" {
		t.Fatalf("slow: %v", err)
	}
	if time.Since(start) > 3*time.Second {
		t.Fatalf("timeouts were not applied per attempt")
	}

	// An invocation deadline already inside the margin: nothing is sent.
	ctx, cancel := context.WithTimeout(context.Background(), Margin/2)
	defer cancel()
	hit, n := server(t, []int{200}, nil)
	_, err = service(hit.URL).Do(ctx, Request{Method: "GET", Route: "GET /", Read: true})
	if !errors.As(err, &e) || e.Facts.Transport != errmap.TransportTimeout || n.Load() != 0 {
		t.Fatalf("deadline: %v, %d requests", err, n.Load())
	}
}

func TestBackoffIsFullJitterWithinCap(t *testing.T) {
	s := &Service{Retry: Policy{Attempts: 5, BaseDelay: 100 * time.Millisecond, MaxDelay: 300 * time.Millisecond}}
	for attempt := 1; attempt <= 6; attempt++ {
		for range 50 {
			d, ok := s.backoff(attempt, nil)
			ceil := min(100*time.Millisecond<<(attempt-1), 300*time.Millisecond)
			if !ok || d < 0 || d > ceil {
				t.Fatalf("attempt %d: delay %v outside [0, %v]", attempt, d, ceil)
			}
		}
	}
}
