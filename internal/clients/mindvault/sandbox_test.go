package mindvault_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/mindvault"
	"github.com/mindvault/mcp-endpoint/internal/sandbox"
	dt "github.com/mindvault/mcp-endpoint/internal/testkit/downstreamtest"
)

func startSandbox(t *testing.T, faults string) *sandbox.Sandbox {
	t.Helper()
	sb, err := sandbox.Start(sandbox.Options{Faults: faults})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sb.Close)
	return sb
}

var evalNotes = mindvault.NewResource{Title: "Agent Eval Notes", Description: "How we evaluate agents.", Price: "1.50",
	ExternalURL: "https://example.com/evals"}

// TestCreateResourceIdempotencyKeyOnSandbox: against the sandbox API, every attempt of one
// publish intent carries the intent's key, so however often it is repeated one resource
// exists; the same key with another request answers the first resource, which the client
// refuses as not its own, and another key creates anew.
func TestCreateResourceIdempotencyKeyOnSandbox(t *testing.T) {
	ctx := context.Background()
	sb := startSandbox(t, "")
	c := client(sb.APIURL)
	nr := evalNotes
	nr.IdempotencyKey = "publish-intent-42"
	first, err := c.CreateResource(ctx, sb.DemoAPIKey, nr)
	if err != nil {
		t.Fatal(err)
	}
	again, err := c.CreateResource(ctx, sb.DemoAPIKey, nr)
	if err != nil || again.ID != first.ID || again.Title != "Agent Eval Notes" {
		t.Fatalf("repeat: %+v %v, want resource %s", again, err, first.ID)
	}
	if n, sent := sb.CreatedResources(), sb.Count(sandbox.ServiceAPI, "POST /resources"); n != 1 || sent != 2 {
		t.Fatalf("%d resources from %d requests, want 1 from 2", n, sent)
	}
	changed := nr
	changed.Price = "2.00"
	_, err = c.CreateResource(ctx, sb.DemoAPIKey, changed)
	// The real server answers the first resource (201), not a 422: the client sees that it is
	// not this request's and creates nothing.
	if d := dt.Diagnostic(err); d.Status != 201 || d.Code != "CONFLICT" || d.StateChanged != "no" || !strings.Contains(d.Detail, first.ID) || sb.CreatedResources() != 1 {
		t.Fatalf("the key with another request: %+v", d)
	}
	other := nr
	other.IdempotencyKey = "publish-intent-43"
	if m, err := c.CreateResource(ctx, sb.DemoAPIKey, other); err != nil || m.ID == first.ID || sb.CreatedResources() != 2 {
		t.Fatalf("another intent: %+v %v", m, err)
	}
}

// TestCreateResourceIdempotencyKeyAfterTimeout: the attempt that timed out (its outcome
// unknown) was in fact completed by the server; the next attempt with the same key gets that
// resource instead of creating a second one.
func TestCreateResourceIdempotencyKeyAfterTimeout(t *testing.T) {
	ctx := context.Background()
	sb := startSandbox(t, "service=api,target=POST /resources,kind=delay,delay=30s,count=1")
	nr := evalNotes
	nr.IdempotencyKey = "publish-intent-44"
	_, err := mindvault.New(dt.Quick(errmap.SourceAPI, sb.APIURL)).CreateResource(ctx, sb.DemoAPIKey, nr)
	if d := dt.Diagnostic(err); d.Code != "TIMEOUT" || d.StateChanged != "unknown" {
		t.Fatalf("the slow attempt: %+v", d)
	}
	deadline := time.Now().Add(5 * time.Second)
	for sb.CreatedResources() != 1 {
		if time.Now().After(deadline) {
			t.Fatal("the server never finished the timed-out request")
		}
		time.Sleep(5 * time.Millisecond)
	}
	m, err := client(sb.APIURL).CreateResource(ctx, sb.DemoAPIKey, nr)
	if err != nil || m.ID == "" || sb.CreatedResources() != 1 {
		t.Fatalf("the retry: %+v %v, %d created", m, err, sb.CreatedResources())
	}
}

// TestCreateResourceIdempotencyKeyConcurrent: two instances publish one intent at the same
// moment (each stalls once it holds the key). One creates the resource; the other is told
// the first is in progress, with its outcome unknown, and creates nothing.
func TestCreateResourceIdempotencyKeyConcurrent(t *testing.T) {
	ctx := context.Background()
	sb := startSandbox(t, "service=api,target=POST /resources,kind=delay,delay=500ms,count=2")
	nr := evalNotes
	nr.IdempotencyKey = "publish-intent-45"
	var wg sync.WaitGroup
	metas := make([]*mindvault.Meta, 2)
	errs := make([]error, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			metas[i], errs[i] = client(sb.APIURL).CreateResource(ctx, sb.DemoAPIKey, nr)
		}()
	}
	wg.Wait()
	created, busy := 0, 0
	for i := range 2 {
		d := dt.Diagnostic(errs[i])
		switch {
		case errs[i] == nil && metas[i].ID != "":
			created++
		case d.Status == 409 && d.Code == "CONFLICT" && d.StateChanged == "unknown":
			busy++
		default:
			t.Errorf("instance %d: %+v %+v", i, metas[i], d)
		}
	}
	if created != 1 || busy != 1 || sb.CreatedResources() != 1 {
		t.Fatalf("%d created, %d in progress, %d resources", created, busy, sb.CreatedResources())
	}
}
