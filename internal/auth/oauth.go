package auth

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/mindvault/mcp-endpoint/internal/config"
	"github.com/mindvault/mcp-endpoint/internal/credentials"
	"github.com/mindvault/mcp-endpoint/internal/netaddr"
)

// The scopes of OAuth mode, one per kind of tool. They are independent: none implies another,
// so a client asks for what its tools need and a stolen read token cannot pay.
const (
	ScopeRead  = "mindvault:read"  // read-only tools
	ScopeSpend = "mindvault:spend" // tools that pay USDC (buy, publish)
	ScopeWrite = "mindvault:write" // every other state-changing tool
)

// Scopes lists the OAuth scopes in the order the metadata advertises them.
var Scopes = []string{ScopeRead, ScopeSpend, ScopeWrite}

// Leeway is the clock skew allowed on exp, nbf and iat.
const Leeway = 60 * time.Second

// allowedAlgs are the only signature algorithms accepted: asymmetric ones an issuer publishes
// keys for. "none" and the HS* family never verify, whatever the token's header says.
var allowedAlgs = []jose.SignatureAlgorithm{jose.RS256, jose.ES256}

// OAuth is the configuration of ModeOAuth.
type OAuth struct {
	// Issuer is the authorization server's issuer identifier, compared exactly with iss and
	// with the discovery document's issuer; https, or http on a loopback host.
	Issuer string
	// Audience must be among the token's aud values (RFC 8707: the token was issued for
	// this resource). Normally the resource URL.
	Audience      string
	ProfilesClaim string // the claim listing the profiles a token may use (config.DefaultOAuthProfilesClaim when empty)
	// ScopePrefix is put before every scope name, in the metadata, the challenges and the
	// check, for authorization servers that qualify custom scopes (Cognito names them
	// "<resource server identifier>/<scope>").
	ScopePrefix string
	HTTPClient  *http.Client // fetches discovery and JWKS; nil: 5 s timeouts, no redirect followed
}

// Problem reports a configuration OAuth mode cannot serve; the middleware then fails closed.
func (o OAuth) Problem() error {
	switch {
	case o.Issuer == "":
		return errors.New("MINDVAULT_OAUTH_ISSUER is not set")
	case !netaddr.Issuer(o.Issuer):
		return errors.New("MINDVAULT_OAUTH_ISSUER must be an https URL (or http on a loopback host)")
	case o.Audience == "":
		return errors.New("neither MINDVAULT_OAUTH_AUDIENCE nor MINDVAULT_RESOURCE_URL is set, so no audience can be checked")
	}
	return nil
}

// verdict is why a token was not accepted.
type verdict int

const (
	accepted    verdict = iota
	invalid             // 401 invalid_token
	unavailable         // 503: no signing key was ever fetched
)

// standardClaims are the registered claims checked, plus the scope claims.
type standardClaims struct {
	jwt.Claims
	Scope json.RawMessage `json:"scope"`
	Scp   json.RawMessage `json:"scp"`
}

// verify checks a token: compact JWS, RS256 or ES256 by a key of the issuer's JWKS, typ absent,
// JWT or at+jwt, iss exact, exp present, nbf/iat within Leeway, aud holding the audience, a sub.
// p holds what the token says of its bearer: subject, profiles and scopes.
func (v *verifier) verify(ctx context.Context, token string) (p grant, out verdict, reason string) {
	tok, err := jwt.ParseSigned(token, allowedAlgs)
	if err != nil || len(tok.Headers) != 1 {
		return p, invalid, "not a JWS signed with RS256 or ES256"
	}
	h := tok.Headers[0]
	if typ, ok := h.ExtraHeaders[jose.HeaderType]; ok {
		if s, _ := typ.(string); !slices.Contains([]string{"jwt", "at+jwt", "application/at+jwt"}, strings.ToLower(s)) {
			return p, invalid, "typ is not JWT or at+jwt"
		}
	}
	keys, ready := v.lookup(ctx, h.KeyID, jose.SignatureAlgorithm(h.Algorithm))
	if !ready {
		return p, unavailable, "no signing keys fetched yet"
	}
	var payload json.RawMessage // set by the first key that verifies the signature
	if !slices.ContainsFunc(keys, func(k jose.JSONWebKey) bool { return tok.Claims(k.Key, &payload) == nil }) {
		return p, invalid, "no published key verifies the signature"
	}
	var std standardClaims
	if err := json.Unmarshal(payload, &std); err != nil {
		return p, invalid, "claims do not decode"
	}
	if std.Expiry == nil {
		return p, invalid, "no exp"
	}
	if err := std.ValidateWithLeeway(jwt.Expected{Issuer: v.cfg.Issuer, AnyAudience: jwt.Audience{v.cfg.Audience}, Time: time.Now()}, Leeway); err != nil {
		return p, invalid, "claims rejected: " + strings.TrimPrefix(err.Error(), "go-jose/go-jose/jwt: ")
	}
	if std.Subject == "" {
		return p, invalid, "no sub"
	}
	p.subject = std.Subject
	p.scopes = append(stringList(std.Scope), stringList(std.Scp)...)
	var all map[string]json.RawMessage
	_ = json.Unmarshal(payload, &all)
	for _, name := range stringList(all[cmp.Or(v.cfg.ProfilesClaim, config.DefaultOAuthProfilesClaim)]) {
		switch {
		case name == AllProfiles:
			p.all = true
		case credentials.ValidName(name) && !slices.Contains(p.profiles, name):
			p.profiles = append(p.profiles, name)
		}
	}
	return p, accepted, ""
}

// stringList reads a claim that is a JSON array of strings or one space-separated string (the
// forms scope, scp and group claims take across authorization servers). Anything else, and
// non-string array members, yield nothing: a malformed claim grants nothing.
func stringList(raw json.RawMessage) []string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.Fields(s)
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		return nil
	}
	var out []string
	for _, item := range list {
		if json.Unmarshal(item, &s) == nil && s != "" && !strings.ContainsAny(s, " \t\r\n") {
			out = append(out, s)
		}
	}
	return out
}
