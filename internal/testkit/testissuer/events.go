package testissuer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// TokenSpec describes one named token of a tokens file (events/oauth/issuer/tokens.json): its
// claims, merged over Standard's, where exp, nbf and iat are seconds relative to the moment
// the token is minted (exp -600 is a token that expired ten minutes ago), and the signing
// algorithm: "RS256" (default), "ES256", or "none" for an unsigned token.
type TokenSpec struct {
	Alg    string         `json:"alg"`
	Claims map[string]any `json:"claims"`
}

// LoadSpecs reads a tokens file: a JSON object from token name to TokenSpec.
func LoadSpecs(path string) (map[string]TokenSpec, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	var specs map[string]TokenSpec
	if err := dec.Decode(&specs); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return specs, nil
}

// placeholder is how an event asks for a token: {{oauth:NAME}}, e.g. in its authorization
// header "Bearer {{oauth:alice-read}}". Events cannot hold real tokens: the issuer's URL (its
// port) and keys change on every run.
var placeholder = regexp.MustCompile(`\{\{oauth:([A-Za-z0-9_.-]+)\}\}`)

// Expand replaces every placeholder in text with a token minted now from specs, for audience,
// and returns the tokens it minted (so a caller can check none of them is ever logged).
func (i *Issuer) Expand(text []byte, specs map[string]TokenSpec, audience string) ([]byte, []string, error) {
	var minted []string
	var firstErr error
	out := placeholder.ReplaceAllFunc(text, func(m []byte) []byte {
		name := string(placeholder.FindSubmatch(m)[1])
		spec, ok := specs[name]
		if !ok {
			if firstErr == nil {
				firstErr = fmt.Errorf("no token %q in the tokens file", name)
			}
			return m
		}
		tok, err := i.Mint(spec, audience)
		if err != nil && firstErr == nil {
			firstErr = fmt.Errorf("token %q: %w", name, err)
		}
		minted = append(minted, tok)
		return []byte(tok)
	})
	return out, minted, firstErr
}

// Mint issues the token a spec describes.
func (i *Issuer) Mint(spec TokenSpec, audience string) (string, error) {
	now := time.Now()
	c := i.Standard("", audience, "")
	delete(c, "sub")
	delete(c, "scope")
	for k, v := range spec.Claims {
		switch k {
		case "exp", "nbf", "iat":
			n, ok := v.(json.Number)
			secs, err := n.Int64()
			if !ok || err != nil {
				return "", fmt.Errorf("%s must be a whole number of seconds relative to now", k)
			}
			c[k] = now.Add(time.Duration(secs) * time.Second).Unix()
		default:
			c[k] = v
		}
	}
	switch spec.Alg {
	case "", "RS256":
		return i.Sign(c, SignOptions{Alg: jose.RS256})
	case "ES256":
		return i.Sign(c, SignOptions{Alg: jose.ES256})
	case "none":
		return Unsigned(c), nil
	}
	return "", fmt.Errorf("alg %q is not RS256, ES256 or none", spec.Alg)
}
