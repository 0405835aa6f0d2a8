package config

import (
	"errors"
	"strings"
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

// TestOAuthSettings: oauth mode reads its issuer (kept exactly, trailing slash included),
// audience (defaulting to the resource URL), claim and scope prefix, and names every bad or
// missing one; the other modes do not read them at all.
func TestOAuthSettings(t *testing.T) {
	const res = "https://mv.example.com/mcp"
	cases := []struct {
		name     string
		env      map[string]string
		issuer   string
		audience string
		claim    string
		prefix   string
		problems []string // variables reported
	}{
		{"resource URL as audience", map[string]string{"MINDVAULT_OAUTH_ISSUER": "https://tenant.auth0.com/", "MINDVAULT_RESOURCE_URL": res},
			"https://tenant.auth0.com/", res, "mindvault_profiles", "", nil},
		{"explicit audience, Cognito claim and prefix", map[string]string{
			"MINDVAULT_OAUTH_ISSUER": "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_AbC", "MINDVAULT_OAUTH_AUDIENCE": "mindvault-api",
			"MINDVAULT_OAUTH_PROFILES_CLAIM": "cognito:groups", "MINDVAULT_OAUTH_SCOPE_PREFIX": res + "/"},
			"https://cognito-idp.us-east-1.amazonaws.com/us-east-1_AbC", "mindvault-api", "cognito:groups", res + "/", nil},
		{"loopback http issuer", map[string]string{"MINDVAULT_OAUTH_ISSUER": "http://127.0.0.1:9000", "MINDVAULT_OAUTH_AUDIENCE": "a"},
			"http://127.0.0.1:9000", "a", "mindvault_profiles", "", nil},
		{"nothing set", map[string]string{}, "", "", "mindvault_profiles", "",
			[]string{"MINDVAULT_OAUTH_ISSUER", "MINDVAULT_OAUTH_AUDIENCE"}},
		{"plain http issuer", map[string]string{"MINDVAULT_OAUTH_ISSUER": "http://auth.example.com", "MINDVAULT_RESOURCE_URL": res}, "", res, "mindvault_profiles", "",
			[]string{"MINDVAULT_OAUTH_ISSUER"}},
		{"issuer with a query", map[string]string{"MINDVAULT_OAUTH_ISSUER": "https://a.example/?x=1", "MINDVAULT_RESOURCE_URL": res}, "", res, "mindvault_profiles", "",
			[]string{"MINDVAULT_OAUTH_ISSUER"}},
		{"bad claim, prefix and audience", map[string]string{"MINDVAULT_OAUTH_ISSUER": "https://a.example", "MINDVAULT_OAUTH_AUDIENCE": "a b",
			"MINDVAULT_OAUTH_PROFILES_CLAIM": "two words", "MINDVAULT_OAUTH_SCOPE_PREFIX": `say"hi`},
			"https://a.example", "", "mindvault_profiles", "",
			[]string{"MINDVAULT_OAUTH_AUDIENCE", "MINDVAULT_OAUTH_PROFILES_CLAIM", "MINDVAULT_OAUTH_SCOPE_PREFIX"}},
		{"another authorization server", map[string]string{"MINDVAULT_OAUTH_ISSUER": "https://a.example", "MINDVAULT_RESOURCE_URL": res,
			"MINDVAULT_AUTHORIZATION_SERVERS": "https://b.example"}, "https://a.example", res, "mindvault_profiles", "",
			[]string{"MINDVAULT_AUTHORIZATION_SERVERS"}},
		{"tokens left configured", map[string]string{"MINDVAULT_OAUTH_ISSUER": "https://a.example", "MINDVAULT_RESOURCE_URL": res,
			"MINDVAULT_ACCESS_TOKENS_SECRET": "mindvault/access-tokens"}, "https://a.example", res, "mindvault_profiles", "",
			[]string{"MINDVAULT_ACCESS_TOKENS_SECRET"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.env["MINDVAULT_AUTH"] = "oauth"
			c, err := load(tc.env, true)
			if c.Auth != "oauth" || c.OAuthIssuer != tc.issuer || c.OAuthAudience != tc.audience || c.OAuthProfilesClaim != tc.claim || c.OAuthScopePrefix != tc.prefix {
				t.Errorf("got %s %q %q %q %q", c.Auth, c.OAuthIssuer, c.OAuthAudience, c.OAuthProfilesClaim, c.OAuthScopePrefix)
			}
			var got []string
			var p Problems
			if errors.As(err, &p) {
				for _, pr := range p {
					got = append(got, pr.Var)
				}
			}
			if strings.Join(got, ",") != strings.Join(tc.problems, ",") {
				t.Errorf("problems %v, want %v (%v)", got, tc.problems, err)
			}
		})
	}
	c, err := load(map[string]string{"MINDVAULT_AUTH": "tokens", "MINDVAULT_OAUTH_ISSUER": "not a url"}, true)
	if err != nil || c.OAuthIssuer != "" {
		t.Fatalf("tokens mode read the OAuth settings: %v %q", err, c.OAuthIssuer)
	}
}
