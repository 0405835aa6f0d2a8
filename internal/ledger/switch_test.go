package ledger

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestSwitch: every backend starts not paused, keeps the first pause's since and by when paused
// again, and resumes; a second handle on the same store (another process) reads the same.
func TestSwitch(t *testing.T) {
	file := filepath.Join(t.TempDir(), "sub", "pause.json")
	mem := &FileSwitch{}
	for _, tc := range []struct {
		name string
		a, b Switch // two handles on one switch
	}{
		{"memory", mem, mem},
		{"file", &FileSwitch{Path: file}, &FileSwitch{Path: file}},
	} {
		t.Run(tc.name, func(t *testing.T) { testSwitch(t, tc.a, tc.b) })
	}
}

// testSwitch is TestSwitch's checks on a and b, two handles on one switch (DynamoDB's are in
// dynalite_test.go, under the tag node).
func testSwitch(t *testing.T, a, b Switch) {
	ctx := context.Background()
	if p, err := b.State(ctx); err != nil || p.Paused {
		t.Fatalf("a new switch: %+v, %v", p, err)
	}
	first, err := a.Set(ctx, true, "alice@host")
	if err != nil || !first.Paused || first.By != "alice@host" || first.Since.IsZero() {
		t.Fatalf("pause: %+v, %v", first, err)
	}
	again, err := a.Set(ctx, true, "bob@host")
	if err != nil || !again.Paused || again.By != "alice@host" || !again.Since.Equal(first.Since) {
		t.Fatalf("a second pause must keep the first: %+v, %v (first %+v)", again, err, first)
	}
	if p, err := b.State(ctx); err != nil || !p.Paused || p.By != "alice@host" || !p.Since.Equal(first.Since) {
		t.Fatalf("the other handle reads %+v, %v", p, err)
	}
	if p, err := b.Set(ctx, false, "carol@host"); err != nil || p.Paused || p.By != "carol@host" {
		t.Fatalf("resume: %+v, %v", p, err)
	}
	if p, err := a.State(ctx); err != nil || p.Paused || p.By != "carol@host" {
		t.Fatalf("after resume: %+v, %v", p, err)
	}
}

// TestSwitchFileUnreadable: a pause file that does not parse is an unavailable switch (the
// caller then refuses to pay), never "not paused".
func TestSwitchFileUnreadable(t *testing.T) {
	file := filepath.Join(t.TempDir(), "pause.json")
	if err := os.WriteFile(file, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := (&FileSwitch{Path: file}).State(context.Background()); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("a corrupt pause file: %v", err)
	}
}

// TestCachedSwitch: within the TTL the cached state is answered even if the store changed
// (another instance's pause); the process's own change is seen at once; TTL 0 caches nothing.
func TestCachedSwitch(t *testing.T) {
	ctx := context.Background()
	store := NewMemory()
	c := &Bounded{S: store, TTL: time.Hour}
	if p, _ := c.State(ctx); p.Paused {
		t.Fatal("paused at start")
	}
	_, _ = store.Set(ctx, true, "other instance")
	if p, _ := c.State(ctx); p.Paused {
		t.Fatal("a change by another instance was seen within the TTL: nothing is cached")
	}
	if p, _ := c.Set(ctx, false, "me"); p.Paused {
		t.Fatal("resume")
	}
	if p, _ := c.State(ctx); p.Paused || p.By != "me" {
		t.Fatalf("the process's own change: %+v", p)
	}
	c.TTL = 0
	_, _ = store.Set(ctx, true, "other instance")
	if p, _ := c.State(ctx); !p.Paused {
		t.Fatal("TTL 0 answered a cached state")
	}
}

// TestCachedSwitchFailsClosed: an unreadable switch is an error every time it is asked, never
// a cached "not paused", and the first good read after it is what the next call sees.
func TestCachedSwitchFailsClosed(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "pause.json")
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	b := &Bounded{S: NewMemory(path), TTL: time.Hour}
	for i := range 2 {
		if p, err := b.State(ctx); !errors.Is(err, ErrUnavailable) || p.Paused {
			t.Fatalf("read %d of an unreadable switch: %+v, %v", i, p, err)
		}
	}
	if err := os.WriteFile(path, []byte(`{"paused":true,"by":"ops"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if p, err := b.State(ctx); err != nil || !p.Paused || p.By != "ops" {
		t.Fatalf("after the file is mended: %+v, %v", p, err)
	}
}
