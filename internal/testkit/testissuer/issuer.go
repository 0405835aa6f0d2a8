// Package testissuer is an OAuth 2.1 authorization server cut down to what a resource server reads,
// for the auth and endpoint tests and infra/invoke (the product never links it): discovery and a
// JWKS on 127.0.0.1, and RS256 and ES256 access tokens signed with keys made at start. It
// misbehaves as real issuers do (rotated keys, an outage, only RFC 8414 metadata, another issuer
// named) and counts the documents it served, so a test checks what the resource server fetched.
package testissuer

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// Options shape the issuer.
type Options struct {
	// Path is appended to the server's origin to form the issuer identifier (e.g.
	// "/us-east-1_AbC" for a Cognito-like issuer); empty for an origin-only issuer.
	Path string
	// RFC8414Only serves only /.well-known/oauth-authorization-server (path-inserted), so a
	// resource server must fall back from the OpenID discovery path.
	RFC8414Only bool
}

type signingKey struct {
	kid  string
	alg  jose.SignatureAlgorithm
	priv crypto.Signer
}

// Issuer is a running test issuer.
type Issuer struct {
	// URL is the issuer identifier, the exact value of the tokens' iss claim.
	URL string

	srv  *httptest.Server
	opts Options

	mu              sync.Mutex
	keys            []signingKey // published and used for signing, first of each alg wins
	down            int          // HTTP status discovery and JWKS answer; 0 when up
	discoveryIssuer string       // issuer named in the discovery document; URL when empty
	generation      int

	discoveryHits atomic.Int64
	jwksHits      atomic.Int64
}

// New starts an issuer on 127.0.0.1 with one RSA and one ECDSA key.
func New(opts Options) (*Issuer, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	iss := &Issuer{opts: opts}
	iss.srv = httptest.NewUnstartedServer(http.HandlerFunc(iss.serve))
	iss.srv.Listener.Close()
	iss.srv.Listener = l
	iss.srv.Start()
	iss.URL = iss.srv.URL + opts.Path
	keys, err := iss.newKeys()
	if err != nil {
		iss.srv.Close()
		return nil, err
	}
	iss.keys = keys
	return iss, nil
}

// Close stops the server.
func (i *Issuer) Close() { i.srv.Close() }

// JWKSURL is where the key set is served.
func (i *Issuer) JWKSURL() string { return i.srv.URL + "/jwks" }

// DiscoveryFetches is how many discovery documents were requested (any well-known path).
func (i *Issuer) DiscoveryFetches() int64 { return i.discoveryHits.Load() }

// JWKSFetches is how many times the key set was requested.
func (i *Issuer) JWKSFetches() int64 { return i.jwksHits.Load() }

// ResetCounts zeroes both counters.
func (i *Issuer) ResetCounts() {
	i.discoveryHits.Store(0)
	i.jwksHits.Store(0)
}

// SetDown makes discovery and JWKS answer status (503 for an outage); 0 brings them back.
func (i *Issuer) SetDown(status int) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.down = status
}

// SetDiscoveryIssuer makes the discovery document claim another issuer (a mix-up); "" restores.
func (i *Issuer) SetDiscoveryIssuer(s string) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.discoveryIssuer = s
}

// Rotate replaces every key with fresh ones under new key ids: tokens signed before no
// longer verify against the published set.
func (i *Issuer) Rotate() error {
	keys, err := i.newKeys()
	if err != nil {
		return err
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	i.keys = keys
	return nil
}

// KeyIDs lists the published key ids, RSA first.
func (i *Issuer) KeyIDs() []string {
	i.mu.Lock()
	defer i.mu.Unlock()
	out := make([]string, len(i.keys))
	for n, k := range i.keys {
		out[n] = k.kid
	}
	return out
}

func (i *Issuer) newKeys() ([]signingKey, error) {
	i.mu.Lock()
	i.generation++
	gen := i.generation
	i.mu.Unlock()
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	ek, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	return []signingKey{
		{kid: fmt.Sprintf("rsa-%d", gen), alg: jose.RS256, priv: rk},
		{kid: fmt.Sprintf("ec-%d", gen), alg: jose.ES256, priv: ek},
	}, nil
}

// Claims are a token's payload; Standard fills the usual ones.
type Claims map[string]any

// Standard returns claims for subject with the issuer, audience, the scope string, the
// profiles claim (mindvault_profiles) and a lifetime of one hour from now.
func (i *Issuer) Standard(sub, aud, scope string, profiles ...string) Claims {
	now := time.Now()
	c := Claims{
		"iss": i.URL, "sub": sub, "aud": aud, "scope": scope,
		"iat": now.Unix(), "exp": now.Add(time.Hour).Unix(), "client_id": "test-client",
		"jti": fmt.Sprintf("jti-%d", now.UnixNano()),
	}
	if profiles != nil {
		c["mindvault_profiles"] = profiles
	}
	return c
}

// SignOptions choose how a token is signed.
type SignOptions struct {
	// Alg is RS256 (default) or ES256: the current key of that algorithm signs.
	Alg jose.SignatureAlgorithm
	// KeyID overrides the kid header (e.g. one the issuer never published); NoKeyID omits it.
	KeyID   string
	NoKeyID bool
	// Typ is the typ header; "at+jwt" when empty, "-" to omit it.
	Typ string
}

// Sign issues a token for claims, signed with a published key.
func (i *Issuer) Sign(c Claims, o SignOptions) (string, error) {
	if o.Alg == "" {
		o.Alg = jose.RS256
	}
	i.mu.Lock()
	var key *signingKey
	for n := range i.keys {
		if i.keys[n].alg == o.Alg {
			key = &i.keys[n]
			break
		}
	}
	i.mu.Unlock()
	if key == nil {
		return "", fmt.Errorf("testissuer: no %s key", o.Alg)
	}
	jwk := jose.JSONWebKey{Key: key.priv, KeyID: key.kid}
	if o.KeyID != "" {
		jwk.KeyID = o.KeyID
	}
	if o.NoKeyID {
		jwk.KeyID = ""
	}
	so := &jose.SignerOptions{}
	switch o.Typ {
	case "":
		so = so.WithType("at+jwt")
	case "-":
	default:
		so = so.WithType(jose.ContentType(o.Typ))
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: o.Alg, Key: jwk}, so)
	if err != nil {
		return "", err
	}
	return jwt.Signed(signer).Claims(map[string]any(c)).Serialize()
}

// Unsigned is a token with alg "none" and an empty signature, as an attacker would send it.
func Unsigned(c Claims) string {
	return encodeSegment(map[string]any{"alg": "none", "typ": "at+jwt"}) + "." + encodeSegment(c) + "."
}

// HS256WithPublicKey is the algorithm-confusion attack: a token "signed" with HMAC-SHA256
// whose secret is the issuer's RSA public key in PEM, under the RSA key's id, in the hope
// that a verifier feeds the public key to HMAC.
func (i *Issuer) HS256WithPublicKey(c Claims) (string, error) {
	i.mu.Lock()
	var rk signingKey
	for _, k := range i.keys {
		if k.alg == jose.RS256 {
			rk = k
			break
		}
	}
	i.mu.Unlock()
	der, err := x509.MarshalPKIXPublicKey(rk.priv.Public())
	if err != nil {
		return "", err
	}
	secret := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: jose.JSONWebKey{Key: secret, KeyID: rk.kid}},
		(&jose.SignerOptions{}).WithType("at+jwt"))
	if err != nil {
		return "", err
	}
	return jwt.Signed(signer).Claims(map[string]any(c)).Serialize()
}

func encodeSegment(v any) string {
	b, _ := json.Marshal(v)
	return base64.RawURLEncoding.EncodeToString(b)
}

func (i *Issuer) serve(w http.ResponseWriter, r *http.Request) {
	i.mu.Lock()
	down, discIss := i.down, i.discoveryIssuer
	keys := append([]signingKey(nil), i.keys...)
	i.mu.Unlock()
	if discIss == "" {
		discIss = i.URL
	}
	openid := strings.TrimSuffix(i.URL, "/") + "/.well-known/openid-configuration"
	rfc8414 := i.srv.URL + "/.well-known/oauth-authorization-server" + strings.TrimSuffix(i.opts.Path, "/")
	full := i.srv.URL + r.URL.Path
	switch {
	case full == rfc8414 || (full == openid && !i.opts.RFC8414Only):
		i.discoveryHits.Add(1)
		if down != 0 {
			http.Error(w, "unavailable", down)
			return
		}
		writeJSON(w, map[string]any{
			"issuer":                                discIss,
			"jwks_uri":                              i.JWKSURL(),
			"authorization_endpoint":                i.srv.URL + "/authorize",
			"token_endpoint":                        i.srv.URL + "/token",
			"response_types_supported":              []string{"code"},
			"grant_types_supported":                 []string{"authorization_code", "refresh_token"},
			"code_challenge_methods_supported":      []string{"S256"},
			"token_endpoint_auth_methods_supported": []string{"none", "client_secret_basic"},
			"scopes_supported":                      []string{"mindvault:read", "mindvault:spend", "mindvault:write"},
		})
	case r.URL.Path == "/jwks":
		i.jwksHits.Add(1)
		if down != 0 {
			http.Error(w, "unavailable", down)
			return
		}
		set := jose.JSONWebKeySet{}
		for _, k := range keys {
			set.Keys = append(set.Keys, jose.JSONWebKey{Key: k.priv.Public(), KeyID: k.kid, Algorithm: string(k.alg), Use: "sig"})
		}
		writeJSON(w, set)
	default:
		http.NotFound(w, r)
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
