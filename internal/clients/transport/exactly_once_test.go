package transport

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mindvault/mcp-endpoint/errmap"
)

// TestRedirectsOnlyForReads: a request that is not a read gets the 3xx back after exactly one
// request, whatever the redirect kind; a read follows a same-host redirect.
func TestRedirectsOnlyForReads(t *testing.T) {
	for _, status := range []int{301, 302, 303, 307, 308} {
		for _, read := range []bool{false, true} {
			name := http.StatusText(status)
			if read {
				name += "/read"
			} else {
				name += "/write"
			}
			t.Run(name, func(t *testing.T) {
				var writes, total atomic.Int32
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					total.Add(1)
					if r.URL.Path == "/moved" {
						w.WriteHeader(http.StatusOK)
						return
					}
					writes.Add(1)
					w.Header().Set("Location", "/moved")
					w.WriteHeader(status)
					_, _ = io.WriteString(w, `{"error":"moved"}`)
				}))
				defer srv.Close()
				s := service(srv.URL)
				resp, err := s.Do(context.Background(), Request{Method: "POST", Path: "/pay", Body: []byte(`{}`), Route: "POST /pay", Read: read,
					Header: http.Header{"Idempotency-Key": {"k1"}, "Payment-Signature": {"sig"}}})
				if err != nil {
					t.Fatal(err)
				}
				if read {
					if resp.Status != 200 || total.Load() != 2 {
						t.Fatalf("read: status %d after %d requests, want 200 after 2", resp.Status, total.Load())
					}
					return
				}
				if resp.Status != status || writes.Load() != 1 || total.Load() != 1 {
					t.Fatalf("write: status %d after %d requests, want %d after exactly 1", resp.Status, total.Load(), status)
				}
				e := s.StatusError(resp)
				if e.Facts.Status != status || e.Facts.Body != nil || e.Facts.Detail == "" {
					t.Fatalf("facts: %+v", e.Facts)
				}
				if d := errmap.Map(e.Facts).Diagnostic.Detail; d != e.Facts.Detail {
					t.Fatalf("detail %q, want the redirect explanation %q", d, e.Facts.Detail)
				}
			})
		}
	}
}

// dropServer is a raw HTTP/1.1 server on loopback that counts every request it reads and
// answers a GET or a POST /ok with a keep-alive 200, but closes the connection without
// answering any other request: the "dropped after the request was read" case net/http
// replays on a reused connection.
type dropServer struct {
	ln    net.Listener
	gets  atomic.Int32
	posts atomic.Int32
	wg    sync.WaitGroup
	mu    sync.Mutex
	conns []net.Conn
}

func newDropServer(t *testing.T) *dropServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d := &dropServer{ln: ln}
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			d.mu.Lock()
			d.conns = append(d.conns, c)
			d.mu.Unlock()
			d.wg.Add(1)
			go func() {
				defer d.wg.Done()
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					_, _ = io.Copy(io.Discard, req.Body)
					if req.Method != http.MethodGet && req.URL.Path != "/ok" {
						d.posts.Add(1)
						return // drop: close without a response
					}
					d.gets.Add(1)
					_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
				}
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		d.mu.Lock()
		for _, c := range d.conns { // idle keep-alive connections would block the readers
			c.Close()
		}
		d.mu.Unlock()
		d.wg.Wait()
	})
	return d
}

// TestNonReadSentOnceOnDrop: a write carrying an Idempotency-Key (which net/http treats as
// replayable), sent after a read and an earlier write to the same host could have left
// pooled keep-alive connections, is dropped after the server read it: the server must have
// seen it exactly once.
func TestNonReadSentOnceOnDrop(t *testing.T) {
	for _, hdr := range []string{"Idempotency-Key", "X-Idempotency-Key", ""} {
		t.Run("header "+hdr, func(t *testing.T) {
			d := newDropServer(t)
			s := service("http://" + d.ln.Addr().String())
			ctx := context.Background()
			if _, err := s.Do(ctx, Request{Method: "GET", Path: "/warm", Route: "GET /warm", Read: true}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Do(ctx, Request{Method: "POST", Path: "/ok", Body: []byte(`{}`), Route: "POST /ok"}); err != nil {
				t.Fatal(err)
			}
			h := http.Header{}
			if hdr != "" {
				h.Set(hdr, "8f14e45fceea167a")
			}
			_, err := s.Do(ctx, Request{Method: "POST", Path: "/resources", Body: []byte(`{"title":"x"}`), Header: h, Route: "POST /resources"})
			var e *errmap.Error
			if !errors.As(err, &e) || e.Facts.Transport != errmap.TransportNetwork {
				t.Fatalf("want a network failure, got %v", err)
			}
			if n := d.posts.Load(); n != 1 {
				t.Fatalf("the server read the write %d times, want exactly 1", n)
			}
		})
	}
	t.Run("GET that is not a read", func(t *testing.T) {
		// A paid GET is sent with Read false; net/http would replay a bodiless GET too.
		var paid atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Payment-Signature") == "" {
				w.WriteHeader(http.StatusPaymentRequired)
				return
			}
			paid.Add(1)
			if hj, ok := w.(http.Hijacker); ok {
				if c, _, err := hj.Hijack(); err == nil {
					_ = c.Close()
					return
				}
			}
			panic(http.ErrAbortHandler)
		}))
		defer srv.Close()
		s := service(srv.URL)
		ctx := context.Background()
		if _, err := s.Do(ctx, Request{Method: "GET", Path: "/resources/x", Route: "GET /resources/{id}", Read: true}); err != nil {
			t.Fatal(err)
		}
		_, err := s.Do(ctx, Request{Method: "GET", Path: "/resources/x", Header: http.Header{"Payment-Signature": {"sig"}}, Route: "GET /resources/{id}"})
		if err == nil || paid.Load() != 1 {
			t.Fatalf("paid GET: err %v, sent %d times, want a failure after exactly 1", err, paid.Load())
		}
	})
}

// TestNotSent: only a failure that proves the request never left counts as not sent; a
// drop after the server read the request does not.
func TestNotSent(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	refused := closed.URL
	closed.Close()
	d := newDropServer(t)
	spent, cancel := context.WithTimeout(context.Background(), Margin/2)
	defer cancel()
	cases := []struct {
		name    string
		ctx     context.Context
		url     string
		notSent bool
	}{
		{"connection refused", context.Background(), refused, true},
		{"deadline spent before sending", spent, "http://" + d.ln.Addr().String(), true},
		{"dropped after the request was read", context.Background(), "http://" + d.ln.Addr().String(), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := service(c.url).Do(c.ctx, Request{Method: "POST", Path: "/w", Body: []byte(`{}`), Route: "POST /w"})
			if err == nil {
				t.Fatal("want a failure")
			}
			if got := NotSent(err); got != c.notSent {
				t.Fatalf("NotSent = %v, want %v (%v)", got, c.notSent, err)
			}
		})
	}
}
