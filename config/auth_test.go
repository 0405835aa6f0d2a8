package config

import (
	"errors"
	"testing"
)

// TestUnknownAuthModeFailsClosed: a MINDVAULT_AUTH nobody can read is reported and served as
// tokens, never as the local default "none".
func TestUnknownAuthModeFailsClosed(t *testing.T) {
	for _, lambda := range []bool{false, true} {
		for _, v := range []string{"off", "token", "open", "NONE ", "Tokens"} {
			c, err := load(map[string]string{"MINDVAULT_AUTH": v}, lambda)
			want := map[string]string{"off": "tokens", "token": "tokens", "open": "tokens", "NONE ": "none", "Tokens": "tokens"}[v]
			if c.Auth != want {
				t.Errorf("MINDVAULT_AUTH=%q lambda=%v: mode %s, want %s", v, lambda, c.Auth, want)
			}
			var p Problems
			if bad := want == "tokens" && v != "Tokens"; bad != (errors.As(err, &p) && len(p) == 1 && p[0].Var == "MINDVAULT_AUTH") {
				t.Errorf("MINDVAULT_AUTH=%q: problem reported = %v, want %v", v, err, bad)
			}
		}
	}
}
