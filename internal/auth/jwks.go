package auth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/mindvault/mcp-endpoint/internal/netaddr"
	"github.com/mindvault/mcp-endpoint/internal/obs"
)

// Timing of the signing-key cache. Keys are fetched on first need, never at boot, and kept in
// process memory, so a warm Lambda instance fetches them once.
const (
	// KeyRefreshInterval is the least time between two fetches once keys are cached: a token
	// with an unknown kid triggers at most one refresh per interval, so random kids cannot
	// turn the endpoint into a load generator against the issuer.
	KeyRefreshInterval = 30 * time.Second
	// KeyColdRetryInterval is the least time between two fetches while none ever succeeded:
	// shorter, because every request with a token is refused until one does.
	KeyColdRetryInterval = 5 * time.Second
	// KeyMaxAge is how long cached keys are trusted before the set is fetched again, so a key
	// the issuer withdrew stops verifying; if that fetch fails the cached keys stay in use.
	KeyMaxAge = time.Hour
	// keyFetchTimeout bounds one discovery or JWKS request; keyFetchBudget bounds both.
	keyFetchTimeout = 5 * time.Second
	keyFetchBudget  = 10 * time.Second
	maxKeyDocument  = 512 << 10 // bounds a discovery document or key set
)

// verifier checks access tokens of one issuer, whose signing keys it fetches (discovery
// document, then its jwks_uri) and caches. It is safe for concurrent use; concurrent misses
// share one fetch.
type verifier struct {
	cfg    OAuth
	http   *http.Client
	logger *slog.Logger
	now    func() time.Time

	mu        sync.Mutex
	keys      []jose.JSONWebKey
	have      bool      // a fetch succeeded once
	fetchedAt time.Time // last success
	attemptAt time.Time // last attempt, success or not
	fetching  chan struct{}
}

func newVerifier(cfg OAuth, logger *slog.Logger) *verifier {
	client := cfg.HTTPClient
	if client == nil {
		client = &http.Client{
			Timeout: keyFetchTimeout,
			// A redirect is not followed: the documents must be where discovery says, over
			// the scheme the issuer was configured with.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	}
	return &verifier{cfg: cfg, http: client, logger: logger, now: time.Now}
}

// lookup returns the cached keys usable for a token with this kid and alg, fetching the set when
// it is missing, stale or lacks the kid and the rate limit allows; ready is false before any fetch.
func (v *verifier) lookup(ctx context.Context, kid string, alg jose.SignatureAlgorithm) (keys []jose.JSONWebKey, ready bool) {
	fetched := false
	for {
		v.mu.Lock()
		keys, ready = matching(v.keys, kid, alg), v.have
		if ready && len(keys) > 0 && v.now().Sub(v.fetchedAt) < KeyMaxAge {
			v.mu.Unlock()
			return keys, true
		}
		if ch := v.fetching; ch != nil {
			v.mu.Unlock()
			select {
			case <-ch:
				fetched = true
				continue
			case <-ctx.Done():
				return keys, ready
			}
		}
		interval := KeyRefreshInterval
		if !ready {
			interval = KeyColdRetryInterval
		}
		if fetched || (!v.attemptAt.IsZero() && v.now().Sub(v.attemptAt) < interval) {
			// Rate-limited, or already fetched for this request: answer from the cache.
			v.mu.Unlock()
			return keys, ready
		}
		ch := make(chan struct{})
		v.fetching, v.attemptAt = ch, v.now()
		v.mu.Unlock()

		// The fetch is shared: one caller's cancelled request must not fail the others.
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), keyFetchBudget)
		got, err := v.fetch(fctx)
		cancel()

		v.mu.Lock()
		if err == nil {
			v.keys, v.have, v.fetchedAt = got, true, v.now()
		}
		have := v.have
		v.fetching = nil
		close(ch)
		v.mu.Unlock()
		if err != nil {
			consequence := "requests with a token are answered 503 until a fetch succeeds (retried at most every " + KeyColdRetryInterval.String() + ")"
			if have {
				consequence = "the keys fetched before stay in use; a token signed with another key is refused (401) until a fetch succeeds (retried at most every " + KeyRefreshInterval.String() + ")"
			}
			v.logger.ErrorContext(ctx, "OAuth signing keys could not be fetched from the issuer "+obs.Field(v.cfg.Issuer)+": "+err.Error()+"; "+consequence)
		}
		fetched = true
	}
}

// matching filters keys for a token's kid (every key when the token names none) and alg.
func matching(keys []jose.JSONWebKey, kid string, alg jose.SignatureAlgorithm) []jose.JSONWebKey {
	return slices.DeleteFunc(slices.Clone(keys), func(k jose.JSONWebKey) bool {
		return !((kid == "" || k.KeyID == kid) && keyFits(k, alg))
	})
}

// keyFits reports a public key that can verify alg: RS256 needs RSA of 2048 bits or more,
// ES256 needs ECDSA P-256; a key that declares its own alg must declare this one.
func keyFits(k jose.JSONWebKey, alg jose.SignatureAlgorithm) bool {
	if k.Algorithm != "" && k.Algorithm != string(alg) {
		return false
	}
	switch pub := k.Key.(type) {
	case *rsa.PublicKey:
		return alg == jose.RS256 && pub.N.BitLen() >= 2048
	case *ecdsa.PublicKey:
		return alg == jose.ES256 && pub.Curve == elliptic.P256()
	}
	return false
}

// discoveryURLs are the metadata locations tried in order: OpenID Connect discovery (the path
// appended to the issuer), then RFC 8414's (the well-known segment before the issuer's path).
// The issuer parses: the middleware refuses every request before a token is verified otherwise.
func discoveryURLs(issuer string) []string {
	u, _ := url.Parse(issuer)
	path := strings.TrimSuffix(u.Path, "/")
	openid := strings.TrimSuffix(issuer, "/") + "/.well-known/openid-configuration"
	rfc8414 := u.Scheme + "://" + u.Host + "/.well-known/oauth-authorization-server" + path
	return []string{openid, rfc8414}
}

// errUnreachable marks a transport failure: no other discovery path is tried, since the
// same host would not answer it either.
var errUnreachable = errors.New("unreachable")

// fetch reads the discovery document and the key set it names.
func (v *verifier) fetch(ctx context.Context) ([]jose.JSONWebKey, error) {
	var jwksURI string
	var errs []string
	for _, u := range discoveryURLs(v.cfg.Issuer) {
		var doc struct {
			Issuer  string `json:"issuer"`
			JWKSURI string `json:"jwks_uri"`
		}
		err := v.getJSON(ctx, u, &doc)
		switch {
		case err == nil && doc.Issuer != v.cfg.Issuer:
			// RFC 8414 section 3.3 and OpenID discovery 4.3: a document naming another issuer
			// is not this issuer's (a mix-up or a misconfigured path).
			err = fmt.Errorf("names issuer %q, not the configured one", obs.Field(doc.Issuer))
		case err == nil && !fetchableURL(doc.JWKSURI, v.cfg.Issuer):
			err = errors.New("jwks_uri is missing or not an https URL")
		}
		if err == nil {
			jwksURI = doc.JWKSURI
			break
		}
		errs = append(errs, "discovery "+obs.Field(u)+": "+err.Error())
		if errors.Is(err, errUnreachable) {
			break
		}
	}
	if jwksURI == "" {
		return nil, errors.New(strings.Join(errs, "; "))
	}
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := v.getJSON(ctx, jwksURI, &set); err != nil {
		return nil, fmt.Errorf("JWKS %s: %w", obs.Field(jwksURI), err)
	}
	var keys []jose.JSONWebKey
	for _, raw := range set.Keys {
		var k jose.JSONWebKey
		// A key this endpoint cannot use (another type, an encryption key, private material
		// by mistake) is skipped rather than failing the whole set.
		if k.UnmarshalJSON(raw) == nil && k.IsPublic() && (k.Use == "" || k.Use == "sig") &&
			(keyFits(k, jose.RS256) || keyFits(k, jose.ES256)) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("JWKS %s holds no RS256 (RSA 2048+) or ES256 (P-256) signing key", obs.Field(jwksURI))
	}
	return keys, nil
}

func (v *verifier) getJSON(ctx context.Context, u string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := v.http.Do(req)
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() || ctx.Err() != nil {
			return fmt.Errorf("%w: timed out", errUnreachable)
		}
		return fmt.Errorf("%w: %s", errUnreachable, transportReason(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxKeyDocument+1))
	if err != nil {
		return fmt.Errorf("%w: reading the body failed", errUnreachable)
	}
	if len(body) > maxKeyDocument {
		return fmt.Errorf("document larger than %d bytes", maxKeyDocument)
	}
	if err := json.Unmarshal(body, out); err != nil {
		return errors.New("not a JSON object of the expected shape")
	}
	return nil
}

// transportReason names a transport failure without quoting anything the network sent.
func transportReason(err error) string {
	var dns *net.DNSError
	var op *net.OpError
	switch {
	case errors.As(err, &dns):
		return "DNS lookup failed"
	case errors.As(err, &op) && op.Op == "dial":
		return "connection refused or unreachable"
	case strings.Contains(err.Error(), "tls") || strings.Contains(err.Error(), "x509"):
		return "TLS handshake failed"
	}
	return "connection failed"
}

// fetchableURL accepts https URLs, and http ones on a loopback host when the issuer itself
// is a loopback http issuer (tests and local development).
func fetchableURL(s, issuer string) bool {
	u, err := url.Parse(s)
	return err == nil && u.Host != "" &&
		(u.Scheme == "https" || u.Scheme == "http" && netaddr.LoopbackHTTP(issuer) && netaddr.LoopbackHTTP(s))
}
