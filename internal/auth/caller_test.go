package auth

import (
	"context"
	"encoding/hex"
	"net/http"
	"testing"
)

// TestCaller: each accepted token is its own caller, named by its configured digest (never the
// token); mode none is one anonymous caller; a context the middleware never saw is nobody.
func TestCaller(t *testing.T) {
	seen := map[string]string{}
	for _, token := range []string{tokenAlice, tokenAll} {
		var ctx context.Context
		inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { ctx = r.Context() })
		if w := do(Middleware(tokensConfig(t), inner, nil), http.MethodPost, "/mcp", "Authorization", "Bearer "+token); w.Code != http.StatusOK {
			t.Fatalf("status %d", w.Code)
		}
		d := Digest(token)
		if got, want := Caller(ctx), "token:"+hex.EncodeToString(d[:]); got != want {
			t.Errorf("Caller = %q, want %q", got, want)
		}
		seen[Caller(ctx)] = token
	}
	if len(seen) != 2 {
		t.Error("two tokens share a caller")
	}
	var ctx context.Context
	open := Middleware(Config{Mode: ModeNone}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { ctx = r.Context() }), nil)
	do(open, http.MethodPost, "/mcp")
	if Caller(ctx) != AnonymousCaller {
		t.Errorf("mode none: Caller = %q", Caller(ctx))
	}
	if Caller(context.Background()) != "" {
		t.Error("a bare context has a caller")
	}
}
